"""Timeline archival (HudiTable.archive and the automatic archival after each write).

Oracles: pyarrow reads the history's Parquet file (schema, footer, codec and values compared with
what Spark + Hudi 1.2.0 writes: message org.apache.hudi.avro.model.HoodieLSMTimelineInstant,
optional UTF8 instantTime / completionTime / action, optional binary metadata / plan, required
int32 version, GZIP, parquet.avro.schema); the completed instant files' bytes captured before they
were archived; json for the manifest; the rows read after every commit (time travel and
incremental reads into the history must return them); ../shared/tools/hudi_check.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import hudi
from hudi import HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
NO_AUTO = {"hoodie.archive.automatic": "false"}


def check(path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def ids(table: HudiTable, opts=None) -> list:
    ro = hudi.HudiReadOptions(hudi_options=opts) if opts else None
    got = pa.Table.from_batches(table.read(ro) if ro else table.read()).to_pylist()
    return sorted(r["id"] for r in got)


def write_commits(path: Path, n: int, options=None):
    t = HudiTable.create(str(path), "id", record_index_enabled=False)
    commits, snapshots = [], []
    for i in range(n):
        r = t.append(pa.table({"id": [f"k{i:02d}"], "v": pa.array([i], pa.int64())}), options)
        commits.append((r.requested_time, r.completion_time))
        snapshots.append(ids(HudiTable(str(path))))
    return t, commits, snapshots


def test_archive_on_demand_writes_what_spark_writes(tmp_path):
    path = tmp_path / "t"
    t, commits, snapshots = write_commits(path, 35, NO_AUTO)
    timeline = path / ".hoodie" / "timeline"
    completed = {req: (timeline / f"{req}_{done}.commit").read_bytes() for req, done in commits}

    r = t.archive()
    assert r.num_instants_archived == 15
    assert (r.first_archived, r.last_archived) == (commits[0][0], commits[14][0])
    assert t.archive().num_instants_archived == 0

    active = sorted(p.name for p in timeline.iterdir() if p.name.endswith(".commit"))
    assert active == sorted(f"{req}_{done}.commit" for req, done in commits[15:])
    for req, _ in commits[:15]:
        assert not list(timeline.glob(f"{req}*")), req

    history = timeline / "history"
    name = f"{commits[0][0]}_{commits[14][0]}_0.parquet"
    assert (history / "_version_").read_text() == "1"
    manifest = (history / "manifest_1").read_text()
    assert json.loads(manifest) == {"files": [{"fileName": name, "fileLen": os.path.getsize(history / name)}]}
    assert manifest.startswith('{\n  "files" : [ {\n    "fileName" : ')

    pf = pq.ParquetFile(history / name)
    assert pf.schema.to_arrow_schema().names == ["instantTime", "completionTime", "action", "metadata", "plan",
                                                  "version"]
    root = pf.metadata.schema.to_arrow_schema()
    assert [(f.type, f.nullable) for f in root] == [(pa.string(), True)] * 3 + [(pa.binary(), True)] * 2 + [
        (pa.int32(), False)]
    assert "org.apache.hudi.avro.model.HoodieLSMTimelineInstant" in str(pf.schema)
    footer = pf.metadata.metadata
    assert footer[b"writer.model.name"] == b"avro"
    avro = json.loads(footer[b"parquet.avro.schema"])
    assert avro["name"] == "HoodieLSMTimelineInstant" and avro["namespace"] == "org.apache.hudi.avro.model"
    assert [f["name"] for f in avro["fields"]] == ["instantTime", "completionTime", "action", "metadata", "plan",
                                                   "version"]
    assert pf.metadata.row_group(0).column(0).compression == "GZIP"
    got = pf.read().to_pylist()
    assert [(x["instantTime"], x["completionTime"]) for x in got] == commits[:15]
    for x in got:
        assert x["action"] == "commit" and x["plan"] is None and x["version"] == 1
        assert x["metadata"] == completed[x["instantTime"]]

    check(path)
    fresh = HudiTable(str(path))
    # Time travel to an archived commit: the table as that commit left it.
    for i in (0, 7, 14):
        assert ids(fresh, {"hoodie.read.as.of.timestamp": commits[i][0]}) == snapshots[i]
    # Incremental over archived and active commits (completion-time range).
    got = ids(fresh, {"hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": commits[4][1],
                      "hoodie.read.end.timestamp": commits[20][1]})
    assert got == [f"k{i:02d}" for i in range(5, 21)]
    assert ids(fresh) == snapshots[-1]


def test_automatic_archival_and_lsm_compaction(tmp_path):
    path = tmp_path / "t"
    opts = {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3", "hoodie.clean.commits.retained": "1",
            "hoodie.timeline.compaction.batch.size": "3"}
    t, commits, snapshots = write_commits(path, 14, opts)
    history = path / ".hoodie" / "timeline" / "history"
    version = int((history / "_version_").read_text())
    files = json.loads((history / f"manifest_{version}").read_text())["files"]
    levels = sorted(int(f["fileName"].rsplit("_", 1)[1].split(".")[0]) for f in files)
    assert 1 in levels, files
    archived = pa.concat_tables([pq.read_table(history / f["fileName"]) for f in files]).to_pylist()
    seen = {x["instantTime"]: x["completionTime"] for x in archived if x["action"] == "commit"}
    active = {p.name.split("_")[0] for p in (path / ".hoodie" / "timeline").glob("*_*.commit")}
    assert len(seen) + len(active) == 14
    for req, done in commits:
        assert req in active or seen[req] == done
    check(path)
    fresh = HudiTable(str(path))
    assert ids(fresh, {"hoodie.read.as.of.timestamp": commits[3][0]}) == snapshots[3]
    assert ids(fresh, {"hoodie.read.query.type": "incremental",
                       "hoodie.read.start.timestamp": "000"}) == snapshots[-1]
    assert ids(fresh) == snapshots[-1]


def test_archival_keeps_the_by_hours_window(tmp_path):
    """Under KEEP_LATEST_BY_HOURS, archival keeps every commit requested within the hours before
    the latest commit (ArchivalUtils.getMinAndMaxInstantsToKeep): 35 commits made just now all stay
    with the default 24 hours; with 0 hours the window is the latest commit alone and the usual
    20..30 bounds archive 15, as under KEEP_LATEST_COMMITS."""
    path = tmp_path / "t"
    t, commits, _ = write_commits(path, 35, NO_AUTO)
    by_hours = {"hoodie.clean.policy": "KEEP_LATEST_BY_HOURS"}
    assert t.archive(by_hours).num_instants_archived == 0
    r = t.archive({**by_hours, "hoodie.clean.hours.retained": "0"})
    assert r.num_instants_archived == 15 and r.last_archived == commits[14][0]
    check(path)
