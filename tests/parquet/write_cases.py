"""Oracle for hudi-c's Parquet writer (tests/unit/parquet/test_writer.c).

  write_cases.py gen DIR     makes the input tables (pyarrow), exported
                             through the Arrow C data interface into DIR/<case>.arrowbin
                             (schema + batches with their exact buffers, offsets, slices,
                             dictionaries, views), plus DIR/<case>.opts (writer options)
                             and DIR/cases.txt.
  write_cases.py check DIR   for every case hudi-c wrote (DIR/<case>.parquet):
                             - pyarrow writes the same table with the same options
                               (DIR/<case>.ref.parquet, no ARROW:schema, so both files are
                               read back through their Parquet schemas alone);
                             - pyarrow.parquet.read_table and DuckDB's read_parquet must read
                               hudi-c's file exactly as they read pyarrow's;
                             - the Parquet schema trees must be identical (3-level cases) or
                               equal the parquet-avro form (2-level cases);
                             - per row group and column: num_values, null_count, min/max
                               (raw bytes) equal pyarrow's, and min/max equal the data's;
                             - hudi-c's close() summary (DIR/<case>.summary) agrees with the
                               footer.
Tables are deterministic (seeded), so gen and check build the same data.
"""
import ctypes
import json
import struct
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


# ---------------------------------------------------------------- data
def rng(seed):
    return np.random.default_rng(seed)


def nullmask(r, n, p=0.15):
    return r.random(n) < p


def flat_table(seed, n=5000, nulls=True):
    r = rng(seed)
    m = (lambda: nullmask(r, n)) if nulls else (lambda: None)
    cols = {}

    def arr(values, typ):
        mask = m()
        return pa.array(values, typ, mask=mask)

    cols["b"] = arr(r.random(n) < 0.3, pa.bool_())
    cols["i8"] = arr(r.integers(-128, 128, n), pa.int8())
    cols["u8"] = arr(r.integers(0, 256, n), pa.uint8())
    cols["i16"] = arr(r.integers(-32768, 32768, n), pa.int16())
    cols["u16"] = arr(r.integers(0, 65536, n), pa.uint16())
    cols["i32"] = arr(r.integers(-2**31, 2**31, n), pa.int32())
    cols["u32"] = arr(r.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32), pa.uint32())
    cols["i64"] = arr(r.integers(-2**63, 2**63 - 1, n), pa.int64())
    cols["u64"] = arr(r.integers(0, 2**64 - 1, n, dtype=np.uint64), pa.uint64())
    f = r.normal(0, 100, n).astype(np.float32)
    f[r.random(n) < 0.01] = np.nan
    f[r.random(n) < 0.01] = -0.0
    cols["f32"] = arr(f, pa.float32())
    d = r.normal(0, 1e6, n)
    d[r.random(n) < 0.01] = 0.0
    cols["f64"] = arr(d, pa.float64())
    cols["small_card"] = arr(r.integers(0, 20, n) * 1000003, pa.int64())
    cols["d32"] = arr(r.integers(-20000, 30000, n).astype(np.int32), pa.date32())
    cols["d64"] = arr(r.integers(-20000, 30000, n).astype(np.int64) * 86400000, pa.date64())
    for unit in ("s", "ms", "us", "ns"):
        v = r.integers(-2**40, 2**40, n)
        cols["ts_" + unit] = arr(v, pa.timestamp(unit))
        cols["tstz_" + unit] = arr(v, pa.timestamp(unit, "America/New_York"))
    cols["t32s"] = arr(r.integers(0, 86400, n).astype(np.int32), pa.time32("s"))
    cols["t32ms"] = arr(r.integers(0, 86400000, n).astype(np.int32), pa.time32("ms"))
    cols["t64us"] = arr(r.integers(0, 86400000000, n), pa.time64("us"))
    cols["t64ns"] = arr(r.integers(0, 86400000000000, n), pa.time64("ns"))
    import decimal
    for (p, s) in ((5, 2), (10, 5), (18, 3), (38, 10)):
        ints = r.integers(-10**min(p, 18) + 1, 10**min(p, 18), n)
        vals = [decimal.Decimal(int(x)).scaleb(-s) for x in ints]
        cols["dec_%d_%d" % (p, s)] = pa.array(vals, pa.decimal128(p, s), mask=m())
    words = ["", "a", "hudi", "Hudi", "\u00e9t\u00e9", "zz", "partition/2024/01/01", "\xff"]
    strs = ["%s%d" % (words[int(x) % len(words)], int(x) % 977) for x in r.integers(0, 10**6, n)]
    cols["str"] = arr(strs, pa.string())
    cols["lstr"] = arr(strs, pa.large_string())
    cols["bin"] = arr([s.encode()[::-1] + b"\x00\xff" for s in strs], pa.binary())
    cols["lbin"] = arr([s.encode() for s in strs], pa.large_binary())
    cols["fsb"] = arr([bytes(r.integers(0, 256, 7).astype(np.uint8)) for _ in range(n)], pa.binary(7))
    cols["uuid"] = arr(["%08x-%04x-4%03x-8%03x-%012x" % tuple(int(x) for x in r.integers(0, 2**31, 5)) for _ in range(n)], pa.string())
    cols["dur"] = arr(r.integers(-10**12, 10**12, n), pa.duration("us"))
    t = pa.table(cols)
    # required (non-nullable) columns
    req = pa.array(np.arange(n, dtype=np.int64))
    t = t.append_column(pa.field("req_i64", pa.int64(), nullable=False), req)
    t = t.append_column(pa.field("req_str", pa.string(), nullable=False), pa.array([str(i) for i in range(n)]))
    return t


