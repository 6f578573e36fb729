"""Writes the small seed corpora of fuzz/thrift_fuzzer.c and
fuzz/parquet_footer_fuzzer.c from tiny pyarrow-written files.
Run from the repository root: .venv/bin/python tests/parquet/make_fuzz_seeds.py"""
import io
import os
import struct

import pyarrow as pa
import pyarrow.parquet as pq

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "corpus")


def tiny(**opts):
    t = pa.table({"i": pa.array([1, None, 3], pa.int32()),
                  "s": pa.array(["a", "bb", None]),
                  "l": pa.array([[1, 2], None, []], pa.list_(pa.int64()))})
    buf = io.BytesIO()
    pq.write_table(t, buf, **opts)
    return buf.getvalue()


variants = {
    "v1_snappy_dict": dict(compression="snappy"),
    "v2_plain_none": dict(compression="none", use_dictionary=False, data_page_version="2.0"),
    "delta_zstd": dict(compression="zstd", use_dictionary=False,
                       column_encoding={"i": "DELTA_BINARY_PACKED", "s": "DELTA_BYTE_ARRAY"}),
    "index_gzip": dict(compression="gzip", write_page_index=True),
}
for name, opts in variants.items():
    data = tiny(**opts)
    with open(os.path.join(root, "parquet_footer", name + ".parquet"), "wb") as f:
        f.write(data)
    # The footer alone and the first page header, for the Thrift fuzzer.
    n = struct.unpack("<I", data[-8:-4])[0]
    with open(os.path.join(root, "thrift", name + ".footer"), "wb") as f:
        f.write(data[-8 - n:-8])
    with open(os.path.join(root, "thrift", name + ".page_header"), "wb") as f:
        f.write(data[4:4 + 64])
