"""Writes the codec oracle samples beside this script with independent
implementations (Python's zlib/gzip, pyarrow's bundled snappy/zstd/lz4).
Run with the project venv: .venv/bin/python tests/unit/codec/data/make_samples.py
The C test decompresses each sample and compares it with payload.bin."""
import gzip
import os
import zlib

import pyarrow as pa

here = os.path.dirname(os.path.abspath(__file__))

# Deterministic payload: text, runs and pseudo-random bytes, 5000 bytes.
parts = [b"The quick brown fox jumps over the lazy dog. " * 30, bytes(500), bytes(range(256)) * 4]
x = 12345
rnd = bytearray()
for _ in range(5000 - sum(map(len, parts))):
    x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    rnd.append((x >> 16) & 0xFF)
payload = b"".join(parts) + bytes(rnd)
assert len(payload) == 5000


def write(name, data):
    with open(os.path.join(here, name), "wb") as f:
        f.write(data)


write("payload.bin", payload)
write("payload.snappy", pa.compress(payload, codec="snappy", asbytes=True))
write("payload.gz", gzip.compress(payload, mtime=0))
# Two gzip members back to back decode to their concatenation (RFC 1952 2.2).
write("payload_members.gz", gzip.compress(payload[:2000], mtime=0) + gzip.compress(payload[2000:], mtime=0))
co = zlib.compressobj(6, zlib.DEFLATED, -15)
write("payload.deflate", co.compress(payload) + co.flush())
write("payload.zlib", zlib.compress(payload))
write("payload.zst", pa.compress(payload, codec="zstd", asbytes=True))
write("payload.lz4raw", pa.compress(payload, codec="lz4_raw", asbytes=True))
