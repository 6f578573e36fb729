"""A metadata-table (MDT) compaction hudi-c left pending (hoodie.metadata.compact.async with its
test delay, the handle dropped during the delay: C.compaction.requested and .inflight stay, or
only .requested), with hudi-c writes committed after C was requested, is read by Spark 1.2.0
through the MDT (its merged slices: old base + old logs + newer logs), and Spark upserts into it
through the record index (RECORD_INDEX): keys whose index entries lie before C and after it are
found (updated and moved, not duplicated). hudi-c then reads Spark's result and writes on with the
async option, and ../shared/tools/hudi_check.py passes.

Oracles: a model of the rows in Python; Spark's reads; the MDT timeline files.
"""

from __future__ import annotations

import gc

import pyarrow as pa
import pytest

import hudi
from test_write_mdt_engines import check, mdt_timeline, ours, spark_rows, spark_upsert, triples

ASYNC = {"hoodie.metadata.compact.async": "true", "hoodie.metadata.compact.max.delta.commits": "4",
         "hoodie.metadata.compact.async.test.delay.ms": "600000"}


def rows(ids, regions, vs) -> pa.Table:
    return pa.table({"id": ids, "region": regions, "v": pa.array(vs, pa.int64())})


def pending(path) -> list[str]:
    names = mdt_timeline(path)
    done = {n.split("_")[0] for n in names if n.endswith(".commit")}
    return [n.split(".")[0] for n in names if n.endswith(".compaction.requested") and n.split(".")[0] not in done]


@pytest.mark.parametrize("state", ["inflight", "requested"])
def test_spark_reads_and_upserts_with_our_pending_mdt_compaction(tmp_path, spark, interop_config, state):
    path = tmp_path / f"pend_{state}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor")
    t = hudi.HudiTable(str(path), ASYNC)
    want = {}
    i = 0
    while not pending(path):
        b = rows([f"k{i * 5 + j:03d}" for j in range(5)], [["eu", "us", "apac"][j % 3] for j in range(5)],
                 [i * 5 + j for j in range(5)])
        t.upsert(b)
        want.update({r[0]: r for r in triples(b)})
        i += 1
        assert i < 8
    c = pending(path)[0]
    # Written while C is pending: k100/k101 are indexed only in logs completed after C.
    b = rows(["k100", "k101", "k000"], ["us", "eu", "eu"], [100, 101, 7])
    t.upsert(b)
    want.update({r[0]: r for r in triples(b)})
    del t
    gc.collect()  # cuts the test delay short: C stays pending
    assert pending(path) == [c]
    if state == "requested":
        (path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / f"{c}.compaction.inflight").unlink()
    expected = sorted(want.values())
    assert ours(path) == expected
    check(path)

    got = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert spark_rows(got) == expected

    # k001 (indexed before C) and k100 (after C) move region; k101 updates in place; k900 is new.
    spark_upsert(interop_config, tmp_path, path, "mor", True,
                 [["k001", "apac" if want["k001"][1] != "apac" else "us", 1001], ["k100", "apac", 1100],
                  ["k101", "eu", 1101], ["k900", "us", 900]])
    want["k001"] = ("k001", "apac" if want["k001"][1] != "apac" else "us", 1001)
    want["k100"] = ("k100", "apac", 1100)
    want["k101"] = ("k101", "eu", 1101)
    want["k900"] = ("k900", "us", 900)
    after = sorted(want.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after

    # hudi-c writes on (async, no delay): upserts routed by the index Spark left.
    t = hudi.HudiTable(str(path))
    opts = {"hoodie.metadata.compact.async": "true", "hoodie.metadata.compact.max.delta.commits": "4"}
    for k in range(5):
        b = rows([f"k{k:03d}", "k100", f"n{k}"], [want[f"k{k:03d}"][1], "apac", "us"], [2000 + k, 2100 + k, k])
        t.upsert(b, opts)
        want.update({r[0]: r for r in triples(b)})
    t.wait_services()
    final = sorted(want.values())
    assert ours(path) == final
    assert not pending(path), mdt_timeline(path)
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == final
    check(path, spark_wrote=True)
