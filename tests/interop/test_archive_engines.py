"""Tables whose timeline hudi-c archived into the LSM history, read by Apache Hudi's Spark reader
(1.2.0, whose CompletionTimeQueryView loads the history on every read, so an unreadable history
breaks plain reads) and by hudi-rs; hudi_check passes.

Compared: snapshot reads, time travel to an archived commit (which Spark answers from the files
and the commit times), and incremental reads whose range starts before the active timeline (Spark
takes the archived instants' completion times and commit metadata from the history's Parquet).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from oracles import row_diff
from test_read_hudic import ours

HERE = Path(__file__).resolve().parent
CHECKER = HERE.parent.parent.parent / "shared" / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


@pytest.fixture(scope="module")
def archived(tmp_path_factory):
    import hudi

    path = tmp_path_factory.mktemp("archive") / "t"
    t = hudi.HudiTable.create(str(path), "id", record_index_enabled=False)
    commits = []
    for i in range(12):
        r = t.append(pa.table({"id": [f"k{i:02d}"], "v": pa.array([i], pa.int64())}),
                     {"hoodie.archive.automatic": "false"})
        commits.append((r.requested_time, r.completion_time))
    # The cleaner's retained commits bound archival too (ArchivalUtils): lower both.
    res = t.archive({"hoodie.keep.min.commits": "4", "hoodie.keep.max.commits": "5",
                     "hoodie.clean.commits.retained": "2"})
    assert res.num_instants_archived == 8
    assert (path / ".hoodie" / "timeline" / "history" / "_version_").read_text() == "1"
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return str(path), commits


def _same(a, b, names):
    ca, cb = a.canonical(), b.canonical()
    assert ca == cb, row_diff(ca, cb, names)


def test_spark_reads_archived_table(archived, spark):
    path, commits = archived
    _same(ours(path), spark.read_table(path), ("hudi-c", "spark"))
    active = [i["requested_time"] for i in spark.timeline(path) if i["action"] == "commit"]
    assert active == [c[0] for c in commits[8:]]


def test_spark_time_travel_to_archived_commit(archived, spark):
    path, commits = archived
    for i in (0, 5):
        got = spark.read_table(path, {"as.of.instant": commits[i][0]})
        assert len(got.rows) == i + 1
        _same(ours(path, {"hoodie.read.as.of.timestamp": commits[i][0]}), got, ("hudi-c", "spark"))


def test_spark_incremental_into_history(archived, spark):
    path, commits = archived
    begin, end = commits[2][1], commits[9][1]
    got = spark.read_table(path, {"hoodie.datasource.query.type": "incremental",
                                  "hoodie.datasource.read.begin.instanttime": begin,
                                  "hoodie.datasource.read.end.instanttime": end})
    assert sorted(r["id"] for r in got.rows) == [f"k{i:02d}" for i in range(3, 10)]
    mine = ours(path, {"hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": begin,
                       "hoodie.read.end.timestamp": end})
    _same(mine, got, ("hudi-c", "spark"))


def test_hudirs_reads_archived_table(archived, hudirs):
    path, _ = archived
    _same(ours(path), hudirs.read_table(path), ("hudi-c", "hudi-rs"))
