"""Cleaning (HudiTable.clean and the automatic clean after each write).

Oracles: a model of Hudi's CleanPlanner written here in plain Python over the files on storage
(listed with os.walk before the clean) and the timeline (hoodie timeline files read with
fastavro); the clean instant files decoded with fastavro; the conformance checker
../shared/tools/hudi_check.py (its metadata checks compare the MDT files partition with the
files on storage); and the rows, which cleaning must never change.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

import hudi
from hudi import HudiTable
from hudi.services import HudiCleanResult
from hudi_fixtures import FIXTURES, table_path

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
BASE = re.compile(r"^(?P<fid>[0-9a-f-]+-\d+)_[^_]+_(?P<instant>\d{17})\.parquet$")
LOG = re.compile(r"^\.(?P<fid>[0-9a-f-]+-\d+)_(?P<instant>\d{17})\.log\.\d+_[\d-]+$")
NO_AUTO = {"hoodie.clean.automatic": "false"}


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    if (Path(path) / ".hoodie" / "metadata").exists():
        assert "PASS metadata.files-listing:" in r.stdout, r.stdout


def batch(ids, v, part="a") -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "p": [part if isinstance(part, str) else part(i) for i in ids],
                     "ts": pa.array([v] * len(ids), pa.int64()), "v": pa.array([v * 100 + i for i in ids], pa.int64())})


def as_of(instant: str) -> hudi.HudiReadOptions:
    return hudi.HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": instant})


def rows(path) -> list:
    got = pa.Table.from_batches(HudiTable(str(path)).read()).to_pylist()
    return sorted((r["id"], r["p"], r["v"]) for r in got)


def data_files(path) -> dict:
    """{relative path: (partition, file id, instant)} of every base and log file on storage."""
    out = {}
    for d, dirs, files in os.walk(path):
        if ".hoodie" in Path(d).relative_to(path).parts[:1]:
            continue
        dirs[:] = [x for x in dirs if x != ".hoodie"]
        for f in files:
            m = BASE.match(f) or LOG.match(f)
            if m:
                rel = os.path.relpath(os.path.join(d, f), path)
                out[rel] = (os.path.dirname(rel), m["fid"], m["instant"], bool(BASE.match(f)))
    return out


def timeline(path) -> list:
    """(requested, action, completion) of the completed instants, from the file names."""
    out = []
    for f in sorted(os.listdir(Path(path) / ".hoodie" / "timeline")):
        m = re.match(r"^(\d{17})_(\d{17})\.(\w+)$", f)
        if m:
            out.append((m[1], m[3], m[2]))
    return out


def replaced(path) -> dict:
    """{(partition, file id): replacecommit instant} from the completed replacecommits."""
    out = {}
    tl = Path(path) / ".hoodie" / "timeline"
    for req, action, done in timeline(path):
        if action == "replacecommit":
            with open(tl / f"{req}_{done}.replacecommit", "rb") as fh:
                meta = next(iter(fastavro.reader(fh)))
            for p, ids in (meta["partitionToReplaceFileIds"] or {}).items():
                for fid in ids:
                    out[(p, fid)] = req
    return out


def model_keep_latest_commits(path, retained: int) -> set:
    """The files Hudi's CleanPlanner (KEEP_LATEST_COMMITS) leaves: per live file group its latest
    slice, the newest slice before the earliest commit to retain and every later one; replaced
    groups only while their replacecommit is not older than it."""
    writes = [req for req, a, _ in timeline(path) if a in ("commit", "deltacommit", "replacecommit")]
    if len(writes) <= retained:
        return set(data_files(path))
    return model_keep_from(path, writes[len(writes) - retained])


def model_keep_from(path, ectr: str) -> set:
    """The files CleanPlanner's commit-window policies (KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS)
    leave for the earliest commit to retain ectr."""
    files = data_files(path)
    rep = replaced(path)
    done = {req: c for req, _, c in timeline(path)}
    slices: dict = {}
    for rel, (p, fid, inst, is_base) in sorted(files.items(), key=lambda kv: kv[1][2]):
        if is_base:
            slices.setdefault((p, fid), {}).setdefault(inst, []).append(rel)
    for rel, (p, fid, inst, is_base) in sorted(files.items(), key=lambda kv: kv[1][2]):
        if is_base:
            continue
        # a log joins the slice with the greatest base instant <= its commit's completion time,
        # else starts a log-only slice keyed by its own instant
        by = slices.setdefault((p, fid), {})
        owners = [k for k in by if k <= done.get(inst, inst)]
        by.setdefault(max(owners) if owners else inst, []).append(rel)
    keep = set()
    for g, by in slices.items():
        bases = sorted(by)
        if g in rep:
            if rep[g] >= ectr:
                keep.update(r for rels in by.values() for r in rels)
            continue
        before = [b for b in bases if b < ectr]
        kept = {bases[-1]} | ({before[-1]} if before else set()) | {b for b in bases if b >= ectr}
        for b in kept:
            keep.update(by.get(b, []))
    return keep


def last_clean(path) -> tuple:
    tl = Path(path) / ".hoodie" / "timeline"
    cleans = [(r, d) for r, a, d in timeline(path) if a == "clean"]
    assert cleans
    req, done = cleans[-1]
    with open(tl / f"{req}_{done}.clean", "rb") as fh:
        meta = next(iter(fastavro.reader(fh)))
    with open(tl / f"{req}.clean.requested", "rb") as fh:
        plan = next(iter(fastavro.reader(fh)))
    assert (tl / f"{req}.clean.inflight").read_bytes() == (tl / f"{req}.clean.requested").read_bytes()
    return req, meta, plan


@pytest.mark.parametrize("partitioned", [True, False])
def test_keep_latest_commits_matches_model(tmp_path, partitioned):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p" if partitioned else None)
    part = (lambda i: "a" if i % 2 else "b") if partitioned else "a"
    t.append(batch(range(6), 1, part), NO_AUTO)
    for v in range(2, 8):
        HudiTable(str(path)).upsert(batch([v % 6, (v + 1) % 6], v, part), NO_AUTO)
    assert not [a for _, a, _ in timeline(path) if a == "clean"]  # automatic cleaning was off
    before_rows = rows(path)
    expect = model_keep_latest_commits(path, 3)
    before = set(data_files(path))
    assert expect < before  # something to clean

    res = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "3"})
    assert isinstance(res, HudiCleanResult)
    assert set(data_files(path)) == expect
    assert res.num_files_deleted == len(before - expect)
    writes = [r for r, a, _ in timeline(path) if a in ("commit", "deltacommit", "replacecommit")]
    assert res.earliest_commit_to_retain == writes[-3]
    assert res.completion_time > res.requested_time
    assert rows(path) == before_rows
    check(path)

    req, meta, plan = last_clean(path)
    assert req == res.requested_time
    assert meta["earliestCommitToRetain"] == writes[-3]
    assert meta["lastCompletedCommitTimestamp"] == writes[-1]
    assert meta["totalFilesDeleted"] == res.num_files_deleted
    deleted = {os.path.basename(f) for f in before - expect}
    assert {f for pm in meta["partitionMetadata"].values() for f in pm["successDeleteFiles"]} == deleted
    assert plan["earliestInstantToRetain"] == {"timestamp": writes[-3], "action": "commit", "state": "COMPLETED"}
    assert plan["policy"] == "KEEP_LATEST_COMMITS" and plan["version"] == 2
    planned = {fi["filePath"] for fis in plan["filePathsToBeDeletedPerPartition"].values() for fi in fis}
    assert planned == {f"{path}/{f}" for f in before - expect}

    # Time travel: the retained instant reads; an older one is a clear error.
    t2 = HudiTable(str(path))
    assert t2.read(as_of(writes[-3])) is not None
    with pytest.raises(hudi.HudiInvalidInputError, match=writes[-4]):
        t2.read(as_of(writes[-4]))

    # Incremental reads: a start before the earliest commit to retain still reads (the range is
    # taken from the slices as of its end, as Hudi's full-table-scan fallback does); an end before
    # it needs cleaned slices and is refused.
    incr = {"hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": "20000101000000000"}
    got = pa.Table.from_batches(t2.read(hudi.HudiReadOptions(hudi_options=incr))).to_pylist()
    assert sorted((r["id"], r["p"], r["v"]) for r in got) == before_rows
    with pytest.raises(hudi.HudiInvalidInputError, match=writes[-3]):
        t2.read(hudi.HudiReadOptions(hudi_options={**incr, "hoodie.read.end.timestamp": writes[-4]}))

    # A second clean finds nothing: no instant.
    again = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "3"})
    assert again.requested_time == "" and again.num_files_deleted == 0


@pytest.mark.parametrize("partitioned", [True, False])
def test_automatic_clean_after_writes(tmp_path, partitioned):
    path = tmp_path / "t"
    opts = {"hoodie.clean.commits.retained": "2"}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p" if partitioned else None)
    part = (lambda i: "a" if i % 2 else "b") if partitioned else "a"
    t.append(batch(range(4), 1, part), opts)
    expected = {}
    for r in batch(range(4), 1, part).to_pylist():
        expected[r["id"]] = (r["id"], r["p"], r["v"])
    for v in range(2, 7):
        b = batch([0, 1, 2, 3], v, part)
        HudiTable(str(path)).upsert(b, opts)
        for r in b.to_pylist():
            expected[r["id"]] = (r["id"], r["p"], r["v"])
        # After each write the table is what a clean with the same policy leaves.
        assert set(data_files(path)) == model_keep_latest_commits(path, 2)
        assert rows(path) == sorted(expected.values())
        check(path)
    n_cleans = len([a for _, a, _ in timeline(path) if a == "clean"])
    assert n_cleans == 3  # writes 4, 5, 6: each moved the earliest commit to retain past a slice


def test_keep_latest_file_versions(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    t.append(batch(range(4), 1), NO_AUTO)
    for v in range(2, 7):
        HudiTable(str(path)).upsert(batch([0], v), NO_AUTO)
    before_rows = rows(path)
    before = data_files(path)
    bases = sorted(inst for (_, _, inst, is_base) in before.values() if is_base)
    assert len(bases) == 6
    res = HudiTable(str(path)).clean({"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS",
                                      "hoodie.clean.fileversions.retained": "2"})
    assert res.num_files_deleted == 4
    assert res.earliest_commit_to_retain == ""
    left = sorted(inst for (_, _, inst, is_base) in data_files(path).values() if is_base)
    assert left == bases[-2:]
    assert rows(path) == before_rows
    check(path)
    _, meta, plan = last_clean(path)
    assert plan["policy"] == "KEEP_LATEST_FILE_VERSIONS" and plan["earliestInstantToRetain"] is None
    assert meta["earliestCommitToRetain"] == ""
    # No earliest commit recorded: time travel to any retained slice still reads.
    HudiTable(str(path)).read(as_of(bases[-2]))


def test_metadata_table_cleaned_by_file_versions(tmp_path):
    """Under KEEP_LATEST_FILE_VERSIONS the metadata table is cleaned too, keeping ceil(1.2 x N) slices
    per file group (HoodieMetadataWriteUtils), with no earliest commit to retain: 24 writes compact
    it every 10 of its deltacommits (the data cleans add some), so its groups reach three slices and
    the oldest go."""
    path = tmp_path / "t"
    opts = {"hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.clean.fileversions.retained": "1"}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    t.append(batch(range(8), 1), opts)
    expected = {r["id"]: (r["id"], r["p"], r["v"]) for r in batch(range(8), 1).to_pylist()}
    for v in range(2, 26):
        b = batch([v % 8], v)
        HudiTable(str(path)).upsert(b, opts)
        expected.update({r["id"]: (r["id"], r["p"], r["v"]) for r in b.to_pylist()})
    mdt = path / ".hoodie" / "metadata"
    tl = timeline(mdt)
    compactions = [r for r, a, _ in tl if a == "commit"]
    assert len(compactions) >= 3, tl
    _, meta, plan = last_clean(mdt)
    assert plan["policy"] == "KEEP_LATEST_FILE_VERSIONS" and plan["earliestInstantToRetain"] is None
    assert meta["earliestCommitToRetain"] == "" and meta["totalFilesDeleted"] > 0
    # ceil(1.2 x 1) = 2 slices per file group: for `files` (a log every write) the base HFiles of the
    # last two compactions (three while fewer than 3 instants completed after the last compaction:
    # the MDT clean waits then), no older logs.
    after_last = len([r for r, _, _ in tl if r > compactions[-1]])
    keep = compactions[-2:] if after_last >= 3 else compactions[-3:]
    files = [f.name for f in (mdt / "files").iterdir() if f.name.startswith(("files-", ".files-"))]
    bases = sorted(f.rpartition("_")[2].split(".")[0] for f in files if f.endswith(".hfile"))
    assert bases == keep, (bases, keep, tl)
    logs = [f.split("_")[1].split(".")[0] for f in files if ".log." in f]
    assert logs and min(logs) >= keep[0], (logs, keep)
    assert rows(path) == sorted(expected.values())
    check(path)


def test_overwrite_replaced_groups_are_cleaned(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    t.append(batch(range(4), 1, lambda i: "a" if i < 2 else "b"), NO_AUTO)
    old = data_files(path)
    HudiTable(str(path)).overwrite(batch([7, 8], 2, "a"), options=NO_AUTO)
    HudiTable(str(path)).upsert(batch([2], 3, "b"), NO_AUTO)
    replaced_groups = {g for g in replaced(path)}
    assert len(replaced_groups) == 1
    before_rows = rows(path)
    # Retaining 2 commits the replacecommit is kept: its replaced group stays.
    res = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "2"})
    assert all(any((p, fid) == g for (p, fid, _, _) in data_files(path).values()) for g in replaced_groups)
    # Retaining 1, the replacecommit is older than the earliest commit to retain: the whole
    # replaced file group goes.
    res = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "1"})
    after = data_files(path)
    assert not any((p, fid) in replaced_groups for (p, fid, _, _) in after.values())
    assert set(after) == model_keep_latest_commits(path, 1)
    gone = [rel for rel, (p, fid, _, _) in old.items() if (p, fid) in replaced_groups]
    assert res.num_files_deleted >= len(gone)
    assert rows(path) == before_rows
    check(path)


def test_mor_compacted_slices_are_cleaned(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    t.append(batch(range(4), 1), NO_AUTO)
    for v in range(2, 8):
        HudiTable(str(path)).upsert(batch([v % 4], v), NO_AUTO)
        if v % 2 == 1:
            HudiTable(str(path)).compact(NO_AUTO)
    before_rows = rows(path)
    files = data_files(path)
    assert any(not is_base for (*_, is_base) in files.values())
    expect = model_keep_latest_commits(path, 2)
    assert expect < set(files)
    res = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "2"})
    after = set(data_files(path))
    assert after == expect
    # old slices went with their log files
    assert any(not files[f][3] for f in set(files) - after)
    assert res.num_files_deleted == len(set(files) - after)
    assert rows(path) == before_rows
    check(path)


def test_bad_options(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts")
    t.append(batch(range(2), 1))
    with pytest.raises(hudi.HudiInvalidInputError, match="KEEP_LATEST_BY_DAYS.*KEEP_LATEST_BY_HOURS"):
        t.clean({"hoodie.clean.policy": "KEEP_LATEST_BY_DAYS"})
    with pytest.raises(hudi.HudiInvalidInputError, match="hours.retained"):
        t.clean({"hoodie.clean.policy": "KEEP_LATEST_BY_HOURS", "hoodie.clean.hours.retained": "-1"})
    with pytest.raises(hudi.HudiInvalidInputError, match="commits.retained"):
        t.clean({"hoodie.clean.commits.retained": "0"})
    with pytest.raises(hudi.HudiInvalidInputError, match="hoodie.clean.automatic"):
        t.upsert(batch([0], 2), {"hoodie.clean.automatic": "maybe"})


BY_HOURS = {"hoodie.clean.policy": "KEEP_LATEST_BY_HOURS"}


def bump(path, by: int) -> pa.Table:
    """The table's rows without meta columns, longField (its ordering field) raised by `by`."""
    data = pa.Table.from_batches(HudiTable(str(path)).read())
    data = data.select([n for n in data.column_names if not n.startswith("_hoodie_")])
    i = data.column_names.index("longField")
    return data.set_column(i, "longField", pa.array([v + by for v in data["longField"].to_pylist()], pa.int64()))