def view_dict_table(seed, n=3000):
    r = rng(seed)
    strs = ["v%d-%s" % (int(x), "x" * int(x % 20)) for x in r.integers(0, 50, n)]
    mask = nullmask(r, n)
    sv = pa.array(strs, pa.string(), mask=mask).cast(pa.string_view())
    bv = pa.array([s.encode() for s in strs], pa.binary(), mask=mask).cast(pa.binary_view())
    de = pa.array(strs, pa.string(), mask=mask).dictionary_encode()
    di = pa.array(r.integers(0, 5, n) * 7, pa.int32(), mask=mask).dictionary_encode()
    h = pa.array(r.normal(0, 10, n).astype(np.float16), pa.float16(), mask=mask)
    return pa.table({"sv": sv, "bv": bv, "dict_str": de, "dict_i32": di, "f16": h})


def nested_table(seed, n=3000, element_nulls=True):
    r = rng(seed)

    def maybe(x, p=0.1):
        return None if r.random() < p else x

    en = 0.1 if element_nulls else 0.0
    li, ls, lst, ss, mp, mps, fsl, ll, lll, deep = [], [], [], [], [], [], [], [], [], []
    for i in range(n):
        k = int(r.integers(0, 5))
        li.append(maybe([maybe(int(x), en) for x in r.integers(-1000, 1000, k)]))
        ls.append(maybe([maybe("s%d" % x, en) for x in r.integers(0, 300, int(r.integers(0, 4)))]))
        lst.append(maybe([maybe({"a": maybe(int(x)), "b": maybe([float(y) for y in r.normal(0, 1, int(x) % 3)])}, en)
                          for x in r.integers(0, 100, int(r.integers(0, 3)))]))
        ss.append(maybe({"x": maybe({"y": maybe("y%d" % i), "z": maybe(i * 3)}), "w": maybe(i % 7 == 0)}))
        mp.append(maybe([("k%d" % j, maybe(int(j * i))) for j in range(int(r.integers(0, 4)))]))
        mps.append(maybe([("m%d" % j, maybe({"f1": maybe(float(j)), "f2": maybe(j % 2 == 0)})) for j in range(int(r.integers(0, 3)))]))
        fsl.append(maybe([float(x) for x in r.normal(0, 1, 4)]))
        ll.append(maybe([maybe("L%d" % x, en) for x in r.integers(0, 50, int(r.integers(0, 3)))]))
        lll.append(maybe([maybe([maybe(int(y), en) for y in r.integers(0, 9, int(x) % 3)], en) for x in r.integers(0, 10, int(r.integers(0, 3)))]))
        deep.append(maybe({"l": maybe([maybe({"m": maybe([("q", maybe([maybe(i, en)]))])}, en)])}))
    t = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int32)),
        "li": pa.array(li, pa.list_(pa.int32())),
        "ls": pa.array(ls, pa.list_(pa.string())),
        "lst": pa.array(lst, pa.list_(pa.struct([("a", pa.int64()), ("b", pa.list_(pa.float64()))]))),
        "ss": pa.array(ss, pa.struct([("x", pa.struct([("y", pa.string()), ("z", pa.int64())])), ("w", pa.bool_())])),
        "mp": pa.array(mp, pa.map_(pa.string(), pa.int64())),
        "mps": pa.array(mps, pa.map_(pa.string(), pa.struct([("f1", pa.float64()), ("f2", pa.bool_())]))),
        "fsl": pa.array(fsl, pa.list_(pa.float32(), 4)),
        "ll": pa.array(ll, pa.large_list(pa.string())),
        "lll": pa.array(lll, pa.list_(pa.list_(pa.int64()))),
        "deep": pa.array(deep, pa.struct([("l", pa.list_(pa.struct([("m", pa.map_(pa.string(), pa.list_(pa.int32())))])))])),
    })
    return t


