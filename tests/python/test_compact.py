"""Compaction of MERGE_ON_READ tables: HudiTable.compact and inline compaction.

Oracles: the table's snapshot read before the compaction (every column but
_hoodie_file_name must read the same after it, and a read-optimized read must
then equal it); pyarrow reading the new base files directly; fastavro decoding
the plan (compared with the plan Spark wrote in fixture v8_trips_8i3u1d: same
embedded schema, same fields) and the completed commit; the conformance checker
../shared/tools/hudi_check.py; Spark-written fixture tables compacted by us.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiInvalidInputError, HudiTable
from hudi.read import HudiReadOptions
from hudi_fixtures import FIXTURES, table_path

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
RO = HudiReadOptions(hudi_options={"hoodie.read.use.read_optimized.mode": "true"})


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def rows(path, options=None, drop_file_name=True) -> list[dict]:
    batches = HudiTable(str(path)).read(options)
    if not batches:
        return []
    out = pa.Table.from_batches(batches).to_pylist()
    if drop_file_name:
        for r in out:
            r.pop("_hoodie_file_name", None)
    return sorted(out, key=lambda r: (r["_hoodie_partition_path"], r["_hoodie_record_key"]))


def data(ids, ts, parts, vals) -> pa.Table:
    return pa.table({
        "id": pa.array(ids, pa.string()),
        "ts": pa.array(ts, pa.int64()),
        "p": pa.array(parts, pa.string()),
        "v": pa.array(vals, pa.int32()),
        "tags": pa.array([[f"t{x}"] for x in vals], pa.list_(pa.string())),
    })


def avro_record(path) -> tuple[dict, dict]:
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        recs = list(r)
        assert len(recs) == 1
        return recs[0], r.writer_schema


def timeline(path) -> list[str]:
    return sorted(os.listdir(Path(path) / ".hoodie" / "timeline"))


def build(path, partitioned: bool, rli: bool) -> HudiTable:
    part = "p" if partitioned else None
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields=part, table_type="mor",
                         record_index_enabled=rli)
    ids = [f"k{i:02d}" for i in range(40)]
    t.append(data(ids, [10] * 40, ["a" if i % 2 else "b" for i in range(40)], list(range(40))),
             {"hoodie.parquet.max.file.size": "4000"})
    # updates (one stale), inserts, deletes: logs on several file groups
    t.upsert(data(["k01", "k02", "k03", "k10", "new1"], [11, 12, 5, 13, 1], ["a", "b", "a", "b", "a"],
                  [101, 102, 103, 110, 200]))
    t.delete_keys(["k04", "k05", "k21"])
    t.upsert(data(["k01", "k30"], [20, 30], ["a", "b"], [1001, 1030]))
    return t


@pytest.mark.parametrize("rli", [False, True])
@pytest.mark.parametrize("partitioned", [True, False])
def test_compact_keeps_rows(tmp_path, partitioned, rli):
    path = tmp_path / "t"
    build(path, partitioned, rli)
    before = rows(path)
    assert rows(path, RO) != before  # the logs hold changes
    logs_before = glob.glob(str(path / "**" / ".*.log.*"), recursive=True)
    assert logs_before

    r = HudiTable(str(path)).compact()
    assert r.num_file_groups >= 1 and r.files_written == r.num_file_groups
    assert r.num_log_files == len(logs_before)
    assert r.completion_time > r.requested_time
    assert r.bytes_written > 0
    C = r.requested_time

    after = rows(path)
    assert after == before
    assert rows(path, RO) == before
    names = timeline(path)
    assert f"{C}.compaction.requested" in names and f"{C}.compaction.inflight" in names
    assert f"{C}_{r.completion_time}.commit" in names
    assert os.path.getsize(path / ".hoodie" / "timeline" / f"{C}.compaction.inflight") == 0
    assert not (path / ".hoodie" / ".temp" / C).exists()
    inst = [i for i in HudiTable(str(path)).get_timeline().instants if i.timestamp == C][0]
    assert inst.action == "commit" and inst.requested_action == "compaction" and inst.state == "COMPLETED"
    assert inst.completion_timestamp == r.completion_time

    # The plan: one operation per compacted group, as Spark lays it out.
    plan, plan_schema = avro_record(path / ".hoodie" / "timeline" / f"{C}.compaction.requested")
    spark = table_path("quickstart_trips_table/mor/avro/v8_trips_8i3u1d")
    spark_plan, spark_schema = avro_record(
        Path(spark) / ".hoodie" / "timeline" / "20251220210129235.compaction.requested")
    assert plan_schema == spark_schema
    assert set(plan) == set(spark_plan)
    assert plan["version"] == 2 and plan["strategy"] is None and plan["missingSchedulePartitions"] == []
    assert len(plan["operations"]) == r.num_file_groups
    assert sum(len(op["deltaFilePaths"]) for op in plan["operations"]) == r.num_log_files
    for op in plan["operations"]:
        assert list(op["metrics"]) == list(spark_plan["operations"][0]["metrics"])
        assert op["metrics"]["TOTAL_LOG_FILES"] == len(op["deltaFilePaths"])
        sizes = sum(os.path.getsize(path / op["partitionPath"] / f) for f in op["deltaFilePaths"])
        assert op["metrics"]["TOTAL_LOG_FILES_SIZE"] == sizes
        assert op["dataFilePath"].startswith(op["fileId"] + "_")
        assert op["dataFilePath"].endswith(f"_{op['baseInstantTime']}.parquet")

    # The commit: COMPACT, compacted, one stat per new base file.
    commit, commit_schema = avro_record(path / ".hoodie" / "timeline" / f"{C}_{r.completion_time}.commit")
    assert commit["operationType"] == "COMPACT" and commit["compacted"] is True
    assert commit["extraMetadata"]["schema"]
    stats = [s for ss in commit["partitionToWriteStats"].values() for s in ss]
    assert len(stats) == r.num_file_groups
    ops = {op["fileId"]: op for op in plan["operations"]}
    snapshot_by_file = {}
    for row in rows(path, drop_file_name=False):
        snapshot_by_file.setdefault(row["_hoodie_file_name"], []).append(row)
    for s in stats:
        op = ops[s["fileId"]]
        assert s["prevCommit"] == op["baseInstantTime"]
        assert s["prevBaseFile"] == op["dataFilePath"]
        assert s["totalLogFilesCompacted"] == len(op["deltaFilePaths"])
        assert s["path"].endswith(f"_{C}.parquet")
        f = path / s["path"]
        assert s["fileSizeInBytes"] == s["totalWriteBytes"] == os.path.getsize(f)
        got = pq.read_table(f).to_pylist()
        assert s["numWrites"] == len(got)
        assert s["numInserts"] + s["numUpdateWrites"] == s["numWrites"]
        name = os.path.basename(s["path"])
        assert {r["_hoodie_file_name"] for r in got} <= {name}
        assert sorted(got, key=lambda r: r["_hoodie_record_key"]) == \
            sorted(snapshot_by_file.get(name, []), key=lambda r: r["_hoodie_record_key"])
    assert sum(s["numDeletes"] for s in stats) == 3  # k04, k05, k21
    check(path)

    # Nothing left; then writes go on and the next compaction takes their logs.
    assert HudiTable(str(path)).compact().requested_time == ""
    HudiTable(str(path)).upsert(data(["k02"], [50], ["b"], [5002]))
    again = HudiTable(str(path)).compact()
    assert again.num_file_groups == 1 and again.num_log_files == 1
    got = {r["id"]: r["v"] for r in rows(path)}
    assert got["k02"] == 5002 and got["k01"] == 1001 and "k04" not in got
    check(path)


def test_cow_refused(tmp_path):
    t = HudiTable.create(str(tmp_path / "c"), "id", ordering_fields="ts", table_type="cow")
    t.append(data(["a"], [1], ["x"], [1]))
    with pytest.raises(HudiInvalidInputError, match="COPY_ON_WRITE"):
        t.compact()


def test_inline_compaction_after_five_deltacommits(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    inline = {"hoodie.compact.inline": "true"}
    t.append(data([f"k{i}" for i in range(10)], [1] * 10, ["a"] * 5 + ["b"] * 5, list(range(10))), inline)
    expected = {f"k{i}": i for i in range(10)}

    def compactions():
        return [n for n in timeline(path) if n.endswith(".compaction.requested")]

    for n in range(1, 4):  # deltacommits 2..4: the append was the first
        t.upsert(data([f"k{n}"], [10 + n], ["a" if n < 5 else "b"], [100 + n]), inline)
        expected[f"k{n}"] = 100 + n
        assert compactions() == [], n
    # the 5th deltacommit since the table began -> compaction after it
    t.upsert(data(["k7"], [20], ["b"], [700]), inline)
    expected["k7"] = 700
    assert len(compactions()) == 1
    assert {r["id"]: r["v"] for r in rows(path)} == expected
    assert rows(path, RO) == rows(path)
    # counting starts again after the compaction
    t.upsert(data(["k8"], [20], ["b"], [800]), inline)
    expected["k8"] = 800
    assert len(compactions()) == 1
    # without the option, never
    for n in range(6):
        t.upsert(data(["k9"], [30 + n], ["b"], [900 + n]))
    assert len(compactions()) == 1
    # max.delta.commits lowered: the next deltacommit compacts
    t.upsert(data(["k0"], [40], ["a"], [1000]), {**inline, "hoodie.compact.inline.max.delta.commits": "2"})
    expected["k0"], expected["k9"] = 1000, 905
    assert len(compactions()) == 2
    assert {r["id"]: r["v"] for r in rows(path)} == expected
    check(path)


SPARK_MOR = {"sample_table/mor/avro/v9_txns_simple_nometa": "20260307135839895",
             "sample_table/mor/avro/v9_txns_nonpart_nometa": "20260307135936824"}


def truncate_before(path: Path, c: str, keep_plan: bool) -> None:
    """The table as it was when Spark had requested compaction c: every instant from c on
    removed (c's plan kept when keep_plan), with the files those instants wrote."""
    tl = path / ".hoodie" / "timeline"
    for name in os.listdir(tl):
        t = name.split(".")[0].split("_")[0]
        if not t.isdigit() or t < c:
            continue
        if keep_plan and name == f"{c}.compaction.requested":
            continue
        os.remove(tl / name)
    for f in glob.glob(str(path / "**" / "*"), recursive=True) + glob.glob(str(path / "**" / ".*"), recursive=True):
        name = os.path.basename(f)
        if ".hoodie" in Path(f).relative_to(path).parts or not os.path.isfile(f):
            continue
        if name.endswith(".parquet"):
            instant = name.rsplit("_", 1)[1].split(".")[0]
        elif ".log." in name:
            instant = name.split(".log.")[0].rsplit("_", 1)[1]
        else:
            continue
        if instant >= c:
            os.remove(f)


@pytest.mark.parametrize("keep_plan", [True, False])
@pytest.mark.parametrize("fixture", sorted(SPARK_MOR))
def test_compact_spark_table(tmp_path, fixture, keep_plan):
    """A Spark-written MOR table cut back to just before Spark's compaction c: we run Spark's
    plan (keep_plan) or schedule our own, and the result reads as Spark's own compacted table
    read as of c does (meta columns but the file name included)."""
    c = SPARK_MOR[fixture]
    spark_path = table_path(fixture)
    want = rows(spark_path, HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": c}))
    path = tmp_path / "t"
    shutil.copytree(spark_path, path)
    truncate_before(path, c, keep_plan)
    assert rows(path) == want
    r = HudiTable(str(path)).compact()
    assert r.num_file_groups >= 1
    if keep_plan:
        assert r.requested_time == c
        plan, _ = avro_record(path / ".hoodie" / "timeline" / f"{c}.compaction.requested")
        assert r.num_file_groups == len(plan["operations"])
    assert rows(path) == want
    assert rows(path, RO) == want
    check(path)
    # the files match Spark's compaction: same file groups, same rows per file group
    if keep_plan:
        for op in plan["operations"]:
            mine = glob.glob(str(path / op["partitionPath"] / f"{op['fileId']}_*_{c}.parquet"))
            spark_files = glob.glob(str(Path(spark_path) / op["partitionPath"] / f"{op['fileId']}_*_{c}.parquet"))
            assert len(mine) == 1 and len(spark_files) == 1
            cols = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path"]
            a = sorted(pq.read_table(mine[0], columns=cols).to_pylist(), key=lambda r: r["_hoodie_record_key"])
            b = sorted(pq.read_table(spark_files[0], columns=cols).to_pylist(), key=lambda r: r["_hoodie_record_key"])
            assert a == b
