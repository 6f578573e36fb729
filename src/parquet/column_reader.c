/* Column chunk reading: page headers, decompression, levels, values. */
#include "parquet/column_reader.h"

#include <string.h>

#include "base/alloc.h"
#include "codec/codec.h"
#include "parquet/encoding.h"
#include "parquet/page_writer.h"

/* ---- schema leaves ---- */

typedef struct leaves_ctx {
  const hudi_pq_file_meta *m;
  hudi_pq_arena *arena;
  hudi_pq_leaf *leaves;
  uint32_t n;
  uint32_t anc[HUDI_PQ_MAX_NESTING];
  hudi_error *err;
} leaves_ctx;

static hudi_status schema_corrupt(leaves_ctx *c, uint32_t idx, const char *what) {
  return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "parquet schema: %s (element %u of %u)", what, idx, c->m->num_schema);
}

static hudi_status make_leaf(leaves_ctx *c, uint32_t me, uint32_t depth, int16_t def, int16_t rep) {
  const hudi_pq_schema_element *e = &c->m->schema[me];
  if (!e->has_type) return schema_corrupt(c, me, "a leaf has no physical type");
  if (e->type == HUDI_PQ_FIXED_LEN_BYTE_ARRAY && (!e->has_type_length || e->type_length <= 0))
    return schema_corrupt(c, me, "a FIXED_LEN_BYTE_ARRAY leaf has no positive type_length");
  size_t plen = 0;
  for (uint32_t i = 0; i <= depth; i++) plen += strlen(c->m->schema[c->anc[i]].name) + 1;
  char *path = hudi_pq_arena_alloc(c->arena, plen + 1);
  if (!path) return hudi_err_set(c->err, HUDI_ERR_NOMEM, "out of memory listing parquet leaves");
  char *p = path;
  for (uint32_t i = 0; i <= depth; i++) {
    if (i) *p++ = '.';
    size_t k = strlen(c->m->schema[c->anc[i]].name);
    memcpy(p, c->m->schema[c->anc[i]].name, k);
    p += k;
  }
  *p = '\0';
  hudi_pq_leaf *l = &c->leaves[c->n++];
  l->schema_index = me;
  l->element = e;
  l->path = path;
  l->max_def = def;
  l->max_rep = rep;
  l->type = e->type;
  l->type_length = e->has_type_length ? e->type_length : 0;
  l->depth = depth + 1;
  memcpy(l->ancestors, c->anc, sizeof(uint32_t) * (depth + 1));
  return HUDI_OK;
}

static hudi_status walk(leaves_ctx *c, uint32_t *idx, uint32_t depth, int16_t def, int16_t rep) {
  if (*idx >= c->m->num_schema) return schema_corrupt(c, *idx, "children counts exceed the schema's elements");
  if (depth >= HUDI_PQ_MAX_NESTING) return schema_corrupt(c, *idx, "nesting is too deep");
  uint32_t me = (*idx)++;
  const hudi_pq_schema_element *e = &c->m->schema[me];
  c->anc[depth] = me;
  hudi_pq_repetition r = e->has_repetition ? e->repetition : HUDI_PQ_REQUIRED;
  if (r != HUDI_PQ_REQUIRED) def++;
  if (r == HUDI_PQ_REPEATED) rep++;
  if (e->has_num_children && e->num_children > 0) {
    for (int32_t i = 0; i < e->num_children; i++) HUDI_TRY(walk(c, idx, depth + 1, def, rep));
    return HUDI_OK;
  }
  return make_leaf(c, me, depth, def, rep);
}

