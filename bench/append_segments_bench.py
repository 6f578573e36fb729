"""Peak memory of an append fed by a lazy stream, whole versus in segments.

A RecordBatchReader generates rag-chunks-shaped rows (chunk_id key, doc_id, a ~55-word text, a
384-float32 embedding: ~1.9 KB a row) batch by batch, so the input never exists in memory as a
whole unless the writer keeps it. Each case appends --rows rows into a new MOR table (record index
on) in a fresh subprocess and reports wall time, process CPU time and peak RSS (ru_maxrss):
  - whole: hudi_c.append.segment.bytes above the input (the writer holds every row, as before
    2026-12-01);
  - seg-N: segments of N MiB of estimated Arrow data.
The peak is taken when the append returns; the rows read back afterwards (key column only) are
counted (the table must hold --rows rows). The 1-minute load is printed.

usage: python bench/append_segments_bench.py [--rows 1000000] [--segments whole,256,1024]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def reader(rows: int, batch: int = 8192):
    import numpy as np
    import pyarrow as pa

    rng = np.random.default_rng(7)
    words = np.array([f"w{i}" for i in range(5000)])
    schema = pa.schema([("chunk_id", pa.string()), ("doc_id", pa.string()), ("text", pa.string()),
                        ("embedding", pa.list_(pa.float32())), ("updated_at", pa.int64())])

    def gen():
        for start in range(0, rows, batch):
            n = min(batch, rows - start)
            ids = np.arange(start, start + n)
            text = [" ".join(rng.choice(words, 55)) for _ in range(n)]
            emb = pa.FixedSizeListArray.from_arrays(pa.array(rng.random(n * 384, dtype=np.float32)), 384)
            yield pa.record_batch([pa.array([f"doc{i // 10}#{i % 10}" for i in ids]),
                                   pa.array([f"doc{i // 10}" for i in ids]), pa.array(text),
                                   emb.cast(pa.list_(pa.float32())), pa.array(ids, pa.int64())], schema=schema)
    return pa.RecordBatchReader.from_batches(schema, gen())


def run_case(case: str, rows: int, out: str) -> dict:
    from hudi import HudiReadOptions, HudiTable

    seg = str(1 << 50) if case == "whole" else str(int(case.split("-")[1]) << 20)
    t = HudiTable.create(out, "chunk_id", ordering_fields="updated_at", table_type="mor")
    w0, c0 = time.perf_counter(), time.process_time()
    r = t.append(reader(rows), {"hudi_c.append.segment.bytes": seg})
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before the check below reads the table
    n = sum(b.num_rows for b in HudiTable(out).read(HudiReadOptions(projection=["chunk_id"])))
    assert r.num_inserts == rows and n == rows, (r.num_inserts, n)
    return {"case": case, "rows": rows, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "peak_rss_mib": round(peak / 1024),
            "files": r.files_written}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--segments", default="whole,256,1024")
    ap.add_argument("--case")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.case:
        print(json.dumps(run_case(a.case, a.rows, a.out)))
        return
    for s in a.segments.split(","):
        case = "whole" if s == "whole" else f"seg-{s}"
        with tempfile.TemporaryDirectory() as d:
            p = subprocess.run([sys.executable, __file__, "--case", case, "--rows", str(a.rows), "--out",
                                os.path.join(d, "t")], capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{case} failed: {p.stderr[-2000:]}")
            res = json.loads(p.stdout.strip().splitlines()[-1])
            res["load1"] = round(os.getloadavg()[0], 2)
            print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
