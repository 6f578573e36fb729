"""hudi-c's reader as the third party: it returns the same rows as hudi-rs on every fixture table.

Snapshot, read-optimized and time travel (as of every completed write) are compared as sorted
multisets of whole rows, meta columns included. Incremental queries are not compared here: hudi-rs
0.5.0 selects commits for (start, end] by completion time with an exclusive end and then does not
re-filter base rows by commit time, so it returns, for (C1, C2], the rows of C1 (and nothing for
(-, C1]); hudi-c returns the records written by the commits requested in (start, end] (see
tests/python/test_read.py, which pins that against the .sql recipes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixture_tables import READ_EXCLUDED, params, table_path
from oracles import Frame, row_diff

sys.path.insert(0, str(Path(__file__).resolve().parent / "workers"))
from protocol import to_json_value  # noqa: E402


def ours(path: str, read_options=None) -> Frame:
    import pyarrow as pa

    import hudi

    t = hudi.HudiTableBuilder.from_base_uri(path).build()
    o = hudi.HudiReadOptions(hudi_options=dict(read_options or {}))
    batches = t.read(o)
    schema = batches[0].schema if batches else t.get_schema_with_meta_fields()
    table = pa.Table.from_batches(batches, schema=schema)
    rows = table.to_pylist(maps_as_pydicts="strict")
    return Frame(columns=list(table.schema.names), types=[str(f.type) for f in table.schema],
                 rows=[to_json_value(r) for r in rows])


def _writes(path: str):
    import hudi

    tl = hudi.HudiTableBuilder.from_base_uri(path).build().get_timeline()
    return sorted(i.timestamp for i in tl.get_completed_commits() + tl.get_completed_deltacommits()
                  + tl.get_completed_replacecommits())


@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_hudic_snapshot_equals_hudirs(table, hudirs):
    path = table_path(table)
    mine, theirs = ours(path), hudirs.read_table(path)
    a, b = mine.canonical(exclude=()), theirs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("hudi-c", "hudi-rs"))


@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_hudic_read_optimized_equals_hudirs(table, hudirs):
    path = table_path(table)
    opts = {"hoodie.read.use.read_optimized.mode": "true"}
    a = ours(path, opts).canonical(exclude=())
    b = hudirs.read_table(path, read_options=opts).canonical(exclude=())
    assert a == b, row_diff(a, b, ("hudi-c", "hudi-rs"))


@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_hudic_time_travel_equals_hudirs(table, hudirs):
    path = table_path(table)
    for ts in _writes(path):
        opts = {"hoodie.read.as.of.timestamp": ts}
        a = ours(path, opts).canonical(exclude=())
        b = hudirs.read_table(path, read_options=opts).canonical(exclude=())
        assert a == b, f"as of {ts}: " + row_diff(a, b, ("hudi-c", "hudi-rs"))
