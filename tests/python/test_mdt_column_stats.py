"""hudi-c keeps the metadata table's column_stats and partition_stats current
on a Spark-written copy-on-write table (Hudi 1.1, the 1.x defaults: files,
column_stats, partition_stats, record_index).

The table is the v9_txns_simple_overwrite fixture (Spark 1.1, region
partitions, including an insert-overwrite replacecommit). After each hudi-c upsert / delete:
  - the merged column_stats records (decoded by the conformance checker's own
    HFile/Avro reader) of every file the snapshot reads equal the column
    statistics pyarrow reads from that file's Parquet footer (min, max, null
    count, value count, compressed/uncompressed sizes, the value type);
  - the partition_stats record of every touched partition equals those
    statistics merged over the partition's latest files;
  - ../shared/tools/hudi_check.py passes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES, table_path

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402

# Hudi's ValueType ordinals (org.apache.hudi.stats.ValueType).
VT = {"bool": 2, "int32": 3, "int64": 4, "float": 5, "double": 6, "string": 7, "date32[day]": 12,
      "timestamp[us, tz=UTC]": 16}


def spark_table(tmp_path: Path) -> Path:
    src = Path(table_path("sample_table/cow/v9_txns_simple_overwrite"))
    dst = tmp_path / "t"
    shutil.copytree(src, dst)
    props = (dst / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.metadata.partitions=column_stats,files,partition_stats,record_index" in props
    return dst


def mdt_records(path: Path, partition: str) -> dict[str, dict]:
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, partition):
        out.update(ctx.merged_group(partition, fid))
    return out


def unwrap(v):
    if v is None:
        return None
    v = v["value"] if isinstance(v, dict) else v
    return bytes(v) if isinstance(v, (bytes, bytearray)) else v


def wrap_expected(value, typ: pa.DataType):
    """A pyarrow statistics value as the wrapper's value Hudi writes."""
    if value is None:
        return None
    if pa.types.is_decimal(typ):
        unscaled = int(Decimal(value).scaleb(typ.scale))
        n = max(1, (unscaled.bit_length() + 8) // 8)
        return unscaled.to_bytes(n, "big", signed=True)
    if pa.types.is_timestamp(typ):
        return int(pa.scalar(value, typ).cast(pa.int64()).as_py())
    if pa.types.is_date32(typ):
        return int(pa.scalar(value, typ).cast(pa.int32()).as_py())
    return value


def file_stats(path: Path, rel: str, columns: list[str]) -> dict[str, dict]:
    """Column stats of one Parquet file from its footer (the oracle)."""
    f = pq.ParquetFile(path / rel)
    schema = f.schema_arrow
    out = {}
    for col in columns:
        if col not in schema.names:
            continue
        i = f.schema_arrow.get_field_index(col)
        typ = schema.field(col).type
        s = {"min": None, "max": None, "nulls": 0, "values": 0, "size": 0, "usize": 0, "type": typ}
        for rg in range(f.metadata.num_row_groups):
            c = f.metadata.row_group(rg).column(i)
            s["values"] += c.num_values
            s["size"] += c.total_compressed_size
            s["usize"] += c.total_uncompressed_size
            st = c.statistics
            if st is not None:
                s["nulls"] += st.null_count
                if st.has_min_max:
                    lo, hi = wrap_expected(st.min, typ), wrap_expected(st.max, typ)
                    if isinstance(lo, str):  # Parquet orders strings as unsigned bytes
                        lo_k, hi_k = lo.encode(), hi.encode()
                    elif pa.types.is_decimal(typ):  # numerically, not by their bytes
                        lo_k, hi_k = Decimal(st.min), Decimal(st.max)
                    else:
                        lo_k, hi_k = lo, hi
                    if s["min"] is None or lo_k < s["min"][0]:
                        s["min"] = (lo_k, lo)
                    if s["max"] is None or hi_k > s["max"][0]:
                        s["max"] = (hi_k, hi)
        out[col] = s
    return out


def check_record(rec: dict, want: dict, where: str) -> None:
    cs = rec["ColumnStatsMetadata"]
    assert cs["isDeleted"] is False, where
    got = (unwrap(cs["minValue"]), unwrap(cs["maxValue"]), cs["nullCount"], cs["valueCount"], cs["totalSize"],
           cs["totalUncompressedSize"])
    exp = (want["min"][1] if want["min"] else None, want["max"][1] if want["max"] else None, want["nulls"],
           want["values"], want["size"], want["usize"])
    assert got == exp, (where, cs["columnName"], got, exp)
    typ = want["type"]
    if pa.types.is_decimal(typ):
        assert cs["valueType"] == {"typeOrdinal": 10, "additionalInfo": f"{typ.precision},{typ.scale}"}, where
    elif str(typ) in VT:
        assert cs["valueType"]["typeOrdinal"] == VT[str(typ)], (where, cs["columnName"], typ)


def latest_files(path: Path) -> dict[str, set[str]]:
    """partition -> names of the latest base files (the checker's view: live file
    groups, replacecommits applied)."""
    d = hc.Table(str(path))
    out: dict[str, set[str]] = {}
    for (part, _), files in d.live_file_groups().items():
        base, logs = d.latest_slice(files)
        assert base is not None and not logs
        out.setdefault(part, set()).add(Path(base.rel_path).name)
    return out


def verify(path: Path, touched: set[str]) -> None:
    columns = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"]
    cs = mdt_records(path, "column_stats")
    by_file = {}
    for rec in cs.values():
        m = rec["ColumnStatsMetadata"]
        if not m["isDeleted"]:
            by_file.setdefault(m["fileName"], {})[m["columnName"]] = rec
    ps = {(r["ColumnStatsMetadata"]["fileName"], r["ColumnStatsMetadata"]["columnName"]): r
          for r in mdt_records(path, "partition_stats").values()}
    checked = 0
    for part, files in latest_files(path).items():
        for name in sorted(files):
            stats = file_stats(path, f"{part}/{name}", columns)
            assert name in by_file, f"no column stats for {part}/{name}"
            for col, want in stats.items():
                check_record(by_file[name][col], want, f"{part}/{name}")
                checked += 1
        # partition stats: merge the files' stats
        agg: dict[str, dict] = {}
        for name in sorted(files):
            for col, w in file_stats(path, f"{part}/{name}", columns).items():
                a = agg.get(col)
                if a is None:
                    agg[col] = {**w}
                    continue
                for k in ("nulls", "values", "size", "usize"):
                    a[k] += w[k]
                if w["min"] and (a["min"] is None or w["min"][0] < a["min"][0]):
                    a["min"] = w["min"]
                if w["max"] and (a["max"] is None or w["max"][0] > a["max"][0]):
                    a["max"] = w["max"]
        if part in touched:
            for col, want in agg.items():
                rec = ps[(part, col)]
                assert rec["ColumnStatsMetadata"]["isTightBound"] is True
                check_record(rec, want, f"partition {part}")
    assert checked > 0
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def batch(rows: list[dict], schema: pa.Schema) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=schema)


