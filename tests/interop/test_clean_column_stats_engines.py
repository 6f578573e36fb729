"""hudi-c's cleaning of a copy-on-write table whose metadata table (MDT) keeps column_stats (a
table Spark 1.2.0 or, for table version 8, Spark 1.0.2 SQL created with its default MDT) removes the deleted files' column_stats
entries in the clean's MDT deltacommit as Spark's own clean does: Java builds isDeleted
tombstones (HoodieTableMetadataUtil.convertMetadataToColumnStatsRecords) and its MDT append
handle writes them as the keys of a DELETE block, one log file per column_stats file group.

Oracles:
* a twin table written and cleaned by Spark alone: its clean's MDT deltacommit touches the same
  MDT partitions (files, column_stats), its DELETE blocks have the same headers, delete records
  (partition path, ordering value) and write stats as ours, and its deletes name exactly the
  keys of its earlier records of the deleted files (the same rule applied to ours);
* the deleted files of each of our cleans, from the clean's own `files` records (and gone from
  storage), against the keys the column_stats records of those files were written under; the
  indexed columns from the table's index definitions (.hoodie/.index_defs/index.json, by Spark);
  each key in the file group hudi_check's shard function gives;
* Hudi's own MDT reader (Spark's `hudi_metadata` table-valued function): after the cleans, live
  column_stats records exist for exactly the data files on storage; the MDT compaction that
  followed left no record of a cleaned file in its base files;
* records decoded by ../shared/tools/hudi_check.py's own log, HFile and Avro readers, and
  hudi_check.py passing; Spark's data-skipping queries against a model of the rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parents[1].parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
sys.path.insert(0, str(CHECKER.parent))
import hudi_check as hc  # noqa: E402
from test_mdt_compact_stats_engines import compacted_hfiles, hfile_records, ids, plain  # noqa: E402

SKIPPING = {"hoodie.enable.data.skipping": "true", "hoodie.metadata.enable": "true"}


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    fails = [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL")]
    fails = [ln for ln in fails if not ln.endswith(".crc: not a layout-2 timeline file name")]
    assert not fails, r.stdout + r.stderr


def completed(path: Path) -> dict[str, str]:
    """requested time -> action of the completed instants of a timeline."""
    out = {}
    for f in os.listdir(path / ".hoodie" / "timeline"):
        head, _, action = f.partition(".")
        if "_" in head and not f.startswith(".") and not action.endswith(("requested", "inflight", "crc")):
            out[head.split("_")[0]] = action
    return out


def instant_blocks(path: Path, partition: str, instant: str) -> list[tuple[str, object]]:
    """(log file name, block) of the MDT log blocks of `instant` in one MDT partition."""
    d = path / ".hoodie" / "metadata" / partition
    out = []
    for n in sorted(os.listdir(d)):
        if n.startswith(".") and ".log." in n and not n.endswith(".crc"):
            out.extend((n, b) for b in hc.parse_log_file((d / n).read_bytes()) if b.instant == instant)
    return out


def instant_records(path: Path, partition: str, instant: str) -> list[dict]:
    """The records of the HFILE_DATA log blocks of `instant` in one MDT partition."""
    out = []
    for _, b in instant_blocks(path, partition, instant):
        if b.block_type == hc.HFILE_DATA:
            h = hc.HFile(b.content)
            schema = h.schema() or hc.parse_avro_schema(b.header.get(hc.SCHEMA, ""))
            out.extend(schema.decode_exact(kv.value) for kv in h.key_values())
    return out


def deleted_keys(path: Path, instant: str) -> dict[str, list[dict]]:
    """log file name -> the delete records of `instant`'s column_stats DELETE blocks."""
    out: dict[str, list[dict]] = {}
    for n, b in instant_blocks(path, "column_stats", instant):
        assert b.block_type == hc.DELETE, (n, b.type_name)
        out.setdefault(n, []).extend(hc.decode_delete_block(b))
    return out


def column_stats_keys(path: Path) -> dict[tuple[str, str], str]:
    """(fileName, columnName) -> MDT key of every column_stats record ever written (logs and base
    files), as the writers of those records (Spark, hudi-c) keyed them."""
    d = path / ".hoodie" / "metadata" / "column_stats"
    out = {}
    for n in sorted(os.listdir(d)):
        kvs = []
        if n.endswith(".hfile"):
            h = hc.HFile((d / n).read_bytes())
            kvs = [(kv, h.schema()) for kv in h.key_values()]
        elif n.startswith(".") and ".log." in n and not n.endswith(".crc"):
            for b in hc.parse_log_file((d / n).read_bytes()):
                if b.block_type == hc.HFILE_DATA:
                    h = hc.HFile(b.content)
                    schema = h.schema() or hc.parse_avro_schema(b.header.get(hc.SCHEMA, ""))
                    kvs.extend((kv, schema) for kv in h.key_values())
        for kv, schema in kvs:
            m = schema.decode_exact(kv.value)["ColumnStatsMetadata"]
            out[(m["fileName"], m["columnName"])] = kv.key.decode()
    return out


