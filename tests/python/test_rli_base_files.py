"""A record-index shard's first keys go to a base HFile (hoodie.metadata.record.index.initial.base.files,
hudi-c's own key, default true), the file Java's metadata initialisation (bulkCommit) writes for the
keys an index starts with, rather than to a log block as Java's commits write them: the shard's
first metadata compaction then copies every block no later commit changed, where from a log block
it re-encodes them all.

Oracles: ../shared/tools/hudi_check.py on every table (the record index against the snapshot's
keys, every metadata HFile through its own parser, the deltacommit's write stats against the
files); the base HFiles read by hudi_check's HFile parser (their keys are exactly the keys
written, each shard's sorted and disjoint, and their values carry null meta fields, as Java's
bulkCommit writes them: [F9]'s files-0000-0_0-5-4_00000000000000000.hfile); a model of the rows
(the snapshot must equal it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

from hudi import HudiTable, HudiTableBuilder
from test_mdt_compact_async import CHECKER, check, mdt_timeline

sys.path.insert(0, str(CHECKER.parent))
import hudi_check  # noqa: E402  (the checker's HFile parser, an independent reader)

KEY = "hoodie.metadata.record.index.initial.base.files"
CITIES = ["sf", "nyc", "la"]
NULL_META = b"\x00" * 5  # the five meta fields, each the null branch of its union


def rows(lo: int, hi: int, w: int) -> pa.Table:
    ids = [f"key-{i:07d}" for i in range(lo, hi)]
    return pa.table({"id": pa.array(ids, pa.string()),
                     "city": pa.array([CITIES[i % 3] for i in range(lo, hi)], pa.string()),
                     "ts": pa.array([w] * (hi - lo), pa.int64())})


def ri_dir(path) -> Path:
    return Path(path) / ".hoodie" / "metadata" / "record_index"


def base_files(path) -> list[Path]:
    return sorted(ri_dir(path).glob("*.hfile"))


def logs_after_init(path) -> list[str]:
    """record_index log files other than the initialisation's (instants 0000000000000000x)."""
    return [p.name for p in ri_dir(path).iterdir() if ".log." in p.name and "_00000000000000" not in p.name]


def hfile_kvs(f: Path) -> list:
    h = hudi_check.HFile(f.read_bytes())
    kvs = list(h.key_values())
    assert len(kvs) == h.trailer["entry_count"]
    return kvs


def snapshot(t: HudiTable) -> list:
    tbl = pa.Table.from_batches(t.read())
    return sorted(zip(tbl.column("id").to_pylist(), tbl.column("city").to_pylist(), tbl.column("ts").to_pylist()))


def model(lo: int, hi: int, w: int) -> list:
    return [(f"key-{i:07d}", CITIES[i % 3], w) for i in range(lo, hi)]


