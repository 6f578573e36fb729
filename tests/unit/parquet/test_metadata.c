/* Parquet metadata: footer location, decoding errors (with byte offsets),
 * encode/decode round trips of every structure, the schema tree's levels,
 * truncations of a real pyarrow footer, and allocation failures. The full
 * comparison with pyarrow's view of real files is test_pyarrow_files.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/thrift.h"

#define SEED HUDI_SOURCE_DIR "/fuzz/corpus/parquet_footer/index_gzip.parquet"

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n);
  assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void footer_location(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t off, len;
  uint8_t f[32] = "PAR1";
  memcpy(f + 24, "\x0c\x00\x00\x00PAR1", 8);
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f, 32, 32, &err), HUDI_OK);
  assert_int_equal(off, 12);
  assert_int_equal(len, 12);
  /* Only the tail given: positions are still absolute. */
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f + 24, 8, 1000, &err), HUDI_OK);
  assert_int_equal(off, 1000 - 8 - 12);
  /* A length reaching into the leading magic is corrupt. */
  f[24] = 21;
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f, 32, 32, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte offset 24"));
  f[24] = 12;
  memcpy(f + 28, "PARE", 4);
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f, 32, 32, &err), HUDI_ERR_UNSUPPORTED);
  memcpy(f + 28, "PAR2", 4);
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f, 32, 32, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(hudi_pq_footer_locate(&off, &len, f, 11, 11, &err), HUDI_ERR_CORRUPT);
}

static void real_footer_decodes_and_truncations_fail(void **state) {
  (void)state;
  size_t size;
  uint8_t *file = slurp(SEED, &size);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_file_meta m;
  assert_int_equal(hudi_pq_file_meta_parse_file(&m, &a, file, size, &err), HUDI_OK);
  /* What make_fuzz_seeds.py wrote: 3 rows, columns i, s, l.list.element. */
  assert_int_equal(m.num_rows, 3);
  assert_int_equal(m.num_row_groups, 1);
  assert_int_equal(m.num_schema, 6);
  assert_string_equal(m.schema[1].name, "i");
  assert_int_equal(m.schema[1].type, HUDI_PQ_INT32);
  assert_int_equal(m.schema[2].logical.kind, HUDI_PQ_LT_STRING);
  assert_int_equal(m.schema[3].logical.kind, HUDI_PQ_LT_LIST);
  assert_non_null(strstr(m.created_by, "parquet-cpp-arrow"));
  assert_true(m.row_groups[0].columns[0].has_offset_index);
  hudi_pq_leaf *leaves;
  uint32_t n;
  assert_int_equal(hudi_pq_schema_leaves(&leaves, &n, &m, &a, &err), HUDI_OK);
  assert_int_equal(n, 3);
  assert_string_equal(leaves[2].path, "l.list.element");
  assert_int_equal(leaves[2].max_def, 3);
  assert_int_equal(leaves[2].max_rep, 1);
  assert_int_equal(leaves[0].max_def, 1);
  assert_int_equal(leaves[0].max_rep, 0);
  size_t off, len;
  assert_int_equal(hudi_pq_footer_locate(&off, &len, file, size, size, &err), HUDI_OK);
  /* Every strict prefix of the footer fails with an offset inside it. */
  for (size_t cut = 0; cut < len; cut++) {
    hudi_pq_arena b;
    hudi_pq_arena_init(&b, 0);
    hudi_error_clear(&err);
    assert_int_equal(hudi_pq_file_meta_decode(&m, &b, file + off, cut, off, &err), HUDI_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "byte offset"));
    hudi_pq_arena_free(&b);
  }
  /* Allocation failures at every step: NOMEM, never a crash or leak. */
  for (long k = 0; k < 40; k++) {
    hudi_pq_arena b;
    hudi_pq_arena_init(&b, 0);
    hudi_alloc_fail_after(k);
    hudi_status st = hudi_pq_file_meta_decode(&m, &b, file + off, len, off, &err);
    hudi_alloc_fail_after(-1);
    assert_true(st == HUDI_OK || st == HUDI_ERR_NOMEM);
    hudi_pq_arena_free(&b);
  }
  /* The arena cap bounds what a footer can allocate. */
  hudi_pq_arena small;
  hudi_pq_arena_init(&small, 256);
  assert_int_equal(hudi_pq_file_meta_decode(&m, &small, file + off, len, off, &err), HUDI_ERR_NOMEM);
  hudi_pq_arena_free(&small);
  hudi_pq_arena_free(&a);
  free(file);
}

/* Encodes a struct by hand to produce a field of the wrong type or a
 * missing required field. */
