/* hudi_table_compute_stats and hudi_table_read_file_slice_paths on fixture
 * tables (run under ASan/UBSan too). The numbers themselves are checked
 * against hudi-rs and pyarrow in tests/interop/test_table_stats.py; here:
 *   - the estimate of v9_txns_simple_meta (COW and MOR) equals hudi-rs's
 *     compute_table_stats() output for those tables (6534 rows, 5364745
 *     bytes; 5377 rows, 4414718 bytes), and is unavailable for incremental
 *     queries, version 6 tables and tables without a files partition;
 *   - reading every planned slice by its paths gives the rows reading the
 *     slice from the plan gives (same count and same record keys);
 *   - bad paths are HUDI_ERR_INVALID_ARG;
 *   - a metadata table that cannot be opened (garbage hoodie.properties,
 *     in a copy of a fixture) is not used: the plan lists storage, says
 *     why, and plans the slices a read with hoodie.metadata.enable=false
 *     plans; the stats are unavailable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "hudi/read.h"
#include "hudi/table.h"
#include "table/read_plan.h"

#define FIX HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/"

static hudi_table *open_table(const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  return t;
}

static void stats_of(const char *path, const hudi_read_options *ro, hudi_table_stats *ts) {
  hudi_table *t = open_table(path);
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_compute_stats(ts, t, ro, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  hudi_table_free(t);
}

static void stats_match_hudirs(void **state) {
  (void)state;
  hudi_table_stats ts;
  stats_of(FIX "cow/v9_txns_simple_meta/v9_txns_simple_meta", NULL, &ts);
  assert_true(ts.available);
  assert_int_equal(ts.num_rows, 6534);
  assert_int_equal(ts.byte_size, 5364745);
  stats_of(FIX "mor/avro/v9_txns_simple_meta/v9_txns_simple_meta", NULL, &ts);
  assert_true(ts.available);
  assert_int_equal(ts.num_rows, 5377);
  assert_int_equal(ts.byte_size, 4414718);

  hudi_option inc[] = {{"hoodie.read.query.type", "incremental"}};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = inc;
  ro.n_options = 1;
  stats_of(FIX "cow/v9_txns_simple_meta/v9_txns_simple_meta", &ro, &ts);
  assert_false(ts.available);
  assert_non_null(strstr(ts.reason, "incremental"));
  stats_of(FIX "cow/v6_nonpartitioned/v6_nonpartitioned", NULL, &ts);
  assert_false(ts.available);
  assert_non_null(strstr(ts.reason, "version 6"));
  stats_of(FIX "cow/v9_txns_simple_nometa/v9_txns_simple_nometa", NULL, &ts);
  assert_false(ts.available);
  assert_non_null(strstr(ts.reason, "files partition"));
}

/* Rows and the sorted record keys of a stream (the key is column 2 of a
 * table with meta fields). */
