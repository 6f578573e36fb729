"""pyarrow side of the Parquet write benchmark (see parquet_write_bench.c):
builds the same shapes with numpy/pyarrow and times pyarrow.parquet.write_table
with its defaults (snappy, dictionary, 1 MiB pages, 1Mi-row row groups)."""
import json
import resource
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

WORDS = ("the hudi table stores records in parquet files and logs with a timeline of commits that readers use "
         "to see consistent snapshots while writers upsert data into groups").split()


def rss_mb():
    with open("/proc/self/status") as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1]) / 1024.0
    return 0.0


def rag(n, r):
    w = np.array(WORDS)
    text = [" ".join(w[r.integers(0, len(w), 90)]) for _ in range(min(n, 100000))]
    text = (text * (n // len(text) + 1))[:n]
    return pa.table({
        "chunk_id": pa.array(["doc%d-chunk%d" % (i // 8, i % 8) for i in range(n)]),
        "doc_id": pa.array(["doc%d" % (i // 8) for i in range(n)]),
        "pos": pa.array((np.arange(n) % 64).astype(np.int32)),
        "text": pa.array(text),
        "embedding": pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32) * 384),
                                              pa.array(r.standard_normal(n * 384, dtype=np.float32))),
        "updated_at": pa.array(1700000000000000 + r.integers(0, 100000000000, n)),
    })


def uuid(n, r):
    hexd = r.integers(0, 16, (n, 32), dtype=np.uint8)
    chars = np.array(list("0123456789abcdef"))[hexd]
    dash = np.full((n, 1), "-")
    s = np.concatenate([chars[:, :8], dash, chars[:, 8:12], dash, chars[:, 12:16], dash, chars[:, 16:20], dash,
                        chars[:, 20:]], axis=1)
    strs = s.view("<U36").ravel()
    return pa.table({
        "uuid": pa.array(strs, pa.string()),
        "a_int": pa.array(r.integers(0, 1000, n).astype(np.int32)),
        "b_long": pa.array(1700000000000000 + r.integers(0, 100000000000, n)),
        "c_double": pa.array(r.integers(0, 1000000, n) / 100.0),
        "d_bool": pa.array(r.random(n) < 0.5),
        "e_ts": pa.array(1700000000000000 + r.integers(0, 100000000000, n), pa.timestamp("us", "UTC")),
    })


def main():
    case, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    r = np.random.default_rng(1)
    t0 = time.monotonic()
    t = rag(n, r) if case == "rag" else uuid(n, r)
    t = t.combine_chunks()
    t1 = time.monotonic()
    before = rss_mb()
    path = "%s/pyarrow_%s.parquet" % (out, case)
    pq.write_table(t, path, compression="snappy")
    t2 = time.monotonic()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    import os
    print(json.dumps({"writer": "pyarrow", "case": case, "rows": n, "gen_s": round(t1 - t0, 3),
                      "write_s": round(t2 - t1, 3), "rss_before_mb": round(before, 1), "peak_rss_mb": round(peak, 1),
                      "file_mb": round(os.path.getsize(path) / 1048576.0, 1)}))


if __name__ == "__main__":
    main()
