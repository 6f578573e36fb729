"""A table Spark 1.2.0 SQL creates and writes with its default metadata table (files,
column_stats, partition_stats), copy-on-write or merge-on-read, stays writable by hudi-c, and hudi-c keeps column_stats and
partition_stats current: Spark, reading with data skipping (hoodie.enable.data.skipping=true,
hoodie.metadata.enable=true), gets the right rows for filters that only the rows hudi-c wrote
match (a stale or wrong range would prune their files), and Spark writes again afterwards.

Oracles: Spark's query results against an independent model of the rows; the column_stats
records of the files hudi-c wrote, decoded by ../shared/tools/hudi_check.py's own reader;
hudi_check.py passing after hudi-c's writes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute  # noqa: F401
import pyarrow.parquet as pq
import pytest

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402

SKIPPING = {"hoodie.enable.data.skipping": "true", "hoodie.metadata.enable": "true"}


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    # Hadoop's local file system leaves .crc files beside Spark's timeline files.
    fails = [ln for ln in fails if not ln.endswith(".crc: not a layout-2 timeline file name")]
    assert not fails, r.stdout + r.stderr


def column_stats_files(path: Path) -> dict[str, set[str]]:
    """file name -> indexed columns with a live column_stats record."""
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out: dict[str, set[str]] = {}
    for fid in hc._metadata_groups(ctx.mdt, "column_stats"):
        for rec in ctx.merged_group("column_stats", fid).values():
            m = rec["ColumnStatsMetadata"]
            if not m["isDeleted"]:
                out.setdefault(m["fileName"], set()).add(m["columnName"])
    return out


def partition_ranges(path: Path) -> dict[tuple[str, str], tuple]:
    """(partition, column) -> (min, max, valueCount) of the partition_stats records."""
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, "partition_stats"):
        for rec in ctx.merged_group("partition_stats", fid).values():
            m = rec["ColumnStatsMetadata"]
            lo, hi = (x["value"] if isinstance(x, dict) else x for x in (m["minValue"], m["maxValue"]))
            out[(m["fileName"], m["columnName"])] = (lo, hi, m["valueCount"])
    return out


def ids(frame) -> list[str]:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(v(r["id"]) for r in frame.rows)


def log_records(path: Path, name: str) -> list[dict]:
    """The data records of a log file, decoded by the checker's own reader (Avro) or pyarrow."""
    f = next(path.rglob(name))
    out = []
    for b in hc.parse_log_file(f.read_bytes()):
        if b.block_type == hc.AVRO_DATA:
            out.extend(hc.decode_avro_data_block(b))
        elif b.block_type == hc.PARQUET_DATA:  # the block's content is a Parquet file: pyarrow reads it
            out.extend(pq.read_table(pa.BufferReader(b.content)).to_pylist())
    return out


def column_stats_of(path: Path, file_name: str) -> dict[str, dict]:
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, "column_stats"):
        for rec in ctx.merged_group("column_stats", fid).values():
            m = rec["ColumnStatsMetadata"]
            if m["fileName"] == file_name and not m["isDeleted"]:
                out[m["columnName"]] = m
    return out


