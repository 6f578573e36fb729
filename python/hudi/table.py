"""Opening Hudi tables: HudiTableBuilder, HudiTable, HudiTimeline, HudiInstant.

The names of the reading side follow hudi-rs's Python API where both have the same thing
(HudiTableBuilder, get_schema, get_timeline, get_file_slices, create_file_group_reader_with_options,
HudiFileGroupReader), but this is not a drop-in replacement: reads go through ``read`` /
``read_stream`` with a HudiReadOptions (hudi-rs's read_snapshot, read_snapshot_as_of and
read_incremental_records, and its filter-list arguments, are not here), and both packages
install the module ``hudi``. Everything here wraps libhudi's C API (include/hudi/table.h).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from hudi import _hudi

if TYPE_CHECKING:
    import pyarrow as pa  # type: ignore[import-untyped]

    from hudi.read import HudiFileGroupReader, HudiFileSlice, HudiReadOptions, HudiRecordBatchStream
    from typing import Any, Union

    from hudi.write import HudiWriteResult
    from hudi.services import HudiArchiveResult, HudiCleanResult, HudiCompactResult, HudiRollbackResult
    from hudi.services import HudiRestoreResult, HudiSavepointInfo, HudiSavepointResult


@dataclass(frozen=True)
class HudiInstant:
    """One instant of a table's active timeline."""

    timestamp: str
    """The requested instant time, ``yyyyMMddHHmmssSSS``."""
    completion_timestamp: str
    """The completion time (timeline layout 2, completed instants); ``""`` otherwise."""
    action: str
    """``commit``, ``deltacommit``, ``replacecommit``, ``clean``, ``rollback``, ... A finished
    compaction is a ``commit``, as Hudi reports it."""
    requested_action: str
    """What was requested: ``compaction``, ``clustering``, or the same as ``action``."""
    state: str
    """``REQUESTED``, ``INFLIGHT`` or ``COMPLETED``."""
    epoch_mills: int
    """The requested time in milliseconds since the Unix epoch (UTC)."""


class HudiTimeline:
    """The active timeline of a table, as loaded when the table was opened."""

    def __init__(self, instants: List[HudiInstant]) -> None:
        self._instants = instants

    @property
    def instants(self) -> List[HudiInstant]:
        """Every instant, in requested-time order."""
        return list(self._instants)

    def _completed(self, actions: tuple[str, ...], desc: bool) -> List[HudiInstant]:
        out = [i for i in self._instants if i.state == "COMPLETED" and i.action in actions]
        return out[::-1] if desc else out

    def get_completed_commits(self, desc: bool = False) -> List[HudiInstant]:
        """Completed ``commit`` instants (COW writes and compactions)."""
        return self._completed(("commit",), desc)

    def get_completed_deltacommits(self, desc: bool = False) -> List[HudiInstant]:
        """Completed ``deltacommit`` instants (MOR writes)."""
        return self._completed(("deltacommit",), desc)

    def get_completed_replacecommits(self, desc: bool = False) -> List[HudiInstant]:
        """Completed ``replacecommit`` instants (insert-overwrite, clustering)."""
        return self._completed(("replacecommit",), desc)

    def get_completed_clustering_commits(self, desc: bool = False) -> List[HudiInstant]:
        """Completed ``replacecommit`` instants that were requested as clustering."""
        out = [i for i in self._completed(("replacecommit",), False) if i.requested_action == "clustering"]
        return out[::-1] if desc else out

    def get_latest_commit_timestamp(self) -> str:
        """The requested time of the latest completed write (commit, deltacommit or replacecommit)."""
        writes = self._completed(("commit", "deltacommit", "replacecommit"), True)
        if not writes:
            raise _hudi.HudiNotFoundError("the timeline has no completed commits")
        return writes[0].timestamp


