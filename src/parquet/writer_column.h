/* One leaf column of the row group being written: shreds Arrow arrays into
 * levels and values (writer_shred.c), cuts pages at the page size,
 * dictionary-encodes while that pays (then falls back to PLAIN), gathers
 * statistics, and keeps the chunk's compressed pages until the row group is
 * written out.
 *
 * Dictionary fallback follows parquet-java (FallbackValuesWriter,
 * DictionaryValuesWriter), which wrote the Hudi files we must match:
 *  - at the end of each chunk's first page, the dictionary is kept only if
 *    encoded indices + PLAIN dictionary < PLAIN size of the page's values;
 *    otherwise that page is written PLAIN, the dictionary dropped and the
 *    rest of the chunk is PLAIN (all-unique keys, seqnos, free text);
 *  - later, a dictionary past dictionary_page_bytes falls back to PLAIN
 *    (pages already written keep their indices);
 *  - each chunk decides afresh (parquet-java resets at row-group ends).
 * Pages are cut on the PLAIN size of their values plus levels, in
 * dictionary mode too (parquet-java's getBufferedSize is the raw size), so
 * a page never grows past the page size when the dictionary falls back,
 * and a reader's decoded page is bounded. */
#ifndef HUDI_PARQUET_WRITER_COLUMN_H
#define HUDI_PARQUET_WRITER_COLUMN_H

#include <stdbool.h>
#include <stdint.h>

#include "arrow/view.h"
#include "base/buf.h"
#include "base/error.h"
#include "parquet/arrow_to_parquet.h"
#include "parquet/page_writer.h"
#include "parquet/stats_write.h"
#include "parquet/writer.h"
#include "parquet/writer_dict.h"

/* Where a column chunk's bytes go when they are not held: appends n bytes
 * to the file. */
typedef hudi_status (*hudi_pq_sink_fn)(void *ctx, const void *p, size_t n, hudi_error *err);

typedef struct hudi_pq_colw {
  const hudi_pq_leaf_plan *plan;
  const hudi_pq_writer_options *opts;
  /* the page being filled */
  hudi_buf def, rep;          /* int16 levels */
  hudi_buf vals, offs;        /* PLAIN values; byte arrays: int32 offsets (count + 1) */
  hudi_buf idx;               /* dictionary indices (uint32) */
  size_t page_levels, page_values;
  int64_t page_rows;
  int64_t page_raw;           /* PLAIN bytes of the open page's values (byte arrays: + 4 each) */
  /* where the shredder puts values: vals/offs, or the stage in dictionary mode */
  hudi_buf stage, stage_offs;
  hudi_buf *out_vals, *out_offs;
  size_t out_count;           /* values the shredder appended */
  /* dictionary */
  bool dict_on, dict_used;
  bool dict_judged;           /* the first-page check ran for this chunk */
  hudi_pq_dict dict;
  hudi_buf idx_tmp;
  /* the chunk */
  hudi_buf chunk;             /* compressed data pages */
  hudi_buf dict_page;         /* the dictionary page, made at finish */
  int64_t data_uncompressed, data_compressed, dict_uncompressed, dict_compressed;
  int64_t num_levels, rows;
  int32_t n_dict_pages, n_dict_data_pages, n_plain_pages;
  int32_t plain_encoding;     /* PLAIN, or RLE for v2 booleans */
  hudi_pq_stats_acc stats;
  double bytes_per_row;       /* estimate of page bytes per row, for slice sizes */
  double seen_bytes, seen_rows; /* page bytes and rows of recent slices (decaying) */
  hudi_pq_page_scratch scratch; /* page building buffers, reused page after page */
  /* direct output (hudi_pq_colw_set_sink): pages go to the sink as soon as
   * nothing has to precede them, instead of into `chunk` */
  hudi_pq_sink_fn sink;
  void *sink_ctx;
  bool streaming;             /* the dictionary page and the pages before it went out */
  bool finished;              /* hudi_pq_colw_finish ran for this chunk */
} hudi_pq_colw;

HUDI_NODISCARD hudi_status hudi_pq_colw_init(hudi_pq_colw *c, const hudi_pq_leaf_plan *plan,
                                             const hudi_pq_writer_options *opts, hudi_error *err);
void hudi_pq_colw_free(hudi_pq_colw *c);

/* Appends rows [row, row + n) of the top-level column view `top`
 * (logical indices of that view). */
HUDI_NODISCARD hudi_status hudi_pq_colw_write(hudi_pq_colw *c, const hudi_arrow_view *top, int64_t row, int64_t n,
                                              hudi_error *err);

/* For a chunk written out whole before anything else goes to the file
 * (the file writer's column-by-column mode): from now until the chunk is
 * finished, its bytes go to `sink` (dictionary page first, then the data
 * pages) as soon as their order is settled, i.e. from the start for a
 * column without dictionary, else once the dictionary falls back to PLAIN
 * or at finish. Only pages encoded while the dictionary is still open are
 * held, as pyarrow does. Call before the chunk's first row. */
void hudi_pq_colw_set_sink(hudi_pq_colw *c, hudi_pq_sink_fn sink, void *ctx);

/* Encoded bytes held for the chunk so far (pages written + the open page). */
int64_t hudi_pq_colw_buffered(const hudi_pq_colw *c);

/* Ends the chunk: flushes the open page and makes the dictionary page.
 * Then dict_page + chunk are the chunk's bytes, in that order; with a sink
 * they have all gone to it already (dict_page still says how long the
 * dictionary page was). Once per chunk: later calls do nothing. */
HUDI_NODISCARD hudi_status hudi_pq_colw_finish(hudi_pq_colw *c, hudi_error *err);

/* Fills the chunk's metadata, placed at file offset `offset`, allocating
 * in arena; then resets the column for the next row group. */
HUDI_NODISCARD hudi_status hudi_pq_colw_meta(hudi_pq_colw *c, hudi_pq_column_chunk *out, int64_t offset,
                                             hudi_pq_arena *arena, hudi_error *err);
/* The same metadata of c's finished chunk, as the chunk of column p (its
 * path), without resetting c: a twin column whose pages are copies of c's
 * (hudi_pq_writer_twin). */
HUDI_NODISCARD hudi_status hudi_pq_colw_meta_as(const hudi_pq_colw *c, const hudi_pq_leaf_plan *p,
                                                hudi_pq_column_chunk *out, int64_t offset, hudi_pq_arena *arena,
                                                hudi_error *err);

/* ---- shredding (writer_shred.c) ----
 * Appends the levels and values of top-level rows [row, row + n) to the
 * page buffers (values to c->out_vals / c->out_offs). */
HUDI_NODISCARD hudi_status hudi_pq_shred(hudi_pq_colw *c, const hudi_arrow_view *top, int64_t row, int64_t n,
                                         hudi_error *err);

#endif
