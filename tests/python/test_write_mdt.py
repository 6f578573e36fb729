"""Appends keep the metadata table (MDT) current: HudiTable.create with the
record-level index (the default) creates the MDT, and each append records its
base files in `files` and its keys in `record_index`.

Oracles: the conformance checker ../shared/tools/hudi_check.py, whose metadata
checks list the committed files on storage and read every base file's
_hoodie_record_key with pyarrow (files-listing, record-index-keys) -- they must
pass, not be skipped; and the rows we appended, read back by HudiTable.read.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from hudi import HudiInvalidInputError, HudiTable, HudiUnsupportedError
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
MDT_CHECKS = ["metadata.partitions", "metadata.sync", "metadata.files-listing", "metadata.record-index",
              "metadata.record-index-keys"]


def check(table_dir) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in MDT_CHECKS:
        assert f"PASS {name}:" in r.stdout, r.stdout
    return r.stdout


def rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": [f"k{i:05d}" for i in ids],
        "region": [["eu", "us", "apac"][i % 3] for i in ids],
        "v": pa.array(ids, pa.int64()),
    })


def read_sorted(t: HudiTable) -> list[tuple]:
    got = pa.Table.from_batches(t.read())
    return sorted(zip(got.column("id").to_pylist(), got.column("region").to_pylist(), got.column("v").to_pylist()))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_appends_keep_mdt_current(tmp_path, table_type, partitioned):
    path = tmp_path / f"t_{table_type}_{partitioned}"
    t = HudiTable.create(str(path), "id", partition_fields="region" if partitioned else None,
                         table_type=table_type)
    props = t.properties()
    assert props["hoodie.table.metadata.partitions"] == "files,record_index"
    assert props["hoodie.table.metadata.partitions.inflight"] == ""
    assert props["hoodie.table.timeline.timezone"] == "UTC"
    assert (path / ".hoodie" / "metadata" / ".hoodie" / "hoodie.properties").exists()
    want = []
    start = 0
    for n in (50, 120, 7):
        batch = rows(start, n)
        res = t.append(batch, {"hoodie.parquet.max.file.size": "4000"})
        assert res.num_inserts == n
        start += n
        want += list(zip(batch.column("id").to_pylist(), batch.column("region").to_pylist(),
                         batch.column("v").to_pylist()))
        out = check(path)
        assert f"maps all {start} snapshot keys" in out, out
        # The MDT deltacommit of each data instant completes first.
        mdt_timeline = os.listdir(path / ".hoodie" / "metadata" / ".hoodie" / "timeline")
        data_timeline = os.listdir(path / ".hoodie" / "timeline")
        for f in data_timeline:
            if f.endswith(".commit") or f.endswith(".deltacommit"):
                req, done = f.split(".")[0].split("_")
                mdt = [m for m in mdt_timeline if m.startswith(req + "_") and m.endswith(".deltacommit")]
                assert len(mdt) == 1, (f, mdt_timeline)
                assert mdt[0].split(".")[0].split("_")[1] < done
        assert read_sorted(HudiTable(str(path))) == sorted(want)


def test_duplicate_keys_refused(tmp_path):
    t = HudiTable.create(str(tmp_path / "d"), "id", partition_fields="region")
    before = sorted(os.listdir(tmp_path / "d" / ".hoodie" / "timeline"))
    with pytest.raises(HudiInvalidInputError, match="appears twice"):
        t.append(pa.table({"id": ["a", "b", "a"], "region": ["eu", "us", "us"], "v": [1, 2, 3]}))
    assert sorted(os.listdir(tmp_path / "d" / ".hoodie" / "timeline")) == before
    check(tmp_path / "d")


def test_options(tmp_path):
    # Without the record index and without hoodie.metadata.enable: no MDT.
    t = HudiTable.create(str(tmp_path / "none"), "id", record_index_enabled=False)
    assert "hoodie.table.metadata.partitions" not in t.properties()
    assert not (tmp_path / "none" / ".hoodie" / "metadata").exists()
    # hoodie.metadata.enable=true alone: the files partition only.
    t = HudiTable.create(str(tmp_path / "files"), "id", record_index_enabled=False,
                         hudi_options={"hoodie.metadata.enable": "true"})
    assert t.properties()["hoodie.table.metadata.partitions"] == "files"
    t.append(rows(0, 10))
    out = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(tmp_path / "files")], capture_output=True, text=True)
    assert out.returncode == 0 and "PASS metadata.files-listing" in out.stdout, out.stdout
    with pytest.raises(HudiInvalidInputError, match="metadata table"):
        HudiTable.create(str(tmp_path / "bad"), "id", hudi_options={"hoodie.metadata.enable": "false"})
    with pytest.raises(HudiUnsupportedError, match="bloom.filter"):
        HudiTable.create(str(tmp_path / "bad"), "id",
                         hudi_options={"hoodie.metadata.index.bloom.filter.enable": "true"})
    assert not (tmp_path / "bad").exists()


def test_unmaintained_mdt_partitions_refused(tmp_path):
    path = tmp_path / "cs"
    HudiTable.create(str(path), "id")
    props = path / ".hoodie" / "hoodie.properties"
    text = props.read_text()
    assert "hoodie.table.metadata.partitions=files,record_index\n" in text
    props.write_text(text.replace("hoodie.table.metadata.partitions=files,record_index\n",
                                  "hoodie.table.metadata.partitions=files,column_stats,record_index\n"))
    with pytest.raises(HudiUnsupportedError, match="column_stats"):
        HudiTable(str(path)).append(rows(0, 3))
