"""Runs one engine's whole commit sequence in its own process (started by bench.py).

Every operation is timed alone: inputs are read from Parquet before the clock starts, the file
tree is listed before and after (outside the clock), and the machine's load/memory/disk are
recorded beside the figure. The parent samples this process's RSS; the monotonic instants of each
window let it pick that operation's peak. Reads are checked against the pyarrow oracle after
their clock stops; the end state is checked last.

Output: one JSON document (--out). Exit status 0 even when a check fails: the parent decides.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List

import psutil
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))

import oracle  # noqa: E402
from adapters import ADAPTERS, EngineNotAvailable  # noqa: E402
from common import Timer, compare_tables, machine_state, tree_delta, tree_snapshot  # noqa: E402


def _release() -> None:
    """Hand freed Arrow memory back to the OS, so the next operation's RSS starts from what is
    really held, not from the allocator's cache of the previous input."""
    import gc

    import pyarrow as pa

    gc.collect()
    pa.default_memory_pool().release_unused()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--table-root", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()

    meta = json.loads((args.data / "meta.json").read_text())
    keys: List[str] = meta["keys"]
    cls = ADAPTERS[args.engine]
    result: Dict[str, Any] = {"engine": args.engine, "label": cls.name, "ops": [], "checks": [], "failures": []}
    me = psutil.Process()

    def write() -> None:
        args.out.write_text(json.dumps(result, indent=1, default=str))

    reason = cls.availability()
    if reason:
        result.update(status="not available", reason=reason)
        write()
        return 0

    result["status"] = "running"
    args.table_root.mkdir(parents=True, exist_ok=True)
    adapter = cls(args.table_root, keys, meta["change_feed"])

    def op(kind: str, rnd: int, fn: Callable[[], Any], rows: int) -> Any:
        before = tree_snapshot(args.table_root)
        state0 = machine_state(args.table_root)
        rss0 = me.memory_info().rss
        cpu0 = me.cpu_times()
        with Timer() as t:
            out = fn()
        cpu1 = me.cpu_times()
        rss1 = me.memory_info().rss
        state1 = machine_state(args.table_root)
        after = tree_snapshot(args.table_root)
        # CPU time of this process (all threads) beside the wall time: on the shared machine the
        # wall time stretches with the load, the CPU time much less
        cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
        rec = {"op": kind, "round": rnd, "rows": rows, "seconds": round(t.seconds, 4), "cpu_seconds": round(cpu, 3),
               # system CPU apart: page faults and reclaim land there
               "cpu_user_seconds": round(cpu1.user - cpu0.user, 3),
               "cpu_system_seconds": round(cpu1.system - cpu0.system, 3),
               "mono0": t.mono0, "mono1": t.mono1, "rss_before": rss0, "rss_after": rss1,
               **tree_delta(before, after), "machine_before": state0, "machine_after": state1}
        result["ops"].append(rec)
        write()  # partial results survive an engine that crashes the process later
        print(f"    [{args.engine}] {kind} r{rnd}: {t.seconds:.2f}s", file=sys.stderr, flush=True)
        return out

    def check(what: str, msg: Any) -> None:
        result["checks"].append({"what": what, "ok": msg is None, "detail": msg})
        if msg is not None:
            result["failures"].append(msg)

    try:
        base = pq.read_table(args.data / "base.parquet")
        op("create", 0, lambda: adapter.create(base.schema), 0)
        op("bulk_load", 0, lambda: adapter.bulk_load(base), base.num_rows)
        v_load = adapter.version()
        result["versions"] = {"bulk_load": v_load}
        base_rows = base.num_rows
        if not meta["change_feed"]:
            del base
        _release()
        for r in meta["rounds"]:
            i = r["round"]
            v_before = adapter.version()
            up = pq.read_table(args.data / r["upsert"])
            op("upsert", i, lambda: adapter.upsert(up), up.num_rows)
            dele = pq.read_table(args.data / r["delete"])
            op("delete", i, lambda: adapter.delete(dele), dele.num_rows)
            if meta["change_feed"]:
                inc = op("incremental_read", i, lambda: adapter.incremental_read(v_before), 0)
                result["ops"][-1]["rows"] = inc.upserts.num_rows
                result["ops"][-1]["note"] = inc.note
                exp_up, exp_del = oracle.expected_increment(up, dele, keys)
                check(f"incremental read, round {i}: upserted rows",
                      compare_tables(inc.upserts, exp_up, keys, f"{cls.name} incremental read r{i}"))
                if inc.deleted_keys is None:
                    result["checks"].append({"what": f"incremental read, round {i}: deleted keys", "ok": None,
                                             "detail": "not reported by the engine's incremental read"})
                else:
                    check(f"incremental read, round {i}: deleted keys",
                          oracle.compare_key_sets(inc.deleted_keys, exp_del, keys, f"{cls.name} incremental deletes r{i}"))
                tt = op("time_travel_read", i, lambda: adapter.time_travel_read(v_load), 0)
                result["ops"][-1]["rows"] = tt.num_rows
                check(f"time travel to the bulk load, round {i}",
                      compare_tables(tt, base, keys, f"{cls.name} time travel r{i}"))
                del inc, tt
            del up, dele
            _release()
        # the process's peak before the final read and the checks (which hold two copies)
        result["ru_maxrss_commits_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        final = op("read_all", 0, adapter.read_all, 0)
        result["ops"][-1]["rows"] = final.num_rows
        expected = pq.read_table(args.data / "expected.parquet")
        check("end state equals the pyarrow oracle", compare_tables(final, expected, keys, f"{cls.name} end state"))
        result["base_rows"] = base_rows
        result["settings"] = adapter.settings
        result["status"] = "failed" if result["failures"] else "ok"
    except EngineNotAvailable as e:
        result.update(status="not available", reason=str(e))
    except Exception as e:  # the parent reports it and exits non-zero
        result.update(status="error", reason=f"{type(e).__name__}: {e}", traceback=traceback.format_exc())
    result["ru_maxrss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