def group_count(path: Path) -> int:
    d = path / ".hoodie" / "metadata" / "column_stats"
    return len({n.lstrip(".").split("_")[0] for n in os.listdir(d) if n.lstrip(".").startswith("col-stats-")})


def write_stats(path: Path, instant: str) -> dict[str, list[dict]]:
    import fastavro
    import io
    tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    f = next(n for n in os.listdir(tl) if n.startswith(instant + "_") and n.endswith(".deltacommit"))
    rec = next(fastavro.reader(io.BytesIO((tl / f).read_bytes())))
    return rec["partitionToWriteStats"]


def touched_partitions(path: Path, instant: str) -> set[str]:
    mdt = path / ".hoodie" / "metadata"
    return {p for p in os.listdir(mdt) if not p.startswith(".") and (mdt / p).is_dir() and instant_blocks(path, p, instant)}


def indexed_columns(path: Path) -> list[str]:
    props = hc.read_properties_file(str(path / ".hoodie" / "hoodie.properties"))
    defs = json.loads((path / props.get("hoodie.table.index.defs.path", ".hoodie/.index_defs/index.json"))
                      .read_text())
    return list(defs["indexDefinitions"]["column_stats"]["sourceFields"])


def data_files(path: Path) -> set[str]:
    return {f.name for f in path.rglob("*.parquet") if ".hoodie" not in f.parts}


def live_column_stats_files(spark, path: Path) -> set[str]:
    frame = spark.sql(f"SELECT ColumnStatsMetadata FROM hudi_metadata('{path}') WHERE type = 3")
    return {plain(r["ColumnStatsMetadata"])["fileName"] for r in frame.rows
            if not plain(r["ColumnStatsMetadata"])["isDeleted"]}


def create(spark, name: str, path: Path, partitioned: bool) -> None:
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} (id STRING, v BIGINT, ts BIGINT, region STRING) USING hudi "
              + ("PARTITIONED BY (region) " if partitioned else "")
              + f"LOCATION '{path}' TBLPROPERTIES (type = 'cow', primaryKey = 'id', preCombineField = 'ts', "
              "'hoodie.table.timeline.timezone' = 'UTC')")


def delete_shape(path: Path, instant: str) -> tuple:
    """What a clean's column_stats deletes look like, file names and keys aside: the block
    headers present, each delete record's partition path and ordering value, and the log files'
    write stats (numWrites, numUpdateWrites, numInserts, numDeletes == keys)."""
    headers = set()
    records = set()
    for _, b in instant_blocks(path, "column_stats", instant):
        headers.add(tuple(sorted(b.header)))
        records.update((d["partitionPath"], json.dumps(d["orderingVal"])) for d in hc.decode_delete_block(b))
    stats = set()
    dels = deleted_keys(path, instant)
    for ws in write_stats(path, instant)["column_stats"]:
        name = ws["path"].split("/")[-1]
        stats.add((ws["numWrites"], ws["numUpdateWrites"], ws["numInserts"], ws["numDeletes"] == len(dels[name])))
    return tuple(sorted(headers)), tuple(sorted(records)), tuple(sorted(stats))


def spark_clean_shape(spark, tmp_path: Path, partitioned: bool) -> tuple[set[str], tuple]:
    """A twin table Spark writes and cleans (1 commit retained): the MDT partitions its clean's
    deltacommit touched, and the shape of its column_stats deletes."""
    name = f"cstwin_{'p' if partitioned else 'np'}"
    path = tmp_path / name
    create(spark, name, path, partitioned)
    spark.sql("SET hoodie.clean.commits.retained=1")
    try:
        for i in range(4):
            spark.sql(f"INSERT INTO {name} VALUES ('k1', {i}, {i}, 'eu')")
    finally:
        spark.sql("RESET hoodie.clean.commits.retained")
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    cleans = sorted(t for t, a in completed(path).items() if a == "clean")
    assert cleans, completed(path)
    # Spark's own deletes name exactly the deleted files' keys (by its earlier records).
    keys = column_stats_keys(path)
    deleted = {n for r in instant_records(path, "files", cleans[0])
               for n, info in (r["filesystemMetadata"] or {}).items() if info["isDeleted"]}
    got = sorted(d["recordKey"] for ds in deleted_keys(path, cleans[0]).values() for d in ds)
    assert got == sorted(k for (f, _), k in keys.items() if f in deleted), (got, deleted)
    return touched_partitions(path, cleans[0]), delete_shape(path, cleans[0])


