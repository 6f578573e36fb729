"""Tables hudi-c creates with column stats (hoodie.metadata.index.column.stats.enable=true).

hudi-c initialises column_stats (and partition_stats on a partitioned table) as Hudi does, and
every commit keeps them current:
  - index.json lists the indexed columns after the first commit, by Hudi's rule computed here
    independently from the Arrow schema: the three meta columns, then every data column that is
    not nested and, if a decimal, fits decimal(30, 15);
  - the column_stats record of every latest base file (decoded by the conformance checker's own
    HFile/Avro reader) equals the statistics pyarrow reads from that file's footer; a MOR log
    file's equal the ranges of its records (decoded by the checker);
  - the partition_stats records of the touched partitions equal the files' statistics merged;
  - ../shared/tools/hudi_check.py passes.
Spark's own view of these tables is tested in tests/interop/test_column_stats_create_engines.py.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiReadOptions, HudiTable
from test_mdt_column_stats import CHECKER, RUN_CHECKER, file_stats, hc, mdt_records, unwrap
from test_mdt_column_stats import check_record as check_v2

META = ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key"]

SCHEMA = pa.schema([
    ("id", pa.string()), ("n", pa.int32()), ("v", pa.int64()), ("x", pa.float64()), ("ok", pa.bool_()),
    ("d", pa.date32()), ("ts", pa.timestamp("us", tz="UTC")), ("amt", pa.decimal128(10, 2)),
    ("big", pa.decimal128(38, 4)), ("emb", pa.list_(pa.float32())), ("region", pa.string()),
])


def expected_columns(schema: pa.Schema) -> list[str]:
    """Hudi's getColumnsToIndex, from the Arrow types (oracle independent of the C rule)."""
    out = list(META)
    for f in schema:
        t = f.type
        if pa.types.is_nested(t):
            continue
        if pa.types.is_decimal(t) and (t.precision + (15 - t.scale) > 30 or t.scale > 15):
            continue
        out.append(f.name)
    return out[:3 + 32]


def rows(keys: list[str], version: int, regions=("eu", "us")) -> pa.Table:
    base = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    return pa.Table.from_pylist([
        {"id": k, "n": i if i % 5 else None, "v": 1000 * version + i, "x": i / 7, "ok": i % 2 == 0,
         "d": dt.date(2024, 1, 1) + dt.timedelta(days=i), "ts": base + dt.timedelta(seconds=i * version),
         "amt": Decimal(i * version) / 100, "big": Decimal(i), "emb": [float(i)], "region": regions[i % len(regions)]}
        for i, k in enumerate(keys)], schema=SCHEMA)


