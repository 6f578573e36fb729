"""Shared helpers of the upsert benchmark: paths, machine state, file-system accounting and the
table comparison every end state goes through.

Nothing here imports an engine: the comparison and the key helpers are plain pyarrow, so the
expected state (oracle.py) stays independent of the engines it judges.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pyarrow as pa
import pyarrow.compute as pc

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent.parent
RESULTS_DIR = BENCH_DIR / "results"
DEFAULT_WORK_DIR = BENCH_DIR / "work"

# Bumped whenever the generators change what they produce, so cached data is rebuilt.
GENERATOR_VERSION = 3


# --------------------------------------------------------------------------- machine state


def machine_state(path: Path) -> Dict[str, float]:
    """Load, memory and disk at this instant: recorded next to every timing, because the machine
    is shared and a figure taken under load is not comparable with one taken idle."""
    import psutil

    la1, la5, la15 = os.getloadavg()
    vm = psutil.virtual_memory()
    du = shutil.disk_usage(path)
    return {
        "loadavg_1m": round(la1, 2),
        "loadavg_5m": round(la5, 2),
        "loadavg_15m": round(la15, 2),
        "mem_total_bytes": vm.total,
        "mem_available_bytes": vm.available,
        # free alone: "available" counts page cache the kernel must reclaim before handing it out
        "mem_free_bytes": vm.free,
        "disk_free_bytes": du.free,
        "disk_total_bytes": du.total,
        **reclaim_counters(),
    }


def reclaim_counters() -> Dict[str, int]:
    """The kernel's page-reclaim counters (/proc/vmstat; empty where there is none): an op whose
    allocations had to reclaim page cache first (direct reclaim, allocation stalls) spends that
    time as system CPU in its own process, which the difference between two states shows."""
    out: Dict[str, int] = {}
    try:
        with open("/proc/vmstat") as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name in ("pgscan_direct", "pgsteal_direct") or name.startswith("allocstall"):
                    key = "vm_allocstall" if name.startswith("allocstall") else "vm_" + name
                    out[key] = out.get(key, 0) + int(value)
    except (OSError, ValueError):
        return {}
    return out


# --------------------------------------------------------------------------- file-system accounting


def tree_snapshot(root: Path) -> Dict[str, int]:
    """Every regular file under root with its size (relative path -> bytes)."""
    out: Dict[str, int] = {}
    if not root.exists():
        return out
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            try:
                out[os.path.relpath(p, root)] = os.stat(p).st_size
            except FileNotFoundError:  # removed while we walked (temp files)
                pass
    return out


def _area(rel: str) -> str:
    """Which part of a table a file belongs to: the data files, or the engine's metadata (hudi's
    metadata table and timeline, the delta log, the iceberg metadata and catalog)."""
    parts = rel.replace(os.sep, "/").split("/")
    if ".hoodie" in parts:
        return "hudi metadata table" if "metadata" in parts[parts.index(".hoodie"):] else "hudi timeline"
    if "_delta_log" in parts:
        return "delta log"
    if "metadata" in parts or parts[-1].endswith(".db"):
        return "iceberg metadata"
    return "data"


def tree_delta(before: Dict[str, int], after: Dict[str, int]) -> Dict[str, int]:
    """What a commit did to the file system: the change in total size, the bytes and count of the
    files it created, the growth of files it rewrote in place (the SQLite catalog), and the
    files it removed."""
    new = [p for p in after if p not in before]
    removed = [p for p in before if p not in after]
    grown = sum(max(0, after[p] - before[p]) for p in after if p in before)
    by_area: Dict[str, int] = {}
    for p in new:
        area = _area(p)
        by_area[area] = by_area.get(area, 0) + after[p]
    return {
        "new_file_bytes_by_area": by_area,
        "dir_size_before": sum(before.values()),
        "dir_size_after": sum(after.values()),
        "dir_delta_bytes": sum(after.values()) - sum(before.values()),
        "new_file_bytes": sum(after[p] for p in new),
        "new_files": len(new),
        "rewritten_growth_bytes": grown,
        "removed_files": len(removed),
    }


# --------------------------------------------------------------------------- keys


def key_strings(table: pa.Table, keys: Sequence[str]) -> pa.Array:
    """One string per row naming its key, for set operations on single or composite keys alike
    (pyarrow's is_in takes one column). The separator cannot occur in a formatted integer or a
    UUID, and the synthetic string keys never contain it."""
    cols = [pc.cast(table[k], pa.string()) for k in keys]
    if len(cols) == 1:
        out = cols[0]
    else:
        out = pc.binary_join_element_wise(*cols, "\x1f")
    if isinstance(out, pa.ChunkedArray):
        out = out.combine_chunks()
    return out


def sort_by_keys(table: pa.Table, keys: Sequence[str]) -> pa.Table:
    return table.sort_by([(k, "ascending") for k in keys])


# --------------------------------------------------------------------------- comparison


def normalize(table: pa.Table, like: pa.Schema) -> pa.Table:
    """Bring an engine's output to the expected schema: same column order, nullable fields, no
    metadata, and the expected types (engines hand back large_string, list views, etc.)."""
    missing = [n for n in like.names if n not in table.column_names]
    if missing:
        raise AssertionError(f"columns missing from the engine's output: {missing}")
    target = pa.schema([pa.field(f.name, f.type, nullable=True) for f in like])
    cols = []
    for f in target:
        col = table[f.name]
        if not col.type.equals(f.type):
            col = pc.cast(col, f.type)
        cols.append(col)
    return pa.Table.from_arrays(cols, schema=target)


def compare_tables(actual: pa.Table, expected: pa.Table, keys: Sequence[str], what: str) -> Optional[str]:
    """None when actual holds exactly the rows of expected (any order), else a message naming the
    first difference: row counts, duplicate or missing keys, or the first differing column/row."""
    actual = normalize(actual, expected.schema)
    expected = normalize(expected, expected.schema)
    if actual.num_rows != expected.num_rows:
        a_k = key_strings(actual, keys)
        e_k = key_strings(expected, keys)
        extra = pc.filter(a_k, pc.invert(pc.is_in(a_k, value_set=e_k)))
        missing = pc.filter(e_k, pc.invert(pc.is_in(e_k, value_set=a_k)))
        return (
            f"{what}: {actual.num_rows} rows, expected {expected.num_rows}; "
            f"{len(extra)} unexpected keys (first {extra[:3].to_pylist()}), "
            f"{len(missing)} missing keys (first {missing[:3].to_pylist()})"
        )
    a = sort_by_keys(actual, keys).combine_chunks()
    e = sort_by_keys(expected, keys).combine_chunks()
    a_k = key_strings(a, keys)
    e_k = key_strings(e, keys)
    if not a_k.equals(e_k):
        diff = pc.not_equal(a_k, e_k)
        i = pc.index(diff, True).as_py()
        return f"{what}: key sets differ; first at sorted row {i}: {a_k[i]} vs expected {e_k[i]}"
    for name in e.column_names:
        if a[name].equals(e[name]):
            continue
        ac, ec = a[name].combine_chunks(), e[name].combine_chunks()
        for i in range(len(ec)):  # only reached on failure: find the first differing row
            if ac[i] != ec[i]:
                return (
                    f"{what}: column {name!r} differs; first at key {e_k[i].as_py()!r}: "
                    f"{_short(ac[i].as_py())} vs expected {_short(ec[i].as_py())}"
                )
        return f"{what}: column {name!r} differs (layout only?)"
    return None


def _short(v: object) -> str:
    s = repr(v)
    return s if len(s) < 120 else s[:117] + "..."


class Timer:
    """Wall time with time.perf_counter, and the monotonic instants the parent process uses to
    pick its RSS samples of this window (CLOCK_MONOTONIC is system-wide on Linux)."""

    def __enter__(self) -> "Timer":
        self.mono0 = time.monotonic()
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.t0
        self.mono1 = time.monotonic()


def package_versions(names: List[str]) -> Dict[str, Optional[str]]:
    from importlib import metadata

    out: Dict[str, Optional[str]] = {}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            out[n] = None
    return out