hudi_status hudi_pq_schema_leaves(hudi_pq_leaf **leaves, uint32_t *num_leaves, const hudi_pq_file_meta *m,
                                  hudi_pq_arena *arena, hudi_error *err) {
  leaves_ctx c = {.m = m, .arena = arena, .err = err};
  if (m->num_schema == 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet schema: no elements");
  c.leaves = hudi_pq_arena_alloc(arena, sizeof(hudi_pq_leaf) * m->num_schema);
  if (!c.leaves) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory listing parquet leaves");
  const hudi_pq_schema_element *root = &m->schema[0];
  int32_t children = root->has_num_children ? root->num_children : 0;
  uint32_t idx = 1;
  for (int32_t i = 0; i < children; i++) HUDI_TRY(walk(&c, &idx, 0, 0, 0));
  if (idx != m->num_schema) return schema_corrupt(&c, idx, "elements left over after the root's children");
  *leaves = c.leaves;
  *num_leaves = c.n;
  return HUDI_OK;
}

/* ---- column data ---- */

void hudi_pq_column_data_init(hudi_pq_column_data *d) {
  memset(d, 0, sizeof *d);
  hudi_buf_init(&d->def_levels, 0);
  hudi_buf_init(&d->rep_levels, 0);
  hudi_buf_init(&d->values, 0);
  hudi_buf_init(&d->offsets, 0);
  hudi_buf_init(&d->page_offsets, 0);
}

void hudi_pq_column_data_free(hudi_pq_column_data *d) {
  hudi_buf_free(&d->def_levels);
  hudi_buf_free(&d->rep_levels);
  hudi_buf_free(&d->values);
  hudi_buf_free(&d->offsets);
  hudi_buf_free(&d->page_offsets);
}

hudi_status hudi_pq_column_chunk_range(size_t *offset, size_t *len, const hudi_pq_column_chunk *cc, size_t file_size,
                                       hudi_error *err) {
  if (!cc->has_meta_data)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet column chunk has no metadata (encrypted or external)");
  const hudi_pq_column_meta *m = &cc->meta;
  int64_t start = m->data_page_offset;
  /* The dictionary page comes first. An empty chunk (pyarrow) has only a
   * dictionary page and a data_page_offset of 0. */
  if (m->has_dictionary_page_offset && m->dictionary_page_offset >= 4 &&
      (m->dictionary_page_offset < start || start < 4))
    start = m->dictionary_page_offset;
  int64_t n = m->total_compressed_size;
  if (n == 0 && m->num_values == 0) {
    *offset = 0;
    *len = 0;
    return HUDI_OK;
  }
  if (start < 4 || n < 0 || (uint64_t)start > file_size || (uint64_t)n > file_size - (uint64_t)start)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column chunk at byte offset %lld (%lld bytes) lies outside "
                        "the file of %zu bytes", (long long)start, (long long)n, file_size);
  *offset = (size_t)start;
  *len = (size_t)n;
  return HUDI_OK;
}

typedef hudi_pq_chunk_decoder chunk_ctx;

/* Makes room in a byte-array output for n more values; returns the offsets
 * slot of the first one (already holding the current end). */
static hudi_status begin_byte_arrays(hudi_buf *values, hudi_buf *offsets, size_t have, size_t n, int32_t **slot,
                                     hudi_error *err) {
  if (offsets->len == 0) {
    int32_t zero = (int32_t)values->len;
    HUDI_TRY(hudi_buf_append(offsets, &zero, sizeof zero, err));
  }
  HUDI_TRY(hudi_buf_reserve(offsets, hudi_mul_size(n, sizeof(int32_t)), err));
  *slot = (int32_t *)(void *)offsets->data + have;
  return HUDI_OK;
}

/* Appends dictionary entries idx[0..n) (checked indices) to values; for
 * byte arrays slot is the offsets slot of the first (begin_byte_arrays). */
static hudi_status dict_gather(chunk_ctx *c, hudi_buf *values, int32_t *slot, const uint32_t *idx, size_t n) {
  size_t w = c->value_size;
  if (n == 0) return HUDI_OK;
  if (c->leaf->type == HUDI_PQ_BYTE_ARRAY) {
    /* Sized first: one reservation, then straight copies. */
    const int32_t *doff = (const int32_t *)(void *)c->dict_offsets.data;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += (size_t)(doff[idx[i] + 1] - doff[idx[i]]);
    if (total > (size_t)INT32_MAX - values->len)
      return hudi_err_set(c->err, HUDI_ERR_LIMIT, "parquet byte array values exceed 2 GiB in one chunk");
    HUDI_TRY(hudi_buf_reserve(values, total, c->err));
    int32_t end = (int32_t)values->len;
    for (size_t i = 0; i < n; i++) {
      int32_t l = doff[idx[i] + 1] - doff[idx[i]];
      if (l) memcpy(values->data + end, c->dict_values.data + doff[idx[i]], (size_t)l);
      end += l;
      slot[i + 1] = end;
    }
    values->len += total;
    return HUDI_OK;
  }
  HUDI_TRY(hudi_buf_reserve(values, hudi_mul_size(n, w), c->err));
  uint8_t *dst = values->data + values->len;
  if (w == 8) {
    for (size_t i = 0; i < n; i++) memcpy(dst + i * 8, c->dict_values.data + (size_t)idx[i] * 8, 8);
  } else if (w == 4) {
    for (size_t i = 0; i < n; i++) memcpy(dst + i * 4, c->dict_values.data + (size_t)idx[i] * 4, 4);
  } else {
    for (size_t i = 0; i < n; i++) memcpy(dst + i * w, c->dict_values.data + (size_t)idx[i] * w, w);
  }
  values->len += n * w;
  return HUDI_OK;
}

