"""A long mixed sequence of commits on one table, alternating writers: hudi-c (the Python API) and
Spark 3.5 + Apache Hudi 1.2.0 (table version 8 kept), both writing through the metadata table and
its record-level index (RECORD_INDEX, partition moves on).

The MERGE_ON_READ variant runs >= 30 commits -- appends, upserts (updates, inserts, partition
moves), deletes by key and by predicate, UPDATE ... SET, compactions by both sides (ours through
HudiTable.compact(), Spark's inline compaction) -- long enough for each side's automatic table
services (cleaning past 10 retained commits, metadata-table compaction every 10 delta commits,
archival past 30 commits) to run in the middle of the other side's writes. A smaller
COPY_ON_WRITE variant does the same without compactions.

Oracles:
* an independently maintained model (a plain dict key -> row, plus the instant that last wrote
  the key, which must be the row's _hoodie_commit_time) compared with hudi-c's read after every
  step and with Spark's read every few steps;
* ../shared/tools/hudi_check.py after every hudi-c commit (Spark's .crc files excepted);
* at the end, the full row sets (meta columns _hoodie_commit_time, _hoodie_record_key,
  _hoodie_partition_path included) of Spark, hudi-rs and hudi-c, each equal to the model;
* Hudi's own metadata-table view (mdt_validate below, HoodieBackedTableMetadata in Spark's
  JVM): the `files` partition lists exactly the files on storage per partition with their sizes,
  and the record index has exactly one entry per live key, naming its partition and the file
  group that holds it. (Apache Hudi's HoodieMetadataTableValidator lives in hudi-utilities, whose
  1.2.0 jars Maven Central does not serve here -- hudi-utilities-slim-bundle_2.12,
  hudi-utilities-bundle_2.12 and hudi-utilities_2.12 at 1.2.0 all fail to resolve -- so its
  main checks are done here with the same Hudi classes it uses. Spark's hudi_metadata
  table-valued function is no oracle here: Hudi 1.2.0's fails on every version-8 metadata table
  log block whose ColumnStatsMetadata lacks the version-9 `valueType` field -- those Hudi 1.0.2
  writes as much as ours -- with "ArrayIndexOutOfBoundsException: Index 7 out of bounds for
  length 7", while HoodieBackedTableMetadata reads them.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pyarrow as pa
import pytest

from oracles import row_diff

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
REGIONS = ("eu", "us", "apac")
SCHEMA = "id string, region string, v long, note string"
CMP = ("_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path", "id", "region", "v", "note")
FILE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+")


class Model:
    """The rows the table must hold: id -> (region, v, note) and the instant that wrote each."""

    def __init__(self) -> None:
        self.rows: Dict[str, Tuple[str, int, str]] = {}
        self.written_by: Dict[str, str] = {}

    def put(self, rows: List[list], instant: str) -> None:
        for k, region, v, note in rows:
            self.rows[k] = (region, v, note)
            self.written_by[k] = instant

    def drop(self, keys) -> None:
        for k in keys:
            self.rows.pop(k, None)
            self.written_by.pop(k, None)

    def expected(self) -> List[tuple]:
        return sorted((self.written_by[k], k, f"region={r[0]}", k, *r) for k, r in self.rows.items())

    def data(self) -> List[tuple]:
        return sorted((k, *r) for k, r in self.rows.items())


def arrow(rows: List[list]) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "region": [r[1] for r in rows],
                     "v": pa.array([r[2] for r in rows], pa.int64()), "note": [r[3] for r in rows]})


def plain(rows, cols=CMP) -> List[tuple]:
    def val(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(val(r[c]) for c in cols) for r in rows)


def ours(path: Path) -> List[dict]:
    t = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    return pa.Table.from_batches(t.read()).to_pylist()


def check(path: Path) -> None:
    """hudi_check.py passes with its metadata checks; the only failures allowed are the checker
    rejecting the .crc checksum files Hadoop's local file system leaves beside Spark's files."""
    # (every failure listed, not the first 25, so that none hides behind the .crc ones)
    # os._exit: see tests/run_hudi_check.py (pyarrow 26 can abort at interpreter shutdown).
    run = ("import os, sys; sys.path.insert(0, sys.argv[1]); import hudi_check as h; "
           "h.MAX_FAILURES_SHOWN = 1 << 30; rc = h.main(sys.argv[2:]); sys.stdout.flush(); os._exit(rc or 0)")
    r = subprocess.run([sys.executable, "-c", run, str(CHECKER.parent), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL") and not ln.endswith(
        ".crc: not a layout-2 timeline file name")]
    assert not fails and r.stdout.rstrip().endswith("skipped") and (r.returncode == 0 or "FAIL" in r.stdout), \
        "\n".join(fails) + "\n" + r.stdout[-3000:] + r.stderr
    for name in ("metadata.files-listing", "metadata.record-index", "metadata.record-index-keys"):
        assert f"PASS {name}:" in r.stdout, r.stdout


def completed(path: Path) -> Dict[str, str]:
    """requested time -> action of every completed instant of the active timeline."""
    out = {}
    for f in os.listdir(path / ".hoodie" / "timeline"):
        m = re.match(r"^(\d{17})_(\d{17})\.(\w+)$", f)
        if m:
            out[m[1]] = m[3]
    return out


def spark_options(path: Path, table_type: str, operation: str) -> Dict[str, str]:
    return {
        "hoodie.table.name": path.name,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.datasource.write.precombine.field": "",
        "hoodie.datasource.write.operation": operation,
        "hoodie.datasource.write.table.type": "MERGE_ON_READ" if table_type == "mor" else "COPY_ON_WRITE",
        "hoodie.metadata.enable": "true",
        "hoodie.metadata.record.index.enable": "true",
        "hoodie.index.type": "RECORD_INDEX",
        "hoodie.record.index.update.partition.path": "true",
        "hoodie.metadata.index.column.stats.enable": "false",
        "hoodie.metadata.index.partition.stats.enable": "false",
        "hoodie.write.table.version": "8",
        "hoodie.write.auto.upgrade": "false",
        "hoodie.table.timeline.timezone": "UTC",
        # Spark's batch MOR writes compact inline every 5 delta commits by default; the sequence
        # says when Spark compacts instead (inline, on chosen writes).
        "hoodie.compact.inline": "false",
        # a small local footprint: no embedded timeline server, two-way shuffles
        "hoodie.embed.timeline.server": "false",
        "hoodie.upsert.shuffle.parallelism": "2",
        "hoodie.insert.shuffle.parallelism": "2",
        "hoodie.delete.shuffle.parallelism": "2",
    }


class Sequence:
    """Drives the writers and keeps the model."""

    def __init__(self, path: Path, table_type: str, spark) -> None:
        self.path, self.table_type, self.spark = path, table_type, spark
        self.m = Model()
        self.next_key = 0
        self.log: List[str] = []

    def new_rows(self, n: int, step: int) -> List[list]:
        rows = [[f"k{self.next_key + i:03d}", REGIONS[(self.next_key + i) % 3], step * 1000 + i, f"n{step}"]
                for i in range(n)]
        self.next_key += n
        return rows

    def live(self, offset: int, n: int, stride: int = 3) -> List[str]:
        keys = sorted(self.m.rows)
        return [keys[(offset + i * stride) % len(keys)] for i in range(min(n, len(keys)))]

    def changed(self, keys: List[str], step: int, move: bool) -> List[list]:
        out = []
        for i, k in enumerate(keys):
            region = self.m.rows[k][0]
            if move and i % 2 == 0:
                region = REGIONS[(REGIONS.index(region) + 1 + step % 2) % 3]
            out.append([k, region, step * 1000 + 500 + i, f"u{step}"])
        return out

    # --- hudi-c
    def ours(self, step: int) -> None:
        t = hudi.HudiTableBuilder.from_base_uri(str(self.path)).build()
        verb = ("upsert", "delete_keys", "append", "update", "delete", "upsert")[step % 6]
        if self.table_type == "mor" and step % 12 == 8:
            verb = "compact"
        if verb == "upsert":
            rows = self.changed(self.live(step, 6), step, move=True) + self.new_rows(3, step)
            r = t.upsert(arrow(rows))
            self.m.put(rows, r.requested_time)
        elif verb == "delete_keys":
            keys = self.live(step, 3) + ["k-absent"]
            t.delete_keys(keys)
            self.m.drop(keys)
        elif verb == "append":
            rows = self.new_rows(5, step)
            r = t.append(arrow(rows))
            self.m.put(rows, r.requested_time)
        elif verb == "update":
            keys = self.live(step + 1, 3)
            r = t.update("id IN (" + ", ".join(f"'{k}'" for k in keys) + ")", {"v": step * 1000 + 777})
            self.m.put([[k, self.m.rows[k][0], step * 1000 + 777, self.m.rows[k][2]] for k in keys],
                       r.requested_time)
        elif verb == "delete":
            # a predicate over data and key columns: the keys chosen, and only while v is what
            # the model says (so a reader that lost an update would make the delete miss)
            gone = self.live(step + 2, 3)
            t.delete(" OR ".join(f"(id = '{k}' AND v = {self.m.rows[k][1]})" for k in gone))
            self.m.drop(gone)
        else:
            before = completed(self.path)
            r = t.compact()
            assert r.num_file_groups >= 1, "a MOR table with logs has something to compact"
            assert completed(self.path).get(r.requested_time) == "commit"
            assert set(before) < set(completed(self.path))
        self.log.append(f"{step}: hudi-c {verb}")
        check(self.path)

    # --- Spark
    def spark_write(self, rows: List[list], operation: str, extra: Optional[Dict[str, str]] = None) -> str:
        before = completed(self.path)
        opts = {**spark_options(self.path, self.table_type, operation), **(extra or {})}
        self.spark.call("write", path=str(self.path), rows=rows, schema=SCHEMA, options=opts)
        new = {t: a for t, a in completed(self.path).items() if t not in before}
        writes = [t for t, a in new.items()
                  if a == ("deltacommit" if self.table_type == "mor" else "commit") and t not in self.compactions(new)]
        assert len(writes) == 1, new
        return writes[0]

    def compactions(self, instants: Dict[str, str]) -> set:
        d = self.path / ".hoodie" / "timeline"
        return {t for t in instants if (d / f"{t}.compaction.requested").exists()}

    def theirs(self, step: int) -> None:
        verb = ("upsert", "delete", "upsert", "insert")[step // 4 % 4]
        extra = None
        if self.table_type == "mor" and step % 12 == 5 and step > 5:
            verb, extra = "upsert+compact", {"hoodie.compact.inline": "true",
                                             "hoodie.compact.inline.max.delta.commits": "1"}
        if verb.startswith("upsert"):
            rows = self.changed(self.live(step + 2, 6), step, move=True) + self.new_rows(2, step)
            before = completed(self.path)
            self.m.put(rows, self.spark_write(rows, "upsert", extra))
            if extra:
                new = {t: a for t, a in completed(self.path).items() if t not in before}
                assert self.compactions(new) and all(new[t] == "commit" for t in self.compactions(new)), new
        elif verb == "insert":
            rows = self.new_rows(4, step)
            self.m.put(rows, self.spark_write(rows, "upsert"))
        else:
            keys = self.live(step + 5, 3)
            self.spark_write([[k, self.m.rows[k][0], 0, ""] for k in keys], "delete")
            self.m.drop(keys)
        self.log.append(f"{step}: spark {verb}")

    def compare_ours(self) -> None:
        got = plain(ours(self.path))
        want = self.m.expected()
        assert got == want, "\n".join(self.log[-3:]) + "\n" + row_diff(
            [repr(r) for r in got], [repr(r) for r in want], ("hudi-c", "model"))

    def compare_spark(self) -> None:
        got = plain(self.spark.read_table(str(self.path), {"hoodie.metadata.enable": "true"}).rows)
        want = self.m.expected()
        assert got == want, "\n".join(self.log[-3:]) + "\n" + row_diff(
            [repr(r) for r in got], [repr(r) for r in want], ("spark", "model"))


def storage_files(path: Path, partition: str) -> Dict[str, int]:
    d = path / partition
    return {f: (d / f).stat().st_size for f in os.listdir(d)
            if not f.endswith(".crc") and not f.startswith(".hoodie_partition_metadata")}


def mdt_validate(spark, path: Path, seq: "Sequence") -> None:
    """HoodieMetadataTableValidator's main checks, done with Hudi's own metadata reader
    (HoodieBackedTableMetadata in Spark's JVM): the partition list and every partition's file
    listing equal storage (validate-latest-base-files / file slices: names and sizes), and the
    record index holds exactly the live keys (validate-record-index-count: every key ever
    written is looked up, deleted ones must be absent) at their partition and file group
    (validate-record-index-content: the file id in the name of the file Spark reads the row from)."""
    every_key = [f"k{i:03d}" for i in range(seq.next_key)]
    view = spark.call("mdt_view", path=str(path), keys=every_key)
    on_storage = sorted(p for p in os.listdir(path) if p.startswith("region="))
    assert view["partitions"] == on_storage, (view["partitions"], on_storage)
    for p in on_storage:
        live, disk = view["files"][p], storage_files(path, p)
        assert live == disk, f"{p}: MDT lists {sorted(set(live) - set(disk))} not on storage, " \
                             f"storage has {sorted(set(disk) - set(live))} not listed, " \
                             f"sizes {[(f, live[f], disk[f]) for f in set(live) & set(disk) if live[f] != disk[f]]}"
    ri = view["record_index"]
    assert sorted(ri) == sorted(seq.m.rows), row_diff(sorted(ri), sorted(seq.m.rows), ("record index", "model"))
    rows = spark.read_table(str(path), {"hoodie.metadata.enable": "true"}).rows
    assert len(rows) == len(ri)
    for r in rows:
        k = r["_hoodie_record_key"]
        assert ri[k][0] == r["_hoodie_partition_path"], (k, ri[k], r)
        fid = FILE_ID.search(r["_hoodie_file_name"])
        assert fid and ri[k][1] == fid[0], (k, ri[k], r["_hoodie_file_name"])


@pytest.mark.parametrize("table_type,steps", [("mor", 33), ("cow", 7)])
def test_mixed_writers_sequence(tmp_path, spark, hudirs, table_type, steps):
    path = tmp_path / f"mixed_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type)
    assert t.properties()["hoodie.table.metadata.partitions"] == "files,record_index"
    seq = Sequence(path, table_type, spark)
    rows = seq.new_rows(30, 0)
    seq.m.put(rows, t.append(arrow(rows)).requested_time)
    check(path)
    seq.compare_ours()
    for step in range(1, steps):
        # one of Spark's commits, then three of hudi-c's (Spark's writes cost ~20-40 s each here)
        if step % 4 == 1:
            seq.theirs(step)
        else:
            seq.ours(step)
        seq.compare_ours()
        if step % 8 == 1:
            seq.compare_spark()
    # the sequence ends with a hudi-c write read by everyone
    seq.ours(steps)
    seq.compare_ours()

    timeline = completed(path)
    assert len(timeline) >= (30 if table_type == "mor" else 7), sorted(timeline.items())
    if table_type == "mor":
        # the sequence is long enough for the table services of either side to have run in it:
        # cleaning (10 commits retained), metadata-table compaction (every 10 MDT delta commits)
        # and archival into the LSM history (past 30 commits)
        assert "clean" in timeline.values(), sorted(timeline.items())
        mdt = completed(path / ".hoodie" / "metadata")
        assert "commit" in mdt.values(), sorted(mdt.items())
        history = path / ".hoodie" / "timeline" / "history"
        assert any(f.endswith(".parquet") for f in os.listdir(history)), os.listdir(history)
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.version=8\n" in props
    assert "hoodie.table.metadata.partitions=files,record_index\n" in props

    want = seq.m.expected()
    mine = ours(path)
    assert plain(mine) == want
    theirs = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert plain(theirs.rows) == want, row_diff([repr(r) for r in plain(theirs.rows)], [repr(r) for r in want])
    rs = hudirs.read_table(str(path))
    assert plain(rs.rows) == want, row_diff([repr(r) for r in plain(rs.rows)], [repr(r) for r in want])
    mdt_validate(spark, path, seq)
