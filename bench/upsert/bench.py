"""Upsert benchmark: the same commits against hudi-c, delta-rs and PyIceberg, one scenario at a time.

    python bench/upsert/bench.py --scenario rag-chunks --scale 1.0
    python bench/upsert/bench.py --scenario all --scale 0.01        # smoke run

For each scenario: generate (or reuse) the seeded input and the pyarrow-built expected end state,
then run every engine's whole sequence (bulk load, 5 x (upsert, delete), reads) in its own process
while this process samples that process's RSS. Writes results/<scenario>-<timestamp>.json and
exits non-zero if any engine that ran produced a wrong table or an error. Engines that cannot run
here (hudi-c until it writes) appear as "not available" rows with the reason.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psutil  # noqa: E402

from common import BENCH_DIR, DEFAULT_WORK_DIR, REPO_DIR, RESULTS_DIR, machine_state, package_versions  # noqa: E402
from scenarios import SCENARIOS, data_dir  # noqa: E402

ENGINES = ["hudi-c-mor", "hudi-c-cow", "delta-rs", "pyiceberg"]
# run only when named in --engines
OPTIONAL_ENGINES = ["hudi-c-mor-async", "hudi-c-mor-incremental"]
SAMPLE_EVERY_S = 0.01


class RssSampler(threading.Thread):
    """Samples a process's resident set (with its children) until it exits."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.proc = psutil.Process(pid)
        self.samples: List[Tuple[float, int]] = []

    def run(self) -> None:
        # Listing children scans /proc (costly at 100 Hz on a 2-core machine), so it is done once a
        # second; the engines run in threads, so there are normally none.
        children: List[psutil.Process] = []
        n = 0
        while True:
            try:
                if n % 100 == 0:
                    children = self.proc.children(recursive=True)
                rss = self.proc.memory_info().rss
            except psutil.Error:
                return
            for c in children:
                try:
                    rss += c.memory_info().rss
                except psutil.Error:
                    pass
            self.samples.append((time.monotonic(), rss))
            n += 1
            time.sleep(SAMPLE_EVERY_S)

    def peak(self, t0: float, t1: float, floor: int) -> Tuple[int, int]:
        window = [r for t, r in self.samples if t0 <= t <= t1]
        return max(window + [floor]), len(window)


