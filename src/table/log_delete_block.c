/* DELETE block content, encoded and decoded by hand: the orderingVal union
 * has two `bytes`-typed branches (BytesWrapper and DecimalWrapper), which
 * a generic Avro decoder would have to keep apart by branch index anyway,
 * and the wrapper records add nothing to the bytes. */
#include "table/log_delete_block.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "avro/binary.h"
#include "base/alloc.h"
#include "table/log_format.h"

void hudi_log_delete_list_free(hudi_log_delete_list *l) {
  if (!l) return;
  hudi_free(l->records);
  hudi_free(l->datum);
  memset(l, 0, sizeof *l);
}

static hudi_status read_union_index(hudi_avro_cursor *c, int64_t max, int64_t *idx,
                                    const char *field, hudi_error *err) {
  uint64_t at = hudi_avro_cursor_offset(c);
  HUDI_TRY(hudi_avro_read_long(c, idx, err));
  if (*idx < 0 || *idx > max) {
    char what[96];
    snprintf(what, sizeof what, "%s: union branch %" PRId64 " out of range", field, *idx);
    return hudi_avro_cursor_fail(c, err, at, HUDI_ERR_CORRUPT, what);
  }
  return HUDI_OK;
}

static hudi_status read_opt_string(hudi_avro_cursor *c, const char **s, size_t *len,
                                   const char *field, hudi_error *err) {
  int64_t idx;
  HUDI_TRY(read_union_index(c, 1, &idx, field, err));
  *s = NULL;
  *len = 0;
  if (idx == 0) return HUDI_OK;
  const uint8_t *p;
  HUDI_TRY(hudi_avro_read_bytes(c, &p, len, HUDI_AVRO_MAX_BYTES, err));
  *s = (const char *)p;
  return HUDI_OK;
}

static hudi_status read_ordering(hudi_avro_cursor *c, hudi_log_ordering_val *o, hudi_error *err) {
  uint64_t at = hudi_avro_cursor_offset(c);
  int64_t idx;
  HUDI_TRY(read_union_index(c, HUDI_LOG_ORDERING_ARRAY_BRANCH, &idx, "orderingVal", err));
  memset(o, 0, sizeof *o);
  o->kind = (int32_t)idx;
  int b;
  switch (idx) {
    case HUDI_LOG_ORDERING_NULL: return HUDI_OK;
    case HUDI_LOG_ORDERING_BOOLEAN:
      HUDI_TRY(hudi_avro_read_boolean(c, &b, err));
      o->v.b = b != 0;
      return HUDI_OK;
    case HUDI_LOG_ORDERING_INT:
    case HUDI_LOG_ORDERING_DATE: return hudi_avro_read_int(c, &o->v.i, err);
    case HUDI_LOG_ORDERING_LONG:
    case HUDI_LOG_ORDERING_TIME_MICROS:
    case HUDI_LOG_ORDERING_TIMESTAMP_MICROS: return hudi_avro_read_long(c, &o->v.l, err);
    case HUDI_LOG_ORDERING_FLOAT: return hudi_avro_read_float(c, &o->v.f, err);
    case HUDI_LOG_ORDERING_DOUBLE: return hudi_avro_read_double(c, &o->v.d, err);
    case HUDI_LOG_ORDERING_BYTES:
    case HUDI_LOG_ORDERING_STRING:
    case HUDI_LOG_ORDERING_DECIMAL:
      return hudi_avro_read_bytes(c, &o->v.bytes.p, &o->v.bytes.len, HUDI_AVRO_MAX_BYTES, err);
    default:
      return hudi_avro_cursor_fail(c, err, at, HUDI_ERR_UNSUPPORTED,
                                   "orderingVal is an ArrayWrapper (multiple ordering fields), "
                                   "which is not supported");
  }
}

static hudi_status push_record(hudi_log_delete_list *l, size_t *cap, const hudi_log_delete_record *r,
                               hudi_error *err) {
  if (l->count == *cap) {
    size_t ncap = *cap ? *cap * 2 : 8;
    hudi_log_delete_record *p = hudi_realloc(l->records, hudi_mul_size(ncap, sizeof *p));
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (delete records)");
    l->records = p;
    *cap = ncap;
  }
  l->records[l->count++] = *r;
  return HUDI_OK;
}

static hudi_status decode_datum(hudi_log_delete_list *l, hudi_avro_cursor *c, hudi_error *err) {
  size_t cap = 0;
  for (;;) {
    uint64_t at = hudi_avro_cursor_offset(c);
    int64_t n;
    HUDI_TRY(hudi_avro_read_long(c, &n, err));
    if (n == 0) break;
    if (n < 0) { /* a block with its byte size: the size is only a hint */
      int64_t bytes;
      HUDI_TRY(hudi_avro_read_long(c, &bytes, err));
      if (n == INT64_MIN) return hudi_avro_cursor_fail(c, err, at, HUDI_ERR_CORRUPT, "array count");
      n = -n;
    }
    /* Every record takes at least 3 bytes (three union indexes). */
    if ((uint64_t)n > hudi_avro_cursor_left(c) / 3 ||
        (uint64_t)n > HUDI_LOG_DELETE_MAX_RECORDS - l->count)
      return hudi_avro_cursor_fail(c, err, at, HUDI_ERR_CORRUPT,
                                   "delete record count larger than the data");
    for (int64_t i = 0; i < n; i++) {
      hudi_log_delete_record r;
      HUDI_TRY(read_opt_string(c, &r.record_key, &r.record_key_len, "recordKey", err));
      HUDI_TRY(read_opt_string(c, &r.partition_path, &r.partition_path_len, "partitionPath", err));
      HUDI_TRY(read_ordering(c, &r.ordering, err));
      HUDI_TRY(push_record(l, &cap, &r, err));
    }
  }
  return HUDI_OK;
}

