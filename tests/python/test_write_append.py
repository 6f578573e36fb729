"""Creating tables and bulk-inserting into them (hudi.HudiTable.create / append).

Oracles: pyarrow reads the base files back, the conformance checker
../shared/tools/hudi_check.py must pass on every table, and the footer bloom
filter is compared byte for byte with Spark-written fixture files.
"""

from __future__ import annotations

import glob
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import hudi
from hudi import HudiInvalidInputError, HudiTable, HudiUnsupportedError
from hudi_fixtures import FIXTURES, table_path

CHECKER = FIXTURES.parent / "tools" / "hudi_check.py"
RUN_CHECKER = Path(__file__).resolve().parents[1] / "run_hudi_check.py"  # see its docstring
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]


def check(table_dir) -> None:
    r = subprocess.run([sys.executable, str(RUN_CHECKER), str(CHECKER), str(table_dir)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    if base_files(table_dir):
        assert "SKIP parquet" not in r.stdout  # the pyarrow checks ran


def base_files(table_dir) -> list[str]:
    return sorted(glob.glob(os.path.join(str(table_dir), "**", "*.parquet"), recursive=True))


def all_rows(table_dir) -> pa.Table:
    return pa.concat_tables([pq.read_table(f) for f in base_files(table_dir)])


def chunks(n: int, start: int = 0, doc: str = "doc") -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "chunk_id": [f"{doc}#{i}" for i in ids],
        "doc_id": [f"{doc}{i % 3}" for i in ids],
        "updated_at": pa.array(ids, pa.int64()),
        "text": [f"text {i}" for i in ids],
        "embedding": pa.array([[float(i), 0.5, -1.0, 2.0] for i in ids], pa.list_(pa.float32(), 4)),
    })


def create(path, **kw) -> HudiTable:
    kw.setdefault("record_index_enabled", False)
    return HudiTable.create(str(path), **kw)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_create_and_append_batches(tmp_path, table_type):
    path = tmp_path / f"rag_{table_type}"
    t = create(path, record_key="chunk_id", ordering_fields="updated_at", partition_fields="doc_id",
               table_type=table_type)
    props = t.properties()
    assert props["hoodie.table.type"] == ("MERGE_ON_READ" if table_type == "mor" else "COPY_ON_WRITE")
    assert props["hoodie.table.version"] == "8"
    assert props["hoodie.table.keygenerator.type"] == "SIMPLE"
    assert props["hoodie.record.merge.mode"] == "EVENT_TIME_ORDERING"
    assert props["hoodie.table.precombine.field"] == "updated_at"
    assert props["hoodie.table.name"] == f"rag_{table_type}"
    assert "hoodie.table.metadata.partitions" not in props
    check(path)  # an empty table is valid too

    import pandas as pd
    import polars as pl

    batches = [
        chunks(7, 0),                                                     # pyarrow Table
        pa.RecordBatchReader.from_batches(chunks(5, 7).schema, chunks(5, 7).to_batches(max_chunksize=2)),
        pl.from_arrow(chunks(4, 12)),                                     # polars DataFrame
        chunks(3, 16).to_pandas(),                                        # pandas DataFrame
    ]
    results = [t.append(b) for b in batches]
    action = "deltacommit" if table_type == "mor" else "commit"
    for r, n in zip(results, [7, 5, 4, 3]):
        assert r.action == action and r.operation == "BULK_INSERT"
        assert r.num_inserts == n and r.num_writes == n and r.num_updates == 0
        assert r.completion_time > r.requested_time
        assert r.files_written == r.partitions_written == 3
    times = [r.requested_time for r in results]
    assert times == sorted(times) and len(set(times)) == 4
    assert sum(r.bytes_written for r in results) == sum(os.path.getsize(f) for f in base_files(path))

    rows = all_rows(path)
    assert rows.column_names[:5] == META
    assert rows.num_rows == 19
    by_key = {r["chunk_id"]: r for r in rows.to_pylist()}
    assert sorted(by_key) == sorted(f"doc#{i}" for i in range(19))
    for i in range(19):
        r = by_key[f"doc#{i}"]
        assert r["_hoodie_record_key"] == f"doc#{i}"
        assert r["_hoodie_partition_path"] == f"doc_id=doc{i % 3}"
        assert r["embedding"] == [float(i), 0.5, -1.0, 2.0]  # fixed_size_list stored as a list
        assert r["_hoodie_commit_time"] == times[0 if i < 7 else 1 if i < 12 else 2 if i < 16 else 3]
        assert r["_hoodie_commit_seqno"].startswith(r["_hoodie_commit_time"] + "_")
    f = pq.ParquetFile(base_files(path)[0])
    emb = f.schema_arrow.field("embedding").type
    assert pa.types.is_list(emb) and emb.value_type == pa.float32()
    assert f.metadata.row_group(0).column(0).compression == "ZSTD"  # version 8: zstd by default (docs/compatibility.md item 20)
    kv = f.metadata.metadata
    assert kv[b"hoodie_bloom_filter_type_code"] == b"DYNAMIC_V0"
    assert kv[b"writer.model.name"] == b"avro"
    avro = json.loads(kv[b"parquet.avro.schema"])
    assert [x["name"] for x in avro["fields"]][:6] == META + ["chunk_id"]
    assert re.search(r"repeated float (field_id=-1 )?array;", str(f.schema))  # parquet-avro's 2-level list
    check(path)

    if hasattr(t, "read"):
        got = pa.Table.from_batches(t.read())
        assert sorted(got.column("chunk_id").to_pylist()) == sorted(by_key)


