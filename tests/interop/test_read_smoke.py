"""The harness itself: Spark + Hudi and hudi-rs read the same rows from every fixture table.

hudi-c's reader joins as the third party once it exists. Rows are compared whole (every column,
Hudi's meta columns included: the two engines agree on them for every fixture), as sorted multisets.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_tables import READ_EXCLUDED, params, table_path, tree_state
from oracles import row_diff

SAMPLE_ROWS = {(1, "Alice", False), (2, "Bob", False), (3, "Carol", True), (4, "Diana", True)}
TXNS_PARTITIONED = {f"TXN-{n:03d}" for n in (1, 3, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18)}
TXNS_NONPARTITIONED = {f"TXN-{n:03d}" for n in (1, 3, 4, *range(6, 17))}


def expected_rows(table: str):
    """Rows known from the fixtures' README (independent of both engines), or None."""
    name = Path(table).name
    if name.endswith("_empty"):
        return lambda rows: len(rows) == 0
    if table.startswith("sample_table/") and name[:3] in ("v6_", "v8_") and not name.endswith(
        ("_overwritetable", "_rollback")
    ):
        return lambda rows: {(r["id"], r["name"], r["isActive"]) for r in rows} == SAMPLE_ROWS and len(rows) == 4
    if name.startswith("v9_txns_") and not name.endswith("_overwrite"):
        ids = TXNS_NONPARTITIONED if "_nonpart_" in name else TXNS_PARTITIONED
        return lambda rows: sorted(r["txn_id"] for r in rows) == sorted(ids)
    if name == "v8_trips_8i3u1d":
        return lambda rows: sorted(r["rider"] for r in rows) == [f"rider-{c}" for c in "ACDEGI"]
    return None


@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_spark_and_hudirs_read_the_same_snapshot(table, spark, hudirs):
    path = table_path(table)
    before = tree_state(path)
    from_spark = spark.read_table(path)
    from_rs = hudirs.read_table(path)
    assert tree_state(path) == before, "a reader changed files of the table"

    assert from_spark.columns == from_rs.columns
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))
    check = expected_rows(table)
    if check is not None:
        assert check(from_spark.rows), from_spark.rows


def test_expected_rows_cover_the_fixtures():
    """The README-derived anchors above apply to most tables, so equal-but-wrong reads get caught."""
    from fixture_tables import ALL_TABLES

    covered = [t for t in ALL_TABLES if t not in READ_EXCLUDED and expected_rows(t) is not None]
    assert len(covered) >= 20, covered


V8_READABLE = [t for t in params(READ_EXCLUDED) if Path(t.values[0]).name[:3] in ("v6_", "v8_")]


@pytest.mark.parametrize("table", V8_READABLE)
def test_hudi_1_0_spark_reads_v6_and_v8_tables(table, spark_v8, hudirs):
    """The Hudi 1.0.x bundle (the table-version-8 writer later tests use) reads what hudi-rs reads."""
    path = table_path(table)
    from_spark = spark_v8.read_table(path)
    from_rs = hudirs.read_table(path)
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, (f"spark+hudi {spark_v8.hudi_version}", "hudi-rs"))
    config = spark_v8.table_config(path)
    assert Path(table).name.startswith(f"v{config['version']}_")


def _rows(frame):
    return {(r["id"], r["name"], r["isActive"]) for r in frame.rows}


def test_read_options_reach_both_engines(spark, hudirs):
    """Query options pass through the harness: read-optimized differs from snapshot, identically."""
    path = table_path("sample_table/mor/parquet/v6_nonpartitioned")
    spark_ro = spark.read_table(path, {"hoodie.datasource.query.type": "read_optimized"})
    rs_ro = hudirs.read_table(path, read_options={"hoodie.read.use.read_optimized.mode": "true"})
    a, b = spark_ro.canonical(exclude=()), rs_ro.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))
    # The fixtures' README: a read-optimized read still shows the base file's (1, "Alice", true).
    assert (1, "Alice", True) in _rows(spark_ro)
    assert _rows(spark.read_table(path)) == SAMPLE_ROWS


def test_time_travel_reaches_both_engines(spark, hudirs):
    import hudi

    path = table_path("sample_table/cow/v8_nonpartitioned")
    first = hudi.HudiTableBuilder.from_base_uri(path).build().get_timeline().get_completed_commits()[0].timestamp
    from_spark = spark.read_table(path, {"as.of.instant": first})
    from_rs = hudirs.read_table(path, read_options={"hoodie.read.as.of.timestamp": first})
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))
    assert {r["_hoodie_commit_time"] for r in from_spark.rows} == {first}
    assert _rows(from_spark) != SAMPLE_ROWS
