"""A table Spark 1.2.0 SQL creates and writes with its default metadata table (files,
column_stats, partition_stats) stays writable by hudi-c, and hudi-c keeps column_stats and
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


def test_spark_table_with_column_stats(spark, tmp_path):
    path = tmp_path / "cs"
    name = "cs_tbl"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              f"PARTITIONED BY (region) LOCATION '{path}' "
              "TBLPROPERTIES (type = 'cow', primaryKey = 'id', preCombineField = 'ts', "
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
    written = {f.name for f in path.rglob(f"*_{r.requested_time}.parquet")}
    assert written
    stats = column_stats_files(path)
    for f in written:
        assert {"v", "id", "_hoodie_record_key"} <= stats.get(f, set()), (f, stats.get(f))
    us = snap.filter(pa.compute.equal(snap.column("region"), "us")).column("_hoodie_partition_path")[0].as_py()
    assert partition_ranges(path)[(us, "v")] == (30, 7000, 3)
    hudi.HudiTable(str(path)).delete_keys(["k3"])
    del model["k3"]
    check(path)
    # partition_stats are recomputed from the partition's latest files: k3's 30 is gone.
    assert partition_ranges(path)[(us, "v")] == (40, 7000, 2)

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
    for k in SKIPPING:
        spark.sql(f"RESET {k}")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
