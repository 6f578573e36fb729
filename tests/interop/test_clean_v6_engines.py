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
from pathlib import Path

import pyarrow as pa
import pytest

from test_rollback_v6_engines import SCHEMA, ours, rows_of
from test_rollback_v6_engines import spark_checker_failures as checker_failures
from test_rollback_v6_engines import v6_options as rollback_v6_options

import hudi

CLEAN = {"hoodie.clean.commits.retained": "2", "hoodie.parquet.small.file.limit": "0"}


def v6_options(path: Path, table_type: str) -> dict:
    """Spark writing version 6 without a metadata table (test_rollback_v6_engines), cleaning."""
    return {**rollback_v6_options(path, table_type), "hoodie.clean.automatic": "true", **CLEAN}


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
