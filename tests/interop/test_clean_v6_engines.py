"""Cleaning tables of version 6 (timeline layout 1) with Spark 1.2.0 (Hudi 1.2.0 writing version
6, no metadata table) and hudi-rs 0.5.0.

hudi-c writes a version-6 table whose writes clean automatically (hoodie.clean.commits.retained
= 2): Spark and hudi-rs read the rows of a plain-Python model after our cleans; Spark then writes
with its own cleaner on (its incremental cleaning starts from our last clean's metadata; on COW
it cleans), and hudi-c writes and cleans after Spark's cleans. Every engine reads the model after
every step. (Reads as of the earliest commit to retain: tests/python/test_clean_v6.py.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from test_mixed_sequence import spark_options

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
SCHEMA = "id string, region string, v long"
CLEAN = {"hoodie.clean.commits.retained": "2", "hoodie.parquet.small.file.limit": "0"}


def checker_failures(path: Path) -> set:
    """The checker's FAIL check names (Spark 1.2's version-6 writes fail properties.keys:
    docs/compatibility.md item 28)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    return {ln.split(":")[0] for ln in r.stdout.splitlines() if ln.startswith("FAIL")}


def v6_options(path: Path, table_type: str) -> dict:
    o = spark_options(path, table_type, "upsert")
    o.update({"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false",
              "hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "SIMPLE",
              "hoodie.clean.automatic": "true", **CLEAN})
    return o


def ours(path: Path) -> list:
    t = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    return sorted(zip(t.column("id").to_pylist(), t.column("region").to_pylist(), t.column("v").to_pylist()))


def rows_of(frame) -> list:
    return sorted((r["id"], r["region"], r["v"]) for r in frame.rows)


def cleans(path: Path) -> list:
    return sorted(f[:17] for f in os.listdir(path / ".hoodie") if re.match(r"^\d{17}\.clean$", f))


def batch(ids, v) -> pa.Table:
    return pa.table({"id": [f"k{i:02d}" for i in ids], "region": [["eu", "us"][i % 2] for i in ids],
                     "v": pa.array([v * 100 + i for i in ids], pa.int64())})


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_cleans_across_engines(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"clean_v6_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                              record_index_enabled=False, hudi_options={"hoodie.write.table.version": "6"})
    t.append(batch(range(6), 1), CLEAN)
    model = {r[0]: r for r in zip(*(batch(range(6), 1).column(c).to_pylist() for c in ("id", "region", "v")))}
    for v in range(2, 7):
        b = batch([0, 1, 2, 3], v)
        hudi.HudiTable(str(path)).upsert(b, CLEAN)
        if table_type == "mor" and v == 4:
            hudi.HudiTable(str(path)).compact(CLEAN)
        model.update({r[0]: r for r in zip(*(b.column(c).to_pylist() for c in ("id", "region", "v")))})
    ours_cleans = cleans(path)
    assert ours_cleans  # our writes cleaned
    assert checker_failures(path) == set()
    want = sorted(model.values())
    assert ours(path) == want
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want

    # Spark writes twice with its cleaner on, after our cleans.
    for v in (7, 8):
        spark.call("write", path=str(path), rows=[[f"k{i:02d}", ["eu", "us"][i % 2], v * 100 + i] for i in (0, 1)],
                   schema=SCHEMA, options=v6_options(path, table_type))
        model.update({f"k{i:02d}": (f"k{i:02d}", ["eu", "us"][i % 2], v * 100 + i) for i in (0, 1)})
    want = sorted(model.values())
    if table_type == "cow":
        assert len(cleans(path)) > len(ours_cleans)  # Spark cleaned after our cleans
    spark_cleans = cleans(path)
    assert rows_of(spark.read_table(str(path))) == want
    assert ours(path) == want
    spark_fails = checker_failures(path)

    # hudi-c writes and cleans on after Spark's cleans.
    for v in (9, 10, 11):
        b = batch([0, 2, 4], v)
        hudi.HudiTable(str(path)).upsert(b, CLEAN)
        if table_type == "mor" and v == 9:
            hudi.HudiTable(str(path)).compact(CLEAN)  # new slices over Spark's log files
        model.update({r[0]: r for r in zip(*(b.column(c).to_pylist() for c in ("id", "region", "v")))})
    assert len(cleans(path)) > len(spark_cleans)
    want = sorted(model.values())
    assert ours(path) == want
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want
    assert checker_failures(path) <= spark_fails
