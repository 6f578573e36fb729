"""HudiTable.compute_table_stats: the planning estimate (rows, bytes) of a snapshot read.

Oracles: hudi-rs 0.5's HudiTable.compute_table_stats (its own virtual env, a subprocess) on every
fixture table and on tables our writer makes, for snapshot and incremental options -- the same
tuple, or None from both; and an independent recomputation in plain Python for our tables: the
on-disk sizes of the table's Parquet files (os.stat) scaled by a pyarrow reading of the sampled
footer, following hudi-rs's documented formula (docs/reader-spec.md §7).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fixture_tables import ALL_TABLES, table_path
from oracles import InteropConfig

WORKERS = Path(__file__).resolve().parent / "workers"
CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

HUDIRS_SCRIPT = r"""
import json, sys
import hudi
out = {}
for path in json.loads(sys.argv[1]):
    t = hudi.HudiTableBuilder.from_base_uri(path).build()
    snap = t.compute_table_stats()
    t2 = hudi.HudiTableBuilder.from_base_uri(path).build()
    inc = t2.compute_table_stats(hudi.HudiReadOptions(hudi_options={"hoodie.read.query.type": "incremental"}))
    out[path] = [list(snap) if snap is not None else None, list(inc) if inc is not None else None]
print(json.dumps(out))
"""


def hudirs_stats(paths: list) -> dict:
    cfg = InteropConfig.load()
    p = subprocess.run([cfg["HUDI_RS_PYTHON"], "-c", HUDIRS_SCRIPT, json.dumps(paths)],
                       capture_output=True, text=True, env=cfg.worker_env(), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def ours(path: str):
    import hudi

    snap = hudi.HudiTable(path).compute_table_stats()
    inc = hudi.HudiTable(path).compute_table_stats(
        hudi.HudiReadOptions().with_query_type(hudi.HudiQueryType.Incremental))
    return [list(snap) if snap is not None else None, list(inc) if inc is not None else None]


def test_fixture_tables_equal_hudirs():
    paths = [table_path(t) for t in ALL_TABLES]
    theirs = hudirs_stats(paths)
    available = 0
    for t, path in zip(ALL_TABLES, paths):
        assert ours(path) == theirs[path], t
        available += theirs[path][0] is not None
    # The comparison must cover real estimates, not only None == None.
    assert available >= 3, theirs


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def independent_estimate(path: str, sample_instant: str):
    """hudi-rs's formula from storage and pyarrow: every live .parquet data file's size, and the
    smallest path among the base files the sample instant wrote."""
    files = []
    for d, dirs, names in os.walk(path):
        dirs[:] = [x for x in dirs if x != ".hoodie"]
        files += [os.path.relpath(os.path.join(d, n), path) for n in names if n.endswith(".parquet")]
    total = sum(os.path.getsize(os.path.join(path, f)) for f in files)
    sample = min(f for f in files if f.rsplit("_", 1)[1] == sample_instant + ".parquet")
    md = pq.ParquetFile(os.path.join(path, sample)).metadata
    on_disk = sum(md.row_group(g).column(c).total_compressed_size
                  for g in range(md.num_row_groups) for c in range(md.num_columns))
    uncompressed = sum(md.row_group(g).total_byte_size for g in range(md.num_row_groups))
    ratio = uncompressed / on_disk if on_disk > 0 else 1.0
    avg = on_disk / md.num_rows if md.num_rows > 0 else 0.0
    return [int(total / avg) if avg > 0 else 0, int(total * ratio)]


def rows(n: int, start: int, part: bool) -> pa.Table:
    cols = {
        "id": pa.array([f"k{i:05d}" for i in range(start, start + n)]),
        "ts": pa.array([1] * n, pa.int64()),
        "v": pa.array([f"value-{i}" * 3 for i in range(start, start + n)]),
    }
    if part:
        cols["p"] = pa.array(["a" if i % 3 else "b" for i in range(start, start + n)])
    return pa.table(cols)


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_our_tables_equal_hudirs_and_footers(tmp_path, kind, partitioned):
    from hudi import HudiTable

    path = str(tmp_path / "t")
    t = HudiTable.create(path, "id", ordering_fields="ts", partition_fields="p" if partitioned else None,
                         table_type=kind)
    assert "files" in t.properties()["hoodie.table.metadata.partitions"].split(",")
    r1 = t.append(rows(400, 0, partitioned))
    r2 = HudiTable(path).append(rows(300, 400, partitioned))
    check(path)
    # Both appends wrote base files; the latest is the sample.
    expected = independent_estimate(path, r2.requested_time)
    assert r1.requested_time < r2.requested_time
    got = ours(path)
    assert got == [expected, None]
    assert got == hudirs_stats([path])[path]

    # An upsert: on MOR a deltacommit of log files only, so the sample stays the latest base-file
    # write (hudi-rs walks back); on COW new base file versions join the live files.
    up = rows(50, 0, partitioned).set_column(1, "ts", pa.array([2] * 50, pa.int64()))
    r3 = HudiTable(path).upsert(up)
    check(path)
    sample = r3.requested_time if kind == "cow" else r2.requested_time
    got = ours(path)
    assert got == [independent_estimate(path, sample), None]
    assert got == hudirs_stats([path])[path]


def test_no_metadata_table_is_none(tmp_path):
    from hudi import HudiTable

    path = str(tmp_path / "t")
    t = HudiTable.create(path, "id", ordering_fields="ts", table_type="cow", record_index_enabled=False,
                         hudi_options={"hoodie.metadata.enable": "false"})
    t.append(rows(10, 0, False))
    check(path)
    assert ours(path) == [None, None] == hudirs_stats([path])[path]