def check_record(rec: dict, want: dict, where: str) -> None:
    """V2 records (table version 9) as the Spark-fixture test checks them; V1 (version 8) records
    carry no value type and hold decimals at scale 15 (DecimalWrapper's decimal(30, 15))."""
    cs = rec["ColumnStatsMetadata"]
    if "valueType" in cs:
        return check_v2(rec, want, where)
    want = dict(want)
    typ = want["type"]
    if pa.types.is_decimal(typ):
        def rescale(bound):
            if bound is None:
                return None
            unscaled = int.from_bytes(bound[1], "big", signed=True) * 10 ** (15 - typ.scale)
            n = max(1, (unscaled.bit_length() + 8) // 8)
            return (bound[0], unscaled.to_bytes(n, "big", signed=True))
        want["min"], want["max"] = rescale(want["min"]), rescale(want["max"])
    got = (unwrap(cs["minValue"]), unwrap(cs["maxValue"]), cs["nullCount"], cs["valueCount"], cs["totalSize"],
           cs["totalUncompressedSize"], cs["isDeleted"])
    exp = (want["min"][1] if want["min"] else None, want["max"][1] if want["max"] else None, want["nulls"],
           want["values"], want["size"], want["usize"], False)
    assert got == exp, (where, cs["columnName"], got, exp)


def live_files(path: Path) -> dict[str, tuple[str | None, list[str]]]:
    """(partition, file id) -> (base file rel path, log file rel paths) of the latest slices (checker's view)."""
    d = hc.Table(str(path))
    out = {}
    for (part, fid), files in d.live_file_groups().items():
        base, logs = d.latest_slice(files)
        out[(part, fid)] = (base.rel_path if base else None, [lg.rel_path for lg in logs])
    return out


def log_records(path: Path, rel: str) -> list[dict]:
    recs = []
    for b in hc.parse_log_file((path / rel).read_bytes()):
        if b.block_type == hc.AVRO_DATA:
            recs.extend(hc.decode_avro_data_block(b))
        elif b.block_type == hc.PARQUET_DATA:
            recs.extend(pq.read_table(pa.BufferReader(b.content)).to_pylist())
    return recs


def verify(path: Path, partitioned: bool, checker=None) -> None:
    """checker (optional): runs the conformance checker instead of the plain run below (a
    savepointed table's tolerated clash, test_savepoint_restore.check)."""
    columns = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"]
    assert columns == expected_columns(SCHEMA)
    by_file: dict[str, dict] = {}
    for rec in mdt_records(path, "column_stats").values():
        m = rec["ColumnStatsMetadata"]
        if not m["isDeleted"]:
            by_file.setdefault(m["fileName"], {})[m["columnName"]] = rec
    merged: dict[str, dict[str, dict]] = {}
    checked = 0
    for (part, _), (base, logs) in live_files(path).items():
        if base:
            name = Path(base).name
            stats = file_stats(path, base, columns)
            assert set(stats) == set(columns) and set(by_file[name]) == set(columns), name
            for col, want in stats.items():
                check_record(by_file[name][col], want, base)
                checked += 1
                agg = merged.setdefault(part, {}).get(col)
                if agg is None:
                    merged[part][col] = {**want}
                else:
                    for k in ("nulls", "values", "size", "usize"):
                        agg[k] += want[k]
                    if want["min"] and (agg["min"] is None or want["min"][0] < agg["min"][0]):
                        agg["min"] = want["min"]
                    if want["max"] and (agg["max"] is None or want["max"][0] > agg["max"][0]):
                        agg["max"] = want["max"]
        for rel in logs:  # a log file's stats: the ranges of its records
            recs = log_records(path, rel)
            got = by_file[Path(rel).name]
            for col in ("id", "v", "_hoodie_commit_time"):
                vals = [r[col] for r in recs if r[col] is not None]
                m = got[col]["ColumnStatsMetadata"]
                want = (min(vals) if vals else None, max(vals) if vals else None, len(recs), len(recs) - len(vals))
                assert (unwrap(m["minValue"]), unwrap(m["maxValue"]), m["valueCount"], m["nullCount"]) == want, rel
                checked += 1
    assert checked > 0
    ps = {(r["ColumnStatsMetadata"]["fileName"], r["ColumnStatsMetadata"]["columnName"]): r
          for r in mdt_records(path, "partition_stats").values()} if partitioned else {}
    for part, cols in merged.items():
        if not partitioned:
            continue
        part_logs = [rel for (p, _), (_, logs) in live_files(path).items() if p == part for rel in logs]
        if part_logs:
            # The log files' records join in (valueCount counts them; min/max over their values): checked
            # on the string and long columns, whose decoded values compare as pyarrow's statistics do.
            recs = [r for rel in part_logs for r in log_records(path, rel)]
            for col in ("id", "v"):
                want = cols[col]
                vals = [r[col] for r in recs if r[col] is not None]
                lo = min([want["min"][1]] + vals) if want["min"] else min(vals)
                hi = max([want["max"][1]] + vals) if want["max"] else max(vals)
                m = ps[(part, col)]["ColumnStatsMetadata"]
                assert (unwrap(m["minValue"]), unwrap(m["maxValue"]), m["valueCount"]) == \
                    (lo, hi, want["values"] + len(recs)), (part, col)
            continue
        for col, want in cols.items():
            assert ps[(part, col)]["ColumnStatsMetadata"]["isTightBound"] is True
            check_record(ps[(part, col)], want, f"partition {part}")
    if checker:
        checker(path)
        return
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("version", ["8", "9"])
@pytest.mark.parametrize("table_type", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "plain"])
def test_created_table_keeps_column_stats(tmp_path, version, table_type, partitioned):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", ordering_fields="v", table_type=table_type,
                         partition_fields="region" if partitioned else None,
                         hudi_options={"hoodie.metadata.index.column.stats.enable": "true",
                                       "hoodie.write.table.version": version})
    props = (path / ".hoodie" / "hoodie.properties").read_text()
    parts = "column_stats,files,partition_stats,record_index" if partitioned else "column_stats,files,record_index"
    assert f"hoodie.table.metadata.partitions={parts}\n" in props
    defs = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())["indexDefinitions"]
    assert defs["column_stats"]["sourceFields"] == []
    assert defs["column_stats"].get("version") == ("V2" if version == "9" else None)

    keys = [f"k{i:03d}" for i in range(40)]
    t.append(rows(keys, 1), {"hoodie.parquet.max.file.size": "4000"})
    verify(path, partitioned)
    t.upsert(rows(keys[::3] + ["k900", "k901"], 2))
    verify(path, partitioned)
    t.delete_keys(keys[1:6])
    verify(path, partitioned)
    t.update("id = 'k010'", {"v": 99999})
    verify(path, partitioned)
    got = pa.Table.from_batches(HudiTable(str(path)).read(HudiReadOptions(filters=[("v", ">", "50000")])))
    assert got.column("id").to_pylist() == ["k010"]


