"""list<float32> columns (embeddings) through the Parquet reader and the
table read.

The reader has fast paths for list leaves: a batch whose definition levels
are all the maximum (no null list, no empty list, no null element) skips
the def levels and builds offsets from the repetition levels alone, a block
of levels at a time (assemble.c); RLE level runs are filled directly
(rle.c). The table read copies selected rows of list columns into exact
buffers (read_take.c) when log records are merged. pyarrow is the oracle:
files with and without nulls, empty lists and null elements, 2- and
3-level lists, many pages, several row groups, v1 and v2 pages, PLAIN and
dictionary encodings, read at batch sizes that end inside pages and lists.
Tables written by our writer are checked with ../shared/tools/hudi_check.py.

Needs the test hook _hudi._parquet_read (python/src/parquet.c).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable, HudiTableBuilder, _hudi

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parquet"))
from hudi_fixtures import FIXTURES  # noqa: E402
from test_parquet_reader import assert_same  # noqa: E402

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"
DIM = 24


def ours(path, batch_size: int) -> pa.Table:
    reader = pa.RecordBatchReader._import_from_c_capsule(_hudi._parquet_read(str(path), batch_size=batch_size))
    return pa.Table.from_batches(list(reader), reader.schema)


def embeddings(rng, n: int, shape: str, value_type=pa.float32(), null_elements: bool = True) -> pa.Array:
    """n lists: fixed DIM floats ('dense'), or with null lists, empty lists,
    null elements (unless null_elements is False) and varying lengths mixed
    in ('ragged')."""
    if shape == "dense":
        flat = pa.array(rng.standard_normal(n * DIM).astype(np.float32), type=value_type)
        return pa.ListArray.from_arrays(pa.array(np.arange(0, n * DIM + 1, DIM, dtype=np.int32)), flat)
    rows = []
    for i in range(n):
        r = rng.integers(0, 10)
        if r == 0:
            rows.append(None)
        elif r == 1:
            rows.append([])
        else:
            k = int(rng.integers(1, 2 * DIM))
            v = [float(x) for x in rng.standard_normal(k).astype(np.float32)]
            if r == 2 and null_elements:
                v[int(rng.integers(0, k))] = None
            rows.append(v)
    return pa.array(rows, type=pa.list_(pa.field("element", value_type)))


@pytest.mark.parametrize("shape", ["dense", "ragged"])
@pytest.mark.parametrize("dictionary", [False, True])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("compliant", [True, False])
def test_float_lists_match_pyarrow(tmp_path, shape, dictionary, version, compliant):
    rng = np.random.default_rng(7)
    n = 3000
    emb = embeddings(rng, n, shape)
    if dictionary:
        # Few distinct floats: pyarrow keeps the dictionary encoding.
        flat = pa.array(rng.integers(0, 50, len(emb.values)).astype(np.float32))
        flat = pa.compute.if_else(emb.values.is_null(), pa.scalar(None, pa.float32()), flat)
        emb = pa.ListArray.from_arrays(emb.offsets, flat, mask=emb.is_null())
    t = pa.table({"id": pa.array(np.arange(n, dtype=np.int64)), "embedding": emb})
    path = tmp_path / "f.parquet"
    pq.write_table(t, path, row_group_size=1100, data_page_size=2048, use_dictionary=dictionary,
                   data_page_version=version, use_compliant_nested_type=compliant, compression="snappy")
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 3
    encodings = md.row_group(0).column(1).encodings
    assert ("RLE_DICTIONARY" in encodings or "PLAIN_DICTIONARY" in encodings) == dictionary
    want = pq.read_table(path)
    for batch in (1, 7, 500, 65536):
        assert_same(ours(path, batch), want, f"{shape} dict={dictionary} v{version} batch {batch}")


def test_all_null_and_all_empty_batches(tmp_path):
    """Batches where no entry is a defined element: the all-defined fast
    path must not apply."""
    t = pa.table({"e": pa.array([None] * 50 + [[]] * 50 + [[1.5, 2.5]] * 50 + [[None]] * 50,
                                type=pa.list_(pa.float32()))})
    path = tmp_path / "f.parquet"
    pq.write_table(t, path, data_page_size=64)
    for batch in (1, 49, 50, 51, 1000):
        assert_same(ours(path, batch), pq.read_table(path), f"batch {batch}")


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def data(rng, ids, shape: str, tag: str) -> pa.Table:
    return pa.table({"chunk_id": pa.array([f"c{i:06d}" for i in ids]),
                     "tag": pa.array([tag] * len(ids)),
                     # Our writer stores list elements as required (2-level lists).
                     "embedding": embeddings(rng, len(ids), shape, null_elements=False)})


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("shape", ["dense", "ragged"])
def test_table_read_after_upserts(tmp_path, kind, shape):
    """Upserted rows replace base rows: with MOR the read merges log records
    into the base file's batches and copies the kept rows (read_take.c)."""
    rng = np.random.default_rng(3)
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "chunk_id", table_type=kind)
    base = data(rng, range(2000), shape, "v0")
    t.append(base)
    model = {r["chunk_id"]: r for r in base.to_pylist()}
    for round_ in (1, 2):
        ids = sorted(rng.choice(2000, 300, replace=False).tolist())
        up = data(rng, ids, shape, f"v{round_}")
        t.upsert(up)
        model.update({r["chunk_id"]: r for r in up.to_pylist()})
    check(path)
    if kind == "mor":
        assert list(path.rglob("*.log.*")), "the upserts should have written log files"
    got = pa.Table.from_batches(HudiTableBuilder.from_base_uri(str(path)).build().read())
    assert got.schema.field("embedding").type == pa.list_(pa.field("element", pa.float32())) or \
        pa.types.is_list(got.schema.field("embedding").type)
    rows = sorted(got.select(["chunk_id", "tag", "embedding"]).to_pylist(), key=lambda r: r["chunk_id"])
    want = [model[k] for k in sorted(model)]
    assert len(rows) == len(want)
    for g, w in zip(rows, want):
        assert g == w, (g["chunk_id"], g["tag"], w["tag"])
