"""Bulk load (HudiTable.append, i.e. bulk insert) against pyarrow writing the same Parquet alone.

A seeded uuid table (the uuid scenario of bench/upsert/scenarios.py: a random v4 uuid key plus six
payload columns) is written by
  - hudi-c append into a new COW table, record index on and off, codec gzip (Hudi's default) and
    snappy;
  - pyarrow.parquet.write_table of the same table, gzip and snappy (the floor: no meta columns,
    no sort, no bloom filter, no metadata table);
  - pyarrow-meta-CODEC: pyarrow.parquet.write_table of the content hudi-c stores (rows in input
    order as hoodie.bulkinsert.sort.mode=NONE, Hudi's default, leaves them; sorted by key with
    -sorted; the five meta columns filled), built before the clock starts: "pyarrow writing the
    same Parquet alone" (issue 6), without the bloom filter, record index and metadata table.
With --data rag the table is instead the rag-chunks scenario's base table (bench/upsert/scenarios.py:
~10 chunks per document, ~55-word texts, 384-float32 list<float32> embeddings; --rows counts chunks,
approximately). Case names are pyarrow-CODEC, pyarrow-meta-CODEC[-sorted] or
hudi-CODEC[-rli][-mor][-sorted][-logfirst], CODEC one of gzip, snappy, zstd (e.g. hudi-zstd-rli-mor:
a MOR table, record index on, zstd Parquet; -sorted: hoodie.bulkinsert.sort.mode=GLOBAL_SORT;
-logfirst: the record index's keys in log blocks, as Java's commits write them, rather than in
the base HFiles hudi-c writes a shard's first keys to).
Cases run in rounds (every case once per round, --repeat rounds), the medians printed at the end.
Each case runs in a fresh subprocess (so one case's memory does not colour the next) and reports
its process CPU time (user + sys, all threads) and wall time around the write alone; the data is
generated before the clock starts. The 1-minute load average is printed with every line, since
the machine may be shared.

usage: python bench/bulk_load_bench.py [--rows 500000,2000000] [--cases all|hudi|pyarrow|NAME,...]
                                      [--repeat 1] [--keep DIR] [--data uuid|rag]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CASES = ["pyarrow-snappy", "pyarrow-gzip", "hudi-snappy-rli", "hudi-snappy", "hudi-gzip-rli", "hudi-gzip"]


def uuid_table(n: int, seed: int = 303):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    b = rng.integers(0, 256, (n, 16), dtype=np.uint8)
    b[:, 6] = (b[:, 6] & 0x0F) | 0x40
    b[:, 8] = (b[:, 8] & 0x3F) | 0x80
    hexd = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    h = np.empty((n, 32), dtype=np.uint8)
    h[:, 0::2] = hexd[b >> 4]
    h[:, 1::2] = hexd[b & 0x0F]
    out = np.full((n, 36), ord("-"), dtype=np.uint8)
    out[:, 0:8], out[:, 9:13], out[:, 14:18], out[:, 19:23], out[:, 24:36] = (
        h[:, 0:8], h[:, 8:12], h[:, 12:16], h[:, 16:20], h[:, 20:32])
    offsets = (np.arange(n + 1, dtype=np.int64) * 36).astype(np.int32)
    keys = pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(out.ravel()))

    def pick(values, p):
        return pc.take(pa.array(values, pa.string()), pa.array(rng.choice(len(values), size=n, p=p)))

    t2026 = 1_767_225_600_000_000
    return pa.table({
        "id": keys,
        "seq": pa.array(np.arange(n, dtype=np.int64)),
        "account_id": pa.array(rng.integers(1, 2_000_000, n)),
        "amount": pa.array(np.round(rng.lognormal(3.5, 1.2, n), 2)),
        "currency": pick(["USD", "EUR", "GBP", "JPY", "INR", "BRL"], [0.55, 0.2, 0.1, 0.05, 0.05, 0.05]),
        "status": pick(["pending", "authorized", "captured", "refunded", "failed"], [0.1, 0.2, 0.6, 0.05, 0.05]),
        "event_time": pa.array(t2026 + rng.integers(0, 86_400_000_000, n), pa.timestamp("us", tz="UTC")),
    })


def rag_table(n: int):
    """The rag-chunks scenario's base table with about n chunks (seeded like the scenario)."""
    import numpy as np

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "upsert"))
    import scenarios

    rng = np.random.default_rng(scenarios.SEEDS["rag-chunks"])
    return scenarios.gen_rag(n / 1_000_000, rng, None).base


