"""hoodie.metadata.index.column.stats.enable=true on a table whose metadata table lacks
`column_stats` (hudi-c's default tables; Spark tables written with column stats off) adds it, and
on a partitioned table `partition_stats` too, as Apache Hudi's writers initialise an index
partition enabled later (HoodieBackedTableMetadataWriter.initializeFromFilesystem): each at the
next initialisation time the metadata table has not used, then the records of every file its
`files` partition lists, then the listing.

Oracles: the statistics pyarrow reads from every latest base file's footer and the ranges of
every log file's records decoded by the conformance checker (test_column_stats_create.verify,
which also runs ../shared/tools/hudi_check.py); the rows of a filtered read against pyarrow's
filter of the same rows. Spark on such a table: tests/interop/test_column_stats_create_engines.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi import HudiReadOptions, HudiTable
from test_column_stats_create import rows, verify
from test_mdt_add_record_index import init_times, list_partitions
from test_mdt_bootstrap import props
from test_mdt_column_stats import mdt_records
from test_savepoint_restore import check as check_savepointed

CS = {"hoodie.metadata.index.column.stats.enable": "true"}
KEYS = [f"k{i:03d}" for i in range(40)]


def aged(path: Path, table_type: str, version: str, partitioned: bool, **create) -> HudiTable:
    """A table without column stats after inserts into several file groups, updates and deletes."""
    t = HudiTable.create(str(path), record_key="id", ordering_fields="v", table_type=table_type,
                         partition_fields="region" if partitioned else None,
                         hudi_options={"hoodie.write.table.version": version, **create.pop("hudi_options", {})},
                         **create)
    t.append(rows(KEYS, 1), {"hoodie.parquet.max.file.size": "4000"})
    t.upsert(rows(KEYS[::3] + ["k900"], 2))
    t.delete_keys(KEYS[1:4])
    return t


def data_files(path: Path) -> set:
    return {p.name for p in path.rglob("*") if ".hoodie" not in p.parts and p.is_file()
            and (p.suffix == ".parquet" or ".log." in p.name)}


def indexed_files(path: Path) -> set:
    return {r["ColumnStatsMetadata"]["fileName"] for r in mdt_records(path, "column_stats").values()
            if not r["ColumnStatsMetadata"]["isDeleted"]}


def snapshot(path: Path, filters=None) -> list:
    batches = HudiTable(str(path)).read(HudiReadOptions(filters=filters or []))
    return sorted((k, v) for b in batches for k, v in zip(b.column("id").to_pylist(), b.column("v").to_pylist()))


@pytest.mark.parametrize("version", ["8", "9"])
@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "plain"])
def test_write_adds_column_stats(tmp_path, version, table_type, partitioned):
    path = tmp_path / "t"
    t = aged(path, table_type, version, partitioned)
    assert props(path)["hoodie.table.metadata.partitions"] == "files,record_index"
    before = data_files(path)

    t.upsert(rows(KEYS[::4], 3), CS)
    parts = "column_stats,files,partition_stats,record_index" if partitioned else "column_stats,files,record_index"
    assert props(path)["hoodie.table.metadata.partitions"] == parts
    # files 000 and record_index 001 at the create; column_stats, partition_stats, then the records
    n = 5 if partitioned else 4
    assert init_times(path) == [f"{i:017d}" for i in range(n)]
    defs = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())["indexDefinitions"]
    assert defs["column_stats"].get("version") == ("V2" if version == "9" else None)
    verify(path, partitioned)
    # Every file written before the add has its records, older slices' too (Java indexes every
    # file of its listing), and so has the adding write's own.
    assert before and before <= indexed_files(path)
    assert data_files(path) <= indexed_files(path)

    t.update("id = 'k010'", {"v": 99999})
    t.delete_keys(["k020"])
    verify(path, partitioned)
    assert snapshot(path, [("v", ">", "50000")]) == [("k010", 99999)]
    assert snapshot(path, [("id", "=", "k032")]) == [r for r in snapshot(path) if r[0] == "k032"] == [("k032", 3008)]


def test_partition_stats_switch(tmp_path):
    """partition.stats.enable=false leaves partition_stats out; =true alone adds it later."""
    path = tmp_path / "t"
    t = aged(path, "mor", "9", True)
    t.upsert(rows(KEYS[::5], 3), {**CS, "hoodie.metadata.index.partition.stats.enable": "false"})
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,record_index"
    t.upsert(rows(KEYS[::6], 4))  # the table has what the options ask: nothing is added
    assert init_times(path) == [f"{i:017d}" for i in range(4)]
    t.upsert(rows(KEYS[::7], 5), {"hoodie.metadata.index.partition.stats.enable": "true"})
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    assert init_times(path) == [f"{i:017d}" for i in range(6)]
    verify(path, True)


def test_the_handle_option_adds_them_too(tmp_path):
    path = tmp_path / "t"
    aged(path, "cow", "8", True)
    HudiTable(str(path), CS).delete_keys(["k030"])
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    verify(path, True)


def test_with_a_metadata_table_built_by_the_same_write(tmp_path):
    """hoodie.metadata.enable=true on a table without one builds files and record_index, then the
    same write adds the statistics."""
    path = tmp_path / "t"
    t = aged(path, "mor", "8", True, record_index_enabled=False, hudi_options={"hoodie.metadata.enable": "false"})
    assert not props(path).get("hoodie.table.metadata.partitions")
    t.upsert(rows(KEYS[::4], 3), {"hoodie.metadata.enable": "true", **CS})
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    verify(path, True)


def test_an_attempt_cut_short_is_discarded(tmp_path):
    """A crash after the add's deltacommits completed, before the listing: readers and writes
    without the option ignore the unlisted partitions; the next add deletes them with the
    instants that name their files, and starts again after them."""
    path = tmp_path / "t"
    t = aged(path, "mor", "9", True)
    t.clean(CS)  # a table service goes through the same write start, and writes nothing here
    assert init_times(path) == [f"{i:017d}" for i in range(5)]
    list_partitions(path, "files,record_index")
    want = snapshot(path)
    assert snapshot(path, [("v", ">", "2000")]) == [r for r in want if r[1] > 2000] != []
    HudiTable(str(path)).upsert(rows(KEYS[::5], 4))
    assert init_times(path) == [f"{i:017d}" for i in range(5)]
    HudiTable(str(path)).upsert(rows(KEYS[::6], 5), CS)
    assert props(path)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    # 002-004 (the first attempt's) deleted with their partitions; the add takes 002-004 again
    assert init_times(path) == [f"{i:017d}" for i in range(5)]
    verify(path, True)


def test_filtered_reads_equal_pyarrow(tmp_path):
    """The statistics prune files: each filtered read equals pyarrow's filter of the snapshot."""
    path = tmp_path / "t"
    t = aged(path, "cow", "9", True)
    t.upsert(rows(KEYS[::4], 3), CS)
    full = pa.Table.from_batches(HudiTable(str(path)).read(HudiReadOptions()))
    for col, op, val, expr in [("v", ">", "3000", pc.field("v") > 3000), ("n", "<", "5", pc.field("n") < 5),
                               ("id", "=", "k005", pc.field("id") == "k005"),
                               ("region", "=", "us", pc.field("region") == "us")]:
        got = pa.Table.from_batches(HudiTable(str(path)).read(HudiReadOptions(filters=[(col, op, val)])))
        assert sorted(got.column("id").to_pylist()) == sorted(full.filter(expr).column("id").to_pylist()), col


