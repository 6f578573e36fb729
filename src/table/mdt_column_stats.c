/* column_stats and partition_stats records (mdt_column_stats.h). */
#include "table/mdt_column_stats.h"
#include "table/mdt_fsview.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "avro/value.h"
#include "base/alloc.h"
#include "io/sigv4.h"
#include "parquet/reader.h"
#include "base/hashmap.h"
#include "table/base_file.h"
#include "table/commit_metadata.h"
#include "table/fsview.h"
#include "table/index_defs.h"
#include "table/log_file_name.h"
#include "table/mdt_reader.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"
#include "table/properties.h"
#include "table/schema_resolve.h"
#include "table/table.h"

/* Java passes the int seed 0xdabadaba to hash64(long seed): sign-extended. */
#define HASH_SEED 0xffffffffdabadabaULL

/* ---- ranges ---- */

static void range_clear(hudi_cs_range *r) {
  hudi_free(r->column);
  hudi_free(r->min_buf);
  hudi_free(r->max_buf);
  memset(r, 0, sizeof *r);
}

void hudi_cs_ranges_free(hudi_cs_ranges *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) range_clear(&r->items[i]);
  hudi_free(r->items);
  memset(r, 0, sizeof *r);
}

static hudi_status ranges_grow(hudi_cs_ranges *out, hudi_cs_range **slot, hudi_error *err) {
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : 16;
    hudi_cs_range *items = hudi_realloc(out->items, cap * sizeof *items);
    if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "column ranges");
    out->items = items;
    out->cap = cap;
  }
  *slot = &out->items[out->n++];
  memset(*slot, 0, sizeof **slot);
  return HUDI_OK;
}

/* Makes a byte bound owned by the range (buf replaces *owned). */
static hudi_status own_bytes(hudi_pq_stat_value *v, uint8_t **owned, hudi_error *err) {
  size_t len = v->v.bytes.len;
  uint8_t *copy = hudi_malloc(len ? len : 1);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "column bound of %zu bytes", len);
  if (len) memcpy(copy, v->v.bytes.data, len);
  hudi_free(*owned);
  *owned = copy;
  v->v.bytes.data = copy;
  return HUDI_OK;
}

hudi_status hudi_cs_ranges_push(hudi_cs_ranges *out, const hudi_cs_range *src, hudi_error *err) {
  hudi_cs_range *d = NULL;
  HUDI_TRY(ranges_grow(out, &d, err));
  *d = *src;
  d->column = NULL;
  d->min_buf = d->max_buf = NULL;
  d->column = hudi_strdup(src->column ? src->column : "");
  hudi_status st = d->column ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "column name");
  if (st == HUDI_OK && d->kind == HUDI_PQ_STAT_BYTES && d->has_min) st = own_bytes(&d->min, &d->min_buf, err);
  if (st == HUDI_OK && d->kind == HUDI_PQ_STAT_BYTES && d->has_max) st = own_bytes(&d->max, &d->max_buf, err);
  if (st != HUDI_OK) {
    range_clear(d);
    out->n--;
  }
  return st;
}

hudi_status hudi_cs_range_merge(hudi_cs_range *acc, const hudi_cs_range *src, hudi_error *err) {
  acc->null_count += src->null_count;
  acc->value_count += src->value_count;
  acc->total_size += src->total_size;
  acc->total_uncompressed_size += src->total_uncompressed_size;
  if (src->kind == HUDI_PQ_STAT_NONE) return HUDI_OK;
  if (src->bounds_unknown || acc->bounds_unknown) {
    /* A bound that leaves out values would let a reader skip them. */
    if (acc->kind == HUDI_PQ_STAT_NONE) {
      acc->value_type = src->value_type;
      acc->precision = src->precision;
      acc->scale = src->scale;
      acc->kind = src->kind;
    }
    acc->bounds_unknown = true;
    acc->has_min = acc->has_max = false;
    return HUDI_OK;
  }
  if (acc->kind == HUDI_PQ_STAT_NONE || (!acc->has_min && !acc->has_max)) {
    /* Take src's type and bounds whole. */
    if (acc->kind != src->kind || acc->value_type == HUDI_CS_VT_NULL) {
      acc->value_type = src->value_type;
      acc->precision = src->precision;
      acc->scale = src->scale;
      acc->kind = src->kind;
    }
  }
  if (acc->kind != src->kind) return HUDI_OK; /* types differ (evolution): keep acc's */
  if (src->has_min && (!acc->has_min || hudi_pq_stat_compare(acc->kind, &src->min, &acc->min) < 0)) {
    acc->min = src->min;
    acc->has_min = true;
    if (acc->kind == HUDI_PQ_STAT_BYTES) HUDI_TRY(own_bytes(&acc->min, &acc->min_buf, err));
  }
  if (src->has_max && (!acc->has_max || hudi_pq_stat_compare(acc->kind, &src->max, &acc->max) > 0)) {
    acc->max = src->max;
    acc->has_max = true;
    if (acc->kind == HUDI_PQ_STAT_BYTES) HUDI_TRY(own_bytes(&acc->max, &acc->max_buf, err));
  }
  return HUDI_OK;
}

/* ---- keys ---- */

static hudi_status append_b64(hudi_buf *out, const uint8_t *d, size_t n, hudi_error *err) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16;
    if (i + 1 < n) v |= (uint32_t)d[i + 1] << 8;
    if (i + 2 < n) v |= d[i + 2];
    char q[4] = {tab[(v >> 18) & 63], tab[(v >> 12) & 63], i + 1 < n ? tab[(v >> 6) & 63] : '=',
                 i + 2 < n ? tab[v & 63] : '='};
    HUDI_TRY(hudi_buf_append(out, q, 4, err));
  }
  return HUDI_OK;
}

/* b64 of the big-endian XXH64 (HashID BITS_64, Bytes.toBytes(long)). */
static hudi_status append_id64(hudi_buf *out, const char *s, hudi_error *err) {
  uint64_t h = XXH64(s, strlen(s), HASH_SEED);
  uint8_t be[8];
  for (int i = 0; i < 8; i++) be[i] = (uint8_t)(h >> (56 - 8 * i));
  return append_b64(out, be, 8, err);
}

static const char *partition_id(const char *p) { return p && *p ? p : HUDI_MDT_NON_PARTITIONED_NAME; }

hudi_status hudi_cs_partition_stats_key(hudi_buf *out, const char *column, const char *partition, hudi_error *err) {
  HUDI_TRY(append_id64(out, column, err));
  return append_id64(out, partition_id(partition), err);
}

hudi_status hudi_cs_file_key(hudi_buf *out, const char *partition, const char *file_name, hudi_error *err) {
  HUDI_TRY(append_id64(out, partition_id(partition), err));
  char md5[25];
  hudi_md5_base64(md5, file_name, strlen(file_name)); /* FileIndexID: MD5, BITS_128 */
  return hudi_buf_append(out, md5, strlen(md5), err);
}

hudi_status hudi_cs_column_stats_key(hudi_buf *out, const char *column, const char *partition, const char *file_name,
                                     hudi_error *err) {
  HUDI_TRY(append_id64(out, column, err));
  return hudi_cs_file_key(out, partition, file_name, err);
}

/* ---- columns ---- */

void hudi_cs_columns_free(char **cols, size_t n) {
  for (size_t i = 0; cols && i < n; i++) hudi_free(cols[i]);
  hudi_free(cols);
}

