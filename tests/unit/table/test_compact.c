/* Compaction of MOR tables (hudi_table_compact, compact.h) and the
 * file-system view under a pending compaction (fsview.h). Tables are made
 * by our writer; reads before and after are compared row by row with the
 * meta columns, plans and commits are decoded and checked field by field,
 * and a Spark-written table with its compaction made pending again by hand
 * checks the view against Spark's own completed compaction. */
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
#include "arrow/view.h"
#include "base/alloc.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/commit_metadata.h"
#include "table/compact.h"
#include "table/compaction_plan.h"
#include "table/fsview.h"
#include "table/schema_resolve.h"
#include "table/table.h"
#include "table/write.h"

#define TRIPS_SRC \
  HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d"
#define TRIPS_C "20251220210129235"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-compact-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (getenv("HUDI_TEST_KEEP")) return 0;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

#include "compact_rows.h"

static const char *create_ordering = "ts"; /* the ordering field of the tables create() makes */

static hudi_table *create(const char *name, hudi_table_type type, const char *parts, bool rli) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = parts;
  o.ordering_fields = create_ordering;
  o.record_index_enabled = rli;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  return t;
}

static void write_rows(hudi_table *t, bool append, const char *const *ids, const char *const *cities,
                       const int64_t *ts, const int32_t *v, int n, const hudi_option *o, size_t no) {
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, n);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = append ? hudi_table_append(&r, t, &s, o, no, &err) : hudi_table_upsert(&r, t, &s, o, no, &err);
  if (st != HUDI_OK) fail_msg("%s", err.message);
}


static const char *const COLS[] = {"_hoodie_record_key", "_hoodie_partition_path", "_hoodie_commit_time",
                                   "_hoodie_commit_seqno", "id", "city", "ts", "v"};
#define N_COLS (sizeof COLS / sizeof COLS[0])

static char *snapshot(hudi_table *t) { return read_lines(t, COLS, N_COLS, NULL, NULL, NULL, NULL); }
static char *read_optimized(hudi_table *t) {
  return read_lines(t, COLS, N_COLS, "hoodie.read.use.read_optimized.mode", "true", NULL, NULL);
}

static bool exists(hudi_table *t, const char *path) {
  bool e = false;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_exists(t->storage, path, &e, &err), HUDI_OK);
  return e;
}

