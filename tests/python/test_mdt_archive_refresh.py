"""The metadata table's archival never archives the instant that wrote a file group's latest base
file: it first compacts that group anew (base only when the group has no log files), going further
than Java (docs/compatibility.md 34).

Why: Java's readers take a base file as committed when its instant is active or older than the
timeline's first instant, and a partition initialised later (00000000000000NNN: hudi-c's
record-index add, or Spark 1.x initialising column stats by default) sorts before everything, so
a live base file an archived compaction wrote becomes invisible to them. Under updates only, the
record-index shards get no log files and keep the base files of old compactions.
tests/interop/test_mdt_late_init_engines.py shows Spark failing on such a table without this.

Oracles: the files on storage (every listed partition's latest base file was written by an instant
completed on the active MDT timeline), the refresh compaction's plan read with fastavro (operations
without delta files), an independent model of the rows, and ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

from hudi import HudiTable
from test_mdt_bootstrap import check, props, rows

SMALL = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "5",
         "hoodie.metadata.keep.min.commits": "3", "hoodie.metadata.keep.max.commits": "5",
         "hoodie.clean.commits.retained": "1", "hoodie.metadata.compact.max.delta.commits": "3"}
HFILE = re.compile(r"^(.+)_\d+-\d+-\d+_(\d{17})\.hfile$")


def mdt_timeline(path: Path) -> list[str]:
    return os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")


def completed(path: Path) -> dict[str, str]:
    """Requested time -> action of the completed instants on the active MDT timeline."""
    out = {}
    for n in mdt_timeline(path):
        m = re.match(r"^(\d{17})_\d{17}\.(\w+)$", n)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def latest_bases(path: Path) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for part in props(path)["hoodie.table.metadata.partitions"].split(","):
        for n in os.listdir(path / ".hoodie" / "metadata" / part):
            m = HFILE.match(n)
            if m:
                out[(part, m.group(1))] = max(out.get((part, m.group(1)), ""), m.group(2))
    return out


def stale(path: Path) -> list:
    done = completed(path)
    return sorted((g, i) for g, i in latest_bases(path).items() if i not in done)


def plan(path: Path, instant: str) -> dict:
    data = (path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / f"{instant}.compaction.requested").read_bytes()
    return next(fastavro.reader(io.BytesIO(data)))


def read(path: Path) -> dict:
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return dict(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


@pytest.mark.parametrize("table_type", ["mor", "cow"])
@pytest.mark.parametrize("version", ["8", "9"])
def test_update_only_writes_keep_every_latest_base_active(tmp_path, table_type, version):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type=table_type,
                         hudi_options={"hoodie.write.table.version": version})
    model = {}

    def write(tbl, verb):
        getattr(HudiTable(str(path)), verb)(tbl, SMALL)
        model.update(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist()))

    write(rows(range(40), 1), "append")
    write(rows(range(100, 106), 2), "upsert")
    base_only = []
    for k in range(24):  # updates only: no record-index shard gets a log file
        before = set(completed(path))
        write(rows([k % 40, (k + 7) % 40, (k + 13) % 40], 10 + k), "upsert")
        assert stale(path) == [], k
        for c, action in completed(path).items():
            if c in before or action != "commit":
                continue
            ops = plan(path, c)["operations"]
            base_only += [(c, op["partitionPath"], op["fileId"]) for op in ops if not op["deltaFilePaths"]]
            for op in ops:
                assert op["dataFilePath"], op  # a base file to rewrite
                assert op["metrics"]["TOTAL_LOG_FILES"] == len(op["deltaFilePaths"])
                assert op["metrics"]["TOTAL_LOG_FILES_SIZE"] >= 0.0  # Java's executor reads it
    history = path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history"
    assert any(history.iterdir()), "the metadata timeline was archived"
    # Refreshed record-index shards: compactions with operations that read no log file.
    assert {p for _, p, _ in base_only} >= {"record_index"}
    assert len({f for _, p, f in base_only if p == "record_index"}) == 10
    assert read(path) == model
    out = check(path)
    assert "PASS metadata.record-index-keys" in out


def test_refresh_leaves_the_rows_and_index_as_they_were(tmp_path):
    """The refresh copies a group's records as they are: every key found through the record index
    (an upsert of each is an update, never an insert) and the same rows read."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type="mor")
    t.append(rows(range(60), 1), SMALL)
    for k in range(20):
        HudiTable(str(path)).upsert(rows([k, k + 20], 10 + k), SMALL)
    assert stale(path) == []
    before = read(path)
    r = HudiTable(str(path)).upsert(rows(range(60), 99), SMALL)
    assert (r.num_updates, r.num_inserts) == (60, 0)
    assert read(path) == {k: v for k, v in zip(rows(range(60), 99).column("id").to_pylist(),
                                               rows(range(60), 99).column("v").to_pylist())}
    assert len(before) == 60
    check(path)
