"""Issue 7's compaction target: compacting a Merge-on-Read rag-chunks table after 5 delta commits
within 1.3x of the time pyarrow needs to rewrite the same files, with memory bounded per file group.

    python bench/compact/compact_bench.py --scale 0.1            # 100k chunks (debugging)
    python bench/compact/compact_bench.py --scale 1              # 1M chunks, for the record

Steps (each heavy step in its own process, so that its peak RSS is its own):
  build     HudiTable.create(table_type="mor", record key chunk_id, no ordering field) + append of
            the scenario's base.parquet (bulk insert), then 5 upsert commits: the rag-chunks
            generator's re-ingested documents (~1,000 documents = ~10,000 chunks at scale 1; the
            generator's deletes are not applied: 5 upsert delta commits);
  compact   HudiTable.compact() timed alone: wall, process CPU (all threads), peak RSS (sampled every
            20 ms) above the RSS before the call, load;
  pyarrow   the same run's baseline: every base file of the compacted file groups (the compaction's
            inputs) read with pyarrow and written again with the codec and row-group settings
            hudi-c used (gzip, Hudi's default; the row count per row group read back from the file
            hudi-c wrote; 1 MiB pages; dictionary on), and with snappy for reference; each file is
            timed alone with its own peak RSS;
  check     the compacted snapshot (HudiTable.read, and pyarrow reading the latest base file of
            every file group straight from disk) equals the expected rows (pyarrow: base with the
            upserts applied), no log file remains in a latest slice, and
            ../shared/tools/hudi_check.py passes on the table.

Writes bench/compact/results/compact-rag-chunks-s<scale>-<time>.json; exits 1 on a wrong table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
UPSERT = REPO / "bench" / "upsert"
sys.path.insert(0, str(UPSERT))

from common import compare_tables  # noqa: E402
import oracle  # noqa: E402
import scenarios  # noqa: E402



_STATM = os.open("/proc/self/statm", os.O_RDONLY)
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    """This process's resident set size (the second field of /proc/self/statm, in pages): one
    pread, cheap enough to sample every few milliseconds without adding to the CPU measured."""
    return int(os.pread(_STATM, 64, 0).split()[1]) * _PAGE


def cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system
KEYS = ["chunk_id"]
BASE_RE = re.compile(r"^(?P<fid>.+)_(?P<token>[^_]+)_(?P<instant>\d+)\.parquet$")


class PeakRss:
    """Samples this process's RSS every `period` seconds in a thread; `peak` is the largest seen
    (and the RSS at start and at stop)."""

    def __init__(self, period: float = 0.02) -> None:
        self.period = period
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> "PeakRss":
        self.start = rss_bytes()
        self.peak = self.start
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.peak = max(self.peak, rss_bytes())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, rss_bytes())


def machine_state(path: Path) -> Dict[str, Any]:
    """Load, memory and disk now (the machine is shared: a figure taken under load is noted so)."""
    mem = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            mem[k] = int(v.split()[0]) * 1024
    la = os.getloadavg()
    du = shutil.disk_usage(path)
    return {"loadavg_1m": round(la[0], 2), "loadavg_5m": round(la[1], 2), "cpus": os.cpu_count(),
            "mem_total_bytes": mem.get("MemTotal"), "mem_available_bytes": mem.get("MemAvailable"),
            "disk_free_bytes": du.free}


def timed(fn) -> Any:
    load = os.getloadavg()[0]
    c0 = cpu_seconds()
    with PeakRss() as rss:
        t0 = time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    return out, {"seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "load_1m": round(load, 2),
                 "rss_before_bytes": rss.start, "peak_rss_bytes": rss.peak,
                 "peak_rss_above_start_bytes": rss.peak - rss.start}


def base_files(table: Path) -> Dict[str, List[Path]]:
    """fileId -> its base files (oldest instant first), from the directory listing."""
    out: Dict[str, List[Path]] = {}
    for dirpath, dirs, files in os.walk(table):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            m = BASE_RE.match(f)
            if m:
                out.setdefault(m["fid"], []).append(Path(dirpath) / f)
    for v in out.values():
        v.sort(key=lambda p: BASE_RE.match(p.name)["instant"])
    return out


def log_files(table: Path) -> List[Path]:
    return [Path(d) / f for d, dirs, fs in os.walk(table) if "/.hoodie" not in d + "/" and ".hoodie" not in d
            for f in fs if ".log." in f]


# --------------------------------------------------------------------------- steps (child processes)


def step_build(args: argparse.Namespace) -> Dict[str, Any]:
    import hudi

    data = Path(args.data)
    table = Path(args.table)
    if table.exists():
        shutil.rmtree(table)
    base = pq.read_table(data / "base.parquet")
    t = hudi.HudiTable.create(str(table), record_key=KEYS, ordering_fields=None, table_type="mor")
    res: Dict[str, Any] = {}
    _, res["bulk_load"] = timed(lambda: t.append(base))
    del base
    res["upserts"] = []
    for i in range(1, scenarios.ROUNDS + 1):
        up = pq.read_table(data / f"r{i}-upsert.parquet")
        _, tm = timed(lambda: t.upsert(up))
        tm["rows"] = up.num_rows
        res["upserts"].append(tm)
    return res


def step_compact(args: argparse.Namespace) -> Dict[str, Any]:
    import hudi

    t = hudi.HudiTable(str(args.table))
    opts = json.loads(args.options) if args.options else None
    r, tm = timed(lambda: t.compact(opts))
    tm.update({"requested_time": r.requested_time, "num_file_groups": r.num_file_groups,
               "num_log_files": r.num_log_files, "num_records": r.num_records, "files_written": r.files_written,
               "bytes_written": r.bytes_written})
    return tm


def step_pyarrow(args: argparse.Namespace) -> Dict[str, Any]:
    """Rewrites each input base file with pyarrow, once per codec, each file timed alone."""
    pairs = json.loads(args.pairs)  # [[input base file, hudi-c's output file], ...]
    out_dir = Path(args.scratch)
    out_dir.mkdir(parents=True, exist_ok=True)
    res: Dict[str, Any] = {}
    for codec in ("gzip", "snappy"):
        files = []
        for src, hudi_out in pairs:
            md = pq.ParquetFile(hudi_out).metadata
            rg_rows = max(md.row_group(i).num_rows for i in range(md.num_row_groups))

            def rewrite() -> int:
                dst = out_dir / Path(src).name
                f = pq.ParquetFile(src)
                # The whole file as pyarrow's write_table takes it (one table, row groups cut by
                # row count): the simplest pyarrow rewrite, what the target is measured against.
                tbl = f.read()
                pq.write_table(tbl, dst, compression=codec, row_group_size=rg_rows,
                               data_page_size=1 << 20, use_dictionary=True, write_statistics=True)
                del tbl
                n = dst.stat().st_size
                dst.unlink()
                return n

            n, tm = timed(rewrite)
            tm.update({"file": Path(src).name, "rows": pq.ParquetFile(src).metadata.num_rows,
                       "row_group_rows": rg_rows, "bytes_written": n})
            files.append(tm)
        res[codec] = {
            "seconds": round(sum(f["seconds"] for f in files), 3),
            "cpu_seconds": round(sum(f["cpu_seconds"] for f in files), 3),
            "bytes_written": sum(f["bytes_written"] for f in files),
            "max_peak_rss_above_start_bytes": max((f["peak_rss_above_start_bytes"] for f in files), default=0),
            "files": files,
        }
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


def step_check(args: argparse.Namespace) -> Dict[str, Any]:
    import hudi

    data = Path(args.data)
    table = Path(args.table)
    base = pq.read_table(data / "base.parquet")
    ups = [pq.read_table(data / f"r{i}-upsert.parquet") for i in range(1, scenarios.ROUNDS + 1)]
    expected = base
    for up in ups:
        expected = oracle.apply_upsert(expected, up, KEYS)
    del base, ups
    problems: List[str] = []
    cols = expected.column_names
    # pyarrow on the latest base file of every file group, straight from disk.
    latest = [v[-1] for v in base_files(table).values()]
    on_disk = pa.concat_tables([pq.read_table(p, columns=cols) for p in latest])
    msg = compare_tables(on_disk, expected, KEYS, "latest base files (pyarrow)")
    if msg:
        problems.append(msg)
    del on_disk
    snap = pa.Table.from_batches(hudi.HudiTable(str(table)).read()).select(cols)
    msg = compare_tables(snap, expected, KEYS, "snapshot (HudiTable.read)")
    if msg:
        problems.append(msg)
    checker = REPO.parent / "shared" / "tools" / "hudi_check.py"
    p = subprocess.run([sys.executable, str(checker), str(table)], capture_output=True, text=True)
    fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAIL")]
    if p.returncode != 0:
        problems.append(f"hudi_check.py exit {p.returncode}: {fails[:5] or p.stderr[-500:]}")
    return {"expected_rows": expected.num_rows, "problems": problems, "hudi_check_rc": p.returncode,
            "hudi_check_fail_lines": fails[:20]}


STEPS = {"build": step_build, "compact": step_compact, "pyarrow": step_pyarrow, "check": step_check}


def child(step: str, **kw: Any) -> Dict[str, Any]:
    """Runs one step in a fresh Python process; its JSON answer is the last stdout line."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--step", step]
    for k, v in kw.items():
        cmd += [f"--{k}", str(v)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
    if p.returncode != 0:
        raise RuntimeError(f"step {step} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- driver


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--work", type=Path, default=HERE / "work")
    ap.add_argument("--reuse-table", action="store_true",
                    help="copy the built (uncompacted) table from the work dir instead of rebuilding it")
    ap.add_argument("--options", default="", help="JSON dict of compaction options")
    ap.add_argument("--label", default="")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--step", choices=sorted(STEPS), help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    ap.add_argument("--table", help=argparse.SUPPRESS)
    ap.add_argument("--pairs", help=argparse.SUPPRESS)
    ap.add_argument("--scratch", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.step:
        print(json.dumps(STEPS[args.step](args)))
        return 0

    import hudi

    log = lambda s: print(f"[{time.strftime('%H:%M:%S')}] {s}", flush=True)  # noqa: E731
    data = scenarios.ensure_data(UPSERT / "work", "rag-chunks", args.scale, log=log)
    work = args.work / f"rag-chunks-s{args.scale:g}"
    pristine, table = work / "built", work / "table"
    result: Dict[str, Any] = {"scenario": "rag-chunks", "scale": args.scale, "label": args.label,
                              "hudi_version": getattr(hudi, "__version__", "?"), "hudi_module": hudi.__file__,
                              "pyarrow_version": pa.__version__, "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
                              "machine_before": machine_state(args.work.parent)}
    if not (args.reuse_table and pristine.exists()):
        log("build: bulk load + 5 upsert commits")
        result["build"] = child("build", data=data, table=pristine)
    if table.exists():
        shutil.rmtree(table)
    shutil.copytree(pristine, table)
    before = base_files(table)
    n_logs = len(log_files(table))
    log(f"table: {sum(len(v) for v in before.values())} base files, {n_logs} log files")
    log("compact")
    kw = {"table": table}
    if args.options:
        kw["options"] = args.options
    result["compact"] = child("compact", **kw)
    c = result["compact"]
    log(f"compact: {c['seconds']}s wall, {c['cpu_seconds']}s cpu, {c['num_file_groups']} file groups, "
        f"peak RSS +{c['peak_rss_above_start_bytes'] / 2**20:.0f} MiB")
    after = base_files(table)
    instant = c["requested_time"]
    pairs = []
    for fid, files in after.items():
        new = [p for p in files if BASE_RE.match(p.name)["instant"] == instant]
        if new and before.get(fid):
            pairs.append([str(before[fid][-1]), str(new[0])])
    result["compacted_groups_with_base"] = len(pairs)
    result["input_base_bytes"] = sum(Path(a).stat().st_size for a, _ in pairs)
    result["output_base_bytes"] = sum(Path(b).stat().st_size for _, b in pairs)
    md = pq.ParquetFile(pairs[0][1]).metadata if pairs else None
    result["hudi_output_layout"] = None if md is None else {
        "codec": md.row_group(0).column(0).compression, "row_groups": md.num_row_groups,
        "rows": md.num_rows, "created_by": md.created_by}
    log("pyarrow rewrite baseline")
    result["pyarrow"] = child("pyarrow", pairs=json.dumps(pairs), scratch=work / "pyarrow-scratch")
    g = result["pyarrow"]["gzip"]
    s = result["pyarrow"]["snappy"]
    result["ratio_vs_pyarrow_gzip"] = round(c["seconds"] / g["seconds"], 3) if g["seconds"] else None
    result["cpu_ratio_vs_pyarrow_gzip"] = round(c["cpu_seconds"] / g["cpu_seconds"], 3) if g["cpu_seconds"] else None
    result["ratio_vs_pyarrow_snappy"] = round(c["seconds"] / s["seconds"], 3) if s["seconds"] else None
    result["target_met"] = bool(result["ratio_vs_pyarrow_gzip"] is not None and result["ratio_vs_pyarrow_gzip"] <= 1.3)
    log(f"pyarrow gzip: {g['seconds']}s wall, {g['cpu_seconds']}s cpu, max per-file peak "
        f"+{g['max_peak_rss_above_start_bytes'] / 2**20:.0f} MiB; snappy {s['seconds']}s")
    log(f"ratio hudi-c / pyarrow(gzip) = {result['ratio_vs_pyarrow_gzip']} wall, "
        f"{result['cpu_ratio_vs_pyarrow_gzip']} cpu")
    log("check")
    try:
        result["check"] = child("check", data=data, table=table)
    except RuntimeError as e:  # e.g. killed for memory: the figures above are still written
        result["check"] = {"problems": [f"the check did not run to the end: {str(e)[:500]}"]}
    result["machine_after"] = machine_state(args.work.parent)
    ok = not result["check"]["problems"]
    result["ok"] = ok
    for p in result["check"]["problems"]:
        log(f"PROBLEM: {p}")
    out = args.out or (HERE / "results" / f"compact-rag-chunks-s{args.scale:g}-{time.strftime('%Y%m%dT%H%M%S')}"
                       f"{'-' + args.label if args.label else ''}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    log(f"wrote {out} ({'ok' if ok else 'WRONG TABLE'})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
