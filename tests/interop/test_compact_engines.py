"""Tables hudi-c compacted are read by Spark + Hudi 1.2 and by hudi-rs, and Spark keeps writing.

After our compaction both engines must return exactly the rows our reader returns (meta
columns included, _hoodie_file_name naming the new base files), Spark's read-optimized query
must return the same rows (every log is compacted), and the table must pass
../shared/tools/hudi_check.py. Spark then updates, inserts into and deletes from the compacted
table, and our reader agrees with Spark's. Expected data rows also come from a plain-Python
model, so a bug shared by all readers would still show.
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
    })


def plain(rows, cols=META + DATA) -> list[tuple]:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(v(r[c]) for c in cols) for r in rows)


def ours(path) -> list[dict]:
    return pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()


def check(path, spark_wrote: bool = False) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    if not spark_wrote:
        assert r.returncode == 0, r.stdout + r.stderr
        return
    # Spark's local file system leaves .<file>.crc checksum files beside the timeline files,
    # which the checker reports as unknown timeline file names; nothing else may fail.
    fails = [line for line in r.stdout.splitlines() if line.startswith("FAIL") and ".crc:" not in line]
    assert not fails, r.stdout + r.stderr


@pytest.mark.parametrize("partitioned", [True, False])
def test_engines_read_our_compaction(tmp_path, spark, hudirs, partitioned):
    path = tmp_path / f"c_{'p' if partitioned else 'np'}"
    t = hudi.HudiTable.create(str(path), record_key="chunk_id", ordering_fields="updated_at",
                              partition_fields="doc_id" if partitioned else None, table_type="mor",
                              record_index_enabled=False)
    ids = [f"c{i:02d}" for i in range(10)]
    t.append(batch(ids, [f"doc{i % 2}" for i in range(10)], [10] * 10, [i / 4 for i in range(10)]))
    model = {i: (f"doc{n % 2}", 10, n / 4) for n, i in enumerate(ids)}
    hudi.HudiTable(str(path)).upsert(batch(["c00", "c01", "c02"], ["doc0", "doc1", "doc0"], [11, 9, 12],
                                           [100.0, 101.0, 102.0]))
    model["c00"] = ("doc0", 11, 100.0)
    model["c02"] = ("doc0", 12, 102.0)
    hudi.HudiTable(str(path)).delete_keys(["c03", "c04"])
    del model["c03"], model["c04"]
    before = ours(path)

    r = hudi.HudiTable(str(path)).compact()
    assert r.num_file_groups >= 1
    check(path)
    mine = ours(path)
    assert plain(mine, META[:4] + DATA) == plain(before, META[:4] + DATA)
    assert sorted((x["chunk_id"], x["doc_id"], x["updated_at"], x["score"]) for x in mine) == \
        sorted((k, *v) for k, v in model.items())
    assert any(x["_hoodie_file_name"].endswith(f"_{r.requested_time}.parquet") for x in mine)
    expected = plain(mine)
    from_spark = spark.read_table(str(path))
    assert plain(from_spark.rows) == expected
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected
    a, b = from_spark.canonical(exclude=()), from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))
    ro = spark.read_table(str(path), {"hoodie.datasource.query.type": "read_optimized"})
    assert plain(ro.rows) == expected
    timeline = spark.timeline(str(path))
    comp = [i for i in timeline if i["requested_time"] == r.requested_time]
    assert comp and comp[0]["action"] == "commit" and comp[0]["state"] == "COMPLETED"
    assert comp[0]["completion_time"] == r.completion_time

    # Spark writes into the compacted table; we read what Spark reads.
    name = f"compacted_{'p' if partitioned else 'np'}"
    spark.sql("SET hoodie.metadata.enable=false")
    try:
        spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
        spark.sql(f"UPDATE {name} SET score = 77.0 WHERE chunk_id = 'c05'")
        spark.sql(f"MERGE INTO {name} t USING (SELECT 'c00' AS chunk_id, 'doc0' AS doc_id, CAST(20 AS BIGINT) AS "
                  f"updated_at, 33.0 AS score UNION ALL SELECT 'c88', 'doc0', CAST(1 AS BIGINT), 88.0) s "
                  f"ON t.chunk_id = s.chunk_id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        spark.sql(f"DELETE FROM {name} WHERE chunk_id = 'c06'")
    finally:
        spark.sql("RESET hoodie.metadata.enable")
    model["c05"] = (model["c05"][0], 10, 77.0)
    model["c00"] = ("doc0", 20, 33.0)
    model["c88"] = ("doc0", 1, 88.0)
    del model["c06"]
    mine = ours(path)
    assert sorted((x["chunk_id"], x["doc_id"], x["updated_at"], x["score"]) for x in mine) == \
        sorted((k, *v) for k, v in model.items())
    assert plain(spark.read_table(str(path)).rows) == plain(mine)
    # and we compact Spark's logs in turn
    r2 = hudi.HudiTable(str(path)).compact()
    assert r2.num_file_groups >= 1
    check(path, spark_wrote=True)
    after = ours(path)
    assert plain(after, META[:4] + DATA) == plain(mine, META[:4] + DATA)
    assert plain(spark.read_table(str(path)).rows) == plain(after)
    assert plain(hudirs.read_table(str(path)).rows) == plain(after)
