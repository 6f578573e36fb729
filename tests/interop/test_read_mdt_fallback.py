"""A metadata table (MDT) that cannot be opened, or whose files cannot be read.

Java's HoodieBackedTableMetadata.initIfNeeded and hudi-rs (Table::get_or_init_metadata_table) stop
using an MDT they cannot open (its properties or timeline) and list storage instead; a files
partition whose HFile is corrupt is an error in both. hudi-c does the same. Oracle: hudi-rs 0.5
reading the same damaged copy (a subprocess, its own virtual env); rows are compared as sorted
multisets of whole rows. The fixture is copied to a temporary directory first.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_tables import table_path
from oracles import InteropConfig, row_diff

WORKERS = Path(__file__).resolve().parent / "workers"
TABLES = ["sample_table/cow/v9_txns_simple_meta", "sample_table/mor/avro/v9_txns_simple_meta"]

HUDIRS_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[2])
import hudi
from protocol import to_json_value
try:
    t = hudi.HudiTableBuilder.from_base_uri(sys.argv[1]).build()
    rows = [to_json_value(r) for b in t.read() for r in b.to_pylist(maps_as_pydicts="strict")]
    stats = hudi.HudiTableBuilder.from_base_uri(sys.argv[1]).build().compute_table_stats()
    print(json.dumps({"rows": rows, "stats": list(stats) if stats else None}))
except Exception as e:
    print(json.dumps({"error": str(e)}))
"""


def hudirs(path: str) -> dict:
    cfg = InteropConfig.load()
    p = subprocess.run([cfg["HUDI_RS_PYTHON"], "-c", HUDIRS_SCRIPT, path, str(WORKERS)],
                       capture_output=True, text=True, env=cfg.worker_env(), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def ours(path: str, options=None) -> list:
    import hudi

    sys.path.insert(0, str(WORKERS))
    from protocol import to_json_value

    b = hudi.HudiTableBuilder.from_base_uri(path).with_hudi_options(options or {}).build().read()
    return sorted(json.dumps(to_json_value(r), sort_keys=True) for x in b for r in x.to_pylist(maps_as_pydicts="strict"))


def canon(rows) -> list:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


@pytest.mark.parametrize("table", TABLES)
def test_mdt_that_cannot_be_opened_falls_back_to_listing(tmp_path, table):
    import hudi

    path = str(tmp_path / "t")
    shutil.copytree(table_path(table), path)
    (Path(path) / ".hoodie/metadata/.hoodie/hoodie.properties").write_bytes(b"\xff\xfe not = properties\n")
    theirs = hudirs(path)
    assert "error" not in theirs, theirs
    mine = ours(path)
    assert mine == canon(theirs["rows"]), row_diff(mine, canon(theirs["rows"]), ("hudi-c", "hudi-rs"))
    assert mine == ours(path, {"hoodie.metadata.enable": "false"})
    assert len(mine) > 0
    # No MDT, no planning stats (hudi-rs: None too).
    assert hudi.HudiTable(path).compute_table_stats() is None
    assert theirs["stats"] is None


@pytest.mark.parametrize("table", TABLES)
def test_corrupt_files_partition_is_an_error(tmp_path, table):
    import hudi

    path = str(tmp_path / "t")
    shutil.copytree(table_path(table), path)
    pristine = hudirs(path)
    hfile = sorted((Path(path) / ".hoodie/metadata/files").glob("*.hfile"))[-1]
    hfile.write_bytes(b"\x00" * 100)
    theirs = hudirs(path)
    assert "error" in theirs and "HFile" in theirs["error"], theirs
    with pytest.raises(hudi.HudiCorruptDataError, match="hoodie.metadata.enable=false") as e:
        ours(path)
    assert hfile.name in str(e.value)
    # The way out the message names: list storage instead.
    mine = ours(path, {"hoodie.metadata.enable": "false"})
    assert mine == canon(pristine["rows"]), row_diff(mine, canon(pristine["rows"]), ("hudi-c", "hudi-rs"))
    # Stats need the files partition: unavailable, not an error.
    assert hudi.HudiTable(path).compute_table_stats() is None
