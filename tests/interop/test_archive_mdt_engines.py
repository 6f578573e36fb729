"""hudi-c archives the metadata table's (MDT) own timeline into its LSM history
(.hoodie/metadata/.hoodie/timeline/history), kept behind the data table's active timeline and
the MDT's latest compaction, as Hudi's metadata write client archives it; Spark 1.2.0 then reads
the table through the MDT, lists the MDT's archived instants from our history, and upserts
through our record index; hudi-c reads Spark's result.

Oracles: a model of the rows; Spark's reads (through the MDT), its meta client's active timeline
of the MDT, and its archived timeline of the MDT (HoodieArchivedTimeline via the
show_archived_commits procedure over a copy of the MDT); the rules, checked on
the files: every archived MDT instant is older than the data table's earliest active commit and
than the MDT's latest compaction, and no instant is both active and archived;
../shared/tools/hudi_check.py after every step.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hudi
from test_mdt_compact_stats_engines import plain
from test_write_mdt_engines import batch, check, ours, spark_rows, spark_upsert, triples

SMALL = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "5",
         "hoodie.metadata.keep.min.commits": "3", "hoodie.metadata.keep.max.commits": "5",
         "hoodie.clean.commits.retained": "1"}


def active(timeline_dir: Path) -> dict[str, str]:
    """requested time -> action of the completed instants of an active timeline."""
    out = {}
    for f in os.listdir(timeline_dir):
        head, _, action = f.partition(".")
        if "_" in head and not f.startswith(".") and "." not in action:
            out[head.split("_")[0]] = action
    return out


def history(timeline_dir: Path) -> dict[str, str]:
    """instant -> action of the rows of the LSM history files the manifest lists."""
    h = timeline_dir / "history"
    version = int((h / "_version_").read_text().strip())
    manifest = json.loads((h / f"manifest_{version}").read_text())
    out = {}
    for f in manifest["files"]:
        t = pq.read_table(h / f["fileName"], columns=["instantTime", "action"])
        out.update(zip(t.column("instantTime").to_pylist(), t.column("action").to_pylist()))
    return out


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_mdt_timeline_archived(tmp_path, spark, interop_config, table_type):
    path = tmp_path / f"mdtarch_{table_type}"
    t = hudi.HudiTable.create(str(path), "id", partition_fields="region", table_type=table_type)
    want = {}
    mdt_tl = path / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    data_tl = path / ".hoodie" / "timeline"
    archived_total = 0
    for i in range(34):
        b = batch(i * 3, 3)
        t.append(b, SMALL)
        want.update({r[0]: r for r in triples(b)})
        if i % 8 == 7:
            check(path)
    res = t.archive(SMALL)  # nothing left to do, or a last step: either way the rules hold
    archived_total += res.mdt_instants_archived
    expected = sorted(want.values())
    assert ours(path) == expected
    check(path)

    mdt_active, mdt_hist = active(mdt_tl), history(mdt_tl)
    assert mdt_hist, "the metadata table's timeline was never archived"
    assert not set(mdt_active) & set(mdt_hist)
    data_active = active(data_tl)
    earliest_data = min(k for k, a in data_active.items() if a in ("commit", "deltacommit", "replacecommit"))
    last_compaction = max(k for k, a in mdt_active.items() if a == "commit")
    assert max(mdt_hist) < earliest_data and max(mdt_hist) < last_compaction, (max(mdt_hist), earliest_data,
                                                                               last_compaction)
    # the MDT's earliest instants went first (its initialisation among them)
    assert min(mdt_hist) < min(mdt_active)
    assert any(k.startswith("00000000000000") for k in mdt_hist), sorted(mdt_hist)[:5]
    # each history row holds the archived instant's completed metadata as the active file had it
    # (a deltacommit's HoodieCommitMetadata): spot-check one decodes
    h = mdt_tl / "history"
    f = next(n for n in sorted(os.listdir(h)) if n.endswith(".parquet"))
    row = pq.read_table(h / f).to_pylist()[0]
    if row["action"] == "deltacommit":
        meta = next(fastavro.reader(io.BytesIO(row["metadata"])))
        assert "partitionToWriteStats" in meta

    # Spark reads through the MDT whose timeline we archived.
    got = spark.read_table(str(path), {"hoodie.metadata.enable": "true"})
    assert spark_rows(got) == expected
    # Hudi's view of the MDT: its active timeline is ours, its archived timeline our history.
    theirs_active = {i["requested_time"] for i in spark.timeline(str(path / ".hoodie" / "metadata"))
                     if i["state"] == "COMPLETED"}
    assert theirs_active == set(mdt_active)
    # Hudi's archived timeline of the MDT (HoodieArchivedTimeline reading our LSM history): the
    # show_archived_commits procedure over a catalog table on a copy of the MDT (the procedure
    # takes a table name; the copy keeps the original untouched by the catalog).
    import shutil
    copy = tmp_path / "mdt_copy"
    shutil.copytree(path / ".hoodie" / "metadata", copy)
    spark.sql("DROP TABLE IF EXISTS mdt_archived")
    spark.sql(f"CREATE TABLE mdt_archived USING hudi LOCATION '{copy}'")
    try:
        frame = spark.sql("CALL show_archived_commits(table => 'mdt_archived', limit => 1000, "
                          "start_ts => '00000000000000000', end_ts => '99999999999999999')")
    finally:
        spark.sql("DROP TABLE IF EXISTS mdt_archived")
    theirs_hist = {plain(r["commit_time"]) for r in frame.rows}
    # (the range's start is exclusive: the first initialisation instant 00000000000000000 is its
    # start, so it alone is not listed)
    assert theirs_hist == {k for k, a in mdt_hist.items()
                           if a in ("commit", "deltacommit") and k != "00000000000000000"}, \
        (sorted(theirs_hist)[:5], sorted(mdt_hist)[:5], frame.columns)

    # Spark upserts through our record index (its MDT writer loads our MDT timeline), and we read it.
    spark_upsert(interop_config, tmp_path, path, table_type, True, [["k004", "us", 1004], ["k999", "us", 999]])
    want["k004"] = ("k004", "us", 1004)
    want["k999"] = ("k999", "us", 999)
    assert ours(path) == sorted(want.values())
    check(path, spark_wrote=True)