def test_a_restore_that_rebuilds_the_metadata_table_keeps_them(tmp_path):
    """A restore to a savepoint taken before the metadata table was built drops it and builds it
    again (metadata_table_rebuilt): with the column and partition statistics it listed."""
    path = tmp_path / "t"
    off = {"hoodie.metadata.enable": "false"}
    t = aged(path, "mor", "9", True, record_index_enabled=False, hudi_options=off)
    sp = t.upsert(rows(KEYS[::5], 3), off)
    t.savepoint(sp.requested_time)
    at_savepoint = snapshot(path)
    t.upsert(rows(KEYS[::4], 4), {"hoodie.metadata.enable": "true", **CS,
                                  "hoodie.metadata.index.column.stats.column.list": "v,n",
                                  "hoodie.metadata.index.column.stats.file.group.count": "3"})
    t.delete_keys(["k035"])
    parts = "column_stats,files,partition_stats,record_index"
    assert props(path)["hoodie.table.metadata.partitions"] == parts
    cols = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"]
    assert cols == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "v", "n"]
    r = t.restore(sp.requested_time)
    assert r.metadata_table_rebuilt
    assert props(path)["hoodie.table.metadata.partitions"] == parts
    assert snapshot(path) == at_savepoint
    # the columns and the file groups it had (found by a review: both went back to the defaults)
    assert json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"] == cols
    groups = {p.name.split("_")[0].lstrip(".") for p in (path / ".hoodie" / "metadata" / "column_stats").iterdir()
              if p.name.startswith((".col-stats-", "col-stats-"))}
    assert groups == {f"col-stats-{i:04d}-0" for i in range(3)}
    by_file = {}
    for rec in mdt_records(path, "column_stats").values():
        by_file.setdefault(rec["ColumnStatsMetadata"]["fileName"], set()).add(rec["ColumnStatsMetadata"]["columnName"])
    assert by_file and all(c == set(cols) for c in by_file.values()), by_file
    assert check_savepointed(path)
    assert data_files(path) <= indexed_files(path)
    t.upsert(rows(KEYS[::6], 5))
    assert check_savepointed(path)
