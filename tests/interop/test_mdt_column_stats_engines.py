"""A table Spark 1.2.0 SQL (table version 9) or Spark 1.0.2 SQL (version 8, V1 records) creates and
writes with its default metadata table (files, column_stats, partition_stats), copy-on-write or
merge-on-read, stays writable by hudi-c, and hudi-c keeps column_stats and
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


@pytest.mark.parametrize("engine", ["spark", "spark_v8"])
@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_table_with_column_stats(request, tmp_path, table_type, engine):
    """Spark 1.2.0 (table version 9, V2 column stats with value types) or Spark 1.0.2 (version 8,
    whose metadata table's V1 records carry no value type)."""
    spark = request.getfixturevalue(engine)
    v8 = engine == "spark_v8"
    path = tmp_path / "cs"
    name = f"cs_tbl_{table_type}{'_v8' if v8 else ''}"
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
    assert props["hoodie.table.version"] == ("8" if v8 else "9")
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
        assert (m["minValue"], m["maxValue"], m["valueCount"]) == (None, None, 0)
        assert ("valueType" not in m) if v8 else m["valueType"]["typeOrdinal"] == 1
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


def tagged_decoder(monkeypatch) -> None:
    """hudi_check's Avro decoder, with each wrapper-record union value tagged by its branch name
    ({"wrapper": "DateWrapper", "value": ...}): V1 records tell types apart by wrapper only."""
    plain = hc._avro_decode

    def decode(schema, r):
        if isinstance(schema, dict) and schema.get("type") == "union":
            i = r.avro_long()
            branch = schema["branches"][i]
            v = plain(branch, r)
            name = branch.get("name") if isinstance(branch, dict) else None
            if name and name.endswith("Wrapper"):
                return {"wrapper": name.rsplit(".", 1)[-1], "value": v["value"]}
            return v
        return plain(schema, r)

    monkeypatch.setattr(hc, "_avro_decode", decode)


def test_v1_wrappers_match_spark(spark_v8, tmp_path, monkeypatch):
    """Table version 8: the V1 column_stats records hudi-c writes wrap each column type as Spark
    1.0.2 wraps its own (booleans to timestamps: DateWrapper days, DecimalWrapper at scale 15,
    UTC microsecond timestamps in LongWrapper), with the right bounds, and Spark's data skipping
    finds the rows only hudi-c's file holds."""
    tagged_decoder(monkeypatch)
    path = tmp_path / "w8"
    name = "cs_wrappers_v8"
    spark = spark_v8
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, b BOOLEAN, i INT, v BIGINT, f FLOAT, d DOUBLE, dt DATE, "
              "dc DECIMAL(10,2), t TIMESTAMP, ts BIGINT, region STRING) USING hudi PARTITIONED BY (region) "
              f"LOCATION '{path}' TBLPROPERTIES (type = 'cow', primaryKey = 'id', preCombineField = 'ts', "
              "'hoodie.table.timeline.timezone' = 'UTC')")
    spark.sql(f"INSERT INTO {name} VALUES ('k1', true, 1, 10, 1.5, 2.5, DATE'2024-02-29', 12.34, "
              "TIMESTAMP'2024-01-02 03:04:05.123456', 1, 'eu'), ('k2', false, 2, 20, 2.5, 3.5, DATE'1969-12-31', "
              "-0.05, TIMESTAMP'1960-01-01 00:00:00', 1, 'eu')")
    t = hudi.HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    import datetime as dt
    import decimal
    utc = dt.timezone.utc
    rows = [{"id": "k3", "b": True, "i": -7, "v": 300, "f": -1.25, "d": 1e9, "dt": dt.date(1900, 1, 1),
             "dc": decimal.Decimal("99999999.99"), "t": dt.datetime(2030, 5, 6, 7, 8, 9, 10, tzinfo=utc), "ts": 2,
             "region": "us"},
            {"id": "k4", "b": True, "i": 9, "v": 400, "f": 0.5, "d": -1.0, "dt": dt.date(2100, 12, 31),
             "dc": decimal.Decimal("-12345678.91"), "t": dt.datetime(1901, 1, 1, tzinfo=utc), "ts": 2,
             "region": "us"}]
    r = t.upsert(pa.RecordBatch.from_pylist(rows, schema=schema))
    check(path)
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    by_file: dict[str, dict[str, dict]] = {}
    for fid in hc._metadata_groups(ctx.mdt, "column_stats"):
        for rec in ctx.merged_group("column_stats", fid).values():
            m = rec["ColumnStatsMetadata"]
            assert "valueType" not in m  # the version-8 schema has none
            by_file.setdefault(m["fileName"], {})[m["columnName"]] = m
    (ours,) = [f for f in by_file if r.requested_time in f]
    (theirs,) = [f for f in by_file if f != ours]
    cols = ["b", "i", "v", "f", "d", "dt", "dc", "t", "id", "_hoodie_record_key"]
    for col in cols:
        for bound in ("minValue", "maxValue"):
            assert by_file[ours][col][bound]["wrapper"] == by_file[theirs][col][bound]["wrapper"], (col, bound)
    assert by_file[ours]["dt"]["minValue"]["wrapper"] == "DateWrapper"
    assert by_file[ours]["dc"]["minValue"]["wrapper"] == "DecimalWrapper"
    assert by_file[ours]["t"]["minValue"]["wrapper"] == "LongWrapper"

    def value(col, bound):
        v = by_file[ours][col][bound]["value"]
        return int.from_bytes(v, "big", signed=True) if col == "dc" else v

    epoch = dt.date(1970, 1, 1)
    assert (value("dt", "minValue"), value("dt", "maxValue")) == ((dt.date(1900, 1, 1) - epoch).days,
                                                                  (dt.date(2100, 12, 31) - epoch).days)
    assert (value("dc", "minValue"), value("dc", "maxValue")) == (-1234567891 * 10**13, 9999999999 * 10**13)
    micros = lambda x: int((x - dt.datetime(1970, 1, 1, tzinfo=utc)) / dt.timedelta(microseconds=1))  # noqa: E731
    assert (value("t", "minValue"), value("t", "maxValue")) == (micros(rows[1]["t"]), micros(rows[0]["t"]))
    assert (value("i", "minValue"), value("f", "minValue"), value("b", "maxValue")) == (-7, -1.25, True)

    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        for cond, want in [("dt < DATE'1950-01-01'", ["k3"]), ("dt > DATE'2050-01-01'", ["k4"]),
                           ("dc > 1000000", ["k3"]), ("dc < -1000", ["k4"]), ("dc = 12.34", ["k1"]),
                           ("t > TIMESTAMP'2029-01-01 00:00:00'", ["k3"]), ("t < TIMESTAMP'1950-01-01 00:00:00'", ["k4"]),
                           ("t < TIMESTAMP'1965-01-01 00:00:00'", ["k2", "k4"])]:
            assert ids(spark.sql(f"SELECT id FROM {name} WHERE {cond}")) == want, cond
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_v1_wrappers_match_spark_on_upgraded_table(spark, spark_v8, tmp_path, monkeypatch):
    """A table Spark 1.0.2 created (version 8) and Spark 1.2 upgraded to version 9 keeps a V1
    column_stats definition; Spark 1.2 then writes V1 records with a null valueType and 1.0.2's
    wrappers (DateWrapper days, DecimalWrapper at scale 15, UTC microsecond timestamps in
    LongWrapper). hudi-c's records for its own file wrap every column as Spark 1.2's do, and Spark
    1.2's data skipping finds the rows only hudi-c's file holds."""
    tagged_decoder(monkeypatch)
    path = tmp_path / "up"
    name = "cs_wrappers_up"
    spark_v8.sql(f"DROP TABLE IF EXISTS {name}")
    spark_v8.sql(f"CREATE TABLE {name} (id STRING, i INT, dt DATE, dc DECIMAL(10,2), t TIMESTAMP, ts BIGINT, "
                 f"region STRING) USING hudi PARTITIONED BY (region) LOCATION '{path}' TBLPROPERTIES "
                 "(type = 'mor', primaryKey = 'id', preCombineField = 'ts', 'hoodie.table.timeline.timezone' = 'UTC')")
    spark_v8.sql(f"INSERT INTO {name} VALUES ('k1', 1, DATE'2024-02-29', 12.34, "
                 "TIMESTAMP'2024-01-02 03:04:05.123456', 1, 'eu')")
    spark_v8.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    spark.sql(f"INSERT INTO {name} VALUES ('k2', 2, DATE'1969-12-31', -0.05, TIMESTAMP'1960-01-01 00:00:00', "
              "1, 'eu')")
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.version=9" in props, props
    defs = (path / ".hoodie" / ".index_defs" / "index.json").read_text()
    assert '"V1"' in defs, defs  # the definition keeps version-8's layout
    t = hudi.HudiTable(str(path))
    snap = pa.Table.from_batches(t.read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    import datetime as dt
    import decimal
    utc = dt.timezone.utc
    rows = [{"id": "k3", "i": -7, "dt": dt.date(1900, 1, 1), "dc": decimal.Decimal("99999999.99"),
             "t": dt.datetime(2030, 5, 6, 7, 8, 9, 10, tzinfo=utc), "ts": 2, "region": "us"},
            {"id": "k4", "i": 9, "dt": dt.date(2100, 12, 31), "dc": decimal.Decimal("-12345678.91"),
             "t": dt.datetime(1901, 1, 1, tzinfo=utc), "ts": 2, "region": "us"}]
    r = t.upsert(pa.RecordBatch.from_pylist(rows, schema=schema))
    check(path)
    ctx = hc.Context(hc.Table(str(path)), hc.Table(str(path / ".hoodie" / "metadata"), metadata_table=True))
    by_file: dict[str, dict[str, dict]] = {}
    for fid in hc._metadata_groups(ctx.mdt, "column_stats"):
        for rec in ctx.merged_group("column_stats", fid).values():
            m = rec["ColumnStatsMetadata"]
            by_file.setdefault(m["fileName"], {})[m["columnName"]] = m
    (ours,) = [f for f in by_file if r.requested_time in f]
    # Spark 1.2's file: the latest of the others (its insert rewrote 1.0.2's file group with k2).
    spark12 = max((f for f in by_file if f != ours), key=lambda f: f.rsplit("_", 1)[1])
    theirs = by_file[spark12]
    assert theirs["id"]["maxValue"]["value"] == "k2", sorted(by_file)
    for col in ["i", "dt", "dc", "t", "id", "_hoodie_record_key"]:
        for bound in ("minValue", "maxValue"):
            assert by_file[ours][col][bound]["wrapper"] == theirs[col][bound]["wrapper"], (col, bound)
        assert theirs[col]["valueType"] is None and by_file[ours][col]["valueType"] is None, col
    assert [by_file[ours][c]["minValue"]["wrapper"] for c in ("dt", "dc", "t")] == \
        ["DateWrapper", "DecimalWrapper", "LongWrapper"]
    assert [int.from_bytes(by_file[ours]["dc"][b]["value"], "big", signed=True) for b in ("minValue", "maxValue")] \
        == [-1234567891 * 10**13, 9999999999 * 10**13]  # scale 15
    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        for cond, want in [("dt < DATE'1950-01-01'", ["k3"]), ("dt > DATE'2050-01-01'", ["k4"]),
                           ("dc > 1000000", ["k3"]), ("dc < -1000", ["k4"]), ("dc = 12.34", ["k1"]),
                           ("t > TIMESTAMP'2029-01-01 00:00:00'", ["k3"]),
                           ("t < TIMESTAMP'1965-01-01 00:00:00'", ["k2", "k4"])]:
            assert ids(spark.sql(f"SELECT id FROM {name} WHERE {cond}")) == want, cond
        spark.sql(f"INSERT INTO {name} VALUES ('k5', 5, DATE'2200-01-01', 1.00, TIMESTAMP'2000-01-01 00:00:00', "
                  "3, 'us')")
        assert ids(spark.sql(f"SELECT id FROM {name} WHERE dt > DATE'2050-01-01'")) == ["k4", "k5"]
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    check(path)
