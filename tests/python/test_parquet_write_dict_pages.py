"""The Parquet writer's dictionary fallback and page sizes, as parquet-java
(which writes Hudi's files through Spark) decides them:

- at the end of a column chunk's first page the dictionary is kept only if
  the page's encoded indices plus the dictionary are smaller than the page's
  values PLAIN (DictionaryValuesWriter.isCompressionSatisfying); otherwise
  the chunk is PLAIN from its first page, with no dictionary page. Unique
  keys, seqnos and free text fall back; commit times, partition paths, file
  names and categories stay RLE_DICTIONARY. Each chunk decides afresh.
- pages are cut on the PLAIN size of their values (plus levels), so no data
  page grows far past the page size, in dictionary mode, across the
  fallback, or for list<float> embeddings.

Oracles: pyarrow reads every file to the input table and reports the chunk
encodings; page headers are walked with tests/parquet/pq_pages.py (a Thrift
parser of our own, independent of hudi-c's reader), and hudi-c's reader
(test hook _hudi._parquet_read) reads the same values.
"""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable, _hudi

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parquet"))
import pq_pages  # noqa: E402
from test_write_append import check as hudi_check  # noqa: E402

UNIQUE = ["_hoodie_commit_seqno", "_hoodie_record_key", "text"]
FEW = ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "category"]


def hudi_like(n: int, seed: int = 7, dim: int = 384) -> pa.Table:
    rng = np.random.default_rng(seed)
    words = np.array(["lorem", "ipsum", "dolor", "sit", "amet", "hudi", "parquet", "page", "dictionary", "x"])
    text = [" ".join(words[rng.integers(0, len(words), int(k))]) + f" #{i}"
            for i, k in enumerate(rng.integers(3, 40, n))]
    keys = [f"{a:016x}-{b:016x}" for a, b in zip(rng.integers(0, 2**63, n), rng.integers(0, 2**63, n))]
    emb = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * dim, dtype=np.float32)), dim)
    return pa.table({
        "_hoodie_commit_time": ["20260101000000000"] * n,
        "_hoodie_commit_seqno": [f"20260101000000000_0_{i}" for i in range(n)],
        "_hoodie_record_key": keys,
        "_hoodie_partition_path": [f"region={r}" for r in rng.integers(0, 4, n)],
        "_hoodie_file_name": ["f0a1b2c3-0_0-1-2_20260101000000000.parquet"] * n,
        "category": pa.array([None if c == 9 else f"cat{c}" for c in rng.integers(0, 10, n)]),
        "text": text,
        "score": rng.integers(0, 7, n),
        "embedding": emb.cast(pa.list_(pa.float32())),
    })


def ours(path) -> pa.Table:
    reader = pa.RecordBatchReader._import_from_c_capsule(_hudi._parquet_read(str(path), batch_size=4096))
    return pa.Table.from_batches(list(reader), reader.schema)


def check_pages(path, page_bytes: int, names: list[str]) -> dict:
    """Every data page within 1.25x the page size (rows here are far below
    it); returns {column: [(has_dictionary_page, [data page encodings])] per chunk}."""
    allp = pq_pages.pages(path)
    out: dict = {}
    for (g, j), ps in sorted(allp.items()):
        for p in ps:
            if p.is_data:
                assert p.uncompressed_size <= 1.25 * page_bytes, (names[j], g, p)
        out.setdefault(names[j], []).append(
            (ps[0].type == pq_pages.DICTIONARY_PAGE, [p.encoding for p in ps if p.is_data]))
    return out


def leaf_names(path) -> list[str]:
    md = pq.ParquetFile(path).metadata
    return [md.row_group(0).column(j).path_in_schema.split(".")[0] for j in range(md.num_columns)]


