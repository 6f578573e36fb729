/* Encoding of Parquet's Thrift metadata, fields in id order like the
 * reference writers, so a decoded footer re-encodes to the same bytes. */
#include <string.h>

#include "parquet/metadata.h"
#include "parquet/thrift.h"

typedef hudi_thrift_writer wr;

static void bytes_field(wr *w, int16_t id, hudi_pq_bytes b) { hudi_thrift_write_binary_field(w, id, b.data, b.len); }

static void i64_list_field(wr *w, int16_t id, const hudi_pq_i64_list *l) {
  hudi_thrift_write_field(w, HUDI_TT_LIST, id);
  hudi_thrift_write_list_begin(w, HUDI_TT_I64, l->n);
  for (uint32_t i = 0; i < l->n; i++) hudi_thrift_write_i64(w, l->v[i]);
}

static void encode_statistics(wr *w, const hudi_pq_statistics *s) {
  hudi_thrift_write_struct_begin(w);
  if (s->has_max) bytes_field(w, 1, s->max);
  if (s->has_min) bytes_field(w, 2, s->min);
  if (s->has_null_count) hudi_thrift_write_i64_field(w, 3, s->null_count);
  if (s->has_distinct_count) hudi_thrift_write_i64_field(w, 4, s->distinct_count);
  if (s->has_max_value) bytes_field(w, 5, s->max_value);
  if (s->has_min_value) bytes_field(w, 6, s->min_value);
  if (s->has_is_max_value_exact) hudi_thrift_write_bool_field(w, 7, s->is_max_value_exact);
  if (s->has_is_min_value_exact) hudi_thrift_write_bool_field(w, 8, s->is_min_value_exact);
  if (s->has_nan_count) hudi_thrift_write_i64_field(w, 9, s->nan_count);
  hudi_thrift_write_struct_end(w);
}

static void empty_struct_field(wr *w, int16_t id) {
  hudi_thrift_write_field(w, HUDI_TT_STRUCT, id);
  hudi_thrift_write_struct_begin(w);
  hudi_thrift_write_struct_end(w);
}

static void encode_logical_type(wr *w, const hudi_pq_logical_type *lt) {
  hudi_thrift_write_struct_begin(w);
  hudi_thrift_write_field(w, HUDI_TT_STRUCT, (int16_t)lt->kind);
  hudi_thrift_write_struct_begin(w);
  switch (lt->kind) {
    case HUDI_PQ_LT_DECIMAL:
      hudi_thrift_write_i32_field(w, 1, lt->scale);
      hudi_thrift_write_i32_field(w, 2, lt->precision);
      break;
    case HUDI_PQ_LT_TIME:
    case HUDI_PQ_LT_TIMESTAMP:
      hudi_thrift_write_bool_field(w, 1, lt->is_adjusted_to_utc);
      hudi_thrift_write_field(w, HUDI_TT_STRUCT, 2);
      hudi_thrift_write_struct_begin(w);
      if (lt->unit != HUDI_PQ_UNIT_NONE) empty_struct_field(w, (int16_t)lt->unit);
      hudi_thrift_write_struct_end(w);
      break;
    case HUDI_PQ_LT_INTEGER:
      hudi_thrift_write_field(w, HUDI_TT_BYTE, 1);
      hudi_thrift_write_byte(w, lt->bit_width);
      hudi_thrift_write_bool_field(w, 2, lt->is_signed);
      break;
    default: break;
  }
  hudi_thrift_write_struct_end(w);
  hudi_thrift_write_struct_end(w);
}

static void encode_schema_element(wr *w, const hudi_pq_schema_element *e) {
  hudi_thrift_write_struct_begin(w);
  if (e->has_type) hudi_thrift_write_i32_field(w, 1, (int32_t)e->type);
  if (e->has_type_length) hudi_thrift_write_i32_field(w, 2, e->type_length);
  if (e->has_repetition) hudi_thrift_write_i32_field(w, 3, (int32_t)e->repetition);
  hudi_thrift_write_string_field(w, 4, e->name ? e->name : "");
  if (e->has_num_children) hudi_thrift_write_i32_field(w, 5, e->num_children);
  if (e->has_converted_type) hudi_thrift_write_i32_field(w, 6, e->converted_type);
  if (e->has_scale) hudi_thrift_write_i32_field(w, 7, e->scale);
  if (e->has_precision) hudi_thrift_write_i32_field(w, 8, e->precision);
  if (e->has_field_id) hudi_thrift_write_i32_field(w, 9, e->field_id);
  if (e->logical.kind != HUDI_PQ_LT_NONE) {
    hudi_thrift_write_field(w, HUDI_TT_STRUCT, 10);
    encode_logical_type(w, &e->logical);
  }
  hudi_thrift_write_struct_end(w);
}