/* Decodes n values of one encoding into (values, offsets), which already
 * hold `have` values. */
static hudi_status decode_values(chunk_ctx *c, hudi_buf *values, hudi_buf *offsets, size_t have, int32_t encoding,
                                 const uint8_t *p, size_t len, size_t n) {
  hudi_error *err = c->err;
  hudi_pq_type t = c->leaf->type;
  size_t w = c->value_size;
  int is_ba = t == HUDI_PQ_BYTE_ARRAY;
  int32_t *slot = NULL;
  if (is_ba) HUDI_TRY(begin_byte_arrays(values, offsets, have, n, &slot, err));
  else HUDI_TRY(hudi_buf_reserve(values, hudi_mul_size(n, w), err));
  uint8_t *dst = values->data ? values->data + values->len : NULL;
  switch (encoding) {
    case HUDI_PQ_ENC_PLAIN:
      if (is_ba) {
        HUDI_TRY(hudi_pq_plain_decode_byte_array(values, slot, n, p, len, NULL, err));
        break;
      }
      HUDI_TRY(hudi_pq_plain_decode_fixed(dst, n, t, c->leaf->type_length, p, len, NULL, err));
      values->len += n * w;
      break;
    case HUDI_PQ_ENC_PLAIN_DICTIONARY:
    case HUDI_PQ_ENC_RLE_DICTIONARY: {
      if (!c->has_dict) return hudi_err_set(err, HUDI_ERR_CORRUPT, "dictionary-encoded page without a dictionary");
      hudi_buf_reset(&c->scratch);
      HUDI_TRY(hudi_buf_reserve(&c->scratch, hudi_mul_size(n, sizeof(uint32_t)), err));
      uint32_t *idx = (uint32_t *)(void *)c->scratch.data;
      if (n) HUDI_TRY(hudi_pq_dict_indices_decode(idx, n, c->dict_size, p, len, err));
      HUDI_TRY(dict_gather(c, values, slot, idx, n));
      break;
    }
    case HUDI_PQ_ENC_RLE: {
      if (t != HUDI_PQ_BOOLEAN) goto unsupported;
      /* Booleans: a 4-byte length, then the hybrid at bit width 1. */
      if (len < 4) return hudi_err_set(err, HUDI_ERR_CORRUPT, "RLE booleans: no length prefix");
      uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
      if (l > len - 4) return hudi_err_set(err, HUDI_ERR_CORRUPT, "RLE booleans: length %u exceeds the page", l);
      hudi_pq_rle_decoder d;
      HUDI_TRY(hudi_pq_rle_decoder_init(&d, p + 4, l, 1, err));
      uint32_t tmp[256];
      for (size_t i = 0; i < n;) {
        size_t k = n - i < 256 ? n - i : 256;
        HUDI_TRY(hudi_pq_rle_decode(&d, tmp, k, err));
        for (size_t j = 0; j < k; j++) dst[i + j] = (uint8_t)tmp[j];
        i += k;
      }
      values->len += n;
      break;
    }
    case HUDI_PQ_ENC_DELTA_BINARY_PACKED:
      if (t != HUDI_PQ_INT32 && t != HUDI_PQ_INT64) goto unsupported;
      HUDI_TRY(hudi_pq_delta_decode(dst, n, (int)w, p, len, NULL, err));
      values->len += n * w;
      break;
    case HUDI_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
      if (!is_ba) goto unsupported;
      HUDI_TRY(hudi_pq_delta_length_decode(values, slot, n, p, len, NULL, err));
      break;
    case HUDI_PQ_ENC_DELTA_BYTE_ARRAY:
      if (is_ba) {
        HUDI_TRY(hudi_pq_delta_byte_array_decode(values, slot, n, p, len, NULL, err));
      } else if (t == HUDI_PQ_FIXED_LEN_BYTE_ARRAY) {
        hudi_buf tmp, toff;
        hudi_buf_init(&tmp, values->max);
        hudi_buf_init(&toff, 0);
        int32_t *ts = NULL;
        hudi_status st = begin_byte_arrays(&tmp, &toff, 0, n, &ts, err);
        if (st == HUDI_OK) st = hudi_pq_delta_byte_array_decode(&tmp, ts, n, p, len, NULL, err);
        for (size_t i = 0; st == HUDI_OK && i < n; i++)
          if ((size_t)(ts[i + 1] - ts[i]) != w)
            st = hudi_err_set(err, HUDI_ERR_CORRUPT, "DELTA_BYTE_ARRAY value %zu has %d bytes, the column's "
                              "type_length is %zu", i, ts[i + 1] - ts[i], w);
        if (st == HUDI_OK && n) memcpy(dst, tmp.data, n * w);
        hudi_buf_free(&tmp);
        hudi_buf_free(&toff);
        HUDI_TRY(st);
        values->len += n * w;
      } else {
        goto unsupported;
      }
      break;
    case HUDI_PQ_ENC_BYTE_STREAM_SPLIT:
      if (is_ba || t == HUDI_PQ_BOOLEAN) goto unsupported;
      HUDI_TRY(hudi_pq_bss_decode(dst, n, w, p, len, err));
      values->len += n * w;
      break;
    default:
      goto unsupported;
  }
  if (is_ba) offsets->len += n * sizeof(int32_t);
  return HUDI_OK;
unsupported:
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet encoding %d is not supported for physical type %d",
                      encoding, (int)t);
}

