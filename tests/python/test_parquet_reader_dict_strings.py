"""Dictionary-encoded strings gathered into a batch (assemble.c
leaf_bytes_dict): entries of up to 32 bytes are copied 32 bytes at a time
where the dictionary and the output both have that much room left, others
(longer entries, entries near the dictionary's end, the batch's last
values) with an exact copy. pyarrow.parquet is the oracle: every file must
read to pyarrow's table value by value whatever the batch size.

Needs the test hook _hudi._parquet_read (python/src/parquet.c).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_parquet_reader_pages import expected_lengths, ours  # noqa: E402
from test_parquet_reader import assert_same  # noqa: E402


def _strings(n: int, distinct: int, seed: int) -> list:
    """Lengths 0..80 around the 32-byte copy (31, 32, 33 included); each
    value's bytes differ from its neighbours' so an overrun shows."""
    rng = np.random.default_rng(seed)
    lengths = [0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 64, 80]
    vals = []
    for d in range(distinct):
        ln = lengths[d % len(lengths)] if d < len(lengths) else int(rng.integers(0, 81))
        vals.append("".join(chr(ord("a") + (d + i) % 26) for i in range(ln)))
    k = rng.integers(0, distinct, n)
    return [None if i % 7 == 3 else vals[x] for i, x in enumerate(k)]


@pytest.mark.parametrize("distinct", [1, 2, 3, 12, 500])
@pytest.mark.parametrize("batch_size", [1, 5, 1000, 65536])
def test_dictionary_strings_match_pyarrow(tmp_path, distinct, batch_size):
    n = 3000
    t = pa.table({
        "s": pa.array(_strings(n, distinct, 5), pa.string()),
        "b": pa.array([None if v is None else v.encode()[::-1] for v in _strings(n, distinct, 6)], pa.binary()),
        # one short value only: every entry lies within 32 bytes of the dictionary's end
        "one": pa.array(["x" * (distinct % 33)] * n, pa.string()),
    })
    path = tmp_path / "d.parquet"
    pq.write_table(t, path, row_group_size=1200, data_page_size=512, compression="gzip")
    md = pq.ParquetFile(path).metadata
    assert all("RLE_DICTIONARY" in md.row_group(0).column(c).encodings for c in range(t.num_columns))
    got, lengths = ours(path, batch_size)
    assert lengths == expected_lengths(path, batch_size)
    assert_same(got, pq.read_table(path), f"distinct {distinct}, batch {batch_size}")
