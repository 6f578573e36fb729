"""pyarrow -> libhudi (import views + builders) -> pyarrow, for every type a Hudi table carries.

The oracle is pyarrow itself: what comes back must equal what went in, after casting the
expected side to the types libhudi writes (dictionaries decoded, string/binary views as
string/binary; large types stay large).
"""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
import pytest

from hudi import _arrow, _hudi

D = decimal.Decimal


def normalised(t: pa.DataType) -> pa.DataType:
    """The type libhudi's builders write for t."""
    if pa.types.is_dictionary(t):
        return normalised(t.value_type)
    if t == pa.string_view():
        return pa.string()
    if t == pa.binary_view():
        return pa.binary()
    if pa.types.is_map(t):
        return pa.map_(normalised_field(t.key_field), normalised_field(t.item_field), t.keys_sorted)
    if pa.types.is_large_list(t):
        return pa.large_list(normalised_field(t.value_field))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(normalised_field(t.value_field), t.list_size)
    if pa.types.is_list(t):
        return pa.list_(normalised_field(t.value_field))
    if pa.types.is_struct(t):
        return pa.struct([normalised_field(t.field(i)) for i in range(t.num_fields)])
    return t


def normalised_field(f: pa.Field) -> pa.Field:
    return pa.field(f.name, normalised(f.type), f.nullable, f.metadata)


def normalised_schema(s: pa.Schema) -> pa.Schema:
    return pa.schema([normalised_field(f) for f in s], metadata=s.metadata)


def decode(c: pa.DictionaryArray) -> pa.Array:
    values = c.dictionary.cast(normalised(c.dictionary.type))
    return pa.DictionaryArray.from_arrays(c.indices, values).dictionary_decode()


