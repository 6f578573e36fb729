"""Rollbacks on tables of version 6 (timeline layout 1): failed writes rolled back by the next
write, HudiTable.rollback of the latest write, and a failed write of Spark's rolled back by hudi-c.

A version-6 log file is named by its slice's base instant, so a failed delta commit's log file is
not deleted: the rollback writes a ROLLBACK command block into the slice's next log version.

Oracles: the rollback plan, metadata and command block Spark wrote in fixture
mor/parquet/v6_nonpartitioned_rollback (fastavro; the block's bytes); pyarrow snapshots of the
table before the rolled-back write, and for the Spark table hudi-c's time travel to the instant
before it (checked against hudi-rs on the fixtures); the conformance checker. The crash test of
version 6 (a fault at every storage operation) is in tests/unit/table/test_crash.c.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import hudi
from hudi import HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES
from test_savepoint_restore import RESTORE_PLAN_AVSC, read_avro
from test_savepoint_restore import check as check_savepointed  # tolerates only the savepoint time clash

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
FIXTURE = FIXTURES / "hudi-rs/crates/test/data/sample_table/mor/parquet/v6_nonpartitioned_rollback.zip"
V6 = {"hoodie.write.table.version": "6"}
LOGS = {"hoodie.parquet.small.file.limit": "0"}  # updates go to log files, not small-file merges


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def data(ids, ts, parts, vals) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.string()),
        "ts": pa.array(ts, pa.int64()),
        "p": pa.array(parts, pa.string()),
        "v": pa.array(vals, pa.int32()),
    })


def rows(path, cols=("id", "p", "v"), **kw) -> list:
    batches = HudiTable(str(path)).read(**kw)
    if not batches:
        return []
    t = pa.Table.from_batches(batches)
    return sorted(zip(*(t.column(c).to_pylist() for c in cols)))


def avro(path) -> dict:
    with open(path, "rb") as f:
        recs = list(fastavro.reader(f))
    assert len(recs) == 1
    return recs[0]


def command_blocks(path: Path) -> list:
    """(INSTANT_TIME, COMMAND_BLOCK_TYPE, TARGET_INSTANT_TIME) of each block of a log file made
    of command blocks, decoded by hand (format: magic, int64 size, int32 version, int32 type,
    header map of int32 key / int32 length / bytes, content, footer, int64 total)."""
    b = path.read_bytes()
    out, off = [], 0
    while off < len(b):
        assert b[off:off + 6] == b"#HUDI#", (path, off)
        size = struct.unpack(">q", b[off + 6:off + 14])[0]
        version, btype = struct.unpack(">ii", b[off + 14:off + 22])
        assert (version, btype) == (1, 0)  # format version 1, COMMAND_BLOCK
        p = off + 22
        n, = struct.unpack(">i", b[p:p + 4])
        p += 4
        h = {}
        for _ in range(n):
            k, ln = struct.unpack(">ii", b[p:p + 8])
            h[k] = b[p + 8:p + 8 + ln].decode()
            p += 8 + ln
        out.append((h.get(0), h.get(3), h.get(1)))
        off += 6 + 8 + size
    return out


def log_blocks(path: Path) -> list:
    """(block type, INSTANT_TIME, TARGET_INSTANT_TIME) of every block of a log file, from the
    block framing alone (magic, int64 size, int32 version, int32 type, header map)."""
    b = path.read_bytes()
    out, off = [], 0
    while off < len(b):
        assert b[off:off + 6] == b"#HUDI#", (path, off)
        size = struct.unpack(">q", b[off + 6:off + 14])[0]
        btype, = struct.unpack(">i", b[off + 18:off + 22])
        p = off + 22
        n, = struct.unpack(">i", b[p:p + 4])
        p += 4
        h = {}
        for _ in range(n):
            k, ln = struct.unpack(">ii", b[p:p + 8])
            h[k] = b[p + 8:p + 8 + ln].decode("utf-8", "replace")
            p += 8 + ln
        out.append((btype, h.get(0), h.get(1)))
        off += 6 + 8 + size
    return out


def completed(path: Path) -> set:
    return {m[1] for f in os.listdir(path / ".hoodie")
            if (m := re.match(r"^(\d{17})\.(commit|deltacommit)$", f))}


def unanswered(path: Path) -> list:
    """Data and delete blocks of instants that are not completed and that no command block of
    their slice rolls back: what Java would read once archival passed those instants."""
    done, out = completed(path), []
    slices: dict = {}
    for f in path.rglob(".*.log.*"):
        slice_key = (f.parent, f.name.split(".log.")[0])
        for btype, inst, target in log_blocks(f):
            s = slices.setdefault(slice_key, [set(), set()])
            if btype == 0:
                s[1].add(target)
            elif inst not in done:
                s[0].add(inst)
    for k, (failed, targets) in slices.items():
        out += [(k, i) for i in failed - targets]
    return out


@pytest.fixture(scope="module")
def spark_v6(tmp_path_factory):
    d = tmp_path_factory.mktemp("fx")
    with zipfile.ZipFile(FIXTURE) as z:
        z.extractall(d)
    return d / "v6_nonpartitioned_rollback"


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_failed_write_rolled_back_by_next_write(tmp_path, kind, spark_v6):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False, hudi_options=V6)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    t = HudiTable(str(path), LOGS)
    before = rows(path)
    # A write that "crashed" before completing: its completed file removed, its markers kept.
    w = t.upsert(data(["a", "c", "d"], [2, 2, 2], ["x", "y", "z"], [10, 30, 40]))
    hoodie = path / ".hoodie"
    action = "deltacommit" if kind == "mor" else "commit"
    os.remove(hoodie / f"{w.requested_time}.{action}")
    assert rows(path) == before
    logs_before = sorted(p.name for p in path.rglob(".*.log.*"))

    n = HudiTable(str(path), LOGS).upsert(data(["b"], [5], ["x"], [20]))
    assert rows(path) == sorted([("a", "x", 1), ("b", "x", 20), ("c", "y", 3)])
    names = os.listdir(hoodie)
    assert not [x for x in names if x.startswith(w.requested_time)]
    done = [x for x in names if x.endswith(".rollback")]
    assert len(done) == 1
    R = done[0][:-len(".rollback")]
    assert w.requested_time < R < n.requested_time
    assert os.path.getsize(hoodie / f"{R}.rollback.inflight") == 0
    plan, meta = avro(hoodie / f"{R}.rollback.requested"), avro(hoodie / f"{R}.rollback")
    fx_plan = avro(next((spark_v6 / ".hoodie").glob("*.rollback.requested")))
    fx_meta = avro(next((spark_v6 / ".hoodie").glob("*.rollback")))
    assert set(plan) == set(fx_plan) and set(meta) == set(fx_meta)
    assert plan["instantToRollback"] == {"commitTime": w.requested_time, "action": action}
    assert meta["commitsRollback"] == [w.requested_time] and meta["startRollbackTime"] == R
    deleted = [f for rq in plan["RollbackRequests"] for f in rq["filesToBeDeleted"]]
    log_reqs = [rq for rq in plan["RollbackRequests"] if rq["logBlocksToBeDeleted"]]
    for rq in plan["RollbackRequests"]:
        assert set(rq) == set(fx_plan["RollbackRequests"][0])
        if rq["filesToBeDeleted"]:  # base files: no file id, as 0.x writes them (fixture)
            assert rq["fileId"] == "" and rq["latestBaseInstant"] == "" and rq["logBlocksToBeDeleted"] == {}
    for f in deleted:
        assert w.requested_time in f and not os.path.exists(f)
    assert meta["totalFilesDeleted"] == len(deleted)
    got_logs = {k: v for pm in meta["partitionMetadata"].values() for k, v in pm["rollbackLogFiles"].items()}
    failed_logs = {k: v for pm in meta["partitionMetadata"].values() for k, v in pm["logFilesFromFailedCommit"].items()}
    if kind == "cow":
        assert log_reqs == [] and got_logs == {} and failed_logs == {}
        assert len(deleted) == w.files_written
    else:
        # a (partition x) and c (y) were updates: appended to their slices' logs.
        assert sorted(rq["partitionPath"] for rq in log_reqs) == ["p=x", "p=y"]
        for rq in log_reqs:
            assert rq["fileId"] and rq["latestBaseInstant"] < w.requested_time and rq["filesToBeDeleted"] == []
            (uri, size), = rq["logBlocksToBeDeleted"].items()
            assert uri.startswith("file:" + str(path) + "/" + rq["partitionPath"] + "/.")
            f = Path(uri[len("file:"):])
            assert f.name in logs_before and f.exists() and size == f.stat().st_size  # the failed log stays
            assert f".{rq['fileId']}_{rq['latestBaseInstant']}.log." in f.name
        assert failed_logs == {k: v for rq in log_reqs for k, v in rq["logBlocksToBeDeleted"].items()}
        assert len(got_logs) == 2
        fx_block = next(spark_v6.glob(".*.log.2_1-0-1"))
        for uri, size in got_logs.items():
            f = Path(uri[len("file:"):])
            assert f.name.endswith("_1-0-1") and size == f.stat().st_size == fx_block.stat().st_size
            # Spark's block holds the same header entries (its order is Java's HashMap order of the
            # enum keys, which follows their identity hashes; ours is the ordinal order).
            assert command_blocks(f) == [(R, "0", w.requested_time)]
            assert [x[1] for x in command_blocks(fx_block)] == ["0"]
    check(path)
    # Compaction skips the rolled-back blocks.
    if kind == "mor":
        c = HudiTable(str(path)).compact()
        assert c.num_file_groups >= 1
        assert rows(path) == sorted([("a", "x", 1), ("b", "x", 20), ("c", "y", 3)])
        check(path)


def test_rollback_latest_write(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=False, hudi_options=V6)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    t = HudiTable(str(path), LOGS)
    w1 = t.upsert(data(["a"], [2], ["x"], [10]))
    before = rows(path)
    w = t.upsert(data(["a", "b"], [3, 3], ["x", "x"], [100, 200]))
    assert rows(path) != before
    r = t.rollback(w.requested_time)
    assert r.rolled_back_instant == w.requested_time and r.num_files_deleted == 0
    assert rows(path) == before == sorted([("a", "x", 10), ("b", "x", 2), ("c", "y", 3)])
    hoodie = path / ".hoodie"
    assert (hoodie / f"{r.requested_time}.rollback").exists()
    assert not [x for x in os.listdir(hoodie) if x.startswith(w.requested_time)]
    # Layout 1 has no completion time in names: Java reads the completed file's mtime, which is
    # stamped with the completion time hudi-c reports.
    done = datetime.strptime(r.completion_time, "%Y%m%d%H%M%S%f").replace(tzinfo=timezone.utc)
    assert os.stat(hoodie / f"{r.requested_time}.rollback").st_mtime_ns // 1_000_000 == int(
        done.timestamp() * 1000 + 0.5)
    meta = avro(hoodie / f"{r.requested_time}.rollback")
    (uri, _), = next(pm for pm in meta["partitionMetadata"].values())["rollbackLogFiles"].items()
    assert command_blocks(Path(uri[len("file:"):])) == [(r.requested_time, "0", w.requested_time)]
    check(path)
    # An older write cannot be rolled back past a later one; writing goes on.
    t.append(data(["e"], [1], ["x"], [5]))
    with pytest.raises(Exception, match="not the latest write"):
        HudiTable(str(path)).rollback(w1.requested_time)
    HudiTable(str(path), LOGS).upsert(data(["c"], [9], ["y"], [33]))
    assert rows(path) == sorted([("a", "x", 10), ("b", "x", 2), ("c", "y", 33), ("e", "x", 5)])
    check(path)


def test_spark_failed_write_rolled_back_from_listing(tmp_path, spark_v6):
    """Spark's last delta commit of the fixture made to look failed (its completed file removed;
    Spark left no markers): hudi-c's next write finds its log block by listing and reading the
    slices' latest log files, and writes a command block after Spark's own rollback's."""
    path = tmp_path / "v6_nonpartitioned_rollback"
    shutil.copytree(spark_v6, path)
    hoodie = path / ".hoodie"
    last = sorted(x for x in os.listdir(hoodie) if x.endswith(".deltacommit"))[-1][:-len(".deltacommit")]
    prev = sorted(x for x in os.listdir(hoodie) if x.endswith(".rollback"))[-1][:-len(".rollback")]
    cols = ("id", "name", "longField", "isActive")  # the last write set Bob's isActive
    want = rows(path, cols, options=HudiReadOptions().with_as_of_timestamp(prev))
    assert rows(path, cols) != want
    assert not list((hoodie / ".temp").rglob("*.marker.*"))
    os.remove(hoodie / f"{last}.deltacommit")
    assert rows(path, cols) == want

    t = HudiTable(str(path), LOGS)
    one = pa.Table.from_batches(t.read())
    one = one.drop_columns([c for c in one.column_names if c.startswith("_hoodie_")])
    row = one.filter(pc.equal(one["id"], want[0][0]))
    row = row.set_column(row.column_names.index("name"), "name", pa.array(["hudi-c"]))
    row = row.set_column(row.column_names.index("longField"), "longField", pa.array([row["longField"][0].as_py() + 1]))
    t.upsert(row)
    want = sorted([(want[0][0], "hudi-c", want[0][2] + 1, want[0][3])] + want[1:])
    assert rows(path, cols) == want
    names = os.listdir(hoodie)
    assert not [x for x in names if x.startswith(last)]
    R = sorted(x for x in names if x.endswith(".rollback"))[-1][:-len(".rollback")]
    assert R > last
    plan = avro(hoodie / f"{R}.rollback.requested")
    (rq,) = plan["RollbackRequests"]
    (uri, size), = rq["logBlocksToBeDeleted"].items()
    failed = Path(uri[len("file:"):])
    assert failed.name == ".0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_20250126040823628.log.3_0-13-9"
    assert (rq["fileId"], rq["latestBaseInstant"]) == ("0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0", "20250126040823628")
    meta = avro(hoodie / f"{R}.rollback")
    (got,) = meta["partitionMetadata"][""]["rollbackLogFiles"]
    assert got.endswith(".log.4_1-0-1")
    assert command_blocks(Path(got[len("file:"):])) == [(R, "0", last)]


