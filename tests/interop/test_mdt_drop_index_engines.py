"""An index turned off in a write's options is dropped as Apache Hudi's writers drop it
(HoodieTable.deleteMetadataIndexIfNecessary): the partition leaves
hoodie.table.metadata.partitions and its directory is deleted, nothing else.

The oracle is Spark itself: two copies of one hudi-c table; Spark writes to one with the index
off, hudi-c to the other with the same option. Both must leave the same metadata partitions,
index definitions and metadata timeline shape, the same rows, and the same verdict of
../shared/tools/hudi_check.py: Java deletes the directory with no instant, so the metadata
deltacommits that wrote the partition's files keep naming them and the checker's
metadata.timeline.write-stats fails on those files (and only on those) for Spark's table as for
ours; nothing else may fail. Then Spark writes with the index on again (its writer re-initialises
the partition, deleting leftovers) and hudi-c continues after it.

Spark 1.2.0 on table version 9, 1.0.2 on version 8.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from test_mdt_bootstrap_engines import SCHEMA, CHECKER, RUN_CHECKER, props, same, spark_rows, our_rows
from test_mixed_sequence import spark_options

import hudi

DROPPED_FILE = re.compile(r"^FAIL metadata\.timeline\.write-stats: \.hoodie/metadata/\.hoodie/timeline/\S+: "
                          r"(\w+)/\S+ does not exist and no clean or rollback deleted it$")


def verdict(path: Path) -> tuple:
    """(the partitions of the files the checker misses, every other failure), Spark's .crc files
    aside (see test_mdt_bootstrap_engines.checked)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    missed, other = set(), []
    for ln in r.stdout.splitlines():
        if not ln.startswith("FAIL") or ".crc:" in ln:
            continue
        m = DROPPED_FILE.match(ln)
        if m:
            missed.add(m.group(1))
        else:
            other.append(ln)
    return missed, other