static hudi_status columns_from_json(char ***out, size_t *n, int *layout, json_t *root, const char *path,
                                     hudi_error *err) {
  json_t *def = json_object_get(json_object_get(root, "indexDefinitions"), "column_stats");
  if (!json_is_object(def))
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "%s: no column_stats index definition", path);
  const char *version = json_string_value(json_object_get(def, "version"));
  if (version && strcmp(version, "V2") != 0 && strcmp(version, "V1") != 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "%s: column_stats index version %s (hudi-c writes the V1 and V2 layouts)", path, version);
  if (layout) *layout = version && !strcmp(version, "V1") ? HUDI_CS_LAYOUT_V1 : HUDI_CS_LAYOUT_V2;
  json_t *fields = json_object_get(def, "sourceFields");
  size_t count = json_is_array(fields) ? json_array_size(fields) : 0;
  if (!json_is_array(fields) || count > HUDI_CS_MAX_COLUMNS)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: column_stats sourceFields is not an array of at most %d names",
                        path, HUDI_CS_MAX_COLUMNS);
  char **cols = hudi_calloc(count ? count : 1, sizeof *cols);
  if (!cols) return hudi_err_set(err, HUDI_ERR_NOMEM, "column list");
  for (size_t i = 0; i < count; i++) {
    const char *name = json_string_value(json_array_get(fields, i));
    if (!name) {
      hudi_cs_columns_free(cols, i);
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: column_stats sourceFields[%zu] is not a string", path, i);
    }
    cols[i] = hudi_strdup(name);
    if (!cols[i]) {
      hudi_cs_columns_free(cols, i);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "column list");
    }
  }
  *out = cols;
  *n = count;
  return HUDI_OK;
}

hudi_status hudi_cs_columns_load(char ***out, size_t *n, int *layout, hudi_storage *s, const char *index_defs_path,
                                 hudi_error *err) {
  *out = NULL;
  *n = 0;
  if (layout) *layout = HUDI_CS_LAYOUT_V2;
  const char *path = index_defs_path && *index_defs_path ? index_defs_path : HUDI_INDEX_DEFS_DEFAULT_PATH;
  json_t *root = NULL;
  HUDI_TRY(hudi_index_defs_load(&root, s, path, err));
  hudi_status st = columns_from_json(out, n, layout, root, path, err);
  json_decref(root);
  return st;
}

/* ---- ranges from a Parquet footer ---- */

/* Hudi's ValueType of an Arrow leaf format (ValueType.fromParquetPrimitiveType
 * through the Parquet annotation). */
int32_t hudi_cs_value_type_of(const char *fmt, int32_t *precision, int32_t *scale) {
  *precision = *scale = 0;
  if (!strcmp(fmt, "b")) return HUDI_CS_VT_BOOLEAN;
  if (!strcmp(fmt, "c") || !strcmp(fmt, "s") || !strcmp(fmt, "i") || !strcmp(fmt, "C") || !strcmp(fmt, "S"))
    return HUDI_CS_VT_INT;
  if (!strcmp(fmt, "l") || !strcmp(fmt, "I") || !strcmp(fmt, "L")) return HUDI_CS_VT_LONG;
  if (!strcmp(fmt, "f")) return HUDI_CS_VT_FLOAT;
  if (!strcmp(fmt, "g")) return HUDI_CS_VT_DOUBLE;
  if (!strcmp(fmt, "u") || !strcmp(fmt, "U") || !strcmp(fmt, "vu")) return HUDI_CS_VT_STRING;
  if (!strcmp(fmt, "z") || !strcmp(fmt, "Z") || !strcmp(fmt, "vz")) return HUDI_CS_VT_BYTES;
  if (!strncmp(fmt, "w:", 2)) return HUDI_CS_VT_FIXED;
  if (!strncmp(fmt, "d:", 2)) {
    if (sscanf(fmt + 2, "%d,%d", precision, scale) != 2) return -1;
    return HUDI_CS_VT_DECIMAL;
  }
  if (!strcmp(fmt, "tdD")) return HUDI_CS_VT_DATE;
  if (!strcmp(fmt, "ttm")) return HUDI_CS_VT_TIME_MILLIS;
  if (!strcmp(fmt, "ttu")) return HUDI_CS_VT_TIME_MICROS;
  if (!strncmp(fmt, "ts", 2) && strlen(fmt) >= 4 && fmt[3] == ':') {
    bool utc = fmt[4] != '\0';
    switch (fmt[2]) {
      case 'm': return utc ? HUDI_CS_VT_TIMESTAMP_MILLIS : HUDI_CS_VT_LOCAL_TIMESTAMP_MILLIS;
      case 'u': return utc ? HUDI_CS_VT_TIMESTAMP_MICROS : HUDI_CS_VT_LOCAL_TIMESTAMP_MICROS;
      case 'n': return utc ? HUDI_CS_VT_TIMESTAMP_NANOS : HUDI_CS_VT_LOCAL_TIMESTAMP_NANOS;
      default: return -1;
    }
  }
  return -1;
}

static const hudi_arrow_field *top_field(const hudi_arrow_field *root, const char *name) {
  for (int64_t i = 0; root && i < root->n_children; i++)
    if (root->children[i].name && !strcmp(root->children[i].name, name)) return &root->children[i];
  return NULL;
}

/* One top-level primitive column over every row group. */
static hudi_status column_range(hudi_cs_ranges *out, const hudi_pq_reader *r, uint32_t leaf, const char *name,
                                int32_t vt, int32_t precision, int32_t scale, hudi_error *err) {
  const hudi_pq_file_meta *m = hudi_pq_reader_meta(r);
  hudi_cs_range acc;
  memset(&acc, 0, sizeof acc);
  acc.value_type = vt;
  acc.precision = precision;
  acc.scale = scale;
  bool bounds_known = true;
  for (uint32_t rg = 0; rg < m->num_row_groups; rg++) {
    if (leaf >= m->row_groups[rg].num_columns) return hudi_err_set(err, HUDI_ERR_CORRUPT, "row group %u lacks column %s", rg, name);
    const hudi_pq_column_meta *cm = &m->row_groups[rg].columns[leaf].meta;
    hudi_pq_col_stats cs;
    hudi_pq_reader_stats(&cs, r, rg, leaf);
    acc.kind = cs.kind;
    acc.value_count += cm->num_values;
    acc.total_size += cm->total_compressed_size;
    acc.total_uncompressed_size += cm->total_uncompressed_size;
    if (cs.null_count >= 0) acc.null_count += cs.null_count;
    int64_t non_null = cm->num_values - (cs.null_count > 0 ? cs.null_count : 0);
    /* A row group with values but no bound leaves the file's bound unknown. */
    if (non_null > 0 && (!cs.has_min || !cs.has_max)) bounds_known = false;
    if (cs.has_min && (!acc.has_min || hudi_pq_stat_compare(cs.kind, &cs.min, &acc.min) < 0)) {
      acc.min = cs.min;
      acc.has_min = true;
    }
    if (cs.has_max && (!acc.has_max || hudi_pq_stat_compare(cs.kind, &cs.max, &acc.max) > 0)) {
      acc.max = cs.max;
      acc.has_max = true;
    }
  }
  if (!bounds_known || acc.kind == HUDI_PQ_STAT_NONE) acc.has_min = acc.has_max = false;
  if (acc.kind == HUDI_PQ_STAT_BYTES &&
      ((acc.has_min && acc.min.v.bytes.len > HUDI_CS_MAX_BOUND) || (acc.has_max && acc.max.v.bytes.len > HUDI_CS_MAX_BOUND))) {
    acc.has_min = acc.has_max = false;
    bounds_known = false;
  }
  acc.bounds_unknown = !bounds_known && acc.kind != HUDI_PQ_STAT_NONE;
  acc.column = (char *)name;
  return hudi_cs_ranges_push(out, &acc, err); /* copies the name and the borrowed bounds */
}

