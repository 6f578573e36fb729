"""Tables hudi-c creates and bulk-inserts into are read by Spark + Hudi and by hudi-rs.

Both engines must return exactly the rows hudi-c wrote, meta columns included (snapshot for COW
and MOR, read-optimized for MOR too), and the tables must pass ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from oracles import row_diff

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name")


def batch(start: int, n: int) -> pa.Table:
    ids = range(start, start + n)
    return pa.table({
        "chunk_id": [f"c{i:03d}" for i in ids],
        "doc_id": [f"doc{i % 3}" for i in ids],
        "updated_at": pa.array(list(ids), pa.int64()),
        "score": pa.array([i / 4 for i in ids], pa.float64()),
        "embedding": pa.array([[float(i), 1.5] for i in ids], pa.list_(pa.float32(), 2)),
    })


def write_table(path: Path, table_type: str, partitioned: bool) -> list[dict]:
    t = hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                              partition_fields="doc_id" if partitioned else None, table_type=table_type,
                              record_index_enabled=False)
    t.append(batch(0, 6))
    t.append(batch(6, 5))
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    files = glob.glob(str(path / "**" / "*.parquet"), recursive=True)
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def plain(rows) -> list[tuple]:
    """(meta columns..., chunk_id, doc_id, updated_at) of each row, sorted."""
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(v(r[c]) for c in META + ("chunk_id", "doc_id", "updated_at")) for r in rows)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_engines_read_what_we_wrote(tmp_path, spark, hudirs, table_type, partitioned):
    path = tmp_path / f"w_{table_type}_{'p' if partitioned else 'np'}"
    ours = write_table(path, table_type, partitioned)
    assert len(ours) == 11
    expected = plain(ours)

    from_spark = spark.read_table(str(path))
    assert plain(from_spark.rows) == expected
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))
    if table_type == "mor":
        ro = spark.read_table(str(path), {"hoodie.datasource.query.type": "read_optimized"})
        assert plain(ro.rows) == expected
    cfg = spark.table_config(str(path))
    assert json.dumps(cfg)  # Hudi's meta client loads our hoodie.properties
