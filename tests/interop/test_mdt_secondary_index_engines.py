"""A table Spark 1.2.0 SQL (or Spark 1.0.2, table version 8) makes with a record index and a secondary index (CREATE INDEX) stays
writable by hudi-c, copy-on-write and merge-on-read, and hudi-c keeps the secondary index current:
Spark, looking rows up through the index (hoodie.enable.data.skipping=true, hoodie.metadata.enable=
true), finds the rows whose indexed value only hudi-c's writes gave them and no longer finds old
values; Spark writes again, and hudi-c after it.

Oracles: Spark's query results against an independent model of the rows; the index's live entries,
decoded by ../shared/tools/hudi_check.py's own reader, against entries built from a pyarrow read of
the snapshot (escape(value) + "$" + escape(record key)), after hudi-c's writes and after Spark's;
hudi_check.py passing.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402

SKIPPING = {"hoodie.enable.data.skipping": "true", "hoodie.metadata.enable": "true"}
INDEX = "secondary_index_idx_city"


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    # Hadoop's local file system leaves .crc files beside Spark's timeline files; the checker lists
    # a few per check and then "... and N more", which is dropped only where every listed one is a .crc.
    crc = ".crc: not a layout-2 timeline file name"
    only_crc = {ln.split(":")[0] for ln in fails if ln.endswith(crc)} - \
        {ln.split(":")[0] for ln in fails if not ln.endswith(crc) and not ln.split(": ", 1)[1].startswith("... and ")}
    fails = [ln for ln in fails if not ln.endswith(crc)
             and not (ln.split(": ", 1)[1].startswith("... and ") and ln.split(":")[0] in only_crc)]
    assert not fails, r.stdout + r.stderr


def esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace("$", "\\$").replace("\0", "\\\0")


def stored(path: Path) -> set[str]:
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = set()
    for fid in hc._metadata_groups(ctx.mdt, INDEX):
        for k, v in ctx.merged_group(INDEX, fid).items():
            if not v["SecondaryIndexMetadata"]["isDeleted"]:
                out.add(k)
    return out


def model_entries(path: Path, v8: bool) -> set[str]:
    """Version 9 indexes a null value as NUL; version 8 (Spark 1.0.2) indexes no null value."""
    snap = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    return {("\0" if c is None else esc(c)) + "$" + esc(k)
            for k, c in zip(snap.column("_hoodie_record_key").to_pylist(), snap.column("city").to_pylist())
            if c is not None or not v8}


def groups_by_key(path: Path) -> dict[str, int]:
    """Live entry -> the number of the file group holding it."""
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, INDEX):
        for k, v in ctx.merged_group(INDEX, fid).items():
            if not v["SecondaryIndexMetadata"]["isDeleted"]:
                out[k] = int(fid.split("-")[-2])
    return out


def ids(frame) -> list[str]:
    return sorted(r["id"] for r in frame.rows)


@pytest.mark.parametrize("engine", ["spark", "spark_v8"])
@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_table_with_secondary_index(request, tmp_path, table_type, engine):
    """Spark 1.2.0 (table version 9) or Spark 1.0.2 (version 8: an entry's file group hashes its
    whole key, null values have no entry)."""
    spark = request.getfixturevalue(engine)
    v8 = engine == "spark_v8"

    def model(p: Path) -> set[str]:
        return model_entries(p, v8)

    path = tmp_path / "si"
    name = f"si_tbl_{table_type}{'_v8' if v8 else ''}"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, city STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              f"PARTITIONED BY (region) LOCATION '{path}' "
              f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts', "
              "'hoodie.metadata.record.index.enable' = 'true', 'hoodie.index.type' = 'RECORD_INDEX', "
              "'hoodie.table.timeline.timezone' = 'UTC')")
    spark.sql(f"INSERT INTO {name} VALUES ('k1', 'oslo', 1, 1, 'eu'), ('k2', 'rome', 2, 1, 'eu'), "
              "('k3', 'austin', 3, 1, 'us'), ('k4', 'boston', 4, 1, 'us'), ('k5', NULL, 5, 1, 'us')")
    # Spark builds the index as an async indexing instant, which wants a lock provider (the fixture
    # SQL does the same).
    spark.sql("SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider")
    spark.sql(f"CREATE INDEX idx_city ON {name} (city)")
    spark.sql("RESET hoodie.write.lock.provider")
    props = spark.table_config(str(path))["properties"]
    assert INDEX in props.get("hoodie.table.metadata.partitions", ""), props
    assert stored(path) == model(path)  # the oracle agrees with Spark's index
    model_rows = {"k1": "oslo", "k2": "rome", "k3": "austin", "k4": "boston", "k5": None}

    # hudi-c: k2 moves to a city no row had, k4's city becomes null, a new k6, then k3 goes.
    t = hudi.HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    rows = [{"id": "k2", "city": "lima", "v": 20, "ts": 2, "region": "eu"},
            {"id": "k4", "city": None, "v": 40, "ts": 2, "region": "us"},
            {"id": "k6", "city": "oslo", "v": 60, "ts": 2, "region": "eu"}]
    hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(rows, schema=schema), SKIPPING)
    model_rows.update(k2="lima", k4=None, k6="oslo")
    check(path)
    assert stored(path) == model(path)
    hudi.HudiTable(str(path)).delete_keys(["k3"], SKIPPING)
    del model_rows["k3"]
    check(path)
    assert stored(path) == model(path)

    # Spark looks the values up through the index.
    spark.sql(f"REFRESH TABLE {name}")
    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    for city in ["lima", "rome", "oslo", "austin", "boston"]:
        got = ids(spark.sql(f"SELECT id FROM {name} WHERE city = '{city}'"))
        assert got == sorted(k for k, c in model_rows.items() if c == city), (city, got)

    # Spark writes again (its own index maintenance on top of ours), then hudi-c.
    spark.sql(f"UPDATE {name} SET city = 'paris', ts = 3 WHERE id = 'k1'")
    model_rows["k1"] = "paris"
    assert stored(path) == model(path)
    assert ids(spark.sql(f"SELECT id FROM {name} WHERE city = 'paris'")) == ["k1"]
    hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(
        [{"id": "k1", "city": "bergen", "v": 10, "ts": 4, "region": "eu"}], schema=schema), SKIPPING)
    model_rows["k1"] = "bergen"
    check(path)
    assert stored(path) == model(path)
    # The session's table caches the state Spark's own UPDATE left; a write from outside Spark needs a
    # refresh (as any external writer's does).
    spark.sql(f"REFRESH TABLE {name}")
    assert ids(spark.sql(f"SELECT id FROM {name} WHERE city = 'bergen'")) == ["k1"]
    assert ids(spark.sql(f"SELECT id FROM {name} WHERE city = 'paris'")) == []

    # Enough hudi-c commits for an inline metadata-table compaction (every 10 deltacommits): the
    # index's entries are folded into new base HFiles, which Spark then looks the values up in.
    for i in range(11):
        hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(
            [{"id": "k6", "city": f"town{i}", "v": 60 + i, "ts": 10 + i, "region": "eu"}], schema=schema), SKIPPING)
    model_rows["k6"] = "town10"
    mdt_tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    assert any(f.name.endswith(".commit") for f in mdt_tl.iterdir()), sorted(f.name for f in mdt_tl.iterdir())
    assert any(f.name.endswith(".hfile") and "_" in f.name and not f.name.endswith("00000000000000004.hfile")
               for f in (path / ".hoodie" / "metadata" / INDEX).iterdir())
    check(path)
    assert stored(path) == model(path)
    spark.sql(f"REFRESH TABLE {name}")
    for city, want in [("town10", ["k6"]), ("town3", []), ("oslo", []), ("bergen", ["k1"]), ("lima", ["k2"])]:
        assert ids(spark.sql(f"SELECT id FROM {name} WHERE city = '{city}'")) == want, city
    for k in SKIPPING:
        spark.sql(f"RESET {k}")
    ours = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    assert dict(zip(ours.column("id").to_pylist(), ours.column("city").to_pylist())) == model_rows
    # Every live entry in the file group of its key as this version maps it (Spark's entries and ours).
    n = len(hc._metadata_groups(hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True), INDEX))
    for key, group in groups_by_key(path).items():
        want = hc.record_index_shard(key if v8 else key[:key.index("$", 0 if key[0] != "\\" else 2) + 1], n)
        assert group == want, (key, group, want)
    spark.sql(f"DROP TABLE IF EXISTS {name}")


def live_entries(path: Path, index: str) -> dict[str, int]:
    """Live entry -> the number of its file group, for any index."""
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    out = {}
    for fid in hc._metadata_groups(ctx.mdt, index):
        for k, v in ctx.merged_group(index, fid).items():
            if not v["SecondaryIndexMetadata"]["isDeleted"]:
                out[k] = int(fid.split("-")[-2])
    return out


def java_text(v) -> str:
    """A value as Hudi 1.0.x prints it into an index entry: LocalDate.toString (Python's isoformat,
    four-digit years), BigDecimal.toString (Python's Decimal str follows the same scientific-string
    rule: exponent notation below an adjusted exponent of -6), timestamps as their microseconds."""
    import datetime as dt
    import decimal
    if isinstance(v, dt.datetime):
        return str((v - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(microseconds=1))
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    return str(v)


V8_COLUMNS = ("i", "l", "dt", "t", "dc")


def v8_model(path: Path) -> dict[str, set[str]]:
    """index -> the entries a pyarrow read of our snapshot implies (version 8: no entry for nulls)."""
    snap = pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()
    return {c: {esc(java_text(r[c])) + "$" + esc(r["_hoodie_record_key"]) for r in snap if r[c] is not None}
            for c in V8_COLUMNS}


def test_v8_index_values_match_spark(spark_v8, tmp_path):
    """Table version 8 (Spark 1.0.2): secondary indexes over INT, BIGINT, DATE, TIMESTAMP and
    DECIMAL columns. Spark 1.0.2 prints dates as LocalDate.toString ("2024-02-29"; 1.1+ writes epoch
    days), decimals as BigDecimal.toString ("12.34", "1E-10"), timestamps as microseconds. hudi-c's
    entries equal those the values imply, in the file group of the whole key; Spark finds rows
    through them; Spark writes after us; an index over a DOUBLE column is refused naming it."""
    spark = spark_v8
    path = tmp_path / "si8"
    name = "si_values_v8"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    # Dates before 1582 are stored as they are (proleptic Gregorian, by Spark's writer as by ours);
    # Spark 3 refuses to read them from Parquet unless told so.
    spark.sql("SET spark.sql.parquet.datetimeRebaseModeInRead=CORRECTED")
    spark.sql(f"CREATE TABLE {name} (id STRING, i INT, l BIGINT, dt DATE, t TIMESTAMP, dc DECIMAL(20,10), "
              f"d DOUBLE, ts BIGINT) USING hudi LOCATION '{path}' TBLPROPERTIES (type = 'mor', primaryKey = 'id', "
              "preCombineField = 'ts', 'hoodie.metadata.record.index.enable' = 'true', "
              "'hoodie.index.type' = 'RECORD_INDEX', 'hoodie.table.timeline.timezone' = 'UTC')")
    spark.sql(f"INSERT INTO {name} VALUES "
              "('k1', -5, 12345678901, DATE'2024-02-29', TIMESTAMP'2024-01-02 03:04:05.123456', 12.34, 1.5, 1), "
              "('k2', NULL, NULL, NULL, NULL, NULL, NULL, 1), "
              "('k3', 7, -1, DATE'0112-02-16', TIMESTAMP'1960-01-01 00:00:00', 0.0000001, 0.1, 1)")
    spark.sql("SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider")
    for c in V8_COLUMNS:
        spark.sql(f"CREATE INDEX idx_{c} ON {name} ({c})")
    spark.sql("RESET hoodie.write.lock.provider")
    # The oracle agrees with Spark's own entries (dates as text, 1E-7 in exponent notation).
    spark_entries = {c: set(live_entries(path, f"secondary_index_idx_{c}")) for c in V8_COLUMNS}
    assert spark_entries == v8_model(path)
    assert "0112-02-16$k3" in spark_entries["dt"] and "1.000E-7$k3" in spark_entries["dc"], spark_entries
    import datetime as dt
    import decimal
    utc = dt.timezone.utc
    t = hudi.HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    rows = [{"id": "k1", "i": 99, "l": -(2**63), "dt": dt.date(9999, 12, 31), "t": dt.datetime(2030, 5, 6, 7, 8, 9, 10, tzinfo=utc),
             "dc": decimal.Decimal("0E-10"), "d": 2.5, "ts": 2},
            {"id": "k2", "i": 0, "l": 0, "dt": dt.date(1, 1, 1), "t": dt.datetime(1901, 1, 1, tzinfo=utc),
             "dc": decimal.Decimal("-1234567890.0000000001"), "d": None, "ts": 2},
            {"id": "k4", "i": None, "l": 4, "dt": dt.date(1969, 12, 31), "t": None,
             "dc": decimal.Decimal("0.0000010000"), "d": 4.0, "ts": 2}]
    t.upsert(pa.RecordBatch.from_pylist(rows, schema=schema), SKIPPING)
    hudi.HudiTable(str(path)).delete_keys(["k3"], SKIPPING)
    check(path)
    want = v8_model(path)
    n = {c: len(hc._metadata_groups(hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True),
                                    f"secondary_index_idx_{c}")) for c in V8_COLUMNS}
    for c in V8_COLUMNS:
        got = live_entries(path, f"secondary_index_idx_{c}")
        assert set(got) == want[c], c
        for key, group in got.items():  # version 8: the file group of the whole key
            assert group == hc.record_index_shard(key, n[c]), (c, key)
    assert "9999-12-31$k1" in want["dt"] and "0E-10$k1" in want["dc"] and "0.0000010000$k4" in want["dc"]

    # Spark 1.0.2 looks rows up through our entries, writes, and the entries stay right.
    spark.sql(f"REFRESH TABLE {name}")
    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        # Dates: Spark 1.0.2 finds no row by date equality through a date index, its own entries
        # included (the lookup misses; with data skipping off it finds them), so only the entries are
        # checked for dates (above).
        for cond, ids_want in [("i = 99", ["k1"]), ("i = -5", []), ("l = 4", ["k4"]),
                               ("t = TIMESTAMP'1901-01-01 00:00:00'", ["k2"]),
                               ("dc = -1234567890.0000000001", ["k2"]), ("dc = 0.000001", ["k4"]), ("i = 7", [])]:
            assert ids(spark.sql(f"SELECT id FROM {name} WHERE {cond}")) == ids_want, cond
        spark.sql(f"UPDATE {name} SET dt = DATE'2000-01-01', dc = 5, ts = 3 WHERE id = 'k4'")
        assert {c: set(live_entries(path, f"secondary_index_idx_{c}")) for c in V8_COLUMNS} == v8_model(path)
        assert ids(spark.sql(f"SELECT id FROM {name} WHERE dc = 5")) == ["k4"]
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")
    hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(
        [{"id": "k4", "i": 1, "l": 4, "dt": dt.date(2001, 1, 1), "t": None, "dc": decimal.Decimal("5"), "d": 4.0,
          "ts": 4}], schema=schema))
    check(path)
    assert {c: set(live_entries(path, f"secondary_index_idx_{c}")) for c in V8_COLUMNS} == v8_model(path)

    spark.sql(f"DROP TABLE IF EXISTS {name}")

    # A DOUBLE index (on a COW table: Hudi 1.0.2 cannot build any index of a MOR table with a
    # decimal column once it has log files, "Found ...dc.fixed, expecting union", Spark's own
    # included): Java's Double.toString digits are not reproduced, so the table is refused.
    path = tmp_path / "si8d"
    name = "si_double_v8"
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, d DOUBLE, ts BIGINT) USING hudi LOCATION '{path}' TBLPROPERTIES "
              "(type = 'cow', primaryKey = 'id', preCombineField = 'ts', 'hoodie.metadata.record.index.enable' = "
              "'true', 'hoodie.index.type' = 'RECORD_INDEX')")
    spark.sql(f"INSERT INTO {name} VALUES ('k1', 1.5, 1)")
    spark.sql("SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider")
    spark.sql(f"CREATE INDEX idx_d ON {name} (d)")
    spark.sql("RESET hoodie.write.lock.provider")
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    with pytest.raises(hudi.HudiUnsupportedError, match="column 'd'"):
        hudi.HudiTable(str(path)).upsert(pa.table({"id": ["k5"], "d": [5.0], "ts": pa.array([5], pa.int64())}))
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before
    spark.sql("RESET spark.sql.parquet.datetimeRebaseModeInRead")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