static void encode_kv_list(wr *w, int16_t id, const hudi_pq_key_value *kv, uint32_t n) {
  hudi_thrift_write_field(w, HUDI_TT_LIST, id);
  hudi_thrift_write_list_begin(w, HUDI_TT_STRUCT, n);
  for (uint32_t i = 0; i < n; i++) {
    hudi_thrift_write_struct_begin(w);
    hudi_thrift_write_string_field(w, 1, kv[i].key);
    if (kv[i].value) hudi_thrift_write_binary_field(w, 2, kv[i].value, kv[i].value_len);
    hudi_thrift_write_struct_end(w);
  }
}

static void encode_column_meta(wr *w, const hudi_pq_column_meta *m) {
  hudi_thrift_write_struct_begin(w);
  hudi_thrift_write_i32_field(w, 1, (int32_t)m->type);
  hudi_thrift_write_field(w, HUDI_TT_LIST, 2);
  hudi_thrift_write_list_begin(w, HUDI_TT_I32, m->num_encodings);
  for (uint32_t i = 0; i < m->num_encodings; i++) hudi_thrift_write_i32(w, m->encodings[i]);
  hudi_thrift_write_field(w, HUDI_TT_LIST, 3);
  hudi_thrift_write_list_begin(w, HUDI_TT_BINARY, m->path_len);
  for (uint32_t i = 0; i < m->path_len; i++) hudi_thrift_write_string(w, m->path_in_schema[i]);
  hudi_thrift_write_i32_field(w, 4, (int32_t)m->codec);
  hudi_thrift_write_i64_field(w, 5, m->num_values);
  hudi_thrift_write_i64_field(w, 6, m->total_uncompressed_size);
  hudi_thrift_write_i64_field(w, 7, m->total_compressed_size);
  if (m->has_key_value) encode_kv_list(w, 8, m->key_value, m->num_key_value);
  hudi_thrift_write_i64_field(w, 9, m->data_page_offset);
  if (m->has_index_page_offset) hudi_thrift_write_i64_field(w, 10, m->index_page_offset);
  if (m->has_dictionary_page_offset) hudi_thrift_write_i64_field(w, 11, m->dictionary_page_offset);
  if (m->has_statistics) {
    hudi_thrift_write_field(w, HUDI_TT_STRUCT, 12);
    encode_statistics(w, &m->statistics);
  }
  if (m->has_encoding_stats) {
    hudi_thrift_write_field(w, HUDI_TT_LIST, 13);
    hudi_thrift_write_list_begin(w, HUDI_TT_STRUCT, m->num_encoding_stats);
    for (uint32_t i = 0; i < m->num_encoding_stats; i++) {
      hudi_thrift_write_struct_begin(w);
      hudi_thrift_write_i32_field(w, 1, m->encoding_stats[i].page_type);
      hudi_thrift_write_i32_field(w, 2, m->encoding_stats[i].encoding);
      hudi_thrift_write_i32_field(w, 3, m->encoding_stats[i].count);
      hudi_thrift_write_struct_end(w);
    }
  }
  if (m->has_bloom_filter_offset) hudi_thrift_write_i64_field(w, 14, m->bloom_filter_offset);
  if (m->has_bloom_filter_length) hudi_thrift_write_i32_field(w, 15, m->bloom_filter_length);
  if (m->has_size_statistics) {
    const hudi_pq_size_statistics *s = &m->size_statistics;
    hudi_thrift_write_field(w, HUDI_TT_STRUCT, 16);
    hudi_thrift_write_struct_begin(w);
    if (s->has_unencoded_byte_array_data_bytes) hudi_thrift_write_i64_field(w, 1, s->unencoded_byte_array_data_bytes);
    if (s->has_repetition_level_histogram) i64_list_field(w, 2, &s->repetition_level_histogram);
    if (s->has_definition_level_histogram) i64_list_field(w, 3, &s->definition_level_histogram);
    hudi_thrift_write_struct_end(w);
  }
  hudi_thrift_write_struct_end(w);
}

