"""Snapshot read of one table: hudi-c (file-system view from the metadata
table, and from a storage listing) against hudi-rs (PyPI `hudi`), each in
its own process, in the same run.

    # make the table with hudi-c (its `.venv`), then time the readers
    PYTHONPATH=/tmp/my-hudi-build .venv/bin/python bench/read/read_bench.py \\
        --work /tmp/read-bench --rows 1000000 --kind mor --rounds 5 --repeat 3

(issue 5's table: 1M rows, 5 delta commits of 10k updates each on MOR)

Per engine and round: wall and process CPU time (all threads) of opening
the table and reading every row into a pyarrow Table, and of planning alone
(the file slices). Every engine must return the same row count and the same
sum of a column, else the run fails. Peak RSS is the engine process's
high-water mark (VmHWM) over the rounds, next to its RSS after the
imports ("base"). The load average is printed with the results. hudi-rs's interpreter: $HUDI_RS_PYTHON, else the interop setup's
(~/.cache/hudi-c/interop.env).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ENGINES = ["hudi-c", "hudi-c-listing", "hudi-rs"]


def hudi_rs_python() -> str:
    if os.environ.get("HUDI_RS_PYTHON"):
        return os.environ["HUDI_RS_PYTHON"]
    env = Path.home() / ".cache" / "hudi-c" / "interop.env"
    for line in env.read_text().splitlines() if env.exists() else []:
        if line.startswith("HUDI_RS_PYTHON="):
            return line.split("=", 1)[1]
    raise SystemExit("hudi-rs interpreter not found: set HUDI_RS_PYTHON")


def make_table(path: Path, rows: int, kind: str, rounds: int, partitions: int) -> None:
    import numpy as np
    import pyarrow as pa
    from hudi import HudiTable

    rng = np.random.default_rng(7)

    def batch(ids: np.ndarray, ts: int) -> pa.Table:
        n = len(ids)
        return pa.table({
            "id": pa.array([f"key-{i:09d}" for i in ids], pa.string()),
            "ts": pa.array(np.full(n, ts, np.int64)),
            "p": pa.array([f"p{i % partitions}" for i in ids], pa.string()),
            "v": pa.array(rng.integers(0, 1_000_000, n, dtype=np.int64)),
            "d": pa.array(rng.random(n)),
            "s": pa.array([f"text {i % 997} of row" for i in ids], pa.string()),
        })

    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(batch(np.arange(rows), 1), {"hoodie.parquet.max.file.size": str(16 << 20)})
    for r in range(rounds):  # 1% updates per round: log files on MOR, rewrites on COW
        ids = rng.choice(rows, max(1, rows // 100), replace=False)
        HudiTable(str(path)).upsert(batch(np.sort(ids), 2 + r))


def peak_rss_mb() -> float:
    """This process's high-water RSS. VmHWM belongs to the address space
    made at exec; ru_maxrss also counts the parent's RSS at fork (the
    table-making parent's, on a first run), so it is only the fallback."""
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_engine(engine: str, table: str, repeat: int) -> dict:
    """Runs inside the engine's own interpreter."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from hudi import HudiReadOptions

    if engine == "hudi-rs":
        from hudi import HudiTableBuilder  # noqa: F401  (imported before the base RSS)
    else:
        from hudi import HudiTable  # noqa: F401
    out = {"engine": engine, "rounds": [], "base_rss_mb": peak_rss_mb()}
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        if engine == "hudi-rs":
            from hudi import HudiTableBuilder

            t = HudiTableBuilder.from_base_uri(table).build()
            n_slices = len(t.get_file_slices())
        else:
            from hudi import HudiTable

            opts = {"hoodie.metadata.enable": "false"} if engine == "hudi-c-listing" else {}
            t = HudiTable(table)
            n_slices = len(t.get_file_slices(HudiReadOptions().with_hudi_options(opts)))
        w1, c1 = time.perf_counter(), time.process_time()
        if engine == "hudi-rs":
            batches = t.read(HudiReadOptions())
        else:
            batches = t.read(HudiReadOptions().with_hudi_options(opts))
        tab = pa.Table.from_batches(batches)
        w2, c2 = time.perf_counter(), time.process_time()
        out["rounds"].append({"plan_wall": w1 - w0, "plan_cpu": c1 - c0, "read_wall": w2 - w1, "read_cpu": c2 - c1,
                              "rows": tab.num_rows, "slices": n_slices,
                              "sum_v": int(pc.sum(tab["v"]).as_py() or 0)})
        del tab, batches  # one read's memory at a time
    out["peak_rss_mb"] = peak_rss_mb()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/hudi-read-bench")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--kind", choices=["cow", "mor"], default="mor")
    ap.add_argument("--rounds", type=int, default=5, help="upsert rounds (1%% of the rows each) after the load")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--engine", help=argparse.SUPPRESS)  # internal: run one engine here
    ap.add_argument("--table", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.engine:
        print(json.dumps(run_engine(a.engine, a.table, a.repeat)))
        return
    table = Path(a.work) / f"t-{a.kind}-{a.rows}-p{a.partitions}-r{a.rounds}"
    if not (table / ".hoodie" / "hoodie.properties").exists():
        t0 = time.perf_counter()
        make_table(table, a.rows, a.kind, a.rounds, a.partitions)
        print(f"made {table} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    results = []
    for e in a.engines.split(","):
        py = hudi_rs_python() if e == "hudi-rs" else sys.executable
        env = dict(os.environ)
        if e == "hudi-rs":
            env.pop("PYTHONPATH", None)
        r = subprocess.run([py, __file__, "--engine", e, "--table", str(table), "--repeat", str(a.repeat)],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise SystemExit(f"{e} failed:\n{r.stderr}")
        results.append(json.loads(r.stdout.strip().splitlines()[-1]))
    ref = results[0]["rounds"][0]
    print(f"table {table.name}: {ref['rows']} rows; load average {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"{'engine':16} {'slices':>6} {'plan wall':>10} {'plan cpu':>9} {'read wall':>10} {'read cpu':>9} {'base RSS':>9} {'peak RSS':>9}  (best of "
          f"{a.repeat}, seconds; RSS MB)")
    ok = True
    for res in results:
        best = min(res["rounds"], key=lambda x: x["plan_wall"] + x["read_wall"])
        plan = min(x["plan_wall"] for x in res["rounds"])
        plan_cpu = min(x["plan_cpu"] for x in res["rounds"])
        print(f"{res['engine']:16} {best['slices']:>6} {plan:>10.3f} {plan_cpu:>9.3f} {best['read_wall']:>10.3f} "
              f"{best['read_cpu']:>9.3f} {res['base_rss_mb']:>9.0f} {res['peak_rss_mb']:>9.0f}")
        for x in res["rounds"]:
            if (x["rows"], x["sum_v"]) != (ref["rows"], ref["sum_v"]):
                print(f"  MISMATCH: {res['engine']} read {x['rows']} rows, sum(v) {x['sum_v']}; "
                      f"expected {ref['rows']}, {ref['sum_v']}")
                ok = False
    print(json.dumps(results), file=open(Path(a.work) / f"results-{table.name}.json", "w"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
