"""Metadata-table compaction copies the unchanged blocks of a file group's base HFile
(hoodie.metadata.compact.copy.unchanged.blocks, hudi-c's own key, default true): a data block
that no update, delete or new key falls in goes into the new base file as its bytes, without
being inflated, re-encoded and deflated again.

Oracles: an independent model of the rows (the snapshot must equal it, and an upsert routed by
the record index keeps each key in its file group), the HFiles themselves read by
../shared/tools/hudi_check.py's own HFile parser (which blocks kept the previous base file's
_hoodie_file_name, so were copied; a table written with the option false has none), and
hudi_check.py's checks of the whole table: every MDT HFile parses with ascending keys, the
entry count, hfile.LASTKEY and min/maxRecordKey agree with the data, and the record index equals
the keys of every file slice.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiTable
from test_mdt_compact_async import CHECKER, check, file_id, mdt_timeline
from test_objstore_tables import BUCKET, Backend, moto, s3_options  # noqa: F401  (moto: fixture)

sys.path.insert(0, str(CHECKER.parent))
import hudi_check  # noqa: E402  (the checker's HFile parser, an independent reader)

COPY = "hoodie.metadata.compact.copy.unchanged.blocks"
OPTS = {"hoodie.metadata.compact.max.delta.commits": "3"}
# Enough keys that each of the 10 record-index shards holds more than the 10,000 keys its bloom
# filter row is sized for: smaller base files are always rebuilt (their filter cannot go on).
N = 130_000
CITIES = ["sf", "nyc", "la"]


class Rows:
    def __init__(self):
        self.rows: dict[str, tuple] = {}
        self.n = 0

    def table(self, rows: list[tuple]) -> pa.Table:
        for r in rows:
            self.rows[r[0]] = r
        return pa.table({"id": pa.array([r[0] for r in rows], pa.string()),
                         "city": pa.array([r[1] for r in rows], pa.string()),
                         "ts": pa.array([r[2] for r in rows], pa.int64())})

    def new(self, n: int, w: int) -> list[tuple]:
        out = [(f"key-{self.n + i:07d}", CITIES[(self.n + i) % 3], w) for i in range(n)]
        self.n += n
        return out

    def changed(self, n: int, w: int) -> list[tuple]:
        live = sorted(self.rows)
        return [(k, self.rows[k][1], w) for k in live[w::len(live) // n][:n]]

    def delete(self, n: int, w: int) -> list[str]:
        live = sorted(self.rows)
        keys = live[w + 5::len(live) // n][:n]
        for k in keys:
            del self.rows[k]
        return keys

    def expected(self) -> pa.Table:
        rows = sorted(self.rows.values())
        return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows],
                         "ts": pa.array([r[2] for r in rows], pa.int64())})


def write(t: HudiTable, m: Rows, w: int, opts: dict) -> None:
    if w % 3 == 0:
        keys = m.delete(60, w)
        assert t.delete_keys(keys, opts).num_deletes == len(keys)
    else:
        t.upsert(m.table(m.new(80, w) + m.changed(150, w)), opts)


def compactions(path) -> list[str]:
    return [n.split("_")[0] for n in mdt_timeline(path) if n.endswith(".commit")]


def latest_shards(path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for f in sorted((Path(path) / ".hoodie" / "metadata" / "record_index").glob("*.hfile")):
        out[f.name.split("_")[0]] = f  # names sort by instant: the last is the latest
    return out


def foreign_names(f: Path) -> tuple[int, int]:
    """(values naming another base file or none, values) of one record-index base HFile: a
    compaction names its own file in every record it encodes, so the others were copied (from an
    older compaction's file, or from the bulk load's, whose values carry null meta fields as
    Java's metadata initialisation writes them)."""
    h = hudi_check.HFile(f.read_bytes())
    own = f.name.encode()
    other = total = 0
    for kv in h.key_values():
        total += 1
        if own not in kv.value:
            # _hoodie_file_name names some base file, or all five meta fields are null
            assert b".hfile" in kv.value or kv.value.startswith(b"\x00" * 5), kv.value
            other += 1
    assert total == h.trailer["entry_count"]
    return other, total


def build(path, copy: str, writes: int = 0, storage: dict | None = None) -> tuple[HudiTable, Rows, dict[str, str]]:
    """The table at path after its second metadata compaction (the first reads the bulk load's
    base files, the second the first's), or after `writes` writes when given (a table whose
    timeline cannot be listed here: the same writes as a local twin's)."""
    opts = dict(OPTS, **{COPY: copy})
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="city", table_type="mor",
                         storage_options=storage or {})
    m = Rows()
    t.append(m.table(m.new(N, 0)), opts)
    _, groups = snapshot_ids(t)
    w = 0
    while (w < writes) if writes else len(compactions(path)) < 2:
        w += 1
        write(t, m, w, opts)
        assert w < 20, w
    t.writes = w
    return t, m, groups


