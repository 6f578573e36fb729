"""Keyed writes: HudiTable.upsert / delete_keys / delete / update on COW and
MOR tables, partitioned or not.

Oracles: an independent model of the table kept in plain Python (Hudi's
semantics: dedupe by ordering field, a lower ordering value does not
overwrite, absent deletes are no-ops, a changed partition value moves the
record), compared with what our reader returns (data and meta columns);
pyarrow reads the base files; ../shared/tools/hudi_check.py must pass after
every write; fastavro decodes the commit metadata.
"""

from __future__ import annotations

import glob
import io
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def snapshot(path) -> list[dict]:
    t = HudiTable(str(path))
    batches = t.read()
    if not batches:
        return []
    rows = pa.Table.from_batches(batches).to_pylist()
    return sorted(rows, key=lambda r: r["_hoodie_record_key"])


def tree(path) -> dict:
    out = {}
    for f in glob.glob(os.path.join(str(path), "**", "*"), recursive=True):
        if os.path.isfile(f):
            out[os.path.relpath(f, str(path))] = os.path.getsize(f)
    for f in glob.glob(os.path.join(str(path), ".hoodie", "**", "*"), recursive=True):
        if os.path.isfile(f):
            out[os.path.relpath(f, str(path))] = os.path.getsize(f)
    for f in glob.glob(os.path.join(str(path), "**", ".*.log.*"), recursive=True):
        out[os.path.relpath(f, str(path))] = os.path.getsize(f)
    return out


class Model:
    """The expected table: key -> (row, commit time)."""

    def __init__(self, key: str, part: str | None, ordering: str | None) -> None:
        self.key, self.part, self.ordering = key, part, ordering
        self.rows: dict[str, tuple[dict, str]] = {}

    def ppath(self, row: dict) -> str:
        return f"{self.part}={row[self.part]}" if self.part else ""

    def upsert(self, data: pa.Table, commit: str) -> tuple[int, int]:
        winners: dict[str, dict] = {}
        for row in data.to_pylist():  # arrival order
            k = str(row[self.key])
            cur = winners.get(k)
            if cur is None or self.ordering is None or row[self.ordering] >= cur[self.ordering]:
                winners[k] = row
        ins = upd = 0
        for k, row in winners.items():
            old = self.rows.get(k)
            if old is None:
                ins += 1
            elif self.ordering is not None and row[self.ordering] < old[0][self.ordering]:
                continue
            else:
                upd += 1
            self.rows[k] = (row, commit)
        return ins, upd

    def delete_keys(self, keys) -> int:
        n = 0
        for k in set(keys):
            n += self.rows.pop(k, None) is not None
        return n

    def expected(self) -> list[dict]:
        out = []
        for k in sorted(self.rows):
            row, commit = self.rows[k]
            out.append({"_hoodie_commit_time": commit, "_hoodie_record_key": k,
                        "_hoodie_partition_path": self.ppath(row), **row})
        return out


def compare(path, model: Model) -> None:
    got = snapshot(path)
    cols = ["_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path"]
    got = [{c: r[c] for c in cols + [k for k in r if not k.startswith("_hoodie")]} for r in got]
    assert got == model.expected()
    # file names and sequence numbers are consistent with the commit time
    for r in snapshot(path):
        assert r["_hoodie_commit_seqno"].startswith(r["_hoodie_commit_time"] + "_")
    check(path)


def data(ids, ts, parts, vals) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.string()),
        "ts": pa.array(ts, pa.int64()),
        "p": pa.array(parts, pa.string()),
        "v": pa.array(vals, pa.int32()),
        "tags": pa.array([[f"t{x}"] for x in vals], pa.list_(pa.string())),
    })


