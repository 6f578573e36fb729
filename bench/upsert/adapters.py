"""One adapter per engine: the same keyed operations, done the way each engine does them by default.

The interface (Adapter) is what the harness drives; an adapter that cannot run here says why in
availability() (or raises EngineNotAvailable from any operation) and the harness reports a visible
"not available" row for it instead of a figure.

  delta-rs   deltalake: write_deltalake for the load; MERGE (when_matched_update_all +
             when_not_matched_insert_all) for upserts; MERGE ... when_matched_delete for deletes;
             change data feed (load_cdf) for incremental reads; DeltaTable(version=) for time travel.
  pyiceberg  SQL catalog on SQLite, local warehouse: append for the load; Table.upsert; Table.delete
             with PyIceberg's own key-match filter; incremental_append_scan; scan(snapshot_id=).
  hudi-c     MOR and COW: to be filled in once hudi-c writes tables (HudiCAdapter below).
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
    """hudi-c through its Python package. Placeholder until hudi-c writes tables.

    To fill in (each a single call into the `hudi` package; no logic of its own):
      create        hudi.HudiTable.create(str(self.root / "table"), record_key=self.keys,
                    table_type="mor" (or "cow"), ordering_fields=None: the latest commit wins, as
                    in the peers); the package already has this call, with append;
      bulk_load     one bulk-insert (or append) commit of the whole table;
      upsert        one upsert commit (MOR: log blocks; COW: rewritten file groups);
      delete        one delete commit of the listed keys;
      version       the completed instant time of the last commit;
      incremental_read  the incremental query after that instant (upserted rows and deleted keys);
      time_travel_read  the snapshot query as of an instant;
      read_all      the snapshot query of the latest instant (HudiTable.read).
    Then make _filled_in() return True. Until then availability() names what is missing and the
    harness shows a "not available" row. (HudiWriteResult.bytes_written, once returned, can be
    recorded beside the file-system figure as a cross-check.)
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
        if cls._filled_in():
            return None
        missing = [m for m in ("upsert", "delete") if not callable(getattr(table_cls, m, None))]
        return (f"hudi {version} has HudiTable.create"
                + (f" but no HudiTable.{'/'.join(missing)} yet" if missing else "")
                + "; HudiCAdapter in bench/upsert/adapters.py is not filled in yet")

    @classmethod
    def _filled_in(cls) -> bool:
        return False  # set to True once the methods below call the hudi package

    def _todo(self, what: str) -> EngineNotAvailable:
        return EngineNotAvailable(f"HudiCAdapter.{what}: not written yet (waits for hudi-c's write path); "
                                   f"{self.availability() or ''}")

    def create(self, schema: pa.Schema) -> None:
        raise self._todo("create")

    def bulk_load(self, table: pa.Table) -> None:
        raise self._todo("bulk_load")

    def upsert(self, batch: pa.Table) -> None:
        raise self._todo("upsert")

    def delete(self, keys: pa.Table) -> None:
        raise self._todo("delete")

    def version(self) -> Any:
        raise self._todo("version")

    def incremental_read(self, since: Any) -> IncrementalResult:
        raise self._todo("incremental_read")

    def time_travel_read(self, version: Any) -> pa.Table:
        raise self._todo("time_travel_read")

    def read_all(self) -> pa.Table:
        raise self._todo("read_all")


class HudiCCowAdapter(HudiCAdapter):
    table_type = "COPY_ON_WRITE"
    name = "hudi-c (COW)"


ADAPTERS: Dict[str, Type[Adapter]] = {
    "hudi-c-mor": HudiCAdapter,
    "hudi-c-cow": HudiCCowAdapter,
    "delta-rs": DeltaAdapter,
    "pyiceberg": IcebergAdapter,
}
