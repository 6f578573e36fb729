"""Tables hudi-c writes in table versions 6, 8 and 9 are read by the engines that read them.

* version 9 (hoodie.write.table.version=9, with the metadata table and record index): Spark with
  Hudi 1.2.0 (`spark`) and hudi-rs; then Spark 1.2 upserts into it and our reader agrees with it;
* version 8: Spark with Hudi 1.0.2 (`spark_v8`) and hudi-rs;
* version 6 (layout-1 timeline, JSON commits, base-instant log names; no metadata table):
  hudi-rs and Spark with Hudi 1.2.0, which reads version 6.

Each check compares full row sets, meta columns included, after a create + append + upsert +
delete (+ update) sequence on COW and MOR, against our reader and a plain-Python model; the
table must pass ../shared/tools/hudi_check.py. Both engines load the table config too: the
version and layout they see must be the ones we wrote.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from oracles import row_diff
from test_write_verbs_engines import batch, ours, plain

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def checked(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def write_sequence(path, version: str, table_type: str) -> dict:
    """create, append, upsert (twice), delete_keys, update; returns the model key -> data."""
    hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                          partition_fields="doc_id", table_type=table_type,
                          record_index_enabled=version != "6",
                          hudi_options={"hoodie.write.table.version": version})
    ids = [f"c{i:02d}" for i in range(8)]
    hudi.HudiTable(str(path)).append(batch(ids, [f"doc{i % 2}" for i in range(8)], [10] * 8,
                                           [i / 4 for i in range(8)]))
    model = {i: (f"doc{n % 2}", 10, n / 4) for n, i in enumerate(ids)}
    hudi.HudiTable(str(path)).upsert(batch(["c00", "c01", "c99"], ["doc0", "doc1", "doc1"], [11, 9, 1],
                                           [100.0, 101.0, 199.0]))
    model["c00"] = ("doc0", 11, 100.0)
    model["c99"] = ("doc1", 1, 199.0)
    hudi.HudiTable(str(path)).upsert(batch(["c02", "c00"], ["doc0", "doc0"], [12, 12], [102.0, 120.0]))
    model["c02"] = ("doc0", 12, 102.0)
    model["c00"] = ("doc0", 12, 120.0)
    hudi.HudiTable(str(path)).delete_keys(["c03", "nope"])
    del model["c03"]
    hudi.HudiTable(str(path)).update("chunk_id = 'c04'", {"score": -1.0})
    model["c04"] = (model["c04"][0], model["c04"][1], -1.0)
    checked(path)
    return model


def expected(model: dict) -> list:
    return sorted((k, *v) for k, v in model.items())


def agree(path, model, readers) -> None:
    mine = ours(path)
    assert sorted((x["chunk_id"], x["doc_id"], x["updated_at"], x["score"]) for x in mine) == expected(model)
    want = plain(mine)
    for name, read in readers:
        got = plain(read(str(path)).rows)
        assert got == want, row_diff([repr(r) for r in got], [repr(r) for r in want], (name, "hudi-c"))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_version_9_read_by_spark_12_and_hudirs(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"v9_{table_type}"
    model = write_sequence(path, "9", table_type)
    cfg = spark.table_config(str(path))
    assert cfg["version"] == 9 and cfg["timeline_layout"] == 2
    assert cfg["properties"]["hoodie.table.ordering.fields"] == "updated_at"
    agree(path, model, [("spark-1.2", spark.read_table), ("hudi-rs", hudirs.read_table)])
    # a MOR read-optimized read sees the base files only: still the appended values of c00
    if table_type == "mor":
        ro = spark.read_table(str(path), {"hoodie.datasource.query.type": "read_optimized"})
        assert {r["chunk_id"]: r["score"] for r in ro.rows}["c00"] == 0.0


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_12_upserts_into_our_version_9_table(tmp_path, spark, table_type):
    path = tmp_path / f"v9s_{table_type}"
    model = write_sequence(path, "9", table_type)
    name = f"ours_v9_{table_type}"
    spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    spark.sql(f"MERGE INTO {name} t USING (SELECT 'c05' AS chunk_id, 'doc1' AS doc_id, CAST(20 AS BIGINT) AS "
              f"updated_at, 55.0 AS score, array(CAST(1.0 AS FLOAT), CAST(2.0 AS FLOAT)) AS embedding "
              f"UNION ALL SELECT 'c77', 'doc0', CAST(1 AS BIGINT), 77.0, "
              f"array(CAST(1.0 AS FLOAT), CAST(2.0 AS FLOAT))) s "
              f"ON t.chunk_id = s.chunk_id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    model["c05"] = ("doc1", 20, 55.0)
    model["c77"] = ("doc0", 1, 77.0)
    # Spark kept the table at version 9
    assert spark.table_config(str(path))["version"] == 9
    agree(path, model, [("spark-1.2", spark.read_table)])


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_version_8_read_by_spark_10_and_hudirs(tmp_path, spark_v8, hudirs, table_type):
    path = tmp_path / f"v8_{table_type}"
    model = write_sequence(path, "8", table_type)
    cfg = spark_v8.table_config(str(path))
    assert cfg["version"] == 8 and cfg["timeline_layout"] == 2
    agree(path, model, [("spark-1.0", spark_v8.read_table), ("hudi-rs", hudirs.read_table)])


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_version_6_read_by_hudirs_and_spark_12(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"v6_{table_type}"
    model = write_sequence(path, "6", table_type)
    cfg = spark.table_config(str(path))
    assert cfg["version"] == 6 and cfg["timeline_layout"] == 1
    # Hudi 1.2 reads the layout-1 timeline: every instant completed, the JSON commits parsed
    tl = spark.timeline(str(path))
    done = [i for i in tl if i["state"] == "COMPLETED"]
    assert len(done) == 5 and all(i["action"] == ("deltacommit" if table_type == "mor" else "commit")
                                  for i in done)
    info = hudirs.table_info(str(path))
    assert "6" in str(info)
    agree(path, model, [("spark-1.2", spark.read_table), ("hudi-rs", hudirs.read_table)])
