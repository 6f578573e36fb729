#include "hfile/protobuf.h"

void hudi_pb_reader_init(hudi_pb_reader *r, const uint8_t *data, size_t len, uint64_t base) {
  r->data = data;
  r->len = len;
  r->pos = 0;
  r->base = base;
}

int hudi_pb_at_end(const hudi_pb_reader *r) { return r->pos >= r->len; }

hudi_status hudi_pb_read_varint(hudi_pb_reader *r, uint64_t *out, hudi_error *err) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (r->pos >= r->len)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf varint runs past the end at byte offset %llu",
                          (unsigned long long)(r->base + r->pos));
    uint8_t c = r->data[r->pos++];
    if (shift == 63 && (c & 0x7e))
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf varint overflows 64 bits at byte offset %llu",
                          (unsigned long long)(r->base + r->pos - 1));
    v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *out = v;
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf varint longer than 10 bytes at byte offset %llu",
                      (unsigned long long)(r->base + r->pos));
}

hudi_status hudi_pb_read_tag(hudi_pb_reader *r, uint32_t *field, int *wire, hudi_error *err) {
  uint64_t key = 0;
  size_t at = r->pos;
  HUDI_TRY(hudi_pb_read_varint(r, &key, err));
  if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf field number %llu invalid at byte offset %llu",
                        (unsigned long long)(key >> 3), (unsigned long long)(r->base + at));
  *field = (uint32_t)(key >> 3);
  *wire = (int)(key & 7);
  return HUDI_OK;
}

hudi_status hudi_pb_read_bytes(hudi_pb_reader *r, const uint8_t **out, size_t *len, hudi_error *err) {
  uint64_t n = 0;
  size_t at = r->pos;
  HUDI_TRY(hudi_pb_read_varint(r, &n, err));
  if (n > r->len - r->pos)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "protobuf field length %llu at byte offset %llu exceeds the %zu bytes left",
                        (unsigned long long)n, (unsigned long long)(r->base + at), r->len - r->pos);
  *out = r->data + r->pos;
  *len = (size_t)n;
  r->pos += (size_t)n;
  return HUDI_OK;
}

hudi_status hudi_pb_skip(hudi_pb_reader *r, int wire, hudi_error *err) {
  uint64_t v;
  const uint8_t *p;
  size_t n;
  switch (wire) {
    case HUDI_PB_VARINT: return hudi_pb_read_varint(r, &v, err);
    case HUDI_PB_BYTES: return hudi_pb_read_bytes(r, &p, &n, err);
    case HUDI_PB_FIXED64:
    case HUDI_PB_FIXED32: {
      size_t w = wire == HUDI_PB_FIXED64 ? 8 : 4;
      if (r->len - r->pos < w)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf fixed field runs past the end at byte offset %llu",
                            (unsigned long long)(r->base + r->pos));
      r->pos += w;
      return HUDI_OK;
    }
    default:
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "protobuf wire type %d unsupported at byte offset %llu", wire,
                          (unsigned long long)(r->base + r->pos));
  }
}

size_t hudi_pb_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

hudi_status hudi_pb_write_varint(hudi_buf *b, uint64_t v, hudi_error *err) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  return hudi_buf_append(b, tmp, n, err);
}

hudi_status hudi_pb_write_tag(hudi_buf *b, uint32_t field, int wire, hudi_error *err) {
  return hudi_pb_write_varint(b, ((uint64_t)field << 3) | (uint64_t)wire, err);
}

hudi_status hudi_pb_write_uint_field(hudi_buf *b, uint32_t field, uint64_t v, hudi_error *err) {
  HUDI_TRY(hudi_pb_write_tag(b, field, HUDI_PB_VARINT, err));
  return hudi_pb_write_varint(b, v, err);
}

hudi_status hudi_pb_write_bytes_field(hudi_buf *b, uint32_t field, const void *p, size_t n, hudi_error *err) {
  HUDI_TRY(hudi_pb_write_tag(b, field, HUDI_PB_BYTES, err));
  HUDI_TRY(hudi_pb_write_varint(b, n, err));
  return hudi_buf_append(b, p, n, err);
}
