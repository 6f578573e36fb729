"""Tables hudi-c creates with its metadata table (MDT) and record-level index (the default) and
appends to are read by Spark 1.2.0 through the MDT (hoodie.metadata.enable=true), and Spark
upserts into them through hudi-c's record index (hoodie.index.type=RECORD_INDEX).

That Spark used our index and did not rebuild it: the MDT timeline gains no initialisation
instant (a 20-digit "<T>010"-style or "0000..." time) and no new record_index file group;
Spark's deltacommit updates the existing record_index shards; a record whose region changes
moves instead of being duplicated (only a global index lookup can find it). hudi-c then reads
Spark's result, appends to it (keeping the MDT Spark updated current), and
../shared/tools/hudi_check.py passes with its metadata checks.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def check(path: Path, spark_wrote: bool = False) -> str:
    """hudi_check.py passes. After a Spark write, the only failures allowed are the checker
    rejecting the .crc checksum files Hadoop's local file system leaves beside timeline files."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    crc = [ln for ln in fails if ln.endswith(".crc: not a layout-2 timeline file name")]
    if not (spark_wrote and fails and fails == crc):
        assert r.returncode == 0, r.stdout + r.stderr
    for name in ("metadata.files-listing", "metadata.record-index", "metadata.record-index-keys"):
        assert f"PASS {name}:" in r.stdout, r.stdout
    return r.stdout


def batch(start: int, n: int) -> pa.Table:
    ids = range(start, start + n)
    return pa.table({"id": [f"k{i:03d}" for i in ids], "region": [["eu", "us", "apac"][i % 3] for i in ids],
                     "v": pa.array(list(ids), pa.int64())})


def triples(t: pa.Table) -> list[tuple]:
    return sorted(zip(t.column("id").to_pylist(), t.column("region").to_pylist(), t.column("v").to_pylist()))


def ours(path: Path) -> list[tuple]:
    return triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read()))


def spark_rows(frame) -> list[tuple]:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted((v(r["id"]), v(r["region"]), v(r["v"])) for r in frame.rows)


def mdt_timeline(path: Path) -> list[str]:
    return sorted(f for f in os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
                  if not f.startswith("."))  # Hadoop's .crc files


def mdt_file_groups(path: Path, partition: str) -> set[str]:
    names = os.listdir(path / ".hoodie" / "metadata" / partition)
    out = set()
    for n in names:
        if n.endswith(".hfile"):
            out.add(n.split("_")[0])
        elif n.startswith(".") and ".log." in n and not n.endswith(".crc"):
            out.add(n[1:].split("_")[0])
    return out


def write_stat_partitions(path: Path, completed: str) -> set[str]:
    data = (path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / completed).read_bytes()
    rec = next(fastavro.reader(io.BytesIO(data)))
    return set((rec.get("partitionToWriteStats") or {}).keys())


def spark_upsert(interop_config, tmp_path: Path, path: Path, table_type: str, partitioned: bool, rows,
                 options: dict | None = None, must_succeed: bool = True) -> subprocess.CompletedProcess:
    argv = [interop_config["SPARK_PYTHON"], str(HERE / "spark_rli_upsert.py"), interop_config["HUDI_JAR"],
            str(tmp_path / "spark-work"), str(path), table_type, "region" if partitioned else "",
            json.dumps(rows)]
    if options:
        argv += ["RECORD_INDEX", json.dumps(options)]
    r = subprocess.run(argv, env=interop_config.worker_env(), capture_output=True, text=True, timeout=900)
    if must_succeed:
        assert r.returncode == 0 and '{"ok": true}' in r.stdout, r.stdout[-3000:] + r.stderr[-6000:]
    return r


