"""libhudi's Parquet reader against pyarrow.parquet.read_table, the oracle.

Every file pyarrow writes in tests/parquet/make_reader_files.py (every type,
encoding, codec, page version, nesting) and every Parquet file of the
fixtures (the Spark-written base files in the table zips, the stand-alone
files, and the Parquet log block of valid_log_parquet_data) must read to a
table equal to pyarrow's: same schema (names, types, nullability, field
metadata) and same values. Floats are compared by their bits, so NaNs
count as equal where both sides hold the same NaN.

Needs the test hook _hudi._parquet_read (python/src/parquet.c).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi import _hudi

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parquet"))
import legacy_lists  # noqa: E402
import make_reader_files  # noqa: E402
from hudi_fixtures import CORE_DATA, TABLES, table_path  # noqa: E402


def ours(path, **kw) -> pa.Table:
    capsule = _hudi._parquet_read(str(path), **kw)
    return pa.RecordBatchReader._import_from_c_capsule(capsule).read_all()


def _bits(a: pa.Array) -> pa.Array:
    """Floating arrays (also nested) with their values viewed as integers."""
    t = a.type
    if pa.types.is_floating(t):
        return a.view({16: pa.int16(), 32: pa.int32(), 64: pa.int64()}[t.bit_width])
    if pa.types.is_struct(t):
        kids = [_bits(a.field(i)) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(kids, fields=[pa.field(f.name, k.type, f.nullable) for f, k in zip(t, kids)],
                                          mask=a.is_null() if a.null_count else None)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        vals = _bits(a.flatten() if not pa.types.is_fixed_size_list(t) else a.values[a.offset * t.list_size:
                                                                                     (a.offset + len(a)) * t.list_size])
        if pa.types.is_fixed_size_list(t):
            return pa.FixedSizeListArray.from_arrays(vals, t.list_size, mask=a.is_null() if a.null_count else None)
        offs = pc.subtract(a.offsets, a.offsets[0])
        return pa.ListArray.from_arrays(offs, vals, mask=a.is_null() if a.null_count else None)
    return a


def _has_float(t: pa.DataType) -> bool:
    if pa.types.is_floating(t):
        return True
    return any(_has_float(t.field(i).type) for i in range(t.num_fields)) if t.num_fields else False


def through_c(t: pa.Table) -> pa.Table:
    """t exported and imported through the C stream interface, as ours is
    (pyarrow's import names every map's entries field "entries")."""
    capsule = pa.RecordBatchReader.from_batches(t.schema, t.to_batches()).__arrow_c_stream__()
    return pa.RecordBatchReader._import_from_c_capsule(capsule).read_all()


def assert_same(got: pa.Table, want: pa.Table, where: str) -> None:
    want = through_c(want)
    assert got.schema.equals(want.schema, check_metadata=True), f"{where}: schema\nours:\n{got.schema}\npyarrow:\n{want.schema}"
    assert got.num_rows == want.num_rows, where
    for name in want.column_names:
        g, w = got[name].combine_chunks(), want[name].combine_chunks()
        if isinstance(g, pa.ExtensionArray):
            g, w = g.storage, w.storage
        if _has_float(g.type) and not pa.types.is_map(g.type):
            g, w = _bits(g), _bits(w)
        assert g.equals(w), f"{where}: column {name} differs"


GENERATED: list[str] = []


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[str]:
    if not GENERATED:
        GENERATED.extend(make_reader_files.generate(str(tmp_path_factory.mktemp("pq"))))
    return GENERATED


@pytest.mark.parametrize("variant", sorted(make_reader_files.VARIANTS))
def test_generated_file(generated, variant):
    path = next(p for p in generated if Path(p).stem == variant)
    assert_same(ours(path), pq.read_table(path), variant)


@pytest.mark.parametrize("batch_size", [1, 7, 1000, 100000])
def test_batch_sizes(generated, batch_size):
    path = next(p for p in generated if "nested_plain_v2" in p)
    reader = pa.RecordBatchReader._import_from_c_capsule(_hudi._parquet_read(path, batch_size=batch_size))
    batches = list(reader)
    rows_per_group = [pq.ParquetFile(path).metadata.row_group(i).num_rows
                      for i in range(pq.ParquetFile(path).metadata.num_row_groups)]
    # Batches never span row groups: each group gives ceil(rows / batch) batches.
    assert [len(b) for b in batches] == [min(batch_size, r - k) for r in rows_per_group
                                         for k in range(0, r, batch_size)]
    assert_same(pa.Table.from_batches(batches, reader.schema), pq.read_table(path), f"batch {batch_size}")


def test_threads(generated):
    for path in generated:
        assert_same(ours(path, threads=2), pq.read_table(path), path)


@pytest.mark.parametrize("columns", [["i32"], ["s", "ts_us_utc", "b"], ["uuid", "dec256"]])
def test_projection_flat(generated, columns):
    path = next(p for p in generated if "flat_dict_v1" in p)
    want = pq.read_table(path, columns=columns)
    got = ours(path, columns=columns)
    # Our output keeps file order.
    want = want.select([c for c in pq.read_schema(path).names if c in columns])
    assert_same(got, want, str(columns))


def test_projection_nested(generated):
    path = next(p for p in generated if "nested_dict_v1" in p)
    got = ours(path, columns=["st.c.d", "ms.key_value.key", "ls.list.element.x"])
    full = pq.read_table(path)
    st = full["st"].combine_chunks()
    c = st.field("c")
    want_st = pa.StructArray.from_arrays(
        [pa.StructArray.from_arrays([c.field("d")], fields=[c.type.field("d")], mask=c.is_null())],
        fields=[pa.field("c", pa.struct([c.type.field("d")]))], mask=st.is_null())
    assert got.column_names == ["st", "ls", "ms"]
    assert got["st"].combine_chunks().equals(want_st)
    assert got["ms"].equals(full["ms"])  # maps are read whole
    ls = full["ls"].combine_chunks()
    x = ls.values.field("x")
    want_ls = pa.ListArray.from_arrays(ls.offsets, pa.StructArray.from_arrays(
        [x], fields=[ls.type.value_type.field("x")], mask=ls.values.is_null()), mask=ls.is_null())
    assert got["ls"].combine_chunks().equals(want_ls)


@pytest.mark.parametrize("layout", ["two_level_primitive", "two_level_group", "tuple_group", "bare_repeated",
                                    "map_key_value", "converted_only"])
def test_legacy_layouts(tmp_path, layout):
    p = tmp_path / (layout + ".parquet")
    p.write_bytes(legacy_lists.legacy_files()[layout])
    want = pq.read_table(p)
    assert want.num_rows == 1000
    assert_same(ours(p), want, layout)


def test_unknown_column(generated):
    with pytest.raises(Exception, match="no column 'nope'"):
        ours(generated[0], columns=["nope"])


def _fixture_parquet_files() -> list[Path]:
    # Empty stand-in files of the timeline tests are not Parquet.
    files = sorted(f for f in CORE_DATA.rglob("*.parquet") if f.stat().st_size > 0)
    for z in sorted(TABLES.rglob("*.zip")):
        root = Path(table_path(str(z.relative_to(TABLES).with_suffix(""))))
        files.extend(sorted(root.rglob("*.parquet")))
    return files


def test_fixture_files():
    files = _fixture_parquet_files()
    assert len(files) > 100
    failures = []
    for f in files:
        try:
            assert_same(ours(f), pq.read_table(f), str(f))
        except Exception as e:  # noqa: BLE001 - collect them all
            failures.append(f"{f}: {str(e)[:300]}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} of {len(files)} files)"


def _parquet_in(blob: bytes) -> bytes:
    """The Parquet file embedded in a log file's parquet data block: from a
    PAR1 to the PAR1 whose footer length points back to it."""
    start = blob.index(b"PAR1")
    end = start + 4
    while True:
        end = blob.index(b"PAR1", end) + 4
        n = struct.unpack("<I", blob[end - 8:end - 4])[0]
        if end - 8 - n >= start + 4 and end - start > 12:
            cand = blob[start:end]
            try:
                pq.ParquetFile(pa.BufferReader(cand)).metadata
                return cand
            except Exception:
                pass


def test_log_parquet_block(tmp_path):
    logs = sorted((CORE_DATA / "log_files" / "valid_log_parquet_data").glob("*log*"))
    assert logs
    for log in logs:
        data = _parquet_in(log.read_bytes())
        p = tmp_path / (log.name + ".parquet")
        p.write_bytes(data)
        t = ours(p)
        assert t.num_rows > 0
        assert_same(t, pq.read_table(p), log.name)


def test_corrupt_files_fail_cleanly(generated, tmp_path):
    data = Path(generated[0]).read_bytes()
    p = tmp_path / "bad.parquet"
    for cut in (0, 3, 11, len(data) // 2, len(data) - 9, len(data) - 1):
        p.write_bytes(data[:cut])
        with pytest.raises(Exception, match="parquet|byte offset|PAR1|small"):
            ours(p)
    # Flip bytes inside the column data: an error or some table, never a crash.
    for k in range(50):
        b = bytearray(data)
        pos = 4 + (k * 7919) % (len(data) // 2)
        b[pos] ^= 0x5A
        p.write_bytes(bytes(b))
        try:
            ours(p)
        except Exception as e:  # noqa: BLE001
            assert "parquet" in str(e)