def unwrap(v):
    return v["value"] if isinstance(v, dict) else v


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_table_with_column_stats(spark, tmp_path, table_type):
    path = tmp_path / "cs"
    name = f"cs_tbl_{table_type}"
    mor = table_type == "mor"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              f"PARTITIONED BY (region) LOCATION '{path}' "
              f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts', "
              "'hoodie.table.timeline.timezone' = 'UTC')")
    spark.sql(f"INSERT INTO {name} VALUES ('k1', 10, 1, 'eu'), ('k2', 20, 1, 'eu'), ('k3', 30, 1, 'us'), "
              "('k4', 40, 1, 'us')")
    props = spark.table_config(str(path))["properties"]
    parts = props.get("hoodie.table.metadata.partitions", "").split(",")
    assert {"column_stats", "files", "partition_stats"} <= set(parts), props
    model = {"k1": 10, "k2": 20, "k3": 30, "k4": 40}

    # hudi-c: an update to a value far outside the old ranges, an insert, then a delete.
    t = hudi.HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    rows = [{"id": "k2", "v": 5000, "ts": 2, "region": "eu"}, {"id": "k5", "v": 7000, "ts": 2, "region": "us"}]
    r = hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(rows, schema=schema))
    model.update(k2=5000, k5=7000)
    check(path)
    written = {f.name for f in path.rglob(f"*_{r.requested_time}*") if f.is_file() and ".hoodie" not in f.parts}
    assert written
    stats = column_stats_files(path)
    for f in written:
        assert {"v", "id", "_hoodie_record_key"} <= stats.get(f, set()), (f, stats.get(f))
    logs = [f for f in written if ".log." in f]
    assert bool(logs) == mor, written  # MOR: k2's update went to a log file
    for f in logs:
        # A log file's stats are those of its records (checker-decoded), sizes 0, as Spark's append handle.
        recs = log_records(path, f)
        got = column_stats_of(path, f)
        for col in ("v", "id", "_hoodie_record_key"):
            vals = [r[col] for r in recs]
            m = got[col]
            assert (unwrap(m["minValue"]), unwrap(m["maxValue"]), m["valueCount"], m["nullCount"],
                    m["totalSize"]) == (min(vals), max(vals), len(vals), 0, 0), (f, col, m)
    us = snap.filter(pa.compute.equal(snap.column("region"), "us")).column("_hoodie_partition_path")[0].as_py()
    eu = snap.filter(pa.compute.equal(snap.column("region"), "eu")).column("_hoodie_partition_path")[0].as_py()
    assert partition_ranges(path)[(us, "v")] == (30, 7000, 3)
    # eu: k1 10, k2 20 in the base file, k2's 5000 in a MOR log file (the old 20 still counts there).
    assert partition_ranges(path)[(eu, "v")] == ((10, 5000, 3) if mor else (10, 5000, 2))
    d = hudi.HudiTable(str(path)).delete_keys(["k3"])
    del model["k3"]
    check(path)
    if mor:
        # k3 is deleted by a delete block: its log file gets NULL-typed stubs with zero counts, and the
        # base file that still holds k3's 30 keeps counting, as in Spark.
        (dlog,) = [f.name for f in path.rglob(f"*_{d.requested_time}*.log.*") if ".hoodie" not in f.parts]
        m = column_stats_of(path, dlog)["v"]
        assert (m["minValue"], m["maxValue"], m["valueCount"], m["valueType"]["typeOrdinal"]) == (None, None, 0, 1)
        assert partition_ranges(path)[(us, "v")] == (30, 7000, 3)
        # Compaction folds the logs into new base files: k3's 30 and k2's old 20 are gone.
        hudi.HudiTable(str(path)).compact()
        check(path)
    # partition_stats are recomputed from the partition's latest files: k3's 30 is gone.
    assert partition_ranges(path)[(us, "v")] == (40, 7000, 2)
    assert partition_ranges(path)[(eu, "v")] == (10, 5000, 2)

    # Spark with data skipping: only rows hudi-c wrote match these filters.
    for cond, want in [("v >= 1000", ["k2", "k5"]), ("v = 7000", ["k5"]), ("v < 25", ["k1"]),
                       ("id = 'k3'", [])]:
        got = ids(spark.read_table(str(path), {**SKIPPING, "hoodie.datasource.query.type": "snapshot"}))
        assert got == sorted(model), got
        for k, val in SKIPPING.items():
            spark.sql(f"SET {k}={val}")
        res = spark.sql(f"SELECT id FROM {name} WHERE {cond}")
        assert ids(res) == sorted(want), (cond, ids(res))

    # Spark writes again (its own column stats on top of ours) and reads everything back.
    spark.sql(f"INSERT INTO {name} VALUES ('k6', 60, 3, 'eu')")
    model["k6"] = 60
    res = spark.sql(f"SELECT id FROM {name} WHERE v > 50")
    assert ids(res) == sorted(k for k, v in model.items() if v > 50)
    ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert sorted(ours.column("id").to_pylist()) == sorted(model)
    if mor:
        # A Spark update (a log file with Spark's stats), then hudi-c again: its partition stats take
        # in Spark's log file, and Spark's data skipping finds rows in both writers' log files.
        spark.sql(f"UPDATE {name} SET v = 9000, ts = 4 WHERE id = 'k1'")
        model["k1"] = 9000
        rows = [{"id": "k4", "v": -5, "ts": 5, "region": "us"}, {"id": "k6", "v": 61, "ts": 5, "region": "eu"}]
        hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(rows, schema=schema))
        model.update(k4=-5, k6=61)
        check(path)
        lo, hi, _ = partition_ranges(path)[(eu, "v")]
        assert (lo, hi) == (10, 9000), (lo, hi)  # 10: k1's old value still in the eu base file
        for k, val in SKIPPING.items():
            spark.sql(f"SET {k}={val}")
        for cond, want in [("v = 9000", ["k1"]), ("v < 0", ["k4"]), ("v = 61", ["k6"]), ("v = 10", [])]:
            assert ids(spark.sql(f"SELECT id FROM {name} WHERE {cond}")) == want, cond
        ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
        assert dict(zip(ours.column("id").to_pylist(), ours.column("v").to_pylist())) == model
    for k in SKIPPING:
        spark.sql(f"RESET {k}")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
