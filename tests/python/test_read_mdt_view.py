"""Reads take the file-system view from the metadata table's `files`
partition (and prune file slices by its `column_stats`) on tables hudi-c
writes.

Oracles:
  - the same read with hoodie.metadata.enable=false, which lists storage:
    the file slices (partition, file id, base instant, base file, log files)
    and the rows must be equal after every write, delete, compaction, clean
    and rollback; ../shared/tools/hudi_check.py passes on every table;
  - that the MDT was really used: a stray copy of a base file under a new
    file id (named with a completed instant) is seen by the listing read
    only;
  - column_stats pruning: the slices it drops are exactly those whose base
    file's Parquet footer (read with pyarrow) rules the filter out, and the
    rows equal a read with hoodie.enable.data.skipping=false.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiReadOptions, HudiTable
from hudi_fixtures import FIXTURES, table_path
from test_write_verbs import data

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
LISTING = {"hoodie.metadata.enable": "false"}


def check(path: Path) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def slices(path: Path, hudi: dict | None = None, **kw) -> list[tuple]:
    o = HudiReadOptions().with_hudi_options(hudi or {})
    if "sql" in kw:
        o = o.with_sql_filter(kw["sql"])
    if kw.get("ro"):
        o = o.with_read_optimized()
    got = HudiTable(str(path)).get_file_slices(o)
    return sorted((s.partition_path, s.file_id, s.base_instant_time, s.base_file_path, tuple(s.log_file_paths))
                  for s in got)


def rows(path: Path, hudi: dict | None = None, sql: str | None = None, ro: bool = False) -> list[dict]:
    o = HudiReadOptions().with_hudi_options(hudi or {})
    if sql:
        o = o.with_sql_filter(sql)
    if ro:
        o = o.with_read_optimized()
    batches = HudiTable(str(path)).read(o)
    if not batches:
        return []
    return sorted(pa.Table.from_batches(batches).to_pylist(), key=lambda r: r["_hoodie_record_key"])


def same_view(path: Path) -> int:
    check(path)
    for ro in ([False, True] if HudiTable(str(path)).is_mor else [False]):
        a, b = slices(path, ro=ro), slices(path, LISTING, ro=ro)
        assert a == b
        assert rows(path, ro=ro) == rows(path, LISTING, ro=ro)
    return len(a)


def add_stray(path: Path) -> str:
    """A copy of a base file under a new file id in its partition."""
    s = next(s for s in slices(path) if s[3])
    src = path / s[3]
    name = src.name
    dst = src.parent / ("ffffffff-0000-0000-0000-000000000000-0" + name[name.index("_"):])
    shutil.copy(src, dst)
    return "ffffffff-0000-0000-0000-000000000000-0"


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False])
def test_view_from_mdt_equals_listing(tmp_path, kind, partitioned):
    path = tmp_path / "t"
    part = "p" if partitioned else None
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields=part, table_type=kind)
    assert "files" in t.properties()["hoodie.table.metadata.partitions"].split(",")
    ids = [f"k{i:02d}" for i in range(40)]
    t.append(data(ids, [10] * 40, ["a" if i % 2 else "b" for i in range(40)], list(range(40))),
             {"hoodie.parquet.max.file.size": "4000"})
    n = same_view(path)
    assert n >= 1
    HudiTable(str(path)).upsert(data(["k01", "k02", "k03", "new1"], [11, 12, 5, 1], ["a", "b", "a", "a"],
                                     [101, 102, 103, 200]))
    same_view(path)
    HudiTable(str(path)).delete_keys(["k04", "k05", "k21"])
    same_view(path)
    r = HudiTable(str(path)).upsert(data(["k01", "k30"], [20, 30], ["a", "b"], [1001, 1030]))
    same_view(path)
    if kind == "mor":
        c = HudiTable(str(path)).compact()
        assert c.num_file_groups >= 1
        same_view(path)
        HudiTable(str(path)).upsert(data(["k02", "k31"], [40, 40], ["b", "a"], [2, 3]))
        same_view(path)
    else:
        HudiTable(str(path)).upsert(data(["k02", "k31"], [40, 40], ["b", "a"], [2, 3]))
    cl = HudiTable(str(path)).clean({"hoodie.clean.commits.retained": "1"})
    same_view(path)
    # roll back the latest write: its files must vanish from both views
    # (no MDT compaction after it: that would make the rollback a restore)
    last = HudiTable(str(path)).upsert(data(["k06", "k07"], [50, 50], ["b", "a"], [6, 7]),
                                       {"hoodie.metadata.compact.max.delta.commits": "1000"})
    before = slices(path)
    HudiTable(str(path)).rollback(last.requested_time)
    same_view(path)
    assert all(last.requested_time not in (s[3] or "") for s in slices(path))
    assert slices(path) != before
    del r, cl
    # the MDT really gave the view: a stray file is seen by listing only
    stray = add_stray(path)
    assert stray not in {s[1] for s in slices(path)}
    assert stray in {s[1] for s in slices(path, LISTING)}


def test_time_travel_and_incremental_from_mdt(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type="mor")
    times = []
    for i in range(4):
        r = t.upsert(data([f"k{j}" for j in range(i, i + 6)], [i] * 6, ["a", "b"] * 3, [i * 10 + j for j in range(6)]))
        times.append(r.requested_time)
    for at in times:
        o = {"hoodie.read.as.of.timestamp": at}
        assert slices(path, o) == slices(path, {**o, **LISTING})
        assert rows(path, o) == rows(path, {**o, **LISTING})
    o = {"hoodie.read.query.type": "incremental", "hoodie.read.start.timestamp": times[0],
         "hoodie.read.end.timestamp": times[2]}
    assert rows(path, o) == rows(path, {**o, **LISTING})
    assert rows(path, o)


# ---- column_stats -------------------------------------------------------------


def footer_prunes(path: Path, base: str, col: str, op: str, value) -> bool:
    """Whether the footer statistics of every row group rule `col op value` out."""
    md = pq.ParquetFile(path / base).metadata
    idx = md.schema.to_arrow_schema().get_field_index(col)
    for rg in range(md.num_row_groups):
        st = md.row_group(rg).column(idx).statistics
        if st is None or not st.has_min_max:
            return False
        lo, hi = st.min, st.max
        ok = {"=": lo <= value <= hi, ">": hi > value, "<": lo < value, ">=": hi >= value, "<=": lo <= value}[op]
        if ok:
            return False
    return True


def test_column_stats_prune_hudi_c_writes(tmp_path):
    src = Path(table_path("sample_table/cow/v9_txns_simple_overwrite"))
    path = tmp_path / "t"
    shutil.copytree(src, path)
    assert "column_stats" in (path / ".hoodie" / "hoodie.properties").read_text()
    t = HudiTable(str(path))
    schema = t.get_schema()
    base = pa.Table.from_batches(t.read()).select(schema.names).to_pylist()
    # hudi-c upserts: updates in two partitions and inserts with new ranges
    ups = [dict(base[0], txn_ts=1800000000000 + i, txn_id=f"TXN-9{i:02d}") for i in range(3)]
    ups.append(dict(base[1], txn_ts=1900000000000))
    HudiTable(str(path)).upsert(pa.Table.from_pylist(ups, schema=schema))
    check(path)
    n_all = len(slices(path))
    pruned_total = 0
    for col, op, val in [("txn_ts", ">", 1750000000000), ("txn_ts", "<", 1700000000003),
                         ("txn_id", "=", "TXN-901"), ("txn_ts", ">=", 1900000000000), ("txn_id", ">", "TXN-1")]:
        lit = f"'{val}'" if isinstance(val, str) else str(val)
        sql = f"{col} {op} {lit}"
        on = slices(path, sql=sql)
        off = slices(path, {"hoodie.enable.data.skipping": "false"}, sql=sql)
        assert len(off) == n_all
        want = [s for s in off if not footer_prunes(path, s[3], col, op, val)]
        assert on == want, sql
        pruned_total += len(off) - len(on)
        assert rows(path, sql=sql) == rows(path, {"hoodie.enable.data.skipping": "false"}, sql=sql)
        assert rows(path, sql=sql) == rows(path, LISTING, sql=sql)
    assert pruned_total > 0


@pytest.mark.parametrize("name,col", [("sample_table/mor/avro/v9_timebasedkeygen_nonhivestyle", "txn_ts"),
                                      ("sample_table/mor/avro/v9_txns_simple_overwrite", "txn_ts"),
                                      ("quickstart_trips_table/mor/avro/v8_trips_8i3u1d", "fare")])
def test_column_stats_spark_mor(name, col):
    """Spark MOR tables with column_stats (V2 layout of table version 9, V1
    of version 8): a slice with log files is pruned only by the ranges of
    all its files together; every filter reads the rows an unpruned read
    does, for snapshot and read-optimized reads."""
    path = Path(table_path(name))
    assert "column_stats" in (path / ".hoodie" / "hoodie.properties").read_text()
    values = sorted({r[col] for r in rows(path)})
    pruned = pruned_with_logs = 0
    for v in values:
        for op in ["<", ">", "="]:
            sql = f"{col} {op} {v}"
            skip_off = {"hoodie.enable.data.skipping": "false"}
            for ro in [False, True]:
                on, off = slices(path, sql=sql, ro=ro), slices(path, skip_off, sql=sql, ro=ro)
                assert set(on) <= set(off)
                pruned += len(off) - len(on)
                pruned_with_logs += sum(1 for s in off if s not in on and s[4] and not ro)
                assert rows(path, sql=sql, ro=ro) == rows(path, skip_off, sql=sql, ro=ro), (sql, ro)
    assert pruned > 0
    if "overwrite" not in name:
        assert pruned_with_logs > 0
