"""Opening Spark-written fixture tables through the Python API."""

from __future__ import annotations

import zlib

import pytest

import hudi
from hudi import HudiTableBuilder
from hudi_fixtures import CORE_DATA, table_path


def test_v8_mor_table_and_timeline():
    path = table_path("quickstart_trips_table/mor/avro/v8_trips_8i3u1d")
    table = HudiTableBuilder.from_base_uri(path).with_hudi_option("hoodie.read.as.of.timestamp", "0").build()
    assert table.table_name == "v8_trips_8i3u1d"
    assert table.table_type == "MERGE_ON_READ"
    assert table.is_mor
    assert table.table_version == 8
    assert table.timeline_layout_version == 2
    assert table.hudi_options() == {"hoodie.read.as.of.timestamp": "0"}
    props = table.properties()
    assert props["hoodie.table.recordkey.fields"] == "uuid"
    assert int(props["hoodie.table.checksum"]) == zlib.crc32(b"default.v8_trips_8i3u1d")

    timeline = table.get_timeline()
    instants = timeline.instants
    # Every completed instant file in .hoodie/timeline is one instant here.
    import os

    completed = sorted(
        n for n in os.listdir(os.path.join(path, ".hoodie", "timeline")) if "_" in n and not n.endswith("history")
    )
    assert [f"{i.timestamp}_{i.completion_timestamp}.{i.action}" for i in instants] == completed
    compaction = [i for i in instants if i.requested_action == "compaction"]
    assert len(compaction) == 1 and compaction[0].action == "commit"
    assert [i.timestamp for i in timeline.get_completed_commits()] == [compaction[0].timestamp]
    deltas = timeline.get_completed_deltacommits(desc=True)
    assert [i.timestamp for i in deltas] == sorted((i.timestamp for i in deltas), reverse=True)
    assert timeline.get_latest_commit_timestamp() == "20251220210130911"
    assert instants[0].epoch_mills == 1766264468078


def test_v6_cow_table():
    table = HudiTableBuilder.from_base_uri(table_path("sample_table/cow/v6_nonpartitioned")).build()
    assert table.table_type == "COPY_ON_WRITE"
    assert not table.is_mor
    assert table.table_version == 6
    commits = table.get_timeline().get_completed_commits()
    assert [c.timestamp for c in commits] == ["20240418173550988", "20240418173551906"]


def test_missing_table_is_not_found(tmp_path):
    with pytest.raises(hudi.HudiNotFoundError, match="no Hudi table at"):
        HudiTableBuilder.from_base_uri(str(tmp_path / "nothing")).build()
    # HudiNotFoundError is also an OSError / FileNotFoundError.
    with pytest.raises(FileNotFoundError):
        hudi.HudiTable(str(tmp_path))


def test_corrupt_properties(tmp_path):
    with pytest.raises(hudi.HudiCorruptDataError, match="hoodie.properties"):
        hudi.HudiTable(str(CORE_DATA / "table_props_invalid"))


def test_bad_options_type():
    with pytest.raises(TypeError):
        hudi.HudiTable(table_path("sample_table/cow/v6_nonpartitioned"), {"k": 1})  # type: ignore[dict-item]


def test_exception_hierarchy():
    assert issubclass(hudi.HudiInvalidInputError, hudi.HudiError)
    assert issubclass(hudi.HudiInvalidInputError, ValueError)
    assert issubclass(hudi.HudiIOError, OSError)
    assert issubclass(hudi.HudiNotFoundError, hudi.HudiIOError)
    assert issubclass(hudi.HudiUnsupportedError, NotImplementedError)
    assert issubclass(hudi.HudiAlreadyExistsError, hudi.HudiError)
    assert issubclass(hudi.HudiAlreadyExistsError, FileExistsError)
    for code, cls in [(6, hudi.HudiAlreadyExistsError), (1, hudi.HudiInvalidInputError), (4, hudi.HudiIOError), (5, hudi.HudiNotFoundError),
                      (7, hudi.HudiCorruptDataError), (8, hudi.HudiUnsupportedError), (9, hudi.HudiConflictError),
                      (11, hudi.HudiError)]:
        with pytest.raises(cls, match="boom"):
            hudi._hudi._raise_status(code, "boom")
    with pytest.raises(MemoryError):
        hudi._hudi._raise_status(2, "oom")


def test_version():
    assert hudi.__version__ == "0.1.0"
