"""Incremental reads of Merge-on-Read file slices whose base file predates the range
(src/table/read_slice.c base_out_of_range): without an ordering field the logs alone decide
every key they hold, and no base row can lie in the range, so the slice is read as its log
records merged among themselves; the base file is not opened.

Oracle: a model of the table kept here in plain Python from the rows written (each key's image
and the requested time of the commit that wrote it, as of every instant), independent of the
library: an incremental query over (start, end] returns, for each key alive at end, its image at
end when the commit that wrote that image completed in the range. The proof that the base files
are not read: they are removed before the queries (the metadata table still lists them), which
a read opening them would fail on; a snapshot read after that fails, as it must. With an
ordering field the base file's merge columns are read (a base row that outranks a log record
keeps the key out of the result), and only those: its data column is overwritten first.
hudi_check.py passes on every table.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiQueryType, HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

# Inserts of later commits go to new file groups, so the loaded file groups keep their base
# files and take the updates as log blocks.
OPTS = {"hoodie.parquet.small.file.limit": "0"}


def rows(ids, tag, ts=None):
    cols = {
        "id": pa.array([f"k{i:05d}" for i in ids], pa.string()),
        "part": pa.array([f"p{i % 3}" for i in ids], pa.string()),
        "v": pa.array([f"{tag}-{i}" for i in ids], pa.string()),
    }
    if ts is not None:
        cols["ts"] = pa.array([int(t) for t in ts], pa.int64())
    return pa.table(cols)


def check_table(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def incremental(path, start, end) -> list:
    o = (HudiReadOptions().with_query_type(HudiQueryType.Incremental)
         .with_start_timestamp(start).with_end_timestamp(end))
    batches = HudiTable(str(path)).read(o)
    if not batches:
        return []
    t = pa.Table.from_batches(batches)
    return sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist(),
                      t.column("_hoodie_commit_time").to_pylist()))


def remove_base_files(path, instant: str) -> int:
    """Removes the base files instant wrote (the metadata table still lists them)."""
    files = [f for f in Path(path).glob("p*/*.parquet") if f.name.endswith(f"_{instant}.parquet")]
    for f in files:
        f.unlink()
    return len(files)


class Model:
    """Each key's (image, requested time of the commit that wrote it) after every commit."""

    def __init__(self, ordering: bool):
        self.ordering = ordering
        self.state: dict = {}
        self.history: list = []  # (requested, completed, copy of state)

    def upsert(self, t: pa.Table, requested: str) -> None:
        for r in t.to_pylist():
            cur = self.state.get(r["id"])
            if self.ordering and cur is not None and r["ts"] < cur[0]["ts"]:
                continue  # the stored record outranks the incoming one
            self.state[r["id"]] = (r, requested)

    def delete(self, keys) -> None:
        for k in keys:
            self.state.pop(k, None)

    def commit(self, res) -> None:
        self.history.append((res.requested_time, res.completion_time, dict(self.state)))

    def incremental(self, start: str, end: str) -> list:
        """(start, end] bound completion times (table version 8)."""
        in_range = {req for req, done, _ in self.history if start < done <= end}
        at_end = [s for _, done, s in self.history if done <= end][-1]
        return sorted((k, r["v"], req) for k, (r, req) in at_end.items() if req in in_range)


def write_history(path, ordering: bool):
    t = HudiTable.create(str(path), "id", partition_fields="part", table_type="mor",
                         ordering_fields="ts" if ordering else None, hudi_options=OPTS)
    m = Model(ordering)
    ts = (lambda ids, base: [base + i % 7 for i in ids]) if ordering else (lambda ids, base: None)

    def up(ids, tag, base=0, append=False):
        batch = rows(ids, tag, ts(ids, base))
        res = (t.append if append else t.upsert)(batch)
        m.upsert(batch, res.requested_time)
        m.commit(res)

    up(range(0, 3000), "load", 10, append=True)
    up(list(range(0, 3000, 7)) + list(range(3000, 3100)), "r1", 20)  # updates (logs) + new keys
    keys = [f"k{i:05d}" for i in range(1, 3000, 11)]
    res = t.delete_keys(keys)  # delete blocks, some keys updated in r1 too
    m.delete(keys)
    m.commit(res)
    # updates again (some twice updated), re-inserts of deleted keys, updates of r1's new keys;
    # with ordering, half of them carry a lower ts than stored and lose
    up(list(range(0, 3000, 14)) + list(range(1, 300, 11)) + list(range(3000, 3100, 3)), "r3", 15 if ordering else 30)
    # with ordering, rows the load's base rows outrank (ts 0-6 against 10-16)
    up([i for i in range(2, 3000, 13) if i % 7 and i % 11 != 1], "r4", 0)
    check_table(path)
    return t, m


