"""Appending keys the table already holds: hoodie.datasource.insert.dup.policy.

none (Hudi's default) writes the row again, drop leaves it out, fail refuses
the write before any file. Oracles: pyarrow reads the base and log files'
rows through our reader's independent peer (the base files themselves for
COW), the timeline directory is compared before and after a refused write,
and the conformance checker ../shared/tools/hudi_check.py passes on every
table.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiInvalidInputError, HudiTable
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"
POLICY = "hoodie.datasource.insert.dup.policy"


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def data_files(path) -> list[str]:
    return sorted(f for f in glob.glob(os.path.join(str(path), "**", "*"), recursive=True)
                  if "/.hoodie" not in f and os.path.isfile(f) and not f.endswith(".hoodie_partition_metadata"))


def base_rows(path) -> list[tuple]:
    """Every row of every base file, read by pyarrow (appends write base files only)."""
    files = [f for f in data_files(path) if f.endswith(".parquet")]
    t = pa.concat_tables([pq.read_table(f, columns=["_hoodie_record_key", "v"]) for f in files])
    return sorted(zip(t.column("_hoodie_record_key").to_pylist(), t.column("v").to_pylist()))


def timeline(path) -> list[str]:
    return sorted(os.listdir(Path(path) / ".hoodie" / "timeline"))


def table(path, table_type, rli, **kw) -> HudiTable:
    t = HudiTable.create(str(path), record_key="id", partition_fields="p", table_type=table_type,
                         record_index_enabled=rli, **kw)
    t.append(pa.table({"id": ["a", "b", "c"], "p": ["x", "y", "x"], "v": [1, 1, 1]}))
    return t


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("rli", [True, False])
def test_default_writes_the_key_again(tmp_path, table_type, rli):
    t = table(tmp_path / "t", table_type, rli)
    r = t.append(pa.table({"id": ["b", "d"], "p": ["y", "y"], "v": [2, 2]}))
    assert r.num_inserts == 2
    assert base_rows(tmp_path / "t") == [("a", 1), ("b", 1), ("b", 2), ("c", 1), ("d", 2)]
    check(tmp_path / "t")


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("rli", [True, False])
def test_fail_names_the_key_and_writes_nothing(tmp_path, table_type, rli):
    path = tmp_path / "t"
    t = table(path, table_type, rli)
    before, files = timeline(path), data_files(path)
    owner = pq.read_table([f for f in files if f.endswith(".parquet")][0]).to_pylist()
    group = {row["_hoodie_record_key"]: row["_hoodie_file_name"].split("_")[0] for row in owner}
    # 'c' lives in partition p=x; the incoming row names another partition: the index is global
    with pytest.raises(HudiInvalidInputError) as e:
        t.append(pa.table({"id": ["z", "c"], "p": ["y", "y"], "v": [2, 2]}), options={POLICY: "fail"})
    msg = str(e.value)
    assert "record key 'c' is already in table" in msg and "partition 'p=x'" in msg and POLICY in msg
    assert f"file group {group['c']}" in msg
    assert timeline(path) == before and data_files(path) == files
    # keys not yet in the table pass
    assert t.append(pa.table({"id": ["z"], "p": ["y"], "v": [2]}), options={POLICY: "FAIL"}).num_inserts == 1
    assert base_rows(path) == [("a", 1), ("b", 1), ("c", 1), ("z", 2)]
    check(path)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("rli", [True, False])
def test_drop_leaves_existing_keys_out(tmp_path, table_type, rli):
    path = tmp_path / "t"
    t = table(path, table_type, rli, hudi_options={POLICY: "drop"})  # the table's option
    r = t.append(pa.table({"id": ["d", "a", "e", "c"], "p": ["x", "y", "y", "x"], "v": [2, 2, 2, 2]}))
    assert (r.num_inserts, r.num_writes) == (2, 2)
    assert base_rows(path) == [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2)]
    # every key already there: no commit at all
    before = timeline(path)
    r = t.append(pa.table({"id": ["d", "b"], "p": ["x", "x"], "v": [3, 3]}))
    assert (r.num_inserts, r.requested_time) == (0, "")
    assert timeline(path) == before
    # a write's own option overrides the table's
    assert t.append(pa.table({"id": ["a"], "p": ["x"], "v": [4]}), options={POLICY: "none"}).num_inserts == 1
    assert base_rows(path) == [("a", 1), ("a", 4), ("b", 1), ("c", 1), ("d", 2), ("e", 2)]
    check(path)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_policy_applies_to_every_segment(tmp_path, table_type):
    path = tmp_path / "t"
    t = table(path, table_type, True)
    schema = pa.schema([("id", pa.string()), ("p", pa.string()), ("v", pa.int64())])

    def stream(*batches):
        return pa.RecordBatchReader.from_batches(schema, [pa.record_batch(b, schema=schema) for b in batches])

    seg = {"hudi_c.append.segment.bytes": "1"}  # one segment per batch
    r = t.append(stream({"id": ["d"], "p": ["x"], "v": [2]}, {"id": ["a", "b"], "p": ["x", "x"], "v": [2, 2]},
                        {"id": ["c", "e"], "p": ["y", "y"], "v": [2, 2]}), options={**seg, POLICY: "drop"})
    assert r.num_inserts == 2
    assert base_rows(path) == [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2)]
    before, files = timeline(path), data_files(path)
    with pytest.raises(HudiInvalidInputError, match="record key 'b' is already in table"):
        t.append(stream({"id": ["f"], "p": ["z"], "v": [3]}, {"id": ["b"], "p": ["x"], "v": [3]}),
                 options={**seg, POLICY: "fail"})
    # the first segment's files are gone with its instant
    assert timeline(path) == before and data_files(path) == files
    check(path)


def test_unknown_policy_is_refused(tmp_path):
    path = tmp_path / "t"
    t = table(path, "cow", True)
    before = timeline(path)
    with pytest.raises(HudiInvalidInputError, match=r"insert.dup.policy='upsert': expected none, drop or fail"):
        t.append(pa.table({"id": ["q"], "p": ["x"], "v": [1]}), options={POLICY: "upsert"})
    assert timeline(path) == before
