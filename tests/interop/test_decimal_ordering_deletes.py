"""MOR deletes ordered by a decimal ordering field (EVENT_TIME_ORDERING).

Apache Spark + Hudi writes a MERGE_ON_READ table whose ordering field is a DECIMAL(10,2), then
upserts rows flagged `_hoodie_is_deleted = true` with a lower, an equal and a higher ordering value
than the stored rows: Hudi writes them as a DELETE block whose orderingVal is a DecimalWrapper
(decimal(30,15), hudi-c's log_delete_block.h) -- checked below by decoding the block. A delete whose
value is lower than the stored row's loses; equal or higher wins (hudi-write-semantics.md §1.3).
Oracle: Spark's snapshot read of the same table; hudi-c's read must return the same rows.
"""

from __future__ import annotations

import importlib.util
import json
from decimal import Decimal
import sys
from pathlib import Path

import pytest

from oracles import row_diff

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"


def ours(path: str) -> list:
    import hudi

    t = hudi.HudiTable(path)
    rows = [r for b in t.read() for r in b.to_pylist()]
    return sorted((r["id"], str(r["ts"]), r["v"]) for r in rows if not r.get("_hoodie_is_deleted"))


def theirs(spark, path: str) -> list:
    f = spark.read_table(path)
    cols = f.columns
    out = []
    for r in f.rows:
        d = dict(zip(cols, r)) if isinstance(r, list) else r
        if d.get("_hoodie_is_deleted"):
            continue
        ts = d["ts"]["$decimal"] if isinstance(d["ts"], dict) else str(d["ts"])
        out.append((d["id"], ts, d["v"]))
    return sorted(out)


def _zigzag(b: bytes, i: int):
    s = k = 0
    while True:
        x = b[i]
        i += 1
        s |= (x & 0x7F) << k
        k += 7
        if not x & 0x80:
            return (s >> 1) ^ -(s & 1), i


def delete_block_orderings(path: str) -> dict:
    """record key -> (orderingVal union branch, unscaled value when a DecimalWrapper) of every DELETE
    block record in the table's data log files (blocks split by the conformance checker's parser;
    the records decoded here: version 3, length, Avro HoodieDeleteRecordList)."""
    spec = importlib.util.spec_from_file_location("hudi_check", CHECKER)
    hc = importlib.util.module_from_spec(spec)
    sys.modules["hudi_check"] = hc
    spec.loader.exec_module(hc)
    out = {}
    for f in Path(path).rglob(".*.log.*"):
        if ".hoodie" in f.parts or f.name.endswith(".crc"):
            continue
        for blk in hc.parse_log_file(f.read_bytes()):
            if blk.block_type != hc.DELETE:
                continue
            body = blk.content[8:]
            n, i = _zigzag(body, 0)
            for _ in range(n):
                strs = []
                for _field in range(2):  # recordKey, partitionPath: ["null", "string"]
                    u, i = _zigzag(body, i)
                    if u:
                        ln, i = _zigzag(body, i)
                        strs.append(body[i:i + ln].decode())
                        i += ln
                branch, i = _zigzag(body, i)
                assert branch == 9, f"orderingVal branch {branch}: expected DecimalWrapper (9)"
                ln, i = _zigzag(body, i)
                out[strs[0]] = int.from_bytes(body[i:i + ln], "big", signed=True)
                i += ln
    return out


def test_decimal_ordered_deletes_equal_spark(spark, tmp_path):
    path = str(tmp_path / "t")
    name = f"h3_dec_{abs(hash(path)) % 10**8}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, ts DECIMAL(10,2), v INT, _hoodie_is_deleted BOOLEAN) USING hudi "
              f"LOCATION '{path}' TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', "
              f"'hoodie.index.type' = 'SIMPLE')")
    try:
        spark.sql("SET hoodie.spark.sql.insert.into.operation=upsert")
        spark.sql(f"INSERT INTO {name} VALUES ('k1', 10.50, 1, false), ('k2', 10.50, 2, false), "
                  f"('k3', 10.50, 3, false), ('k4', 10.50, 4, false)")
        # k1: lower value (the delete loses), k2: equal (wins), k3: higher (wins), k4: untouched.
        spark.sql(f"INSERT INTO {name} VALUES ('k1', 10.49, 10, true), ('k2', 10.50, 20, true), "
                  f"('k3', 99.00, 30, true)")
        spark.sql("RESET hoodie.spark.sql.insert.into.operation")
        # Spark wrote the deletes as DecimalWrapper values at scale 15.
        assert delete_block_orderings(path) == {k: int(Decimal(v).scaleb(15)) for k, v in
                                                (("k1", "10.49"), ("k2", "10.50"), ("k3", "99.00"))}
        expected = theirs(spark, path)
        got = ours(path)
        assert got == expected, row_diff([json.dumps(x) for x in got], [json.dumps(x) for x in expected],
                                         ("hudi-c", "spark"))
        # The case must be the one named: k1 survives its lower-valued delete, k2 and k3 are gone.
        assert [r[0] for r in expected] == ["k1", "k4"], expected
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
