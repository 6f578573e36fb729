"""Reading fixture tables: expected rows from ../shared/fixtures/README.md and the .sql recipes."""

from __future__ import annotations

import decimal

import pyarrow as pa
import pytest

import hudi
from hudi import HudiQueryType, HudiReadOptions
from hudi_fixtures import table_path

SAMPLE_ROWS = {(1, "Alice", False), (2, "Bob", False), (3, "Carol", True), (4, "Diana", True)}
SAMPLE_TABLES = [
    "sample_table/cow/v6_nonpartitioned",
    "sample_table/cow/v6_complexkeygen_hivestyle",
    "sample_table/cow/v6_simplekeygen_nonhivestyle",
    "sample_table/cow/v6_simplekeygen_hivestyle_no_metafields",
    "sample_table/cow/v6_timebasedkeygen_nonhivestyle",
    "sample_table/cow/v8_nonpartitioned",
    "sample_table/cow/v8_simplekeygen_nonhivestyle",
    "sample_table/cow/v8_simplekeygen_hivestyle_no_metafields",
    "sample_table/mor/parquet/v6_nonpartitioned",
    "sample_table/mor/parquet/v6_complexkeygen_hivestyle",
    "sample_table/mor/parquet/v6_simplekeygen_nonhivestyle",
    "sample_table/mor/parquet/v6_simplekeygen_hivestyle_no_metafields",
]
TXNS_PARTITIONED = sorted(f"TXN-{n:03d}" for n in (1, 3, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18))
TXNS_NONPARTITIONED = sorted(f"TXN-{n:03d}" for n in (1, 3, 4, *range(6, 17)))
TXNS_TABLES = [
    ("sample_table/cow/v9_txns_simple_meta", TXNS_PARTITIONED),
    ("sample_table/cow/v9_txns_simple_nometa", TXNS_PARTITIONED),
    ("sample_table/cow/v9_txns_complex_meta", TXNS_PARTITIONED),
    ("sample_table/cow/v9_txns_complex_nometa", TXNS_PARTITIONED),
    ("sample_table/cow/v9_txns_nonpart_meta", TXNS_NONPARTITIONED),
    ("sample_table/cow/v9_txns_nonpart_nometa", TXNS_NONPARTITIONED),
    ("sample_table/mor/avro/v9_txns_simple_meta", TXNS_PARTITIONED),
    ("sample_table/mor/avro/v9_txns_simple_nometa", TXNS_PARTITIONED),
    ("sample_table/mor/avro/v9_txns_complex_nometa", TXNS_PARTITIONED),
    ("sample_table/mor/avro/v9_txns_nonpart_meta", TXNS_NONPARTITIONED),
    ("sample_table/mor/avro/v9_txns_nonpart_nometa", TXNS_NONPARTITIONED),
]


def open_table(name: str) -> hudi.HudiTable:
    return hudi.HudiTableBuilder.from_base_uri(table_path(name)).build()


def rows(batches) -> list:
    return [r for b in batches for r in b.to_pylist()]


def writes(t: hudi.HudiTable) -> list:
    tl = t.get_timeline()
    return sorted(i.timestamp for i in tl.get_completed_commits() + tl.get_completed_deltacommits()
                  + tl.get_completed_replacecommits())


@pytest.mark.parametrize("name", SAMPLE_TABLES)
def test_sample_tables_snapshot(name):
    rs = rows(open_table(name).read())
    assert len(rs) == 4
    assert {(r["id"], r["name"], r["isActive"]) for r in rs} == SAMPLE_ROWS


@pytest.mark.parametrize("name", ["sample_table/cow/v6_empty", "sample_table/cow/v8_empty",
                                  "sample_table/mor/parquet/v6_empty"])
def test_empty_tables_read_nothing(name):
    assert rows(open_table(name).read()) == []


def test_mor_read_optimized_shows_base_file_rows():
    t = open_table("sample_table/mor/parquet/v6_nonpartitioned")
    ro = rows(t.read(HudiReadOptions().with_read_optimized()))
    assert (1, "Alice", True) in {(r["id"], r["name"], r["isActive"]) for r in ro}
    assert {(r["id"], r["name"], r["isActive"]) for r in rows(t.read())} == SAMPLE_ROWS


def test_mor_rollback_blocks_hide_rolled_back_writes():
    # v6_nonpartitioned_rollback.sql: a failed update was rolled back (a rollback command block
    # in the log); the snapshot shows the rows as the last successful commit left them.
    t = open_table("sample_table/mor/parquet/v6_nonpartitioned_rollback")
    got = rows(t.read())
    commits = {r["_hoodie_commit_time"] for r in got}
    completed = set(writes(t))
    assert commits <= completed