/* Decompresses a page body into c->page unless it is stored plainly;
 * points data and len at the bytes to decode. */
static hudi_status page_body(chunk_ctx *c, int compressed, const uint8_t *src, size_t src_len, size_t plain_len,
                             const uint8_t **data, size_t *len) {
  if (!compressed || c->codec == HUDI_CODEC_NONE) {
    if (src_len != plain_len)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "uncompressed page has %zu bytes, its header says %zu", src_len,
                          plain_len);
    *data = src;
    *len = src_len;
    return HUDI_OK;
  }
  hudi_buf_reset(&c->page);
  HUDI_TRY(hudi_buf_reserve(&c->page, plain_len, c->err));
  HUDI_TRY(hudi_codec_decompress(c->codec, src, src_len, c->page.data, plain_len, c->err));
  *data = c->page.data;
  *len = plain_len;
  return HUDI_OK;
}

/* A compressed PLAIN dictionary page of n entries, decompressed straight
 * into dict_values and decoded there: fixed-width entries are already in
 * place, byte arrays are compacted in place (each entry moves left past
 * the length prefixes before it). So no page-sized copy of the dictionary
 * is made or kept (the page buffer then only ever holds data pages). */
static hudi_status dictionary_in_place(chunk_ctx *c, const hudi_pq_page_header *h, const uint8_t *src, size_t n) {
  size_t plain = (size_t)h->uncompressed_page_size;
  hudi_buf *v = &c->dict_values;
  hudi_buf_reset(v);
  HUDI_TRY(hudi_buf_reserve(v, plain, c->err));
  HUDI_TRY(hudi_codec_decompress(c->codec, src, (size_t)h->compressed_page_size, v->data, plain, c->err));
  if (c->leaf->type != HUDI_PQ_BYTE_ARRAY) {
    size_t w = c->value_size;
    if (w == 0 || n > plain / w)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "dictionary of %zu values of %zu bytes in %zu bytes", n, w, plain);
    v->len = n * w;
    return HUDI_OK;
  }
  hudi_buf *o = &c->dict_offsets;
  hudi_buf_reset(o);
  HUDI_TRY(hudi_buf_reserve(o, hudi_mul_size(n + 1, sizeof(int32_t)), c->err));
  int32_t *off = (int32_t *)(void *)o->data;
  uint8_t *d = v->data;
  size_t rp = 0, wp = 0;
  off[0] = 0;
  for (size_t i = 0; i < n; i++) {
    if (plain - rp < 4)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "dictionary entry %zu: no length at byte %zu of %zu", i, rp,
                          plain);
    uint32_t l = (uint32_t)d[rp] | (uint32_t)d[rp + 1] << 8 | (uint32_t)d[rp + 2] << 16 | (uint32_t)d[rp + 3] << 24;
    rp += 4;
    if (l > plain - rp)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "dictionary entry %zu: length %u at byte %zu exceeds the %zu "
                          "bytes left", i, l, rp - 4, plain - rp);
    if (l) memmove(d + wp, d + rp, l);
    wp += l;
    rp += l;
    if (wp > INT32_MAX) return hudi_err_set(c->err, HUDI_ERR_LIMIT, "parquet dictionary exceeds 2 GiB");
    off[i + 1] = (int32_t)wp;
  }
  v->len = wp;
  o->len = (n + 1) * sizeof(int32_t);
  return HUDI_OK;
}

