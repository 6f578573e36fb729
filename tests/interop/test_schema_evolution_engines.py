"""Tables whose schema hudi-c evolved on write are read by Spark + Hudi 1.2 and by hudi-rs.

hudi-c adds a column (older files read it as null), widens int -> long and float -> double, and
places new keys into small file groups. After each write Spark and hudi-rs must return exactly
the rows our reader returns (meta columns included), the rows must equal a model computed here,
and ../shared/tools/hudi_check.py must pass.
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
META = ("_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name")
DATA = ("id", "part", "ts", "v", "f", "note")


def plain(rows) -> list[tuple]:
    def val(x):
        if isinstance(x, dict):  # a tagged value
            x = next(iter(x.values()))
        if isinstance(x, float):
            return round(x, 6)
        return x
    return sorted(tuple(val(r.get(c)) for c in META + DATA) for r in rows)


def ours(path) -> list[dict]:
    return pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()


def agree(path, spark, hudirs, model) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    mine = ours(path)
    got = sorted((x["id"], x["part"], x["ts"], x["v"], x["f"], x.get("note")) for x in mine)
    assert got == sorted((k, *v) for k, v in model.items())
    expected = plain(mine)
    from_spark = spark.read_table(str(path))
    assert plain(from_spark.rows) == expected, row_diff([str(x) for x in plain(from_spark.rows)],
                                                        [str(x) for x in expected], ("spark", "hudi-c"))
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected, row_diff([str(x) for x in plain(from_rs.rows)],
                                                     [str(x) for x in expected], ("hudi-rs", "hudi-c"))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_engines_read_evolved_table(tmp_path, spark, hudirs, table_type):
    path = tmp_path / f"evo_{table_type}"
    t = hudi.HudiTable.create(str(path), record_key="id", ordering_fields="ts", partition_fields="part",
                              table_type=table_type)
    t.append(pa.table({"id": ["a", "b", "c", "d"], "part": ["x", "x", "y", "y"],
                       "ts": pa.array([1, 1, 1, 1], pa.int64()), "v": pa.array([1, 2, 3, 4], pa.int32()),
                       "f": pa.array([0.5, 1.5, 2.5, 3.5], pa.float32())}))
    model = {"a": ("x", 1, 1, 0.5, None), "b": ("x", 1, 2, 1.5, None), "c": ("y", 1, 3, 2.5, None),
             "d": ("y", 1, 4, 3.5, None)}
    agree(path, spark, hudirs, model)

    # a new column, v widened to long, f to double, by updates only: MOR log blocks of the new
    # schema over base files of the old one
    hudi.HudiTable(str(path)).upsert(pa.table({
        "id": ["a", "c"], "part": ["x", "y"], "ts": pa.array([2, 2], pa.int64()),
        "v": pa.array([2 ** 35, 30], pa.int64()), "f": pa.array([0.25, 2.75], pa.float64()),
        "note": ["new a", "new c"]}))
    schema = hudi.HudiTable(str(path)).get_schema()
    assert schema.field("v").type == pa.int64() and schema.field("f").type == pa.float64()
    assert schema.names[-1] == "note"
    model.update({"a": ("x", 2, 2 ** 35, 0.25, "new a"), "c": ("y", 2, 30, 2.75, "new c")})
    agree(path, spark, hudirs, model)

    # new keys: COW puts them into the small file groups (rewritten in the new schema); MOR
    # slices now have logs, so they start new file groups
    hudi.HudiTable(str(path)).upsert(pa.table({
        "id": ["e", "g"], "part": ["x", "y"], "ts": pa.array([2, 2], pa.int64()),
        "v": pa.array([5, 7], pa.int64()), "f": pa.array([5.5, 7.5], pa.float64()), "note": [None, "g"]}))
    model.update({"e": ("x", 2, 5, 5.5, None), "g": ("y", 2, 7, 7.5, "g")})
    agree(path, spark, hudirs, model)

    # the old schema again, missing columns filled with null on request
    hudi.HudiTable(str(path)).upsert(
        pa.table({"id": ["b", "h"], "part": ["x", "y"], "ts": pa.array([3, 3], pa.int64()),
                  "v": pa.array([20, 8], pa.int32()), "f": pa.array([1.0, 8.0], pa.float32())}),
        {"hoodie.write.set.null.for.missing.columns": "true"})
    model.update({"b": ("x", 3, 20, 1.0, None), "h": ("y", 3, 8, 8.0, None)})
    agree(path, spark, hudirs, model)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_spark_writes_after_our_evolution(tmp_path, spark, table_type):
    """Spark 1.2 accepts the evolved schema we committed: it updates and inserts rows through SQL
    (its writer checks its data against our latest commit schema), and we read its result."""
    path = tmp_path / f"sw_{table_type}"
    t = hudi.HudiTable.create(str(path), record_key="id", ordering_fields="ts", partition_fields="part",
                              table_type=table_type)
    t.append(pa.table({"id": ["a", "b"], "part": ["x", "y"], "ts": pa.array([1, 1], pa.int64()),
                       "v": pa.array([1, 2], pa.int32()), "f": pa.array([0.5, 1.5], pa.float32())}))
    hudi.HudiTable(str(path)).upsert(pa.table({
        "id": ["a"], "part": ["x"], "ts": pa.array([2], pa.int64()), "v": pa.array([10], pa.int64()),
        "f": pa.array([0.25], pa.float64()), "note": ["ours"]}))
    name = f"evo_sw_{table_type}"
    spark.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
    spark.sql(f"UPDATE {name} SET note = 'spark', v = 20 WHERE id = 'b'")
    spark.sql(f"INSERT INTO {name} SELECT 'c' AS id, CAST(3 AS BIGINT) AS ts, CAST(30 AS BIGINT) AS v, "
              f"CAST(3.5 AS DOUBLE) AS f, 'ins' AS note, 'x' AS part")
    got = sorted((x["id"], x["part"], x["ts"], x["v"], x["f"], x.get("note")) for x in ours(path))
    assert got == [("a", "x", 2, 10, 0.25, "ours"), ("b", "y", 1, 20, 1.5, "spark"), ("c", "x", 3, 30, 3.5, "ins")]
    assert plain(spark.read_table(str(path)).rows) == plain(ours(path))
    # Spark's SQL writer added column_stats and partition_stats to the metadata table; hudi-c keeps
    # them and writes on, and Spark (data skipping on) finds the row only our write holds.
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    assert "column_stats" in props, props
    hudi.HudiTable(str(path)).upsert(pa.table({
        "id": ["c"], "part": ["x"], "ts": pa.array([4], pa.int64()), "v": pa.array([4000], pa.int64()),
        "f": pa.array([4.5], pa.float64()), "note": ["ours again"]}))
    got = sorted((x["id"], x["v"], x.get("note")) for x in ours(path))
    assert got == [("a", 10, "ours"), ("b", 20, "spark"), ("c", 4000, "ours again")]
    for k, val in {"hoodie.enable.data.skipping": "true", "hoodie.metadata.enable": "true"}.items():
        spark.sql(f"SET {k}={val}")
    res = spark.sql(f"SELECT id FROM {name} WHERE v > 1000")
    assert [r["id"] for r in res.rows] == ["c"], res.rows
    for k in ("hoodie.enable.data.skipping", "hoodie.metadata.enable"):
        spark.sql(f"RESET {k}")
    assert plain(spark.read_table(str(path)).rows) == plain(ours(path))
