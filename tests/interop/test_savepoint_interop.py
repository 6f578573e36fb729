"""Savepoint and restore across engines: Apache Spark + Hudi 1.2.0 reads a table hudi-c restored
and gets the rows hudi-c reads; Spark restores a savepoint hudi-c created (CALL
rollback_to_savepoint) and hudi-c reads the result; Spark lists our savepoint (CALL
show_savepoints)."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

import hudi



def batch(ids, v) -> pa.Table:
    return pa.table({"id": [f"k{i:03d}" for i in ids], "region": [["eu", "us", "apac"][i % 3] for i in ids],
                     "v": pa.array([v] * len(ids), pa.int64())})


def ours(path: Path) -> list:
    t = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    return sorted(zip(t.column("id").to_pylist(), t.column("region").to_pylist(), t.column("v").to_pylist()))


def rows_of(frame) -> list:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted((v(r["id"]), v(r["region"]), v(r["v"])) for r in frame.rows)


# the metadata table compacted after every deltacommit: the restore rolls its compactions back too
MDT_COMPACT = {"hoodie.metadata.compact.max.delta.commits": "1"}


def make_table(path: Path, kind: str, opts=None, savepoint=True) -> tuple:
    t = hudi.HudiTable.create(str(path), "id", ordering_fields="v", partition_fields="region", table_type=kind)
    t.append(batch(range(30), 1))
    hudi.HudiTable(str(path)).upsert(batch(range(0, 30, 4), 2))
    sp = hudi.HudiTable(str(path)).savepoint(user="interop", comment="c") if savepoint else None
    before = ours(path)
    hudi.HudiTable(str(path)).upsert(batch(range(0, 40, 3), 3), opts)
    hudi.HudiTable(str(path)).delete_keys([f"k{i:03d}" for i in range(1, 30, 5)], opts)
    assert ours(path) != before
    return sp, before


@pytest.mark.parametrize("kind,opts", [("cow", None), ("mor", None), ("mor", MDT_COMPACT)])
def test_spark_reads_our_restore(tmp_path, spark, kind, opts):
    path = tmp_path / "t"
    sp, before = make_table(path, kind, opts)
    names = spark.sql(f"CALL show_savepoints(path => '{path}')")
    assert [next(iter(r.values())) if isinstance(r, dict) else r for r in
            [row[names.columns[0]] for row in names.rows]] == [sp.instant]
    hudi.HudiTable(str(path)).restore(sp.instant)
    assert ours(path) == before
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == before
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "false"})) == before


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_spark_restores_our_savepoint(tmp_path, spark, kind):
    path = tmp_path / "t"
    sp, before = make_table(path, kind)
    spark.sql(f"CALL rollback_to_savepoint(path => '{path}', instant_time => '{sp.instant}')")
    tl = os.listdir(path / ".hoodie" / "timeline")
    assert any(f.endswith(".restore") for f in tl), tl
    assert ours(path) == before
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == before


def test_we_restore_a_spark_savepoint(tmp_path, spark):
    path = tmp_path / "t"
    t = hudi.HudiTable.create(str(path), "id", ordering_fields="v", partition_fields="region", table_type="mor")
    t.append(batch(range(30), 1))
    c2 = hudi.HudiTable(str(path)).upsert(batch(range(0, 30, 4), 2)).requested_time
    before = ours(path)
    spark.sql(f"CALL create_savepoint(path => '{path}', commit_time => '{c2}', user => 'spark', comments => 'x')")
    [info] = hudi.HudiTable(str(path)).savepoints()
    assert (info.instant, info.user, info.comments) == (c2, "spark", "x") and info.num_files > 0
    hudi.HudiTable(str(path)).upsert(batch(range(0, 40, 3), 3))
    hudi.HudiTable(str(path)).restore(c2)
    assert ours(path) == before
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == before
