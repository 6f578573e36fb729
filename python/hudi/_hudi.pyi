"""Type stubs of the native extension hudi._hudi (C, CPython limited API)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

def version() -> str:
    """The libhudi version string."""

def _raise_status(code: int, message: str) -> None:
    """Test hook: raises the exception libhudi maps the status code to."""

def _arrow_roundtrip(data: Any) -> Any:
    """Imports Arrow data (``__arrow_c_stream__`` / ``__arrow_c_array__``) through libhudi's Arrow
    layer, rebuilds every batch with its builders and returns an ``arrow_array_stream`` PyCapsule."""

class HudiError(Exception):
    """Base class of every error raised by hudi."""

class HudiInvalidInputError(HudiError, ValueError):
    """Bad input: an unknown column, a missing key, a wrong type, invalid SQL."""

class HudiConflictError(HudiError):
    """A concurrent writer committed first."""

class HudiCorruptDataError(HudiError):
    """Stored bytes do not follow their format (file and offset in the message)."""

class HudiIOError(HudiError, OSError):
    """The storage failed."""

class HudiNotFoundError(HudiIOError, FileNotFoundError):
    """A table, file or instant does not exist."""

class HudiUnsupportedError(HudiError, NotImplementedError):
    """Valid, but not supported by hudi-c."""

class HudiAlreadyExistsError(HudiError, FileExistsError):
    """What is being created exists already (HudiTable.create on a table's path, say)."""

class Table:
    """A Hudi table opened by libhudi (hudi_table_open)."""

    def __init__(self, base_uri: str, options: Optional[Dict[str, str]] = None) -> None: ...
    def name(self) -> str: ...
    def table_type(self) -> str: ...
    def base_uri(self) -> str: ...
    def version(self) -> int: ...
    def timeline_layout(self) -> int: ...
    def properties(self) -> Dict[str, str]: ...
    def instants(self) -> List[Tuple[str, str, str, str, str, int]]: ...

# Reads (python/src/read.c over include/hudi/read.h). ``options`` are hoodie.read.* options,
# ``filters`` hudi-rs (field, op, value) tuples, ``sql`` a SQL predicate, ``projection`` columns.

def _read(
    table: Table,
    options: Optional[Dict[str, str]] = None,
    filters: Optional[List[Tuple[str, str, Union[str, Sequence[str]]]]] = None,
    sql: Optional[str] = None,
    projection: Optional[List[str]] = None,
) -> Any:
    """Reads the table (hudi_table_read): an ``arrow_array_stream`` PyCapsule whose batches come in
    file-slice order (slices are read ``hoodie.read.parallelism`` at a time)."""

def _get_schema(table: Table, with_meta_fields: bool) -> Any:
    """The table's schema (hudi_table_get_schema): an ``arrow_schema`` PyCapsule."""

def _file_slices(
    table: Table,
    options: Optional[Dict[str, str]] = None,
    filters: Optional[List[Tuple[str, str, Union[str, Sequence[str]]]]] = None,
    sql: Optional[str] = None,
) -> List[Tuple[str, str, str, Optional[str], List[str]]]:
    """The file slices a read with these options reads (hudi_table_file_slices), as
    ``(partition, file_id, base_instant, base_file or None, log_files)`` tuples."""

def _read_file_group(
    table: Table,
    partition: str,
    file_id: str,
    options: Optional[Dict[str, str]] = None,
    filters: Optional[List[Tuple[str, str, Union[str, Sequence[str]]]]] = None,
    sql: Optional[str] = None,
    projection: Optional[List[str]] = None,
) -> Any:
    """The file slice of (partition, file_id) that a read with these options reads, merged
    (hudi_table_read_file_group): an ``arrow_array_stream`` PyCapsule. Raises HudiNotFoundError
    when the read has no slice of that file group."""

def _read_file_slice_paths(
    table: Table,
    base_file: Optional[str],
    log_files: Sequence[str],
    options: Optional[Dict[str, str]] = None,
    filters: Optional[List[Tuple[str, str, Union[str, Sequence[str]]]]] = None,
    sql: Optional[str] = None,
    projection: Optional[List[str]] = None,
) -> Any:
    """The merged rows of the file slice made of these files (paths relative to the table)
    (hudi_table_read_file_slice_paths): an ``arrow_array_stream`` PyCapsule."""

def _table_stats(table: Table, options: Optional[Dict[str, str]] = None) -> Tuple[bool, int, int, str]:
    """Planning statistics (hudi_table_compute_stats): ``(available, num_rows, byte_size, reason)``;
    reason says why they are not available."""

def _create(
    base_uri: str,
    record_key: str,
    table_type: str,
    partition_fields: Optional[str] = None,
    ordering_fields: Optional[str] = None,
    table_name: Optional[str] = None,
    database_name: Optional[str] = None,
    record_index_enabled: bool = True,
    options: Optional[Dict[str, str]] = None,
) -> None:
    """Creates a table (hudi_table_create); ``table_type`` is ``"cow"`` or ``"mor"``."""

def _append(table: Table, data: Any, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Bulk insert (hudi_table_append): the write result as a dict."""

def _upsert(table: Table, data: Any, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Upsert (hudi_table_upsert): the write result as a dict."""

def _delete(table: Table, predicate: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Deletes the rows matching a SQL predicate (hudi_table_delete)."""

def _delete_keys(table: Table, keys: List[str], options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Deletes records by record key (hudi_table_delete_keys)."""

def _update(
    table: Table,
    predicate: Optional[str],
    assignments: List[Tuple[str, Optional[str], int]],
    options: Optional[Dict[str, str]] = None,
) -> Dict[str, Any]:
    """UPDATE ... SET ... WHERE (hudi_table_update); assignments are (column, value, kind)."""

def _overwrite(table: Table, data: Any, scope: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Insert overwrite of ``"partitions"`` or the ``"table"`` (hudi_table_overwrite)."""

def _compact(table: Table, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Compacts a MERGE_ON_READ table (hudi_table_compact): a dict with ``requested_time``,
    ``completion_time`` (both ``""`` when no file group had log files), ``num_file_groups``,
    ``num_log_files``, ``num_records``, ``files_written``, ``bytes_written``."""

def _wait_services(table: Table) -> None:
    """Waits for the table handle's background compaction (hudi_table_wait_services);
    raises the error of a failed one (reported once)."""

def _clean(table: Table, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Cleans the table (hudi_table_clean): a dict with ``requested_time``, ``completion_time``
    (both ``""`` when nothing was deleted), ``earliest_commit_to_retain``, ``num_files_deleted``,
    ``num_partitions``."""

def _rollback(table: Table, instant: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Rolls back a pending write or the latest completed write (hudi_table_rollback): a dict with
    ``rolled_back_instant``, ``requested_time``, ``completion_time``, ``num_files_deleted``."""

def _savepoint(table: Table, instant: Optional[str] = None, user: str = "", comment: str = "",
               options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Savepoints a completed commit (hudi_table_savepoint; None: the latest): a dict with
    ``instant``, ``completion_time``, ``num_partitions``, ``num_files``."""

def _delete_savepoint(table: Table, instant: str, options: Optional[Dict[str, str]] = None) -> None:
    """Deletes savepoint ``instant`` (hudi_table_delete_savepoint); the commit stays."""

def _savepoints(table: Table) -> List[Dict[str, Any]]:
    """The completed savepoints (hudi_table_savepoints), oldest first: dicts with ``instant``,
    ``completion_time``, ``user``, ``comments``, ``savepointed_at`` (epoch ms), ``num_files``."""

def _restore(table: Table, instant: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Restores the table to savepoint ``instant`` (hudi_table_restore): a dict with
    ``requested_time``, ``completion_time``, ``num_instants_rolled_back``, ``num_files_deleted``."""

def _archive(table: Table, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """Archives the timeline (hudi_table_archive): a dict with ``num_instants_archived``,
    ``num_files_compacted``, ``first_archived``, ``last_archived``."""
