/* hudi_table_rollback: the timeline files it leaves (compared with what
 * Spark 1.1 left in fixture mor/avro/v9_nonpartitioned_rollback: a
 * requested plan, an empty inflight, the completed metadata, the rolled
 * back instant's files gone, the same rollback time on the metadata
 * table), plans from markers and from listing, and what it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "base/buf.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "io/faulty.h"
#include "io/storage.h"
#include "table/rollback_plan.h"
#include "table/table.h"
#include "table/timeline.h"

static char dir[256];
static const hudi_option nofsync[] = {{"fsync", "false"}};

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-rollback-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities,
                        const int64_t *ts, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static int64_t count_rows(hudi_table *t) {
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, NULL, &err), HUDI_OK);
  int64_t n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    n += a.length;
    a.release(&a);
  }
  s.release(&s);
  return n;
}

static hudi_table *create(const char *name, hudi_table_type type) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  hudi_table_free(t);
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  return t;
}

static void write_rows(hudi_table *t, bool upsert, const char *const *ids, const char *const *cities, int n,
                       hudi_write_result *r) {
  static const int64_t ts[] = {1, 2, 3, 4, 5, 6};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, n);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = upsert ? hudi_table_upsert(r, t, &s, NULL, 0, &err) : hudi_table_append(r, t, &s, NULL, 0, &err);
  if (st != HUDI_OK) fail_msg("write: %s", err.message);
}

/* The parsed timeline file (name relative to the timeline dir of table_dir). */
static void *read_tl(hudi_storage *s, const char *table_dir, const char *name, bool plan) {
  char path[512];
  snprintf(path, sizeof path, "%s%s.hoodie/timeline/%s", table_dir, *table_dir ? "/" : "", name);
  hudi_buf b;
  hudi_buf_init(&b, 1 << 24);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_read_all(s, path, 1 << 24, &b, &err), HUDI_OK);
  void *out = NULL;
  if (plan) assert_int_equal(hudi_rollback_plan_parse((hudi_rollback_plan **)&out, b.data, b.len, name, &err), HUDI_OK);
  else
    assert_int_equal(hudi_rollback_metadata_parse((hudi_rollback_metadata **)&out, b.data, b.len, name, &err),
                     HUDI_OK);
  hudi_buf_free(&b);
  return out;
}

static const hudi_instant *find_action(const hudi_timeline *tl, const char *action, hudi_instant_state state) {
  for (size_t i = 0; i < tl->count; i++)
    if (!strcmp(tl->items[i].action, action) && tl->items[i].state == state) return &tl->items[i];
  return NULL;
}

static bool exists(hudi_storage *s, const char *fmt, const char *a) {
  char p[512];
  snprintf(p, sizeof p, fmt, a);
  bool e = false;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_exists(s, p, &e, &err), HUDI_OK);
  return e;
}

/* Checks the rollback of T by R on the table in s: the timeline files of
 * both timelines, and that plan and metadata agree. Returns the number of
 * data files the metadata says were deleted. */
