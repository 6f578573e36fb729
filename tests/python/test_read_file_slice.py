"""Reading single file slices: HudiTable.read_file_slice(_stream) and the file-group reader.

The oracle is the table read itself: the slices' rows, read one by one, are the read's rows
(checked as multisets of whole rows), and each slice holds only its own file group's records.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hudi  # noqa: E402
from hudi import HudiQueryType, HudiReadOptions  # noqa: E402
from hudi_fixtures import table_path  # noqa: E402

TABLES = ["sample_table/mor/avro/v9_txns_simple_meta", "sample_table/cow/v9_txns_complex_meta",
          "sample_table/mor/parquet/v6_nonpartitioned", "quickstart_trips_table/mor/avro/v8_trips_8i3u1d"]


def canon(batches) -> list:
    return sorted(json.dumps(r, sort_keys=True, default=str) for b in batches for r in b.to_pylist())


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("options", [None, HudiReadOptions().with_read_optimized(),
                                     HudiReadOptions(projection=["_hoodie_record_key", "_hoodie_file_name"])])
def test_slices_add_up_to_the_read(name, options):
    t = hudi.HudiTableBuilder.from_base_uri(table_path(name)).build()
    slices = t.get_file_slices(options)
    assert slices
    got = []
    for fs in slices:
        batch = t.read_file_slice(fs, options)
        assert isinstance(batch, pa.RecordBatch)
        streamed = list(t.read_file_slice_stream(fs, options))
        assert canon(streamed) == canon([batch])
        for r in batch.to_pylist():
            if r.get("_hoodie_file_name"):
                assert r["_hoodie_file_name"].startswith(fs.file_id)
        got.append(batch)
    assert canon(got) == canon(t.read(options))


def test_file_group_reader_options_and_override():
    t = hudi.HudiTableBuilder.from_base_uri(table_path("sample_table/mor/avro/v9_txns_simple_meta")).build()
    fs = t.get_file_slices()[0]
    reader = t.create_file_group_reader_with_options(HudiReadOptions(projection=["txn_id"]))
    b = reader.read_file_slice(fs)
    assert b.schema.names == ["txn_id"]
    assert canon([b]) == canon([t.read_file_slice(fs, HudiReadOptions(projection=["txn_id"]))])
    # Call options win over the reader's.
    b2 = reader.read_file_slice(fs, HudiReadOptions(projection=["txn_id", "region"]))
    assert b2.schema.names == ["txn_id", "region"]
    assert sum(x.num_rows for x in reader.read_file_slice_stream(fs)) == b.num_rows
    with pytest.raises(hudi.HudiUnsupportedError):
        t.create_file_group_reader_with_options(None, {"aws_region": "x"})


def test_slice_not_in_the_read_is_not_found():
    t = hudi.HudiTableBuilder.from_base_uri(table_path("sample_table/mor/avro/v9_txns_simple_meta")).build()
    fs = t.get_file_slices()[0]
    other = hudi.HudiFileSlice(fs.partition_path, "no-such-file-group", fs.base_instant_time, None, [])
    with pytest.raises(hudi.HudiNotFoundError, match="no-such-file-group"):
        t.read_file_slice(other)
    # An incremental range that does not touch the group.
    first = min(i.completion_timestamp for i in t.get_timeline().get_completed_deltacommits()
                + t.get_timeline().get_completed_commits())
    inc = HudiReadOptions().with_query_type(HudiQueryType.Incremental).with_end_timestamp(first)
    touched = {(s.partition_path, s.file_id) for s in t.get_file_slices(inc)}
    untouched = [s for s in t.get_file_slices() if (s.partition_path, s.file_id) not in touched]
    if untouched:
        with pytest.raises(hudi.HudiNotFoundError):
            t.read_file_slice(untouched[0], inc)
