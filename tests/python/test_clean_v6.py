"""Cleaning tables of version 6 (timeline layout 1): HudiTable.clean and the automatic clean after
each write.

Oracles: a model of Hudi's CleanPlanner (KEEP_LATEST_COMMITS) in plain Python over the files on
storage and the layout-1 timeline (version-6 file slices: a log file belongs to the slice its
name's base instant names); the clean instant files decoded with fastavro; the conformance
checker ../shared/tools/hudi_check.py; and the rows, which cleaning must never change. Spark 1.2
reading and cleaning after our cleans: tests/interop/test_clean_v6_engines.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

import hudi
from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
BASE = re.compile(r"^(?P<fid>[0-9a-f-]+-\d+)_[^_]+_(?P<instant>\d{17})\.parquet$")
LOG = re.compile(r"^\.(?P<fid>[0-9a-f-]+-\d+)_(?P<instant>\d{17})\.log\.\d+_[\d-]+$")
V6 = {"hoodie.write.table.version": "6"}
NO_AUTO = {"hoodie.clean.automatic": "false", "hoodie.parquet.small.file.limit": "0"}


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def batch(ids, v, part) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "p": [part(i) for i in ids],
                     "ts": pa.array([v] * len(ids), pa.int64()), "v": pa.array([v * 100 + i for i in ids], pa.int64())})


def rows(path) -> list:
    got = pa.Table.from_batches(HudiTable(str(path)).read()).to_pylist()
    return sorted((r["id"], r["p"], r["v"]) for r in got)


def data_files(path) -> dict:
    """{relative path: (partition, file id, slice base instant)} of every base and log file."""
    out = {}
    for d, dirs, files in os.walk(path):
        dirs[:] = [x for x in dirs if x != ".hoodie"]
        for f in files:
            m = BASE.match(f) or LOG.match(f)
            if m:
                rel = os.path.relpath(os.path.join(d, f), path)
                out[rel] = (os.path.dirname(rel), m["fid"], m["instant"])
    return out


def writes(path) -> list:
    """Requested times of the completed commits and delta commits (a finished compaction is a
    commit), from the layout-1 names T.commit / T.deltacommit."""
    return sorted(m[1] for f in os.listdir(Path(path) / ".hoodie")
                  if (m := re.match(r"^(\d{17})\.(commit|deltacommit)$", f)))


def model_keep(path, retained: int) -> set:
    """CleanPlanner's KEEP_LATEST_COMMITS: per file group its latest slice, the newest slice
    before the earliest commit to retain, and every later one."""
    files = data_files(path)
    w = writes(path)
    if len(w) <= retained:
        return set(files)
    ectr = w[len(w) - retained]
    slices: dict = {}
    for rel, (p, fid, inst) in files.items():
        slices.setdefault((p, fid), {}).setdefault(inst, []).append(rel)
    keep = set()
    for by in slices.values():
        bases = sorted(by)
        before = [b for b in bases if b < ectr]
        for b in {bases[-1]} | ({before[-1]} if before else set()) | {b for b in bases if b >= ectr}:
            keep.update(by[b])
    return keep


def as_of_rows(path, instant: str) -> list:
    got = HudiTable(str(path)).read(hudi.HudiReadOptions().with_as_of_timestamp(instant))
    return sorted((r["id"], r["p"], r["v"]) for r in pa.Table.from_batches(got).to_pylist())


def cleans(path) -> list:
    return sorted(f[:17] for f in os.listdir(Path(path) / ".hoodie") if re.match(r"^\d{17}\.clean$", f))


def avro(path) -> dict:
    with open(path, "rb") as fh:
        return next(iter(fastavro.reader(fh)))


def millis(instant: str) -> int:
    dt = datetime.strptime(instant, "%Y%m%d%H%M%S%f").replace(tzinfo=timezone.utc)
    return int(dt.timestamp() * 1000 + 0.5)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_clean_matches_model(tmp_path, kind):
    path = tmp_path / "t"
    part = lambda i: "a" if i % 2 else "b"  # noqa: E731
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False, hudi_options=V6)
    t.append(batch(range(6), 1, part), NO_AUTO)
    for v in range(2, 8):
        HudiTable(str(path)).upsert(batch([v % 6, (v + 1) % 6], v, part), NO_AUTO)
        if kind == "mor" and v in (3, 5):
            HudiTable(str(path)).compact(NO_AUTO)  # new slices, whose logs then start again
    assert cleans(path) == []
    before_rows = rows(path)
    at_ectr = as_of_rows(path, writes(path)[-3])
    expect = model_keep(path, 3)
    before = set(data_files(path))
    assert expect < before  # something to clean

    res = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "3"})
    assert set(data_files(path)) == expect
    assert res.num_files_deleted == len(before - expect)
    w = writes(path)
    assert res.earliest_commit_to_retain == w[-3]
    assert rows(path) == before_rows
    # A read as of the earliest commit to retain sees what it saw before the clean.
    assert as_of_rows(path, w[-3]) == at_ectr
    check(path)

    hoodie = path / ".hoodie"
    R = res.requested_time
    assert cleans(path) == [R]
    plan = avro(hoodie / f"{R}.clean.requested")
    assert (hoodie / f"{R}.clean.inflight").read_bytes() == (hoodie / f"{R}.clean.requested").read_bytes()
    meta = avro(hoodie / f"{R}.clean")
    # Layout 1 names carry no completion time: Java reads the completed file's mtime.
    assert os.stat(hoodie / f"{R}.clean").st_mtime_ns // 1_000_000 == millis(res.completion_time)
    assert meta["earliestCommitToRetain"] == w[-3] and meta["lastCompletedCommitTimestamp"] == w[-1]
    assert meta["totalFilesDeleted"] == res.num_files_deleted
    deleted = {os.path.basename(f) for f in before - expect}
    assert {f for pm in meta["partitionMetadata"].values() for f in pm["successDeleteFiles"]} == deleted
    action = "commit" if kind == "cow" or w[-3] not in {f[:17] for f in os.listdir(hoodie)
                                                          if f.endswith(".deltacommit")} else "deltacommit"
    assert plan["earliestInstantToRetain"] == {"timestamp": w[-3], "action": action, "state": "COMPLETED"}
    assert plan["policy"] == "KEEP_LATEST_COMMITS" and plan["version"] == 2
    planned = {fi["filePath"] for fis in plan["filePathsToBeDeletedPerPartition"].values() for fi in fis}
    assert planned == {f"{path}/{f}" for f in before - expect}

    # An older instant is a clear error now; a second clean finds nothing; writing goes on.
    with pytest.raises(hudi.HudiInvalidInputError, match=w[-3]):
        as_of_rows(path, w[-4])
    again = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "3"})
    assert again.requested_time == "" and again.num_files_deleted == 0
    HudiTable(str(path)).upsert(batch([0], 9, part), NO_AUTO)
    want = {r[0]: r for r in before_rows}
    want["k0"] = ("k0", "b", 900)
    assert rows(path) == sorted(want.values())
    check(path)


def test_automatic_clean_after_writes(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.clean.commits.retained": "2"}
    part = lambda i: "a" if i % 2 else "b"  # noqa: E731
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", record_index_enabled=False,
                         hudi_options=V6)
    t.append(batch(range(4), 1, part), opts)
    expected = {r["id"]: (r["id"], r["p"], r["v"]) for r in batch(range(4), 1, part).to_pylist()}
    for v in range(2, 7):
        b = batch([0, 1, 2, 3], v, part)
        HudiTable(str(path)).upsert(b, opts)
        expected.update({r["id"]: (r["id"], r["p"], r["v"]) for r in b.to_pylist()})
        assert set(data_files(path)) == model_keep(path, 2)
        assert rows(path) == sorted(expected.values())
        check(path)
    assert len(cleans(path)) == 3  # writes 4, 5, 6: each moved the earliest commit to retain