def test_two_rollbacks_in_one_slice(tmp_path):
    """Two writes append to one slice; rolling back the later, then the earlier: the slice's
    latest log is then the first rollback's command block, and the earlier write's blocks (in an
    older log file) must still be answered."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor", record_index_enabled=False,
                         hudi_options=V6)
    t.append(data(["a", "b"], [1, 1], ["x", "x"], [1, 2]))
    before = rows(path)
    t = HudiTable(str(path), LOGS)
    w1 = t.upsert(data(["a"], [2], ["x"], [10]))
    w2 = t.upsert(data(["b"], [3], ["x"], [20]))
    t.rollback(w2.requested_time)
    t.rollback(w1.requested_time)
    assert rows(path) == before
    assert unanswered(path) == []
    assert len(list(path.rglob(".*.log.*_1-0-1"))) == 2
    check(path)
    HudiTable(str(path), LOGS).upsert(data(["b"], [4], ["x"], [30]))
    assert rows(path) == sorted([("a", "x", 1), ("b", "x", 30)])
    assert unanswered(path) == []


def test_markers_as_0x_writes_them_and_a_resumed_rollback(tmp_path):
    """A failed delta commit with 0.x's markers (an APPEND marker named like a base file,
    <fileId>_<token>_<baseInstant>.parquet.marker.APPEND, and CREATE markers): the plan comes from
    the markers. The rollback is then interrupted before its completed file and resumed by the
    next write: it finds its command block already written and writes no second one."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=False, hudi_options=V6)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    before = rows(path)
    t = HudiTable(str(path), LOGS)
    w = t.upsert(data(["a", "c", "d"], [2, 2, 2], ["x", "y", "z"], [10, 30, 40]))
    T = w.requested_time
    os.remove(path / ".hoodie" / f"{T}.deltacommit")
    # Markers as 0.x leaves them for this write (hudi-c deleted its own at completion).
    temp = path / ".hoodie" / ".temp" / T
    new_base = [f for f in path.rglob("*.parquet") if T in f.name]
    logs = [f for f in path.rglob(".*.log.*")]
    assert len(new_base) == 1 and len(logs) == 2
    for f in new_base:
        (temp / f.parent.name).mkdir(parents=True, exist_ok=True)
        (temp / f.parent.name / f"{f.name}.marker.CREATE").write_bytes(b"")
    for f in logs:
        fid, base = f.name[1:].split(".log.")[0].rsplit("_", 1)
        (temp / f.parent.name).mkdir(parents=True, exist_ok=True)
        (temp / f.parent.name / f"{fid}_0-1-0_{base}.parquet.marker.APPEND").write_bytes(b"")

    t2 = HudiTable(str(path), LOGS)
    r = t2.rollback(T)
    assert rows(path) == before and unanswered(path) == []
    plan = avro(path / ".hoodie" / f"{r.requested_time}.rollback.requested")
    reqs = plan["RollbackRequests"]
    assert sorted(rq["partitionPath"] for rq in reqs) == ["p=x", "p=y", "p=z"]
    for rq in reqs:
        if rq["partitionPath"] == "p=z":
            assert rq["filesToBeDeleted"] == [str(new_base[0])] and rq["fileId"] == ""
        else:
            (uri, size), = rq["logBlocksToBeDeleted"].items()
            assert Path(uri[len("file:"):]) in logs and rq["fileId"] in uri
    # Interrupted before its completed file: the next write resumes it.
    blocks = sorted(path.rglob(".*.log.*_1-0-1"))
    assert len(blocks) == 2
    os.remove(path / ".hoodie" / f"{r.requested_time}.rollback")
    HudiTable(str(path), LOGS).upsert(data(["b"], [5], ["x"], [20]))
    assert (path / ".hoodie" / f"{r.requested_time}.rollback").exists()
    assert sorted(path.rglob(".*.log.*_1-0-1")) == blocks
    assert rows(path) == sorted([("a", "x", 1), ("b", "x", 20), ("c", "y", 3)])
    assert unanswered(path) == []
    check(path)


