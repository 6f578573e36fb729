/* PLAIN encoding and BYTE_STREAM_SPLIT. Values are little-endian on the
 * wire, as in memory on every platform hudi-c builds for. */
#include <string.h>

#include "base/alloc.h"
#include "parquet/encoding.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hudi-c's Parquet code assumes a little-endian host"
#endif

size_t hudi_pq_value_size(hudi_pq_type type, int32_t type_length) {
  switch (type) {
    case HUDI_PQ_BOOLEAN: return 1;
    case HUDI_PQ_INT32:
    case HUDI_PQ_FLOAT: return 4;
    case HUDI_PQ_INT64:
    case HUDI_PQ_DOUBLE: return 8;
    case HUDI_PQ_INT96: return 12;
    case HUDI_PQ_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
    case HUDI_PQ_BYTE_ARRAY: return 0;
  }
  return 0;
}

static hudi_status short_data(const char *what, size_t need, size_t len, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet %s values need %zu bytes, %zu are left", what, need, len);
}

hudi_status hudi_pq_plain_decode_fixed(void *out, size_t n, hudi_pq_type type, int32_t type_length,
                                       const uint8_t *data, size_t len, size_t *consumed, hudi_error *err) {
  if (type == HUDI_PQ_BOOLEAN) {
    size_t bytes = n / 8 + (n % 8 != 0);
    if (bytes > len) return short_data("BOOLEAN", bytes, len, err);
    uint8_t *o = out;
    for (size_t i = 0; i < n; i++) o[i] = (data[i >> 3] >> (i & 7)) & 1;
    if (consumed) *consumed = bytes;
    return HUDI_OK;
  }
  size_t w = hudi_pq_value_size(type, type_length);
  if (w == 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet PLAIN: type %d has no fixed width", (int)type);
  if (n > len / w) return short_data("PLAIN", hudi_mul_size(n, w), len, err);
  if (n) memcpy(out, data, n * w);
  if (consumed) *consumed = n * w;
  return HUDI_OK;
}

/* Appends one value to values and records its end offset. */
static hudi_status push_value(hudi_buf *values, int32_t *end_offset, const uint8_t *p, size_t n, hudi_error *err) {
  if (values->len + n > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "parquet byte array values exceed 2 GiB in one buffer");
  HUDI_TRY(hudi_buf_append(values, p, n, err));
  *end_offset = (int32_t)values->len;
  return HUDI_OK;
}

hudi_status hudi_pq_plain_decode_byte_array(hudi_buf *values, int32_t *offsets, size_t n, const uint8_t *data,
                                            size_t len, size_t *consumed, hudi_error *err) {
  size_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    if (len - pos < 4) return short_data("BYTE_ARRAY length", pos + 4, len, err);
    uint32_t l = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 | (uint32_t)data[pos + 2] << 16 |
                 (uint32_t)data[pos + 3] << 24;
    pos += 4;
    if (l > len - pos)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet BYTE_ARRAY value %zu: length %u at byte %zu exceeds the "
                          "%zu bytes left", i, l, pos - 4, len - pos);
    HUDI_TRY(push_value(values, &offsets[i + 1], data + pos, l, err));
    pos += l;
  }
  if (consumed) *consumed = pos;
  return HUDI_OK;
}

hudi_status hudi_pq_plain_encode_fixed(hudi_buf *out, const void *values, size_t n, hudi_pq_type type,
                                       int32_t type_length, hudi_error *err) {
  if (type == HUDI_PQ_BOOLEAN) {
    size_t bytes = n / 8 + (n % 8 != 0);
    HUDI_TRY(hudi_buf_append_zeros(out, bytes, err));
    uint8_t *o = out->data + out->len - bytes;
    const uint8_t *v = values;
    for (size_t i = 0; i < n; i++)
      if (v[i]) o[i >> 3] |= (uint8_t)(1u << (i & 7));
    return HUDI_OK;
  }
  size_t w = hudi_pq_value_size(type, type_length);
  if (w == 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "parquet PLAIN: type %d has no fixed width", (int)type);
  return hudi_buf_append(out, values, hudi_mul_size(n, w), err);
}

hudi_status hudi_pq_plain_encode_byte_array(hudi_buf *out, const uint8_t *data, const int32_t *offsets, size_t n,
                                            hudi_error *err) {
  for (size_t i = 0; i < n; i++) {
    uint32_t l = (uint32_t)(offsets[i + 1] - offsets[i]);
    uint8_t hdr[4] = {(uint8_t)l, (uint8_t)(l >> 8), (uint8_t)(l >> 16), (uint8_t)(l >> 24)};
    HUDI_TRY(hudi_buf_append(out, hdr, 4, err));
    HUDI_TRY(hudi_buf_append(out, data + offsets[i], l, err));
  }
  return HUDI_OK;
}

/* ---- BYTE_STREAM_SPLIT: byte k of value i is at k * n + i ---- */

hudi_status hudi_pq_bss_decode(void *out, size_t n, size_t width, const uint8_t *data, size_t len, hudi_error *err) {
  if (width == 0 || n > len / width || n * width != len)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet BYTE_STREAM_SPLIT: %zu bytes do not hold %zu values of %zu "
                        "bytes", len, n, width);
  uint8_t *o = out;
  for (size_t k = 0; k < width; k++) {
    const uint8_t *stream = data + k * n;
    for (size_t i = 0; i < n; i++) o[i * width + k] = stream[i];
  }
  return HUDI_OK;
}

hudi_status hudi_pq_bss_encode(hudi_buf *out, const void *values, size_t n, size_t width, hudi_error *err) {
  size_t total = hudi_mul_size(n, width);
  HUDI_TRY(hudi_buf_reserve(out, total, err));
  const uint8_t *v = values;
  uint8_t *o = out->data + out->len;
  for (size_t k = 0; k < width; k++)
    for (size_t i = 0; i < n; i++) o[k * n + i] = v[i * width + k];
  out->len += total;
  return HUDI_OK;
}
