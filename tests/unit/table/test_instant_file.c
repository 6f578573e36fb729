/* Timeline file names, checked on the timelines Spark wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "table/instant_file.h"

#define TABLES HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/"

static void layout2_names(void **state) {
  (void)state;
  hudi_instant_file f;
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235_20251220210129883.commit", 2), 1);
  assert_string_equal(f.requested_time, "20251220210129235");
  assert_string_equal(f.completion_time, "20251220210129883");
  assert_string_equal(f.action, "commit");
  assert_int_equal(f.state, HUDI_INSTANT_COMPLETED);

  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235.compaction.requested", 2), 1);
  assert_string_equal(f.action, "compaction");
  assert_int_equal(f.state, HUDI_INSTANT_REQUESTED);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210108078.deltacommit.inflight", 2), 1);
  assert_int_equal(f.state, HUDI_INSTANT_INFLIGHT);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210108078.inflight", 2), 1);
  assert_string_equal(f.action, "commit");
  assert_int_equal(f.state, HUDI_INSTANT_INFLIGHT);

  /* Not instants: legacy completed names in layout 2, temp and crc files, junk. */
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235.commit", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235_20251220210129883.commit.tmp", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, ".20251220210129235.commit.crc", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "history", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "hoodie.properties", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "2025122021012923.commit", 1), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235.compaction", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235.bogus.requested", 2), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "20251220210129235_1.commit", 2), 0);
}

static void layout1_names(void **state) {
  (void)state;
  hudi_instant_file f;
  assert_int_equal(hudi_instant_file_parse(&f, "20240418173550988.commit", 1), 1);
  assert_string_equal(f.completion_time, "");
  assert_int_equal(f.state, HUDI_INSTANT_COMPLETED);
  /* Layout 1 has no completion times in names. */
  assert_int_equal(hudi_instant_file_parse(&f, "20240418173550988_20240418173550999.commit", 1), 0);
  assert_int_equal(hudi_instant_file_parse(&f, "20240418173550.commit", 1), 1); /* legacy 14 digits */
  assert_string_equal(f.requested_time, "20240418173550");
  assert_int_equal(hudi_instant_file_parse(&f, "20240418173550988001.commit", 1), 1);
  assert_string_equal(f.requested_time, "20240418173550988001");
}

static void names_round_trip(void **state) {
  (void)state;
  char buf[96];
  const char *actions[] = {"commit", "deltacommit", "compaction", "clustering", "clean", "rollback",
                           "replacecommit", "logcompaction", "restore", "indexing"};
  for (int layout = 1; layout <= 2; layout++) {
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
      for (int s = HUDI_INSTANT_REQUESTED; s <= HUDI_INSTANT_COMPLETED; s++) {
        int n = hudi_instant_file_name(buf, sizeof buf, "20240101000000123", "20240101000001456",
                                       actions[i], (hudi_instant_state)s, layout);
        assert_true(n > 0);
        hudi_instant_file f;
        assert_int_equal(hudi_instant_file_parse(&f, buf, layout), 1);
        assert_int_equal(f.state, s);
        assert_string_equal(f.requested_time, "20240101000000123");
        if (s == HUDI_INSTANT_COMPLETED)
          assert_string_equal(f.action, hudi_instant_completed_action(actions[i]));
        else
          assert_string_equal(f.action, actions[i]);
      }
    }
  }
  assert_int_equal(hudi_instant_file_name(buf, 10, "20240101000000123", NULL, "commit",
                                          HUDI_INSTANT_REQUESTED, 2), -1);
  assert_int_equal(hudi_instant_file_name(buf, sizeof buf, "20240101000000123", NULL, "commit",
                                          HUDI_INSTANT_COMPLETED, 2), -1);
}

/* Every file Spark left in a fixture timeline directory is either an
 * instant file or one of the known non-instant entries. */
static void check_dir(const char *dir, int layout, int min_instants) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  int instants = 0;
  while ((e = readdir(d)) != NULL) {
    hudi_instant_file f;
    if (hudi_instant_file_parse(&f, e->d_name, layout)) {
      instants++;
      char buf[96];
      int n = hudi_instant_file_name(buf, sizeof buf, f.requested_time, f.completion_time,
                                     f.state == HUDI_INSTANT_COMPLETED ? f.action : f.action, f.state,
                                     layout);
      /* Completed names regenerate exactly; so do pending ones. */
      assert_true(n > 0);
      assert_string_equal(buf, e->d_name);
    } else {
      const char *ok[] = {".", "..", "history", "archived", "hoodie.properties", ".aux", ".temp",
                          ".schema", ".index_defs", "metadata", "timeline", ".hoodie_partition_metadata"};
      int known = 0;
      for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) known |= strcmp(ok[i], e->d_name) == 0;
      if (!known) fail_msg("unexpected entry %s in %s", e->d_name, dir);
    }
  }
  closedir(d);
  assert_true(instants >= min_instants);
}

static void fixture_timelines(void **state) {
  (void)state;
  check_dir(TABLES "quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d/.hoodie/timeline", 2, 24);
  check_dir(TABLES "quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d/.hoodie/metadata/.hoodie/timeline", 2, 9);
  check_dir(TABLES "sample_table/cow/v6_nonpartitioned/v6_nonpartitioned/.hoodie", 1, 6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(layout2_names),
      cmocka_unit_test(layout1_names),
      cmocka_unit_test(names_round_trip),
      cmocka_unit_test(fixture_timelines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
