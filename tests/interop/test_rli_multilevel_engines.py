"""Spark 1.2.0 upserts through a record index whose HFiles have a multi-level block index.

hudi-c writes the record index with 4 KiB HFile blocks; once a shard's root index outgrows one
block the HFile gets leaf index blocks (IDXLEAF2) as HBase writes them. With 100k rows keyed by
36-character ids every shard's HFile is multi-level: the shard's base file, as hudi-c writes a
shard's first keys by default (hoodie.metadata.record.index.initial.base.files), or, with that
option false, the HFile inside its MDT log block. Spark looks keys up in it: an update of
an existing key must land in place (a key Spark fails to find would come back duplicated), a
new key is inserted; hudi-c and Spark then read the same rows, and hudi_check.py (which reads
every HFile level and checks the index against the data) passes.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

import hudi

from test_write_mdt_engines import check, spark_rows, spark_upsert, triples

N = 100_000


def key(i: int) -> str:
    return f"{i:08d}-0000-4000-8000-{i * 7919 % 10**12:012d}"


def rows(start: int, n: int) -> pa.Table:
    ids = range(start, start + n)
    return pa.table({"id": [key(i) for i in ids], "region": [["eu", "us", "apac"][i % 3] for i in ids],
                     "v": pa.array(list(ids), pa.int64())})


def rli_hfiles(path: Path, base: bool) -> list[Path]:
    """The record index's base files, or its log files."""
    d = path / ".hoodie" / "metadata" / "record_index"
    if base:
        return sorted(p for p in d.iterdir() if p.name.endswith(".hfile"))
    return sorted(p for p in d.iterdir() if p.name.startswith(".") and ".log." in p.name
                  and not p.name.endswith(".crc"))


# MOR only: the COW path looks keys up through the same HFiles (test_write_mdt_engines covers
# Spark using our index on COW), and each case costs minutes of Spark.
@pytest.mark.parametrize("table_type,where", [("mor", "base"), ("mor", "log")])
def test_spark_upserts_through_multilevel_record_index(tmp_path, spark, interop_config, table_type, where):
    path = tmp_path / f"rli_ml_{table_type}_{where}"
    t = hudi.HudiTable.create(str(path), "id", table_type=table_type,
                              hudi_options={"hoodie.metadata.record.index.initial.base.files": str(where == "base").lower()})
    t.append(rows(0, N))
    # Block headers are not compressed: the magic shows in the file bytes. Each of the 10 shards
    # has a base file or a log holding its HFile (beside the empty log the index was
    # initialised with).
    multilevel = {p.name.lstrip(".").split("_")[0] for p in rli_hfiles(path, where == "base")
                  if b"IDXLEAF2" in p.read_bytes()}
    assert len(multilevel) == 10, multilevel
    check(path)

    spark_upsert(interop_config, tmp_path, path, table_type, False,
                 [[key(4), "eu", -4], [key(31337), "us", -31337], [key(999999), "us", 999999]])
    expected = {r[0]: r for r in triples(rows(0, N))}
    expected[key(4)] = (key(4), "eu", -4)
    expected[key(31337)] = (key(31337), "us", -31337)
    expected[key(999999)] = (key(999999), "us", 999999)
    expected = sorted(expected.values())
    got = triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read()))
    assert len(got) == len(expected)  # no key duplicated: Spark found both existing keys
    assert got == expected
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected
    check(path, spark_wrote=True)

    # hudi-c keyed writes on top, through the index Spark updated.
    hudi.HudiTable(str(path)).upsert(pa.table({"id": [key(4), key(99999)], "region": ["eu", "apac"],
                                               "v": pa.array([4, -99999], pa.int64())}))
    final = {r[0]: r for r in expected}
    final[key(4)] = (key(4), "eu", 4)
    final[key(99999)] = (key(99999), "apac", -99999)
    final = sorted(final.values())
    assert triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read())) == final
    check(path, spark_wrote=True)