def ranges(m: Model):
    done = [d for _, d, _ in m.history]
    for i in range(len(done)):
        for j in range(i + 1, len(done)):
            yield done[i], done[j]


def test_logs_alone_answer_without_the_base_files(tmp_path):
    path = tmp_path / "t"
    _, m = write_history(path, ordering=False)
    expected = {(s, e): m.incremental(s, e) for s, e in ranges(m)}
    assert all(len(v) > 0 for (s, e), v in expected.items() if e != m.history[2][1])
    assert remove_base_files(path, m.history[0][0]) > 0  # the load's
    for (s, e), want in expected.items():
        assert incremental(path, s, e) == want, (s, e)
    with pytest.raises(Exception):
        HudiTable(str(path)).read()  # a snapshot needs those base files: they are really gone


def test_logs_alone_equal_the_model_with_base_files(tmp_path):
    path = tmp_path / "t"
    _, m = write_history(path, ordering=False)
    for s, e in ranges(m):
        assert incremental(path, s, e) == m.incremental(s, e), (s, e)
    first = m.history[0][1]
    assert incremental(path, "0", first) == m.incremental("0", first)  # the load itself


def corrupt_column(path, instant: str, column: str) -> int:
    """Overwrites the column's chunks in the base files instant wrote: a read that decodes them fails."""
    n = 0
    for f in Path(path).glob(f"p*/*_{instant}.parquet"):
        md = pq.ParquetFile(f).metadata
        with open(f, "r+b") as fh:
            for g in range(md.num_row_groups):
                rg = md.row_group(g)
                c = next(rg.column(i) for i in range(rg.num_columns) if rg.column(i).path_in_schema == column)
                start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
                fh.seek(start)
                fh.write(b"\xff" * c.total_compressed_size)
                n += 1
    return n


def test_ordering_field_reads_the_base_merge_columns_only(tmp_path):
    """With an ordering field a base row can outrank a log record (r4's rows lose to the
    load's), so the base file's key, sequence number, commit time and ordering columns are read,
    and only those: the load's data column chunks are overwritten before the queries."""
    path = tmp_path / "t"
    _, m = write_history(path, ordering=True)
    assert corrupt_column(path, m.history[0][0], "v") > 0
    with pytest.raises(Exception):
        HudiTable(str(path)).read()  # the snapshot decodes them: they are really unreadable
    r3, r4 = m.history[3][0], m.history[4][0]
    assert all(m.state[f"k{i:05d}"][1] != r3 for i in range(0, 3000, 14) if i % 11 != 1), "r3 loses to r1"
    assert not any(req == r4 for _, req in m.state.values()), "r4's rows lose to the load's base rows"
    for s, e in ranges(m):
        assert incremental(path, s, e) == m.incremental(s, e), (s, e)


def rewrite_base_files(path, instant: str, fn) -> int:
    n = 0
    for f in Path(path).glob(f"p*/*_{instant}.parquet"):
        pq.write_table(fn(pq.read_table(f)), f)
        n += 1
    return n


def as_of_end(path, m: Model, s: str, e: str) -> list:
    """The snapshot as of the range's end, rows of the range's commits: the streaming merge's answer."""
    req_e = next(r for r, d, _ in m.history if d == e)
    in_range = {r for r, d, _ in m.history if s < d <= e}
    t = pa.Table.from_batches(HudiTable(str(path)).read(HudiReadOptions().with_as_of_timestamp(req_e)))
    return sorted((i, v, c) for i, v, c in zip(t.column("id").to_pylist(), t.column("v").to_pylist(),
                                               t.column("_hoodie_commit_time").to_pylist()) if c in in_range)


@pytest.mark.parametrize("change", ["ordering column retyped", "base keys repeated"])
def test_base_files_the_merge_columns_cannot_decide(tmp_path, change):
    """A base file whose ordering column has another type than the table's (the full streaming
    merge casts it) or whose keys repeat (the in-memory merge) is merged whole, as snapshots
    merge it: the load's base files rewritten so, every range equals the snapshot as of its end."""
    path = tmp_path / "t"
    _, m = write_history(path, ordering=True)
    if change == "ordering column retyped":
        fn = lambda t: t.set_column(t.schema.get_field_index("ts"), pa.field("ts", pa.int32()),  # noqa: E731
                                    t.column("ts").cast(pa.int32()))
    else:
        fn = lambda t: pa.concat_tables([t, t.slice(0, 5)])  # noqa: E731
    assert rewrite_base_files(path, m.history[0][0], fn) > 0
    for s, e in ranges(m):
        want = as_of_end(path, m, s, e)
        assert incremental(path, s, e) == want, (s, e)
        if change == "ordering column retyped":
            assert want == m.incremental(s, e)
