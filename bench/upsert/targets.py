"""Issue 6's write targets for hudi-c, measured with fixed-size commits (the harness scales its
commits with --scale; these targets are about a commit of a fixed size on tables of two sizes).

    python bench/upsert/targets.py --data bench/upsert/work/data/uuid-s0.25 --engine mor \
        --out results/targets-uuid-2.5M-mor.json [--rounds 3] [--upsert 10000] [--delete 1000]

On the scenario's base.parquet (loaded with HudiTable.append, the record index on) it runs
`rounds` x (upsert of `upsert` existing keys with changed values + upsert/10 new keys; delete of
`delete` other existing keys), each commit timed alone (wall and process CPU, load beside it),
with the bytes each commit adds split by area (data files, metadata table, timeline). Baselines in
the same process, same run: pyarrow writing base.parquet alone (snappy) for the bulk-load target,
and pyarrow writing each upsert batch alone (snappy) for the bytes target. The end state is
checked against pyarrow (the rows the commits should leave).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compare_tables, key_strings, tree_delta, tree_snapshot  # noqa: E402
from scenarios import uuid4_strings  # noqa: E402

ME = psutil.Process()


def timed(fn):
    load = os.getloadavg()[0]
    c0 = ME.cpu_times()
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    c1 = ME.cpu_times()
    cpu = (c1.user - c0.user) + (c1.system - c0.system)
    return out, {"seconds": round(wall, 4), "cpu_seconds": round(cpu, 3), "load_1m": round(load, 2)}


def pyarrow_bytes(t: pa.Table, d: Path) -> int:
    p = d / "alone.parquet"
    pq.write_table(t, p, compression="snappy")
    n = p.stat().st_size
    p.unlink()
    return n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True, help="a scenario data dir (base.parquet, meta.json)")
    ap.add_argument("--engine", choices=["mor", "cow"], required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--upsert", type=int, default=10_000, help="existing keys updated per upsert commit")
    ap.add_argument("--delete", type=int, default=1_000)
    ap.add_argument("--work", type=Path, default=None)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--rows", type=int, default=None, help="use only the first ROWS rows of base.parquet")
    ap.add_argument("--keep", action="store_true", help="leave the table on disk (path in the output)")
    args = ap.parse_args()

    import hudi

    meta = json.loads((args.data / "meta.json").read_text())
    keys = meta["keys"]
    assert len(keys) == 1, "fixed-size commits are generated for single-key scenarios"
    key = keys[0]
    base = pq.read_table(args.data / "base.parquet")
    if args.rows is not None:
        base = base.slice(0, args.rows).combine_chunks()
    (args.work or args.data.parent.parent).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="targets-", dir=args.work or args.data.parent.parent))
    res = {"data": str(args.data), "engine": args.engine, "base_rows": base.num_rows, "hudi": hudi.__version__,
           "upsert_rows": args.upsert, "new_rows": args.upsert // 10, "delete_rows": args.delete, "commits": [],
           "hudi_c_build_note": os.environ.get("HUDI_BENCH_BUILD_NOTE", "")}
    try:
        # pyarrow alone writing the same table: the bulk-load baseline (best of 2, the load varies)
        pa_runs = []
        for _ in range(2):
            _, m = timed(lambda: pq.write_table(base, work / "pa-base.parquet", compression="snappy"))
            m["bytes"] = (work / "pa-base.parquet").stat().st_size
            (work / "pa-base.parquet").unlink()
            pa_runs.append(m)
        res["pyarrow_base_write"] = pa_runs

        root = work / "hudi"
        tbl = hudi.HudiTable.create(str(root / "table"), record_key=keys, ordering_fields=None,
                                    table_type=args.engine)
        before = tree_snapshot(root)
        r, m = timed(lambda: tbl.append(base))
        m.update(op="bulk_load", rows=base.num_rows, bytes_written=int(r.bytes_written),
                 **tree_delta(before, tree_snapshot(root)))
        res["commits"].append(m)
        print(f"[{args.engine} {base.num_rows}] bulk_load {m['seconds']:.2f}s cpu {m['cpu_seconds']:.2f}s "
              f"load {m['load_1m']} (pyarrow alone {min(p['seconds'] for p in pa_runs):.2f}s)", flush=True)

        rng = np.random.default_rng(args.seed)
        expected = base
        for rnd in range(1, args.rounds + 1):
            n = expected.num_rows
            pick = rng.choice(n, size=args.upsert + args.delete, replace=False)
            upd = expected.take(pa.array(pick[:args.upsert]))
            # changed values: a later seq and a different amount, same key
            upd = upd.set_column(upd.schema.get_field_index("seq"), "seq", pc.add(upd["seq"], 10**9 * rnd))
            upd = upd.set_column(upd.schema.get_field_index("amount"), "amount",
                                 pc.add(upd["amount"], pa.scalar(float(rnd))))
            fresh = base.slice(0, args.upsert // 10)
            fresh = fresh.set_column(fresh.schema.get_field_index(key), key,
                                     uuid4_strings(rng, fresh.num_rows).cast(fresh.schema.field(key).type))
            batch = pa.concat_tables([upd, fresh]).combine_chunks()
            gone = expected.take(pa.array(pick[args.upsert:])).select([key])

            before = tree_snapshot(root)
            r, m = timed(lambda: tbl.upsert(batch))
            m.update(op="upsert", round=rnd, rows=batch.num_rows, bytes_written=int(r.bytes_written),
                     pyarrow_alone_bytes=pyarrow_bytes(batch, work), **tree_delta(before, tree_snapshot(root)))
            res["commits"].append(m)
            print(f"[{args.engine} {base.num_rows}] upsert r{rnd} {m['seconds']:.3f}s cpu {m['cpu_seconds']:.2f}s "
                  f"load {m['load_1m']} new {m['new_file_bytes']} {m['new_file_bytes_by_area']} "
                  f"(pyarrow alone {m['pyarrow_alone_bytes']})", flush=True)

            before = tree_snapshot(root)
            r, m = timed(lambda: tbl.delete_keys(gone[key].to_pylist()))
            m.update(op="delete", round=rnd, rows=gone.num_rows, bytes_written=int(r.bytes_written),
                     **tree_delta(before, tree_snapshot(root)))
            res["commits"].append(m)
            print(f"[{args.engine} {base.num_rows}] delete r{rnd} {m['seconds']:.3f}s cpu {m['cpu_seconds']:.2f}s "
                  f"load {m['load_1m']} new {m['new_file_bytes']} {m['new_file_bytes_by_area']}", flush=True)

            # the expected table: pyarrow alone
            ek = key_strings(expected, keys)
            drop = pc.is_in(ek, value_set=pc.cast(pa.concat_arrays([batch[key].combine_chunks(),
                                                                       gone[key].combine_chunks()]), pa.string()))
            expected = pa.concat_tables([expected.filter(pc.invert(drop)), batch]).combine_chunks()

        final, m = timed(lambda: pa.Table.from_batches(hudi.HudiTable(str(root / "table")).read()))
        res["read_all"] = m
        meta_cols = [c for c in final.column_names if c.startswith("_hoodie_")]
        msg = compare_tables(final.drop_columns(meta_cols), expected, keys, f"hudi-c {args.engine} end state")
        res["oracle"] = msg or "ok"
        print(f"[{args.engine} {base.num_rows}] end state: {res['oracle']}", flush=True)
    finally:
        if args.keep:
            res["kept"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(res, indent=1, default=str))
    return 0 if res.get("oracle") == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