def clustering_plan(fids_by_part=None) -> bytes:
    """Spark's clustering plan of fixture cow/v9_txns_nonpart_nometa, its input slices renamed to
    (partition, file id) pairs of ours when given, written with Spark's own schema."""
    fx = FIXTURES / "hudi-rs/crates/test/data/sample_table/cow/v9_txns_nonpart_nometa.zip"
    with zipfile.ZipFile(fx) as z:
        raw = z.read(next(n for n in z.namelist() if n.endswith(".clustering.requested")))
    if fids_by_part is None:
        return raw
    r = fastavro.reader(io.BytesIO(raw))
    rec = next(iter(r))
    template = rec["clusteringPlan"]["inputGroups"][0]["slices"][0]
    rec["clusteringPlan"]["inputGroups"][0]["slices"] = [
        {**template, "fileId": fid, "partitionPath": part, "dataFilePath": f"file:/x/{fid}_0-1-0_1.parquet"}
        for part, fid in fids_by_part]
    out = io.BytesIO()
    fastavro.writer(out, r.writer_schema, [rec])
    return out.getvalue()


def file_groups(path: Path) -> list:
    rel = lambda f: f.parent.relative_to(path).as_posix()  # noqa: E731
    return sorted({("" if rel(f) == "." else rel(f), f.name.split("_")[0]) for f in path.rglob("*.parquet")})


