"""Writes the seed corpus of fuzz/parquet_reader_fuzzer.c: tiny pyarrow
files with every nesting kind, decimals, timestamps, INT96, both page
versions and several codecs.
Run from the repository root: .venv/bin/python tests/parquet/make_reader_seeds.py"""
import decimal
import io
import os

import pyarrow as pa
import pyarrow.parquet as pq

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "corpus", "parquet_reader")
os.makedirs(root, exist_ok=True)
t = pa.table({
    "i": pa.array([1, None, 3], pa.int8()),
    "s": pa.array(["a", "bb", None]),
    "st": pa.array([{"x": 1, "y": [1.5]}, None, {"x": None, "y": []}],
                   pa.struct([("x", pa.int32()), ("y", pa.list_(pa.float64()))])),
    "m": pa.array([[("k", 1)], None, []], pa.map_(pa.string(), pa.int64())),
    "ll": pa.array([[[1], None], None, [[]]], pa.list_(pa.list_(pa.int16()))),
    "d": pa.array([decimal.Decimal("1.25"), None, decimal.Decimal("-3.50")], pa.decimal128(5, 2)),
    "ts": pa.array([1, 2, None], pa.timestamp("ms", tz="UTC")),
    "b": pa.array([True, None, False]),
})
variants = {
    "v1_snappy_dict": dict(compression="snappy"),
    "v2_plain_none": dict(compression="none", use_dictionary=False, data_page_version="2.0"),
    "int96_zstd": dict(compression="zstd", use_deprecated_int96_timestamps=True, row_group_size=2),
}
for name, opts in variants.items():
    buf = io.BytesIO()
    pq.write_table(t, buf, store_schema=False, **opts)
    with open(os.path.join(root, name), "wb") as f:
        f.write(buf.getvalue())
