"""Spark 1.2 completes a metadata-table (MDT) refresh compaction hudi-c left pending, whose plan has
base-only operations (no delta files), and both engines go on.

hudi-c's MDT archival, before archiving the instant that wrote a file group's latest base file,
compacts that group anew (src/table/archive.c `refresh`); a group without log files (a record-index
shard under updates only) gets an operation with an empty deltaFilePaths list and
TOTAL_LOG_FILES_SIZE 0.0, which Java's planner never writes. A crash after the plan leaves it
pending (C.compaction.requested and .inflight, no commit, no base files): here C is first completed
by hudi-c, then put back into that state (its commit and base files deleted). Java's metadata
writer runs the MDT's pending compactions at the start of its table services
(HoodieBackedTableMetadataWriter.performTableServices -> runPendingTableServicesOperations ->
runAnyPendingCompactions), during every write; so Spark's first upsert executes C.

A Hudi 1.2.0 bug this test ran into, not ours: when the first metadata-table work of a Spark JVM is
completing a pending MDT compaction, the record-index inserts of that same write, and of every
later write in that JVM, fail (java.lang.ArrayIndexOutOfBoundsException: Index 10 out of bounds for
length 7, at HoodieMetadataPayload.getInsertValue(HoodieMetadataPayload.java:448) <-
HoodieAvroRecord.prependMetaFields <- HoodieAppendHandle.bufferInsertAndUpdate), streaming MDT
writes on or off, base-only operations or not, and on a table Spark wrote alone (its own MDT
compaction put back to pending the same way). A JVM that has done one ordinary record-index upsert
first does not fail, so the Spark worker is warmed up that way here (the `warm_spark` fixture):
what is checked is how Java takes our plan, not that bug.

Oracles: the MDT files on storage (C's completed commit, written by Java, and its new base files),
C's commit metadata as Java wrote it (read with fastavro), a model of the rows, Spark's reads
(through the MDT) and its own metadata reader (HoodieBackedTableMetadata: files listing and a
record-index lookup of every key), hudi-c's reads, and ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import fastavro
import pytest

import hudi
from test_mdt_late_init_engines import (REGIONS, SMALL, both_read, checker_failures, key, listed, mdt_timeline,
                                        rows_of, spark_sees_every_key, spark_then_hudi_c)
from test_mdt_bootstrap_engines import SCHEMA, our_rows, same
from test_mixed_sequence import spark_options

COMPLETED = re.compile(r"^(\d{17})_(\d{17})\.(\w+)$")


def completed(tl: Path) -> dict:
    """requested time -> file name of the completed instants of the active MDT timeline."""
    return {m.group(1): n for n in os.listdir(tl) if (m := COMPLETED.match(n))}


def plan(tl: Path, instant: str) -> dict:
    return next(fastavro.reader(io.BytesIO((tl / f"{instant}.compaction.requested").read_bytes())))


def base_only(tl: Path, instant: str) -> list:
    """(partition, file id) of the plan's operations that read no log file."""
    return [(op["partitionPath"], op["fileId"]) for op in plan(tl, instant)["operations"] if not op["deltaFilePaths"]]


def bases_of(path: Path, instant: str) -> dict:
    """MDT partition -> the base files `instant` wrote."""
    out = {}
    for part in listed(path):
        names = sorted(n for n in os.listdir(path / ".hoodie" / "metadata" / part)
                       if n.endswith(f"_{instant}.hfile"))
        if names:
            out[part] = names
    return out


def commit_stats(tl: Path, name: str) -> list:
    rec = next(fastavro.reader(io.BytesIO((tl / name).read_bytes())))
    return [s for stats in (rec.get("partitionToWriteStats") or {}).values() for s in stats]


def java_ran(tl: Path, path: Path, c: str, ops: list) -> dict:
    """C completed on the MDT timeline with a new base file for every operation of its plan."""
    done = completed(tl)
    assert c in done and done[c].endswith(".commit"), sorted(os.listdir(tl))
    java_bases = bases_of(path, c)
    got = {(p, n.split("_")[0]) for p, ns in java_bases.items() for n in ns}
    assert got == {(op["partitionPath"], op["fileId"]) for op in ops}, (java_bases, ops)
    return java_bases


