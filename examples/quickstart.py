"""hudi-c quick start: a table of document chunks with embeddings.

Creates a Merge-on-Read table, bulk-inserts the chunks of three documents,
re-ingests one (an upsert through the record-level index: prints `4 0`, four
updates and no inserts), deletes another, reads the table back as Arrow
(snapshot, filtered projection, incremental changes), queries it with DuckDB,
and opens a table that Spark wrote. Run it with dev/quickstart.sh.
"""

from __future__ import annotations

import sys
import tempfile
import zipfile
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

import hudi
from hudi import HudiQueryType, HudiReadOptions, HudiTable, HudiTableBuilder

SPARK_TABLE = (
    Path(__file__).resolve().parents[1].parent
    / "shared/fixtures/hudi-rs/crates/test/data/quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip"
)


def chunks(doc_ids: list[str], updated_at: int, chunks_per_doc: int = 4) -> pa.Table:
    rng = np.random.default_rng(updated_at)
    rows = [(d, i) for d in doc_ids for i in range(chunks_per_doc)]
    emb = rng.random((len(rows), 384), dtype=np.float32)
    return pa.table({
        "chunk_id": [f"{d}#{i}" for d, i in rows],
        "doc_id": [d for d, _ in rows],
        "pos": pa.array([i for _, i in rows], pa.int32()),
        "text": [f"chunk {i} of {d}, version {updated_at}" for d, i in rows],
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(emb.ravel()), 384),
        "updated_at": pa.array([updated_at] * len(rows), pa.int64()),
    })


def main() -> int:
    print(f"hudi-c {hudi.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        # 1. Create a Merge-on-Read table keyed by chunk_id (with the metadata table and its
        #    record-level index, kept current by every write) and append three documents.
        base = str(Path(tmp) / "rag_chunks")
        table = HudiTable.create(base, record_key="chunk_id", ordering_fields="updated_at",
                                 table_type="mor")
        first = table.append(chunks(["doc1", "doc2", "doc3"], updated_at=1))
        print(f"append: {first.num_inserts} rows in {first.files_written} file(s), "
              f"{first.action} {first.requested_time}")

        # 2. Re-ingest doc2: its four chunks are found through the record index and updated
        #    (a log block appended to their file group), nothing is inserted.
        result = table.upsert(chunks(["doc2"], updated_at=2))
        print(result.num_updates, result.num_inserts)

        # 3. Delete doc3 by predicate; delete_keys takes record keys instead.
        deleted = table.delete("doc_id = 'doc3'")
        print(f"delete: {deleted.num_deletes} chunks of doc3")

        # 4. Read it back as Arrow: the snapshot, a filtered projection, and the changes since
        #    the first commit (an incremental query: the latest version of each changed row).
        rows = pa.Table.from_batches(table.read())
        print(f"snapshot: {rows.num_rows} rows, columns {rows.column_names[:7]}...")
        doc2 = pa.Table.from_batches(
            table.read(HudiReadOptions(filters=[("doc_id", "=", "doc2")], projection=["chunk_id", "text"])))
        print(f"doc2 chunks: {sorted(doc2['text'].to_pylist())[:2]}...")
        changes = pa.Table.from_batches(table.read(
            HudiReadOptions().with_query_type(HudiQueryType.Incremental)
            .with_start_timestamp(first.completion_time)))
        print(f"incremental since the first commit: {changes.num_rows} rows")

        # 5. Arrow goes anywhere: DuckDB groups the snapshot.
        snapshot = table.read_stream()
        per_doc = duckdb.sql(
            "SELECT doc_id, count(*) AS chunks, max(updated_at) AS version "
            "FROM snapshot GROUP BY doc_id ORDER BY doc_id").fetchall()
        print(f"chunks per document (DuckDB): {per_doc}")

        # 6. Tables written by Spark open the same way.
        if SPARK_TABLE.exists():
            with zipfile.ZipFile(SPARK_TABLE) as z:
                z.extractall(tmp, [m for m in z.namelist() if not m.startswith("__MACOSX")])
            trips = HudiTableBuilder.from_base_uri(str(Path(tmp) / SPARK_TABLE.stem)).build()
            riders = sorted(pa.Table.from_batches(trips.read())["rider"].to_pylist())
            print(f"{trips.table_name} ({trips.table_type}, written by Spark): riders {riders}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
