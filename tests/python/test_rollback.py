"""HudiTable.rollback and the rollback of failed writes by the next write.

Oracles: pyarrow snapshots of the table before the rolled-back write;
fastavro decoding the rollback plan and metadata we write, compared field by
field with the ones Spark 1.1 wrote in fixture mor/avro/v9_nonpartitioned_rollback
(same record schemas, same shape of requests); the conformance checker
../shared/tools/hudi_check.py (metadata table in sync) after every rollback.

The crash test (a fault at every storage operation of a write) is C only
(tests/unit/table/test_crash.c): the fault-injecting storage is not reachable
through a storage option.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
import zipfile

import fastavro
import pyarrow as pa
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
FIXTURE = FIXTURES / "hudi-rs/crates/test/data/sample_table/mor/avro/v9_nonpartitioned_rollback.zip"


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS metadata.sync:" in r.stdout, r.stdout
    assert "PASS metadata.files-listing:" in r.stdout, r.stdout
    return r.stdout


def data(ids, ts, parts, vals) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.string()),
        "ts": pa.array(ts, pa.int64()),
        "p": pa.array(parts, pa.string()),
        "v": pa.array(vals, pa.int32()),
    })


def rows(path) -> list:
    batches = HudiTable(str(path)).read()
    if not batches:
        return []
    t = pa.Table.from_batches(batches)
    return sorted(zip(t.column("id").to_pylist(), t.column("p").to_pylist(), t.column("v").to_pylist()))


def avro(path) -> tuple:
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        recs = list(r)
        assert len(recs) == 1
        return r.writer_schema, recs[0]


def field_names(schema) -> list:
    return [f["name"] for f in schema["fields"]]


@pytest.fixture(scope="module")
def spark_rollback(tmp_path_factory):
    d = tmp_path_factory.mktemp("fx")
    with zipfile.ZipFile(FIXTURE) as z:
        z.extractall(d)
    tl = d / "v9_nonpartitioned_rollback/.hoodie/timeline"
    plan = next(tl.glob("*.rollback.requested"))
    meta = next(p for p in tl.glob("*_*.rollback"))
    return avro(plan), avro(meta)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_rollback_latest_write(tmp_path, kind, spark_rollback):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    before = rows(path)
    w = t.upsert(data(["a", "d"], [2, 2], ["x", "z"], [10, 40]))
    assert rows(path) != before

    r = t.rollback(w.requested_time)
    assert r.rolled_back_instant == w.requested_time
    assert r.num_files_deleted == w.files_written
    assert r.requested_time > w.completion_time
    assert rows(path) == before
    check(path)

    tl = path / ".hoodie/timeline"
    names = sorted(os.listdir(tl))
    assert not [n for n in names if n.startswith(w.requested_time)]  # T's files are gone
    R = r.requested_time
    assert f"{R}.rollback.inflight" in names and os.path.getsize(tl / f"{R}.rollback.inflight") == 0
    (plan_schema, plan), (meta_schema, meta) = avro(tl / f"{R}.rollback.requested"), avro(
        tl / f"{R}_{r.completion_time}.rollback")
    (fx_plan_schema, fx_plan), (fx_meta_schema, fx_meta) = spark_rollback
    # The records Spark writes, field for field.
    assert plan_schema["name"] == fx_plan_schema["name"] and field_names(plan_schema) == field_names(fx_plan_schema)
    assert meta_schema["name"] == fx_meta_schema["name"] and field_names(meta_schema) == field_names(fx_meta_schema)
    action = "deltacommit" if kind == "mor" else "commit"
    assert plan["instantToRollback"] == {"commitTime": w.requested_time, "action": action}
    assert plan["version"] == fx_plan["version"] == 1
    files = sorted(f for rq in plan["RollbackRequests"] for f in rq["filesToBeDeleted"])
    assert len(files) == w.files_written
    for rq in plan["RollbackRequests"]:
        # Listing-based requests (T completed: its markers were gone), as in the fixture.
        assert set(rq) == set(fx_plan["RollbackRequests"][0])
        assert rq["fileId"] == "" and rq["latestBaseInstant"] == "" and rq["logBlocksToBeDeleted"] == {}
        for f in rq["filesToBeDeleted"]:
            assert f.startswith(str(path) + "/" + rq["partitionPath"] + "/") and w.requested_time in f
            assert not os.path.exists(f)
    assert meta["startRollbackTime"] == R
    assert meta["commitsRollback"] == [w.requested_time]
    assert meta["instantsRollback"] == [{"commitTime": w.requested_time, "action": action}]
    assert meta["totalFilesDeleted"] == len(files)
    assert sorted(f for pm in meta["partitionMetadata"].values() for f in pm["successDeleteFiles"]) == files
    for key, pm in meta["partitionMetadata"].items():
        assert pm["partitionPath"] == key and pm["failedDeleteFiles"] == []
        assert pm["rollbackLogFiles"] == {} and pm["logFilesFromFailedCommit"] == {}

    # The metadata table rolled back its deltacommit T with the same rollback time.
    mtl = path / ".hoodie/metadata/.hoodie/timeline"
    mnames = os.listdir(mtl)
    assert not [n for n in mnames if n.startswith(w.requested_time)]
    mdone = [n for n in mnames if n.startswith(R + "_") and n.endswith(".rollback")]
    assert len(mdone) == 1
    _, mmeta = avro(mtl / mdone[0])
    assert mmeta["commitsRollback"] == [w.requested_time]
    assert "files" in mmeta["partitionMetadata"] and "record_index" in mmeta["partitionMetadata"]
    assert mdone[0].split("_")[1] < f"{r.completion_time}.rollback"

    # Writing goes on; a rolled-back instant and an older write cannot be rolled back.
    w2 = t.upsert(data(["a"], [3], ["x"], [100]))
    assert rows(path) == sorted([("a", "x", 100), ("b", "x", 2), ("c", "y", 3)])
    check(path)
    with pytest.raises(Exception, match="not the latest write"):
        t.rollback(sorted(n for n in names if n.endswith(".commit") or n.endswith(".deltacommit"))[0][:17])
    with pytest.raises(Exception):
        t.rollback(R)
    assert w2.completion_time


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_failed_write_rolled_back_by_next_write(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    before = rows(path)
    # A write that "crashed" before completing: its completed file is removed,
    # leaving T inflight with its data and metadata-table files on disk.
    w = t.upsert(data(["a", "d"], [2, 2], ["x", "z"], [10, 40]))
    tl = path / ".hoodie/timeline"
    done = [n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")]
    assert len(done) == 1
    os.remove(tl / done[0])
    assert rows(path) == before

    HudiTable(str(path)).upsert(data(["b"], [5], ["x"], [20]))
    assert rows(path) == sorted([("a", "x", 1), ("b", "x", 20), ("c", "y", 3)])
    names = os.listdir(tl)
    assert not [n for n in names if n.startswith(w.requested_time)]
    assert [n for n in names if n.endswith(".rollback")]
    for root, _, files in os.walk(path):
        if "/.hoodie" in root and "/.hoodie/metadata/" not in root + "/":
            continue
        for f in files:
            assert w.requested_time not in f, os.path.join(root, f)
    check(path)


def test_rollback_refusals(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="cow")
    w = t.append(data(["a"], [1], ["x"], [1]))
    with pytest.raises(Exception, match="no instant"):
        t.rollback("20000101000000000")
    with pytest.raises(ValueError):
        t.rollback("")
    r = t.rollback(w.requested_time)
    assert r.num_files_deleted == 1
    assert rows(path) == []
    check(path)
