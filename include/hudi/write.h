/* hudi-c: creating Hudi tables and writing to them.
 *
 *   hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
 *   o.record_key_fields = "chunk_id";
 *   o.partition_fields = "doc_id";
 *   o.ordering_fields = "updated_at";
 *   // o.record_index_enabled = true (default): metadata table + record index
 *   hudi_table *t;
 *   hudi_table_create(&t, "/data/chunks", &o, &err);
 *   hudi_write_result r;
 *   hudi_table_append(&r, t, &stream, NULL, 0, &err);   // bulk insert
 *   hudi_table_free(t);
 *
 * Tables are written in table version 8 (timeline layout 2) unless option
 * hoodie.write.table.version asks for 9 (Hudi 1.1/1.2) or 6 (Hudi
 * 0.14/0.15, timeline layout 1, JSON commits; without a metadata table, so
 * record_index_enabled must be false and keyed writes use the bloom
 * index). With the record index (the default) the table gets a metadata table with the
 * `files` and `record_index` partitions (10 shards), which every append
 * keeps current; record_index_enabled = false without
 * hoodie.metadata.enable=true: no metadata table. */
#ifndef HUDI_WRITE_H
#define HUDI_WRITE_H

#include <stdbool.h>

#include "hudi/arrow_abi.h"
#include "hudi/common.h"
#include "hudi/error.h"
#include "hudi/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hudi_create_options {
  const char *table_name;        /* NULL: the last segment of base_uri */
  const char *database_name;     /* NULL: none (enters the checksum as "") */
  hudi_table_type type;          /* HUDI_COPY_ON_WRITE or HUDI_MERGE_ON_READ */
  const char *record_key_fields; /* required: "id" or "id,name" */
  const char *partition_fields;  /* NULL or "": non-partitioned; else "a" or "a,b" */
  const char *ordering_fields;   /* NULL: commit-time ordering; else one field */
  /* true (default): the table gets the metadata table (MDT) with its
   * `files` partition and the record-level index (partition record_index),
   * kept current by every append (a bulk insert then refuses a key twice in
   * one write). false: no MDT, unless option hoodie.metadata.enable=true
   * (then `files` only). Option hoodie.metadata.index.column.stats.enable=
   * true adds `column_stats` (2 file groups) and, on a partitioned table,
   * `partition_stats` (1; hoodie.metadata.index.partition.stats.enable=
   * false leaves it out), as Spark's defaults build them: every commit
   * records its files' column ranges, which readers (ours, Spark's data
   * skipping) use to skip files. Options asking for bloom filters or
   * secondary indexes are refused at create; on tables Spark built them
   * for, every write keeps them current (docs/status.md). */
  bool record_index_enabled;
  /* Hudi options ("hoodie.*": hoodie.datasource.write.hive_style_partitioning
   * (default true), hoodie.datasource.write.partitionpath.urlencode (false),
   * hoodie.write.table.version (8; or 6 or 9), hoodie.table.timeline.timezone (UTC
   * only), hoodie.metadata.enable, hoodie.metadata.index.column.stats.enable
   * (false), hoodie.metadata.index.partition.stats.enable (with column stats),
   * hoodie.metadata.index.{column,partition}.stats.file.group.count (2, 1))
   * and storage options (the rest, e.g. "fsync"). */
  const hudi_option *options;
  size_t n_options;
} hudi_create_options;

#define HUDI_CREATE_OPTIONS_INIT {NULL, NULL, HUDI_COPY_ON_WRITE, NULL, NULL, NULL, true, NULL, 0}

/* Creates a new table at base_uri (.hoodie/hoodie.properties and the
 * directories Spark creates) and opens it. A table already there is
 * HUDI_ERR_EXISTS; nothing is written unless every option is valid.
 * *out is owned by the caller: hudi_table_free. */
HUDI_EXTERN hudi_status hudi_table_create(hudi_table **out, const char *base_uri, const hudi_create_options *opts,
                                          hudi_error *err);

#define HUDI_WRITE_TIME_MAX 24
#define HUDI_WRITE_ACTION_MAX 24

