/* hudi-c: reading Hudi tables into Arrow.
 *
 *   hudi_option opts[] = {{"hoodie.read.as.of.timestamp", "20240418173551906"}};
 *   hudi_read_filter f[] = {{"city", "=", "sf"}};
 *   hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
 *   ro.options = opts; ro.n_options = 1;
 *   ro.filters = f; ro.n_filters = 1;
 *   struct ArrowArrayStream s;
 *   if (hudi_table_read(&s, table, &ro, &err) == HUDI_OK) { ...; s.release(&s); }
 *
 * Options are named as hudi-rs names them:
 *   hoodie.read.query.type              snapshot (default) | incremental
 *   hoodie.read.as.of.timestamp         snapshot as of this instant (time travel)
 *   hoodie.read.start.timestamp         incremental: exclusive start (default: the beginning)
 *   hoodie.read.end.timestamp           incremental: inclusive end (default: latest commit)
 *   hoodie.read.use.read_optimized.mode true: base files only (MOR)
 *   hoodie.read.stream.batch_size       rows per batch (default 1024 * 8)
 *   hoodie.read.input.partitions        accepted; reads are planned per file slice
 *   hoodie.read.parallelism             hudi-c: file slices read at once (default: cores, at
 *                                       most 4; 1 = serial). The stream's batches come in
 *                                       file-slice order whatever the value; up to
 *                                       parallelism + 1 slices' rows are held in memory.
 *   hoodie.metadata.enable              true (default): the file listing comes from the
 *                                       metadata table's files partition when the table has
 *                                       one (version 8+) and it holds the latest data
 *                                       instant; otherwise storage is listed. false: list.
 *   hoodie.enable.data.skipping         true (default): with filters, skip file slices whose
 *                                       metadata-table column_stats ranges rule them out
 *                                       (before Parquet footer pruning); false: do not.
 * Timestamps are Hudi instants (yyyyMMddHHmmss[SSS]), epoch seconds to
 * nanoseconds, or RFC 3339 with an offset. Time travel compares requested
 * instant times, as hudi-rs does. Incremental queries follow Apache Hudi
 * 1.x (Spark's hoodie.datasource.read.begin/end.instanttime): on timeline
 * layout 2 (table version 8+) start and end bound *completion* times, on
 * layout 1 requested times; the result is the table as of end, restricted
 * to rows whose _hoodie_commit_time is the requested time of a write that
 * completed in (start, end]. Tables without meta fields cannot be read
 * incrementally (HUDI_ERR_UNSUPPORTED, as in Java). */
#ifndef HUDI_READ_H
#define HUDI_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "hudi/arrow_abi.h"
#include "hudi/common.h"
#include "hudi/error.h"
#include "hudi/table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A hudi-rs filter tuple: op is = != < <= > >= IN or NOT IN; value is cast
 * to the column's type; IN lists are comma-separated ("\," escapes). */
typedef struct hudi_read_filter {
  const char *field;
  const char *op;
  const char *value;
} hudi_read_filter;

typedef struct hudi_read_options {
  const hudi_option *options; /* hoodie.read.* options (above) */
  size_t n_options;
  const hudi_read_filter *filters; /* ANDed */
  size_t n_filters;
  const char *filter_sql; /* a SQL predicate (ANDed with the tuples); NULL for none */
  const char *const *projection; /* columns to return, in this order; NULL for all */
  size_t n_projection;
} hudi_read_options;

#define HUDI_READ_OPTIONS_INIT {NULL, 0, NULL, 0, NULL, NULL, 0}

/* The table's schema as Arrow: from the latest completed write's commit
 * metadata (not compaction/clustering), else a base file, else
 * hoodie.table.create.schema. With meta fields, the five _hoodie_* columns
 * (string) come first. HUDI_ERR_NOT_FOUND when none of those exists. */
HUDI_EXTERN hudi_status hudi_table_get_schema(struct ArrowSchema *out, hudi_table *table,
                                              bool with_meta_fields, hudi_error *err);

/* Reads the table: a stream of record batches (struct arrays) in file-slice
 * order, one file slice held in memory at a time. opts may be NULL. Option,
 * filter and timestamp errors are reported here (HUDI_ERR_INVALID_ARG);
 * data errors through the stream's get_last_error. */