static hudi_status read_dictionary(chunk_ctx *c, const hudi_pq_page_header *h, const uint8_t *src) {
  if (c->has_dict) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "a second dictionary page");
  if (c->out->num_data_pages) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "a dictionary page after data pages");
  const hudi_pq_dictionary_page_header *d = &h->dictionary_page;
  if (d->encoding != HUDI_PQ_ENC_PLAIN && d->encoding != HUDI_PQ_ENC_PLAIN_DICTIONARY)
    return hudi_err_set(c->err, HUDI_ERR_UNSUPPORTED, "dictionary page encoding %d", d->encoding);
  const uint8_t *p = NULL;
  size_t len = (size_t)h->uncompressed_page_size;
  /* Every dictionary entry takes at least one byte (booleans: one bit). */
  if ((size_t)d->num_values > len * 8 + 1)
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "dictionary of %d values in %zu bytes", d->num_values, len);
  if (c->codec != HUDI_CODEC_NONE && c->leaf->type != HUDI_PQ_BOOLEAN) {
    HUDI_TRY(dictionary_in_place(c, h, src, (size_t)d->num_values));
  } else {
    HUDI_TRY(page_body(c, 1, src, (size_t)h->compressed_page_size, len, &p, &len));
    HUDI_TRY(decode_values(c, &c->dict_values, &c->dict_offsets, 0, HUDI_PQ_ENC_PLAIN, p, len,
                           (size_t)d->num_values));
  }
  c->has_dict = 1;
  c->dict_size = (uint32_t)d->num_values;
  c->out->num_dictionary_pages++;
  return HUDI_OK;
}

/* Appends n levels to a level buffer, returning where they go. */
static hudi_status grow_levels(chunk_ctx *c, hudi_buf *b, size_t n, int16_t **at) {
  HUDI_TRY(hudi_buf_reserve(b, hudi_mul_size(n, sizeof(int16_t)), c->err));
  *at = (int16_t *)(void *)(b->data + b->len);
  b->len += n * sizeof(int16_t);
  return HUDI_OK;
}

/* The window's dictionary indices become values (a page of another
 * encoding follows them). */
static hudi_status expand_ids(chunk_ctx *c, hudi_pq_column_data *out) {
  size_t n = out->num_values;
  hudi_buf_reset(&c->scratch);
  HUDI_TRY(hudi_buf_append(&c->scratch, out->values.data, hudi_mul_size(n, sizeof(uint32_t)), c->err));
  hudi_buf_reset(&out->values);
  hudi_buf_reset(&out->offsets);
  out->dict_ids = false;
  int32_t *slot = NULL;
  if (c->leaf->type == HUDI_PQ_BYTE_ARRAY) HUDI_TRY(begin_byte_arrays(&out->values, &out->offsets, 0, n, &slot, c->err));
  HUDI_TRY(dict_gather(c, &out->values, slot, (const uint32_t *)(void *)c->scratch.data, n));
  if (c->leaf->type == HUDI_PQ_BYTE_ARRAY) out->offsets.len += n * sizeof(int32_t);
  return HUDI_OK;
}

/* Picks how the page's values are kept: as dictionary indices while the
 * window holds only dictionary-encoded values (keep_dict_ids), else
 * decoded. */