static void encode_column_chunk(wr *w, const hudi_pq_column_chunk *c) {
  hudi_thrift_write_struct_begin(w);
  if (c->file_path) hudi_thrift_write_string_field(w, 1, c->file_path);
  hudi_thrift_write_i64_field(w, 2, c->file_offset);
  if (c->has_meta_data) {
    hudi_thrift_write_field(w, HUDI_TT_STRUCT, 3);
    encode_column_meta(w, &c->meta);
  }
  if (c->has_offset_index) {
    hudi_thrift_write_i64_field(w, 4, c->offset_index_offset);
    hudi_thrift_write_i32_field(w, 5, c->offset_index_length);
  }
  if (c->has_column_index) {
    hudi_thrift_write_i64_field(w, 6, c->column_index_offset);
    hudi_thrift_write_i32_field(w, 7, c->column_index_length);
  }
  hudi_thrift_write_struct_end(w);
}

static void encode_row_group(wr *w, const hudi_pq_row_group *g) {
  hudi_thrift_write_struct_begin(w);
  hudi_thrift_write_field(w, HUDI_TT_LIST, 1);
  hudi_thrift_write_list_begin(w, HUDI_TT_STRUCT, g->num_columns);
  for (uint32_t i = 0; i < g->num_columns; i++) encode_column_chunk(w, &g->columns[i]);
  hudi_thrift_write_i64_field(w, 2, g->total_byte_size);
  hudi_thrift_write_i64_field(w, 3, g->num_rows);
  if (g->has_sorting_columns) {
    hudi_thrift_write_field(w, HUDI_TT_LIST, 4);
    hudi_thrift_write_list_begin(w, HUDI_TT_STRUCT, g->num_sorting_columns);
    for (uint32_t i = 0; i < g->num_sorting_columns; i++) {
      hudi_thrift_write_struct_begin(w);
      hudi_thrift_write_i32_field(w, 1, g->sorting_columns[i].column_idx);
      hudi_thrift_write_bool_field(w, 2, g->sorting_columns[i].descending);
      hudi_thrift_write_bool_field(w, 3, g->sorting_columns[i].nulls_first);
      hudi_thrift_write_struct_end(w);
    }
  }
  if (g->has_file_offset) hudi_thrift_write_i64_field(w, 5, g->file_offset);
  if (g->has_total_compressed_size) hudi_thrift_write_i64_field(w, 6, g->total_compressed_size);
  if (g->has_ordinal) {
    hudi_thrift_write_field(w, HUDI_TT_I16, 7);
    hudi_thrift_write_i16(w, g->ordinal);
  }
  hudi_thrift_write_struct_end(w);
}

hudi_status hudi_pq_file_meta_encode(hudi_buf *out, const hudi_pq_file_meta *m, hudi_error *err) {
  wr w;
  hudi_thrift_writer_init(&w, out, err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_i32_field(&w, 1, m->version);
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 2);
  hudi_thrift_write_list_begin(&w, HUDI_TT_STRUCT, m->num_schema);
  for (uint32_t i = 0; i < m->num_schema; i++) encode_schema_element(&w, &m->schema[i]);
  hudi_thrift_write_i64_field(&w, 3, m->num_rows);
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 4);
  hudi_thrift_write_list_begin(&w, HUDI_TT_STRUCT, m->num_row_groups);
  for (uint32_t i = 0; i < m->num_row_groups; i++) encode_row_group(&w, &m->row_groups[i]);
  if (m->has_key_value) encode_kv_list(&w, 5, m->key_value, m->num_key_value);
  if (m->created_by) hudi_thrift_write_string_field(&w, 6, m->created_by);
  if (m->has_column_orders) {
    hudi_thrift_write_field(&w, HUDI_TT_LIST, 7);
    hudi_thrift_write_list_begin(&w, HUDI_TT_STRUCT, m->num_column_orders);
    for (uint32_t i = 0; i < m->num_column_orders; i++) {
      hudi_thrift_write_struct_begin(&w);
      if (m->column_orders[i]) empty_struct_field(&w, (int16_t)m->column_orders[i]);
      hudi_thrift_write_struct_end(&w);
    }
  }
  hudi_thrift_write_struct_end(&w);
  return hudi_thrift_writer_status(&w);
}

