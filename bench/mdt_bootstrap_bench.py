"""What building the metadata table of an existing table costs (hoodie.metadata.enable=true in a
write's options, src/table/mdt_bootstrap.c; issue 6).

Builds once a MERGE_ON_READ table of the seeded uuid rows (bench/bulk_load_bench.py's uuid_table)
without a metadata table, then, per repetition, in a fresh subprocess on a hard-linked copy
(bench/mor_upsert_scale.py's link_tree): a delete of one absent key with
hoodie.metadata.enable=true, which builds `files` and `record_index` and then commits nothing, so
the call measures the bootstrap alone. Beside it, in the same run and the same kind of process:
pyarrow reading the `_hoodie_record_key` column of every base file (the read the bootstrap cannot
avoid), and the bulk load of the same rows into a table with the metadata table (which builds the
same index while writing the files). With --add-rli, also a record index added to the metadata
table of a table that has `files` only (hoodie.metadata.record.index.enable=true on the same
delete, on hard-linked copies of a second table loaded with the metadata table but no record
index; the keys read through `files`). Reported: wall and process CPU seconds, the bytes the
bootstrap wrote under .hoodie/metadata, the 1-minute load average.

usage: python bench/mdt_bootstrap_bench.py [--rows 2000000] [--reps 3] [--keep DIR] [--add-rli]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD = r"""
import json, os, resource, sys, time
import pyarrow.parquet as pq
from hudi import HudiTable
what, path = sys.argv[1], sys.argv[2]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c0, t0 = cpu(), time.perf_counter()
if what == "bootstrap":
    HudiTable(path).delete_keys(["absent-key"], {"hoodie.metadata.enable": "true"})
elif what == "add_rli":
    HudiTable(path).delete_keys(["absent-key"], {"hoodie.metadata.record.index.enable": "true"})
elif what == "pyarrow_keys":
    n = 0
    for d, _, files in os.walk(path):
        if "/.hoodie" in d:
            continue
        for f in files:
            if f.endswith(".parquet"):
                n += pq.read_table(os.path.join(d, f), columns=["_hoodie_record_key"]).num_rows
    assert n > 0
print(json.dumps({"wall_s": time.perf_counter() - t0, "cpu_s": cpu() - c0}))
"""

LOAD = r"""
import json, resource, sys, time
import pyarrow as pa
from hudi import HudiTable
sys.path.insert(0, sys.argv[3])
from bulk_load_bench import uuid_table
path, rows, mode = sys.argv[1], int(sys.argv[2]), sys.argv[4]
data = uuid_table(rows)
opts = {"1": {}, "0": {"hoodie.metadata.enable": "false"}, "files": {"hoodie.metadata.enable": "true"}}[mode]
t = HudiTable.create(path, "id", table_type="mor", record_index_enabled=mode == "1", hudi_options=opts)
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c0, t0 = cpu(), time.perf_counter()
t.append(data)
print(json.dumps({"wall_s": time.perf_counter() - t0, "cpu_s": cpu() - c0}))
"""


def run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["load1"] = os.getloadavg()[0]
    return r


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> None:
    from mor_upsert_scale import link_tree

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--keep", help="directory for the tables (default: a temporary one, deleted)")
    ap.add_argument("--add-rli", action="store_true", help="also time a record index added to a files-only MDT")
    a = ap.parse_args()
    work = Path(a.keep or tempfile.mkdtemp(prefix="mdt_bootstrap_"))
    here = str(Path(__file__).resolve().parent)
    base = work / "base"
    if not base.exists():
        print(json.dumps({"op": "bulk_load_without_mdt", **run(LOAD, str(base), str(a.rows), here, "0")}))
    files_only = work / "files_only"
    if a.add_rli and not files_only.exists():
        print(json.dumps({"op": "bulk_load_files_only_mdt", **run(LOAD, str(files_only), str(a.rows), here, "files")}))
    results = []
    for rep in range(a.reps):
        copy = work / f"copy{rep}"
        shutil.rmtree(copy, ignore_errors=True)
        link_tree(str(base), str(copy))
        r = {"op": "bootstrap", "rows": a.rows, **run(CHILD, "bootstrap", str(copy))}
        r["mdt_bytes"] = tree_bytes(copy / ".hoodie" / "metadata")
        results.append(r)
        print(json.dumps(r), flush=True)
        results.append({"op": "pyarrow_keys", "rows": a.rows, **run(CHILD, "pyarrow_keys", str(copy))})
        print(json.dumps(results[-1]), flush=True)
        shutil.rmtree(copy)
        if a.add_rli:
            link_tree(str(files_only), str(copy))
            r = {"op": "add_record_index", "rows": a.rows, **run(CHILD, "add_rli", str(copy))}
            r["record_index_bytes"] = tree_bytes(copy / ".hoodie" / "metadata" / "record_index")
            results.append(r)
            print(json.dumps(r), flush=True)
            shutil.rmtree(copy)
        with_mdt = work / f"with_mdt{rep}"
        shutil.rmtree(with_mdt, ignore_errors=True)
        results.append({"op": "bulk_load_with_mdt", "rows": a.rows, **run(LOAD, str(with_mdt), str(a.rows), here, "1")})
        print(json.dumps(results[-1]), flush=True)
        shutil.rmtree(with_mdt)
    if not a.keep:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
