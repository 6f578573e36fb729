"""The metadata table is compacted and cleaned as writes accumulate (Hudi's
performTableServices: compaction after hoodie.metadata.compact.max.delta.commits
deltacommits, KEEP_LATEST_COMMITS cleaning retaining 20 commits), and stays
correct across it.

Oracles: an independent model of the rows (test_write_verbs.Model) compared
with HudiTable.read after every write; ../shared/tools/hudi_check.py, whose
metadata checks merge the MDT's latest slices themselves and compare the files
listing with the files on storage and the record index with the record keys of
every latest file slice (each must PASS); and the MDT directory itself (base
HFiles of the compaction instants, clean instants, deleted older slices).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES
from test_write_verbs import Model, data, snapshot

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
MDT_CHECKS = ["metadata.partitions", "metadata.sync", "metadata.files-listing", "metadata.record-index",
              "metadata.record-index-keys", "metadata.hfiles", "metadata.timeline.states",
              "metadata.timeline.instant-files", "metadata.files.instants"]


def check(path, kind) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    names = MDT_CHECKS + (["metadata.record-index-log-keys"] if kind == "mor" else [])
    for name in names:
        assert f"PASS {name}" in r.stdout, name + "\n" + r.stdout
    return r.stdout


def compare(path, m: Model) -> None:
    got = snapshot(path)
    cols = ["_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path"]
    got = [{c: r[c] for c in cols + [k for k in r if not k.startswith("_hoodie")]} for r in got]
    assert got == m.expected()


def mdt_timeline(path) -> list[str]:
    return sorted(os.listdir(os.path.join(str(path), ".hoodie", "metadata", ".hoodie", "timeline")))


def mdt_files(path, part) -> list[str]:
    return sorted(os.listdir(os.path.join(str(path), ".hoodie", "metadata", part)))


@pytest.mark.parametrize("kind", ["mor", "cow"])
def test_many_writes_compact_and_clean_the_mdt(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    m = Model("id", "p", "ts")
    rnd = random.Random(7)
    ts = 0
    n_keys = 0
    compactions_seen = []
    for commit in range(32):
        ts += 1
        live = sorted(m.rows)
        if commit % 4 == 3 and live:
            keys = rnd.sample(live, min(4, len(live)))
            r = HudiTable(str(path)).delete_keys(keys)
            assert r.num_deletes == m.delete_keys(keys)
        else:
            ids = [f"k{n_keys + i:04d}" for i in range(12)]
            n_keys += 12
            if live:  # updates, some moving partition
                ids += rnd.sample(live, min(8, len(live)))
            parts = [rnd.choice("abc") for _ in ids]
            batch = data(ids, [ts] * len(ids), parts, list(range(len(ids))))
            r = HudiTable(str(path)).upsert(batch)
            m.upsert(batch, r.requested_time)
        compare(path, m)
        done = [f for f in mdt_timeline(path) if f.endswith(".commit")]
        if len(done) > len(compactions_seen):
            compactions_seen = done
            check(path, kind)  # right after each compaction
    # Each compaction came once 10 deltacommits had completed since the
    # previous one, at the end of the write that got there (a write adds one,
    # or two when the data table's clean also updated the MDT).
    assert len(compactions_seen) >= 3, mdt_timeline(path)
    # (the MDT archives its own oldest instants too: count its history's deltacommits as well)
    import pyarrow.parquet as pq
    hist = path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history"
    archived = []
    if hist.exists():
        version = (hist / "_version_").read_text().strip()
        import json
        for f in json.loads((hist / f"manifest_{version}").read_text())["files"]:
            rows = pq.read_table(hist / f["fileName"], columns=["action", "completionTime"]).to_pylist()
            archived += [r["completionTime"] for r in rows if r["action"] == "deltacommit"]
    deltas = sorted([f.split(".")[0].split("_")[1] for f in mdt_timeline(path)
                     if f.endswith(".deltacommit") and "_" in f] + archived)
    prev = ""
    for c in sorted(compactions_seen):
        requested = c.split("_")[0]
        since = [d for d in deltas if prev < d < requested]
        assert 10 <= len(since) <= 11, (c, since)
        prev = requested
    out = check(path, kind)
    assert f"maps all {len(m.rows)} snapshot keys" in out, out
    # The latest compaction's base HFiles: one per record-index shard and
    # for files (older ones may be cleaned already).
    for c in compactions_seen[-1:]:
        instant = c.split("_")[0]
        assert sum(f.endswith(f"_{instant}.hfile") for f in mdt_files(path, "record_index")) == 10
        assert sum(f.endswith(f"_{instant}.hfile") for f in mdt_files(path, "files")) == 1
    # Cleaning retained 20 commits: the slices before the first compaction
    # (initialisation logs and base file) are gone, with a clean instant.
    cleans = [f for f in mdt_timeline(path) if f.endswith(".clean")]
    assert cleans, mdt_timeline(path)
    assert not [f for f in mdt_files(path, "record_index") if "_00000000000000001.log" in f]
    assert not [f for f in mdt_files(path, "files") if f.endswith("_00000000000000000.hfile")]


def _hfile_records(path, part, instant) -> dict[bytes, bytes]:
    """Key -> value of every cell of part's base HFiles written by instant,
    read with hudi_check's own HFile parser."""
    sys.path.insert(0, str(CHECKER.parent))
    import hudi_check
    out = {}
    for f in mdt_files(path, part):
        if f.endswith(f"_{instant}.hfile"):
            h = hudi_check.HFile((path / ".hoodie" / "metadata" / part / f).read_bytes())
            out.update({bytes(kv.key): bytes(kv.value) for kv in h.key_values()})
    return out