KINDS = ["cow", "mor"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("partitioned", [True, False])
def test_verbs_end_to_end(tmp_path, kind, partitioned):
    path = tmp_path / "t"
    part = "p" if partitioned else None
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields=part, table_type=kind,
                         record_index_enabled=False)
    m = Model("id", part, "ts")
    first = data([f"k{i}" for i in range(20)], [10] * 20, ["a" if i % 2 else "b" for i in range(20)], list(range(20)))
    r = t.append(first)
    m.upsert(first, r.requested_time)
    compare(path, m)

    # Upsert: updates, a stale update (lower ts), duplicates in the batch
    # (larger ts wins; ties go to the later row), new keys, and a move to
    # another partition value.
    batch = data(
        ["k1", "k2", "k3", "k3", "k4", "k4", "new1", "new2", "new2", "k5"],
        [11, 5, 12, 13, 20, 20, 1, 3, 2, 30],
        ["a", "b", "a", "a", "b", "b", "a", "b", "b", "b"],  # k5 was in "a": it moves
        [101, 102, 103, 1003, 104, 1004, 201, 202, 2002, 105],
    )
    r = HudiTable(str(path)).upsert(batch)
    ins, upd = m.upsert(batch, r.requested_time)
    assert r.operation == "UPSERT"
    assert r.action == ("deltacommit" if kind == "mor" else "commit")
    assert r.num_inserts == ins + (1 if partitioned else 0)  # the moved key is re-inserted in its new partition
    if kind == "cow":
        assert r.num_updates == upd - (1 if partitioned else 0)
        assert r.num_deletes == (1 if partitioned else 0)
    assert r.completion_time > r.requested_time
    compare(path, m)

    # delete_keys: present and absent keys
    r = HudiTable(str(path)).delete_keys(["k6", "k7", "nope", "k6"])
    assert r.num_deletes == m.delete_keys(["k6", "k7", "nope"]) == 2
    assert r.operation == "DELETE"
    compare(path, m)

    # delete by predicate
    t = HudiTable(str(path))
    r = t.delete("v >= 100 AND v < 103 OR id = 'k8'")
    gone = [k for k, (row, _) in m.rows.items() if (100 <= row["v"] < 103) or k == "k8"]
    assert r.num_deletes == m.delete_keys(gone) == len(gone) > 0
    compare(path, m)

    # update by predicate (including the ordering field and a partition move)
    r = HudiTable(str(path)).update("v < 5", {"v": 7, "tags": None})
    for k, (row, _) in list(m.rows.items()):
        if row["v"] < 5:
            m.rows[k] = ({**row, "v": 7, "tags": None}, r.requested_time)
    compare(path, m)
    r = HudiTable(str(path)).update("id = 'k10'", {"p": "c", "ts": 99})
    row, _ = m.rows["k10"]
    m.rows["k10"] = ({**row, "p": "c", "ts": 99}, r.requested_time)
    compare(path, m)

    # a write that changes nothing commits nothing
    before = len(HudiTable(str(path)).get_timeline().instants)
    r = HudiTable(str(path)).delete_keys(["absent"])
    assert r.requested_time == "" and r.num_deletes == 0
    r = HudiTable(str(path)).delete("v = -1")
    assert r.requested_time == ""
    assert len(HudiTable(str(path)).get_timeline().instants) == before
    compare(path, m)


