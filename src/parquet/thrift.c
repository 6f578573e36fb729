/* Thrift compact protocol (thrift's doc/specs/thrift-compact-protocol.md). */
#include "parquet/thrift.h"

#include <string.h>

void hudi_thrift_reader_init(hudi_thrift_reader *r, const uint8_t *data, size_t len, size_t base_offset,
                             hudi_error *err) {
  r->data = data;
  r->len = len;
  r->pos = 0;
  r->base_offset = base_offset;
  r->depth = 0;
  r->pending_bool = -1;
  r->err = err;
}

hudi_status hudi_thrift_corrupt(hudi_thrift_reader *r, const char *what) {
  return hudi_err_set(r->err, HUDI_ERR_CORRUPT, "thrift: %s at byte offset %zu", what, r->base_offset + r->pos);
}

static size_t remaining(const hudi_thrift_reader *r) { return r->len - r->pos; }

hudi_status hudi_thrift_read_varint(hudi_thrift_reader *r, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (r->pos >= r->len) return hudi_thrift_corrupt(r, "varint runs past the end");
    uint8_t b = r->data[r->pos++];
    if (shift == 63 && (b & 0x7e)) return hudi_thrift_corrupt(r, "varint overflows 64 bits");
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return HUDI_OK;
    }
  }
  return hudi_thrift_corrupt(r, "varint longer than 10 bytes");
}

hudi_status hudi_thrift_read_byte(hudi_thrift_reader *r, int8_t *v) {
  if (r->pos >= r->len) return hudi_thrift_corrupt(r, "byte runs past the end");
  *v = (int8_t)r->data[r->pos++];
  return HUDI_OK;
}

static hudi_status read_zigzag(hudi_thrift_reader *r, int64_t lo, int64_t hi, int64_t *v) {
  uint64_t u = 0;
  size_t at = r->pos;
  HUDI_TRY(hudi_thrift_read_varint(r, &u));
  int64_t x = hudi_zigzag_decode64(u);
  if (x < lo || x > hi) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "integer out of range for its type");
  }
  *v = x;
  return HUDI_OK;
}

hudi_status hudi_thrift_read_i16(hudi_thrift_reader *r, int16_t *v) {
  int64_t x = 0;
  HUDI_TRY(read_zigzag(r, INT16_MIN, INT16_MAX, &x));
  *v = (int16_t)x;
  return HUDI_OK;
}

hudi_status hudi_thrift_read_i32(hudi_thrift_reader *r, int32_t *v) {
  int64_t x = 0;
  HUDI_TRY(read_zigzag(r, INT32_MIN, INT32_MAX, &x));
  *v = (int32_t)x;
  return HUDI_OK;
}

hudi_status hudi_thrift_read_i64(hudi_thrift_reader *r, int64_t *v) { return read_zigzag(r, INT64_MIN, INT64_MAX, v); }

hudi_status hudi_thrift_read_double(hudi_thrift_reader *r, double *v) {
  if (remaining(r) < 8) return hudi_thrift_corrupt(r, "double runs past the end");
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--) u = (u << 8) | r->data[r->pos + (size_t)i];
  memcpy(v, &u, 8);
  r->pos += 8;
  return HUDI_OK;
}

hudi_status hudi_thrift_read_bool(hudi_thrift_reader *r, bool *v) {
  if (r->pending_bool >= 0) {
    *v = r->pending_bool == 1;
    r->pending_bool = -1;
    return HUDI_OK;
  }
  /* List elements: 1 is true; Java writes 2 for false, others 0. */
  if (r->pos >= r->len) return hudi_thrift_corrupt(r, "bool runs past the end");
  uint8_t b = r->data[r->pos];
  if (b > 2) return hudi_thrift_corrupt(r, "bad bool element");
  r->pos++;
  *v = b == 1;
  return HUDI_OK;
}

