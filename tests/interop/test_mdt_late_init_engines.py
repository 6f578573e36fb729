"""Spark 1.2 initialises column and partition stats late on a hudi-c table whose metadata table
(MDT) timeline hudi-c archived, and goes on upserting through hudi-c's record index.

The hazard: Java Hudi's file-system view takes a base file as committed when its instant is
completed on the active timeline or older than the timeline's first instant. Java initialises a
metadata partition late at an instant time 00000000000000NNN, which sorts before everything; from
then on an MDT base file whose instant is archived is older than nothing on the active timeline and
so invisible. An update-only workload gives the record-index shards no log files, so their latest
base files come from old MDT compactions, which the MDT archival archives: once Spark (whose
defaults enable column and partition stats) has initialised column_stats late, its record-index
lookups find no file slice ("No file slices found for partition: record_index") and its upserts
fail ("Partition record_index should be part of inflight metadata partitions here []").

hudi-c's MDT archival therefore keeps every metadata file group's latest base file on the active
timeline (it compacts a group anew before archiving the instant that wrote its latest base). No
instant is exempt, initialisation times 00000000000000NNN included: once Java has added its own
00000000000000NNN instants to the active timeline, an archived one of ours no longer sorts before
the timeline's start. The rule is checked after hudi-c's update-only writes, and again after
hudi-c has written on past Spark's late initialisation (its archival then reaches Java's
initialisation instants and, without the rule, the record-index bases of its latest compaction).

Oracles: the files on disk (every latest MDT base file was written by an instant completed on the
active MDT timeline); a model of the rows; Spark's reads (through the MDT) and its own metadata
reader (HoodieBackedTableMetadata: the files listing and a record-index lookup of every key);
hudi-c's reads; ../shared/tools/hudi_check.py at the end.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import hudi
from test_archive_mdt_engines import active, history
from test_mdt_bootstrap_engines import CHECKER, RUN_CHECKER, SCHEMA, props, same, spark_rows, our_rows
from test_mixed_sequence import spark_options

# Small archival and MDT compaction settings, passed with every hudi-c write: the MDT compacts every
# three delta commits and its timeline is archived down to three instants.
SMALL = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "5",
         "hoodie.metadata.keep.min.commits": "3", "hoodie.metadata.keep.max.commits": "5",
         "hoodie.clean.commits.retained": "1", "hoodie.metadata.compact.max.delta.commits": "3"}
REGIONS = ("eu", "us")
HFILE = re.compile(r"^(?P<group>.+)_(?P<token>\d+-\d+-\d+)_(?P<instant>\d{17})\.hfile$")


def mdt_timeline(path: Path) -> Path:
    return path / ".hoodie" / "metadata" / ".hoodie" / "timeline"


def listed(path: Path) -> list:
    return sorted(props(path)["hoodie.table.metadata.partitions"].split(","))


def latest_bases(path: Path) -> dict:
    """(MDT partition, file group) -> the instant of its latest base file, for every partition
    hoodie.table.metadata.partitions lists (groups with log files only have no entry)."""
    out = {}
    for part in listed(path):
        for name in os.listdir(path / ".hoodie" / "metadata" / part):
            m = HFILE.match(name)
            if m:
                key = (part, m.group("group"))
                out[key] = max(out.get(key, ""), m.group("instant"))
    return out


def bases_off_the_active_timeline(path: Path) -> list:
    """The latest MDT base files whose instant is not a completed commit or deltacommit of the
    active MDT timeline (with where that instant is instead): the files Java stops seeing once it
    has an instant 00000000000000NNN on that timeline."""
    tl = mdt_timeline(path)
    done = {t for t, a in active(tl).items() if a in ("commit", "deltacommit")}
    hist = history(tl) if (tl / "history" / "_version_").exists() else {}
    return [f"{part}/{group}: latest base by {instant} "
            f"({'archived ' + hist[instant] if instant in hist else 'not on the timeline'})"
            for (part, group), instant in sorted(latest_bases(path).items()) if instant not in done]


def storage_files(path: Path) -> dict:
    """The data files of each partition as listed on disk (Hadoop's .crc checksums aside)."""
    return {f"region={r}": sorted(n for n in os.listdir(path / f"region={r}")
                                  if not n.startswith(".hoodie_partition_metadata") and not n.endswith(".crc"))
            for r in REGIONS}


def spark_sees_every_key(spark, path: Path, model: dict) -> None:
    """Hudi's own metadata reader lists every data file and finds every key in the record index,
    in its partition."""
    view = spark.call("mdt_view", path=str(path), keys=sorted(model))
    assert {p: sorted(view["files"].get(p, {})) for p in storage_files(path)} == storage_files(path)
    found = {k: loc[0] for k, loc in view["record_index"].items()}
    assert found == {k: f"region={v[0]}" for k, v in model.items()}, (
        sorted(set(model) - set(found))[:10], sorted(set(found) - set(model))[:10])


def checker_failures(path: Path) -> list:
    """The checker's failures but those on the .crc checksums Spark's (Hadoop's) local file system
    leaves beside its files (see test_mdt_bootstrap_engines.checked)."""
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert "passed" in r.stdout, r.stdout + r.stderr
    return [ln for ln in r.stdout.splitlines() if ln.startswith("FAIL") and ".crc:" not in ln]


def rows_of(rows: list) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "region": [r[1] for r in rows],
                     "v": pa.array([r[2] for r in rows], pa.int64()), "note": [r[3] for r in rows]})


