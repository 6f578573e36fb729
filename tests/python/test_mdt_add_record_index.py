"""hoodie.metadata.record.index.enable=true on a table whose metadata table lacks `record_index`
(a Spark table with its default metadata table; a hudi-c table created with
record_index_enabled=false and hoodie.metadata.enable=true) adds it, as Apache Hudi's writers
initialise a partition enabled later (HoodieBackedTableMetadataWriter.initializeFromFilesystem):
the keys of every latest file slice, at the first initialisation times the metadata table has not
used, the other partitions untouched; then `record_index` is listed.

Oracles: the conformance checker ../shared/tools/hudi_check.py (metadata.record-index-keys
compares the index with the snapshot's keys, metadata.files-listing the files partition with
storage); the rows of a plain-Python model, read through the metadata table and by listing.
Spark on its own tables: tests/interop/test_mdt_bootstrap_engines.py.
"""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiConflictError, HudiError, HudiTable, HudiUnsupportedError
from test_mdt_bootstrap import check, keeps_it_current, props, read, rows
from test_savepoint_restore import check as check_savepointed

RLI = {"hoodie.metadata.record.index.enable": "true"}


def files_only(path, table_type: str, version: str, partitioned: bool = True, stats: bool = False):
    """A table whose metadata table has `files` (and with stats column_stats and partition_stats,
    as Spark 1.x builds them) but no record index, after inserts, updates and deletes."""
    opts = {"hoodie.write.table.version": version, "hoodie.metadata.enable": "true"}
    if stats:
        opts.update({"hoodie.metadata.index.column.stats.enable": "true",
                     "hoodie.metadata.index.partition.stats.enable": "true"})
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region" if partitioned else None,
                         table_type=table_type, record_index_enabled=False, hudi_options=opts)
    model = {}

    def apply(tbl):
        model.update(dict(zip(tbl.column("id").to_pylist(), tbl.column("v").to_pylist())))

    for tbl in (rows(range(300), 1, partitioned), rows(range(250, 400), 2, partitioned)):
        (t.append if not model else t.upsert)(tbl)
        apply(tbl)
    t.delete_keys([f"k{i:04d}" for i in range(30)])
    for i in range(30):
        del model[f"k{i:04d}"]
    assert "record_index" not in props(path)["hoodie.table.metadata.partitions"]
    return t, model


def init_times(path) -> list:
    tl = os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
    return sorted({n.split(".")[0].split("_")[0] for n in tl if n.startswith("00000000000000")})


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("version", ["8", "9"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "flat"])
def test_write_adds_the_record_index(tmp_path, table_type, version, partitioned):
    path = tmp_path / "t"
    t, model = files_only(path, table_type, version, partitioned)
    assert init_times(path) == ["00000000000000000"]
    up = rows(list(range(130, 150)) + list(range(500, 510)), 4, partitioned)
    r = t.upsert(up, RLI)
    assert (r.num_updates, r.num_inserts) == (20, 10)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    p = props(path)
    assert p["hoodie.table.metadata.partitions"] == "files,record_index"
    if version == "9":
        assert '"record_index"' in (path / ".hoodie" / ".index_defs" / "index.json").read_text()
    # Initialised empty at the first free time, its keys at the next.
    assert init_times(path) == ["00000000000000000", "00000000000000001", "00000000000000002"]
    out = check(path)
    assert "PASS metadata.record-index-keys" in out
    assert read(path) == model
    assert read(path, listing=True) == model

    keeps_it_current(path, model, partitioned)


def test_column_and_partition_stats_stay(tmp_path):
    """Spark 1.x's default metadata table (files, column_stats, partition_stats): the record index
    joins them, in name order, and the stats stay current."""
    path = tmp_path / "t"
    t, model = files_only(path, "mor", "9", stats=True)
    before = props(path)["hoodie.table.metadata.partitions"]
    assert before == "column_stats,files,partition_stats"
    stats_init = init_times(path)
    t.upsert(rows([40, 41, 900], 6), RLI)
    model.update({"k0040": 6040, "k0041": 6041, "k0900": 6900})
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    n = len(stats_init)
    assert init_times(path) == stats_init + [f"{n:017d}", f"{n + 1:017d}"]
    check(path)
    assert read(path) == model


def test_the_handle_option_adds_it_too(tmp_path):
    path = tmp_path / "t"
    t, model = files_only(path, "cow", "8")
    h = HudiTable(str(path), RLI)
    h.delete_keys(["k0100"])
    del model["k0100"]
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    check(path)
    assert read(path) == model


def test_without_the_option_nothing_changes(tmp_path):
    path = tmp_path / "t"
    t, model = files_only(path, "mor", "8")
    t.upsert(rows([31], 3), {"hoodie.metadata.record.index.enable": "false"})
    t.upsert(rows([32], 3))
    assert props(path)["hoodie.table.metadata.partitions"] == "files"
    assert not (path / ".hoodie" / "metadata" / "record_index").exists()
    assert init_times(path) == ["00000000000000000"]


