/* Decoding of Parquet's Thrift metadata (field ids from parquet.thrift).
 * Unknown fields of any type are skipped; a known field of the wrong type,
 * a missing required field or an out-of-range enum is corrupt, reported
 * with the absolute byte offset. */
#include <string.h>

#include "parquet/metadata.h"
#include "parquet/thrift.h"

typedef hudi_thrift_reader rd;

/* Iterates the fields of one struct: `switch (id)` cases read known
 * fields; the default case skips the rest. */
#define FIELDS_BEGIN(r)                                        \
  int16_t last_id_, id;                                        \
  uint8_t t;                                                   \
  HUDI_TRY(hudi_thrift_struct_begin((r), &last_id_));          \
  for (;;) {                                                   \
    HUDI_TRY(hudi_thrift_field_next((r), &last_id_, &id, &t)); \
    if (t == HUDI_TT_STOP) break;                              \
    switch (id) {
#define FIELDS_END(r)                    \
  default: HUDI_TRY(hudi_thrift_skip((r), t)); \
    }                                    \
  }                                      \
  hudi_thrift_struct_end(r);

#define WANT(type)                                          \
  do {                                                      \
    if (t != (type)) return type_mismatch(r, STRUCT_NAME, id); \
  } while (0)

static hudi_status type_mismatch(rd *r, const char *name, int16_t id) {
  return hudi_err_set(r->err, HUDI_ERR_CORRUPT, "parquet metadata: %s field %d has the wrong type at byte offset %zu",
                      name, id, r->base_offset + r->pos);
}

static hudi_status missing(rd *r, const char *name, const char *field) {
  return hudi_err_set(r->err, HUDI_ERR_CORRUPT,
                      "parquet metadata: %s is missing required field %s (struct ends at byte offset %zu)", name,
                      field, r->base_offset + r->pos);
}

static hudi_status nomem(rd *r) {
  return hudi_err_set(r->err, HUDI_ERR_NOMEM, "out of memory (or metadata arena cap) decoding parquet metadata");
}

static hudi_status read_enum(rd *r, int32_t lo, int32_t hi, int32_t *v) {
  size_t at = r->pos;
  HUDI_TRY(hudi_thrift_read_i32(r, v));
  if (*v < lo || *v > hi) {
    r->pos = at;
    return hudi_thrift_corrupt(r, "enum value out of range");
  }
  return HUDI_OK;
}

static hudi_status read_bytes(rd *r, hudi_pq_arena *a, hudi_pq_bytes *b) {
  const uint8_t *p;
  size_t n;
  HUDI_TRY(hudi_thrift_read_binary(r, &p, &n));
  uint8_t *copy = hudi_pq_arena_alloc(a, n + 1);
  if (!copy) return nomem(r);
  if (n) memcpy(copy, p, n);
  b->data = copy;
  b->len = n;
  return HUDI_OK;
}

static hudi_status read_string(rd *r, hudi_pq_arena *a, char **s, size_t *len) {
  hudi_pq_bytes b = {0};
  HUDI_TRY(read_bytes(r, a, &b));
  *s = (char *)(uintptr_t)b.data; /* NUL-terminated by read_bytes' +1 zeroed byte */
  if (len) *len = b.len;
  return HUDI_OK;
}

/* Allocates a zeroed array for a list of count elements. */
static hudi_status alloc_array(rd *r, hudi_pq_arena *a, void **out, uint32_t count, size_t elem) {
  *out = hudi_pq_arena_alloc(a, (size_t)count * elem + 1);
  return *out ? HUDI_OK : nomem(r);
}

static hudi_status list_of(rd *r, uint8_t want, uint32_t *count, const char *what) {
  uint8_t et;
  HUDI_TRY(hudi_thrift_list_begin(r, &et, count));
  if (et != want && *count > 0) return hudi_thrift_corrupt(r, what);
  return HUDI_OK;
}

static hudi_status read_i64_list(rd *r, hudi_pq_arena *a, hudi_pq_i64_list *l) {
  HUDI_TRY(list_of(r, HUDI_TT_I64, &l->n, "expected a list of i64"));
  HUDI_TRY(alloc_array(r, a, (void **)&l->v, l->n, sizeof(int64_t)));
  for (uint32_t i = 0; i < l->n; i++) HUDI_TRY(hudi_thrift_read_i64(r, &l->v[i]));
  return HUDI_OK;
}

