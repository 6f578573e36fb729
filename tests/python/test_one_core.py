"""Writes and reads on a process pinned to one CPU take the library's one-core paths.

hudi-c sizes its threads by the CPUs the process may run on (its affinity): on one CPU a COW
rewrite has no read-ahead thread and no writer feed, a bulk insert no writer threads, a read no
parallel slices. The same verbs, run by a child process pinned to CPU 0 and by one with every
CPU, must leave tables with the same rows (and the expected ones: computed here with pyarrow);
../shared/tools/hudi_check.py must pass on both.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"

CHILD = textwrap.dedent("""
    import json, os, sys
    import pyarrow as pa, pyarrow.parquet as pq
    from hudi import HudiTable
    if sys.argv[2] == "one":
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    base, n = sys.argv[1], 30_000
    def rows(ids, version):
        return pa.table({"id": [f"k{i:06d}" for i in ids], "ts": pa.array([version] * len(ids), pa.int64()),
                         "v": pa.array([i * 10 + version for i in ids], pa.int64())})
    out = {"cpus": len(os.sched_getaffinity(0))}
    for kind in ("cow", "mor"):
        path = os.path.join(base, kind)
        t = HudiTable.create(path, "id", ordering_fields="ts", table_type=kind)
        t.append(rows(range(n), 1))
        t = HudiTable(path)
        up = list(range(5, n, 7)) + list(range(n, n + 500))  # updates in every reader batch, then new keys
        r = t.upsert(rows(up, 2))
        d = HudiTable(path).delete_keys([f"k{i:06d}" for i in range(3, n, 101)])
        snap = pa.Table.from_batches(HudiTable(path).read()).select(["id", "ts", "v"]).sort_by("id")
        pq.write_table(snap, os.path.join(base, kind + ".parquet"))
        out[kind] = [r.num_updates, r.num_inserts, d.num_deletes]
    print(json.dumps(out))
""")


def run_child(base: Path, mode: str) -> dict:
    base.mkdir()
    r = subprocess.run([sys.executable, "-c", CHILD, str(base), mode], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def expected(n: int = 30_000) -> pa.Table:
    v = {i: (1, i * 10 + 1) for i in range(n)}
    for i in list(range(5, n, 7)) + list(range(n, n + 500)):
        v[i] = (2, i * 10 + 2)
    for i in range(3, n, 101):
        v.pop(i, None)
    ks = sorted(v)
    return pa.table({"id": [f"k{i:06d}" for i in ks], "ts": pa.array([v[i][0] for i in ks], pa.int64()),
                     "v": pa.array([v[i][1] for i in ks], pa.int64())})


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs a Linux process that may run on two CPUs or more, to compare")
def test_one_cpu_writes_the_same_tables(tmp_path):
    one = run_child(tmp_path / "one", "one")
    many = run_child(tmp_path / "many", "many")
    assert one["cpus"] == 1 and many["cpus"] >= 2
    want = expected()
    for kind in ("cow", "mor"):
        assert one[kind] == many[kind] == [len(range(5, 30_000, 7)), 500, len(range(3, 30_000, 101))], kind
        a = pq.read_table(tmp_path / "one" / f"{kind}.parquet")
        b = pq.read_table(tmp_path / "many" / f"{kind}.parquet")
        assert a.equals(want), kind
        assert b.equals(want), kind
        for base in ("one", "many"):
            r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(tmp_path / base / kind)],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stdout + r.stderr