def snapshot_ids(t: HudiTable) -> tuple[pa.Table, dict[str, str]]:
    tbl = pa.Table.from_batches(t.read())
    ids = tbl.column("id").to_pylist()
    assert len(ids) == len(set(ids)), "duplicate keys"
    return tbl.select(["id", "city", "ts"]).sort_by("id"), dict(
        zip(ids, (file_id(n) for n in tbl.column("_hoodie_file_name").to_pylist())))


def test_compaction_copies_unchanged_blocks(tmp_path):
    path = tmp_path / "t"
    t, m, groups = build(path, "true")
    shards = latest_shards(path)
    assert len(shards) == 10
    copied = total = 0
    for f in shards.values():
        assert compactions(path)[-1] in f.name
        o, n = foreign_names(f)
        copied += o
        total += n
    # Most records sit in blocks no change fell in: they were copied, with the name of the
    # base file the first compaction wrote.
    assert total == len(m.rows)
    assert copied > total // 2, (copied, total)
    # Everything reads as the model says, and upserts still find every key through the index.
    got, now = snapshot_ids(t)
    assert got.equals(m.expected())
    for k, g in now.items():
        if k in groups:
            assert groups[k] == g, k
    for w in range(20, 24):  # on through another compaction, from the copied files
        write(t, m, w, dict(OPTS, **{COPY: "true"}))
    got, now = snapshot_ids(t)
    assert got.equals(m.expected())
    assert len(compactions(path)) >= 3
    out = check(path)
    assert "PASS metadata.hfiles" in out, out


def test_option_false_rebuilds_every_block(tmp_path):
    path = tmp_path / "t"
    t, m, _ = build(path, "false")
    for f in latest_shards(path).values():
        assert foreign_names(f)[0] == 0, f
    got, _ = snapshot_ids(t)
    assert got.equals(m.expected())


def test_bad_value_refused_before_writing(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", table_type="mor")
    before = sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir())
    with pytest.raises(Exception, match=COPY):
        t.upsert(pa.table({"id": ["a"], "city": ["sf"], "ts": pa.array([1], pa.int64())}), {COPY: "yes"})
    assert sorted(p.name for p in (path / ".hoodie" / "timeline").iterdir()) == before


def test_copies_blocks_on_s3(moto, tmp_path):  # noqa: F811
    """The same on S3 (moto): the compaction reads the old base file in 4 MiB ranges and copies
    its unchanged blocks; the table, downloaded with botocore, reads as its local twin and
    passes hudi_check.py."""
    local, m, _ = build(tmp_path / "twin", "true")
    prefix = f"mdt-copy-{os.getpid()}-{time.time_ns()}/t"
    s3 = Backend("s3", moto, "s3", s3_options(moto), "s3")
    t, m3, _ = build(s3.uri(prefix), "true", writes=local.writes, storage=s3.options)
    got, _ = snapshot_ids(t)
    assert got.equals(m3.expected()) and got.equals(m.expected())
    dest = tmp_path / "download"
    assert s3.download(prefix, dest) > 0
    assert len(compactions(dest)) == len(compactions(tmp_path / "twin")) >= 2
    copied = total = 0
    for f in latest_shards(dest).values():
        o, n = foreign_names(f)
        copied, total = copied + o, total + n
    assert total == len(m3.rows) and copied > total // 2, (copied, total)
    out = check(dest)
    assert "PASS metadata.hfiles" in out, out