/* ---- Statistics ---- */
#define STRUCT_NAME "Statistics"
static hudi_status decode_statistics(rd *r, hudi_pq_arena *a, hudi_pq_statistics *s) {
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_BINARY); HUDI_TRY(read_bytes(r, a, &s->max)); s->has_max = true; break;
  case 2: WANT(HUDI_TT_BINARY); HUDI_TRY(read_bytes(r, a, &s->min)); s->has_min = true; break;
  case 3: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &s->null_count)); s->has_null_count = true; break;
  case 4: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &s->distinct_count)); s->has_distinct_count = true; break;
  case 5: WANT(HUDI_TT_BINARY); HUDI_TRY(read_bytes(r, a, &s->max_value)); s->has_max_value = true; break;
  case 6: WANT(HUDI_TT_BINARY); HUDI_TRY(read_bytes(r, a, &s->min_value)); s->has_min_value = true; break;
  case 7: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &s->is_max_value_exact)); s->has_is_max_value_exact = true; break;
  case 8: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &s->is_min_value_exact)); s->has_is_min_value_exact = true; break;
  case 9: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &s->nan_count)); s->has_nan_count = true; break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- LogicalType ---- */
#define STRUCT_NAME "TimeUnit"
static hudi_status decode_time_unit(rd *r, hudi_pq_time_unit *u) {
  FIELDS_BEGIN(r)
  case 1: case 2: case 3:
    WANT(HUDI_TT_STRUCT);
    HUDI_TRY(hudi_thrift_skip(r, t));
    *u = (hudi_pq_time_unit)id;
    break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "LogicalType member"
static hudi_status decode_logical_member(rd *r, hudi_pq_logical_type *lt) {
  FIELDS_BEGIN(r)
  case 1:
    if (lt->kind == HUDI_PQ_LT_DECIMAL) { WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &lt->scale)); }
    else if (lt->kind == HUDI_PQ_LT_INTEGER) { WANT(HUDI_TT_BYTE); HUDI_TRY(hudi_thrift_read_byte(r, &lt->bit_width)); }
    else if (lt->kind == HUDI_PQ_LT_TIME || lt->kind == HUDI_PQ_LT_TIMESTAMP) {
      WANT(HUDI_TT_BOOL);
      HUDI_TRY(hudi_thrift_read_bool(r, &lt->is_adjusted_to_utc));
    } else HUDI_TRY(hudi_thrift_skip(r, t));
    break;
  case 2:
    if (lt->kind == HUDI_PQ_LT_DECIMAL) { WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &lt->precision)); }
    else if (lt->kind == HUDI_PQ_LT_INTEGER) { WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &lt->is_signed)); }
    else if (lt->kind == HUDI_PQ_LT_TIME || lt->kind == HUDI_PQ_LT_TIMESTAMP) {
      WANT(HUDI_TT_STRUCT);
      HUDI_TRY(decode_time_unit(r, &lt->unit));
    } else HUDI_TRY(hudi_thrift_skip(r, t));
    break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "LogicalType"
