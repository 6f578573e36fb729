/* The keyed write engine behind upsert, update, delete and delete_keys
 * (hudi-write-semantics.md): evolve the schema (write_schema.h), dedupe the
 * incoming records by key, look the keys up in the index, then per touched
 * file group either rewrite its base file (COPY_ON_WRITE) or append one log
 * file with a data block and a delete block (MERGE_ON_READ). New keys of an
 * upsert first fill the partition's small file groups (§4: base file under
 * hoodie.parquet.small.file.limit, default 100 MiB, each up to
 * hoodie.parquet.max.file.size at the average record size of the latest
 * large commit, else hoodie.copyonwrite.record.size.estimate; on
 * MERGE_ON_READ only slices without log files, smallest first, at most
 * hoodie.merge.small.file.group.candidates.limit per partition, and such a
 * slice is rewritten like COPY_ON_WRITE); the rest go to new base files.
 * No small file is chosen while a clustering or replace is pending.
 * Committed with the protocol of hudi-format-core.md §6 as one instant. */
#ifndef HUDI_TABLE_MERGE_WRITE_H
#define HUDI_TABLE_MERGE_WRITE_H

#include <stddef.h>

#include "base/error.h"
#include "hudi/write.h"
#include "table/write_rows.h"

typedef struct hudi_merge_input {
  /* Rows to upsert (loaded and sorted by hudi_write_rows_load), or NULL.
   * Borrowed. */
  hudi_write_rows *rows;
  /* Record keys to delete (wherever they are), or none. */
  const char *const *del_keys;
  const size_t *del_lens;
  size_t n_del;
  const char *operation; /* "UPSERT", "DELETE", "INSERT_OVERWRITE", "INSERT_OVERWRITE_TABLE" */
  /* HUDI_MERGE_UPSERT: keyed (index lookup). The overwrites skip the index:
   * the rows go into new file groups and a replacecommit replaces every
   * latest file group of the partitions the rows touch
   * (HUDI_MERGE_OVERWRITE_PARTITIONS) or of the whole table
   * (HUDI_MERGE_OVERWRITE_TABLE; no rows empties the table). */
  int mode;
} hudi_merge_input;

#define HUDI_MERGE_UPSERT 0
#define HUDI_MERGE_OVERWRITE_PARTITIONS 1
#define HUDI_MERGE_OVERWRITE_TABLE 2

/* Runs the write. res is filled (requested_time "" when nothing changed:
 * then nothing is committed). The table must pass hudi_write_check_table_mdt. */
HUDI_NODISCARD hudi_status hudi_merge_write(hudi_write_result *res, hudi_table *t, const hudi_merge_input *in,
                                            const hudi_option *opts, size_t n_opts, hudi_error *err);

#endif