def test_nonpartitioned_complex_key_and_options(tmp_path):
    path = tmp_path / "cx"
    t = create(path, record_key=["a", "b"], table_name="complex_t",
               hudi_options={"hoodie.parquet.compression.codec": "snappy"})
    assert t.properties()["hoodie.table.keygenerator.type"] == "NON_PARTITION"
    assert t.properties()["hoodie.record.merge.mode"] == "COMMIT_TIME_ORDERING"
    t.append(pa.table({"a": pa.array([1, 2, None], pa.int32()), "b": ["x", "", "z"], "v": [1.5, 2.5, 3.5]}))
    rows = all_rows(path).to_pylist()
    assert sorted(r["_hoodie_record_key"] for r in rows) == ["a:1,b:x", "a:2,b:__empty__", "a:__null__,b:z"]
    assert {r["_hoodie_partition_path"] for r in rows} == {""}
    assert os.path.exists(path / ".hoodie_partition_metadata")
    f = pq.ParquetFile(base_files(path)[0])
    assert f.metadata.row_group(0).column(5).compression == "SNAPPY"
    assert f.metadata.metadata[b"hoodie_min_record_key"] == b"a:1,b:x"
    assert f.metadata.metadata[b"hoodie_max_record_key"] == b"a:__null__,b:z"
    check(path)


def test_integer_keys_in_decimal_as_java_writes_them(tmp_path):
    """Integer key fields become Long.toString's digits (Python's str agrees): signs, zero, the
    int64 and uint32 extremes; composite keys sorted into the record index by the text after the
    field name all keys share (enough keys for the bucket sort)."""
    path = tmp_path / "ints"
    t = create(path, record_key=["a", "b"])
    edge = [0, -1, 7, -9223372036854775808, 9223372036854775807, -10, 1000000]
    a = edge + list(range(-25000, 25000))  # > 4096 keys a shard: the bucket sort runs
    b = [4294967295, 0, 1, 2, 3, 4, 5] + [(i + 3) % 7 for i in range(50000)]
    t.append(pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.uint32()), "v": list(range(len(a)))}))
    got = sorted(r["_hoodie_record_key"] for r in all_rows(path).to_pylist())
    want = sorted(f"a:{x},b:{y}" for x, y in zip(a, b))
    assert got == want
    # the record index finds every key: an upsert of all of them updates, inserts nothing
    u = HudiTable(str(path)).upsert(pa.table({"a": pa.array(a, pa.int64()), "b": pa.array(b, pa.uint32()),
                                              "v": [-1] * len(a)}))
    assert (u.num_updates, u.num_inserts) == (len(a), 0)
    check(path)


