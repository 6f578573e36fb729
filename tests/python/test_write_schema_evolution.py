"""Schema evolution on write and small-file handling of inserts.

Schema evolution follows Apache Hudi's default (HoodieSchemaUtils.deduceWriterSchema, schema on
write): new nullable columns are added, a table column missing from the data is refused unless
hoodie.write.set.null.for.missing.columns=true, types are promoted to the table's or widened as
Avro resolution allows, anything else is refused before anything is written.

Oracles: pyarrow reads the Parquet files we wrote (their columns and types, and their
parquet.avro.schema), fastavro-free JSON checks of the Avro schema in the commit metadata through
HudiTable.get_schema, the expected rows computed here in plain Python, and
../shared/tools/hudi_check.py after every write (its record-index check maps every snapshot key
to the file group holding it, so inserts placed in small files must be indexed there).
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi import HudiTable, HudiInvalidInputError
from hudi_fixtures import FIXTURES

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring


def check(path) -> str:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def rows(path) -> dict:
    t = pa.Table.from_batches(HudiTable(str(path)).read())
    return {r["id"]: {k: v for k, v in r.items() if not k.startswith("_hoodie")} for r in t.to_pylist()}


def base_files(path) -> list[str]:
    return sorted(glob.glob(os.path.join(str(path), "**", "*.parquet"), recursive=True))


def data_files(path) -> list[str]:
    return [f for f in base_files(path) if "/.hoodie/" not in f]


def timeline(path) -> list[str]:
    return sorted(os.listdir(os.path.join(str(path), ".hoodie", "timeline")))


def file_groups(path) -> set[str]:
    groups = set()
    for f in data_files(path):
        groups.add(os.path.basename(f).split("_")[0])
    for f in glob.glob(os.path.join(str(path), "**", ".*.log.*"), recursive=True):
        if "/.hoodie/" not in f:
            groups.add(os.path.basename(f)[1:].split("_")[0])
    return groups


def batch(ids, ts, v, **extra) -> pa.Table:
    cols = {"id": pa.array(ids, pa.string()), "p": pa.array(["a"] * len(ids)),
            "ts": pa.array(ts, pa.int64()), "v": v}
    cols.update(extra)
    return pa.table(cols)


def new_table(path, kind):
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(batch(["k1", "k2", "k3"], [1, 1, 1], pa.array([1, 2, 3], pa.int32())))
    return t


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_new_column_is_added(tmp_path, kind):
    path = tmp_path / "t"
    new_table(path, kind)
    old = data_files(path)
    r = HudiTable(str(path)).upsert(batch(["k2", "k4"], [2, 2], pa.array([20, 40], pa.int32()),
                                          note=pa.array(["two", None]), score=pa.array([0.5, 4.5])))
    assert r.num_updates == 1 and r.num_inserts == 1
    schema = HudiTable(str(path)).get_schema()
    assert schema.names == ["id", "p", "ts", "v", "note", "score"]
    assert schema.field("note").type == pa.string() and schema.field("score").type == pa.float64()
    assert rows(path) == {
        "k1": {"id": "k1", "p": "a", "ts": 1, "v": 1, "note": None, "score": None},
        "k2": {"id": "k2", "p": "a", "ts": 2, "v": 20, "note": "two", "score": 0.5},
        "k3": {"id": "k3", "p": "a", "ts": 1, "v": 3, "note": None, "score": None},
        "k4": {"id": "k4", "p": "a", "ts": 2, "v": 40, "note": None, "score": 4.5},
    }
    # The old base file keeps its columns; every file this write made has the new schema.
    for f in old:
        assert "note" not in pq.read_schema(f).names
    new = [f for f in data_files(path) if f not in old]
    assert new
    for f in new:
        s = pq.read_schema(f)
        assert s.names[5:] == ["id", "p", "ts", "v", "note", "score"]
        avro = json.loads(s.metadata[b"parquet.avro.schema"])
        assert [x["name"] for x in avro["fields"]][-2:] == ["note", "score"]
    if kind == "cow":
        # the COW rewrite of the updated file group carries the old rows with nulls
        t = pa.concat_tables([pq.read_table(f) for f in new]).to_pylist()
        assert {x["id"]: x["note"] for x in t} == {"k1": None, "k2": "two", "k3": None, "k4": None}
    check(path)
    # a later write of the old schema (without the new columns) is refused by default
    before = timeline(path)
    with pytest.raises(HudiInvalidInputError, match="'note'"):
        HudiTable(str(path)).upsert(batch(["k1"], [3], pa.array([10], pa.int32())))
    assert timeline(path) == before
    # ... and fills nulls with hoodie.write.set.null.for.missing.columns=true
    HudiTable(str(path)).upsert(batch(["k1", "k2"], [3, 3], pa.array([10, 21], pa.int32())),
                                {"hoodie.write.set.null.for.missing.columns": "true"})
    got = rows(path)
    assert got["k1"] == {"id": "k1", "p": "a", "ts": 3, "v": 10, "note": None, "score": None}
    assert got["k2"] == {"id": "k2", "p": "a", "ts": 3, "v": 21, "note": None, "score": None}
    assert HudiTable(str(path)).get_schema().names == ["id", "p", "ts", "v", "note", "score"]
    check(path)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_append_evolves_and_reorders(tmp_path, kind):
    path = tmp_path / "t"
    new_table(path, kind)
    # columns in another order, one more: the table's order is kept, the new one appended
    t = pa.table({"v": pa.array([5], pa.int32()), "extra": pa.array([True]), "ts": pa.array([1], pa.int64()),
                  "p": ["a"], "id": ["k5"]})
    HudiTable(str(path)).append(t)
    assert HudiTable(str(path)).get_schema().names == ["id", "p", "ts", "v", "extra"]
    got = rows(path)
    assert got["k5"] == {"id": "k5", "p": "a", "ts": 1, "v": 5, "extra": True}
    assert got["k1"]["extra"] is None
    check(path)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_type_widening_and_promotion(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(pa.table({"id": ["k1", "k2"], "p": ["a", "a"], "ts": pa.array([1, 1], pa.int64()),
                       "v": pa.array([1, 2], pa.int32()), "f": pa.array([1.5, 2.5], pa.float32()),
                       "l": pa.array([7, 8], pa.int64()), "s": ["x", "y"], "b": pa.array([b"q", b"r"])}))
    # v int -> long and f float -> double widen the table; l long <- int is promoted to the
    # table's long; s string <- bytes and b bytes <- string keep the table's types.
    HudiTable(str(path)).upsert(pa.table({
        "id": ["k2", "k3"], "p": ["a", "a"], "ts": pa.array([2, 2], pa.int64()),
        "v": pa.array([2 ** 40, 3], pa.int64()), "f": pa.array([0.1, 3.25], pa.float64()),
        "l": pa.array([9, 10], pa.int32()), "s": pa.array([b"yy", b"zz"]), "b": ["rr", "ss"]}))
    schema = HudiTable(str(path)).get_schema()
    assert [schema.field(c).type for c in ["v", "f", "l", "s", "b"]] == [
        pa.int64(), pa.float64(), pa.int64(), pa.string(), pa.binary()]
    got = rows(path)
    assert got["k1"] == {"id": "k1", "p": "a", "ts": 1, "v": 1, "f": 1.5, "l": 7, "s": "x", "b": b"q"}
    assert got["k2"] == {"id": "k2", "p": "a", "ts": 2, "v": 2 ** 40, "f": 0.1, "l": 9, "s": "yy", "b": b"rr"}
    assert got["k3"] == {"id": "k3", "p": "a", "ts": 2, "v": 3, "f": 3.25, "l": 10, "s": "zz", "b": b"ss"}
    for f in data_files(path)[-1:]:
        s = pq.read_schema(f)
        assert s.field("v").type == pa.int64() and s.field("f").type == pa.float64()
    check(path)
    # int -> double also widens (Avro reads int as double)
    HudiTable(str(path)).upsert(pa.table({
        "id": ["k1"], "p": ["a"], "ts": pa.array([5], pa.int64()), "v": pa.array([0.5]),
        "f": pa.array([1.0]), "l": pa.array([1], pa.int64()), "s": ["x"], "b": pa.array([b"q"])}))
    assert HudiTable(str(path)).get_schema().field("v").type == pa.float64()
    got = rows(path)
    assert got["k1"]["v"] == 0.5 and got["k2"]["v"] == float(2 ** 40) and got["k3"]["v"] == 3.0
    check(path)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_incompatible_changes_are_refused(tmp_path, kind):
    path = tmp_path / "t"
    new_table(path, kind)
    before, files = timeline(path), data_files(path)
    t = HudiTable(str(path))
    # an unrelated type
    with pytest.raises(HudiInvalidInputError, match="column 'v'"):
        t.upsert(batch(["k1"], [2], pa.array(["one"])))
    # a table column missing
    with pytest.raises(HudiInvalidInputError, match="no column 'v'"):
        t.upsert(pa.table({"id": ["k1"], "p": ["a"], "ts": pa.array([2], pa.int64())}))
    with pytest.raises(HudiInvalidInputError, match="no column 'v'"):
        t.append(pa.table({"id": ["k9"], "p": ["a"], "ts": pa.array([2], pa.int64())}))
    # a record key / partition field changing type
    with pytest.raises(HudiInvalidInputError, match="'p' is a record key or partition field"):
        t.upsert(pa.table({"id": ["k1"], "p": pa.array([1], pa.int32()), "ts": pa.array([2], pa.int64()),
                           "v": pa.array([1], pa.int32())}))
    # the ordering field narrowed from long to double is a widening; long -> string is refused
    with pytest.raises(HudiInvalidInputError, match="column 'ts'"):
        t.upsert(pa.table({"id": ["k1"], "p": ["a"], "ts": pa.array([True]), "v": pa.array([1], pa.int32())}))
    assert timeline(path) == before and data_files(path) == files
    check(path)


@pytest.mark.parametrize("kind", ["cow", "mor"])
def test_small_files_take_inserts(tmp_path, kind):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p", table_type=kind)
    t.append(batch([f"k{i:03d}" for i in range(10)], [1] * 10, pa.array(range(10), pa.int32())))
    groups = file_groups(path)
    assert len(groups) == 1
    expected = {f"k{i:03d}": i for i in range(10)}
    for n in range(5):
        ids = [f"n{n}_{j}" for j in range(3)]
        r = HudiTable(str(path)).upsert(batch(ids, [2] * 3, pa.array([100 * n + j for j in range(3)], pa.int32())))
        assert r.num_inserts == 3
        expected.update({k: 100 * n + j for j, k in enumerate(ids)})
        # the new keys went into the existing (small) file group, not a new one
        assert file_groups(path) == groups
        assert {k: x["v"] for k, x in rows(path).items()} == expected
        out = check(path)
        assert "PASS metadata.record-index" in out, out
    # MOR: an update makes a log file; the slice then no longer takes inserts (the index
    # cannot see inserts in logs), so the next insert starts a new file group.
    if kind == "mor":
        HudiTable(str(path)).upsert(batch(["k000"], [3], pa.array([-1], pa.int32())))
        HudiTable(str(path)).upsert(batch(["z1"], [3], pa.array([7], pa.int32())))
        assert len(file_groups(path)) == 2
        expected.update({"k000": -1, "z1": 7})
        assert {k: x["v"] for k, x in rows(path).items()} == expected
        check(path)


def test_small_file_limit_zero_makes_new_groups(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), "id", ordering_fields="ts", partition_fields="p")
    t.append(batch(["k1"], [1], pa.array([1], pa.int32())))
    HudiTable(str(path)).upsert(batch(["k2"], [1], pa.array([2], pa.int32())),
                                {"hoodie.parquet.small.file.limit": "0"})
    assert len(file_groups(path)) == 2
    # a small max.file.size leaves no room in the small file either
    HudiTable(str(path)).upsert(batch(["k3"], [1], pa.array([3], pa.int32())),
                                {"hoodie.parquet.max.file.size": "1000"})
    assert len(file_groups(path)) == 3
    assert {k: x["v"] for k, x in rows(path).items()} == {"k1": 1, "k2": 2, "k3": 3}
    check(path)
