"""The Parquet reader decodes pages as batches need them, keeping a window
of decoded entries per column that it shrinks and refills (reader.c
fill_window, column_reader.c hudi_pq_chunk_decoder). pyarrow.parquet is the
oracle: every file must read to pyarrow's table whatever the batch size, so
batches that end inside a page, span several pages, or cross from
dictionary-encoded pages to the plain pages of a dictionary fallback
(nulls, nested lists whose rows cross v1 page boundaries, row groups of
different sizes reusing one reader's buffers) are all checked value by
value.

Needs the test hook _hudi._parquet_read (python/src/parquet.c).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import _hudi

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parquet"))
import make_reader_files  # noqa: E402
from test_parquet_reader import assert_same  # noqa: E402


def ours(path, batch_size: int) -> tuple[pa.Table, list[int]]:
    reader = pa.RecordBatchReader._import_from_c_capsule(_hudi._parquet_read(str(path), batch_size=batch_size))
    batches = list(reader)
    return pa.Table.from_batches(batches, reader.schema), [len(b) for b in batches]


def expected_lengths(path, batch_size: int) -> list[int]:
    md = pq.ParquetFile(path).metadata
    rows = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
    return [min(batch_size, r - k) for r in rows for k in range(0, r, batch_size)]


GENERATED: list[str] = []


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[str]:
    if not GENERATED:
        GENERATED.extend(make_reader_files.generate(str(tmp_path_factory.mktemp("pq"))))
    return GENERATED


@pytest.mark.parametrize("batch_size", [3, 333])
@pytest.mark.parametrize("variant", sorted(make_reader_files.VARIANTS))
def test_batches_across_pages(generated, variant, batch_size):
    path = next(p for p in generated if Path(p).stem == variant)
    got, lengths = ours(path, batch_size)
    assert lengths == expected_lengths(path, batch_size)
    assert_same(got, pq.read_table(path), f"{variant}, batch {batch_size}")


def _fallback_table(n: int) -> pa.Table:
    """Strings whose dictionary outgrows a tiny dictionary page limit, so
    each chunk starts dictionary-encoded and falls back to plain; nulls
    everywhere; lists of varying length whose rows cross pages."""
    rng = np.random.default_rng(5)
    ids = rng.integers(0, n, n)
    s = pa.array([None if i % 7 == 0 else f"value-{v:08d}-" + "x" * int(v % 50) for i, v in enumerate(ids)])
    few = pa.array([None if i % 11 == 0 else f"k{v % 5}" for i, v in enumerate(ids)])
    v = pa.array([None if i % 5 == 0 else int(x) for i, x in enumerate(ids)], pa.int64())
    d = pa.array(rng.random(n))  # no nulls: the fixed-width copy path
    lists = pa.array([None if i % 13 == 0 else [int(x) + j for j in range(int(x % 9))] for i, x in enumerate(ids)],
                     pa.list_(pa.int32()))
    return pa.table({"s": s, "few": few, "v": v, "d": d, "l": lists})


@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("batch_size", [1, 64, 1000, 8192])
def test_dictionary_fallback_and_uneven_row_groups(tmp_path, version, batch_size):
    t = _fallback_table(7000)
    path = tmp_path / "f.parquet"
    # Row groups of 2500, 2500, 2000 rows through one reader (its buffers
    # are reused), pages of ~1 KiB, a 2 KiB dictionary limit.
    pq.write_table(t, path, row_group_size=2500, data_page_size=1024, dictionary_pagesize_limit=2048,
                   write_batch_size=100, data_page_version=version, compression="snappy")
    md = pq.ParquetFile(path).metadata
    encodings = set(md.row_group(0).column(0).encodings)
    assert "PLAIN" in encodings and "RLE_DICTIONARY" in encodings  # the fallback happened
    got, lengths = ours(path, batch_size)
    assert lengths == expected_lengths(path, batch_size)
    assert_same(got, pq.read_table(path), f"fallback v{version}, batch {batch_size}")


def test_one_page_chunks_in_small_batches(tmp_path):
    """A chunk in a single large page is decoded once and cut into many
    batches (the window is not shrunk until another page is needed)."""
    t = _fallback_table(20000)
    path = tmp_path / "big.parquet"
    pq.write_table(t, path, row_group_size=20000, data_page_size=1 << 30, compression="gzip")
    got, lengths = ours(path, 777)
    assert lengths == expected_lengths(path, 777)
    assert_same(got, pq.read_table(path), "one page, batch 777")


def _dictionary_types_table(n: int) -> pa.Table:
    """A column of every type a dictionary can hold: the ones assembly
    gathers from dictionary indices (strings, binary, int32/64, float,
    double, fixed-size binary, timestamps, dates) and the ones it converts
    (int8/16, decimals, which are expanded as they are decoded)."""
    rng = np.random.default_rng(11)
    k = rng.integers(0, 400, n)  # few distinct values: dictionary-encoded
    null = [i % 6 == 0 for i in range(n)]

    def arr(vals, t):
        return pa.array([None if z else x for x, z in zip(vals, null)], t)

    return pa.table({
        "s": arr([("" if x % 17 == 0 else f"s{x}-" + "y" * int(x % 23)) for x in k], pa.string()),
        "b": arr([bytes([x % 256]) * int(x % 5) for x in k], pa.binary()),
        "i32": arr([int(x) - 200 for x in k], pa.int32()),
        "i64": arr([int(x) * 1_000_003 for x in k], pa.int64()),
        "f": arr([float(x) / 3 for x in k], pa.float32()),
        "d": pa.array([float(x) / 7 for x in k]),  # no nulls
        "fsb": arr([int(x).to_bytes(6, "little") for x in k], pa.binary(6)),
        "ts": arr([int(x) * 1000 for x in k], pa.timestamp("us", tz="UTC")),
        "dt": arr([int(x) for x in k], pa.date32()),
        "i8": arr([int(x % 100) for x in k], pa.int8()),
        "i16": arr([int(x) for x in k], pa.int16()),
        "dec": arr([__import__("decimal").Decimal(int(x)) / 100 for x in k], pa.decimal128(9, 2)),
    })


@pytest.mark.parametrize("compression", ["none", "gzip"])
@pytest.mark.parametrize("batch_size", [37, 1000])
def test_dictionary_indices_of_every_type(tmp_path, compression, batch_size):
    """Windows of dictionary indices (column_reader.h dict_ids), gathered
    by assembly; a dictionary limit small enough that some chunks fall back
    to plain mid-chunk (the window's indices are then expanded); pages of
    ~1 KiB so batches end inside pages; compressed dictionaries decoded in
    place, uncompressed ones from the page. Three row groups, and a second
    file read after the first on the same thread (the reader's buffers and
    dictionaries are reused)."""
    t = _dictionary_types_table(9000)
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(t, a, row_group_size=3000, data_page_size=1024, dictionary_pagesize_limit=1500,
                   write_batch_size=64, compression=compression)
    pq.write_table(t.slice(4000), b, row_group_size=5000, compression=compression)
    enc = [set(pq.ParquetFile(a).metadata.row_group(0).column(c).encodings) for c in range(t.num_columns)]
    assert any("RLE_DICTIONARY" in e and "PLAIN" in e for e in enc)  # a fallback happened
    assert all("RLE_DICTIONARY" in e for e in enc)  # every column starts dictionary-encoded
    for path in (a, b, a):
        got, lengths = ours(path, batch_size)
        assert lengths == expected_lengths(path, batch_size)
        assert_same(got, pq.read_table(path), f"{path.name}, {compression}, batch {batch_size}")
