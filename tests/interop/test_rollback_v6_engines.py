"""Rollbacks on tables of version 6 (timeline layout 1) with Spark 1.2.0 (Hudi 1.2.0 writing
version 6, no metadata table) and hudi-rs 0.5.0.

On version 6 a failed delta commit's log file is not deleted (log files are named by their
slice's base instant): the rollback writes a ROLLBACK command block into the slice's next log
version, and readers skip the failed instant's blocks.

1. A hudi-c write abandoned midway (its completed instant file removed, as a crash before
   completion leaves it) is rolled back by hudi-c's next write. Spark and hudi-rs read the rows
   of a plain-Python model; Spark then upserts on, and both engines read its result.
2. The reverse: Spark's last delta commit of a version-6 MOR table abandoned the same way (Spark
   leaves no markers, so hudi-c finds its log appends by listing and reading the slices' latest
   log files) is rolled back by hudi-c's next write; Spark and hudi-rs read the model, and Spark
   writes on.
../shared/tools/hudi_check.py passes after every hudi-c write.
"""

from __future__ import annotations

import os
import re
import struct
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
LOGS = {"hoodie.parquet.small.file.limit": "0"}  # updates go to log files in both engines


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def spark_checker_failures(path: Path) -> set:
    """Spark 1.2's version-6 tables fail properties.keys (it writes version-8 keys into them;
    docs/compatibility.md item 28): the FAIL lines, to assert hudi-c adds none."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    return {ln.split(":")[0] for ln in r.stdout.splitlines() if ln.startswith("FAIL")}


def v6_options(path: Path, table_type: str) -> dict:
    o = spark_options(path, table_type, "upsert")
    o.update({"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false",
              "hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "SIMPLE", **LOGS})
    return o


def triples(t: pa.Table) -> list:
    return sorted(zip(t.column("id").to_pylist(), t.column("region").to_pylist(), t.column("v").to_pylist()))


def ours(path: Path) -> list:
    return triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read()))


def rows_of(frame) -> list:
    return sorted((r["id"], r["region"], r["v"]) for r in frame.rows)


def abandon_last_write(path: Path) -> str:
    """Removes the completed file (and Hadoop's .crc of it) of the latest completed write."""
    hoodie = path / ".hoodie"
    done = sorted(n for n in os.listdir(hoodie) if n.split(".")[-1] in ("commit", "deltacommit") and n[0] != ".")
    last = done[-1]
    os.remove(hoodie / last)
    crc = hoodie / f".{last}.crc"
    if crc.exists():
        os.remove(crc)
    return last.split(".")[0]


def log_blocks(path: Path) -> list:
    """(block type, INSTANT_TIME, TARGET_INSTANT_TIME) of every block of a log file."""
    b = path.read_bytes()
    out, off = [], 0
    while off < len(b):
        assert b[off:off + 6] == b"#HUDI#", (path, off)
        size, = struct.unpack(">q", b[off + 6:off + 14])
        btype, n = struct.unpack(">ii", b[off + 18:off + 26])
        p, h = off + 26, {}
        for _ in range(n):
            k, ln = struct.unpack(">ii", b[p:p + 8])
            h[k] = b[p + 8:p + 8 + ln].decode("utf-8", "replace")
            p += 8 + ln
        out.append((btype, h.get(0), h.get(1)))
        off += 14 + size
    return out


def rolled_back(path: Path, instant: str) -> int:
    """instant is off the timeline, a completed rollback names it, and every data or delete block
    it wrote is answered by a command block of its slice (Java reads it again otherwise once
    archival passes it)."""
    hoodie = path / ".hoodie"
    names = os.listdir(hoodie)
    assert not [n for n in names if n.startswith(instant)]
    assert [n for n in names if n.endswith(".rollback")]
    slices: dict = {}
    for f in path.rglob(".*.log.*"):
        if re.match(r"^\..*\.crc$", f.name):
            continue
        s = slices.setdefault((f.parent, f.name.split(".log.")[0]), [set(), set()])
        for btype, inst, target in log_blocks(f):
            s[btype == 0].add(target if btype == 0 else inst)
    for key, (written, targets) in slices.items():
        assert instant not in written or instant in targets, f"slice {key}: blocks of {instant} not rolled back"
    return sum(instant in written for written, _ in slices.values())  # slices it had appended to


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_our_abandoned_write_rolled_back(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"ours_v6_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                              record_index_enabled=False, hudi_options={"hoodie.write.table.version": "6"})
    first = pa.table({"id": [f"k{i:02d}" for i in range(12)], "region": [["eu", "us"][i % 2] for i in range(12)],
                      "v": pa.array(range(12), pa.int64())})
    t.append(first)
    model = {r[0]: r for r in triples(first)}
    upd = pa.table({"id": ["k01", "k04", "k90"], "region": ["us", "eu", "eu"],
                    "v": pa.array([1001, 1004, 900], pa.int64())})
    hudi.HudiTable(str(path), LOGS).upsert(upd)
    failed = abandon_last_write(path)
    assert ours(path) == sorted(model.values())

    hudi.HudiTable(str(path), LOGS).upsert(pa.table({"id": ["k02"], "region": ["eu"], "v": pa.array([202], pa.int64())}))
    model["k02"] = ("k02", "eu", 202)
    want = sorted(model.values())
    appended = rolled_back(path, failed)
    assert appended == (2 if table_type == "mor" else 0)  # k01 and k04's slices
    assert ours(path) == want
    check(path)
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want

    # Spark (Hudi 1.2 writing version 6) upserts on top of our rollback.
    spark.call("write", path=str(path), rows=[["k03", "us", 303], ["k50", "eu", 50]], schema=SCHEMA,
               options=v6_options(path, table_type))
    model.update({"k03": ("k03", "us", 303), "k50": ("k50", "eu", 50)})
    want = sorted(model.values())
    assert rows_of(spark.read_table(str(path))) == want
    assert ours(path) == want
    assert rows_of(hudirs.read_table(str(path))) == want


def test_spark_failed_delta_commit_rolled_back_by_us(tmp_path, spark, hudirs):
    path = tmp_path / "spark_v6_mor"
    first = [[f"s{i:02d}", ["eu", "us"][i % 2], i] for i in range(8)]
    spark.call("write", path=str(path), rows=first, schema=SCHEMA, options=v6_options(path, "mor"),
               mode="overwrite")
    spark.call("write", path=str(path), rows=[["s01", "us", 101], ["s02", "eu", 102]], schema=SCHEMA,
               options=v6_options(path, "mor"))
    assert list(path.rglob(".*.log.*"))  # Spark's update went to log files
    spark_fails = spark_checker_failures(path)
    failed = abandon_last_write(path)  # Spark's second commit "crashed" before completing
    model = {r[0]: tuple(r) for r in first}
    assert ours(path) == sorted(model.values())

    hudi.HudiTable(str(path), LOGS).upsert(pa.table({"id": ["s03"], "region": ["us"], "v": pa.array([303], pa.int64())}))
    model["s03"] = ("s03", "us", 303)
    want = sorted(model.values())
    assert rolled_back(path, failed) >= 1
    assert ours(path) == want
    assert spark_checker_failures(path) <= spark_fails
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want

    spark.call("write", path=str(path), rows=[["s04", "eu", 404]], schema=SCHEMA, options=v6_options(path, "mor"))
    model["s04"] = ("s04", "eu", 404)
    want = sorted(model.values())
    assert rows_of(spark.read_table(str(path))) == want
    assert ours(path) == want
    assert rows_of(hudirs.read_table(str(path))) == want


def test_restore_to_savepoint(tmp_path, spark, hudirs):
    """hudi-c savepoints a version-6 MOR table, writes on (log appends, a compaction), restores:
    Spark and hudi-rs read the savepointed rows, and Spark writes on."""
    path = tmp_path / "restore_v6"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor",
                              record_index_enabled=False, hudi_options={"hoodie.write.table.version": "6"})
    first = pa.table({"id": [f"k{i:02d}" for i in range(8)], "region": [["eu", "us"][i % 2] for i in range(8)],
                      "v": pa.array(range(8), pa.int64())})
    t.append(first)
    t = hudi.HudiTable(str(path), LOGS)
    t.upsert(pa.table({"id": ["k01"], "region": ["us"], "v": pa.array([101], pa.int64())}))
    model = {r[0]: r for r in triples(first)}
    model["k01"] = ("k01", "us", 101)
    sp = t.savepoint()
    for v in (2, 3, 4):
        t.upsert(pa.table({"id": ["k02", "k03", f"n{v}"], "region": ["eu", "us", "eu"],
                           "v": pa.array([v, v, v], pa.int64())}))
        if v == 3:
            t.compact()
    r = t.restore(sp.instant)
    assert r.num_instants_rolled_back == 4
    want = sorted(model.values())
    assert ours(path) == want
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want
    spark.call("write", path=str(path), rows=[["k05", "us", 505]], schema=SCHEMA, options=v6_options(path, "mor"))
    model["k05"] = ("k05", "us", 505)
    want = sorted(model.values())
    assert rows_of(spark.read_table(str(path))) == want
    assert ours(path) == want


ABANDON_COMPACTION = """
import os, sys
import pyarrow as pa
from hudi import HudiTable
t = HudiTable(sys.argv[1], {"hoodie.parquet.small.file.limit": "0",
                            "hoodie.datasource.compaction.async.enable": "true",
                            "hoodie.compact.inline.max.delta.commits": "1",
                            "hoodie.compact.async.test.delay.ms": "60000"})
t.upsert(pa.table({"id": ["h01"], "region": ["us"], "v": pa.array([501], pa.int64())}))
os._exit(0)  # dies with its compaction pending
"""


def test_writes_under_a_pending_compaction(tmp_path, spark, hudirs):
    """hudi-c's upserts under a pending compaction (version 6: logs named by the compaction's
    instant, as Java's append handle names them): Spark 1.2 and hudi-rs read them, and Spark runs
    the pending compaction (its inline compaction takes pending ones first) without losing them."""
    path = tmp_path / "v6_pending_compaction"
    hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor", record_index_enabled=False,
                          hudi_options={"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false",
                                        "hoodie.table.timeline.timezone": "UTC"})
    t = hudi.HudiTable(str(path), LOGS)
    first = pa.table({"id": [f"h{i:02d}" for i in range(8)], "region": [["eu", "us"][i % 2] for i in range(8)],
                      "v": pa.array(range(8), pa.int64())})
    t.append(first)
    t.upsert(pa.table({"id": ["h02"], "region": ["eu"], "v": pa.array([102], pa.int64())}))
    r = subprocess.run([sys.executable, "-c", ABANDON_COMPACTION, str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    pending = [n.split(".")[0] for n in os.listdir(path / ".hoodie") if n.endswith(".compaction.requested")]
    assert len(pending) == 1
    model = {k: (k, reg, v) for k, reg, v in triples(first)}
    model.update({"h02": ("h02", "eu", 102), "h01": ("h01", "us", 501)})
    t = hudi.HudiTable(str(path), LOGS)
    t.upsert(pa.table({"id": ["h01", "h04", "h09"], "region": ["us", "eu", "us"],
                       "v": pa.array([601, 604, 609], pa.int64())}))
    t.delete_keys(["h06"])
    model.update({"h01": ("h01", "us", 601), "h04": ("h04", "eu", 604), "h09": ("h09", "us", 609)})
    del model["h06"]
    assert [n for n in path.rglob(f".*_{pending[0]}.log.*")], "no log under the pending compaction"
    want = sorted(model.values())
    assert ours(path) == want
    assert rows_of(spark.read_table(str(path))) == want
    # hudi-rs 0.5 leaves out the slice of a pending compaction (docs/compatibility.md 36): it
    # reads the table as it was before these writes until the compaction completes.
    before = dict(model, h01=("h01", "us", 501), h04=("h04", "eu", 4), h06=("h06", "eu", 6))
    assert rows_of(hudirs.read_table(str(path))) == sorted(before.values())
    check(path)

    opts = v6_options(path, "mor")
    opts.update({"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "1"})
    spark.call("write", path=str(path), rows=[["h03", "us", 703]], schema=SCHEMA, options=opts)
    model["h03"] = ("h03", "us", 703)
    assert (path / ".hoodie" / f"{pending[0]}.commit").exists()  # Spark ran our pending compaction
    want = sorted(model.values())
    assert rows_of(spark.read_table(str(path))) == want
    assert ours(path) == want
    assert rows_of(hudirs.read_table(str(path))) == want
