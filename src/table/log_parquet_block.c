/* PARQUET_DATA block content (see log_parquet_block.h). */
#include "table/log_parquet_block.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "parquet/writer.h"

hudi_status hudi_log_data_block_format_parse(int32_t *type, const char *value, int32_t dflt, hudi_error *err) {
  if (!value || !*value) *type = dflt;
  else if (!strcasecmp(value, "avro")) *type = HUDI_LOG_BLOCK_AVRO_DATA;
  else if (!strcasecmp(value, "parquet")) *type = HUDI_LOG_BLOCK_PARQUET_DATA;
  else
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s=%s: use avro or parquet", HUDI_LOG_DATA_BLOCK_FORMAT_KEY,
                        value);
  return HUDI_OK;
}

hudi_status hudi_log_parquet_begin(hudi_log_parquet_writer *w, hudi_buf *out, const struct ArrowSchema *schema,
                                   const hudi_pq_writer_options *pq, hudi_error *err) {
  memset(w, 0, sizeof *w);
  hudi_pq_writer_options dflt = HUDI_PQ_WRITER_OPTIONS_INIT;
  dflt.codec = HUDI_PQ_CODEC_GZIP;
  dflt.schema.list_style = HUDI_PQ_LIST_2LEVEL;
  dflt.schema.map_key_value_legacy = true;
  if (!pq) pq = &dflt;
  if (!out || !schema) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "parquet log block: missing argument");
  w->out = out;
  w->start = out->len;
  hudi_status st = hudi_pq_writer_open_buf(&w->w, schema, pq, out, err);
  if (st != HUDI_OK) out->len = w->start;
  return st;
}

hudi_status hudi_log_parquet_write(hudi_log_parquet_writer *w, const struct ArrowArray *batch, bool last,
                                   hudi_error *err) {
  if (!w->w) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "parquet log block: writer not open");
  HUDI_TRY(hudi_pq_writer_write_batch(w->w, batch, last ? HUDI_PQ_WRITE_LAST : 0, err));
  w->rows += batch->length;
  return HUDI_OK;
}

hudi_status hudi_log_parquet_finish(hudi_log_parquet_writer *w, const char *avro_schema, hudi_error *err) {
  if (!w->w) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "parquet log block: writer not open");
  hudi_status st = HUDI_OK;
  /* What HoodieAvroWriteSupport leaves in the footer without a bloom
   * filter: the Avro schema parquet-avro stores, and its model name. */
  if (avro_schema) st = hudi_pq_writer_add_metadata(w->w, "parquet.avro.schema", avro_schema, strlen(avro_schema), err);
  if (st == HUDI_OK && avro_schema) st = hudi_pq_writer_add_metadata(w->w, "writer.model.name", "avro", 4, err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w->w, NULL, err);
  if (st != HUDI_OK) w->out->len = w->start;
  return st;
}

void hudi_log_parquet_writer_free(hudi_log_parquet_writer *w) {
  if (!w) return;
  hudi_pq_writer_free(w->w);
  w->w = NULL;
}

hudi_status hudi_log_parquet_check(const uint8_t *content, size_t len, uint64_t base, const char *where,
                                   uint32_t *footer_len, hudi_error *err) {
  if (!where) where = "?";
  /* "PAR1", at least one footer byte, footer length, "PAR1". */
  if (!content || len < 12)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: parquet data block at byte %" PRIu64
                        " has %zu content bytes, too few for a Parquet file", where, base, len);
  if (memcmp(content, "PAR1", 4) != 0 || memcmp(content + len - 4, "PAR1", 4) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: parquet data block at byte %" PRIu64
                        " does not start and end with PAR1", where, base);
  const uint8_t *p = content + len - 8;
  uint32_t n = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  if (n == 0 || (uint64_t)n > (uint64_t)len - 12)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "log file %s: parquet data block at byte %" PRIu64
                        ": footer length %" PRIu32 " does not fit in %zu bytes", where, base, n, len);
  if (footer_len) *footer_len = n;
  return HUDI_OK;
}
