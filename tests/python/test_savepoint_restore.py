"""Savepoint and restore (HudiTable.savepoint / savepoints / restore, hudi_table_savepoint /
hudi_table_restore), as Apache Hudi 1.x writes them.

Oracles: a read as of the savepoint taken before the later writes (the restored snapshot must equal
it), the table's file slices as of the savepoint (the savepoint's file list), fastavro reading our
timeline files against the record schemas of Apache Hudi's .avsc sources (written out below), the
timeline listing, and the conformance checker ../shared/tools/hudi_check.py on every table.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

from hudi import HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

# apache/hudi hudi-common/src/main/avro/*.avsc (1.x): the records as declared there.
INSTANT_INFO = {"type": "record", "name": "HoodieInstantInfo", "fields": [
    {"name": "commitTime", "type": "string"}, {"name": "action", "type": "string"}]}
SAVEPOINT_AVSC = {"namespace": "org.apache.hudi.avro.model", "type": "record", "name": "HoodieSavepointMetadata",
                  "fields": [
                      {"name": "savepointedBy", "type": "string"},
                      {"name": "savepointedAt", "type": "long"},
                      {"name": "comments", "type": "string"},
                      {"name": "partitionMetadata", "type": {"type": "map", "values": {
                          "type": "record", "name": "HoodieSavepointPartitionMetadata", "fields": [
                              {"name": "partitionPath", "type": "string"},
                              {"name": "savepointDataFile", "type": {"type": "array", "items": "string"}}]}}},
                      {"name": "version", "type": ["int", "null"], "default": 1}]}
RESTORE_PLAN_AVSC = {"namespace": "org.apache.hudi.avro.model", "type": "record", "name": "HoodieRestorePlan",
                     "fields": [
                         {"name": "instantsToRollback", "default": [], "type": {"type": "array",
                                                                                "items": INSTANT_INFO}},
                         {"name": "version", "type": ["int", "null"], "default": 2},
                         {"name": "savepointToRestoreTimestamp", "type": ["string", "null"], "default": None}]}


def strip_java(s):
    """A schema without Java's avro.java.string properties, defaults and namespaces (shape only)."""
    if isinstance(s, dict):
        d = {k: strip_java(v) for k, v in s.items() if k not in ("avro.java.string", "default", "namespace", "doc")}
        return d["type"] if list(d) == ["type"] else d  # {"type": "string"} is "string"
    if isinstance(s, list):
        return [strip_java(x) for x in s]
    return s


def read_avro(path: Path, avsc: dict):
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        schema = json.loads(r.metadata["avro.schema"])
        recs = list(r)
    assert len(recs) == 1
    # our writer schema has the .avsc's shape (type and field order; Java's union order kept)
    got, want = strip_java(schema), strip_java(avsc)
    if avsc is not RESTORE_PLAN_AVSC:
        assert got == want, (got, want)
    else:  # Java's generated class puts null first in savepointToRestoreTimestamp's union
        assert [f["name"] for f in got["fields"]] == [f["name"] for f in want["fields"]]
    assert fastavro.validation.validate(recs[0], fastavro.parse_schema(avsc), raise_errors=True)
    return recs[0]


SAVEPOINT_TIME_CLASH = re.compile(r"^FAIL timeline\.states: \.hoodie/(?:timeline/)?(\d{17})(_\d{17})?"
                                  r"\.savepoint(\.inflight)?: instant (\d{17}) already has ")