static int32_t check_rollback_files(hudi_storage *s, const char *T, const char *R, const char *action,
                                    bool expect_mdt) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  assert_int_equal(hudi_timeline_load(&tl, s, "", 2, &err), HUDI_OK);
  assert_null(hudi_timeline_find(&tl, T)); /* every timeline file of T is gone */
  const hudi_instant *r = hudi_timeline_find(&tl, R);
  assert_non_null(r);
  assert_int_equal(r->state, HUDI_INSTANT_COMPLETED);
  assert_string_equal(r->action, "rollback");
  assert_true(exists(s, ".hoodie/timeline/%s.rollback.requested", R));
  assert_true(exists(s, ".hoodie/timeline/%s.rollback.inflight", R));
  assert_false(exists(s, ".hoodie/.temp/%s", T));

  char name[128];
  snprintf(name, sizeof name, "%s.rollback.requested", R);
  hudi_rollback_plan *plan = read_tl(s, "", name, true);
  assert_string_equal(plan->instant_to_rollback->commit_time, T);
  assert_string_equal(plan->instant_to_rollback->action, action);
  assert_int_equal(plan->version.v, 1);
  hudi_rollback_metadata *m = read_tl(s, "", r->file_name, false);
  assert_string_equal(m->start_rollback_time, R);
  assert_int_equal(m->commits_rollback.n, 1);
  assert_string_equal(((char **)m->commits_rollback.items)[0], T);
  assert_int_equal(m->instants_rollback.n, 1);
  assert_string_equal(((hudi_rollback_instant *)m->instants_rollback.items)[0].commit_time, T);
  /* Every planned file is in successDeleteFiles and gone from storage. */
  size_t planned = 0, succeeded = 0;
  const char *base = hudi_storage_base(s);
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  for (size_t i = 0; i < plan->rollback_requests.n; i++) {
    assert_int_equal(rq[i].log_blocks_to_be_deleted.n, 0);
    for (size_t k = 0; k < rq[i].files_to_be_deleted.n; k++) {
      const char *f = ((char **)rq[i].files_to_be_deleted.items)[k];
      assert_true(!strncmp(f, base, strlen(base))); /* absolute, as Hudi writes them */
      assert_non_null(strstr(f, T));
      assert_false(exists(s, "%s", f + strlen(base) + 1));
      planned++;
    }
  }
  const hudi_rollback_partition_entry *pe = m->partition_metadata.items;
  for (size_t i = 0; i < m->partition_metadata.n; i++) {
    assert_string_equal(pe[i].key, pe[i].value.partition_path);
    assert_int_equal(pe[i].value.failed_delete_files.n, 0);
    succeeded += pe[i].value.success_delete_files.n;
  }
  assert_int_equal(planned, succeeded);
  assert_int_equal(m->total_files_deleted.v, (int32_t)succeeded);
  int32_t deleted = m->total_files_deleted.v;
  hudi_rollback_plan_free(plan);
  hudi_rollback_metadata_free(m);

  /* The MDT: the same rollback time, T's deltacommit and log files gone,
   * completed before the data rollback. */
  hudi_timeline mdt;
  memset(&mdt, 0, sizeof mdt);
  assert_int_equal(hudi_timeline_load(&mdt, s, ".hoodie/metadata", 2, &err), HUDI_OK);
  assert_null(hudi_timeline_find(&mdt, T));
  const hudi_instant *mr = hudi_timeline_find(&mdt, R);
  if (expect_mdt) {
    assert_non_null(mr);
    assert_string_equal(mr->action, "rollback");
    assert_int_equal(mr->state, HUDI_INSTANT_COMPLETED);
    assert_true(strcmp(mr->completion_time, r->completion_time) < 0);
    hudi_rollback_metadata *mm = read_tl(s, ".hoodie/metadata", mr->file_name, false);
    assert_true(mm->total_files_deleted.v >= 2); /* files + record_index log files */
    const hudi_rollback_partition_entry *me = mm->partition_metadata.items;
    bool files = false;
    for (size_t i = 0; i < mm->partition_metadata.n; i++) files |= !strcmp(me[i].key, "files");
    assert_true(files);
    hudi_rollback_metadata_free(mm);
  }
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  for (size_t i = 0; i < l.count; i++)
    if (strstr(l.items[i].path, T) && strncmp(l.items[i].path, ".hoodie/", 8) != 0)
      fail_msg("file %s of rolled-back %s is still there", l.items[i].path, T);
    else if (strstr(l.items[i].path, T) && !strncmp(l.items[i].path, ".hoodie/metadata/", 17) &&
             strncmp(l.items[i].path, ".hoodie/metadata/.hoodie/", 25) != 0)
      fail_msg("MDT file %s of rolled-back %s is still there", l.items[i].path, T);
  hudi_file_list_free(&l);
  hudi_timeline_free(&mdt);
  hudi_timeline_free(&tl);
  return deleted;
}

