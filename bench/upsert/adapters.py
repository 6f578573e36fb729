"""One adapter per engine: the same keyed operations, done the way each engine does them by default.

The interface (Adapter) is what the harness drives; an adapter that cannot run here says why in
availability() (or raises EngineNotAvailable from any operation) and the harness reports a visible
"not available" row for it instead of a figure.

  delta-rs   deltalake: write_deltalake for the load; MERGE (when_matched_update_all +
             when_not_matched_insert_all) for upserts; MERGE ... when_matched_delete for deletes;
             change data feed (load_cdf) for incremental reads; DeltaTable(version=) for time travel.
  pyiceberg  SQL catalog on SQLite, local warehouse: append for the load; Table.upsert; Table.delete
             with PyIceberg's own key-match filter; incremental_append_scan; scan(snapshot_id=).
  hudi-c     MOR and COW (record index on): HudiTable.append for the load; HudiTable.upsert;
             HudiTable.delete_keys; the incremental query for incremental reads (no deletes
             reported); the snapshot query as of an instant for time travel.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Type

import pyarrow as pa


class EngineNotAvailable(NotImplementedError):
    """Raised by an adapter for an operation its engine cannot do here; the harness shows a
    "not available" row with this message. (Only this class: pyarrow's ArrowNotImplementedError is
    also a NotImplementedError and is a real failure.)"""


@dataclass
class IncrementalResult:
    """Rows inserted or updated after a version (their latest image, one per key), and the keys
    deleted after it, or None where the engine's incremental read does not report deletes."""

    upserts: pa.Table
    deleted_keys: Optional[pa.Table]
    note: str = ""


class Adapter(ABC):
    """Drives one table of one engine. `root` is a directory that holds everything the engine
    writes (the bytes-written figures are measured on it)."""

    name: str = ""
    settings: Dict[str, str] = {}

    def __init__(self, root: Path, keys: List[str], change_feed: bool) -> None:
        self.root = root
        self.keys = list(keys)
        self.change_feed = change_feed

    @classmethod
    def availability(cls) -> Optional[str]:
        """None when the engine can run here; otherwise why not (shown in the results)."""
        return None

    @abstractmethod
    def create(self, schema: pa.Schema) -> None:
        """Create an empty table with this schema and key columns."""

    @abstractmethod
    def bulk_load(self, table: pa.Table) -> None:
        """The initial load, as one commit."""

    @abstractmethod
    def upsert(self, batch: pa.Table) -> None:
        """One commit: update the rows whose key is in batch, insert the others."""

    @abstractmethod
    def delete(self, keys: pa.Table) -> None:
        """One commit: delete the rows whose key is in keys (a table of the key columns)."""

    @abstractmethod
    def version(self) -> Any:
        """An opaque, JSON-serialisable handle on the current version."""

    @abstractmethod
    def incremental_read(self, since: Any) -> IncrementalResult:
        """The changes committed after version `since`, up to the current version."""

    @abstractmethod
    def time_travel_read(self, version: Any) -> pa.Table:
        """The whole table as of `version`."""

    @abstractmethod
    def read_all(self) -> pa.Table:
        """The whole table at its current version."""


# --------------------------------------------------------------------------- delta-rs


def _no_views(t: pa.Table) -> pa.Table:
    """string_view/binary_view -> string/binary: delta-rs's change feed hands back views, which
    several pyarrow kernels (take, is_in) do not accept yet."""
    fields = []
    for f in t.schema:
        if f.type == pa.string_view():
            f = f.with_type(pa.string())
        elif f.type == pa.binary_view():
            f = f.with_type(pa.binary())
        fields.append(f)
    return t.cast(pa.schema(fields))


def _latest_per_key(t: pa.Table, keys: List[str], order_col: str) -> pa.Table:
    """Keep the last row (by order_col) of every key."""
    import numpy as np
    import pyarrow.compute as pc

    from common import key_strings

    if t.num_rows == 0:
        return t
    codes = pc.dictionary_encode(key_strings(t, keys)).indices.to_numpy()
    order = pc.cast(t[order_col], pa.int64()).to_numpy()
    idx = np.lexsort((order, codes))  # by key, then by commit
    last = np.append(codes[idx][1:] != codes[idx][:-1], True)
    return t.take(pa.array(idx[last]))


