"""Incremental metadata-table compaction (hoodie.metadata.compact.incremental, hudi-c's own
key): every P commits (P the groups compacted side by side: the cores, up to 4) a commit
compacts a share of the metadata table's file groups inline, those whose oldest log file is
oldest first, instead of every group once every hoodie.metadata.compact.max.delta.commits
deltacommits.

Oracles: an independent model of the rows (the snapshot must equal it), each key's file group
(an upsert routed by the record index stays in its file group), the MDT's files on storage
(which groups each compaction rewrote, how old the logs each group still reads are), and
../shared/tools/hudi_check.py, whose metadata checks merge the MDT slices themselves and compare
the record index with every file slice's keys, run along the way and with archival pushed hard.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hudi import HudiTable
from test_mdt_compact_async import Model, check, mdt_timeline, snapshot, write

INC = {"hoodie.metadata.compact.incremental": "true"}
P = min(os.cpu_count() or 1, 4)  # groups compacted side by side, as the writer counts them


def compactions(path) -> list[str]:
    return [n.split("_")[0] for n in mdt_timeline(path) if n.endswith(".commit")]


def groups_compacted(path, instant: str) -> list[str]:
    mdt = Path(path) / ".hoodie" / "metadata"
    return sorted(f"{p}/{n.split('_')[0]}" for p in ("files", "record_index")
                  for n in os.listdir(mdt / p) if n.endswith(f"_{instant}.hfile"))


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_each_commit_compacts_a_share(tmp_path, table_type):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type=table_type)
    m = Model()
    seen: dict[str, str] = {}
    done: list[str] = []
    total = shares = 0
    for w in range(1, 25):
        write(t, m, w, INC)
        now = compactions(path)
        new = [c for c in now if c not in done]
        assert len(new) <= 1, (w, new)
        if new:
            rewritten = groups_compacted(path, new[0])
            assert 1 <= len(rewritten) <= 2 * P + 3, (w, rewritten)  # a share of the 11 groups
            total += len(rewritten)
            shares += 1
        done = now
        got, groups = snapshot(t)
        assert got.equals(m.expected()), w
        for k, g in groups.items():
            assert seen.setdefault(k, g) == g, (k, w)
        if w % 8 == 0:
            check(path)
    print("shares", shares, "group compactions", total)
    # A share every P deltacommits (P groups side by side), or sooner for a group's old log.
    assert 24 // P - 1 <= shares <= 24, shares
    # About the work of compacting all 11 groups every 10 deltacommits (24 commits: 2 or 3 times).
    assert 15 <= total <= 45, total
    # No group still reads a log older than the last 10 deltacommits (Hudi's own bound).
    mdt = Path(path) / ".hoodie" / "metadata"
    deltas = sorted(n.split("_")[0] for n in mdt_timeline(path) if n.endswith(".deltacommit") and "_" in n)
    horizon = deltas[-10]
    for p in ("files", "record_index"):
        names = os.listdir(mdt / p)
        for fid in {n.lstrip(".").split("_")[0] for n in names}:
            bases = sorted(n.rsplit("_", 1)[1][:-6] for n in names if n.startswith(fid) and n.endswith(".hfile"))
            logs = sorted(n.split("_")[1].split(".")[0] for n in names
                          if n.startswith("." + fid) and ".log." in n)
            live = [x for x in logs if not bases or x > bases[-1]]
            assert not live or live[0] >= horizon, (p, fid, live, horizon)


def test_archival_keeps_what_groups_still_read(tmp_path):
    """With archival pushed down to a handful of instants, the data table and the MDT keep
    every deltacommit whose log blocks a metadata file group still reads: the checker (which,
    as Java, takes MDT log blocks only of instants active on one of the two timelines) finds
    every key in the record index."""
    path = tmp_path / "t"
    opts = dict(INC, **{"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4",
                        "hoodie.metadata.keep.min.commits": "3", "hoodie.metadata.keep.max.commits": "4",
                        "hoodie.clean.commits.retained": "1"})
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    m = Model()
    for w in range(1, 31):
        write(t, m, w, opts)
        got, _ = snapshot(t)
        assert got.equals(m.expected()), w
        if w % 10 == 0:
            check(path)
    assert any((path / ".hoodie" / "timeline" / "history").iterdir())
    assert any((path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history").iterdir())


def test_bad_value_is_refused_before_writing(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    m = Model()
    write(t, m, 1, {})
    before = sorted(os.listdir(path / ".hoodie" / "timeline"))
    with pytest.raises(Exception, match="hoodie.metadata.compact.incremental must be true or false"):
        t.upsert(m.batch(2, 5, 0), {"hoodie.metadata.compact.incremental": "sometimes"})
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == before
    # The same for the other options the services after a commit read.
    with pytest.raises(Exception, match="hoodie.keep.max.commits"):
        t.upsert(m.batch(3, 5, 0), {"hoodie.keep.min.commits": "9", "hoodie.keep.max.commits": "5"})
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == before


def test_incremental_shares_in_the_background(tmp_path):
    """Both keys: the commit that makes a share due only schedules it, and the handle's
    background thread compacts that share while the next writes go on."""
    path = tmp_path / "t"
    opts = dict(INC, **{"hoodie.metadata.compact.async": "true"})
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    m = Model()
    for w in range(1, 21):
        write(t, m, w, opts)
        got, _ = snapshot(t)
        assert got.equals(m.expected()), w
    t.wait_services()
    shares = compactions(path)
    assert len(shares) >= 20 // P - 1, shares
    for c in shares[-2:]:  # (the MDT cleaner has removed older shares' files replaced since)
        assert 1 <= len(groups_compacted(path, c)) <= 2 * P + 3, c
    assert not [n for n in mdt_timeline(path) if n.endswith(".compaction.requested")
                and n.split(".")[0] not in shares]  # nothing left pending after wait_services
    check(path)
    got, _ = snapshot(HudiTable(str(path)))
    assert got.equals(m.expected())


def test_mdt_is_cleaned(tmp_path):
    """Java's metadata writer does not clean until 3 instants follow the latest compaction; with a
    share every P commits that never happens, so in this mode the MDT cleaner does not wait (its
    20 retained commits keep the slices recent compactions replaced). Old slices go."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    m = Model()
    for w in range(1, 46):
        write(t, m, w, INC)
    cleans = [n for n in mdt_timeline(path) if n.endswith(".clean")]
    assert cleans, mdt_timeline(path)
    ri = os.listdir(path / ".hoodie" / "metadata" / "record_index")
    per_group: dict[str, int] = {}
    for n in ri:
        if n.endswith(".hfile"):
            per_group[n.split("_")[0]] = per_group.get(n.split("_")[0], 0) + 1
    assert max(per_group.values()) <= 4, per_group
    got, _ = snapshot(t)
    assert got.equals(m.expected())
    check(path)
