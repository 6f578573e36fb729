"""An index turned off in a write's options (or the handle's) is dropped, as Apache Hudi's writers
drop a metadata partition their config does not enable (HoodieTable.deleteMetadataIndexIfNecessary):
hoodie.metadata.record.index.enable=false drops `record_index`,
hoodie.metadata.index.column.stats.enable=false `column_stats` and `partition_stats`,
hoodie.metadata.index.partition.stats.enable=false `partition_stats`,
hoodie.metadata.index.bloom.filter.enable=false `bloom_filters`. The partition leaves
hoodie.table.metadata.partitions, then its directory goes; nothing else changes.

Oracles: a plain-Python model of the rows, read through the metadata table and by listing;
../shared/tools/hudi_check.py. Java deletes the directory with no instant, so the metadata
deltacommits that wrote the partition's files still name them and the checker's
metadata.timeline.write-stats fails on exactly those files; Spark's own drop gets the same verdict
(tests/interop/test_mdt_drop_index_engines.py), so that failure, and only it, is expected here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pyarrow as pa
import pytest

from hudi import HudiTable, HudiUnsupportedError
from hudi_fixtures import table_path
from test_mdt_bootstrap import CHECKER, RUN_CHECKER, props, read, rows

RLI_OFF = {"hoodie.metadata.record.index.enable": "false"}
STATS = {"hoodie.metadata.index.column.stats.enable": "true", "hoodie.metadata.index.partition.stats.enable": "true"}
DROPPED_FILE = re.compile(r"^FAIL metadata\.timeline\.write-stats: \.hoodie/metadata/\.hoodie/timeline/\S+: "
                          r"(\w+)/\S+ does not exist and no clean or rollback deleted it$")


def check_dropped(path, dropped: set) -> str:
    """The checker passes but for the files of the dropped partitions that earlier metadata
    deltacommits name (see the module's docstring)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    missed = set()
    for ln in r.stdout.splitlines():
        if ln.startswith("FAIL"):
            m = DROPPED_FILE.match(ln)
            assert m and m.group(1) in dropped, r.stdout
            missed.add(m.group(1))
    return r.stdout


def partitions(path) -> list:
    return props(path)["hoodie.table.metadata.partitions"].split(",")


def mdt_dirs(path) -> list:
    return sorted(p.name for p in (path / ".hoodie" / "metadata").iterdir() if p.name != ".hoodie")


def table(path, table_type="mor", version="9", stats=False, partitioned=True):
    opts = {"hoodie.write.table.version": version, **(STATS if stats else {})}
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region" if partitioned else None,
                         table_type=table_type, hudi_options=opts)
    first = rows(range(300), 1, partitioned)
    t.append(first)
    model = dict(zip(first.column("id").to_pylist(), first.column("v").to_pylist()))
    up = rows(range(250, 320), 2, partitioned)
    t.upsert(up)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    return t, model


def upsert(t, model, ids, v, opts=None, partitioned=True):
    up = rows(ids, v, partitioned)
    r = t.upsert(up, opts)
    model.update(dict(zip(up.column("id").to_pylist(), up.column("v").to_pylist())))
    return r


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("version", ["8", "9"])
def test_record_index_off_drops_it(tmp_path, table_type, version):
    path = tmp_path / "t"
    t, model = table(path, table_type, version)
    assert partitions(path) == ["files", "record_index"]
    r = upsert(t, model, list(range(100, 120)) + [900, 901], 3, RLI_OFF)
    assert (r.num_updates, r.num_inserts) == (20, 2)
    assert partitions(path) == ["files"]
    assert mdt_dirs(path) == ["files"]
    check_dropped(path, {"record_index"})
    assert read(path) == model and read(path, listing=True) == model
    # Later writes, no option: the footer bloom filters find the keys; nothing comes back.
    t2 = HudiTable(str(path))
    r = upsert(t2, model, [5, 6, 901, 902], 4)
    assert (r.num_updates, r.num_inserts) == (3, 1)
    assert t2.delete_keys(["k0007", "k0900", "k9999"]).num_deletes == 2
    del model["k0007"], model["k0900"]
    assert partitions(path) == ["files"] and mdt_dirs(path) == ["files"]
    check_dropped(path, {"record_index"})
    assert read(path) == model and read(path, listing=True) == model


