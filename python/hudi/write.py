"""Creating Hudi tables and writing to them (the C API in include/hudi/write.h)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

from hudi import _hudi

if TYPE_CHECKING:
    from hudi.table import HudiTable

Fields = Union[str, Sequence[str], None]


@dataclass(frozen=True)
class HudiWriteResult:
    """What one write committed.

    ``requested_time`` / ``completion_time``: the instant's times on the timeline; ``action``:
    ``commit`` (COPY_ON_WRITE), ``deltacommit`` (MERGE_ON_READ) or ``replacecommit`` (overwrite);
    ``operation``: Hudi's name of the write (``BULK_INSERT``, ``UPSERT``, ``DELETE``, ...).
    ``num_writes``: the write's records that went into files (``num_inserts`` plus
    ``num_updates``); ``num_inserts``, ``num_updates``, ``num_deletes``: keys the commit
    inserted, updated and deleted (an incoming record that loses to the stored one by the
    ordering field counts nowhere on COPY_ON_WRITE, where it is settled at write time, though
    its file group is still rewritten as Hudi's merge does, and as an update on
    MERGE_ON_READ, whose log record loses when it is read or compacted);
    ``files_written`` / ``bytes_written``: data files and their bytes (the metadata table's
    not counted); ``partitions_written``: partitions touched.
    """

    requested_time: str
    completion_time: str
    action: str
    operation: str
    num_writes: int
    num_inserts: int
    num_updates: int
    num_deletes: int
    files_written: int
    bytes_written: int
    partitions_written: int


def _fields(value: Fields, what: str) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, str):
        names: List[str] = [value]
    else:
        names = list(value)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"{what} must be a non-empty str or list of str")
    return ",".join(names)


def create(
    base_uri: str,
    record_key: Fields,
    ordering_fields: Fields = None,
    partition_fields: Fields = None,
    table_type: str = "cow",
    table_name: Optional[str] = None,
    record_index_enabled: bool = True,
    hudi_options: Optional[Dict[str, str]] = None,
    storage_options: Optional[Dict[str, str]] = None,
    database_name: Optional[str] = None,
) -> "HudiTable":
    """Creates a new table at ``base_uri`` (HudiAlreadyExistsError when one is there) and opens it.

    ``record_key``: the key column(s) (str or list); ``ordering_fields``: the column whose
    larger value wins when a key arrives twice or meets a stored record (one column; None:
    the latest write wins); ``partition_fields``: hive-style partition column(s) (None:
    non-partitioned); ``table_type``: ``"cow"`` or ``"mor"``; ``table_name``: default the
    last path segment; ``record_index_enabled``: keep the record-level index in the metadata
    table (keyed writes then look keys up there; False: footer bloom filters);
    ``hudi_options``: Hudi configuration keys (``hoodie.write.table.version`` 6, 8 (default)
    or 9, ``hoodie.metadata.index.column.stats.enable``, file sizing, ...), kept as the
    handle's options; ``storage_options``: object-store credentials and endpoints
    (docs/status.md); ``database_name``: ``hoodie.database.name``.
    """
    from hudi.table import HudiTable

    key = _fields(record_key, "record_key")
    if key is None:
        raise ValueError("record_key is required")
    kind = table_type.lower()
    if kind in ("copy_on_write",):
        kind = "cow"
    if kind in ("merge_on_read",):
        kind = "mor"
    options = {**(storage_options or {}), **(hudi_options or {})}
    _hudi._create(
        base_uri,
        key,
        kind,
        partition_fields=_fields(partition_fields, "partition_fields"),
        ordering_fields=_fields(ordering_fields, "ordering_fields"),
        table_name=table_name,
        database_name=database_name,
        record_index_enabled=bool(record_index_enabled),
        options=options,
    )
    return HudiTable(base_uri, options)


def append(table: Any, data: Any, options: Optional[Dict[str, str]] = None) -> HudiWriteResult:
    r = _hudi._append(table, data, dict(options or {}))
    return HudiWriteResult(**r)


def upsert(table: Any, data: Any, options: Optional[Dict[str, str]] = None) -> HudiWriteResult:
    return HudiWriteResult(**_hudi._upsert(table, data, dict(options or {})))


def delete(table: Any, predicate: str, options: Optional[Dict[str, str]] = None) -> HudiWriteResult:
    if not isinstance(predicate, str) or not predicate.strip():
        raise ValueError("predicate must be a non-empty SQL boolean expression")
    return HudiWriteResult(**_hudi._delete(table, predicate, dict(options or {})))


def delete_keys(table: Any, keys: Any, options: Optional[Dict[str, str]] = None) -> HudiWriteResult:
    if isinstance(keys, str):
        keys = [keys]
    elif hasattr(keys, "to_pylist"):
        keys = keys.to_pylist()
    return HudiWriteResult(**_hudi._delete_keys(table, list(keys), dict(options or {})))


def _assignment(column: str, value: Any) -> "tuple[str, Optional[str], int]":
    """(column, text, kind): kind 0 = SQL literal, 1 = text cast to the column's type."""
    if value is None:
        return (column, None, 0)
    if isinstance(value, bool):
        return (column, "TRUE" if value else "FALSE", 0)
    if isinstance(value, (int, float)):
        return (column, repr(value), 0)
    if isinstance(value, str):
        return (column, value, 1)
    import datetime
    import decimal

    if isinstance(value, decimal.Decimal):
        return (column, str(value), 1)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return (column, value.isoformat(), 1)
    raise TypeError(f"cannot assign a {type(value).__name__} to column {column!r}")


def update(
    table: Any, predicate: Optional[str], assignments: Dict[str, Any], options: Optional[Dict[str, str]] = None
) -> HudiWriteResult:
    if not isinstance(assignments, dict) or not assignments:
        raise ValueError("assignments must be a non-empty dict of column -> value")
    items = [_assignment(str(k), v) for k, v in assignments.items()]
    return HudiWriteResult(**_hudi._update(table, predicate, items, dict(options or {})))


def overwrite(
    table: Any, data: Any, partitions_only: bool = True, options: Optional[Dict[str, str]] = None
) -> HudiWriteResult:
    scope = "partitions" if partitions_only else "table"
    return HudiWriteResult(**_hudi._overwrite(table, data, scope, dict(options or {})))
