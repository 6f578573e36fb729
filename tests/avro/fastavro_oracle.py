"""fastavro as the independent oracle for hudi-c's Avro layer.

  gen OUTDIR          write container files with fastavro (every codec) and
                      OUTDIR/cases.json: schemas, canonical forms,
                      fingerprints, and the values fastavro reads back
  check OUTDIR        read the files hudi-c wrote (OUTDIR/<case>.c.<codec>.avro)
                      with fastavro and compare with the expected values
  dump ROOT OUT.json  decode every Avro timeline file under ROOT with fastavro

Values are compared in a "test JSON" form both sides produce: bytes and
fixed {"$bytes": hex}, decimals {"$decimal": plain text}, dates
{"$date": days}, times {"$time": micros}, timestamps {"$ts": micros since
the epoch}, non-finite floats as "NaN"/"Infinity"/"-Infinity", unions as
their value.
"""
import datetime
import decimal
import io
import json
import math
import os
import sys
import uuid

import fastavro
from fastavro.schema import fingerprint, parse_schema, to_parsing_canonical_form

CODECS = ["null", "deflate", "snappy", "zstandard"]
UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_NAIVE = datetime.datetime(1970, 1, 1)


def tj(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, (bytes, bytearray)):
        return {"$bytes": bytes(v).hex()}
    if isinstance(v, decimal.Decimal):
        return {"$decimal": format(v, "f")}
    if isinstance(v, datetime.datetime):
        base = EPOCH if v.tzinfo else EPOCH_NAIVE
        return {"$ts": (v - base) // datetime.timedelta(microseconds=1)}
    if isinstance(v, datetime.date):
        return {"$date": (v - datetime.date(1970, 1, 1)).days}
    if isinstance(v, datetime.time):
        return {"$time": ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond}
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, tuple):  # (name, value) from return_record_name; unused
        return tj(v[1])
    if isinstance(v, dict):
        return {k: tj(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tj(x) for x in v]
    raise TypeError(type(v))


# ---------------------------------------------------------------- the cases

PRIMITIVES = {
    "type": "record", "name": "Prims", "namespace": "test.prims", "doc": "every primitive",
    "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int", "doc": "an int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": {"type": "string", "avro.java.string": "String"}},
    ],
}


def prim_rows():
    rows = []
    ints = [0, 1, -1, 63, -64, 64, 2**31 - 1, -2**31, 12345]
    longs = [0, -1, 2**63 - 1, -2**63, 2**31, -2**31 - 1, 1 << 40, 987654321012]
    floats = [0.0, -0.0, 1.5, -3.25, 3.4028234663852886e38, 1e-45, float("inf"), float("-inf"), float("nan")]
    doubles = [0.0, 1.0 / 3, -2.5e300, 5e-324, float("inf"), float("nan"), 1e16, -7.0]
    strs = ["", "a", "héllo ✓ 𝄞", "x" * 300, "tab\tnew\nline\"q\\"]
    for k in range(40):
        rows.append({
            "n": None, "b": k % 3 == 0, "i": ints[k % len(ints)], "l": longs[k % len(longs)],
            "f": floats[k % len(floats)], "d": doubles[k % len(doubles)],
            "by": bytes((k * 7 + j) % 256 for j in range(k * 3)),
            "s": strs[k % len(strs)],
        })
    return rows


