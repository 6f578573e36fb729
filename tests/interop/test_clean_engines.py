"""Tables hudi-c cleaned are read by Spark + Hudi 1.2.0 and by hudi-rs exactly as by us, and
Spark (Hudi 1.0.2, table version 8) keeps writing -- and cleaning -- after our clean instants.

Oracles: the rows each engine returns (meta columns included), a plain-Python model of the rows,
Spark's own HoodieTableMetaClient timeline (which must list our clean instants as completed
cleans), Spark's time-travel check against our clean's earliest commit to retain, and
../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

from oracles import OracleError, row_diff

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ("_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name")
DATA = ("id", "p", "ts", "v")


def batch(ids, v) -> pa.Table:
    return pa.table({"id": [f"k{i}" for i in ids], "p": ["a" if i % 2 else "b" for i in ids],
                     "ts": pa.array([v] * len(ids), pa.int64()),
                     "v": pa.array([float(v * 100 + i) for i in ids], pa.float64())})


def plain(rows) -> list:
    def val(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(val(r[c]) for c in META + DATA) for r in rows)


def ours(path) -> list:
    return pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def completed(path, action) -> list:
    out = []
    for f in sorted(os.listdir(Path(path) / ".hoodie" / "timeline")):
        m = re.match(r"^(\d{17})_(\d{17})\.(\w+)$", f)
        if m and m[3] == action:
            out.append(m[1])
    return out


def base_files(path) -> set:
    return {f for _, _, fs in os.walk(path) for f in fs if f.endswith(".parquet")} - {
        f for _, _, fs in os.walk(Path(path) / ".hoodie") for f in fs}


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_engines_read_our_cleaned_table(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"c_{table_type}"
    opts = {"hoodie.clean.commits.retained": "2"}
    t = hudi.HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=table_type)
    t.append(batch(range(6), 1), opts)
    model = {r["id"]: tuple(r[c] for c in DATA) for r in batch(range(6), 1).to_pylist()}
    for v in range(2, 7):
        b = batch([v % 6, (v + 3) % 6], v)
        hudi.HudiTable(str(path)).upsert(b, opts)
        model.update({r["id"]: tuple(r[c] for c in DATA) for r in b.to_pylist()})
        if table_type == "mor" and v % 2 == 0:
            hudi.HudiTable(str(path)).compact()
    cleans = completed(path, "clean")
    assert cleans, "the automatic clean ran"
    check(path)

    mine = ours(path)
    assert sorted(tuple(r[c] for c in DATA) for r in mine) == sorted(model.values())
    expected = plain(mine)
    from_spark = spark.read_table(str(path))
    assert plain(from_spark.rows) == expected, row_diff(plain(from_spark.rows), expected, ("spark", "hudi-c"))
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected, row_diff(plain(from_rs.rows), expected, ("hudi-rs", "hudi-c"))

    # Spark's meta client lists our cleans as completed clean instants.
    tl = spark.timeline(str(path))
    spark_cleans = [i["requested_time"] for i in tl if i["action"] == "clean" and i["state"] == "COMPLETED"]
    assert spark_cleans == cleans

    # Time travel: before our clean's earliest commit to retain both Spark and we refuse.
    writes = [i["requested_time"] for i in tl if i["state"] == "COMPLETED"
              and i["action"] in ("commit", "deltacommit", "replacecommit")]
    with open(next((path / ".hoodie" / "timeline").glob(f"{cleans[-1]}_*.clean")), "rb") as fh:
        ectr = next(iter(fastavro.reader(fh)))["earliestCommitToRetain"]
    assert ectr in writes and writes.index(ectr) > 0
    older = writes[writes.index(ectr) - 1]
    at = spark.read_table(str(path), {"as.of.instant": ectr})
    ours_at = pa.Table.from_batches(hudi.HudiTable(str(path)).read(
        hudi.HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": ectr}))).to_pylist()
    assert plain(at.rows) == plain(ours_at)
    with pytest.raises(hudi.HudiInvalidInputError, match=older):
        hudi.HudiTable(str(path)).read(hudi.HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": older}))
    with pytest.raises(OracleError):
        spark.read_table(str(path), {"as.of.instant": older})


def test_spark_continues_after_our_clean(tmp_path, spark_v8):
    """Spark (Hudi 1.0.2, table version 8) upserts into a table we cleaned, with its own cleaner
    on (it reads our last clean's metadata to decide what to clean next), and we read its result."""
    path = tmp_path / "s_cow"
    opts = {"hoodie.clean.commits.retained": "2"}
    t = hudi.HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p",
                              record_index_enabled=False)
    t.append(batch(range(4), 1), opts)
    for v in range(2, 6):
        hudi.HudiTable(str(path)).upsert(batch([0, 1], v), opts)
    ours_cleans = completed(path, "clean")
    assert ours_cleans
    assert not (path / ".hoodie" / "metadata").exists()
    name = "clean_cow"
    spark_v8.sql("SET hoodie.metadata.enable=false")
    try:
        spark_v8.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
        for v in (6, 7):
            spark_v8.sql(f"SET hoodie.clean.commits.retained=2")
            spark_v8.sql(f"UPDATE {name} SET v = {v * 1000.0}, ts = {v} WHERE id = 'k0'")
    finally:
        spark_v8.sql("RESET hoodie.metadata.enable")
        spark_v8.sql("RESET hoodie.clean.commits.retained")
    tl = spark_v8.timeline(str(path))
    assert [i for i in tl if i["state"] != "COMPLETED"] == []
    all_cleans = [i["requested_time"] for i in tl if i["action"] == "clean"]
    assert all_cleans[: len(ours_cleans)] == ours_cleans
    assert len(all_cleans) > len(ours_cleans), "Spark's cleaner ran after ours"
    # (hudi_check is not run from here on: it flags the .crc files Hadoop's local file system
    # writes beside Spark's timeline files, which Hudi and hudi-rs ignore.)
    mine = ours(path)
    assert {r["id"]: r["v"] for r in mine}["k0"] == 7000.0
    assert plain(spark_v8.read_table(str(path)).rows) == plain(mine)
    # and we clean again after Spark
    before = len(completed(path, "clean"))
    hudi.HudiTable(str(path)).upsert(batch([2], 8), opts)
    assert len(completed(path, "clean")) == before + 1, "our cleaner continued after Spark's"
    assert plain(spark_v8.read_table(str(path)).rows) == plain(ours(path))
    assert [i for i in spark_v8.timeline(str(path)) if i["state"] != "COMPLETED"] == []