def test_upsert_and_delete_keep_column_stats(tmp_path):
    path = spark_table(tmp_path)
    t = HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    data_cols = [c for c in snap.schema.names if not c.startswith("_hoodie")]
    schema = snap.select(data_cols).schema
    rows = snap.select(data_cols).to_pylist()
    eu = sorted((r for r in rows if r["region"] == "eu"), key=lambda r: r["txn_id"])
    us = sorted((r for r in rows if r["region"] == "us"), key=lambda r: r["txn_id"])
    assert eu and us
    # An update in eu (a new max amount and merchant) and a new key in us.
    upd = dict(eu[0])
    upd["txn_ts"] = upd["txn_ts"] + 1000
    upd["merchant_name"] = "Zzz Market"
    upd["amount"] = Decimal("99999.99")
    new = dict(us[0])
    new.update(txn_id="TXN-900", txn_ts=new["txn_ts"] + 5, merchant_name=None)
    r = HudiTable(str(path)).upsert(batch([upd, new], schema))
    assert r.num_inserts == 1
    parts = dict(zip(snap.column("region").to_pylist(), snap.column("_hoodie_partition_path").to_pylist()))
    verify(path, {parts["eu"], parts["us"]})
    cs = mdt_records(path, "partition_stats")
    eu = [x["ColumnStatsMetadata"] for x in cs.values()
          if x["ColumnStatsMetadata"]["fileName"] == parts["eu"]
          and x["ColumnStatsMetadata"]["columnName"] == "merchant_name"]
    assert unwrap(eu[0]["maxValue"]) == "Zzz Market"

    # Delete the updated key: eu's merchant_name max falls back.
    HudiTable(str(path)).delete_keys([upd["txn_id"]])
    verify(path, {parts["eu"]})
    cs = mdt_records(path, "partition_stats")
    eu = [x["ColumnStatsMetadata"] for x in cs.values()
          if x["ColumnStatsMetadata"]["fileName"] == parts["eu"]
          and x["ColumnStatsMetadata"]["columnName"] == "merchant_name"]
    assert unwrap(eu[0]["maxValue"]) != "Zzz Market"


