"""Benchmark: libhudi's Parquet reader against pyarrow.parquet.read_table.

Two datasets, written once by pyarrow (snappy, 128Ki-row row groups,
dictionary where pyarrow chooses it) into --dir:
  rag   1M rows: chunk_id, doc_id (strings), pos int32, text (~500 chars),
        embedding list<float32> x 384, updated_at int64
  uuid  10M rows: key (36-char UUID string) + int64, float64, int32, bool,
        timestamp[us, UTC]
Each reader runs in a fresh subprocess (so peak RSS is its own), reading the
whole file into an Arrow table; reported: wall time and peak RSS over the
interpreter's baseline, best of --repeat runs, and ours / pyarrow ratios.
Both sides use --threads threads (pyarrow: its default pool when > 1).

Needs the test hook _hudi._parquet_read (python/src/parquet.c).
Usage: parquet_read.py [--dir DIR] [--repeat 3] [--threads 2] [--only rag|uuid]
Not run by ctest."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

RG = 128 * 1024


def make_rag(path: str, n: int = 1_000_000) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    lengths = rng.integers(450, 551, n).astype(np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyz      etaoinshr", dtype=np.uint8)
    text = alphabet[rng.integers(0, len(alphabet), int(offsets[-1]))]
    text_arr = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(text.tobytes())).cast(pa.string())
    doc = rng.integers(0, n // 20, n)
    pos = rng.integers(0, 200, n).astype(np.int32)
    emb = rng.standard_normal(n * 384, dtype=np.float32)
    table = pa.table({
        "chunk_id": pa.array(["doc%07d-%04d" % (d, p) for d, p in zip(doc, pos)]),
        "doc_id": pa.array(["doc%07d" % d for d in doc]),
        "pos": pa.array(pos),
        "text": text_arr,
        "embedding": pa.ListArray.from_arrays(pa.array(np.arange(0, n * 384 + 1, 384, dtype=np.int32)), pa.array(emb)),
        "updated_at": pa.array(rng.integers(1.6e15, 1.8e15, n, dtype=np.int64)),
    })
    pq.write_table(table, path, compression="snappy", row_group_size=RG, store_schema=False)


def make_uuid(path: str, n: int = 10_000_000) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(2)
    hexd = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    chars = hexd[rng.integers(0, 16, (n, 36), dtype=np.uint8)]
    chars[:, [8, 13, 18, 23]] = ord("-")
    chars[:, 14] = ord("4")
    offsets = np.arange(0, 36 * n + 1, 36, dtype=np.int32)
    key = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(chars.tobytes()))
    table = pa.table({
        "key": key,
        "a_i64": pa.array(rng.integers(-(2**62), 2**62, n)),
        "b_f64": pa.array(rng.standard_normal(n)),
        "c_i32": pa.array(rng.integers(0, 1000, n).astype(np.int32)),
        "d_bool": pa.array(rng.random(n) < 0.5),
        "e_ts": pa.array(rng.integers(1.6e15, 1.8e15, n, dtype=np.int64), pa.timestamp("us", tz="UTC")),
    })
    pq.write_table(table, path, compression="snappy", row_group_size=RG, store_schema=False)


CHILD = r"""
import json, os, resource, sys, time
import pyarrow as pa, pyarrow.parquet as pq
from hudi import _hudi
which, path, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
base = rss_kb()
t0 = time.perf_counter()
if which == "pyarrow":
    if threads <= 1:
        t = pq.read_table(path, use_threads=False)
    else:
        pa.set_cpu_count(threads); pa.set_io_thread_count(threads)
        t = pq.read_table(path)
else:
    t = pa.RecordBatchReader._import_from_c_capsule(_hudi._parquet_read(path, threads=threads)).read_all()
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "peak_mb": (rss_kb() - base) / 1024, "rows": t.num_rows, "bytes": t.nbytes}))
"""


def run(which: str, path: str, threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, which, path, str(threads)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/hudi-bench-parquet")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=["rag", "uuid"])
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    sets = {"rag": make_rag, "uuid": make_uuid}
    print("load average before:", os.getloadavg())
    for name, make in sets.items():
        if args.only and name != args.only:
            continue
        path = os.path.join(args.dir, name + ".parquet")
        if not os.path.exists(path):
            t0 = time.time()
            make(path)
            print(f"wrote {path} ({os.path.getsize(path) / 2**20:.0f} MiB) in {time.time() - t0:.0f}s")
        res = {"pyarrow": [], "hudi": []}
        for _ in range(args.repeat):
            for which in ("pyarrow", "hudi"):  # alternate so load drifts hit both
                res[which].append(run(which, path, args.threads))
        best = {w: min(r, key=lambda x: x["seconds"]) for w, r in res.items()}
        peak = {w: min(x["peak_mb"] for x in r) for w, r in res.items()}
        assert best["hudi"]["rows"] == best["pyarrow"]["rows"]
        print(f"{name}: pyarrow {best['pyarrow']['seconds']:.2f}s {peak['pyarrow']:.0f} MiB | "
              f"hudi {best['hudi']['seconds']:.2f}s {peak['hudi']:.0f} MiB | "
              f"time ratio {best['hudi']['seconds'] / best['pyarrow']['seconds']:.2f} "
              f"memory ratio {peak['hudi'] / peak['pyarrow']:.2f}  (all runs: "
              f"{[round(x['seconds'], 2) for x in res['pyarrow']]} vs {[round(x['seconds'], 2) for x in res['hudi']]})")
    print("load average after:", os.getloadavg())


if __name__ == "__main__":
    main()
