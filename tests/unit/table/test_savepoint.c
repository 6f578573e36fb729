/* hudi_table_savepoint / hudi_table_savepoints / hudi_table_restore: a
 * restore brings back the snapshot read at the savepoint, and a restore
 * that crashed at any storage operation (every later one failing too) is
 * finished by calling it again, with the same result (ASan: no leaks on
 * any of those paths). The files' content is checked against Hudi's Avro
 * schemas with fastavro in tests/python/test_savepoint_restore.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "io/faulty.h"
#include "io/storage.h"
#include "table/table.h"
#include "table/timeline.h"

static char dir[256];
static const hudi_option nofsync[] = {{"fsync", "false"}};

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-savepoint-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void sh(const char *fmt, ...) {
  char cmd[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  assert_int_equal(system(cmd), 0);
}

/* id (string), city (string), ts (int64), v (int32). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities,
                        const int64_t *ts, const int32_t *v, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 4, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "ts", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[3], "v", "i", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 3), v[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

typedef struct kv {
  char id[32], part[32];
  int32_t v;
} kv;

static int kv_cmp(const void *a, const void *b) { return strcmp(((const kv *)a)->id, ((const kv *)b)->id); }

/* "id:partition:v;..." of the table at path read by a fresh reader. */
static void snapshot(char *out, size_t cap, const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  static const char *const cols[] = {"_hoodie_partition_path", "id", "v"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 3;
  struct ArrowArrayStream s;
  hudi_status st = hudi_table_read(&s, t, &ro, &err);
  if (st != HUDI_OK) fail_msg("read of %s: %s", path, err.message);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  kv rows[64];
  size_t n = 0;
  for (;;) {
    struct ArrowArray a;
    if (s.get_next(&s, &a) != 0) fail_msg("read of %s: %s", path, s.get_last_error(&s));
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      assert_true(n < 64);
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      snprintf(rows[n].part, sizeof rows[n].part, "%.*s", (int)len, (const char *)p);
      p = hudi_arrow_view_bytes(&v.children[1], r, &len);
      snprintf(rows[n].id, sizeof rows[n].id, "%.*s", (int)len, (const char *)p);
      rows[n].v = ((const int32_t *)v.children[2].values)[v.children[2].offset + r];
      n++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  hudi_table_free(t);
  qsort(rows, n, sizeof *rows, kv_cmp);
  size_t off = 0;
  out[0] = 0;
  for (size_t i = 0; i < n; i++)
    off += (size_t)snprintf(out + off, cap - off, "%s:%s:%d;", rows[i].id, rows[i].part, rows[i].v);
}

static const hudi_option *wopts;
static size_t n_wopts;
/* Table version 6 (timeline layout 1, no metadata table): set by run(). */
static bool g_v6;

static void write(hudi_table *t, int kind, const char *const *ids, const char *const *cities, const int64_t *ts,
                  const int32_t *v, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_write_result r;
  hudi_status st;
  if (kind == 2) {
    st = hudi_table_delete_keys(&r, t, ids, (size_t)n, wopts, n_wopts, &err);
  } else {
    struct ArrowArrayStream s;
    make_stream(&s, ids, cities, ts, v, n);
    st = kind ? hudi_table_upsert(&r, t, &s, wopts, n_wopts, &err) : hudi_table_append(&r, t, &s, wopts, n_wopts, &err);
  }
  if (st != HUDI_OK) fail_msg("write: %s", err.message);
}

/* base: a..d appended, an upsert, the savepoint (returned), then an
 * upsert, a delete and (MOR) a compaction after it, written with
 * after_opts (NULL: none). */
static void make_base(const char *path, hudi_table_type type, char *sp, char *at_sp, size_t cap,
                      const hudi_option *after_opts, size_t n_after) {
  wopts = NULL;
  n_wopts = 0;
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  static const hudi_option v6[] = {{"hoodie.write.table.version", "6"}};
  if (g_v6) {
    o.options = v6;
    o.n_options = 1;
    o.record_index_enabled = false;
  }
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  static const char *const ids[] = {"a", "b", "c", "d"}, *const cities[] = {"sf", "sf", "nyc", "nyc"};
  static const int64_t ts[] = {5, 5, 5, 5}, ts2[] = {6, 6, 6, 6}, ts3[] = {7, 7, 7, 7};
  static const int32_t v[] = {1, 2, 3, 4}, v2[] = {10, 20, 30, 40}, v3[] = {100, 200, 300, 400};
  write(t, 0, ids, cities, ts, v, 4);
  write(t, 1, ids, cities, ts2, v2, 2);
  hudi_savepoint_result sr;
  if (hudi_table_savepoint(&sr, t, NULL, "me", "test", NULL, 0, &err) != HUDI_OK)
    fail_msg("savepoint: %s", err.message);
  snprintf(sp, 32, "%s", sr.instant);
  assert_true(sr.num_files >= 2);
  hudi_savepoint_list l;
  assert_int_equal(hudi_table_savepoints(&l, t, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_string_equal(l.items[0].instant, sp);
  assert_string_equal(l.items[0].user, "me");
  assert_int_equal(l.items[0].num_files, sr.num_files);
  hudi_savepoint_list_free(&l);
  hudi_table_free(t);
  snapshot(at_sp, cap, path);
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  wopts = after_opts;
  n_wopts = n_after;
  write(t, 1, ids + 1, cities + 1, ts3, v3 + 1, 3);
  write(t, 2, ids + 2, cities, ts, v, 1);
  if (type == HUDI_MERGE_ON_READ) {
    hudi_compact_result cr;
    if (hudi_table_compact(&cr, t, wopts, n_wopts, &err) != HUDI_OK) fail_msg("compact: %s", err.message);
    assert_true(cr.requested_time[0]);
  }
  hudi_table_free(t);
}

static hudi_table *open_faulty(const char *path) {
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
  hudi_storage *f = NULL;
  assert_int_equal(hudi_faulty_storage_wrap(&f, t->storage, true, &err), HUDI_OK);
  t->storage = f;
  return t;
}

/* The restore's end state: no pending restore or rollback, one restore completed. */
static void restored(const char *path, const char *what) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  static const hudi_storage_option o[] = {{"fsync", "false"}};
  assert_int_equal(hudi_storage_open(&s, path, o, 1, &err), HUDI_OK);
  hudi_timeline tl;
  assert_int_equal(hudi_timeline_load(&tl, s, "", g_v6 ? 1 : 2, &err), HUDI_OK);
  int done = 0;
  for (size_t i = 0; i < tl.count; i++) {
    const hudi_instant *in = &tl.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED) fail_msg("%s: %s %s left pending", what, in->requested_time, in->action);
    done += !strcmp(in->action, "restore");
  }
  if (done < 1) fail_msg("%s: no completed restore", what);
  hudi_timeline_free(&tl);
  hudi_storage_free(s);
}

/* Whether the table at path has a restore left pending. */
static bool restore_pending(const char *path) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  static const hudi_storage_option o[] = {{"fsync", "false"}};
  assert_int_equal(hudi_storage_open(&s, path, o, 1, &err), HUDI_OK);
  hudi_timeline tl;
  assert_int_equal(hudi_timeline_load(&tl, s, "", g_v6 ? 1 : 2, &err), HUDI_OK);
  bool yes = false;
  for (size_t i = 0; i < tl.count; i++)
    yes |= tl.items[i].state != HUDI_INSTANT_COMPLETED && !strcmp(tl.items[i].action, "restore");
  hudi_timeline_free(&tl);
  hudi_storage_free(s);
  return yes;
}

/* Whether the metadata table at path has a completed compaction after sp. */
static bool mdt_compacted_after(const char *path, const char *sp) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  static const hudi_storage_option o[] = {{"fsync", "false"}};
  assert_int_equal(hudi_storage_open(&s, path, o, 1, &err), HUDI_OK);
  hudi_timeline tl;
  assert_int_equal(hudi_timeline_load(&tl, s, ".hoodie/metadata", 2, &err), HUDI_OK);
  bool yes = false;
  for (size_t i = 0; i < tl.count; i++)
    yes |= tl.items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl.items[i].action, "commit") &&
           strlen(tl.items[i].requested_time) == 17 && strcmp(tl.items[i].requested_time, sp) > 0;
  hudi_timeline_free(&tl);
  hudi_storage_free(s);
  return yes;
}