@pytest.mark.parametrize("kind", ["mor", "cow"])
def test_bulk_load_writes_base_files(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type=kind)
    r = t.append(rows(0, 30_000, 0))
    files = base_files(path)
    # One base file per shard, named for the bulk load's instant, and no log beyond the
    # initialisation's.
    assert [f.name for f in files] == [f"record-index-{s:04d}-0_1-0-1_{r.requested_time}.hfile" for s in range(10)]
    assert logs_after_init(path) == []
    seen: list[bytes] = []
    for f in files:
        kvs = hfile_kvs(f)
        keys = [kv.key for kv in kvs]
        assert keys == sorted(keys) and keys, f
        for kv in kvs:
            assert kv.value.startswith(NULL_META), (f, kv.key, kv.value[:16])
        seen += keys
    assert sorted(seen) == sorted(k.encode() for k, _, _ in model(0, 30_000, 0))
    # The MDT deltacommit of the bulk load lists the base files (fastavro reads its metadata).
    done = [n for n in mdt_timeline(path) if n.startswith(r.requested_time + "_") and n.endswith(".deltacommit")]
    assert len(done) == 1
    with open(Path(path) / ".hoodie" / "metadata" / ".hoodie" / "timeline" / done[0], "rb") as fh:
        meta = next(iter(fastavro.reader(fh)))
    stats = meta["partitionToWriteStats"]["record_index"]
    assert sorted(s["path"] for s in stats) == [f"record_index/{f.name}" for f in files]
    assert sum(s["numWrites"] for s in stats) == 30_000
    assert all(s["fileSizeInBytes"] == (ri_dir(path) / s["path"].split("/")[1]).stat().st_size for s in stats)
    out = check(path)
    assert "PASS metadata.record-index-keys" in out and "PASS metadata.hfiles" in out, out
    assert snapshot(t) == model(0, 30_000, 0)

    # Later commits go to logs of the new slice; their keys are found through the index (a key
    # upserted into another partition moves, found only through the record index).
    moved = pa.table({"id": ["key-0000005"], "city": ["la"], "ts": pa.array([2], pa.int64())})
    t.upsert(pa.concat_tables([rows(29_990, 30_010, 1), moved]))
    assert t.delete_keys(["key-0000007", "key-0000008"]).num_deletes == 2
    assert len(base_files(path)) == 10 and logs_after_init(path)
    want = {k: (c, w) for k, c, w in model(0, 29_990, 0) + model(29_990, 30_010, 1)}
    want["key-0000005"] = ("la", 2)
    del want["key-0000007"], want["key-0000008"]
    assert snapshot(HudiTableBuilder.from_base_uri(str(path)).build()) == sorted((k, c, w) for k, (c, w) in want.items())
    check(path)


def test_option_false_writes_logs(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor", hudi_options={KEY: "false"})
    t.append(rows(0, 5_000, 0))
    assert base_files(path) == []
    assert len(logs_after_init(path)) == 10
    check(path)
    # The option belongs to the table handle, not to the table: a handle opened without it
    # writes base files into a table created with it false.
    other = tmp_path / "u"
    HudiTable.create(str(other), "id", ordering_fields="ts", table_type="mor", hudi_options={KEY: "false"})
    HudiTableBuilder.from_base_uri(str(other)).build().append(rows(0, 5_000, 0))
    assert len(base_files(other)) == 10


@pytest.mark.parametrize("handle, call, want_base", [(None, "false", False), ("false", "true", True)])
def test_option_of_the_call_wins(tmp_path, handle, call, want_base):
    """Given to one append, the option applies to that write, over the handle's value."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor",
                         hudi_options={KEY: handle} if handle else {})
    t.append(rows(0, 5_000, 0), {KEY: call})
    assert len(base_files(path)) == (10 if want_base else 0)
    assert len(logs_after_init(path)) == (0 if want_base else 10)
    check(path)
    assert snapshot(t) == model(0, 5_000, 0)


def test_only_a_shard_without_keys_gets_one(tmp_path):
    """A first write holding deletes as well, or a shard that already holds keys (in a log),
    takes log blocks; a later write into a table whose shards hold keys never writes a base file."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor", hudi_options={KEY: "false"})
    t.append(rows(0, 50, 0))
    t2 = HudiTableBuilder.from_base_uri(str(path)).build()  # option default: true
    t2.upsert(rows(50, 5_000, 1))
    assert base_files(path) == []  # every shard held keys in a log already
    check(path)
    assert snapshot(t2) == model(0, 50, 0) + model(50, 5_000, 1)

    # Upsert (not append) as a table's first write: base files too.
    path = tmp_path / "v"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="cow")
    r = t.upsert(rows(0, 2_000, 0))
    assert len([f for f in base_files(path) if r.requested_time in f.name]) == 10
    t.upsert(rows(1_000, 3_000, 1))
    assert len(base_files(path)) == 10
    check(path)
    assert snapshot(t) == model(0, 1_000, 0) + model(1_000, 3_000, 1)


