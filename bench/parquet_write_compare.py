"""Parquet write benchmark: hudi-c's writer against pyarrow.parquet.write_table
on the SAME Arrow table, interleaved, in one run.

The table is generated once (seeded) and saved as an uncompressed Arrow IPC
file. Every measurement is a fresh subprocess that loads that file into
memory, then times one write of the whole table (one batch) with either

  hudi-c   _hudi._parquet_write(table, path, {"codec": "snappy"})   (the test hook)
  pyarrow  pyarrow.parquet.write_table(table, path, compression="snappy")

Both with their defaults, which are the same settings: snappy, dictionary
encoding with PLAIN fallback past a 1 MiB dictionary, 1 MiB data pages,
1Mi-row row groups, statistics on. Runs alternate (ours, pyarrow, pyarrow,
ours, ...) so both see the same machine load; each run records the 1-minute
load average, wall time, process CPU time (user + sys, less sensitive to
other work on a shared machine) and the memory the write added (peak RSS
during the write, VmHWM after resetting it, minus RSS before it). Reported: medians and the hudi-c /
pyarrow ratio of the medians. The first pair of files is read back with
pyarrow and compared with the table (a wrong file fails the run).

Shapes:
  rag   N rows: chunk_id, doc_id (strings), pos int32, text (~--text-chars
        chars of Zipf-drawn words), embedding list<float32> x 384 (standard
        normal), updated_at timestamp[us, UTC]
  uuid  N rows: 36-char random UUID string + int32, int64, double, bool,
        timestamp[us, UTC]

Usage: parquet_write_compare.py [--shape rag] [--rows 1000000] [--text-chars 200]
                                [--reps 5] [--dir DIR] [--keep]
Needs the hudi package (python/ built with the _parquet_write hook) first on
PYTHONPATH. Not run by ctest.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def make_rag(n: int, text_chars: int):
    import numpy as np
    import pyarrow as pa

    r = np.random.default_rng(1)
    # A vocabulary of 5,000 pseudo-words (2-10 letters), drawn Zipf-like.
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", dtype=np.uint8)
    vocab = ["".join(chr(c) for c in letters[np.minimum(r.geometric(0.18, r.integers(2, 11)) - 1, 25)])
             for _ in range(5000)]
    ranks = np.arange(1, len(vocab) + 1, dtype=np.float64)
    p = 1.0 / ranks
    p /= p.sum()
    distinct = min(n, 100_000)
    texts = []
    for _ in range(distinct):
        target = int(text_chars * r.uniform(0.75, 1.25))
        words = []
        size = 0
        for w in r.choice(len(vocab), size=text_chars // 3, p=p):
            words.append(vocab[w])
            size += len(vocab[w]) + 1
            if size >= target:
                break
        texts.append(" ".join(words))
    # Distinct texts repeat every 100k rows: 20+ MB apart, beyond any
    # codec's window and any dictionary's limit, so it changes nothing.
    text = pa.array((texts * (n // distinct + 1))[:n])
    doc = np.arange(n) // 10
    return pa.table({
        "chunk_id": pa.array(["doc%07d-chunk%02d" % (i // 10, i % 10) for i in range(n)]),
        "doc_id": pa.array(["doc%07d" % d for d in doc]),
        "pos": pa.array((np.arange(n) % 10).astype(np.int32)),
        "text": text,
        "embedding": pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32) * 384),
                                              pa.array(r.standard_normal(n * 384, dtype=np.float32))),
        "updated_at": pa.array(1_700_000_000_000_000 + r.integers(0, 100_000_000_000, n), pa.timestamp("us", "UTC")),
    })


def make_uuid(n: int):
    import numpy as np
    import pyarrow as pa

    r = np.random.default_rng(2)
    hexd = r.integers(0, 16, (n, 32), dtype=np.uint8)
    chars = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)[hexd]
    dash = np.full((n, 1), ord("-"), dtype=np.uint8)
    s = np.concatenate([chars[:, :8], dash, chars[:, 8:12], dash, chars[:, 12:16], dash, chars[:, 16:20], dash,
                        chars[:, 20:]], axis=1)
    offsets = np.arange(0, 36 * (n + 1), 36, dtype=np.int32)
    uuids = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(s.tobytes()))
    return pa.table({
        "uuid": uuids,
        "a_int": pa.array(r.integers(0, 1000, n).astype(np.int32)),
        "b_long": pa.array(1_700_000_000_000_000 + r.integers(0, 100_000_000_000, n)),
        "c_double": pa.array(r.integers(0, 1_000_000, n) / 100.0),
        "d_bool": pa.array(r.random(n) < 0.5),
        "e_ts": pa.array(1_700_000_000_000_000 + r.integers(0, 100_000_000_000, n), pa.timestamp("us", "UTC")),
    })


def status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for ln in f:
            if ln.startswith(field + ":"):
                return int(ln.split()[1]) / 1024.0
    return 0.0


def reset_peak() -> None:
    """Resets VmHWM (peak RSS) to the current RSS (Linux >= 4.0), so the
    peak read after the write is the write's own, not the table load's."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def child(writer: str, ipc: str, out: str) -> None:
    """One timed write in this (fresh) process; prints a JSON line."""
    import gc

    import pyarrow as pa
    import pyarrow.parquet as pq

    with pa.OSFile(ipc, "rb") as f:
        table = pa.ipc.open_file(f).read_all()  # into memory, not mapped
    if writer == "hudi-c":
        import hudi._hudi as h  # noqa: PLC0415
    gc.collect()
    reset_peak()
    before = status_mb("VmRSS")
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    if writer == "hudi-c":
        h._parquet_write(table, out, {"codec": "snappy"})
    else:
        pq.write_table(table, out, compression="snappy")
    t1 = time.perf_counter()
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    peak = status_mb("VmHWM")
    print(json.dumps({
        "writer": writer, "wall_s": t1 - t0,
        "cpu_s": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
        "added_mb": max(0.0, peak - before), "file_mb": os.path.getsize(out) / 1048576.0,
    }))


