"""hudi-c continues a version-6 table Spark wrote with its metadata table, by turning the metadata
table off as Apache Hudi's writers do (hoodie.metadata.enable=false in the write's options): the
properties stop listing it and .hoodie/metadata goes. Spark (Hudi 1.2, writing table version 6)
then reads what hudi-c wrote, writes again with its metadata table on (rebuilding it from
storage), and both engines read the same rows as a plain-Python model. Without the option
hudi-c refuses the write, naming it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from oracles import row_diff
from test_mixed_sequence import spark_options

import hudi

CHECKER = Path(__file__).resolve().parents[2].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
SCHEMA = "id string, region string, v long, note string"
OFF = {"hoodie.metadata.enable": "false"}


def failures(path) -> set:
    """The checker's FAIL lines. Spark 1.2's own version-6 tables fail properties.keys: Hudi 1.2
    writes version-8 keys (hoodie.table.keygenerator.type, hoodie.record.merge.strategy.id,
    hoodie.timeline.path, hoodie.timeline.history.path) and no hoodie.table.keygenerator.class
    into them, and its metadata table's properties fail metadata.properties (no
    hoodie.table.keygenerator.class), which the checker refuses for version 6; hudi-c keeps Spark's properties as they
    are, so the test asserts that its writes add no failure of their own."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    return {ln.strip() for ln in r.stdout.splitlines() if ln.strip().startswith("FAIL")}


def v6_options(path: Path, table_type: str, operation: str) -> dict:
    o = spark_options(path, table_type, operation)
    # table version 6 with its (0.x) metadata table: files only, Spark's own index
    o.update({"hoodie.write.table.version": "6", "hoodie.metadata.enable": "true",
              "hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "SIMPLE"})
    return o


def spark_rows(spark, path) -> list:
    f = spark.read_table(str(path))
    return sorted((r["id"], r["region"], r["v"], r["note"]) for r in f.rows)


def our_rows(path) -> list:
    t = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "region", "v", "note"))))


def props(path) -> dict:
    out = {}
    for line in (path / ".hoodie" / "hoodie.properties").read_text().splitlines():
        if line and not line.startswith("#") and "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_version_6_metadata_table_turned_off(tmp_path, spark, table_type):
    path = tmp_path / f"v6mdt_{table_type}"
    first = [[f"k{i}", ["eu", "us"][i % 2], i, "spark"] for i in range(8)]
    spark.call("write", path=str(path), rows=first, schema=SCHEMA,
               options=v6_options(path, table_type, "upsert"), mode="overwrite")
    p = props(path)
    assert p["hoodie.table.version"] == "6" and "files" in p["hoodie.table.metadata.partitions"]
    assert (path / ".hoodie" / "metadata").is_dir()
    spark_failures = failures(path)
    assert all(f.startswith(("FAIL properties.keys", "FAIL metadata.properties")) for f in spark_failures), \
        spark_failures
    model = {r[0]: tuple(r[1:]) for r in first}

    t = hudi.HudiTable(str(path))
    upd = pa.table({"id": ["k1", "k2", "k9"], "region": ["us", "eu", "us"], "v": pa.array([100, 200, 900], pa.int64()),
                    "note": ["hudi-c"] * 3})
    with pytest.raises(hudi.HudiUnsupportedError, match="hoodie.metadata.enable=false"):
        t.upsert(upd)
    r = t.upsert(upd, OFF)
    assert (r.num_inserts, r.num_updates) == (1, 2)
    model.update({"k1": ("us", 100, "hudi-c"), "k2": ("eu", 200, "hudi-c"), "k9": ("us", 900, "hudi-c")})
    hudi.HudiTable(str(path)).delete_keys(["k3"])
    del model["k3"]
    assert not (path / ".hoodie" / "metadata").exists()
    assert props(path)["hoodie.table.metadata.partitions"] == ""
    assert failures(path) <= spark_failures
    want = sorted((k, *v) for k, v in model.items())
    assert our_rows(path) == want
    got = spark_rows(spark, path)
    assert got == want, row_diff([repr(x) for x in got], [repr(x) for x in want], ("spark-1.2", "model"))

    # Spark writes on with its metadata table on: rebuilt from storage, our files included.
    more = [["k4", "eu", 444, "spark2"], ["k10", "eu", 10, "spark2"]]
    spark.call("write", path=str(path), rows=more, schema=SCHEMA, options=v6_options(path, table_type, "upsert"))
    model.update({"k4": ("eu", 444, "spark2"), "k10": ("eu", 10, "spark2")})
    want = sorted((k, *v) for k, v in model.items())
    assert spark_rows(spark, path) == want
    assert our_rows(path) == want
