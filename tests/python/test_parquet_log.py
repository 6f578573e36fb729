"""MERGE_ON_READ upserts write their updates as PARQUET_DATA log blocks by default
(hoodie.logfile.data.block.format=parquet; avro gives Hudi's default AVRO_DATA blocks).

Oracles: the log files are parsed here with struct (the block layout of the Hudi spec) and each
PARQUET_DATA block's content is read with pyarrow and compared with the rows written, meta
columns included; the Avro schema header is parsed as JSON; the conformance checker
../shared/tools/hudi_check.py (which decodes both block kinds) after every write; and a model of
the table in plain Python compared with HudiTable.read, also after compaction of file slices whose
logs mix Avro and Parquet blocks.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
from pathlib import Path
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hudi
from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]
FMT = "hoodie.logfile.data.block.format"


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def blocks(path):
    """(type, header {ordinal: bytes}, footer entries, content) of every block of a log file."""
    d = open(path, "rb").read()
    out, pos = [], 0
    while pos < len(d):
        assert d[pos:pos + 6] == b"#HUDI#"
        size, = struct.unpack(">q", d[pos + 6:pos + 14])
        ver, typ = struct.unpack(">ii", d[pos + 14:pos + 22])
        assert ver == 1
        p = pos + 22
        n, = struct.unpack(">i", d[p:p + 4])
        p += 4
        header = {}
        for _ in range(n):
            k, ln = struct.unpack(">ii", d[p:p + 8])
            header[k] = d[p + 8:p + 8 + ln]
            p += 8 + ln
        cl, = struct.unpack(">q", d[p:p + 8])
        content = d[p + 8:p + 8 + cl]
        p += 8 + cl
        nf, = struct.unpack(">i", d[p:p + 4])
        p += 4
        trailer, = struct.unpack(">q", d[p:p + 8])
        assert trailer == p - pos and size == p + 8 - pos - 14
        out.append((typ, header, nf, content))
        pos = p + 8
    return out


def log_files(path):
    out = []
    for root, _, files in os.walk(path):
        if ".hoodie" in root:
            continue
        out += [os.path.join(root, f) for f in files if ".log." in f]
    return sorted(out)


def new_logs(path, before):
    return [f for f in log_files(path) if f not in before]


def rows(ids, v, part="p0"):
    return pa.table({
        "id": pa.array(ids, pa.string()),
        "region": pa.array([part] * len(ids), pa.string()),
        "v": pa.array([v + i for i in range(len(ids))], pa.int64()),
        "score": pa.array([None if i % 7 == 3 else i / 8 for i in range(len(ids))], pa.float64()),
        "tags": pa.array([[f"t{i}", "x"] if i % 5 else None for i in range(len(ids))], pa.list_(pa.string())),
    })


def snapshot(path):
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return sorted((r["id"], r["region"], r["v"], r["score"], r["tags"]) for r in t.to_pylist())


class Model:
    def __init__(self):
        self.rows = {}

    def put(self, t: pa.Table):
        for r in t.to_pylist():
            self.rows[r["id"]] = (r["id"], r["region"], r["v"], r["score"], r["tags"])

    def drop(self, keys):
        for k in keys:
            self.rows.pop(k, None)

    def expected(self):
        return sorted(self.rows.values())


def make(tmp_path, **kw):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", partition_fields="region", table_type="mor", **kw)
    base = rows([f"k{i:04d}" for i in range(300)], 0)
    t.append(base)
    m = Model()
    m.put(base)
    return path, m


def test_upsert_writes_a_parquet_block_java_readers_accept(tmp_path):
    path, m = make(tmp_path)
    before = log_files(path)
    upd = rows([f"k{i:04d}" for i in range(0, 300, 3)], 1000)
    HudiTable(str(path)).upsert(upd)
    m.put(upd)
    logs = new_logs(path, before)
    assert len(logs) == 1
    name = os.path.basename(logs[0])
    file_id, instant = name[1:].split(".log.")[0].rsplit("_", 1)
    bl = blocks(logs[0])
    assert [b[0] for b in bl] == [5]
    typ, header, n_footer, content = bl[0]
    # the headers of an AVRO_DATA block: INSTANT_TIME and SCHEMA; no footer entries
    assert sorted(header) == [0, 2] and n_footer == 0
    assert header[0].decode() == instant
    schema = json.loads(header[2])
    assert [f["name"] for f in schema["fields"]][:5] == META
    # content: a whole Parquet file; zstd when hoodie.parquet.compression.codec is unset (ours)
    assert content[:4] == b"PAR1" and content[-4:] == b"PAR1"
    f = pq.ParquetFile(io.BytesIO(content))
    md = f.metadata
    assert {md.row_group(g).column(c).compression for g in range(md.num_row_groups)
            for c in range(md.num_columns)} == {"ZSTD"}
    kv = md.metadata
    assert b"org.apache.hudi.bloomfilter" not in kv and b"hoodie_min_record_key" not in kv
    assert json.loads(kv[b"parquet.avro.schema"]) == schema
    got = f.read()
    assert got.column_names == META + upd.column_names
    # (values; lists are 2-level "array" lists, as in the base files Spark reads)
    assert got.select(upd.column_names).sort_by("id").to_pylist() == upd.sort_by("id").to_pylist()
    assert set(got["_hoodie_commit_time"].to_pylist()) == {instant}
    assert set(got["_hoodie_file_name"].to_pylist()) == {file_id}
    assert got["_hoodie_record_key"].to_pylist() == got["id"].to_pylist()
    assert set(got["_hoodie_partition_path"].to_pylist()) == {"region=p0"}
    seqs = got["_hoodie_commit_seqno"].to_pylist()
    assert len(set(seqs)) == len(seqs) and all(s.startswith(instant + "_") for s in seqs)
    assert snapshot(path) == m.expected()
    check(path)


def test_codec_and_avro_option(tmp_path):
    path, m = make(tmp_path)
    before = log_files(path)
    # an explicit hoodie.parquet.compression.codec is used, as Java's writer does
    for codec in ("snappy", "gzip"):
        before = log_files(path)
        HudiTable(str(path)).upsert(rows(["k0001", "k0002"], 5), {"hoodie.parquet.compression.codec": codec})
        (typ, _, _, content), = blocks(new_logs(path, before)[0])
        md = pq.ParquetFile(io.BytesIO(content)).metadata
        assert typ == 5 and md.row_group(0).column(0).compression == codec.upper()
    before = log_files(path)
    HudiTable(str(path)).upsert(rows(["k0001", "k0002"], 6), {FMT: "avro"})
    (typ, header, _, content), = blocks(new_logs(path, before)[0])
    assert typ == 3 and struct.unpack(">ii", content[:8]) == (3, 2)
    with pytest.raises(hudi.HudiError, match="hoodie.logfile.data.block.format=hfile"):
        HudiTable(str(path)).upsert(rows(["k0001"], 7), {FMT: "hfile"})
    m.put(rows(["k0001", "k0002"], 6))
    assert snapshot(path) == m.expected()
    check(path)


@pytest.mark.parametrize("record_index", [True, False])
def test_mixed_blocks_read_and_compact(tmp_path, record_index):
    """One file slice gets Avro, Parquet and delete blocks; reads and compaction merge them in
    commit order."""
    path, m = make(tmp_path, record_index_enabled=record_index)
    seq = [("avro", range(0, 300, 2)), ("parquet", range(0, 300, 3)), ("avro", range(1, 300, 5)),
           ("parquet", range(0, 300, 4))]
    for n, (fmt, ks) in enumerate(seq):
        upd = rows([f"k{i:04d}" for i in ks], 10000 * (n + 1))
        HudiTable(str(path)).upsert(upd, {FMT: fmt})
        m.put(upd)
        gone = [f"k{i:04d}" for i in range(n, 300, 37)]
        HudiTable(str(path)).delete_keys(gone)
        m.drop(gone)
        assert snapshot(path) == m.expected()
        check(path)
    kinds = {b[0] for f in log_files(path) for b in blocks(f)}
    assert kinds == {1, 3, 5}
    HudiTable(str(path)).compact({"hoodie.compact.inline.max.delta.commits": "1"})
    assert snapshot(path) == m.expected()
    check(path)
    # and a parquet upsert after the compaction
    upd = rows([f"k{i:04d}" for i in range(5, 300, 6)], 99)
    HudiTable(str(path)).upsert(upd)
    m.put(upd)
    assert snapshot(path) == m.expected()
    check(path)


def test_parquet_blocks_are_smaller(tmp_path):
    """10k updated rows with random uuids: the Parquet block (zstd) is at most 0.45x the Avro one
    and at most 1.3x pyarrow's snappy file of the same rows."""
    path = tmp_path / "u"
    n = 10000
    ids = [str(uuid.UUID(int=(i * 0x9E3779B97F4A7C15 << 40) % (1 << 128) | (i + 1))) for i in range(n)]
    t = pa.table({"id": ids, "amount": pa.array([i * 0.25 for i in range(n)]),
                  "seq": pa.array(range(n), pa.int64()), "status": pa.array(["open", "done"] * (n // 2))})
    HudiTable.create(str(path), "id", table_type="mor").append(t)
    sizes = {}
    for k, fmt in enumerate(["avro", "parquet"]):
        before = log_files(path)
        upd = t.set_column(2, "seq", pa.array(range(k * n, (k + 1) * n), pa.int64()))
        HudiTable(str(path)).upsert(upd, {FMT: fmt})
        sizes[fmt] = sum(os.path.getsize(f) for f in new_logs(path, before))
    buf = io.BytesIO()
    pq.write_table(upd, buf, compression="snappy")
    assert sizes["parquet"] <= 0.45 * sizes["avro"], sizes
    assert sizes["parquet"] <= 1.3 * len(buf.getvalue()), (sizes, len(buf.getvalue()))
    check(path)
