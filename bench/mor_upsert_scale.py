"""Cost of one MOR upsert and one delete as the table grows (issue 6, "Performance").

A seeded uuid table (bench/bulk_load_bench.py's uuid_table) of N rows is bulk-inserted into a new
MERGE_ON_READ table with the record index (snappy). Copies of it (hard links: link_tree) then take,
each in a fresh subprocess that reads the commits' rows from a Parquet file written beforehand (so
it holds only those, whatever N):
  - an upsert of 10,000 existing keys (amount changed) and 1,000 new keys;
  - a delete of 1,000 other existing keys;
or, with --table rag, the rag-chunks scenario's table (bench/upsert, 384-float embeddings; --rows
counts chunks) and the scenario's commits at scale 1: 1,000 documents re-ingested (~10,000 chunks)
and 100 others deleted (~1,000 chunks);
with hoodie.parquet.bloom.filter.enabled left at its default (true, as Java) and set to false, and
hoodie.parquet.small.file.limit=0 (the new keys get a new file group rather than a rewrite of the
table's one small file group).
Reported per operation: process CPU time (user + sys, all threads) and wall time around the call
alone, the bytes it added to the table directory (data and metadata table), the bytes it read
(/proc/self/io rchar: every read of the table, the metadata table included), and the 1-minute load
average (the machine may be shared). The pyarrow snappy size of the changed rows is printed as the
floor the issue measures against (1.3x).

usage: python bench/mor_upsert_scale.py [--rows 500000,2000000] [--reps N] [--bloom on,off] [--table uuid|rag]
                                       [--keep DIR [--reuse]] [--python PYTHONPATH[,PYTHONPATH...]]
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
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bulk_load_bench import cpu_seconds, dir_bytes, uuid_table  # noqa: E402

N_UPDATE, N_NEW, N_DELETE = 10_000, 1_000, 1_000
RAG_DOCS_CHANGED, RAG_DOCS_DELETED = 1_000, 100


def rag_table(rows: int):
    """The rag-chunks scenario's base table (bench/upsert/scenarios.py) with about `rows` chunks (10
    a document on average, 384-float embeddings)."""
    import numpy as np

    sys.path.insert(0, os.path.join(HERE, "upsert"))
    from scenarios import gen_rag

    g = gen_rag(rows / 1_000_000, np.random.default_rng(7), Path(tempfile.gettempdir()))
    return g.base


def rag_changes(rows: int):
    """The same commit whatever the table's size, as the rag-chunks scenario's at scale 1: 1,000
    documents re-ingested (all their chunks, ~10,000, with a new version and time) and all chunks of
    100 other documents deleted."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    t = rag_table(rows)
    docs = pc.unique(t["doc_id"])
    pick = np.random.default_rng(11).choice(len(docs), RAG_DOCS_CHANGED + RAG_DOCS_DELETED, replace=False)
    changed, gone = docs.take(pa.array(pick[:RAG_DOCS_CHANGED])), docs.take(pa.array(pick[RAG_DOCS_CHANGED:]))
    up = t.filter(pc.is_in(t["doc_id"], value_set=changed))
    up = up.set_column(up.schema.get_field_index("doc_version"), "doc_version", pc.add(up["doc_version"], 1))
    day = pa.scalar(86_400_000_000, pa.duration("us"))
    up = up.set_column(up.schema.get_field_index("updated_at"), "updated_at", pc.add(up["updated_at"], day))
    dele = t.filter(pc.is_in(t["doc_id"], value_set=gone))["chunk_id"]
    return up, dele


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


def build(table: str, rows: int, out: str) -> dict:
    import hudi

    t = rag_table(rows) if table == "rag" else uuid_table(rows)
    key = "chunk_id" if table == "rag" else "id"
    tbl = hudi.HudiTable.create(out, record_key=key, table_type="mor", record_index_enabled=True)
    c0, w0 = cpu_seconds(), time.perf_counter()
    tbl.append(t, {"hoodie.parquet.compression.codec": "snappy"})
    return {"op": "bulk_load", "table": table, "rows": t.num_rows, "cpu_s": round(cpu_seconds() - c0, 3),
            "wall_s": round(time.perf_counter() - w0, 3), "bytes": dir_bytes(out)}


