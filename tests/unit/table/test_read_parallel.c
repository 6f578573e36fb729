/* Parallel reading of file slices (hoodie.read.parallelism): the stream
 * returns the serial read's batches in the same order, early release waits
 * for the slices in flight, and a slice that fails to read fails the
 * stream with its file named. Runs over Spark-written fixture tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  snprintf(tmp, sizeof tmp, "/tmp/hudi-read-par-XXXXXX");
  return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  return system(cmd) == 0 ? 0 : -1;
}

/* The record keys in stream order, one batch per '|'. */
static void keys_in_order(hudi_table *t, const char *parallelism, char *out, size_t cap) {
  hudi_option opts[] = {{"hoodie.read.parallelism", parallelism}, {"hoodie.read.stream.batch_size", "2"}};
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.options = opts;
  o.n_options = 2;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, &o, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  int64_t col = -1;
  for (int64_t i = 0; i < schema.n_children; i++)
    if (strcmp(schema.children[i]->name, "_hoodie_record_key") == 0) col = i;
  assert_true(col >= 0);
  size_t n = 0;
  out[0] = 0;
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a)) fail_msg("stream error: %s", s.get_last_error(&s));
    if (!a.release) break;
    hudi_arrow_view v;
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      int64_t len;
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[col], i, &len);
      assert_true(n + (size_t)len + 2 < cap);
      memcpy(out + n, p, (size_t)len);
      n += (size_t)len;
      out[n++] = ',';
    }
    out[n++] = '|';
    out[n] = 0;
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
}

static void test_same_batches_same_order(void **state) {
  (void)state;
  static const char *tables[][2] = {{"sample_table/mor/avro/v9_txns_simple_meta", "v9_txns_simple_meta"},
                                    {"sample_table/cow/v9_txns_complex_meta", "v9_txns_complex_meta"}};
  for (size_t k = 0; k < 2; k++) {
    hudi_table *t;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_table_open(&t, unzip(tables[k][0], tables[k][1]), NULL, 0, &err), HUDI_OK);
    static char serial[8192], par[8192];
    keys_in_order(t, "1", serial, sizeof serial);
    assert_true(strchr(serial, '|') != strrchr(serial, '|')); /* several batches */
    const char *ps[] = {"2", "3", "8"};
    for (size_t i = 0; i < 3; i++) {
      keys_in_order(t, ps[i], par, sizeof par);
      assert_string_equal(par, serial);
    }
    hudi_table_free(t);
  }
}

static void test_early_release_and_errors(void **state) {
  (void)state;
  const char *p = unzip("sample_table/cow/v9_txns_complex_meta", "v9_txns_complex_meta");
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, p, NULL, 0, &err), HUDI_OK);
  hudi_option opts[] = {{"hoodie.read.parallelism", "4"}, {"hoodie.read.stream.batch_size", "1"}};
  hudi_read_options o = HUDI_READ_OPTIONS_INIT;
  o.options = opts;
  o.n_options = 2;
  struct ArrowArrayStream s;
  struct ArrowArray a;
  assert_int_equal(hudi_table_read(&s, t, &o, &err), HUDI_OK);
  assert_int_equal(s.get_next(&s, &a), 0);
  assert_non_null(a.release);
  a.release(&a);
  s.release(&s); /* slices still in flight */

  /* The last slice's base file vanishes after planning: the stream fails
   * when it reaches that slice, naming the file. */
  hudi_file_slice_list *l;
  assert_int_equal(hudi_table_file_slices(&l, t, &o, &err), HUDI_OK);
  size_t n = hudi_file_slice_list_count(l);
  assert_true(n > 2);
  hudi_file_slice_info fi;
  hudi_file_slice_list_at(l, n - 1, &fi);
  assert_non_null(fi.base_file);
  char victim[1024], moved[1100];
  snprintf(victim, sizeof victim, "%s/%s", p, fi.base_file);
  snprintf(moved, sizeof moved, "%s.gone", victim);
  char base_name[256];
  snprintf(base_name, sizeof base_name, "%s", strrchr(fi.base_file, '/') ? strrchr(fi.base_file, '/') + 1 : fi.base_file);
  hudi_file_slice_list_free(l);
  assert_int_equal(hudi_table_read(&s, t, &o, &err), HUDI_OK);
  assert_int_equal(rename(victim, moved), 0);
  int rc = 0;
  size_t got = 0;
  while ((rc = s.get_next(&s, &a)) == 0 && a.release) {
    a.release(&a);
    got++;
  }
  assert_int_not_equal(rc, 0);
  assert_non_null(strstr(s.get_last_error(&s), base_name));
  assert_int_not_equal(s.get_next(&s, &a), 0); /* stays failed */
  s.release(&s);
  assert_int_equal(rename(moved, victim), 0);
  hudi_option bad[] = {{"hoodie.read.parallelism", "0"}};
  o.options = bad;
  o.n_options = 1;
  assert_int_equal(hudi_table_read(&s, t, &o, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "parallelism"));
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_batches_same_order),
      cmocka_unit_test(test_early_release_and_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