@pytest.mark.parametrize("engine", ["spark", "spark_v8"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "nonpartitioned"])
def test_clean_deletes_column_stats(request, tmp_path, partitioned, engine):
    """Against Spark 1.2.0 (table version 9) or Spark 1.0.2 (version 8, V1 records)."""
    spark = request.getfixturevalue(engine)
    theirs_parts, theirs_shape = spark_clean_shape(spark, tmp_path, partitioned)
    assert theirs_parts == {"files", "column_stats"}, theirs_parts

    name = f"cs_clean_{'p' if partitioned else 'np'}{'_v8' if engine == 'spark_v8' else ''}"
    path = tmp_path / name
    create(spark, name, path, partitioned)
    spark.sql(f"INSERT INTO {name} VALUES ('k1', 1, 1, 'eu'), ('k2', 2, 1, 'us')")
    model = {"k1": 1, "k2": 2}
    snap = pa.Table.from_batches(hudi.HudiTable(str(path)).read())
    schema = snap.select([c for c in snap.schema.names if not c.startswith("_hoodie")]).schema
    cols = indexed_columns(path)
    assert "v" in cols and "id" in cols, cols
    # 12 updates of both keys (each rewrites their file groups); 2 commits retained: the
    # commits from the fourth on clean the versions the retained ones no longer need.
    for i in range(12):
        rows = [{"id": "k1", "v": 100 + i, "ts": 2 + i, "region": "eu"},
                {"id": "k2", "v": 200 + i, "ts": 2 + i, "region": "us"}]
        hudi.HudiTable(str(path)).upsert(pa.RecordBatch.from_pylist(rows, schema=schema),
                                         options={"hoodie.clean.commits.retained": "2"})
        model.update(k1=100 + i, k2=200 + i)
        check(path)
    cleans = sorted(t for t, a in completed(path).items() if a == "clean")
    assert len(cleans) >= 2, completed(path)

    on_storage = data_files(path)
    keys = column_stats_keys(path)
    n_groups = group_count(path)
    deleted_by: dict[str, set[str]] = {}
    for c in cleans:
        deleted = deleted_by[c] = {n for r in instant_records(path, "files", c)
                   for n, info in (r["filesystemMetadata"] or {}).items() if info["isDeleted"]}
        assert deleted and not (deleted & on_storage), (c, deleted)
        assert touched_partitions(path, c) == theirs_parts, (c, touched_partitions(path, c), theirs_parts)
        dels = deleted_keys(path, c)
        got = sorted(d["recordKey"] for ds in dels.values() for d in ds)
        assert got == sorted(keys[(f, col)] for f in deleted for col in cols), c
        for log, ds in dels.items():
            ks = [d["recordKey"] for d in ds]
            assert ks == sorted(ks), log  # ascending within a block
            group = int(log.lstrip(".").split("_")[0].split("-")[2])
            assert {hc.record_index_shard(k, n_groups) for k in ks} == {group}, log
        assert delete_shape(path, c) == theirs_shape, c

    # Hudi's reader: live column stats for exactly the files on storage.
    assert live_column_stats_files(spark, path) == on_storage

    # The MDT compacted meanwhile (10 deltacommits): its column_stats base files hold records of
    # live files only.
    mdt = completed(path / ".hoodie" / "metadata")
    compactions = sorted(t for t, a in mdt.items() if a == "commit")
    assert compactions, mdt
    gone = {n for c, names in deleted_by.items() if c < compactions[-1] for n in names}
    assert gone
    compacted = set()
    for f in compacted_hfiles(path, "column_stats", compactions[-1]):
        for _, rec in hfile_records(f):
            m = rec["ColumnStatsMetadata"]
            assert not m["isDeleted"] and m["fileName"] not in gone, (f, rec)
            compacted.add(m["fileName"])
    assert compacted

    for k, val in SKIPPING.items():
        spark.sql(f"SET {k}={val}")
    try:
        for cond, pred in [("v >= 200", lambda v: v >= 200), ("v < 100", lambda v: v < 100),
                           ("v = 111", lambda v: v == 111)]:
            res = spark.sql(f"SELECT id FROM {name} WHERE {cond}")
            assert ids(res) == sorted(k for k, v in model.items() if pred(v)), cond
    finally:
        for k in SKIPPING:
            spark.sql(f"RESET {k}")
        spark.sql(f"DROP TABLE IF EXISTS {name}")
