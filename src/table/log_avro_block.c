/* AVRO_DATA block content framing (see log_avro_block.h). */
#include "table/log_avro_block.h"

#include <inttypes.h>
#include <string.h>

#include "table/log_format.h"

hudi_status hudi_log_avro_records_open(hudi_log_avro_records *it, const uint8_t *content,
                                       size_t len, uint64_t base, const char *where,
                                       hudi_error *err) {
  if (!where) where = "?";
  memset(it, 0, sizeof *it);
  if (len < 8 || !content)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: avro data block content at byte %"
                        PRIu64 " shorter than 8 bytes", where, base);
  it->version = (int32_t)hudi_log_be32(content);
  it->count = (int32_t)hudi_log_be32(content + 4);
  if (it->version < 1 || it->version > HUDI_LOG_AVRO_BLOCK_VERSION)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "log file %s: avro data block at byte %" PRIu64
                        " has content version %" PRId32, where, base, it->version);
  if (it->count < 0 || (size_t)it->count > (len - 8) / 4)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: avro data block at byte %" PRIu64
                        ": record count %" PRId32 " does not fit in %zu bytes",
                        where, base, it->count, len);
  it->data = content;
  it->len = len;
  it->pos = 8;
  it->base = base;
  it->where = where;
  return HUDI_OK;
}

hudi_status hudi_log_avro_records_next(hudi_log_avro_records *it, const uint8_t **datum,
                                       size_t *len, bool *has, hudi_error *err) {
  *has = false;
  if (it->index >= it->count) return HUDI_OK;
  if (it->len - it->pos < 4)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: avro data block: record %" PRId32
                        " length cut off at byte %" PRIu64, it->where, it->index,
                        it->base + it->pos);
  int32_t n = (int32_t)hudi_log_be32(it->data + it->pos);
  if (n < 0 || (size_t)n > it->len - it->pos - 4)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: avro data block: record %" PRId32
                        " length %" PRId32 " at byte %" PRIu64 " runs past the block",
                        it->where, it->index, n, it->base + it->pos);
  *datum = it->data + it->pos + 4;
  *len = (size_t)n;
  it->pos += 4 + (size_t)n;
  it->index++;
  *has = true;
  return HUDI_OK;
}

static void patch_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

hudi_status hudi_log_avro_records_begin(hudi_log_avro_records_writer *w, hudi_buf *out,
                                        hudi_error *err) {
  w->out = out;
  w->start = out->len;
  w->record_at = SIZE_MAX;
  w->count = 0;
  HUDI_TRY(hudi_log_put_be32(out, HUDI_LOG_AVRO_BLOCK_VERSION, err));
  hudi_status st = hudi_log_put_be32(out, 0, err);
  if (st != HUDI_OK) out->len = w->start;
  return st;
}

hudi_status hudi_log_avro_records_record_begin(hudi_log_avro_records_writer *w, hudi_error *err) {
  if (w->record_at != SIZE_MAX || w->count == INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "avro data block: record already open or full");
  size_t at = w->out->len;
  HUDI_TRY(hudi_log_put_be32(w->out, 0, err));
  w->record_at = at;
  return HUDI_OK;
}

hudi_status hudi_log_avro_records_record_end(hudi_log_avro_records_writer *w, hudi_error *err) {
  if (w->record_at == SIZE_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "avro data block: no record open");
  size_t n = w->out->len - w->record_at - 4;
  if (n > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "avro record larger than 2 GiB");
  patch_be32(w->out->data + w->record_at, (uint32_t)n);
  w->record_at = SIZE_MAX;
  w->count++;
  return HUDI_OK;
}

hudi_status hudi_log_avro_records_add(hudi_log_avro_records_writer *w, const uint8_t *datum,
                                      size_t len, hudi_error *err) {
  if (len > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "avro record larger than 2 GiB");
  size_t mark = w->out->len;
  HUDI_TRY(hudi_log_avro_records_record_begin(w, err));
  hudi_status st = hudi_buf_append(w->out, datum, len, err);
  if (st == HUDI_OK) return hudi_log_avro_records_record_end(w, err);
  w->out->len = mark;
  w->record_at = SIZE_MAX;
  return st;
}

hudi_status hudi_log_avro_records_finish(hudi_log_avro_records_writer *w, hudi_error *err) {
  if (w->record_at != SIZE_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "avro data block: a record is still open");
  patch_be32(w->out->data + w->start + 4, (uint32_t)w->count);
  return HUDI_OK;
}
