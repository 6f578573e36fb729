"""What column stats cost a MOR table's commits (docs/benchmarks.md, "Morning of 2026-12-06").

Usage: column_stats_cost.py DATA_DIR KEY [PARTITION_FIELD|-]

DATA_DIR is a bench/upsert data directory (base.parquet, rN-upsert.parquet, rN-delete.parquet). The
same load, five upserts and five deletes run on a table without and one with
hoodie.metadata.index.column.stats.enable=true, twice, alternating; each line prints the load,
every commit's wall time and the machine's load average.
"""
import shutil, sys, time, os
import pyarrow.parquet as pq
from hudi import HudiTable
d = sys.argv[1]; key = sys.argv[2]; part = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
base = pq.read_table(f"{d}/base.parquet")
res = {}
for cs in ("off", "on", "off2", "on2"):
    p = f"/tmp/cs_cost_{cs}"
    shutil.rmtree(p, ignore_errors=True)
    opts = {"hoodie.metadata.index.column.stats.enable": "true"} if cs.startswith("on") else {}
    t = HudiTable.create(p, record_key=key, table_type="mor", partition_fields=part, hudi_options=opts)
    t0 = time.perf_counter(); t.append(base); load = time.perf_counter() - t0
    ups, dels = [], []
    for r in range(1, 6):
        u = pq.read_table(f"{d}/r{r}-upsert.parquet"); dl = pq.read_table(f"{d}/r{r}-delete.parquet")
        t0 = time.perf_counter(); t.upsert(u); ups.append(time.perf_counter() - t0)
        t0 = time.perf_counter(); t.delete_keys([str(x) for x in dl.column(key).to_pylist()]); dels.append(time.perf_counter() - t0)
    print(cs, "load %.2f" % load, "upserts", " ".join("%.2f" % x for x in ups), "deletes", " ".join("%.3f" % x for x in dels), "load avg %.2f" % os.getloadavg()[0], flush=True)
    shutil.rmtree(p, ignore_errors=True)