static hudi_compaction_plan *load_plan(hudi_table *t, const char *instant) {
  char path[200];
  snprintf(path, sizeof path, ".hoodie/timeline/%s.compaction.requested", instant);
  hudi_buf b;
  hudi_buf_init(&b, 1 << 26);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_read_all(t->storage, path, 1 << 26, &b, &err), HUDI_OK);
  hudi_compaction_plan *p = NULL;
  if (hudi_compaction_plan_parse(&p, b.data, b.len, path, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_buf_free(&b);
  return p;
}

/* a..d in sf/nyc, then an update of a, an insert e, a delete of d (MOR:
 * logs on a's and d's groups, e in a new base file). */
static void build_mor(hudi_table *t) {
  static const char *const ids[] = {"a", "b", "c", "d"};
  static const char *const cities[] = {"sf", "sf", "nyc", "nyc"};
  static const int64_t ts[] = {5, 5, 5, 5};
  static const int32_t v[] = {1, 2, 3, 4};
  write_rows(t, true, ids, cities, ts, v, 4, NULL, 0);
  static const char *const u_ids[] = {"a", "e", "b"};
  static const char *const u_cities[] = {"sf", "nyc", "sf"};
  static const int64_t u_ts[] = {9, 6, 1}; /* b: stale, loses */
  static const int32_t u_v[] = {10, 50, 20};
  write_rows(t, false, u_ids, u_cities, u_ts, u_v, 3, NULL, 0);
  static const char *const del[] = {"d"};
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_delete_keys(&r, t, del, 1, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
}

/* Expected counts, which depend on where the writer put each change: with
 * one file group (non-partitioned) the insert e rewrites the group's small
 * base file with a's update in it, leaving only d's delete in a log. */
typedef struct expect {
  int64_t groups, logs, updates, deletes, log_records;
} expect;

static void compact_table(const char *name, const char *parts, bool rli, expect x) {
  hudi_table *t = create(name, HUDI_MERGE_ON_READ, parts, rli);
  build_mor(t);
  char *before = snapshot(t);
  char *ro_before = read_optimized(t);
  assert_string_not_equal(before, ro_before); /* the logs matter */
  const char *last_delta = t->timeline.items[t->timeline.count - 1].completion_time;
  char last_delta_c[32];
  snprintf(last_delta_c, sizeof last_delta_c, "%s", last_delta);

  hudi_compact_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_compact(&r, t, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  /* The groups with logs: a's (update) and d's (delete); partitioned they differ. */
  assert_int_equal(r.num_file_groups, x.groups);
  assert_int_equal(r.num_log_files, x.logs);
  assert_int_equal(r.files_written, r.num_file_groups);
  assert_true(r.bytes_written > 0);
  assert_true(strcmp(r.completion_time, r.requested_time) > 0);
  assert_true(strcmp(r.requested_time, last_delta_c) > 0);

  /* Timeline: requested (the plan), inflight (empty), C_D.commit. */
  const hudi_instant *in = hudi_timeline_find(&t->timeline, r.requested_time);
  assert_non_null(in);
  assert_int_equal(in->state, HUDI_INSTANT_COMPLETED);
  assert_string_equal(in->action, "commit");
  assert_string_equal(in->requested_action, "compaction");
  char path[256];
  snprintf(path, sizeof path, ".hoodie/timeline/%s.compaction.inflight", r.requested_time);
  assert_true(exists(t, path));
  snprintf(path, sizeof path, ".hoodie/timeline/%s_%s.commit", r.requested_time, r.completion_time);
  assert_true(exists(t, path));
  snprintf(path, sizeof path, ".hoodie/.temp/%s", r.requested_time);
  assert_false(exists(t, path));

  hudi_compaction_plan *p = load_plan(t, r.requested_time);
  assert_int_equal(p->version.v, 2);
  assert_int_equal(p->operations.n, (size_t)r.num_file_groups);
  const hudi_compaction_operation *ops = p->operations.items;
  for (size_t i = 0; i < p->operations.n; i++) {
    assert_non_null(ops[i].data_file_path);
    assert_true(strstr(ops[i].data_file_path, ops[i].file_id) == ops[i].data_file_path);
    assert_int_equal(ops[i].metrics.n, 5);
    const hudi_tl_double_entry *m = ops[i].metrics.items;
    assert_string_equal(m[0].key, "TOTAL_LOG_FILES");
    assert_int_equal((int)m[0].value.v, (int)ops[i].delta_file_paths.n);
    char **logs = ops[i].delta_file_paths.items;
    assert_true(logs[0][0] == '.' && strstr(logs[0], ops[i].file_id) == logs[0] + 1);
  }

  hudi_commit_metadata *m = NULL;
  assert_int_equal(hudi_table_instant_metadata(&m, t, in, &err), HUDI_OK);
  assert_string_equal(m->operation_type, "COMPACT");
  assert_int_equal(m->compacted.has, 1);
  assert_int_equal(m->compacted.v, 1);
  assert_non_null(hudi_commit_metadata_schema(m));
  assert_int_equal(hudi_commit_metadata_n_stats(m), (size_t)r.num_file_groups);
  int64_t upd = 0, del = 0, logrec = 0;
  size_t np;
  const hudi_partition_write_stats *ps = hudi_commit_metadata_partitions(m, &np);
  for (size_t a = 0; a < np; a++) {
    size_t ns;
    const hudi_write_stat *ws = hudi_partition_stats(&ps[a], &ns);
    for (size_t b = 0; b < ns; b++) {
      upd += ws[b].num_update_writes.v;
      del += ws[b].num_deletes.v;
      logrec += ws[b].total_log_records.v;
      assert_non_null(ws[b].prev_base_file);
      assert_string_not_equal(ws[b].prev_commit, "null");
      assert_true(strstr(ws[b].path, r.requested_time) != NULL);
      assert_int_equal(ws[b].num_inserts.v + ws[b].num_update_writes.v, ws[b].num_writes.v);
    }
  }
  assert_int_equal(upd, x.updates);
  assert_int_equal(del, x.deletes);
  assert_int_equal(logrec, x.log_records);
  hudi_commit_metadata_free(m);
  hudi_compaction_plan_free(p);

  /* Reads: the same rows and meta values; read-optimized now equal. */
  char *after = snapshot(t);
  char *ro_after = read_optimized(t);
  assert_string_equal(before, after);
  assert_string_equal(after, ro_after);
  /* _hoodie_file_name of compacted rows is their new file. */
  static const char *const fcols[] = {"_hoodie_record_key", "_hoodie_file_name"};
  char *files = read_lines(t, fcols, 2, NULL, NULL, NULL, NULL);
  char want[64];
  snprintf(want, sizeof want, "_hoodie_record_key=a|_hoodie_file_name=");
  const char *al = strstr(files, want);
  assert_non_null(al);
  const char *nl = strchr(al, '\n');
  char suffix[64];
  snprintf(suffix, sizeof suffix, "_%s.parquet|", r.requested_time);
  assert_int_equal(strncmp(nl - strlen(suffix), suffix, strlen(suffix)), 0);
  free(files);
  /* Incremental after the last deltacommit: the compaction adds nothing. */
  char *incr = read_lines(t, COLS, N_COLS, "hoodie.read.query.type", "incremental", "hoodie.read.start.timestamp",
                          last_delta_c);
  assert_string_equal(incr, "");
  free(incr);

  /* Nothing left to compact. */
  hudi_compact_result r2;
  assert_int_equal(hudi_table_compact(&r2, t, NULL, 0, &err), HUDI_OK);
  assert_string_equal(r2.requested_time, "");
  assert_int_equal(r2.num_file_groups, 0);

  /* Writes go on after the compaction. */
  static const char *const ids[] = {"b"};
  static const char *const cities[] = {"sf"};
  static const int64_t ts[] = {10};
  static const int32_t v[] = {200};
  write_rows(t, false, ids, cities, ts, v, 1, NULL, 0);
  char *later = read_lines(t, (const char *const[]){"id", "v"}, 2, NULL, NULL, NULL, NULL);
  assert_string_equal(later, "id=a|v=10|\nid=b|v=200|\nid=c|v=3|\nid=e|v=50|\n");
  free(later);
  free(before);
  free(after);
  free(ro_before);
  free(ro_after);
  hudi_table_free(t);
}

/* Incremental reads of slices whose base file predates the range
 * (read_slice.c base_out_of_range), from the load's completion: a's log
 * update wins; b's stale one (ts 1) loses to its base row (ts 5) with an
 * ordering field, whose base merge columns are read, and wins without
 * one, when the base file is not opened; d's delete removes it; e is new,
 * in a base file of the range. */
static void incremental_from_logs(void **state) {
  (void)state;
  for (int ordered = 1; ordered >= 0; ordered--) {
    create_ordering = ordered ? "ts" : NULL;
    hudi_table *t = create(ordered ? "incr_ordered" : "incr_plain", HUDI_MERGE_ON_READ, "city", true);
    create_ordering = "ts";
    build_mor(t);
    char load_done[32];
    snprintf(load_done, sizeof load_done, "%s", t->timeline.items[0].completion_time);
    static const char *const cols[] = {"id", "v"};
    char *got = read_lines(t, cols, 2, "hoodie.read.query.type", "incremental", "hoodie.read.start.timestamp",
                           load_done);
    assert_string_equal(got, ordered ? "id=a|v=10|\nid=e|v=50|\n" : "id=a|v=10|\nid=b|v=20|\nid=e|v=50|\n");
    free(got);
    hudi_table_free(t);
  }
}

static void compact_partitioned(void **state) {
  (void)state;
  /* sf: a log with a's update and b's stale one, nyc: d's delete. */
  compact_table("mor_part", "city", false, (expect){2, 2, 1, 1, 3});
}
static void compact_nonpartitioned(void **state) {
  (void)state;
  compact_table("mor_nonpart", NULL, false, (expect){1, 1, 0, 1, 1});
}
static void compact_with_rli(void **state) {
  (void)state;
  compact_table("mor_rli", "city", true, (expect){2, 2, 1, 1, 3});
}

static void cow_refused(void **state) {
  (void)state;
  hudi_table *t = create("cow", HUDI_COPY_ON_WRITE, NULL, false);
  hudi_compact_result r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_compact(&r, t, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "COPY_ON_WRITE"));
  hudi_table_free(t);
}

static const hudi_file_group *find_group(const hudi_fsview *v, const char *file_id) {
  for (size_t i = 0; i < v->n_groups; i++)
    if (!strcmp(v->groups[i].file_id, file_id)) return &v->groups[i];
  fail_msg("no file group %s", file_id);
  return NULL;
}

/* Schedule only, write while the compaction is pending, then run it. */
static void pending_then_run(void **state) {
  (void)state;
  hudi_table *t = create("pending", HUDI_MERGE_ON_READ, NULL, false);
  build_mor(t);
  char c[32];
  bool scheduled;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_compact_schedule(c, &scheduled, t, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_true(scheduled);
  hudi_compaction_plan *p = load_plan(t, c);
  assert_int_equal(p->operations.n, 1);
  char fid[128];
  snprintf(fid, sizeof fid, "%s", ((const hudi_compaction_operation *)p->operations.items)[0].file_id);
  hudi_compaction_plan_free(p);
  char *ro_before = read_optimized(t);

  /* An update lands while C is pending: a log completed after C. */
  static const char *const ids[] = {"b"};
  static const char *const cities[] = {"sf"};
  static const int64_t ts[] = {10};
  static const int32_t v[] = {200};
  write_rows(t, false, ids, cities, ts, v, 1, NULL, 0);
  hudi_fsview view;
  hudi_fsview_options fo = {NULL, t->version, false};
  assert_int_equal(hudi_fsview_build_from_listing(&view, t->storage, &t->timeline, &fo, &err), HUDI_OK);
  const hudi_file_group *g = find_group(&view, fid);
  assert_string_equal(g->pending_compaction, c);
  size_t ns = g->n_slices;
  assert_true(ns >= 2);
  const hudi_file_slice *prev = &g->slices[ns - 2], *cur = &g->slices[ns - 1];
  assert_string_equal(cur->base_instant, c);
  assert_null(cur->base);
  assert_int_equal(cur->n_logs, 1);  /* b's update */
  assert_int_equal(prev->n_logs, 1); /* d's delete, which the plan holds */
  const hudi_file_slice *m = hudi_file_group_latest_slice(g);
  assert_ptr_equal(m, g->merged);
  assert_string_equal(m->base_instant, prev->base_instant);
  assert_non_null(m->base);
  assert_string_equal(m->base->path, prev->base->path);
  assert_int_equal(m->n_logs, 2);
  assert_string_equal(m->logs[0].file_name, prev->logs[0].file_name);
  assert_string_equal(m->logs[1].file_name, cur->logs[0].file_name);
  hudi_fsview_free(&view);

  char *snap = read_lines(t, (const char *const[]){"id", "v"}, 2, NULL, NULL, NULL, NULL);
  assert_string_equal(snap, "id=a|v=10|\nid=b|v=200|\nid=c|v=3|\nid=e|v=50|\n");
  /* Read-optimized: still the previous base files (the insert e's file
   * is not under compaction and is read as it is). */
  char *ro = read_optimized(t);
  assert_string_equal(ro, ro_before);
  char *full_before = snapshot(t);

  hudi_compact_result r;
  memset(&r, 0, sizeof r);
  if (hudi_compact_run(&r, t, c, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(r.requested_time, c);
  assert_int_equal(r.num_log_files, 1); /* the update landed after C stays a log */
  char *full_after = snapshot(t);
  assert_string_equal(full_before, full_after);
  assert_int_equal(hudi_fsview_build_from_listing(&view, t->storage, &t->timeline, &fo, &err), HUDI_OK);
  g = find_group(&view, fid);
  assert_null(g->merged);
  const hudi_file_slice *latest = hudi_file_group_latest_slice(g);
  assert_string_equal(latest->base_instant, c);
  assert_non_null(latest->base);
  assert_int_equal(latest->n_logs, 1);
  hudi_fsview_free(&view);
  /* The next compaction takes the log left in C's slice. */
  assert_int_equal(hudi_table_compact(&r, t, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_file_groups, 1);
  assert_int_equal(r.num_log_files, 1);
  char *final = snapshot(t);
  assert_string_equal(full_before, final);
  free(final);
  free(snap);
  free(ro);
  free(ro_before);
  free(full_before);
  free(full_after);
  hudi_table_free(t);
}

/* A run that stopped after writing files: the retry deletes them first. */
static void rerun_inflight(void **state) {
  (void)state;
  hudi_table *t = create("rerun", HUDI_MERGE_ON_READ, "city", false);
  build_mor(t);
  char *before = snapshot(t);
  char c[32];
  bool scheduled;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_compact_schedule(c, &scheduled, t, NULL, 0, &err), HUDI_OK);
  /* Fake a failed attempt: inflight, a marker and its half-written file. */
  char path[512], marker[512];
  snprintf(path, sizeof path, ".hoodie/timeline/%s.compaction.inflight", c);
  assert_int_equal(hudi_storage_write(t->storage, path, "", 0, 0, &err), HUDI_OK);
  hudi_compaction_plan *p = load_plan(t, c);
  const hudi_compaction_operation *op = p->operations.items;
  snprintf(path, sizeof path, "%s/%s_9-9-9_%s.parquet", op->partition_path, op->file_id, c);
  snprintf(marker, sizeof marker, ".hoodie/.temp/%s/%s/%s_9-9-9_%s.parquet.marker.MERGE", c, op->partition_path,
           op->file_id, c);
  assert_int_equal(hudi_storage_write(t->storage, path, "junk", 4, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(t->storage, marker, "", 0, 0, &err), HUDI_OK);
  hudi_compaction_plan_free(p);
  assert_int_equal(hudi_write_reload_timeline(t, &err), HUDI_OK);
  hudi_compact_result r;
  if (hudi_table_compact(&r, t, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(r.requested_time, c);
  assert_false(exists(t, path));
  char *after = snapshot(t);
  assert_string_equal(before, after);
  free(before);
  free(after);
  hudi_table_free(t);
}

/* Spark's compaction of v8_trips_8i3u1d made pending again: the view puts
 * the later deltacommit's log in the compaction's slice and a snapshot
 * reads the same rows as with Spark's completed compaction. */
static void spark_fixture_pending(void **state) {
  (void)state;
  static const char *const cols[] = {"uuid", "rider", "driver", "fare", "ts", "city", "_hoodie_commit_time"};
  hudi_table *orig;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&orig, TRIPS_SRC, NULL, 0, &err), HUDI_OK);
  char *want = read_lines(orig, cols, 7, NULL, NULL, NULL, NULL);
  hudi_table_free(orig);

  char copy[300], cmd[2048];
  snprintf(copy, sizeof copy, "%s/trips", dir);
  snprintf(cmd, sizeof cmd,
           "cp -r '%s' '%s' && rm '%s'/.hoodie/timeline/" TRIPS_C "_*.commit && rm '%s'/city=*/*_" TRIPS_C ".parquet",
           TRIPS_SRC, copy, copy, copy);
  assert_int_equal(system(cmd), 0);
  hudi_table *t;
  assert_int_equal(hudi_table_open(&t, copy, NULL, 0, &err), HUDI_OK);
  const hudi_instant *in = hudi_timeline_find(&t->timeline, TRIPS_C);
  assert_non_null(in);
  assert_int_equal(in->state, HUDI_INSTANT_INFLIGHT);
  hudi_fsview view;
  hudi_fsview_options fo = {NULL, t->version, false};
  if (hudi_fsview_build_from_listing(&view, t->storage, &t->timeline, &fo, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  assert_int_equal(view.n_groups, 3);
  for (size_t i = 0; i < 3; i++) {
    const hudi_file_group *g = &view.groups[i];
    assert_string_equal(g->pending_compaction, TRIPS_C);
    assert_int_equal(g->n_slices, 2);
    assert_null(g->slices[1].base);
    assert_non_null(g->merged);
    assert_string_equal(g->merged->base_instant, "20251220210108078");
    bool sp = !strcmp(g->partition, "city=sao_paulo");
    /* Only sao_paulo got a log after the compaction was requested. */
    assert_int_equal(g->slices[1].n_logs, sp ? 1 : 0);
    assert_int_equal(g->merged->n_logs, g->slices[0].n_logs + g->slices[1].n_logs);
    if (sp)
      assert_string_equal(g->merged->logs[g->merged->n_logs - 1].file_name,
                          ".8aa68f7e-afd6-4c94-b86c-8a886552e08d-0_20251220210130911.log.1_0-1139-3316");
  }
  hudi_fsview_free(&view);
  char *got = read_lines(t, cols, 7, NULL, NULL, NULL, NULL);
  assert_string_equal(got, want);
  /* As of an instant before the compaction was requested, no pending slice. */
  assert_int_equal(hudi_fsview_build_from_listing(&view, t->storage, &t->timeline,
                                                  &(hudi_fsview_options){"20251220210128625", t->version, false}, &err),
                   HUDI_OK);
  for (size_t i = 0; i < view.n_groups; i++) {
    assert_string_equal(view.groups[i].pending_compaction, "");
    assert_null(view.groups[i].merged);
  }
  hudi_fsview_free(&view);
  free(want);
  free(got);
  hudi_table_free(t);
}

/* Without an ordering field (commit-time ordering) the compaction streams
 * the base file batch by batch and takes the logs' latest records: a base
 * file of several read batches, updates in two commits (the later wins, a
 * lower ts no matter), deletes across batch boundaries, and the file
 * groups compacted on two threads. */
static void compact_streamed(void **state) {
  (void)state;
  create_ordering = NULL;
  hudi_table *t = create("streamed", HUDI_MERGE_ON_READ, NULL, true);
  create_ordering = "ts";
  enum { N = 20000 };
  static char idbuf[N][8];
  static const char *ids[N], *cities[N];
  static int64_t ts[N];
  static int32_t v[N];
  for (int i = 0; i < N; i++) {
    snprintf(idbuf[i], sizeof idbuf[i], "k%05d", i);
    ids[i] = idbuf[i];
    cities[i] = i % 2 ? "sf" : "nyc";
    ts[i] = 5;
    v[i] = i;
  }
  hudi_option no_small[] = {{"hoodie.parquet.small.file.limit", "0"}};
  /* Two bulk inserts: two file groups. */
  write_rows(t, true, ids, cities, ts, v, N / 2, no_small, 1);
  write_rows(t, true, ids + N / 2, cities + N / 2, ts + N / 2, v + N / 2, N / 2, no_small, 1);
  static const char *const u1[] = {"k00001", "k19999", "k00002", "new1"};
  static const char *const c1[] = {"la", "la", "la", "la"};
  static const int64_t t1[] = {9, 9, 1, 9};
  static const int32_t v1[] = {-1, -2, -3, 7};
  write_rows(t, false, u1, c1, t1, v1, 4, no_small, 1);
  static const char *const del[] = {"k00003", "k10000"};
  hudi_write_result wr;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_delete_keys(&wr, t, del, 2, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  static const char *const u2[] = {"k00001"};
  static const int64_t t2[] = {2};
  static const int32_t v2[] = {-11};
  write_rows(t, false, u2, c1, t2, v2, 1, no_small, 1);
  char *before = snapshot(t);

  hudi_option par[] = {{"hoodie.compact.parallelism", "2"}};
  hudi_compact_result r;
  if (hudi_table_compact(&r, t, par, 1, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(r.num_file_groups, 2); /* new1 went to a base file of its own */
  assert_int_equal(r.num_log_files, 5);
  assert_int_equal(r.num_records, N - 2);
  char *after = snapshot(t);
  char *ro = read_optimized(t);
  assert_string_equal(before, after);
  assert_string_equal(after, ro);
  /* The values, as the commits left them. */
  char *kv = read_lines(t, (const char *const[]){"id", "city", "v"}, 3, NULL, NULL, NULL, NULL);
  size_t lines = 0;
  for (const char *q = kv; *q; q++) lines += *q == '\n';
  assert_int_equal(lines, N - 2 + 1);
  assert_non_null(strstr(kv, "id=k00001|city=la|v=-11|\n"));
  assert_non_null(strstr(kv, "id=k00002|city=la|v=-3|\n"));
  assert_non_null(strstr(kv, "id=k19999|city=la|v=-2|\n"));
  assert_non_null(strstr(kv, "id=k00004|city=nyc|v=4|\n"));
  assert_non_null(strstr(kv, "id=k09999|city=sf|v=9999|\n"));
  assert_non_null(strstr(kv, "id=new1|city=la|v=7|\n"));
  assert_null(strstr(kv, "id=k00003|"));
  assert_null(strstr(kv, "id=k10000|"));
  /* The write stat: 3 records taken from the logs over base ones, 2 deletes. */
  const hudi_instant *in = hudi_timeline_find(&t->timeline, r.requested_time);
  assert_non_null(in);
  hudi_commit_metadata *m = NULL;
  assert_int_equal(hudi_table_instant_metadata(&m, t, in, &err), HUDI_OK);
  size_t np, ns;
  const hudi_partition_write_stats *ps = hudi_commit_metadata_partitions(m, &np);
  assert_int_equal(np, 1);
  const hudi_write_stat *ws = hudi_partition_stats(&ps[0], &ns);
  assert_int_equal(ns, 2);
  assert_int_equal(ws[0].num_writes.v + ws[1].num_writes.v, N - 2);
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(ws[i].num_writes.v, N / 2 - 1);
    assert_int_equal(ws[i].num_inserts.v + ws[i].num_update_writes.v, ws[i].num_writes.v);
  }
  assert_int_equal(ws[0].num_update_writes.v + ws[1].num_update_writes.v, 3);
  assert_int_equal(ws[0].num_deletes.v + ws[1].num_deletes.v, 2);
  assert_int_equal(ws[0].total_log_records.v + ws[1].total_log_records.v, 3 + 2 + 1);
  hudi_commit_metadata_free(m);
  free(kv);
  free(before);
  free(after);
  free(ro);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(compact_partitioned),  cmocka_unit_test(compact_nonpartitioned),
      cmocka_unit_test(compact_with_rli),     cmocka_unit_test(cow_refused),
      cmocka_unit_test(pending_then_run),     cmocka_unit_test(rerun_inflight),
      cmocka_unit_test(spark_fixture_pending), cmocka_unit_test(compact_streamed),
      cmocka_unit_test(incremental_from_logs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
