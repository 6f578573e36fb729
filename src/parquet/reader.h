/* The Parquet reader: a file (through hudi_storage, or bytes in memory) ->
 * Arrow record batches.
 *
 * Opening reads the footer with one ranged read of the file's last 64 KiB
 * (a second read when the footer is larger) and maps the schema
 * (parquet/schema_arrow.h). Reading goes one row group at a time: only
 * the projected column chunks are read (one ranged read each); their pages
 * are decoded as batches need them (parquet/column_reader.h
 * hudi_pq_chunk_decoder) into a window per column that holds about a
 * batch plus a page of decoded entries, and assembled (parquet/assemble.h)
 * into batches of at most batch_size rows (columns in parallel on a thread
 * pool when given). Memory is bounded by one row group's projected chunks
 * as stored (compressed), the decoded windows, and the batch being built;
 * the windows' and decoders' buffers are reused from batch to batch and
 * row group to row group. Batches never span row groups: the last batch of
 * a row group may be short.
 *
 * Row groups can be skipped before they are read: the filter callback sees
 * each row group's typed statistics (parquet/stats.h). */
#ifndef HUDI_PARQUET_READER_H
#define HUDI_PARQUET_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "base/error.h"
#include "base/threadpool.h"
#include "hudi/arrow_abi.h"
#include "io/storage.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/stats.h"

typedef struct hudi_pq_reader hudi_pq_reader;

/* Returns false to skip row group rg (its statistics through
 * hudi_pq_reader_stats). */
typedef bool (*hudi_pq_rg_filter)(void *ctx, const hudi_pq_reader *r, uint32_t rg);

typedef struct hudi_pq_reader_options {
  int64_t batch_size; /* rows per batch; 0: 65536 */
  /* Projection: NULL reads every column. Each entry is a top-level column
   * name or a Parquet dotted path ("s.x", "l.list.element.y") selecting a
   * nested part; the output keeps file order. Unknown names are
   * HUDI_ERR_INVALID_ARG. A map is read whole when any part is selected. */
  const char *const *columns;
  size_t n_columns;
  hudi_pq_rg_filter filter; /* NULL: read every row group */
  void *filter_ctx;
  hudi_threadpool *pool;    /* NULL: decode serially */
  hudi_pq_read_limits limits;
  size_t max_footer;        /* bytes; larger footers are HUDI_ERR_LIMIT */
  uint64_t file_size;       /* when known (listings, the metadata table): saves a stat; 0: stat */
  /* The schema (hudi_pq_reader_schema) without the footer's key/values as
   * metadata: saves a copy of them (a Hudi footer's bloom filter is ~1 MB)
   * for callers that never look (hudi_pq_reader_kv still answers). */
  bool skip_kv_metadata;
  /* For the last file a thread reads: a chunk's bytes and page buffer are
   * freed once its last page is decoded, and the freed reader leaves no
   * spare buffers (see hudi_pq_reader_free). Less memory held beside the
   * caller's output, at the cost of allocating them afresh. */
  bool lean;
} hudi_pq_reader_options;

#define HUDI_PQ_READER_OPTIONS_INIT \
  {0, NULL, 0, NULL, NULL, NULL, HUDI_PQ_READ_LIMITS_DEFAULT, (size_t)1 << 26, 0, false, false}

/* Opens path on storage s (which must outlive the reader). opts may be
 * NULL (defaults). *out is owned by the caller (hudi_pq_reader_free).
 * Errors name the path and the byte offset. */
HUDI_NODISCARD hudi_status hudi_pq_reader_open(hudi_pq_reader **out, hudi_storage *s, const char *path,
                                               const hudi_pq_reader_options *opts, hudi_error *err);

/* Opens a file held in memory (borrowed: data must outlive the reader);
 * name is used in error messages. */
HUDI_NODISCARD hudi_status hudi_pq_reader_open_memory(hudi_pq_reader **out, const uint8_t *data, size_t len,
                                                      const char *name, const hudi_pq_reader_options *opts,
                                                      hudi_error *err);

/* Frees r. Its per-leaf buffers (chunk bytes, decoders, decoded windows:
 * megabytes) are left to the next reader opened on the same thread with
 * as many leaves, up to 64 MiB, instead of being freed and grown again. */
void hudi_pq_reader_free(hudi_pq_reader *r);

/* Frees the buffers a freed reader left to the calling thread. A caller
 * that opens no further readers on this thread calls it, so a finished
 * read holds no decode buffers (they are otherwise kept until the next
 * reader on the thread, or the thread's exit). */
void hudi_pq_reader_release_spare(void);

/* The decoded footer. */
const hudi_pq_file_meta *hudi_pq_reader_meta(const hudi_pq_reader *r);

/* The footer key/value metadata entry for key: its value (not
 * NUL-terminated when binary; *len bytes) or NULL when absent. */
const char *hudi_pq_reader_kv(const hudi_pq_reader *r, const char *key, size_t *len);

/* The projected schema: a struct field whose children are the columns
 * (metadata: the footer's key/values except ARROW:schema). Borrowed. */
const hudi_arrow_field *hudi_pq_reader_schema(const hudi_pq_reader *r);

/* Leaves (Parquet columns) in column order, and which are projected. */
uint32_t hudi_pq_reader_num_leaves(const hudi_pq_reader *r);
const hudi_pq_leaf *hudi_pq_reader_leaf(const hudi_pq_reader *r, uint32_t i);
bool hudi_pq_reader_leaf_selected(const hudi_pq_reader *r, uint32_t i);
/* The leaf whose dotted Parquet path is path, or -1. */
int64_t hudi_pq_reader_find_leaf(const hudi_pq_reader *r, const char *path);

/* Typed statistics of leaf i in row group rg (see stats.h). */
void hudi_pq_reader_stats(hudi_pq_col_stats *out, const hudi_pq_reader *r, uint32_t rg, uint32_t i);

/* Row groups kept after filtering so far (counted as they are reached). */
uint32_t hudi_pq_reader_row_groups_skipped(const hudi_pq_reader *r);

/* The next batch: a struct array (no nulls) of the projected columns, or
 * *eof = true (out untouched) after the last one. */
HUDI_NODISCARD hudi_status hudi_pq_reader_next(hudi_pq_reader *r, struct ArrowArray *out, bool *eof,
                                               hudi_error *err);

/* Moves r into a stream of its remaining batches (schema: the projected
 * one). On failure r is freed. */
HUDI_NODISCARD hudi_status hudi_pq_reader_stream(struct ArrowArrayStream *out, hudi_pq_reader *r, hudi_error *err);

#endif
