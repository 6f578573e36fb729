"""hudi-c builds the metadata table of a table Spark wrote without one (hoodie.metadata.enable=true
in a hudi-c write's options: `files` from a storage listing, `record_index` from every latest
file slice's keys), and Spark takes it as its own:

* Spark reads the table through the metadata table (its 1.x readers' default) and sees every
  row: the files listing misses no file;
* Spark upserts with the record index (hoodie.index.type=RECORD_INDEX) into keys written before
  the bootstrap, in both partitions: were a key missing from our index, Spark would insert it
  again and the key would read twice;
* hudi-c reads what Spark wrote, and the table passes ../shared/tools/hudi_check.py after each
  engine's writes.

Spark 1.2.0 on table version 9, 1.0.2 on version 8, COW and MOR (Spark's MOR writes leave log
files, whose keys the bootstrap reads merged with their base files).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from oracles import row_diff
from test_mixed_sequence import spark_options

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
SCHEMA = "id string, region string, v long, note string"
ON = {"hoodie.metadata.enable": "true"}


SAVEPOINT_TIME_CLASH = re.compile(r"^FAIL timeline\.states: \.hoodie/timeline/(\d{17})(_\d{17})?"
                                  r"\.savepoint(\.inflight)?: instant (\d{17}) already has ")


def checked(path) -> None:
    """No failure but the .crc checksums Spark's (Hadoop's) local file system leaves beside its
    timeline files, which the checker does not take for timeline files, and its "one action per
    instant time" rule for a savepoint, which Hudi gives its commit's time
    (tests/python/test_savepoint_restore.py)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL") and ".crc:" not in ln
             and not ((m := SAVEPOINT_TIME_CLASH.match(ln)) and m.group(1) == m.group(4))]
    assert not fails, r.stdout


def options(path: Path, table_type: str, operation: str, version: str, mdt: bool) -> dict:
    o = spark_options(path, table_type, operation)
    o["hoodie.write.table.version"] = version
    if not mdt:
        o.update({"hoodie.metadata.enable": "false", "hoodie.metadata.record.index.enable": "false",
                  "hoodie.index.type": "SIMPLE"})
    return o


def props(path) -> dict:
    out = {}
    for line in (path / ".hoodie" / "hoodie.properties").read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def init_instants(path) -> list:
    """The metadata table's completed initialisation instants, completion times included."""
    tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    return sorted(n for n in (f.name for f in tl.iterdir())
                  if n.startswith("00000000000000") and n.endswith(".deltacommit") and "_" in n)


def spark_rows(spark, path) -> list:
    f = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    return sorted((r["id"], r["region"], r["v"], r["note"]) for r in f.rows)


def our_rows(path) -> list:
    t = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "region", "v", "note"))))


def same(got, want, who) -> None:
    assert got == want, row_diff([repr(x) for x in got], [repr(x) for x in want], (who, "model"))


def spark_then_hudi_c(spark, path, version: str, model: dict, spark_options) -> None:
    """Spark upserts (keys from before, both partitions, some in MOR logs, and a new key) and
    deletes through the record index hudi-c built, without rebuilding it; then hudi-c upserts
    through the index Spark kept. Both engines read the model after each, and the table passes
    the checker."""
    ours_init = init_instants(path)
    more = [[f"k{i:02d}", ["eu", "us"][i % 2], 2000 + i, "spark3"] for i in (0, 3, 4, 5, 31, 39)]
    more.append(["k77", "us", 2077, "spark3"])
    spark.call("write", path=str(path), rows=more, schema=SCHEMA, options=spark_options("upsert"))
    model.update({r[0]: tuple(r[1:]) for r in more})
    gone = [[k, *model[k]] for k in ("k06", "k90")]
    spark.call("write", path=str(path), rows=gone, schema=SCHEMA, options=spark_options("delete"))
    for k in ("k06", "k90"):
        del model[k]
    want = sorted((k, *v) for k, v in model.items())
    same(spark_rows(spark, path), want, f"spark (table version {version})")
    same(our_rows(path), want, "hudi-c")
    checked(path)
    assert init_instants(path) == ours_init  # Spark kept our index, did not rebuild it

    r = hudi.HudiTable(str(path)).upsert(pa.table({"id": ["k77", "k08"], "region": ["us", "eu"],
                                                   "v": pa.array([3077, 3008], pa.int64()),
                                                   "note": ["hudi-c2"] * 2}))
    assert (r.num_updates, r.num_inserts) == (2, 0)
    model.update({"k77": ("us", 3077, "hudi-c2"), "k08": ("eu", 3008, "hudi-c2")})
    want = sorted((k, *v) for k, v in model.items())
    same(our_rows(path), want, "hudi-c")
    same(spark_rows(spark, path), want, f"spark (table version {version})")
    checked(path)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("version", ["8", "9"])