def hudi_like_table(seed, n=2000):
    """The columns of the Spark fixtures (hudi-rs sample tables), with Hudi's meta columns."""
    import decimal
    r = rng(seed)
    ids = np.arange(n)
    return pa.table({
        "_hoodie_commit_time": pa.array(["20240418173235694"] * n),
        "_hoodie_record_key": pa.array(["id:%d" % i for i in ids]),
        "id": pa.array(ids.astype(np.int32)),
        "decimalField": pa.array([decimal.Decimal(int(x)).scaleb(-5) for x in r.integers(-10**9, 10**9, n)], pa.decimal128(10, 5)),
        "timestampField": pa.array(r.integers(0, 2**50, n), pa.timestamp("us", "UTC")),
        "arrayField": pa.array([[{"arr_struct_f1": "a%d" % j, "arr_struct_f2": j} for j in range(i % 3)] for i in ids],
                               pa.list_(pa.struct([("arr_struct_f1", pa.string()), ("arr_struct_f2", pa.int32())]))),
        "intList": pa.array([[j for j in range(i % 4)] for i in ids], pa.list_(pa.field("x", pa.int32(), nullable=False))),
        "mapField": pa.array([[("k%d" % j, {"map_field_value_struct_f1": float(j), "map_field_value_struct_f2": j % 2 == 0})
                               for j in range(i % 2)] for i in ids],
                             pa.map_(pa.string(), pa.struct([("map_field_value_struct_f1", pa.float64()),
                                                             ("map_field_value_struct_f2", pa.bool_())]))),
    })


def with_field_ids(t):
    fields = [f.with_metadata({"PARQUET:field_id": str(100 + i)}) for i, f in enumerate(t.schema)]
    return pa.table(t.columns, schema=pa.schema(fields))