hudi_status hudi_cs_parquet_ranges(hudi_cs_ranges *out, hudi_storage *s, const char *path, uint64_t file_size,
                                   const char *const *columns, size_t n, hudi_error *err) {
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.file_size = file_size;
  hudi_pq_reader *r = NULL;
  HUDI_TRY(hudi_pq_reader_open(&r, s, path, &o, err));
  const hudi_arrow_field *root = hudi_pq_reader_schema(r);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    int64_t leaf = hudi_pq_reader_find_leaf(r, columns[i]);
    const hudi_arrow_field *f = top_field(root, columns[i]);
    if (leaf < 0 || !f || f->n_children) continue; /* absent or nested */
    const hudi_pq_leaf *lf = hudi_pq_reader_leaf(r, (uint32_t)leaf);
    if (lf->max_rep || lf->depth != 1) continue;
    const char *fmt = f->dictionary ? f->dictionary->format : f->format;
    int32_t precision, scale;
    int32_t vt = hudi_cs_value_type_of(fmt, &precision, &scale);
    if (vt < 0) continue;
    st = column_range(out, r, (uint32_t)leaf, columns[i], vt, precision, scale, err);
    if (st != HUDI_OK) st = hudi_err_context(err, st, "column stats of %s", path);
  }
  hudi_pq_reader_free(r);
  return st;
}

/* ---- records ---- */

static hudi_avro_value *field(hudi_avro_value *rec, const char *name, hudi_error *err) {
  hudi_avro_value *f = hudi_avro_value_field(rec, name);
  if (!f) hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks field %s", name);
  return f;
}

/* Selects the branch of union u whose (record) type name ends in name. */
static hudi_status select_named(hudi_avro_value *u, hudi_avro_arena *a, const char *name, hudi_avro_value **out,
                                hudi_error *err) {
  const hudi_avro_node *n = u->node;
  size_t nl = strlen(name);
  for (uint32_t b = 0; n->type == HUDI_AVRO_UNION && b < n->n_branches; b++) {
    const char *bn = n->branches[b]->name;
    size_t bl = bn ? strlen(bn) : 0;
    if (bl >= nl && !strcmp(bn + bl - nl, name) && (bl == nl || bn[bl - nl - 1] == '.'))
      return hudi_avro_value_select(u, a, b, out, err);
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema has no %s branch", name);
}

/* Selects the non-null branch of a ["null", X] union. */
static hudi_status select_value(hudi_avro_value *u, hudi_avro_arena *a, hudi_avro_value **out, hudi_error *err) {
  const hudi_avro_node *n = u->node;
  if (n->type != HUDI_AVRO_UNION) {
    *out = u;
    return HUDI_OK;
  }
  for (uint32_t b = 0; b < n->n_branches; b++)
    if (n->branches[b]->type != HUDI_AVRO_NULL) return hudi_avro_value_select(u, a, b, out, err);
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "union without a value branch");
}

static hudi_status set_long_field(hudi_avro_value *rec, hudi_avro_arena *a, const char *name, int64_t v,
                                  hudi_error *err) {
  hudi_avro_value *f = field(rec, name, err), *inner;
  if (!f) return HUDI_ERR_INTERNAL;
  HUDI_TRY(select_value(f, a, &inner, err));
  return hudi_avro_value_set_long(inner, a, v, err);
}

/* BigInteger.toByteArray of an unscaled decimal: the shortest two's
 * complement big-endian form. */
static size_t decimal_bytes(hudi_pq_i128 v, uint8_t out[16]) {
  uint8_t be[16];
  for (int i = 0; i < 16; i++) be[i] = (uint8_t)((unsigned __int128)v >> (120 - 8 * i));
  int start = 0;
  while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) || (be[start] == 0xff && (be[start + 1] & 0x80))))
    start++;
  memcpy(out, be + start, (size_t)(16 - start));
  return (size_t)(16 - start);
}

/* The wrapper record of a bound: by value type, as V2 wraps it; V1 (the
 * records of Spark 1.0.2 on version 8 and of Spark 1.2 on tables it
 * upgraded) wraps dates in DateWrapper and decimals in DecimalWrapper (the
 * rest as V2). */
static const char *wrapper_of(int32_t vt, int layout) {
  if (layout == HUDI_CS_LAYOUT_V1 && vt == HUDI_CS_VT_DATE) return "DateWrapper";
  if (layout == HUDI_CS_LAYOUT_V1 && vt == HUDI_CS_VT_DECIMAL) return "DecimalWrapper";
  switch (vt) {
    case HUDI_CS_VT_BOOLEAN: return "BooleanWrapper";
    case HUDI_CS_VT_INT: case HUDI_CS_VT_DATE: case HUDI_CS_VT_TIME_MILLIS: return "IntWrapper";
    case HUDI_CS_VT_LONG: case HUDI_CS_VT_TIME_MICROS: case HUDI_CS_VT_TIMESTAMP_MILLIS:
    case HUDI_CS_VT_TIMESTAMP_MICROS: case HUDI_CS_VT_TIMESTAMP_NANOS: case HUDI_CS_VT_LOCAL_TIMESTAMP_MILLIS:
    case HUDI_CS_VT_LOCAL_TIMESTAMP_MICROS: case HUDI_CS_VT_LOCAL_TIMESTAMP_NANOS: return "LongWrapper";
    case HUDI_CS_VT_FLOAT: return "FloatWrapper";
    case HUDI_CS_VT_DOUBLE: return "DoubleWrapper";
    case HUDI_CS_VT_STRING: case HUDI_CS_VT_UUID: return "StringWrapper";
    case HUDI_CS_VT_BYTES: case HUDI_CS_VT_FIXED: case HUDI_CS_VT_DECIMAL: return "BytesWrapper";
    default: return NULL;
  }
}

/* V1's DecimalWrapper holds decimal(30, 15): the unscaled value at scale
 * 15 (Spark 1.0.2 writes 12.34 of a decimal(10,2) as 12340000000000000).
 * A value that does not fit (scale above 15, or more than 15 integer
 * digits) is an error naming the column: Java's conversion would fail. */
static hudi_status v1_decimal(hudi_pq_i128 *v, const hudi_cs_range *r, hudi_error *err) {
  const hudi_pq_i128 limit = (hudi_pq_i128)1000000000000000LL * 1000000000000000LL; /* 10^30 */
  if (r->scale < 0 || r->scale > 15) goto bad;
  for (int32_t i = r->scale; i < 15; i++) {
    if (*v > limit / 10 || *v < -(limit / 10)) goto bad;
    *v *= 10;
  }
  if (*v >= limit || *v <= -limit) goto bad;
  return HUDI_OK;
bad:
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                      "column '%s' (decimal(%d,%d)): the V1 column_stats layout holds decimal(30,15) bounds; this "
                      "column's do not fit",
                      r->column, (int)r->precision, (int)r->scale);
}

static hudi_status set_bound(hudi_avro_value *u, hudi_avro_arena *a, const hudi_cs_range *r, const hudi_pq_stat_value *v,
                             int layout, hudi_error *err) {
  const char *w = wrapper_of(r->value_type, layout);
  if (!w) return hudi_avro_value_set_null(u, a, err);
  hudi_avro_value *rec;
  HUDI_TRY(select_named(u, a, w, &rec, err));
  hudi_avro_value *val = field(rec, "value", err);
  if (!val) return HUDI_ERR_INTERNAL;
  switch (r->kind) {
    case HUDI_PQ_STAT_BOOL: return hudi_avro_value_set_boolean(val, a, v->v.b, err);
    case HUDI_PQ_STAT_INT: return hudi_avro_value_set_long(val, a, v->v.i, err);
    case HUDI_PQ_STAT_UINT: return hudi_avro_value_set_long(val, a, (int64_t)v->v.u, err);
    case HUDI_PQ_STAT_DOUBLE:
      if (val->node->type == HUDI_AVRO_FLOAT) {
        val->v.f = (float)v->v.d;
        return HUDI_OK;
      }
      return hudi_avro_value_set_double(val, a, v->v.d, err);
    case HUDI_PQ_STAT_DECIMAL: {
      uint8_t b[16];
      hudi_pq_i128 d = v->v.dec;
      if (layout == HUDI_CS_LAYOUT_V1) HUDI_TRY(v1_decimal(&d, r, err));
      size_t n = decimal_bytes(d, b);
      return hudi_avro_value_set_string(val, a, (const char *)b, n, err);
    }
    case HUDI_PQ_STAT_BYTES:
      return hudi_avro_value_set_string(val, a, (const char *)v->v.bytes.data, v->v.bytes.len, err);
    default: return hudi_avro_value_set_null(u, a, err);
  }
}

