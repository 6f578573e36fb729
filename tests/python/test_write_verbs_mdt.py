"""Keyed writes (upsert, delete_keys, delete, update, overwrite) keep the
metadata table current on tables HudiTable.create makes by default (MDT with
`files` and the record-level index), and use the record index to find keys.

Oracles: the conformance checker ../shared/tools/hudi_check.py after every
write, whose metadata checks list the committed files on storage and read the
record keys of every latest file slice (base files with pyarrow, log files
decoded by the checker) -- each must PASS, not be skipped; and an independent
model of the table in plain Python (test_write_verbs.Model) compared with
HudiTable.read.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hudi import HudiTable
from hudi_fixtures import FIXTURES
from test_write_verbs import Model, data, snapshot

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
MDT_CHECKS = ["metadata.partitions", "metadata.sync", "metadata.files-listing", "metadata.record-index",
              "metadata.record-index-keys"]


def check(path, kind: str) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    names = MDT_CHECKS + (["metadata.record-index-log-keys"] if kind == "mor" else [])
    for name in names:
        assert f"PASS {name}:" in r.stdout, r.stdout
    return r.stdout


def compare(path, m: Model, kind: str) -> None:
    got = snapshot(path)
    cols = ["_hoodie_commit_time", "_hoodie_record_key", "_hoodie_partition_path"]
    got = [{c: r[c] for c in cols + [k for k in r if not k.startswith("_hoodie")]} for r in got]
    assert got == m.expected()
    out = check(path, kind)
    assert f"maps all {len(m.rows)} snapshot keys" in out, out


def overwrite_model(m: Model, batch, commit: str, whole_table: bool) -> None:
    parts = {m.ppath(r) for r in batch.to_pylist()}
    for k, (row, _) in list(m.rows.items()):
        if whole_table or m.ppath(row) in parts:
            del m.rows[k]
    m.upsert(batch, commit)


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_keyed_writes_keep_mdt_current(tmp_path, kind, partitioned):
    path = tmp_path / "t"
    part = "p" if partitioned else None
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields=part, table_type=kind)
    assert t.properties()["hoodie.table.metadata.partitions"] == "files,record_index"
    m = Model("id", part, "ts")
    first = data([f"k{i}" for i in range(30)], [10] * 30, ["a" if i % 2 else "b" for i in range(30)],
                 list(range(30)))
    r = t.append(first, {"hoodie.parquet.max.file.size": "3000"})
    m.upsert(first, r.requested_time)
    compare(path, m, kind)

    # upsert: updates, a stale update, duplicates, inserts, a partition move (k5: a -> b)
    batch = data(["k1", "k2", "k3", "k3", "k4", "new1", "new2", "new2", "k5"],
                 [11, 5, 12, 13, 20, 1, 3, 2, 30],
                 ["a", "b", "a", "a", "b", "a", "b", "b", "b"],
                 [101, 102, 103, 1003, 104, 201, 202, 2002, 105])
    r = HudiTable(str(path)).upsert(batch)
    ins, upd = m.upsert(batch, r.requested_time)
    assert r.num_inserts == ins + (1 if partitioned else 0)
    compare(path, m, kind)

    # a second upsert moves the moved key back and updates a new key
    batch = data(["k5", "new1", "new3"], [31, 2, 1], ["a", "b", "a"], [1005, 2001, 203])
    r = HudiTable(str(path)).upsert(batch)
    m.upsert(batch, r.requested_time)
    compare(path, m, kind)

    # delete_keys: present (an original, a new one) and absent keys
    r = HudiTable(str(path)).delete_keys(["k6", "new2", "nope", "k6"])
    assert r.num_deletes == m.delete_keys(["k6", "new2", "nope"]) == 2
    compare(path, m, kind)

    # delete by predicate
    r = HudiTable(str(path)).delete("v >= 100 AND v < 104 OR id = 'k8'")
    gone = [k for k, (row, _) in m.rows.items() if 100 <= row["v"] < 104 or k == "k8"]
    assert r.num_deletes == m.delete_keys(gone) == len(gone) > 0
    compare(path, m, kind)

    # update by predicate, then an update that moves a record (p: -> c)
    r = HudiTable(str(path)).update("v < 5", {"v": 7, "tags": None})
    for k, (row, _) in list(m.rows.items()):
        if row["v"] < 5:
            m.rows[k] = ({**row, "v": 7, "tags": None}, r.requested_time)
    compare(path, m, kind)
    r = HudiTable(str(path)).update("id = 'k10'", {"p": "c", "ts": 99})
    row, _ = m.rows["k10"]
    m.rows["k10"] = ({**row, "p": "c", "ts": 99}, r.requested_time)
    compare(path, m, kind)

    # deleted keys are gone from the index: re-inserting one is an insert
    batch = data(["k6"], [1], ["a"], [6])
    r = HudiTable(str(path)).upsert(batch)
    assert (r.num_inserts, r.num_updates) == (1, 0)
    m.upsert(batch, r.requested_time)
    compare(path, m, kind)

    # overwrite the partitions of the batch (everything when not partitioned):
    # keys of the replaced file groups not written again leave the index
    batch = data(["k1", "o1", "o2", "o2"], [50, 1, 1, 2], ["a", "a", "a", "a"], [11, 12, 13, 14])
    r = HudiTable(str(path)).overwrite(batch)
    assert r.action == "replacecommit"
    overwrite_model(m, batch, r.requested_time, whole_table=not partitioned)
    compare(path, m, kind)
    # a key overwritten away is absent; an overwritten key is found in its new group
    assert HudiTable(str(path)).delete_keys(["k3"]).num_deletes == (0 if "k3" not in m.rows else 1)
    m.delete_keys(["k3"])
    batch = data(["o1", "x9"], [5, 1], ["a", "b"], [120, 900])
    r = HudiTable(str(path)).upsert(batch)
    assert (r.num_inserts, r.num_updates) == (1, 1)
    m.upsert(batch, r.requested_time)
    compare(path, m, kind)

    # overwrite the whole table
    batch = data(["z1", "z2"], [1, 1], ["q", "a"], [1, 2])
    r = HudiTable(str(path)).overwrite(batch, partitions_only=False)
    assert r.operation == "INSERT_OVERWRITE_TABLE"
    overwrite_model(m, batch, r.requested_time, whole_table=True)
    compare(path, m, kind)
    r = HudiTable(str(path)).upsert(data(["z1", "k1"], [2, 1], ["q", "a"], [3, 4]))
    assert (r.num_inserts, r.num_updates) == (1, 1)
    m.upsert(data(["z1", "k1"], [2, 1], ["q", "a"], [3, 4]), r.requested_time)
    compare(path, m, kind)
