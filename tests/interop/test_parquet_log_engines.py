"""MERGE_ON_READ tables whose log files hold hudi-c's PARQUET_DATA blocks (our default data block
format) next to AVRO_DATA and DELETE blocks are read alike by Spark with Hudi 1.2.0, by Spark
with Hudi 1.0.2 and by hudi-rs, meta columns included; Spark then upserts into such a table
through our record index (its own log blocks land beside ours), hudi-c reads Spark's result and
writes Parquet blocks again, and all engines still agree. ../shared/tools/hudi_check.py passes
throughout (after Spark's write, except for Hadoop's .crc files). hudi-rs is compared before
Spark's write only: hudi-rs 0.5 reads no table whose metadata table Spark 1.2 wrote to.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pyarrow as pa

import hudi
from oracles import row_diff

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ("_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name")
FMT = "hoodie.logfile.data.block.format"


def check(path: Path, spark_wrote: bool = False) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    crc = [ln for ln in fails if ln.endswith(".crc: not a layout-2 timeline file name")]
    if not (spark_wrote and fails and fails == crc):
        assert r.returncode == 0, r.stdout + r.stderr


def batch(ids, v: int) -> pa.Table:
    ids = list(ids)
    return pa.table({"id": [f"k{i:03d}" for i in ids], "region": [["eu", "us"][i % 2] for i in ids],
                     "v": pa.array([v + i for i in ids], pa.int64())})


def block_types(path: Path) -> set[int]:
    """Block types of every data log file (the block layout of the Hudi spec, by hand)."""
    out = set()
    for root, _, files in os.walk(path):
        if ".hoodie" in root:
            continue
        for f in files:
            if ".log." not in f or f.endswith(".crc"):
                continue
            d = (Path(root) / f).read_bytes()
            pos = 0
            while pos < len(d):
                size, = struct.unpack(">q", d[pos + 6:pos + 14])
                out.add(struct.unpack(">i", d[pos + 18:pos + 22])[0])
                pos += 14 + size
    return out


def plain(rows) -> list[tuple]:
    def v(x):
        return x if not isinstance(x, dict) else next(iter(x.values()))
    return sorted(tuple(v(r[c]) for c in META + ("id", "region", "v")) for r in rows)


def ours(path: Path) -> list[dict]:
    return pa.Table.from_batches(hudi.HudiTable(str(path)).read()).to_pylist()


def agree(path: Path, spark, spark_v8, hudirs, model: dict) -> None:
    """Ours = both Sparks (= hudi-rs, when given) = the model, meta columns included."""
    mine = ours(path)
    assert sorted((r["id"], r["region"], r["v"]) for r in mine) == sorted(model.values())
    expected = plain(mine)
    for name, engine in (("spark 1.2", spark), ("spark 1.0.2", spark_v8)):
        got = plain(engine.read_table(str(path), {"hoodie.metadata.enable": "true"}).rows)
        assert got == expected, name
    if hudirs is None:
        return
    from_rs = hudirs.read_table(str(path))
    assert plain(from_rs.rows) == expected
    a = spark.read_table(str(path)).canonical(exclude=())
    b = from_rs.canonical(exclude=())
    assert a == b, row_diff(a, b, ("spark", "hudi-rs"))


def put(model: dict, t: pa.Table) -> None:
    for r in t.to_pylist():
        model[r["id"]] = (r["id"], r["region"], r["v"])


def spark_upsert(interop_config, tmp_path: Path, path: Path, rows) -> None:
    argv = [interop_config["SPARK_PYTHON"], str(HERE / "spark_rli_upsert.py"), interop_config["HUDI_JAR"],
            str(tmp_path / "spark-work"), str(path), "mor", "region", json.dumps(rows)]
    r = subprocess.run(argv, env=interop_config.worker_env(), capture_output=True, text=True, timeout=900)
    assert r.returncode == 0 and '{"ok": true}' in r.stdout, r.stdout[-3000:] + r.stderr[-6000:]


def test_engines_read_our_parquet_log_blocks_and_spark_continues(tmp_path, spark, spark_v8, hudirs,
                                                                 interop_config):
    path = tmp_path / "plog_mor"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor")
    model: dict = {}
    first = batch(range(40), 0)
    t.append(first)
    put(model, first)
    # Parquet blocks (the default), an Avro block, deletes, Parquet again: one slice mixes all.
    for n, (ks, opts) in enumerate([(range(0, 40, 3), {}), (range(1, 40, 4), {FMT: "avro"}),
                                    (range(0, 40, 5), {FMT: "parquet"})]):
        upd = batch(ks, 1000 * (n + 1))
        hudi.HudiTable(str(path)).upsert(upd, opts)
        put(model, upd)
        gone = [f"k{i:03d}" for i in range(n + 2, 40, 13)]
        hudi.HudiTable(str(path)).delete_keys(gone)
        for k in gone:
            model.pop(k, None)
        check(path)
    assert block_types(path) == {1, 3, 5}
    agree(path, spark, spark_v8, hudirs, model)

    # Spark (Hudi 1.2, table version 8 kept) upserts through our record index: its log blocks
    # join ours in the same file groups.
    spark_upsert(interop_config, tmp_path, path, [["k003", "us", 7003], ["k010", "eu", 7010], ["k900", "us", 900]])
    for k, region, v in (("k003", "us", 7003), ("k010", "eu", 7010), ("k900", "us", 900)):
        model[k] = (k, region, v)
    check(path, spark_wrote=True)
    # (hudi-rs 0.5 reads no table after Spark 1.2 wrote its metadata table: docs/compatibility.md)
    agree(path, spark, spark_v8, None, model)

    # and hudi-c writes Parquet blocks on top of Spark's write
    upd = batch(range(2, 40, 6), 5000)
    hudi.HudiTable(str(path)).upsert(upd)
    put(model, upd)
    check(path, spark_wrote=True)
    agree(path, spark, spark_v8, None, model)
