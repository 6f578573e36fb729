"""fastavro and pyarrow as the oracles for hudi-c's Avro <-> Arrow codec.

  gen OUTDIR            write Hudi Avro data block contents with fastavro
                        (OUTDIR/<case>.block: int32 version 3, int32 count,
                        per record int32 length + schemaless datum) and
                        OUTDIR/cases.json: schemas, the values fastavro reads
                        back (through the reader schema when there is one)
  check OUTDIR          read the blocks hudi-c encoded (OUTDIR/<case>.enc)
                        with fastavro; compare with the expected values
  fixtures OUT ROOT..  every Avro data block of the log files under ROOT
                        (the unzipped fixture tables) and the values fastavro
                        decodes from each record
  tables ROOT OUT      per fixture table with Parquet base files: the Arrow
                        schema pyarrow reads from a base file (as Arrow C
                        format strings), the table name, the schema Spark
                        wrote into the commit metadata and the one in the
                        base file footer (with the meta fields)

Values use the "test JSON" form of fastavro_oracle.py.
"""
import datetime
import decimal
import glob
import io
import json
import os
import random
import struct
import sys

import fastavro
from fastavro.schema import parse_schema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastavro_oracle import (COMPLEX, EPOCH, EPOCH_NAIVE, LOGICAL, PRIMITIVES,  # noqa: E402
                             complex_rows, logical_rows, prim_rows, tj)

D = decimal.Decimal


def nullable(t):
    return ["null", t]


