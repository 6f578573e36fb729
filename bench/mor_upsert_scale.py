"""Cost of one MOR upsert and one delete as the table grows (issue 6, "Performance").

A seeded uuid table (bench/bulk_load_bench.py's uuid_table) of N rows is bulk-inserted into a new
MERGE_ON_READ table with the record index (snappy). Copies of it then take, each in a fresh
subprocess:
  - an upsert of 10,000 existing keys (amount changed) and 1,000 new keys;
  - a delete of 1,000 other existing keys;
with hoodie.parquet.bloom.filter.enabled left at its default (true, as Java) and set to false, and
hoodie.parquet.small.file.limit=0 (the new keys get a new file group rather than a rewrite of the
table's one small file group).
Reported per operation: process CPU time (user + sys, all threads) and wall time around the call
alone, the bytes it added to the table directory (data and metadata table), the bytes it read
(/proc/self/io rchar: every read of the table, the metadata table included), and the 1-minute load
average (the machine may be shared). The pyarrow snappy size of the changed rows is printed as the
floor the issue measures against (1.3x).

usage: python bench/mor_upsert_scale.py [--rows 500000,2000000] [--keep DIR] [--python PYTHONPATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bulk_load_bench import cpu_seconds, dir_bytes, uuid_table  # noqa: E402

N_UPDATE, N_NEW, N_DELETE = 10_000, 1_000, 1_000


def changes(rows: int):
    """(upsert batch, delete keys): every k-th existing row updated, new keys from another seed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = uuid_table(rows)
    step = rows // N_UPDATE
    idx = pa.array(range(0, step * N_UPDATE, step))
    upd = t.take(idx)
    upd = upd.set_column(upd.schema.get_field_index("amount"), "amount", pc.add(upd["amount"], 1.0))
    new = uuid_table(N_NEW, seed=909)
    dele = t.take(pa.array(range(step // 2, step // 2 + step * N_DELETE, step)))["id"]
    return pa.concat_tables([upd, new]), dele


def read_chars() -> int:
    """Bytes this process has read through read()/pread() (Linux /proc/self/io rchar), page cache
    included: what a lookup fetches from local storage; -1 elsewhere."""
    try:
        with open("/proc/self/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))
    except (OSError, StopIteration):
        return -1


def floor_bytes(batch) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(batch, sink, compression="snappy")
    return sink.getvalue().size


def build(rows: int, out: str) -> dict:
    import hudi

    t = uuid_table(rows)
    tbl = hudi.HudiTable.create(out, record_key="id", table_type="mor", record_index_enabled=True)
    c0, w0 = cpu_seconds(), time.perf_counter()
    tbl.append(t, {"hoodie.parquet.compression.codec": "snappy"})
    return {"op": "bulk_load", "rows": rows, "cpu_s": round(cpu_seconds() - c0, 3),
            "wall_s": round(time.perf_counter() - w0, 3), "bytes": dir_bytes(out)}


def commit(rows: int, out: str, bloom: str) -> list:
    import hudi

    batch, dele = changes(rows)
    # No small-file routing: the new keys get a new file group (as in bench/upsert), instead of
    # rewriting a base file under the 100 MB default limit (a 500k-row table is one file group).
    # Codecs left at their defaults: zstd log blocks, gzip base files.
    opts = {"hoodie.parquet.small.file.limit": "0"}
    if bloom == "off":
        opts["hoodie.parquet.bloom.filter.enabled"] = "false"
    tbl = hudi.HudiTable(out)
    res = []
    for op, fn, floor in (("upsert", lambda: tbl.upsert(batch, opts), floor_bytes(batch)),
                          ("delete", lambda: tbl.delete_keys(dele, opts), None)):
        b0 = dir_bytes(out)
        c0, w0, r0 = cpu_seconds(), time.perf_counter(), read_chars()
        fn()
        c1, w1, r1 = cpu_seconds(), time.perf_counter(), read_chars()
        written = dir_bytes(out) - b0
        r = {"op": op, "rows": rows, "bloom": bloom, "cpu_s": round(c1 - c0, 3), "wall_s": round(w1 - w0, 3),
             "bytes": written, "bytes_read": r1 - r0, "load1": round(os.getloadavg()[0], 2)}
        if floor:
            r["floor"] = floor
            r["x_floor"] = round(written / floor, 2)
        res.append(r)
    return res


def sub(args: list, pythonpath: str) -> list:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", *args], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="500000,2000000")
    ap.add_argument("--keep", default=None, help="write tables under DIR and keep them")
    ap.add_argument("--python", default=os.environ.get("PYTHONPATH", ""), help="PYTHONPATH of the hudi package")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        kind, rows, out = a.one[0], int(a.one[1]), a.one[2]
        res = build(rows, out) if kind == "build" else commit(rows, out, a.one[3])
        print(json.dumps(res if isinstance(res, list) else [res]))
        return 0
    root = a.keep or tempfile.mkdtemp(prefix="mor_upsert_scale_")
    try:
        for rows in (int(x) for x in a.rows.split(",")):
            base = os.path.join(root, f"base-{rows}")
            shutil.rmtree(base, ignore_errors=True)
            for r in sub(["build", str(rows), base], a.python):
                print(json.dumps(r), flush=True)
            for bloom in ("on", "off"):
                t = os.path.join(root, f"t-{rows}-{bloom}")
                shutil.rmtree(t, ignore_errors=True)
                shutil.copytree(base, t)
                for r in sub(["commit", str(rows), t, bloom], a.python):
                    print(json.dumps(r), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