def save_changes(table: str, rows: int, out: str) -> list:
    """Writes the commits' rows to out-upsert.parquet and out-delete.parquet, so the committing process
    holds only them: generating the whole table there left its heap 4x larger at 4x the rows, which
    showed up as page faults in the commit being measured."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    batch, dele = rag_changes(rows) if table == "rag" else changes(rows)
    pq.write_table(batch, out + "-upsert.parquet")
    pq.write_table(pa.table({"key": dele}), out + "-delete.parquet")
    return []


def load_changes(out: str):
    import pyarrow.parquet as pq

    return pq.read_table(out + "-upsert.parquet"), pq.read_table(out + "-delete.parquet")["key"]


def commit(rows: int, out: str, bloom: str, changes_at: str) -> list:
    import hudi

    batch, dele = load_changes(changes_at)
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
        r = {"op": op, "rows": rows, "rows_changed": batch.num_rows if op == "upsert" else len(dele), "bloom": bloom,
             "cpu_s": round(c1 - c0, 3), "wall_s": round(w1 - w0, 3),
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


def file_states(root: str) -> dict:
    """Every file under root: (inode, size, mtime_ns)."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            st = os.stat(os.path.join(d, f))
            out[os.path.relpath(os.path.join(d, f), root)] = (st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def link_tree(src: str, dst: str) -> dict:
    """dst as a copy of src whose files are hard links (the writer only ever adds files and replaces
    them by rename, so src is left as it was; main() checks that after every commit). Returns
    file_states(src).

    Linked copies, deleted only at the end (main): on ext4 without a journal (this VM) the inode
    allocator steps over every inode freed in the last minute (five while its inode-table block is
    dirty), checking each, before it takes one. After the harness had deleted previous copies, that
    was ~50% of a rag-chunks delete's CPU in a profile, and more the more files the commit creates
    (a larger table: more file groups touched). Deleting a byte copy frees an inode per file; a
    linked copy, only the commit's new files and the copy's directories."""
    for d, dirs, files in os.walk(src):
        rel = os.path.relpath(d, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for f in files:
            os.link(os.path.join(d, f), os.path.join(dst, rel, f))
    return file_states(src)


def summary(results: list) -> list:
    """Medians per (build, rows, bloom, op) of CPU and wall seconds, and each size's CPU against the
    size before it (the issue's "4x larger table, <= 1.3x the time")."""
    import statistics

    keys = sorted({(r.get("build", 0), r["rows"], r["bloom"], r["op"]) for r in results if r["op"] != "bulk_load"})
    out, prev = [], {}
    for build_i, rows, bloom, op in keys:
        rs = [r for r in results
              if (r.get("build", 0), r.get("rows"), r.get("bloom"), r["op"]) == (build_i, rows, bloom, op)]
        m = {"summary": op, "build": build_i, "rows": rows, "bloom": bloom, "n": len(rs),
             "cpu_s_median": round(statistics.median(r["cpu_s"] for r in rs), 3),
             "wall_s_median": round(statistics.median(r["wall_s"] for r in rs), 3),
             "load1": [r["load1"] for r in rs]}
        p = prev.get((build_i, bloom, op))
        if p:
            m["x_rows_vs_prev"] = round(rows / p["rows"], 2)
            m["x_cpu_vs_prev"] = round(m["cpu_s_median"] / p["cpu_s_median"], 2)
            m["x_wall_vs_prev"] = round(m["wall_s_median"] / p["wall_s_median"], 2)
        prev[(build_i, bloom, op)] = m
        out.append(m)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="500000,2000000")
    ap.add_argument("--reps", type=int, default=1,
                    help="commits per size and bloom setting, each on a fresh copy of the loaded table; the "
                         "sizes take turns, so a drift in the machine's speed falls on all of them; medians "
                         "are printed at the end")
    ap.add_argument("--bloom", default="on,off", help="bloom filter settings to run (on, off or both)")
    ap.add_argument("--table", default="uuid", choices=("uuid", "rag"),
                    help="uuid: the uuid table, upserts of 10,000 + 1,000 new keys, deletes of 1,000; rag: the "
                         "rag-chunks scenario's table (--rows counts chunks), 1,000 documents re-ingested, 100 "
                         "deleted")
    ap.add_argument("--keep", default=None, help="write tables under DIR and keep them")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: take the loaded tables and commits' rows a previous run left in DIR")
    ap.add_argument("--python", default=os.environ.get("PYTHONPATH", ""),
                    help="PYTHONPATH of the hudi package; several, comma-separated, take turns in every rep "
                         "(an A/B comparison: results and medians carry the build's index)")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        kind, table, rows, out = a.one[0], a.one[1], int(a.one[2]), a.one[3]
        if kind == "build":
            res = build(table, rows, out)
        elif kind == "changes":
            res = save_changes(table, rows, out)
        else:
            res = commit(rows, out, a.one[4], a.one[5])
        print(json.dumps(res if isinstance(res, list) else [res]))
        return 0
    root = a.keep or tempfile.mkdtemp(prefix="mor_upsert_scale_")
    sizes = [int(x) for x in a.rows.split(",")]
    builds = a.python.split(",")
    results = []
    try:
        for rows in sizes:
            base, ch = os.path.join(root, f"base-{rows}"), os.path.join(root, f"changes-{rows}")
            if a.reuse and os.path.isdir(os.path.join(base, ".hoodie")) and os.path.exists(ch + "-delete.parquet"):
                continue
            shutil.rmtree(base, ignore_errors=True)
            for r in sub(["build", a.table, str(rows), base], builds[0]):
                print(json.dumps(r), flush=True)
                results.append(r)
            sub(["changes", a.table, str(rows), ch], builds[0])
        copies = []
        for rep in range(a.reps):
            for rows in sizes:
                for bloom in a.bloom.split(","):
                    for b, py in enumerate(builds):
                        # Copies are deleted at the end, not between commits: on ext4 without a
                        # journal, files deleted in the last minutes slow every file creation
                        # (link_tree), so deleting one here would charge it to the next commit.
                        t = os.path.join(root, f"t-{rows}-{bloom}-{rep}-{b}")
                        base = os.path.join(root, f"base-{rows}")
                        shutil.rmtree(t, ignore_errors=True)
                        before = link_tree(base, t)
                        copies.append(t)
                        os.sync()
                        for r in sub(["commit", a.table, str(rows), t, bloom, os.path.join(root, f"changes-{rows}")],
                                     py):
                            if len(builds) > 1:
                                r["build"] = b
                            print(json.dumps(r), flush=True)
                            results.append(r)
                        if file_states(base) != before:
                            raise SystemExit(f"{base} changed under a commit into its linked copy {t}")
        for t in copies:
            shutil.rmtree(t, ignore_errors=True)
        for m in summary(results):
            print(json.dumps(m), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