@pytest.mark.parametrize("table_type,partitioned", [("cow", True), ("mor", False)])
def test_spark_reads_and_upserts_through_our_record_index(tmp_path, spark, interop_config, table_type,
                                                           partitioned):
    path = tmp_path / f"rli_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region" if partitioned else None,
                              table_type=table_type)
    assert t.properties()["hoodie.table.metadata.partitions"] == "files,record_index"
    t.append(batch(0, 12))
    t.append(batch(12, 9))
    check(path)
    expected = triples(pa.concat_tables([batch(0, 12), batch(12, 9)]))
    assert ours(path) == expected

    # Spark lists the files through our `files` partition.
    got = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert spark_rows(got) == expected

    # Spark upserts through our record index: k004 updated in place, k005 moves from apac
    # to eu (a global lookup finds it), k999 is new.
    before_timeline = mdt_timeline(path)
    before_groups = mdt_file_groups(path, "record_index")
    assert len(before_groups) == 10
    spark_upsert(interop_config, tmp_path, path, table_type, partitioned,
                 [["k004", "us", 1004], ["k005", "eu", 1005], ["k999", "us", 999]])
    new = [f for f in mdt_timeline(path) if f not in before_timeline]
    assert new, "Spark wrote nothing to the metadata table"
    for f in new:
        instant = f.split(".")[0].split("_")[0]
        assert len(instant) == 17 and not instant.startswith("00000000000000"), f"index re-initialised: {new}"
    assert mdt_file_groups(path, "record_index") == before_groups
    done = [f for f in new if f.endswith(".deltacommit") and "_" in f]
    assert any("record_index" in write_stat_partitions(path, f) for f in done), new
    assert t.properties() is not None
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.metadata.partitions=files,record_index\n" in props
    assert "hoodie.table.version=8\n" in props

    after = {r[0]: r for r in expected}
    after["k004"] = ("k004", "us", 1004)
    after["k005"] = ("k005", "eu", 1005)
    after["k999"] = ("k999", "us", 999)
    after = sorted(after.values())
    assert ours(path) == after  # our reader reads Spark's result
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    check(path, spark_wrote=True)

    # And hudi-c appends on top of Spark's MDT updates.
    hudi.HudiTable(str(path)).append(batch(100, 5))
    after = sorted(after + triples(batch(100, 5)))
    assert ours(path) == after
    check(path, spark_wrote=True)
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after


@pytest.mark.parametrize("table_type,partitioned", [("cow", True), ("mor", False)])
def test_spark_reads_after_our_keyed_writes(tmp_path, spark, interop_config, table_type, partitioned):
    """hudi-c's upsert (with a partition move), delete_keys, delete, update and overwrite keep the
    MDT current; Spark lists the files through it and reads the rows our model expects."""
    path = tmp_path / f"verbs_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region" if partitioned else None,
                              table_type=table_type)
    assert t.properties()["hoodie.table.metadata.partitions"] == "files,record_index"
    t.append(batch(0, 15))
    want = {r[0]: r for r in triples(batch(0, 15))}
    upd = pa.table({"id": ["k001", "k002", "k500"], "region": ["us", "eu", "eu"],
                    "v": pa.array([1001, 1002, 500], pa.int64())})  # k001 and k002 move, k500 is new
    hudi.HudiTable(str(path)).upsert(upd)
    want.update({r[0]: r for r in triples(upd)})
    hudi.HudiTable(str(path)).delete_keys(["k003", "k500"])
    del want["k003"], want["k500"]
    hudi.HudiTable(str(path)).delete("v >= 10 AND v < 12")
    del want["k010"], want["k011"]
    hudi.HudiTable(str(path)).update("id = 'k004'", {"v": 44})
    want["k004"] = ("k004", want["k004"][1], 44)
    ow = pa.table({"id": ["k006", "k700"], "region": ["eu", "eu"], "v": pa.array([6006, 700], pa.int64())})
    hudi.HudiTable(str(path)).overwrite(ow)
    gone = [k for k, r in want.items() if not partitioned or r[1] == "eu"]
    for k in gone:
        del want[k]
    want.update({r[0]: r for r in triples(ow)})
    expected = sorted(want.values())
    assert ours(path) == expected
    check(path)
    got = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert spark_rows(got) == expected


def test_spark_upserts_through_the_index_of_a_segmented_append(tmp_path, spark, hudirs, interop_config):
    """An append written in segments (hudi_c.append.segment.bytes below one batch: each batch its
    own segment, all in one commit) reads the same in Spark (through our `files` partition) and
    hudi-rs, and Spark's upsert finds keys of the first and the last segment through our record
    index (updated in place, moved between regions, not duplicated)."""
    path = tmp_path / "seg"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region")
    data = pa.concat_tables([batch(0, 12), batch(12, 9), batch(21, 7)])
    reader = pa.RecordBatchReader.from_batches(data.schema, data.to_batches(max_chunksize=7))
    r = t.append(reader, {"hudi_c.append.segment.bytes": "1"})
    assert r.num_inserts == 28 and r.partitions_written == 3
    check(path)
    expected = triples(data)
    assert ours(path) == expected
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected
    assert spark_rows(hudirs.read_table(str(path))) == expected

    spark_upsert(interop_config, tmp_path, path, "cow", True, [["k001", "apac", 1001], ["k027", "us", 1027]])
    after = {x[0]: x for x in expected}
    after["k001"] = ("k001", "apac", 1001)
    after["k027"] = ("k027", "us", 1027)
    after = sorted(after.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    check(path, spark_wrote=True)
