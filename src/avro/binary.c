#include "avro/binary.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void hudi_avro_cursor_init(hudi_avro_cursor *c, const uint8_t *data, size_t len, uint64_t base,
                           const char *where) {
  c->data = data;
  c->len = len;
  c->pos = 0;
  c->base = base;
  c->where = where ? where : "Avro data";
}

hudi_status hudi_avro_cursor_fail(const hudi_avro_cursor *c, hudi_error *err, uint64_t offset,
                                  hudi_status code, const char *what) {
  return hudi_err_set(err, code, "%s: %s at byte %llu", c->where, what, (unsigned long long)offset);
}

static hudi_status truncated(const hudi_avro_cursor *c, hudi_error *err, const char *what) {
  char msg[128];
  snprintf(msg, sizeof msg, "truncated %s", what);
  return hudi_avro_cursor_fail(c, err, hudi_avro_cursor_offset(c), HUDI_ERR_CORRUPT, msg);
}

hudi_status hudi_avro_read_long(hudi_avro_cursor *c, int64_t *v, hudi_error *err) {
  uint64_t acc = 0;
  size_t start = c->pos;
  for (int shift = 0;; shift += 7) {
    if (c->pos >= c->len) {
      c->pos = start;
      return truncated(c, err, "varint");
    }
    uint8_t b = c->data[c->pos++];
    /* The 10th byte may only carry bit 63; more would overflow 64 bits. */
    if (shift == 63 && (b & 0x7e)) {
      return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_CORRUPT, "varint overflows a long");
    }
    acc |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    if (shift == 63)
      return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_CORRUPT, "varint longer than 10 bytes");
  }
  *v = (int64_t)(acc >> 1) ^ -(int64_t)(acc & 1);
  return HUDI_OK;
}

hudi_status hudi_avro_read_int(hudi_avro_cursor *c, int32_t *v, hudi_error *err) {
  size_t start = c->pos;
  int64_t l = 0;
  HUDI_TRY(hudi_avro_read_long(c, &l, err));
  if (l < INT32_MIN || l > INT32_MAX || c->pos - start > 5)
    return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_CORRUPT, "varint overflows an int");
  *v = (int32_t)l;
  return HUDI_OK;
}

hudi_status hudi_avro_read_boolean(hudi_avro_cursor *c, int *v, hudi_error *err) {
  if (c->pos >= c->len) return truncated(c, err, "boolean");
  uint8_t b = c->data[c->pos];
  if (b > 1)
    return hudi_avro_cursor_fail(c, err, hudi_avro_cursor_offset(c), HUDI_ERR_CORRUPT, "boolean not 0 or 1");
  c->pos++;
  *v = b;
  return HUDI_OK;
}

hudi_status hudi_avro_read_float(hudi_avro_cursor *c, float *v, hudi_error *err) {
  if (hudi_avro_cursor_left(c) < 4) return truncated(c, err, "float");
  const uint8_t *p = c->data + c->pos;
  uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  memcpy(v, &u, 4);
  c->pos += 4;
  return HUDI_OK;
}

hudi_status hudi_avro_read_double(hudi_avro_cursor *c, double *v, hudi_error *err) {
  if (hudi_avro_cursor_left(c) < 8) return truncated(c, err, "double");
  const uint8_t *p = c->data + c->pos;
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--) u = u << 8 | p[i];
  memcpy(v, &u, 8);
  c->pos += 8;
  return HUDI_OK;
}

hudi_status hudi_avro_read_fixed(hudi_avro_cursor *c, size_t n, const uint8_t **p, hudi_error *err) {
  if (hudi_avro_cursor_left(c) < n) return truncated(c, err, "fixed value");
  *p = c->data + c->pos;
  c->pos += n;
  return HUDI_OK;
}

hudi_status hudi_avro_read_bytes(hudi_avro_cursor *c, const uint8_t **p, size_t *len, size_t max_len,
                                 hudi_error *err) {
  size_t start = c->pos;
  int64_t n = 0;
  HUDI_TRY(hudi_avro_read_long(c, &n, err));
  if (n < 0)
    return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_CORRUPT, "negative length");
  if ((uint64_t)n > max_len || (uint64_t)n > HUDI_AVRO_MAX_BYTES)
    return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_LIMIT, "length over the cap");
  if ((uint64_t)n > hudi_avro_cursor_left(c)) {
    c->pos = start;
    return hudi_avro_cursor_fail(c, err, c->base + start, HUDI_ERR_CORRUPT, "length past the end of the data");
  }
  *p = c->data + c->pos;
  *len = (size_t)n;
  c->pos += (size_t)n;
  return HUDI_OK;
}

size_t hudi_avro_encode_long(uint8_t *out, int64_t v) {
  uint64_t z = ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
  size_t n = 0;
  while (z > 0x7f) {
    out[n++] = (uint8_t)(z | 0x80);
    z >>= 7;
  }
  out[n++] = (uint8_t)z;
  return n;
}

hudi_status hudi_avro_write_long(hudi_buf *b, int64_t v, hudi_error *err) {
  uint8_t tmp[10];
  return hudi_buf_append(b, tmp, hudi_avro_encode_long(tmp, v), err);
}

hudi_status hudi_avro_write_float(hudi_buf *b, float v, hudi_error *err) {
  uint32_t u;
  memcpy(&u, &v, 4);
  uint8_t p[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
  return hudi_buf_append(b, p, 4, err);
}

hudi_status hudi_avro_write_double(hudi_buf *b, double v, hudi_error *err) {
  uint64_t u;
  memcpy(&u, &v, 8);
  uint8_t p[8];
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(u >> (8 * i));
  return hudi_buf_append(b, p, 8, err);
}

hudi_status hudi_avro_write_bytes(hudi_buf *b, const void *p, size_t len, hudi_error *err) {
  HUDI_TRY(hudi_avro_write_long(b, (int64_t)len, err));
  return hudi_buf_append(b, p, len, err);
}
