/* The file-system view of Spark-written tables: file groups, slices, logs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "table/fsview.h"
#include "table/table.h"

#define DATA HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/"
#define TRIPS DATA "quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d"

static void build(hudi_table **t, hudi_fsview *v, const char *path, const char *as_of) {
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_open(t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_fsview_options o = {as_of, (*t)->version, false};
  if (hudi_fsview_build_from_listing(v, (*t)->storage, &(*t)->timeline, &o, &err) != HUDI_OK)
    fail_msg("%s", err.message);
}

static const hudi_file_group *group(const hudi_fsview *v, const char *partition) {
  for (size_t i = 0; i < v->n_groups; i++)
    if (strcmp(v->groups[i].partition, partition) == 0) return &v->groups[i];
  fail_msg("no file group in %s", partition);
  return NULL;
}

static void v8_mor_latest(void **state) {
  (void)state;
  hudi_table *t;
  hudi_fsview v;
  build(&t, &v, TRIPS, NULL);
  assert_int_equal(v.n_groups, 3);
  /* Every group: the insert's base file, then the compaction's. */
  const char *parts[] = {"city=chennai", "city=san_francisco", "city=sao_paulo"};
  for (int i = 0; i < 3; i++) {
    const hudi_file_group *g = group(&v, parts[i]);
    assert_int_equal(g->n_slices, 2);
    assert_string_equal(g->slices[0].base_instant, "20251220210108078");
    assert_string_equal(g->slices[1].base_instant, "20251220210129235");
    assert_non_null(g->slices[1].base);
    assert_string_equal(g->slices[1].base->name.instant, "20251220210129235");
    assert_true(g->slices[1].base->size > 0);
  }
  /* Logs completed before the compaction was requested stay in the old slice. */
  const hudi_file_group *chennai = group(&v, "city=chennai");
  assert_string_equal(chennai->file_id, "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0");
  assert_int_equal(chennai->slices[0].n_logs, 2);
  assert_string_equal(chennai->slices[0].logs[0].name.instant, "20251220210127080");
  assert_string_equal(chennai->slices[0].logs[0].completion_time, "20251220210127601");
  assert_string_equal(chennai->slices[0].logs[1].name.instant, "20251220210128625");
  assert_int_equal(chennai->slices[1].n_logs, 0);
  /* The delta commit after the compaction lands in the new slice. */
  const hudi_file_group *sp = group(&v, "city=sao_paulo");
  assert_int_equal(sp->slices[0].n_logs, 1);
  assert_int_equal(hudi_file_group_latest_slice(sp)->n_logs, 1);
  assert_string_equal(hudi_file_group_latest_slice(sp)->logs[0].file_name,
                      ".8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-1139-3316");
  assert_string_equal(hudi_file_group_latest_slice(sp)->logs[0].path,
                      "city=sao_paulo/.8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-1139-3316");
  hudi_fsview_free(&v);
  hudi_table_free(t);
}

static void v8_mor_time_travel(void **state) {
  (void)state;
  hudi_table *t;
  hudi_fsview v;
  build(&t, &v, TRIPS, "20251220210125441");
  assert_int_equal(v.n_groups, 3);
  for (size_t i = 0; i < v.n_groups; i++) {
    assert_int_equal(v.groups[i].n_slices, 1); /* the compaction is in the future */
    assert_string_equal(v.groups[i].slices[0].base_instant, "20251220210108078");
  }
  assert_int_equal(group(&v, "city=chennai")->slices[0].n_logs, 0);
  assert_int_equal(group(&v, "city=san_francisco")->slices[0].n_logs, 1);
  assert_int_equal(group(&v, "city=sao_paulo")->slices[0].n_logs, 1);
  hudi_fsview_free(&v);
  hudi_table_free(t);
}

static void v6_cow_nonpartitioned(void **state) {
  (void)state;
  hudi_table *t;
  hudi_fsview v;
  build(&t, &v, DATA "sample_table/cow/v6_nonpartitioned/v6_nonpartitioned", NULL);
  assert_int_equal(v.n_groups, 1);
  assert_string_equal(v.groups[0].partition, "");
  /* Two commits: the insert's base file and the upsert's rewrite of it. */
  assert_int_equal(v.groups[0].n_slices, 2);
  assert_string_equal(hudi_file_group_latest_slice(&v.groups[0])->base_instant, "20240418173551906");
  hudi_fsview_free(&v);
  hudi_table_free(t);
}

static void rolled_back_files_are_invisible(void **state) {
  (void)state;
  hudi_table *t;
  hudi_fsview v;
  build(&t, &v, DATA "sample_table/mor/avro/v9_nonpartitioned_rollback/v9_nonpartitioned_rollback", NULL);
  /* No visible file may belong to the rolled-back instant or the rollback. */
  for (size_t g = 0; g < v.n_groups; g++)
    for (size_t s = 0; s < v.groups[g].n_slices; s++) {
      const hudi_file_slice *sl = &v.groups[g].slices[s];
      for (size_t l = 0; l < sl->n_logs; l++) {
        const hudi_instant *in = hudi_timeline_find(&t->timeline, sl->logs[l].name.instant);
        assert_non_null(in);
        assert_int_equal(in->state, HUDI_INSTANT_COMPLETED);
        assert_string_equal(in->action, "deltacommit");
      }
    }
  hudi_fsview_free(&v);
  hudi_table_free(t);
}

static void base_file_names(void **state) {
  (void)state;
  hudi_base_file_name n;
  assert_int_equal(hudi_base_file_name_parse(&n, "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet"), 1);
  assert_string_equal(n.file_id, "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0");
  assert_string_equal(n.write_token, "2-986-2794");
  assert_string_equal(n.instant, "20251220210108078");
  assert_string_equal(n.ext, "parquet");
  char buf[200];
  assert_true(hudi_base_file_name_format(buf, sizeof buf, n.file_id, n.write_token, n.instant, n.ext) > 0);
  assert_string_equal(buf, "6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_2-986-2794_20251220210108078.parquet");
  assert_int_equal(hudi_base_file_name_format(buf, 10, n.file_id, n.write_token, n.instant, n.ext), -1);
  const char *not_base[] = {".6e1d5cc4-0_20251220210127080.log.1_0-1072-3078", ".hoodie_partition_metadata",
                            "a_b.parquet", "a_b_c.parquet", "a_b_1.", "_b_1.parquet", "a__1.parquet",
                            "a_b_1.par-quet", "a b_c_1.parquet", ".DS_Store"};
  for (size_t i = 0; i < sizeof not_base / sizeof not_base[0]; i++)
    if (hudi_base_file_name_parse(&n, not_base[i])) fail_msg("%s parsed as a base file", not_base[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(base_file_names),
      cmocka_unit_test(v8_mor_latest),
      cmocka_unit_test(v8_mor_time_travel),
      cmocka_unit_test(v6_cow_nonpartitioned),
      cmocka_unit_test(rolled_back_files_are_invisible),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