class DeltaAdapter(Adapter):
    name = "delta-rs"

    @classmethod
    def availability(cls) -> Optional[str]:
        try:
            import deltalake  # noqa: F401
        except ImportError as e:
            return f"deltalake is not installed: {e}"
        return None

    def create(self, schema: pa.Schema) -> None:
        from deltalake import DeltaTable

        self.path = str(self.root / "table")
        cfg = {"delta.enableChangeDataFeed": "true"} if self.change_feed else None
        self.settings = {"configuration": str(cfg or "defaults"), "merge": "streamed_exec (default)"}
        self.dt = DeltaTable.create(self.path, schema=schema, configuration=cfg)
        self.schema = schema

    def bulk_load(self, table: pa.Table) -> None:
        from deltalake import write_deltalake

        write_deltalake(self.path, table, mode="append")
        self.dt.update_incremental()

    def _pred(self) -> str:
        return " AND ".join(f"t.{k} = s.{k}" for k in self.keys)

    def upsert(self, batch: pa.Table) -> None:
        (self.dt.merge(batch, self._pred(), source_alias="s", target_alias="t")
         .when_matched_update_all().when_not_matched_insert_all().execute())

    def delete(self, keys: pa.Table) -> None:
        self.dt.merge(keys, self._pred(), source_alias="s", target_alias="t").when_matched_delete().execute()

    def version(self) -> Any:
        return self.dt.version()

    def incremental_read(self, since: Any) -> IncrementalResult:
        import pyarrow.compute as pc

        cdf = _no_views(pa.table(self.dt.load_cdf(starting_version=since + 1, ending_version=self.dt.version())))
        kind = cdf["_change_type"]
        ups = cdf.filter(pc.is_in(kind, value_set=pa.array(["insert", "update_postimage"])))
        dels = cdf.filter(pc.equal(kind, "delete"))
        ups = _latest_per_key(ups, self.keys, "_commit_version")
        meta = [c for c in cdf.column_names if c.startswith("_c")]
        return IncrementalResult(ups.drop_columns([c for c in meta if c in ups.column_names]),
                                 dels.select(self.keys), "change data feed (load_cdf)")

    def time_travel_read(self, version: Any) -> pa.Table:
        from deltalake import DeltaTable

        return DeltaTable(self.path, version=version).to_pyarrow_table()

    def read_all(self) -> pa.Table:
        from deltalake import DeltaTable

        return DeltaTable(self.path).to_pyarrow_table()


# --------------------------------------------------------------------------- PyIceberg


class IcebergAdapter(Adapter):
    name = "pyiceberg"

    @classmethod
    def availability(cls) -> Optional[str]:
        try:
            import pyiceberg  # noqa: F401
            import sqlalchemy  # noqa: F401
        except ImportError as e:
            return f"pyiceberg[sql-sqlite] is not installed: {e}"
        return None

    def create(self, schema: pa.Schema) -> None:
        from pyiceberg.catalog.sql import SqlCatalog

        self.root.mkdir(parents=True, exist_ok=True)
        self.catalog = SqlCatalog("bench", uri=f"sqlite:///{self.root}/catalog.db",
                                  warehouse=f"file://{self.root}/warehouse")
        self.catalog.create_namespace("bench")
        self.tbl = self.catalog.create_table("bench.t", schema=schema)
        self.settings = {"catalog": "SqlCatalog on SQLite", "format-version": "2 (default)",
                         "write": "copy-on-write (PyIceberg writes no delete files)"}

    def bulk_load(self, table: pa.Table) -> None:
        self.tbl.append(table)

    def upsert(self, batch: pa.Table) -> None:
        self.tbl.upsert(batch, join_cols=self.keys)

    def delete(self, keys: pa.Table) -> None:
        from pyiceberg.table.upsert_util import create_match_filter

        self.tbl.delete(delete_filter=create_match_filter(keys, self.keys))

    def version(self) -> Any:
        snap = self.tbl.current_snapshot()
        return None if snap is None else snap.snapshot_id

    def incremental_read(self, since: Any) -> IncrementalResult:
        rows = self.tbl.incremental_append_scan(from_snapshot_id_exclusive=since,
                                                to_snapshot_id_inclusive=self.version()).to_arrow()
        return IncrementalResult(rows, None, "incremental_append_scan: rows of append snapshots only, "
                                 "no deletes (PyIceberg has no changelog scan)")

    def time_travel_read(self, version: Any) -> pa.Table:
        return self.tbl.scan(snapshot_id=version).to_arrow()

    def read_all(self) -> pa.Table:
        self.tbl = self.catalog.load_table("bench.t")
        return self.tbl.scan().to_arrow()