def to_normalised(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """Casts t to schema; dictionaries are decoded first (pyarrow cannot cast a
    dictionary of string views straight to string)."""
    cols = []
    for col, f in zip(t.columns, schema):
        chunks = [decode(c) if pa.types.is_dictionary(c.type) else c for c in col.chunks]
        cols.append(pa.chunked_array(chunks, chunks[0].type if chunks else f.type).cast(f.type))
    return pa.Table.from_arrays(cols, schema=schema)


def through_hudi(data) -> tuple[pa.Schema, list[pa.RecordBatch]]:
    reader = _arrow.reader_from_capsule(_hudi._arrow_roundtrip(data))
    return reader.schema, list(reader)


def assert_roundtrip(data, expected: pa.Table, n_batches: int | None = None) -> None:
    schema, batches = through_hudi(data)
    want_schema = normalised_schema(expected.schema)
    assert schema.equals(want_schema, check_metadata=True), f"{schema}\n!=\n{want_schema}"
    if n_batches is not None:
        assert len(batches) == n_batches
    got = pa.Table.from_batches(batches, schema=schema)
    want = to_normalised(expected, want_schema)
    assert got.num_rows == want.num_rows
    assert got.to_pylist() == want.to_pylist()
    assert got.equals(want)
    for b in batches:
        b.validate(full=True)


def tz_ts(unit, tz):
    base = dt.datetime(2024, 2, 29, 13, 45, 7, 123456)
    if tz:
        base = base.replace(tzinfo=dt.timezone.utc)
    return pa.array([base, None, base + dt.timedelta(days=400)], pa.timestamp(unit, tz))


COLUMNS = {
    "null": pa.array([None, None, None], pa.null()),
    "bool": pa.array([True, None, False]),
    "int8": pa.array([-128, None, 127], pa.int8()),
    "int16": pa.array([-32768, None, 32767], pa.int16()),
    "int32": pa.array([-(2**31), None, 2**31 - 1], pa.int32()),
    "int64": pa.array([-(2**63), None, 2**63 - 1], pa.int64()),
    "uint8": pa.array([0, None, 255], pa.uint8()),
    "uint16": pa.array([0, None, 65535], pa.uint16()),
    "uint32": pa.array([0, None, 2**32 - 1], pa.uint32()),
    "uint64": pa.array([0, None, 2**64 - 1], pa.uint64()),
    "float16": pa.array(np.array([1.5, 0, -2.25], np.float16), mask=np.array([False, True, False])),
    "float": pa.array([1.5, None, -3.25], pa.float32()),
    "double": pa.array([0.1, None, -1e300], pa.float64()),
    "decimal": pa.array([D("123.45"), None, D("-99999999.99")], pa.decimal128(10, 2)),
    "decimal38": pa.array([D("1" * 28 + ".0123456789"), None, D("-0.0000000001")], pa.decimal128(38, 10)),
    "decimal256": pa.array([D("1" * 50), None, D("-7")], pa.decimal256(60, 0)),
    "date32": pa.array([dt.date(1970, 1, 1), None, dt.date(2262, 4, 11)], pa.date32()),
    "date64": pa.array([dt.date(1969, 12, 31), None, dt.date(2024, 1, 1)], pa.date64()),
    "time32s": pa.array([dt.time(0, 0, 1), None, dt.time(23, 59, 59)], pa.time32("s")),
    "time32ms": pa.array([dt.time(0, 0, 1, 1000), None, dt.time(12)], pa.time32("ms")),
    "time64us": pa.array([dt.time(0, 0, 1, 1), None, dt.time(12)], pa.time64("us")),
    "time64ns": pa.array([1, None, 86_399_999_999_999], pa.time64("ns")),
    "ts_s": tz_ts("s", None),
    "ts_ms": tz_ts("ms", None),
    "ts_us": tz_ts("us", None),
    "ts_ns": tz_ts("ns", None),
    "ts_s_utc": tz_ts("s", "UTC"),
    "ts_ms_utc": tz_ts("ms", "UTC"),
    "ts_us_tokyo": tz_ts("us", "Asia/Tokyo"),
    "ts_ns_offset": tz_ts("ns", "+07:30"),
    "duration": pa.array([1, None, -5], pa.duration("ms")),
    "string": pa.array(["a", None, "a longer string with ünïcödé"]),
    "large_string": pa.array(["", None, "z" * 100], pa.large_string()),
    "binary": pa.array([b"\x00\x01", None, b""], pa.binary()),
    "large_binary": pa.array([b"\xff" * 20, None, b"x"], pa.large_binary()),
    "fixed_size_binary": pa.array([b"abcd", None, b"\x00\x00\x00\x01"], pa.binary(4)),
    "string_view": pa.array(["short", None, "a string well past twelve bytes"], pa.string_view()),
    "binary_view": pa.array([b"x" * 13, None, b"tiny"], pa.binary_view()),
    "list": pa.array([[1, None, 3], None, []], pa.list_(pa.int32())),
    "large_list": pa.array([["a"], None, ["b", None, "c"]], pa.large_list(pa.string())),
    "fixed_size_list": pa.array([[1.0, 2.0], None, [None, 4.0]], pa.list_(pa.float64(), 2)),
    "struct": pa.array(
        [{"x": 1, "y": "one"}, None, {"x": None, "y": "three"}],
        pa.struct([pa.field("x", pa.int64()), pa.field("y", pa.string(), nullable=False)]),
    ),
    "map": pa.array([[("a", 1), ("b", None)], None, []], pa.map_(pa.string(), pa.int64())),
    "dictionary": pa.array(["red", None, "red"]).dictionary_encode(),
    "dictionary_int8": pa.DictionaryArray.from_arrays(
        pa.array([1, 0, None], pa.int8()), pa.array([10.5, -1.0])
    ),
    "dictionary_ordered": pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None], pa.int32()), pa.array(["lo", "hi"]), ordered=True
    ),
    "nested": pa.array(
        [
            [{"tags": ["x", None], "attrs": [("k", b"v")]}, None],
            None,
            [{"tags": None, "attrs": []}],
        ],
        pa.list_(
            pa.struct(
                [
                    pa.field("tags", pa.large_list(pa.string_view())),
                    pa.field("attrs", pa.map_(pa.string(), pa.binary())),
                ]
            )
        ),
    ),
    "struct_of_fixed_list": pa.array(
        [{"v": [1, 2, 3], "d": D("1.5")}, {"v": None, "d": None}, None],
        pa.struct([pa.field("v", pa.list_(pa.int16(), 3)), pa.field("d", pa.decimal128(5, 1))]),
    ),
}


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_every_type_with_nulls(name):
    table = pa.table({name: COLUMNS[name]})
    assert_roundtrip(table, table)


def all_types_table() -> pa.Table:
    return pa.table(COLUMNS)


def test_all_types_together_and_metadata():
    t = all_types_table()
    t = t.replace_schema_metadata({"hudi": "yes", "empty": ""})
    f = t.schema.field("int32").with_metadata({"comment": "a field comment", "b": "\x00\x01"})
    t = t.cast(t.schema.set(t.schema.get_field_index("int32"), f))
    assert_roundtrip(t, t)


@pytest.mark.parametrize("start,length", [(1, 2), (2, 1), (1, 0), (0, 3)])
def test_sliced_tables(start, length):
    t = all_types_table().slice(start, length)
    assert_roundtrip(t, t)


def test_sliced_nested_arrays_have_child_offsets():
    inner = pa.array([[i, i + 1] for i in range(50)] + [None], pa.list_(pa.int64()))
    sliced = inner.slice(17, 20)
    # A struct whose child arrays are themselves slices at different offsets.
    s = pa.StructArray.from_arrays([sliced, pa.array([str(i) for i in range(100)]).slice(40, 20)], ["l", "s"])
    t = pa.table({"s": s.slice(3, 10), "l": sliced.slice(5, 10)})
    assert_roundtrip(t, t)


def test_arrays_without_validity_buffers():
    t = pa.table({
        "i": pa.array([1, 2, 3]),
        "s": pa.array(["a", "b", "c"]),
        "l": pa.array([[1], [], [2, 3]]),
        "b": pa.array([True, False, True]),
    })
    for col in t.columns:
        assert col.chunk(0).buffers()[0] is None
    assert_roundtrip(t, t)