def test_keep_latest_by_hours_on_spark_table(tmp_path):
    """KEEP_LATEST_BY_HOURS on a table Spark wrote in July 2025, continued by two upserts now: the
    earliest commit to retain is the first write requested within the last N hours (Hudi's
    CleanerUtils), and slices go as under KEEP_LATEST_COMMITS with that instant."""
    path = tmp_path / "t"
    shutil.copytree(table_path("sample_table/cow/v8_nonpartitioned"), path)
    spark = [r for r, a, _ in timeline(path) if a == "commit"]
    assert len(spark) == 2 and all(r.startswith("2025") for r in spark)
    for k in (1, 2):
        HudiTable(str(path)).upsert(bump(path, k * 1000), NO_AUTO)
    writes = [r for r, a, _ in timeline(path) if a == "commit"]
    assert len(writes) == 4
    before_rows = pa.Table.from_batches(HudiTable(str(path)).read()).sort_by("id").to_pylist()
    before = set(data_files(path))
    assert len({fid for _, fid, _, _ in data_files(path).values()}) == 1 and len(before) == 4

    # A window reaching back past July 2025 retains every write: nothing to clean, no instant.
    wide = HudiTable(str(path)).clean({**BY_HOURS, "hoodie.clean.hours.retained": str(24 * 365 * 30)})
    assert wide.requested_time == "" and set(data_files(path)) == before

    expect = model_keep_from(path, writes[2])
    res = HudiTable(str(path)).clean({**BY_HOURS, "hoodie.clean.hours.retained": "1"})
    assert res.earliest_commit_to_retain == writes[2]
    after = set(data_files(path))
    assert after == expect and res.num_files_deleted == len(before - after) == 1
    # the oldest Spark slice went; Spark's newest (the one before the window) and ours stayed
    assert before - after == {f for f in before if writes[0] in f}
    req, meta, plan = last_clean(path)
    assert plan["policy"] == "KEEP_LATEST_BY_HOURS"
    assert meta["earliestCommitToRetain"] == writes[2]
    assert plan["earliestInstantToRetain"]["timestamp"] == writes[2]
    assert pa.Table.from_batches(HudiTable(str(path)).read()).sort_by("id").to_pylist() == before_rows
    check(path)


