/* Page writing: levels, values, compression, header. */
#include "parquet/page_writer.h"

#include <limits.h>
#include <string.h>

#include "base/alloc.h"
#include "codec/gzip_huffman.h"
#include "parquet/bitpack.h"
#include "parquet/encoding.h"

hudi_status hudi_pq_codec_map(hudi_codec *out, hudi_pq_codec c, hudi_error *err) {
  switch (c) {
    case HUDI_PQ_CODEC_UNCOMPRESSED: *out = HUDI_CODEC_NONE; return HUDI_OK;
    case HUDI_PQ_CODEC_SNAPPY: *out = HUDI_CODEC_SNAPPY; return HUDI_OK;
    case HUDI_PQ_CODEC_GZIP: *out = HUDI_CODEC_GZIP; return HUDI_OK;
    case HUDI_PQ_CODEC_ZSTD: *out = HUDI_CODEC_ZSTD; return HUDI_OK;
    case HUDI_PQ_CODEC_LZ4_RAW: *out = HUDI_CODEC_LZ4_RAW; return HUDI_OK;
    default: break;
  }
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet compression codec %d is not supported", (int)c);
}

static hudi_status rle_booleans(hudi_buf *out, const uint8_t *v, size_t n, hudi_error *err) {
  uint32_t *tmp = hudi_malloc(hudi_mul_size(n ? n : 1, sizeof *tmp));
  if (!tmp) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding booleans");
  for (size_t i = 0; i < n; i++) tmp[i] = v[i] != 0;
  size_t start = out->len;
  hudi_status st = hudi_buf_append_zeros(out, 4, err);
  if (st == HUDI_OK) st = hudi_pq_rle_encode(out, tmp, n, 1, err);
  hudi_free(tmp);
  if (st != HUDI_OK) return st;
  size_t body = out->len - start - 4;
  for (int i = 0; i < 4; i++) out->data[start + (size_t)i] = (uint8_t)(body >> (8 * i));
  return HUDI_OK;
}

hudi_status hudi_pq_values_encode(hudi_buf *out, int32_t encoding, hudi_pq_type type, int32_t type_length,
                                  const void *values, const int32_t *offsets, size_t n, uint32_t dict_size,
                                  hudi_error *err) {
  int is_ba = type == HUDI_PQ_BYTE_ARRAY;
  size_t w = hudi_pq_value_size(type, type_length);
  switch (encoding) {
    case HUDI_PQ_ENC_PLAIN:
      if (is_ba) return hudi_pq_plain_encode_byte_array(out, values, offsets, n, err);
      return hudi_pq_plain_encode_fixed(out, values, n, type, type_length, err);
    case HUDI_PQ_ENC_PLAIN_DICTIONARY:
    case HUDI_PQ_ENC_RLE_DICTIONARY: return hudi_pq_dict_indices_encode(out, values, n, dict_size, err);
    case HUDI_PQ_ENC_RLE:
      if (type == HUDI_PQ_BOOLEAN) return rle_booleans(out, values, n, err);
      break;
    case HUDI_PQ_ENC_DELTA_BINARY_PACKED:
      if (type == HUDI_PQ_INT32 || type == HUDI_PQ_INT64) return hudi_pq_delta_encode(out, values, n, (int)w, err);
      break;
    case HUDI_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
      if (is_ba) return hudi_pq_delta_length_encode(out, values, offsets, n, err);
      break;
    case HUDI_PQ_ENC_DELTA_BYTE_ARRAY:
      if (is_ba) return hudi_pq_delta_byte_array_encode(out, values, offsets, n, err);
      if (type == HUDI_PQ_FIXED_LEN_BYTE_ARRAY) {
        /* Fixed-width values seen as byte arrays of type_length bytes. */
        int32_t *off = hudi_malloc(hudi_mul_size(n + 1, sizeof(int32_t)));
        if (!off) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding %zu values", n);
        if (n > (size_t)INT32_MAX / (w ? w : 1)) {
          hudi_free(off);
          return hudi_err_set(err, HUDI_ERR_LIMIT, "%zu values are too many for one page", n);
        }
        for (size_t i = 0; i <= n; i++) off[i] = (int32_t)(i * w);
        hudi_status st = hudi_pq_delta_byte_array_encode(out, values, off, n, err);
        hudi_free(off);
        return st;
      }
      break;
    case HUDI_PQ_ENC_BYTE_STREAM_SPLIT:
      if (!is_ba && type != HUDI_PQ_BOOLEAN) return hudi_pq_bss_encode(out, values, n, w, err);
      break;
    default: break;
  }
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet encoding %d is not supported for physical type %d",
                      encoding, (int)type);
}