def test_spark_continues_a_metadata_table_hudi_c_built(tmp_path, request, table_type, version):
    spark = request.getfixturevalue("spark_v8" if version == "8" else "spark")
    path = tmp_path / f"boot_{table_type}_v{version}"
    first = [[f"k{i:02d}", ["eu", "us"][i % 2], i, "spark"] for i in range(40)]
    spark.call("write", path=str(path), rows=first, schema=SCHEMA,
               options=options(path, table_type, "upsert", version, mdt=False), mode="overwrite")
    upd = [[f"k{i:02d}", ["eu", "us"][i % 2], 100 + i, "spark2"] for i in range(0, 40, 3)]
    spark.call("write", path=str(path), rows=upd, schema=SCHEMA,
               options=options(path, table_type, "upsert", version, mdt=False))
    assert not (path / ".hoodie" / "metadata").exists()
    model = {r[0]: tuple(r[1:]) for r in first + upd}

    t = hudi.HudiTable(str(path))
    mine = pa.table({"id": ["k01", "k02", "k90"], "region": ["us", "eu", "eu"],
                     "v": pa.array([1001, 1002, 1090], pa.int64()), "note": ["hudi-c"] * 3})
    r = t.upsert(mine, ON)
    assert (r.num_updates, r.num_inserts) == (2, 1)
    model.update({"k01": ("us", 1001, "hudi-c"), "k02": ("eu", 1002, "hudi-c"), "k90": ("eu", 1090, "hudi-c")})
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    checked(path)
    want = sorted((k, *v) for k, v in model.items())
    same(our_rows(path), want, "hudi-c")
    same(spark_rows(spark, path), want, f"spark (table version {version})")

    # Spark writes on through our record index: updates of keys from before the bootstrap (both
    # partitions, some in MOR logs), a new key, deletes; then hudi-c after Spark.
    spark_then_hudi_c(spark, path, version, model, lambda op: options(path, table_type, op, version, mdt=True))


def test_spark_continues_after_a_restore_rebuilt_it(tmp_path, spark):
    """A restore to a savepoint taken before the bootstrap drops the metadata table and builds it
    again from the restored table (metadata_table_rebuilt): Spark 1.2 reads through it and
    upserts through its record index."""
    path = tmp_path / "boot_restore"
    first = [[f"k{i:02d}", ["eu", "us"][i % 2], i, "spark"] for i in range(30)]
    spark.call("write", path=str(path), rows=first, schema=SCHEMA,
               options=options(path, "mor", "upsert", "9", mdt=False), mode="overwrite")
    model = {r[0]: tuple(r[1:]) for r in first}
    t = hudi.HudiTable(str(path))
    sp = t.upsert(pa.table({"id": ["k01"], "region": ["us"], "v": pa.array([501], pa.int64()), "note": ["sp"]}),
                  {"hoodie.metadata.enable": "false"})
    model["k01"] = ("us", 501, "sp")
    t.savepoint(sp.requested_time)
    want = sorted((k, *v) for k, v in model.items())
    # a write after the savepoint that the metadata table built next holds but never recorded
    t.upsert(pa.table({"id": ["k04"], "region": ["eu"], "v": pa.array([504], pa.int64()), "note": ["late"]}),
             {"hoodie.metadata.enable": "false"})
    t.upsert(pa.table({"id": ["k02", "k55"], "region": ["eu", "us"], "v": pa.array([502, 555], pa.int64()),
                       "note": ["late"] * 2}), ON)
    t.delete_keys(["k03"])
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    checked(path)
    same(our_rows(path), want, "hudi-c")
    same(spark_rows(spark, path), want, "spark (table version 9)")
    t.delete_savepoint(sp.requested_time)
    more = [["k02", "eu", 602, "spark2"], ["k05", "us", 605, "spark2"], ["k55", "us", 655, "spark2"]]
    spark.call("write", path=str(path), rows=more, schema=SCHEMA, options=options(path, "mor", "upsert", "9", mdt=True))
    model.update({r[0]: tuple(r[1:]) for r in more})
    want = sorted((k, *v) for k, v in model.items())
    same(spark_rows(spark, path), want, "spark (table version 9)")
    same(our_rows(path), want, "hudi-c")
    checked(path)