@pytest.mark.parametrize("kind", KINDS)
def test_commit_time_ordering(tmp_path, kind):
    """Without an ordering field the latest write and the later row win."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type=kind, record_index_enabled=False)
    m = Model("id", None, None)
    r = t.append(data(["a", "b"], [5, 5], ["x", "x"], [1, 2]))
    m.upsert(data(["a", "b"], [5, 5], ["x", "x"], [1, 2]), r.requested_time)
    batch = data(["a", "a", "c"], [1, 0, 0], ["x", "x", "x"], [10, 11, 12])
    r = HudiTable(str(path)).upsert(batch)
    m.upsert(batch, r.requested_time)
    assert m.rows["a"][0]["v"] == 11
    compare(path, m)


def test_upsert_into_empty_table(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", record_index_enabled=False)
    m = Model("id", "p", "ts")
    batch = data(["a", "b", "a"], [1, 1, 2], ["x", "y", "x"], [1, 2, 3])
    r = t.upsert(batch)
    assert (r.num_inserts, r.num_updates) == m.upsert(batch, r.requested_time) == (2, 0)
    compare(path, m)
    assert HudiTable(str(path)).delete_keys(["zz"]).requested_time == ""


def test_cow_rewrites_only_touched_file_groups(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", record_index_enabled=False)
    first = data([f"k{i}" for i in range(10)], [1] * 10, ["a"] * 5 + ["b"] * 5, list(range(10)))
    t.append(first)
    before = {r["_hoodie_record_key"]: r for r in snapshot(path)}
    files_before = sorted(glob.glob(str(path / "*" / "*.parquet")))
    r = HudiTable(str(path)).upsert(data(["k1"], [2], ["a"], [100]))
    assert (r.num_updates, r.num_inserts, r.files_written) == (1, 0, 1)
    files_after = sorted(glob.glob(str(path / "*" / "*.parquet")))
    new = sorted(set(files_after) - set(files_before))
    assert len(new) == 1 and "/p=a/" in new[0]
    old_a = [f for f in files_before if "/p=a/" in f][0]
    # same file id, new instant
    assert os.path.basename(new[0]).split("_")[0] == os.path.basename(old_a).split("_")[0]
    assert os.path.basename(new[0]).endswith(f"_{r.requested_time}.parquet")
    written = pq.read_table(new[0]).to_pylist()
    assert len(written) == 5
    for row in written:
        assert row["_hoodie_file_name"] == os.path.basename(new[0])
        if row["_hoodie_record_key"] == "k1":
            assert row["_hoodie_commit_time"] == r.requested_time and row["v"] == 100
        else:  # unchanged rows keep commit time and sequence number
            old = before[row["_hoodie_record_key"]]
            assert row["_hoodie_commit_time"] == old["_hoodie_commit_time"]
            assert row["_hoodie_commit_seqno"] == old["_hoodie_commit_seqno"]
    md = pq.read_metadata(new[0]).metadata
    assert md[b"hoodie_min_record_key"] == b"k0" and md[b"hoodie_max_record_key"] == b"k4"
    check(path)


def _commit_metadata(path, instant: str) -> dict:
    fastavro = pytest.importorskip("fastavro")
    [f] = [f for f in glob.glob(str(path / ".hoodie" / "timeline" / f"{instant}_*"))]
    with open(f, "rb") as fh:
        return next(iter(fastavro.reader(fh)))


def test_mor_log_files_and_stats(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor",
                         record_index_enabled=False)
    t.append(data([f"k{i}" for i in range(6)], [1] * 6, ["a"] * 6, list(range(6))))
    base = glob.glob(str(path / "p=a" / "*.parquet"))
    assert len(base) == 1
    file_id = os.path.basename(base[0]).split("_")[0]
    r = HudiTable(str(path)).upsert(data(["k1", "k2"], [2, 2], ["a", "a"], [10, 20]))
    logs = glob.glob(str(path / "p=a" / ".*.log.*"))
    assert [os.path.basename(x).split(".log.")[0] for x in logs] == [f".{file_id}_{r.requested_time}"]
    assert os.path.basename(logs[0]).split(".log.")[1].startswith("1_")
    assert glob.glob(str(path / "p=a" / "*.parquet")) == base  # base file untouched
    md = _commit_metadata(path, r.requested_time)
    assert md["operationType"] == "UPSERT"
    [stat] = md["partitionToWriteStats"]["p=a"]
    assert stat["fileId"] == file_id and stat["numUpdateWrites"] == 2 and stat["numWrites"] == 2
    # as Spark writes them (fixture mor/avro/v8_trips_8i3u1d): baseFile "", totalLogBlocks 0,
    # prevCommit the delta commit itself
    assert stat["logFiles"] == [os.path.basename(logs[0])] and stat["baseFile"] == ""
    assert stat["totalLogBlocks"] == 0 and stat["logVersion"] == 1 and stat["logOffset"] == 0
    assert stat["prevCommit"] == r.requested_time and stat["numInserts"] == 0
    assert stat["path"] == "p=a/" + os.path.basename(logs[0])
    assert stat["fileSizeInBytes"] == stat["totalWriteBytes"] == os.path.getsize(logs[0])
    r = HudiTable(str(path)).delete_keys(["k3"])
    md = _commit_metadata(path, r.requested_time)
    assert md["operationType"] == "DELETE"
    [stat] = md["partitionToWriteStats"]["p=a"]
    assert stat["numDeletes"] == 1 and stat["numWrites"] == 0
    rows = {x["_hoodie_record_key"]: x["v"] for x in snapshot(path)}
    assert rows == {"k0": 0, "k1": 10, "k2": 20, "k4": 4, "k5": 5}
    check(path)


@pytest.mark.parametrize("kind", KINDS)
def test_bad_input_writes_nothing(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False)
    t.append(data(["a", "b"], [1, 1], ["x", "y"], [1, 2]))
    before = tree(path)
    t = HudiTable(str(path))
    bad = [
        lambda: t.upsert(pa.table({"id": pa.array(["a", None]), "ts": pa.array([1, 1], pa.int64()),
                                   "p": ["x", "x"], "v": pa.array([1, 2], pa.int32()),
                                   "tags": pa.array([[], []], pa.list_(pa.string()))})),
        lambda: t.upsert(pa.table({"id": ["a"], "ts": pa.array([1], pa.int64()), "p": ["x"],
                                   "v": pa.array(["text"]), "tags": pa.array([[]], pa.list_(pa.string()))})),
        lambda: t.upsert(pa.table({"id": ["a"], "ts": pa.array([1], pa.int64()), "p": ["x"],
                                   "v": pa.array([1], pa.int32())})),  # drops the column tags
        lambda: t.delete("nosuch = 1"),
        lambda: t.delete("v = = 1"),
        lambda: t.update("v = 1", {"nosuch": 1}),
        lambda: t.update("v = 1", {"v": "not a number"}),
        lambda: t.update("v = 1", {"id": "b"}),
        lambda: t.update("v = (", {"v": 1}),
        lambda: t.delete_keys(["a", ""]),
    ]
    for f in bad:
        with pytest.raises(Exception) as e:
            f()
        assert str(e.value)
    assert tree(path) == before
    assert {r["id"] for r in snapshot(path)} == {"a", "b"}


@pytest.mark.parametrize("kind", KINDS)
def test_upsert_columns_in_another_order(tmp_path, kind):
    """Columns are matched to the table's by name (Spark SQL puts partition columns last)."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False)
    m = Model("id", "p", "ts")
    first = data(["a", "b"], [1, 1], ["x", "y"], [1, 2])
    m.upsert(first, t.append(first).requested_time)
    batch = data(["a", "c"], [2, 2], ["x", "x"], [10, 30])
    r = HudiTable(str(path)).upsert(batch.select(["v", "tags", "p", "ts", "id"]))
    m.upsert(batch, r.requested_time)
    compare(path, m)
    for f in glob.glob(str(path / "**" / "*.parquet"), recursive=True):
        assert pq.read_schema(f).names[5:] == ["id", "ts", "p", "v", "tags"]