def test_non_hive_partitions_and_file_sizing(tmp_path):
    path = tmp_path / "sized"
    t = create(path, record_key="id", partition_fields="p",
               hudi_options={"hoodie.datasource.write.hive_style_partitioning": "false"})
    n = 3000
    # Files are sized by their compressed bytes: an incompressible payload (~100 bytes a row
    # under gzip) makes each partition ~150 KB, two files each.
    data = pa.table({"id": [f"k{i:05d}" for i in range(n)], "p": [i % 2 for i in range(n)],
                     "payload": [os.urandom(100).hex() for _ in range(n)]})
    r = t.append(data, {"hoodie.parquet.max.file.size": str(100 * 1024)})
    assert r.partitions_written == 2 and r.files_written > 2
    files = base_files(path)
    assert len(files) == r.files_written
    assert {Path(f).parent.name for f in files} == {"0", "1"}
    rows = all_rows(path)
    assert rows.num_rows == n and len(set(rows.column("_hoodie_record_key").to_pylist())) == n
    # every file holds a contiguous key range of its partition
    for f in files:
        kv = pq.ParquetFile(f).metadata.metadata
        keys = pq.read_table(f).column("_hoodie_record_key").to_pylist()
        assert kv[b"hoodie_min_record_key"].decode() == min(keys)
        assert kv[b"hoodie_max_record_key"].decode() == max(keys)
    check(path)


def test_bad_input_writes_nothing(tmp_path):
    path = tmp_path / "bad"
    t = create(path, record_key="id", partition_fields="p")
    before = sorted(os.listdir(path / ".hoodie" / "timeline"))
    with pytest.raises(HudiInvalidInputError, match="'id' is null"):
        t.append(pa.table({"id": ["a", None], "p": ["x", "y"]}))
    with pytest.raises(HudiInvalidInputError, match="partition field 'p'"):
        t.append(pa.table({"id": ["a"], "q": ["x"]}))
    with pytest.raises(HudiInvalidInputError, match="record key field 'id'"):
        t.append(pa.table({"key": ["a"], "p": ["x"]}))
    with pytest.raises(HudiUnsupportedError, match="'u'"):
        t.append(pa.table({"id": ["a"], "p": ["x"], "u": pa.array([1], pa.uint64())}))
    with pytest.raises(HudiInvalidInputError, match="_hoodie_record_key"):
        t.append(pa.table({"id": ["a"], "p": ["x"], "_hoodie_record_key": ["a"]}))
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == before
    assert base_files(path) == []
    t.append(pa.table({"id": ["a"], "p": ["x"]}))
    # schema evolution (test_write_schema_evolution.py): a partition field cannot change type
    with pytest.raises(HudiInvalidInputError, match="'p' is a record key or partition field"):
        t.append(pa.table({"id": ["b"], "p": [1]}))
    check(path)