hudi_status hudi_thrift_read_binary(hudi_thrift_reader *r, const uint8_t **p, size_t *len) {
  uint64_t n = 0;
  size_t at = r->pos;
  HUDI_TRY(hudi_thrift_read_varint(r, &n));
  if (n > remaining(r)) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "binary length exceeds the remaining bytes");
  }
  *p = r->data + r->pos;
  *len = (size_t)n;
  r->pos += (size_t)n;
  return HUDI_OK;
}

hudi_status hudi_thrift_struct_begin(hudi_thrift_reader *r, int16_t *last_id) {
  if (r->depth >= HUDI_THRIFT_MAX_DEPTH) return hudi_thrift_corrupt(r, "structs nested too deeply");
  r->depth++;
  *last_id = 0;
  return HUDI_OK;
}

void hudi_thrift_struct_end(hudi_thrift_reader *r) {
  if (r->depth > 0) r->depth--;
}

static int valid_type(uint8_t t) { return t >= HUDI_TT_BOOL_TRUE && t <= HUDI_TT_STRUCT; }

hudi_status hudi_thrift_field_next(hudi_thrift_reader *r, int16_t *last_id, int16_t *id, uint8_t *type) {
  /* A bool field whose value the caller never read is dropped here. */
  r->pending_bool = -1;
  if (r->pos >= r->len) return hudi_thrift_corrupt(r, "struct runs past the end (no stop field)");
  uint8_t b = r->data[r->pos];
  uint8_t t = b & 0x0f;
  if (t == HUDI_TT_STOP) {
    if (b != 0) return hudi_thrift_corrupt(r, "bad stop field");
    r->pos++;
    *type = HUDI_TT_STOP;
    *id = 0;
    return HUDI_OK;
  }
  if (!valid_type(t)) return hudi_thrift_corrupt(r, "unknown field type");
  r->pos++;
  uint8_t delta = b >> 4;
  int16_t fid;
  if (delta) {
    int32_t x = (int32_t)*last_id + delta;
    if (x > INT16_MAX) return hudi_thrift_corrupt(r, "field id overflows");
    fid = (int16_t)x;
  } else {
    HUDI_TRY(hudi_thrift_read_i16(r, &fid));
  }
  if (t == HUDI_TT_BOOL_TRUE || t == HUDI_TT_BOOL_FALSE) {
    r->pending_bool = t == HUDI_TT_BOOL_TRUE;
    t = HUDI_TT_BOOL;
  }
  *last_id = fid;
  *id = fid;
  *type = t;
  return HUDI_OK;
}

/* Smallest encoding of one element, to bound counts by what remains. */
static size_t min_size(uint8_t t) { return t == HUDI_TT_DOUBLE ? 8 : 1; }

hudi_status hudi_thrift_list_begin(hudi_thrift_reader *r, uint8_t *elem_type, uint32_t *count) {
  size_t at = r->pos;
  if (r->pos >= r->len) return hudi_thrift_corrupt(r, "list header runs past the end");
  uint8_t b = r->data[r->pos++];
  uint8_t t = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) HUDI_TRY(hudi_thrift_read_varint(r, &n));
  if (!valid_type(t)) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "unknown list element type");
  }
  if (t == HUDI_TT_BOOL_FALSE) t = HUDI_TT_BOOL;
  if (n > UINT32_MAX || n > remaining(r) / min_size(t)) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "list count exceeds the remaining bytes");
  }
  *elem_type = t;
  *count = (uint32_t)n;
  return HUDI_OK;
}