def key(i: int) -> list:
    return [f"k{i:03d}", REGIONS[i % 2]]


def both_read(spark, path: Path, model: dict) -> None:
    want = sorted((k, *v) for k, v in model.items())
    got = spark_rows(spark, path)
    ids = [g[0] for g in got]
    assert len(ids) == len(set(ids)), sorted({k for k in ids if ids.count(k) > 1})  # no key twice
    same(got, want, "spark")
    same(our_rows(path), want, "hudi-c")


def spark_then_hudi_c(spark, path: Path, model: dict, spark_upsert, hudi_c) -> None:
    """Spark upserts existing keys only, spread over the record-index shards (each must be tagged
    to its file group, not inserted twice), both engines read the model; then six hudi-c upserts
    (updates, and an insert every other write) carry its archival on."""
    spark_upsert([key(i) + [6000 + i, "spark2"] for i in range(0, 40, 3)]
                 + [["n002", "eu", 6102, "spark2"], ["s001", "us", 6201, "spark2"]])
    both_read(spark, path, model)
    for w in range(6):
        r = hudi_c([key(w * 7 % 40) + [7000 + w, f"hudi-c{w}"], ["s000", "eu", 7100 + w, f"hudi-c{w}"]]
                   + ([[f"h{w:03d}", "us", 7200 + w, "hudi-c"]] if w % 2 else []))
        assert (r.num_updates, r.num_inserts) == (2, w % 2)


@pytest.mark.parametrize("table_type", ["mor", "cow"])
def test_spark_initialises_stats_late_on_an_archived_metadata_table(tmp_path, spark, table_type):
    path = tmp_path / f"late_{table_type}"
    hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type,
                          hudi_options={"hoodie.write.table.version": "9",
                                        "hoodie.datasource.write.hive_style_partitioning": "true",
                                        "hoodie.table.timeline.timezone": "UTC"})
    model = {}

    def hudi_c(rows: list):
        r = hudi.HudiTable(str(path)).upsert(rows_of(rows), SMALL)
        model.update({x[0]: tuple(x[1:]) for x in rows})
        return r

    def spark_upsert(rows: list) -> None:
        o = spark_options(path, table_type, "upsert")
        o.update({"hoodie.write.table.version": "9",
                  "hoodie.metadata.index.column.stats.enable": "true",  # Spark's defaults
                  "hoodie.metadata.index.partition.stats.enable": "true"})
        spark.call("write", path=str(path), rows=rows, schema=SCHEMA, options=o)
        model.update({x[0]: tuple(x[1:]) for x in rows})

    # 1. hudi-c: 40 keys, 6 new keys (log files in some record-index shards), then updates only
    # (no record-index log files): the shards' latest bases come from early MDT compactions.
    assert hudi_c([key(i) + [i, "w0"] for i in range(40)]).num_inserts == 40
    assert hudi_c([[f"n{i:03d}", REGIONS[i % 2], i, "w1"] for i in range(6)]).num_inserts == 6
    for w in range(2, 20):
        r = hudi_c([key((w * 2 + i) % 40) + [w * 100 + i, f"w{w}"] for i in range(3)])
        assert (r.num_updates, r.num_inserts) == (3, 0)
    assert listed(path) == ["files", "record_index"]
    tl = mdt_timeline(path)
    hist = history(tl)
    assert hist, "the metadata table's timeline was never archived"
    assert any(t.startswith("00000000000000") for t in hist), sorted(hist)[:5]
    assert not any(n.startswith("00000000000000") for n in os.listdir(tl)), sorted(os.listdir(tl))[:5]
    both_read(spark, path, model)

    # 2. Every latest MDT base file is on the active MDT timeline.
    off = bases_off_the_active_timeline(path)
    assert not off, "\n".join(off)

    # 3. Spark upserts with its default metadata indexes: it initialises column_stats and
    # partition_stats late, then tags through our record index (a few keys from before, new keys).
    spark_upsert([key(i) + [5000 + i, "spark1"] for i in (1, 10, 17, 24, 33)]
                 + [[f"s{i:03d}", REGIONS[i % 2], 5100 + i, "spark1"] for i in range(3)])
    assert {"files", "column_stats", "record_index"} <= set(listed(path)), listed(path)
    both_read(spark, path, model)
    spark_sees_every_key(spark, path, model)

    # 4. Spark again, existing keys only, spread over the record-index shards (each must be tagged
    # to its file group, not inserted twice); then hudi-c, whose writes archive the MDT timeline on.
    spark_then_hudi_c(spark, path, model, spark_upsert, hudi_c)
    off = bases_off_the_active_timeline(path)
    assert not off, "\n".join(off)
    both_read(spark, path, model)
    spark_sees_every_key(spark, path, model)
    assert checker_failures(path) == []
