#include "table/write_gather.h"

#include <stdio.h>
#include <string.h>

#include "arrow/view.h"
#include "avro/arrow_schema.h"
#include "base/alloc.h"
#include "table/write_convert.h"

/* How many rows ahead of the copy the input is prefetched: the rows are in
 * key order, so every value read is a cache miss into the input. */
#define PREFETCH_AHEAD 16

/* Room for one _hoodie_commit_seqno: <instant>_<task>_<row in file>. */
#define SEQNO_MAX 96

/* A chunk whose runs of consecutive rows of one batch average at least
 * this many rows (a bulk insert in input order: one run a chunk, or two at
 * a batch's end) is copied run by run, each column's values in one block,
 * instead of gathered row by row. */
#define RUN_ROWS 32

hudi_status hudi_gather_init(hudi_gather *g, hudi_error *err) {
  memset(g, 0, sizeof *g);
  g->views = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->views);
  g->rows = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->rows);
  g->batch = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->batch);
  g->keys = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->keys);
  g->key_lens = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->key_lens);
  g->seqs = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->seqs);
  g->seq_lens = hudi_malloc(HUDI_GATHER_ROWS * sizeof *g->seq_lens);
  g->seq_text = hudi_malloc(HUDI_GATHER_ROWS * SEQNO_MAX);
  g->run_at = hudi_malloc((HUDI_GATHER_ROWS + 1) * sizeof *g->run_at);
  if (!g->views || !g->rows || !g->batch || !g->keys || !g->key_lens || !g->seqs || !g->seq_lens || !g->seq_text ||
      !g->run_at) {
    hudi_gather_free(g);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  return HUDI_OK;
}

void hudi_gather_free(hudi_gather *g) {
  hudi_free(g->views);
  hudi_free(g->rows);
  hudi_free(g->batch);
  hudi_free(g->keys);
  hudi_free(g->key_lens);
  hudi_free(g->seqs);
  hudi_free(g->seq_lens);
  hudi_free(g->seq_text);
  hudi_free(g->run_at);
  memset(g, 0, sizeof *g);
}