# --------------------------------------------------------------------------- hudi-c


class HudiCAdapter(Adapter):
    """hudi-c through its Python package (each operation one call into the `hudi` package):

      create        hudi.HudiTable.create(root/table, record_key=keys, table_type="mor"|"cow",
                    ordering_fields=None: the latest commit wins, as in the peers; record index on
                    (the default));
      bulk_load     HudiTable.append: one bulk-insert commit of the whole table;
      upsert        HudiTable.upsert: one upsert commit (MOR: log blocks; COW: rewritten file groups);
      delete        HudiTable.delete_keys: one delete commit of the listed record keys, formatted as
                    hudi's key generators format them (the value for one key field; the complex
                    key format `f1:v1,f2:v2` for several);
      version       the last commit's requested and completion instants (time travel compares
                    requested times; incremental bounds are completion times on table version 8);
      incremental_read  the incremental query over (completion time of `since`, latest]: the latest
                    image of the rows written in that range; it does not report deletes;
      time_travel_read  the snapshot query as of the requested instant;
      read_all      the snapshot query of the latest instant (HudiTable.read).
    HudiWriteResult.bytes_written of each commit is kept in settings as a cross-check of the
    file-system figure.
    """

    table_type = "MERGE_ON_READ"
    name = "hudi-c (MOR)"

    @classmethod
    def availability(cls) -> Optional[str]:
        try:
            import hudi
        except ImportError as e:
            return (f"the hudi package is not importable in this environment ({e}); "
                    "bench/upsert/run.sh --with-hudi installs it")
        table_cls = getattr(hudi, "HudiTable", None)
        version = getattr(hudi, "__version__", "?")
        if not callable(getattr(table_cls, "create", None)):
            return f"hudi {version} has no HudiTable.create: hudi-c has no write path yet"
        missing = [m for m in ("upsert", "delete_keys") if not callable(getattr(table_cls, m, None))]
        if cls._filled_in() and not missing:
            return None
        return (f"hudi {version} has HudiTable.create"
                + (f" but no HudiTable.{'/'.join(missing)} yet" if missing else "")
                + ("" if cls._filled_in() else "; HudiCAdapter in bench/upsert/adapters.py is not filled in yet"))

    @classmethod
    def _filled_in(cls) -> bool:
        return True

    def create(self, schema: pa.Schema) -> None:
        reason = self.availability()
        if reason:
            raise EngineNotAvailable(f"HudiCAdapter.create: {reason}")
        import hudi

        kind = "mor" if self.table_type == "MERGE_ON_READ" else "cow"
        self.path = str(self.root / "table")
        self.tbl = hudi.HudiTable.create(self.path, record_key=self.keys, ordering_fields=None,
                                         table_type=kind)
        self.settings = {"table type": self.table_type, "record index": "on (default)",
                         "ordering fields": "none (latest commit wins)", "hudi version": getattr(hudi, "__version__", "?")}
        self.last: Optional[Dict[str, str]] = None
        self.bytes_written: List[int] = []

    def _committed(self, r: Any) -> None:
        self.last = {"requested": r.requested_time, "completed": r.completion_time}
        self.bytes_written.append(int(r.bytes_written))
        self.settings["HudiWriteResult.bytes_written per commit"] = str(self.bytes_written)

    # options passed to every write call (the async variant sets one)
    write_options: Optional[Dict[str, str]] = None

    def bulk_load(self, table: pa.Table) -> None:
        self._committed(self.tbl.append(table, self.write_options))

    def upsert(self, batch: pa.Table) -> None:
        self._committed(self.tbl.upsert(batch, self.write_options))

    def _record_keys(self, keys: pa.Table) -> List[str]:
        """Record keys as hudi's key generators write them: SIMPLE (one field) the value alone,
        COMPLEX (several) `f1:v1,f2:v2`."""
        import pyarrow.compute as pc

        cols = [pc.cast(keys[k], pa.string()) for k in self.keys]
        if len(cols) == 1:
            return cols[0].to_pylist()
        parts = []
        for k, c in zip(self.keys, cols):
            parts.append(pc.binary_join_element_wise(pa.scalar(f"{k}:"), c, ""))
        return pc.binary_join_element_wise(*parts, ",").to_pylist()

    def delete(self, keys: pa.Table) -> None:
        self._committed(self.tbl.delete_keys(self._record_keys(keys), self.write_options))

    def version(self) -> Any:
        return dict(self.last) if self.last else None

    def _read(self, opts: Any) -> pa.Table:
        from hudi import HudiTable

        # a fresh handle: the timeline as of now
        batches = HudiTable(self.path).read(opts)
        meta = [f"_hoodie_{m}" for m in ("commit_time", "commit_seqno", "record_key", "partition_path",
                                         "file_name", "operation")]
        if not batches:
            return HudiTable(self.path).get_schema().empty_table()
        t = pa.Table.from_batches(batches)
        return t.drop_columns([c for c in meta if c in t.column_names])

    def incremental_read(self, since: Any) -> IncrementalResult:
        from hudi import HudiQueryType, HudiReadOptions

        opts = (HudiReadOptions().with_query_type(HudiQueryType.Incremental)
                .with_start_timestamp(since["completed"]).with_end_timestamp(self.last["completed"]))
        return IncrementalResult(self._read(opts), None,
                                 "incremental query (start/end completion times): latest image of the rows "
                                 "written in the range; deletes are not reported")

    def time_travel_read(self, version: Any) -> pa.Table:
        from hudi import HudiReadOptions

        return self._read(HudiReadOptions().with_as_of_timestamp(version["requested"]))

    def read_all(self) -> pa.Table:
        from hudi import HudiReadOptions

        return self._read(HudiReadOptions())


