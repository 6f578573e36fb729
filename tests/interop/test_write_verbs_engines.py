"""Tables hudi-c upserts into, deletes from and updates are read by Spark + Hudi and by hudi-rs.

After each keyed write both engines must return exactly the rows our reader returns, meta
columns included (snapshot for COW and MOR), and the table must pass
../shared/tools/hudi_check.py. The expected rows are also checked against a model computed
here with plain Python, so a bug shared by all three readers would still show.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from oracles import row_diff

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name")
DATA = ("chunk_id", "doc_id", "updated_at", "score")


def batch(ids, doc, ts, score) -> pa.Table:
    return pa.table({
        "chunk_id": ids,
        "doc_id": doc,
        "updated_at": pa.array(ts, pa.int64()),
        "score": pa.array(score, pa.float64()),
        "embedding": pa.array([[float(t), 1.5] for t in ts], pa.list_(pa.float32(), 2)),
    })


def plain(rows) -> list[tuple]:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(v(r[c]) for c in META + DATA) for r in rows)


def ours(path) -> list[dict]:
    return pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()


def agree(path, spark, hudirs, table_type, expected_data) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    mine = ours(path)
    assert sorted((x["chunk_id"], x["doc_id"], x["updated_at"], x["score"]) for x in mine) == expected_data
    expected = plain(mine)
    from_spark = spark.read_table(str(path))
    assert plain(from_spark.rows) == expected
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_engines_read_our_keyed_writes(tmp_path, spark, hudirs, table_type, partitioned):
    path = tmp_path / f"v_{table_type}_{'p' if partitioned else 'np'}"
    t = hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                              partition_fields="doc_id" if partitioned else None, table_type=table_type,
                              record_index_enabled=False)
    ids = [f"c{i:02d}" for i in range(8)]
    t.append(batch(ids, [f"doc{i % 2}" for i in range(8)], [10] * 8, [i / 4 for i in range(8)]))
    model = {i: (f"doc{n % 2}", 10, n / 4) for n, i in enumerate(ids)}

    def expect():
        return sorted((k, *v) for k, v in model.items())

    # updates (one stale), a new key, a partition move
    hudi.HudiTable(str(path)).upsert(batch(["c00", "c01", "c02", "c99"], ["doc0", "doc1", "doc1", "doc0"],
                                           [11, 9, 12, 1], [100.0, 101.0, 102.0, 199.0]))
    model["c00"] = ("doc0", 11, 100.0)
    model["c02"] = ("doc1", 12, 102.0)
    model["c99"] = ("doc0", 1, 199.0)
    agree(path, spark, hudirs, table_type, expect())

    hudi.HudiTable(str(path)).delete_keys(["c03", "nope"])
    del model["c03"]
    hudi.HudiTable(str(path)).delete("score >= 1.5 AND score < 2")
    for k in [k for k, v in model.items() if 1.5 <= v[2] < 2]:
        del model[k]
    agree(path, spark, hudirs, table_type, expect())

    hudi.HudiTable(str(path)).update("chunk_id = 'c04'", {"score": -1.0})
    model["c04"] = (model["c04"][0], model["c04"][1], -1.0)
    agree(path, spark, hudirs, table_type, expect())


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_continues_writing(tmp_path, spark_v8, table_type):
    """Spark (Hudi 1.0, table version 8) updates, inserts into and deletes from a table whose
    file groups we rewrote or appended logs to; our reader then agrees with Spark's."""
    path = tmp_path / f"s_{table_type}"
    t = hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                              partition_fields="doc_id", table_type=table_type, record_index_enabled=False)
    t.append(batch([f"c{i}" for i in range(6)], [f"doc{i % 2}" for i in range(6)], [10] * 6, [float(i) for i in range(6)]))
    hudi.HudiTable(str(path)).upsert(batch(["c0", "c9"], ["doc0", "doc1"], [11, 1], [50.0, 90.0]))
    hudi.HudiTable(str(path)).delete_keys(["c1"])
    name = f"verbs_{table_type}"
    # Without a metadata table, so that we can write after Spark (hudi-c does not update one yet).
    spark_v8.sql("SET hoodie.metadata.enable=false")
    try:
        spark_v8.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
        spark_v8.sql(f"UPDATE {name} SET score = 77.0 WHERE chunk_id = 'c2'")
        spark_v8.sql(f"MERGE INTO {name} t USING (SELECT 'c3' AS chunk_id, 'doc1' AS doc_id, CAST(20 AS BIGINT) AS "
                     f"updated_at, 33.0 AS score, array(CAST(1.0 AS FLOAT), CAST(2.0 AS FLOAT)) AS embedding "
                     f"UNION ALL SELECT 'c8', 'doc0', CAST(1 AS BIGINT), 88.0, "
                     f"array(CAST(1.0 AS FLOAT), CAST(2.0 AS FLOAT))) s "
                     f"ON t.chunk_id = s.chunk_id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        spark_v8.sql(f"DELETE FROM {name} WHERE chunk_id = 'c4'")
    finally:
        spark_v8.sql("RESET hoodie.metadata.enable")
    assert not (path / ".hoodie" / "metadata").exists()
    mine = ours(path)
    got = sorted((x["chunk_id"], x["doc_id"], x["updated_at"], x["score"]) for x in mine)
    assert got == [("c0", "doc0", 11, 50.0), ("c2", "doc0", 10, 77.0), ("c3", "doc1", 20, 33.0),
                   ("c5", "doc1", 10, 5.0), ("c8", "doc0", 1, 88.0), ("c9", "doc1", 1, 90.0)]
    assert plain(spark_v8.read_table(str(path)).rows) == plain(mine)
    # and we continue after Spark
    hudi.HudiTable(str(path)).upsert(batch(["c8"], ["doc0"], [2], [89.0]))
    assert {x["chunk_id"]: x["score"] for x in ours(path)}["c8"] == 89.0
    assert plain(spark_v8.read_table(str(path)).rows) == plain(ours(path))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_engines_read_our_overwrites(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"o_{table_type}"
    t = hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                              partition_fields="doc_id", table_type=table_type, record_index_enabled=False)
    t.append(batch(["c0", "c1", "c2", "c3"], ["doc0", "doc0", "doc1", "doc1"], [1] * 4, [0.0, 1.0, 2.0, 3.0]))
    hudi.HudiTable(str(path)).upsert(batch(["c2"], ["doc1"], [2], [20.0]))
    hudi.HudiTable(str(path)).overwrite(batch(["c9", "c0"], ["doc0", "doc0"], [1, 1], [9.0, 10.0]))
    agree(path, spark, hudirs, table_type,
          [("c0", "doc0", 1, 10.0), ("c2", "doc1", 2, 20.0), ("c3", "doc1", 1, 3.0), ("c9", "doc0", 1, 9.0)])
    hudi.HudiTable(str(path)).overwrite(batch(["c5"], ["doc2"], [1], [5.0]), partitions_only=False)
    agree(path, spark, hudirs, table_type, [("c5", "doc2", 1, 5.0)])