static void decoding_errors_name_the_field(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_thrift_writer w;
  hudi_thrift_writer_init(&w, &b, &err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_i32_field(&w, 1, 2);
  hudi_thrift_write_string_field(&w, 3, "not an i64"); /* num_rows must be i64 */
  hudi_thrift_write_struct_end(&w);
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_file_meta m;
  assert_int_equal(hudi_pq_file_meta_decode(&m, &a, b.data, b.len, 100, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "FileMetaData field 3 has the wrong type at byte offset 103"));
  /* Only the version: the rest is missing. */
  hudi_buf_reset(&b);
  hudi_thrift_writer_init(&w, &b, &err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_i32_field(&w, 1, 2);
  hudi_thrift_write_field(&w, HUDI_TT_DOUBLE, 99); /* unknown fields are skipped */
  hudi_thrift_write_double(&w, 1.0);
  hudi_thrift_write_struct_end(&w);
  assert_int_equal(hudi_pq_file_meta_decode(&m, &a, b.data, b.len, 0, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "missing required field"));
  hudi_buf_free(&b);
  hudi_pq_arena_free(&a);
}

static void page_header_round_trips(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_page_header h;
  memset(&h, 0, sizeof h);
  h.type = HUDI_PQ_PAGE_DATA_V2;
  h.uncompressed_page_size = 1000;
  h.compressed_page_size = 500;
  h.has_crc = true;
  h.crc = -123456;
  h.has_data_page_v2 = true;
  h.data_page_v2.num_values = 10;
  h.data_page_v2.num_nulls = 2;
  h.data_page_v2.num_rows = 5;
  h.data_page_v2.encoding = HUDI_PQ_ENC_RLE_DICTIONARY;
  h.data_page_v2.definition_levels_byte_length = 7;
  h.data_page_v2.repetition_levels_byte_length = 3;
  h.data_page_v2.has_is_compressed = true;
  h.data_page_v2.is_compressed = false;
  h.data_page_v2.has_statistics = true;
  h.data_page_v2.statistics.has_min_value = true;
  h.data_page_v2.statistics.min_value = (hudi_pq_bytes){(const uint8_t *)"abc", 3};
  h.data_page_v2.statistics.has_null_count = true;
  h.data_page_v2.statistics.null_count = 2;
  h.data_page_v2.statistics.has_is_max_value_exact = true;
  h.data_page_v2.statistics.is_max_value_exact = true;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_pq_page_header_encode(&b, &h, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append(&b, "page bytes", 10, &err), HUDI_OK);
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_page_header g;
  size_t used;
  assert_int_equal(hudi_pq_page_header_decode(&g, &used, &a, b.data, b.len, 0, &err), HUDI_OK);
  assert_int_equal(used, b.len - 10);
  assert_int_equal(g.type, HUDI_PQ_PAGE_DATA_V2);
  assert_int_equal(g.crc, -123456);
  assert_int_equal(g.data_page_v2.num_nulls, 2);
  assert_false(g.data_page_v2.is_compressed);
  assert_int_equal(g.data_page_v2.statistics.min_value.len, 3);
  assert_memory_equal(g.data_page_v2.statistics.min_value.data, "abc", 3);
  assert_true(g.data_page_v2.statistics.is_max_value_exact);
  assert_false(g.data_page_v2.statistics.has_max);
  /* A v2 page without its v2 header is corrupt; so are negative sizes. */
  h.has_data_page_v2 = false;
  hudi_buf_reset(&b);
  assert_int_equal(hudi_pq_page_header_encode(&b, &h, &err), HUDI_OK);
  assert_int_equal(hudi_pq_page_header_decode(&g, &used, &a, b.data, b.len, 0, &err), HUDI_ERR_CORRUPT);
  h.has_data_page_v2 = true;
  h.compressed_page_size = -1;
  hudi_buf_reset(&b);
  assert_int_equal(hudi_pq_page_header_encode(&b, &h, &err), HUDI_OK);
  assert_int_equal(hudi_pq_page_header_decode(&g, &used, &a, b.data, b.len, 0, &err), HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
  hudi_pq_arena_free(&a);
}

/* A hand-built schema: optional group with a repeated group holding an
 * optional leaf and a required leaf; plus a required top-level leaf. */
static void schema_levels_and_bad_trees(void **state) {
  (void)state;
  hudi_pq_schema_element s[6];
  memset(s, 0, sizeof s);
  const char *names[] = {"schema", "a", "list", "x", "y", "z"};
  for (int i = 0; i < 6; i++) s[i].name = (char *)names[i];
  s[0].has_num_children = true; s[0].num_children = 2;
  s[1].has_num_children = true; s[1].num_children = 1; s[1].has_repetition = true; s[1].repetition = HUDI_PQ_OPTIONAL;
  s[2].has_num_children = true; s[2].num_children = 2; s[2].has_repetition = true; s[2].repetition = HUDI_PQ_REPEATED;
  s[3].has_type = true; s[3].type = HUDI_PQ_INT64; s[3].has_repetition = true; s[3].repetition = HUDI_PQ_OPTIONAL;
  s[4].has_type = true; s[4].type = HUDI_PQ_FIXED_LEN_BYTE_ARRAY; s[4].has_type_length = true; s[4].type_length = 3;
  s[4].has_repetition = true; s[4].repetition = HUDI_PQ_REQUIRED;
  s[5].has_type = true; s[5].type = HUDI_PQ_BOOLEAN; s[5].has_repetition = true; s[5].repetition = HUDI_PQ_REQUIRED;
  hudi_pq_file_meta m;
  memset(&m, 0, sizeof m);
  m.schema = s;
  m.num_schema = 6;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_leaf *l;
  uint32_t n;
  assert_int_equal(hudi_pq_schema_leaves(&l, &n, &m, &a, &err), HUDI_OK);
  assert_int_equal(n, 3);
  assert_string_equal(l[0].path, "a.list.x");
  assert_int_equal(l[0].max_def, 3);
  assert_int_equal(l[0].max_rep, 1);
  assert_string_equal(l[1].path, "a.list.y");
  assert_int_equal(l[1].max_def, 2);
  assert_int_equal(l[1].max_rep, 1);
  assert_int_equal(l[1].type_length, 3);
  assert_string_equal(l[2].path, "z");
  assert_int_equal(l[2].max_def, 0);
  assert_int_equal(l[2].depth, 1);
  /* Children counts that overrun or leave elements over are corrupt. */
  s[2].num_children = 3;
  assert_int_equal(hudi_pq_schema_leaves(&l, &n, &m, &a, &err), HUDI_ERR_CORRUPT);
  s[2].num_children = 1;
  assert_int_equal(hudi_pq_schema_leaves(&l, &n, &m, &a, &err), HUDI_ERR_CORRUPT);
  s[2].num_children = 2;
  s[4].type_length = 0;
  assert_int_equal(hudi_pq_schema_leaves(&l, &n, &m, &a, &err), HUDI_ERR_CORRUPT);
  s[4].type_length = 3;
  s[5].has_type = false;
  assert_int_equal(hudi_pq_schema_leaves(&l, &n, &m, &a, &err), HUDI_ERR_CORRUPT);
  hudi_pq_arena_free(&a);
}

/* A corrupted chunk reports the column and the page offset. */
static void chunk_errors_name_column_and_offset(void **state) {
  (void)state;
  size_t size;
  uint8_t *file = slurp(HUDI_SOURCE_DIR "/fuzz/corpus/parquet_footer/v2_plain_none.parquet", &size);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_file_meta m;
  assert_int_equal(hudi_pq_file_meta_parse_file(&m, &a, file, size, &err), HUDI_OK);
  hudi_pq_leaf *leaves;
  uint32_t n;
  assert_int_equal(hudi_pq_schema_leaves(&leaves, &n, &m, &a, &err), HUDI_OK);
  const hudi_pq_column_chunk *cc = &m.row_groups[0].columns[1];
  size_t off, len;
  assert_int_equal(hudi_pq_column_chunk_range(&off, &len, cc, size, &err), HUDI_OK);
  hudi_pq_column_data d;
  hudi_pq_column_data_init(&d);
  assert_int_equal(hudi_pq_column_chunk_read(&d, &leaves[1], &cc->meta, file + off, len, off, NULL, &err), HUDI_OK);
  assert_int_equal(d.num_levels, 3);
  assert_int_equal(d.num_values, 2);
  const int32_t *o = (const int32_t *)(const void *)d.offsets.data;
  assert_int_equal(o[2] - o[1], 2);
  assert_memory_equal(d.values.data, "abb", 3);
  hudi_pq_column_data_free(&d);
  /* Cutting the chunk short: corrupt, naming the column. */
  hudi_pq_column_data_init(&d);
  assert_int_equal(hudi_pq_column_chunk_read(&d, &leaves[1], &cc->meta, file + off, len - 1, off, NULL, &err),
                   HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "parquet column s"));
  assert_non_null(strstr(err.message, "byte offset"));
  hudi_pq_column_data_free(&d);
  /* A level cap below the chunk's value count is a LIMIT. */
  hudi_pq_read_limits lim = HUDI_PQ_READ_LIMITS_DEFAULT;
  lim.max_levels = 2;
  hudi_pq_column_data_init(&d);
  assert_int_equal(hudi_pq_column_chunk_read(&d, &leaves[1], &cc->meta, file + off, len, off, &lim, &err),
                   HUDI_ERR_LIMIT);
  hudi_pq_column_data_free(&d);
  hudi_pq_arena_free(&a);
  free(file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(footer_location),
      cmocka_unit_test(real_footer_decodes_and_truncations_fail),
      cmocka_unit_test(decoding_errors_name_the_field),
      cmocka_unit_test(page_header_round_trips),
      cmocka_unit_test(schema_levels_and_bad_trees),
      cmocka_unit_test(chunk_errors_name_column_and_offset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
