/* Opening Spark-written tables: properties, version checks, the timeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hudi/table.h"

#define DATA HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/"
#define PROPS HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/"

static hudi_table *open_ok(const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_table_open(&t, path, NULL, 0, &err);
  if (st != HUDI_OK) fail_msg("opening %s: %s", path, err.message);
  return t;
}

static void instant(const hudi_table *t, size_t i, hudi_instant_info *in) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_instant_at(t, i, in, &err), HUDI_OK);
}

static void v8_mor_with_compaction(void **state) {
  (void)state;
  hudi_table *t = open_ok(DATA "quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d");
  assert_string_equal(hudi_table_name(t), "v8_trips_8i3u1d");
  assert_int_equal(hudi_table_get_type(t), HUDI_MERGE_ON_READ);
  assert_int_equal(hudi_table_version(t), 8);
  assert_int_equal(hudi_table_timeline_layout(t), 2);
  assert_string_equal(hudi_table_property(t, "hoodie.table.precombine.field"), "ts");
  /* Java escaped ':' as "\:" in the schema; the value is unescaped. */
  assert_non_null(strstr(hudi_table_property(t, "hoodie.table.create.schema"),
                         "{\"type\":\"record\",\"name\":\"v8_trips_8i3u1d_record\""));
  /* 24 instant files, three per instant: 8 instants, all completed. */
  assert_int_equal(hudi_table_instant_count(t), 8);
  hudi_instant_info in;
  instant(t, 0, &in);
  assert_string_equal(in.requested_time, "20251220210108078");
  assert_string_equal(in.completion_time, "20251220210109593");
  assert_string_equal(in.action, "deltacommit");
  assert_int_equal(in.state, HUDI_STATE_COMPLETED);
  /* 2025-12-20T21:01:08.078Z */
  assert_true(in.requested_epoch_ms == INT64_C(1766264468078));
  instant(t, 1, &in);
  assert_string_equal(in.action, "indexing");
  instant(t, 6, &in);
  assert_string_equal(in.requested_time, "20251220210129235");
  assert_string_equal(in.action, "commit");
  assert_string_equal(in.requested_action, "compaction");
  assert_string_equal(in.completion_time, "20251220210129883");
  for (size_t i = 0; i < hudi_table_instant_count(t); i++) {
    instant(t, i, &in);
    assert_int_equal(in.state, HUDI_STATE_COMPLETED);
    if (i) {
      hudi_instant_info prev;
      instant(t, i - 1, &prev);
      assert_true(strcmp(prev.requested_time, in.requested_time) < 0);
    }
  }
  hudi_table_free(t);
}

static void v9_rollback_timeline(void **state) {
  (void)state;
  hudi_table *t = open_ok(DATA "sample_table/mor/avro/v9_nonpartitioned_rollback/v9_nonpartitioned_rollback");
  assert_int_equal(hudi_table_version(t), 9);
  size_t n = hudi_table_instant_count(t);
  assert_true(n >= 3);
  int rollbacks = 0;
  for (size_t i = 0; i < n; i++) {
    hudi_instant_info in;
    instant(t, i, &in);
    rollbacks += strcmp(in.action, "rollback") == 0;
  }
  assert_int_equal(rollbacks, 1);
  hudi_table_free(t);
}

static void v6_cow_layout1(void **state) {
  (void)state;
  hudi_table *t = open_ok(DATA "sample_table/cow/v6_nonpartitioned/v6_nonpartitioned");
  assert_int_equal(hudi_table_get_type(t), HUDI_COPY_ON_WRITE);
  assert_int_equal(hudi_table_version(t), 6);
  assert_int_equal(hudi_table_timeline_layout(t), 1);
  assert_int_equal(hudi_table_instant_count(t), 2);
  hudi_instant_info in;
  instant(t, 0, &in);
  assert_string_equal(in.requested_time, "20240418173550988");
  assert_string_equal(in.completion_time, "");
  assert_string_equal(in.action, "commit");
  assert_int_equal(in.state, HUDI_STATE_COMPLETED);
  hudi_table_free(t);
}

static void every_fixture_table_opens(void **state) {
  (void)state;
  const char *tables[] = {
      "sample_table/cow/v6_empty/v6_empty",
      "sample_table/cow/v8_empty/v8_empty",
      "sample_table/cow/v9_txns_simple_meta/v9_txns_simple_meta",
      "sample_table/mor/parquet/v6_nonpartitioned_rollback/v6_nonpartitioned_rollback",
      "sample_table/mor/avro/v9_txns_complex_nometa/v9_txns_complex_nometa",
  };
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, DATA "%s", tables[i]);
    hudi_table *t = open_ok(path);
    assert_true(hudi_table_version(t) == 6 || hudi_table_version(t) >= 8);
    hudi_table_free(t);
  }
}

static void errors_are_clear(void **state) {
  (void)state;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, "/nonexistent/table", NULL, 0, &err), HUDI_ERR_NOT_FOUND);
  assert_null(t);
  assert_non_null(strstr(err.message, "no Hudi table at /nonexistent/table"));

  assert_int_equal(hudi_table_open(&t, PROPS "table_props_invalid", NULL, 0, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "hoodie.properties"));

  assert_int_equal(hudi_table_open(&t, "s3x://bucket/t", NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "s3x"));
  assert_int_equal(hudi_table_open(&t, "", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void unsupported_version_and_backup(void **state) {
  (void)state;
  char dir[] = "/tmp/hudi-table-open-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char hoodie[600], props[700], backup[700];
  snprintf(hoodie, sizeof hoodie, "%s/.hoodie", dir);
  snprintf(props, sizeof props, "%s/hoodie.properties", hoodie);
  snprintf(backup, sizeof backup, "%s/hoodie.properties.backup", hoodie);
  assert_int_equal(mkdir(hoodie, 0755), 0);
  /* CRC32(".t") = 498511606 */
  write_file(props, "hoodie.table.name=t\nhoodie.table.version=7\nhoodie.table.checksum=498511606\n");
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, dir, NULL, 0, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "table version 7"));

  /* A corrupt main file with a good backup: Hudi uses the backup. */
  write_file(props, "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.table.checksum=1\n");
  write_file(backup, "hoodie.table.name=t\nhoodie.table.version=8\nhoodie.table.checksum=498511606\n"
                     "hoodie.table.type=MERGE_ON_READ\n");
  assert_int_equal(hudi_table_open(&t, dir, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_table_get_type(t), HUDI_MERGE_ON_READ);
  assert_int_equal(hudi_table_instant_count(t), 0);
  hudi_table_free(t);
  unlink(backup);
  assert_int_equal(hudi_table_open(&t, dir, NULL, 0, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "hoodie.table.checksum is '1'"));
  unlink(props);
  rmdir(hoodie);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(v8_mor_with_compaction),
      cmocka_unit_test(v9_rollback_timeline),
      cmocka_unit_test(v6_cow_layout1),
      cmocka_unit_test(every_fixture_table_opens),
      cmocka_unit_test(errors_are_clear),
      cmocka_unit_test(unsupported_version_and_backup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