COMPLEX = {
    "type": "record", "name": "Outer", "namespace": "test.complex",
    "aliases": ["OldOuter"],
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "BLUE"],
                                    "default": "RED", "doc": "colours"}},
        {"name": "hash", "type": {"type": "fixed", "name": "Hash", "namespace": "other.ns", "size": 4}},
        {"name": "hash2", "type": "other.ns.Hash"},
        {"name": "inner", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "x", "type": "int", "default": 7},
            {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
        ]}},
        {"name": "inners", "type": {"type": "array", "items": "Inner"}},
        {"name": "byname", "type": {"type": "map", "values": {"type": "array", "items": "test.complex.Inner"}}},
        {"name": "opt", "type": ["null", "string", "Inner", "Color", {"type": "map", "values": "long"}],
         "default": None},
        {"name": "dotted", "type": {"type": "record", "name": "a.b.Dotted", "fields": [
            {"name": "c", "type": {"type": "enum", "name": "Level", "symbols": ["LO", "HI"]}},
            {"name": "c2", "type": "a.b.Level"},
        ]}},
        {"name": "list", "type": ["null", {"type": "record", "name": "Node", "fields": [
            {"name": "value", "type": "int"},
            {"name": "next", "type": ["null", "Node"], "default": None},
        ]}], "default": None},
        {"name": "nested_maps", "type": {"type": "map", "values": {"type": "map", "values": ["null", "double"]}}},
        {"name": "empty", "type": {"type": "record", "name": "Empty", "fields": []}},
        {"name": "nulls", "type": {"type": "array", "items": "null"}},
    ],
}


def complex_rows():
    rows = []
    for k in range(25):
        node = None
        for v in range(k % 5):
            node = {"value": v * 10 + k, "next": node}
        opt_choices = [None, "str%d" % k, {"x": k, "tags": ["t"] * (k % 3)}, "BLUE", {"a": k, "b": -k}]
        rows.append({
            "id": k * 1000003,
            "color": ["RED", "GREEN", "BLUE"][k % 3],
            "hash": bytes([k, 255 - k, 0, 7]),
            "hash2": b"\x00\x01\x02\x03",
            "inner": {"x": -k, "tags": ["a%d" % j for j in range(k % 4)]},
            "inners": [{"x": j, "tags": []} for j in range(k % 3)],
            "byname": {"k%d" % j: [{"x": j, "tags": ["z"]}] for j in range(k % 4)},
            "opt": opt_choices[k % len(opt_choices)],
            "dotted": {"c": "HI" if k % 2 else "LO", "c2": "LO"},
            "list": node,
            "nested_maps": {"m": {"p": 1.5 * k, "q": None}} if k % 2 else {},
            "empty": {},
            "nulls": [None] * (k % 6),
        })
    return rows


LOGICAL = {
    "type": "record", "name": "Logical",
    "fields": [
        {"name": "dec_bytes", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "dec_fixed", "type": {"type": "fixed", "name": "D16", "size": 16, "logicalType": "decimal",
                                       "precision": 38, "scale": 9}},
        {"name": "dec_int", "type": {"type": "bytes", "logicalType": "decimal", "precision": 20}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmillis", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tmicros", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsmillis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsmicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ltsmillis", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltsmicros", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "unknown", "type": {"type": "string", "logicalType": "no-such-type"}},
        {"name": "opt_dec", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 5,
                                                "scale": 5}]},
        {"name": "opt_ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": None},
    ],
}


def logical_rows():
    D = decimal.Decimal
    rows = []
    decs = [D("0.00"), D("1.50"), D("-1.50"), D("99999999.99"), D("-99999999.99"), D("0.01"), D("-0.01"),
            D("128.00"), D("-128.00"), D("-1.28")]
    fdecs = [D("0E-9"), D("12345678901234567890123456789.123456789"),
             D("-12345678901234567890123456789.123456789"), D("0.000000001"), D("-0.000000001")]
    for k in range(20):
        rows.append({
            "dec_bytes": decs[k % len(decs)],
            "dec_fixed": fdecs[k % len(fdecs)],
            "dec_int": D(-(10 ** 19) + k * 7919),
            "date": datetime.date(1970, 1, 1) + datetime.timedelta(days=(k - 10) * 4000),
            "tmillis": datetime.time(k % 24, (k * 7) % 60, (k * 13) % 60, (k * 1000) % 1000000),
            "tmicros": datetime.time(23, 59, 59, 999999 - k),
            "tsmillis": EPOCH + datetime.timedelta(milliseconds=(k - 10) * 123456789123),
            "tsmicros": EPOCH + datetime.timedelta(microseconds=(k - 10) * 98765432109876),
            "ltsmillis": EPOCH_NAIVE + datetime.timedelta(milliseconds=k * 86400000 + 1),
            "ltsmicros": EPOCH_NAIVE + datetime.timedelta(microseconds=-k * 3600000001),
            "uid": uuid.UUID(int=(k * 0x1234567890ABCDEF1234567890ABCDEF) % (1 << 128)),
            "unknown": "plain%d" % k,
            "opt_dec": None if k % 2 else D("0.%05d" % (k * 3)) * (1 if k % 4 else -1),
            "opt_ts": None if k % 3 else EPOCH + datetime.timedelta(microseconds=k),
        })
    return rows


