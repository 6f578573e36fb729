/* Shared by the Parquet file tests: prints hudi-c's view of a file in the
 * text format of tests/parquet/make_files.py (pyarrow's view) and compares
 * the two. Static functions: include from one test source each. */
#ifndef HUDI_TEST_PQ_DUMP_H
#define HUDI_TEST_PQ_DUMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"

static const char *type_name(int t) {
  static const char *names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t < 8 ? names[t] : "?";
}

/* pyarrow names both LZ4 (5) and LZ4_RAW (7) "LZ4"; the generated lz4 file
 * is checked to be LZ4_RAW separately. */
static const char *codec_name(int c) {
  static const char *names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4"};
  return c >= 0 && c < 8 ? names[c] : "?";
}

static const char *encoding_name(int e) {
  static const char *names[] = {"PLAIN", "?", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
                                "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY",
                                "BYTE_STREAM_SPLIT"};
  return e >= 0 && e < 10 ? names[e] : "?";
}

static const char *converted_name(const hudi_pq_schema_element *e) {
  static const char *names[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
                                "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
                                "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON",
                                "INTERVAL"};
  if (!e->has_converted_type) return "NONE";
  return e->converted_type >= 0 && e->converted_type < 22 ? names[e->converted_type] : "?";
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    fclose(f);
    return NULL;
  }
  p[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void put_hex(hudi_buf *b, const uint8_t *p, size_t n) {
  hudi_error err = HUDI_ERROR_INIT;
  if (n == 0) {
    assert_int_equal(hudi_buf_append_str(b, "x", &err), HUDI_OK);
    return;
  }
  for (size_t i = 0; i < n; i++) assert_int_equal(hudi_buf_printf(b, &err, "%02x", p[i]), HUDI_OK);
}

/* Compares two dumps; on a difference names the line. */
static void compare_dump(const char *what, const char *file, const hudi_buf *mine, const char *expect_path) {
  size_t elen;
  char *expect = (char *)slurp(expect_path, &elen);
  if (!expect) fail_msg("cannot read %s", expect_path);
  size_t line = 1, i = 0;
  while (i < mine->len && i < elen && mine->data[i] == (uint8_t)expect[i]) {
    if (expect[i] == '\n') line++;
    i++;
  }
  if (i != mine->len || i != elen) {
    size_t s = i;
    while (s > 0 && expect[s - 1] != '\n') s--;
    char got[200] = {0}, want[200] = {0};
    for (size_t k = 0; k < 199 && s + k < mine->len && mine->data[s + k] != '\n'; k++) got[k] = (char)mine->data[s + k];
    for (size_t k = 0; k < 199 && s + k < elen && expect[s + k] != '\n'; k++) want[k] = expect[s + k];
    free(expect);
    fail_msg("%s of %s differs from pyarrow at line %zu:\n  hudi:    %s\n  pyarrow: %s", what, file, line, got, want);
  }
  free(expect);
}

static int kv_cmp(const void *a, const void *b) {
  const hudi_pq_key_value *x = a, *y = b;
  size_t lx = strlen(x->key), ly = strlen(y->key);
  int c = memcmp(x->key, y->key, lx < ly ? lx : ly);
  return c ? c : (lx > ly) - (lx < ly);
}

static void dump_meta(hudi_buf *b, const hudi_pq_file_meta *m, const hudi_pq_leaf *leaves, uint32_t nleaves) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_buf_printf(b, &err, "num_rows %lld\nnum_row_groups %u\nnum_columns %u\ncreated_by ",
                                   (long long)m->num_rows, m->num_row_groups, nleaves), HUDI_OK);
  const char *cb = m->created_by ? m->created_by : "-";
  put_hex(b, (const uint8_t *)cb, strlen(cb));
  assert_int_equal(hudi_buf_append_str(b, "\n", &err), HUDI_OK);
  hudi_pq_key_value *kv = malloc(sizeof *kv * (m->num_key_value + 1));
  if (m->num_key_value) memcpy(kv, m->key_value, sizeof *kv * m->num_key_value);
  qsort(kv, m->num_key_value, sizeof *kv, kv_cmp);
  for (uint32_t i = 0; i < m->num_key_value; i++) {
    assert_int_equal(hudi_buf_append_str(b, "kv ", &err), HUDI_OK);
    put_hex(b, (const uint8_t *)kv[i].key, strlen(kv[i].key));
    size_t vl = kv[i].value ? kv[i].value_len : 0;
    uint32_t crc = (uint32_t)crc32(0, (const Bytef *)(kv[i].value ? kv[i].value : ""), (uInt)vl);
    assert_int_equal(hudi_buf_printf(b, &err, " %zu %08x\n", vl, crc), HUDI_OK);
  }
  free(kv);
  for (uint32_t i = 0; i < nleaves; i++) {
    const hudi_pq_leaf *l = &leaves[i];
    assert_int_equal(hudi_buf_printf(b, &err, "leaf %u ", i), HUDI_OK);
    put_hex(b, (const uint8_t *)l->path, strlen(l->path));
    assert_int_equal(hudi_buf_printf(b, &err, " %s %d %d %d %s\n", type_name(l->type), l->max_def, l->max_rep,
                                     l->type_length, converted_name(l->element)), HUDI_OK);
  }
  for (uint32_t g = 0; g < m->num_row_groups; g++) {
    const hudi_pq_row_group *rg = &m->row_groups[g];
    assert_int_equal(hudi_buf_printf(b, &err, "rg %u %lld %lld\n", g, (long long)rg->num_rows,
                                     (long long)rg->total_byte_size), HUDI_OK);
    assert_int_equal(rg->num_columns, nleaves);
    for (uint32_t i = 0; i < rg->num_columns; i++) {
      const hudi_pq_column_meta *cm = &rg->columns[i].meta;
      assert_true(rg->columns[i].has_meta_data);
      if (strstr(m->created_by ? m->created_by : "", "parquet-cpp") && cm->codec == HUDI_PQ_CODEC_LZ4)
        fail_msg("pyarrow writes lz4 as LZ4_RAW, found the framed LZ4 codec");
      long long dict = cm->has_dictionary_page_offset ? (long long)cm->dictionary_page_offset : -1;
      assert_int_equal(hudi_buf_printf(b, &err, "chunk %u %u %s %lld %lld %lld %lld %lld ", g, i,
                                       codec_name(cm->codec), (long long)cm->num_values,
                                       (long long)cm->data_page_offset, dict, (long long)cm->total_compressed_size,
                                       (long long)cm->total_uncompressed_size), HUDI_OK);
      for (uint32_t e = 0; e < cm->num_encodings; e++)
        assert_int_equal(hudi_buf_printf(b, &err, "%s%s", e ? "," : "", encoding_name(cm->encodings[e])), HUDI_OK);
      long long nulls = cm->has_statistics && cm->statistics.has_null_count ? (long long)cm->statistics.null_count : -1;
      assert_int_equal(hudi_buf_printf(b, &err, " nulls=%lld\n", nulls), HUDI_OK);
    }
  }
}

