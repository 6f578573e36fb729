/* Copying a write's rows (hudi_write_rows, in the order of their sort)
 * into a base file's batch builder a chunk at a time, one column at a time:
 * the five meta columns, then each data column lent, copied run by run or
 * gathered with the input prefetched ahead. The rows come in key order, not
 * in the order they are stored, so a copy row by row misses the cache on
 * nearly every value of every column; a column at a time keeps one
 * column's values and the gather's indexes in the cache.
 * Used by bulk inserts (write.c) and by the new rows of keyed writes
 * (merge_write.c: inserts into new and small files). */
#ifndef HUDI_TABLE_WRITE_GATHER_H
#define HUDI_TABLE_WRITE_GATHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/builder.h"
#include "base/error.h"
#include "table/write_rows.h"

/* Rows per chunk: per Arrow batch handed to the Parquet writer. */
#define HUDI_GATHER_ROWS 8192

/* Scratch for one chunk; after hudi_gather_rows, keys/key_lens hold the
 * chunk's record keys (for the bloom filter). */
typedef struct hudi_gather {
  const hudi_arrow_view **views; /* the current column of each row's batch */
  int64_t *rows;                 /* the row's index in that column */
  const hudi_arrow_view **batch; /* each row's batch */
  const char **keys;             /* the chunk's record keys */
  size_t *key_lens;
  const char **seqs;             /* the chunk's _hoodie_commit_seqno values, in seq_text */
  size_t *seq_lens;
  char *seq_text;
  size_t *run_at;                /* where each run of consecutive rows of one batch starts */
} hudi_gather;

HUDI_NODISCARD hudi_status hudi_gather_init(hudi_gather *g, hudi_error *err);
void hudi_gather_free(hudi_gather *g);

/* What the rows of one file share: the meta values of the commit and the
 * file, and which data columns copy as they are (same[k]; the others go
 * through hudi_write_append_converted). */
typedef struct hudi_gather_file {
  const hudi_write_rows *rows;
  const bool *same;
  int64_t n_cols; /* data columns, after the five meta columns */
  const char *instant;
  int task;
  const char *partition;
  const char *file_name;
} hudi_gather_file;

/* Appends m <= HUDI_GATHER_ROWS ordered rows to bb: rows idx[j] of f->rows
 * (idx NULL: rows a + j), their sequence numbers seq0 + j
 * ("<instant>_<task>_<n>"). Ends the rows. */
HUDI_NODISCARD hudi_status hudi_gather_rows(hudi_gather *g, hudi_arrow_batch_builder *bb, const hudi_gather_file *f,
                                            const size_t *idx, size_t a, size_t m, uint64_t seq0, hudi_error *err);

#endif