@pytest.mark.parametrize("name,ids", TXNS_TABLES)
def test_txns_tables_snapshot(name, ids):
    rs = rows(open_table(name).read())
    assert sorted(r["txn_id"] for r in rs) == ids
    by_id = {r["txn_id"]: r for r in rs}
    assert by_id["TXN-001"]["txn_type"] == "reversal"
    assert by_id["TXN-007"]["fee_amount"] == decimal.Decimal("75.00")


@pytest.mark.parametrize("name", ["sample_table/cow/v9_txns_simple_meta", "sample_table/mor/avro/v9_txns_simple_meta"])
def test_partition_filters(name):
    t = open_table(name)
    expect = {"eu": ["TXN-011", "TXN-012", "TXN-018"], "us": ["TXN-001", "TXN-003", "TXN-013", "TXN-014", "TXN-017"],
              "apac": ["TXN-007", "TXN-008", "TXN-015", "TXN-016"]}
    for region, ids in expect.items():
        o = HudiReadOptions(filters=[("region", "=", region)])
        assert sorted(r["txn_id"] for r in rows(t.read(o))) == ids
        # Partition pruning: only that partition's file slices are planned.
        slices = t.get_file_slices(o)
        assert slices and all(s.partition_path == f"region={region}" for s in slices)
        sql = HudiReadOptions().with_sql_filter(f"region = '{region}'")
        assert sorted(r["txn_id"] for r in rows(t.read(sql))) == ids
    o = HudiReadOptions(filters=[("region", "IN", ["eu", "apac"])])
    assert sorted(r["txn_id"] for r in rows(t.read(o))) == sorted(expect["eu"] + expect["apac"])
    o = HudiReadOptions(filters=[("region", "NOT IN", "eu,apac")])
    assert sorted(r["txn_id"] for r in rows(t.read(o))) == expect["us"]


def test_row_filters_and_projection():
    t = open_table("sample_table/mor/avro/v9_txns_nonpart_meta")
    o = HudiReadOptions(filters=[("fee_amount", ">", "50")], projection=["txn_id", "fee_amount"])
    got = rows(t.read(o))
    assert got and all(r["fee_amount"] > decimal.Decimal(50) for r in got)
    assert all(list(r) == ["txn_id", "fee_amount"] for r in got)
    assert "TXN-007" in {r["txn_id"] for r in got}
    everything = rows(t.read())
    assert sorted(r["txn_id"] for r in got) == sorted(r["txn_id"] for r in everything
                                                      if r["fee_amount"] is not None and r["fee_amount"] > 50)


def test_trips_table():
    t = open_table("quickstart_trips_table/mor/avro/v8_trips_8i3u1d")
    batches = t.read()
    assert sorted(r["rider"] for r in rows(batches)) == [f"rider-{c}" for c in "ACDEGI"]
    assert len(t.get_file_slices()) == 3
    assert len(t.get_schema_with_meta_fields()) == 11
    assert t.get_schema().names == ["ts", "uuid", "rider", "driver", "fare", "city"]
    sf = rows(t.read(HudiReadOptions(filters=[("city", "=", "san_francisco")], projection=["rider", "city"])))
    assert all(r["city"] == "san_francisco" for r in sf)


def test_time_travel_to_the_first_commit():
    t = open_table("sample_table/cow/v8_nonpartitioned")
    first = writes(t)[0]
    got = rows(t.read(HudiReadOptions().with_as_of_timestamp(first)))
    assert {r["_hoodie_commit_time"] for r in got} == {first}
    assert {(r["id"], r["name"], r["isActive"]) for r in got} != SAMPLE_ROWS


@pytest.mark.parametrize("name", ["sample_table/cow/v8_nonpartitioned", "sample_table/mor/avro/v9_txns_simple_meta",
                                  "sample_table/mor/parquet/v6_nonpartitioned"])
def test_incremental_ranges_partition_the_history(name):
    """(start, end] bounds completion times (layout 2; requested times on layout 1) and returns the
    latest state, as of end, of the records written by the writes completed in the range."""
    t = open_table(name)
    tl = t.get_timeline()
    ws = sorted(tl.get_completed_commits() + tl.get_completed_deltacommits() + tl.get_completed_replacecommits(),
                key=lambda i: i.completion_timestamp or i.timestamp)
    snapshot = {r["_hoodie_record_key"]: r for r in rows(t.read())}
    prev = None
    for w in ws:
        bound = w.completion_timestamp or w.timestamp
        o = HudiReadOptions().with_query_type(HudiQueryType.Incremental).with_end_timestamp(bound)
        if prev:
            o = o.with_start_timestamp(prev)
        got = rows(t.read(o))
        assert {r["_hoodie_commit_time"] for r in got} <= {w.timestamp}
        as_of = {r["_hoodie_record_key"]: r for r in rows(t.read(HudiReadOptions().with_as_of_timestamp(w.timestamp)))}
        assert {r["_hoodie_record_key"]: r for r in got} == {
            k: r for k, r in as_of.items() if r["_hoodie_commit_time"] == w.timestamp}
        prev = bound
    # Everything up to the latest commit is the snapshot.
    full = rows(t.read(HudiReadOptions().with_query_type(HudiQueryType.Incremental)))
    assert {r["_hoodie_record_key"]: r for r in full} == snapshot