def test_turned_on_again_it_is_rebuilt(tmp_path):
    path = tmp_path / "t"
    t, model = table(path, "mor", "9")
    upsert(t, model, [1, 2], 3, RLI_OFF)
    r = upsert(t, model, [3, 4, 950], 4, {"hoodie.metadata.record.index.enable": "true"})
    assert (r.num_updates, r.num_inserts) == (2, 1)
    assert partitions(path) == ["files", "record_index"]
    out = check_dropped(path, {"record_index"})
    assert "PASS metadata.record-index-keys" in out
    assert read(path) == model


def test_the_handle_option_drops_it_too(tmp_path):
    path = tmp_path / "t"
    _, model = table(path, "cow", "8")
    t = HudiTable(str(path), RLI_OFF)
    upsert(t, model, [10, 11], 3)
    assert partitions(path) == ["files"]
    check_dropped(path, {"record_index"})
    assert read(path) == model


def test_column_stats_off_drops_both_stats_partitions(tmp_path):
    path = tmp_path / "t"
    t, model = table(path, "cow", "9", stats=True)
    assert partitions(path) == ["column_stats", "files", "partition_stats", "record_index"]
    defs = path / ".hoodie" / ".index_defs" / "index.json"
    before = json.loads(defs.read_text())["indexDefinitions"]
    assert "column_stats" in before
    upsert(t, model, [20, 21], 3, {"hoodie.metadata.index.column.stats.enable": "false"})
    assert partitions(path) == ["files", "record_index"]
    assert mdt_dirs(path) == ["files", "record_index"]
    after = json.loads(defs.read_text())["indexDefinitions"]
    # Hudi removes the column stats' definition only (deleteColumnStatsIndexDefinition).
    assert after == {k: v for k, v in before.items() if k != "column_stats"}
    out = check_dropped(path, {"column_stats", "partition_stats"})
    assert "PASS metadata.record-index-keys" in out
    assert read(path) == model


def test_partition_stats_off_drops_it_alone(tmp_path):
    path = tmp_path / "t"
    t, model = table(path, "cow", "9", stats=True)
    upsert(t, model, [30], 3, {"hoodie.metadata.index.partition.stats.enable": "false"})
    assert partitions(path) == ["column_stats", "files", "record_index"]
    assert mdt_dirs(path) == ["column_stats", "files", "record_index"]
    check_dropped(path, {"partition_stats"})
    upsert(HudiTable(str(path)), model, [31, 32], 4)  # the column stats stay current
    check_dropped(path, {"partition_stats"})
    assert read(path) == model


