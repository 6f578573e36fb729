"""An append larger than one segment (hudi_c.append.segment.bytes) is written a segment at a time
into one commit, holding one segment of the input at once.

Oracles: the input rows (pyarrow) against what our reader and pyarrow's Parquet reader return, the
commit metadata's counts, the record index exercised by a later upsert (updates, not inserts),
the files on storage, and ../shared/tools/hudi_check.py on every table.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiInvalidInputError, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
SMALL = {"hudi_c.append.segment.bytes": "50000"}


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def batch(start: int, n: int, key=None) -> pa.RecordBatch:
    ids = list(range(start, start + n))
    return pa.record_batch({"id": [key(i) if key else f"k{i:06d}" for i in ids],
                            "p": [f"p{i % 3}" for i in ids],
                            "ts": pa.array([1] * n, pa.int64()),
                            "v": pa.array([float(i) for i in ids], pa.float64())})


def reader(batches, on_batch=None) -> pa.RecordBatchReader:
    schema = batches[0].schema

    def gen():
        for i, b in enumerate(batches):
            if on_batch:
                on_batch(i)
            yield b
    return pa.RecordBatchReader.from_batches(schema, gen())


def rows(path) -> list:
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return sorted(zip(t["id"].to_pylist(), t["p"].to_pylist(), t["v"].to_pylist()))


def data_files(path) -> list:
    return sorted(f for f in glob.glob(f"{path}/**/*.parquet", recursive=True) if "/.hoodie/" not in f)


def completed(path) -> list:
    return sorted(n for n in os.listdir(Path(path) / ".hoodie" / "timeline") if "_" in n and n[:1].isdigit())


def timeline(path) -> list:
    return sorted(n for n in os.listdir(Path(path) / ".hoodie" / "timeline") if n[:1].isdigit())


def leftovers(path) -> list:
    """Markers and heartbeats left behind."""
    out = []
    for sub in (".temp", ".heartbeat"):
        d = Path(path) / ".hoodie" / sub
        out += [str(p) for p in d.rglob("*") if p.is_file()] if d.exists() else []
    return out


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("rli", [True, False])
def test_segments_make_one_commit(tmp_path, table_type, rli):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=table_type,
                         record_index_enabled=rli)
    batches = [batch(i * 500, 500) for i in range(24)]
    seen_files = []
    # Streaming: by the time the last batches are read, earlier segments' files are on storage.
    r = t.append(reader(batches, lambda i: seen_files.append(len(data_files(path))) if i == 23 else None), SMALL)
    assert seen_files and seen_files[0] > 0
    assert r.num_inserts == r.num_writes == 12000 and r.partitions_written == 3
    want = sorted((b["id"][i].as_py(), b["p"][i].as_py(), b["v"][i].as_py()) for b in batches for i in range(500))
    assert rows(path) == want
    files = data_files(path)
    assert len(files) > 3  # more than one file per partition: one set per segment
    assert sum(pq.ParquetFile(f).metadata.num_rows for f in files) == 12000
    assert len([n for n in completed(path) if n.endswith(("commit", "deltacommit"))]) == 1
    check(path)
    # The index (record index or bloom filters) knows every key: an upsert of keys from the first and
    # last segments updates them.
    up = pa.table({"id": ["k000001", "k011999"], "p": ["p1", "p2"], "ts": pa.array([2, 2], pa.int64()),
                   "v": pa.array([-1.0, -2.0], pa.float64())})
    u = HudiTable(str(path)).upsert(up)
    assert (u.num_updates, u.num_inserts) == (2, 0)
    got = dict((k, v) for k, _, v in rows(path))
    assert len(got) == 12000 and got["k000001"] == -1.0 and got["k011999"] == -2.0
    check(path)


def test_duplicate_key_across_segments_leaves_the_table(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    t.append(batch(100000, 10))
    before, before_files, before_tl = rows(path), data_files(path), timeline(path)
    batches = [batch(i * 500, 500) for i in range(12)] + [batch(250, 1)]  # k000250 again, in the last segment
    with pytest.raises(HudiInvalidInputError, match="'k000250' appears twice"):
        HudiTable(str(path)).append(reader(batches), SMALL)
    # nothing of the failed append is left: no files, no instant, no markers, no heartbeat
    assert rows(path) == before and data_files(path) == before_files and timeline(path) == before_tl
    assert leftovers(path) == []
    check(path)
    # the next append goes through
    assert HudiTable(str(path)).append(reader(batches[:-1]), SMALL).num_inserts == 6000
    assert len(rows(path)) == 6010
    check(path)


def test_bad_row_in_a_later_segment_leaves_the_table(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    t.append(batch(100000, 10))
    before, before_files, before_tl = rows(path), data_files(path), timeline(path)
    bad = batch(9000, 5).to_pydict()
    bad["id"][3] = None
    batches = [batch(i * 500, 500) for i in range(12)] + [pa.record_batch(bad, schema=batch(0, 1).schema)]
    with pytest.raises(HudiInvalidInputError, match="null"):
        HudiTable(str(path)).append(reader(batches), SMALL)
    assert rows(path) == before and data_files(path) == before_files and timeline(path) == before_tl
    assert leftovers(path) == []
    check(path)


def test_bad_segment_option(tmp_path):
    t = HudiTable.create(str(tmp_path / "t"), "id")
    with pytest.raises(HudiInvalidInputError, match="hudi_c.append.segment.bytes"):
        t.append(pa.table({"id": ["a"]}), {"hudi_c.append.segment.bytes": "0"})