@pytest.fixture(scope="module")
def warm_spark(spark, tmp_path_factory):
    """The Spark worker after an ordinary record-index upsert of its own (see the module's
    docstring): Hudi 1.2.0 fails otherwise, on any table, Java's own included."""
    path = tmp_path_factory.mktemp("warm") / "warm"
    for mode, rows in (("overwrite", [["w0", "eu", 0, "w"]]), ("append", [["w0", "eu", 1, "w"], ["w1", "us", 1, "w"]])):
        o = spark_options(path, "mor", "upsert")
        o["hoodie.write.table.version"] = "9"
        spark.call("write", path=str(path), rows=rows, schema=SCHEMA, options=o, mode=mode)
    return spark


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_spark_completes_our_pending_base_only_mdt_refresh(tmp_path, warm_spark, table_type):
    spark = warm_spark
    path = tmp_path / f"refresh_{table_type}"
    hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                          hudi_options={"hoodie.write.table.version": "9",
                                        "hoodie.datasource.write.hive_style_partitioning": "true",
                                        "hoodie.table.timeline.timezone": "UTC"})
    tl = mdt_timeline(path)
    model = {}

    def hudi_c(rows: list):
        r = hudi.HudiTable(str(path)).upsert(rows_of(rows), SMALL)
        model.update({x[0]: tuple(x[1:]) for x in rows})
        return r

    def spark_upsert(rows: list) -> None:
        o = spark_options(path, table_type, "upsert")
        o["hoodie.write.table.version"] = "9"
        start = spark.log_path.stat().st_size
        spark.call("write", path=str(path), rows=rows, schema=SCHEMA, options=o)
        model.update({x[0]: tuple(x[1:]) for x in rows})
        # Java only logs a failing MDT table service (hoodie.metadata.write.fail.on.table.service.failures
        # is off by default): its log says whether running C failed.
        with open(spark.log_path, "rb") as f:
            f.seek(start)
            log = f.read().decode(errors="replace")
        assert "Exception in running table services on metadata table" not in log, log[-6000:]

    # 1. hudi-c: 40 keys, 6 new keys, then updates only until a write completes a refresh with
    # base-only record-index operations (C); stop there.
    assert hudi_c([key(i) + [i, "w0"] for i in range(40)]).num_inserts == 40
    assert hudi_c([[f"n{i:03d}", REGIONS[i % 2], i, "w1"] for i in range(6)]).num_inserts == 6
    c = None
    for w in range(2, 30):
        before = set(completed(tl))
        r = hudi_c([key((w * 2 + i) % 40) + [w * 100 + i, f"w{w}"] for i in range(3)])
        assert (r.num_updates, r.num_inserts) == (3, 0)
        refreshes = [t for t, n in completed(tl).items()
                     if t not in before and n.endswith(".commit") and any(p == "record_index" for p, _ in base_only(tl, t))]
        if refreshes:
            c = max(refreshes)
            break
    assert c, "no refresh compaction with base-only operations"
    ops = plan(tl, c)["operations"]
    empty = base_only(tl, c)
    assert all(op["metrics"]["TOTAL_LOG_FILES_SIZE"] == 0.0 for op in ops if not op["deltaFilePaths"])
    assert max(completed(tl)) == c  # the write's last MDT instant: nothing is based on C's slices yet
    ours_bases = bases_of(path, c)
    assert sorted((p, n.split("_")[0]) for p, ns in ours_bases.items() for n in ns) == \
        sorted((op["partitionPath"], op["fileId"]) for op in ops)

    # 2. C as a crash after its plan leaves it: requested and inflight, no commit, no base files.
    (tl / completed(tl)[c]).unlink()
    for part, names in ours_bases.items():
        for n in names:
            (path / ".hoodie" / "metadata" / part / n).unlink()
    assert (tl / f"{c}.compaction.requested").exists() and (tl / f"{c}.compaction.inflight").exists()
    want = sorted((k, *v) for k, v in model.items())
    same(our_rows(path), want, "hudi-c (C pending)")

    # 3. Spark upserts through the record index (keys from before, new keys): its metadata writer
    # runs the pending compaction C, base-only operations included.
    spark_upsert([key(i) + [5000 + i, "spark1"] for i in (1, 10, 17, 24, 33)]
                 + [[f"s{i:03d}", REGIONS[i % 2], 5100 + i, "spark1"] for i in range(3)])
    java_bases = java_ran(tl, path, c, ops)
    got = {(p, n.split("_")[0]) for p, ns in java_bases.items() for n in ns}
    stats = {(s["partitionPath"], s["fileId"]): s for s in commit_stats(tl, completed(tl)[c])}
    assert set(stats) == got
    for g in empty:  # a base-only operation: every record of the old base rewritten, no log read
        s = stats[g]
        assert s["totalLogFilesCompacted"] == 0 and s["numWrites"] > 0, s
        assert s["path"].split("/")[-1] in java_bases[g[0]], s
    both_read(spark, path, model)
    spark_sees_every_key(spark, path, model)

    # 4. Spark again, existing keys only, spread over the shards (tagged, not inserted twice);
    # then hudi-c writes on, its archival reaching C and Java's instants.
    spark_then_hudi_c(spark, path, model, spark_upsert, hudi_c)
    both_read(spark, path, model)
    spark_sees_every_key(spark, path, model)
    assert checker_failures(path) == []
