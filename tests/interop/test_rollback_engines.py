"""Rollback interop with Spark 1.2.0 (Hudi 1.2.0) and hudi-rs 0.5.0.

1. A hudi-c write abandoned midway (its completed instant file removed, as a crash before
   completion leaves it: T inflight, its data files and metadata-table deltacommit on disk) is
   rolled back by hudi-c's next write. Spark (listing through the metadata table) and hudi-rs
   read the table equal to hudi-c; Spark then upserts through the record index on top of our
   rollback, and everyone reads Spark's result.
2. The reverse: a Spark-written table whose last Spark commit failed (its completed instant file
   removed) is rolled back by hudi-c's next write; Spark reads what hudi-c reads, and writes on.
   (hudi-rs 0.5 cannot decode the metadata records Spark 1.2 writes, so it reads only in 1.)
../shared/tools/hudi_check.py passes after every hudi-c write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def check(path: Path, spark_wrote: bool = False) -> str:
    """hudi_check.py passes (after a Spark write, only its complaints about Hadoop's .crc files
    beside timeline files are tolerated)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    crc = [ln for ln in fails if ln.endswith(".crc: not a layout-2 timeline file name")]
    if not (spark_wrote and fails and fails == crc):
        assert r.returncode == 0, r.stdout + r.stderr
    for name in ("metadata.files-listing", "metadata.record-index", "metadata.sync"):
        assert f"PASS {name}:" in r.stdout, r.stdout
    return r.stdout


def batch(start: int, n: int) -> pa.Table:
    ids = range(start, start + n)
    return pa.table({"id": [f"k{i:03d}" for i in ids], "region": [["eu", "us", "apac"][i % 3] for i in ids],
                     "v": pa.array(list(ids), pa.int64())})


def triples(t: pa.Table) -> list:
    return sorted(zip(t.column("id").to_pylist(), t.column("region").to_pylist(), t.column("v").to_pylist()))


def ours(path: Path) -> list:
    return triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read()))


def rows_of(frame) -> list:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted((v(r["id"]), v(r["region"]), v(r["v"])) for r in frame.rows)


def timeline(path: Path) -> list:
    return sorted(os.listdir(path / ".hoodie" / "timeline"))


def abandon_last_write(path: Path) -> str:
    """Removes the completed file (and Hadoop's .crc of it) of the latest completed write: the
    write is left inflight with all its files, as a crash just before completion leaves it."""
    tl = path / ".hoodie" / "timeline"
    done = sorted(n for n in os.listdir(tl)
                  if "_" in n and n.split(".")[-1] in ("commit", "deltacommit") and not n.startswith("."))
    last = done[-1]
    os.remove(tl / last)
    crc = tl / f".{last}.crc"
    if crc.exists():
        os.remove(crc)
    return last.split("_")[0]


def spark_upsert(interop_config, tmp_path: Path, path: Path, table_type: str, rows) -> None:
    argv = [interop_config["SPARK_PYTHON"], str(HERE / "spark_rli_upsert.py"), interop_config["HUDI_JAR"],
            str(tmp_path / "spark-work"), str(path), table_type, "region", json.dumps(rows)]
    r = subprocess.run(argv, env=interop_config.worker_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and '{"ok": true}' in r.stdout, r.stdout[-3000:] + r.stderr[-6000:]


def no_files_of(path: Path, instant: str) -> None:
    for root, _, files in os.walk(path):
        rel = os.path.relpath(root, path)
        if rel == ".hoodie" or rel.startswith(".hoodie/") and not rel.startswith(".hoodie/metadata"):
            continue
        if rel.startswith(".hoodie/metadata/.hoodie"):
            continue
        for f in files:
            assert instant not in f, f"{root}/{f} of rolled-back {instant} is still there"
    assert not [n for n in timeline(path) if n.startswith(instant)]
    mdt = os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
    assert not [n for n in mdt if n.startswith(instant)]


def test_our_abandoned_write_rolled_back(tmp_path, spark, hudirs, interop_config):
    for table_type in ("mor", "cow"):
        path = tmp_path / f"ours_{table_type}"
        t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type)
        t.append(batch(0, 12))
        expected = triples(batch(0, 12))
        # The abandoned write: updates (MOR: log files; COW: new base file versions) and inserts.
        upd = pa.table({"id": ["k001", "k004", "k900"], "region": ["us", "us", "eu"],
                        "v": pa.array([1001, 1004, 900], pa.int64())})
        hudi.HudiTable(str(path)).upsert(upd)
        failed = abandon_last_write(path)
        assert ours(path) == expected
        # Our next write rolls it back first.
        hudi.HudiTable(str(path)).append(batch(100, 4))
        expected = sorted(expected + triples(batch(100, 4)))
        assert ours(path) == expected
        assert [n for n in timeline(path) if n.endswith(".rollback")]
        no_files_of(path, failed)
        check(path)
        assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected
        assert rows_of(hudirs.read_table(str(path))) == expected

        # Spark upserts (through our record index) after our rollback.
        spark_upsert(interop_config, tmp_path, path, table_type, [["k002", "apac", 2002], ["k777", "us", 777]])
        want = {r[0]: r for r in expected}
        want["k002"] = ("k002", "apac", 2002)
        want["k777"] = ("k777", "us", 777)
        want = sorted(want.values())
        assert ours(path) == want
        assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == want
        # hudi-rs 0.5 cannot decode the metadata records Spark 1.2 writes (their column-stats
        # schema has one field more: "reconcile child-count mismatch"), even with
        # hoodie.metadata.enable=false, so it reads only tables hudi-c wrote last.
        check(path, spark_wrote=True)


def test_spark_failed_commit_rolled_back_by_us(tmp_path, spark, hudirs, interop_config):
    path = tmp_path / "spark_mor"
    first = [[f"s{i:02d}", ["eu", "us"][i % 2], i] for i in range(8)]
    spark_upsert(interop_config, tmp_path, path, "mor", first)
    spark_upsert(interop_config, tmp_path, path, "mor", [["s01", "us", 101], ["s20", "eu", 20]])
    failed = abandon_last_write(path)  # Spark's second commit "crashed" before completing
    expected = sorted(tuple(r) for r in first)
    assert ours(path) == expected

    hudi.HudiTable(str(path)).upsert(pa.table({"id": ["s02"], "region": ["eu"], "v": pa.array([202], pa.int64())}))
    want = {r[0]: r for r in expected}
    want["s02"] = ("s02", "eu", 202)
    want = sorted(want.values())
    assert ours(path) == want
    no_files_of(path, failed)
    check(path, spark_wrote=True)
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == want
    # (hudi-rs 0.5 cannot read a table with Spark 1.2's metadata records; see above.)
    # Spark writes on after our rollback of its failed commit.
    spark_upsert(interop_config, tmp_path, path, "mor", [["s03", "us", 303]])
    want = {r[0]: r for r in want}
    want["s03"] = ("s03", "us", 303)
    want = sorted(want.values())
    assert ours(path) == want
    assert rows_of(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == want