static hudi_status decode_logical_type(rd *r, hudi_pq_logical_type *lt) {
  FIELDS_BEGIN(r)
  case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 10: case 11: case 12: case 13: case 14:
  case 15: case 16: case 17: case 18:
    WANT(HUDI_TT_STRUCT);
    lt->kind = (hudi_pq_logical_kind)id;
    HUDI_TRY(decode_logical_member(r, lt));
    break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- SchemaElement ---- */
#define STRUCT_NAME "SchemaElement"
static hudi_status decode_schema_element(rd *r, hudi_pq_arena *a, hudi_pq_schema_element *e) {
  bool has_name = false;
  int32_t v;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(read_enum(r, 0, 7, &v)); e->type = (hudi_pq_type)v; e->has_type = true; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->type_length)); e->has_type_length = true; break;
  case 3: WANT(HUDI_TT_I32); HUDI_TRY(read_enum(r, 0, 2, &v)); e->repetition = (hudi_pq_repetition)v; e->has_repetition = true; break;
  case 4: WANT(HUDI_TT_BINARY); HUDI_TRY(read_string(r, a, &e->name, NULL)); has_name = true; break;
  case 5: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->num_children)); e->has_num_children = true; break;
  case 6: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->converted_type)); e->has_converted_type = true; break;
  case 7: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->scale)); e->has_scale = true; break;
  case 8: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->precision)); e->has_precision = true; break;
  case 9: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &e->field_id)); e->has_field_id = true; break;
  case 10: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_logical_type(r, &e->logical)); break;
  FIELDS_END(r)
  if (!has_name) return missing(r, STRUCT_NAME, "name");
  if (e->has_num_children && e->num_children < 0) return hudi_thrift_corrupt(r, "negative num_children");
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- KeyValue ---- */
#define STRUCT_NAME "KeyValue"
static hudi_status decode_key_value(rd *r, hudi_pq_arena *a, hudi_pq_key_value *kv) {
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_BINARY); HUDI_TRY(read_string(r, a, &kv->key, NULL)); break;
  case 2: WANT(HUDI_TT_BINARY); HUDI_TRY(read_string(r, a, &kv->value, &kv->value_len)); break;
  FIELDS_END(r)
  if (!kv->key) return missing(r, STRUCT_NAME, "key");
  return HUDI_OK;
}
#undef STRUCT_NAME

static hudi_status read_kv_list(rd *r, hudi_pq_arena *a, hudi_pq_key_value **kv, uint32_t *n) {
  HUDI_TRY(list_of(r, HUDI_TT_STRUCT, n, "expected a list of KeyValue"));
  HUDI_TRY(alloc_array(r, a, (void **)kv, *n, sizeof **kv));
  for (uint32_t i = 0; i < *n; i++) HUDI_TRY(decode_key_value(r, a, &(*kv)[i]));
  return HUDI_OK;
}

#define STRUCT_NAME "PageEncodingStats"
static hudi_status decode_page_encoding_stats(rd *r, hudi_pq_page_encoding_stats *s) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &s->page_type)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &s->encoding)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &s->count)); seen |= 4; break;
  FIELDS_END(r)
  if (seen != 7) return missing(r, STRUCT_NAME, "page_type, encoding or count");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "SizeStatistics"
static hudi_status decode_size_statistics(rd *r, hudi_pq_arena *a, hudi_pq_size_statistics *s) {
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &s->unencoded_byte_array_data_bytes));
    s->has_unencoded_byte_array_data_bytes = true; break;
  case 2: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &s->repetition_level_histogram));
    s->has_repetition_level_histogram = true; break;
  case 3: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &s->definition_level_histogram));
    s->has_definition_level_histogram = true; break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- ColumnMetaData ---- */
#define STRUCT_NAME "ColumnMetaData"
static hudi_status decode_column_meta(rd *r, hudi_pq_arena *a, hudi_pq_column_meta *m) {
  unsigned seen = 0;
  int32_t v;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(read_enum(r, 0, 7, &v)); m->type = (hudi_pq_type)v; seen |= 1; break;
  case 2:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_I32, &m->num_encodings, "expected a list of encodings"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->encodings, m->num_encodings, sizeof(int32_t)));
    for (uint32_t i = 0; i < m->num_encodings; i++) HUDI_TRY(hudi_thrift_read_i32(r, &m->encodings[i]));
    seen |= 2;
    break;
  case 3:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_BINARY, &m->path_len, "expected a list of strings"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->path_in_schema, m->path_len, sizeof(char *)));
    for (uint32_t i = 0; i < m->path_len; i++) HUDI_TRY(read_string(r, a, &m->path_in_schema[i], NULL));
    seen |= 4;
    break;
  case 4: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &v)); m->codec = (hudi_pq_codec)v; seen |= 8; break;
  case 5: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->num_values)); seen |= 16; break;
  case 6: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->total_uncompressed_size)); seen |= 32; break;
  case 7: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->total_compressed_size)); seen |= 64; break;
  case 8: WANT(HUDI_TT_LIST); HUDI_TRY(read_kv_list(r, a, &m->key_value, &m->num_key_value)); m->has_key_value = true; break;
  case 9: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->data_page_offset)); seen |= 128; break;
  case 10: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->index_page_offset)); m->has_index_page_offset = true; break;
  case 11: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->dictionary_page_offset)); m->has_dictionary_page_offset = true; break;
  case 12: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_statistics(r, a, &m->statistics)); m->has_statistics = true; break;
  case 13:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &m->num_encoding_stats, "expected a list of PageEncodingStats"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->encoding_stats, m->num_encoding_stats, sizeof *m->encoding_stats));
    for (uint32_t i = 0; i < m->num_encoding_stats; i++) HUDI_TRY(decode_page_encoding_stats(r, &m->encoding_stats[i]));
    m->has_encoding_stats = true;
    break;
  case 14: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->bloom_filter_offset)); m->has_bloom_filter_offset = true; break;
  case 15: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &m->bloom_filter_length)); m->has_bloom_filter_length = true; break;
  case 16: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_size_statistics(r, a, &m->size_statistics)); m->has_size_statistics = true; break;
  FIELDS_END(r)
  if (seen != 255) return missing(r, STRUCT_NAME, "type, encodings, path_in_schema, codec, sizes or offsets");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "ColumnChunk"