static hudi_status check_i32(size_t v, const char *what, hudi_error *err) {
  if (v > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "page %s of %zu exceeds 2^31 - 1", what, v);
  return HUDI_OK;
}

/* Room kept ahead of the compressed body for the page header, which is
 * encoded after compression (it holds the compressed size); a Thrift page
 * header without statistics takes well under 100 bytes. */
#define HEADER_ROOM 256

void hudi_pq_page_scratch_init(hudi_pq_page_scratch *s) {
  hudi_buf_init(&s->body, 0);
  hudi_buf_init(&s->page, 0);
  hudi_buf_init(&s->header, 0);
}

void hudi_pq_page_scratch_free(hudi_pq_page_scratch *s) {
  hudi_buf_free(&s->body);
  hudi_buf_free(&s->page);
  hudi_buf_free(&s->header);
}

/* Compresses s->body (its first plain_prefix bytes stored as they are: v2
 * levels) into s->page after HEADER_ROOM bytes, then puts the header
 * right in front of it, so header + body are contiguous without copying
 * the body again. `levels`: how many compressed bytes (after plain_prefix)
 * are v1 levels. */
static hudi_status emit_page(hudi_pq_page_scratch *s, hudi_pq_page_header *h, size_t plain_prefix, size_t levels,
                             hudi_pq_codec codec, int level, bool compress, hudi_pq_page_out *out, int64_t *utotal,
                             int64_t *ctotal, hudi_error *err) {
  hudi_codec c = HUDI_CODEC_NONE;
  HUDI_TRY(hudi_pq_codec_map(&c, codec, err));
  const hudi_buf *body = &s->body;
  hudi_buf *z = &s->page;
  hudi_buf_reset(z);
  HUDI_TRY(hudi_buf_reserve(z, HEADER_ROOM, err));
  z->len = HEADER_ROOM;
  HUDI_TRY(hudi_buf_append(z, body->data, plain_prefix, err));
  /* gzip, Hudi's default codec: literal-only where matching finds
   * nothing (float vectors), several times faster at the same size. */
  if (compress && c == HUDI_CODEC_GZIP)
    HUDI_TRY(hudi_gzip_adaptive(body->data + plain_prefix, body->len - plain_prefix, levels, z, err));
  else
    HUDI_TRY(hudi_codec_compress(compress ? c : HUDI_CODEC_NONE, level, body->data + plain_prefix,
                                 body->len - plain_prefix, z, err));
  size_t zlen = z->len - HEADER_ROOM;
  HUDI_TRY(check_i32(body->len, "size", err));
  HUDI_TRY(check_i32(zlen, "size", err));
  h->uncompressed_page_size = (int32_t)body->len;
  h->compressed_page_size = (int32_t)zlen;
  hudi_buf_reset(&s->header);
  HUDI_TRY(hudi_pq_page_header_encode(&s->header, h, err));
  size_t hlen = s->header.len;
  if (hlen > HEADER_ROOM)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "parquet page header of %zu bytes exceeds its room", hlen);
  memcpy(z->data + HEADER_ROOM - hlen, s->header.data, hlen);
  out->data = z->data + HEADER_ROOM - hlen;
  out->len = hlen + zlen;
  if (utotal) *utotal += (int64_t)(hlen + body->len);
  if (ctotal) *ctotal += (int64_t)(hlen + zlen);
  return HUDI_OK;
}

/* ---- levels ----
 * The RLE/bit-packed hybrid of hudi_pq_rle_encode (same runs, same bytes),
 * read straight from the int16 levels: hudi_pq_levels_encode first widens
 * a page's levels into a temporary uint32 array, which for list columns
 * (one level per element: 384 per embedding) costs more than encoding. */