HUDI_EXTERN hudi_status hudi_table_read(struct ArrowArrayStream *out, hudi_table *table,
                                        const hudi_read_options *opts, hudi_error *err);

/* The file slices a read with opts would read (after partition pruning). */
typedef struct hudi_file_slice_info {
  const char *partition;   /* "" for a non-partitioned table */
  const char *file_id;
  const char *base_instant;
  const char *base_file;   /* path relative to the table, or NULL */
  size_t n_log_files;
  const char *const *log_files; /* paths relative to the table */
} hudi_file_slice_info;

typedef struct hudi_file_slice_list hudi_file_slice_list;

HUDI_EXTERN hudi_status hudi_table_file_slices(hudi_file_slice_list **out, hudi_table *table,
                                               const hudi_read_options *opts, hudi_error *err);
HUDI_EXTERN size_t hudi_file_slice_list_count(const hudi_file_slice_list *l);
HUDI_EXTERN void hudi_file_slice_list_at(const hudi_file_slice_list *l, size_t i, hudi_file_slice_info *out);
HUDI_EXTERN void hudi_file_slice_list_free(hudi_file_slice_list *l);

/* Reads one slice of the list (i) with the same options: the merged rows of
 * that file slice only. */
HUDI_EXTERN hudi_status hudi_table_read_file_slice(struct ArrowArrayStream *out, hudi_table *table,
                                                   const hudi_file_slice_list *l, size_t i,
                                                   hudi_error *err);

/* Reads one file group: the file slice a read with opts would read for
 * (partition, file_id) -- "" is the partition of a non-partitioned table --
 * merged, filtered and projected as hudi_table_read would. Plans the read
 * (lists the table) on every call. HUDI_ERR_NOT_FOUND when the read has no
 * such file slice (unknown group, pruned by a filter, replaced, or no
 * change in an incremental range). */
HUDI_EXTERN hudi_status hudi_table_read_file_group(struct ArrowArrayStream *out, hudi_table *table,
                                                   const hudi_read_options *opts, const char *partition,
                                                   const char *file_id, hudi_error *err);

/* Reads the file slice made of these files (paths relative to the table;
 * base_file NULL or "" for a slice of log files only; log files in Hudi's
 * order), as hudi-rs's FileGroupReader::read_file_slice_from_paths: the
 * base file's rows merged with the log files' under the table's merge
 * mode, then filtered and projected by opts. The read is planned with opts
 * (schemas, as-of / incremental range, read-optimized: the base file only)
 * and lists the table once; the slice itself need not be in the view.
 * Errors in the files come through the stream's get_last_error. */
HUDI_EXTERN hudi_status hudi_table_read_file_slice_paths(struct ArrowArrayStream *out, hudi_table *table,
                                                         const hudi_read_options *opts, const char *base_file,
                                                         const char *const *log_files, size_t n_log_files,
                                                         hudi_error *err);

/* Estimated size of a snapshot read of the whole table, for query planning
 * (hudi-rs's Table::compute_table_stats, same numbers): the on-disk sizes
 * of the live Parquet files in the metadata table's `files` partition
 * (every file slice not yet cleaned, filters ignored), scaled by one
 * sampled base file's footer: rows = size / (compressed bytes / rows),
 * bytes = size * (uncompressed / compressed bytes). The sample is the
 * smallest base-file path written by the latest completed commit,
 * deltacommit or replacecommit that wrote one. Not available (available =
 * false, reason says why; the call still returns HUDI_OK) for incremental
 * queries (opts' hoodie.read.query.type), tables before version 8 or
 * without a readable `files` partition (no listing fallback: it would cost
 * a read), a non-Parquet base file format, no Parquet file, or a sample
 * whose footer cannot be read. Only opts' hoodie.read.query.type is used;
 * opts may be NULL. */
typedef struct hudi_table_stats {
  bool available;
  uint64_t num_rows;  /* estimated rows */
  uint64_t byte_size; /* estimated uncompressed bytes */
  char reason[256];   /* when not available */
} hudi_table_stats;

HUDI_EXTERN hudi_status hudi_table_compute_stats(hudi_table_stats *out, hudi_table *table,
                                                 const hudi_read_options *opts, hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
