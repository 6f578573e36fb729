"""The table schema when the latest completed write carries none (a blank completed file, which
Java and hudi-c read as empty commit metadata): Java's TableSchemaResolver walks back to the latest
completed write whose metadata has a schema (getLatestCommitMetadataWithValidSchema), then
hoodie.table.create.schema, then a data file's schema; so does hudi-c.

Oracle: the schema the table had before the latest commit's file was blanked (pyarrow), and the
rows that write's own Parquet files still hold are read back."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from hudi import HudiTable


@pytest.mark.parametrize("version", ["6", "8"])
def test_blank_latest_commit_keeps_the_schema(tmp_path, version):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", record_index_enabled=False,
                         hudi_options={"hoodie.write.table.version": version, "hoodie.metadata.enable": "false"})
    t.append(pa.table({"id": ["a"], "v": pa.array([1], pa.int64())}))
    t.append(pa.table({"id": ["b"], "v": pa.array([2], pa.int64())}))
    schema = HudiTable(str(path)).get_schema()
    timeline = path / ".hoodie" if version == "6" else path / ".hoodie" / "timeline"
    latest = sorted(n for n in os.listdir(timeline) if n.endswith(".commit"))[-1]
    (timeline / latest).write_bytes(b"")
    again = HudiTable(str(path))
    assert again.get_schema() == schema
    got = pa.Table.from_batches(again.read())
    assert sorted(zip(got.column("id").to_pylist(), got.column("v").to_pylist())) == [("a", 1), ("b", 2)]


def test_walk_back_takes_the_latest_schema(tmp_path):
    """After schema evolution, the walk back stops at the latest write with a schema (the one
    with the added column), not an older one."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", record_index_enabled=False,
                         hudi_options={"hoodie.write.table.version": "6", "hoodie.metadata.enable": "false"})
    t.append(pa.table({"id": ["a"], "v": pa.array([1], pa.int64())}))
    t.append(pa.table({"id": ["b"], "v": pa.array([2], pa.int64()), "w": ["x"]}))
    t.append(pa.table({"id": ["c"], "v": pa.array([3], pa.int64()), "w": ["y"]}))
    latest = sorted(n for n in os.listdir(path / ".hoodie") if n.endswith(".commit"))[-1]
    (path / ".hoodie" / latest).write_bytes(b"")
    assert HudiTable(str(path)).get_schema().names[-2:] == ["v", "w"]
