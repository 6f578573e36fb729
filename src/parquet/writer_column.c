/* Column chunk writer: pages, dictionary with PLAIN fallback, statistics. */
#include "parquet/writer_column.h"

#include <limits.h>
#include <string.h>

#include "base/alloc.h"
#include "parquet/encoding.h"
#include "parquet/page_writer.h"

static void reset_page(hudi_pq_colw *c) {
  hudi_buf_reset(&c->def);
  hudi_buf_reset(&c->rep);
  hudi_buf_reset(&c->vals);
  hudi_buf_reset(&c->idx);
  c->offs.len = sizeof(int32_t); /* offsets[0] = 0 stays */
  c->page_levels = c->page_values = 0;
  c->page_rows = 0;
  c->page_raw = 0;
}

hudi_status hudi_pq_colw_init(hudi_pq_colw *c, const hudi_pq_leaf_plan *plan, const hudi_pq_writer_options *opts,
                              hudi_error *err) {
  memset(c, 0, sizeof *c);
  c->plan = plan;
  c->opts = opts;
  hudi_buf *bufs[] = {&c->def, &c->rep, &c->vals, &c->offs, &c->idx, &c->stage, &c->stage_offs,
                      &c->idx_tmp, &c->chunk, &c->dict_page};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) hudi_buf_init(bufs[i], 0);
  int32_t zero = 0;
  HUDI_TRY(hudi_buf_append(&c->offs, &zero, sizeof zero, err));
  HUDI_TRY(hudi_buf_append(&c->stage_offs, &zero, sizeof zero, err));
  hudi_pq_dict_init(&c->dict, plan->type == HUDI_PQ_BYTE_ARRAY ? 0
                                                             : (int32_t)hudi_pq_value_size(plan->type, plan->type_length));
  if (opts->dictionary_page_bytes > 0) c->dict.max_plain = (size_t)opts->dictionary_page_bytes;
  hudi_pq_page_scratch_init(&c->scratch);
  hudi_pq_stats_init(&c->stats, opts->statistics ? plan->sort : HUDI_PQ_SORT_NONE, plan->type, plan->type_length);
  c->dict_on = opts->dictionary && plan->dictionary_ok;
  c->plain_encoding = plan->type == HUDI_PQ_BOOLEAN && opts->data_page_v2 ? HUDI_PQ_ENC_RLE : HUDI_PQ_ENC_PLAIN;
  return HUDI_OK;
}

void hudi_pq_colw_free(hudi_pq_colw *c) {
  if (!c->plan) return;
  hudi_buf *bufs[] = {&c->def, &c->rep, &c->vals, &c->offs, &c->idx, &c->stage, &c->stage_offs,
                      &c->idx_tmp, &c->chunk, &c->dict_page};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) hudi_buf_free(bufs[i]);
  hudi_pq_dict_free(&c->dict);
  hudi_pq_stats_free(&c->stats);
  hudi_pq_page_scratch_free(&c->scratch);
  memset(c, 0, sizeof *c);
}

void hudi_pq_colw_set_sink(hudi_pq_colw *c, hudi_pq_sink_fn sink, void *ctx) {
  /* Only at a chunk's start: held pages would otherwise be skipped. */
  if (c->chunk.len || c->page_levels || c->dict_used) return;
  c->sink = sink;
  c->sink_ctx = ctx;
  c->streaming = !c->dict_on;
}

/* The dictionary is final (fallback or end of chunk): the dictionary page
 * and the pages held behind it go to the sink; later pages follow. */
static hudi_status start_streaming(hudi_pq_colw *c, hudi_error *err) {
  hudi_buf_reset(&c->dict_page);
  if (c->dict_used) {
    hudi_pq_page_out pg;
    hudi_status st = hudi_pq_dictionary_page_build(&c->scratch, c->plan->type, c->plan->type_length,
                                                   c->dict.values.data, c->dict.offsets, c->dict.n, c->opts->codec,
                                                   &pg, &c->dict_uncompressed, &c->dict_compressed, err);
    if (st != HUDI_OK) return hudi_err_context(err, st, "column '%s'", c->plan->name);
    HUDI_TRY(hudi_buf_append(&c->dict_page, pg.data, pg.len, err));
    HUDI_TRY(c->sink(c->sink_ctx, pg.data, pg.len, err));
    c->n_dict_pages = 1;
  }
  HUDI_TRY(c->sink(c->sink_ctx, c->chunk.data, c->chunk.len, err));
  hudi_buf_reset(&c->chunk);
  c->streaming = true;
  return HUDI_OK;
}

