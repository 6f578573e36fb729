/* hudi_table_read over Spark-written fixture tables (unzipped into a
 * temporary directory): row counts and keys from the fixtures' README,
 * filters, projection, read-optimized, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arrow/view.h"
#include "hudi/hudi.h"

#define TABLES HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/test/data/"

static char tmp[64];

static const char *unzip(const char *rel, const char *name) {
  static char path[512];
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "unzip -qo '%s%s.zip' -d '%s' -x '__MACOSX/*' >/dev/null 2>&1", TABLES, rel, tmp);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  return path;
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp, sizeof tmp, "/tmp/hudi-read-test-XXXXXX");
  return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  return system(cmd) == 0 ? 0 : -1;
}

/* Reads the whole stream; collects column `col` (a string column) into keys
 * (sorted, joined by ','). Returns the row count. */
static int64_t read_all(hudi_table *t, const hudi_read_options *o, const char *col, char *keys, size_t cap,
                        int64_t *n_columns) {
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, o, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  if (n_columns) *n_columns = schema.n_children;
  int64_t col_idx = -1;
  for (int64_t i = 0; i < schema.n_children; i++)
    if (col && strcmp(schema.children[i]->name, col) == 0) col_idx = i;
  char *vals[256];
  size_t nv = 0;
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    int rc = s.get_next(&s, &a);
    if (rc) fail_msg("stream error: %s", s.get_last_error(&s));
    if (!a.release) break;
    rows += a.length;
    if (col_idx >= 0) {
      hudi_arrow_view v;
      assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
      for (int64_t i = 0; i < v.length && nv < 256; i++) {
        int64_t len;
        const uint8_t *p = hudi_arrow_view_bytes(&v.children[col_idx], i, &len);
        vals[nv] = malloc((size_t)len + 1);
        memcpy(vals[nv], p, (size_t)len);
        vals[nv++][len] = 0;
      }
      hudi_arrow_view_clear(&v);
    }
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  if (keys) {
    for (size_t i = 0; i < nv; i++)
      for (size_t j = i + 1; j < nv; j++)
        if (strcmp(vals[j], vals[i]) < 0) {
          char *x = vals[i];
          vals[i] = vals[j];
          vals[j] = x;
        }
    keys[0] = 0;
    for (size_t i = 0; i < nv; i++) {
      if (i) strncat(keys, ",", cap - strlen(keys) - 1);
      strncat(keys, vals[i], cap - strlen(keys) - 1);
    }
  }
  for (size_t i = 0; i < nv; i++) free(vals[i]);
  return rows;
}

static void test_mor_avro_txns(void **state) {
  (void)state;
  const char *p = unzip("sample_table/mor/avro/v9_txns_simple_meta", "v9_txns_simple_meta");
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, p, NULL, 0, &err), HUDI_OK);
  char keys[4096];
  int64_t ncols;
  assert_int_equal(read_all(t, NULL, "txn_id", keys, sizeof keys, &ncols), 12);
  assert_string_equal(keys, "TXN-001,TXN-003,TXN-007,TXN-008,TXN-011,TXN-012,TXN-013,TXN-014,TXN-015,TXN-016,"
                            "TXN-017,TXN-018");
  assert_int_equal(ncols, 18);
  /* A partition filter (pruned) and a projection. */
  hudi_read_filter f[] = {{"region", "=", "eu"}};
  const char *proj[] = {"txn_id", "region"};
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.filters = f;
  o.n_filters = 1;
  o.projection = proj;
  o.n_projection = 2;
  assert_int_equal(read_all(t, &o, "txn_id", keys, sizeof keys, &ncols), 3);
  assert_string_equal(keys, "TXN-011,TXN-012,TXN-018");
  assert_int_equal(ncols, 2);
  hudi_file_slice_list *l;
  assert_int_equal(hudi_table_file_slices(&l, t, &o, &err), HUDI_OK);
  assert_true(hudi_file_slice_list_count(l) > 0);
  for (size_t i = 0; i < hudi_file_slice_list_count(l); i++) {
    hudi_file_slice_info fi;
    hudi_file_slice_list_at(l, i, &fi);
    assert_string_equal(fi.partition, "region=eu");
  }
  hudi_file_slice_list_free(l);
  /* SQL filter. */
  hudi_read_options s = HUDI_READ_OPTIONS_INIT;
  s.filter_sql = "region = 'apac' AND txn_id <> 'TXN-007'";
  assert_int_equal(read_all(t, &s, "txn_id", keys, sizeof keys, NULL), 3);
  assert_string_equal(keys, "TXN-008,TXN-015,TXN-016");
  /* Errors: unknown column, malformed timestamp, bad query type. */
  struct ArrowArrayStream st;
  hudi_read_filter bad[] = {{"nope", "=", "1"}};
  hudi_read_options b = HUDI_READ_OPTIONS_INIT;
  b.filters = bad;
  b.n_filters = 1;
  assert_int_equal(hudi_table_read(&st, t, &b, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "nope"));
  hudi_option ts[] = {{"hoodie.read.as.of.timestamp", "yesterday"}};
  hudi_read_options b2 = HUDI_READ_OPTIONS_INIT;
  b2.options = ts;
  b2.n_options = 1;
  assert_int_equal(hudi_table_read(&st, t, &b2, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "yesterday"));
  hudi_table_free(t);
}