@pytest.mark.parametrize("version", ["6", "8"])
def test_updates_to_a_file_group_being_clustered_are_refused(tmp_path, version):
    """A pending clustering names our file group: an upsert or delete touching it is refused
    before anything is written (Hudi's SparkRejectUpdateStrategy: the clustering would replace
    the group without the update); inserts elsewhere still go."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", record_index_enabled=False,
                         hudi_options={"hoodie.write.table.version": version})
    w = t.append(data(["a", "b"], [1, 1], ["x", "y"], [1, 2]))
    fgs = file_groups(path)
    target = next(g for g in fgs if g[0] == "p=x")
    T = str(int(w.completion_time) + 5)
    if version == "6":
        (path / ".hoodie" / f"{T}.replacecommit.requested").write_bytes(clustering_plan([target]))
    else:
        (path / ".hoodie" / "timeline" / f"{T}.clustering.requested").write_bytes(clustering_plan([target]))
    before = rows(path)
    names = sorted(os.listdir(path / ".hoodie" / ("timeline" if version == "8" else "")))
    for op in (lambda x: x.upsert(data(["a"], [2], ["x"], [10])), lambda x: x.delete_keys(["a"])):
        with pytest.raises(hudi.HudiConflictError, match=f"pending clustering {T}"):
            op(HudiTable(str(path)))
        assert rows(path) == before
        assert sorted(os.listdir(path / ".hoodie" / ("timeline" if version == "8" else ""))) == names
    HudiTable(str(path)).upsert(data(["b", "c"], [2, 2], ["y", "z"], [20, 30]))
    assert rows(path) == sorted([("a", "x", 1), ("b", "y", 20), ("c", "z", 30)])


def test_pending_clustering_is_not_rolled_back(tmp_path):
    """Layout 1 has no clustering action: a pending clustering is a replacecommit whose requested
    file holds a clustering plan (here Spark's, from fixture cow/v9_txns_nonpart_nometa). Writes
    leave it to its job, as Hudi does, and HudiTable.rollback refuses it."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", record_index_enabled=False, hudi_options=V6)
    w = t.append(data(["a"], [1], ["x"], [1]))
    plan = clustering_plan()
    T = str(int(w.completion_time) + 5)
    (path / ".hoodie" / f"{T}.replacecommit.requested").write_bytes(plan)
    HudiTable(str(path)).upsert(data(["b"], [1], ["x"], [2]))
    assert (path / ".hoodie" / f"{T}.replacecommit.requested").exists()
    assert not [f for f in os.listdir(path / ".hoodie") if f.endswith(".rollback")]
    with pytest.raises(Exception, match="pending clustering"):
        HudiTable(str(path)).rollback(T)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_savepoint_and_restore(tmp_path, kind):
    """Savepoint, clean and restore on version 6: T.savepoint beside T's commit, the clean keeps
    the savepointed slices, the restore rolls back every later write (log appends by command
    blocks, compactions by deleting their base files) and keeps its rollback instants, which its
    command blocks name (version 8 drops them, as Hudi 1.x does)."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False, hudi_options=V6)
    t.append(data(["a", "b", "c"], [1, 1, 1], ["x", "x", "y"], [1, 2, 3]))
    opts = {**LOGS, "hoodie.clean.commits.retained": "1"}
    t = HudiTable(str(path), opts)
    w = t.upsert(data(["a"], [2], ["x"], [10]))
    saved = rows(path)
    sp = t.savepoint(comment="before the batch")
    assert sp.instant == w.requested_time
    hoodie = path / ".hoodie"
    assert (hoodie / f"{w.requested_time}.savepoint").exists()
    assert (hoodie / f"{w.requested_time}.savepoint.inflight").exists()
    assert [s.instant for s in t.savepoints()] == [w.requested_time]
    for v in (20, 30, 40):
        t.upsert(data(["a", "c", "d"], [v, v, v], ["x", "y", "z"], [v, v + 1, v + 2]))
        if kind == "mor" and v == 30:
            t.compact()
    files_before = {f.name for f in path.rglob("*") if f.is_file() and ".hoodie" not in f.parts}
    assert rows(path) != saved
    r = t.restore(w.requested_time)
    assert r.num_instants_rolled_back >= 3
    assert rows(path) == saved
    names = os.listdir(hoodie)
    assert f"{r.requested_time}.restore" in names and f"{r.requested_time}.restore.requested" in names
    # Kept (hudi-c's choice on version 6): the command blocks name them.
    assert len([n for n in names if n.endswith(".rollback")]) == r.num_instants_rolled_back
    # Newest first, as Hudi 0.x's getReverseOrderedInstants (version 6 records no completion
    # time; a pending compaction's logs are named by it, so its delta commits go before it).
    plan = read_avro(hoodie / f"{r.requested_time}.restore.requested", RESTORE_PLAN_AVSC)
    order = [i["commitTime"] for i in plan["instantsToRollback"]]
    assert len(order) == r.num_instants_rolled_back and order == sorted(order, reverse=True), order
    later = {n[:17] for n in names if n[:17] > w.requested_time and re.match(r"^\d{17}\.(commit|deltacommit)", n)}
    assert later == set()
    assert unanswered(path) == []
    # The savepointed slices survived the cleans of the later writes.
    assert {f.name for f in path.rglob("*.parquet") if w.requested_time in f.name} <= files_before
    # (the checker's one-action-per-time rule fails on any savepoint: see check_savepointed)
    check_savepointed(path)
    t.upsert(data(["b"], [5], ["x"], [20]))
    want = {r_[0]: r_ for r_ in saved}
    want["b"] = ("b", "x", 20)
    assert rows(path) == sorted(want.values())
    check_savepointed(path)