static int64_t drain(struct ArrowArrayStream *s, char ***keys) {
  int64_t n = 0;
  struct ArrowArray a;
  struct ArrowSchema sc;
  assert_int_equal(s->get_schema(s, &sc), 0);
  assert_true(sc.n_children > 2 && strcmp(sc.children[2]->name, "_hoodie_record_key") == 0);
  sc.release(&sc);
  for (;;) {
    int rc = s->get_next(s, &a);
    if (rc) fail_msg("stream: %s", s->get_last_error(s));
    if (!a.release) break;
    const struct ArrowArray *k = a.children[2];
    const int32_t *off = k->buffers[1];
    const char *data = k->buffers[2];
    *keys = realloc(*keys, (size_t)(n + a.length) * sizeof **keys);
    for (int64_t i = 0; i < a.length; i++) {
      int64_t j = i + k->offset;
      (*keys)[n + i] = strndup(data + off[j], (size_t)(off[j + 1] - off[j]));
    }
    n += a.length;
    a.release(&a);
  }
  s->release(s);
  return n;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void paths_equal_planned(const char *path) {
  hudi_table *t = open_table(path);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_file_slice_list *l = NULL;
  assert_int_equal(hudi_table_file_slices(&l, t, NULL, &err), HUDI_OK);
  size_t n = hudi_file_slice_list_count(l), with_logs = 0;
  assert_true(n > 0);
  for (size_t i = 0; i < n; i++) {
    hudi_file_slice_info fi;
    hudi_file_slice_list_at(l, i, &fi);
    with_logs += fi.n_log_files > 0;
    struct ArrowArrayStream a, b;
    assert_int_equal(hudi_table_read_file_slice(&a, t, l, i, &err), HUDI_OK);
    if (hudi_table_read_file_slice_paths(&b, t, NULL, fi.base_file, fi.log_files, fi.n_log_files, &err) != HUDI_OK)
      fail_msg("%s: %s", fi.file_id, err.message);
    char **ka = NULL, **kb = NULL;
    int64_t na = drain(&a, &ka), nb = drain(&b, &kb);
    assert_int_equal(na, nb);
    qsort(ka, (size_t)na, sizeof *ka, cmp_str);
    qsort(kb, (size_t)nb, sizeof *kb, cmp_str);
    for (int64_t r = 0; r < na; r++) assert_string_equal(ka[r], kb[r]);
    for (int64_t r = 0; r < na; r++) {
      free(ka[r]);
      free(kb[r]);
    }
    free(ka);
    free(kb);
  }
  hudi_file_slice_list_free(l);
  hudi_table_free(t);
  (void)with_logs;
}

static void read_by_paths(void **state) {
  (void)state;
  paths_equal_planned(FIX "mor/avro/v9_nonpartitioned_rollback/v9_nonpartitioned_rollback");
  paths_equal_planned(FIX "mor/parquet/v6_nonpartitioned/v6_nonpartitioned");
  paths_equal_planned(FIX "cow/v9_txns_simple_meta/v9_txns_simple_meta");

  hudi_table *t = open_table(FIX "cow/v9_txns_simple_meta/v9_txns_simple_meta");
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  assert_int_equal(hudi_table_read_file_slice_paths(&s, t, NULL, "/etc/passwd", NULL, 0, &err),
                   HUDI_ERR_INVALID_ARG);
  const char *bad[] = {"../x.log.1_0-1-1"};
  assert_int_equal(hudi_table_read_file_slice_paths(&s, t, NULL, NULL, bad, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_read_file_slice_paths(&s, t, NULL, NULL, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_table_free(t);
}

static void run(const char *cmd) {
  if (system(cmd) != 0) fail_msg("%s failed", cmd);
}

static void unopenable_mdt_falls_back(void **state) {
  (void)state;
  char tmp[] = "/tmp/hudi-test-stats-XXXXXX", cmd[1024], table[256];
  assert_non_null(mkdtemp(tmp));
  snprintf(cmd, sizeof cmd, "cp -r '" FIX "mor/avro/v9_txns_simple_meta/v9_txns_simple_meta' '%s/t'", tmp);
  run(cmd);
  snprintf(table, sizeof table, "%s/t", tmp);
  snprintf(cmd, sizeof cmd, "printf '\\377 not = properties\\n' > '%s/.hoodie/metadata/.hoodie/hoodie.properties'",
           table);
  run(cmd);
  hudi_table *t = open_table(table);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_read_plan *p = NULL, *q = NULL;
  if (hudi_read_plan_create(&p, t, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_false(p->view_from_mdt);
  print_message("fallback: %s\n", p->view_note);
  assert_non_null(strstr(p->view_note, "cannot be opened"));
  hudi_option no_mdt = {"hoodie.metadata.enable", "false"};
  hudi_read_options off = HUDI_READ_OPTIONS_INIT;
  off.options = &no_mdt;
  off.n_options = 1;
  assert_int_equal(hudi_read_plan_create(&q, t, &off, &err), HUDI_OK);
  assert_true(p->n_slices > 0);
  assert_int_equal(p->n_slices, q->n_slices);
  for (size_t i = 0; i < p->n_slices; i++)
    assert_string_equal(p->slices[i].group->file_id, q->slices[i].group->file_id);
  hudi_read_plan_free(p);
  hudi_read_plan_free(q);
  hudi_table_stats ts;
  assert_int_equal(hudi_table_compute_stats(&ts, t, NULL, &err), HUDI_OK);
  assert_false(ts.available);
  assert_non_null(strstr(ts.reason, "opening the metadata table"));
  hudi_table_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stats_match_hudirs),
      cmocka_unit_test(read_by_paths),
      cmocka_unit_test(unopenable_mdt_falls_back),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