def test_services_run_on_after_a_drop(tmp_path):
    """Twelve more commits (the metadata compaction, its cleaning, archival) after the drop."""
    path = tmp_path / "t"
    t, model = table(path, "mor", "8")
    upsert(t, model, [40], 3, RLI_OFF)
    for i in range(12):
        upsert(t, model, [41 + i, 60 + i], 4 + i)
    tl = (path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
    assert any(n.name.endswith(".commit") for n in tl.iterdir())  # compacted
    assert partitions(path) == ["files"] and mdt_dirs(path) == ["files"]
    check_dropped(path, {"record_index"})
    assert read(path) == model and read(path, listing=True) == model


def test_restore_past_the_drop(tmp_path):
    """A restore to a savepoint from before the drop restores the rows; the index stays dropped
    (as Java's restore leaves the partitions the table lists)."""
    path = tmp_path / "t"
    t, model = table(path, "mor", "9")
    sp = upsert(t, model, [50], 3)
    t.savepoint(sp.requested_time)
    want = dict(model)
    upsert(t, model, [51, 52], 4, RLI_OFF)
    upsert(t, model, [53], 5)
    t.restore(sp.requested_time)
    assert read(path) == want and read(path, listing=True) == want
    assert "record_index" not in partitions(path)
    r = upsert(HudiTable(str(path)), want, [51, 54], 6)
    assert (r.num_updates, r.num_inserts) == (2, 0)
    assert read(path) == want


def test_a_bad_value_is_refused_and_changes_nothing(tmp_path):
    path = tmp_path / "t"
    t, model = table(path, "mor", "9", stats=True)
    before = partitions(path)
    for key in ("hoodie.metadata.record.index.enable", "hoodie.metadata.index.column.stats.enable",
                "hoodie.metadata.index.partition.stats.enable", "hoodie.metadata.index.bloom.filter.enable"):
        with pytest.raises(Exception, match=f"{re.escape(key)} must be true or false, not 'off'"):
            t.upsert(rows([1], 9), {key: "off"})
    assert partitions(path) == before and mdt_dirs(path) == sorted(before)
    assert read(path) == model


def test_without_the_options_nothing_is_dropped(tmp_path):
    """hudi-c keeps what the table has when an option is not given (Java's record index and
    bloom filter switches default to false, so its writers drop those partitions unless told)."""
    path = tmp_path / "t"
    t, model = table(path, "cow", "9", stats=True)
    before = partitions(path)
    upsert(t, model, [1, 2], 3, {"hoodie.metadata.index.column.stats.enable": "true"})
    assert partitions(path) == before and mdt_dirs(path) == sorted(before)
    assert read(path) == model


def test_a_drop_cut_short_then_an_add(tmp_path):
    """A drop cut short between the listing and the directory's deletion leaves `record_index`
    unlisted. The metadata compaction leaves it alone (it would write files no one lists), and a
    later add deletes it without deleting the bootstrap's contents deltacommit (...002: `files`
    too), which its files name (a review found the add deleting it, the index then missing
    keys and upserts inserting them twice)."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="region", table_type="mor",
                         hudi_options={"hoodie.write.table.version": "9", "hoodie.metadata.compact.max.delta.commits": "3"})
    model = {}
    upsert(t, model, range(300), 1, {"hoodie.metadata.enable": "false"})
    upsert(t, model, [5, 6], 2, {"hoodie.metadata.enable": "true"})  # files ...000, rli ...001, keys ...002
    rd = path / ".hoodie" / "metadata" / "record_index"
    saved = tmp_path / "saved"
    shutil.copytree(rd, saved)
    upsert(t, model, [7], 3, RLI_OFF)
    shutil.copytree(saved, rd)  # the state of a crash before the directory's deletion
    stale = sorted(p.name for p in rd.iterdir())
    for v in range(4, 9):  # the metadata compaction comes due
        upsert(t, model, [v], v)
    assert any(n.name.endswith(".commit") for n in (path / ".hoodie" / "metadata" / ".hoodie" / "timeline").iterdir())
    assert sorted(p.name for p in rd.iterdir()) == stale
    tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    contents = [n.name for n in tl.iterdir() if n.name.startswith("00000000000000002")]
    r = upsert(HudiTable(str(path)), model, [8, 950], 9, {"hoodie.metadata.record.index.enable": "true"})
    assert (r.num_updates, r.num_inserts) == (1, 1)
    assert [n.name for n in tl.iterdir() if n.name.startswith("00000000000000002")] == contents
    out = check_dropped(path, {"record_index"})
    assert "PASS metadata.record-index-keys" in out
    r = upsert(HudiTable(str(path)), model, [0, 1, 2], 10)
    assert (r.num_updates, r.num_inserts) == (3, 0)
    assert read(path) == model


def test_a_switch_off_deletes_a_leftover_directory(tmp_path):
    path = tmp_path / "t"
    t, model = table(path, "cow", "8")
    rd = path / ".hoodie" / "metadata" / "record_index"
    saved = tmp_path / "saved"
    shutil.copytree(rd, saved)
    upsert(t, model, [7], 3, RLI_OFF)
    shutil.copytree(saved, rd)
    upsert(t, model, [8], 4, RLI_OFF)  # nothing listed to drop: the leftover goes
    assert not rd.exists() and partitions(path) == ["files"]
    check_dropped(path, {"record_index"})
    assert read(path) == model


@pytest.mark.parametrize("kind", ["cow", "mor/avro"])
def test_refused_while_secondary_indexes_need_it(tmp_path, kind):
    """Secondary indexes are kept through the record index: dropping it is refused before
    anything changes (a review found the drop done, then the write failing and every later one
    refused)."""
    path = tmp_path / "t"
    shutil.copytree(table_path(f"sample_table/{kind}/v9_txns_simple_meta"), path)
    before = partitions(path)
    assert "record_index" in before and any(p.startswith("secondary_index_") for p in before)
    files = sorted(str(p.relative_to(path)) for p in path.rglob("*"))
    t = HudiTable(str(path))
    one = pa.Table.from_batches(t.read()).slice(0, 1)
    one = one.drop_columns([c for c in one.column_names if c.startswith("_hoodie")])
    with pytest.raises(HudiUnsupportedError, match=r"record index, which its secondary index secondary_index_\w+ "
                                                   r"needs"):
        t.upsert(one, RLI_OFF)
    assert partitions(path) == before
    assert sorted(str(p.relative_to(path)) for p in path.rglob("*")) == files
