"""A table Spark 1.2.0 (table version 9) or Spark 1.0.2 (version 8) creates with the metadata
table's bloom filter index (hoodie.metadata.index.bloom.filter.enable=true) stays writable by
hudi-c, which keeps the bloom_filters partition as Spark keeps it: one record per base file (its
footer's bloom filter, type code and instant; log files get none), keyed by partition and file
name as Spark keys its own, in the file group that key hashes to; a clean removes the records of
the base files it deleted with DELETE blocks shaped like Spark's own clean's; the metadata
compaction keeps the live records. Spark then upserts through its BLOOM index reading those
filters from the metadata table (hoodie.bloom.index.use.metadata=true): it finds the keys only
hudi-c's files hold and updates them in place.

Oracles: the footers of the base files on storage (pyarrow), MD5 of their names (hashlib), Spark's
own records and clean, Spark's upsert result, hudi_check.py passing after every hudi-c write.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402
from test_clean_column_stats_engines import completed, instant_blocks  # noqa: E402

PARTITION = "bloom_filters"


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    crc = ".crc: not a layout-2 timeline file name"
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    only_crc = {ln.split(":")[0] for ln in fails if ln.endswith(crc)} - \
        {ln.split(":")[0] for ln in fails if not ln.endswith(crc) and not ln.split(": ", 1)[1].startswith("... and ")}
    fails = [ln for ln in fails if not ln.endswith(crc)
             and not (ln.split(": ", 1)[1].startswith("... and ") and ln.split(":")[0] in only_crc)]
    assert not fails, r.stdout + r.stderr


def live_records(path: Path) -> dict[str, tuple[int, dict]]:
    """key -> (file group number, BloomFilterMetadata) of the live bloom_filters records."""
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, PARTITION):
        for k, rec in ctx.merged_group(PARTITION, fid).items():
            m = rec["BloomFilterMetadata"]
            if not m["isDeleted"]:
                out[k] = (int(fid.split("-")[-2]), m)
    return out


def base_files(path: Path) -> dict[str, Path]:
    return {f.name: f for f in path.rglob("*.parquet") if ".hoodie" not in f.parts}


def md5_id(name: str) -> str:
    return base64.b64encode(hashlib.md5(name.encode()).digest()).decode()


def partition_prefixes(path: Path) -> dict[str, str]:
    """partition -> the PartitionIndexID part of the keys, from the records of the files there."""
    recs = live_records(path)
    out = {}
    for name, f in base_files(path).items():
        part = f.parent.relative_to(path).as_posix()
        for k in recs:
            if k.endswith(md5_id(name)):
                out[part] = k[: -len(md5_id(name))]
    return out


def expect_matches_storage(path: Path, prefixes: dict[str, str]) -> None:
    """Exactly one live record per base file on storage, equal to what its footer holds."""
    recs = live_records(path)
    files = base_files(path)
    groups = len(hc._metadata_groups(hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True), PARTITION))
    want = {}
    for name, f in files.items():
        key = prefixes[f.parent.relative_to(path).as_posix()] + md5_id(name)
        meta = pq.read_metadata(f).metadata
        want[key] = {"type": meta[b"hoodie_bloom_filter_type_code"].decode(),
                     "timestamp": name.rsplit("_", 1)[1].split(".")[0],
                     "bloomFilter": meta[b"org.apache.hudi.bloomfilter"], "isDeleted": False}
    assert sorted(recs) == sorted(want), (sorted(recs), sorted(want), sorted(files))
    for key, (group, m) in recs.items():
        assert dict(m) == want[key], key
        assert group == hc.record_index_shard(key, groups), key


def delete_shape(path: Path, instant: str) -> tuple:
    """A clean's bloom_filters DELETE blocks, keys aside: headers, partition paths, orderings."""
    headers, records = set(), set()
    for _, b in instant_blocks(path, PARTITION, instant):
        assert b.block_type == hc.DELETE, b.type_name
        headers.add(tuple(sorted(b.header)))
        records.update((d["partitionPath"], json.dumps(d["orderingVal"])) for d in hc.decode_delete_block(b))
    return tuple(sorted(headers)), tuple(sorted(records))