static hudi_status decode_column_chunk(rd *r, hudi_pq_arena *a, hudi_pq_column_chunk *c) {
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_BINARY); HUDI_TRY(read_string(r, a, &c->file_path, NULL)); break;
  case 2: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &c->file_offset)); break;
  case 3: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_column_meta(r, a, &c->meta)); c->has_meta_data = true; break;
  case 4: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &c->offset_index_offset)); c->has_offset_index = true; break;
  case 5: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &c->offset_index_length)); break;
  case 6: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &c->column_index_offset)); c->has_column_index = true; break;
  case 7: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &c->column_index_length)); break;
  case 8: case 9: HUDI_TRY(hudi_thrift_skip(r, t)); c->has_crypto = true; break;
  FIELDS_END(r)
  /* file_offset is "required" but deprecated; writers always set it, and a
   * missing one reads as 0. */
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "SortingColumn"
static hudi_status decode_sorting_column(rd *r, hudi_pq_sorting_column *s) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &s->column_idx)); seen |= 1; break;
  case 2: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &s->descending)); seen |= 2; break;
  case 3: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &s->nulls_first)); seen |= 4; break;
  FIELDS_END(r)
  if (seen != 7) return missing(r, STRUCT_NAME, "column_idx, descending or nulls_first");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "RowGroup"
static hudi_status decode_row_group(rd *r, hudi_pq_arena *a, hudi_pq_row_group *g) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &g->num_columns, "expected a list of ColumnChunk"));
    HUDI_TRY(alloc_array(r, a, (void **)&g->columns, g->num_columns, sizeof *g->columns));
    for (uint32_t i = 0; i < g->num_columns; i++) HUDI_TRY(decode_column_chunk(r, a, &g->columns[i]));
    seen |= 1;
    break;
  case 2: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &g->total_byte_size)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &g->num_rows)); seen |= 4; break;
  case 4:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &g->num_sorting_columns, "expected a list of SortingColumn"));
    HUDI_TRY(alloc_array(r, a, (void **)&g->sorting_columns, g->num_sorting_columns, sizeof *g->sorting_columns));
    for (uint32_t i = 0; i < g->num_sorting_columns; i++) HUDI_TRY(decode_sorting_column(r, &g->sorting_columns[i]));
    g->has_sorting_columns = true;
    break;
  case 5: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &g->file_offset)); g->has_file_offset = true; break;
  case 6: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &g->total_compressed_size)); g->has_total_compressed_size = true; break;
  case 7: WANT(HUDI_TT_I16); HUDI_TRY(hudi_thrift_read_i16(r, &g->ordinal)); g->has_ordinal = true; break;
  FIELDS_END(r)
  if (seen != 7) return missing(r, STRUCT_NAME, "columns, total_byte_size or num_rows");
  if (g->num_rows < 0) return hudi_thrift_corrupt(r, "negative row group num_rows");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "ColumnOrder"
