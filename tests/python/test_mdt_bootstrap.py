"""hoodie.metadata.enable=true in a write's options builds the metadata table of a table that has
none, as Apache Hudi's writers do (HoodieBackedTableMetadataWriter.initializeFromFilesystem):
`files` from a storage listing, `record_index` from the keys of every latest file slice, each at
its slice's base instant; the properties list both partitions once they are complete.

Oracles: the conformance checker ../shared/tools/hudi_check.py (its metadata.files-listing,
metadata.record-index and metadata.record-index-keys checks compare the metadata table with
storage and the snapshot's keys); the rows of a plain-Python model, read back both through the
metadata table and by listing storage. Spark and hudi_check on Spark's own tables:
tests/interop/test_mdt_bootstrap_engines.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiConflictError, HudiTable, HudiUnsupportedError
from hudi_fixtures import FIXTURES
from test_savepoint_restore import check as check_savepointed

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
OFF = {"hoodie.metadata.enable": "false"}
ON = {"hoodie.metadata.enable": "true"}


def check(table_dir) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def rows(ids, v, partitioned=True) -> pa.Table:
    cols = {"id": [f"k{i:04d}" for i in ids], "ts": pa.array([v] * len(ids), pa.int64()),
            "v": pa.array([v * 1000 + i for i in ids], pa.int64())}
    if partitioned:
        cols["region"] = [["eu", "us", "ap"][i % 3] for i in ids]
    return pa.table(cols)


def props(path: Path) -> dict:
    out = {}
    for line in (path / ".hoodie" / "hoodie.properties").read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def read(path: Path, listing: bool = False) -> dict:
    opts = {"hoodie.metadata.enable": "false"} if listing else None
    t = pa.Table.from_batches(HudiTable(str(path), opts).read()) if opts else \
        pa.Table.from_batches(HudiTable(str(path)).read())
    return dict(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


def without_mdt(path: Path, table_type: str, version: str, partitioned: bool = True):
    """A table whose metadata table a write turned off, with later writes made without it: the
    state of a Spark table written with hoodie.metadata.enable=false."""
    t = HudiTable.create(str(path), "id", ordering_fields="ts",
                         partition_fields="region" if partitioned else None, table_type=table_type,
                         hudi_options={"hoodie.write.table.version": version})
    model = {}

    def apply(tbl):
        model.update(dict(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist())))

    first = rows(range(300), 1, partitioned)
    t.append(first)
    apply(first)
    up = rows(range(250, 400), 2, partitioned)
    t.upsert(up, OFF)
    apply(up)
    t.delete_keys([f"k{i:04d}" for i in range(0, 30)], OFF)
    for i in range(30):
        del model[f"k{i:04d}"]
    up = rows(range(100, 140), 3, partitioned)
    t.upsert(up, OFF)
    apply(up)
    assert not (path / ".hoodie" / "metadata").exists()
    assert props(path)["hoodie.table.metadata.partitions"] == ""
    return t, model


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("version", ["8", "9"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "flat"])
def test_write_builds_the_metadata_table(tmp_path, table_type, version, partitioned):
    path = tmp_path / "t"
    t, model = without_mdt(path, table_type, version, partitioned)
    up = rows(list(range(130, 150)) + list(range(500, 510)), 4, partitioned)
    r = t.upsert(up, ON)
    assert (r.num_updates, r.num_inserts) == (20, 10)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    p = props(path)
    assert p["hoodie.table.metadata.partitions"] == "files,record_index"
    if version == "9":
        assert p["hoodie.table.index.defs.path"] == ".hoodie/.index_defs/index.json"
        assert '"record_index"' in (path / ".hoodie" / ".index_defs" / "index.json").read_text()
    tl = sorted(os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline"))
    init = sorted({n.split(".")[0].split("_")[0] for n in tl if n.startswith("00000000000000")})
    assert init == ["00000000000000000", "00000000000000001", "00000000000000002"], tl
    out = check(path)
    assert "metadata.record-index-keys" in out and "metadata.files-listing" in out
    assert read(path) == model
    assert read(path, listing=True) == model

    keeps_it_current(path, model, partitioned)


def keeps_it_current(path: Path, model: dict, partitioned: bool) -> None:
    """Later writes, with no option, keep the built index current: updates and deletes find
    their keys through it (k0130-k0159 and k0505 must be in the model)."""
    t2 = HudiTable(str(path))
    up = rows(range(140, 160), 5, partitioned)
    r = t2.upsert(up)
    assert (r.num_updates, r.num_inserts) == (20, 0)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    assert t2.delete_keys(["k0200", "k0505", "k9999"]).num_deletes == 2
    del model["k0200"], model["k0505"]
    check(path)
    assert read(path) == model


def test_files_only_without_the_record_index(tmp_path):
    path = tmp_path / "t"
    t, model = without_mdt(path, "mor", "8")
    t.delete_keys(["k0031"], {**ON, "hoodie.metadata.record.index.enable": "false"})
    del model["k0031"]
    assert props(path)["hoodie.table.metadata.partitions"] == "files"
    assert not (path / ".hoodie" / "metadata" / "record_index").exists()
    check(path)
    assert read(path) == model


def test_an_unlisted_metadata_table_is_replaced(tmp_path):
    """A bootstrap (or drop) cut short leaves .hoodie/metadata unlisted: readers ignore it, and
    the next bootstrap deletes it before building its own."""
    path = tmp_path / "t"
    t, model = without_mdt(path, "cow", "8")
    stale = path / ".hoodie" / "metadata" / ".hoodie"
    stale.mkdir(parents=True)
    (stale / "hoodie.properties").write_text("hoodie.table.version=8\n")
    (path / ".hoodie" / "metadata" / "junk").write_text("x")
    t.upsert(rows([1000], 6), ON)
    model["k1000"] = 6 * 1000 + 1000
    assert not (path / ".hoodie" / "metadata" / "junk").exists()
    check(path)
    assert read(path) == model


def test_refused_while_a_write_is_pending(tmp_path):
    """A pending write would complete without updating the new metadata table: refused, naming
    it, and nothing is built."""
    path = tmp_path / "t"
    t, model = without_mdt(path, "mor", "8")
    w = t.upsert(rows([7], 9), OFF)
    tl = path / ".hoodie" / "timeline"
    done = [n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")]
    os.remove(tl / done[0])
    never = {"hoodie.cleaner.policy.failed.writes": "NEVER"}
    with pytest.raises(HudiConflictError, match=f"instant {w.requested_time} .* is pending"):
        t.upsert(rows([8], 9), {**ON, **never})
    assert not (path / ".hoodie" / "metadata").exists()
    assert props(path)["hoodie.table.metadata.partitions"] == ""
    # Rolled back by the next write (the default policy), the bootstrap goes ahead.
    t.upsert(rows([8], 9), ON)
    model["k0008"] = 9 * 1000 + 8
    check(path)
    assert read(path) == model


def test_version_6_is_refused(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region",
                         record_index_enabled=False, hudi_options={"hoodie.write.table.version": "6"})
    t.append(rows(range(10), 1))
    with pytest.raises(HudiUnsupportedError, match="versions 8 and 9 only"):
        t.upsert(rows([1], 2), ON)
    assert not (path / ".hoodie" / "metadata").exists()


def test_restore_to_a_savepoint_before_the_bootstrap_rebuilds_it(tmp_path):
    """The bootstrap's records hold the writes after the savepoint, which no metadata-table
    rollback can take out: the restore drops the metadata table first and builds it again after
    (metadata_table_rebuilt), as Hudi drops it and its next write rebuilds it."""
    path = tmp_path / "t"
    t, model = without_mdt(path, "mor", "9")
    sp = t.upsert(rows(range(10, 20), 7), OFF)
    model.update({f"k{i:04d}": 7 * 1000 + i for i in range(10, 20)})
    t.savepoint(sp.requested_time)
    at_savepoint = dict(model)
    t.upsert(rows(range(600, 620), 8), OFF)
    t.upsert(rows(range(15, 25), 9), ON)  # built here, with the writes after the savepoint
    t.delete_keys(["k0050"])
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    check_savepointed(path)
    assert read(path) == at_savepoint
    assert read(path, listing=True) == at_savepoint
    r = HudiTable(str(path)).upsert(rows([600, 11], 10))  # k0600 is gone: an insert again
    assert (r.num_updates, r.num_inserts) == (1, 1)
    check_savepointed(path)


def test_restore_after_the_bootstrap_keeps_it(tmp_path):
    path = tmp_path / "t"
    t, model = without_mdt(path, "cow", "8")
    sp = t.upsert(rows(range(10, 20), 7), ON)
    t.savepoint(sp.requested_time)
    model.update({f"k{i:04d}": 7 * 1000 + i for i in range(10, 20)})
    at_savepoint = dict(model)
    t.upsert(rows(range(600, 620), 8))
    r = t.restore(sp.requested_time)
    assert not r.metadata_table_rebuilt
    check_savepointed(path)
    assert read(path) == at_savepoint


def test_restore_past_a_cleaned_metadata_compaction_rebuilds_it(tmp_path):
    """Compacted and then cleaned after the savepoint, the metadata table no longer has the log
    files a rollback of its compaction would need (hudi-c refused such a restore before it could
    build a metadata table): dropped and built again."""
    path = tmp_path / "t"
    opts = {"hoodie.metadata.compact.max.delta.commits": "2", "hoodie.clean.policy": "KEEP_LATEST_FILE_VERSIONS",
            "hoodie.clean.fileversions.retained": "1"}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region",
                         table_type="mor", hudi_options=opts)
    t.append(rows(range(100), 1))
    sp = t.upsert(rows(range(50, 60), 2))
    t.savepoint(sp.requested_time)
    model = {f"k{i:04d}": 1000 + i for i in range(100)}
    model.update({f"k{i:04d}": 2000 + i for i in range(50, 60)})
    at_savepoint = dict(model)
    for v in range(3, 12):
        t.upsert(rows(range(v * 10, v * 10 + 5), v))
        model.update({f"k{i:04d}": v * 1000 + i for i in range(v * 10, v * 10 + 5)})
    mdt_tl = os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
    assert any(n.endswith(".commit") for n in mdt_tl) and any(n.endswith(".clean") for n in mdt_tl), mdt_tl
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    check_savepointed(path)
    assert read(path) == at_savepoint
    assert read(path, listing=True) == at_savepoint


# ---- found by a review: other handles, the handle's read options, background compaction ----

def test_handles_opened_before_the_bootstrap_keep_it_current(tmp_path):
    """Every write re-reads the metadata partitions under the lock: a handle opened before
    another built the metadata table updates it (before, its write left the table's files out of
    the metadata table), and a stale handle's own request does not build it a second time."""
    path = tmp_path / "t"
    t, model = without_mdt(path, "cow", "8")
    a, b = HudiTable(str(path)), HudiTable(str(path))
    b.upsert(rows([700], 3), ON)
    model["k0700"] = 3700
    init = sorted(n for n in os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
                  if n.startswith("00000000000000") and "_" in n)
    up = rows(range(710, 730), 4)
    a.append(up)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    a.upsert(rows([711], 5), ON)  # already built: nothing rebuilt
    model["k0711"] = 5711
    assert sorted(n for n in os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
                  if n.startswith("00000000000000") and "_" in n) == init
    check(path)
    assert read(path) == model
    assert read(path, listing=True) == model