hudi_status hudi_thrift_map_begin(hudi_thrift_reader *r, uint8_t *key_type, uint8_t *value_type, uint32_t *count) {
  size_t at = r->pos;
  uint64_t n = 0;
  HUDI_TRY(hudi_thrift_read_varint(r, &n));
  if (n == 0) {
    *key_type = *value_type = 0;
    *count = 0;
    return HUDI_OK;
  }
  if (r->pos >= r->len) return hudi_thrift_corrupt(r, "map header runs past the end");
  uint8_t b = r->data[r->pos++];
  uint8_t kt = b >> 4, vt = b & 0x0f;
  if (!valid_type(kt) || !valid_type(vt)) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "unknown map key or value type");
  }
  if (kt == HUDI_TT_BOOL_FALSE) kt = HUDI_TT_BOOL;
  if (vt == HUDI_TT_BOOL_FALSE) vt = HUDI_TT_BOOL;
  if (n > UINT32_MAX || n > remaining(r) / (min_size(kt) + min_size(vt))) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "map count exceeds the remaining bytes");
  }
  *key_type = kt;
  *value_type = vt;
  *count = (uint32_t)n;
  return HUDI_OK;
}

hudi_status hudi_thrift_skip(hudi_thrift_reader *r, uint8_t type) {
  switch (type) {
    case HUDI_TT_BOOL_TRUE:
    case HUDI_TT_BOOL_FALSE: {
      bool b;
      return hudi_thrift_read_bool(r, &b);
    }
    case HUDI_TT_BYTE: {
      int8_t b;
      return hudi_thrift_read_byte(r, &b);
    }
    case HUDI_TT_I16:
    case HUDI_TT_I32:
    case HUDI_TT_I64: {
      uint64_t v;
      return hudi_thrift_read_varint(r, &v);
    }
    case HUDI_TT_DOUBLE: {
      double d;
      return hudi_thrift_read_double(r, &d);
    }
    case HUDI_TT_BINARY: {
      const uint8_t *p;
      size_t n;
      return hudi_thrift_read_binary(r, &p, &n);
    }
    case HUDI_TT_STRUCT: {
      int16_t last, id;
      uint8_t t;
      HUDI_TRY(hudi_thrift_struct_begin(r, &last));
      for (;;) {
        HUDI_TRY(hudi_thrift_field_next(r, &last, &id, &t));
        if (t == HUDI_TT_STOP) break;
        HUDI_TRY(hudi_thrift_skip(r, t));
      }
      hudi_thrift_struct_end(r);
      return HUDI_OK;
    }
    case HUDI_TT_LIST:
    case HUDI_TT_SET:
    case HUDI_TT_MAP: {
      if (r->depth >= HUDI_THRIFT_MAX_DEPTH) return hudi_thrift_corrupt(r, "containers nested too deeply");
      uint8_t kt = 0, vt;
      uint32_t n;
      if (type == HUDI_TT_MAP)
        HUDI_TRY(hudi_thrift_map_begin(r, &kt, &vt, &n));
      else
        HUDI_TRY(hudi_thrift_list_begin(r, &vt, &n));
      r->depth++;
      for (uint32_t i = 0; i < n; i++) {
        if (kt) HUDI_TRY(hudi_thrift_skip(r, kt));
        HUDI_TRY(hudi_thrift_skip(r, vt));
      }
      r->depth--;
      return HUDI_OK;
    }
  }
  return hudi_thrift_corrupt(r, "cannot skip unknown type");
}

/* ---- writer ---- */

void hudi_thrift_writer_init(hudi_thrift_writer *w, hudi_buf *out, hudi_error *err) {
  w->out = out;
  w->depth = 0;
  w->last_id[0] = 0;
  w->status = HUDI_OK;
  w->err = err;
}

static void put(hudi_thrift_writer *w, const void *p, size_t n) {
  if (w->status == HUDI_OK) w->status = hudi_buf_append(w->out, p, n, w->err);
}

void hudi_thrift_write_varint(hudi_thrift_writer *w, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  put(w, tmp, n);
}

void hudi_thrift_write_byte(hudi_thrift_writer *w, int8_t v) { put(w, &v, 1); }
void hudi_thrift_write_i16(hudi_thrift_writer *w, int16_t v) { hudi_thrift_write_varint(w, hudi_zigzag_encode64(v)); }
void hudi_thrift_write_i32(hudi_thrift_writer *w, int32_t v) { hudi_thrift_write_varint(w, hudi_zigzag_encode64(v)); }
void hudi_thrift_write_i64(hudi_thrift_writer *w, int64_t v) { hudi_thrift_write_varint(w, hudi_zigzag_encode64(v)); }