@pytest.mark.parametrize("kind", KINDS)
def test_overwrite(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind,
                         record_index_enabled=False)
    t.append(data(["a", "b", "c", "d"], [1] * 4, ["x", "x", "y", "y"], [1, 2, 3, 4]))
    # partition x replaced (b gone, a rewritten, e new; e twice: larger ts wins), y untouched
    r = HudiTable(str(path)).overwrite(data(["e", "a", "e"], [1, 1, 2], ["x", "x", "x"], [5, 6, 7]))
    assert (r.action, r.operation, r.num_inserts) == ("replacecommit", "INSERT_OVERWRITE", 2)
    md = _commit_metadata(path, r.requested_time)
    assert md["operationType"] == "INSERT_OVERWRITE"
    assert list(md["partitionToReplaceFileIds"]) == ["p=x"] and len(md["partitionToReplaceFileIds"]["p=x"]) == 1
    got = {(x["id"], x["p"], x["v"]) for x in snapshot(path)}
    assert got == {("a", "x", 6), ("e", "x", 7), ("c", "y", 3), ("d", "y", 4)}
    check(path)
    # keyed writes after an overwrite see only the new file groups
    r = HudiTable(str(path)).upsert(data(["a", "c"], [5, 5], ["x", "y"], [60, 30]))
    assert (r.num_inserts, r.num_updates) == (0, 2)
    assert HudiTable(str(path)).delete_keys(["b"]).num_deletes == 0  # b was overwritten away
    got = {(x["id"], x["p"], x["v"]) for x in snapshot(path)}
    assert got == {("a", "x", 60), ("e", "x", 7), ("c", "y", 30), ("d", "y", 4)}
    check(path)
    # whole table
    r = HudiTable(str(path)).overwrite(data(["z"], [1], ["q"], [9]), partitions_only=False)
    assert r.operation == "INSERT_OVERWRITE_TABLE"
    assert {(x["id"], x["p"], x["v"]) for x in snapshot(path)} == {("z", "q", 9)}
    check(path)
    # an empty overwrite of the table empties it
    r = HudiTable(str(path)).overwrite(data([], [], [], []), partitions_only=False)
    assert r.requested_time != "" and snapshot(path) == []
    check(path)
