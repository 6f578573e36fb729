"""Legacy list layouts for the reader tests, made by rewriting the footer of
pyarrow-written files (pyarrow writes only the standard 3-level LIST form).

A small, generic Thrift compact-protocol codec parses the footer into
(field id, type, value) trees; the rewrite drops schema elements and renames
fields so that a standard list becomes one of the forms parquet-format's
LogicalTypes.md tells readers to accept. The page data is untouched: each
rewrite keeps every column's maximum definition and repetition levels, so the
file stays valid and pyarrow (the oracle) reads it.

    two_level_primitive   optional group l (LIST) { repeated int32 array; }
    two_level_group       optional group l (LIST) { repeated group array { a; b } }
    tuple_group           optional group l (LIST) { repeated group l_tuple { x } }
    bare_repeated         repeated int32 l;
    map_key_value         optional group m (MAP_KEY_VALUE) { repeated group key_value { key; value } }
    converted_only        the LIST / MAP / UTF8 / TIMESTAMP_MICROS / INT_8 converted types without
                          logical types (as parquet-mr 1.10 and older write them)
"""
from __future__ import annotations

import io
import struct

import pyarrow as pa
import pyarrow.parquet as pq

# ---- Thrift compact protocol (generic) ----

T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, T_STRUCT = range(1, 13)