def test_bad_rows_are_named_by_their_row_in_the_write(tmp_path):
    """A null key in the second batch of a stream is reported by its row number in the whole
    write (found by a user trial: the number was counted within the batch)."""
    path = tmp_path / "rows"
    t = create(path, record_key="id")
    batches = [pa.record_batch({"id": ["a", "b", "c", "d", "e"]}), pa.record_batch({"id": ["f", "g", None, "i", "j"]})]
    with pytest.raises(HudiInvalidInputError, match="'id' is null in row 7$"):
        t.append(pa.RecordBatchReader.from_batches(batches[0].schema, batches))
    assert base_files(path) == []


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_the_ordering_field_is_required(tmp_path, table_type):
    """An append without the table's ordering field is refused as an upsert is (found by a user
    trial: the append went through, and the next upsert crashed merging stored rows that lacked
    the column)."""
    path = tmp_path / "ord"
    t = create(path, record_key="id", ordering_fields="ts", table_type=table_type)
    with pytest.raises(HudiInvalidInputError, match="the data has no column 'ts' \\(the table's ordering field\\)"):
        t.append(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    assert base_files(path) == []
    with pytest.raises(HudiInvalidInputError, match="no column 'ts'"):
        t.overwrite(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    t.append(pa.table({"id": [1, 2], "ts": [1, 1], "v": ["a", "b"]}))
    check(path)


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_stored_files_without_the_ordering_field(tmp_path, table_type):
    """Files written before the table had its ordering field (the configuration changed under
    them, as older hudi-c appends allowed) hold no value of it: an upsert merges them as it merges
    a stored null, by the column's name in each file (before, it indexed the file's columns by the
    table schema's position and crashed)."""
    path = tmp_path / "noord"
    t = create(path, record_key="id", table_type=table_type)
    t.append(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    props = path / ".hoodie" / "hoodie.properties"
    props.write_text(props.read_text().replace("hoodie.table.keygenerator.type",
                                               "hoodie.table.precombine.field=ts\nhoodie.table.keygenerator.type"))
    t = HudiTable(str(path))
    r = t.upsert(pa.table({"id": [2, 3], "ts": [5, 6], "v": ["B", "C"]}))
    assert (r.num_updates, r.num_inserts) == (1, 1)
    got = pa.Table.from_batches(t.read()).select(["id", "ts", "v"]).sort_by("id").to_pylist()
    assert got == [{"id": 1, "ts": None, "v": "a"}, {"id": 2, "ts": 5, "v": "B"}, {"id": 3, "ts": 6, "v": "C"}]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_corrupt_base_file_is_reported_as_corrupt(tmp_path, table_type):
    """A base file whose bytes are not Parquet: reads raise HudiCorruptDataError naming the file
    and the byte offset (pyarrow's own exception before, through the Arrow stream), keyed writes
    too (HudiIOError before), and the write leaves the table as it was."""
    path = tmp_path / "corrupt"
    t = create(path, record_key="id", table_type=table_type)
    t.append(pa.table({"id": [1, 2]}))
    f = base_files(path)[0]
    with open(f, "r+b") as fh:
        fh.write(b"XXXXXXXX")
    timeline = sorted(os.listdir(path / ".hoodie" / "timeline"))
    name = os.path.basename(f)
    with pytest.raises(hudi.HudiCorruptDataError, match=re.escape(name) + ".*no PAR1 magic at byte offset 0"):
        HudiTable(str(path)).read()
    with pytest.raises(hudi.HudiCorruptDataError, match="no PAR1 magic"):
        list(HudiTable(str(path)).read_stream())
    # the bloom index reads the stored keys first, then a COW rewrite reads the rows
    with pytest.raises(hudi.HudiCorruptDataError, match=re.escape(name)):
        HudiTable(str(path)).upsert(pa.table({"id": [1]}))
    assert sorted(os.listdir(path / ".hoodie" / "timeline")) == timeline
    with pytest.raises(TypeError, match="HudiReadOptions"):
        HudiTable(str(path)).get_file_slices([("id", "=", "1")])  # type: ignore[arg-type]


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_null_and_promoted_ordering_values(tmp_path, table_type):
    """A COW merge settles ordering values as the MOR reader does (found by a review: a stored
    null compared as 0, so a negative incoming value lost to it, and after an int -> double
    promotion the stored int was read as a double): a null never beats a value, promoted values
    compare as numbers. Both table types must give the same rows."""
    path = tmp_path / "nulls"
    t = create(path, record_key="id", ordering_fields="ts", table_type=table_type)
    t.append(pa.table({"id": ["a", "b", "c"], "ts": pa.array([None, 2, 10], pa.int32()), "v": [1, 2, 3]}))
    t.upsert(pa.table({"id": ["a", "b"], "ts": pa.array([-5, None], pa.int32()), "v": [10, 20]}))
    t.upsert(pa.table({"id": ["c"], "ts": pa.array([5.0], pa.float64()), "v": [30]}))  # promoted, stale
    t.upsert(pa.table({"id": ["b"], "ts": pa.array([2.5], pa.float64()), "v": [21]}))  # promoted, newer
    got = pa.Table.from_batches(HudiTable(str(path)).read()).select(["id", "ts", "v"]).sort_by("id").to_pylist()
    assert got == [{"id": "a", "ts": -5.0, "v": 10}, {"id": "b", "ts": 2.5, "v": 21}, {"id": "c", "ts": 10.0, "v": 3}]


def test_create_errors(tmp_path):
    # The record index (on by default) lives in the metadata table.
    with pytest.raises(HudiInvalidInputError, match="metadata table"):
        HudiTable.create(str(tmp_path / "rli"), record_key="id", hudi_options={"hoodie.metadata.enable": "false"})
    assert not (tmp_path / "rli" / ".hoodie" / "hoodie.properties").exists()
    create(tmp_path / "t", record_key="id")
    with pytest.raises(hudi.HudiAlreadyExistsError, match="already exists"):
        create(tmp_path / "t", record_key="id")
    with pytest.raises(HudiInvalidInputError):
        create(tmp_path / "n", record_key="id", table_name="bad-name")
    with pytest.raises(HudiUnsupportedError):  # versions 6, 8, 9 are written (test_write_versions.py)
        create(tmp_path / "v7", record_key="id", hudi_options={"hoodie.write.table.version": "7"})


def test_writes_to_opened_table(tmp_path):
    path = tmp_path / "reopen"
    create(path, record_key="id", table_type="mor", ordering_fields="ts")
    t = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    t.append(pa.table({"id": ["a", "b"], "ts": [1, 2]}))
    t2 = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    t2.append(pa.table({"id": ["c"], "ts": [3]}))
    assert len(t2.get_timeline().get_completed_deltacommits()) == 2
    assert all_rows(path).num_rows == 3
    check(path)


BLOOM_FIXTURES = ["sample_table/cow/v8_simplekeygen_nonhivestyle", "sample_table/cow/v9_txns_simple_nometa",
                  "sample_table/cow/v6_complexkeygen_hivestyle", "sample_table/cow/v8_nonpartitioned", "sample_table/mor/avro/v9_txns_complex_nometa"]


@pytest.mark.parametrize("fixture", BLOOM_FIXTURES)
def test_bloom_filter_matches_spark(tmp_path, fixture):
    """With hoodie.index.bloom.num_entries=60000 (Java's default, which Java applies to every file),
    our footer bloom filter over the keys of a Spark-written base file equals Spark's, byte for byte;
    without it the filter is sized for the file's keys (smaller, same false-positive rate)."""
    try:
        root = table_path(fixture)
    except FileNotFoundError:
        pytest.skip(f"fixture {fixture} not present")
    files = [f for f in base_files(root) if "/.hoodie/" not in f]
    assert files
    for i, f in enumerate(files):
        keys = pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()
        path = tmp_path / f"b{i}"
        t = create(path, record_key="k")
        t.append(pa.table({"k": keys}), {"hoodie.index.bloom.num_entries": "60000"})
        ours = pq.ParquetFile(base_files(path)[0]).metadata.metadata
        theirs = pq.ParquetFile(f).metadata.metadata
        assert ours[b"org.apache.hudi.bloomfilter"] == theirs[b"org.apache.hudi.bloomfilter"], f
        sized = tmp_path / f"s{i}"
        create(sized, record_key="k").append(pa.table({"k": keys}))
        small = pq.ParquetFile(base_files(sized)[0]).metadata.metadata[b"org.apache.hudi.bloomfilter"]
        assert len(small) < len(theirs[b"org.apache.hudi.bloomfilter"]) // 100, (len(keys), len(small))
        assert ours[b"hoodie_min_record_key"] == theirs[b"hoodie_min_record_key"]
        assert ours[b"hoodie_max_record_key"] == theirs[b"hoodie_max_record_key"]


@pytest.mark.parametrize("mode", [None, "NONE", "GLOBAL_SORT", "partition_sort"])
def test_bulk_insert_order_follows_the_sort_mode(tmp_path, mode):
    """Rows are grouped by partition; within one, hoodie.bulkinsert.sort.mode NONE (Hudi's default)
    keeps the input order and the sorting modes order by key: pyarrow's filter and sort are the
    oracle. 300k rows are enough for the sort to run on two threads (two sorted halves merged); keys
    share their first 8 bytes in runs of 1,000, so comparisons go past the sort prefix."""
    import numpy as np

    n = 300_000
    rng = np.random.default_rng(5)
    ids = rng.permutation(n)
    src = pa.table({"id": pa.array([f"key-{i:07d}" for i in ids]), "v": pa.array(np.arange(n)),
                    "p": pa.array(np.where(rng.random(n) < 0.5, "a", "b"))})
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", partition_fields="p", record_index_enabled=False)
    t.append(src, {"hoodie.bulkinsert.sort.mode": mode} if mode else {})
    got = pa.concat_tables([pq.read_table(f) for f in base_files(path)])
    seq = [tuple(int(x) for x in s.split("_")[1:]) for s in got["_hoodie_commit_seqno"].to_pylist()]
    got = got.append_column("task", pa.array([s[0] for s in seq])).append_column("n", pa.array([s[1] for s in seq]))
    got = got.sort_by([("task", "ascending"), ("n", "ascending")])
    for part in ("a", "b"):
        want = src.filter(pc.equal(src["p"], part))
        if mode in ("GLOBAL_SORT", "partition_sort"):
            want = want.take(pc.sort_indices(want, [("id", "ascending")]))
        mine = got.filter(pc.equal(got["_hoodie_partition_path"], f"p={part}"))
        assert mine["v"].to_pylist() == want["v"].to_pylist(), part
        # The footer's key range covers the file's keys in either order.
        for f in base_files(path / f"p={part}"):
            md = pq.ParquetFile(f).metadata.metadata
            keys = pq.read_table(f, columns=["_hoodie_record_key"]).column(0).to_pylist()
            assert md[b"hoodie_min_record_key"].decode() == min(keys)
            assert md[b"hoodie_max_record_key"].decode() == max(keys)
    check(path)


def test_bulk_insert_unknown_sort_mode_is_refused(tmp_path):
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id")
    with pytest.raises(Exception, match="hoodie.bulkinsert.sort.mode='SHUFFLE'"):
        t.append(pa.table({"id": ["a"]}), {"hoodie.bulkinsert.sort.mode": "SHUFFLE"})
    assert not [f for f in base_files(path) if "/.hoodie/" not in f]


@pytest.mark.parametrize("n", [50_000, 200_000])  # 200k: in input order, the check runs on every core
@pytest.mark.parametrize("mode", ["NONE", "GLOBAL_SORT"])
@pytest.mark.parametrize("partitioned", [False, True])
def test_bulk_insert_repeated_key_with_record_index_is_refused_in_any_order(tmp_path, mode, partitioned, n):
    """With a record index a key may appear once; the duplicate is found whether rows stay in input
    order (hashed keys) or are sorted, in one partition or across two, and nothing is written."""
    keys = [f"k{(i * 7919) % n:06d}" for i in range(n)]
    keys[n - 3] = keys[17]  # far apart in the input
    path = tmp_path / "t"
    t = HudiTable.create(str(path), record_key="id", partition_fields="p" if partitioned else None)
    data = pa.table({"id": keys, "p": ["x" if i % 2 else "y" for i in range(n)]})
    with pytest.raises(Exception, match=f"record key '{keys[17]}' appears twice"):
        t.append(data, {"hoodie.bulkinsert.sort.mode": mode})
    assert not [f for f in base_files(path) if "/.hoodie/" not in f]


def test_bulk_insert_several_repeated_keys_named_the_same_every_time(tmp_path):
    """Several keys repeated in 300k rows (the check runs on every core): the error names one of
    them, the same one on every try."""
    n = 300_000
    keys = [f"k{(i * 7919) % n:06d}" for i in range(n)]
    firsts = (5, 70_001, 150_003, 299_990)
    dups = {keys[i] for i in firsts}
    for j, i in enumerate(firsts):
        keys[n - 10 - (j + 1) * 40_000] = keys[i]
    data = pa.table({"id": keys})
    named = set()
    for attempt in range(4):
        path = tmp_path / f"t{attempt}"
        t = HudiTable.create(str(path), record_key="id")
        with pytest.raises(Exception, match="appears twice") as e:
            t.append(data)
        named.add(str(e.value).split("'")[1])
    assert len(named) == 1 and named <= dups
