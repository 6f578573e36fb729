"""Snapshot reads whose base files have several row groups and several pages
per column chunk, serial and on 2 threads. The last slice(s) a thread reads
are read lean (src/parquet/reader.h `lean`: a chunk's bytes and page buffer
are freed once its last page is decoded, and no spare buffers are left
behind); every other slice reuses buffers. Both must give the same rows.

Oracle: the rows written, folded per key in plain Python (an upsert's row
replaces the key's row: its ts is greater), compared with every read; and
each base file is checked with pyarrow to really have several row groups
and pages, so the lean path meets chunks with pages left after a batch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

N = 54000  # 18000 rows a file: the writer checks the block size every 16384 rows
SMALL = {"hoodie.parquet.block.size": str(96 << 10), "hoodie.parquet.page.size": str(8 << 10)}


def rows(ids, ts, tag):
    return pa.table({
        "id": pa.array([f"key-{i:06d}" for i in ids], pa.string()),
        "ts": pa.array([ts] * len(ids), pa.int64()),
        "p": pa.array([f"p{i % 3}" for i in ids], pa.string()),
        "v": pa.array([i * 7 + ts for i in ids], pa.int64()),
        "s": pa.array([None if i % 11 == 0 else f"{tag} text {i % 97} {i}" for i in ids], pa.string()),
    })


def check_table(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture(scope="module", params=["cow", "mor"])
def table(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(f"lean-{request.param}") / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=request.param)
    model = {}
    base = rows(range(N), 1, "base")
    t.append(base, SMALL)
    for r in base.to_pylist():
        model[r["id"]] = r
    for k, ids in enumerate([range(0, N, 5), range(3, N, 7), range(N, N + 500)]):
        u = rows(list(ids), 2 + k, f"u{k}")
        HudiTable(str(path)).upsert(u, SMALL)
        for r in u.to_pylist():
            model[r["id"]] = r
    check_table(path)
    return path, model


def read(path, **opts):
    o = HudiReadOptions().with_hudi_options({"hoodie.read.stream.batch_size": "700", **opts})
    got = pa.Table.from_batches(HudiTable(str(path)).read(o))
    return sorted(got.select(["id", "ts", "p", "v", "s"]).to_pylist(), key=lambda r: r["id"])


def test_base_files_have_row_groups_and_pages(table):
    path, _ = table
    # The bulk load's file per partition (MOR: new keys may add small ones).
    big = [pq.ParquetFile(f).metadata for f in sorted(Path(path).rglob("*.parquet"))]
    big = [md for md in big if md.num_rows >= 16384]
    assert len(big) >= 3
    for md in big:
        assert md.num_row_groups >= 2
        # Several pages in the string chunk of a row group.
        col = md.row_group(0).column(md.schema.names.index("s"))
        assert col.total_uncompressed_size > 2 * (8 << 10)


@pytest.mark.parametrize("parallelism", ["1", "2", "4"])
def test_snapshot_equals_oracle(table, parallelism):
    path, model = table
    want = sorted(model.values(), key=lambda r: r["id"])
    assert read(path, **{"hoodie.read.parallelism": parallelism}) == want


def test_repeated_reads_on_one_table_object(table):
    """Spare buffers are freed after a read and taken again by the next."""
    path, model = table
    want = sorted(model.values(), key=lambda r: r["id"])
    t = HudiTable(str(path))
    for par in ["2", "1", "2"]:
        o = HudiReadOptions().with_hudi_options({"hoodie.read.parallelism": par,
                                                 "hoodie.read.stream.batch_size": "1000"})
        got = pa.Table.from_batches(t.read(o))
        assert sorted(got.select(["id", "ts", "p", "v", "s"]).to_pylist(), key=lambda r: r["id"]) == want