NULLABLE = {
    "type": "record", "name": "tbl_record", "namespace": "hoodie.tbl",
    "fields": [
        {"name": "_hoodie_commit_time", "type": ["null", "string"], "doc": "", "default": None},
        {"name": "id", "type": "int"},
        {"name": "b", "type": ["null", "boolean"], "default": None},
        {"name": "i", "type": ["int", "null"]},
        {"name": "l", "type": ["null", "long"], "default": None},
        {"name": "f", "type": ["null", "float"], "default": None},
        {"name": "d", "type": ["double", "null"]},
        {"name": "s", "type": ["null", "string"], "default": None},
        {"name": "by", "type": ["null", "bytes"], "default": None},
        {"name": "dec", "type": ["null", {"type": "fixed", "name": "fixed",
                                          "namespace": "hoodie.tbl.tbl_record.dec", "size": 7,
                                          "logicalType": "decimal", "precision": 15, "scale": 2}],
         "default": None},
        {"name": "date", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
        {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": None},
        {"name": "tsm", "type": [{"type": "long", "logicalType": "timestamp-millis"}, "null"]},
        {"name": "arr", "type": ["null", {"type": "array", "items": ["null", {
            "type": "record", "name": "arr", "namespace": "hoodie.tbl.tbl_record", "fields": [
                {"name": "f1", "type": ["null", "string"], "default": None},
                {"name": "f2", "type": ["null", "int"], "default": None}]}]}], "default": None},
        {"name": "m", "type": ["null", {"type": "map", "values": ["null", "double"]}], "default": None},
        {"name": "st", "type": ["null", {"type": "record", "name": "st", "namespace": "hoodie.tbl.tbl_record",
                                         "fields": [
                                             {"name": "x", "type": ["null", "string"], "default": None},
                                             {"name": "child", "type": ["null", {
                                                 "type": "record", "name": "child",
                                                 "namespace": "hoodie.tbl.tbl_record.st",
                                                 "fields": [{"name": "y", "type": ["null", "double"],
                                                             "default": None}]}], "default": None}]}],
         "default": None},
        {"name": "nested", "type": {"type": "array", "items": {"type": "array", "items": "long"}}},
        {"name": "color", "type": ["null", {"type": "enum", "name": "Color", "symbols": ["R", "G", "B"]}],
         "default": None},
        {"name": "fx", "type": {"type": "fixed", "name": "F3", "size": 3}},
    ],
}


def nullable_rows():
    rnd = random.Random(7)
    rows = []

    def maybe(v):
        return None if rnd.random() < 0.3 else v

    for k in range(60):
        rows.append({
            "_hoodie_commit_time": maybe("2024%010d" % k),
            "id": k - 30,
            "b": maybe(k % 2 == 0),
            "i": maybe(rnd.randint(-2**31, 2**31 - 1)),
            "l": maybe(rnd.randint(-2**63, 2**63 - 1)),
            "f": maybe(float(struct.unpack("<f", struct.pack("<f", rnd.uniform(-1e6, 1e6)))[0])),
            "d": maybe(rnd.uniform(-1e300, 1e300)),
            "s": maybe("s" * (k % 7) + "é"),
            "by": maybe(bytes(rnd.randrange(256) for _ in range(k % 9))),
            "dec": maybe(D(rnd.randint(-10**15 + 1, 10**15 - 1)).scaleb(-2)),
            "date": maybe(datetime.date(2000, 1, 1) + datetime.timedelta(days=k * 37 - 900)),
            "ts": maybe(EPOCH + datetime.timedelta(microseconds=rnd.randint(-2**50, 2**50))),
            "tsm": maybe(EPOCH + datetime.timedelta(milliseconds=rnd.randint(-2**40, 2**40))),
            "arr": maybe([maybe({"f1": maybe("a%d" % j), "f2": maybe(j)}) for j in range(k % 4)]),
            "m": maybe({"k%d" % j: maybe(j * 0.5) for j in range(k % 3)}),
            "st": maybe({"x": maybe("x%d" % k), "child": maybe({"y": maybe(k * 1.25)})}),
            "nested": [[j * k for j in range(n)] for n in range(k % 3)],
            "color": maybe("RGB"[k % 3]),
            "fx": bytes([k, k + 1, k + 2]),
        })
    return rows


EMBED = {
    "type": "record", "name": "rag_chunks_record", "namespace": "hoodie.rag_chunks",
    "fields": [
        {"name": "chunk_id", "type": "string"},
        {"name": "doc_id", "type": ["null", "string"], "default": None},
        {"name": "pos", "type": "int"},
        {"name": "text", "type": ["null", "string"], "default": None},
        {"name": "embedding", "type": ["null", {"type": "array", "items": "float"}], "default": None},
        {"name": "updated_at", "type": "long"},
    ],
}


def embed_rows():
    rnd = random.Random(3)
    rows = []
    for k in range(20):
        emb = [float(struct.unpack("<f", struct.pack("<f", rnd.gauss(0, 1)))[0]) for _ in range(384)]
        rows.append({"chunk_id": "c%d" % k, "doc_id": None if k == 3 else "doc%d" % (k // 4), "pos": k,
                     "text": "lorem ipsum " * (k * 4), "embedding": None if k == 5 else emb,
                     "updated_at": 1700000000000 + k})
    return rows


# Schema resolution: the writer's v1 read through a later reader schema.
RESOLVE_W = {
    "type": "record", "name": "R", "fields": [
        {"name": "a", "type": "int"},
        {"name": "gone", "type": {"type": "array", "items": {"type": "map", "values": "string"}}},
        {"name": "f", "type": "float"},
        {"name": "i2f", "type": "int"},
        {"name": "l2d", "type": ["null", "long"]},
        {"name": "s", "type": "string"},
        {"name": "b", "type": "bytes"},
        {"name": "old_name", "type": "string"},
        {"name": "gone2", "type": ["null", "string", "long"]},
        {"name": "inner", "type": {"type": "record", "name": "In", "fields": [
            {"name": "p", "type": "int"}, {"name": "q", "type": "string"}]}},
    ]}
RESOLVE_R = {
    "type": "record", "name": "R", "fields": [
        {"name": "added_null", "type": ["null", "string"], "default": None},
        {"name": "a", "type": "long"},
        {"name": "f", "type": "double"},
        {"name": "i2f", "type": "float"},
        {"name": "l2d", "type": ["null", "double"]},
        {"name": "s", "type": "bytes"},
        {"name": "b", "type": "string"},
        {"name": "renamed", "aliases": ["old_name"], "type": "string"},
        {"name": "added_int", "type": "int", "default": 42},
        {"name": "added_str", "type": "string", "default": "dflt"},
        {"name": "added_bool", "type": "boolean", "default": True},
        {"name": "added_dbl", "type": "double", "default": 2.5},
        {"name": "added_arr", "type": {"type": "array", "items": "int"}, "default": []},
        {"name": "inner", "type": {"type": "record", "name": "In", "fields": [
            {"name": "q", "type": "string"}, {"name": "r", "type": ["null", "long"], "default": None}]}},
    ]}


def resolve_rows():
    rows = []
    for k in range(30):
        rows.append({"a": k * 1000 - 5000, "gone": [{"x": "y" * k}] * (k % 3), "f": k / 8.0, "i2f": k * 3 - 40,
                     "l2d": None if k % 4 == 0 else k * 10**12, "s": "str%d" % k, "b": b"bytes%d" % k,
                     "old_name": "n%d" % k, "gone2": [None, "s", 5][k % 3],
                     "inner": {"p": k, "q": "q%d" % k}})
    return rows


# Projection: the reader keeps some fields of COMPLEX (its multi-branch union
# and recursive list are skipped, never decoded).
def complex_reader():
    keep = {"id", "color", "hash", "inner", "inners", "byname", "dotted", "nested_maps", "empty"}
    r = json.loads(json.dumps(COMPLEX))
    r["fields"] = [f for f in r["fields"] if f["name"] in keep]
    # hash2 referenced other.ns.Hash by name; the reader no longer has hash2.
    return r


CASES = [
    # name, writer, rows, reader, roundtrip: re-encoding must give fastavro's
    # bytes ("bytes"), or bytes fastavro reads as the same values ("values").
    # LOGICAL is "values": fastavro writes the decimal -1.28 (unscaled -128)
    # in two bytes (ff 80); we write Java's BigInteger.toByteArray, one (80).
    ("prims", PRIMITIVES, prim_rows, None, "bytes"),
    ("logical", LOGICAL, logical_rows, None, "values"),
    ("nullable", NULLABLE, nullable_rows, None, "bytes"),
    ("embed", EMBED, embed_rows, None, "bytes"),
    ("resolve", RESOLVE_W, resolve_rows, RESOLVE_R, None),
    ("complex_projected", COMPLEX, complex_rows, "complex_reader", None),
]


def block_bytes(datums):
    out = io.BytesIO()
    out.write(struct.pack(">ii", 3, len(datums)))
    for d in datums:
        out.write(struct.pack(">i", len(d)))
        out.write(d)
    return out.getvalue()


def read_block(data):
    version, n = struct.unpack(">ii", data[:8])
    assert version == 3, version
    pos, out = 8, []
    for _ in range(n):
        (ln,) = struct.unpack(">i", data[pos:pos + 4])
        out.append(data[pos + 4:pos + 4 + ln])
        pos += 4 + ln
    assert pos == len(data), (pos, len(data))
    return out


def gen(outdir):
    cases = []
    for name, writer, rows_fn, reader, roundtrip in CASES:
        if reader == "complex_reader":
            reader = complex_reader()
        ws = parse_schema(writer)
        rs = parse_schema(reader) if reader else None
        datums = []
        values = []
        for row in rows_fn():
            buf = io.BytesIO()
            fastavro.schemaless_writer(buf, ws, row)
            datums.append(buf.getvalue())
            back = fastavro.schemaless_reader(io.BytesIO(buf.getvalue()), ws, rs) if rs else \
                fastavro.schemaless_reader(io.BytesIO(buf.getvalue()), ws)
            values.append(tj(back))
        with open(os.path.join(outdir, name + ".block"), "wb") as f:
            f.write(block_bytes(datums))
        cases.append({"name": name, "schema": writer, "reader": reader, "values": values,
                      "roundtrip": roundtrip})
    with open(os.path.join(outdir, "cases.json"), "w") as f:
        json.dump({"cases": cases}, f)


def check(outdir):
    with open(os.path.join(outdir, "cases.json")) as f:
        cases = json.load(f)["cases"]
    bad = 0
    checked = 0
    for c in cases:
        path = os.path.join(outdir, c["name"] + ".enc")
        if not os.path.exists(path):
            continue
        ws = parse_schema(c["schema"])
        with open(path, "rb") as f:
            datums = read_block(f.read())
        if len(datums) != len(c["values"]):
            print("%s: %d records, expected %d" % (c["name"], len(datums), len(c["values"])))
            bad += 1
            continue
        for k, d in enumerate(datums):
            bio = io.BytesIO(d)
            got = tj(fastavro.schemaless_reader(bio, ws))
            if bio.tell() != len(d):
                print("%s record %d: %d of %d bytes read" % (c["name"], k, bio.tell(), len(d)))
                bad += 1
            if json.dumps(got, sort_keys=True) != json.dumps(c["values"][k], sort_keys=True):
                print("%s record %d differs:\n got %s\n exp %s" % (c["name"], k, got, c["values"][k]))
                bad += 1
        checked += 1
    if checked == 0:
        print("nothing to check")
        return 1
    return 1 if bad else 0


# ---------------------------------------------------------------- fixtures

def log_blocks(path):
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos + 14 <= len(data):
        assert data[pos:pos + 6] == b"#HUDI#", (path, pos)
        (size,) = struct.unpack(">q", data[pos + 6:pos + 14])
        q = pos + 14
        _version, typ = struct.unpack(">ii", data[q:q + 8])
        q += 8
        (n,) = struct.unpack(">i", data[q:q + 4])
        q += 4
        hdr = {}
        for _ in range(n):
            k, ln = struct.unpack(">ii", data[q:q + 8])
            q += 8
            hdr[k] = data[q:q + ln].decode()
            q += ln
        (cl,) = struct.unpack(">q", data[q:q + 8])
        q += 8
        yield pos, typ, hdr, q, data[q:q + cl]
        pos = pos + 14 + size


def fixtures(roots, out):
    entries = []
    for root in roots:
        paths = sorted(os.path.join(d, n) for d, _, names in os.walk(root) for n in names
                       if ".log." in n)
        for path in paths:
            if "/.hoodie/" in path or not os.path.isfile(path):
                continue
            for index, (pos, typ, hdr, content_at, content) in enumerate(log_blocks(path)):
                if typ != 3:
                    continue
                ws = parse_schema(json.loads(hdr[2]))
                values = [tj(fastavro.schemaless_reader(io.BytesIO(d), ws)) for d in read_block(content)]
                entries.append({"path": path, "block": index, "block_at": pos, "content_at": content_at,
                                "schema": hdr[2], "values": values})
    with open(out, "w") as f:
        json.dump({"blocks": entries}, f)


def arrow_format(t):
    import pyarrow as pa
    if pa.types.is_boolean(t): return "b"
    if pa.types.is_int8(t): return "c"
    if pa.types.is_int16(t): return "s"
    if pa.types.is_int32(t): return "i"
    if pa.types.is_int64(t): return "l"
    if pa.types.is_float32(t): return "f"
    if pa.types.is_float64(t): return "g"
    if pa.types.is_string(t): return "u"
    if pa.types.is_large_string(t): return "U"
    if pa.types.is_binary(t): return "z"
    if pa.types.is_large_binary(t): return "Z"
    if pa.types.is_fixed_size_binary(t): return "w:%d" % t.byte_width
    if pa.types.is_decimal128(t): return "d:%d,%d" % (t.precision, t.scale)
    if pa.types.is_date32(t): return "tdD"
    if pa.types.is_timestamp(t): return "ts%s:%s" % ({"s": "s", "ms": "m", "us": "u", "ns": "n"}[t.unit], t.tz or "")
    if pa.types.is_map(t): return "+m"
    if pa.types.is_list(t): return "+l"
    if pa.types.is_large_list(t): return "+L"
    if pa.types.is_struct(t): return "+s"
    raise TypeError(str(t))


def arrow_tree(field):
    import pyarrow as pa
    t = field.type
    node = {"name": field.name, "format": arrow_format(t), "nullable": field.nullable}
    if pa.types.is_map(t):
        node["children"] = [{"name": "entries", "format": "+s", "nullable": False,
                             "children": [arrow_tree(t.key_field), arrow_tree(t.item_field)]}]
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        node["children"] = [arrow_tree(t.value_field)]
    elif pa.types.is_struct(t):
        node["children"] = [arrow_tree(t.field(i)) for i in range(t.num_fields)]
    return node


def commit_schemas(table_dir):
    found = []
    for path in sorted(glob.glob(os.path.join(table_dir, ".hoodie", "**", "*commit"), recursive=True)):
        if "/metadata/" in path or os.path.getsize(path) == 0:
            continue
        with open(path, "rb") as f:
            head = f.read(4)
        if head == b"Obj\x01":
            with open(path, "rb") as f:
                meta = (list(fastavro.reader(f))[0].get("extraMetadata") or {})
        else:
            with open(path) as f:
                meta = json.load(f).get("extraMetadata") or {}
        if meta.get("schema") and meta["schema"] not in found:
            found.append(meta["schema"])
    return found


def tables(root, out):
    import pyarrow.parquet as pq
    entries = []
    for props in sorted(glob.glob(os.path.join(root, "**", ".hoodie", "hoodie.properties"), recursive=True)):
        table_dir = os.path.dirname(os.path.dirname(props))
        if "/.hoodie/metadata" in props:
            continue
        name = None
        with open(props) as f:
            for line in f:
                if line.startswith("hoodie.table.name="):
                    name = line.strip().split("=", 1)[1]
        bases = [p for p in glob.glob(os.path.join(table_dir, "**", "*.parquet"), recursive=True)
                 if "/.hoodie/" not in p]
        schemas = commit_schemas(table_dir)
        if not bases or not schemas or not name:
            continue
        base = sorted(bases)[-1]
        pschema = pq.read_schema(base)
        footer = (pschema.metadata or {}).get(b"parquet.avro.schema", b"").decode()
        arrow = {"name": "", "format": "+s", "nullable": False,
                 "children": [arrow_tree(pschema.field(i)) for i in range(len(pschema))]}
        entries.append({"table_dir": table_dir, "table": name, "base_file": base, "arrow": arrow,
                        "commit_schemas": schemas, "footer_schema": footer})
    with open(out, "w") as f:
        json.dump({"tables": entries}, f)


def main(argv):
    if len(argv) == 3 and argv[1] == "gen":
        gen(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) >= 4 and argv[1] == "fixtures":
        fixtures(argv[3:], argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "tables":
        tables(argv[2], argv[3])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