static hudi_status levels_literal(hudi_buf *out, const int16_t *v, size_t n, int bw, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  size_t groups = (n + 7) / 8;
  uint8_t hdr[10];
  size_t hn = hudi_pq_write_uleb(hdr, ((uint64_t)groups << 1) | 1);
  HUDI_TRY(hudi_buf_append(out, hdr, hn, err));
  size_t bytes = groups * (size_t)bw;
  HUDI_TRY(hudi_buf_append_zeros(out, bytes, err));
  uint8_t *dst = out->data + out->len - bytes;
  uint32_t tmp[256]; /* 256 values: a whole number of bytes at any width */
  for (size_t i = 0; i < n; i += 256) {
    size_t k = n - i < 256 ? n - i : 256;
    for (size_t j = 0; j < k; j++) tmp[j] = (uint16_t)v[i + j];
    hudi_pq_pack32(dst + i / 8 * (size_t)bw, tmp, k, bw);
  }
  return HUDI_OK;
}

static hudi_status levels_run(hudi_buf *out, uint32_t value, size_t n, int bw, hudi_error *err) {
  uint8_t hdr[16];
  size_t hn = hudi_pq_write_uleb(hdr, (uint64_t)n << 1);
  for (int i = 0; i < (bw + 7) / 8; i++) hdr[hn++] = (uint8_t)(value >> (8 * i));
  return hudi_buf_append(out, hdr, hn, err);
}

/* all_max: every level is max_level (a column without nulls in the page),
 * known from the value count, so the levels need no scan. */
static hudi_status levels_encode(hudi_buf *out, const int16_t *v, size_t n, int16_t max_level, bool all_max,
                                 bool with_prefix, hudi_error *err) {
  if (max_level == 0) return HUDI_OK;
  int bw = hudi_pq_bit_width((uint64_t)max_level);
  size_t start = out->len;
  if (with_prefix) HUDI_TRY(hudi_buf_append_zeros(out, 4, err));
  size_t lit_start = 0, i = 0;
  if (all_max && n >= 8) { /* one run, as the scan below finds it */
    HUDI_TRY(levels_run(out, (uint16_t)max_level, n, bw, err));
    i = lit_start = n;
  }
  while (i < n) {
    size_t j = i + 1;
    while (j < n && v[j] == v[i]) j++;
    size_t run = j - i;
    if (run >= 8) {
      /* Literal runs hold whole groups of 8: borrow from this run to fill one. */
      size_t borrow = (8 - (i - lit_start) % 8) % 8;
      if (run - borrow >= 8) {
        HUDI_TRY(levels_literal(out, v + lit_start, i + borrow - lit_start, bw, err));
        HUDI_TRY(levels_run(out, (uint16_t)v[i], run - borrow, bw, err));
        lit_start = j;
      }
    }
    i = j;
  }
  HUDI_TRY(levels_literal(out, v + lit_start, n - lit_start, bw, err));
  if (!with_prefix) return HUDI_OK;
  size_t body = out->len - start - 4;
  if (body > UINT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "levels of %zu bytes are too large", body);
  for (int k = 0; k < 4; k++) out->data[start + (size_t)k] = (uint8_t)(body >> (8 * k));
  return HUDI_OK;
}

