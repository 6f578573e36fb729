"""Oracle for tests/unit/parquet/test_reader.c: writes OUTDIR/stats.parquet
(several row groups, statistics on) with pyarrow and dumps, as pyarrow
reports them, every column chunk's statistics to OUTDIR/stats.txt:

    <row group> <column path> <num_rows> <null_count|-> <min|-> <max|->

min/max in the typed form libhudi's parquet/stats.h gives: integers (also
unsigned, dates, timestamps) in decimal, doubles as %.17g, bytes as hex,
decimals as the unscaled integer; "-" when pyarrow has no such bound.
It also writes OUTDIR/values.txt: the i64 column "id" in file order, one
per line, and the row group of each, so pruning can be checked.

Usage: make_reader_stats.py OUTDIR"""
import decimal
import os
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 4000
GROUP = 1000


def table():
    rng = np.random.default_rng(7)
    n = ROWS
    ids = np.arange(n, dtype=np.int64) * 3 - 5000
    f64 = rng.normal(size=n)
    f64[1500] = np.nan  # row group 1 holds a NaN
    words = ["apple", "Banana", "cherry", "ärger", "zeta", "\x7f", ""]
    return pa.table({
        "id": pa.array(ids),
        "u32": pa.array(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)),
        "i8": pa.array(rng.integers(-128, 128, n).astype(np.int8), mask=rng.random(n) < 0.1),
        "f64": pa.array(f64),
        "s": pa.array([words[k] + str(i % 13) for i, k in enumerate(rng.integers(0, len(words), n))],
                      mask=rng.random(n) < 0.2),
        "dec": pa.array([decimal.Decimal(int(v)).scaleb(-2) for v in rng.integers(-10**8, 10**8, n)],
                        pa.decimal128(12, 2)),
        "ts": pa.array(rng.integers(0, 10**15, n), pa.timestamp("us", tz="UTC")),
        "flag": pa.array(rng.random(n) < 0.5),
    })


def fmt(v, t):
    if v is None:
        return "-"
    if isinstance(v, (bytes, str)):
        b = v.encode() if isinstance(v, str) else v
        return b.hex() if b else "(empty)"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, decimal.Decimal):
        return str(int(v.scaleb(t.scale)))
    if isinstance(v, float):
        return "%.17g" % v
    if hasattr(v, "value"):  # pandas-free timestamp scalars
        return str(v.value)
    import datetime
    if isinstance(v, datetime.datetime):
        epoch = datetime.datetime(1970, 1, 1, tzinfo=v.tzinfo)
        d = v - epoch
        return str((d.days * 86400 + d.seconds) * 10**6 + d.microseconds)
    return str(v)


def main(out):
    os.makedirs(out, exist_ok=True)
    t = table()
    path = os.path.join(out, "stats.parquet")
    pq.write_table(t, path, row_group_size=GROUP, store_schema=False, compression="snappy")
    md = pq.ParquetFile(path).metadata
    with open(os.path.join(out, "stats.txt"), "w") as f:
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            for c in range(rg.num_columns):
                col = rg.column(c)
                s = col.statistics
                ty = t.schema.field(col.path_in_schema).type
                if s is None:
                    f.write("%d %s %d - - -\n" % (g, col.path_in_schema, rg.num_rows))
                    continue
                lo = fmt(s.min, ty) if s.has_min_max else "-"
                hi = fmt(s.max, ty) if s.has_min_max else "-"
                nc = str(s.null_count) if s.has_null_count else "-"
                f.write("%d %s %d %s %s %s\n" % (g, col.path_in_schema, rg.num_rows, nc, lo, hi))
    with open(os.path.join(out, "values.txt"), "w") as f:
        for v in t["id"].to_pylist():
            f.write("%d\n" % v)


if __name__ == "__main__":
    main(sys.argv[1])