static hudi_status choose_form(chunk_ctx *c, hudi_pq_column_data *out, int32_t encoding) {
  bool dict = c->keep_dict_ids && c->has_dict &&
              (encoding == HUDI_PQ_ENC_PLAIN_DICTIONARY || encoding == HUDI_PQ_ENC_RLE_DICTIONARY);
  if (out->num_values == 0) {
    /* Nothing to carry over: start afresh in either form. */
    hudi_buf_reset(&out->values);
    hudi_buf_reset(&out->offsets);
    out->dict_ids = dict;
  } else if (out->dict_ids && !dict) {
    HUDI_TRY(expand_ids(c, out));
  }
  out->dict_values = &c->dict_values;
  out->dict_offsets = &c->dict_offsets;
  return HUDI_OK;
}

/* Blocks of 32 with a fixed-length inner loop, which the compiler
 * vectorizes at -O2 (list pages hold hundreds of levels a row). */
static size_t count_defined(const int16_t *def, size_t n, int16_t max_def) {
  size_t k = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    int c = 0;
    for (int j = 0; j < 32; j++) c += def[i + (size_t)j] == max_def;
    k += (size_t)c;
  }
  for (; i < n; i++) k += def[i] == max_def;
  return k;
}

static hudi_status read_data_page(chunk_ctx *c, const hudi_pq_page_header *h, const uint8_t *src) {
  const hudi_pq_leaf *leaf = c->leaf;
  hudi_pq_column_data *out = c->out;
  int v2 = h->type == HUDI_PQ_PAGE_DATA_V2;
  size_t n = (size_t)(v2 ? h->data_page_v2.num_values : h->data_page.num_values);
  if (n > c->limits->max_levels - c->total_levels)
    return hudi_err_set(c->err, HUDI_ERR_LIMIT, "column chunk holds more than %zu values", c->limits->max_levels);
  int16_t *rep = NULL, *def = NULL;
  if (leaf->max_rep > 0) HUDI_TRY(grow_levels(c, &out->rep_levels, n, &rep));
  if (leaf->max_def > 0) HUDI_TRY(grow_levels(c, &out->def_levels, n, &def));
  const uint8_t *p = NULL;
  size_t len = 0;
  int32_t encoding;
  size_t comp = (size_t)h->compressed_page_size, plain = (size_t)h->uncompressed_page_size;
  if (!v2) {
    const hudi_pq_data_page_header *d = &h->data_page;
    encoding = d->encoding;
    HUDI_TRY(page_body(c, 1, src, comp, plain, &p, &len));
    size_t used;
    if (rep) {
      HUDI_TRY(hudi_pq_levels_decode(rep, n, leaf->max_rep, d->repetition_level_encoding, p, len, &used, c->err));
      p += used;
      len -= used;
    }
    if (def) {
      HUDI_TRY(hudi_pq_levels_decode(def, n, leaf->max_def, d->definition_level_encoding, p, len, &used, c->err));
      p += used;
      len -= used;
    }
  } else {
    const hudi_pq_data_page_header_v2 *d = &h->data_page_v2;
    encoding = d->encoding;
    size_t rl = (size_t)d->repetition_levels_byte_length, dl = (size_t)d->definition_levels_byte_length;
    if (rl + dl > comp || rl + dl > plain)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "level lengths %zu + %zu exceed the page", rl, dl);
    if (rep) HUDI_TRY(hudi_pq_levels_decode_v2(rep, n, leaf->max_rep, src, rl, c->err));
    if (def) HUDI_TRY(hudi_pq_levels_decode_v2(def, n, leaf->max_def, src + rl, dl, c->err));
    HUDI_TRY(page_body(c, d->is_compressed, src + rl + dl, comp - rl - dl, plain - rl - dl, &p, &len));
  }
  size_t defined = def ? count_defined(def, n, leaf->max_def) : n;
  if (v2 && defined != n - (size_t)h->data_page_v2.num_nulls)
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "page says %d nulls of %zu values, its levels say %zu",
                        h->data_page_v2.num_nulls, n, n - defined);
  HUDI_TRY(choose_form(c, out, encoding));
  if (out->dict_ids) {
    HUDI_TRY(hudi_buf_reserve(&out->values, hudi_mul_size(defined, sizeof(uint32_t)), c->err));
    if (defined)
      HUDI_TRY(hudi_pq_dict_indices_decode((uint32_t *)(void *)(out->values.data + out->values.len), defined,
                                           c->dict_size, p, len, c->err));
    out->values.len += defined * sizeof(uint32_t);
  } else {
    HUDI_TRY(decode_values(c, &out->values, &out->offsets, out->num_values, encoding, p, len, defined));
  }
  out->num_values += defined;
  out->num_levels += n;
  out->num_data_pages++;
  return HUDI_OK;
}

