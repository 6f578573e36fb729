"""Incremental queries: hudi-c returns the rows Apache Hudi's Spark reader returns.

Apache Hudi 1.x semantics (spec hudi-format-core.md §7): on timeline layout 2 the range bounds are
completion times, on layout 1 requested times; the range is (begin, end]; the table is read as of end
and a row is returned when its _hoodie_commit_time is the requested time of a write completed in the
range. For every fixture table the ranges compared are (-, first], each (previous, next] between
consecutive writes, the whole history, and on layout 2 also ranges bounded by *requested* times
(which select by completion time, so they differ from a requested-time reading such as hudi-rs 0.5's).
Rows are compared whole, meta columns included, as sorted multisets.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from fixture_tables import READ_EXCLUDED, params, table_path
import hudi
from oracles import OracleError, row_diff
from test_read_hudic import ours

WRITE_ACTIONS = ("commit", "deltacommit", "replacecommit")
# Spark needs a begin; an instant earlier than any table's first write means "from the start".
BEGINNING = "000"


def _ranges(timeline: List[dict], layout2: bool) -> List[Tuple[Optional[str], Optional[str]]]:
    writes = [i for i in timeline if i["state"] == "COMPLETED" and i["action"] in WRITE_ACTIONS]
    key = "completion_time" if layout2 else "requested_time"
    bounds = sorted(i[key] for i in writes)
    out: List[Tuple[Optional[str], Optional[str]]] = [(None, None)]
    if bounds:
        out.append((None, bounds[0]))
    out += [(a, b) for a, b in zip(bounds, bounds[1:])]
    if layout2 and len(writes) >= 2:
        req = sorted(i["requested_time"] for i in writes)
        out += [(None, req[0]), (req[0], req[1]), (req[0], None)]
    return out


def _spark_incremental(spark, path: str, begin: Optional[str], end: Optional[str]):
    o = {"hoodie.datasource.query.type": "incremental",
         "hoodie.datasource.read.begin.instanttime": begin or BEGINNING}
    if end:
        o["hoodie.datasource.read.end.instanttime"] = end
    return spark.read_table(path, o)


def _ours_incremental(path: str, begin: Optional[str], end: Optional[str]):
    o = {"hoodie.read.query.type": "incremental"}
    if begin:
        o["hoodie.read.start.timestamp"] = begin
    if end:
        o["hoodie.read.end.timestamp"] = end
    return ours(path, o)


def _meta_fields_disabled(spark, path: str) -> bool:
    props = spark.table_config(path)["properties"]
    return props.get("hoodie.populate.meta.fields", "true").lower() == "false"


@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_incremental_equals_spark(table, spark):
    path = table_path(table)
    config = spark.table_config(path)
    layout2 = int(config["timeline_layout"]) >= 2
    ranges = _ranges(spark.timeline(path), layout2)
    if _meta_fields_disabled(spark, path):
        # Without _hoodie_commit_time nothing tells a range's rows apart: both refuse.
        with pytest.raises(OracleError, match="not supported when meta fields are disabled"):
            _spark_incremental(spark, path, None, None)
        with pytest.raises(hudi.HudiUnsupportedError, match="meta fields are disabled"):
            _ours_incremental(path, None, None)
        return
    for begin, end in ranges:
        theirs = _spark_incremental(spark, path, begin, end)
        mine = _ours_incremental(path, begin, end)
        a, b = mine.canonical(exclude=()), theirs.canonical(exclude=())
        assert a == b, f"({begin}, {end}]: " + row_diff(a, b, ("hudi-c", f"spark+hudi {spark.hudi_version}"))
