"""Incremental reads of hudi-c's own Merge-on-Read tables against Apache Hudi's Spark reader
(1.2.0): the slices whose base file predates the range are read from their logs alone (no
ordering field) or with the base's merge columns only (read_slice.c base_out_of_range), and
must return what Spark's incremental query returns for every range of a history with updates,
new keys, deletes, re-inserts and (with an ordering field) records that lose to log and to base
rows. The history is tests/python/test_read_incremental_logs.py's, whose model checks the same
ranges there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from oracles import row_diff
from test_read_hudic import ours

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import test_read_incremental_logs as hist  # noqa: E402  (the history and its model)

# Spark's _hoodie_file_name names the file it read a row from; the other meta columns compare.
UNCOMPARED = ("_hoodie_file_name",)


def range_only(history_ops, s: str, e: str) -> list:
    """Spark's incremental answer as its relation computes it (MergeOnReadIncrementalRelationV2:
    a file-system view of only the files the range's commits wrote): the records written in the
    range merged among themselves (greatest ts, ties to the later; a later delete removes)."""
    out: dict = {}
    for req, done, kind, payload in history_ops:
        if not (s < done <= e):
            continue
        if kind == "delete":
            for k in payload:
                out.pop(k, None)
            continue
        for r in payload:
            cur = out.get(r["id"])
            if cur is None or "ts" not in r or r["ts"] >= cur[0]["ts"]:
                out[r["id"]] = (r, req)
    return sorted((k, r["v"], req) for k, (r, req) in out.items())


@pytest.mark.parametrize("ordering", [False, True], ids=["commit_time_ordering", "event_time_ordering"])
def test_incremental_reads_against_spark(tmp_path, spark, ordering, monkeypatch):
    """Without an ordering field hudi-c returns exactly Spark's rows. With one they differ where
    a record written in the range loses to an older row of its key: hudi-c returns the key's
    image as of the range's end when that image was written in the range (the model), Spark
    merges only the records the range wrote, so it returns the losing record too (range_only;
    docs/compatibility.md, incremental queries with an ordering field). Each engine is checked
    against its own model of the same history."""
    ops = []
    real_upsert, real_append, real_delete = hist.HudiTable.upsert, hist.HudiTable.append, hist.HudiTable.delete_keys

    def rec(kind, fn):
        def w(self, data, *a, **k):
            r = fn(self, data, *a, **k)
            payload = data.to_pylist() if kind != "delete" else list(data)
            ops.append((r.requested_time, r.completion_time, kind, payload))
            return r
        return w
    monkeypatch.setattr(hist.HudiTable, "upsert", rec("upsert", real_upsert))
    monkeypatch.setattr(hist.HudiTable, "append", rec("upsert", real_append))
    monkeypatch.setattr(hist.HudiTable, "delete_keys", rec("delete", real_delete))
    path = tmp_path / "t"
    _, m = hist.write_history(path, ordering=ordering)
    done = [d for _, d, _ in m.history]
    differ = 0
    for s, e in [(done[0], done[1]), (done[1], done[3]), (done[2], done[4]), (done[0], done[4]), ("000", done[2])]:
        got = spark.read_table(str(path), {"hoodie.datasource.query.type": "incremental",
                                           "hoodie.datasource.read.begin.instanttime": s,
                                           "hoodie.datasource.read.end.instanttime": e})
        mine = ours(str(path), {"hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": s,
                                "hoodie.read.end.timestamp": e})
        key = lambda f: sorted((r["id"], r["v"], r["_hoodie_commit_time"]) for r in f.rows)  # noqa: E731
        assert key(mine) == m.incremental(s, e), (s, e)
        assert key(got) == range_only(ops, s, e), (s, e)
        differ += key(mine) != key(got)
        if not ordering:
            a, b = mine.canonical(UNCOMPARED), got.canonical(UNCOMPARED)
            assert a == b, (s, e, row_diff(a, b, ("hudi-c", "spark")))
    assert (differ > 0) == ordering  # the records that lose to older rows