/* What one write committed. */
typedef struct hudi_write_result {
  char requested_time[HUDI_WRITE_TIME_MAX];  /* "" when nothing was committed (no rows) */
  char completion_time[HUDI_WRITE_TIME_MAX];
  char action[HUDI_WRITE_ACTION_MAX];        /* "commit" (COW) or "deltacommit" (MOR) */
  char operation[HUDI_WRITE_ACTION_MAX];     /* "BULK_INSERT" */
  int64_t num_writes, num_inserts, num_updates, num_deletes;
  int64_t files_written, bytes_written, partitions_written;
} hudi_write_result;

/* Bulk insert: writes every row of the stream into new file groups (base
 * files, also on MERGE_ON_READ tables) and commits them as one instant.
 * The stream is consumed and released in every case. Rows are grouped by
 * partition, in input order within one (hoodie.bulkinsert.sort.mode NONE,
 * Hudi's default; GLOBAL_SORT, PARTITION_SORT and
 * PARTITION_PATH_REPARTITION_AND_SORT order them by record key, in Java
 * String order); each partition's rows are split evenly into
 * ceil(estimate / hoodie.parquet.max.file.size) files, the estimate being
 * the compressed size of a sample of the partition's first rows encoded
 * with the write's Parquet options (as Hudi's writer sizes files by their
 * written bytes): a partition above hoodie.parquet.small.file.limit gets no
 * small file where an even split under the maximum avoids one. The files
 * are written on hoodie.bulkinsert.shuffle.parallelism threads (default 2,
 * capped by the cores and the files). options: per-write Hudi options
 * (hoodie.parquet.max.file.size, hoodie.parquet.compression.codec:
 * gzip, snappy, zstd or uncompressed; unset, zstd on tables of version 8
 * and 9 and gzip on version 6, docs/compatibility.md item 20; ...), may be
 * NULL. hoodie.metadata.enable=false among them (for every writing verb)
 * turns the metadata table off first, as Apache Hudi's writers do: the
 * table's hoodie.properties stops listing its partitions and
 * .hoodie/metadata is deleted, under the write lock; the write then uses
 * the bloom index. It is how a version-6 table Spark wrote with a metadata
 * table (which hudi-c cannot update) is written at all.
 * hoodie.metadata.enable=true (every writing verb) on a version-8 or 9
 * table without a metadata table builds one first, under the write lock:
 * `files` from a storage listing, `record_index` from the keys of every
 * latest file slice (not with hoodie.metadata.record.index.enable=false);
 * HUDI_ERR_CONFLICT while a write is pending, HUDI_ERR_UNSUPPORTED on
 * version 6 (docs/compatibility.md item 33).
 * hoodie.metadata.record.index.enable=true (the call's options or the
 * handle's) on a version-8 or 9 table whose metadata table lacks
 * record_index (Spark's default metadata table) adds it first, the same
 * way: the keys of every latest file slice, the other partitions kept
 * (docs/compatibility.md item 34); =false drops an existing record_index,
 * as Java's writers do, and likewise
 * hoodie.metadata.index.{column.stats,partition.stats,bloom.filter}.enable=false
 * drop column_stats (with partition_stats), partition_stats, bloom_filters
 * (item 37); hoodie.metadata.index.column.stats.enable=true on one
 * without column_stats adds it (and partition_stats on a partitioned table
 * unless hoodie.metadata.index.partition.stats.enable=false), indexing
 * every file the metadata table lists (item 38). Without these options a
 * table keeps the indexes it has. Every call's data must hold the table's
 * ordering field (HUDI_ERR_INVALID_ARG naming it).
 * A stream of more than hudi_c.append.segment.bytes (default 4 GiB of
 * estimated Arrow data) is written a segment at a time into the same
 * commit, holding one segment of rows at once (plus each row's key with a
 * record index): each segment gets its own files per partition and is
 * ordered (sort modes) within itself.
 * Keys the table already holds follow hoodie.datasource.insert.dup.policy:
 * none (Hudi's default: written again, the record index then points to
 * the new copy), drop (those rows are left out; nothing is committed when
 * none remain) or fail (an error naming the key, before any file); the
 * keys are looked up as an upsert's are (docs/compatibility.md item 23).
 * Errors before the commit completes leave the table as readers saw it;
 * bad input (a missing or null record key, an unknown partition field, a
 * type without a Hudi mapping, a key given twice with a record index) is
 * reported before anything is written, or, in a later segment, once the
 * earlier segments' files are written: they are then deleted with the
 * instant's files, leaving the table as it was. */
