/* Column ranges of a merge-on-read log file (mdt_column_stats.h).
 *
 * Hudi computes a log file's column stats from the records its append
 * handle writes, not from a footer: min/max over the data blocks' records,
 * nullCount, valueCount = records, totalSize and totalUncompressedSize 0
 * (Spark 1.1 tables show exactly that). We read the file back and decode
 * its data blocks (Avro or Parquet) to Arrow, the way a reader sees them,
 * so the ranges follow the stored values and not the caller's batches.
 * Delete blocks add nothing: a deleted key leaves no value. */
#include <string.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/arrow_decode.h"
#include "avro/schema.h"
#include "base/alloc.h"
#include "expr/value.h"
#include "parquet/reader.h"
#include "table/log_reader.h"
#include "table/mdt_column_stats.h"

static hudi_pq_stat_kind kind_of(hudi_vclass c) {
  switch (c) {
    case HUDI_VC_BOOL: return HUDI_PQ_STAT_BOOL;
    case HUDI_VC_INT: return HUDI_PQ_STAT_INT;
    case HUDI_VC_UINT: return HUDI_PQ_STAT_UINT;
    case HUDI_VC_DOUBLE: return HUDI_PQ_STAT_DOUBLE;
    case HUDI_VC_DECIMAL: return HUDI_PQ_STAT_DECIMAL;
    case HUDI_VC_BYTES: return HUDI_PQ_STAT_BYTES;
    default: return HUDI_PQ_STAT_NONE;
  }
}

static void to_stat(hudi_pq_stat_value *out, const hudi_value *v) {
  memset(out, 0, sizeof *out);
  switch (v->cls) {
    case HUDI_VC_BOOL: out->v.b = v->v.b; break;
    case HUDI_VC_INT: out->v.i = v->v.i; break;
    case HUDI_VC_UINT: out->v.u = v->v.u; break;
    case HUDI_VC_DOUBLE: out->v.d = v->v.d; break;
    case HUDI_VC_DECIMAL: out->v.dec = v->v.dec; break;
    case HUDI_VC_BYTES:
      out->v.bytes.data = v->v.bytes.data;
      out->v.bytes.len = v->v.bytes.len;
      break;
    default: break;
  }
}

/* The range of one column of a batch (bounds borrowed from the batch). */
static void column_range(hudi_cs_range *r, const hudi_arrow_view *v, const hudi_arrow_field *f) {
  const char *fmt = f->dictionary ? f->dictionary->format : f->format;
  r->value_type = hudi_cs_value_type_of(fmt, &r->precision, &r->scale);
  hudi_vclass cls = hudi_vclass_of(&v->type);
  if (v->dictionary) cls = hudi_vclass_of(&v->dictionary->type);
  r->kind = kind_of(cls);
  r->value_count = v->length;
  hudi_value lo = {0}, hi = {0};
  bool any = false;
  for (int64_t i = 0; i < v->length; i++) {
    hudi_value x;
    hudi_value_from_view(&x, v, i);
    if (x.is_null) {
      r->null_count++;
      continue;
    }
    if (r->kind == HUDI_PQ_STAT_NONE) continue;
    if (!any || hudi_value_cmp(&x, &lo) < 0) lo = x;
    if (!any || hudi_value_cmp(&x, &hi) > 0) hi = x;
    any = true;
  }
  if (!any) return;
  to_stat(&r->min, &lo);
  to_stat(&r->max, &hi);
  r->has_min = r->has_max = true;
  if (r->kind == HUDI_PQ_STAT_BYTES && (lo.v.bytes.len > HUDI_CS_MAX_BOUND || hi.v.bytes.len > HUDI_CS_MAX_BOUND)) {
    r->has_min = r->has_max = false;
    r->bounds_unknown = true;
  }
}

