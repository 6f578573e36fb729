"""The GZ data blocks of the metadata table's HFiles, decoded by Python's zlib.

hudi-c deflates HFile data blocks with libdeflate unless asked for Java's exact
bytes (hudi_hfile_writer_options.java_exact_bytes). Readers only need a valid
deflate stream inside the gzip framing java.util.zip.GZIPOutputStream writes, so
this test checks, for every HFile of the record index after an append of 30,000
keys (4 KiB blocks: hundreds of data blocks per shard), the shards' base files
(hoodie.metadata.record.index.initial.base.files, the default) or, with that
option false, their HFILE_DATA log blocks:

- the 10-byte gzip header is Java's (mtime 0, no flags, OS 0);
- zlib's raw inflate decodes the stream to exactly uncompressedSizeWithoutHeader
  bytes and the stream ends where the 8-byte trailer starts;
- the trailer's CRC-32 and ISIZE are zlib.crc32 and the length of what inflated;
- every key appended is in the blocks, once;
- some blocks differ from zlib level 6's stream (the libdeflate path ran).

And ../shared/tools/hudi_check.py passes its metadata checks, which decode every
block with Python's gzip and check the reader quirks of mdt §3.9.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"
JAVA_GZIP_HEADER = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0])
HFILE_DATA = 4  # HoodieLogBlockType ordinal


def hfile_log_blocks(data: bytes):
    """Contents of the HFILE_DATA blocks of a Hudi log file: "#HUDI#", i64 size,
    i32 version, i32 type, header map, i64 content length, content, ..."""
    pos = 0
    while pos < len(data):
        assert data[pos:pos + 6] == b"#HUDI#", f"no log magic at {pos}"
        (size,) = struct.unpack_from(">q", data, pos + 6)
        start = pos + 14
        _version, block_type = struct.unpack_from(">ii", data, start)
        p = start + 8
        (n,) = struct.unpack_from(">i", data, p)
        p += 4
        for _ in range(n):
            _key, vlen = struct.unpack_from(">ii", data, p)
            p += 8 + vlen
        (clen,) = struct.unpack_from(">q", data, p)
        p += 8
        if block_type == HFILE_DATA:
            yield data[p:p + clen]
        pos = start + size


def data_blocks(hfile: bytes):
    """(gzip bytes, uncompressed size) of each data block, walking every block
    from offset 0 to the 4096-byte trailer."""
    off, end = 0, len(hfile) - 4096
    while off < end:
        magic = hfile[off:off + 8]
        odsw, usw = struct.unpack_from(">ii", hfile, off + 8)
        (oddswh,) = struct.unpack_from(">i", hfile, off + 29)
        if magic == b"DATABLK*":
            yield hfile[off + 33:off + oddswh], usw
        off += 33 + odsw
    assert off == end


def kv_keys(payload: bytes):
    p = 0
    while p < len(payload):
        klen, vlen = struct.unpack_from(">ii", payload, p)
        (rlen,) = struct.unpack_from(">h", payload, p + 8)
        yield payload[p + 10:p + 10 + rlen].decode()
        p += 8 + klen + vlen + 1


@pytest.mark.parametrize("base_files", ["true", "false"])
def test_record_index_blocks_decode_with_zlib(tmp_path, base_files):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", partition_fields="region",
                         hudi_options={"hoodie.metadata.record.index.initial.base.files": base_files})
    n = 30000
    ids = [f"{i * 7919 % 1000003:07d}-key-{i:06d}" for i in range(n)]
    t.append(pa.table({"id": ids, "region": [["eu", "us", "apac"][i % 3] for i in range(n)],
                       "v": pa.array(range(n), pa.int64())}))

    ri = path / ".hoodie" / "metadata" / "record_index"
    hfiles = [h for log in sorted(ri.glob(".record-index-*.log.*")) for h in hfile_log_blocks(log.read_bytes())]
    bases = [f.read_bytes() for f in sorted(ri.glob("*.hfile"))]
    assert len(bases if base_files == "true" else hfiles) == 10 and not (bases and hfiles)
    seen: list[str] = []
    blocks = not_zlib6 = 0
    for hfile in hfiles + bases:
        for gz, usw in data_blocks(hfile):
            blocks += 1
            assert gz[:10] == JAVA_GZIP_HEADER
            d = zlib.decompressobj(-15)
            payload = d.decompress(gz[10:-8])
            assert d.eof and d.unused_data == b"" and not d.unconsumed_tail
            assert len(payload) == usw
            crc, isize = struct.unpack("<II", gz[-8:])
            assert crc == zlib.crc32(payload) and isize == usw
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            not_zlib6 += (c.compress(payload) + c.flush()) != gz[10:-8]
            seen.extend(kv_keys(payload))
    assert blocks > 100, blocks  # 4 KiB blocks
    assert sorted(seen) == sorted(ids)
    assert not_zlib6 > blocks // 2, (not_zlib6, blocks)

    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("metadata.hfiles", "metadata.record-index", "metadata.record-index-keys"):
        assert f"PASS {name}:" in r.stdout, r.stdout