def run_engine(engine: str, data: Path, tables: Path, log) -> Dict[str, Any]:
    from adapters import ADAPTERS

    cls = ADAPTERS[engine]
    reason = cls.availability()  # cheap: an import and a feature test; saves a process start
    if reason:
        return {"engine": engine, "label": cls.name, "status": "not available", "reason": reason}
    root = tables / engine
    if root.exists():
        shutil.rmtree(root)
    out = tables / f"{engine}.json"
    cmd = [sys.executable, str(BENCH_DIR / "worker.py"), "--engine", engine, "--data", str(data),
           "--table-root", str(root), "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd)
    sampler = RssSampler(proc.pid)
    sampler.start()
    rc = proc.wait()
    sampler.join(timeout=2)
    wall = time.perf_counter() - t0
    if not out.exists():
        return {"engine": engine, "label": cls.name, "status": "error", "reason": f"worker exited {rc} without results"}
    res = json.loads(out.read_text())
    res["worker_exit"] = rc
    if res.get("status") == "running":  # the process died inside the engine
        import signal

        how = f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited {rc}"
        done = res["ops"][-1] if res.get("ops") else None
        after = f"after {done['op']} r{done['round']}" if done else "before its first operation"
        res.update(status="error", reason=f"the {res.get('label', engine)} process was {how} {after} "
                                          "(partial figures kept)")
    res["process_seconds"] = round(wall, 2)
    res["rss_samples"] = len(sampler.samples)
    for o in res.get("ops", []):
        o["rss_peak_bytes"], o["rss_samples"] = sampler.peak(o["mono0"], o["mono1"], max(o["rss_before"], o["rss_after"]))
    return res


def git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO_DIR), "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except Exception:
        return "unknown"


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def summarize(res: Dict[str, Any], log) -> None:
    if res.get("status") not in ("ok", "failed"):
        log(f"  {res.get('label', res['engine'])}: {res.get('status')}: {res.get('reason')}")
        return
    log(f"  {res['label']}: {res['status']}  (process {res['process_seconds']}s, "
        f"peak RSS {fmt_bytes(res['ru_maxrss_commits_bytes'])} through the commits)")
    for o in res["ops"]:
        if o["op"] == "create":
            continue
        log(f"    {o['op']:<17} r{o['round']}  {o['seconds']:8.3f}s  cpu {o.get('cpu_seconds', float('nan')):7.2f}s  rows {o['rows']:>9}  "
            f"new files {fmt_bytes(o['new_file_bytes']):>10}  dir {fmt_bytes(o['dir_delta_bytes']):>10}  "
            f"RSS peak {fmt_bytes(o['rss_peak_bytes']):>10}  load {o['machine_before']['loadavg_1m']}")
    for c in res["checks"]:
        if c["ok"] is False:
            log(f"    CHECK FAILED: {c['detail']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", required=True, help=f"one of {', '.join(SCENARIOS)}, or 'all'")
    ap.add_argument("--scale", type=float, default=1.0, help="row-count factor: 1.0 for the record, 0.01 to smoke")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated subset of " + ",".join(ENGINES))
    ap.add_argument("--work-dir", type=Path, default=DEFAULT_WORK_DIR, help="generated data and tables")
    ap.add_argument("--results-dir", type=Path, default=RESULTS_DIR)
    ap.add_argument("--keep-tables", action="store_true", help="leave the engines' tables on disk")
    ap.add_argument("--require-all", action="store_true",
                    help="an engine that is not available fails the run too (CI: hudi-c must run)")
    args = ap.parse_args()

    scenarios = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    for s in scenarios:
        if s not in SCENARIOS:
            ap.error(f"unknown scenario {s!r}")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES + OPTIONAL_ENGINES:
            ap.error(f"unknown engine {e!r}")

    def log(msg: str) -> None:
        print(msg, flush=True)

    args.results_dir.mkdir(parents=True, exist_ok=True)
    bad = 0
    for scenario in scenarios:
        log(f"== {scenario} at scale {args.scale:g}")
        started = datetime.now(timezone.utc)
        args.work_dir.mkdir(parents=True, exist_ok=True)
        m0 = machine_state(args.work_dir)
        # generated in a child process: the generator's memory (GBs at full scale) is not kept
        # by this process while the engines run
        subprocess.run([sys.executable, str(BENCH_DIR / "scenarios.py"), scenario, f"{args.scale:g}",
                        str(args.work_dir)], check=True)
        data = data_dir(args.work_dir, scenario, args.scale)
        meta = json.loads((data / "meta.json").read_text())
        tables = args.work_dir / "tables" / f"{scenario}-s{args.scale:g}"
        tables.mkdir(parents=True, exist_ok=True)
        results = []
        for engine in engines:
            res = run_engine(engine, data, tables, log)
            summarize(res, log)
            results.append(res)
            if res.get("status") in ("failed", "error") or (
                    args.require_all and res.get("status") == "not available"):
                bad += 1
                if res.get("traceback"):
                    log(res["traceback"])
        if not args.keep_tables:
            shutil.rmtree(tables, ignore_errors=True)
        doc = {
            "benchmark": "upsert", "scenario": scenario, "scale": args.scale,
            "started_utc": started.isoformat(timespec="seconds"),
            "finished_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "hudi_c_commit": git_commit(),
            # the commit above is the tree's HEAD when the run ended; a hudi package built
            # earlier (or from uncommitted work) is described here: HUDI_BENCH_BUILD_NOTE
            "hudi_c_build_note": os.environ.get("HUDI_BENCH_BUILD_NOTE", ""),
            "host": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                     "mem_total_bytes": psutil.virtual_memory().total},
            "packages": package_versions(["deltalake", "pyiceberg", "pyarrow", "numpy", "psutil", "SQLAlchemy",
                                          "tpcgen-cli", "hudi"]),
            "machine_start": m0, "machine_end": machine_state(args.work_dir),
            "data": {k: meta[k] for k in ("keys", "base_rows", "expected_rows", "rounds", "notes", "seed",
                                          "generate_seconds", "oracle_seconds")},
            "engines": results,
        }
        name = f"{scenario}-s{args.scale:g}-{started.strftime('%Y%m%dT%H%M%SZ')}.json"
        (args.results_dir / name).write_text(json.dumps(doc, indent=1, default=str))
        log(f"results: {args.results_dir / name}")
    if bad:
        log(f"FAILED: {bad} engine run(s) produced a wrong table or an error")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
