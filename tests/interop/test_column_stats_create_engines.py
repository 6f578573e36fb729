"""A table hudi-c creates with column stats (hoodie.metadata.index.column.stats.enable=true, table
version 9, or 8 for Spark 1.0.2) is one Spark reads with data skipping and keeps writing.

Oracles: Spark's query results with data skipping on (hoodie.enable.data.skipping=true) against an
independent model of the rows, for filters only rows hudi-c wrote match (a missing or wrong range
would prune their files); the column list Spark itself writes into index.json after its own commit
(Hudi's getColumnsToIndex), which must equal the one hudi-c wrote; Spark's, hudi-rs's and hudi-c's
reads; ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest

import hudi
from test_mdt_column_stats_engines import SKIPPING, check, column_stats_files, ids

SCHEMA = pa.schema([("id", pa.string()), ("v", pa.int64()), ("ts", pa.int64()), ("region", pa.string())])


def source_fields(path: Path) -> list[str]:
    return json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"]


def query(spark, name: str, cond: str) -> list[str]:
    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        return ids(spark.sql(f"SELECT id FROM {name} WHERE {cond}"))
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")


def hudirs_reads(hudirs, path: Path, model: dict) -> None:
    """hudi-rs reads the table (its metadata table with column_stats and partition_stats) as we do."""
    def plain(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    rs = {plain(r["id"]): plain(r["v"]) for r in hudirs.read_table(str(path)).rows}
    assert rs == model, rs


def spark_then_hudi_c(spark, path: Path, name: str, model: dict, ours_cols: list[str]) -> None:
    """Spark writes (its own column stats next to ours, keeping the record index as a Spark job on
    an RLI table does) and lists the columns it indexed: the same; then hudi-c writes over Spark's
    files, and Spark's data-skipping queries and hudi-c's read find the model's rows."""
    rli = {"hoodie.metadata.record.index.enable": "true", "hoodie.index.type": "RECORD_INDEX"}
    for k, val in rli.items():
        spark.sql(f"SET {k}={val}")
    try:
        spark.sql(f"INSERT INTO {name} VALUES ('k6', 60, 3, 'eu')")
        spark.sql(f"UPDATE {name} SET v = 9000, ts = 4 WHERE id = 'k1'")
    finally:
        for k in rli:
            spark.sql(f"RESET {k}")
    model.update(k6=60, k1=9000)
    assert source_fields(path) == ours_cols
    hudi.HudiTable(str(path)).upsert(pa.Table.from_pylist([{"id": "k4", "v": -5, "ts": 5, "region": "us"}],
                                                           schema=SCHEMA))
    model["k4"] = -5
    check(path)
    for cond, want in [("v = 9000", ["k1"]), ("v < 0", ["k4"]), ("v = 60", ["k6"]), ("v = 10", []),
                       ("v > 50", sorted(k for k, v in model.items() if v > 50))]:
        assert query(spark, name, cond) == want, cond
    ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert dict(zip(ours.column("id").to_pylist(), ours.column("v").to_pylist())) == model
    spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize("engine, table_type", [("spark", "cow"), ("spark", "mor"), ("spark_v8", "mor")])
def test_hudi_c_table_with_column_stats(request, hudirs, tmp_path, engine, table_type):
    spark = request.getfixturevalue(engine)
    v8 = engine == "spark_v8"
    path = tmp_path / "cs"
    t = hudi.HudiTable.create(str(path), record_key="id", ordering_fields="ts", partition_fields="region",
                              table_type=table_type,
                              hudi_options={"hoodie.metadata.index.column.stats.enable": "true",
                                            "hoodie.write.table.version": "8" if v8 else "9"})
    rows = [("k1", 10, "eu"), ("k2", 20, "eu"), ("k3", 30, "us"), ("k4", 40, "us")]
    t.append(pa.Table.from_pylist([{"id": k, "v": v, "ts": 1, "region": r} for k, v, r in rows], schema=SCHEMA))
    model = {k: v for k, v, _ in rows}
    t.upsert(pa.Table.from_pylist([{"id": "k2", "v": 5000, "ts": 2, "region": "eu"},
                                   {"id": "k5", "v": 7000, "ts": 2, "region": "us"}], schema=SCHEMA))
    model.update(k2=5000, k5=7000)
    t.delete_keys(["k3"])
    del model["k3"]
    check(path)
    ours_cols = source_fields(path)
    assert ours_cols == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "v", "ts",
                         "region"]
    stats = column_stats_files(path)
    assert stats and all(set(ours_cols) <= cols for cols in stats.values()), stats

    hudirs_reads(hudirs, path, model)

    name = f"hc_cs_{table_type}{'_v8' if v8 else ''}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    # Spark with data skipping: only rows hudi-c wrote match these filters.
    for cond, want in [("v >= 1000", ["k2", "k5"]), ("v = 7000", ["k5"]), ("v < 25", ["k1"]), ("id = 'k3'", [])]:
        assert query(spark, name, cond) == want, cond

    spark_then_hudi_c(spark, path, name, model, ours_cols)


@pytest.mark.parametrize("engine, table_type", [("spark", "mor"), ("spark", "cow"), ("spark_v8", "cow")])
def test_column_stats_hudi_c_added(request, hudirs, tmp_path, engine, table_type):
    """hudi-c adds column and partition stats to a table of its own that had none (a write with
    hoodie.metadata.index.column.stats.enable=true): every file written before the add gets its
    records, so Spark's data skipping finds rows of those files, Spark writes on and lists the
    same columns, and hudi-c continues."""
    spark = request.getfixturevalue(engine)
    v8 = engine == "spark_v8"
    path = tmp_path / "csadd"
    t = hudi.HudiTable.create(str(path), record_key="id", ordering_fields="ts", partition_fields="region",
                              table_type=table_type, hudi_options={"hoodie.write.table.version": "8" if v8 else "9"})
    rows = [("k1", 10, "eu"), ("k2", 20, "eu"), ("k3", 30, "us"), ("k4", 40, "us")]
    t.append(pa.Table.from_pylist([{"id": k, "v": v, "ts": 1, "region": r} for k, v, r in rows], schema=SCHEMA))
    model = {k: v for k, v, _ in rows}
    t.upsert(pa.Table.from_pylist([{"id": "k2", "v": 5000, "ts": 2, "region": "eu"}], schema=SCHEMA))
    model["k2"] = 5000
    t.delete_keys(["k3"])
    del model["k3"]
    assert "column_stats" not in (path / ".hoodie" / "hoodie.properties").read_text()
    # The add, with a write to the other partition only: the eu files are indexed by the add alone.
    t.upsert(pa.Table.from_pylist([{"id": "k5", "v": 7000, "ts": 2, "region": "us"}], schema=SCHEMA),
             {"hoodie.metadata.index.column.stats.enable": "true"})
    model["k5"] = 7000
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.metadata.partitions=column_stats,files,partition_stats,record_index\n" in props
    check(path)
    ours_cols = source_fields(path)
    assert ours_cols == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "v", "ts",
                         "region"]

    hudirs_reads(hudirs, path, model)

    name = f"hc_csadd_{table_type}{'_v8' if v8 else ''}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    for cond, want in [("v >= 1000", ["k2", "k5"]), ("v = 5000", ["k2"]), ("v < 15", ["k1"]), ("v = 40", ["k4"]),
                       ("id = 'k3'", [])]:
        assert query(spark, name, cond) == want, cond
    spark_then_hudi_c(spark, path, name, model, ours_cols)