static void dump_value(hudi_buf *b, const hudi_pq_leaf *l, const hudi_pq_column_data *d, size_t j) {
  hudi_error err = HUDI_ERROR_INIT;
  const uint8_t *v = d->values.data;
  hudi_status st = HUDI_OK;
  switch (l->type) {
    case HUDI_PQ_BOOLEAN: st = hudi_buf_printf(b, &err, "%d", v[j]); break;
    case HUDI_PQ_INT32: { int32_t x; memcpy(&x, v + j * 4, 4); st = hudi_buf_printf(b, &err, "%d", x); break; }
    case HUDI_PQ_INT64: { int64_t x; memcpy(&x, v + j * 8, 8); st = hudi_buf_printf(b, &err, "%lld", (long long)x); break; }
    case HUDI_PQ_FLOAT: { uint32_t x; memcpy(&x, v + j * 4, 4); st = hudi_buf_printf(b, &err, "%08x", x); break; }
    case HUDI_PQ_DOUBLE: { uint64_t x; memcpy(&x, v + j * 8, 8); st = hudi_buf_printf(b, &err, "%016llx", (unsigned long long)x); break; }
    case HUDI_PQ_INT96: put_hex(b, v + j * 12, 12); break;
    case HUDI_PQ_FIXED_LEN_BYTE_ARRAY: put_hex(b, v + j * (size_t)l->type_length, (size_t)l->type_length); break;
    case HUDI_PQ_BYTE_ARRAY: {
      const int32_t *o = (const int32_t *)(const void *)d->offsets.data;
      put_hex(b, v + o[j], (size_t)(o[j + 1] - o[j]));
      break;
    }
  }
  assert_int_equal(st, HUDI_OK);
}

static void dump_chunk(hudi_buf *b, uint32_t g, uint32_t i, const hudi_pq_leaf *l, const hudi_pq_column_data *d) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_buf_printf(b, &err, "chunk %u %u %zu\n", g, i, d->num_levels), HUDI_OK);
  const int16_t *def = (const int16_t *)(const void *)d->def_levels.data;
  const int16_t *rep = (const int16_t *)(const void *)d->rep_levels.data;
  size_t j = 0;
  for (size_t k = 0; k < d->num_levels; k++) {
    int dl = l->max_def ? def[k] : 0, rl = l->max_rep ? rep[k] : 0;
    assert_int_equal(hudi_buf_printf(b, &err, "%d %d ", dl, rl), HUDI_OK);
    if (dl == l->max_def) dump_value(b, l, d, j++);
    else assert_int_equal(hudi_buf_append_str(b, "-", &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_str(b, "\n", &err), HUDI_OK);
  }
  assert_int_equal(j, d->num_values);
}

#endif