static hudi_status decode_column_order(rd *r, int32_t *kind) {
  *kind = 0;
  FIELDS_BEGIN(r)
  case 1: case 2: case 3: WANT(HUDI_TT_STRUCT); *kind = id; HUDI_TRY(hudi_thrift_skip(r, t)); break;
  FIELDS_END(r)
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "FileMetaData"
static hudi_status decode_file_meta(rd *r, hudi_pq_arena *a, hudi_pq_file_meta *m) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &m->version)); seen |= 1; break;
  case 2:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &m->num_schema, "expected a list of SchemaElement"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->schema, m->num_schema, sizeof *m->schema));
    for (uint32_t i = 0; i < m->num_schema; i++) HUDI_TRY(decode_schema_element(r, a, &m->schema[i]));
    seen |= 2;
    break;
  case 3: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &m->num_rows)); seen |= 4; break;
  case 4:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &m->num_row_groups, "expected a list of RowGroup"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->row_groups, m->num_row_groups, sizeof *m->row_groups));
    for (uint32_t i = 0; i < m->num_row_groups; i++) HUDI_TRY(decode_row_group(r, a, &m->row_groups[i]));
    seen |= 8;
    break;
  case 5: WANT(HUDI_TT_LIST); HUDI_TRY(read_kv_list(r, a, &m->key_value, &m->num_key_value)); m->has_key_value = true; break;
  case 6: WANT(HUDI_TT_BINARY); HUDI_TRY(read_string(r, a, &m->created_by, NULL)); break;
  case 7:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &m->num_column_orders, "expected a list of ColumnOrder"));
    HUDI_TRY(alloc_array(r, a, (void **)&m->column_orders, m->num_column_orders, sizeof(int32_t)));
    for (uint32_t i = 0; i < m->num_column_orders; i++) HUDI_TRY(decode_column_order(r, &m->column_orders[i]));
    m->has_column_orders = true;
    break;
  case 8: case 9: HUDI_TRY(hudi_thrift_skip(r, t)); m->has_encryption = true; break;
  FIELDS_END(r)
  if (seen != 15) return missing(r, STRUCT_NAME, "version, schema, num_rows or row_groups");
  if (m->num_rows < 0) return hudi_thrift_corrupt(r, "negative num_rows");
  if (m->num_schema == 0) return hudi_thrift_corrupt(r, "empty schema");
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- PageHeader ---- */
#define STRUCT_NAME "DataPageHeader"
static hudi_status decode_data_page_header(rd *r, hudi_pq_arena *a, hudi_pq_data_page_header *h) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->num_values)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->encoding)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->definition_level_encoding)); seen |= 4; break;
  case 4: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->repetition_level_encoding)); seen |= 8; break;
  case 5: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_statistics(r, a, &h->statistics)); h->has_statistics = true; break;
  FIELDS_END(r)
  if (seen != 15) return missing(r, STRUCT_NAME, "num_values or encodings");
  if (h->num_values < 0) return hudi_thrift_corrupt(r, "negative num_values");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "DictionaryPageHeader"
static hudi_status decode_dictionary_page_header(rd *r, hudi_pq_dictionary_page_header *h) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->num_values)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->encoding)); seen |= 2; break;
  case 3: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &h->is_sorted)); h->has_is_sorted = true; break;
  FIELDS_END(r)
  if (seen != 3) return missing(r, STRUCT_NAME, "num_values or encoding");
  if (h->num_values < 0) return hudi_thrift_corrupt(r, "negative num_values");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "DataPageHeaderV2"