def test_an_attempt_cut_short_is_cleared(tmp_path):
    """A crash before the listing leaves an unlisted record_index directory and pending
    initialisation instants: the next attempt deletes them and starts after them."""
    path = tmp_path / "t"
    t, model = files_only(path, "mor", "8")
    stale = path / ".hoodie" / "metadata" / "record_index"
    stale.mkdir()
    (stale / ".record-index-0000-0_00000000000000001.log.1_0-0-0").write_bytes(b"junk")
    (stale / "junk").write_bytes(b"junk")
    tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    (tl / "00000000000000001.deltacommit.requested").write_bytes(b"")
    (tl / "00000000000000001.deltacommit.inflight").write_bytes(b"")
    t.upsert(rows([33], 4), RLI)
    model["k0033"] = 4033
    assert not (stale / "junk").exists()
    assert (stale / ".record-index-0000-0_00000000000000001.log.1_0-0-0").read_bytes() != b"junk"
    assert init_times(path) == ["00000000000000000", "00000000000000001", "00000000000000002"]
    check(path)
    assert read(path) == model


def list_partitions(path, value: str) -> None:
    """hoodie.properties with another partitions list, as a crash before the listing leaves it."""
    f = path / ".hoodie" / "hoodie.properties"
    f.write_text("".join(("hoodie.table.metadata.partitions=" + value + "\n")
                         if line.startswith("hoodie.table.metadata.partitions=") else line + "\n"
                         for line in f.read_text().splitlines()))


@pytest.mark.parametrize("version", ["8", "9"])
def test_an_attempt_cut_short_after_its_commits_is_discarded(tmp_path, version):
    """A crash after both initialisation deltacommits completed, before the listing: readers and
    writes without the option ignore the unlisted partition; the next add deletes it with the
    completed instants that name its files (found by a review: before, their files were deleted
    and the instants kept, which hudi_check rejects for good)."""
    path = tmp_path / "t"
    t, model = files_only(path, "mor", version)
    t.clean(RLI)  # a table service goes through the same write start
    list_partitions(path, "files")
    assert read(path) == model
    up = rows(range(100, 140), 3)
    HudiTable(str(path)).upsert(up)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    up = rows(range(500, 505), 4)
    HudiTable(str(path)).upsert(up, RLI)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    assert init_times(path) == ["00000000000000000", "00000000000000001", "00000000000000002"]
    check(path)
    assert read(path) == model


def test_a_failed_add_leaves_nothing(tmp_path):
    """The same key in two partitions (written through the non-global bloom index) cannot go into
    a global record index: the add fails naming the key, and what it wrote goes again (found by
    a review: it stayed, unlisted, and every retry added initialisation instants)."""
    path = tmp_path / "t"
    t, model = files_only(path, "cow", "9")
    t.append(pa.table({"id": ["k0100"], "ts": pa.array([9], pa.int64()), "v": pa.array([9001], pa.int64()),
                       "region": ["zz"]}))
    before = init_times(path)
    for _ in range(2):
        with pytest.raises(HudiError, match="record key 'k0100' is written to two locations"):
            t.upsert(rows([5], 3), RLI)
        assert init_times(path) == before
        assert not (path / ".hoodie" / "metadata" / "record_index").exists()
        assert props(path)["hoodie.table.metadata.partitions"] == "files"
    check(path)


def test_a_bad_option_value_is_refused(tmp_path):
    path = tmp_path / "t"
    t, model = files_only(path, "cow", "8")
    with pytest.raises(HudiError, match="must be true or false, not 'yes'"):
        t.upsert(rows([5], 3), {"hoodie.metadata.record.index.enable": "yes"})
    assert props(path)["hoodie.table.metadata.partitions"] == "files"


LOCAL_ZONE = textwrap.dedent("""
    import datetime, os, sys
    from pathlib import Path
    from hudi import HudiTable
    sys.path.insert(0, sys.argv[2])
    from test_mdt_bootstrap import rows
    path = Path(sys.argv[1])
    HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type="mor",
                     record_index_enabled=False, hudi_options={"hoodie.metadata.enable": "true"})
    # hudi-c creates UTC tables only: the zone and the create's completion time made LOCAL, as a
    # table Spark created in this zone has them.
    props = path / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text().replace("hoodie.table.timeline.timezone=UTC",
                                               "hoodie.table.timeline.timezone=LOCAL"))
    tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    for n in os.listdir(tl):
        if n.startswith("00000000000000000_"):
            now = datetime.datetime.now().strftime("%Y%m%d%H%M%S") + "000"
            os.rename(tl / n, tl / ("00000000000000000_" + now + ".deltacommit"))
    t = HudiTable(str(path))
    t.append(rows(range(20), 1))
    t.upsert(rows([5], 3), {"hoodie.metadata.record.index.enable": "true"})
    t.upsert(rows([6], 4))
""")