static void completed_write(hudi_table_type type, const char *name) {
  hudi_table *t = create(name, type);
  static const char *const ids[] = {"a", "b", "c", "d"};
  static const char *const cities[] = {"sf", "sf", "nyc", "la"};
  hudi_write_result w1, w2;
  write_rows(t, false, ids, cities, 4, &w1);
  /* b updated (MOR: a log file; COW: a new base file version), e new. */
  static const char *const up[] = {"b", "e"};
  static const char *const upc[] = {"sf", "nyc"};
  write_rows(t, true, up, upc, 2, &w2);
  assert_int_equal(count_rows(t), 5);

  hudi_rollback_result r;
  hudi_error err = HUDI_ERROR_INIT;
  /* Not the latest write: refused. */
  assert_int_equal(hudi_table_rollback(&r, t, w1.requested_time, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "not the latest write"));
  hudi_error_clear(&err);
  assert_int_equal(hudi_table_rollback(&r, t, "20000101000000000", NULL, 0, &err), HUDI_ERR_NOT_FOUND);
  hudi_error_clear(&err);

  assert_int_equal(hudi_table_rollback(&r, t, w2.requested_time, NULL, 0, &err), HUDI_OK);
  assert_string_equal(r.rolled_back_instant, w2.requested_time);
  assert_true(strcmp(r.requested_time, w2.completion_time) > 0);
  assert_true(strcmp(r.completion_time, r.requested_time) > 0);
  assert_int_equal(r.num_files_deleted, (int64_t)w2.files_written); /* listing found each file of T */
  assert_int_equal(count_rows(t), 4);
  int32_t deleted = check_rollback_files(t->storage, w2.requested_time, r.requested_time,
                                         type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit", true);
  assert_int_equal(deleted, r.num_files_deleted);

  /* A completed rollback is not a write. */
  assert_int_equal(hudi_table_rollback(NULL, t, r.requested_time, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_error_clear(&err);
  /* The table goes on: the same upsert again. */
  write_rows(t, true, up, upc, 2, &w2);
  assert_int_equal(count_rows(t), 5);
  /* Now w1 is still not the latest. */
  assert_int_equal(hudi_table_rollback(&r, t, w1.requested_time, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_table_free(t);
}

static void test_completed_mor(void **s) {
  (void)s;
  completed_write(HUDI_MERGE_ON_READ, "completed-mor");
}

static void test_completed_cow(void **s) {
  (void)s;
  completed_write(HUDI_COPY_ON_WRITE, "completed-cow");
}

/* A write that died just before its completed file: T pending with its
 * markers. The plan comes from the markers: base files name their file
 * group and base instant, log files do not (MarkerBasedRollbackStrategy). */
static void test_pending_from_markers(void **s) {
  (void)s;
  hudi_table *t = create("pending-mor", HUDI_MERGE_ON_READ);
  static const char *const ids[] = {"a", "b", "c"};
  static const char *const cities[] = {"sf", "sf", "nyc"};
  hudi_write_result w;
  write_rows(t, false, ids, cities, 3, &w);
  char path[300];
  snprintf(path, sizeof path, "%s/pending-mor", dir);
  /* Count the write-if-absent calls of the upsert on a copy. */
  char cmd[700];
  snprintf(cmd, sizeof cmd, "cp -a '%s' '%s-copy'", path, path);
  assert_int_equal(system(cmd), 0);
  static const char *const up[] = {"a", "x"};
  static const char *const upc[] = {"sf", "la"};
  char copy[320];
  snprintf(copy, sizeof copy, "%s-copy", path);
  hudi_table *c = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&c, copy, nofsync, 1, &err), HUDI_OK);
  hudi_storage *f;
  assert_int_equal(hudi_faulty_storage_wrap(&f, c->storage, true, &err), HUDI_OK);
  c->storage = f;
  write_rows(c, true, up, upc, 2, &w);
  uint64_t n_ifabsent = hudi_faulty_storage_calls(f, HUDI_STORAGE_OP_WRITE_IF_ABSENT);
  hudi_table_free(c);

  /* The same upsert, dying at its last write-if-absent (T_C.deltacommit). */
  assert_int_equal(hudi_faulty_storage_wrap(&f, t->storage, true, &err), HUDI_OK);
  t->storage = f;
  hudi_fault fault = {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_WRITE_IF_ABSENT, n_ifabsent, 0, true};
  assert_int_equal(hudi_faulty_storage_arm(f, &fault, &err), HUDI_OK);
  struct ArrowArrayStream st;
  static const int64_t ts[] = {9, 9};
  make_stream(&st, up, upc, ts, 2);
  hudi_write_result wf;
  assert_int_not_equal(hudi_table_upsert(&wf, t, &st, NULL, 0, &err), HUDI_OK);
  hudi_error_clear(&err);
  hudi_faulty_storage_disarm(f);
  char T[32];
  snprintf(T, sizeof T, "%s", wf.requested_time);
  assert_true(exists(f, ".hoodie/timeline/%s.deltacommit.inflight", T));
  assert_true(exists(f, ".hoodie/.temp/%s", T));
  assert_int_equal(count_rows(t), 3);

  hudi_rollback_result r;
  assert_int_equal(hudi_table_rollback(&r, t, T, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_files_deleted, 2); /* a's log file and x's base file */
  check_rollback_files(t->storage, T, r.requested_time, "deltacommit", true);
  char name[128];
  snprintf(name, sizeof name, "%s.rollback.requested", r.requested_time);
  hudi_rollback_plan *plan = read_tl(t->storage, "", name, true);
  int bases = 0, logs = 0;
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  for (size_t i = 0; i < plan->rollback_requests.n; i++) {
    const char *file = ((char **)rq[i].files_to_be_deleted.items)[0];
    if (strstr(file, ".parquet")) {
      bases++;
      assert_string_equal(rq[i].partition_path, "city=la");
      assert_non_null(strstr(file, rq[i].file_id));
      assert_int_equal(strlen(rq[i].file_id), 38);
      assert_string_equal(rq[i].latest_base_instant, T);
    } else {
      logs++;
      assert_string_equal(rq[i].partition_path, "city=sf");
      assert_string_equal(rq[i].file_id, "");
      assert_string_equal(rq[i].latest_base_instant, "");
    }
  }
  assert_int_equal(bases, 1);
  assert_int_equal(logs, 1);
  hudi_rollback_plan_free(plan);
  assert_int_equal(count_rows(t), 3);
  hudi_table_free(t);
}

/* Eager rollback: a pending write is rolled back by the next write, and
 * with hoodie.cleaner.policy.failed.writes=NEVER it is left alone. */
static void test_eager(void **s) {
  (void)s;
  hudi_table *t = create("eager-cow", HUDI_COPY_ON_WRITE);
  static const char *const ids[] = {"a", "b"};
  static const char *const cities[] = {"sf", "nyc"};
  hudi_write_result w;
  write_rows(t, false, ids, cities, 2, &w);
  /* Abandon the latest write: its completed file goes (a crash before it). */
  static const char *const more[] = {"c"};
  write_rows(t, false, more, cities, 1, &w);
  char p[256];
  hudi_instant_file_name(p, sizeof p, w.requested_time, w.completion_time, "commit", HUDI_INSTANT_COMPLETED, 2);
  char full[320];
  snprintf(full, sizeof full, ".hoodie/timeline/%s", p);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_delete(t->storage, full, 0, &err), HUDI_OK);
  hudi_table_free(t);
  char path[300];
  snprintf(path, sizeof path, "%s/eager-cow", dir);
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  assert_int_equal(count_rows(t), 2);

  static const char *const d[] = {"d"};
  hudi_option never[] = {{"hoodie.cleaner.policy.failed.writes", "NEVER"}};
  struct ArrowArrayStream st;
  static const int64_t ts[] = {1};
  make_stream(&st, d, cities, ts, 1);
  assert_int_equal(hudi_table_append(&w, t, &st, never, 1, &err), HUDI_OK);
  const hudi_instant *old = NULL;
  for (size_t i = 0; i < t->timeline.count; i++)
    if (t->timeline.items[i].state != HUDI_INSTANT_COMPLETED) old = &t->timeline.items[i];
  assert_non_null(old); /* still pending */
  char T[32];
  snprintf(T, sizeof T, "%s", old->requested_time);

  /* A failed MDT-only deltacommit (no data instant): a pending MDT
   * deltacommit with a log file. */
  const char *M = "20200101000000000";
  hudi_storage *st_ = t->storage;
  char mp[256];
  snprintf(mp, sizeof mp, ".hoodie/metadata/.hoodie/timeline/%s.deltacommit.requested", M);
  assert_int_equal(hudi_storage_write(st_, mp, "", 0, 0, &err), HUDI_OK);
  snprintf(mp, sizeof mp, ".hoodie/metadata/.hoodie/timeline/%s.deltacommit.inflight", M);
  assert_int_equal(hudi_storage_write(st_, mp, "", 0, 0, &err), HUDI_OK);
  snprintf(mp, sizeof mp, ".hoodie/metadata/files/.files-0000-0_%s.log.1_1-0-1", M);
  assert_int_equal(hudi_storage_write(st_, mp, "junk", 4, 0, &err), HUDI_OK);

  write_rows(t, false, more, cities, 1, &w); /* EAGER (default) */
  assert_false(exists(st_, "%s", mp));
  hudi_timeline mtl;
  memset(&mtl, 0, sizeof mtl);
  assert_int_equal(hudi_timeline_load(&mtl, st_, ".hoodie/metadata", 2, &err), HUDI_OK);
  assert_null(hudi_timeline_find(&mtl, M));
  size_t mdt_rollbacks = 0;
  for (size_t i = 0; i < mtl.count; i++) {
    assert_int_equal(mtl.items[i].state, HUDI_INSTANT_COMPLETED);
    if (!strcmp(mtl.items[i].action, "rollback")) {
      hudi_rollback_metadata *mm = read_tl(st_, ".hoodie/metadata", mtl.items[i].file_name, false);
      if (!strcmp(((char **)mm->commits_rollback.items)[0], M)) {
        assert_int_equal(mm->total_files_deleted.v, 1);
        mdt_rollbacks++;
      }
      hudi_rollback_metadata_free(mm);
    }
  }
  assert_int_equal(mdt_rollbacks, 1);
  hudi_timeline_free(&mtl);
  assert_null(hudi_timeline_find(&t->timeline, T));
  const hudi_instant *r = find_action(&t->timeline, "rollback", HUDI_INSTANT_COMPLETED);
  assert_non_null(r);
  check_rollback_files(t->storage, T, r->requested_time, "commit", true);
  assert_int_equal(count_rows(t), 4); /* a b d c */
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_completed_mor),
      cmocka_unit_test(test_completed_cow),
      cmocka_unit_test(test_pending_from_markers),
      cmocka_unit_test(test_eager),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