static hudi_status decode_data_page_header_v2(rd *r, hudi_pq_arena *a, hudi_pq_data_page_header_v2 *h) {
  unsigned seen = 0;
  h->is_compressed = true;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->num_values)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->num_nulls)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->num_rows)); seen |= 4; break;
  case 4: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->encoding)); seen |= 8; break;
  case 5: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->definition_levels_byte_length)); seen |= 16; break;
  case 6: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->repetition_levels_byte_length)); seen |= 32; break;
  case 7: WANT(HUDI_TT_BOOL); HUDI_TRY(hudi_thrift_read_bool(r, &h->is_compressed)); h->has_is_compressed = true; break;
  case 8: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_statistics(r, a, &h->statistics)); h->has_statistics = true; break;
  FIELDS_END(r)
  if (seen != 63) return missing(r, STRUCT_NAME, "counts, encoding or level lengths");
  if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 || h->num_nulls > h->num_values ||
      h->definition_levels_byte_length < 0 || h->repetition_levels_byte_length < 0)
    return hudi_thrift_corrupt(r, "negative or inconsistent DataPageHeaderV2 counts");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "PageHeader"
static hudi_status decode_page_header(rd *r, hudi_pq_arena *a, hudi_pq_page_header *h) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->type)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->uncompressed_page_size)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->compressed_page_size)); seen |= 4; break;
  case 4: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &h->crc)); h->has_crc = true; break;
  case 5: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_data_page_header(r, a, &h->data_page)); h->has_data_page = true; break;
  case 6: WANT(HUDI_TT_STRUCT); HUDI_TRY(hudi_thrift_skip(r, t)); h->has_index_page = true; break;
  case 7: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_dictionary_page_header(r, &h->dictionary_page)); h->has_dictionary_page = true; break;
  case 8: WANT(HUDI_TT_STRUCT); HUDI_TRY(decode_data_page_header_v2(r, a, &h->data_page_v2)); h->has_data_page_v2 = true; break;
  FIELDS_END(r)
  if (seen != 7) return missing(r, STRUCT_NAME, "type or page sizes");
  if (h->uncompressed_page_size < 0 || h->compressed_page_size < 0)
    return hudi_thrift_corrupt(r, "negative page size");
  if ((h->type == HUDI_PQ_PAGE_DATA && !h->has_data_page) ||
      (h->type == HUDI_PQ_PAGE_DATA_V2 && !h->has_data_page_v2) ||
      (h->type == HUDI_PQ_PAGE_DICTIONARY && !h->has_dictionary_page))
    return missing(r, STRUCT_NAME, "the header for its page type");
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- page indexes ---- */
#define STRUCT_NAME "PageLocation"
static hudi_status decode_page_location(rd *r, hudi_pq_page_location *p) {
  unsigned seen = 0;
  FIELDS_BEGIN(r)
  case 1: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &p->offset)); seen |= 1; break;
  case 2: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &p->compressed_page_size)); seen |= 2; break;
  case 3: WANT(HUDI_TT_I64); HUDI_TRY(hudi_thrift_read_i64(r, &p->first_row_index)); seen |= 4; break;
  FIELDS_END(r)
  if (seen != 7) return missing(r, STRUCT_NAME, "offset, compressed_page_size or first_row_index");
  return HUDI_OK;
}
#undef STRUCT_NAME

#define STRUCT_NAME "OffsetIndex"
static hudi_status decode_offset_index(rd *r, hudi_pq_arena *a, hudi_pq_offset_index *o) {
  bool seen = false;
  FIELDS_BEGIN(r)
  case 1:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_STRUCT, &o->num_pages, "expected a list of PageLocation"));
    HUDI_TRY(alloc_array(r, a, (void **)&o->pages, o->num_pages, sizeof *o->pages));
    for (uint32_t i = 0; i < o->num_pages; i++) HUDI_TRY(decode_page_location(r, &o->pages[i]));
    seen = true;
    break;
  case 2: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &o->unencoded_byte_array_data_bytes));
    o->has_unencoded_byte_array_data_bytes = true; break;
  FIELDS_END(r)
  if (!seen) return missing(r, STRUCT_NAME, "page_locations");
  return HUDI_OK;
}
#undef STRUCT_NAME

static hudi_status read_binary_list(rd *r, hudi_pq_arena *a, hudi_pq_bytes **out, uint32_t *n) {
  HUDI_TRY(list_of(r, HUDI_TT_BINARY, n, "expected a list of binary"));
  HUDI_TRY(alloc_array(r, a, (void **)out, *n, sizeof **out));
  for (uint32_t i = 0; i < *n; i++) HUDI_TRY(read_bytes(r, a, &(*out)[i]));
  return HUDI_OK;
}

