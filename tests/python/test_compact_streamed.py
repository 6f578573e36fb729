"""Compaction of MERGE_ON_READ tables without an ordering field (commit-time ordering): the base
file is streamed batch by batch and the logs' latest records written after it, file groups on
several threads (compact.c, "the streamed merge").

Oracles: the rows the commits should leave, computed with pyarrow alone (base, then each upsert
replacing its keys, each delete removing them); pyarrow reading the new base files directly; the
snapshot read before the compaction (every column but _hoodie_file_name); the conformance checker
../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
COLS = ["chunk_id", "doc", "text", "embedding"]


def chunks(ids: np.ndarray, version: int) -> pa.Table:
    rng = np.random.default_rng(version * 7919 + len(ids))
    emb = rng.standard_normal((len(ids), 8), dtype=np.float32)
    return pa.table({
        "chunk_id": pa.array([f"c{i:06d}" for i in ids]),
        "doc": pa.array((ids // 10).astype(np.int64)),
        "text": pa.array([f"text {i} v{version}" * (1 + i % 5) for i in ids]),
        "embedding": pa.array(list(emb), pa.list_(pa.float32())),
    })


def replace(table: pa.Table, keys: pa.Array, new: pa.Table | None) -> pa.Table:
    kept = table.filter(pc.invert(pc.is_in(table["chunk_id"], value_set=keys)))
    return pa.concat_tables([kept, new]) if new is not None else kept


SCHEMA = pa.schema([("chunk_id", pa.string()), ("doc", pa.int64()), ("text", pa.string()),
                    ("embedding", pa.list_(pa.float32()))])


def sort(t: pa.Table) -> pa.Table:
    """The data columns in key order; the list type as pyarrow names it (the files store Hudi's
    2-level list, whose element pyarrow calls `array`)."""
    return t.select(COLS).cast(SCHEMA).sort_by("chunk_id").combine_chunks()


@pytest.mark.parametrize("parallelism", ["1", "2"])
def test_streamed_compaction_matches_pyarrow(tmp_path: Path, parallelism: str) -> None:
    path = tmp_path / "t"
    n = 30_000
    t = HudiTable.create(str(path), "chunk_id", table_type="mor")
    base = chunks(np.arange(n), 0)
    # Two bulk inserts: two file groups, each several read batches long.
    t.append(base.slice(0, n // 2), {"hoodie.parquet.small.file.limit": "0"})
    t.append(base.slice(n // 2), {"hoodie.parquet.small.file.limit": "0"})
    expected = base
    rng = np.random.default_rng(5)
    live = np.arange(n)
    for version in range(1, 4):
        # Updates of live keys only: a deleted key written again is an insert, which goes to a new
        # file group, not into these groups' logs.
        ids = np.sort(rng.choice(live, 500, replace=False))
        up = chunks(ids, version)
        t.upsert(up)
        expected = replace(expected, up["chunk_id"], up)
        gone = np.sort(rng.choice(np.setdiff1d(live, ids), 50, replace=False))
        live = np.setdiff1d(live, gone)
        keys = [f"c{i:06d}" for i in gone]
        t.delete_keys(keys)
        expected = replace(expected, pa.array(keys), None)
    before = pa.Table.from_batches(t.read()).drop_columns(["_hoodie_file_name"]).sort_by("chunk_id")
    assert before.num_rows == expected.num_rows

    r = t.compact({"hoodie.compact.parallelism": parallelism})
    assert r.num_file_groups == 2
    assert r.num_log_files == 12
    assert r.num_records == expected.num_rows

    after = pa.Table.from_batches(HudiTable(str(path)).read())
    assert sort(after).equals(sort(expected))
    assert after.drop_columns(["_hoodie_file_name"]).sort_by("chunk_id").equals(before)
    # The new base files, read by pyarrow alone, hold exactly the expected rows.
    new_files = sorted(path.glob(f"*_{r.requested_time}.parquet"))
    assert len(new_files) == 2
    on_disk = pa.concat_tables([pq.read_table(f) for f in new_files])
    assert sort(on_disk).equals(sort(expected))
    for f in new_files:
        names = pq.read_table(f, columns=["_hoodie_file_name"])["_hoodie_file_name"].unique().to_pylist()
        assert names == [f.name]
    check = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_parallelism_option_checked(tmp_path: Path) -> None:
    t = HudiTable.create(str(tmp_path / "t"), "chunk_id", table_type="mor")
    t.append(chunks(np.arange(10), 0))
    t.upsert(chunks(np.arange(3), 1))
    with pytest.raises(Exception, match="hoodie.compact.parallelism"):
        t.compact({"hoodie.compact.parallelism": "0"})
    assert t.compact({"hoodie.compact.parallelism": "3"}).num_records == 10
