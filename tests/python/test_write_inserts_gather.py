"""New rows of keyed writes, copied into base files a chunk and a column at a time.

An upsert's new keys go into the partition's small file groups (their base file rewritten with
the new rows after the stored ones) or into new base files; src/table/write_gather.c copies them
8192 rows at a time, one column at a time, lending the input's buffers when a chunk is one run
of one input batch, converting columns whose input type differs from the stored one. These tests
write more new rows than one chunk holds, in runs and shuffled, with and without conversions,
into a small file whose stored rows are copied as runs (the schema unchanged) and into one whose
rows go through the batch builder (the schema evolved), and into new files.

Oracles: pyarrow reads each written base file (row order, every value, the meta columns, the
footer's key range); the expected table is built with pyarrow alone; hudi_check.py must pass.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def rows(ids, version: int, p: str = "a", narrow: bool = False) -> pa.Table:
    ids = np.asarray(ids)
    n = len(ids)
    amount = (ids * 7 + version).astype(np.int64)
    return pa.table({
        "id": pa.array([f"k{i:08d}" for i in ids]),
        "p": pa.array([p] * n),
        "version": pa.array(np.full(n, version, np.int32)),
        # int32 input into a long column: copied through the conversion path
        "amount": pa.array(amount.astype(np.int32)) if narrow else pa.array(amount),
        "note": pa.array([None if i % 11 == 0 else f"note {i} v{version}" for i in ids]),
    })


def files_of(path, instant: str):
    return sorted(f for f in glob.glob(str(Path(path) / "**" / "*.parquet"), recursive=True)
                  if os.path.basename(f).endswith(f"_{instant}.parquet"))


def check_new_rows(f: str, instant: str, new_ids, stored_rows: int, expect: pa.Table, seq0: int) -> None:
    """The file's rows after its first stored_rows are the new keys in key order, with this
    commit's meta values, the sequence numbers <instant>_<task>_<seq0>.. in file order (the
    rows updated in place number from 0), and the values of `expect` (by id); the footer's key
    range covers every key of the file."""
    got = pq.read_table(f)
    name = os.path.basename(f)
    assert got["_hoodie_file_name"].to_pylist() == [name] * got.num_rows
    keys = got["_hoodie_record_key"].to_pylist()
    assert keys == got["id"].to_pylist()
    new = got.slice(stored_rows)
    want_keys = sorted(f"k{i:08d}" for i in new_ids)
    assert new["id"].to_pylist() == want_keys
    assert set(new["_hoodie_commit_time"].to_pylist()) == {instant}
    seq = new["_hoodie_commit_seqno"].to_pylist()
    task = seq[0].split("_")[1]
    assert seq == [f"{instant}_{task}_{n}" for n in range(seq0, seq0 + len(seq))]
    by_id = {r["id"]: r for r in expect.to_pylist()}
    for r in new.select([c for c in new.column_names if c not in META]).to_pylist():
        assert r == by_id[r["id"]]
    md = pq.read_metadata(f).metadata
    assert md[b"hoodie_min_record_key"].decode() == min(keys)
    assert md[b"hoodie_max_record_key"].decode() == max(keys)


def expected(*tables) -> pa.Table:
    """Later tables' rows win by id."""
    out = {}
    for t in tables:
        for r in t.to_pylist():
            out[r["id"]] = r
    return pa.Table.from_pylist([out[k] for k in sorted(out)], schema=tables[-1].schema)


@pytest.mark.parametrize("evolve", [False, True], ids=["runs", "evolved"])
@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_small_file_takes_new_rows(tmp_path, evolve, order):
    """A MOR table's one small base file is rewritten with 20,000 new keys after its rows."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="mor")
    base = rows(np.arange(0, 30_000, 3), 1)
    t.append(base)
    upd = np.arange(0, 30_000, 3)[::97]
    ins = np.arange(30_000, 50_000)
    batch = pa.concat_tables([rows(upd, 2), rows(ins, 2, narrow=False)])
    if order == "shuffled":
        batch = batch.take(pa.array(np.random.default_rng(3).permutation(batch.num_rows)))
    if evolve:  # a new nullable column: stored rows go through the builder, not as runs
        batch = batch.append_column("extra", pa.array([f"x{i}" for i in range(batch.num_rows)]))
    r = HudiTable(str(path)).upsert(batch)
    assert (r.num_updates, r.num_inserts) == (len(upd), len(ins))
    [f] = files_of(path, r.requested_time)
    if evolve:
        base = base.append_column("extra", pa.nulls(base.num_rows, pa.string()))
    want = expected(base, batch)
    check_new_rows(f, r.requested_time, ins, base.num_rows, want, len(upd))
    got = pa.Table.from_batches(HudiTable(str(path)).read()).sort_by("id")
    assert got.select(want.column_names).equals(want.select(want.column_names))
    check(path)


def test_new_files_take_new_rows_converted(tmp_path):
    """With no small file, a partitioned table's 25,000 new keys (int32 input into a long column:
    converted) go into new base files, each partition's in key order."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", partition_fields="p", table_type="mor")
    opts = {"hoodie.parquet.small.file.limit": "0"}
    base = pa.concat_tables([rows(np.arange(0, 1000), 1, "a"), rows(np.arange(1000, 2000), 1, "b")])
    t.append(base, opts)
    ins_a, ins_b = np.arange(2000, 19_000), np.arange(19_000, 27_000)
    batch = pa.concat_tables([rows(ins_a, 2, "a", narrow=True), rows(ins_b, 2, "b", narrow=True),
                              rows(np.arange(0, 1000, 50), 2, "a", narrow=True)])
    batch = batch.take(pa.array(np.random.default_rng(5).permutation(batch.num_rows)))
    r = HudiTable(str(path)).upsert(batch, opts)
    assert (r.num_inserts, r.num_updates) == (len(ins_a) + len(ins_b), 20)
    files = files_of(path, r.requested_time)
    assert [Path(f).parent.name for f in files] == ["p=a", "p=b"]
    want = expected(base, batch.cast(base.schema))
    for f, ins, part in zip(files, (ins_a, ins_b), ("p=a", "p=b")):
        check_new_rows(f, r.requested_time, ins, 0, want, 0)
        assert set(pq.read_table(f)["_hoodie_partition_path"].to_pylist()) == {part}
    got = pa.Table.from_batches(HudiTable(str(path)).read()).sort_by("id")
    assert got.select(want.column_names).equals(want)
    check(path)
