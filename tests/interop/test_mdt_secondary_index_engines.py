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
    fails = [ln for ln in fails if not ln.endswith(".crc: not a layout-2 timeline file name")]
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
