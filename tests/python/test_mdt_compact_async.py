"""Metadata-table compaction in the background (hoodie.metadata.compact.async,
hudi-c's own key): the write that makes the metadata table due only schedules
the compaction C (C.compaction.requested/.inflight in the MDT timeline) and a
background thread of the handle runs it while upserts and deletes go on.

Oracles: an independent model of the rows in Python (the snapshot must equal it
as a pyarrow table: every live key once, its last values), each key's file
group (from _hoodie_file_name: an upsert routed by the record index stays in
its file group; a misrouted one would add a second row or move it), the MDT
timeline files (writes committed between C's request and its completion), and
../shared/tools/hudi_check.py, whose metadata checks merge the MDT slices
themselves and compare the record index with every file slice's keys - run
while C is still pending (the thread held by the test delay) and at the end.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
ASYNC = {"hoodie.metadata.compact.async": "true", "hoodie.metadata.compact.max.delta.commits": "4"}
# Testing knob: the thread sleeps this long after loading C's plan.
SLOW = dict(ASYNC, **{"hoodie.metadata.compact.async.test.delay.ms": "12000"})
CITIES = ["sf", "nyc", "la"]


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ["metadata.files-listing", "metadata.record-index", "metadata.record-index-keys"]:
        assert f"PASS {name}" in r.stdout, name + "\n" + r.stdout
    return r.stdout


def mdt_timeline(path) -> list[str]:
    return sorted(os.listdir(Path(path) / ".hoodie" / "metadata" / ".hoodie" / "timeline"))


def pending_mdt_compaction(path) -> str:
    names = mdt_timeline(path)
    done = {n.split("_")[0] for n in names if n.endswith(".commit")}
    req = [n.split(".")[0] for n in names if n.endswith(".compaction.requested")]
    pend = [r for r in req if r not in done]
    assert len(pend) <= 1, names
    return pend[0] if pend else ""


class Model:
    def __init__(self):
        self.rows: dict[str, tuple] = {}
        self.n = 0

    def batch(self, w: int, new: int, upd: int) -> pa.Table:
        live = sorted(self.rows)
        ids = [f"key-{self.n + i:05d}" for i in range(new)]
        self.n += new
        ids += live[(w * 7) % 11::3][:upd]
        rows = []
        for k in ids:
            city = self.rows[k][1] if k in self.rows else CITIES[int(k[4:]) % 3]
            rows.append((k, city, w, w * 100000 + int(k[4:])))
        for r in rows:
            self.rows[r[0]] = r
        return pa.table({"id": pa.array([r[0] for r in rows], pa.string()),
                         "city": pa.array([r[1] for r in rows], pa.string()),
                         "ts": pa.array([r[2] for r in rows], pa.int64()),
                         "v": pa.array([r[3] for r in rows], pa.int64())})

    def to_delete(self, w: int) -> list[str]:
        keys = sorted(self.rows)[w % 5::9][:5]
        for k in keys:
            del self.rows[k]
        return keys

    def expected(self) -> pa.Table:
        rows = sorted(self.rows.values())
        return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows],
                         "ts": pa.array([r[2] for r in rows], pa.int64()),
                         "v": pa.array([r[3] for r in rows], pa.int64())})


def file_id(name: str) -> str:
    return name.lstrip(".").split("_")[0]


def snapshot(t: HudiTable) -> tuple[pa.Table, dict[str, str]]:
    tbl = pa.Table.from_batches(t.read())
    got = tbl.select(["id", "city", "ts", "v"]).sort_by("id")
    ids = tbl.column("id").to_pylist()
    assert len(ids) == len(set(ids)), "duplicate keys"
    groups = dict(zip(ids, (file_id(n) for n in tbl.column("_hoodie_file_name").to_pylist())))
    return got, groups


def write(t, m: Model, w: int, opts: dict):
    if w > 1 and w % 4 == 0:
        keys = m.to_delete(w)
        r = t.delete_keys(keys, opts)
        assert r.num_deletes == len(keys)
        return r
    return t.upsert(m.batch(w, 300 if w == 1 else 40, 0 if w == 1 else 60), opts)


def test_upserts_and_deletes_while_mdt_compaction_pending(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    m = Model()
    groups_seen: dict[str, str] = {}
    first = ""
    during = []
    checked_pending = False
    for w in range(1, 12):
        r = write(t, m, w, SLOW)
        c = pending_mdt_compaction(path)
        if c and not first:
            first = c
            assert c > r.completion_time  # scheduled after this write's commit, not run inline
        elif c and c == first:
            during.append(r.requested_time)
        got, groups = snapshot(t)
        assert got.equals(m.expected()), w
        # Updates routed by the record index stay in their file group.
        for k, g in groups.items():
            assert groups_seen.setdefault(k, g) == g, (k, w)
        if c and during and not checked_pending:
            check(path)  # with C pending: the checker merges old base, old logs and newer logs
            assert pending_mdt_compaction(path) == c
            checked_pending = True
    assert first and during and checked_pending
    t.wait_services()
    names = mdt_timeline(path)
    done = [n for n in names if n.startswith(first + "_") and n.endswith(".commit")]
    assert done, names
    # Deltacommits requested after C completed before it: writes went on.
    assert any(d > first and n.split("_")[1].split(".")[0] < done[0].split("_")[1].split(".")[0]
               for n in names if n.endswith(".deltacommit") for d in [n.split("_")[0]])
    got, _ = snapshot(t)
    assert got.equals(m.expected())
    assert got.equals(snapshot(HudiTable(str(path)))[0])
    out = check(path)
    assert f"maps all {len(m.rows)} snapshot keys" in out, out


def test_table_option_and_drop_leaves_pending(tmp_path):
    """A table open option enables it; dropping the handle during the test
    delay leaves C pending (inflight); a plain handle reads and writes on, its
    write undoes C and compacts inline."""
    path = tmp_path / "t"
    HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    t = HudiTable(str(path), dict(ASYNC, **{"hoodie.metadata.compact.async.test.delay.ms": "60000"}))
    m = Model()
    w = 0
    while not pending_mdt_compaction(path):
        w += 1
        write(t, m, w, {})
        assert w < 8
    c = pending_mdt_compaction(path)
    w += 1
    write(t, m, w, {})
    del t
    gc.collect()
    assert pending_mdt_compaction(path) == c
    assert f"{c}.compaction.inflight" in mdt_timeline(path)
    t2 = HudiTable(str(path))
    assert snapshot(t2)[0].equals(m.expected())
    check(path)
    w += 1
    write(t2, m, w, {"hoodie.metadata.compact.max.delta.commits": "4"})
    assert pending_mdt_compaction(path) == ""
    assert not any(n.startswith(c) for n in mdt_timeline(path))  # undone
    assert snapshot(t2)[0].equals(m.expected())
    check(path)
