"""Bulk insert (append) row order, chunking and the record index at sizes that take the fast paths.

Oracles: Java's String.compareTo order computed here from UTF-16 code units, pyarrow reading
the written Parquet back, and the conformance checker ../shared/tools/hudi_check.py (which
checks that the record index maps every key to its file group).
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

from hudi import HudiInvalidInputError, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def check(table_dir) -> str:
    p = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert "0 failed" in p.stdout, p.stdout + p.stderr
    return p.stdout


def java_key(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def base_files(path) -> list:
    return sorted(glob.glob(os.path.join(str(path), "**", "*.parquet"), recursive=True))


@pytest.mark.parametrize("mode", ["GLOBAL_SORT", "NONE"])
def test_keys_in_java_order(tmp_path, mode):
    # Short keys, a NUL byte, non-ASCII in and past the first 8 bytes, and a
    # supplementary character (UTF-16 surrogates sort below U+E000..U+FFFF,
    # unlike UTF-8 byte order). NONE (the default) keeps the input order;
    # the footer's key range is in Java order either way.
    keys = ["ab", "ab\x00", "a", "abcdefgh", "abcdefgh\u00e9", "abcdefghz", "abcdefgi", "\u00e9t\u00e9",
            "\uffff", "\U0001f600", "\ue000x", "Z", "zz", "abcdefg", "abcdefg\U0001f600", "abcdefg\uffff"]
    t = HudiTable.create(str(tmp_path / "t"), "id")
    t.append(pa.table({"id": keys, "v": list(range(len(keys)))}), {"hoodie.bulkinsert.sort.mode": mode})
    (f,) = base_files(tmp_path / "t")
    got = pq.read_table(f).column("_hoodie_record_key").to_pylist()
    assert got == (sorted(keys, key=java_key) if mode == "GLOBAL_SORT" else keys)
    md = pq.read_metadata(f).metadata
    assert md[b"hoodie_min_record_key"].decode() == min(keys, key=java_key)
    assert md[b"hoodie_max_record_key"].decode() == max(keys, key=java_key)
    check(tmp_path / "t")


@pytest.mark.parametrize("keys", [["a", "b", "a"], ["x", "y", "y", "y", "z"], ["\u00e9", "e", "\u00e9"]])
def test_duplicate_keys_refused_non_partitioned(tmp_path, keys):
    t = HudiTable.create(str(tmp_path / "d"), "id")
    before = sorted(os.listdir(tmp_path / "d" / ".hoodie" / "timeline"))
    with pytest.raises(HudiInvalidInputError, match="appears twice"):
        t.append(pa.table({"id": keys, "v": list(range(len(keys)))}))
    assert sorted(os.listdir(tmp_path / "d" / ".hoodie" / "timeline")) == before


@pytest.mark.parametrize("mode", ["GLOBAL_SORT", "NONE"])
def test_many_rows_many_batches(tmp_path, mode):
    # More rows than one 8192-row chunk and the parallel record-index
    # threshold, in several input batches, with nulls, strings and a
    # dictionary column; everything must come back in key order (sorting
    # mode) or input order (NONE).
    n = 50_000
    rng = np.random.default_rng(7)
    ids = [f"k{x:08d}" for x in rng.permutation(n)]
    amount = pa.array([None if i % 7 == 0 else float(i) / 3 for i in range(n)])
    name = pa.array([None if i % 11 == 0 else "n" * (i % 13) for i in range(n)])
    cat = pa.array(["red", "green", "blue"] * (n // 3) + ["red"] * (n % 3)).dictionary_encode()
    ts = pa.array(np.arange(n, dtype=np.int64) * 1_000_000, pa.timestamp("us", tz="UTC"))
    data = pa.table({"id": ids, "seq": pa.array(np.arange(n, dtype=np.int64)), "amount": amount,
                     "name": name, "cat": cat, "ts": ts})
    batches = data.to_batches(max_chunksize=17_000)
    assert len(batches) > 2
    t = HudiTable.create(str(tmp_path / "m"), "id")
    r = t.append(pa.Table.from_batches(batches), {"hoodie.bulkinsert.sort.mode": mode})
    assert r.num_writes == n
    files = base_files(tmp_path / "m")
    got = pa.concat_tables([pq.read_table(f) for f in files])
    order = sorted(range(n), key=lambda i: ids[i]) if mode == "GLOBAL_SORT" else list(range(n))
    want = data.take(pa.array(order))
    assert got.column("_hoodie_record_key").to_pylist() == want.column("id").to_pylist()
    for c in ["id", "seq", "amount", "name", "ts"]:
        assert got.column(c).to_pylist() == want.column(c).to_pylist(), c
    assert got.column("cat").cast(pa.string()).to_pylist() == want.column("cat").cast(pa.string()).to_pylist()
    seqno = got.column("_hoodie_commit_seqno").to_pylist()
    assert seqno[0].endswith("_0_0") and seqno[-1].endswith(f"_0_{n - 1}")
    assert set(got.column("_hoodie_file_name").to_pylist()) == {os.path.basename(files[0])}
    out = check(tmp_path / "m")
    assert f"maps all {n} snapshot keys" in out, out
    assert sum(b.num_rows for b in HudiTable(str(tmp_path / "m")).read()) == n