HUDI_EXTERN hudi_status hudi_table_append(hudi_write_result *result, hudi_table *table,
                                          struct ArrowArrayStream *stream, const hudi_option *options,
                                          size_t n_options, hudi_error *err);


/* ---- keyed writes (upsert, update, delete) ------------------------------
 * Keys are found through the table's record-level index, or, on tables
 * without one, Hudi's global BLOOM index over the latest base files (footer
 * min/max record keys and bloom filters, confirmed by reading the keys):
 * a key is found in whatever partition holds it, and a record whose
 * partition value changes moves there (deleted from the old partition).
 * COPY_ON_WRITE rewrites the touched file groups' base files (unchanged
 * rows keep _hoodie_commit_time and _hoodie_commit_seqno); MERGE_ON_READ
 * appends one log file per touched file group (an Avro data block for
 * updates, a delete block for deletes). New keys go into new base files.
 * Each call is one commit ("commit" / "deltacommit"); a call that changes
 * nothing commits nothing (requested_time ""). Options as for append.
 * A call that would update or delete records of a file group a pending
 * clustering reads fails with HUDI_ERR_CONFLICT naming the clustering,
 * before anything is written (Hudi's default update strategy). */

/* Upsert: rows with a new key are inserted, rows with an existing key
 * replace the stored record unless their ordering field (the table's
 * precombine field) is lower than the stored one. Duplicate keys within
 * the stream: the largest ordering value wins, ties (and tables without an
 * ordering field) go to the later row. The stream is released in every
 * case; its schema must be the table's (or define it on an empty table). */
HUDI_EXTERN hudi_status hudi_table_upsert(hudi_write_result *result, hudi_table *table,
                                          struct ArrowArrayStream *stream, const hudi_option *options,
                                          size_t n_options, hudi_error *err);

/* Deletes the records with these record keys (as _hoodie_record_key holds
 * them: "v" or "f1:v1,f2:v2"); absent keys are ignored (not counted). */
HUDI_EXTERN hudi_status hudi_table_delete_keys(hudi_write_result *result, hudi_table *table,
                                               const char *const *keys, size_t n_keys, const hudi_option *options,
                                               size_t n_options, hudi_error *err);

/* Deletes the records for which the SQL predicate is TRUE (expr/pred.h:
 * "doc_id = 'doc3' AND pos > 2"). An invalid predicate or an unknown
 * column is HUDI_ERR_INVALID_ARG, and nothing is written. */
HUDI_EXTERN hudi_status hudi_table_delete(hudi_write_result *result, hudi_table *table, const char *predicate,
                                          const hudi_option *options, size_t n_options, hudi_error *err);

typedef enum hudi_assign_kind {
  HUDI_ASSIGN_SQL = 0,   /* value is a SQL literal: 'text', 42, NULL, DATE '2024-01-01' */
  HUDI_ASSIGN_STRING = 1 /* value is text cast to the column's type; NULL value: NULL */
} hudi_assign_kind;

typedef struct hudi_update_assignment {
  const char *column;
  const char *value;
  hudi_assign_kind kind;
} hudi_update_assignment;

/* UPDATE table SET assignments WHERE predicate (predicate NULL: every
 * record). The updated records are upserted, so a changed partition value
 * moves the record; record key fields cannot be assigned. */
HUDI_EXTERN hudi_status hudi_table_update(hudi_write_result *result, hudi_table *table, const char *predicate,
                                          const hudi_update_assignment *assignments, size_t n_assignments,
                                          const hudi_option *options, size_t n_options, hudi_error *err);


typedef enum hudi_overwrite_scope {
  HUDI_OVERWRITE_PARTITIONS = 0, /* INSERT_OVERWRITE: the partitions the rows fall in */
  HUDI_OVERWRITE_TABLE = 1       /* INSERT_OVERWRITE_TABLE: every partition */
} hudi_overwrite_scope;

/* Overwrite: the rows (deduplicated by key as in an upsert) are written
 * into new file groups, and one "replacecommit" replaces every current
 * file group of the partitions the rows fall in, or of the whole table (an
 * empty stream then empties the table). No index lookup: a key that lives
 * in a partition not overwritten stays there too. The stream is released
 * in every case. */
HUDI_EXTERN hudi_status hudi_table_overwrite(hudi_write_result *result, hudi_table *table,
                                             struct ArrowArrayStream *stream, hudi_overwrite_scope scope,
                                             const hudi_option *options, size_t n_options, hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
