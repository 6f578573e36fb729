"""Spark finds every key of our tables through the footer bloom filters we write.

hudi-c sizes a base file's DYNAMIC_V0 filter for the keys the file will hold when it knows them
before writing (bulk-insert files, the new file groups of an upsert's inserts) instead of for
hoodie.index.bloom.num_entries (60000) as Java does: a 1000-row file carries ~7 KB of filter
instead of ~430 KB. Spark with Hudi 1.2 upserting with hoodie.index.type=BLOOM reads those
filters to decide which keys already exist: a key missing from a filter would come back as a
duplicate insert. So every key of the table is upserted by Spark through BLOOM and the result
must hold each key once, with Spark's values, in Spark and in our reader, and the table must
pass ../shared/tools/hudi_check.py before Spark's write.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import hudi
from oracles import row_diff

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = HERE.parent / "run_hudi_check.py"  # see its docstring
JAVA_FILTER_B64 = 430_000  # base64 bytes of Java's filter for 60000 entries at fpp 1e-9, roughly


def batch(ids, v: int) -> pa.Table:
    return pa.table({"id": [f"k{i:05d}" for i in ids], "region": ["eu" if i % 3 else "us" for i in ids],
                     "v": pa.array([v + i for i in ids], pa.int64())})


def untag(x):
    return x if not isinstance(x, dict) else next(iter(x.values()))


def base_filters(path: Path) -> dict:
    out = {}
    for f in path.rglob("*.parquet"):
        if ".hoodie" not in f.parts:
            md = pq.ParquetFile(f).metadata
            out[f.name] = (md.num_rows, len(md.metadata[b"org.apache.hudi.bloomfilter"]))
    return out


def test_spark_bloom_index_finds_every_key_of_our_sized_filters(tmp_path, spark, interop_config):
    path = tmp_path / "bloom_mor"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor",
                              record_index_enabled=False)
    t.append(batch(range(3000), 0))
    # our own bloom-index upsert: 100 updates and 400 inserts (a new file group per partition)
    hudi.HudiTable(str(path)).upsert(batch(list(range(0, 1000, 10)) + list(range(3000, 3400)), 10_000))
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    filters = base_filters(path)
    assert len(filters) == 4, filters  # two bulk-insert files, two insert files
    for name, (rows, b64) in filters.items():
        assert rows < 3000 and b64 < JAVA_FILTER_B64 // 10, (name, rows, b64)

    rows = [[f"k{i:05d}", "eu" if i % 3 else "us", 50_000 + i] for i in range(3401)]
    argv = [interop_config["SPARK_PYTHON"], str(HERE / "spark_rli_upsert.py"), interop_config["HUDI_JAR"],
            str(tmp_path / "spark-work"), str(path), "mor", "region", json.dumps(rows), "BLOOM"]
    r = subprocess.run(argv, env=interop_config.worker_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and '{"ok": true}' in r.stdout, r.stdout[-3000:] + r.stderr[-6000:]

    expected = sorted((k, reg, v) for k, reg, v in rows)
    mine = pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()
    got = sorted((x["id"], x["region"], x["v"]) for x in mine)
    assert len(got) == len(expected), f"{len(got) - len(expected)} duplicate keys after Spark's BLOOM upsert"
    assert got == expected
    theirs = spark.read_table(str(path))
    a = sorted("|".join(str(untag(x[c])) for c in ("id", "region", "v")) for x in theirs.rows)
    b = [f"{k}|{reg}|{v}" for k, reg, v in expected]
    assert a == b, row_diff(a, b, ("spark", "expected"))