def test_keep_latest_by_hours_matches_model(tmp_path):
    """The same rule on our own table: the model's files for the instant the cleaner reports, and
    KEEP_LATEST_BY_HOURS keeps what KEEP_LATEST_COMMITS with 1 retained would delete while every
    write lies inside the window."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    part = lambda i: "a" if i % 2 else "b"  # noqa: E731
    t.append(batch(range(6), 1, part), NO_AUTO)
    for v in range(2, 6):
        HudiTable(str(path)).upsert(batch([v % 6, (v + 1) % 6], v, part), NO_AUTO)
    before = set(data_files(path))
    assert model_keep_latest_commits(path, 1) < before  # KEEP_LATEST_COMMITS would clean
    # every write is within the last 24 hours (the default window): the first is the ECTR
    res = HudiTable(str(path)).clean(BY_HOURS)
    assert res.requested_time == "" and set(data_files(path)) == before
    # automatic cleaning after a write uses the policy too
    HudiTable(str(path)).upsert(batch([0], 9, part), {**BY_HOURS, "hoodie.clean.hours.retained": "2"})
    assert not [a for _, a, _ in timeline(path) if a == "clean"]
    writes = [r for r, a, _ in timeline(path) if a in ("commit", "deltacommit")]
    assert model_keep_from(path, writes[0]) == set(data_files(path))
    check(path)
