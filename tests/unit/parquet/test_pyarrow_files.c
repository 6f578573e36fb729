/* Real files against an independent reader. tests/parquet/make_files.py
 * writes Parquet files with pyarrow (every encoding, codec, page version,
 * nesting) and dumps pyarrow's view of them and of every Spark-written
 * .parquet in the fixture tables: footer facts (.meta) and every column
 * chunk's levels and values (.values). This test parses each footer,
 * decodes every page of every chunk, prints the same two dumps and
 * requires them to match pyarrow's line for line. It also re-encodes each
 * footer (must give the same bytes) and checks the page indexes against
 * the pages actually found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/pq_dump.h"

#define GEN_DIR "parquet_gen"

/* The OffsetIndex must list exactly the data pages we found; the
 * ColumnIndex must have one entry per page. */
static void check_page_indexes(const uint8_t *file, size_t size, const hudi_pq_column_chunk *cc,
                               const hudi_pq_column_data *d, int64_t rg_rows) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  if (cc->has_offset_index) {
    assert_true(cc->offset_index_offset > 0 && (size_t)cc->offset_index_offset + (size_t)cc->offset_index_length <= size);
    hudi_pq_offset_index oi;
    hudi_status st = hudi_pq_offset_index_decode(&oi, &a, file + cc->offset_index_offset,
                                                 (size_t)cc->offset_index_length, (size_t)cc->offset_index_offset, &err);
    if (st != HUDI_OK) fail_msg("offset index: %s", err.message);
    assert_int_equal(oi.num_pages, d->num_data_pages);
    const int64_t *po = (const int64_t *)(const void *)d->page_offsets.data;
    for (uint32_t p = 0; p < oi.num_pages; p++) {
      assert_int_equal(oi.pages[p].offset, po[p]);
      if (p) assert_true(oi.pages[p].first_row_index > oi.pages[p - 1].first_row_index);
      assert_true(oi.pages[p].first_row_index < rg_rows);
    }
    if (oi.num_pages) assert_int_equal(oi.pages[0].first_row_index, 0);
    hudi_buf re;
    hudi_buf_init(&re, 0);
    assert_int_equal(hudi_pq_offset_index_encode(&re, &oi, &err), HUDI_OK);
    assert_int_equal(re.len, (size_t)cc->offset_index_length);
    assert_memory_equal(re.data, file + cc->offset_index_offset, re.len);
    hudi_buf_free(&re);
  }
  if (cc->has_column_index) {
    hudi_pq_column_index ci;
    hudi_status st = hudi_pq_column_index_decode(&ci, &a, file + cc->column_index_offset,
                                                 (size_t)cc->column_index_length, (size_t)cc->column_index_offset, &err);
    if (st != HUDI_OK) fail_msg("column index: %s", err.message);
    assert_int_equal(ci.num_pages, d->num_data_pages);
    hudi_buf re;
    hudi_buf_init(&re, 0);
    assert_int_equal(hudi_pq_column_index_encode(&re, &ci, &err), HUDI_OK);
    assert_int_equal(re.len, (size_t)cc->column_index_length);
    assert_memory_equal(re.data, file + cc->column_index_offset, re.len);
    hudi_buf_free(&re);
  }
  hudi_pq_arena_free(&a);
}

static int check_file(const char *path, const char *prefix, int *had_index) {
  size_t size;
  uint8_t *file = slurp(path, &size);
  if (!file) fail_msg("cannot read %s", path);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_file_meta m;
  hudi_status st = hudi_pq_file_meta_parse_file(&m, &a, file, size, &err);
  if (st != HUDI_OK) fail_msg("%s: %s", path, err.message);
  /* The footer re-encodes to the same bytes. */
  size_t foff, flen;
  assert_int_equal(hudi_pq_footer_locate(&foff, &flen, file, size, size, &err), HUDI_OK);
  hudi_buf re;
  hudi_buf_init(&re, 0);
  assert_int_equal(hudi_pq_file_meta_encode(&re, &m, &err), HUDI_OK);
  if (re.len != flen || memcmp(re.data, file + foff, flen) != 0) fail_msg("%s: footer does not re-encode", path);
  hudi_buf_free(&re);

  hudi_pq_leaf *leaves;
  uint32_t nleaves;
  st = hudi_pq_schema_leaves(&leaves, &nleaves, &m, &a, &err);
  if (st != HUDI_OK) fail_msg("%s: %s", path, err.message);
  assert_int_equal(nleaves, hudi_pq_schema_num_leaves(&m));
  char ep[1024];
  hudi_buf dump;
  hudi_buf_init(&dump, 0);
  dump_meta(&dump, &m, leaves, nleaves);
  snprintf(ep, sizeof ep, "%s.meta", prefix);
  compare_dump("footer", path, &dump, ep);

  hudi_buf_reset(&dump);
  for (uint32_t g = 0; g < m.num_row_groups; g++) {
    for (uint32_t i = 0; i < nleaves; i++) {
      const hudi_pq_column_chunk *cc = &m.row_groups[g].columns[i];
      size_t off, len;
      if (hudi_pq_column_chunk_range(&off, &len, cc, size, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
      hudi_pq_column_data d;
      hudi_pq_column_data_init(&d);
      st = hudi_pq_column_chunk_read(&d, &leaves[i], &cc->meta, file + off, len, off, NULL, &err);
      if (st != HUDI_OK) fail_msg("%s rg %u column %u: %s", path, g, i, err.message);
      dump_chunk(&dump, g, i, &leaves[i], &d);
      if (cc->has_offset_index || cc->has_column_index) *had_index = 1;
      check_page_indexes(file, size, cc, &d, m.row_groups[g].num_rows);
      hudi_pq_column_data_free(&d);
    }
  }
  snprintf(ep, sizeof ep, "%s.values", prefix);
  compare_dump("values", path, &dump, ep);
  hudi_buf_free(&dump);
  hudi_pq_arena_free(&a);
  free(file);
  return 1;
}

static int generate(void **state) {
  (void)state;
  const char *py = getenv("HUDI_PYTHON");
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/parquet/make_files.py' '%s' '%s'",
           py ? py : HUDI_SOURCE_DIR "/.venv/bin/python", HUDI_SOURCE_DIR, GEN_DIR, HUDI_UNZIPPED_DIR);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "generator failed (%d): %s\n", rc, cmd);
    return -1;
  }
  return 0;
}

static void pyarrow_and_spark_files(void **state) {
  (void)state;
  size_t len;
  char *index = (char *)slurp(GEN_DIR "/index.txt", &len);
  assert_non_null(index);
  int files = 0, generated = 0, spark = 0, had_index = 0;
  for (char *line = strtok(index, "\n"); line; line = strtok(NULL, "\n")) {
    char *tab = strchr(line, '\t');
    assert_non_null(tab);
    *tab = '\0';
    files += check_file(line, tab + 1, &had_index);
    if (strstr(line, "/fixtures/")) spark++;
    else generated++;
  }
  free(index);
  /* Every generated file and every fixture base file was seen. */
  assert_true(generated >= 13);
  assert_true(spark >= 200);
  assert_true(had_index);
  printf("checked %d parquet files (%d generated by pyarrow, %d written by Spark)\n", files, generated, spark);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pyarrow_and_spark_files),
  };
  return cmocka_run_group_tests(tests, generate, NULL);
}
