"""Requests and bytes of record-index lookups under different HFile read-coalescing limits (issue 10).

A record-index lookup in a metadata-table HFile on an object store merges the reads of nearby
blocks into one GET (src/table/mdt_reader_log.h: blocks at most HUDI_MDT_REMOTE_COALESCE_GAP apart,
at most HUDI_MDT_REMOTE_COALESCE_MAX per read; src/hfile/reader.c: at most COALESCE_DENSITY times
the bytes the needed blocks bring): bytes are traded for requests. This sweep bulk-loads one table
per object store (s3 on moto, az on azurite; bench/objstore/objstore_bench.py's data and servers),
then runs, for each setting in turn, one upsert (--upsert existing keys + 10% new) and one delete
(--delete keys) and one snapshot read, each counting our client's requests and body bytes
(HUDI_OBJSTORE_TRACE), split into metadata-table GETs and the rest. Each round adds small log
files to the table (read whole, whatever the limits), so the measure that isolates the limits is
the GETs and bytes of the record-index shard logs the bulk load wrote (larger than the request
cache's 1 MiB whole-file limit, so read by ranges): "watched" below. The first setting runs again
last, to show the drift the growing table adds. Oracle: every read equals the expected table
built with pyarrow alone.

The limits are compile-time constants; the sweep needs a scratch build whose two call sites read
them from the environment (HUDI_EXP_CO_GAP, HUDI_EXP_CO_MAX, HUDI_EXP_CO_DENSITY):
coalesce_sweep.patch, applied to a copy of the tree, never to the tree itself.

  PYTHONPATH=/tmp/exp-py .venv/bin/python bench/objstore/coalesce_sweep.py --rows 1000000 \
      --out bench/objstore/results/coalesce-sweep.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import objstore_bench as ob  # noqa: E402

import hudi  # noqa: E402

MIB = 1 << 20
# name: (gap, max, density)
SETTINGS = {
    "current 1M/8M/16x": (MIB, 8 * MIB, 16),
    "gap 256K": (256 << 10, 8 * MIB, 16),
    "gap 64K": (64 << 10, 8 * MIB, 16),
    "gap 4M/max 32M/64x": (4 * MIB, 32 * MIB, 64),
    "density 4x": (MIB, 8 * MIB, 4),
    "density 64x": (MIB, 8 * MIB, 64),
    "adjacent only (local's)": (0, MIB, 16),
}
# MDT compaction would rewrite the record index half-way through the sweep: held off, like cleaning.
OPTS = {"hoodie.clean.automatic": "false", "hoodie.metadata.compact.max.delta.commits": "1000"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--engine", default="mor")
    ap.add_argument("--backends", default="s3,az")
    ap.add_argument("--upsert", type=int, default=10_000)
    ap.add_argument("--delete", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--settings", default=",".join(SETTINGS),
                    help="comma-separated names of SETTINGS, in order (the first runs again last)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on kill
    names = args.settings.split(",")
    assert all(n in SETTINGS for n in names), f"--settings: choose from {list(SETTINGS)}"
    names.append(names[0])
    rng = np.random.default_rng(args.seed)
    base = ob.base_table(rng, args.rows)
    plan = ob.rounds_of(rng, base, len(names), args.upsert, args.delete)
    work = Path(tempfile.mkdtemp(prefix="coalesce-sweep-"))
    trace = ob.Trace(work / "requests.trace")
    res: dict = {"rows": args.rows, "engine": args.engine, "argv": sys.argv[1:], "settings": SETTINGS,
                 "write_options": OPTS, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                 "load_at_start": os.getloadavg(), "runs": []}
    servers = []
    try:
        for b in args.backends.split(","):
            s = ob.Server(b, work)
            servers.append(s)
            uri, opts = s.uri(f"sweep-{args.engine}-{os.getpid()}/t"), s.options()
            t = hudi.HudiTable.create(uri, "id", ordering_fields="seq", table_type=args.engine,
                                      record_index_enabled=True, storage_options=opts)
            pos = trace.pos()
            _, m = ob.timed(lambda: t.append(base), s, trace)
            print(f"[{b}] bulk_load {ob.fmt(m)}", flush=True)
            # The record-index files the bulk load wrote (multipart/staged uploads: the query dropped).
            watch = {target.partition("?")[0] for method, _st, target, _d, _u in trace.lines_since(pos)
                     if method == "PUT" and "/.hoodie/metadata/record_index/" in target and ".log." in target}
            res.setdefault("watched", {})[b] = sorted(watch)
            for name, (batch, gone, expected) in zip(names, plan):
                gap, mx, dens = SETTINGS[name]
                os.environ.update(HUDI_EXP_CO_GAP=str(gap), HUDI_EXP_CO_MAX=str(mx), HUDI_EXP_CO_DENSITY=str(dens))
                row = {"backend": b, "setting": name, "gap": gap, "max": mx, "density": dens}
                for op, fn in (("upsert", lambda: hudi.HudiTable(uri, opts).upsert(batch, OPTS)),
                               ("delete", lambda: hudi.HudiTable(uri, opts).delete_keys(gone, OPTS)),
                               ("read", lambda: ob.read_all(uri, opts))):
                    got, m = ob.timed(fn, s, trace, watch)
                    row[op] = m
                    q = m["requests"]
                    print(f"[{b}] {name:<24} {op:<6} {ob.fmt(m)} mdt GET {q.get('GET mdt', 0)}"
                          f" {q.get('GET mdt bytes', 0) / 1e6:.1f}MB bulk-load RLI logs GET {q.get('GET watched', 0)}"
                          f" {q.get('GET watched bytes', 0) / 1e6:.2f}MB", flush=True)
                assert ob.canon(got).equals(ob.canon(expected)), f"{b} {name}: read differs from pyarrow's table"
                res["runs"].append(row)
        print(table(res["runs"]))
    finally:
        for k in ("HUDI_EXP_CO_GAP", "HUDI_EXP_CO_MAX", "HUDI_EXP_CO_DENSITY"):
            os.environ.pop(k, None)
        for s in servers:
            s.stop()
        shutil.rmtree(work, ignore_errors=True)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(res, indent=1, default=str))
    return 0


def table(runs: list) -> str:
    out = ["| store | setting | op | wall s | our CPU s | server CPU s | requests | MDT GETs | MDT MB down | MB down "
           "| bulk-load RLI log GETs | their MB |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for op in ("upsert", "delete", "read"):
            m = r[op]
            q = m["requests"]
            out.append(f"| {r['backend']} | {r['setting']} | {op} | {m['seconds']:.2f} | {m['cpu_seconds']:.2f} | "
                       f"{m['server_cpu_seconds']:.2f} | {q['total']} | {q.get('GET mdt', 0)} | "
                       f"{q.get('GET mdt bytes', 0) / 1e6:.1f} | {q['bytes_down'] / 1e6:.1f} | "
                       f"{q.get('GET watched', 0)} | {q.get('GET watched bytes', 0) / 1e6:.2f} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