def spark_default_mdt(path: Path, table_type: str, operation: str, version: str, rli: bool) -> dict:
    """Spark's options with its default metadata table (files, and the column and partition stats
    its 1.x writers enable by default), with or without the record index."""
    o = spark_options(path, table_type, operation)
    o["hoodie.write.table.version"] = version
    del o["hoodie.metadata.index.column.stats.enable"], o["hoodie.metadata.index.partition.stats.enable"]
    if not rli:
        o.update({"hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "BLOOM"})
    return o


@pytest.mark.parametrize("table_type,version", [("mor", "9"), ("cow", "8")])
def test_spark_uses_a_record_index_hudi_c_added(tmp_path, request, table_type, version):
    """A table Spark wrote with its default metadata table (no record index): a hudi-c write with
    hoodie.metadata.record.index.enable=true adds `record_index` beside Spark's partitions, and
    Spark then upserts and deletes through it (keys from before, some in MOR logs) without
    rebuilding it; its column stats stay current in between."""
    spark = request.getfixturevalue("spark_v8" if version == "8" else "spark")
    path = tmp_path / f"addrli_{table_type}_v{version}"
    first = [[f"k{i:02d}", ["eu", "us"][i % 2], i, "spark"] for i in range(40)]
    spark.call("write", path=str(path), rows=first, schema=SCHEMA,
               options=spark_default_mdt(path, table_type, "upsert", version, rli=False), mode="overwrite")
    upd = [[f"k{i:02d}", ["eu", "us"][i % 2], 100 + i, "spark2"] for i in range(0, 40, 3)]
    spark.call("write", path=str(path), rows=upd, schema=SCHEMA,
               options=spark_default_mdt(path, table_type, "upsert", version, rli=False))
    spark_parts = props(path)["hoodie.table.metadata.partitions"].split(",")
    assert "files" in spark_parts and "record_index" not in spark_parts, spark_parts
    spark_init = init_instants(path)
    model = {r[0]: tuple(r[1:]) for r in first + upd}

    t = hudi.HudiTable(str(path))
    mine = pa.table({"id": ["k01", "k02", "k90"], "region": ["us", "eu", "eu"],
                     "v": pa.array([1001, 1002, 1090], pa.int64()), "note": ["hudi-c"] * 3})
    r = t.upsert(mine, {"hoodie.metadata.record.index.enable": "true"})
    assert (r.num_updates, r.num_inserts) == (2, 1)
    model.update({"k01": ("us", 1001, "hudi-c"), "k02": ("eu", 1002, "hudi-c"), "k90": ("eu", 1090, "hudi-c")})
    assert props(path)["hoodie.table.metadata.partitions"].split(",") == sorted(spark_parts + ["record_index"])
    ours_init = init_instants(path)
    assert len(ours_init) == len(spark_init) + 2 and ours_init[:len(spark_init)] == spark_init
    checked(path)
    want = sorted((k, *v) for k, v in model.items())
    same(our_rows(path), want, "hudi-c")
    same(spark_rows(spark, path), want, f"spark (table version {version})")

    spark_then_hudi_c(spark, path, version, model,
                      lambda op: spark_default_mdt(path, table_type, op, version, rli=True))
    assert props(path)["hoodie.table.metadata.partitions"].split(",") == sorted(spark_parts + ["record_index"])
