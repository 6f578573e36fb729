/* Writing Hudi's metadata table (MDT): the `files` partition and the
 * record-level index, for the data write path (spec
 * hudi-metadata-table.md §1, §4, §5).
 *
 * hudi_mdt_init (mdt_init.h) creates the MDT of a new, empty data table;
 * hudi_mdt_commit records one data commit T in it. The data writer calls
 * hudi_mdt_commit AFTER writing its data files and BEFORE completing T on
 * the data timeline, and completes T with a completion time greater than
 * the MDT's (out_completion): readers ignore the MDT deltacommit until T
 * completes on the data timeline, and never re-sync a data commit the MDT
 * lacks (§5 "Order of operations", "A stale MDT").
 *
 * Per commit, one new log file per touched MDT file group,
 * `.<fileId>_<T>.log.1_<token>` holding:
 *   files-0000-0: one HFILE_DATA block with `__all_partitions__` (type 1:
 *     every partition this commit wrote, {0,false}) and one type-2 record per
 *     touched partition (files added with their sizes, deleted files with
 *     isDeleted=true); map entries in Java HashMap iteration order, as
 *     Hudi's Collectors.toMap leaves them, so the bytes match Spark's;
 *   record-index-NNNN-0: an HFILE_DATA block of type-5 records for keys
 *     inserted or moved to another file group, and/or a DELETE block of the
 *     shard's deleted keys ({key, "record_index", IntWrapper 0}), as Hudi
 *     1.1 writes them. Updates inside one file group are not passed here
 *     (Hudi writes no RLI record for them).
 * Block headers are SCHEMA then INSTANT_TIME, as in the fixtures. The MDT
 * timeline gets T.deltacommit.requested (empty), T.deltacommit.inflight
 * (an UPSERT_PREPPED commit metadata without stats, as Spark writes it)
 * and T_<c>.deltacommit with one write stat per log file.
 *
 * Compaction and cleaning of the MDT are mdt_compact.h and mdt_clean.h
 * (the writes run them after each commit). Not done: MDT archiving,
 * markers for the MDT log files. */
#ifndef HUDI_TABLE_MDT_WRITE_H
#define HUDI_TABLE_MDT_WRITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/instant.h"
#include "io/storage.h"

/* Hudi's default is 1 MiB (hoodie.hfile.block.size). Ours is 4 KiB so a
 * record-index lookup of k keys inflates about k blocks of 4 KiB plus the
 * index blocks above them (the index goes multi-level, HBase's layout, once
 * its root outgrows one block), not the whole shard; and it stays far under
 * the 64 KiB bound that keeps clear of the reader quirks of §3.9. Chosen by
 * bench/hfile_bench.c: 1M RLI-shaped entries, 1000 keys: 64 KiB 215 ms,
 * 16 KiB 76 ms, 8 KiB 44 ms, 4 KiB 34 ms of CPU. */
#define HUDI_MDT_DEFAULT_HFILE_BLOCK_SIZE ((size_t)4 * 1024)
#define HUDI_MDT_HUDI_HFILE_BLOCK_SIZE ((size_t)1024 * 1024)
/* HoodieMetadataConfig record.index.min.filegroup.count. */
#define HUDI_MDT_DEFAULT_RLI_SHARDS 10
#define HUDI_MDT_MAX_RLI_SHARDS 10000
/* The write token of our MDT log files (\d+-\d+-\d+; the init files use
 * 0-0-0 as Hudi does). */
#define HUDI_MDT_WRITE_TOKEN "1-0-1"