@pytest.mark.parametrize("kind,where", [("mor", "log"), ("cow", "log"), ("mor", "base")])
def test_first_compaction_of_log_only_shards(tmp_path, kind, where):
    """With hoodie.metadata.record.index.initial.base.files=false, after a bulk
    load each record-index shard is log files only, the load's keys in one
    HFile block; the first compaction streams that block as the shard's base
    (mdt_reader.c, struct lead). By default ("base") the load wrote each
    shard's base file, which the first compaction merges with the logs. The
    later commits change its keys every way a log can: moved to another
    partition, deleted, deleted and inserted again (the delete must drop the
    loaded entry), updated in place, plus keys the logs alone hold."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         hudi_options={"hoodie.metadata.record.index.initial.base.files": str(where == "base").lower()})
    m = Model("id", "p", "ts")
    ids = [f"k{i:05d}" for i in range(3000)]
    load = data(ids, [1] * len(ids), ["a" if i % 2 else "b" for i in range(len(ids))], list(range(len(ids))))
    r = t.append(load)
    m.upsert(load, r.requested_time)
    bases = [f for f in mdt_files(path, "record_index") if f.endswith(".hfile")]
    assert len(bases) == (10 if where == "base" else 0), bases

    def upsert(keys, ts, part, opts=None):
        batch = data(keys, [ts] * len(keys), [part] * len(keys), list(range(len(keys))))
        res = HudiTable(str(path)).upsert(batch, opts)
        m.upsert(batch, res.requested_time)

    upsert(ids[0:300:3], 2, "c")          # moved to a new partition
    gone = ids[1:600:5]
    assert HudiTable(str(path)).delete_keys(gone).num_deletes == m.delete_keys(gone)
    upsert(gone[::2], 3, "c")             # deleted, then inserted again elsewhere
    upsert(ids[2000:2100], 4, "b")        # updated, some in place, some moved
    upsert([f"n{i:04d}" for i in range(200)], 5, "a")  # keys only the logs hold
    before = [f for f in mdt_timeline(path) if f.endswith(".commit")]
    upsert(ids[2500:2510], 6, "a", {"hoodie.metadata.compact.max.delta.commits": "1"})
    done = [f for f in mdt_timeline(path) if f.endswith(".commit")]
    assert len(done) == len(before) + 1, mdt_timeline(path)
    compare(path, m)
    out = check(path, kind)
    assert f"maps all {len(m.rows)} snapshot keys" in out, out
    # The compacted shards hold exactly the live keys, each once.
    keys = _hfile_records(path, "record_index", done[-1].split("_")[0])
    assert sorted(k.decode() for k in keys) == sorted(m.rows)