def test_schema_evolution_adds_indexed_column(tmp_path):
    """A column a later commit adds joins the list (Hudi recomputes it from each commit's schema)."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", ordering_fields="v", table_type="cow",
                         hudi_options={"hoodie.metadata.index.column.stats.enable": "true"})
    t.append(pa.table({"id": ["a", "b"], "v": [1, 2]}))
    index = path / ".hoodie" / ".index_defs" / "index.json"
    assert json.loads(index.read_text())["indexDefinitions"]["column_stats"]["sourceFields"] == META + ["id", "v"]
    t.upsert(pa.table({"id": ["c"], "v": [3], "w": ["new"]}))
    assert json.loads(index.read_text())["indexDefinitions"]["column_stats"]["sourceFields"] == META + ["id", "v", "w"]
    recs = [r["ColumnStatsMetadata"] for r in mdt_records(path, "column_stats").values()]
    w = [m for m in recs if m["columnName"] == "w" and not m["isDeleted"]]
    assert w and all(unwrap(m["maxValue"]) in ("new", None) for m in w)


def test_max_columns_option(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", table_type="cow",
                         hudi_options={"hoodie.metadata.index.column.stats.enable": "true"})
    t.append(pa.table({"id": ["a"], "p": [1], "q": [2]}),
             {"hoodie.metadata.index.column.stats.max.columns.to.index": "2"})
    defs = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())
    assert defs["indexDefinitions"]["column_stats"]["sourceFields"] == META + ["id", "p"]


@pytest.mark.parametrize("opts, message", [
    ({"hoodie.metadata.index.partition.stats.enable": "true"}, "needs hoodie.metadata.index.column.stats.enable"),
    ({"hoodie.metadata.index.column.stats.enable": "true", "hoodie.metadata.enable": "false"},
     "column stats live in the metadata table"),
    ({"hoodie.metadata.index.column.stats.enable": "true",
      "hoodie.metadata.index.column.stats.file.group.count": "0"}, "file group count"),
    ({"hoodie.metadata.index.column.stats.enable": "yes"}, "expected true or false"),
])
def test_bad_options_refused(tmp_path, opts, message):
    with pytest.raises(Exception, match=message):
        HudiTable.create(str(tmp_path / "t"), record_key="id", hudi_options=opts,
                         record_index_enabled=opts.get("hoodie.metadata.enable") != "false")
    assert not (tmp_path / "t" / ".hoodie" / "hoodie.properties").exists()


@pytest.mark.parametrize("version", ["8", "9"])
def test_time_columns(tmp_path, version):
    """Version 8's V1 records wrap times, millisecond and local timestamps by their Java class, which
    hudi-c does not write: on version 8 those columns are left out of the list (Spark 1.0.2 refuses
    local timestamps altogether); version 9 indexes them all."""
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", table_type="cow",
                         hudi_options={"hoodie.metadata.index.column.stats.enable": "true",
                                       "hoodie.write.table.version": version})
    data = pa.table({"id": ["a", "b"],
                     "utc_us": pa.array([1, 2], pa.timestamp("us", tz="UTC")),
                     "utc_ms": pa.array([1, 2], pa.timestamp("ms", tz="UTC")),
                     "local_us": pa.array([1, 2], pa.timestamp("us")),
                     "t_ms": pa.array([1, 2], pa.time32("ms")),
                     "fixed": pa.array([b"ab", b"cd"], pa.binary(2)),
                     "raw": pa.array([b"x", b"y"], pa.binary())})
    t.append(data)
    cols = json.loads((path / ".hoodie" / ".index_defs" / "index.json").read_text())[
        "indexDefinitions"]["column_stats"]["sourceFields"]
    want = ["id", "utc_us", "raw"] if version == "8" else ["id", "utc_us", "utc_ms", "local_us", "t_ms", "fixed", "raw"]
    assert cols == META + want
    recs = {m["columnName"] for m in (r["ColumnStatsMetadata"] for r in mdt_records(path, "column_stats").values())}
    assert recs == set(META + want)
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
