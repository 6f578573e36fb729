"""Table services (the C API in include/hudi/services.h)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional

from hudi import _hudi


@dataclass(frozen=True)
class HudiCompactResult:
    """What one compaction of a MERGE_ON_READ table did."""

    requested_time: str
    """The compaction instant; ``""`` when no file group had log files."""
    completion_time: str
    num_file_groups: int
    """File groups that got a new base file."""
    num_log_files: int
    """Log files merged into the new base files."""
    num_records: int
    """Records written to the new base files."""
    files_written: int
    bytes_written: int


def compact(table: Any, options: Optional[Dict[str, str]] = None) -> HudiCompactResult:
    return HudiCompactResult(**_hudi._compact(table, dict(options or {})))


@dataclass(frozen=True)
class HudiCleanResult:
    """What one clean did (``HudiTable.clean``)."""

    requested_time: str
    """The clean instant; ``""`` when there was nothing to delete (then no instant is written)."""
    completion_time: str
    earliest_commit_to_retain: str
    """KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS: the oldest commit whose file slices are all kept; once the clean
    completed, reads as of an earlier instant fail. ``""`` for KEEP_LATEST_FILE_VERSIONS."""
    num_files_deleted: int
    num_partitions: int


def clean(table: Any, options: Optional[Dict[str, str]] = None) -> HudiCleanResult:
    return HudiCleanResult(**_hudi._clean(table, dict(options or {})))


@dataclass(frozen=True)
class HudiRollbackResult:
    """What one rollback did (``HudiTable.rollback``)."""

    rolled_back_instant: str
    requested_time: str
    """The rollback instant."""
    completion_time: str
    num_files_deleted: int


def rollback(table: Any, instant: str, options: Optional[Dict[str, str]] = None) -> HudiRollbackResult:
    if not isinstance(instant, str) or not instant:
        raise ValueError("instant must be a non-empty instant time string")
    return HudiRollbackResult(**_hudi._rollback(table, instant, dict(options or {})))


@dataclass(frozen=True)
class HudiSavepointResult:
    """What one savepoint did (``HudiTable.savepoint``)."""

    instant: str
    """The savepointed commit, also the savepoint instant's requested time."""
    completion_time: str
    num_partitions: int
    num_files: int
    """Base and log files the savepoint keeps (the latest file slices as of the commit)."""


@dataclass(frozen=True)
class HudiSavepointInfo:
    """A completed savepoint (``HudiTable.savepoints``)."""

    instant: str
    completion_time: str
    user: str
    comments: str
    savepointed_at: int
    """Epoch milliseconds."""
    num_files: int


@dataclass(frozen=True)
class HudiRestoreResult:
    """What one restore did (``HudiTable.restore``)."""

    requested_time: str
    """The restore instant."""
    completion_time: str
    num_instants_rolled_back: int
    num_files_deleted: int
    metadata_table_rebuilt: bool = False
    """The metadata table could not be restored by rolling its instants back (compacted and
    cleaned, or archived, after the savepoint, or built after it): it was dropped first and built
    again from storage after the restore, as Apache Hudi drops it and its next write rebuilds it:
    its files listing, record index and column and partition stats (not bloom filters or
    secondary indexes)."""


def savepoint(table: Any, instant: Optional[str] = None, user: str = "", comment: str = "",
              options: Optional[Dict[str, str]] = None) -> HudiSavepointResult:
    if instant is not None and (not isinstance(instant, str) or not instant):
        raise ValueError("instant must be None or a non-empty instant time string")
    return HudiSavepointResult(**_hudi._savepoint(table, instant, user or "", comment or "", dict(options or {})))


def delete_savepoint(table: Any, instant: str, options: Optional[Dict[str, str]] = None) -> None:
    if not isinstance(instant, str) or not instant:
        raise ValueError("instant must be a non-empty savepoint instant time string")
    _hudi._delete_savepoint(table, instant, dict(options or {}))


def savepoints(table: Any) -> "list[HudiSavepointInfo]":
    return [HudiSavepointInfo(**d) for d in _hudi._savepoints(table)]


def restore(table: Any, instant: str, options: Optional[Dict[str, str]] = None) -> HudiRestoreResult:
    if not isinstance(instant, str) or not instant:
        raise ValueError("instant must be a non-empty savepoint instant time string")
    return HudiRestoreResult(**_hudi._restore(table, instant, dict(options or {})))


@dataclass(frozen=True)
class HudiArchiveResult:
    """What one archival did (``HudiTable.archive``)."""

    num_instants_archived: int
    """0: nothing to archive."""
    num_files_compacted: int
    """History files merged into the next LSM level."""
    first_archived: str
    """Requested times of the first and last archived instants (``""`` when none)."""
    last_archived: str
    mdt_instants_archived: int = 0
    """Instants of the metadata table's own timeline archived (after the data table's)."""


def archive(table: Any, options: Optional[Dict[str, str]] = None) -> HudiArchiveResult:
    return HudiArchiveResult(**_hudi._archive(table, dict(options or {})))