static void run(hudi_table_type type, const char *name, const hudi_option *after_opts, size_t n_after) {
  char base[400], path[400], sp[32], at_sp[4096], snap[4096], what[600];
  snprintf(base, sizeof base, "%s/%s-base", dir, name);
  snprintf(path, sizeof path, "%s/%s-run", dir, name);
  make_base(base, type, sp, at_sp, sizeof at_sp, after_opts, n_after);
  if (after_opts && !g_v6) assert_true(mdt_compacted_after(base, sp));
  snapshot(snap, sizeof snap, base);
  assert_string_not_equal(snap, at_sp);

  /* Without faults: the snapshot of the savepoint, and the operation count. */
  sh("rm -rf '%s' && cp -a '%s' '%s'", path, base, path);
  hudi_table *t = open_faulty(path);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_restore_result rr;
  if (hudi_table_restore(&rr, t, sp, NULL, 0, &err) != HUDI_OK) fail_msg("restore: %s", err.message);
  assert_int_equal(rr.num_instants_rolled_back, type == HUDI_MERGE_ON_READ ? 3 : 2);
  uint64_t ops = hudi_faulty_storage_calls(t->storage, HUDI_STORAGE_OP_ANY);
  hudi_table_free(t);
  snapshot(snap, sizeof snap, path);
  assert_string_equal(snap, at_sp);
  restored(path, name);
  assert_true(ops > 10);

  /* A crash at every operation; the next restore finishes the job. */
  for (uint64_t n = 1; n <= ops; n++) {
    snprintf(what, sizeof what, "%s, crash at operation %llu of %llu", name, (unsigned long long)n,
             (unsigned long long)ops);
    sh("rm -rf '%s' && cp -a '%s' '%s'", path, base, path);
    t = open_faulty(path);
    hudi_fault f = {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_ANY, n, 0, true};
    assert_int_equal(hudi_faulty_storage_arm(t->storage, &f, &err), HUDI_OK);
    hudi_error e1 = HUDI_ERROR_INIT;
    (void)hudi_table_restore(&rr, t, sp, NULL, 0, &e1);
    hudi_table_free(t);
    sh("rm -f '%s/.hoodie/lock'", path);
    assert_int_equal(hudi_table_open(&t, path, nofsync, 1, &err), HUDI_OK);
    if (restore_pending(path)) {
      /* A write on the half-restored table is refused, and changes nothing. */
      static const char *const gone[] = {"zz-absent"};
      hudi_write_result wr;
      hudi_error ew = HUDI_ERROR_INIT;
      assert_int_equal(hudi_table_delete_keys(&wr, t, gone, 1, nofsync, 1, &ew), HUDI_ERR_CONFLICT);
      assert_non_null(strstr(ew.message, "restore"));
    }
    hudi_error e2 = HUDI_ERROR_INIT;
    if (hudi_table_restore(&rr, t, sp, NULL, 0, &e2) != HUDI_OK) fail_msg("%s: the next restore: %s", what, e2.message);
    hudi_table_free(t);
    snapshot(snap, sizeof snap, path);
    if (strcmp(snap, at_sp) != 0) fail_msg("%s: reader sees %s, expected %s", what, snap, at_sp);
    restored(path, what);
  }
}