/* Levels of the open page, roughly encoded (they RLE-compress well). */
static int64_t levels_estimate(const hudi_pq_colw *c) {
  return (int64_t)(c->def.len + c->rep.len) / 8;
}

/* What decides where a page ends: the open page's levels plus the PLAIN
 * size of its values, whatever the encoding (parquet-java's raw size). */
static int64_t page_size_estimate(const hudi_pq_colw *c) {
  int64_t v = c->plan->type == HUDI_PQ_BOOLEAN ? (int64_t)c->page_values / 8 : c->page_raw;
  return levels_estimate(c) + v;
}

/* Encoded size of the open page, roughly: what the chunk will hold. */
static int64_t page_estimate(const hudi_pq_colw *c) {
  int64_t levels = levels_estimate(c);
  if (c->dict_on) {
    int bw = hudi_pq_bit_width(c->dict.n ? c->dict.n - 1 : 0);
    return levels + (int64_t)(c->page_values * (size_t)(bw ? bw : 1) / 8) + 1;
  }
  int64_t v = (int64_t)c->vals.len;
  if (c->plan->type == HUDI_PQ_BYTE_ARRAY) v += 4 * (int64_t)c->page_values;
  if (c->plan->type == HUDI_PQ_BOOLEAN) v /= 8;
  return levels + v;
}

int64_t hudi_pq_colw_buffered(const hudi_pq_colw *c) {
  /* encoded bytes: the row-group size limit is about the file */
  return (int64_t)c->chunk.len + (int64_t)c->dict.plain_size + page_estimate(c);
}

/* The open page's values, held as dictionary indices, become PLAIN values
 * again and the dictionary is dropped: it was never written, the chunk
 * goes on PLAIN. */
static hudi_status dict_abandon(hudi_pq_colw *c, hudi_error *err) {
  const uint32_t *ix = (const uint32_t *)(const void *)c->idx.data;
  size_t n = c->idx.len / sizeof(uint32_t);
  const hudi_pq_dict *d = &c->dict;
  if (c->plan->type == HUDI_PQ_BYTE_ARRAY) {
    HUDI_TRY(hudi_buf_reserve(&c->offs, n * sizeof(int32_t), err));
    int32_t *offs = (int32_t *)(void *)c->offs.data;
    size_t base = c->offs.len / sizeof(int32_t) - 1;
    for (size_t i = 0; i < n; i++) {
      int32_t a = d->offsets[ix[i]], b = d->offsets[ix[i] + 1];
      if ((int64_t)c->vals.len + (b - a) > INT32_MAX)
        return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': page too large", c->plan->name);
      HUDI_TRY(hudi_buf_append(&c->vals, d->values.data + a, (size_t)(b - a), err));
      offs[base + i + 1] = (int32_t)c->vals.len;
    }
    c->offs.len += n * sizeof(int32_t);
  } else {
    size_t w = (size_t)d->width;
    HUDI_TRY(hudi_buf_reserve(&c->vals, n * w, err));
    for (size_t i = 0; i < n; i++) memcpy(c->vals.data + c->vals.len + i * w, d->values.data + (size_t)ix[i] * w, w);
    c->vals.len += n * w;
  }
  hudi_buf_reset(&c->idx);
  hudi_pq_dict_drop_index(&c->dict); /* not used again in this chunk */
  hudi_pq_dict_reset(&c->dict);
  c->dict_on = false;
  c->dict_judged = true;
  /* Streaming: nothing is held behind a dictionary page any more. */
  if (c->sink && !c->streaming) HUDI_TRY(start_streaming(c, err));
  return HUDI_OK;
}

/* parquet-java's first-page rule (DictionaryValuesWriter
 * isCompressionSatisfying): the dictionary stays if the page's encoded
 * indices plus the whole dictionary are smaller than the page's values
 * PLAIN. */
static hudi_status dict_judge_first_page(hudi_pq_colw *c, hudi_error *err) {
  c->dict_judged = true;
  if (c->page_values == 0) return dict_abandon(c, err); /* all null: nothing to gain */
  hudi_buf_reset(&c->idx_tmp);
  HUDI_TRY(hudi_pq_values_encode(&c->idx_tmp, HUDI_PQ_ENC_RLE_DICTIONARY, c->plan->type, c->plan->type_length,
                                 c->idx.data, NULL, c->page_values, (uint32_t)c->dict.n, err));
  int64_t encoded = (int64_t)c->idx_tmp.len + (int64_t)c->dict.plain_size;
  if (encoded < c->page_raw) return HUDI_OK;
  return dict_abandon(c, err);
}