class HudiTable:
    """A Hudi table opened from its base URI.

    ``options`` holds Hudi options (keys starting with ``hoodie.``) and storage options.
    """

    def __init__(self, base_uri: str, options: Optional[Dict[str, str]] = None) -> None:
        self._options: Dict[str, str] = dict(options or {})
        self._table = _hudi.Table(base_uri, self._options)

    @property
    def base_url(self) -> str:
        """The base URI the table was opened at."""
        return self._table.base_uri()

    @property
    def table_name(self) -> str:
        """The table's name (``hoodie.table.name``)."""
        return self._table.name()

    @property
    def table_type(self) -> str:
        """``COPY_ON_WRITE`` or ``MERGE_ON_READ``."""
        return self._table.table_type()

    @property
    def is_mor(self) -> bool:
        """True for a Merge-on-Read table."""
        return self.table_type == "MERGE_ON_READ"

    @property
    def table_version(self) -> int:
        """The table version: 6, 8 or 9."""
        return self._table.version()

    @property
    def timeline_layout_version(self) -> int:
        """The timeline layout: 1 (table version 6) or 2 (versions 8 and 9)."""
        return self._table.timeline_layout()

    def hudi_options(self) -> Dict[str, str]:
        """The Hudi options the table was opened with."""
        return {k: v for k, v in self._options.items() if k.startswith("hoodie.")}

    def storage_options(self) -> Dict[str, str]:
        """The storage options the table was opened with."""
        return {k: v for k, v in self._options.items() if not k.startswith("hoodie.")}

    def properties(self) -> Dict[str, str]:
        """The table's ``hoodie.properties``."""
        return self._table.properties()

    def get_timeline(self) -> HudiTimeline:
        """The active timeline as loaded when the table was opened."""
        return HudiTimeline([HudiInstant(*t) for t in self._table.instants()])

    def get_schema(self) -> "pa.Schema":
        """The table's data schema (no meta fields), as hudi-rs resolves it."""
        from hudi import read

        return read.get_schema(self._table, False)

    def get_schema_with_meta_fields(self) -> "pa.Schema":
        """The table's schema with the five ``_hoodie_*`` columns first."""
        from hudi import read

        return read.get_schema(self._table, True)

    def read(self, options: "Optional[HudiReadOptions]" = None) -> "List[pa.RecordBatch]":
        """Reads the table (snapshot by default) into a list of pyarrow RecordBatches."""
        from hudi import read

        return read.read(self._table, options)

    def read_stream(self, options: "Optional[HudiReadOptions]" = None) -> "HudiRecordBatchStream":
        """Reads the table as a stream of batches (``__arrow_c_stream__``), one file slice in memory at a time."""
        from hudi import read

        return read.read_stream(self._table, options)

    @classmethod
    def create(cls, base_uri: str, record_key: "Union[str, List[str]]", **kwargs: "Any") -> "HudiTable":
        """Creates a new table and opens it: ``HudiTable.create(base_uri, record_key,
        ordering_fields=None, partition_fields=None, table_type="cow", table_name=None,
        record_index_enabled=True, hudi_options=None, storage_options=None, database_name=None)``
        (:func:`hudi.write.create` says what each means)."""
        from hudi import write

        return write.create(base_uri, record_key, **kwargs)

    def append(self, data: "Any", options: "Optional[Dict[str, str]]" = None) -> "HudiWriteResult":
        """Bulk-inserts ``data`` (anything with ``__arrow_c_stream__`` or ``__arrow_c_array__``) as one commit.

        Rows are grouped by partition, in input order within one (``hoodie.bulkinsert.sort.mode``
        NONE, Hudi's default; GLOBAL_SORT or PARTITION_SORT order them by key), and each
        partition's rows are split evenly into files of about
        ``hoodie.parquet.max.file.size`` compressed bytes (estimated from a sample), written on
        ``hoodie.bulkinsert.shuffle.parallelism`` threads (default 2). Parquet codec:
        ``hoodie.parquet.compression.codec`` (zstd by default on table versions 8 and 9, gzip on 6).
        A stream of more than ``hudi_c.append.segment.bytes`` (default 4 GiB of Arrow data, e.g. a
        ``RecordBatchReader`` over a large dataset) is written a segment at a time into the same
        commit, so memory holds one segment (and each row's key); bad input in a later segment
        deletes the earlier segments' files and leaves the table as it was.
        Keys the table already holds follow ``hoodie.datasource.insert.dup.policy``: ``none``
        (Hudi's default: the row is written again and the record index points to the new copy),
        ``drop`` (such rows are left out) or ``fail`` (an error naming the key, nothing written).

        ``options={"hoodie.metadata.enable": "false"}`` (here or on any other writing verb) turns
        the metadata table off first, as Apache Hudi's writers do: ``hoodie.properties`` stops
        listing it and ``.hoodie/metadata`` is deleted; later writes use the bloom index. It is
        how a version-6 table Spark wrote with a metadata table is written at all.
        ``{"hoodie.metadata.enable": "true"}`` on a version-8 or 9 table without one (written by
        Spark with it off, or turned off as above) builds it first, record index included
        (``"hoodie.metadata.record.index.enable": "false"``: the file listing only); refused
        (``HudiConflictError``) while another write is pending, and on version 6.
        ``{"hoodie.metadata.record.index.enable": "true"}`` (here or in the handle's options) on
        a version-8 or 9 table whose metadata table has no record index (Spark's default
        metadata table) adds it first, so that this and later keyed writes use it; ``"false"``
        drops an existing one, as Apache Hudi's writers do (likewise
        ``hoodie.metadata.index.column.stats.enable``, ``...partition.stats.enable`` and
        ``...bloom.filter.enable`` set to ``"false"`` drop those indexes); without the option the
        table keeps what it has. ``{"hoodie.metadata.index.column.stats.enable": "true"}`` on a
        table whose metadata table has no column stats adds them first (and partition stats on
        a partitioned table, unless ``...partition.stats.enable`` is ``"false"``), indexing every
        file the table holds, as Apache Hudi's writers do for an index enabled later.
        """
        from hudi import write

        return write.append(self._table, data, options)

    def upsert(self, data: "Any", options: "Optional[Dict[str, str]]" = None) -> "HudiWriteResult":
        """Inserts new keys and replaces existing ones (ordering field decides; one commit).
        Raises HudiConflictError when it would change a file group a pending clustering reads."""
        from hudi import write

        return write.upsert(self._table, data, options)

    def delete(self, predicate: str, options: "Optional[Dict[str, str]]" = None) -> "HudiWriteResult":
        """Deletes the records matching a SQL predicate (``"doc_id = 'doc3'"``)."""
        from hudi import write

        return write.delete(self._table, predicate, options)

    def delete_keys(self, keys: "Any", options: "Optional[Dict[str, str]]" = None) -> "HudiWriteResult":
        """Deletes records by record key (absent keys are ignored and not counted).

        Keys are Hudi's record keys as ``_hoodie_record_key`` holds them: the value itself for
        one key field (``"doc1#0"``; integers in decimal), and ``"field1:value1,field2:value2"``
        for a composite key (``"region:eu,id:2"``), as Hudi's complex key generator writes them;
        any other form matches nothing."""
        from hudi import write

        return write.delete_keys(self._table, keys, options)

    def update(
        self,
        predicate: "Optional[str]",
        assignments: "Dict[str, Any]",
        options: "Optional[Dict[str, str]]" = None,
    ) -> "HudiWriteResult":
        """UPDATE ... SET assignments WHERE predicate (None: every record)."""
        from hudi import write

        return write.update(self._table, predicate, assignments, options)

    def overwrite(
        self, data: "Any", partitions_only: bool = True, options: "Optional[Dict[str, str]]" = None
    ) -> "HudiWriteResult":
        """Replaces the partitions ``data`` falls in (INSERT_OVERWRITE), or with ``partitions_only=False``
        the whole table (INSERT_OVERWRITE_TABLE), with ``data``; one replacecommit.

        As in Apache Hudi, an overwrite of some partitions does not look keys up in the others:
        a key of ``data`` that the table holds in a partition not overwritten is then in both
        (a later ``delete_keys`` removes the copy the record index points to)."""
        from hudi import write

        return write.overwrite(self._table, data, partitions_only, options)

    def compact(self, options: "Optional[Dict[str, str]]" = None) -> "HudiCompactResult":
        """Compacts a MERGE_ON_READ table: every file group with log files gets a new base file
        merging them (one ``compaction`` instant, completed as a ``commit``). Pending compactions
        are finished first. Raises HudiInvalidInputError on a COPY_ON_WRITE table."""
        from hudi import services

        return services.compact(self._table, options)

    def wait_services(self) -> None:
        """Waits for this handle's background table services: with
        ``hoodie.datasource.compaction.async.enable=true`` (a write option or a table option) a
        write that makes a compaction due only schedules it and a background thread runs it while
        later writes go on. Raises the error of a failed background compaction (reported once, by
        this call or by the next write, which then writes nothing); the compaction stays pending
        and the next such write, or ``compact()``, finishes it. With
        ``hoodie.metadata.compact.async=true`` the metadata table's compaction runs the same way:
        the write that makes it due only schedules it, a background thread writes the new base
        HFiles, and this call waits for it and raises its error. Dropping the table waits too."""
        _hudi._wait_services(self._table)

    def clean(self, options: "Optional[Dict[str, str]]" = None) -> "HudiCleanResult":
        """Deletes the file slices the cleaning policy no longer retains (one clean instant; none when
        there is nothing to delete). Options: ``hoodie.clean.policy`` (``KEEP_LATEST_COMMITS``, the
        default, ``KEEP_LATEST_FILE_VERSIONS`` or ``KEEP_LATEST_BY_HOURS``),
        ``hoodie.clean.commits.retained`` (10), ``hoodie.clean.fileversions.retained`` (3),
        ``hoodie.clean.hours.retained`` (24). Writes clean by themselves after each commit
        unless ``hoodie.clean.automatic`` is ``false``."""
        from hudi import services

        return services.clean(self._table, options)

    def rollback(self, instant: str, options: "Optional[Dict[str, str]]" = None) -> "HudiRollbackResult":
        """Rolls back ``instant``: a pending (failed) write, or the latest completed write. Its files are
        deleted, its metadata-table deltacommit rolled back, and a rollback instant is completed.
        On table version 6 a delta commit's log appends are undone by rollback command blocks (the
        log files stay, as Hudi 0.x leaves them). Writes roll back failed writes by themselves first."""
        from hudi import services

        return services.rollback(self._table, instant, options)

    def savepoint(self, instant: "Optional[str]" = None, user: str = "", comment: str = "",
                  options: "Optional[Dict[str, str]]" = None) -> "HudiSavepointResult":
        """Savepoints completed commit ``instant`` (default: the latest completed commit), as Apache Hudi
        does: ``<instant>.savepoint`` on the timeline lists the files of the table as of that commit;
        the cleaner keeps them and archival stops before the first savepoint, so the table can be
        read as of the commit and restored to it (``restore``)."""
        from hudi import services

        return services.savepoint(self._table, instant, user, comment, options)

    def delete_savepoint(self, instant: str, options: "Optional[Dict[str, str]]" = None) -> None:
        """Deletes savepoint ``instant`` (the commit stays): its files are then cleaned like any
        others, and the commit can be rolled back."""
        from hudi import services

        services.delete_savepoint(self._table, instant, options)

    def savepoints(self) -> "List[HudiSavepointInfo]":
        """The table's completed savepoints, oldest first."""
        from hudi import services

        return services.savepoints(self._table)

    def restore(self, instant: str, options: "Optional[Dict[str, str]]" = None) -> "HudiRestoreResult":
        """Restores the table to savepoint ``instant``: every write after it (completed or pending,
        compactions and clusterings included) is rolled back, newest first, under one restore
        instant, and the metadata table with it. Afterwards a snapshot read equals a read as of
        ``instant``."""
        from hudi import services

        return services.restore(self._table, instant, options)

    def archive(self, options: "Optional[Dict[str, str]]" = None) -> "HudiArchiveResult":
        """Moves the oldest completed instants of the timeline into its LSM history
        (``.hoodie/timeline/history``) once there are more than ``hoodie.keep.max.commits`` (30)
        completed commits, keeping ``hoodie.keep.min.commits`` (20), as Apache Hudi 1.x does; time
        travel and incremental reads still see the archived commits. Writes archive by themselves
        after each commit unless ``hoodie.archive.automatic`` is ``false``. On table version 6 the
        archived instants go into a new ``.hoodie/archived/.commits_.archive.N_1-0-1`` log file,
        as Hudi's version-6 archiver writes it."""
        from hudi import services

        return services.archive(self._table, options)

    def get_file_slices(self, options: "Optional[HudiReadOptions]" = None) -> "List[HudiFileSlice]":
        """The file slices a read with these options reads."""
        from hudi import read

        return read.get_file_slices(self._table, options)

    def read_file_slice(self, file_slice: "HudiFileSlice",
                        options: "Optional[HudiReadOptions]" = None) -> "pa.RecordBatch":
        """The merged rows of one file slice (from :meth:`get_file_slices` with the same options), as
        one RecordBatch. The read is planned again with ``options``; a slice that read does not
        include raises :class:`hudi.HudiNotFoundError`."""
        from hudi import read

        return read.read_file_slice(self._table, file_slice, options)

    def read_file_slice_stream(self, file_slice: "HudiFileSlice",
                               options: "Optional[HudiReadOptions]" = None) -> "HudiRecordBatchStream":
        """Like :meth:`read_file_slice`, as a stream of RecordBatches."""
        from hudi import read

        return read.read_file_slice_stream(self._table, file_slice, options)

    def compute_table_stats(self, options: "Optional[HudiReadOptions]" = None) -> "Optional[Tuple[int, int]]":
        """Estimated ``(num_rows, byte_size)`` of a snapshot read, for query planning, as hudi-rs
        computes them: the on-disk size of the live Parquet files the metadata table lists, scaled
        by the row size and compression ratio of one sampled base file's footer. ``None`` for
        incremental queries, tables without a metadata table ``files`` partition (version 8+), a
        non-Parquet base file format, or when the sample cannot be read. Only the options' query
        type is used."""
        from hudi import read

        return read.compute_table_stats(self._table, options)

    def create_file_group_reader_with_options(
        self, read_options: "Optional[HudiReadOptions]" = None,
        extra_storage_overrides: "Optional[Dict[str, str]]" = None,
    ) -> "HudiFileGroupReader":
        """A reader of this table's file slices with these read options (hudi-rs's
        ``HudiFileGroupReader``). The table's storage is already open: non-empty
        ``extra_storage_overrides`` raise :class:`hudi.HudiUnsupportedError`."""
        from hudi import _hudi, read

        if extra_storage_overrides:
            raise _hudi.HudiUnsupportedError(
                "extra_storage_overrides: hudi-c opens storage with the table (pass storage options "
                "to HudiTableBuilder)")
        return read.HudiFileGroupReader(self._table, read_options)


