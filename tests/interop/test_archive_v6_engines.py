"""Version-6 tables (timeline layout 1) whose timeline hudi-c archived into
.hoodie/archived/.commits_.archive.N_1-0-1 (Avro HoodieArchivedMetaEntry log blocks, as Hudi's
TimelineArchiverV1 writes them), checked with Spark 1.2.0 (Hudi 1.2.0; its ArchivedTimelineV1
loads our archive file) and hudi-rs 0.5.0.

For COW and MOR tables with commits, delta commits, compactions, cleans, a replacecommit
(overwrite of a partition) and a rollback:
1. every state file hudi-c removed from .hoodie is in Spark's archived timeline, with the same
   requested time, action and state, and the archived commit metadata Spark reads back counts the
   same records and names the same files as the completed files did;
2. the archive's blocks decode with hudi_check's own Avro decoder, one record per state file;
3. Spark and hudi-rs read the table as hudi-c does (snapshot; Spark also time travel to an
   archived commit);
4. Spark writes on and archives into the same folder (the next file version), and hudi-c reads
   its result and archives again after it.
../shared/tools/hudi_check.py passes after every hudi-c step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from test_rollback_v6_engines import rows_of, triples, v6_options

import hudi

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parent.parent.parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = HERE.parent / "run_hudi_check.py"  # see its docstring
KEEP = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4", "hoodie.clean.commits.retained": "2"}
NO_ARCHIVE = {"hoodie.archive.automatic": "false"}


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def state_files(path: Path) -> dict:
    """Instant files of .hoodie: name -> (requested time, action, state) as Hudi's layout 1 names them."""
    out = {}
    for n in os.listdir(path / ".hoodie"):
        if n[0] == "." or n[0] not in "0123456789" or "." not in n:
            continue
        t, rest = n.split(".", 1)
        if rest == "inflight":
            out[n] = (t, "commit", "INFLIGHT")
        elif rest.endswith(".requested") or rest.endswith(".inflight"):
            a, s = rest.rsplit(".", 1)
            out[n] = (t, a, s.upper())
        else:
            out[n] = (t, rest, "COMPLETED")
    return out


def commit_summary(path: Path, name: str) -> tuple:
    """(records written, file paths) of a completed commit's JSON metadata."""
    m = json.loads((path / ".hoodie" / name).read_text() or "{}")
    stats = [s for ss in (m.get("partitionToWriteStats") or {}).values() for s in ss]
    return sum(s.get("numWrites", 0) for s in stats), sorted(s["path"] for s in stats if s.get("path"))


def archive_records(path: Path) -> list:
    """(commitTime, actionType, actionState) of every record of every archive file, decoded with
    hudi_check's parser and Avro decoder (independent of hudi-c's)."""
    sys.path.insert(0, str(CHECKER.parent))
    import hudi_check as hc

    out = []
    for f in sorted((path / ".hoodie" / "archived").glob(".commits_.archive.*")):
        for b in hc.parse_log_file(f.read_bytes()):
            assert b.block_type == 3 and set(b.header) == {hc.SCHEMA}, (f, b.header.keys())
            for r in hc.decode_avro_data_block(b):
                out.append((r["commitTime"], r["actionType"], r["actionState"]))
    return out


def batch(ids, region, v):
    return pa.table({"id": ids, "region": [region] * len(ids), "v": pa.array([v] * len(ids), pa.int64())})