class Reader:
    def __init__(self, b: bytes):
        self.b, self.p = b, 0

    def byte(self) -> int:
        v = self.b[self.p]
        self.p += 1
        return v

    def varint(self) -> int:
        shift = v = 0
        while True:
            x = self.byte()
            v |= (x & 0x7F) << shift
            shift += 7
            if not x & 0x80:
                return v

    def zigzag(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def value(self, t):
        if t in (T_TRUE, T_FALSE):
            return t == T_TRUE
        if t == T_BYTE:
            return self.byte()
        if t in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if t == T_DOUBLE:
            v = struct.unpack("<d", self.b[self.p:self.p + 8])[0]
            self.p += 8
            return v
        if t == T_BINARY:
            n = self.varint()
            v = self.b[self.p:self.p + n]
            self.p += n
            return v
        if t in (T_LIST, T_SET):
            h = self.byte()
            n, et = h >> 4, h & 0x0F
            if n == 15:
                n = self.varint()
            return (et, [self.value(et) if et not in (T_TRUE, T_FALSE) else self.byte() == 1 for _ in range(n)])
        if t == T_STRUCT:
            return self.struct()
        raise ValueError("unsupported thrift type %d" % t)

    def struct(self) -> list:
        fields, last = [], 0
        while True:
            h = self.byte()
            if h == 0:
                return fields
            t, d = h & 0x0F, h >> 4
            fid = last + d if d else self.zigzag()
            fields.append([fid, t, self.value(t)])
            last = fid


class Writer:
    def __init__(self):
        self.out = bytearray()

    def varint(self, v: int) -> None:
        while True:
            if v < 0x80:
                self.out.append(v)
                return
            self.out.append((v & 0x7F) | 0x80)
            v >>= 7

    def zigzag(self, v: int) -> None:
        self.varint((v << 1) ^ (v >> 63))

    def value(self, t, v) -> None:
        if t in (T_TRUE, T_FALSE):
            return
        if t == T_BYTE:
            self.out.append(v)
        elif t in (T_I16, T_I32, T_I64):
            self.zigzag(v)
        elif t == T_DOUBLE:
            self.out += struct.pack("<d", v)
        elif t == T_BINARY:
            self.varint(len(v))
            self.out += v
        elif t in (T_LIST, T_SET):
            et, items = v
            if len(items) < 15:
                self.out.append(len(items) << 4 | et)
            else:
                self.out.append(0xF0 | et)
                self.varint(len(items))
            for x in items:
                if et in (T_TRUE, T_FALSE):
                    self.out.append(1 if x else 2)
                else:
                    self.value(et, x)
        elif t == T_STRUCT:
            self.struct(v)

    def struct(self, fields) -> None:
        last = 0
        for fid, t, v in fields:
            if t in (T_TRUE, T_FALSE):
                t = T_TRUE if v else T_FALSE
            d = fid - last
            if 0 < d <= 15:
                self.out.append(d << 4 | t)
            else:
                self.out.append(t)
                self.zigzag(fid)
            self.value(t, v)
            last = fid
        self.out.append(0)


def get(fields, fid):
    for f in fields:
        if f[0] == fid:
            return f
    return None


def set_field(fields, fid, t, v) -> None:
    f = get(fields, fid)
    if f:
        f[1], f[2] = t, v
    else:
        fields.append([fid, t, v])
        fields.sort(key=lambda x: x[0])


def drop_field(fields, fid) -> None:
    fields[:] = [f for f in fields if f[0] != fid]


# ---- footer rewriting ----

def read_footer(data: bytes):
    n = struct.unpack("<I", data[-8:-4])[0]
    return Reader(data[-8 - n:-8]).struct(), len(data) - 8 - n


def write_file(data: bytes, meta, footer_at: int) -> bytes:
    w = Writer()
    w.struct(meta)
    return data[:footer_at] + bytes(w.out) + struct.pack("<I", len(w.out)) + b"PAR1"


def rewrite(data: bytes, drop: list[str], rename: dict[str, str], repeated: list[str], unannotate: list[str],
            converted: dict[str, int] | None = None) -> bytes:
    """drop/rename/repeated/unannotate name schema elements by their dotted
    path in the original file."""
    meta, at = read_footer(data)
    schema = get(meta, 2)[2][1]
    # Dotted paths of the schema elements (pre-order with child counts).
    paths, stack = [], []
    for el in schema:
        name = get(el, 4)[2].decode()
        while stack and stack[-1][1] == 0:
            stack.pop()
        if stack:
            stack[-1][1] -= 1
        path = ".".join([s[0] for s in stack[1:]] + [name]) if stack else ""
        paths.append(path)
        nc = get(el, 5)
        stack.append([name, nc[2] if nc else 0])
    keep = []
    for path, el in zip(paths, schema):
        if path in drop:
            continue
        if path in rename:
            set_field(el, 4, T_BINARY, rename[path].encode())
        if path in repeated:
            set_field(el, 3, T_I32, 2)
        if path in unannotate:
            drop_field(el, 6)   # converted_type
            drop_field(el, 10)  # logicalType
        if converted and path in converted:
            drop_field(el, 10)
            set_field(el, 6, T_I32, converted[path])
        keep.append(el)
    # Parents of dropped elements adopt their children: counts stay right
    # because each dropped element had exactly one child.
    get(meta, 2)[2] = (T_STRUCT, keep)

    def new_path(old: list[str]) -> list[str]:
        out, cur = [], []
        for part in old:
            cur.append(part)
            p = ".".join(cur)
            if p in drop:
                continue
            out.append(rename.get(p, part))
            return out

    for rg in get(meta, 4)[2][1]:
        for cc in get(rg, 1)[2][1]:
            md = get(cc, 3)[2]
            f = get(md, 3)
            f[2] = (T_BINARY, [x.encode() for x in new_path([y.decode() for y in f[2][1]])])
    # Column orders and statistics stay valid: the leaves are unchanged.
    return write_file(data, meta, at)


def _pyarrow_file(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False, compression="snappy", row_group_size=400)
    return buf.getvalue()


def legacy_files() -> dict[str, bytes]:
    """name -> file bytes, one per legacy layout."""
    n = 1000
    ints = [None if i % 7 == 0 else [j * i for j in range(i % 4)] for i in range(n)]
    structs = [None if i % 5 == 0 else [{"a": j, "b": None if j % 2 else "s%d" % j} for j in range(i % 3)]
               for i in range(n)]
    tuples = [None if i % 6 == 0 else [{"x": j} for j in range(i % 5)] for i in range(n)]
    bare = [[j for j in range(i % 3)] for i in range(n)]
    req_int = pa.list_(pa.field("element", pa.int32(), nullable=False))
    out = {}
    data = _pyarrow_file(pa.table({"l": pa.array(ints, req_int)}))
    out["two_level_primitive"] = rewrite(data, drop=["l.list"], rename={"l.list.element": "array"},
                                         repeated=["l.list.element"], unannotate=[])
    st = pa.struct([pa.field("a", pa.int32()), pa.field("b", pa.string())])
    data = _pyarrow_file(pa.table({"l": pa.array(structs, pa.list_(pa.field("element", st, nullable=False)))}))
    out["two_level_group"] = rewrite(data, drop=["l.list"], rename={"l.list.element": "array"},
                                     repeated=["l.list.element"], unannotate=[])
    st1 = pa.struct([pa.field("x", pa.int32(), nullable=False)])
    data = _pyarrow_file(pa.table({"l": pa.array(tuples, pa.list_(pa.field("element", st1, nullable=False)))}))
    out["tuple_group"] = rewrite(data, drop=["l.list"], rename={"l.list.element": "l_tuple"},
                                 repeated=["l.list.element"], unannotate=[])
    data = _pyarrow_file(pa.table({"l": pa.array(bare, req_int)}, schema=pa.schema([pa.field("l", req_int, False)])))
    out["bare_repeated"] = rewrite(data, drop=["l", "l.list"], rename={"l.list.element": "l"},
                                   repeated=["l.list.element"], unannotate=[])
    m = [None if i % 9 == 0 else [("k%d" % j, None if j == 1 else j) for j in range(i % 4)] for i in range(n)]
    data = _pyarrow_file(pa.table({"m": pa.array(m, pa.map_(pa.string(), pa.int64()))}))
    out["map_key_value"] = rewrite(data, drop=[], rename={}, repeated=[], unannotate=[], converted={"m": 2})
    t = pa.table({"l": pa.array(ints, req_int), "s": pa.array([None if i % 3 else "v%d" % i for i in range(n)]),
                  "ts": pa.array(range(n), pa.timestamp("us", tz="UTC")),
                  "i8": pa.array([i % 100 for i in range(n)], pa.int8()),
                  "m": pa.array(m, pa.map_(pa.string(), pa.int64()))})
    data = _pyarrow_file(t)
    out["converted_only"] = rewrite(data, drop=[], rename={}, repeated=[], unannotate=[],
                                    converted={"l": 3, "s": 0, "ts": 10, "i8": 15, "m": 1, "m.key_value.key": 0})
    m = [None if i % 9 == 0 else [("k%d" % j, None if j == 1 else j) for j in range(i % 4)] for i in range(n)]
    data = _pyarrow_file(pa.table({"m": pa.array(m, pa.map_(pa.string(), pa.int64()))}))
    out["map_key_value"] = rewrite(data, drop=[], rename={}, repeated=[], unannotate=[], converted={"m": 2})
    t = pa.table({"l": pa.array(ints, req_int), "s": pa.array([None if i % 3 else "v%d" % i for i in range(n)]),
                  "ts": pa.array(range(n), pa.timestamp("us", tz="UTC")),
                  "i8": pa.array([i % 100 for i in range(n)], pa.int8()),
                  "m": pa.array(m, pa.map_(pa.string(), pa.int64()))})
    data = _pyarrow_file(t)
    out["converted_only"] = rewrite(data, drop=[], rename={}, repeated=[], unannotate=[],
                                    converted={"l": 3, "s": 0, "ts": 10, "i8": 15, "m": 1, "m.key_value.key": 0})
    return out
