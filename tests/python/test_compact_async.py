"""Asynchronous compaction (hoodie.datasource.compaction.async.enable): a write
that makes a compaction due schedules it and a background thread of the table
handle runs it while later upserts go on; HudiTable.wait_services waits.

Oracles: a model of what every write wrote (each write updates keys k* and its
own key u<w>, so a lost write shows as a stale value), the timeline file names
(some deltacommit completed between the compaction's request and completion),
and the conformance checker ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

from hudi import HudiTable
from hudi.read import HudiReadOptions
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
RO = HudiReadOptions(hudi_options={"hoodie.read.use.read_optimized.mode": "true"})
ASYNC = {"hoodie.datasource.compaction.async.enable": "true"}
# Testing knob: the background thread sleeps this long after marking the
# compaction inflight, so later writes demonstrably land while it runs.
SLOW = dict(ASYNC, **{"hoodie.compact.async.test.delay.ms": "300"})
NK, NU = 6, 10


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def keys() -> list[tuple[str, str]]:
    ks = [f"k{i}" for i in range(NK)] + [f"u{w}" for w in range(1, NU + 1)]
    return [(k, "a" if i % 2 else "b") for i, k in enumerate(ks)]


def write(t: HudiTable, model: dict, w: int, options: dict):
    rows = []
    for k, p in keys():
        if w == 1 or k.startswith("k") or k == f"u{w}":
            v = w * 10 + int(k[1:]) if k.startswith("k") else 100 + w
            rows.append((k, p, w, v))
    data = pa.table({
        "id": pa.array([r[0] for r in rows], pa.string()),
        "p": pa.array([r[1] for r in rows], pa.string()),
        "ts": pa.array([r[2] for r in rows], pa.int64()),
        "v": pa.array([r[3] for r in rows], pa.int32()),
    })
    res = t.upsert(data, options)
    for k, p, ts, v in rows:
        model[k] = (k, p, ts, v)
    return res


def table_rows(t: HudiTable, options=None) -> list[tuple]:
    batches = t.read(options)
    tbl = pa.Table.from_batches(batches)
    return sorted(zip(*(tbl.column(c).to_pylist() for c in ("id", "p", "ts", "v"))))


def timeline(path) -> list[str]:
    return sorted(os.listdir(Path(path) / ".hoodie" / "timeline"))


def completed(path, action: str) -> dict[str, str]:
    """requested time -> completion time of completed instants of action."""
    out = {}
    for n in timeline(path):
        stem, _, ext = n.partition(".")
        if ext == action and "_" in stem:
            req, done = stem.split("_")
            out[req] = done
    return out


def test_ten_upserts_with_async_compaction(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    model: dict = {}
    at: dict = {}
    results = {}
    for w in range(1, 11):
        results[w] = write(t, model, w, SLOW)
        at[w] = sorted(model.values())
        if w == 5:
            names = timeline(path)
            assert any(n.endswith(".compaction.requested") for n in names)
    t.wait_services()
    names = timeline(path)
    assert not [n for n in names if n.endswith(".compaction.inflight")
                and n.split(".")[0] not in {c for c in completed(path, "commit")}]
    comps = {req: done for req, done in completed(path, "commit").items()
             if f"{req}.compaction.requested" in names}
    assert 1 <= len(comps) <= 2
    first = min(comps)
    deltas = completed(path, "deltacommit")
    assert len(deltas) == 10
    # Some deltacommit was requested after the compaction was and completed
    # before it did: the writes went on while it ran.
    during = [r for r, d in deltas.items() if r > first and d < comps[first]]
    assert during, (first, comps, deltas)

    assert table_rows(t) == sorted(model.values())
    last = max(comps)
    k = max(w for w in range(1, 11) if results[w].completion_time < last)
    assert k in (5, 10)
    assert table_rows(t, RO) == at[k]
    # A fresh handle (no async options) reads the same.
    assert table_rows(HudiTable(str(path))) == sorted(model.values())
    check(path)


def test_table_option_and_drop_joins(tmp_path):
    path = tmp_path / "t"
    HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    t = HudiTable(str(path), {"hoodie.datasource.compaction.async.enable": "true",
                              "hoodie.compact.async.test.delay.ms": "200"})
    model: dict = {}
    for w in range(1, 6):
        write(t, model, w, {})
    del t
    gc.collect()  # the handle's free joins the background compaction
    names = timeline(path)
    assert [n for n in names if n.endswith(".commit")]
    t2 = HudiTable(str(path))
    assert table_rows(t2, RO) == sorted(model.values())
    assert table_rows(t2) == sorted(model.values())
    t2.wait_services()  # nothing ran on this handle
    check(path)


def test_many_compactions_with_metadata_table_services(tmp_path):
    """25 upserts compacting every 2 delta commits: background compactions
    interleave with the metadata table's own compactions and cleaning (every
    write runs them), and the table still reads every write and checks."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    opts = dict(ASYNC, **{"hoodie.compact.inline.max.delta.commits": "2",
                          "hoodie.compact.async.test.delay.ms": "50"})
    model: dict = {}
    global NU
    saved = NU
    NU = 25
    try:
        for w in range(1, 26):
            write(t, model, w, opts)
            assert table_rows(HudiTable(str(path))) == sorted(model.values()), w
    finally:
        NU = saved
    t.wait_services()
    names = timeline(path)
    comps = [n for n in names if n.endswith(".compaction.requested")]
    assert len(comps) >= 3
    assert not [n for n in names if n.endswith(".compaction.inflight")
                and not any(c.startswith(n.split(".")[0] + "_") and c.endswith(".commit") for c in names)]
    assert table_rows(t) == sorted(model.values())
    check(path)


