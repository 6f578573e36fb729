"""The metadata-table compaction of a table whose record index already has base files (issues 6 and 9).

The upsert harness (bench/upsert) runs ten commits after a bulk load, so the one metadata
compaction it measures is the first: every record-index shard's base is the bulk load's HFile log
block. Every later compaction merges a shard's base HFile with ten commits' log records, and with
hoodie.metadata.compact.copy.unchanged.blocks (hudi-c's own key, default true) the data blocks of
the base that none of those records falls in are copied as their compressed bytes.

This builds that steady state once: the seeded uuid table (bench/bulk_load_bench.py's uuid_table)
bulk-inserted into a new MERGE_ON_READ table, then upserts of 10,000 existing keys (amount changed)
and 1,000 new keys until the metadata table has compacted once and holds nine deltacommits after
it. Copies of that table (hard links, bench/mor_upsert_scale.py's link_tree) then take, each in a
fresh subprocess, one more such upsert, the one that compacts the metadata table again, with the
option true and false in turn. Reported per commit: wall and process CPU seconds around the call,
the bytes it added, the 1-minute load average; the run fails if the commit did not compact.

With --incremental every write also sets hoodie.metadata.compact.incremental=true (a share of the
metadata table compacted every P commits, P the cores up to 4): the table takes 24 upserts, so
every shard has been compacted from a base file, and each measured run is the next two upserts
(one of them compacts a share), reported one by one.

With --first the measured commit is instead the one that compacts the metadata table for the first
time, on two tables: one bulk-loaded as hudi-c does by default (each record-index shard's keys
written as its base HFile: hoodie.metadata.record.index.initial.base.files, hudi-c's own key), the
other with that option false (the keys in log blocks, as Java's commits write them), so its first
compaction re-encodes every block. Both take the same upserts until the next one compacts.

usage: python bench/mdt_second_compact.py [--rows 10000000] [--reps 3] [--incremental | --first]
                                          [--keep DIR [--reuse]]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bulk_load_bench import cpu_seconds, dir_bytes, uuid_table  # noqa: E402
from mor_upsert_scale import file_states, link_tree  # noqa: E402

COPY = "hoodie.metadata.compact.copy.unchanged.blocks"
N_UPDATE, N_NEW = 10_000, 1_000
OPTS = {"hoodie.parquet.small.file.limit": "0"}  # new keys in a new file group, as bench/upsert
INCREMENTAL = {"hoodie.metadata.compact.incremental": "true"}
INCREMENTAL_UPSERTS = 24
RLI_BASE = "hoodie.metadata.record.index.initial.base.files"


def mdt_state(table: str) -> tuple[int, int]:
    """(completed compactions, completed deltacommits after the latest) of table's metadata table,
    from the timeline's file names (<requested>_<completed>.<action>)."""
    tl = os.path.join(table, ".hoodie", "metadata", ".hoodie", "timeline")
    names = [n for n in os.listdir(tl) if "_" in n]
    commits = sorted(n.split("_")[0] for n in names if n.endswith(".commit"))
    last = commits[-1] if commits else ""
    after = [n for n in names if n.endswith(".deltacommit") and n.split("_")[0] > last]
    return len(commits), len(after)


def batch(rows: int, i: int):
    """Commit i's upsert: every k-th existing key from offset i changed, and new keys of seed 1000+i."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = uuid_table(rows)
    step = rows // N_UPDATE
    upd = t.take(pa.array(range(i % step, step * N_UPDATE, step)))
    upd = upd.set_column(upd.schema.get_field_index("amount"), "amount", pc.add(upd["amount"], 1.0 + i))
    return pa.concat_tables([upd, uuid_table(N_NEW, seed=1000 + i)])


def build(rows: int, out: str, changes: str, kind: str) -> list:
    """The loaded table, upserted until its metadata table is due for its second compaction (or,
    incremental, INCREMENTAL_UPSERTS times; first-true / first-false: its first compaction, the
    table created with hoodie.metadata.record.index.initial.base.files true or false); the
    measured commits' rows go to `changes` (changes, or changes.1 and changes.2)."""
    import pyarrow.parquet as pq

    import hudi

    incremental = kind == "incremental"
    first = kind.startswith("first-")
    opts = dict(OPTS, **INCREMENTAL) if incremental else OPTS
    tbl = hudi.HudiTable.create(out, record_key="id", table_type="mor", record_index_enabled=True,
                                hudi_options={RLI_BASE: kind.split("-")[1]} if first else {})
    tbl.append(uuid_table(rows), opts)
    i = 0
    while True:
        done, after = mdt_state(out)
        if incremental:
            due = i == INCREMENTAL_UPSERTS
        elif first:  # two initialisation deltacommits, the bulk load, upserts: the 10th compacts
            due = done == 0 and after == 9
        else:
            due = done >= 1 and after == 9
        if due:
            break
        i += 1
        tbl.upsert(batch(rows, i), opts)
    if incremental:
        for j in (1, 2):
            pq.write_table(batch(rows, i + j), f"{changes}.{j}")
    else:
        pq.write_table(batch(rows, i + 1), changes)
    return [{"op": "build", "kind": kind, "rows": rows, "upserts": i, "compactions": mdt_state(out)[0],
             "bytes": dir_bytes(out)}]


