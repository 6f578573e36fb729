"""fastavro as the oracle for hudi-c's typed timeline records.

  dump ROOT OUT.json   every Avro file under a .hoodie directory of ROOT
                       (v8/v9 timeline/, v6 .hoodie/, metadata tables), decoded
                       with fastavro into the test-JSON form of
                       tests/avro/fastavro_oracle.py, keyed by path under ROOT
  check DIR            for each DIR/<name>.avro hudi-c wrote: fastavro reads it
                       with the schema given in DIR/<name>.schema.json (Java's
                       generated-class schema), the records equal
                       DIR/<name>.expect.json, and fastavro's own encoding of
                       each record equals the datum bytes in the file
"""
import io
import json
import os
import sys

import fastavro

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "avro"))
from fastavro_oracle import tj  # noqa: E402


def dump(root, out_path):
    out = {}
    for dirpath, _, filenames in os.walk(root):
        if "/.hoodie" not in dirpath + "/":
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


def read_long(buf):
    """Avro zigzag varint."""
    shift = acc = 0
    while True:
        b = buf.read(1)[0]
        acc |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return (acc >> 1) ^ -(acc & 1)


def datum_bytes(data):
    """The datum bytes of a one-block container file (after the header)."""
    r = fastavro.reader(io.BytesIO(data))
    sync = r._header["sync"]
    start = data.index(sync) + 16
    buf = io.BytesIO(data[start:])
    count = read_long(buf)
    size = read_long(buf)
    return count, buf.read(size)


def check(d):
    bad = 0
    n = 0
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".avro"):
            continue
        name = fn[:-5]
        data = open(os.path.join(d, fn), "rb").read()
        schema = fastavro.parse_schema(json.load(open(os.path.join(d, name + ".schema.json"))))
        expect = json.load(open(os.path.join(d, name + ".expect.json")))
        recs = list(fastavro.reader(io.BytesIO(data), reader_schema=schema))
        got = [tj(r) for r in recs]
        if got != expect:
            print("%s: fastavro reads %s, expected %s" % (name, json.dumps(got), json.dumps(expect)))
            bad += 1
        count, datum = datum_bytes(data)
        out = io.BytesIO()
        for r in recs:
            fastavro.schemaless_writer(out, schema, r)
        if count != len(recs) or out.getvalue() != datum:
            print("%s: fastavro encodes the record differently" % name)
            bad += 1
        n += 1
    print("checked %d files, %d problems" % (n, bad))
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit("unknown command " + sys.argv[1])