@dataclass
class HudiTableBuilder:
    """Builds a :class:`HudiTable` from a base URI and options, as in hudi-rs."""

    base_uri: str
    hudi_options: Dict[str, str] = field(default_factory=dict)
    storage_options: Dict[str, str] = field(default_factory=dict)
    options: Dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_base_uri(cls, base_uri: str) -> "HudiTableBuilder":
        """A builder for the table at ``base_uri`` (a local path or ``file:`` URI)."""
        return cls(base_uri)

    def with_hudi_option(self, k: str, v: str) -> "HudiTableBuilder":
        """Adds one Hudi option (``hoodie.*``)."""
        self.hudi_options[k] = v
        return self

    def with_hudi_options(self, hudi_options: Dict[str, str]) -> "HudiTableBuilder":
        """Adds Hudi options."""
        self.hudi_options.update(hudi_options)
        return self

    def with_storage_option(self, k: str, v: str) -> "HudiTableBuilder":
        """Adds one storage option."""
        self.storage_options[k] = v
        return self

    def with_storage_options(self, storage_options: Dict[str, str]) -> "HudiTableBuilder":
        """Adds storage options."""
        self.storage_options.update(storage_options)
        return self

    def with_option(self, k: str, v: str) -> "HudiTableBuilder":
        """Adds an option of either kind."""
        self.options[k] = v
        return self

    def with_options(self, options: Dict[str, str]) -> "HudiTableBuilder":
        """Adds options of either kind."""
        self.options.update(options)
        return self

    def build(self) -> HudiTable:
        """Opens the table. Raises :class:`hudi.HudiNotFoundError` when there is no table."""
        merged = {**self.options, **self.storage_options, **self.hudi_options}
        return HudiTable(self.base_uri, merged)
