"""Reading Hudi tables: HudiReadOptions, HudiQueryType and the read methods of HudiTable.

Names follow hudi-rs's Python API. Reads run in libhudi (include/hudi/read.h) and return Arrow
data through the Arrow C stream interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import pyarrow as pa  # type: ignore[import-untyped]

from hudi import _hudi
from hudi._arrow import reader_from_capsule

FilterValue = Union[str, Sequence[str]]
Filter = Tuple[str, str, FilterValue]


class HudiQueryType(Enum):
    """``hoodie.read.query.type``."""

    Snapshot = "snapshot"
    Incremental = "incremental"


@dataclass(frozen=True)
class HudiReadOptions:
    """What to read: query type, time range, filters, projection and other ``hoodie.read.*`` options.

    Filters are hudi-rs tuples ``(field, op, value)`` with op one of ``= != < <= > >= IN NOT IN``
    (for IN a list of values, or one comma-separated string), ANDed together; ``sql`` adds a SQL
    predicate (``"fare > 30 AND city = 'sf'"``). Timestamps are Hudi instants, epoch seconds to
    nanoseconds, or RFC 3339 with an offset.
    """

    filters: List[Filter] = field(default_factory=list)
    projection: Optional[List[str]] = None
    hudi_options: Dict[str, str] = field(default_factory=dict)
    sql: Optional[str] = None

    @property
    def query_type(self) -> HudiQueryType:
        return HudiQueryType(self.hudi_options.get("hoodie.read.query.type", "snapshot").lower())

    @property
    def as_of_timestamp(self) -> Optional[str]:
        return self.hudi_options.get("hoodie.read.as.of.timestamp")

    @property
    def start_timestamp(self) -> Optional[str]:
        return self.hudi_options.get("hoodie.read.start.timestamp")

    @property
    def end_timestamp(self) -> Optional[str]:
        return self.hudi_options.get("hoodie.read.end.timestamp")

    @property
    def batch_size(self) -> Optional[int]:
        v = self.hudi_options.get("hoodie.read.stream.batch_size")
        return int(v) if v is not None else None

    def with_hudi_option(self, k: str, v: Any) -> "HudiReadOptions":
        """Sets one ``hoodie.read.*`` option."""
        return replace(self, hudi_options={**self.hudi_options, k: str(v)})

    def with_hudi_options(self, options: Dict[str, Any]) -> "HudiReadOptions":
        """Sets several options."""
        return replace(self, hudi_options={**self.hudi_options, **{k: str(v) for k, v in options.items()}})

    def with_query_type(self, query_type: HudiQueryType) -> "HudiReadOptions":
        """Snapshot (default) or incremental."""
        return self.with_hudi_option("hoodie.read.query.type", HudiQueryType(query_type).value)

    def with_as_of_timestamp(self, t: Any) -> "HudiReadOptions":
        """Time travel: the table as of this instant (snapshot queries)."""
        return self.with_hudi_option("hoodie.read.as.of.timestamp", t)

    def with_start_timestamp(self, t: Any) -> "HudiReadOptions":
        """Incremental queries: exclusive start."""
        return self.with_hudi_option("hoodie.read.start.timestamp", t)

    def with_end_timestamp(self, t: Any) -> "HudiReadOptions":
        """Incremental queries: inclusive end (default: the latest commit)."""
        return self.with_hudi_option("hoodie.read.end.timestamp", t)

    def with_batch_size(self, n: int) -> "HudiReadOptions":
        """Rows per batch of streaming reads."""
        return self.with_hudi_option("hoodie.read.stream.batch_size", int(n))

    def with_filters(self, filters: List[Filter]) -> "HudiReadOptions":
        """Adds filter tuples."""
        return replace(self, filters=[*self.filters, *filters])

    def with_sql_filter(self, sql: str) -> "HudiReadOptions":
        """Sets a SQL predicate (ANDed with the tuples)."""
        return replace(self, sql=sql)

    def with_projection(self, columns: List[str]) -> "HudiReadOptions":
        """Returns only these columns, in this order."""
        return replace(self, projection=list(columns))

    def with_read_optimized(self, on: bool = True) -> "HudiReadOptions":
        """Merge-on-read tables: read base files only."""
        return self.with_hudi_option("hoodie.read.use.read_optimized.mode", "true" if on else "false")


@dataclass(frozen=True)
class HudiFileSlice:
    """A file slice a read would read: one base file and the log files after it."""

    partition_path: str
    file_id: str
    base_instant_time: str
    base_file_path: Optional[str]
    log_file_paths: List[str]


def _hudi_error(e: Exception) -> Exception:
    """The hudi exception of an error the C stream reported while reading a batch: the Arrow C
    stream interface carries an errno, which pyarrow turns into its own exception types
    (src/arrow/stream.c hudi_arrow_status_errno: EINVAL for bytes that do not follow their
    format, ENOENT for a missing file, ENOTSUP, else EIO)."""
    import errno as _errno

    msg = str(e)
    if isinstance(e, pa.ArrowInvalid):
        return _hudi.HudiCorruptDataError(msg)
    if isinstance(e, pa.ArrowNotImplementedError):
        return _hudi.HudiUnsupportedError(msg)
    if isinstance(e, pa.ArrowMemoryError):
        return MemoryError(msg)
    if getattr(e, "errno", None) == _errno.ENOENT or "No such file" in msg:
        return _hudi.HudiNotFoundError(msg)
    return _hudi.HudiIOError(msg)


class HudiRecordBatchStream:
    """An iterator of pyarrow RecordBatches that also exports ``__arrow_c_stream__``.

    Holds the table open while it is read.
    """

    def __init__(self, table: Any, capsule: Any) -> None:
        self._table = table
        self._capsule: Any = capsule
        self._reader: Optional[pa.RecordBatchReader] = None

    def _get_reader(self) -> pa.RecordBatchReader:
        if self._reader is None:
            if self._capsule is None:
                raise ValueError("the stream was already exported")
            self._reader = reader_from_capsule(self._capsule)
            self._capsule = None
        return self._reader

    @property
    def schema(self) -> pa.Schema:
        return self._get_reader().schema

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        reader = self._get_reader()
        try:
            return reader.read_next_batch()
        except StopIteration:
            raise
        except pa.ArrowException as e:
            raise _hudi_error(e) from e

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        if self._reader is not None:
            return self._reader.__arrow_c_stream__(requested_schema)
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise ValueError("the stream was already exported")
        return capsule


def _options(options: Optional[HudiReadOptions]) -> HudiReadOptions:
    if options is not None and not isinstance(options, HudiReadOptions):
        raise TypeError(f"options must be a HudiReadOptions, not {type(options).__name__} "
                        "(filters go in HudiReadOptions(filters=[...]))")
    return options if options is not None else HudiReadOptions()


def read_stream(handle: Any, options: Optional[HudiReadOptions] = None) -> HudiRecordBatchStream:
    o = _options(options)
    cap = _hudi._read(handle, o.hudi_options, o.filters or None, o.sql, o.projection)
    return HudiRecordBatchStream(handle, cap)


def read(handle: Any, options: Optional[HudiReadOptions] = None) -> List[pa.RecordBatch]:
    return list(read_stream(handle, options))


class _SchemaCapsule:
    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_schema__(self) -> Any:
        return self._capsule


def get_schema(handle: Any, with_meta_fields: bool) -> pa.Schema:
    return pa.schema(_SchemaCapsule(_hudi._get_schema(handle, with_meta_fields)))


def get_file_slices(handle: Any, options: Optional[HudiReadOptions] = None) -> List[HudiFileSlice]:
    o = _options(options)
    return [HudiFileSlice(*t) for t in _hudi._file_slices(handle, o.hudi_options, o.filters or None, o.sql)]


def compute_table_stats(handle: Any, options: Optional[HudiReadOptions] = None) -> Optional[Tuple[int, int]]:
    o = _options(options)
    available, rows, size, _reason = _hudi._table_stats(handle, o.hudi_options)
    return (rows, size) if available else None


def _merged(base: Optional[HudiReadOptions], options: Optional[HudiReadOptions]) -> HudiReadOptions:
    """options over base: its hudi options win key by key; its filters, SQL and projection, when set."""
    if base is None:
        return _options(options)
    if options is None:
        return base
    return replace(
        base,
        hudi_options={**base.hudi_options, **options.hudi_options},
        filters=options.filters or base.filters,
        sql=options.sql if options.sql is not None else base.sql,
        projection=options.projection if options.projection is not None else base.projection,
    )


def read_file_slice_stream(handle: Any, file_slice: HudiFileSlice,
                           options: Optional[HudiReadOptions] = None) -> HudiRecordBatchStream:
    o = _options(options)
    cap = _hudi._read_file_group(handle, file_slice.partition_path, file_slice.file_id, o.hudi_options,
                                 o.filters or None, o.sql, o.projection)
    return HudiRecordBatchStream(handle, cap)


def read_file_slice(handle: Any, file_slice: HudiFileSlice,
                    options: Optional[HudiReadOptions] = None) -> pa.RecordBatch:
    stream = read_file_slice_stream(handle, file_slice, options)
    return _one_batch(list(stream), stream.schema)


def _one_batch(batches: List[pa.RecordBatch], schema: pa.Schema) -> pa.RecordBatch:
    if not batches:
        return pa.RecordBatch.from_pylist([], schema=schema)
    if len(batches) == 1:
        return batches[0]
    return pa.Table.from_batches(batches, schema=schema).combine_chunks().to_batches()[0]


class HudiFileGroupReader:
    """Reads file slices of one table with fixed read options (hudi-rs's ``HudiFileGroupReader``).

    Made by :meth:`hudi.HudiTable.create_file_group_reader_with_options`. Options given to a
    ``read_file_slice*`` call override the reader's, key by key.
    """

    def __init__(self, handle: Any, options: Optional[HudiReadOptions] = None) -> None:
        self._handle = handle
        self._options = options

    def read_file_slice(self, file_slice: HudiFileSlice,
                        options: Optional[HudiReadOptions] = None) -> pa.RecordBatch:
        """The merged rows of the file slice (base file and log files) as one RecordBatch."""
        return read_file_slice(self._handle, file_slice, _merged(self._options, options))

    def read_file_slice_stream(self, file_slice: HudiFileSlice,
                               options: Optional[HudiReadOptions] = None) -> HudiRecordBatchStream:
        """The merged rows of the file slice as a stream of RecordBatches."""
        return read_file_slice_stream(self._handle, file_slice, _merged(self._options, options))

    def read_file_slice_from_paths(self, base_file_path: Optional[str], log_file_paths: Sequence[str],
                                   options: Optional[HudiReadOptions] = None) -> pa.RecordBatch:
        """The merged rows of the file slice made of these files (paths relative to the table; an
        empty log list reads the base file alone) as one RecordBatch."""
        stream = self.read_file_slice_from_paths_stream(base_file_path, log_file_paths, options)
        return _one_batch(list(stream), stream.schema)

    def read_file_slice_from_paths_stream(self, base_file_path: Optional[str], log_file_paths: Sequence[str],
                                          options: Optional[HudiReadOptions] = None) -> HudiRecordBatchStream:
        """Like :meth:`read_file_slice_from_paths`, as a stream of RecordBatches."""
        o = _merged(self._options, options)
        cap = _hudi._read_file_slice_paths(self._handle, base_file_path, list(log_file_paths), o.hudi_options,
                                           o.filters or None, o.sql, o.projection)
        return HudiRecordBatchStream(self._handle, cap)