def with_meta_columns(table, key: str, sort: bool):
    """The rows as a hudi-c COW bulk insert stores them: in input order (sort mode NONE) or sorted by
    key, Hudi's five meta columns first (commit time, per-row sequence number, record key, partition
    path, file name). Built before the clock starts, so pyarrow-meta-CODEC times pyarrow writing the
    same Parquet content alone."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if sort:
        table = table.sort_by(key)
    n = table.num_rows
    instant = "20261201000000000"
    fname = "00000000-0000-0000-0000-000000000000-0_0-0-0_" + instant + ".parquet"
    seq = pc.binary_join_element_wise(pa.array([instant + "_0"] * n), pc.cast(pa.array(range(n)), pa.string()), "_")
    meta = {"_hoodie_commit_time": pa.array([instant] * n), "_hoodie_commit_seqno": seq,
            "_hoodie_record_key": pc.cast(table[key], pa.string()), "_hoodie_partition_path": pa.array([""] * n),
            "_hoodie_file_name": pa.array([fname] * n)}
    for i, (name, col) in enumerate(meta.items()):
        table = table.add_column(i, name, col)
    return table


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


RLI_BASE = "hoodie.metadata.record.index.initial.base.files"


def run_case(case: str, rows: int, out: str, data: str = "uuid") -> dict:
    """One measurement, in this process."""
    import pyarrow.parquet as pq

    table = rag_table(rows) if data == "rag" else uuid_table(rows)
    key = "chunk_id" if data == "rag" else "id"
    codec = case.split("-")[1] if "-" in case else None
    if case == "none":  # the data alone: subtract from whole-process counters (perf stat)
        c0, w0 = c1, w1 = cpu_seconds(), time.perf_counter()
    elif case.startswith("pyarrow"):
        os.makedirs(out, exist_ok=True)
        if case.startswith("pyarrow-meta"):
            table = with_meta_columns(table, key, case.endswith("-sorted"))
            codec = case.split("-")[2]
        c0, w0 = cpu_seconds(), time.perf_counter()
        pq.write_table(table, os.path.join(out, "data.parquet"), compression=codec)
        c1, w1 = cpu_seconds(), time.perf_counter()
    else:
        import hudi

        # -logfirst: the record index's first keys in log blocks, as Java's commits write them
        # (hoodie.metadata.record.index.initial.base.files=false), not base HFiles.
        tbl = hudi.HudiTable.create(out, record_key=key, table_type="mor" if "-mor" in case else "cow",
                                    record_index_enabled="-rli" in case,
                                    hudi_options={RLI_BASE: "false"} if "-logfirst" in case else {})
        opts = {"hoodie.parquet.compression.codec": codec}
        if "-sorted" in case:
            opts["hoodie.bulkinsert.sort.mode"] = "GLOBAL_SORT"
        c0, w0 = cpu_seconds(), time.perf_counter()
        tbl.append(table, opts)
        c1, w1 = cpu_seconds(), time.perf_counter()
    return {"case": case, "rows": table.num_rows, "cpu_s": round(c1 - c0, 3), "wall_s": round(w1 - w0, 3),
            "bytes": dir_bytes(out), "load1": round(os.getloadavg()[0], 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="500000,2000000")
    ap.add_argument("--cases", default="all")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--keep", default=None, help="write tables under DIR and keep them")
    ap.add_argument("--data", choices=["uuid", "rag"], default="uuid")
    ap.add_argument("--one", nargs=3, metavar=("CASE", "ROWS", "OUT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_case(a.one[0], int(a.one[1]), a.one[2], a.data)))
        return 0
    if a.cases == "all":
        cases = CASES
    elif a.cases in ("hudi", "pyarrow"):
        cases = [c for c in CASES if c.startswith(a.cases)]
    else:
        cases = a.cases.split(",")
    root = a.keep or tempfile.mkdtemp(prefix="bulk_load_bench_")
    print(f"{'rows':>9} {'case':<20} {'cpu_s':>8} {'wall_s':>8} {'MB':>8} {'load1':>6}")
    walls: dict = {}
    try:
        for rows in (int(r) for r in a.rows.split(",")):
            # Rounds of every case in turn, so that a drift in the machine's speed (it is shared)
            # falls on all cases alike rather than on whichever ran last.
            for rep in range(a.repeat):
                for case in cases:
                    out = os.path.join(root, f"{case}-{rows}-{rep}")
                    shutil.rmtree(out, ignore_errors=True)
                    p = subprocess.run([sys.executable, __file__, "--data", a.data, "--one", case, str(rows), out],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        print(f"{rows:>9} {case:<20} FAILED: {p.stderr.strip()[-500:]}")
                        continue
                    r = json.loads(p.stdout.strip().splitlines()[-1])
                    print(f"{r['rows']:>9} {case:<20} {r['cpu_s']:>8.2f} {r['wall_s']:>8.2f} "
                          f"{r['bytes'] / 1e6:>8.1f} {r['load1']:>6.2f}", flush=True)
                    walls.setdefault((rows, case), []).append(r["wall_s"])
                    if not a.keep:
                        shutil.rmtree(out, ignore_errors=True)
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)
    print("median wall seconds:")
    for (rows, case), w in walls.items():
        print(f"{rows:>9} {case:<20} {statistics.median(w):>8.2f}  ({len(w)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