@pytest.mark.parametrize("v2,codec", [(False, "snappy"), (True, "zstd"), (False, "gzip")])
def test_unique_columns_fall_back_at_first_page(tmp_path, v2, codec):
    t = hudi_like(12000)
    path = tmp_path / "f.parquet"
    page = 32 * 1024
    _hudi._parquet_write(t, str(path), {"page_bytes": page, "row_group_rows": 5000, "codec": codec,
                                        "data_page_v2": v2})
    got = pq.read_table(path)
    assert got.equals(t.cast(got.schema))
    assert ours(path).equals(got)
    md = pq.ParquetFile(path).metadata
    assert md.num_row_groups == 3
    names = leaf_names(path)
    chunks = check_pages(path, page, names)
    for col in UNIQUE:
        for g, (has_dict, encs) in enumerate(chunks[col]):
            # every chunk decides for itself and falls back at its first page
            assert not has_dict and set(encs) == {"PLAIN"}, (col, g, encs)
            assert "RLE_DICTIONARY" not in md.row_group(g).column(names.index(col)).encodings
        # pages are not fragmented either: all but a chunk's last page are at least half full
        sizes = [p.uncompressed_size for (g, j), ps in pq_pages.pages(path).items() if names[j] == col
                 for p in ps[:-1] if p.is_data]
        assert sizes and min(sizes) >= page // 2, (col, sizes)
    for col in FEW:
        for g, (has_dict, encs) in enumerate(chunks[col]):
            assert has_dict and set(encs) == {"RLE_DICTIONARY"}, (col, g, encs)
            assert "RLE_DICTIONARY" in md.row_group(g).column(names.index(col)).encodings
    # int64 0..6 stays a dictionary; the embeddings (random floats) fall back
    assert all(d and set(e) == {"RLE_DICTIONARY"} for d, e in chunks["score"])
    assert all(not d and set(e) == {"PLAIN"} for d, e in chunks["embedding"])


def test_dictionary_that_pays_at_first_then_outgrows_its_limit(tmp_path):
    """A column whose values repeat 8 times each: the first page keeps the
    dictionary; later the dictionary passes its limit and the chunk goes on
    PLAIN (the dictionary-encoded pages stay)."""
    n = 40000
    t = pa.table({"v": [f"value-{i // 8:010d}" for i in range(n)]})
    path = tmp_path / "f.parquet"
    page = 16 * 1024
    _hudi._parquet_write(t, str(path), {"page_bytes": page, "dictionary_page_bytes": 32 * 1024})
    assert pq.read_table(path).equals(t)
    assert ours(path).equals(t)
    [(has_dict, encs)] = check_pages(path, page, ["v"])["v"]
    assert has_dict and encs[0] == "RLE_DICTIONARY" and encs[-1] == "PLAIN", encs
    assert encs == sorted(encs, key=lambda e: e == "PLAIN")  # dictionary pages first, then PLAIN


def test_small_chunk_in_one_page_falls_back_too(tmp_path):
    """A chunk smaller than one page is judged when it ends."""
    t = pa.table({"k": [f"key-{i:06d}" for i in range(500)], "c": ["same"] * 500})
    path = tmp_path / "f.parquet"
    _hudi._parquet_write(t, str(path), {})
    assert pq.read_table(path).equals(t)
    chunks = check_pages(path, 1 << 20, ["k", "c"])
    assert chunks["k"] == [(False, ["PLAIN"])]
    assert chunks["c"] == [(True, ["RLE_DICTIONARY"])]


def test_hudi_base_file_pages_stay_near_page_size(tmp_path):
    """Through the table writer with Hudi's default 1 MiB page size: the
    meta columns' pages (the read benchmark once had a 1.9 MB
    _hoodie_commit_seqno page) and the embeddings' pages stay under 1.25 MiB,
    the unique meta columns are PLAIN and the low-cardinality ones stay
    dictionary-encoded."""
    n = 60000
    t = hudi_like(n, seed=11, dim=64).drop_columns([c for c in hudi_like(1).column_names if c.startswith("_hoodie")])
    t = t.append_column("id", pa.array([f"id-{i:08d}" for i in range(n)]))
    t = t.append_column("region", pa.array([f"r{i % 3}" for i in range(n)]))
    tbl = HudiTable.create(str(tmp_path / "t"), "id", partition_fields=["region"], record_index_enabled=False)
    tbl.append(t, {"hoodie.parquet.small.file.limit": "0"})
    files = sorted(glob.glob(os.path.join(str(tmp_path / "t"), "**", "*.parquet"), recursive=True))
    assert files
    rows = 0
    for f in files:
        names = leaf_names(f)
        chunks = check_pages(f, 1 << 20, names)
        rows += pq.read_table(f).num_rows
        for col in ("_hoodie_commit_seqno", "_hoodie_record_key", "text"):
            assert all(not d and set(e) == {"PLAIN"} for d, e in chunks[col]), (col, chunks[col])
        for col in ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "category"):
            assert all(d and set(e) == {"RLE_DICTIONARY"} for d, e in chunks[col]), (col, chunks[col])
    assert rows == n
    hudi_check(tmp_path / "t")