def rag_rows(seed, n):
    r = rng(seed)
    return pa.table({
        "chunk_id": pa.array(["doc%d-%d" % (i // 8, i % 8) for i in range(n)]),
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(r.normal(0, 1, n * 16).astype(np.float32)), 16)
        .cast(pa.list_(pa.float32())),
        "updated_at": pa.array(r.integers(0, 2**40, n)),
    })


# name -> (builder, options, batch split)
def dict_rules_table(seed, n=5000):
    """Columns for the dictionary rules: all-unique strings and int64s (the
    first-page check drops the dictionary), a few repeated strings (kept),
    and int64s repeated 4 times each (kept at the first page, then the
    dictionary outgrows a small limit mid-chunk)."""
    r = rng(seed)
    uniq = ["%08x-%s" % (i, "k" * int(x)) for i, x in enumerate(r.integers(0, 20, n))]
    return pa.table({
        "uniq_s": pa.array(uniq, pa.string(), mask=nullmask(r, n, 0.05)),
        "uniq_i": pa.array(r.permutation(n).astype(np.int64) * 7919),
        "few_s": pa.array(["part=%d" % x for x in r.integers(0, 5, n)], pa.string(), mask=nullmask(r, n)),
        "rep4": pa.array(np.arange(n, dtype=np.int64) // 4 * 1000003),
    })


def cases():
    base = {"codec": "snappy", "dictionary": 1, "v2": 0, "page_bytes": 1 << 20, "row_group_rows": 1 << 20,
            "dict_page_bytes": 1 << 20, "list_style": 3, "map_legacy": 0, "stats": 1, "sink": "buf", "last": 0}

    def o(**kw):
        d = dict(base)
        d.update(kw)
        return d

    c = {}
    c["flat_default"] = (lambda: flat_table(1), o(), [5000])
    c["flat_plain_none"] = (lambda: flat_table(2), o(codec="none", dictionary=0), [5000])
    c["flat_gzip_small_pages"] = (lambda: flat_table(3), o(codec="gzip", page_bytes=700, row_group_rows=1234), [5000])
    c["flat_zstd_v2"] = (lambda: flat_table(4), o(codec="zstd", v2=1, page_bytes=4000, row_group_rows=2000), [1000, 0, 2500, 1500])
    c["flat_v2_plain_lz4"] = (lambda: flat_table(5), o(codec="lz4_raw", v2=1, dictionary=0, page_bytes=3000), [5000])
    c["flat_no_nulls_storage"] = (lambda: flat_table(6, nulls=False), o(sink="storage", last=1, row_group_rows=3000), [5000])
    c["flat_sliced"] = (lambda: flat_table(7).slice(777, 3001), o(row_group_rows=1000), [3001])
    c["flat_dict_fallback"] = (lambda: flat_table(8), o(dict_page_bytes=2000, page_bytes=5000), [700, 4300])
    c["dict_rules"] = (lambda: dict_rules_table(23), o(dict_page_bytes=2000, page_bytes=5000), [1000, 4000])
    c["flat_nostats"] = (lambda: flat_table(9), o(stats=0), [5000])
    c["views_dicts"] = (lambda: view_dict_table(10), o(row_group_rows=1000, page_bytes=2000), [3000])
    c["views_dicts_plain_v2"] = (lambda: view_dict_table(11).slice(13), o(dictionary=0, v2=1, codec="zstd"), [2987])
    c["nested_default"] = (lambda: nested_table(12), o(), [3000])
    c["nested_small_pages_v2"] = (lambda: nested_table(13), o(v2=1, page_bytes=500, row_group_rows=700, codec="gzip"), [1000, 2000])
    c["nested_sliced_plain"] = (lambda: nested_table(14).slice(101, 2500), o(dictionary=0, row_group_rows=999, codec="none"), [2500])
    c["nested_batches_last"] = (lambda: nested_table(15), o(row_group_rows=1024, last=1, sink="storage", codec="zstd"), [100, 2900])
    c["nested_2level"] = (lambda: nested_table(16, element_nulls=False), o(list_style=2, map_legacy=1), [3000])
    c["hudi_3level"] = (lambda: hudi_like_table(17), o(), [2000])
    c["hudi_2level"] = (lambda: hudi_like_table(18), o(list_style=2, map_legacy=1, root_name="hoodie.t.t_record"), [2000])
    c["field_ids"] = (lambda: with_field_ids(hudi_like_table(19)), o(), [2000])
    c["empty_table"] = (lambda: flat_table(20).slice(0, 0), o(), [0])
    c["empty_batches"] = (lambda: nested_table(21, n=50), o(row_group_rows=20), [0, 10, 0, 40, 0])
    c["rag_like"] = (lambda: rag_rows(22, 4000), o(row_group_rows=1500, page_bytes=20000), [4000])
    return c


# ---------------------------------------------------------------- export
class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
                        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                        ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
                        ("dictionary", ctypes.POINTER(ArrowSchema)), ("release", ctypes.c_void_p),
                        ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                       ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                       ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                       ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
                       ("dictionary", ctypes.POINTER(ArrowArray)), ("release", ctypes.c_void_p),
                       ("private_data", ctypes.c_void_p)]


def metadata_bytes(ptr):
    if not ptr:
        return None
    n = ctypes.c_int32.from_address(ptr).value
    pos = 4
    for _ in range(2 * n):
        ln = ctypes.c_int32.from_address(ptr + pos).value
        pos += 4 + ln
    return ctypes.string_at(ptr, pos)


def put_str(out, s):
    if s is None:
        out += struct.pack("<i", -1)
    else:
        out += struct.pack("<i", len(s)) + s


def dump_schema(out, s):
    put_str(out, s.format)
    put_str(out, s.name)
    put_str(out, metadata_bytes(s.metadata))
    out += struct.pack("<qq", s.flags, s.n_children)
    for i in range(s.n_children):
        dump_schema(out, s.children[i].contents)
    out += struct.pack("<B", 1 if s.dictionary else 0)
    if s.dictionary:
        dump_schema(out, s.dictionary.contents)


FIXED = {"c": 1, "C": 1, "s": 2, "S": 2, "i": 4, "I": 4, "l": 8, "L": 8, "e": 2, "f": 4, "g": 8, "tdD": 4, "tdm": 8,
         "tts": 4, "ttm": 4, "ttu": 8, "ttn": 8}


def buffer_sizes(fmt, a):
    n = a.offset + a.length
    bits = (n + 7) // 8
    b = a.buffers

    def last_off(width):
        if not b[1]:
            return 0
        return (ctypes.c_int32 if width == 4 else ctypes.c_int64).from_address(b[1] + width * n).value

    if fmt == "b":
        return [bits, bits]
    if fmt in FIXED:
        return [bits, n * FIXED[fmt]]
    if fmt.startswith("ts") or fmt.startswith("tD"):
        return [bits, 8 * n]
    if fmt.startswith("d:"):
        parts = fmt[2:].split(",")
        bw = int(parts[2]) if len(parts) > 2 else 128
        return [bits, n * bw // 8]
    if fmt.startswith("w:"):
        return [bits, n * int(fmt[2:])]
    if fmt in ("u", "z"):
        return [bits, 4 * (n + 1), last_off(4)]
    if fmt in ("U", "Z"):
        return [bits, 8 * (n + 1), last_off(8)]
    if fmt in ("vu", "vz"):
        nv = a.n_buffers - 3
        sizes = [ctypes.c_int64.from_address(b[a.n_buffers - 1] + 8 * i).value for i in range(nv)]
        return [bits, 16 * n] + sizes + [8 * nv]
    if fmt in ("+l", "+m"):
        return [bits, 4 * (n + 1)]
    if fmt == "+L":
        return [bits, 8 * (n + 1)]
    if fmt.startswith("+w") or fmt == "+s":
        return [bits]
    raise ValueError("format " + fmt)


def dump_array(out, a, s):
    fmt = s.format.decode()
    out += struct.pack("<qqqq", a.length, a.null_count, a.offset, a.n_buffers)
    sizes = buffer_sizes(fmt, a)
    assert len(sizes) == a.n_buffers, (fmt, sizes, a.n_buffers)
    for i in range(a.n_buffers):
        p = a.buffers[i]
        if not p:
            out += struct.pack("<q", -1)
        else:
            out += struct.pack("<q", sizes[i]) + ctypes.string_at(p, sizes[i])
    out += struct.pack("<q", a.n_children)
    for i in range(a.n_children):
        dump_array(out, a.children[i].contents, s.children[i].contents)
    out += struct.pack("<B", 1 if a.dictionary else 0)
    if a.dictionary:
        dump_array(out, a.dictionary.contents, s.dictionary.contents)


RELEASE_S = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
RELEASE_A = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))


def export_batches(path, table, split):
    out = bytearray(b"HCAB")
    s = ArrowSchema()
    table.schema._export_to_c(ctypes.addressof(s))
    dump_schema(out, s)
    RELEASE_S(s.release)(ctypes.pointer(s))
    batches = []
    pos = 0
    for k in split:
        sl = table.slice(pos, k)
        pos += k
        # one batch per slice, keeping the slice's offsets into its buffers
        rb = sl.combine_chunks().to_batches()
        batches.append(rb[0] if rb else pa.RecordBatch.from_pylist([], schema=table.schema))
    assert pos == table.num_rows, (pos, table.num_rows)
    out += struct.pack("<q", len(batches))
    for rb in batches:
        a = ArrowArray()
        s = ArrowSchema()
        rb._export_to_c(ctypes.addressof(a), ctypes.addressof(s))
        dump_array(out, a, s)
        RELEASE_A(a.release)(ctypes.pointer(a))
        RELEASE_S(s.release)(ctypes.pointer(s))
    with open(path, "wb") as f:
        f.write(out)


def gen(d):
    names = []
    for name, (mk, opts, split) in cases().items():
        export_batches("%s/%s.arrowbin" % (d, name), mk(), split)
        with open("%s/%s.opts" % (d, name), "w") as f:
            for k, v in opts.items():
                f.write("%s=%s\n" % (k, v))
        names.append(name)
    with open(d + "/cases.txt", "w") as f:
        f.write("\n".join(names) + "\n")


# ---------------------------------------------------------------- check
def schema_text(path, root=None):
    s = str(pq.ParquetFile(path).metadata.schema)
    s = s.split("\n", 1)[1]  # drop the python object line
    if root:
        s = s.replace(" " + root + " {", " schema {", 1)
    return s


AVRO_2LEVEL_HUDI = """required group field_id=-1 schema {
  optional binary field_id=-1 _hoodie_commit_time (String);
  optional binary field_id=-1 _hoodie_record_key (String);
  optional int32 field_id=-1 id;
  optional fixed_len_byte_array(5) field_id=-1 decimalField (Decimal(precision=10, scale=5));
  optional int64 field_id=-1 timestampField (Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false));
  optional group field_id=-1 arrayField (List) {
    repeated group field_id=-1 array {
      optional binary field_id=-1 arr_struct_f1 (String);
      optional int32 field_id=-1 arr_struct_f2;
    }
  }
  optional group field_id=-1 intList (List) {
    repeated int32 field_id=-1 array;
  }
  optional group field_id=-1 mapField (Map) {
    repeated group field_id=-1 key_value (Map) {
      required binary field_id=-1 key (String);
      optional group field_id=-1 value {
        optional double field_id=-1 map_field_value_struct_f1;
        optional boolean field_id=-1 map_field_value_struct_f2;
      }
    }
  }
}
"""


def spark_fixture_fragments(fixture_dir):
    """The arrayField / mapField / decimalField / timestampField declarations of a
    Spark-written Hudi file (hudi-rs v6 sample table)."""
    import glob
    files = sorted(glob.glob(fixture_dir + "/**/v6_nonpartitioned/**/*.parquet", recursive=True))
    if not files:
        raise SystemExit("no Spark fixture under " + fixture_dir)
    txt = schema_text(files[0])
    frags = {}
    lines = txt.split("\n")
    for i, ln in enumerate(lines):
        for key in ("arrayField", "decimalField", "timestampField", "mapField"):
            if (" " + key + " ") in ln or ln.strip().endswith(" " + key + ";"):
                if ln.rstrip().endswith("{"):
                    depth, j = 0, i
                    while True:
                        depth += lines[j].count("{") - lines[j].count("}")
                        j += 1
                        if depth == 0:
                            break
                    frags[key] = "\n".join(lines[i:j])
                else:
                    frags[key] = ln
    return frags


def stats_of_data(col):
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_floating(col.type):
        col = pc.filter(col, pc.invert(pc.is_nan(col)).fill_null(True))
    if len(col) == 0 or col.null_count == len(col):
        return None
    mm = pc.min_max(col)
    return mm["min"].as_py(), mm["max"].as_py()


def raw_key(st, raw):
    """A sortable value of a statistics bound from its raw bytes."""
    t = st.physical_type
    lt = str(st.logical_type)
    unsigned = "isSigned=false" in lt
    if isinstance(raw, (bool, int, float)):  # pyarrow's min_raw of numeric types
        if t == "BOOLEAN":
            return int(raw)
        if unsigned and isinstance(raw, int):
            return raw & (0xFFFFFFFF if t == "INT32" else 0xFFFFFFFFFFFFFFFF)
        return raw
    if t == "INT32":
        return struct.unpack("<I" if unsigned else "<i", raw)[0]
    if t == "INT64":
        return struct.unpack("<Q" if unsigned else "<q", raw)[0]
    if t == "FLOAT":
        return struct.unpack("<f", raw)[0]
    if t == "DOUBLE":
        return struct.unpack("<d", raw)[0]
    if t == "BOOLEAN":
        return int(raw[0])
    if lt.startswith("Decimal"):
        return int.from_bytes(raw, "big", signed=True)
    if lt == "Float16":
        return float(np.frombuffer(raw, np.float16)[0])
    return raw


def pyarrow_write_kwargs(o):
    codec = {"none": "NONE", "snappy": "SNAPPY", "gzip": "GZIP", "zstd": "ZSTD", "lz4_raw": "LZ4"}[o["codec"]]
    return dict(compression=codec, use_dictionary=bool(int(o["dictionary"])),
                data_page_version="2.0" if int(o["v2"]) else "1.0", data_page_size=int(o["page_bytes"]),
                dictionary_pagesize_limit=int(o["dict_page_bytes"]), row_group_size=int(o["row_group_rows"]),
                write_statistics=bool(int(o["stats"])), store_schema=False)


def read_opts(d, name):
    o = {}
    with open("%s/%s.opts" % (d, name)) as f:
        for ln in f:
            k, v = ln.rstrip("\n").split("=", 1)
            o[k] = v
    return o


def duckdb_rows(path, exclude=()):
    import duckdb
    con = duckdb.connect()
    sel = "* EXCLUDE (%s)" % ", ".join(exclude) if exclude else "*"
    return con.execute("SELECT %s FROM read_parquet(?)" % sel, [path]).fetchall()


def col_equal(a, b):
    if a.equals(b):
        return True
    if pa.types.is_floating(a.type) and len(a) == len(b):
        # NaN != NaN for equals(): compare the NaN positions, then the rest
        na, nb = pc.is_nan(a), pc.is_nan(b)
        if not na.equals(nb):
            return False
        return pc.if_else(na, 0, a).equals(pc.if_else(nb, 0, b))
    return False


def same_rows(a, b):
    def norm(x):
        if isinstance(x, float) and x != x:
            return "NaN"
        if isinstance(x, (list, tuple)):
            return [norm(y) for y in x]
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        return x
    return norm(a) == norm(b)


def check_case(d, name, fixture_dir):
    mk, _, split = cases()[name]
    o = read_opts(d, name)
    table = mk()
    ours = "%s/%s.parquet" % (d, name)
    ref = "%s/%s.ref.parquet" % (d, name)
    two_level = o["list_style"] == "2"
    pq.write_table(table, ref, **pyarrow_write_kwargs(o))
    fo = pq.ParquetFile(ours).metadata
    fr = pq.ParquetFile(ref).metadata
    errors = []

    def expect(cond, msg):
        if not cond:
            errors.append(msg)

    # values, as pyarrow reads them
    to = pq.read_table(ours)
    tr = pq.read_table(ref)
    if two_level:
        expect(to.num_rows == tr.num_rows, "row count")
        to = to.cast(tr.schema)  # element field names differ ("array" vs "element")
    expect(to.schema == tr.schema, "arrow schema %s != %s" % (to.schema, tr.schema))
    if to.schema == tr.schema:
        # NaN != NaN in Table.equals: fall back to a NaN-aware comparison
        same = all(col_equal(to[c], tr[c]) for c in to.column_names)
        expect(same, "pyarrow reads different values")
        if not same:
            for c in to.column_names:
                if not col_equal(to[c], tr[c]):
                    errors.append("  column %s differs: %s vs %s" % (c, to[c].slice(0, 3), tr[c].slice(0, 3)))
    # values, as DuckDB reads them
    try:
        # DuckDB reads a 2-level list of one-field structs (`repeated group array { one field }`)
        # as a list of that field, against parquet-format's backward-compatibility rule (the
        # repeated group named "array" is the element); pyarrow follows the rule and checks it.
        skip = ("deep",) if two_level and "deep" in table.column_names else ()
        ro, rr = duckdb_rows(ours, skip), duckdb_rows(ref, skip)
        expect(same_rows(ro, rr), "DuckDB reads different values")
    except Exception as e:  # DuckDB must read both files
        errors.append("DuckDB: %s" % e)
    # schema tree
    root = o.get("root_name")
    if two_level:
        if name.startswith("hudi_"):
            expect(schema_text(ours, root) == AVRO_2LEVEL_HUDI, "2-level schema:\n" + schema_text(ours, root))
            frags = spark_fixture_fragments(fixture_dir)
            mine = schema_text(ours, root)
            for key, frag in frags.items():
                expect(frag in mine, "Spark fixture's %s differs:\n%s\nours:\n%s" % (key, frag, mine))
            expect(len(frags) == 4, "fixture fragments found: %s" % list(frags))
    else:
        expect(schema_text(ours) == schema_text(ref), "schema:\n%s\nvs pyarrow:\n%s" % (schema_text(ours), schema_text(ref)))
        for j in range(min(len(fo.schema), len(fr.schema))):
            a, b = fo.schema.column(j), fr.schema.column(j)
            da = (a.path, a.physical_type, a.converted_type, str(a.logical_type), a.max_definition_level,
                  a.max_repetition_level, a.length, a.precision, a.scale)
            db = (b.path, b.physical_type, b.converted_type, str(b.logical_type), b.max_definition_level,
                  b.max_repetition_level, b.length, b.precision, b.scale)
            expect(da == db, "column descriptor %r vs pyarrow %r" % (da, db))
    # footer
    expect(fo.num_rows == table.num_rows, "num_rows %d" % fo.num_rows)
    # An empty table: pyarrow writes one empty row group, hudi-c (like parquet-mr) none.
    expect(fo.num_row_groups == fr.num_row_groups or (table.num_rows == 0 and fo.num_row_groups == 0),
           "row groups %d vs %d" % (fo.num_row_groups, fr.num_row_groups))
    if fo.num_row_groups == fr.num_row_groups and not two_level:
        row = 0
        for g in range(fo.num_row_groups):
            go, gr = fo.row_group(g), fr.row_group(g)
            expect(go.num_rows == gr.num_rows, "rg %d rows" % g)
            for j in range(fo.num_columns):
                co, cr = go.column(j), gr.column(j)
                tag = "rg %d column %s" % (g, co.path_in_schema)
                expect(co.num_values == cr.num_values, tag + " num_values %d vs %d" % (co.num_values, cr.num_values))
                expect(co.compression == cr.compression, tag + " codec")
                expect(co.is_stats_set == cr.is_stats_set, tag + " stats set")
                if co.is_stats_set and cr.is_stats_set:
                    so, sr = co.statistics, cr.statistics
                    expect(so.null_count == sr.null_count, tag + " null_count %s vs %s" % (so.null_count, sr.null_count))
                    expect(so.has_min_max == sr.has_min_max, tag + " has_min_max %s vs %s" % (so.has_min_max, sr.has_min_max))
                    if so.has_min_max and sr.has_min_max:
                        expect(so.min_raw == sr.min_raw and so.max_raw == sr.max_raw,
                               tag + " min/max %r..%r vs %r..%r" % (so.min_raw, so.max_raw, sr.min_raw, sr.max_raw))
                    # against the data itself, for top-level primitive columns
                    top = co.path_in_schema
                    if top in table.column_names and not pa.types.is_nested(table.schema.field(top).type):
                        col = table[top].slice(row, go.num_rows)
                        if pa.types.is_dictionary(col.type):
                            col = col.cast(col.type.value_type)
                        if col.type == pa.string_view():
                            col = col.cast(pa.string())
                        if col.type == pa.binary_view():
                            col = col.cast(pa.binary())
                        expect(so.null_count == col.null_count, tag + " null_count vs data")
                        ty = col.type
                        # values pyarrow converts differently in statistics (units, python types)
                        skip = (pa.types.is_date64(ty) or pa.types.is_timestamp(ty) or pa.types.is_time(ty)
                                or pa.types.is_float16(ty) or pa.types.is_duration(ty))
                        want = None if skip else stats_of_data(col)
                        if want is not None and so.has_min_max:
                            expect((so.min, so.max) == want or (want[0] == 0 and want[1] == 0),
                                   tag + " min/max %r..%r vs data %r" % (so.min, so.max, want))
            row += go.num_rows
    # hudi-c's close() summary against the footer
    with open("%s/%s.summary" % (d, name)) as f:
        summ = json.load(f)
    expect(summ["num_rows"] == fo.num_rows, "summary rows")
    expect(summ["num_row_groups"] == fo.num_row_groups, "summary row groups")
    import os
    expect(summ["file_size"] == os.path.getsize(ours), "summary file size")
    for j, c in enumerate(summ["columns"]):
        chunks = [fo.row_group(g).column(j) for g in range(fo.num_row_groups)]
        expect(c["path"] == (chunks[0].path_in_schema if chunks else c["path"]), "summary path")
        expect(c["num_values"] == sum(x.num_values for x in chunks), "summary num_values " + c["path"])
        if o["stats"] == "1":
            expect(c["null_count"] == sum(x.statistics.null_count for x in chunks), "summary null_count " + c["path"])
            with_mm = [x.statistics for x in chunks if x.statistics.has_min_max]
            if with_mm and c["has_min_max"]:
                mn = min((raw_key(x, x.min_raw) for x in with_mm))
                mx = max((raw_key(x, x.max_raw) for x in with_mm))
                expect(raw_key(with_mm[0], bytes.fromhex(c["min"])) == mn, "summary min " + c["path"])
                expect(raw_key(with_mm[0], bytes.fromhex(c["max"])) == mx, "summary max " + c["path"])
            expect(c["has_min_max"] == (len(with_mm) > 0 and all(
                x.statistics.has_min_max or x.statistics.null_count == x.num_values for x in chunks)),
                "summary has_min_max " + c["path"])
    if name in ("flat_dict_fallback", "dict_rules"):
        check_dict_rules(ours, fo, table, o, expect)
    # key/value metadata and created_by
    kv = fo.metadata or {}
    expect(kv.get(b"hoodie_min_record_key") == b"key-\x00-min", "footer key/value: %r" % kv)
    expect(fo.created_by.startswith("hudi-c version"), "created_by " + fo.created_by)
    return errors


def check_dict_rules(path, fo, table, o, expect):
    """parquet-java's dictionary rules, read off the page headers
    (pq_pages.py): which chunks keep a dictionary, which fall back and when,
    and that no data page outgrows the page size."""
    import pq_pages
    allp = pq_pages.pages(path)
    page_bytes = int(o["page_bytes"])

    def kinds(col):
        ps = allp[(0, table.column_names.index(col))]
        return ps[0].type == pq_pages.DICTIONARY_PAGE, [p.encoding for p in ps if p.is_data]

    if "i32" in table.column_names:
        # 5000 distinct int32 values: the dictionary outgrows its 2000-byte limit before
        # the first page ends, so it is never written (parquet-java fallBackAllValuesTo)
        has_dict, encs = kinds("i32")
        expect(not has_dict and set(encs) == {"PLAIN"} and len(encs) > 2, "i32: %s %s" % (has_dict, encs))
        has_dict, encs = kinds("small_card")
        expect(has_dict and set(encs) == {"RLE_DICTIONARY"}, "small_card: %s %s" % (has_dict, encs))
    else:
        for col in ("uniq_s", "uniq_i"):  # first page: indices + dictionary >= PLAIN size
            has_dict, encs = kinds(col)
            expect(not has_dict and set(encs) == {"PLAIN"} and len(encs) > 2, "%s: %s %s" % (col, has_dict, encs))
        has_dict, encs = kinds("few_s")
        expect(has_dict and set(encs) == {"RLE_DICTIONARY"} and len(encs) > 2, "few_s: %s %s" % (has_dict, encs))
        # rep4 passes the first-page check, then its dictionary passes 2000 bytes
        has_dict, encs = kinds("rep4")
        expect(has_dict and encs[0] == "RLE_DICTIONARY" and encs[-1] == "PLAIN"
               and encs == sorted(encs, key=lambda e: e == "PLAIN"), "rep4: %s %s" % (has_dict, encs))
    for (g, j), ps in allp.items():
        for p in ps:
            expect(not p.is_data or p.uncompressed_size <= 1.25 * page_bytes,
                   "row group %d column %d: a %d-byte page (page size %d)" % (g, j, p.uncompressed_size, page_bytes))


def check(d, fixture_dir, names):
    bad = 0
    for name in names:
        errs = check_case(d, name, fixture_dir)
        if errs:
            bad += 1
            print("FAIL %s" % name)
            for e in errs[:40]:
                print("   " + e)
        else:
            print("ok   %s" % name)
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    elif sys.argv[1] == "check":
        sys.exit(1 if check(sys.argv[2], sys.argv[3], sys.argv[4:]) else 0)
