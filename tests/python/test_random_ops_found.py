"""The bugs test_random_ops.py found, each as a fixed sequence (the random sequences that found
them depend on timing and seeds):

* a partition move whose incoming ordering value is below the stored record's moved the key
  anyway (Hudi merges first, HoodieIndexUtils.mergeForPartitionUpdatesIfNeeded, and keeps the
  stored record where it is);
* a MOR delta commit that was savepointed had its log files sliced by the savepoint's completion
  time, so the cleaner deleted the savepointed log files after a compaction and the restore
  brought deleted rows back;
* a restore to the latest savepoint after archival hid every archived file (the active timeline
  then holds no write that is not savepointed);
* a rollback the metadata table refuses (its deltacommit already compacted) deleted the
  commit's files before refusing, losing the commit's rows;
* (found by tests/interop/test_random_mixed.py) a restore that undoes metadata-table compactions
  is refused when writes since archived from both timelines would lose their metadata-table
  entries, and allowed otherwise (the allowed case is here).

Oracles: a plain Python model of the rows (the snapshot, meta columns included) and
../shared/tools/hudi_check.py after every write.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable, HudiTableBuilder, HudiUnsupportedError
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")
             # a savepoint shares its commit's time (see test_savepoint_restore.py's check)
             and not (ln.startswith("FAIL timeline.states:") and ".savepoint" in ln)]
    assert not fails and (r.returncode == 0 or "FAIL" in r.stdout), r.stdout + r.stderr
    return r.stdout


def data(rows) -> pa.Table:
    return pa.table({"id": pa.array([r[0] for r in rows], pa.string()),
                     "region": pa.array([r[1] for r in rows], pa.string()),
                     "ts": pa.array([r[2] for r in rows], pa.int64()),
                     "v": pa.array([r[3] for r in rows], pa.int64())})


def snapshot(path, opts=None) -> list:
    t = HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts or {}).build()
    batches = t.read()
    if not batches:
        return []
    tb = pa.Table.from_batches(batches)
    cols = ["_hoodie_commit_time", "_hoodie_partition_path", "id", "region", "ts", "v"]
    return sorted(zip(*[tb.column(c).to_pylist() for c in cols]), key=lambda r: r[2])


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("rli", [True, False])
def test_stale_partition_move_stays(tmp_path, kind, rli):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", ordering_fields="ts", partition_fields="region",
                         table_type=kind, record_index_enabled=rli)
    first = t.append(data([("a", "eu", 10, 1), ("b", "eu", 10, 2), ("c", "us", 10, 3)]))
    # a: moves with a higher ordering value; b: stale, must stay in eu unchanged; c: stale update
    # within its partition; d: new
    up = HudiTable(str(path)).upsert(data([("a", "us", 11, 10), ("b", "us", 9, 20), ("c", "us", 9, 30),
                                           ("d", "apac", 1, 4)]))
    f, u = first.requested_time, up.requested_time
    assert snapshot(path) == [
        (u, "region=us", "a", "us", 11, 10),
        (f, "region=eu", "b", "eu", 10, 2),
        (f, "region=us", "c", "us", 10, 3),
        (u, "region=apac", "d", "apac", 1, 4),
    ]
    check(path)
    # every row stale: nothing changes, and no commit is needed for it
    again = HudiTable(str(path)).upsert(data([("b", "apac", 5, 99)]))
    assert snapshot(path)[1] == (f, "region=eu", "b", "eu", 10, 2)
    assert again.num_updates + again.num_inserts == 0
    check(path)


def test_savepointed_delta_commit_logs_survive_cleaning(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.clean.commits.retained": "1", "hoodie.clean.automatic": "true"}
    HudiTable.create(str(path), record_key="id", ordering_fields="ts", table_type="mor",
                     record_index_enabled=False, hudi_options=opts)
    t = lambda: HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts).build()  # noqa: E731
    first = t().append(data([(f"k{i}", "eu", 1, i) for i in range(6)]))
    dele = t().delete_keys(["k1", "k2"])  # a delete block in the base's log
    want = snapshot(path)
    assert [r[2] for r in want] == ["k0", "k3", "k4", "k5"]
    # a new base without k1, k2, requested before the savepoint completes: the delta commit's
    # log still belongs to the older slice (base + log), which the savepoint keeps
    t().compact()
    t().savepoint(dele.requested_time)
    for i in range(3):
        t().upsert(data([(f"k{10 + i}", "eu", 2, i)]))
        t().compact()
    logs = [f for f in os.listdir(path) if f.startswith(".") and f"_{dele.requested_time}.log." in f]
    assert logs, "the cleaner deleted the savepointed delta commit's log file"
    check(path)
    t().restore(dele.requested_time)
    assert snapshot(path) == want, "the restore brought deleted rows back"
    assert first.requested_time < dele.requested_time
    check(path)


def test_restore_to_latest_savepoint_after_archival(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
            "hoodie.clean.commits.retained": "1"}
    HudiTable.create(str(path), record_key="id", table_type="cow", hudi_options=opts)
    t = lambda: HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts).build()  # noqa: E731
    for i in range(4):
        t().append(data([(f"k{i}", "eu", 1, i)]))
    sp = t().upsert(data([("k0", "eu", 2, 100)]))
    t().savepoint(sp.requested_time)
    want = snapshot(path)
    assert len(want) == 4
    for i in range(4):
        t().append(data([(f"n{i}", "eu", 1, i)]))
    assert t().archive().num_instants_archived >= 0
    hist = path / ".hoodie" / "timeline" / "history"
    assert hist.is_dir() and any(f.endswith(".parquet") for f in os.listdir(hist)), "nothing was archived"
    t().restore(sp.requested_time)
    # the active timeline's only write is the savepointed one: the archived writes before it
    # are still part of the table
    assert snapshot(path) == want
    check(path)


def test_refused_rollback_leaves_the_table(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.metadata.compact.max.delta.commits": "1"}
    HudiTable.create(str(path), record_key="id", table_type="cow", hudi_options=opts)
    t = lambda: HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts).build()  # noqa: E731
    t().append(data([("a", "eu", 1, 1)]))
    last = t().upsert(data([("b", "eu", 1, 2)]))  # its metadata deltacommit is compacted at once
    before = snapshot(path)
    timeline = sorted(os.listdir(path / ".hoodie" / "timeline"))
    with pytest.raises(HudiUnsupportedError, match="was compacted by"):
        t().rollback(last.requested_time)
    assert snapshot(path) == before
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == timeline
    check(path)


def test_restore_after_archival_past_the_older_metadata_compaction(tmp_path):
    """A restore undoes the metadata-table compactions after the savepoint; the MDT's latest base
    files are then an older compaction's (c0), and the deltacommits after it are log blocks again,
    which readers merge only while their instant is on the data table's active timeline or on
    the MDT's (HoodieTableMetadataUtil.getValidInstantTimestamps). Here archival moved a data
    instant after c0 off the data timeline (allowed while the later compaction existed) but the
    MDT still has its deltacommit, and a rollback after c0 (which leaves the MDT no deltacommit,
    only a rollback) is archived too: the restore goes ahead and the MDT keeps its files. (When the
    MDT has archived it too, the restore is refused: tests/interop/test_random_mixed.py's
    test_restore_after_spark_archived_the_metadata_table, which needs Spark's MDT archival.)"""
    path = tmp_path / "t"
    opts = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
            "hoodie.clean.commits.retained": "1", "hoodie.metadata.compact.max.delta.commits": "3"}
    HudiTable.create(str(path), record_key="id", table_type="cow", hudi_options=opts)
    t = lambda: HudiTableBuilder.from_base_uri(str(path)).with_hudi_options(opts).build()  # noqa: E731
    mdt = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    compactions = lambda: sorted(f[:17] for f in os.listdir(mdt) if f.endswith(".commit"))  # noqa: E731
    writes = []
    while not compactions():
        writes.append(t().append(data([(f"k{len(writes)}", "eu", 1, 0)])).requested_time)
    c0 = compactions()[-1]
    gone = t().append(data([("x", "eu", 1, 0)])).requested_time
    rollback = t().rollback(gone).requested_time
    writes += [t().append(data([(f"k{len(writes) + i}", "eu", 1, 0)])).requested_time for i in range(2)]
    w, sp = writes[-2], writes[-1]
    assert c0 < gone < rollback < w, (writes, c0)  # data instants in the log blocks after c0
    t().savepoint(sp)
    want = snapshot(path)
    for i in range(4):
        t().append(data([(f"n{i}", "eu", 1, i)]))
        t().archive()
    assert compactions()[-1] > sp, "the metadata table was compacted after the savepoint"
    assert not (path / ".hoodie" / "timeline" / f"{w}.commit.requested").exists(), \
        "archival moved a data instant after c0 into the history"
    assert not any(f.startswith(rollback) for f in os.listdir(path / ".hoodie" / "timeline")), \
        "archival moved the rollback into the history"
    assert any(f.startswith(w) for f in os.listdir(mdt)), sorted(os.listdir(mdt))
    t().restore(sp)
    assert snapshot(path) == want
    check(path)