def test_local_zone_times_stay_local(tmp_path):
    """On a table whose timeline is in the local zone (here 10 hours behind UTC), the
    initialisation deltacommits complete in that zone too (found by a review: the first completed
    in UTC, and every later instant was pushed past it)."""
    path = tmp_path / "t"
    env = {**os.environ, "TZ": "Etc/GMT+10"}
    r = subprocess.run([sys.executable, "-c", LOCAL_ZONE, str(path), str(Path(__file__).parent)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    utc_now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d%H%M%S")
    local_hour_ago = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=9)).strftime("%Y%m%d%H%M%S")
    for d in (path / ".hoodie" / "timeline", path / ".hoodie" / "metadata" / ".hoodie" / "timeline"):
        for n in os.listdir(d):
            if "_" in n and not n.startswith("history"):
                done = n.split(".")[0].split("_")[1][:14]
                assert done < local_hour_ago < utc_now, (d, n)  # local times, 10 hours before UTC


def test_refused_while_a_write_is_pending(tmp_path):
    path = tmp_path / "t"
    t, model = files_only(path, "mor", "9")
    w = t.upsert(rows([7], 9))
    tl = path / ".hoodie" / "timeline"
    os.remove(tl / next(n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")))
    never = {"hoodie.cleaner.policy.failed.writes": "NEVER"}
    with pytest.raises(HudiConflictError, match=f"instant {w.requested_time} .* is pending"):
        t.upsert(rows([8], 9), {**RLI, **never})
    assert props(path)["hoodie.table.metadata.partitions"] == "files"
    assert not (path / ".hoodie" / "metadata" / "record_index").exists()
    t.upsert(rows([8], 9), RLI)  # the default policy rolls the pending write back first
    model["k0008"] = 9008
    check(path)
    assert read(path) == model


def test_version_6_is_refused(tmp_path):
    """hudi-c writes no version-6 metadata table; a version-6 table asked for a record index
    says so before anything is written."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", record_index_enabled=False,
                         hudi_options={"hoodie.write.table.version": "6"})
    t.append(rows(range(10), 1, False))
    # Version 6 has no metadata table here, so the request is a bootstrap's, refused the same way.
    with pytest.raises(HudiUnsupportedError, match="versions 8 and 9 only"):
        t.upsert(rows([1], 2, False), {**RLI, "hoodie.metadata.enable": "true"})


def test_restore_to_a_savepoint_before_it_rebuilds_the_metadata_table(tmp_path):
    """The record index's initialisation records hold the writes after the savepoint, which no
    rollback of those writes takes out: the restore drops the metadata table and builds it again
    (files and record index)."""
    path = tmp_path / "t"
    t, model = files_only(path, "mor", "9")
    sp = t.upsert(rows(range(40, 50), 7))
    model.update({f"k{i:04d}": 7000 + i for i in range(40, 50)})
    t.savepoint(sp.requested_time)
    at_savepoint = dict(model)
    t.upsert(rows(range(600, 620), 8))
    t.upsert(rows(range(45, 55), 9), RLI)
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    check_savepointed(path)
    assert read(path) == at_savepoint
    r = HudiTable(str(path)).upsert(rows([600, 41], 10))  # k0600 is gone: an insert again
    assert (r.num_updates, r.num_inserts) == (1, 1)
    check_savepointed(path)


def test_restore_sees_an_archived_initialisation(tmp_path):
    """The metadata table archives its initialisation instants once the data table's first active
    commit is past them: a restore to a savepoint before the add still rebuilds (found by a
    review: it kept the added index, whose keys pointed to file groups the restore deleted)."""
    path = tmp_path / "t"
    o = {"hoodie.metadata.compact.max.delta.commits": "2"}
    t, model = files_only(path, "mor", "9")
    t = HudiTable(str(path), o)
    sp = t.upsert(rows(range(40, 50), 7))
    model.update({f"k{i:04d}": 7000 + i for i in range(40, 50)})
    t.savepoint(sp.requested_time)
    at_savepoint = dict(model)
    t.upsert(rows(range(600, 620), 8))
    t.upsert(rows(range(45, 55), 9), RLI)
    for k in range(18):
        t.upsert(rows(range(60 + k, 62 + k), 21 + k))
    assert not any(n.startswith("00000000000000")
                   for n in os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")), "not archived"
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    check_savepointed(path)
    assert read(path) == at_savepoint
    r = HudiTable(str(path)).upsert(rows([600, 41], 30))
    assert (r.num_updates, r.num_inserts) == (1, 1)
    check_savepointed(path)


def test_restore_to_a_savepoint_after_it_keeps_the_metadata_table(tmp_path):
    path = tmp_path / "t"
    t, model = files_only(path, "cow", "8")
    sp = t.upsert(rows(range(40, 50), 7), RLI)
    model.update({f"k{i:04d}": 7000 + i for i in range(40, 50)})
    t.savepoint(sp.requested_time)
    at_savepoint = dict(model)
    t.upsert(rows(range(600, 620), 8))
    r = t.restore(sp.requested_time)
    assert not r.metadata_table_rebuilt
    check_savepointed(path)
    assert read(path) == at_savepoint