static void test_mor_parquet_blocks_and_read_optimized(void **state) {
  (void)state;
  const char *p = unzip("sample_table/mor/parquet/v6_nonpartitioned", "v6_nonpartitioned");
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, p, NULL, 0, &err), HUDI_OK);
  char keys[1024];
  assert_int_equal(read_all(t, NULL, "name", keys, sizeof keys, NULL), 4);
  assert_string_equal(keys, "Alice,Bob,Carol,Diana");
  /* isActive of Alice: false after the log's update, true in the base file. */
  hudi_read_filter f[] = {{"isActive", "=", "true"}};
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.filters = f;
  o.n_filters = 1;
  assert_int_equal(read_all(t, &o, "name", keys, sizeof keys, NULL), 2);
  assert_string_equal(keys, "Carol,Diana");
  hudi_option ro[] = {{"hoodie.read.use.read_optimized.mode", "true"}};
  o.options = ro;
  o.n_options = 1;
  read_all(t, &o, "name", keys, sizeof keys, NULL);
  assert_non_null(strstr(keys, "Alice"));
  hudi_table_free(t);
}

static void test_cow_time_travel(void **state) {
  (void)state;
  const char *p = unzip("sample_table/cow/v8_nonpartitioned", "v8_nonpartitioned");
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, p, NULL, 0, &err), HUDI_OK);
  const char *first = NULL;
  for (size_t i = 0; i < hudi_table_instant_count(t) && !first; i++) {
    hudi_instant_info in;
    assert_int_equal(hudi_table_instant_at(t, i, &in, &err), HUDI_OK);
    if (in.state == HUDI_STATE_COMPLETED && strcmp(in.action, "commit") == 0) first = in.requested_time;
  }
  assert_non_null(first);
  hudi_option ts[] = {{"hoodie.read.as.of.timestamp", first}};
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.options = ts;
  o.n_options = 1;
  char keys[1024];
  read_all(t, &o, "_hoodie_commit_time", keys, sizeof keys, NULL);
  /* Every row as of the first commit was written by it. */
  char *k = strtok(keys, ",");
  assert_non_null(k);
  for (; k; k = strtok(NULL, ",")) assert_string_equal(k, first);
  struct ArrowSchema sch;
  assert_int_equal(hudi_table_get_schema(&sch, t, false, &err), HUDI_OK);
  assert_string_equal(sch.children[0]->name, "id");
  sch.release(&sch);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mor_avro_txns),
      cmocka_unit_test(test_mor_parquet_blocks_and_read_optimized),
      cmocka_unit_test(test_cow_time_travel),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