void hudi_pq_chunk_decoder_init(hudi_pq_chunk_decoder *c) {
  memset(c, 0, sizeof *c);
  hudi_buf_init(&c->dict_values, 0);
  hudi_buf_init(&c->dict_offsets, 0);
  hudi_buf_init(&c->page, 0);
  hudi_buf_init(&c->scratch, 0);
  hudi_pq_arena_init(&c->arena, (size_t)1 << 26);
}

void hudi_pq_chunk_decoder_free(hudi_pq_chunk_decoder *c) {
  hudi_pq_arena_free(&c->arena);
  hudi_buf_free(&c->dict_values);
  hudi_buf_free(&c->dict_offsets);
  hudi_buf_free(&c->page);
  hudi_buf_free(&c->scratch);
}

hudi_status hudi_pq_chunk_decoder_start(hudi_pq_chunk_decoder *c, const hudi_pq_leaf *leaf,
                                        const hudi_pq_column_meta *meta, const uint8_t *chunk, size_t len,
                                        size_t chunk_offset, const hudi_pq_read_limits *limits, hudi_error *err) {
  static const hudi_pq_read_limits defaults = HUDI_PQ_READ_LIMITS_DEFAULT;
  if (!limits) limits = &defaults;
  c->leaf = leaf;
  c->meta = meta;
  c->limits = limits;
  c->chunk = chunk;
  c->len = len;
  c->chunk_offset = chunk_offset;
  c->pos = 0;
  c->total_levels = 0;
  c->has_dict = 0;
  c->dict_size = 0;
  hudi_buf_reset(&c->dict_values);
  hudi_buf_reset(&c->dict_offsets);
  c->dict_values.max = limits->max_values_bytes;
  c->page.max = limits->max_page_size;
  c->value_size = hudi_pq_value_size(leaf->type, leaf->type_length);
  if (meta->type != leaf->type)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s: chunk type %d differs from the schema's %d",
                        leaf->path, (int)meta->type, (int)leaf->type);
  hudi_status st = hudi_pq_codec_map(&c->codec, meta->codec, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "parquet column %s", leaf->path);
  return HUDI_OK;
}

/* Byte-array output always has its leading offset, even with no values. */
static hudi_status first_offset(hudi_pq_chunk_decoder *c, hudi_pq_column_data *out, hudi_error *err) {
  if (c->leaf->type != HUDI_PQ_BYTE_ARRAY || out->offsets.len != 0 || out->dict_ids) return HUDI_OK;
  int32_t zero = (int32_t)out->values.len;
  return hudi_buf_append(&out->offsets, &zero, sizeof zero, err);
}