MANY = {"type": "record", "name": "Many", "fields": [
    {"name": "k", "type": "long"}, {"name": "v", "type": "string"},
    {"name": "w", "type": ["null", "double"]}]}


def many_rows():
    return [{"k": k * k, "v": "value-%d" % k * (k % 4), "w": None if k % 5 == 0 else k / 7} for k in range(6000)]


# Resolution: data written with one schema, read with another. (fastavro
# leaves a bytes default as str and does not fill defaults nested inside a
# record default, so those are tested in C against the spec instead.)
RESOLVE_WRITER = {
    "type": "record", "name": "Rec", "namespace": "w.ns",
    "fields": [
        {"name": "a", "type": "int"},
        {"name": "b", "type": "int"},
        {"name": "c", "type": "long"},
        {"name": "d", "type": "float"},
        {"name": "e", "type": "string"},
        {"name": "f", "type": "bytes"},
        {"name": "gone", "type": {"type": "array", "items": {"type": "record", "name": "G", "fields": [
            {"name": "z", "type": "string"}]}}},
        {"name": "old_name", "type": "int"},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["RED", "GREEN", "PURPLE"]}},
        {"name": "u", "type": ["null", "int", "string"]},
        {"name": "plain", "type": "int"},
        {"name": "arr", "type": {"type": "array", "items": "int"}},
        {"name": "m", "type": {"type": "map", "values": "float"}},
    ],
}
RESOLVE_READER = {
    "type": "record", "name": "Rec", "namespace": "r.ns",
    "fields": [
        {"name": "plain", "type": ["null", "long"]},
        {"name": "a", "type": "long"},
        {"name": "b", "type": "double"},
        {"name": "c", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "e", "type": "bytes"},
        {"name": "f", "type": "string"},
        {"name": "new_name", "type": "int", "aliases": ["old_name"]},
        {"name": "color", "type": {"type": "enum", "name": "Color", "symbols": ["BLUE", "GREEN", "RED", "OTHER"],
                                   "default": "OTHER"}},
        {"name": "u", "type": ["string", "null", "long"]},
        {"name": "arr", "type": {"type": "array", "items": "double"}},
        {"name": "m", "type": {"type": "map", "values": "double"}},
        {"name": "added_int", "type": "int", "default": 42},
        {"name": "added_str", "type": "string", "default": "dflt"},
        {"name": "added_rec", "type": {"type": "record", "name": "AR", "fields": [
            {"name": "p", "type": "int"}, {"name": "q", "type": "string", "default": "qq"}]},
         "default": {"p": 5, "q": "qq"}},
        {"name": "added_arr", "type": {"type": "array", "items": "long"}, "default": [1, 2, 3]},
        {"name": "added_opt", "type": ["null", "string"], "default": None},
        {"name": "added_map", "type": {"type": "map", "values": "boolean"}, "default": {"t": True}},
    ],
}


def resolve_rows():
    rows = []
    for k in range(30):
        rows.append({
            "a": k - 15, "b": k * 1000, "c": (1 << 40) + k * (1 << 17),  # float32-exact: fastavro keeps long->float in double precision
            "d": k / 4, "e": "é%d" % k,
            "f": ("bytes%d" % k).encode(), "gone": [{"z": "x"}] * (k % 3), "old_name": k * 3,
            "color": ["RED", "GREEN", "PURPLE"][k % 3], "u": [None, k, "s%d" % k][k % 3], "plain": -k,
            "arr": list(range(k % 5)), "m": {"x": 0.5 * k},
        })
    return rows


