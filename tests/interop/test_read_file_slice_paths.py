"""HudiFileGroupReader.read_file_slice_from_paths: a file slice named by its file paths.

Oracle: hudi-rs 0.5 (its own virtual env, a subprocess) lists the file slices of each fixture table
and reads every one with reader.read_file_slice_from_paths(base_file_relative_path(),
log_files_relative_paths()) -- and again with no log files (the base file alone), and with a filter
and a projection; hudi-c reads the same paths with its read_file_slice_from_paths. Rows are
compared as sorted multisets of whole rows, meta columns included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fixture_tables import ALL_TABLES, table_path
from oracles import InteropConfig, row_diff

WORKERS = Path(__file__).resolve().parent / "workers"

# The MOR tables (log files to merge) and a partitioned COW one, Lance aside.
TABLES = [t for t in ALL_TABLES if "lance" not in t and ("/mor/" in t or t.endswith("v9_txns_simple_meta"))]

HUDIRS_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
import hudi
from protocol import to_json_value
t = hudi.HudiTableBuilder.from_base_uri(sys.argv[1]).build()
variant = json.loads(sys.argv[2])
o = hudi.HudiReadOptions(filters=[tuple(f) for f in variant["filters"]], projection=variant["projection"])
reader = t.create_file_group_reader_with_options()
out = []
for fs in t.get_file_slices():
    base = fs.base_file_relative_path()
    logs = fs.log_files_relative_paths() if variant["logs"] else []
    b = reader.read_file_slice_from_paths(base, logs, o)
    out.append({"base": base, "logs": logs,
                "rows": [to_json_value(r) for r in b.to_pylist(maps_as_pydicts="strict")]})
print(json.dumps(out))
"""

VARIANTS = {
    "merged": {"logs": True, "filters": [], "projection": None},
    "base_only": {"logs": False, "filters": [], "projection": None},
    # filters and projection on the record key field (tables without meta fields too)
    "filtered": {"logs": True, "filters": [["KEY", ">=", "1"]], "projection": ["KEY"]},
}


def hudirs_reads(path: str, variant: dict) -> list:
    cfg = InteropConfig.load()
    p = subprocess.run([cfg["HUDI_RS_PYTHON"], "-c", HUDIRS_SCRIPT, path, json.dumps(variant), str(WORKERS)],
                       capture_output=True, text=True, env=cfg.worker_env(), timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


SLICES_WITH_LOGS: list = []


def canon(rows) -> list:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("table", TABLES)
def test_read_from_paths_equals_hudirs(table, variant):
    import hudi

    sys.path.insert(0, str(WORKERS))
    from protocol import to_json_value

    path = table_path(table)
    t = hudi.HudiTableBuilder.from_base_uri(path).build()
    key = t.properties()["hoodie.table.recordkey.fields"].split(",")[0]
    v = json.loads(json.dumps(VARIANTS[variant]).replace('"KEY"', json.dumps(key)))
    theirs = hudirs_reads(path, v)
    if variant == "merged":
        SLICES_WITH_LOGS.extend(s["base"] for s in theirs if s["logs"])
    o = hudi.HudiReadOptions(filters=[tuple(f) for f in v["filters"]], projection=v["projection"])
    reader = t.create_file_group_reader_with_options()
    for s in theirs:
        b = reader.read_file_slice_from_paths(s["base"], s["logs"], o)
        mine = canon(to_json_value(r) for r in b.to_pylist(maps_as_pydicts="strict"))
        other = canon(s["rows"])
        assert mine == other, f"{s['base']}: " + row_diff(mine, other, ("hudi-c", "hudi-rs"))


def test_log_merging_was_exercised():
    # Runs after the comparisons above (file order): they must have merged real log files.
    assert len(SLICES_WITH_LOGS) >= 5, SLICES_WITH_LOGS


def test_bad_paths_are_clear_errors():
    import hudi

    path = table_path(TABLES[0])
    reader = hudi.HudiTableBuilder.from_base_uri(path).build().create_file_group_reader_with_options()
    with pytest.raises(hudi.HudiInvalidInputError):
        reader.read_file_slice_from_paths("/etc/passwd", [])
    with pytest.raises(hudi.HudiInvalidInputError):
        reader.read_file_slice_from_paths("../x.parquet", [])
    with pytest.raises((hudi.HudiNotFoundError, OSError)):
        reader.read_file_slice_from_paths("no/such-file_1-0-1_20240101000000000.parquet", [])