void hudi_thrift_write_double(hudi_thrift_writer *w, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
  put(w, b, 8);
}

void hudi_thrift_write_bool(hudi_thrift_writer *w, bool v) {
  uint8_t b = v ? HUDI_TT_BOOL_TRUE : HUDI_TT_BOOL_FALSE;
  put(w, &b, 1);
}

void hudi_thrift_write_binary(hudi_thrift_writer *w, const void *p, size_t len) {
  hudi_thrift_write_varint(w, len);
  put(w, p, len);
}

void hudi_thrift_write_string(hudi_thrift_writer *w, const char *s) { hudi_thrift_write_binary(w, s, strlen(s)); }

void hudi_thrift_write_struct_begin(hudi_thrift_writer *w) {
  if (w->status != HUDI_OK) return;
  if (w->depth >= HUDI_THRIFT_MAX_DEPTH) {
    w->status = hudi_err_set(w->err, HUDI_ERR_INTERNAL, "thrift writer: structs nested too deeply");
    return;
  }
  w->last_id[++w->depth] = 0;
}

void hudi_thrift_write_struct_end(hudi_thrift_writer *w) {
  uint8_t stop = 0;
  put(w, &stop, 1);
  if (w->depth > 0) w->depth--;
}

void hudi_thrift_write_field(hudi_thrift_writer *w, uint8_t type, int16_t id) {
  int16_t *last = &w->last_id[w->depth];
  int32_t delta = (int32_t)id - *last;
  if (delta > 0 && delta <= 15) {
    uint8_t b = (uint8_t)(delta << 4 | type);
    put(w, &b, 1);
  } else {
    put(w, &type, 1);
    hudi_thrift_write_i16(w, id);
  }
  *last = id;
}

void hudi_thrift_write_bool_field(hudi_thrift_writer *w, int16_t id, bool v) {
  hudi_thrift_write_field(w, v ? HUDI_TT_BOOL_TRUE : HUDI_TT_BOOL_FALSE, id);
}

void hudi_thrift_write_list_begin(hudi_thrift_writer *w, uint8_t elem_type, uint32_t count) {
  if (elem_type == HUDI_TT_BOOL_FALSE) elem_type = HUDI_TT_BOOL;
  if (count < 15) {
    uint8_t b = (uint8_t)(count << 4 | elem_type);
    put(w, &b, 1);
  } else {
    uint8_t b = (uint8_t)(0xf0 | elem_type);
    put(w, &b, 1);
    hudi_thrift_write_varint(w, count);
  }
}

void hudi_thrift_write_map_begin(hudi_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t count) {
  hudi_thrift_write_varint(w, count);
  if (count) {
    uint8_t b = (uint8_t)(key_type << 4 | value_type);
    put(w, &b, 1);
  }
}

void hudi_thrift_write_i32_field(hudi_thrift_writer *w, int16_t id, int32_t v) {
  hudi_thrift_write_field(w, HUDI_TT_I32, id);
  hudi_thrift_write_i32(w, v);
}

void hudi_thrift_write_i64_field(hudi_thrift_writer *w, int16_t id, int64_t v) {
  hudi_thrift_write_field(w, HUDI_TT_I64, id);
  hudi_thrift_write_i64(w, v);
}

void hudi_thrift_write_binary_field(hudi_thrift_writer *w, int16_t id, const void *p, size_t len) {
  hudi_thrift_write_field(w, HUDI_TT_BINARY, id);
  hudi_thrift_write_binary(w, p, len);
}

void hudi_thrift_write_string_field(hudi_thrift_writer *w, int16_t id, const char *s) {
  hudi_thrift_write_binary_field(w, id, s, strlen(s));
}