@pytest.mark.parametrize("open_opts", ["as_of", "read_optimized"])
def test_built_from_the_latest_snapshot_whatever_the_handle_reads(tmp_path, open_opts):
    path = tmp_path / "t"
    t, model = without_mdt(path, "mor", "8")
    first = sorted(n.split(".")[0].split("_")[0] for n in os.listdir(path / ".hoodie" / "timeline")
                   if n.endswith(".commit") or n.endswith(".deltacommit"))[0]
    opts = ({"hoodie.read.as.of.timestamp": first} if open_opts == "as_of"
            else {"hoodie.read.use.read_optimized.mode": "true"})
    HudiTable(str(path), opts).upsert(rows([800], 6), ON)
    model["k0800"] = 6800
    check(path)
    assert read(path) == model


def test_a_background_compaction_running_through_the_bootstrap_records_its_files(tmp_path):
    """A compaction planned before the bootstrap and finished after it (this handle's background
    thread) commits into the new metadata table."""
    path = tmp_path / "t"
    t, model = without_mdt(path, "mor", "8")
    background = {"hoodie.datasource.compaction.async.enable": "true",
                  "hoodie.compact.inline.max.delta.commits": "1", "hoodie.compact.async.test.delay.ms": "1500"}
    up = rows(range(5, 10), 3)
    t.upsert(up, {**OFF, **background})
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    up = rows(range(10, 12), 4)
    t.upsert(up, ON)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    b = HudiTable(str(path))
    up = rows(range(12, 14), 5)
    b.upsert(up)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    assert any(n.endswith(".commit") for n in os.listdir(path / ".hoodie" / "timeline"))  # compacted
    check(path)
    assert read(path) == model
    assert read(path, listing=True) == model