hudi_status hudi_pq_chunk_decoder_next(hudi_pq_chunk_decoder *c, hudi_pq_column_data *out, bool *done,
                                       hudi_error *err) {
  const hudi_pq_leaf *leaf = c->leaf;
  const hudi_pq_read_limits *limits = c->limits;
  c->out = out;
  c->err = err;
  out->values.max = limits->max_values_bytes;
  hudi_status st = HUDI_OK;
  *done = false;
  while (c->pos < c->len) {
    hudi_pq_page_header h;
    size_t hlen, at = c->pos;
    hudi_pq_arena_free(&c->arena); /* statistics of the previous header */
    st = hudi_pq_page_header_decode(&h, &hlen, &c->arena, c->chunk + at, c->len - at, c->chunk_offset + at, err);
    if (st != HUDI_OK) return st;
    size_t body = at + hlen;
    bool data = false;
    if ((size_t)h.compressed_page_size > c->len - body) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "page of %d bytes runs past the chunk's end", h.compressed_page_size);
    } else if ((size_t)h.uncompressed_page_size > limits->max_page_size) {
      st = hudi_err_set(err, HUDI_ERR_LIMIT, "page of %d bytes exceeds the cap of %zu", h.uncompressed_page_size,
                        limits->max_page_size);
    } else if (h.type == HUDI_PQ_PAGE_DICTIONARY) {
      st = read_dictionary(c, &h, c->chunk + body);
    } else if (h.type == HUDI_PQ_PAGE_DATA || h.type == HUDI_PQ_PAGE_DATA_V2) {
      int64_t page_at = (int64_t)(c->chunk_offset + at);
      data = true;
      size_t before = out->num_levels;
      st = hudi_buf_append(&out->page_offsets, &page_at, sizeof page_at, err);
      if (st == HUDI_OK) st = read_data_page(c, &h, c->chunk + body);
      /* The chunk's first entry must start a row. */
      if (st == HUDI_OK && c->total_levels == 0 && leaf->max_rep > 0 && out->num_levels > before &&
          ((const int16_t *)(const void *)out->rep_levels.data)[before] != 0)
        st = hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s: the first entry does not start a row",
                          leaf->path);
      if (st == HUDI_OK) c->total_levels += out->num_levels - before;
    } /* else: an index page or an unknown page type, skipped */
    if (st != HUDI_OK)
      return hudi_err_context(err, st, "parquet column %s, page at byte offset %zu", leaf->path, c->chunk_offset + at);
    c->pos = body + (size_t)h.compressed_page_size;
    if (data) return first_offset(c, out, err);
  }
  *done = true;
  if ((int64_t)c->total_levels != c->meta->num_values)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s: pages hold %zu values, the chunk metadata says %lld",
                        leaf->path, c->total_levels, (long long)c->meta->num_values);
  return first_offset(c, out, err);
}

hudi_status hudi_pq_column_data_drop(hudi_pq_column_data *d, const hudi_pq_leaf *leaf, size_t levels, size_t values,
                                     hudi_error *err) {
  if (levels > d->num_levels || values > d->num_values)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "dropping past the decoded entries");
  size_t keep = d->num_levels - levels;
  if (leaf->max_def > 0) {
    memmove(d->def_levels.data, d->def_levels.data + levels * 2, keep * 2);
    d->def_levels.len = keep * 2;
  }
  if (leaf->max_rep > 0) {
    memmove(d->rep_levels.data, d->rep_levels.data + levels * 2, keep * 2);
    d->rep_levels.len = keep * 2;
  }
  size_t kv = d->num_values - values;
  if (d->dict_ids) {
    if (values) memmove(d->values.data, d->values.data + values * sizeof(uint32_t), kv * sizeof(uint32_t));
    d->values.len = kv * sizeof(uint32_t);
  } else if (leaf->type == HUDI_PQ_BYTE_ARRAY) {
    int32_t *off = (int32_t *)(void *)d->offsets.data;
    size_t base = (size_t)off[values], end = (size_t)off[d->num_values];
    if (base) memmove(d->values.data, d->values.data + base, end - base);
    d->values.len = end - base;
    for (size_t i = 0; i <= kv; i++) off[i] = off[values + i] - (int32_t)base;
    d->offsets.len = (kv + 1) * sizeof(int32_t);
  } else if (values) {
    size_t w = hudi_pq_value_size(leaf->type, leaf->type_length);
    memmove(d->values.data, d->values.data + values * w, kv * w);
    d->values.len = kv * w;
  }
  d->num_levels = keep;
  d->num_values = kv;
  return HUDI_OK;
}

hudi_status hudi_pq_column_chunk_read(hudi_pq_column_data *out, const hudi_pq_leaf *leaf,
                                      const hudi_pq_column_meta *meta, const uint8_t *chunk, size_t len,
                                      size_t chunk_offset, const hudi_pq_read_limits *limits, hudi_error *err) {
  hudi_pq_chunk_decoder c;
  hudi_pq_chunk_decoder_init(&c);
  hudi_status st = hudi_pq_chunk_decoder_start(&c, leaf, meta, chunk, len, chunk_offset, limits, err);
  bool done = false;
  while (st == HUDI_OK && !done) st = hudi_pq_chunk_decoder_next(&c, out, &done, err);
  hudi_pq_chunk_decoder_free(&c);
  return st;
}