hudi_status hudi_pq_data_page_build(hudi_pq_page_scratch *s, const hudi_pq_page_input *in, hudi_pq_page_out *out,
                                    int64_t *utotal, int64_t *ctotal, hudi_error *err) {
  HUDI_TRY(check_i32(in->num_levels, "value count", err));
  hudi_buf *body = &s->body;
  hudi_buf_reset(body);
  hudi_pq_page_header h;
  memset(&h, 0, sizeof h);
  bool with_prefix = !in->v2;
  if (in->max_rep > 0)
    HUDI_TRY(levels_encode(body, in->rep_levels, in->num_levels, in->max_rep, false, with_prefix, err));
  size_t rep_len = body->len;
  /* Without repetition each level is one value slot, defined iff max_def. */
  bool all_max = in->max_rep == 0 && in->num_values == in->num_levels;
  if (in->max_def > 0)
    HUDI_TRY(levels_encode(body, in->def_levels, in->num_levels, in->max_def, all_max, with_prefix, err));
  size_t levels_len = body->len;
  HUDI_TRY(hudi_pq_values_encode(body, in->encoding, in->type, in->type_length, in->values, in->offsets,
                                 in->num_values, in->dict_size, err));
  if (in->v2) {
    h.type = HUDI_PQ_PAGE_DATA_V2;
    h.has_data_page_v2 = true;
    hudi_pq_data_page_header_v2 *d = &h.data_page_v2;
    d->num_values = (int32_t)in->num_levels;
    d->num_nulls = (int32_t)(in->num_levels - in->num_values);
    d->num_rows = in->num_rows;
    d->encoding = in->encoding;
    d->repetition_levels_byte_length = (int32_t)rep_len;
    d->definition_levels_byte_length = (int32_t)(levels_len - rep_len);
    d->has_is_compressed = true;
    d->is_compressed = in->codec != HUDI_PQ_CODEC_UNCOMPRESSED;
    return emit_page(s, &h, levels_len, 0, in->codec, in->level, d->is_compressed, out, utotal, ctotal, err);
  }
  h.type = HUDI_PQ_PAGE_DATA;
  h.has_data_page = true;
  h.data_page.num_values = (int32_t)in->num_levels;
  h.data_page.encoding = in->encoding;
  h.data_page.definition_level_encoding = HUDI_PQ_ENC_RLE;
  h.data_page.repetition_level_encoding = HUDI_PQ_ENC_RLE;
  return emit_page(s, &h, 0, levels_len, in->codec, in->level, true, out, utotal, ctotal, err);
}

hudi_status hudi_pq_dictionary_page_build(hudi_pq_page_scratch *s, hudi_pq_type type, int32_t type_length,
                                          const void *values, const int32_t *offsets, size_t n, hudi_pq_codec codec,
                                          hudi_pq_page_out *out, int64_t *utotal, int64_t *ctotal, hudi_error *err) {
  HUDI_TRY(check_i32(n, "dictionary size", err));
  hudi_buf_reset(&s->body);
  HUDI_TRY(hudi_pq_values_encode(&s->body, HUDI_PQ_ENC_PLAIN, type, type_length, values, offsets, n, 0, err));
  hudi_pq_page_header h;
  memset(&h, 0, sizeof h);
  h.type = HUDI_PQ_PAGE_DICTIONARY;
  h.has_dictionary_page = true;
  h.dictionary_page.num_values = (int32_t)n;
  h.dictionary_page.encoding = HUDI_PQ_ENC_PLAIN;
  /* Dictionary pages are small: the codec's default level. */
  return emit_page(s, &h, 0, 0, codec, 0, true, out, utotal, ctotal, err);
}

hudi_status hudi_pq_data_page_write(hudi_buf *out, const hudi_pq_page_input *in, int64_t *utotal, int64_t *ctotal,
                                    hudi_error *err) {
  hudi_pq_page_scratch s;
  hudi_pq_page_scratch_init(&s);
  hudi_pq_page_out page;
  hudi_status st = hudi_pq_data_page_build(&s, in, &page, utotal, ctotal, err);
  if (st == HUDI_OK) st = hudi_buf_append(out, page.data, page.len, err);
  hudi_pq_page_scratch_free(&s);
  return st;
}

hudi_status hudi_pq_dictionary_page_write(hudi_buf *out, hudi_pq_type type, int32_t type_length, const void *values,
                                          const int32_t *offsets, size_t n, hudi_pq_codec codec, int64_t *utotal,
                                          int64_t *ctotal, hudi_error *err) {
  hudi_pq_page_scratch s;
  hudi_pq_page_scratch_init(&s);
  hudi_pq_page_out page;
  hudi_status st = hudi_pq_dictionary_page_build(&s, type, type_length, values, offsets, n, codec, &page, utotal,
                                                 ctotal, err);
  if (st == HUDI_OK) st = hudi_buf_append(out, page.data, page.len, err);
  hudi_pq_page_scratch_free(&s);
  return st;
}