def check(path) -> str:
    """The checker must pass, except its timeline.states rule "one action per instant time" for a
    savepoint: Hudi gives the savepoint its commit's time (SavepointActionExecutor; a table Spark
    savepointed fails that rule the same way, tests/interop/test_savepoint_interop.py), so exactly
    those lines are tolerated, and only when the savepoint's time is the instant named."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    other = [ln for ln in fails if not ((m := SAVEPOINT_TIME_CLASH.match(ln)) and m.group(1) == m.group(4))]
    assert not other and (r.returncode == 0 or fails), r.stdout + r.stderr
    return r.stdout


def data(ids, ts, parts, vals) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.string()), "ts": pa.array(ts, pa.int64()),
                     "p": pa.array(parts, pa.string()), "v": pa.array(vals, pa.int32())})


def rows(batches) -> list:
    if not batches:
        return []
    out = pa.Table.from_batches(batches).to_pylist()
    keep = ("_hoodie_commit_time", "_hoodie_record_key", "id", "ts", "p", "v")
    return sorted(({k: r[k] for k in keep} for r in out), key=lambda r: r["id"])


def timeline(path) -> list:
    return sorted(f for f in os.listdir(path / ".hoodie" / "timeline") if not f.startswith("."))


def slice_files(t: HudiTable) -> dict:
    out: dict = {}
    for s in t.get_file_slices():
        names = ([os.path.basename(s.base_file_path)] if s.base_file_path else [])
        names += [os.path.basename(p) for p in s.log_file_paths]
        out.setdefault(s.partition_path, set()).update(names)
    return out


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_savepoint_then_restore(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(data([f"k{i}" for i in range(20)], [1] * 20, ["a" if i % 2 else "b" for i in range(20)], range(20)))
    c2 = t.upsert(data(["k1", "k2", "new1"], [2, 2, 2], ["a", "b", "a"], [101, 102, 201])).requested_time
    t = HudiTable(str(path))
    files_at_c2 = slice_files(t)

    sp = t.savepoint(user="alice", comment="before the batch")
    assert sp.instant == c2 and sp.completion_time > c2
    assert sp.num_partitions == 2 and sp.num_files == sum(len(v) for v in files_at_c2.values())
    tl = timeline(path)
    assert f"{c2}.savepoint.inflight" in tl and f"{c2}_{sp.completion_time}.savepoint" in tl
    assert os.path.getsize(path / ".hoodie" / "timeline" / f"{c2}.savepoint.inflight") == 0
    meta = read_avro(path / ".hoodie" / "timeline" / f"{c2}_{sp.completion_time}.savepoint", SAVEPOINT_AVSC)
    assert meta["savepointedBy"] == "alice" and meta["comments"] == "before the batch" and meta["version"] == 1
    assert abs(meta["savepointedAt"] - int(__import__("time").time() * 1000)) < 600_000  # epoch ms, as Java
    assert {k: set(v["savepointDataFile"]) for k, v in meta["partitionMetadata"].items()} == files_at_c2
    assert all(k == v["partitionPath"] for k, v in meta["partitionMetadata"].items())
    [info] = HudiTable(str(path)).savepoints()
    assert (info.instant, info.user, info.comments, info.num_files) == (c2, "alice", "before the batch", sp.num_files)
    with pytest.raises(Exception, match="savepointed already"):
        t.savepoint(c2)
    check(path)

    before = rows(HudiTable(str(path)).read())
    as_of = rows(HudiTable(str(path)).read(HudiReadOptions().with_as_of_timestamp(c2)))
    assert before == as_of

    # later writes: upserts, deletes, a compaction (MOR), a pending write left behind
    later = []
    later.append(t.upsert(data(["k3", "k4", "new2"], [3, 3, 3], ["a", "b", "b"], [103, 104, 202])).requested_time)
    later.append(HudiTable(str(path)).delete_keys(["k5", "k6"]).requested_time)
    if kind == "mor":
        later.append(HudiTable(str(path)).compact().requested_time)
        assert later[-1]
    later.append(HudiTable(str(path)).upsert(data(["k7"], [4], ["a"], [107])).requested_time)
    t = HudiTable(str(path))
    assert rows(t.read()) != before
    with pytest.raises(Exception, match="savepointed"):
        t.rollback(c2)

    r = t.restore(c2)
    assert r.num_instants_rolled_back == len(later)
    t = HudiTable(str(path))
    assert rows(t.read()) == before
    assert rows(t.read(HudiReadOptions().with_as_of_timestamp(c2))) == before
    tl = timeline(path)
    R = r.requested_time
    assert f"{R}.restore.requested" in tl and f"{R}.restore.inflight" in tl
    assert f"{R}_{r.completion_time}.restore" in tl
    assert not [f for f in tl if "rollback" in f], tl  # Hudi keeps only the restore instant
    assert not [f for f in tl if f.split(".")[0].split("_")[0] in later], tl
    assert f"{c2}_{sp.completion_time}.savepoint" in tl  # the savepoint stays
    plan = read_avro(path / ".hoodie" / "timeline" / f"{R}.restore.requested", RESTORE_PLAN_AVSC)
    assert plan["version"] == 2 and plan["savepointToRestoreTimestamp"] == c2
    assert [i["commitTime"] for i in plan["instantsToRollback"]] == later[::-1]
    with open(path / ".hoodie" / "timeline" / f"{R}_{r.completion_time}.restore", "rb") as f:
        rm = list(fastavro.reader(f))[0]
    assert rm["startRestoreTime"] == R and rm["instantsToRollback"] == later[::-1] and rm["version"] == 1
    assert sorted(rm["hoodieRestoreMetadata"]) == sorted(later)
    for inst, [rb] in rm["hoodieRestoreMetadata"].items():
        assert rb["commitsRollback"] == [inst] and rb["startRollbackTime"] > R
    assert [(i["commitTime"], i["action"]) for i in rm["restoreInstantInfo"]] == \
        [(i["commitTime"], i["action"]) for i in plan["instantsToRollback"]]
    check(path)

    # the restored table takes writes again
    HudiTable(str(path)).upsert(data(["new9"], [9], ["a"], [109]))
    assert not any(x["id"] == "new9" for x in before)
    assert len(rows(HudiTable(str(path)).read())) == len(before) + 1
    check(path)


@pytest.mark.parametrize("policy", ["KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS"])
def test_clean_keeps_savepointed_files(tmp_path, policy):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="cow")
    t.append(data([f"k{i}" for i in range(10)], [1] * 10, ["a"] * 10, range(10)))
    sp = HudiTable(str(path)).savepoint()
    before = rows(HudiTable(str(path)).read())
    kept = {f for fs in slice_files(HudiTable(str(path))).values() for f in fs}
    opts = {"hoodie.clean.automatic": "false"}
    for i in range(4):
        HudiTable(str(path)).upsert(data(["k1", "k2"], [10 + i] * 2, ["a", "a"], [i, i]), opts)
    res = HudiTable(str(path)).clean({"hoodie.clean.policy": policy, "hoodie.clean.commits.retained": "1",
                                      "hoodie.clean.fileversions.retained": "1"})
    assert res.num_files_deleted > 0  # the slices between the savepoint and the latest go
    on_disk = {f for _, _, fs in os.walk(path) for f in fs}
    assert kept <= on_disk
    check(path)
    HudiTable(str(path)).restore(sp.instant)
    assert rows(HudiTable(str(path)).read()) == before
    check(path)


def test_delete_savepoint(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="cow")
    t.append(data(["k1"], [1], ["a"], [1]))
    c2 = HudiTable(str(path)).upsert(data(["k2"], [2], ["a"], [2])).requested_time
    sp = HudiTable(str(path)).savepoint()
    with pytest.raises(Exception, match="savepointed"):
        HudiTable(str(path)).rollback(c2)
    HudiTable(str(path)).delete_savepoint(sp.instant)
    assert HudiTable(str(path)).savepoints() == []
    assert not [f for f in timeline(path) if "savepoint" in f]
    with pytest.raises(Exception, match="no completed savepoint"):
        HudiTable(str(path)).delete_savepoint(sp.instant)
    HudiTable(str(path)).rollback(c2)  # no longer savepointed
    assert [r["id"] for r in rows(HudiTable(str(path)).read())] == ["k1"]
    check(path)


def test_restore_errors(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="cow")
    c1 = t.append(data(["k1"], [1], ["a"], [1])).requested_time
    with pytest.raises(Exception, match="no completed savepoint"):
        HudiTable(str(path)).restore(c1)
    with pytest.raises(Exception, match="no completed commit"):
        HudiTable(str(path)).savepoint("20000101000000000")
    with pytest.raises(ValueError):
        HudiTable(str(path)).restore("")


def test_archival_stops_before_the_first_savepoint(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.clean.commits.retained": "1"}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="cow")
    commits = [t.append(data(["k0"], [0], ["a"], [0]), opts).requested_time]
    for i in range(1, 4):
        commits.append(HudiTable(str(path)).upsert(data([f"k{i}"], [i], ["a"], [i]), opts).requested_time)
    with pytest.raises(Exception, match="beyond the lookup window"):  # cleaned already (Hudi's check)
        HudiTable(str(path)).savepoint(commits[1])
    sp = HudiTable(str(path)).savepoint().instant
    assert sp == commits[3]
    before = rows(HudiTable(str(path)).read(HudiReadOptions().with_as_of_timestamp(sp)))
    for i in range(4, 12):
        commits.append(HudiTable(str(path)).upsert(data([f"k{i}"], [i], ["a"], [i]), opts).requested_time)
    HudiTable(str(path)).archive(opts)
    active = {f.split(".")[0].split("_")[0] for f in timeline(path) if f.endswith(".commit")}
    # without the savepoint the archiver would keep only the last few commits (test_archive.py);
    # here everything from the savepointed commit on stays active, the commits before it may go
    assert set(commits[3:]) <= active and not set(commits[:3]) <= active, (sorted(active), commits)
    assert f"{sp}.savepoint.inflight" in timeline(path)
    HudiTable(str(path)).restore(sp)
    assert rows(HudiTable(str(path)).read()) == before
    check(path)
