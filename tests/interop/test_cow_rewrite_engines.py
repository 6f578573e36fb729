"""Spark + Hudi and hudi-rs read COPY_ON_WRITE rewrites of wide rows.

The base files of a COW upsert hold GZIP pages coded with literals only where matching finds
nothing (float vectors; levels keep matching) and unchanged rows copied as runs of the stored
batches. Pages are large enough here (64-float embeddings, 1 MiB pages) for that coding to be
chosen; Java's inflater (Spark) and hudi-rs must return the rows pyarrow reads from the files
and that the model computed here predicts.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
DIM = 64
# These tests are about GZIP pages (literal-only coding); zstd is the default on version-8 tables.
GZIP = {"hoodie.parquet.compression.codec": "gzip"}


def rows(ids, rng, version) -> pa.Table:
    n = len(ids)
    v = rng.standard_normal((n, DIM), dtype=np.float32)
    return pa.table({
        "id": pa.array([f"id-{i:06d}" for i in ids]),
        "version": pa.array(np.full(n, version, np.int32)),
        "embedding": pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32) * DIM), pa.array(v.ravel())),
    })


def keyed(rows_) -> dict:
    def emb(x):
        return [float(f) for f in (x if not isinstance(x, dict) else next(iter(x.values())))]
    return {r["id"]: (r["version"], emb(r["embedding"])) for r in rows_}


def test_engines_read_cow_rewrite_of_embeddings(tmp_path, spark, hudirs):
    rng = np.random.default_rng(3)
    path = tmp_path / "t"
    n = 12_000
    t = hudi.HudiTable.create(str(path), record_key="id", table_type="cow")
    base = rows(np.arange(n), rng, 1)
    t.append(base, GZIP)
    upd = np.sort(rng.choice(n, 150, replace=False))
    batch = rows(np.concatenate([upd, np.arange(n, n + 10)]), rng, 2)
    hudi.HudiTable(str(path)).upsert(batch, GZIP)
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout

    model = keyed(base.to_pylist())
    model.update(keyed(batch.to_pylist()))
    mine = keyed(pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist())
    assert mine == model
    assert keyed(spark.read_table(str(path)).rows) == model
    assert keyed(hudirs.read_table(str(path)).rows) == model