typedef struct hudi_mdt_write_options {
  /* 8 or 9 (the data table's). 0: init writes 8; a commit takes the
   * MDT's own hoodie.table.version. */
  int table_version;
  size_t hfile_block_size;     /* 0 = HUDI_MDT_DEFAULT_HFILE_BLOCK_SIZE */
  /* init: the number of record_index shards (0 = 10; -1 = no record
   * index). commit: 0 = as many as .hoodie/metadata/record_index holds
   * (readers use the count present); -1 = the table has no record index
   * (key changes are then ignored). */
  int32_t record_index_shards;
  /* init only: the data table's hoodie.table.name and
   * hoodie.database.name (NULL or "" = none). */
  const char *table_name;
  const char *database_name;
  /* Tests: hfile.CREATE_TIME_TS (-1 = now) and the completion time of the
   * MDT instants (NULL = generated, greater than T and every time given). */
  int64_t hfile_create_time_ms;
  const char *completion_time;
  /* The timeline zone's offset from UTC in minutes: record-index
   * instantTime is T read in hoodie.table.timeline.timezone (0 = UTC, what
   * hudi-c writes; Spark's default LOCAL zone gives other offsets). */
  int32_t timeline_utc_offset_minutes;
  /* commit only: column_stats / partition_stats records of the commit
   * (types 3 and 6, built by mdt_column_stats.h), written as one
   * HFILE_DATA log file per touched file group. */
  struct hudi_mdt_record *const *index_records;
  size_t n_index_records;
  /* commit only: secondary-index entries to add and remove (NULL: none),
   * one log file per touched file group (mdt_secondary_index.h). */
  const struct hudi_si_changes *si_changes;
  /* HFile GZ blocks deflated by zlib level 6, byte for byte what Hudi's
   * Java writer produces (fixture comparisons); false: libdeflate, several
   * times faster (hudi_hfile_writer_options.java_exact_bytes). */
  bool hfile_java_exact_bytes;
  /* hudi_hfile_writer_options.compress_threads of every HFile written
   * (0 = auto); callers writing several HFiles at once on the cores set 1. */
  int hfile_compress_threads;
  /* commit only: table_version is the MDT's own, taken from its
   * hoodie.properties by the caller's handle (mdt_reader.h
   * hudi_mdt_shared_table): the commit does not read them again. */
  bool table_version_known;
  /* commit only: the commit as hudi_mdt_begin began it, from this same
   * input (NULL: not begun). */
  struct hudi_mdt_begun *begun;
  /* begin only (or NULL): once set, hudi_mdt_begin writes nothing more
   * and fails with HUDI_ERR_CANCELLED (the data files it runs beside have
   * failed). */
  const atomic_bool *cancel;
  /* commit only: a record-index shard that holds no key yet (no base
   * file; its only logs are the initialisation's empty ones) and takes
   * only new keys gets them as its base HFile
   * <fileId>_<token>_<T>.hfile, the file Java's metadata initialisation
   * (bulkCommit) writes for the keys an index starts with, rather than
   * a log block as Java's commits write. The shard's first compaction
   * then copies every block no later commit changed (mdt_compact.h);
   * from a log block it re-encodes all of them. false: a log block. */
  bool rli_base_files;
  /* init only: the file groups of the column_stats and partition_stats
   * partitions to create (0 = no such partition; Hudi's defaults are 2
   * and 1). */
  int32_t column_stats_groups;
  int32_t partition_stats_groups;
  /* commit only (or NULL): the record-index instantTime (epoch ms, in
   * the timeline zone as T's) of the keys going to file group file_id of
   * partition, instead of T's: a metadata bootstrap (mdt_bootstrap.h)
   * indexes each existing file group at its slice's base instant. Asked
   * once per distinct file_id pointer of the changes (the values are
   * cached by that pointer), from the shards' threads. */
  int64_t (*rli_instant_ms)(const void *ctx, const char *partition, const char *file_id);
  const void *rli_instant_ctx;
} hudi_mdt_write_options;

#define HUDI_MDT_WRITE_OPTIONS_INIT \
  {0, 0, 0, NULL, NULL, -1, NULL, 0, NULL, 0, NULL, false, 0, false, NULL, NULL, false, 0, 0, NULL, NULL}

/* hudi-c's own key for rli_base_files (an option of the table handle:
 * given when the table is created or opened; default true, anything but
 * true or false refused before a write starts). */
#define HUDI_MDT_RLI_BASE_FILES_OPTION "hoodie.metadata.record.index.initial.base.files"

