"""The tpcds-web-returns scenario's first commits, one at a time, on copies of one table.

The harness (bench/upsert) runs a scenario's commits once each, in sequence; to compare two builds
on one commit, this script loads the table once and then times a chosen commit on a fresh copy
of the table before it, as often as asked, in this process (run it once per build, alternating):

  load   bulk-load base.parquet into WORK/base (MOR, record index, no ordering field)
  up1    upsert r1-upsert.parquet (79k rows, 72k new: they fill the one small base file, which is
         rewritten, as Hudi does) on a copy of WORK/base; leaves WORK/after-up1
  del1   delete r1-delete.parquet's keys (36k) on a copy of WORK/after-up1; leaves WORK/after-del1
  up2    upsert r2-upsert.parquet (its 72k new rows go into a new base file: the small file has
         a log file now) on a copy of WORK/after-del1

Prints wall and process CPU seconds of the commit alone and the 1-minute load average. With
PERF_PID_FILE set, writes the process id there and sleeps 1.5 s before the commit (for
`perf record -p`).

  .venv-bench/bin/python bench/upsert/bench.py ... (or scenarios.ensure_data) makes the data;
  PYTHONPATH=/tmp/build-a .venv-bench/bin/python bench/tpcds_upserts.py load up1 del1 up2
  PYTHONPATH=/tmp/build-b .venv-bench/bin/python bench/tpcds_upserts.py up2 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import time
from pathlib import Path

import pyarrow.parquet as pq

import hudi

KEYS = ["wr_item_sk", "wr_order_number"]


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def fresh_copy(work: Path, src: str, dst: str) -> hudi.HudiTable:
    shutil.rmtree(work / dst, ignore_errors=True)
    shutil.copytree(work / src, work / dst)
    os.sync()
    return hudi.HudiTableBuilder.from_base_uri(str(work / dst)).build()


def timed(name: str, fn) -> None:
    pid_file = os.environ.get("PERF_PID_FILE")
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
        time.sleep(1.5)
    c0, t0 = cpu(), time.perf_counter()
    r = fn()
    wall, c = time.perf_counter() - t0, cpu() - c0
    counts = f"inserts {r.num_inserts} updates {r.num_updates} deletes {r.num_deletes}"
    print(f"{name}: {wall:.3f} s wall, {c:.3f} s CPU, {counts}, load {os.getloadavg()[0]:.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("steps", nargs="+", choices=["load", "up1", "del1", "up2"])
    ap.add_argument("--data", type=Path, default=Path(__file__).parent / "upsert/work/data/tpcds-web-returns-s1")
    ap.add_argument("--work", type=Path, default=Path("/tmp/tpcds-upserts"))
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    for step in a.steps:
        for _ in range(a.repeat if step != "load" else 1):
            if step == "load":
                shutil.rmtree(a.work / "base", ignore_errors=True)
                t = hudi.HudiTable.create(str(a.work / "base"), record_key=KEYS, ordering_fields=None, table_type="mor")
                base = pq.read_table(a.data / "base.parquet")
                timed("load", lambda: t.append(base))
            elif step in ("up1", "up2"):
                rows = pq.read_table(a.data / f"r{step[-1]}-upsert.parquet")
                t = fresh_copy(a.work, "base" if step == "up1" else "after-del1", "after-" + step)
                timed(step, lambda: t.upsert(rows))
            else:
                d = pq.read_table(a.data / "r1-delete.parquet")
                keys = [f"{KEYS[0]}:{x},{KEYS[1]}:{y}" for x, y in zip(d[KEYS[0]].to_pylist(), d[KEYS[1]].to_pylist())]
                t = fresh_copy(a.work, "after-up1", "after-del1")
                timed(step, lambda: t.delete_keys(keys))


if __name__ == "__main__":
    main()
