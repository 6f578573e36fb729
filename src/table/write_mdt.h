/* The write client's side of the metadata table (MDT): checking that a
 * table's MDT is one hudi-c keeps current, and recording each data commit
 * in it (hudi-metadata-table.md §5 "Order of operations").
 *
 * A write to a table with an MDT goes:
 *   T.requested, T.inflight, data files
 *   -> hudi_write_mdt_update (MDT deltacommit T: `files` gets the commit's
 *      files, `record_index` its key changes)
 *   -> T_<c>.<action> on the data timeline with c > the MDT's completion
 *      time (the generator passed in observes it).
 * Readers ignore the MDT deltacommit until T completes on the data
 * timeline, so a crash in between leaves the table as it was. */
#ifndef HUDI_TABLE_WRITE_MDT_H
#define HUDI_TABLE_WRITE_MDT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/instant.h"
#include "table/commit_metadata.h"
#include "table/mdt_write.h"
#include "table/table.h"
#include "table/write_rows.h"

/* Whether t has an MDT (hoodie.table.metadata.partitions non-empty). */
bool hudi_write_mdt_enabled(const hudi_table *t);

/* Whether t's MDT has a record_index partition. */
bool hudi_write_mdt_has_record_index(const hudi_table *t);

/* HUDI_OK when t has no MDT or an MDT whose partitions are all ones
 * hudi-c maintains (files, record_index) and none is being built
 * (hoodie.table.metadata.partitions.inflight empty). Otherwise
 * HUDI_ERR_UNSUPPORTED naming the partitions: a write that left
 * column_stats, partition_stats, bloom_filters, expression or secondary
 * indexes stale would make Spark prune or look up wrongly. Partitions the
 * write's options (opts, else the handle's) drop before it writes
 * (mdt_drop.h) are not checked. */
HUDI_NODISCARD hudi_status hudi_write_mdt_check(const hudi_table *t, const hudi_option *opts, size_t n_opts,
                                                hudi_error *err);

/* The MDT options of a write (opts, else the table handle's): the values
 * of hudi-c's own HUDI_MDT_RLI_BASE_FILES_OPTION are true and false;
 * anything else is HUDI_ERR_INVALID_ARG naming it. Every write checks its
 * options before it begins (hudi_write_begin). */
HUDI_NODISCARD hudi_status hudi_write_mdt_check_options(const hudi_table *t, const hudi_option *opts, size_t n,
                                                        hudi_error *err);

/* Records data commit `instant` in t's MDT, with the write's options
 * opts[0..n_opts) (may be NULL; the table handle's apply where a key is
 * not there): every write stat of meta is a
 * file added with its fileSizeInBytes (base files, and log files with
 * their size after the append), deleted[0..n_deleted) (may be NULL) are
 * files removed, keys the record-index changes (ignored without a record
 * index). gen (the generator of the data commit's completion time)
 * observes the MDT's completion time, so the data instant completes
 * after it. A no-op when t has no MDT. */
HUDI_NODISCARD hudi_status hudi_write_mdt_update(hudi_table *t, const hudi_option *opts, size_t n_opts,
                                                 const char *instant, const hudi_commit_metadata *meta,
                                                 const hudi_mdt_file_change *deleted, size_t n_deleted,
                                                 const hudi_mdt_key_change *keys, size_t n_keys, hudi_instant_gen *gen,
                                                 hudi_error *err);

/* Before anything is written: a bulk insert into a table with a record
 * index must not hold a record key twice (the index maps a key to one
 * file group); HUDI_ERR_INVALID_ARG naming the key otherwise. */
HUDI_NODISCARD hudi_status hudi_write_mdt_check_rows(const hudi_table *t, const hudi_write_rows *rows,
                                                     hudi_error *err);
/* The same over a key list (an append's segments together). */
HUDI_NODISCARD hudi_status hudi_write_mdt_check_keys(const hudi_table *t, const hudi_mdt_key_change *keys, size_t n,
                                                     hudi_error *err);

/* The rows of one written file: from its first row (in the rows' write
 * order) up to the next span's, in partition and file group file_id. */
typedef struct hudi_write_file_span {
  size_t from;
  const char *partition, *file_id;
} hudi_write_file_span;

/* A bulk insert's record index, on a thread of its own (with the cores'
 * help) while the insert writes its files: hudi_mdt_begin (mdt_write.h)
 * starts the MDT deltacommit and writes the record-index logs, which need
 * only the keys and the file groups they go to, fixed by the insert's plan
 * before any file is written (10M uuid keys: ~7 CPU s that used to follow
 * the files' ~10). t's MDT must have passed hudi_write_mdt_check. *out
 * is NULL when there is nothing to do (no record index) or no thread could
 * be started: the commit then does it all itself. rows (and the
 * partitions, strings of rows) must outlive it; the spans and their file
 * ids are copied. It runs for every such insert, however small, so the
 * crash tests cover it; a bad key fails it before the MDT is touched. */
#define HUDI_WRITE_FILE_ID_BUF 64
typedef struct hudi_write_mdt_bulk_rli hudi_write_mdt_bulk_rli;
HUDI_NODISCARD hudi_status hudi_write_mdt_bulk_rli_start(hudi_write_mdt_bulk_rli **out, hudi_table *t,
                                                         const hudi_option *opts, size_t n_opts,
                                                         const char *instant, const hudi_write_rows *rows,
                                                         const hudi_write_file_span *spans, size_t n_spans,
                                                         hudi_error *err);
/* The files failed: the thread writes nothing more (what it wrote stays
 * for the rollback of the failed write). NULL is a no-op. */
void hudi_write_mdt_bulk_rli_cancel(hudi_write_mdt_bulk_rli *b);
/* Waits for the thread (if running) and frees it all. NULL is a no-op. */
void hudi_write_mdt_bulk_rli_free(hudi_write_mdt_bulk_rli *b);

/* hudi_write_mdt_update for a bulk insert: the record-index changes are
 * every row of rows -> the file group the commit wrote it to. The files of
 * meta must hold rows' sorted order: partitions in order, each stat
 * num_writes consecutive rows (as hudi_table_append writes them); anything
 * else is HUDI_ERR_INTERNAL and nothing is written. rli (or NULL): the
 * MDT commit begun during the writes, for exactly those files; its
 * failure is this call's (a bad key: nothing written). Once it has begun
 * T on the MDT, any failure leaves T inflight there for the data
 * instant's rollback (hudi_mdt_begin). */
HUDI_NODISCARD hudi_status hudi_write_mdt_bulk_insert(hudi_table *t, const hudi_option *opts, size_t n_opts,
                                                      const char *instant, const hudi_commit_metadata *meta,
                                                      const hudi_write_rows *rows, hudi_write_mdt_bulk_rli *rli,
                                                      hudi_instant_gen *gen, hudi_error *err);
/* The same with the record-index changes given: each key -> the file
 * group (partition, file id) the commit wrote it to. */
HUDI_NODISCARD hudi_status hudi_write_mdt_bulk_insert_keys(hudi_table *t, const hudi_option *opts,
                                                           size_t n_opts, const char *instant,
                                                           const hudi_commit_metadata *meta,
                                                           const hudi_mdt_key_change *keys, size_t n,
                                                           hudi_instant_gen *gen, hudi_error *err);

#endif
