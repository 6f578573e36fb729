/* Page writing: levels, values, compression, header. */
#include "parquet/page_writer.h"

#include <limits.h>
#include <string.h>

#include "base/alloc.h"
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

/* Appends header + (compressed) body; body[0..plain_prefix) is stored
 * uncompressed ahead of the compressed rest (v2 levels). */
static hudi_status emit_page(hudi_buf *out, hudi_pq_page_header *h, const hudi_buf *body, size_t plain_prefix,
                             hudi_pq_codec codec, bool compress, int64_t *utotal, int64_t *ctotal, hudi_error *err) {
  hudi_codec c = HUDI_CODEC_NONE;
  HUDI_TRY(hudi_pq_codec_map(&c, codec, err));
  hudi_buf z;
  hudi_buf_init(&z, 0);
  hudi_status st = hudi_buf_append(&z, body->data, plain_prefix, err);
  if (st == HUDI_OK)
    st = hudi_codec_compress(compress ? c : HUDI_CODEC_NONE, 0, body->data + plain_prefix, body->len - plain_prefix,
                             &z, err);
  if (st == HUDI_OK) st = check_i32(body->len, "size", err);
  if (st == HUDI_OK) st = check_i32(z.len, "size", err);
  if (st == HUDI_OK) {
    h->uncompressed_page_size = (int32_t)body->len;
    h->compressed_page_size = (int32_t)z.len;
    size_t before = out->len;
    st = hudi_pq_page_header_encode(out, h, err);
    size_t hlen = out->len - before;
    if (st == HUDI_OK) st = hudi_buf_append(out, z.data, z.len, err);
    if (st == HUDI_OK && utotal) *utotal += (int64_t)(hlen + body->len);
    if (st == HUDI_OK && ctotal) *ctotal += (int64_t)(hlen + z.len);
  }
  hudi_buf_free(&z);
  return st;
}

hudi_status hudi_pq_data_page_write(hudi_buf *out, const hudi_pq_page_input *in, int64_t *utotal, int64_t *ctotal,
                                    hudi_error *err) {
  HUDI_TRY(check_i32(in->num_levels, "value count", err));
  hudi_buf body;
  hudi_buf_init(&body, 0);
  hudi_pq_page_header h;
  memset(&h, 0, sizeof h);
  hudi_status st = HUDI_OK;
  size_t levels_len = 0;
  bool with_prefix = !in->v2;
  if (in->max_rep > 0)
    st = hudi_pq_levels_encode(&body, in->rep_levels, in->num_levels, in->max_rep, with_prefix, err);
  size_t rep_len = body.len;
  if (st == HUDI_OK && in->max_def > 0)
    st = hudi_pq_levels_encode(&body, in->def_levels, in->num_levels, in->max_def, with_prefix, err);
  levels_len = body.len;
  if (st == HUDI_OK)
    st = hudi_pq_values_encode(&body, in->encoding, in->type, in->type_length, in->values, in->offsets,
                               in->num_values, in->dict_size, err);
  if (st == HUDI_OK) {
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
      st = emit_page(out, &h, &body, levels_len, in->codec, d->is_compressed, utotal, ctotal, err);
    } else {
      h.type = HUDI_PQ_PAGE_DATA;
      h.has_data_page = true;
      h.data_page.num_values = (int32_t)in->num_levels;
      h.data_page.encoding = in->encoding;
      h.data_page.definition_level_encoding = HUDI_PQ_ENC_RLE;
      h.data_page.repetition_level_encoding = HUDI_PQ_ENC_RLE;
      st = emit_page(out, &h, &body, 0, in->codec, true, utotal, ctotal, err);
    }
  }
  hudi_buf_free(&body);
  return st;
}

hudi_status hudi_pq_dictionary_page_write(hudi_buf *out, hudi_pq_type type, int32_t type_length, const void *values,
                                          const int32_t *offsets, size_t n, hudi_pq_codec codec, int64_t *utotal,
                                          int64_t *ctotal, hudi_error *err) {
  HUDI_TRY(check_i32(n, "dictionary size", err));
  hudi_buf body;
  hudi_buf_init(&body, 0);
  hudi_status st = hudi_pq_values_encode(&body, HUDI_PQ_ENC_PLAIN, type, type_length, values, offsets, n, 0, err);
  if (st == HUDI_OK) {
    hudi_pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = HUDI_PQ_PAGE_DICTIONARY;
    h.has_dictionary_page = true;
    h.dictionary_page.num_values = (int32_t)n;
    h.dictionary_page.encoding = HUDI_PQ_ENC_PLAIN;
    st = emit_page(out, &h, &body, 0, codec, true, utotal, ctotal, err);
  }
  hudi_buf_free(&body);
  return st;
}