static hudi_status fill_stats(hudi_avro_value *cs, hudi_avro_arena *a, int32_t type, const char *name,
                              const hudi_cs_range *r, bool deleted, int layout, hudi_error *err) {
  hudi_avro_value *f, *inner;
  if (!(f = field(cs, "fileName", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(select_value(f, a, &inner, err));
  HUDI_TRY(hudi_avro_value_set_string(inner, a, name, strlen(name), err));
  if (!(f = field(cs, "columnName", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(select_value(f, a, &inner, err));
  HUDI_TRY(hudi_avro_value_set_string(inner, a, r->column, strlen(r->column), err));
  bool bounds = !deleted && r->kind != HUDI_PQ_STAT_NONE;
  if (!(f = field(cs, "minValue", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(bounds && r->has_min ? set_bound(f, a, r, &r->min, layout, err) : hudi_avro_value_set_null(f, a, err));
  if (!(f = field(cs, "maxValue", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(bounds && r->has_max ? set_bound(f, a, r, &r->max, layout, err) : hudi_avro_value_set_null(f, a, err));
  HUDI_TRY(set_long_field(cs, a, "valueCount", deleted ? 0 : r->value_count, err));
  HUDI_TRY(set_long_field(cs, a, "nullCount", deleted ? 0 : r->null_count, err));
  HUDI_TRY(set_long_field(cs, a, "totalSize", deleted ? 0 : r->total_size, err));
  HUDI_TRY(set_long_field(cs, a, "totalUncompressedSize", deleted ? 0 : r->total_uncompressed_size, err));
  if (!(f = field(cs, "isDeleted", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(hudi_avro_value_set_boolean(f, a, deleted, err));
  if ((f = hudi_avro_value_field(cs, "isTightBound")))
    HUDI_TRY(hudi_avro_value_set_boolean(f, a, type == HUDI_MDT_TYPE_PARTITION_STATS, err));
  /* V1: no value type (version 8's schema has no such field; version 9's
   * is null); wrapper_of tells its types apart. */
  if (layout != HUDI_CS_LAYOUT_V2)
    return (f = hudi_avro_value_field(cs, "valueType")) ? hudi_avro_value_set_null(f, a, err) : HUDI_OK;
  if (!(f = field(cs, "valueType", err))) return HUDI_ERR_INTERNAL;
  hudi_avro_value *vt;
  HUDI_TRY(select_value(f, a, &vt, err));
  if (!(f = field(vt, "typeOrdinal", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(hudi_avro_value_set_long(f, a, deleted ? HUDI_CS_VT_NULL : r->value_type, err));
  if (!deleted && r->value_type == HUDI_CS_VT_DECIMAL) {
    char info[32];
    int len = snprintf(info, sizeof info, "%d,%d", (int)r->precision, (int)r->scale);
    if (!(f = field(vt, "additionalInfo", err))) return HUDI_ERR_INTERNAL;
    HUDI_TRY(select_value(f, a, &inner, err));
    HUDI_TRY(hudi_avro_value_set_string(inner, a, info, (size_t)len, err));
  }
  return HUDI_OK;
}

static hudi_status build_record(hudi_mdt_record *out, const hudi_avro_node *schema, int32_t type,
                                const char *partition, const char *name, const hudi_cs_range *r, bool deleted,
                                int layout, hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 4096);
  hudi_status st = type == HUDI_MDT_TYPE_COLUMN_STATS
                       ? hudi_cs_column_stats_key(&key, r->column, partition, name, err)
                       : hudi_cs_partition_stats_key(&key, r->column, partition, err);
  if (st == HUDI_OK) st = hudi_mdt_record_set_key(out, (const char *)key.data, key.len, type, err);
  hudi_buf_free(&key);
  HUDI_TRY(st);
  void *mem;
  HUDI_TRY(hudi_avro_arena_alloc(&out->arena, sizeof(hudi_avro_value), &mem, err));
  hudi_avro_value *root = mem;
  HUDI_TRY(hudi_avro_value_init(root, &out->arena, schema, err));
  hudi_avro_value *f;
  if (!(f = field(root, "key", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(hudi_avro_value_set_string(f, &out->arena, "", 0, err));
  if (!(f = field(root, "type", err))) return HUDI_ERR_INTERNAL;
  HUDI_TRY(hudi_avro_value_set_long(f, &out->arena, type, err));
  if (!(f = field(root, "ColumnStatsMetadata", err))) return HUDI_ERR_INTERNAL;
  hudi_avro_value *cs;
  HUDI_TRY(select_value(f, &out->arena, &cs, err));
  HUDI_TRY(fill_stats(cs, &out->arena, type, name, r, deleted, layout, err));
  out->value = root;
  out->has_column_stats = true;
  out->column_stats.is_deleted = deleted;
  return HUDI_OK;
}

/* The value types whose V1 records hudi-c knows to equal Spark's: those
 * whose Java statistic (Boolean, Integer, Long, Float, Double, String,
 * ByteBuffer) V1 wraps as V2 does, and those Spark 1.0.2 and Spark 1.2 were
 * seen to write (test_mdt_column_stats_engines.py::test_v1_wrappers_*):
 * dates in DateWrapper (days), decimals in DecimalWrapper (scale 15), UTC
 * microsecond timestamps in LongWrapper (microseconds). V1 wraps other
 * timestamps and times by their Java class (wrapValueIntoAvro): not
 * written. */
static bool v1_writable(int32_t vt) {
  switch (vt) {
    case HUDI_CS_VT_NULL:
    case HUDI_CS_VT_BOOLEAN:
    case HUDI_CS_VT_INT:
    case HUDI_CS_VT_LONG:
    case HUDI_CS_VT_FLOAT:
    case HUDI_CS_VT_DOUBLE:
    case HUDI_CS_VT_STRING:
    case HUDI_CS_VT_BYTES:
    case HUDI_CS_VT_DATE:
    case HUDI_CS_VT_DECIMAL:
    case HUDI_CS_VT_TIMESTAMP_MICROS: return true;
    default: return false;
  }
}

static const char *const VT_NAMES[] = {"V1", "null", "boolean", "int", "long", "float", "double", "string",
                                       "bytes", "fixed", "decimal", "uuid", "date", "time-millis",
                                       "time-micros", "timestamp-millis", "timestamp-micros", "timestamp-nanos",
                                       "local-timestamp-millis", "local-timestamp-micros",
                                       "local-timestamp-nanos"};

hudi_status hudi_cs_record(hudi_mdt_record *out, const hudi_avro_node *schema, int32_t type, const char *partition,
                           const char *name, const hudi_cs_range *r, bool deleted, int layout, hudi_error *err) {
  hudi_mdt_record_init(out);
  if (type != HUDI_MDT_TYPE_COLUMN_STATS && type != HUDI_MDT_TYPE_PARTITION_STATS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column stats record of type %d", (int)type);
  if (layout != HUDI_CS_LAYOUT_V2 && !deleted && !v1_writable(r->value_type)) {
    int32_t vt = r->value_type;
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "column '%s' (%s): hudi-c writes the V1 column_stats layout for boolean, integer, "
                        "floating-point, string, binary, date, decimal and UTC microsecond timestamp columns only",
                        r->column, vt >= 0 && vt < (int32_t)(sizeof VT_NAMES / sizeof VT_NAMES[0]) ? VT_NAMES[vt] : "?");
  }
  return build_record(out, schema, type, partition, name, r, deleted, layout, err);
}

/* ---- a commit ---- */

void hudi_cs_records_free(hudi_cs_records *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) {
    hudi_mdt_record_free(r->items[i]);
    hudi_free(r->items[i]);
  }
  hudi_free(r->items);
  hudi_avro_schema_free(r->schema);
  hudi_cs_columns_free(r->cols, r->n_cols);
  memset(r, 0, sizeof *r);
}

hudi_status hudi_cs_records_grow(hudi_cs_records *out, hudi_error *err) {
  if (out->n < out->cap) return HUDI_OK;
  size_t cap = out->cap ? out->cap * 2 : 64;
  hudi_mdt_record **items = hudi_realloc(out->items, cap * sizeof *items);
  if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata index records");
  out->items = items;
  out->cap = cap;
  return HUDI_OK;
}

static hudi_status records_add(hudi_cs_records *out, const hudi_avro_node *schema, int32_t type, const char *partition,
                               const char *name, const hudi_cs_range *r, bool deleted, hudi_error *err) {
  HUDI_TRY(hudi_cs_records_grow(out, err));
  hudi_mdt_record *rec = hudi_malloc(sizeof *rec);
  if (!rec) return hudi_err_set(err, HUDI_ERR_NOMEM, "column stats record");
  hudi_status st = hudi_cs_record(rec, schema, type, partition, name, r, deleted, out->layout, err);
  if (st != HUDI_OK) {
    hudi_mdt_record_free(rec);
    hudi_free(rec);
    return st;
  }
  out->items[out->n++] = rec;
  return HUDI_OK;
}

static hudi_status file_path(hudi_buf *p, const char *partition, const char *name, hudi_error *err) {
  hudi_buf_reset(p);
  if (*partition) HUDI_TRY(hudi_buf_printf(p, err, "%s/", partition));
  HUDI_TRY(hudi_buf_append_str(p, name, err));
  return hudi_buf_append_byte(p, 0, err);
}

typedef struct commit_ctx {
  hudi_cs_records *out;
  hudi_table *t;
  const hudi_avro_node *schema;
  const hudi_mdt_file_change *files;
  size_t n_files;
  char **cols;
  size_t n_cols;
  const hudi_commit_metadata *meta; /* the commit's (its replaced groups), or NULL */
  hudi_fsview view;
  bool have_view;
  hudi_hashmap replaced; /* "partition\0fileId" of completed replacecommits */
  /* files[i]'s ranges and log record count (commit_file_ranges), computed
   * once for column_stats and partition_stats alike. */
  hudi_cs_ranges *ranges;
  int64_t *log_records;
  bool *have_ranges;
} commit_ctx;

static hudi_status put_group(hudi_hashmap *out, hudi_buf *key, const char *partition, const char *file_id,
                             hudi_error *err) {
  hudi_buf_reset(key);
  HUDI_TRY(hudi_buf_printf(key, err, "%s%c%s", partition ? partition : "", '\0', file_id ? file_id : ""));
  return hudi_hashmap_put(out, key->data, key->len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
}

static hudi_status put_replaced(hudi_hashmap *out, hudi_buf *key, const hudi_commit_metadata *m, hudi_error *err) {
  const hudi_tl_strs_entry *e = m->partition_to_replace_file_ids.items;
  for (size_t a = 0; a < m->partition_to_replace_file_ids.n; a++)
    for (size_t b = 0; b < e[a].value.n; b++)
      HUDI_TRY(put_group(out, key, e[a].key, ((char *const *)e[a].value.items)[b], err));
  return HUDI_OK;
}

/* File groups replaced by completed replacecommits (clustering, insert
 * overwrite) and by this commit: they hold no latest files. */
static hudi_status replaced_groups(commit_ctx *c, hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 1 << 16);
  hudi_status st = c->meta ? put_replaced(&c->replaced, &key, c->meta, err) : HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->t->timeline.count; i++) {
    const hudi_instant *in = &c->t->timeline.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "replacecommit") != 0) continue;
    hudi_commit_metadata *m = NULL;
    st = hudi_table_instant_metadata(&m, c->t, in, err);
    if (st == HUDI_OK) st = put_replaced(&c->replaced, &key, m, err);
    hudi_commit_metadata_free(m);
  }
  hudi_buf_free(&key);
  return st;
}

static bool group_replaced(const commit_ctx *c, const char *partition, const char *file_id) {
  char key[1024];
  int n = snprintf(key, sizeof key, "%s%c%s", partition, '\0', file_id);
  return n > 0 && (size_t)n < sizeof key && hudi_hashmap_get(&c->replaced, key, (size_t)n, NULL);
}

static bool is_added(const commit_ctx *c, const char *partition, const char *file_id) {
  hudi_base_file_name bn;
  for (size_t i = 0; i < c->n_files; i++)
    if (!c->files[i].deleted && !strcmp(c->files[i].partition, partition) &&
        hudi_base_file_name_parse(&bn, c->files[i].name) && !strcmp(bn.file_id, file_id))
      return true;
  return false;
}

static bool is_deleted(const commit_ctx *c, const char *partition, const char *name) {
  for (size_t i = 0; i < c->n_files; i++)
    if (c->files[i].deleted && !strcmp(c->files[i].partition, partition) && !strcmp(c->files[i].name, name))
      return true;
  return false;
}

/* Merges the ranges of one file into the partition's accumulators. */
static hudi_status accumulate(hudi_cs_ranges *acc, const hudi_cs_ranges *file, hudi_error *err) {
  for (size_t i = 0; i < file->n; i++) {
    size_t j = 0;
    while (j < acc->n && strcmp(acc->items[j].column, file->items[i].column)) j++;
    if (j == acc->n) HUDI_TRY(hudi_cs_ranges_push(acc, &file->items[i], err));
    else HUDI_TRY(hudi_cs_range_merge(&acc->items[j], &file->items[i], err));
  }
  return HUDI_OK;
}

static bool is_log_name(const char *name) { return hudi_log_file_name_matches(name, strlen(name)); }

/* A data file's ranges: a Parquet base file's from its footer, a log
 * file's from its records (hudi_cs_log_ranges). */
static hudi_status file_ranges(commit_ctx *c, hudi_cs_ranges *out, const char *partition, const char *name,
                               uint64_t size, int64_t *log_records, hudi_error *err) {
  if (log_records) *log_records = -1;
  size_t len = strlen(name);
  bool log = is_log_name(name);
  if (!log && (len < 8 || strcmp(name + len - 8, ".parquet")))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "file %s: hudi-c keeps column stats of Parquet base files and log files only", name);
  hudi_buf p;
  hudi_buf_init(&p, 1 << 16);
  hudi_status st = file_path(&p, partition, name, err);
  const char *const *cols = (const char *const *)c->cols;
  if (st == HUDI_OK)
    st = log ? hudi_cs_log_ranges(out, c->t->storage, (const char *)p.data, cols, c->n_cols, log_records, err)
             : hudi_cs_parquet_ranges(out, c->t->storage, (const char *)p.data, size, cols, c->n_cols, err);
  hudi_buf_free(&p);
  return st;
}

/* The ranges of the commit's file files[i] (not deleted), computed on
 * first use and kept in c. */
static hudi_status commit_file_ranges(commit_ctx *c, size_t i, const hudi_cs_ranges **out, int64_t *log_records,
                                      hudi_error *err) {
  if (!c->have_ranges[i]) {
    const hudi_mdt_file_change *f = &c->files[i];
    HUDI_TRY(file_ranges(c, &c->ranges[i], f->partition, f->name, (uint64_t)f->size, &c->log_records[i], err));
    c->have_ranges[i] = true;
  }
  *out = &c->ranges[i];
  if (log_records) *log_records = c->log_records[i];
  return HUDI_OK;
}

/* A log file with no data records (only deletes) still gets one record
 * per indexed column, without bounds, counts 0 and value type NULL, not
 * marked deleted: what Spark 1.1 writes for a DELETE's log file. */
static hudi_status delete_only_stubs(commit_ctx *c, const char *partition, const char *name, hudi_error *err) {
  for (size_t k = 0; k < c->n_cols; k++) {
    hudi_cs_range stub;
    memset(&stub, 0, sizeof stub);
    stub.column = c->cols[k];
    stub.value_type = HUDI_CS_VT_NULL;
    HUDI_TRY(records_add(c->out, c->schema, HUDI_MDT_TYPE_COLUMN_STATS, partition, name, &stub, false, err));
  }
  return HUDI_OK;
}

/* An existing file of a touched partition. */
typedef struct part_file {
  const char *path;
  uint64_t size;
  bool log;
} part_file;

/* The latest slices' files of partition, in view order, except file
 * groups this commit rewrote or replaced and files it deleted. */
static hudi_status existing_files(commit_ctx *c, const char *partition, part_file **out, size_t *n,
                                  hudi_error *err) {
  size_t cap = 0;
  *out = NULL;
  *n = 0;
  for (size_t g = 0; g < c->view.n_groups; g++) {
    const hudi_file_group *fg = &c->view.groups[g];
    if (strcmp(fg->partition, partition) || is_added(c, partition, fg->file_id) ||
        group_replaced(c, partition, fg->file_id))
      continue;
    const hudi_file_slice *sl = hudi_file_group_latest_slice(fg);
    if (!sl) continue;
    for (size_t f = 0; f < (sl->base ? 1 : 0) + sl->n_logs; f++) {
      bool log = !sl->base || f > 0;
      const char *path = log ? sl->logs[f - (sl->base ? 1 : 0)].path : sl->base->path;
      const char *name = strrchr(path, '/');
      if (is_deleted(c, partition, name ? name + 1 : path)) continue;
      if (*n == cap) {
        cap = cap ? cap * 2 : 64;
        part_file *grown = hudi_realloc(*out, cap * sizeof *grown);
        if (!grown) return hudi_err_set(err, HUDI_ERR_NOMEM, "partition %s files", partition);
        *out = grown;
      }
      (*out)[(*n)++] = (part_file){path, log ? sl->logs[f - (sl->base ? 1 : 0)].size : sl->base->size, log};
    }
  }
  return HUDI_OK;
}

/* Per column, the type of the first range seen with one (refs for
 * hudi_cs_ranges_from_records). */
static void note_refs(commit_ctx *c, hudi_cs_range *store, const hudi_cs_range **refs, const hudi_cs_ranges *fr) {
  for (size_t i = 0; i < fr->n; i++) {
    const hudi_cs_range *r = &fr->items[i];
    if (r->kind == HUDI_PQ_STAT_NONE) continue;
    for (size_t k = 0; k < c->n_cols; k++) {
      if (refs[k] || strcmp(c->cols[k], r->column)) continue;
      memset(&store[k], 0, sizeof store[k]);
      store[k].kind = r->kind;
      store[k].value_type = r->value_type;
      store[k].precision = r->precision;
      store[k].scale = r->scale;
      refs[k] = &store[k];
    }
  }
}

#define PS_MAX_KEYS ((size_t)1 << 22)

/* The column_stats records of files[0, n) x every column, looked up in
 * m in one batch (absent ones have no key; the records' values use m's
 * schemas: keep m until they are freed); NULL items when there are too
 * many keys to batch (every file is then read). */
static hudi_status lookup_records(commit_ctx *c, hudi_mdt *m, const char *partition, const part_file *files,
                                  size_t n, hudi_mdt_records *out, hudi_error *err) {
  memset(out, 0, sizeof *out);
  size_t nk = n * c->n_cols;
  if (!nk || c->n_cols > PS_MAX_KEYS / n) return HUDI_OK;
  hudi_buf buf;
  hudi_buf_init(&buf, (size_t)1 << 31);
  size_t *offs = hudi_calloc(nk, sizeof *offs);
  hudi_hfile_key *keys = hudi_calloc(nk, sizeof *keys);
  hudi_status st = offs && keys ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "column_stats keys");
  for (size_t f = 0, k = 0; st == HUDI_OK && f < n; f++) {
    const char *name = strrchr(files[f].path, '/');
    for (size_t col = 0; st == HUDI_OK && col < c->n_cols; col++, k++) {
      offs[k] = buf.len;
      st = hudi_cs_column_stats_key(&buf, c->cols[col], partition, name ? name + 1 : files[f].path, err);
    }
  }
  for (size_t i = 0; st == HUDI_OK && i < nk; i++) {
    keys[i].data = buf.data + offs[i];
    keys[i].len = (i + 1 < nk ? offs[i + 1] : buf.len) - offs[i];
  }
  if (st == HUDI_OK) st = hudi_mdt_partition_lookup(m, "column_stats", keys, nk, out, NULL, err);
  hudi_free(keys);
  hudi_free(offs);
  hudi_buf_free(&buf);
  return st;
}

/* One existing file's ranges: from its records (recs, one per column;
 * NULL: none looked up) when they are all there and convert, else read
 * from the file (whose ranges then type later records). */
static hudi_status existing_file_ranges(commit_ctx *c, const part_file *file, const hudi_mdt_record *recs,
                                        hudi_cs_range *store, const hudi_cs_range **refs, hudi_cs_ranges *out,
                                        hudi_error *err) {
  bool ok = false;
  if (recs) HUDI_TRY(hudi_cs_ranges_from_records(out, &ok, recs, c->cols, c->n_cols, refs, err));
  if (ok) {
    c->out->ps_files_from_records++;
    return HUDI_OK;
  }
  const char *const *cols = (const char *const *)c->cols;
  HUDI_TRY(file->log ? hudi_cs_log_ranges(out, c->t->storage, file->path, cols, c->n_cols, NULL, err)
                     : hudi_cs_parquet_ranges(out, c->t->storage, file->path, file->size, cols, c->n_cols, err));
  note_refs(c, store, refs, out);
  c->out->ps_files_read++;
  return HUDI_OK;
}

/* The partition_stats records of one touched partition: the ranges of
 * every file of every latest merged file slice after the commit, as
 * Hudi's convertMetadataToPartitionStatRecords (a slice under pending
 * compaction counts with its predecessor's base and logs). The files this
 * commit wrote give their ranges as their column_stats records do; the
 * others' come from their column_stats records in the metadata table, as
 * Hudi takes them, typed like a range of the column read from a file
 * (hudi_cs_ranges_from_records). A file whose records are missing or do
 * not convert (written before the index, a column it
 * lacks) is read instead: its footer, or a log file's records. */
static hudi_status partition_stats(commit_ctx *c, const char *partition, hudi_error *err) {
  hudi_cs_ranges acc = {0};
  hudi_hashmap seen; /* file names counted from the view */
  hudi_hashmap_init(&seen, 0);
  part_file *files = NULL;
  size_t n = 0;
  hudi_cs_range *store = hudi_calloc(c->n_cols ? c->n_cols : 1, sizeof *store);
  const hudi_cs_range **refs = hudi_calloc(c->n_cols ? c->n_cols : 1, sizeof *refs);
  hudi_mdt_records recs = {0};
  hudi_status st = store && refs ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "partition stats");
  if (st == HUDI_OK) st = existing_files(c, partition, &files, &n, err);
  /* The commit's files first: their ranges type the records. */
  for (size_t i = 0; st == HUDI_OK && i < c->n_files; i++) {
    if (c->files[i].deleted || strcmp(c->files[i].partition, partition)) continue;
    const hudi_cs_ranges *fr = NULL;
    st = commit_file_ranges(c, i, &fr, NULL, err);
    if (st == HUDI_OK) note_refs(c, store, refs, fr);
  }
  hudi_mdt *m = NULL;
  if (st == HUDI_OK && n) st = hudi_mdt_acquire(&m, c->t, err);
  if (st == HUDI_OK && n) st = lookup_records(c, m, partition, files, n, &recs, err);
  for (size_t f = 0; st == HUDI_OK && f < n; f++) {
    const char *name = strrchr(files[f].path, '/');
    name = name ? name + 1 : files[f].path;
    st = hudi_hashmap_put(&seen, name, strlen(name), (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
    hudi_cs_ranges fr = {0};
    if (st == HUDI_OK)
      st = existing_file_ranges(c, &files[f], recs.items ? &recs.items[f * c->n_cols] : NULL, store, refs, &fr, err);
    if (st == HUDI_OK) st = accumulate(&acc, &fr, err);
    hudi_cs_ranges_free(&fr);
  }
  /* The commit's files (a file the view already showed counts once). */
  for (size_t i = 0; st == HUDI_OK && i < c->n_files; i++) {
    const char *name = c->files[i].name;
    if (c->files[i].deleted || strcmp(c->files[i].partition, partition) ||
        hudi_hashmap_get(&seen, name, strlen(name), NULL))
      continue;
    st = accumulate(&acc, &c->ranges[i], err); /* computed above */
  }
  const char *pname = partition_id(partition);
  for (size_t i = 0; st == HUDI_OK && i < acc.n; i++)
    st = records_add(c->out, c->schema, HUDI_MDT_TYPE_PARTITION_STATS, partition, pname, &acc.items[i], false, err);
  if (recs.items) hudi_mdt_records_free(&recs);
  if (m) hudi_mdt_release(c->t, m);
  hudi_free(store);
  hudi_free(refs);
  hudi_free(files);
  hudi_cs_ranges_free(&acc);
  hudi_hashmap_free(&seen);
  return st;
}

static hudi_status column_stats(commit_ctx *c, hudi_error *err) {
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_files; i++) {
    const hudi_mdt_file_change *f = &c->files[i];
    if (f->deleted) {
      for (size_t k = 0; st == HUDI_OK && k < c->n_cols; k++) {
        hudi_cs_range stub;
        memset(&stub, 0, sizeof stub);
        stub.column = c->cols[k];
        stub.value_type = HUDI_CS_VT_NULL;
        st = records_add(c->out, c->schema, HUDI_MDT_TYPE_COLUMN_STATS, f->partition, f->name, &stub, true, err);
      }
      continue;
    }
    const hudi_cs_ranges *fr = NULL;
    int64_t records = -1;
    st = commit_file_ranges(c, i, &fr, &records, err);
    if (st == HUDI_OK && records == 0) st = delete_only_stubs(c, f->partition, f->name, err);
    for (size_t k = 0; st == HUDI_OK && k < fr->n; k++)
      st = records_add(c->out, c->schema, HUDI_MDT_TYPE_COLUMN_STATS, f->partition, f->name, &fr->items[k], false,
                       err);
  }
  return st;
}

static bool seen_partition(const commit_ctx *c, size_t upto, const char *p) {
  for (size_t i = 0; i < upto; i++)
    if (!strcmp(c->files[i].partition, p)) return true;
  return false;
}

static void commit_ctx_free_ranges(commit_ctx *c) {
  for (size_t i = 0; c->ranges && i < c->n_files; i++) hudi_cs_ranges_free(&c->ranges[i]);
  hudi_free(c->ranges);
  hudi_free(c->log_records);
  hudi_free(c->have_ranges);
}

hudi_status hudi_cs_commit_records(hudi_cs_records *out, hudi_table *t, const hudi_avro_node *schema,
                                   const hudi_commit_metadata *meta, const hudi_mdt_file_change *files, size_t n_files,
                                   bool with_column_stats, bool with_partition_stats, hudi_error *err) {
  commit_ctx c;
  memset(&c, 0, sizeof c);
  c.meta = meta;
  c.out = out;
  c.t = t;
  c.schema = schema;
  c.files = files;
  c.n_files = n_files;
  if (!n_files || (!with_column_stats && !with_partition_stats)) return HUDI_OK;
  c.ranges = hudi_calloc(n_files, sizeof *c.ranges);
  c.log_records = hudi_calloc(n_files, sizeof *c.log_records);
  c.have_ranges = hudi_calloc(n_files, sizeof *c.have_ranges);
  if (!c.ranges || !c.log_records || !c.have_ranges) {
    commit_ctx_free_ranges(&c);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "column ranges of %zu files", n_files);
  }
  if (out->cols) { /* hudi_cs_commit_columns' (out owns them) */
    c.cols = out->cols;
    c.n_cols = out->n_cols;
  } else {
    hudi_status lst = hudi_cs_columns_load(&c.cols, &c.n_cols, &out->layout, t->storage,
                                           hudi_props_get(&t->props, "hoodie.table.index.defs.path"), err);
    if (lst != HUDI_OK) {
      commit_ctx_free_ranges(&c);
      return lst;
    }
  }
  /* Version 8 (Hudi 1.0.x) writes V1 records; its index definitions name
   * no version. */
  if (t->version < 9) out->layout = HUDI_CS_LAYOUT_V1;
  hudi_status st = with_column_stats ? column_stats(&c, err) : HUDI_OK;
  if (st == HUDI_OK && with_partition_stats) {
    hudi_fsview_options fo = {NULL, t->version, false};
    hudi_hashmap_init(&c.replaced, 0);
    /* The partitions' files as of the last commit (this write's are
     * passed in): from the MDT, not a listing of the table. */
    st = hudi_fsview_build_latest(&c.view, t, &fo, NULL, err);
    c.have_view = st == HUDI_OK;
    if (st == HUDI_OK) st = replaced_groups(&c, err);
    for (size_t i = 0; st == HUDI_OK && i < n_files; i++)
      if (!seen_partition(&c, i, files[i].partition)) st = partition_stats(&c, files[i].partition, err);
  }
  if (c.have_view) hudi_fsview_free(&c.view);
  if (with_partition_stats) hudi_hashmap_free(&c.replaced);
  if (c.cols != out->cols) hudi_cs_columns_free(c.cols, c.n_cols);
  commit_ctx_free_ranges(&c);
  return st;
}

/* ---- the write path ---- */

bool hudi_cs_supported(const hudi_table *t) {
  /* Version 8 MDTs hold V1 records (no valueType), version 9 V1 or V2. */
  return t->version >= 8;
}


bool hudi_cs_maintains(const hudi_table *t, const char *name, size_t len) {
  bool cs = len == 12 && !memcmp(name, "column_stats", 12), ps = len == 15 && !memcmp(name, "partition_stats", 15);
  if ((!cs && !ps) || !hudi_cs_supported(t)) return false;
  /* Everything a commit needs, checked before any data file is written: the
   * column list (a V2 index definition) and the partition's file groups. */
  char **cols = NULL;
  size_t n_cols = 0, groups = 0;
  if (hudi_cs_columns_load(&cols, &n_cols, NULL, t->storage, hudi_props_get(&t->props, "hoodie.table.index.defs.path"),
                           NULL) != HUDI_OK)
    return false;
  hudi_cs_columns_free(cols, n_cols);
  /* An empty list is a table created with the index: its first commit
   * picks the columns (hudi_cs_commit_columns). */
  return hudi_cs_count_groups(t->storage, cs ? "column_stats" : "partition_stats", &groups, NULL) == HUDI_OK;
}

hudi_status hudi_cs_mdt_records(hudi_cs_records *out, hudi_table *t, const hudi_option *opts, size_t n_opts,
                                const hudi_commit_metadata *meta, const hudi_mdt_file_change *files, size_t n_files,
                                hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *parts = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  bool cs = hudi_props_list_has(parts, "column_stats"), ps = hudi_props_list_has(parts, "partition_stats");
  if (!cs && !ps) return HUDI_OK;
  if (!hudi_cs_supported(t))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hudi-c keeps column_stats/partition_stats of tables of version 8 and 9 only",
                        t->base_uri);
  if (ps && !cs)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s lists partition_stats without column_stats", t->base_uri);
  HUDI_TRY(hudi_mdt_w_schema(&out->schema, t->version, err)); /* the MDT's own: v8 has no valueType */
  if (!n_files) return HUDI_OK;
  HUDI_TRY(hudi_cs_commit_columns(&out->cols, &out->n_cols, &out->layout, &out->cols_changed, t, meta, opts, n_opts,
                                  err));
  return hudi_cs_commit_records(out, t, out->schema->root, meta, files, n_files, cs, ps, err);
}

hudi_status hudi_cs_group_block_add(hudi_cs_group_blocks *out, const char *partition, int32_t shard, size_t n_records,
                                    hudi_cs_group_block **g, hudi_error *err) {
  hudi_cs_group_block *items = hudi_realloc(out->items, (out->n + 1) * sizeof *items);
  if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata log blocks");
  out->items = items;
  *g = &out->items[out->n++];
  memset(*g, 0, sizeof **g);
  (*g)->partition = partition;
  (*g)->n_records = n_records;
  hudi_buf_init(&(*g)->blocks, HUDI_BUF_DEFAULT_MAX);
  hudi_buf id;
  hudi_buf_init(&id, sizeof (*g)->file_id);
  hudi_status st = hudi_mdt_file_id(&id, partition, shard, err);
  if (st == HUDI_OK && id.len < sizeof (*g)->file_id) memcpy((*g)->file_id, id.data, id.len);
  hudi_buf_free(&id);
  return st;
}

void hudi_cs_group_blocks_free(hudi_cs_group_blocks *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n; i++) hudi_buf_free(&b->items[i].blocks);
  hudi_free(b->items);
  memset(b, 0, sizeof *b);
}

/* File groups present in an MDT partition (distinct "<prefix>NNNN-0" ids of
 * its base and log files; they must be 0..n-1). */
hudi_status hudi_cs_count_groups(hudi_storage *s, const char *partition, size_t *out, hudi_error *err) {
  char prefix[64], dir[128];
  if (!hudi_mdt_file_id_prefix(prefix, sizeof prefix, partition))
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "no file id prefix for %s", partition);
  snprintf(dir, sizeof dir, ".hoodie/metadata/%s", partition);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, 0, &list, err));
  enum { MAX_GROUPS = 10000 };
  unsigned char *seen = hudi_calloc(MAX_GROUPS, 1);
  if (!seen) {
    hudi_file_list_free(&list);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "%s listing", dir);
  }
  size_t distinct = 0, plen = strlen(prefix);
  int max_index = -1;
  for (size_t i = 0; i < list.count; i++) {
    if (list.items[i].is_dir) continue;
    const char *name = strrchr(list.items[i].path, '/');
    name = name ? name + 1 : list.items[i].path;
    if (*name == '.') name++;
    int idx = -1, n = 0;
    if (strncmp(name, prefix, plen) || sscanf(name + plen, "%4d-0_%n", &idx, &n) != 1 || n == 0 || idx < 0 ||
        idx >= MAX_GROUPS)
      continue;
    if (!seen[idx]) distinct++;
    seen[idx] = 1;
    if (idx > max_index) max_index = idx;
  }
  hudi_free(seen);
  hudi_file_list_free(&list);
  if (distinct == 0 || (size_t)(max_index + 1) != distinct)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %zu file groups, highest index %d (missing or gapped)", dir,
                        distinct, max_index);
  *out = distinct;
  return HUDI_OK;
}

typedef struct shard_ref {
  int32_t shard;
  hudi_mdt_record *rec;
} shard_ref;

static int cmp_shard(const void *a, const void *b) {
  const shard_ref *x = a, *y = b;
  return (x->shard > y->shard) - (x->shard < y->shard);
}

static hudi_status build_partition(hudi_cs_group_blocks *out, hudi_storage *s, const char *partition, int32_t type,
                                   hudi_mdt_record *const *recs, size_t n, const hudi_avro_node *schema,
                                   const char *schema_json, size_t schema_len, const hudi_mdt_write_options *o,
                                   const char *instant, hudi_error *err) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++) count += recs[i]->type == type;
  if (!count) return HUDI_OK;
  size_t groups = 0;
  HUDI_TRY(hudi_cs_count_groups(s, partition, &groups, err));
  shard_ref *refs = hudi_malloc(count * sizeof *refs);
  hudi_mdt_record **batch = hudi_malloc(count * sizeof *batch);
  hudi_status st = refs && batch ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "%zu %s records", count, partition);
  size_t k = 0;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    if (recs[i]->type != type) continue;
    refs[k].rec = recs[i];
    st = hudi_mdt_shard_of(&refs[k].shard, recs[i]->key, recs[i]->key_len, groups, err);
    k++;
  }
  if (st == HUDI_OK) qsort(refs, count, sizeof *refs, cmp_shard);
  for (size_t i = 0; st == HUDI_OK && i < count;) {
    size_t j = i, m = 0;
    while (j < count && refs[j].shard == refs[i].shard) batch[m++] = refs[j++].rec;
    hudi_cs_group_block *g = NULL;
    st = hudi_cs_group_block_add(out, partition, refs[i].shard, m, &g, err);
    if (st != HUDI_OK) break;
    uint8_t *hf = NULL;
    size_t hf_len = 0;
    if (st == HUDI_OK)
      st = hudi_mdt_w_hfile(batch, m, schema, schema_json, schema_len, o, false, &hf, &hf_len, err);
    if (st == HUDI_OK) st = hudi_mdt_w_hfile_block(&g->blocks, hf, hf_len, schema_json, schema_len, instant, err);
    hudi_free(hf);
    i = j;
  }
  hudi_free(refs);
  hudi_free(batch);
  return st;
}

hudi_status hudi_cs_group_blocks_build(hudi_cs_group_blocks *out, hudi_storage *s, hudi_mdt_record *const *recs,
                                       size_t n, const hudi_avro_node *schema, const char *schema_json,
                                       size_t schema_len, const hudi_mdt_write_options *o, const char *instant,
                                       hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (!n) return HUDI_OK;
  if (o->table_version < 8)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "column stats records need a metadata table of version 8 or 9 (it is %d)", o->table_version);
  hudi_status st = build_partition(out, s, "column_stats", HUDI_MDT_TYPE_COLUMN_STATS, recs, n, schema, schema_json,
                                   schema_len, o, instant, err);
  if (st == HUDI_OK)
    st = build_partition(out, s, "partition_stats", HUDI_MDT_TYPE_PARTITION_STATS, recs, n, schema, schema_json,
                         schema_len, o, instant, err);
  if (st == HUDI_OK)
    st = build_partition(out, s, "bloom_filters", HUDI_MDT_TYPE_BLOOM_FILTER, recs, n, schema, schema_json,
                         schema_len, o, instant, err);
  if (st != HUDI_OK) hudi_cs_group_blocks_free(out);
  return st;
}