static hudi_status flush_page(hudi_pq_colw *c, hudi_error *err) {
  if (c->page_levels == 0) return HUDI_OK;
  const hudi_pq_leaf_plan *p = c->plan;
  if (c->dict_on && !c->dict_used && !c->dict_judged) HUDI_TRY(dict_judge_first_page(c, err));
  hudi_pq_page_input in = {.type = p->type, .type_length = p->type_length, .max_def = p->max_def,
                           .max_rep = p->max_rep, .num_levels = c->page_levels,
                           .def_levels = p->max_def ? (const int16_t *)(const void *)c->def.data : NULL,
                           .rep_levels = p->max_rep ? (const int16_t *)(const void *)c->rep.data : NULL,
                           .num_values = c->page_values, .v2 = c->opts->data_page_v2,
                           .num_rows = (int32_t)c->page_rows, .codec = c->opts->codec,
                           .level = c->opts->codec_level};
  if (c->dict_on) {
    in.encoding = HUDI_PQ_ENC_RLE_DICTIONARY;
    in.values = c->idx.data;
    in.dict_size = (uint32_t)c->dict.n;
    c->n_dict_data_pages++;
    c->dict_used = true;
  } else {
    in.encoding = c->plain_encoding;
    in.values = c->vals.data;
    in.offsets = (const int32_t *)(const void *)c->offs.data;
    c->n_plain_pages++;
  }
  if (c->page_rows > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': page too large", p->name);
  hudi_pq_page_out pg;
  hudi_status st = hudi_pq_data_page_build(&c->scratch, &in, &pg, &c->data_uncompressed, &c->data_compressed, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "column '%s'", p->name);
  HUDI_TRY(c->streaming ? c->sink(c->sink_ctx, pg.data, pg.len, err) : hudi_buf_append(&c->chunk, pg.data, pg.len, err));
  c->num_levels += (int64_t)c->page_levels;
  reset_page(c);
  return HUDI_OK;
}

/* Dictionary mode: staged values -> indices; falls back to PLAIN once the
 * dictionary outgrows its limit (the open page keeps its indices when
 * earlier pages used the dictionary, else it turns PLAIN). */
static hudi_status dict_encode_stage(hudi_pq_colw *c, size_t n, hudi_error *err) {
  if (n) {
    HUDI_TRY(hudi_buf_reserve(&c->idx, n * sizeof(uint32_t), err));
    uint32_t *ix = (uint32_t *)(void *)(c->idx.data + c->idx.len);
    const hudi_pq_dict *d = &c->dict;
    size_t before = d->n;
    HUDI_TRY(hudi_pq_dict_insert(&c->dict, c->stage.data, (const int32_t *)(const void *)c->stage_offs.data, n, ix,
                                 err));
    c->idx.len += n * sizeof(uint32_t);
    /* The chunk's min and max are those of its dictionary's entries (both
     * start with the chunk): only the values new to it can move them.
     * Folded before the dictionary may be abandoned below. A column of one
     * value (Hudi's commit time, partition path, file name) compares
     * nothing per row this way. */
    if (c->stats.sort != HUDI_PQ_SORT_NONE && d->n > before) {
      size_t w = (size_t)d->width;
      HUDI_TRY(hudi_pq_stats_update(&c->stats, d->values.data + (w ? before * w : 0), w ? NULL : d->offsets + before,
                                    d->n - before, err));
    }
  }
  hudi_buf_reset(&c->stage);
  c->stage_offs.len = sizeof(int32_t);
  if ((int64_t)c->dict.plain_size > c->opts->dictionary_page_bytes) {
    /* Before any page used it, the dictionary goes and the open page
     * carries on PLAIN (parquet-java fallBackAllValuesTo). */
    if (!c->dict_used) return dict_abandon(c, err);
    HUDI_TRY(flush_page(c, err));
    c->dict_on = false;
    hudi_pq_dict_drop_index(&c->dict); /* the entries stay for the dictionary page */
    if (c->sink && !c->streaming) HUDI_TRY(start_streaming(c, err));
  }
  return HUDI_OK;
}

/* The bytes-per-row estimate behind slice sizes: an average over the
 * recent rows, weighted by rows (the few-row slices that top up a page
 * are too noisy to steer the next page alone), raised at once when a
 * slice of some size shows bigger rows, so pages overshoot little. */
static void update_row_size(hudi_pq_colw *c, int64_t bytes, int64_t rows) {
  if (bytes <= 0 || rows <= 0) return; /* the page was cut inside the slice */
  c->seen_bytes += (double)bytes;
  c->seen_rows += (double)rows;
  if (c->seen_rows > 16384) {
    c->seen_bytes *= 0.5;
    c->seen_rows *= 0.5;
  }
  double avg = c->seen_bytes / c->seen_rows, last = (double)bytes / (double)rows;
  c->bytes_per_row = rows >= 16 && last > avg ? last : avg;
}

hudi_status hudi_pq_colw_write(hudi_pq_colw *c, const hudi_arrow_view *top, int64_t row, int64_t n,
                               hudi_error *err) {
  int64_t end = row + n;
  int64_t page_bytes = c->opts->page_bytes > 0 ? c->opts->page_bytes : 1;
  while (row < end) {
    /* Slices sized to fill about the rest of the page; a small first
     * slice measures the row size (a 1024-row probe of 3 KB embeddings
     * would overshoot a 1 MiB page threefold). */
    int64_t room = page_bytes - page_size_estimate(c);
    int64_t k = c->bytes_per_row > 0 ? (int64_t)((double)(room > 0 ? room : 1) / c->bytes_per_row) : 16;
    if (k < 1) k = 1;
    if (k > 65536) k = 65536;
    if (k > end - row) k = end - row;
    bool dict = c->dict_on;
    c->out_vals = dict ? &c->stage : &c->vals;
    c->out_offs = dict ? &c->stage_offs : &c->offs;
    c->out_count = 0;
    size_t vals_before = c->vals.len, offs_before = c->offs.len / sizeof(int32_t) - 1;
    size_t levels_before = c->page_levels;
    int64_t est_before = page_size_estimate(c);
    HUDI_TRY(hudi_pq_shred(c, top, row, k, err));
    size_t nv = c->out_count;
    if (c->plan->type == HUDI_PQ_BYTE_ARRAY)
      c->page_raw += (int64_t)(dict ? c->stage.len : c->vals.len - vals_before) + 4 * (int64_t)nv;
    else
      c->page_raw += (int64_t)(nv * hudi_pq_value_size(c->plan->type, c->plan->type_length));
    c->stats.null_count += (int64_t)(c->page_levels - levels_before) - (int64_t)nv;
    /* Dictionary-encoded values count toward the statistics as they enter
     * the dictionary (dict_encode_stage). */
    if (c->stats.sort != HUDI_PQ_SORT_NONE && nv && !dict) {
      const uint8_t *data = c->vals.data + (c->plan->type == HUDI_PQ_BYTE_ARRAY ? 0 : vals_before);
      const int32_t *offs = (const int32_t *)(const void *)c->offs.data + offs_before;
      HUDI_TRY(hudi_pq_stats_update(&c->stats, data, offs, nv, err));
    }
    c->page_values += nv;
    c->page_rows += k;
    c->rows += k;
    if (dict) HUDI_TRY(dict_encode_stage(c, nv, err));
    int64_t est = page_size_estimate(c);
    update_row_size(c, est - est_before, k);
    if (est >= page_bytes) HUDI_TRY(flush_page(c, err));
    row += k;
  }
  return HUDI_OK;
}

hudi_status hudi_pq_colw_finish(hudi_pq_colw *c, hudi_error *err) {
  if (c->finished) return HUDI_OK;
  c->finished = true;
  HUDI_TRY(flush_page(c, err));
  if (c->sink) {
    if (!c->streaming) HUDI_TRY(start_streaming(c, err));
    return HUDI_OK;
  }
  hudi_buf_reset(&c->dict_page);
  if (c->dict_used) {
    hudi_status st = hudi_pq_dictionary_page_write(&c->dict_page, c->plan->type, c->plan->type_length,
                                                   c->dict.values.data, c->dict.offsets, c->dict.n, c->opts->codec,
                                                   &c->dict_uncompressed, &c->dict_compressed, err);
    if (st != HUDI_OK) return hudi_err_context(err, st, "column '%s'", c->plan->name);
    c->n_dict_pages = 1;
  }
  return HUDI_OK;
}

hudi_status hudi_pq_colw_meta_as(const hudi_pq_colw *c, const hudi_pq_leaf_plan *p, hudi_pq_column_chunk *out,
                                 int64_t offset, hudi_pq_arena *arena, hudi_error *err) {
  memset(out, 0, sizeof *out);
  out->file_offset = offset;
  out->has_meta_data = true;
  hudi_pq_column_meta *m = &out->meta;
  m->type = p->type;
  m->codec = c->opts->codec;
  m->path_in_schema = p->path;
  m->path_len = p->path_len;
  m->num_values = c->num_levels;
  m->total_uncompressed_size = c->data_uncompressed + c->dict_uncompressed;
  m->total_compressed_size = c->data_compressed + c->dict_compressed;
  if (c->n_dict_pages) {
    m->has_dictionary_page_offset = true;
    m->dictionary_page_offset = offset;
  }
  m->data_page_offset = offset + (int64_t)c->dict_page.len;
  /* Encodings: the dictionary page's, the levels', the data pages'. */
  int32_t *enc = hudi_pq_arena_alloc(arena, sizeof(int32_t) * 4);
  hudi_pq_page_encoding_stats *es = hudi_pq_arena_alloc(arena, sizeof *es * 3);
  if (!enc || !es) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory writing column '%s'", p->name);
  uint32_t ne = 0, ns = 0;
  if (c->n_dict_pages) {
    enc[ne++] = HUDI_PQ_ENC_PLAIN;
    es[ns++] = (hudi_pq_page_encoding_stats){HUDI_PQ_PAGE_DICTIONARY, HUDI_PQ_ENC_PLAIN, c->n_dict_pages};
  }
  enc[ne++] = HUDI_PQ_ENC_RLE;
  if (c->n_dict_data_pages) {
    enc[ne++] = HUDI_PQ_ENC_RLE_DICTIONARY;
    es[ns++] = (hudi_pq_page_encoding_stats){c->opts->data_page_v2 ? HUDI_PQ_PAGE_DATA_V2 : HUDI_PQ_PAGE_DATA,
                                             HUDI_PQ_ENC_RLE_DICTIONARY, c->n_dict_data_pages};
  }
  if (c->n_plain_pages) {
    if (c->plain_encoding != HUDI_PQ_ENC_RLE && (ne == 0 || enc[0] != HUDI_PQ_ENC_PLAIN)) enc[ne++] = c->plain_encoding;
    es[ns++] = (hudi_pq_page_encoding_stats){c->opts->data_page_v2 ? HUDI_PQ_PAGE_DATA_V2 : HUDI_PQ_PAGE_DATA,
                                             c->plain_encoding, c->n_plain_pages};
  }
  m->encodings = enc;
  m->num_encodings = ne;
  m->encoding_stats = es;
  m->num_encoding_stats = ns;
  m->has_encoding_stats = true;
  if (c->stats.sort != HUDI_PQ_SORT_NONE) {
    m->has_statistics = true;
    HUDI_TRY(hudi_pq_stats_to_thrift(&m->statistics, &c->stats, arena, err));
  }
  return HUDI_OK;
}

hudi_status hudi_pq_colw_meta(hudi_pq_colw *c, hudi_pq_column_chunk *out, int64_t offset, hudi_pq_arena *arena,
                              hudi_error *err) {
  const hudi_pq_leaf_plan *p = c->plan;
  HUDI_TRY(hudi_pq_colw_meta_as(c, p, out, offset, arena, err));
  /* Ready for the next row group. */
  hudi_buf_reset(&c->chunk);
  hudi_buf_reset(&c->dict_page);
  hudi_pq_dict_reset(&c->dict);
  hudi_pq_stats_reset(&c->stats);
  c->dict_on = c->opts->dictionary && p->dictionary_ok;
  c->dict_used = false;
  c->dict_judged = false;
  c->data_uncompressed = c->data_compressed = c->dict_uncompressed = c->dict_compressed = 0;
  c->num_levels = c->rows = 0;
  c->n_dict_pages = c->n_dict_data_pages = c->n_plain_pages = 0;
  c->sink = NULL;
  c->sink_ctx = NULL;
  c->streaming = false;
  c->finished = false;
  return HUDI_OK;
}
