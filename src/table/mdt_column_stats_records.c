/* A file's column ranges from its column_stats records
 * (mdt_column_stats.h, hudi_cs_ranges_from_records): what partition
 * statistics merge for the files a commit did not write, as Hudi's
 * convertMetadataToPartitionStatRecords takes them from the metadata
 * table instead of reading the files. */
#include <string.h>

#include "avro/value.h"
#include "base/alloc.h"
#include "table/mdt_column_stats.h"

int32_t hudi_cs_record_value_type(const hudi_mdt_record *r) {
  const hudi_avro_value *cs =
      r->value ? hudi_avro_value_unwrap(hudi_avro_value_field(r->value, "ColumnStatsMetadata")) : NULL;
  const hudi_avro_value *vt = cs ? hudi_avro_value_unwrap(hudi_avro_value_field(cs, "valueType")) : NULL;
  const hudi_avro_value *o = vt ? hudi_avro_value_unwrap(hudi_avro_value_field(vt, "typeOrdinal")) : NULL;
  if (!o) return -1;
  return o->node->type == HUDI_AVRO_INT ? o->v.i : o->node->type == HUDI_AVRO_LONG ? (int32_t)o->v.l : -1;
}

/* BigInteger.toByteArray's bytes (big-endian two's complement, 1-16 of
 * them) as an i128. */
static bool decimal_of(hudi_pq_i128 *out, const uint8_t *b, size_t n) {
  if (n == 0 || n > 16) return false;
  unsigned __int128 u = (b[0] & 0x80) ? ~(unsigned __int128)0 : 0;
  for (size_t i = 0; i < n; i++) u = u << 8 | b[i];
  *out = (hudi_pq_i128)u;
  return true;
}

/* A bound wrapper's value as a statistic of ref's kind (and decimal
 * scale); false when its Avro type does not fit. vt: the record's value
 * type, -1 for V1 records. */
static bool bound_of(hudi_pq_stat_value *out, const hudi_avro_value *wrapper, const hudi_cs_range *ref, int32_t vt) {
  hudi_pq_stat_kind kind = ref->kind;
  const hudi_avro_value *w = hudi_avro_value_unwrap(wrapper);
  if (!w || w->node->type != HUDI_AVRO_RECORD) return false;
  const hudi_avro_value *v = hudi_avro_value_unwrap(hudi_avro_value_field(w, "value"));
  if (!v) return false;
  memset(out, 0, sizeof *out);
  hudi_avro_type at = v->node->type;
  switch (kind) {
    case HUDI_PQ_STAT_BOOL:
      if (at != HUDI_AVRO_BOOLEAN) return false;
      out->v.b = v->v.boolean != 0;
      return true;
    case HUDI_PQ_STAT_INT:
    case HUDI_PQ_STAT_UINT: {
      int64_t x;
      if (at == HUDI_AVRO_INT) x = v->v.i;
      else if (at == HUDI_AVRO_LONG) x = v->v.l;
      else return false;
      if (kind == HUDI_PQ_STAT_INT) out->v.i = x;
      else out->v.u = (uint64_t)x;
      return true;
    }
    case HUDI_PQ_STAT_DOUBLE:
      if (at == HUDI_AVRO_FLOAT) out->v.d = v->v.f;
      else if (at == HUDI_AVRO_DOUBLE) out->v.d = v->v.d;
      else return false;
      return true;
    case HUDI_PQ_STAT_BYTES:
      if (at != HUDI_AVRO_STRING && at != HUDI_AVRO_BYTES) return false;
      out->v.bytes.data = v->v.bytes.data;
      out->v.bytes.len = v->v.bytes.len;
      return true;
    case HUDI_PQ_STAT_DECIMAL: {
      /* V2 wraps the unscaled value in BytesWrapper; V1's DecimalWrapper
       * holds it at scale 15 (mdt_column_stats.c, v1_decimal): back to
       * the column's scale, exactly. */
      if (at != HUDI_AVRO_BYTES || (vt >= 0 && vt != HUDI_CS_VT_DECIMAL)) return false;
      if (!decimal_of(&out->v.dec, v->v.bytes.data, v->v.bytes.len)) return false;
      if (vt >= 0) return true;
      if (ref->scale < 0 || ref->scale > 15) return false;
      for (int32_t i = ref->scale; i < 15; i++) {
        if (out->v.dec % 10 != 0) return false;
        out->v.dec /= 10;
      }
      return true;
    }
    default: return false;
  }
}

/* One column's range from its record, typed like ref; false when the
 * record is missing or does not convert. */
static bool range_of(hudi_cs_range *r, const hudi_mdt_record *rec, const char *column, const hudi_cs_range *ref) {
  memset(r, 0, sizeof *r);
  if (!rec->key || !rec->has_column_stats) return false;
  const hudi_mdt_column_stats *cs = &rec->column_stats;
  if (cs->is_deleted || !cs->has_value_count || !cs->has_null_count || cs->null_count < 0 ||
      cs->value_count < cs->null_count)
    return false;
  int32_t vt = hudi_cs_record_value_type(rec);
  r->column = (char *)column;
  r->null_count = cs->null_count;
  r->value_count = cs->value_count;
  r->total_size = cs->has_total_size ? cs->total_size : 0;
  r->total_uncompressed_size = cs->has_total_uncompressed_size ? cs->total_uncompressed_size : 0;
  bool has_values = cs->value_count > cs->null_count;
  if (vt == HUDI_CS_VT_NULL) { /* a delete-only log file's stub: no values, no type */
    r->value_type = HUDI_CS_VT_NULL;
    return !has_values;
  }
  if (!ref || ref->kind == HUDI_PQ_STAT_NONE || (vt >= 0 && vt != ref->value_type)) return false;
  r->value_type = ref->value_type;
  r->precision = ref->precision;
  r->scale = ref->scale;
  r->kind = ref->kind;
  if (!has_values) return true;
  bool lo = cs->min_value && bound_of(&r->min, cs->min_value, ref, vt);
  bool hi = cs->max_value && bound_of(&r->max, cs->max_value, ref, vt);
  if (lo && hi) {
    r->has_min = r->has_max = true;
    return true;
  }
  /* Values without bounds: the writer knew none (no statistics, or a bound
   * over HUDI_CS_MAX_BOUND). A bound present but not convertible: read the
   * file instead. */
  if ((cs->min_value && hudi_avro_value_unwrap(cs->min_value)) ||
      (cs->max_value && hudi_avro_value_unwrap(cs->max_value)))
    return false;
  r->bounds_unknown = true;
  return true;
}

hudi_status hudi_cs_ranges_from_records(hudi_cs_ranges *out, bool *ok, const hudi_mdt_record *recs,
                                        char *const *cols, size_t n_cols, const hudi_cs_range *const *refs,
                                        hudi_error *err) {
  *ok = false;
  hudi_cs_range *ranges = n_cols ? hudi_calloc(n_cols, sizeof *ranges) : NULL;
  if (n_cols && !ranges) return hudi_err_set(err, HUDI_ERR_NOMEM, "column ranges");
  bool all = true;
  for (size_t k = 0; all && k < n_cols; k++) all = range_of(&ranges[k], &recs[k], cols[k], refs[k]);
  hudi_status st = HUDI_OK;
  /* ranges_push copies the names and the bounds (borrowed from recs). */
  for (size_t k = 0; all && st == HUDI_OK && k < n_cols; k++) st = hudi_cs_ranges_push(out, &ranges[k], err);
  hudi_free(ranges);
  *ok = all && st == HUDI_OK;
  return st;
}