#define STRUCT_NAME "ColumnIndex"
static hudi_status decode_column_index(rd *r, hudi_pq_arena *a, hudi_pq_column_index *c) {
  unsigned seen = 0;
  uint32_t n_min = 0, n_max = 0;
  FIELDS_BEGIN(r)
  case 1:
    WANT(HUDI_TT_LIST);
    HUDI_TRY(list_of(r, HUDI_TT_BOOL, &c->num_pages, "expected a list of bool"));
    HUDI_TRY(alloc_array(r, a, (void **)&c->null_pages, c->num_pages, sizeof(bool)));
    for (uint32_t i = 0; i < c->num_pages; i++) HUDI_TRY(hudi_thrift_read_bool(r, &c->null_pages[i]));
    seen |= 1;
    break;
  case 2: WANT(HUDI_TT_LIST); HUDI_TRY(read_binary_list(r, a, &c->min_values, &n_min)); seen |= 2; break;
  case 3: WANT(HUDI_TT_LIST); HUDI_TRY(read_binary_list(r, a, &c->max_values, &n_max)); seen |= 4; break;
  case 4: WANT(HUDI_TT_I32); HUDI_TRY(hudi_thrift_read_i32(r, &c->boundary_order)); seen |= 8; break;
  case 5: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &c->null_counts)); c->has_null_counts = true; break;
  case 6: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &c->repetition_level_histograms));
    c->has_repetition_level_histograms = true; break;
  case 7: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &c->definition_level_histograms));
    c->has_definition_level_histograms = true; break;
  case 8: WANT(HUDI_TT_LIST); HUDI_TRY(read_i64_list(r, a, &c->nan_counts)); c->has_nan_counts = true; break;
  FIELDS_END(r)
  if (seen != 15) return missing(r, STRUCT_NAME, "null_pages, min_values, max_values or boundary_order");
  if (n_min != c->num_pages || n_max != c->num_pages || (c->has_null_counts && c->null_counts.n != c->num_pages))
    return hudi_thrift_corrupt(r, "ColumnIndex lists disagree on the page count");
  return HUDI_OK;
}
#undef STRUCT_NAME

/* ---- entry points ---- */

hudi_status hudi_pq_file_meta_decode(hudi_pq_file_meta *out, hudi_pq_arena *arena, const uint8_t *data, size_t len,
                                     size_t base_offset, hudi_error *err) {
  memset(out, 0, sizeof *out);
  rd r;
  hudi_thrift_reader_init(&r, data, len, base_offset, err);
  return decode_file_meta(&r, arena, out);
}

hudi_status hudi_pq_page_header_decode(hudi_pq_page_header *out, size_t *consumed, hudi_pq_arena *arena,
                                       const uint8_t *data, size_t len, size_t base_offset, hudi_error *err) {
  memset(out, 0, sizeof *out);
  rd r;
  hudi_thrift_reader_init(&r, data, len, base_offset, err);
  HUDI_TRY(decode_page_header(&r, arena, out));
  if (consumed) *consumed = r.pos;
  return HUDI_OK;
}

hudi_status hudi_pq_offset_index_decode(hudi_pq_offset_index *out, hudi_pq_arena *arena, const uint8_t *data,
                                        size_t len, size_t base_offset, hudi_error *err) {
  memset(out, 0, sizeof *out);
  rd r;
  hudi_thrift_reader_init(&r, data, len, base_offset, err);
  return decode_offset_index(&r, arena, out);
}

hudi_status hudi_pq_column_index_decode(hudi_pq_column_index *out, hudi_pq_arena *arena, const uint8_t *data,
                                        size_t len, size_t base_offset, hudi_error *err) {
  memset(out, 0, sizeof *out);
  rd r;
  hudi_thrift_reader_init(&r, data, len, base_offset, err);
  return decode_column_index(&r, arena, out);
}

uint32_t hudi_pq_schema_num_leaves(const hudi_pq_file_meta *m) {
  uint32_t n = 0;
  for (uint32_t i = 1; i < m->num_schema; i++)
    if (!m->schema[i].has_num_children || m->schema[i].num_children == 0) n++;
  return n;
}