def build(path: Path, table_type: str) -> dict:
    """A hudi-c version-6 table with every kind of instant, archived once; returns the model
    (id -> row), the archived state files and their completed commits' summaries."""
    # The cleaner keeps 6 commits, so the latest archived ones can still be read as of their time.
    opts = {"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false",
            "hoodie.parquet.small.file.limit": "0", "hoodie.clean.commits.retained": "6", **NO_ARCHIVE}
    if table_type == "mor":
        opts.update({"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "3"})
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                              record_index_enabled=False, hudi_options=opts)
    model = {}
    for i in range(9):
        b = batch([f"k{i % 4}", f"n{i}"], ["eu", "us"][i % 2], i)
        t.upsert(b)
        model.update({r[0]: r for r in triples(b)})
    t.overwrite(batch(["o1", "o2"], "us", 50))  # a replacecommit of partition region=us
    model = {k: r for k, r in model.items() if r[1] != "us"}
    model.update({r[0]: r for r in triples(batch(["o1", "o2"], "us", 50))})
    last = t.upsert(batch(["k9"], "eu", 99))
    t.rollback(last.requested_time)  # a rollback instant of a completed write
    for i in range(9, 12):
        b = batch([f"k{i % 4}"], "eu", i)
        t.upsert(b)
        model.update({r[0]: r for r in triples(b)})
    check(path)
    before = state_files(path)
    summaries = {n: commit_summary(path, n) for n, (_, a, s) in before.items()
                 if s == "COMPLETED" and a in ("commit", "deltacommit")}
    res = hudi.HudiTable(str(path)).archive(KEEP)
    after = state_files(path)
    gone = {n: v for n, v in before.items() if n not in after}
    assert res.num_instants_archived > 0 and gone
    assert len({v[0] for v in gone.values()}) == res.num_instants_archived
    check(path)
    return {"model": model, "gone": gone, "summaries": {n: summaries[n] for n in gone if n in summaries}}


@pytest.fixture(scope="module", params=["cow", "mor"])
def archived(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("archive_v6") / f"t_{request.param}"
    return path, request.param, build(path, request.param)


def test_archive_file_decodes(archived):
    path, _, built = archived
    names = [f.name for f in (path / ".hoodie" / "archived").iterdir()]
    assert names == [".commits_.archive.1_1-0-1"]
    assert sorted(archive_records(path)) == sorted(built["gone"].values())


def test_spark_loads_archived_timeline(archived, spark):
    path, _, built = archived
    got = spark.call("archived_timeline", path=str(path))
    assert sorted((i["requested_time"], i["action"], i["state"]) for i in got) == sorted(built["gone"].values())
    by_time = {(i["requested_time"], i["state"]): i for i in got}
    assert built["summaries"]
    for name, (writes, files) in built["summaries"].items():
        i = by_time[(name.split(".")[0], "COMPLETED")]
        assert (i["num_writes"], i["files"]) == (writes, files), name


def test_engines_read_archived_table(archived, spark, hudirs):
    path, _, built = archived
    want = sorted(built["model"].values())
    assert triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read())) == want
    assert rows_of(spark.read_table(str(path))) == want
    assert rows_of(hudirs.read_table(str(path))) == want
    # Time travel to the latest archived write (older ones are cleaned).
    when = max(v[0] for v in built["gone"].values() if v[2] == "COMPLETED" and v[1] in ("commit", "deltacommit"))
    mine = triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read(
        hudi.HudiReadOptions(hudi_options={"hoodie.read.as.of.timestamp": when}))))
    assert rows_of(spark.read_table(str(path), {"as.of.instant": when})) == mine
    assert mine and mine != want
    # Incremental from an archived write: hudi-c scans every file group by commit time, as Spark
    # does with its full-table-scan fallback (without it Spark reads only the files of the active
    # commits in the range, and returns the archived commits' rows only where those files hold them).
    begin = sorted(v[0] for v in built["gone"].values() if v[2] == "COMPLETED")[1]
    got = spark.read_table(str(path), {"hoodie.datasource.query.type": "incremental",
                                       "hoodie.datasource.read.begin.instanttime": begin,
                                       "hoodie.datasource.read.incr.fallback.fulltablescan.enable": "true"})
    mine = triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read(hudi.HudiReadOptions(hudi_options={
        "hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": begin}))))
    assert rows_of(got) == mine and 0 < len(mine) < len(want)


def test_spark_archives_on_then_hudic(archived, spark):
    path, table_type, built = archived
    model = dict(built["model"])
    opts = v6_options(path, table_type)
    opts.update(KEEP)
    saved = {f.name: f.read_bytes() for f in (path / ".hoodie").iterdir()
             if f.name.endswith(".commit") or f.name.endswith(".deltacommit")}
    for i in range(4):
        spark.call("write", path=str(path), rows=[[f"s{i}", "us", 100 + i]], schema="id string, region string, v long",
                   options=opts)
        model[f"s{i}"] = (f"s{i}", "us", 100 + i)
    files = sorted(f.name for f in (path / ".hoodie" / "archived").iterdir() if not f.name.endswith(".crc"))
    assert files[:2] == [".commits_.archive.1_1-0-1", ".commits_.archive.2_1-0-1"], files
    assert triples(pa.Table.from_batches(hudi.HudiTable(str(path)).read())) == sorted(model.values())
    # A Spark archival cut short between its archive file and the completed files (its order: pending
    # files first): a completed file of an instant Spark archived comes back. hudi-c's next archival
    # reads Spark's archive file, finds it recorded and deletes it, archiving nothing twice.
    mine = set(archive_records(path))
    by_spark = sorted(n for n in saved if n not in {f.name for f in (path / ".hoodie").iterdir()}
                      and (n.split(".")[0], n.split(".")[1], "COMPLETED") in mine
                      and n.split(".")[0] not in {v[0] for v in built["gone"].values()})
    assert by_spark, "Spark archived none of hudi-c's commits"
    (path / ".hoodie" / by_spark[-1]).write_bytes(saved[by_spark[-1]])
    t = hudi.HudiTable(str(path))
    for i in range(5):
        b = batch([f"h{i}"], "eu", 200 + i)
        t.upsert(b, KEEP)
        model.update({r[0]: r for r in triples(b)})
    check(path)
    assert not (path / ".hoodie" / by_spark[-1]).exists()
    names = sorted(f.name for f in (path / ".hoodie" / "archived").iterdir() if not f.name.endswith(".crc"))
    assert len(names) > len(files), names
    assert len(archive_records(path)) == len(set(archive_records(path)))  # nothing archived twice
    got = spark.call("archived_timeline", path=str(path))
    assert {i["requested_time"] for i in got} >= {v[0] for v in built["gone"].values()}
    assert sorted(archive_records(path)) == sorted((i["requested_time"], i["action"], i["state"]) for i in got)
    assert rows_of(spark.read_table(str(path))) == sorted(model.values())