def test_dictionaries_sliced_and_nested():
    d = pa.array(["x", "y", None, "x", "zzzzzzzzzzzzzzzzzz"] * 3).dictionary_encode()
    nested = pa.array([["a", "b"], None, ["b"]], pa.list_(pa.dictionary(pa.int16(), pa.string())))
    t = pa.table({"d": d.slice(2, 8), "n": pa.concat_arrays([nested] * 3).slice(1, 8)})
    assert_roundtrip(t, t)


def test_multiple_batches_and_reader():
    t = pa.concat_tables([all_types_table(), all_types_table().slice(1, 2), all_types_table()])
    assert t.column(0).num_chunks == 3
    assert_roundtrip(t, t, n_batches=3)
    reader = pa.RecordBatchReader.from_batches(t.schema, t.to_batches())
    assert_roundtrip(reader, t, n_batches=3)


def test_empty_tables():
    t = all_types_table().slice(0, 0)
    assert_roundtrip(t, t)
    empty = pa.table({"a": pa.array([], pa.int64()), "s": pa.array([], pa.string())})
    assert_roundtrip(empty, empty)
    zero = pa.RecordBatch.from_arrays([c.combine_chunks() for c in empty.columns], schema=empty.schema)
    batch_of_zero = pa.RecordBatchReader.from_batches(empty.schema, [zero])
    assert_roundtrip(batch_of_zero, empty)


class ArrayOnly:
    """Only the __arrow_c_array__ half of the protocol, as a RecordBatch offers."""

    def __init__(self, obj):
        self._obj = obj

    def __arrow_c_array__(self, requested_schema=None):
        return self._obj.__arrow_c_array__()


def test_record_batch_via_c_array():
    b = all_types_table().slice(1, 2).to_batches()[0]
    assert b.num_rows == 2
    assert_roundtrip(ArrayOnly(b), pa.Table.from_batches([b]), n_batches=1)
    assert_roundtrip(b, pa.Table.from_batches([b]))


def test_non_struct_c_array_is_an_error():
    with pytest.raises(ValueError, match="struct"):
        through_hudi(ArrayOnly(pa.array([1, 2, 3])))


def test_object_without_protocol_raises_type_error():
    with pytest.raises(TypeError, match="Arrow"):
        _hudi._arrow_roundtrip(object())
    with pytest.raises(TypeError):
        _hudi._arrow_roundtrip([1, 2, 3])


def test_failing_stream_propagates_error():
    schema = pa.schema([("a", pa.int64())])

    def batches():
        yield pa.record_batch({"a": [1, 2]}, schema=schema)
        raise RuntimeError("producer exploded")

    reader = _arrow.reader_from_capsule(
        _hudi._arrow_roundtrip(pa.RecordBatchReader.from_batches(schema, batches()))
    )
    first = reader.read_next_batch()
    assert first.column(0).to_pylist() == [1, 2]
    with pytest.raises(Exception, match="producer exploded"):
        reader.read_next_batch()


def test_polars_string_views():
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({
        "s": ["a", None, "a string longer than twelve bytes", ""],
        "b": [b"x", b"y" * 30, None, b""],
        "i": [1, 2, None, 4],
        "l": [["p", "q" * 20], None, [], [None]],
        "st": [{"k": 1, "v": "one"}, None, {"k": 3, "v": None}, {"k": 4, "v": "four"}],
        "cat": pl.Series(["u", "v", None, "u"], dtype=pl.Categorical),
    })
    expected = pa.RecordBatchReader.from_stream(df).read_all()
    assert pa.string_view() in [f.type for f in expected.schema]
    assert_roundtrip(df, expected)
    assert_roundtrip(df.slice(1, 2), pa.RecordBatchReader.from_stream(df.slice(1, 2)).read_all())


def test_pandas_dataframe():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({
        "x": [1.5, None, 3.0],
        "n": pd.array([1, None, 3], dtype="Int64"),
        "s": ["a", None, "c"],
        "t": pd.to_datetime(["2024-01-01", None, "2024-03-01"]).tz_localize("UTC"),
        "c": pd.Categorical(["p", "q", "p"]),
    })
    expected = pa.RecordBatchReader.from_stream(df).read_all()
    assert_roundtrip(df, expected)


def test_output_imports_into_polars_and_duckdb():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    t = pa.table({"k": ["a", "b", None], "v": [1, 2, 3]})
    got = pl.from_arrow(_arrow.reader_from_capsule(_hudi._arrow_roundtrip(t)))
    assert got.to_dicts() == t.to_pylist()
    reader = _arrow.reader_from_capsule(_hudi._arrow_roundtrip(t))  # noqa: F841 (used by duckdb)
    assert duckdb.sql("select sum(v), count(k) from reader").fetchall() == [(6, 2)]