/* The decimal digits of v into out (no NUL); returns their count. */
static size_t format_u64(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0;
  do tmp[n++] = (char)('0' + v % 10), v /= 10;
  while (v);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

/* Fills g->run_at with where the runs of the chunk's m rows (g->batch,
 * g->rows) start, then m; returns their count. */
static size_t find_runs(hudi_gather *g, size_t m) {
  size_t n = 0;
  for (size_t j = 0; j < m; j++)
    if (j == 0 || g->batch[j] != g->batch[j - 1] || g->rows[j] != g->rows[j - 1] + 1) g->run_at[n++] = j;
  g->run_at[n] = m;
  return n;
}

/* The five meta columns of the chunk: commit time, partition path and file
 * name one value each, sequence numbers counted from seq0, the keys. */
static hudi_status meta_columns(hudi_gather *g, hudi_arrow_batch_builder *bb, const hudi_gather_file *f,
                                const size_t *idx, size_t a, size_t m, uint64_t seq0, hudi_error *err) {
  const hudi_write_rows *r = f->rows;
  size_t ilen = strlen(f->instant), plen = strlen(f->partition), flen = strlen(f->file_name);
  HUDI_TRY(hudi_arrow_builder_append_repeat(hudi_arrow_batch_builder_column(bb, 0), f->instant, (int64_t)ilen, m,
                                            err));
  char seq[SEQNO_MAX];
  int pre = snprintf(seq, sizeof seq, "%s_%d_", f->instant, f->task);
  if (pre < 0 || (size_t)pre + 21 > sizeof seq) return hudi_err_set(err, HUDI_ERR_INTERNAL, "seqno too long");
  for (size_t j = 0; j < m; j++) {
    char *t = g->seq_text + j * SEQNO_MAX;
    memcpy(t, seq, (size_t)pre);
    g->seqs[j] = t;
    g->seq_lens[j] = (size_t)pre + format_u64(t + pre, seq0 + j);
  }
  HUDI_TRY(hudi_arrow_builder_append_bytes_many(hudi_arrow_batch_builder_column(bb, 1), (const void *const *)g->seqs,
                                                g->seq_lens, m, err));
  for (size_t j = 0; j < m; j++) g->keys[j] = hudi_write_rows_key(r, idx ? idx[j] : a + j, &g->key_lens[j]);
  HUDI_TRY(hudi_arrow_builder_append_bytes_many(hudi_arrow_batch_builder_column(bb, 2), (const void *const *)g->keys,
                                                g->key_lens, m, err));
  HUDI_TRY(hudi_arrow_builder_append_repeat(hudi_arrow_batch_builder_column(bb, 3), f->partition, (int64_t)plen, m,
                                            err));
  return hudi_arrow_builder_append_repeat(hudi_arrow_batch_builder_column(bb, 4), f->file_name, (int64_t)flen, m,
                                          err);
}

/* Data column k of the chunk's rows: lent when they are one run of one
 * batch, run by run when they come in runs, else gathered. */
static hudi_status data_column(hudi_gather *g, hudi_arrow_builder *cb, bool same, int64_t k, size_t m, size_t runs,
                               hudi_error *err) {
  if (same && runs * RUN_ROWS <= m) {
    /* One run: the input's own buffers, lent (the batches outlive the
     * writer, its feed thread included: the callers join it first). */
    if (runs == 1 && hudi_arrow_builder_lend_range(cb, &g->batch[0]->children[k], g->rows[0], (int64_t)m))
      return HUDI_OK;
    for (size_t i = 0; i < runs; i++) {
      size_t j = g->run_at[i];
      HUDI_TRY(hudi_arrow_builder_append_view_range(cb, &g->batch[j]->children[k], g->rows[j],
                                                    (int64_t)(g->run_at[i + 1] - j), err));
    }
    return HUDI_OK;
  }
  for (size_t j = 0; j < m; j++) g->views[j] = &g->batch[j]->children[k];
  if (same) return hudi_arrow_builder_append_gather(cb, g->views, g->rows, m, err);
  for (size_t j = 0; j < m; j++) {
    if (j + PREFETCH_AHEAD < m) hudi_arrow_view_prefetch(g->views[j + PREFETCH_AHEAD], g->rows[j + PREFETCH_AHEAD], false);
    if (j + PREFETCH_AHEAD / 2 < m)
      hudi_arrow_view_prefetch(g->views[j + PREFETCH_AHEAD / 2], g->rows[j + PREFETCH_AHEAD / 2], true);
    HUDI_TRY(hudi_write_append_converted(cb, g->views[j], g->rows[j], err));
  }
  return HUDI_OK;
}

hudi_status hudi_gather_rows(hudi_gather *g, hudi_arrow_batch_builder *bb, const hudi_gather_file *f,
                             const size_t *idx, size_t a, size_t m, uint64_t seq0, hudi_error *err) {
  if (m > HUDI_GATHER_ROWS) return hudi_err_set(err, HUDI_ERR_INTERNAL, "a chunk of %zu rows", m);
  HUDI_TRY(meta_columns(g, bb, f, idx, a, m, seq0, err));
  const hudi_write_rows *r = f->rows;
  for (size_t j = 0; j < m; j++) {
    const hudi_write_row *row = &r->order[idx ? idx[j] : a + j];
    g->batch[j] = &r->batches[row->batch].view;
    g->rows[j] = hudi_arrow_view_struct_row(g->batch[j], row->row);
  }
  size_t runs = find_runs(g, m);
  for (int64_t k = 0; k < f->n_cols; k++)
    HUDI_TRY(data_column(g, hudi_arrow_batch_builder_column(bb, HUDI_AVRO_N_META_FIELDS + k), f->same[k], k, m,
                         runs, err));
  return hudi_arrow_batch_builder_end_rows(bb, (int64_t)m, err);
}
