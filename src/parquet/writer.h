/* Parquet file writer over Arrow record batches.
 *
 *   hudi_pq_writer *w;
 *   hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
 *   hudi_pq_writer_open_storage(&w, schema, &o, storage, "p/f.parquet", &err);
 *   hudi_pq_writer_write_batch(w, batch, 0, &err);       // any number of times
 *   hudi_pq_writer_add_metadata(w, "hoodie_min_record_key", v, n, &err);
 *   hudi_pq_writer_close(w, &summary, &err);             // footer, then the file appears
 *   hudi_pq_writer_free(w);
 *
 * Memory: the rows of the row group being written are held encoded and
 * compressed (one column chunk buffer per leaf column) until the row group
 * is complete, then appended to the output. A batch that covers a whole row
 * group (or, with HUDI_PQ_WRITE_LAST, the rest of the file) is written
 * column by column, so only one compressed column chunk is held at a time
 * (what pyarrow's write_table holds). Output to the local backend streams
 * into a temporary file beside the target, renamed into place by close;
 * other backends and hudi_pq_writer_open_buf hold the whole file. */
#ifndef HUDI_PARQUET_WRITER_H
#define HUDI_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/view.h"
#include "base/buf.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"
#include "io/storage.h"
#include "parquet/arrow_to_parquet.h"
#include "parquet/metadata.h"

typedef struct hudi_pq_writer_options {
  int64_t row_group_rows;        /* rows per row group (pyarrow: 1Mi) */
  int64_t row_group_bytes;       /* also close a row group once its encoded chunks reach this (0: no limit) */
  int64_t page_bytes;            /* target size of a data page (1 MiB): its levels plus its values'
                                    PLAIN size, dictionary-encoded pages too, as parquet-java counts */
  int64_t dictionary_page_bytes; /* a dictionary past this falls back to PLAIN (pyarrow: 1 MiB) */
  bool dictionary;               /* dictionary-encode columns (all but BOOLEAN) where it pays: a
                                    chunk whose first page does not shrink is PLAIN (writer_column.h) */
  bool data_page_v2;             /* DataPageHeaderV2 instead of v1 */
  bool statistics;               /* min/max/null_count per column chunk */
  hudi_pq_codec codec;           /* UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW */
  hudi_pq_schema_options schema;
  const char *created_by;        /* NULL: "hudi-c version <v>" */
  int codec_level;               /* data pages' compression level; 0: the codec's default (ZSTD 3,
                                    as zstd's and parquet-java's); GZIP ignores it */
  int encode_threads;            /* threads that encode a batch's columns: 0 or 1 the writing thread
                                    alone; n (<= 16) it and n - 1 helpers, each taking the next
                                    column (a file written alone then uses the idle cores). The
                                    file's bytes do not depend on it. */
} hudi_pq_writer_options;

#define HUDI_PQ_WRITER_OPTIONS_INIT                                                                      \
  {(int64_t)1 << 20, 0, (int64_t)1 << 20, (int64_t)1 << 20, true, false, true, HUDI_PQ_CODEC_SNAPPY, \
   HUDI_PQ_SCHEMA_OPTIONS_INIT, NULL, 0, 0}

typedef struct hudi_pq_writer hudi_pq_writer;

/* encode_threads for each of `files` files written at once by as many
 * threads: the cores left over shared out among them, 1 + (cores - files)
 * / files, at least 1 and at most 4 (a batch has too few columns to share
 * out further). */
int hudi_pq_encode_threads_share(int files);

/* A column's totals over the whole file (what commit metadata and the
 * column-stats index need). min/max are the encoded statistics values
 * (PLAIN bytes of the physical type), valid while the summary lives. */
typedef struct hudi_pq_column_summary {
  const char *path;           /* dotted path_in_schema */
  hudi_pq_type type;
  int64_t num_values;         /* levels, nulls included */
  int64_t null_count;
  int64_t uncompressed_size, compressed_size;
  bool has_min_max;
  hudi_pq_bytes min, max;
} hudi_pq_column_summary;

typedef struct hudi_pq_write_summary {
  int64_t num_rows;
  int64_t file_size;
  uint32_t num_row_groups;
  uint32_t num_columns;
  hudi_pq_column_summary *columns;
  hudi_pq_file_meta meta;     /* the whole footer as written */
  hudi_pq_arena arena;        /* owns everything above */
} hudi_pq_write_summary;

