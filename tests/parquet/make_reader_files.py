"""Parquet files for the reader tests (tests/python/test_parquet_reader.py):
pyarrow writes every Arrow type a Parquet file can carry, nested to several
levels, under every encoding, codec and data page version libhudi reads.
The test then reads each file with libhudi and with pyarrow.parquet and
requires equal tables.

Files are written with store_schema=False, so pyarrow's own read maps the
Parquet schema alone (as it does for Spark-written files) and does not
restore Arrow-only details from the "ARROW:schema" footer key.

Usage as a script: make_reader_files.py OUTDIR  (prints the paths)."""
from __future__ import annotations

import datetime
import decimal
import os
import sys
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N = 2500


def _mask(rng, n, p):
    return rng.random(n) < p


def flat_table(seed: int = 1, n: int = N) -> pa.Table:
    rng = np.random.default_rng(seed)

    def m(p=0.1):
        return _mask(rng, n, p)

    i64 = rng.integers(-(2**62), 2**62, n, dtype=np.int64)
    words = ["alpha", "beta", "", "ünïcødé", "x" * 60, "hoodie"]
    strs = [words[a] + str(b) for a, b in zip(rng.integers(0, len(words), n), rng.integers(0, 40, n))]
    decs = [decimal.Decimal(int(v)).scaleb(-3) for v in rng.integers(-(10**12), 10**12, n)]
    big = [decimal.Decimal(int(v) * 10**30 + 7).scaleb(-5) for v in rng.integers(-(10**9), 10**9, n)]
    small = [decimal.Decimal(int(v)).scaleb(-2) for v in rng.integers(-(10**6), 10**6, n)]
    f32 = rng.normal(size=n).astype(np.float32)
    f32[3] = np.nan
    f64 = rng.normal(size=n) * 1e9
    f64[4] = -0.0
    f64[5] = np.inf
    cols = {
        "b": pa.array(rng.random(n) < 0.4, mask=m()),
        "b_req": pa.array(rng.random(n) < 0.6),
        "i8": pa.array(rng.integers(-128, 128, n).astype(np.int8), mask=m()),
        "u8": pa.array(rng.integers(0, 256, n).astype(np.uint8), mask=m()),
        "i16": pa.array(rng.integers(-(2**15), 2**15, n).astype(np.int16), mask=m()),
        "u16": pa.array(rng.integers(0, 2**16, n).astype(np.uint16), mask=m()),
        "i32": pa.array(rng.integers(-(2**31), 2**31, n).astype(np.int32), mask=m()),
        "i32_req": pa.array(rng.integers(-100, 100, n).astype(np.int32)),
        "u32": pa.array(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), mask=m()),
        "i64": pa.array(i64, mask=m()),
        "i64_req": pa.array(np.cumsum(rng.integers(0, 100, n)).astype(np.int64)),
        "u64": pa.array(rng.integers(0, 2**63, n, dtype=np.uint64) * 2, mask=m()),
        "f16": pa.array(rng.normal(size=n).astype(np.float16), mask=m()),
        "f32": pa.array(f32, mask=m()),
        "f64_req": pa.array(f64),
        "s": pa.array(strs, mask=m(0.2)),
        "s_req": pa.array(["k%07d" % i for i in range(n)]),
        "large_s": pa.array(strs, type=pa.large_string(), mask=m()),
        "bin": pa.array([x.encode() for x in strs], type=pa.binary(), mask=m()),
        "fsb": pa.array([bytes(rng.integers(0, 256, 5, dtype=np.uint8)) for _ in range(n)], pa.binary(5), mask=m()),
        "uuid": pa.array([uuid.UUID(int=int(x)).bytes for x in rng.integers(0, 2**62, n)], pa.uuid(), mask=m()),
        "json": pa.array(['{"a": %d}' % i for i in range(n)], pa.json_(), mask=m()),
        "dict_s": pa.array(strs, mask=m()).dictionary_encode(),
        "dec": pa.array(decs, pa.decimal128(18, 3), mask=m()),
        "dec_small": pa.array(small, pa.decimal128(9, 2), mask=m()),
        "dec256": pa.array(big, pa.decimal256(50, 5), mask=m()),
        "date": pa.array(rng.integers(-20000, 30000, n).astype(np.int32), pa.date32(), mask=m()),
        "t_ms": pa.array(rng.integers(0, 86400000, n).astype(np.int32), pa.time32("ms"), mask=m()),
        "t_us": pa.array(rng.integers(0, 86400000000, n), pa.time64("us"), mask=m()),
        "t_ns": pa.array(rng.integers(0, 86400000000000, n), pa.time64("ns"), mask=m()),
        "ts_ms": pa.array(rng.integers(-(10**12), 10**13, n), pa.timestamp("ms"), mask=m()),
        "ts_us_utc": pa.array(rng.integers(-(10**15), 10**16, n), pa.timestamp("us", tz="UTC"), mask=m()),
        "ts_ns_tz": pa.array(rng.integers(-(10**18), 10**18, n), pa.timestamp("ns", tz="Asia/Tokyo"), mask=m()),
        "null": pa.nulls(n, pa.int32()),
    }
    return pa.table(cols)