def commit(out: str, copy: str, changes: str, incremental: bool, label: dict | None = None) -> list:
    import pyarrow.parquet as pq

    import hudi

    files = [f"{changes}.1", f"{changes}.2"] if incremental else [changes]
    opts = dict(OPTS, **{COPY: copy}, **(INCREMENTAL if incremental else {}))
    res = []
    for f in files:
        data = pq.read_table(f)
        tbl = hudi.HudiTable(out)
        before, b0 = mdt_state(out), dir_bytes(out)
        c0, w0 = cpu_seconds(), time.perf_counter()
        tbl.upsert(data, opts)
        c1, w1 = cpu_seconds(), time.perf_counter()
        res.append({"op": "upsert", "copy": copy, **(label or {}), "rows_changed": data.num_rows,
                    "compacted": mdt_state(out)[0] - before[0], "cpu_s": round(c1 - c0, 3),
                    "wall_s": round(w1 - w0, 3), "bytes": dir_bytes(out) - b0, "load1": round(os.getloadavg()[0], 2)})
    if sum(r["compacted"] for r in res) < 1:
        raise SystemExit(f"the measured upserts did not compact the metadata table: {res}")
    return res


def sub(args: list) -> list:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--reps", type=int, default=3, help="commits per setting, the settings taking turns")
    ap.add_argument("--keep", default=None, help="write tables under DIR and keep them")
    ap.add_argument("--reuse", action="store_true", help="with --keep: take the table a previous run left")
    ap.add_argument("--incremental", action="store_true",
                    help="hoodie.metadata.compact.incremental=true on every write; two upserts per run")
    ap.add_argument("--first", action="store_true",
                    help="measure the first compaction, bulk load with and without record-index base files")
    ap.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        kind = a.one[-1]
        if a.one[0] == "build":
            res = build(int(a.one[1]), a.one[2], a.one[3], kind)
        else:
            label = {"rli_base_files": kind.split("-")[1]} if kind.startswith("first-") else None
            res = commit(*a.one[1:4], kind == "incremental", label)
        print(json.dumps(res))
        return 0
    root = a.keep or tempfile.mkdtemp(prefix="mdt_second_compact_")
    # (setting, table kind): the copy option's two values on one table, or (--first) the default
    # copy option on two tables, their record index bulk-loaded as base files or as logs
    if a.first:
        settings = [("true", "first-true"), ("false", "first-false")]
    else:
        kind = "incremental" if a.incremental else "default"
        settings = [("true", kind), ("false", kind)]
    results, copies = [], []
    try:
        for kind in sorted({k for _, k in settings}):
            base = os.path.join(root, f"base-{kind}-{a.rows}")
            changes = os.path.join(root, f"changes-{kind}-{a.rows}.parquet")
            if not (a.reuse and os.path.exists(changes + (".2" if kind == "incremental" else ""))):
                shutil.rmtree(base, ignore_errors=True)
                for r in sub(["build", str(a.rows), base, changes, kind]):
                    print(json.dumps(r), flush=True)
        for rep in range(a.reps):
            for setting, kind in settings:
                base = os.path.join(root, f"base-{kind}-{a.rows}")
                changes = os.path.join(root, f"changes-{kind}-{a.rows}.parquet")
                t = os.path.join(root, f"t-{setting}-{rep}")
                shutil.rmtree(t, ignore_errors=True)
                state = link_tree(base, t)
                copies.append(t)
                os.sync()
                copy = "true" if a.first else setting
                for r in sub(["commit", t, copy, changes, kind]):
                    r["setting"] = setting
                    print(json.dumps(r), flush=True)
                    results.append(r)
                if file_states(base) != state:
                    raise SystemExit(f"{base} changed under a commit into its linked copy {t}")
        for t in copies:
            shutil.rmtree(t, ignore_errors=True)
        name = RLI_BASE if a.first else COPY
        for setting, _ in settings:
            rs = [r for r in results if r["setting"] == setting]
            for compacted in sorted({r["compacted"] for r in rs}):
                rc = [r for r in rs if r["compacted"] == compacted]
                print(json.dumps({"summary": "upsert", name: setting, "compacted": compacted, "n": len(rc),
                                  "wall_s_median": statistics.median(r["wall_s"] for r in rc),
                                  "cpu_s_median": statistics.median(r["cpu_s"] for r in rc),
                                  "wall_s_max": max(r["wall_s"] for r in rc),
                                  "load1": [r["load1"] for r in rc]}), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
