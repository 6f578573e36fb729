"""After hudi-c compacts its metadata table (MDT), Spark 1.2.0 lists the table through the
compacted `files` partition (hoodie.metadata.enable=true) and upserts through the compacted
record index (RECORD_INDEX) without rebuilding it, and hudi-rs reads the table through the MDT.

Oracles: a model of the rows hudi-c wrote; Spark's and hudi-rs's reads; that Spark used our
index (no initialisation instant, the same record_index file groups, its deltacommit updates
record_index, and a key whose region changes moves instead of being duplicated: only a lookup
of the compacted index, whose base HFiles hold the key, can find it) and kept our compaction
(its commit stays on the MDT timeline); ../shared/tools/hudi_check.py with its metadata checks.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

import hudi
from test_write_mdt_engines import (batch, check, mdt_file_groups, mdt_timeline, ours, spark_rows,
                                    spark_upsert, triples, write_stat_partitions)


def spark_upsert_compacting(interop_config, tmp_path: Path, path: Path, rows) -> None:
    """A Spark upsert (MOR, partitioned by region) with hoodie.metadata.compact.max.delta.commits=2,
    so that Spark compacts the metadata table. Hudi 1.2's write that compacts the metadata table in
    its midst may then fail its own metadata records (ArrayIndexOutOfBoundsException in
    HoodieMetadataPayload.getInsertValue; a table Spark alone wrote fails the same way,
    docs/compatibility.md 25): the write is then rolled back by the next, which must succeed."""
    r = spark_upsert(interop_config, tmp_path, path, "mor", True, rows,
                     {"hoodie.metadata.compact.max.delta.commits": "2"}, must_succeed=False)
    if r.returncode != 0:
        assert "HoodieMetadataPayload.getInsertValue" in r.stdout + r.stderr, r.stdout[-3000:] + r.stderr[-6000:]
        spark_upsert(interop_config, tmp_path, path, "mor", True, rows)


def hfiles_of(path: Path, partition: str, instant: str) -> list[str]:
    return [n for n in os.listdir(path / ".hoodie" / "metadata" / partition) if n.endswith(f"_{instant}.hfile")]


@pytest.mark.parametrize("table_type,partitioned", [("mor", True), ("cow", False)])
def test_engines_use_our_compacted_mdt(tmp_path, spark, hudirs, interop_config, table_type, partitioned):
    path = tmp_path / f"mdtc_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region" if partitioned else None,
                              table_type=table_type)
    want = {}
    # 2 initialisation deltacommits + 8 writes: the MDT compacts after the 8th; 12 in all.
    for i in range(12):
        if i % 3 == 2:
            upd = pa.table({"id": [f"k{i * 6 - 6:03d}", f"k{i * 6 - 5:03d}"], "region": ["eu", "us"],
                            "v": pa.array([5000 + i, 6000 + i], pa.int64())})
            hudi.HudiTable(str(path)).upsert(upd)
            want.update({r[0]: r for r in triples(upd)})
        else:
            b = batch(i * 6, 6)
            hudi.HudiTable(str(path)).append(b)
            want.update({r[0]: r for r in triples(b)})
    expected = sorted(want.values())
    assert ours(path) == expected
    compactions = [f for f in mdt_timeline(path) if f.endswith(".commit")]
    assert len(compactions) == 1, mdt_timeline(path)
    instant = compactions[0].split("_")[0]
    assert len(hfiles_of(path, "record_index", instant)) == 10
    assert len(hfiles_of(path, "files", instant)) == 1
    check(path)

    assert spark_rows(hudirs.read_table(str(path))) == expected
    got = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert spark_rows(got) == expected

    # k005 (written before the compaction: its index entry is in a base HFile) moves to eu.
    before_timeline = mdt_timeline(path)
    before_groups = mdt_file_groups(path, "record_index")
    assert len(before_groups) == 10
    moved_from = want["k005"][1]
    spark_upsert(interop_config, tmp_path, path, table_type, partitioned,
                 [["k004", "us", 1004], ["k005", "eu" if moved_from != "eu" else "us", 1005],
                  ["k999", "us", 999]])
    new = [f for f in mdt_timeline(path) if f not in before_timeline]
    assert new, "Spark wrote nothing to the metadata table"
    for f in new:
        t0 = f.split(".")[0].split("_")[0]
        assert len(t0) == 17 and not t0.startswith("00000000000000"), f"index re-initialised: {new}"
    assert mdt_file_groups(path, "record_index") == before_groups
    assert compactions[0] in mdt_timeline(path)  # Spark kept our compaction
    done = [f for f in new if f.endswith(".deltacommit") and "_" in f]
    assert any("record_index" in write_stat_partitions(path, f) for f in done), new

    want["k004"] = ("k004", "us", 1004)
    want["k005"] = ("k005", "eu" if moved_from != "eu" else "us", 1005)
    want["k999"] = ("k999", "us", 999)
    after = sorted(want.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    # (hudi-rs 0.5.0 is not asked again: Spark 1.2.0's MDT log blocks carry the 1.1 payload
    # schema (ColumnStatsMetadata with valueType) beside our version-8 one, and hudi-rs fails
    # to reconcile the two: "reconcile: column 'ColumnStatsMetadata' ... source had 11
    # children but target expects 10".)
    check(path, spark_wrote=True)


def test_engines_use_incrementally_compacted_mdt(tmp_path, spark, hudirs, interop_config):
    """hoodie.metadata.compact.incremental: each commit compacts a share of the MDT's file
    groups, so the record index is a mix of groups compacted at different instants, each read
    as its own base plus the logs after it. Spark and hudi-rs read the table through it, Spark
    upserts through it (the moved key is found only through our index), and hudi-c and Spark
    keep writing after each other; archival keeps the deltacommits whose logs are still read."""
    path = tmp_path / "mdtc_incremental"
    opts = {"hoodie.metadata.compact.incremental": "true",
            # archive early, so the rule that keeps live logs' deltacommits is exercised
            "hoodie.keep.min.commits": "4", "hoodie.keep.max.commits": "6",
            "hoodie.metadata.keep.min.commits": "4", "hoodie.metadata.keep.max.commits": "6",
            "hoodie.clean.commits.retained": "2"}
    hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor")
    want = {}
    for i in range(16):
        if i % 3 == 2:
            upd = pa.table({"id": [f"k{i * 6 - 6:03d}", f"k{i * 6 - 5:03d}"], "region": ["eu", "us"],
                            "v": pa.array([5000 + i, 6000 + i], pa.int64())})
            hudi.HudiTable(str(path)).upsert(upd, opts)
            want.update({r[0]: r for r in triples(upd)})
        else:
            b = batch(i * 6, 6)
            hudi.HudiTable(str(path)).upsert(b, opts)
            want.update({r[0]: r for r in triples(b)})
        assert ours(path) == sorted(want.values()), i
    expected = sorted(want.values())
    compactions = [f for f in mdt_timeline(path) if f.endswith(".commit")]
    assert len(compactions) >= 3, mdt_timeline(path)  # archival takes the older ones
    # A mix: the record-index shards' latest base files come from different compactions.
    names = os.listdir(path / ".hoodie" / "metadata" / "record_index")
    latest = {}
    for n in names:
        if n.endswith(".hfile"):
            fid, inst = n.split("_")[0], n.rsplit("_", 1)[1][:-6]
            latest[fid] = max(latest.get(fid, ""), inst)
    assert len(latest) >= 6 and len(set(latest.values())) >= 3, latest
    history = path / ".hoodie" / "metadata" / ".hoodie" / "timeline" / "history"
    assert history.is_dir() and any(history.iterdir()), "the MDT archived nothing"
    check(path)

    assert spark_rows(hudirs.read_table(str(path))) == expected
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected

    before_groups = mdt_file_groups(path, "record_index")
    moved_from = want["k005"][1]
    spark_upsert(interop_config, tmp_path, path, "mor", True,
                 [["k004", "us", 1004], ["k005", "eu" if moved_from != "eu" else "us", 1005],
                  ["k999", "us", 999]])
    assert mdt_file_groups(path, "record_index") == before_groups
    want["k004"] = ("k004", "us", 1004)
    want["k005"] = ("k005", "eu" if moved_from != "eu" else "us", 1005)
    want["k999"] = ("k999", "us", 999)
    # And we write after Spark, still incrementally.
    upd = pa.table({"id": ["k005", "k010"], "region": ["us", "eu"], "v": pa.array([7005, 7010], pa.int64())})
    hudi.HudiTable(str(path)).upsert(upd, opts)
    want.update({r[0]: r for r in triples(upd)})
    after = sorted(want.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    check(path, spark_wrote=True)


def test_engines_use_mdt_with_copied_blocks(tmp_path, spark, hudirs, interop_config):
    """hoodie.metadata.compact.copy.unchanged.blocks (default true): a compaction after the
    first copies the data blocks of each record-index shard's base file that no change falls
    in. The copied records keep the older base file's _hoodie_file_name, and the bloom filter
    goes on from the older file's. Spark and hudi-rs read the table through such files, Spark
    upserts through them (the moved key is found only through our index) and compacts the
    metadata table from them (every record of its new base files names its own file), and we go
    on after Spark."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from test_mdt_compact_copy import foreign_names, latest_shards

    path = tmp_path / "mdtc_copied"
    opts = {"hoodie.metadata.compact.max.delta.commits": "3"}
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor")
    n = 130_000  # over 10,000 keys a shard: smaller base files are rebuilt whole
    first = batch(0, n)
    t.append(first, opts)
    want = {r[0]: r for r in triples(first)}
    i = 0
    while len([f for f in mdt_timeline(path) if f.endswith(".commit")]) < 2:
        i += 1
        b = batch(n + 100 * i, 100)  # new keys
        upd = pa.table({"id": [f"k{j:03d}" for j in range(i * 7, n, 997)],
                        "region": [want[f"k{j:03d}"][1] for j in range(i * 7, n, 997)],
                        "v": pa.array([-j for j in range(i * 7, n, 997)], pa.int64())})
        hudi.HudiTable(str(path)).upsert(pa.concat_tables([b, upd]), opts)
        want.update({r[0]: r for r in triples(b) + triples(upd)})
        assert i < 12
    copied = total = 0
    for f in latest_shards(path).values():
        o, k = foreign_names(f)
        copied, total = copied + o, total + k
    assert total == len(want) and copied > total // 2, (copied, total)
    check(path)
    expected = sorted(want.values())
    assert spark_rows(hudirs.read_table(str(path))) == expected
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected

    before_groups = mdt_file_groups(path, "record_index")
    moved_from = want["k005"][1]
    moved_to = "eu" if moved_from != "eu" else "us"
    compactions = {f.split("_")[0] for f in mdt_timeline(path) if f.endswith(".commit")}
    spark_upsert(interop_config, tmp_path, path, "mor", True, [["k005", moved_to, 1005], ["k999999", "us", 9]])
    # A second Spark write with two deltacommits making the metadata table due: Spark compacts it,
    # reading every record of our copied blocks.
    spark_upsert_compacting(interop_config, tmp_path, path, [["k999998", "us", 8]])
    want["k999998"] = ("k999998", "us", 8)
    assert mdt_file_groups(path, "record_index") == before_groups
    # Spark's compaction read our copied blocks and wrote the shards with new logs again: every
    # record of its files names its own file.
    sparks = {f.split("_")[0] for f in mdt_timeline(path) if f.endswith(".commit")} - compactions
    assert sparks
    shards: dict[str, Path] = {}
    for f in (path / ".hoodie" / "metadata" / "record_index").glob("*.hfile"):
        g = f.name.split("_")[0]
        if g not in shards or f.name.rsplit("_", 1)[1] > shards[g].name.rsplit("_", 1)[1]:
            shards[g] = f
    by_spark = [f for f in shards.values() if f.name.rsplit("_", 1)[1].split(".")[0] in sparks]
    assert by_spark and all(foreign_names(f)[0] == 0 for f in by_spark), [f.name for f in by_spark]
    assert len(want) - 1 <= sum(foreign_names(f)[1] for f in shards.values()) <= len(want) + 1
    want["k005"] = ("k005", moved_to, 1005)
    want["k999999"] = ("k999999", "us", 9)
    upd = pa.table({"id": ["k005", "k010"], "region": ["us", "eu"], "v": pa.array([7005, 7010], pa.int64())})
    hudi.HudiTable(str(path)).upsert(upd, opts)
    want.update({r[0]: r for r in triples(upd)})
    after = sorted(want.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    check(path, spark_wrote=True)


def test_engines_use_bulk_load_rli_base_files(tmp_path, spark, hudirs, interop_config):
    """hoodie.metadata.record.index.initial.base.files (default true): the bulk load writes each
    record-index shard's keys as its base HFile in the load's metadata deltacommit, the file
    Java's metadata initialisation (bulkCommit) writes, values with null meta fields. Spark and
    hudi-rs read the table right after the load; Spark upserts through those base files (the
    moved key is found only through our index) and compacts the metadata table from them; we go
    on after Spark. A load that failed after its metadata deltacommit is rolled back by Spark's
    next write, base files included."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
    from test_rli_base_files import base_files, logs_after_init

    path = tmp_path / "mdt_rli_base"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type="mor")
    first = batch(0, 3000)
    r = t.append(first)
    assert [f.name.rsplit("_", 1)[1] for f in base_files(path)] == [f"{r.requested_time}.hfile"] * 10
    assert logs_after_init(path) == []
    want = {x[0]: x for x in triples(first)}
    check(path)
    expected = sorted(want.values())
    assert spark_rows(hudirs.read_table(str(path))) == expected
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == expected

    before_groups = mdt_file_groups(path, "record_index")
    moved_from = want["k005"][1]
    moved_to = "eu" if moved_from != "eu" else "us"
    before = mdt_timeline(path)
    spark_upsert(interop_config, tmp_path, path, "mor", True, [["k005", moved_to, 1005], ["k999999", "us", 9]])
    new = [f for f in mdt_timeline(path) if f not in before]
    assert new and not any(f.startswith("00000000000000") for f in new), f"index re-initialised: {new}"
    assert mdt_file_groups(path, "record_index") == before_groups
    want["k005"] = ("k005", moved_to, 1005)
    want["k999999"] = ("k999999", "us", 9)
    assert ours(path) == sorted(want.values())

    # Spark compacts the metadata table from our bulk load's base files.
    compactions = {f.split("_")[0] for f in mdt_timeline(path) if f.endswith(".commit")}
    spark_upsert_compacting(interop_config, tmp_path, path, [["k999998", "us", 8]])
    want["k999998"] = ("k999998", "us", 8)
    assert {f.split("_")[0] for f in mdt_timeline(path) if f.endswith(".commit")} - compactions, "Spark did not compact"
    upd = pa.table({"id": ["k010", "k011"], "region": ["us", "eu"], "v": pa.array([7010, 7011], pa.int64())})
    hudi.HudiTable(str(path)).upsert(upd)
    want.update({x[0]: x for x in triples(upd)})
    after = sorted(want.values())
    assert ours(path) == after
    assert spark_rows(spark.read_table(str(path), {"hoodie.metadata.enable": "true"})) == after
    check(path, spark_wrote=True)

    # A bulk load whose data instant never completed (its completed file removed, as a crash
    # after the metadata deltacommit leaves it): Spark's next write rolls it back, our base files
    # with it, and finds its keys through the index as before.
    failed_path = tmp_path / "mdt_rli_base_failed"
    t = hudi.HudiTable.create(str(failed_path), "id", partition_fields="region", table_type="mor")
    w = t.append(batch(0, 300))
    tl = failed_path / ".hoodie" / "timeline"
    done = [n for n in os.listdir(tl) if n.startswith(w.requested_time + "_")]
    assert len(done) == 1 and len(base_files(failed_path)) == 10
    os.remove(tl / done[0])
    spark_upsert(interop_config, tmp_path, failed_path, "mor", True, [["k001", "eu", 1], ["k002", "us", 2]])
    assert [f for f in base_files(failed_path) if w.requested_time in f.name] == []
    assert ours(failed_path) == [("k001", "eu", 1), ("k002", "us", 2)]
    assert spark_rows(spark.read_table(str(failed_path), {"hoodie.metadata.enable": "true"})) == ours(failed_path)
    check(failed_path, spark_wrote=True)