def test_failed_bulk_load_rolled_back(tmp_path):
    """A bulk load that "crashed" after its metadata deltacommit completed (its data instant's
    completed file removed): readers see the table as before, and the next write rolls it back,
    base files included, so the shards hold no key again and take the next keys as base files."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    w = t.append(rows(0, 3_000, 0))
    tl = path / ".hoodie" / "timeline"
    done = [n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")]
    assert len(done) == 1
    os.remove(tl / done[0])
    assert len(base_files(path)) == 10
    assert HudiTable(str(path)).read() == [] or snapshot(HudiTable(str(path))) == []

    r = HudiTable(str(path)).append(rows(100, 200, 1))
    assert [f for f in base_files(path) if w.requested_time in f.name] == []
    assert len([f for f in base_files(path) if r.requested_time in f.name]) == len(base_files(path)) > 0
    assert snapshot(HudiTable(str(path))) == model(100, 200, 1)
    check(path)


def test_bad_value_refused_before_writing(tmp_path):
    path = tmp_path / "t"
    HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    t = HudiTableBuilder.from_base_uri(str(path)).with_hudi_option(KEY, "yes").build()
    with pytest.raises(Exception, match=KEY):
        t.append(rows(0, 10, 0))
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before
    assert base_files(path) == []
    # A valid value given to the call overrides the handle's bad one.
    HudiTableBuilder.from_base_uri(str(path)).with_hudi_option(KEY, "yes").build().append(rows(0, 10, 0), {KEY: "false"})
    assert base_files(path) == []
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    # The same value given to one call (upsert and append alike) is refused the same way.
    t = HudiTable(str(path))
    for verb in (t.append, t.upsert):
        with pytest.raises(Exception, match=f"{KEY} must be true or false, not 'yes'"):
            verb(rows(0, 10, 0), {KEY: "yes"})
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before
    assert base_files(path) == []


def test_pending_load_keys_invisible_to_writers(tmp_path):
    """A failed load left pending (the failed-writes policy NEVER, or LAZY while its heartbeat
    lives, leaves it for later): its base files' keys are no more valid than its log blocks
    would be, so a writer upserting those keys finds them absent and inserts them, instead of
    routing them to file groups no completed commit wrote."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor")
    w = t.append(rows(0, 3_000, 0))
    tl = path / ".hoodie" / "timeline"
    done = [n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")]
    os.remove(tl / done[0])
    never = {"hoodie.cleaner.policy.failed.writes": "NEVER"}
    t2 = HudiTable(str(path))
    r = t2.upsert(rows(10, 12, 1), never)
    assert r.num_inserts == 2 and r.num_updates == 0
    assert len([f for f in base_files(path) if w.requested_time in f.name]) == 10  # still there
    assert snapshot(HudiTable(str(path))) == model(10, 12, 1)
    assert HudiTable(str(path)).delete_keys(["key-0000020"], never).num_deletes == 0
    assert HudiTable(str(path)).delete_keys(["key-0000011"], never).num_deletes == 1
    assert snapshot(HudiTable(str(path))) == model(10, 11, 1)


def test_clean_keeps_the_slice_a_rollback_needs(tmp_path):
    """A shard's base file from a deltacommit can be rolled back (a compaction's cannot): the
    metadata clean keeps the slice before it, the shard's empty initialisation log, so that
    rolling the load back leaves every shard a file and the index its ten shards."""
    path = tmp_path / "t"
    opts = {"hoodie.metadata.compact.max.delta.commits": "100"}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    load = t.append(rows(0, 2_000, 0), opts)
    later = [t.upsert(rows(i, i + 1, 1), opts).requested_time for i in range(24)]
    names = os.listdir(ri_dir(path))
    # More than 20 deltacommits since the load: the metadata clean's earliest commit to retain is
    # past the initialisation logs' slices (their base files' own slices are the latest), yet it
    # kept them, as the base files' rollback needs them.
    assert len([n for n in mdt_timeline(path) if n.endswith(".deltacommit")]) > 22
    assert len([n for n in names if "_00000000000000" in n and ".log." in n]) == 10, sorted(names)
    for instant in reversed([load.requested_time] + later):
        t.rollback(instant)
    assert base_files(path) == []
    assert len({n.lstrip(".").split("_")[0] for n in os.listdir(ri_dir(path)) if "record-index" in n}) == 10
    r = HudiTable(str(path)).append(rows(5_000, 6_000, 2), opts)
    assert len([f for f in base_files(path) if r.requested_time in f.name]) == 10
    assert snapshot(HudiTable(str(path))) == model(5_000, 6_000, 2)
    check(path)