static void test_restore_cow(void **s) {
  (void)s;
  run(HUDI_COPY_ON_WRITE, "cow", NULL, 0);
}

static void test_restore_mor(void **s) {
  (void)s;
  run(HUDI_MERGE_ON_READ, "mor", NULL, 0);
}

/* The metadata table compacted after the savepoint: its compactions are
 * rolled back first. */
static void test_restore_mor_mdt_compacted(void **s) {
  (void)s;
  static const hudi_option o[] = {{"fsync", "false"}, {"hoodie.metadata.compact.max.delta.commits", "1"}};
  run(HUDI_MERGE_ON_READ, "mor-mdtc", o, 2);
}

/* Version 6: the writes after the savepoint append logs (no small-file
 * merges), which the restore's rollbacks answer with command blocks. */
static void test_restore_mor_v6(void **s) {
  (void)s;
  static const hudi_option o[] = {{"fsync", "false"}, {"hoodie.parquet.small.file.limit", "0"}};
  g_v6 = true;
  run(HUDI_MERGE_ON_READ, "mor-v6", o, 2);
  g_v6 = false;
}

static void test_restore_cow_v6(void **s) {
  (void)s;
  g_v6 = true;
  run(HUDI_COPY_ON_WRITE, "cow-v6", NULL, 0);
  g_v6 = false;
}

static void test_refusals(void **s) {
  (void)s;
  char base[400], sp[32], at_sp[4096];
  snprintf(base, sizeof base, "%s/refuse", dir);
  make_base(base, HUDI_COPY_ON_WRITE, sp, at_sp, sizeof at_sp, NULL, 0);
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, base, nofsync, 1, &err), HUDI_OK);
  assert_int_equal(hudi_table_savepoint(NULL, t, sp, NULL, NULL, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "savepointed already"));
  assert_int_equal(hudi_table_restore(NULL, t, "20000101000000000", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_restore(NULL, t, NULL, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_savepoint(NULL, t, "20000101000000000", NULL, NULL, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_rollback(NULL, t, sp, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_delete_savepoint(t, sp, NULL, 0, &err), HUDI_OK);
  hudi_savepoint_list l;
  assert_int_equal(hudi_table_savepoints(&l, t, &err), HUDI_OK);
  assert_int_equal(l.count, 0);
  hudi_savepoint_list_free(&l);
  assert_int_equal(hudi_table_delete_savepoint(t, sp, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_table_restore(NULL, t, sp, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_restore_cow),
      cmocka_unit_test(test_restore_mor),
      cmocka_unit_test(test_restore_mor_mdt_compacted),
      cmocka_unit_test(test_restore_mor_v6),
      cmocka_unit_test(test_restore_cow_v6),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
