"""hudi-c reads each file slice as hudi-rs's file-group reader does, on every fixture table.

hudi-rs (0.5, its own virtual env) lists the file slices and reads each with
HudiTable.create_file_group_reader_with_options().read_file_slice(slice), in a subprocess; hudi-c
reads the same (partition, file group) with HudiTable.read_file_slice. Both are compared as sorted
multisets of whole rows, meta columns included, for snapshot and read-optimized reads.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_tables import READ_EXCLUDED, params, table_path
from oracles import InteropConfig, row_diff

WORKERS = Path(__file__).resolve().parent / "workers"

HUDIRS_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
import hudi
from protocol import to_json_value
t = hudi.HudiTableBuilder.from_base_uri(sys.argv[1]).build()
o = hudi.HudiReadOptions(hudi_options=json.loads(sys.argv[2]))
reader = t.create_file_group_reader_with_options(o)
out = []
for fs in t.get_file_slices(o):
    b = reader.read_file_slice(fs, o)
    out.append({"partition": fs.partition_path, "file_id": fs.file_id,
                "rows": [to_json_value(r) for r in b.to_pylist(maps_as_pydicts="strict")]})
print(json.dumps(out))
"""


def hudirs_slices(path: str, options: dict) -> dict:
    cfg = InteropConfig.load()
    p = subprocess.run([cfg["HUDI_RS_PYTHON"], "-c", HUDIRS_SCRIPT, path, json.dumps(options), str(WORKERS)],
                       capture_output=True, text=True, env=cfg.worker_env(), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return {(s["partition"], s["file_id"]): s["rows"] for s in json.loads(p.stdout)}


def canon(rows) -> list:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


@pytest.mark.parametrize("read_optimized", [False, True], ids=["snapshot", "read_optimized"])
@pytest.mark.parametrize("table", params(READ_EXCLUDED))
def test_file_slices_equal_hudirs(table, read_optimized):
    import hudi

    sys.path.insert(0, str(WORKERS))
    from protocol import to_json_value

    path = table_path(table)
    options = {"hoodie.read.use.read_optimized.mode": "true"} if read_optimized else {}
    theirs = hudirs_slices(path, options)
    t = hudi.HudiTableBuilder.from_base_uri(path).build()
    o = hudi.HudiReadOptions(hudi_options=options)
    ours = {(s.partition_path, s.file_id): s for s in t.get_file_slices(o)}
    assert sorted(ours) == sorted(theirs)
    for key, fs in ours.items():
        b = t.read_file_slice(fs, o)
        mine = canon(to_json_value(r) for r in b.to_pylist(maps_as_pydicts="strict"))
        other = canon(theirs[key])
        assert mine == other, f"slice {key}: " + row_diff(mine, other, ("hudi-c", "hudi-rs"))
