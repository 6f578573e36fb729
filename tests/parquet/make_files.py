"""Oracle for the C Parquet tests: writes Parquet files with pyarrow (every
encoding, codec and page version we read) and dumps pyarrow's view of them,
and of the Spark-written fixture files, as plain text the C tests compare
their own decoding against.

Usage: make_files.py OUTDIR [FIXTURES_DIR]
       make_files.py --dump FILE.parquet...   (writes FILE.meta, FILE.values)

For every file F it writes F.meta (footer facts as pyarrow reports them) and
F.values (every column chunk: one line per level entry, "def rep value",
the value in its physical form: integers in decimal, FLOAT/DOUBLE as the hex
of their IEEE bits, byte arrays and INT96 as hex, "-" for no value). It also
writes OUTDIR/index.txt listing "parquet_path<TAB>expect_prefix" lines.
"""
import datetime
import decimal
import os
import struct
import sys
import zlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

N = 3000  # rows per generated file: several pages with small page sizes


def table_flat(seed):
    rng = np.random.default_rng(seed)
    n = N

    def nulls(p=0.1):
        return rng.random(n) < p

    i32 = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    i32_small = rng.integers(-50, 50, n).astype(np.int32)
    i64 = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    i64_sorted = np.cumsum(rng.integers(0, 1000, n)).astype(np.int64)
    f32 = rng.normal(size=n).astype(np.float32)
    f32[5] = np.nan
    f64 = rng.normal(size=n) * 1e6
    f64[7] = -0.0
    f64[8] = np.inf
    words = ["alpha", "beta", "gamma", "delta", "", "ünïcødé", "x" * 40]
    strs = [words[k] + str(k2) for k, k2 in zip(rng.integers(0, len(words), n), rng.integers(0, 30, n))]
    prefixed = ["hoodie/partition=%05d/file-%d" % (i // 7, i) for i in range(n)]
    fixed = [bytes(rng.integers(0, 256, 6, dtype=np.uint8)) for _ in range(n)]
    bools = rng.random(n) < 0.3
    dates = rng.integers(-1000, 30000, n).astype(np.int32)
    ts = rng.integers(0, 2_000_000_000_000_000, n, dtype=np.int64)
    decs = [decimal.Decimal(int(v)).scaleb(-2) for v in rng.integers(-10**9, 10**9, n)]
    cols = {
        "req_i32": pa.array(i32),
        "opt_i32": pa.array(i32_small, mask=nulls()),
        "req_i64": pa.array(i64),
        "opt_i64_sorted": pa.array(i64_sorted, mask=nulls(0.05)),
        "opt_f32": pa.array(f32, mask=nulls()),
        "req_f64": pa.array(f64),
        "opt_str": pa.array(strs, mask=nulls(0.2)),
        "req_prefixed": pa.array(prefixed),
        "opt_bin": pa.array([s.encode() for s in strs], type=pa.binary(), mask=nulls(0.3)),
        "opt_fixed": pa.array(fixed, type=pa.binary(6), mask=nulls()),
        "opt_bool": pa.array(bools, mask=nulls()),
        "req_bool": pa.array(~bools),
        "opt_date": pa.array(dates, type=pa.date32(), mask=nulls()),
        "opt_ts_us": pa.array(ts, type=pa.timestamp("us", tz="UTC"), mask=nulls()),
        "opt_dec": pa.array(decs, type=pa.decimal128(12, 2), mask=nulls()),
        "all_null": pa.array([None] * n, type=pa.int32()),
        "opt_i8": pa.array(i32_small.astype(np.int8), mask=nulls()),
        "opt_u32": pa.array(rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), mask=nulls()),
    }
    return pa.table(cols)


def table_nested(seed):
    rng = np.random.default_rng(seed)
    n = N // 3
    lists, structs, slists, maps = [], [], [], []
    for i in range(n):
        k = int(rng.integers(0, 5))
        lists.append(None if i % 11 == 0 else [None if j % 4 == 3 else int(rng.integers(-99, 99)) for j in range(k)])
        structs.append(None if i % 13 == 0 else {"a": None if i % 5 == 0 else i, "b": "s%d" % i})
        slists.append([["p", "q", None][j % 3] + str(j) if j % 3 != 2 else None for j in range(i % 4)])
        maps.append(None if i % 7 == 0 else [("k%d" % j, None if j == 1 else j * i) for j in range(i % 3)])
    return pa.table({
        "id": pa.array(range(n), type=pa.int64()),
        "list_i32": pa.array(lists, type=pa.list_(pa.int32())),
        "st": pa.array(structs, type=pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "list_str": pa.array(slists, type=pa.list_(pa.string())),
        "map_si": pa.array(maps, type=pa.map_(pa.string(), pa.int32())),
        "list_list": pa.array([[[i, None], [], None] if i % 2 else None for i in range(n)],
                              type=pa.list_(pa.list_(pa.int16()))),
    })


def generate(outdir):
    flat = table_flat(1)
    flat = flat.replace_schema_metadata({"hudi.test": "flat", "empty": ""})
    nested = table_nested(2)
    small_pages = dict(data_page_size=4096, row_group_size=1000, write_batch_size=256)
    delta_enc = {"req_i32": "DELTA_BINARY_PACKED", "opt_i32": "DELTA_BINARY_PACKED",
                 "req_i64": "DELTA_BINARY_PACKED", "opt_i64_sorted": "DELTA_BINARY_PACKED",
                 "opt_str": "DELTA_LENGTH_BYTE_ARRAY", "req_prefixed": "DELTA_BYTE_ARRAY",
                 "opt_bin": "DELTA_BYTE_ARRAY", "opt_fixed": "DELTA_BYTE_ARRAY",
                 "opt_date": "DELTA_BINARY_PACKED", "opt_ts_us": "DELTA_BINARY_PACKED"}
    bss_enc = {"opt_f32": "BYTE_STREAM_SPLIT", "req_f64": "BYTE_STREAM_SPLIT", "req_i32": "BYTE_STREAM_SPLIT",
               "req_i64": "BYTE_STREAM_SPLIT", "opt_fixed": "BYTE_STREAM_SPLIT", "opt_dec": "BYTE_STREAM_SPLIT"}
    files = {
        "plain_v1_none": (flat, dict(use_dictionary=False, compression="none", **small_pages)),
        "plain_v2_snappy": (flat, dict(use_dictionary=False, compression="snappy", data_page_version="2.0",
                                       **small_pages)),
        "dict_v1_snappy": (flat, dict(compression="snappy", write_page_index=True,
                                      sorting_columns=[pq.SortingColumn(3)], **small_pages)),
        "dict_v2_zstd": (flat, dict(compression="zstd", data_page_version="2.0", write_page_index=True,
                                    **small_pages)),
        "delta_v1_gzip": (flat, dict(use_dictionary=False, compression="gzip", column_encoding=delta_enc,
                                     **small_pages)),
        "delta_v2_lz4": (flat, dict(use_dictionary=False, compression="lz4", data_page_version="2.0",
                                    column_encoding=delta_enc, **small_pages)),
        "bss_v1_zstd": (flat, dict(use_dictionary=False, compression="zstd", column_encoding=bss_enc,
                                   **small_pages)),
        "bss_v2_none": (flat, dict(use_dictionary=False, compression="none", data_page_version="2.0",
                                   column_encoding=bss_enc, **small_pages)),
        "int96_gzip": (flat.select(["req_i32", "opt_ts_us"]),
                       dict(compression="gzip", use_deprecated_int96_timestamps=True, **small_pages)),
        "nested_v1_snappy": (nested, dict(compression="snappy", **small_pages)),
        "nested_v2_plain": (nested, dict(use_dictionary=False, compression="zstd", data_page_version="2.0",
                                         **small_pages)),
        "one_row": (flat.slice(0, 1), dict(compression="snappy")),
        "no_rows": (flat.slice(0, 0), dict(compression="snappy")),
    }
    paths = []
    for name, (table, opts) in files.items():
        path = os.path.join(outdir, name + ".parquet")
        pq.write_table(table, path, **opts)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- dumping

def hexs(b):
    return b.hex() if b else "x"  # "x" marks an empty byte array


def logical_unit(col):
    lt = str(col.logical_type)
    for unit, name in (("milliseconds", "ms"), ("microseconds", "us"), ("nanoseconds", "ns")):
        if unit in lt:
            return name
    return None


def physical_values(arr, col):
    """The leaf array's values as their Parquet physical form (None for null)."""
    pt = col.physical_type
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = arr.type
    if pt == "BOOLEAN":
        return [None if v is None else str(int(v)) for v in arr.to_pylist()]
    if pt in ("INT32", "INT64"):
        bits = 32 if pt == "INT32" else 64
        if pa.types.is_decimal(t):
            vals = [None if v is None else int(v.scaleb(t.scale)) for v in arr.to_pylist()]
        else:
            if pa.types.is_timestamp(t):
                unit = logical_unit(col) or t.unit
                arr = arr.cast(pa.timestamp(unit, t.tz)).cast(pa.int64())
            elif pa.types.is_date(t) or pa.types.is_time(t) or pa.types.is_duration(t):
                arr = arr.cast(pa.int32() if bits == 32 else pa.int64())
            vals = arr.to_pylist()
        out = []
        for v in vals:
            if v is None:
                out.append(None)
            else:
                v &= (1 << bits) - 1  # unsigned types are stored as their bit pattern
                if v >> (bits - 1):
                    v -= 1 << bits
                out.append(str(v))
        return out
    if pt == "INT96":
        out = []
        for v in arr.cast(pa.timestamp("ns")).cast(pa.int64()).to_pylist():
            if v is None:
                out.append(None)
                continue
            days, nanos = divmod(v, 86400 * 10**9)
            out.append(struct.pack("<qi", nanos, days + 2440588).hex())
        return out
    if pt == "FLOAT":
        return [None if v is None else struct.pack("<f", v)[::-1].hex() for v in arr.to_pylist()]
    if pt == "DOUBLE":
        return [None if v is None else struct.pack("<d", v)[::-1].hex() for v in arr.to_pylist()]
    if pt == "FIXED_LEN_BYTE_ARRAY" and pa.types.is_decimal(t):
        n = col.length
        return [None if v is None else int(v.scaleb(t.scale)).to_bytes(n, "big", signed=True).hex()
                for v in arr.to_pylist()]
    # BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY (binary, string)
    out = []
    for v in arr.to_pylist():
        if v is None:
            out.append(None)
        else:
            out.append(hexs(v.encode() if isinstance(v, str) else bytes(v)))
    return out


class Leaf:
    """Walks one leaf column of an Arrow column, emitting Parquet levels."""

    def __init__(self, col):
        self.col = col
        self.cache = {}
        self.out = []

    def phys(self, arr):
        key = id(arr)
        if key not in self.cache:
            self.cache[key] = (arr, physical_values(arr, self.col))
        return self.cache[key][1]

    def walk(self, arr, i, nullable, path, d, r, rep_depth):
        if nullable:
            if not arr[i].is_valid:
                self.out.append((d, r, None))
                return
            d += 1
        t = arr.type
        if pa.types.is_struct(t):
            name = path[0]
            idx = t.get_field_index(name)
            child = self.child(arr, ("s", idx), lambda: arr.field(idx))
            self.walk(child, i, t.field(idx).nullable, path[1:], d, r, rep_depth)
        elif pa.types.is_map(t):
            # path: key_value, key|value
            start, end = arr.offsets[i].as_py(), arr.offsets[i + 1].as_py()
            if start == end:
                self.out.append((d, r, None))
                return
            leaf = path[1]
            child = self.child(arr, ("m", leaf), lambda: arr.keys if leaf == "key" else arr.items)
            nullable_child = leaf != "key" and t.item_field.nullable
            for j in range(start, end):
                self.walk(child, j, nullable_child, path[2:], d + 1, r if j == start else rep_depth + 1,
                          rep_depth + 1)
        elif pa.types.is_list(t) or pa.types.is_large_list(t):
            start, end = arr.offsets[i].as_py(), arr.offsets[i + 1].as_py()
            if start == end:
                self.out.append((d, r, None))
                return
            child = self.child(arr, ("l",), lambda: arr.values)
            # Three-level lists name two levels (list, element); legacy
            # two-level lists (parquet-avro's "array") name one.
            vt = t.value_type
            skip = 2
            if len(path) == 1 or (pa.types.is_struct(vt) and len(path) > 1 and path[1] != "element"
                                  and vt.get_field_index(path[1]) >= 0):
                skip = 1
            for j in range(start, end):
                self.walk(child, j, t.value_field.nullable, path[skip:], d + 1, r if j == start else rep_depth + 1,
                          rep_depth + 1)
        else:
            self.out.append((d, r, self.phys(arr)[i]))

    def child(self, arr, key, make):
        k = (id(arr), key)
        if k not in self.cache:
            self.cache[k] = (arr, make())
        return self.cache[k][1]


def dump(path, prefix):
    f = pq.ParquetFile(path)
    md = f.metadata
    with open(prefix + ".meta", "w") as m:
        m.write("num_rows %d\n" % md.num_rows)
        m.write("num_row_groups %d\n" % md.num_row_groups)
        m.write("num_columns %d\n" % md.num_columns)
        m.write("created_by %s\n" % (md.created_by or "-").encode().hex())
        for k, v in sorted((md.metadata or {}).items()):
            # Values can be large (Hudi's bloom filters): length and CRC-32.
            m.write("kv %s %d %08x\n" % (hexs(k), len(v), zlib.crc32(v)))
        for i in range(md.num_columns):
            c = md.schema.column(i)
            m.write("leaf %d %s %s %d %d %d %s\n" % (i, c.path.encode().hex(), c.physical_type, c.max_definition_level,
                                                     c.max_repetition_level, c.length or 0,
                                                     c.converted_type or "NONE"))
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            m.write("rg %d %d %d\n" % (g, rg.num_rows, rg.total_byte_size))
            for i in range(md.num_columns):
                cc = rg.column(i)
                st = cc.statistics
                nulls = st.null_count if st is not None and st.has_null_count else -1
                m.write("chunk %d %d %s %d %d %d %d %d %s nulls=%d\n" % (
                    g, i, cc.compression, cc.num_values, cc.data_page_offset,
                    cc.dictionary_page_offset if cc.has_dictionary_page else -1,
                    cc.total_compressed_size, cc.total_uncompressed_size, ",".join(cc.encodings), nulls))
    schema = f.schema_arrow
    with open(prefix + ".values", "w") as out:
        for g in range(md.num_row_groups):
            table = f.read_row_group(g)
            for i in range(md.num_columns):
                c = md.schema.column(i)
                parts = c.path.split(".")
                top = schema.get_field_index(parts[0])
                field = schema.field(top)
                leaf = Leaf(c)
                arr = table.column(top).combine_chunks() if table.num_rows else pa.array([], type=field.type)
                for row in range(len(arr)):
                    leaf.walk(arr, row, field.nullable, parts[1:], 0, 0, 0)
                out.write("chunk %d %d %d\n" % (g, i, len(leaf.out)))
                for d, r, v in leaf.out:
                    out.write("%d %d %s\n" % (d, r, "-" if v is None else v))


def main():
    if sys.argv[1] == "--dump":
        # Files written by someone else (hudi-c): dump each beside itself.
        for path in sys.argv[2:]:
            dump(path, path[: -len(".parquet")])
        return
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    entries = []
    for path in generate(outdir):
        prefix = path[: -len(".parquet")]
        dump(path, prefix)
        entries.append((path, prefix))
    if len(sys.argv) > 2:
        fixtures = sys.argv[2]
        fx_out = os.path.join(outdir, "fixtures")
        for root, _, names in sorted(os.walk(fixtures)):
            for name in sorted(names):
                if not name.endswith(".parquet"):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, fixtures)
                prefix = os.path.join(fx_out, rel[: -len(".parquet")])
                os.makedirs(os.path.dirname(prefix), exist_ok=True)
                dump(path, prefix)
                entries.append((path, prefix))
    with open(os.path.join(outdir, "index.txt"), "w") as idx:
        for path, prefix in entries:
            idx.write("%s\t%s\n" % (os.path.abspath(path), os.path.abspath(prefix)))


if __name__ == "__main__":
    main()
