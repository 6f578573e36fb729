"""hudi-c compacts the metadata table (MDT) of a copy-on-write table Spark 1.2.0 created with its
default MDT (files, column_stats and, when partitioned, partition_stats): every partition is
compacted into HFile base files, and Spark still prunes correctly with data skipping.

The table is created by Spark SQL (a fresh table, with Spark 1.2's own defaults; secondary
indexes have their own test, test_mdt_secondary_index_engines.py). hudi-c then writes 12 commits (updates far outside the old
ranges, inserts, deletes), which makes the MDT due for compaction
(hoodie.metadata.compact.max.delta.commits = 10).

Oracles:
* the compacted base HFiles themselves, decoded by ../shared/tools/hudi_check.py's own HFile and
  Avro readers: keys strictly ascending, no column-stats tombstone (isDeleted) left, and every
  MDT file group that had log files got a base file of the compaction instant;
* Hudi's own MDT reader (Spark's `hudi_metadata` table-valued function over the compacted base
  files plus later logs): the column_stats record of every latest base file and indexed data
  column equals the Parquet footer statistics pyarrow reads from that file, and the
  partition_stats ranges equal the model's per-partition ranges;
* Spark's query results with data skipping (a stale or wrong range would prune a file holding a
  matching row) against an independent model of the rows;
* hudi_check.py passing after hudi-c's writes; Spark writing again after the compaction and
  hudi-c reading Spark's result.
"""

from __future__ import annotations

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

SKIPPING = {"hoodie.enable.data.skipping": "true", "hoodie.metadata.enable": "true"}
REGIONS = ["eu", "us"]