def verify(table_path: str, files: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pa.OSFile(table_path, "rb") as f:
        want = pa.ipc.open_file(f).read_all()
    for writer, path in files.items():
        got = pq.read_table(path)
        if not got.equals(want):
            raise SystemExit("%s wrote a file that reads back different from the table" % writer)
        md = pq.ParquetFile(path).metadata
        print("  %s: %d row group(s), %d columns, %s" % (writer, md.num_row_groups, md.num_columns,
                                                      md.row_group(0).column(0).compression), file=sys.stderr)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", default="rag", choices=["rag", "uuid"])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--text-chars", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the Arrow IPC input for a later run")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="pqcmp-")
    os.makedirs(d, exist_ok=True)
    ipc = os.path.join(d, "%s-%d-%d.arrow" % (a.shape, a.rows, a.text_chars))
    if not os.path.exists(ipc):
        import pyarrow as pa

        t = make_rag(a.rows, a.text_chars) if a.shape == "rag" else make_uuid(a.rows)
        t = t.combine_chunks()
        with pa.OSFile(ipc + ".tmp", "wb") as f, pa.ipc.new_file(f, t.schema) as w:
            w.write_table(t)
        os.rename(ipc + ".tmp", ipc)
        print("table: %d rows, %.0f MB in memory" % (t.num_rows, t.nbytes / 1e6), file=sys.stderr)
        del t
    runs = []
    for rep in range(a.reps):
        order = ["hudi-c", "pyarrow"] if rep % 2 == 0 else ["pyarrow", "hudi-c"]
        for writer in order:
            out = os.path.join(d, "%s.parquet" % writer)
            load = os.getloadavg()[0]
            p = subprocess.run([sys.executable, __file__, "--child", writer, ipc, out], capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit("%s failed: %s" % (writer, p.stderr[-2000:]))
            res = json.loads(p.stdout.strip().splitlines()[-1])
            res.update(rep=rep, load1=load)
            runs.append(res)
            print(json.dumps(res), file=sys.stderr)
        if rep == 0:
            verify(ipc, {w: os.path.join(d, "%s.parquet" % w) for w in ("hudi-c", "pyarrow")})
        for w in ("hudi-c", "pyarrow"):
            os.unlink(os.path.join(d, "%s.parquet" % w))
    summary = {"shape": a.shape, "rows": a.rows, "text_chars": a.text_chars if a.shape == "rag" else None,
               "reps": a.reps, "load1_min": min(r["load1"] for r in runs), "load1_max": max(r["load1"] for r in runs)}
    for w in ("hudi-c", "pyarrow"):
        mine = [r for r in runs if r["writer"] == w]
        for k in ("wall_s", "cpu_s", "added_mb", "file_mb"):
            summary["%s_%s" % (w, k)] = round(statistics.median(r[k] for r in mine), 3)
    for k in ("wall_s", "cpu_s", "added_mb"):
        summary["ratio_" + k] = round(summary["hudi-c_" + k] / summary["pyarrow_" + k], 3)
    # per-pair ratios: each hudi-c run against the pyarrow run next to it
    pairs = [runs[i]["wall_s"] / runs[i + 1]["wall_s"] if runs[i]["writer"] == "hudi-c"
             else runs[i + 1]["wall_s"] / runs[i]["wall_s"] for i in range(0, len(runs), 2)]
    summary["pair_ratios_wall"] = [round(x, 3) for x in pairs]
    print(json.dumps(summary, indent=1))
    if not a.keep:
        os.unlink(ipc)


if __name__ == "__main__":
    main()