def test_incremental_bounds_are_completion_times_on_layout_2():
    """A range ending at a write's requested time does not include it (it completed later)."""
    t = open_table("sample_table/cow/v8_nonpartitioned")
    first, second = sorted(t.get_timeline().get_completed_commits(), key=lambda i: i.timestamp)
    assert first.timestamp < first.completion_timestamp < second.timestamp
    inc = HudiReadOptions().with_query_type(HudiQueryType.Incremental)
    assert rows(t.read(inc.with_end_timestamp(first.timestamp))) == []
    got = rows(t.read(inc.with_start_timestamp(first.timestamp).with_end_timestamp(second.timestamp)))
    assert {r["_hoodie_commit_time"] for r in got} == {first.timestamp}
    assert len(got) == 3


def test_incremental_needs_meta_fields():
    t = open_table("sample_table/cow/v6_simplekeygen_hivestyle_no_metafields")
    with pytest.raises(hudi.HudiUnsupportedError, match="meta fields"):
        t.read(HudiReadOptions().with_query_type(HudiQueryType.Incremental))


def test_read_stream_is_an_arrow_stream():
    t = open_table("sample_table/mor/avro/v9_txns_nonpart_meta")
    stream = t.read_stream(HudiReadOptions().with_batch_size(2))
    reader = pa.RecordBatchReader.from_stream(stream)
    table = reader.read_all()
    assert sorted(table.column("txn_id").to_pylist()) == TXNS_NONPARTITIONED
    it = t.read_stream(HudiReadOptions().with_batch_size(3))
    n = sum(b.num_rows for b in it)
    assert n == len(TXNS_NONPARTITIONED)


def test_errors_are_clear(tmp_path):
    with pytest.raises(hudi.HudiNotFoundError):
        hudi.HudiTableBuilder.from_base_uri(str(tmp_path / "nothing")).build()
    t = open_table("sample_table/cow/v9_txns_simple_meta")
    with pytest.raises(hudi.HudiInvalidInputError, match="no_such_col"):
        t.read(HudiReadOptions(filters=[("no_such_col", "=", "1")]))
    with pytest.raises(hudi.HudiInvalidInputError, match="no_such_col"):
        t.read(HudiReadOptions(projection=["no_such_col"]))
    with pytest.raises(hudi.HudiInvalidInputError, match="not-a-time"):
        t.read(HudiReadOptions().with_as_of_timestamp("not-a-time"))
    with pytest.raises(hudi.HudiInvalidInputError, match="query.type"):
        t.read(HudiReadOptions().with_hudi_option("hoodie.read.query.type", "sideways"))
    bad = tmp_path / "corrupt"
    (bad / ".hoodie").mkdir(parents=True)
    (bad / ".hoodie" / "hoodie.properties").write_text("hoodie.table.name=x\nhoodie.table.checksum=1\n")
    with pytest.raises(hudi.HudiError):
        hudi.HudiTableBuilder.from_base_uri(str(bad)).build()


@pytest.mark.parametrize("name", ["sample_table/mor/avro/v9_txns_simple_meta", "sample_table/cow/v9_txns_complex_meta",
                                  "quickstart_trips_table/mor/avro/v8_trips_8i3u1d"])
def test_parallel_read_returns_the_serial_batches_in_order(name):
    """File slices are read a few at a time on a pool; the stream's order is the serial one."""
    t = open_table(name)
    assert len(t.get_file_slices()) > 1

    def batches(par: str, size: int = 3):
        o = HudiReadOptions().with_hudi_option("hoodie.read.parallelism", par).with_batch_size(size)
        return [b.to_pylist() for b in t.read_stream(o)]

    serial = batches("1")
    assert serial and sum(len(b) for b in serial) == len(rows(t.read()))
    for par in ("2", "4", "16"):
        assert batches(par) == serial
    # Abandoning a parallel stream early waits for the slices in flight and frees them.
    it = iter(t.read_stream(HudiReadOptions().with_hudi_option("hoodie.read.parallelism", "4").with_batch_size(1)))
    next(it)
    del it
    with pytest.raises(hudi.HudiInvalidInputError, match="parallelism"):
        t.read(HudiReadOptions().with_hudi_option("hoodie.read.parallelism", "0"))