def test_mor_log_file_stats_from_records(tmp_path):
    """On the Spark MOR fixture (Spark 1.1: column_stats of its log files too), the column_stats of a
    hudi-c update's log file are the ranges of the log file's records, decoded independently (the
    checker's Avro reader, or pyarrow for a Parquet block; sizes 0, as Spark's append handle writes them); a delete's log file gets NULL-typed
    records with zero counts, as Spark's do; partition_stats take the log file in."""
    src = Path(table_path("sample_table/mor/avro/v9_txns_simple_meta"))
    dst = tmp_path / "m"
    shutil.copytree(src, dst)
    t = HudiTable(str(dst))
    snap = pa.Table.from_batches(t.read())
    data = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")])
    rows = data.filter(pa.compute.is_in(data.column("txn_id"), pa.array(["TXN-001", "TXN-013"])))
    i = rows.schema.get_field_index("merchant_name")
    rows = rows.set_column(i, rows.schema.field(i), pa.array(["Zzz Market", None]))
    i = rows.schema.get_field_index("txn_ts")
    rows = rows.set_column(i, rows.schema.field(i), pa.array([1800000000000, 1800000000000], pa.int64()))
    r = HudiTable(str(dst)).upsert(rows)
    logs = [f for f in dst.rglob(f".*_{r.requested_time}.log.*") if ".hoodie" not in f.parts]
    n_recs = 0
    stats = mdt_records(dst, "column_stats").values()
    for log in logs:
        recs = []
        for b in hc.parse_log_file(log.read_bytes()):
            if b.block_type == hc.AVRO_DATA:
                recs.extend(hc.decode_avro_data_block(b))
            elif b.block_type == hc.PARQUET_DATA:  # the block's content is a Parquet file: pyarrow reads it
                recs.extend(pq.read_table(pa.BufferReader(b.content)).to_pylist())
        n_recs += len(recs)
        cs = {x["ColumnStatsMetadata"]["columnName"]: x["ColumnStatsMetadata"] for x in stats
              if x["ColumnStatsMetadata"]["fileName"] == log.name}
        for col in ("merchant_name", "txn_id", "txn_ts", "_hoodie_commit_time"):
            vals = [x[col] for x in recs if x[col] is not None]
            m = cs[col]
            want = (min(vals) if vals else None, max(vals) if vals else None, len(recs), len(recs) - len(vals), 0, 0)
            assert (unwrap(m["minValue"]), unwrap(m["maxValue"]), m["valueCount"], m["nullCount"], m["totalSize"],
                    m["totalUncompressedSize"]) == want, (log.name, col, m)
            assert m["isDeleted"] is False
    assert n_recs == 2
    part = snap.filter(pa.compute.equal(snap.column("txn_id"), "TXN-001")).column("_hoodie_partition_path")[0].as_py()
    ps = [x["ColumnStatsMetadata"] for x in mdt_records(dst, "partition_stats").values()
          if x["ColumnStatsMetadata"]["fileName"] == part and x["ColumnStatsMetadata"]["columnName"] == "merchant_name"]
    assert unwrap(ps[0]["maxValue"]) == "Zzz Market"
    d = HudiTable(str(dst)).delete_keys(["TXN-017"])
    (dlog,) = [f for f in dst.rglob(f".*_{d.requested_time}.log.*") if ".hoodie" not in f.parts]
    cs = [x["ColumnStatsMetadata"] for x in mdt_records(dst, "column_stats").values()
          if x["ColumnStatsMetadata"]["fileName"] == dlog.name]
    assert cs and all((m["minValue"], m["maxValue"], m["valueCount"], m["valueType"]["typeOrdinal"], m["isDeleted"])
                      == (None, None, 0, 1, False) for m in cs)
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(dst)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