hudi_status hudi_log_delete_block_decode(hudi_log_delete_list *out, const uint8_t *content,
                                         size_t len, uint64_t base, const char *where,
                                         hudi_error *err) {
  if (!where) where = "?";
  if (len < 8)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "log file %s: delete block content at byte %" PRIu64 " shorter than 8 bytes",
                        where, base);
  int32_t version = (int32_t)hudi_log_be32(content);
  int32_t dlen = (int32_t)hudi_log_be32(content + 4);
  if (version == 1 || version == 2)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "log file %s: delete block at byte %" PRIu64 " has content version %" PRId32
                        " (Java/Kryo serialized keys, written before Hudi 0.14); only version 3 "
                        "(Avro) is supported",
                        where, base, version);
  if (dlen < 0 || (size_t)dlen > len - 8)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "log file %s: delete block at byte %" PRIu64 ": data length %" PRId32
                        " does not fit in %zu content bytes",
                        where, base, dlen, len);
  hudi_log_delete_list l;
  memset(&l, 0, sizeof l);
  l.version = version;
  l.datum_len = (size_t)dlen;
  l.datum = hudi_malloc(l.datum_len ? l.datum_len : 1);
  if (!l.datum) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (delete block)");
  if (dlen) memcpy(l.datum, content + 8, l.datum_len);
  char what[600];
  snprintf(what, sizeof what, "log file %s: delete block", where);
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, l.datum, l.datum_len, base + 8, what);
  hudi_status st = decode_datum(&l, &c, err);
  if (st != HUDI_OK) {
    hudi_log_delete_list_free(&l);
    return st;
  }
  *out = l;
  return HUDI_OK;
}

static hudi_status write_opt_string(hudi_buf *b, const char *s, size_t len, hudi_error *err) {
  if (!s) return hudi_avro_write_long(b, 0, err);
  HUDI_TRY(hudi_avro_write_long(b, 1, err));
  return hudi_avro_write_bytes(b, s, len, err);
}

static hudi_status write_ordering(hudi_buf *b, const hudi_log_ordering_val *o, hudi_error *err) {
  if (o->kind < 0 || o->kind >= HUDI_LOG_ORDERING_ARRAY_BRANCH)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "delete record ordering kind %" PRId32,
                        o->kind);
  HUDI_TRY(hudi_avro_write_long(b, o->kind, err));
  switch (o->kind) {
    case HUDI_LOG_ORDERING_NULL: return HUDI_OK;
    case HUDI_LOG_ORDERING_BOOLEAN: return hudi_buf_append_byte(b, o->v.b ? 1 : 0, err);
    case HUDI_LOG_ORDERING_INT:
    case HUDI_LOG_ORDERING_DATE: return hudi_avro_write_long(b, o->v.i, err);
    case HUDI_LOG_ORDERING_LONG:
    case HUDI_LOG_ORDERING_TIME_MICROS:
    case HUDI_LOG_ORDERING_TIMESTAMP_MICROS: return hudi_avro_write_long(b, o->v.l, err);
    case HUDI_LOG_ORDERING_FLOAT: return hudi_avro_write_float(b, o->v.f, err);
    case HUDI_LOG_ORDERING_DOUBLE: return hudi_avro_write_double(b, o->v.d, err);
    default:
      if (o->v.bytes.len > 0 && !o->v.bytes.p)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "delete record ordering bytes are NULL");
      return hudi_avro_write_bytes(b, o->v.bytes.p, o->v.bytes.len, err);
  }
}

hudi_status hudi_log_delete_list_encode_datum(hudi_buf *out, const hudi_log_delete_record *records,
                                              size_t count, hudi_error *err) {
  if (count > HUDI_LOG_DELETE_MAX_RECORDS || (count && !records))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "delete records: bad count");
  if (count) {
    HUDI_TRY(hudi_avro_write_long(out, (int64_t)count, err));
    for (size_t i = 0; i < count; i++) {
      const hudi_log_delete_record *r = &records[i];
      HUDI_TRY(write_opt_string(out, r->record_key, r->record_key_len, err));
      HUDI_TRY(write_opt_string(out, r->partition_path, r->partition_path_len, err));
      HUDI_TRY(write_ordering(out, &r->ordering, err));
    }
  }
  return hudi_avro_write_long(out, 0, err);
}

hudi_status hudi_log_delete_block_encode(hudi_buf *out, const hudi_log_delete_record *records,
                                         size_t count, hudi_error *err) {
  size_t mark = out->len;
  hudi_status st = hudi_log_put_be32(out, HUDI_LOG_DELETE_BLOCK_VERSION, err);
  if (st == HUDI_OK) st = hudi_log_put_be32(out, 0, err); /* patched below */
  if (st == HUDI_OK) st = hudi_log_delete_list_encode_datum(out, records, count, err);
  if (st == HUDI_OK && out->len - mark - 8 > INT32_MAX)
    st = hudi_err_set(err, HUDI_ERR_LIMIT, "delete block larger than 2 GiB");
  if (st != HUDI_OK) {
    out->len = mark;
    return st;
  }
  uint32_t dlen = (uint32_t)(out->len - mark - 8);
  uint8_t *p = out->data + mark + 4;
  p[0] = (uint8_t)(dlen >> 24);
  p[1] = (uint8_t)(dlen >> 16);
  p[2] = (uint8_t)(dlen >> 8);
  p[3] = (uint8_t)dlen;
  return HUDI_OK;
}