hudi_status hudi_pq_page_header_encode(hudi_buf *out, const hudi_pq_page_header *h, hudi_error *err) {
  wr w;
  hudi_thrift_writer_init(&w, out, err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_i32_field(&w, 1, h->type);
  hudi_thrift_write_i32_field(&w, 2, h->uncompressed_page_size);
  hudi_thrift_write_i32_field(&w, 3, h->compressed_page_size);
  if (h->has_crc) hudi_thrift_write_i32_field(&w, 4, h->crc);
  if (h->has_data_page) {
    const hudi_pq_data_page_header *d = &h->data_page;
    hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 5);
    hudi_thrift_write_struct_begin(&w);
    hudi_thrift_write_i32_field(&w, 1, d->num_values);
    hudi_thrift_write_i32_field(&w, 2, d->encoding);
    hudi_thrift_write_i32_field(&w, 3, d->definition_level_encoding);
    hudi_thrift_write_i32_field(&w, 4, d->repetition_level_encoding);
    if (d->has_statistics) {
      hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 5);
      encode_statistics(&w, &d->statistics);
    }
    hudi_thrift_write_struct_end(&w);
  }
  if (h->has_index_page) empty_struct_field(&w, 6);
  if (h->has_dictionary_page) {
    const hudi_pq_dictionary_page_header *d = &h->dictionary_page;
    hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 7);
    hudi_thrift_write_struct_begin(&w);
    hudi_thrift_write_i32_field(&w, 1, d->num_values);
    hudi_thrift_write_i32_field(&w, 2, d->encoding);
    if (d->has_is_sorted) hudi_thrift_write_bool_field(&w, 3, d->is_sorted);
    hudi_thrift_write_struct_end(&w);
  }
  if (h->has_data_page_v2) {
    const hudi_pq_data_page_header_v2 *d = &h->data_page_v2;
    hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 8);
    hudi_thrift_write_struct_begin(&w);
    hudi_thrift_write_i32_field(&w, 1, d->num_values);
    hudi_thrift_write_i32_field(&w, 2, d->num_nulls);
    hudi_thrift_write_i32_field(&w, 3, d->num_rows);
    hudi_thrift_write_i32_field(&w, 4, d->encoding);
    hudi_thrift_write_i32_field(&w, 5, d->definition_levels_byte_length);
    hudi_thrift_write_i32_field(&w, 6, d->repetition_levels_byte_length);
    if (d->has_is_compressed) hudi_thrift_write_bool_field(&w, 7, d->is_compressed);
    if (d->has_statistics) {
      hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 8);
      encode_statistics(&w, &d->statistics);
    }
    hudi_thrift_write_struct_end(&w);
  }
  hudi_thrift_write_struct_end(&w);
  return hudi_thrift_writer_status(&w);
}

hudi_status hudi_pq_offset_index_encode(hudi_buf *out, const hudi_pq_offset_index *o, hudi_error *err) {
  wr w;
  hudi_thrift_writer_init(&w, out, err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 1);
  hudi_thrift_write_list_begin(&w, HUDI_TT_STRUCT, o->num_pages);
  for (uint32_t i = 0; i < o->num_pages; i++) {
    hudi_thrift_write_struct_begin(&w);
    hudi_thrift_write_i64_field(&w, 1, o->pages[i].offset);
    hudi_thrift_write_i32_field(&w, 2, o->pages[i].compressed_page_size);
    hudi_thrift_write_i64_field(&w, 3, o->pages[i].first_row_index);
    hudi_thrift_write_struct_end(&w);
  }
  if (o->has_unencoded_byte_array_data_bytes) i64_list_field(&w, 2, &o->unencoded_byte_array_data_bytes);
  hudi_thrift_write_struct_end(&w);
  return hudi_thrift_writer_status(&w);
}

hudi_status hudi_pq_column_index_encode(hudi_buf *out, const hudi_pq_column_index *c, hudi_error *err) {
  wr w;
  hudi_thrift_writer_init(&w, out, err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 1);
  hudi_thrift_write_list_begin(&w, HUDI_TT_BOOL, c->num_pages);
  for (uint32_t i = 0; i < c->num_pages; i++) hudi_thrift_write_bool(&w, c->null_pages[i]);
  for (int16_t f = 2; f <= 3; f++) {
    const hudi_pq_bytes *v = f == 2 ? c->min_values : c->max_values;
    hudi_thrift_write_field(&w, HUDI_TT_LIST, f);
    hudi_thrift_write_list_begin(&w, HUDI_TT_BINARY, c->num_pages);
    for (uint32_t i = 0; i < c->num_pages; i++) hudi_thrift_write_binary(&w, v[i].data, v[i].len);
  }
  hudi_thrift_write_i32_field(&w, 4, c->boundary_order);
  if (c->has_null_counts) i64_list_field(&w, 5, &c->null_counts);
  if (c->has_repetition_level_histograms) i64_list_field(&w, 6, &c->repetition_level_histograms);
  if (c->has_definition_level_histograms) i64_list_field(&w, 7, &c->definition_level_histograms);
  if (c->has_nan_counts) i64_list_field(&w, 8, &c->nan_counts);
  hudi_thrift_write_struct_end(&w);
  return hudi_thrift_writer_status(&w);
}