void hudi_pq_write_summary_free(hudi_pq_write_summary *s);

/* Opens a writer whose file is appended to *out (owned by the caller, which
 * must outlive the writer) when it is closed. schema: a struct (the record
 * batch schema), copied. */
HUDI_NODISCARD hudi_status hudi_pq_writer_open_buf(hudi_pq_writer **w, const struct ArrowSchema *schema,
                                                   const hudi_pq_writer_options *opts, hudi_buf *out,
                                                   hudi_error *err);
/* Opens a writer of storage path `path`; the object appears (atomically)
 * at close. The storage must outlive the writer. */
HUDI_NODISCARD hudi_status hudi_pq_writer_open_storage(hudi_pq_writer **w, const struct ArrowSchema *schema,
                                                       const hudi_pq_writer_options *opts, hudi_storage *storage,
                                                       const char *path, hudi_error *err);

enum {
  /* The caller writes no more rows after this batch: its last rows form
   * the final row group, written column by column. */
  HUDI_PQ_WRITE_LAST = 1u << 0
};

/* Writes the rows of a struct array of the writer's schema (offsets and
 * slices honoured; the batch is only borrowed). After an error the writer
 * is unusable (close fails; free it). */
HUDI_NODISCARD hudi_status hudi_pq_writer_write_batch(hudi_pq_writer *w, const struct ArrowArray *batch,
                                                      unsigned flags, hudi_error *err);
/* Rows [row, row + n) of a struct view. */
typedef struct hudi_pq_run {
  const hudi_arrow_view *view;
  int64_t row, n;
} hudi_pq_run;

/* Writes the rows of runs[0..n) in turn, as if they were one batch: each
 * run's view is a struct whose columns have the writer's schema, format
 * for format and nullability for nullability (the caller vouches for
 * that; only the column count is checked). Lets a caller put together a
 * batch from rows of several arrays (a base file rewrite: runs of stored
 * rows, with a new file-name column, between updated rows) without
 * copying values into a new array; the columns are handed to the helpers
 * once per call, not once per run. Never the last rows of a file. */
HUDI_NODISCARD hudi_status hudi_pq_writer_write_runs(hudi_pq_writer *w, const hudi_pq_run *runs, size_t n,
                                                     hudi_error *err);
/* Writes every batch of a stream (whose schema must match the writer's
 * field for field) and releases the stream. The stream's last batch is
 * written as HUDI_PQ_WRITE_LAST (the stream is read one batch ahead): write
 * no more rows after it. */
HUDI_NODISCARD hudi_status hudi_pq_writer_write_stream(hudi_pq_writer *w, struct ArrowArrayStream *stream,
                                                       hudi_error *err);

/* Declares that top-level column `column` holds the same values as the
 * later column `source` in every row (a table's record-key meta column
 * and the key column it copies): the writer then encodes source alone and
 * writes its pages again as column's, the bytes it would have encoded
 * (only a row group written column by column, HUDI_PQ_WRITE_LAST over a
 * whole row group, encodes both). Every batch is still checked: a row
 * where they differ fails the write naming both columns. Before the first
 * row; false (nothing changes) unless both are top-level string or binary
 * columns that Parquet stores alike (type, levels, conversion) and
 * column < source. */
bool hudi_pq_writer_twin(hudi_pq_writer *w, uint32_t column, uint32_t source);

/* Adds (or replaces) a footer key/value pair (value bytes, not necessarily
 * text; NULL value: the key without a value). */
HUDI_NODISCARD hudi_status hudi_pq_writer_add_metadata(hudi_pq_writer *w, const char *key, const void *value,
                                                       size_t value_len, hudi_error *err);

/* The Parquet schema the writer writes (elements[0] is the root). */
const hudi_pq_wschema *hudi_pq_writer_schema(const hudi_pq_writer *w);

/* Flushes the last row group, writes the footer and publishes the file.
 * summary (nullable) receives the totals; free it with
 * hudi_pq_write_summary_free. */
HUDI_NODISCARD hudi_status hudi_pq_writer_close(hudi_pq_writer *w, hudi_pq_write_summary *summary,
                                                hudi_error *err);

/* Frees the writer; an unclosed writer's temporary file is deleted. */
void hudi_pq_writer_free(hudi_pq_writer *w);

#endif