/* Folds one decoded batch (a struct array of schema) into acc. */
static hudi_status add_batch(hudi_cs_ranges *acc, const hudi_arrow_field *schema, struct ArrowArray *a,
                             const char *const *columns, size_t n, int64_t *records, hudi_error *err) {
  *records += a->length;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  hudi_status st = hudi_arrow_field_export(&s, schema, err);
  hudi_arrow_view v;
  memset(&v, 0, sizeof v);
  if (st == HUDI_OK) st = hudi_arrow_view_init(&v, &s, a, err);
  for (size_t c = 0; st == HUDI_OK && c < n; c++) {
    int64_t k = 0;
    while (k < schema->n_children && strcmp(schema->children[k].name, columns[c])) k++;
    if (k == schema->n_children) continue; /* the file lacks the column: no record */
    const hudi_arrow_field *f = &schema->children[k];
    const char *fmt = f->dictionary ? f->dictionary->format : f->format;
    int32_t p, sc;
    if (f->n_children || hudi_cs_value_type_of(fmt, &p, &sc) < 0) continue; /* nested or unsupported */
    hudi_cs_range r;
    memset(&r, 0, sizeof r);
    column_range(&r, &v.children[k], f);
    r.column = (char *)columns[c];
    size_t j = 0;
    while (j < acc->n && strcmp(acc->items[j].column, columns[c])) j++;
    st = j == acc->n ? hudi_cs_ranges_push(acc, &r, err) : hudi_cs_range_merge(&acc->items[j], &r, err);
  }
  hudi_arrow_view_clear(&v);
  if (s.release) s.release(&s);
  if (a->release) a->release(a);
  return st;
}

static hudi_status avro_block(hudi_cs_ranges *acc, const hudi_log_block *b, const uint8_t *data, size_t len,
                              const char *const *columns, size_t n, int64_t *records, hudi_error *err) {
  size_t slen;
  const char *json = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &slen);
  if (!json) return hudi_err_set(err, HUDI_ERR_CORRUPT, "data block has no schema");
  hudi_avro_schema *s = NULL;
  HUDI_TRY(hudi_avro_schema_parse(&s, json, slen, err));
  hudi_avro_decoder *d = NULL;
  hudi_status st = hudi_avro_decoder_create(&d, s->root, NULL, NULL, err);
  if (st == HUDI_OK) st = hudi_avro_decoder_decode_data_block(d, data, len, b->content_offset, NULL, err);
  struct ArrowArray a;
  memset(&a, 0, sizeof a);
  if (st == HUDI_OK) st = hudi_avro_decoder_finish(d, &a, err);
  if (st == HUDI_OK) st = add_batch(acc, hudi_avro_decoder_schema(d), &a, columns, n, records, err);
  hudi_avro_decoder_free(d);
  hudi_avro_schema_free(s);
  return st;
}

static hudi_status parquet_block(hudi_cs_ranges *acc, const uint8_t *data, size_t len, const char *where,
                                 const char *const *columns, size_t n, int64_t *records, hudi_error *err) {
  hudi_pq_reader *pq = NULL;
  HUDI_TRY(hudi_pq_reader_open_memory(&pq, data, len, where, NULL, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_pq_reader_next(pq, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = add_batch(acc, hudi_pq_reader_schema(pq), &a, columns, n, records, err);
    if (st != HUDI_OK) break;
  }
  hudi_pq_reader_free(pq);
  return st;
}

hudi_status hudi_cs_log_ranges(hudi_cs_ranges *out, hudi_storage *s, const char *path, const char *const *columns,
                               size_t n, int64_t *n_records, hudi_error *err) {
  if (n_records) *n_records = 0;
  hudi_log_reader *r = NULL;
  HUDI_TRY(hudi_log_reader_open(&r, s, path, err));
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = HUDI_OK;
  int64_t records = 0;
  for (;;) {
    hudi_log_block b;
    bool has = false;
    st = hudi_log_reader_next(r, &b, &has, err);
    if (st != HUDI_OK || !has) break;
    if (b.type == HUDI_LOG_BLOCK_AVRO_DATA || b.type == HUDI_LOG_BLOCK_PARQUET_DATA) {
      hudi_buf_reset(&content);
      const uint8_t *data = b.content;
      size_t len = (size_t)b.content_len;
      if (!data) {
        st = hudi_log_reader_content(r, &b, &content, err);
        data = content.data ? content.data : (const uint8_t *)"";
        len = content.len;
      }
      if (st == HUDI_OK)
        st = b.type == HUDI_LOG_BLOCK_AVRO_DATA ? avro_block(out, &b, data, len, columns, n, &records, err)
                                                : parquet_block(out, data, len, path, columns, n, &records, err);
      if (st != HUDI_OK) st = hudi_err_context(err, st, "block at offset %llu", (unsigned long long)b.offset);
    }
    hudi_log_block_free(&b);
    if (st != HUDI_OK) break;
  }
  hudi_buf_free(&content);
  hudi_log_reader_free(r);
  if (st != HUDI_OK) {
    hudi_cs_ranges_free(out);
    return hudi_err_context(err, st, "column stats of log file %s", path);
  }
  if (n_records) *n_records = records;
  return HUDI_OK;
}
