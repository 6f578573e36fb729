"""A handle opened with read options (read-optimized mode, an as-of time, an incremental query)
writes as any other: its writes plan around, select from and merge with the latest snapshot,
not with what the handle reads. Before, an upsert through a read-optimized handle of a MOR table
merged from the base files alone and brought rows deleted in log files back.

Oracles: a plain-Python model of the rows; the conformance checker
../shared/tools/hudi_check.py (the record index against the snapshot's keys).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def rows(ids, v) -> pa.Table:
    return pa.table({"id": [f"k{i:04d}" for i in ids], "ts": pa.array([v] * len(ids), pa.int64()),
                     "v": pa.array([v * 1000 + i for i in ids], pa.int64()),
                     "region": [["eu", "us", "ap"][i % 3] for i in ids]})


def snapshot(path) -> dict:
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return dict(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("handle", ["read_optimized", "as_of", "incremental"])
@pytest.mark.parametrize("rli", [True, False], ids=["rli", "bloom"])
def test_writes_through_a_reading_handle(tmp_path, table_type, handle, rli):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region",
                         table_type=table_type, record_index_enabled=rli)
    first = t.append(rows(range(60), 1))
    model = {f"k{i:04d}": 1000 + i for i in range(60)}
    t.upsert(rows(range(40, 80), 2))
    model.update({f"k{i:04d}": 2000 + i for i in range(40, 80)})
    t.delete_keys([f"k{i:04d}" for i in range(10)])
    for i in range(10):
        del model[f"k{i:04d}"]
    opts = {"read_optimized": {"hoodie.read.use.read_optimized.mode": "true"},
            "as_of": {"hoodie.read.as.of.timestamp": first.requested_time},
            "incremental": {"hoodie.read.query.type": "incremental",
                            "hoodie.read.start.timestamp": first.completion_time}}[handle]
    h = HudiTable(str(path), opts)
    r = h.upsert(rows([5, 15, 45, 90], 3))
    assert (r.num_inserts, r.num_updates) == (2, 2)
    model.update({f"k{i:04d}": 3000 + i for i in (5, 15, 45, 90)})
    h.delete("v >= 2070 AND v < 3000")
    for i in range(70, 80):
        del model[f"k{i:04d}"]
    h.update("id = 'k0050'", {"v": -1})
    model["k0050"] = -1
    h.delete_keys(["k0011", "k0041"])
    del model["k0011"], model["k0041"]
    assert snapshot(path) == model
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