@pytest.mark.parametrize("engine,table_type", [("spark", "cow"), ("spark", "mor"), ("spark_v8", "cow")])
def test_spark_table_with_bloom_filters(request, tmp_path, engine, table_type):
    spark = request.getfixturevalue(engine)
    path = tmp_path / "bf"
    name = f"bf_{table_type}{'_v8' if engine == 'spark_v8' else ''}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              f"PARTITIONED BY (region) LOCATION '{path}' TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', "
              "preCombineField = 'ts', 'hoodie.metadata.index.bloom.filter.enable' = 'true', "
              "'hoodie.table.timeline.timezone' = 'UTC')")
    # Spark's own upserts, and its own clean (1 commit retained) to compare ours with.
    setup = {"hoodie.clean.commits.retained": "1", "hoodie.spark.sql.insert.into.operation": "upsert"}
    for k, val in setup.items():
        spark.sql(f"SET {k}={val}")
    try:
        spark.sql(f"INSERT INTO {name} VALUES ('k1', 1, 1, 'eu'), ('k2', 2, 1, 'us')")
        for i in range(3):
            spark.sql(f"INSERT INTO {name} VALUES ('k3', {i}, {i}, 'eu')")
    finally:
        for k in setup:
            spark.sql(f"RESET {k}")
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "bloom_filters" in props, props
    spark_cleans = sorted(t for t, a in completed(path).items() if a == "clean")
    cleaned = [c for c in spark_cleans if instant_blocks(path, PARTITION, c)]
    assert cleaned, spark_cleans
    spark_shape = delete_shape(path, cleaned[0])  # before the metadata table compacts it away
    prefixes = partition_prefixes(path)
    assert set(prefixes) == {"region=eu", "region=us"}, prefixes
    expect_matches_storage(path, prefixes)  # the oracle agrees with Spark's own records

    # hudi-c: upserts (k1 and k2 changed, a new key each), 2 commits retained: its cleans remove
    # the records of the base files they delete; in the long run (12, Spark 1.2 COW) the metadata
    # table compacts meanwhile.
    long_run = (engine, table_type) == ("spark", "cow")
    snap = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    model = {"k1": 1, "k2": 2, "k3": 2}
    for i in range(12 if long_run else 5):
        rows = [{"id": "k1", "v": 100 + i, "ts": 10 + i, "region": "eu"},
                {"id": "k2", "v": 200 + i, "ts": 10 + i, "region": "us"},
                {"id": f"n{i}", "v": i, "ts": 10 + i, "region": "us"}]
        hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(rows, schema=schema),
                                         options={"hoodie.clean.commits.retained": "2"})
        model.update({"k1": 100 + i, "k2": 200 + i, f"n{i}": i})
        check(path)
        expect_matches_storage(path, prefixes)
    ours = sorted(t for t, a in completed(path).items() if a == "clean" and t not in spark_cleans)
    ours_cleaned = [c for c in ours if instant_blocks(path, PARTITION, c)]
    if table_type == "cow":  # every upsert rewrites k1's and k2's files: old versions are cleaned
        assert ours_cleaned, completed(path)
    for c in ours_cleaned:
        if instant_blocks(path, PARTITION, c):  # not yet compacted and cleaned away
            assert delete_shape(path, c) == spark_shape, c
    mdt = completed(path / ".hoodie" / "metadata")
    if long_run:
        assert any(a == "commit" for a in mdt.values()), mdt  # the metadata table compacted

    # Spark upserts through its BLOOM index, the filters read from the metadata table: keys only
    # hudi-c's files hold are found and updated, not inserted again.
    opts = {"hoodie.index.type": "BLOOM", "hoodie.bloom.index.use.metadata": "true",
            "hoodie.metadata.enable": "true", "hoodie.spark.sql.insert.into.operation": "upsert"}
    for k, val in opts.items():
        spark.sql(f"SET {k}={val}")
    try:
        spark.sql(f"REFRESH TABLE {name}")
        spark.sql(f"INSERT INTO {name} VALUES ('n4', 444, 100, 'us'), ('k1', 999, 100, 'eu')")
        model.update(n4=444, k1=999)
    finally:
        for k in opts:
            spark.sql(f"RESET {k}")
    rows = [(r["id"], r["v"]) for r in spark.read_table(str(path)).rows]
    assert sorted(rows) == sorted(model.items()), rows
    ours_rows = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert dict(zip(ours_rows.column("id").to_pylist(), ours_rows.column("v").to_pylist())) == model
    # hudi-c writes after Spark's commit, and the records still match storage.
    hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(
        [{"id": "k2", "v": 7, "ts": 200, "region": "us"}], schema=schema))
    check(path)
    expect_matches_storage(path, prefixes)
    spark.sql(f"DROP TABLE IF EXISTS {name}")