V6 = {"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false"}


def v6_logs_under(path: Path) -> dict:
    """compaction instant -> the log files named by it (version 6 names a log by its slice's base
    instant: under a pending compaction, the compaction's)."""
    comps = {n.split(".")[0] for n in os.listdir(path / ".hoodie") if n.endswith(".compaction.requested")}
    logs = [n for _, _, fs in os.walk(path) for n in fs if ".log." in n]
    return {c: [n for n in logs if f"_{c}.log." in n] for c in comps}


def test_v6_writes_during_a_background_compaction_survive_it(tmp_path):
    """Version 6: upserts that land while a compaction is pending append to the compaction's file
    slice (logs named by its instant, as Java's HoodieAppendHandle does), so its base file does not
    hide them once it completes (found by a helper reproducing tests/python/test_random_ops.py
    seed 43: the logs were named by the old base instant and every row they held was lost)."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=False, hudi_options=V6)
    model: dict = {}
    for w in range(1, 11):
        write(t, model, w, SLOW)
    t.wait_services()
    assert any(v for v in v6_logs_under(path).values()), v6_logs_under(path)
    assert table_rows(t) == sorted(model.values())
    assert table_rows(HudiTable(str(path))) == sorted(model.values())
    check(path)


ABANDON = """
import os, sys
import pyarrow as pa
from hudi import HudiTable
t = HudiTable(sys.argv[1], {"hoodie.datasource.compaction.async.enable": "true",
                            "hoodie.compact.inline.max.delta.commits": "1",
                            "hoodie.compact.async.test.delay.ms": "60000"})
t.upsert(pa.table({"id": ["k0"], "p": ["b"], "ts": pa.array([2], pa.int64()), "v": pa.array([500], pa.int32())}))
os._exit(0)  # the process dies with its compaction pending
"""


def test_v6_writes_after_an_abandoned_compaction_survive_it(tmp_path):
    """A writer that died with its compaction pending (a kill, or a background compaction never
    finished): the next upsert appends under the pending compaction, then runs it (inline), and
    keeps its rows."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=False, hudi_options=V6)
    model: dict = {}
    for w in range(1, 3):
        write(t, model, w, {})
    r = subprocess.run([sys.executable, "-c", ABANDON, str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    model["k0"] = ("k0", "b", 2, 500)
    pending = [n for n in os.listdir(path / ".hoodie") if n.endswith(".compaction.requested")]
    assert pending and not [n for n in os.listdir(path / ".hoodie") if n.endswith(".commit")]
    t2 = HudiTable(str(path), {"hoodie.compact.inline": "false"})
    write(t2, model, 3, {})
    assert any(v for v in v6_logs_under(path).values()), v6_logs_under(path)
    # Read while the compaction is still pending: its slice's logs count (found by the Spark
    # interop test: the reader took them for a write that never completed).
    assert [n for n in os.listdir(path / ".hoodie") if n.endswith(".compaction.requested")] == pending
    assert table_rows(HudiTable(str(path))) == sorted(model.values())
    write(t2, model, 4, {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "50"})
    assert table_rows(HudiTable(str(path))) == sorted(model.values())
    HudiTable(str(path)).compact()  # the pending compaction completes
    assert [n for n in os.listdir(path / ".hoodie") if n.endswith(".commit")]
    assert table_rows(HudiTable(str(path))) == sorted(model.values())
    check(path)
