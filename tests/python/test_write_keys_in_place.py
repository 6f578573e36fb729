"""Bulk inserts whose record keys are read where the input holds them.

With one string key field (no field names), no partition fields and no sort mode, the writer does
not copy the keys: it reads them from the input's own buffers (write_rows.h, key_column). These
tests drive that path where it can go wrong: batches large enough that their keys are read on
several threads, plain and large strings, several input batches, bad keys (the first bad row
named, nothing committed), and schema evolution, which replaces the input batches (the keys are
copied out first). Inputs that do not qualify (a dictionary-encoded key column) take the copying
path and must give the same table.

Oracles: the rows as built here in plain Python and pyarrow, pyarrow reading the base files'
_hoodie_record_key column, and ../shared/tools/hudi_check.py, whose record-index check maps every
snapshot key to the file group holding it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable, HudiInvalidInputError
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring

N = 100_000  # above the 65,536 rows from which a batch's keys are read on all cores


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def keys(n: int, tag: str) -> list[str]:
    # lengths vary (the in-place offsets are not one stride) and some keys share long prefixes
    return [f"{tag}-{i:07d}" + "x" * (i % 13) for i in range(n)]


def snapshot(path) -> dict:
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return {r["id"]: r for r in t.to_pylist()}


def record_keys_on_disk(path) -> list[str]:
    out = []
    for root, _, files in os.walk(path):
        if "/.hoodie" in root:
            continue
        for f in files:
            if f.endswith(".parquet"):
                out += pq.read_table(os.path.join(root, f), columns=["_hoodie_record_key", "id"]).to_pylist()
    assert all(r["_hoodie_record_key"] == r["id"] for r in out)
    return [r["id"] for r in out]


def timeline(path) -> list[str]:
    return sorted(os.listdir(os.path.join(str(path), ".hoodie", "timeline")))


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("key_type", [pa.string(), pa.large_string()])
def test_keys_read_in_place(tmp_path, kind, key_type):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type=kind)
    ids = keys(N, "a")
    data = pa.table({"id": pa.array(ids, key_type), "v": pa.array(range(N), pa.int64())})
    # three input batches of different sizes, one of them sliced (a non-zero offset)
    t.append(pa.Table.from_batches(data.to_batches(max_chunksize=70_000)[:1] +
                                   [data.slice(70_000).combine_chunks().to_batches()[0].slice(0, 20_000),
                                    data.slice(90_000).combine_chunks().to_batches()[0]]))
    got = snapshot(path)
    assert len(got) == N
    assert all(got[k]["v"] == i for i, k in enumerate(ids))
    assert sorted(record_keys_on_disk(path)) == sorted(ids)
    check(path)


@pytest.mark.parametrize("bad", [None, ""])
def test_bad_keys_name_the_first_row(tmp_path, bad):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type="mor")
    t.append(pa.table({"id": ["k1"], "v": [1]}))
    before = timeline(path)
    ids = keys(N, "b")
    ids[30_000] = bad
    ids[N // 2 + 5] = bad  # in a later thread's share, reached sooner there
    with pytest.raises(HudiInvalidInputError, match="'id' is %s in row 30000" % ("null" if bad is None else "empty")):
        t.append(pa.table({"id": pa.array(ids, pa.string()), "v": pa.array(range(N), pa.int64())}))
    assert timeline(path) == before
    assert list(snapshot(path)) == ["k1"]
    check(path)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_schema_evolution_keeps_the_keys(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", table_type=kind)
    t.append(pa.table({"id": ["k1", "k2"], "v": pa.array([1, 2], pa.int32())}))
    ids = keys(N, "c")
    # columns in another order and a new one: the writer rebuilds every input batch
    t2 = pa.table({"extra": pa.array([i % 2 == 0 for i in range(N)]), "v": pa.array(range(N), pa.int32()),
                   "id": pa.array(ids, pa.string())})
    HudiTable(str(path)).append(t2)
    assert HudiTable(str(path)).get_schema().names == ["id", "v", "extra"]
    got = snapshot(path)
    assert len(got) == N + 2
    assert all(got[k]["v"] == i and got[k]["extra"] == (i % 2 == 0) for i, k in enumerate(ids))
    assert got["k1"]["extra"] is None
    assert sorted(record_keys_on_disk(path)) == sorted(ids + ["k1", "k2"])
    check(path)


def test_dictionary_keys_take_the_copying_path(tmp_path):
    ids = keys(N, "d")
    for name, col in [("plain", pa.array(ids, pa.string())),
                      ("dict", pa.array(ids, pa.string()).dictionary_encode())]:
        path = tmp_path / name
        HudiTable.create(str(path), "id", table_type="mor").append(
            pa.table({"id": col, "v": pa.array(range(N), pa.int64())}))
        got = snapshot(path)
        assert len(got) == N and all(got[k]["v"] == i for i, k in enumerate(ids))
        assert sorted(record_keys_on_disk(path)) == sorted(ids)
        check(path)