class HudiCCowAdapter(HudiCAdapter):
    table_type = "COPY_ON_WRITE"
    name = "hudi-c (COW)"


class HudiCMorAsyncAdapter(HudiCAdapter):
    """MOR with the metadata table's compaction in the background
    (hoodie.metadata.compact.async=true): the commit that makes it due only schedules it; the
    compaction's thread then shares the cores with the next commits, whose process CPU includes it."""

    name = "hudi-c (MOR, async MDT compaction)"
    write_options = {"hoodie.metadata.compact.async": "true"}

    def create(self, schema: pa.Schema) -> None:
        super().create(schema)
        self.settings["metadata-table compaction"] = "background (hoodie.metadata.compact.async=true)"


class HudiCMorIncrementalAdapter(HudiCAdapter):
    """MOR with the metadata table compacted incrementally
    (hoodie.metadata.compact.incremental=true): every commit compacts about a tenth of the
    metadata table's bytes (the file groups whose oldest log is oldest), inline, instead of the
    whole table every tenth commit."""

    name = "hudi-c (MOR, incremental MDT compaction)"
    write_options = {"hoodie.metadata.compact.incremental": "true"}

    def create(self, schema: pa.Schema) -> None:
        super().create(schema)
        self.settings["metadata-table compaction"] = "incremental (hoodie.metadata.compact.incremental=true)"


ADAPTERS: Dict[str, Type[Adapter]] = {
    "hudi-c-mor": HudiCAdapter,
    "hudi-c-cow": HudiCCowAdapter,
    "hudi-c-mor-async": HudiCMorAsyncAdapter,
    "hudi-c-mor-incremental": HudiCMorIncrementalAdapter,
    "delta-rs": DeltaAdapter,
    "pyiceberg": IcebergAdapter,
}