/* A file of the data table added or deleted by the commit. */
typedef struct hudi_mdt_file_change {
  const char *partition; /* relative partition path; "" when non-partitioned */
  const char *name;      /* file name, no directory */
  int64_t size;          /* bytes; > 0 unless deleted */
  bool deleted;          /* removed by clean or rollback */
} hudi_mdt_file_change;

/* A record-index change: the key now lives in (partition, file_id) of the
 * commit, or is deleted when file_id is NULL. A key may appear at most
 * once, except that a delete and an insert of the same key (a key moving
 * between partitions) resolve to the insert, as Hudi's reduce by key. */
typedef struct hudi_mdt_key_change {
  const char *key;
  size_t key_len;
  const char *partition; /* "" when non-partitioned; ignored for a delete */
  const char *file_id;   /* NULL: the key was deleted */
} hudi_mdt_key_change;

/* Change i of a key source (see below) into *out. */
typedef void (*hudi_mdt_key_at_fn)(const void *ctx, size_t i, hudi_mdt_key_change *out);

typedef struct hudi_mdt_commit_input {
  const char *instant; /* T, the data commit's requested time (17 digits, UTC) */
  const hudi_mdt_file_change *files;
  size_t n_files;
  const hudi_mdt_key_change *keys;
  size_t n_keys;
  /* With keys NULL, the n_keys changes are key_at(key_ctx, i, ...)
   * instead, called from several threads at once and more than once for
   * the same i (the shard count sizes the key arena from one call, the
   * scatter copies from another), so it must give the same change every
   * time: a bulk insert hands its rows over without an array of changes
   * (10M keys: 320 MB of fresh pages). The strings it returns must
   * outlive the commit. */
  hudi_mdt_key_at_fn key_at;
  const void *key_ctx;
} hudi_mdt_commit_input;

/* What a commit wrote. */
typedef struct hudi_mdt_commit_result {
  char completion_time[HUDI_INSTANT_TIME_BUF]; /* of the MDT deltacommit T */
  size_t log_files;       /* MDT log files written */
  size_t base_files;      /* record-index base files written (rli_base_files) */
  uint64_t bytes_written; /* their bytes */
  size_t rli_upserts, rli_deletes;
  int table_version;      /* the MDT's, as given or read from its hoodie.properties */
} hudi_mdt_commit_result;

/* Writes MDT deltacommit T for a data commit (see above) through s, the
 * data table's storage (paths relative to its base). Fails with
 * HUDI_ERR_NOT_FOUND when the MDT is missing, HUDI_ERR_INVALID_ARG for a
 * bad instant, key or file entry (nothing is written then, unless the
 * commit was begun: see hudi_mdt_begin), and HUDI_ERR_CONFLICT when T
 * already exists on the MDT timeline. result may be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_commit(hudi_storage *s, const hudi_mdt_write_options *opts,
                                           const hudi_mdt_commit_input *in, hudi_mdt_commit_result *result,
                                           hudi_error *err);

/* A commit in two steps, for a bulk insert that overlaps the record
 * index with its data files (the index needs only the keys and the file
 * groups they go to, which the insert fixes before writing any file):
 * hudi_mdt_begin validates, hashes and sorts in's keys (a bad key fails
 * here, with nothing written), then starts MDT deltacommit T (requested,
 * inflight) and writes each record-index shard's log (in->files must be
 * valid but are not written here). hudi_mdt_commit, given the result as
 * opts->begun with the same instant and keys, then writes the files
 * partition (the data files' sizes are known by then) and any
 * column-stats or secondary-index logs, lists the shard logs and
 * completes T. Between the two, T is inflight on the MDT: a failure or
 * crash from then on (in the begin, the data files or the commit) leaves
 * T to the data instant's rollback, as a crash inside hudi_mdt_commit
 * does. Spark's writer starts its MDT deltacommit only after the data
 * files; readers and rollback see the same states either way. */
typedef struct hudi_mdt_begun hudi_mdt_begun;
HUDI_NODISCARD hudi_status hudi_mdt_begin(hudi_mdt_begun **out, hudi_storage *s, const hudi_mdt_write_options *opts,
                                          const hudi_mdt_commit_input *in, hudi_error *err);
void hudi_mdt_begun_free(hudi_mdt_begun *b);

#endif