def check(path: Path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    # Hadoop's local file system leaves .crc files beside Spark's timeline files.
    fails = [ln for ln in fails if not ln.endswith(".crc: not a layout-2 timeline file name")]
    assert not fails, r.stdout + r.stderr
    return r.stdout


def plain(x):
    """A Spark value without its type tags (structs stay dicts of plain values)."""
    if isinstance(x, dict):
        if len(x) == 1 and next(iter(x)) in ("string", "long", "int", "bool", "double", "decimal", "binary",
                                             "date", "timestamp", "float", "short", "byte"):
            return plain(next(iter(x.values())))
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def mdt_dir(path: Path) -> Path:
    return path / ".hoodie" / "metadata"


def mdt_completed(path: Path) -> list[str]:
    tl = mdt_dir(path) / ".hoodie" / "timeline"
    return sorted(f for f in os.listdir(tl) if not f.startswith(".") and "_" in f.split(".")[0])


def latest_base_files(path: Path) -> dict[str, Path]:
    """file name -> path of the latest base file of every file group (copy-on-write), from storage
    and the data timeline's completed instants (uncommitted and rolled-back files left out)."""
    table = hc.Table(str(path))
    out = {}
    for (_, _), files in table.live_file_groups().items():
        base, _logs = table.latest_slice(files)
        if base is not None:
            out[base.name] = path / base.rel_path
    return out


def parquet_stats(f: Path, column: str) -> tuple:
    """(min, max, valueCount, nullCount) of a column over a Parquet file's row groups (pyarrow)."""
    md = pq.ParquetFile(f).metadata
    idx = md.schema.names.index(column)
    lo = hi = None
    values = nulls = 0
    for g in range(md.num_row_groups):
        c = md.row_group(g).column(idx)
        s = c.statistics
        values += c.num_values
        nulls += s.null_count
        if s.has_min_max:
            lo = s.min if lo is None else min(lo, s.min)
            hi = s.max if hi is None else max(hi, s.max)
    return lo, hi, values, nulls


def wrapped(v):
    """The value inside a column-stats min/max wrapper struct (one non-null member)."""
    if isinstance(v, dict):
        inner = [x for x in v.values() if x is not None]
        if not inner:
            return None
        x = inner[0]
        return x.get("value") if isinstance(x, dict) else x
    return v


def hudi_reader_stats(spark, path: Path) -> dict[int, dict[tuple[str, str], dict]]:
    """type -> (fileName, columnName) -> ColumnStatsMetadata, as Hudi's own MDT reader merges them."""
    frame = spark.sql(f"SELECT type, ColumnStatsMetadata FROM hudi_metadata('{path}') WHERE type IN (3, 6)")
    out: dict[int, dict] = {3: {}, 6: {}}
    for r in frame.rows:
        t, m = plain(r["type"]), plain(r["ColumnStatsMetadata"])
        out[t][(m["fileName"], m["columnName"])] = m
    return out


def compacted_hfiles(path: Path, partition: str, instant: str) -> list[Path]:
    d = mdt_dir(path) / partition
    return sorted(d / n for n in os.listdir(d) if n.endswith(f"_{instant}.hfile"))


def hfile_records(f: Path) -> list[tuple[bytes, dict]]:
    h = hc.HFile(f.read_bytes())
    schema = h.schema()
    return [(kv.key, schema.decode_exact(kv.value)) for kv in h.key_values()]


def ids(frame) -> list[str]:
    return sorted(plain(r["id"]) for r in frame.rows)


@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "nonpartitioned"])
def test_compacted_mdt_with_column_stats(spark, tmp_path, partitioned):
    name = f"mdtcs_{'p' if partitioned else 'np'}"
    path = tmp_path / name
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              + ("PARTITIONED BY (region) " if partitioned else "")
              + f"LOCATION '{path}' TBLPROPERTIES (type = 'cow', primaryKey = 'id', preCombineField = 'ts', "
              "'hoodie.table.timeline.timezone' = 'UTC')")
    spark.sql(f"INSERT INTO {name} VALUES ('k00', 10, 1, 'eu'), ('k01', 20, 1, 'us'), ('k02', 30, 1, 'eu'), "
              "('k03', 40, 1, 'us')")
    props = spark.table_config(str(path))["properties"]
    parts = set(props.get("hoodie.table.metadata.partitions", "").split(","))
    assert {"column_stats", "files"} <= parts, props
    assert ("partition_stats" in parts) == partitioned, props
    model = {"k00": (10, "eu"), "k01": (20, "us"), "k02": (30, "eu"), "k03": (40, "us")}

    snap = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    before = mdt_completed(path)
    # 12 commits: an update far outside the old ranges and an insert each; every fourth also a delete.
    for i in range(12):
        t = hudi.HudiTable(str(path))
        old = sorted(model)[i % len(model)]
        new = f"k{10 + i:02d}"
        rows = [{"id": old, "v": 1000 * (i + 1), "ts": 2 + i, "region": model[old][1]},
                {"id": new, "v": -(i + 1), "ts": 2 + i, "region": REGIONS[i % 2]}]
        t.upsert(pa.RecordBatch.from_pylist(rows, schema=schema))
        model[old] = (1000 * (i + 1), model[old][1])
        model[new] = (-(i + 1), REGIONS[i % 2])
        if i % 4 == 3:
            gone = sorted(model)[1]
            hudi.HudiTable(str(path)).delete_keys([gone])
            del model[gone]
    ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert sorted(zip(ours.column("id").to_pylist(), ours.column("v").to_pylist())) == \
        sorted((k, v) for k, (v, _) in model.items())
    check(path)

    # The MDT compacted: one completed commit of hudi-c's, base files in every partition.
    compactions = [f for f in mdt_completed(path) if f.endswith(".commit") and f not in before]
    assert len(compactions) >= 1, mdt_completed(path)
    instant = compactions[-1].split("_")[0]
    stats_parts = ["column_stats"] + (["partition_stats"] if partitioned else [])
    for p in ["files"] + stats_parts:
        files = compacted_hfiles(path, p, instant)
        assert files, (p, os.listdir(mdt_dir(path) / p))
        for f in files:
            recs = hfile_records(f)
            keys = [k for k, _ in recs]
            assert keys == sorted(keys) and len(set(keys)) == len(keys), f
            for _, rec in recs:
                assert rec["_hoodie_file_name"] == f.name, (f, rec["_hoodie_file_name"])
                m = rec.get("ColumnStatsMetadata")
                if p in stats_parts:
                    assert m is not None and not m["isDeleted"], (f, rec)

    # Hudi's own MDT reader over the compacted MDT: column_stats of every latest file equal its
    # Parquet footer; partition_stats equal the model's ranges.
    seen = hudi_reader_stats(spark, path)
    latest = latest_base_files(path)
    assert latest
    for fname, f in latest.items():
        for col in ("id", "v"):
            m = seen[3].get((fname, col))
            assert m is not None, (fname, col, sorted(seen[3])[:5])
            lo, hi, values, nulls = parquet_stats(f, col)
            got = (wrapped(m["minValue"]), wrapped(m["maxValue"]), m["valueCount"], m["nullCount"])
            assert got == (lo, hi, values, nulls), (fname, col, got)
    if partitioned:
        for region in REGIONS:
            vs = [v for v, r in model.values() if r == region]
            part = next(p for (p, c) in seen[6] if c == "v" and p.endswith(region))
            m = seen[6][(part, "v")]
            assert (wrapped(m["minValue"]), wrapped(m["maxValue"]), m["valueCount"]) == (min(vs), max(vs), len(vs))

    # Spark with data skipping.
    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        for cond, pred in [("v >= 12000", lambda v: v >= 12000), ("v < 0", lambda v: v < 0),
                           ("v = 20", lambda v: v == 20), ("v > 100000", lambda v: False)]:
            res = spark.sql(f"SELECT id FROM {name} WHERE {cond}")
            assert ids(res) == sorted(k for k, (v, _) in model.items() if pred(v)), cond
        # Spark writes after our compaction and reads through the compacted MDT.
        spark.sql(f"INSERT INTO {name} VALUES ('k99', 99999, 100, 'us')")
        model["k99"] = (99999, "us")
        res = spark.sql(f"SELECT id FROM {name} WHERE v > 50000")
        assert ids(res) == ["k99"]
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert sorted(ours.column("id").to_pylist()) == sorted(model)