def spark_opts(path: Path, table_type: str, op: str, version: str, rli: bool) -> dict:
    o = spark_options(path, table_type, op)
    o["hoodie.write.table.version"] = version
    o["hoodie.table.name"] = props(path)["hoodie.table.name"]  # a copy keeps its source's name
    if not rli:
        o.update({"hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "BLOOM"})
    return o


def listed(path: Path) -> list:
    return sorted(props(path)["hoodie.table.metadata.partitions"].split(","))


def index_defs(path: Path):
    f = path / ".hoodie" / ".index_defs" / "index.json"
    return f.read_text() if f.exists() else None


def mdt_dirs(path: Path) -> list:
    return sorted(p.name for p in (path / ".hoodie" / "metadata").iterdir() if p.name != ".hoodie")


@pytest.mark.parametrize("table_type,version", [("mor", "9"), ("cow", "8")])
def test_record_index_off_drops_it_as_spark_does(tmp_path, request, table_type, version):
    spark = request.getfixturevalue("spark_v8" if version == "8" else "spark")
    ours = tmp_path / f"drop_{table_type}_v{version}"
    t = hudi.HudiTable.create(str(ours), "id", partition_fields="region", table_type=table_type,
                              hudi_options={"hoodie.write.table.version": version,
                                            "hoodie.datasource.write.hive_style_partitioning": "true",
                                            "hoodie.table.timeline.timezone": "UTC"})
    first = pa.table({"id": [f"k{i:02d}" for i in range(40)], "region": [["eu", "us"][i % 2] for i in range(40)],
                      "v": pa.array(range(40), pa.int64()), "note": ["hudi-c"] * 40})
    t.append(first)
    t.upsert(first.slice(0, 10).set_column(3, "note", pa.array(["hudi-c2"] * 10)))
    model = {r["id"]: (r["region"], r["v"], "hudi-c2" if i < 10 else "hudi-c") for i, r in enumerate(first.to_pylist())}
    assert props(ours)["hoodie.table.metadata.partitions"] == "files,record_index"
    theirs = tmp_path / f"spark_{table_type}_v{version}"
    shutil.copytree(ours, theirs)

    # The same upsert, index off: Spark on its copy, hudi-c on the other.
    upd = [[f"k{i:02d}", ["eu", "us"][i % 2], 500 + i, "off"] for i in (1, 2, 3, 30)]
    spark.call("write", path=str(theirs), rows=upd, schema=SCHEMA,
               options=spark_opts(theirs, table_type, "upsert", version, rli=False))
    r = hudi.HudiTable(str(ours)).upsert(pa.table({"id": [u[0] for u in upd], "region": [u[1] for u in upd],
                                                   "v": pa.array([u[2] for u in upd], pa.int64()),
                                                   "note": [u[3] for u in upd]}),
                                         {"hoodie.metadata.record.index.enable": "false"})
    assert (r.num_updates, r.num_inserts) == (4, 0)
    model.update({u[0]: tuple(u[1:]) for u in upd})
    want = sorted((k, *v) for k, v in model.items())

    assert props(ours)["hoodie.table.metadata.partitions"] == props(theirs)["hoodie.table.metadata.partitions"] \
        == "files"
    assert mdt_dirs(ours) == mdt_dirs(theirs) == ["files"]
    assert index_defs(ours) == index_defs(theirs)
    assert verdict(ours) == verdict(theirs) == ({"record_index"}, [])
    for path in (ours, theirs):
        same(our_rows(path), want, f"hudi-c on {path.name}")
        same(spark_rows(spark, path), want, f"spark on {path.name}")

    # Spark turns the index on again on our table (re-initialised from the files), then hudi-c
    # upserts and deletes through it.
    more = [["k05", "us", 705, "spark-on"], ["k77", "eu", 777, "spark-on"]]
    spark.call("write", path=str(ours), rows=more, schema=SCHEMA,
               options=spark_opts(ours, table_type, "upsert", version, rli=True))
    model.update({m[0]: tuple(m[1:]) for m in more})
    assert "record_index" in props(ours)["hoodie.table.metadata.partitions"].split(",")
    t2 = hudi.HudiTable(str(ours))
    r = t2.upsert(pa.table({"id": ["k77", "k06"], "region": ["eu", "eu"], "v": pa.array([877, 806], pa.int64()),
                            "note": ["hudi-c3"] * 2}))
    assert (r.num_updates, r.num_inserts) == (2, 0)
    assert t2.delete_keys(["k07", "k99"]).num_deletes == 1
    model.update({"k77": ("eu", 877, "hudi-c3"), "k06": ("eu", 806, "hudi-c3")})
    del model["k07"]
    want = sorted((k, *v) for k, v in model.items())
    same(our_rows(ours), want, "hudi-c")
    same(spark_rows(spark, ours), want, "spark")
    missed, other = verdict(ours)
    assert not other, other


def test_column_stats_off_drops_both_stats_as_spark_does(tmp_path, spark):
    """hoodie.metadata.index.column.stats.enable=false on a version-9 table with column and
    partition stats: Spark 1.2 drops both partitions and the column stats' index definition;
    hudi-c does the same."""
    ours = tmp_path / "dropcs"
    t = hudi.HudiTable.create(str(ours), "id", partition_fields="region", table_type="cow",
                              hudi_options={"hoodie.write.table.version": "9",
                                            "hoodie.metadata.index.column.stats.enable": "true",
                                            "hoodie.metadata.index.partition.stats.enable": "true",
                                            "hoodie.table.timeline.timezone": "UTC"})
    first = pa.table({"id": [f"k{i:02d}" for i in range(30)], "region": [["eu", "us"][i % 2] for i in range(30)],
                      "v": pa.array(range(30), pa.int64()), "note": ["hudi-c"] * 30})
    t.append(first)
    model = {r["id"]: (r["region"], r["v"], r["note"]) for r in first.to_pylist()}
    assert props(ours)["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats,record_index"
    assert '"column_stats"' in index_defs(ours)
    theirs = tmp_path / "spark_dropcs"
    shutil.copytree(ours, theirs)

    upd = [["k01", "us", 501, "off"], ["k04", "eu", 504, "off"]]
    o = spark_opts(theirs, "cow", "upsert", "9", rli=True)  # column and partition stats false
    assert o["hoodie.metadata.index.column.stats.enable"] == "false"
    spark.call("write", path=str(theirs), rows=upd, schema=SCHEMA, options=o)
    r = hudi.HudiTable(str(ours)).upsert(pa.table({"id": ["k01", "k04"], "region": ["us", "eu"],
                                                   "v": pa.array([501, 504], pa.int64()), "note": ["off"] * 2}),
                                         {"hoodie.metadata.index.column.stats.enable": "false"})
    assert (r.num_updates, r.num_inserts) == (2, 0)
    model.update({u[0]: tuple(u[1:]) for u in upd})
    want = sorted((k, *v) for k, v in model.items())
    # (Spark joins a HashSet: "record_index,files"; the order means nothing to readers)
    assert listed(ours) == listed(theirs) == ["files", "record_index"]
    assert mdt_dirs(ours) == mdt_dirs(theirs) == ["files", "record_index"]
    assert index_defs(ours) == index_defs(theirs)
    assert verdict(ours) == verdict(theirs) == ({"column_stats", "partition_stats"}, [])
    for path in (ours, theirs):
        same(our_rows(path), want, f"hudi-c on {path.name}")
        same(spark_rows(spark, path), want, f"spark on {path.name}")