CASES = [
    ("primitives", PRIMITIVES, prim_rows, None),
    ("complex", COMPLEX, complex_rows, None),
    ("logical", LOGICAL, logical_rows, None),
    ("many", MANY, many_rows, None),
    ("empty", MANY, lambda: [], None),
    ("resolve", RESOLVE_WRITER, resolve_rows, RESOLVE_READER),
]

# Schemas only checked for canonical form and fingerprint.
EXTRA_SCHEMAS = [
    "int", {"type": "string", "logicalType": "uuid"}, ["null", "int", "string"],
    {"type": "array", "items": {"type": "map", "values": "bytes"}},
    {"type": "fixed", "name": "F", "namespace": "ns", "size": 3, "aliases": ["G"]},
    {"type": "enum", "name": "E", "namespace": "", "symbols": ["A", "B"], "doc": "x"},
    {"type": "record", "name": "ns.R", "namespace": "ignored", "fields": [
        {"name": "q", "type": {"type": "record", "name": "Q", "fields": [{"name": "r", "type": "ns.R"}]}}]},
]


def gen(outdir):
    os.makedirs(outdir, exist_ok=True)
    out = {"cases": [], "schemas": []}
    for name, schema, rows_fn, reader in CASES:
        rows = rows_fn()
        parsed = parse_schema(schema)
        case = {"name": name, "schema": schema, "files": {},
                "canonical": to_parsing_canonical_form(parsed),
                "fingerprint": fingerprint(to_parsing_canonical_form(parsed), "CRC-64-AVRO")}
        for codec in CODECS:
            path = os.path.join(outdir, "%s.%s.avro" % (name, codec))
            with open(path, "wb") as fh:
                fastavro.writer(fh, parsed, rows, codec=codec)
            with open(path, "rb") as fh:
                values = [tj(r) for r in fastavro.reader(fh)]
            case["files"][codec] = os.path.basename(path)
            case["expected"] = values
            if reader is not None:
                with open(path, "rb") as fh:
                    case["reader_schema"] = reader
                    case["expected_resolved"] = [tj(r) for r in
                                                 fastavro.reader(fh, reader_schema=parse_schema(reader))]
        out["cases"].append(case)
    for s in EXTRA_SCHEMAS:
        canon = to_parsing_canonical_form(parse_schema(s))
        out["schemas"].append({"schema": s, "canonical": canon, "fingerprint": fingerprint(canon, "CRC-64-AVRO")})
    with open(os.path.join(outdir, "cases.json"), "w") as fh:
        json.dump(out, fh, indent=1)


def check(outdir):
    with open(os.path.join(outdir, "cases.json")) as fh:
        cases = json.load(fh)["cases"]
    checked = 0
    bad = []
    for case in cases:
        for codec in CODECS:
            for suffix, key in (("c", "expected"), ("cr", "expected_resolved")):
                if key not in case:
                    continue
                path = os.path.join(outdir, "%s.%s.%s.avro" % (case["name"], suffix, codec))
                if not os.path.exists(path):
                    bad.append("missing " + path)
                    continue
                with open(path, "rb") as fh:
                    rd = fastavro.reader(fh)
                    got = [tj(r) for r in rd]
                    file_codec = rd.codec
                if file_codec != codec:
                    bad.append("%s: codec %s" % (path, file_codec))
                if got != case[key]:
                    bad.append("%s: values differ" % path)
                checked += 1
    for b in bad:
        print("MISMATCH", b)
    print("checked %d files" % checked)
    return 1 if bad or checked == 0 else 0


def dump(root, out_path):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if os.path.basename(dirpath) != "timeline":
            continue
        for fn in filenames:
            path = os.path.join(dirpath, fn)
            with open(path, "rb") as fh:
                if fh.read(4) != b"Obj\x01":
                    continue
                fh.seek(0)
                out[os.path.relpath(path, root)] = [tj(r) for r in fastavro.reader(fh)]
    with open(out_path, "w") as fh:
        json.dump(out, fh)
    print("dumped %d files" % len(out))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "check":
        sys.exit(check(sys.argv[2]))
    elif cmd == "dump":
        dump(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + cmd)
