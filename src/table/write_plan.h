/* How a bulk insert (hudi_table_append) splits a partition's sorted rows
 * into base files.
 *
 * The rule (Apache Hudi sizes a bulk-insert file by what it has written:
 * HoodieBaseParquetWriter.canWrite, compressed data so far below
 * hoodie.parquet.max.file.size; the footer is not counted):
 *   - estimate the partition's compressed data bytes: encode a sample of
 *     its first rows (up to HUDI_WRITE_PLAN_SAMPLE_ROWS rows or about
 *     HUDI_WRITE_PLAN_SAMPLE_BYTES of in-memory data) with the write's own
 *     Parquet options into memory and scale its column-chunk bytes per row
 *     to the partition's row count;
 *   - files = ceil(estimate / max.file.size), rows split evenly.
 * Evenly sized files of ceil(total / max) are the largest files that stay
 * under the maximum, so when a partition holds at least
 * hoodie.parquet.small.file.limit of data no file falls under the limit
 * unless every split under the maximum has one (e.g. 780 MB with max
 * 120 MB, limit 100 MB: 7 files of ~111 MB). A later upsert's small-file
 * rule then leaves the bulk-load files alone.
 *   - When even files would all fall under hoodie.parquet.small.file.limit,
 *     or within HUDI_WRITE_PLAN_LIMIT_MARGIN of it (a partition between one
 *     and about five maximum sizes can have no split whose files all lie
 *     between the limit and the maximum, e.g. 150 MB -> 2 x 75 MB), the
 *     files are filled as Java fills them instead:
 *     all but the last at HUDI_WRITE_PLAN_FILL of the maximum, the last
 *     holding the rest, so one small file (the smallest possible) is left
 *     for later inserts to grow instead of every file.
 *   - No sample when the in-memory estimate of the whole partition already
 *     fits one file (compressed Parquet is smaller): one file, as before.
 * The decision depends only on the rows and options, so file order and
 * task numbers stay deterministic. */
#ifndef HUDI_TABLE_WRITE_PLAN_H
#define HUDI_TABLE_WRITE_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* Files written at once by default (hoodie.bulkinsert.shuffle.parallelism
 * overrides; capped by the cores and the files): each writer holds its
 * open row group's compressed column chunks. */
#define HUDI_WRITE_DEFAULT_BULK_THREADS 2

#define HUDI_WRITE_PLAN_SAMPLE_ROWS 65536
#define HUDI_WRITE_PLAN_SAMPLE_BYTES ((int64_t)8 << 20)
/* Fewer sample rows than this only when the partition is smaller. */
#define HUDI_WRITE_PLAN_SAMPLE_MIN_ROWS 1024

/* Rows to sample from a partition of n rows whose in-memory size is about
 * mem_per_row bytes a row; 0: no sample needed (the partition is one file). */
size_t hudi_write_plan_sample_rows(size_t n, int64_t mem_per_row, int64_t max_file_size);

/* The partition's estimated compressed data bytes, from a sample of
 * sample_rows rows that encoded to sample_bytes column-chunk bytes. */
int64_t hudi_write_plan_estimate(size_t n, size_t sample_rows, int64_t sample_bytes);

/* Files for a partition of n rows with estimated_bytes of data: at least
 * 1, at most n. */
size_t hudi_write_plan_files(size_t n, int64_t estimated_bytes, int64_t max_file_size);

/* Files filled to this share of the maximum leave room for the estimate's
 * error (within ~2% on uuid and rag data). */
#define HUDI_WRITE_PLAN_FILL 0.97
/* Even files count as small below the limit times this: the estimate can
 * be a few percent high (10M uuid rows at zstd level 1: 534.9 MB estimated,
 * 519.3 MB written, five "107 MB" files written at 103.9 MB under a
 * 104.9 MB limit). */
#define HUDI_WRITE_PLAN_LIMIT_MARGIN 1.03

/* A partition's files: `files` of them; full_rows == 0: rows split evenly,
 * else every file but the last holds full_rows rows. */
typedef struct hudi_write_plan_layout {
  size_t files, full_rows;
} hudi_write_plan_layout;

/* The layout of a partition of n rows with estimated_bytes of data (see
 * the rule above); small_file_limit <= 0 means no limit. */
hudi_write_plan_layout hudi_write_plan_layout_for(size_t n, int64_t estimated_bytes, int64_t max_file_size,
                                                  int64_t small_file_limit);

/* The first row (relative to the partition) of file f of `files`: file f
 * holds rows [start(f), start(f + 1)). */
static inline size_t hudi_write_plan_file_start(size_t n, size_t files, size_t f) {
  return n * f / files; /* n * f < n * n: no overflow for rows held in memory */
}

/* The first row of file f under a layout (f == files: n). */
static inline size_t hudi_write_plan_layout_start(const hudi_write_plan_layout *l, size_t n, size_t f) {
  if (l->full_rows == 0) return hudi_write_plan_file_start(n, l->files, f);
  return f >= l->files ? n : f * l->full_rows;
}

#endif