def nested_table(seed: int = 2, n: int = N // 2) -> pa.Table:
    rng = np.random.default_rng(seed)

    def maybe(v, p=0.1):
        return None if rng.random() < p else v

    def ilist(k):
        return [maybe(int(x)) for x in rng.integers(-1000, 1000, k)]

    rows = []
    for i in range(n):
        k = int(rng.integers(0, 5))
        rows.append({
            "l": maybe(ilist(k)),
            "l_req": [int(x) for x in rng.integers(0, 9, k)],
            "ll": maybe([maybe(ilist(int(rng.integers(0, 3)))) for _ in range(k)]),
            "st": maybe({"a": maybe(i), "b": maybe("s%d" % i), "c": maybe({"d": maybe(float(i) / 3), "e": maybe(ilist(k))})}),
            "ls": maybe([maybe({"x": maybe(i + j), "y": maybe(["t%d" % j] * j)}) for j in range(k)]),
            "m": maybe([("k%d" % j, maybe(j * i)) for j in range(k)]),
            "ms": maybe([("k%d" % j, maybe({"p": maybe(j), "q": maybe([maybe(1.5 * j)] * j)})) for j in range(k)]),
            "lm": maybe([maybe([("a%d" % j, maybe("v"))]) for j in range(k)]),
            "fsl": maybe([maybe(float(x)) for x in rng.normal(size=3)]),
            "deep": maybe([maybe([maybe([maybe({"z": maybe([maybe(j)] * 2)})]) for j in range(k)])]),
        })
    schema = pa.schema([
        ("l", pa.list_(pa.int64())),
        pa.field("l_req", pa.list_(pa.field("element", pa.int64(), nullable=False)), nullable=False),
        ("ll", pa.list_(pa.list_(pa.int64()))),
        ("st", pa.struct([("a", pa.int64()), ("b", pa.string()),
                          ("c", pa.struct([("d", pa.float64()), ("e", pa.list_(pa.int64()))]))])),
        ("ls", pa.list_(pa.struct([("x", pa.int32()), ("y", pa.list_(pa.string()))]))),
        ("m", pa.map_(pa.string(), pa.int64())),
        ("ms", pa.map_(pa.string(), pa.struct([("p", pa.int32()), ("q", pa.list_(pa.float64()))]))),
        ("lm", pa.list_(pa.map_(pa.string(), pa.string()))),
        ("fsl", pa.list_(pa.float32(), 3)),
        ("deep", pa.list_(pa.list_(pa.list_(pa.struct([("z", pa.list_(pa.int16()))]))))),
    ])
    return pa.Table.from_pylist(rows, schema=schema)


def field_id_table() -> pa.Table:
    """Field ids on top-level and nested fields (as Iceberg-style writers set them)."""
    def fid(name, t, i, nullable=True):
        return pa.field(name, t, nullable, metadata={"PARQUET:field_id": str(i)})
    schema = pa.schema([
        fid("id", pa.int64(), 1, False),
        fid("st", pa.struct([fid("a", pa.string(), 3), fid("b", pa.list_(fid("element", pa.int32(), 5)), 4)]), 2),
        fid("m", pa.map_(fid("key", pa.string(), 7, False), fid("value", pa.float64(), 8)), 6),
    ])
    rows = [{"id": i, "st": None if i % 4 == 0 else {"a": "x%d" % i, "b": [i, None]},
             "m": [("k", float(i))] if i % 3 else None} for i in range(500)]
    return pa.Table.from_pylist(rows, schema=schema)


def _encodings(table: pa.Table, kind: str) -> dict:
    """Per-column encodings for the non-dictionary variants."""
    out = {}
    for f in table.schema:
        t = f.type
        if pa.types.is_dictionary(t) or pa.types.is_nested(t) or pa.types.is_boolean(t) or pa.types.is_null(t):
            continue
        if isinstance(t, pa.ExtensionType):
            t = t.storage_type
        phys_int = (pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_timestamp(t))
        if kind == "delta":
            if phys_int:
                out[f.name] = "DELTA_BINARY_PACKED"
            elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
                out[f.name] = "DELTA_LENGTH_BYTE_ARRAY"
            elif pa.types.is_fixed_size_binary(t) or pa.types.is_decimal(t):
                out[f.name] = "DELTA_BYTE_ARRAY"
        elif kind == "delta_ba":
            if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
                out[f.name] = "DELTA_BYTE_ARRAY"
        elif kind == "bss":
            if pa.types.is_floating(t) or phys_int or pa.types.is_fixed_size_binary(t) or pa.types.is_decimal(t):
                out[f.name] = "BYTE_STREAM_SPLIT"
    return out


VARIANTS = {
    # name: (table maker, write options)
    "flat_dict_v1_snappy": ("flat", dict(compression="snappy")),
    "flat_dict_v2_zstd": ("flat", dict(compression="zstd", data_page_version="2.0")),
    "flat_plain_v1_none": ("flat", dict(compression="none", use_dictionary=False)),
    "flat_plain_v2_gzip": ("flat", dict(compression="gzip", use_dictionary=False, data_page_version="2.0")),
    "flat_delta_v1_lz4": ("flat", dict(compression="lz4", use_dictionary=False, enc="delta")),
    "flat_delta_v2_zstd": ("flat", dict(compression="zstd", use_dictionary=False, data_page_version="2.0",
                                        enc="delta")),
    "flat_deltaba_v1_snappy": ("flat", dict(compression="snappy", use_dictionary=False, enc="delta_ba")),
    "flat_bss_v2_none": ("flat", dict(compression="none", use_dictionary=False, data_page_version="2.0",
                                      enc="bss")),
    "flat_int96_dict": ("flat", dict(compression="snappy", use_deprecated_int96_timestamps=True)),
    "flat_decint_plain": ("flat", dict(compression="none", use_dictionary=False, store_decimal_as_integer=True)),
    "nested_dict_v1_snappy": ("nested", dict(compression="snappy")),
    "nested_plain_v2_zstd": ("nested", dict(compression="zstd", use_dictionary=False, data_page_version="2.0")),
    "nested_plain_v1_none": ("nested", dict(compression="none", use_dictionary=False)),
    "nested_dict_v2_gzip": ("nested", dict(compression="gzip", data_page_version="2.0")),
    "nested_noncompliant": ("nested", dict(compression="snappy", use_compliant_nested_type=False)),
    "field_ids": ("ids", dict(compression="zstd")),
}


def generate(outdir: str) -> list[str]:
    os.makedirs(outdir, exist_ok=True)
    tables = {"flat": flat_table(), "nested": nested_table(), "ids": field_id_table()}
    paths = []
    for name, (which, opts) in VARIANTS.items():
        opts = dict(opts)
        table = tables[which]
        enc = opts.pop("enc", None)
        if enc:
            opts["column_encoding"] = _encodings(table, enc)
        path = os.path.join(outdir, name + ".parquet")
        pq.write_table(table, path, store_schema=False, row_group_size=1000, data_page_size=2048,
                       write_batch_size=300, **opts)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in generate(sys.argv[1]):
        print(p)
