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
from test_savepoint_restore import check as check_savepointed

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


def test_restore_refreshes_what_it_brings_back(tmp_path):
    """A restore rolls back metadata compactions, bringing back the base files of older ones, which
    the metadata table may have archived: it compacts those groups anew (found by a review: the
    files group and every record-index shard were left on archived instants)."""
    path = tmp_path / "t"
    HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type="mor")
    model = {}

    def write(tbl, verb="upsert"):
        getattr(HudiTable(str(path)), verb)(tbl, SMALL)
        model.update(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist()))

    write(rows(range(40), 1), "append")
    for k in range(6):
        write(rows([k % 40, (k + 7) % 40], 10 + k))
    t = HudiTable(str(path))
    sp = t.savepoint()
    saved = dict(model)
    for k in range(5):
        write(rows([k % 40, (k + 3) % 40, 100 + k], 200 + k))
    r = HudiTable(str(path)).restore(sp.instant if hasattr(sp, "instant") else sp.requested_time)
    assert not r.metadata_table_rebuilt and r.num_instants_rolled_back == 5
    assert stale(path) == []
    assert read(path) == saved
    check_savepointed(path)


def test_background_compaction_does_not_hold_the_archival(tmp_path):
    """While the handle's background compaction is pending the archival does not refresh, and goes
    on as Java's does (a review found an earlier fallback, keeping the instants of live base files
    active instead, holding the archival for good with hoodie.metadata.compact.async=true): the
    active metadata timeline stays bounded, and the groups left behind are refreshed later."""
    path = tmp_path / "t"
    opts = dict(SMALL, **{"hoodie.metadata.compact.async": "true", "hoodie.metadata.compact.incremental": "true",
                          "hoodie.metadata.compact.async.test.delay.ms": "300"})
    HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type="mor")
    h = HudiTable(str(path))
    model = {}
    for tbl, verb in ((rows(range(40), 1), "append"), (rows(range(100, 106), 2), "upsert")):
        getattr(h, verb)(tbl, opts)
        model.update(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist()))
    sizes = []
    for k in range(60):
        tbl = rows([k % 40, (k + 7) % 40], 10 + k)
        h.upsert(tbl, opts)
        model.update(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist()))
        sizes.append(len(completed(path)))
    # A sawtooth (the archival takes instants now and then), not a climb: the first version grew
    # to 70 completed instants by the 60th write, steadily.
    assert max(sizes) <= 52, sizes
    assert min(sizes[40:]) < max(sizes[:40]), sizes
    h.wait_services()
    for k in range(3):  # no background compaction pending: the archival refreshes what it left
        tbl = rows([k], 90 + k)
        HudiTable(str(path)).upsert(tbl, SMALL)
        model[tbl.column("id")[0].as_py()] = tbl.column("v")[0].as_py()
    assert read(path) == model
    check(path)
