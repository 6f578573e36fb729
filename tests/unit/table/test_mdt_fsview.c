/* The file-system view from the metadata table's files partition against
 * the view from a storage listing, on every fixture table with a metadata
 * table; that a read using the MDT lists no data partition (a counting
 * storage); the fallback to listing when the MDT is behind the timeline;
 * and column_stats pruning on a Spark table (the slices it drops are the
 * ones whose base file's Parquet footer rules the filter out, and the rows
 * equal an unpruned read). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hudi/arrow_abi.h"
#include "base/alloc.h"
#include "io/backend.h"
#include "parquet/reader.h"
#include "table/mdt_fsview.h"
#include "table/read_plan.h"
#include "mdt_test_util.h"

/* ------------------------------------------------------------ views equal */

static void slices_equal(const char *table, const hudi_file_group *g, const hudi_file_slice *a,
                         const hudi_file_slice *b) {
  if (!a || !b) {
    if (a != b) fail_msg("%s: %s/%s: a slice on one side only", table, g->partition, g->file_id);
    return;
  }
  if (strcmp(a->base_instant, b->base_instant) != 0)
    fail_msg("%s: %s/%s: slice %s vs %s", table, g->partition, g->file_id, a->base_instant, b->base_instant);
  if (!a->base != !b->base) fail_msg("%s: %s/%s@%s: base file on one side only", table, g->partition, g->file_id,
                                     a->base_instant);
  if (a->base) {
    assert_string_equal(a->base->path, b->base->path);
    assert_int_equal(a->base->size, b->base->size);
  }
  if (a->n_logs != b->n_logs)
    fail_msg("%s: %s/%s@%s: %zu log files from the MDT, %zu listed", table, g->partition, g->file_id,
             a->base_instant, a->n_logs, b->n_logs);
  for (size_t i = 0; i < a->n_logs; i++) {
    assert_string_equal(a->logs[i].path, b->logs[i].path);
    assert_string_equal(a->logs[i].completion_time, b->logs[i].completion_time);
  }
}

/* Returns the number of file slices compared. */
static size_t views_equal(const char *table, const hudi_fsview *m, const hudi_fsview *l) {
  if (m->n_groups != l->n_groups)
    fail_msg("%s: %zu file groups from the MDT, %zu from listing", table, m->n_groups, l->n_groups);
  size_t n = 0;
  for (size_t i = 0; i < m->n_groups; i++) {
    const hudi_file_group *a = &m->groups[i], *b = &l->groups[i];
    assert_string_equal(a->partition, b->partition);
    assert_string_equal(a->file_id, b->file_id);
    assert_string_equal(a->pending_compaction, b->pending_compaction);
    if (a->n_slices != b->n_slices)
      fail_msg("%s: %s/%s: %zu slices from the MDT, %zu from listing", table, a->partition, a->file_id,
               a->n_slices, b->n_slices);
    for (size_t s = 0; s < a->n_slices; s++) slices_equal(table, a, &a->slices[s], &b->slices[s]);
    slices_equal(table, a, a->merged, b->merged);
    n += a->n_slices;
  }
  return n;
}

static void fixture_views(void **state) {
  (void)state;
  mdt_tables ts;
  mdt_tables_find(&ts);
  assert_true(ts.n >= 18);
  int from_mdt = 0;
  size_t slices = 0;
  for (int i = 0; i < ts.n; i++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_table *t;
    if (hudi_table_open(&t, ts.paths[i], NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
    hudi_mdt *m;
    if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s: %s", ts.paths[i], err.message);
    char why[256] = "";
    bool usable = hudi_fsview_mdt_usable(m, why, sizeof why);
    hudi_fsview_options fo = {NULL, t->version, false};
    hudi_fsview lv, mv;
    assert_int_equal(hudi_fsview_build_from_listing(&lv, t->storage, &t->timeline, &fo, &err), HUDI_OK);
    if (usable) {
      hudi_mdt_read_stats st = {0};
      if (hudi_fsview_build_from_mdt(&mv, m, &t->timeline, &fo, &st, &err) != HUDI_OK)
        fail_msg("%s: %s", ts.paths[i], err.message);
      slices += views_equal(ts.paths[i], &mv, &lv);
      assert_true(st.base_files_opened + st.log_files_opened > 0);
      hudi_fsview_free(&mv);
      from_mdt++;
      /* Time travel to each completed write: the same rules apply. */
      for (size_t k = 0; k < t->timeline.count; k++) {
        const hudi_instant *in = &t->timeline.items[k];
        if (in->state != HUDI_INSTANT_COMPLETED) continue;
        hudi_fsview_options ao = {in->requested_time, t->version, false};
        hudi_fsview l2, m2;
        assert_int_equal(hudi_fsview_build_from_listing(&l2, t->storage, &t->timeline, &ao, &err), HUDI_OK);
        assert_int_equal(hudi_fsview_build_from_mdt(&m2, m, &t->timeline, &ao, NULL, &err), HUDI_OK);
        slices += views_equal(ts.paths[i], &m2, &l2);
        hudi_fsview_free(&l2);
        hudi_fsview_free(&m2);
      }
    } else {
      print_message("%s: listing (%s)\n", ts.paths[i] + strlen(MDT_FIXTURES) + 1, why);
    }
    /* The read plan picks the same source and the same slices. */
    hudi_read_plan *p, *q;
    hudi_option no_mdt = {"hoodie.metadata.enable", "false"};
    hudi_read_options o = HUDI_READ_OPTIONS_INIT, off = HUDI_READ_OPTIONS_INIT;
    off.options = &no_mdt;
    off.n_options = 1;
    if (hudi_read_plan_create(&p, t, &o, &err) != HUDI_OK) fail_msg("%s: %s", ts.paths[i], err.message);
    assert_int_equal(hudi_read_plan_create(&q, t, &off, &err), HUDI_OK);
    if (p->has_writes) assert_int_equal(p->view_from_mdt, usable);
    assert_false(q->view_from_mdt);
    assert_string_equal(q->view_note, "hoodie.metadata.enable is false");
    assert_int_equal(p->n_slices, q->n_slices);
    for (size_t k = 0; k < p->n_slices; k++) {
      assert_string_equal(p->slices[k].group->file_id, q->slices[k].group->file_id);
      slices_equal(ts.paths[i], p->slices[k].group, p->slices[k].slice, q->slices[k].slice);
    }
    hudi_read_plan_free(p);
    hudi_read_plan_free(q);
    hudi_fsview_free(&lv);
    hudi_mdt_free(m);
    hudi_table_free(t);
  }
  print_message("%d of %d fixture tables viewed from the metadata table, %zu file slices equal to listing\n",
                from_mdt, ts.n, slices);
  assert_true(from_mdt >= 16);
  assert_true(slices > 100);
  mdt_tables_free(&ts);
}

/* ------------------------------------------------------------ counting storage */

/* "h5count://<abs path>": the local file system, recording every listing. */
static char listed[64][512];
static int n_listed;

typedef struct counting {
  hudi_storage base;
  hudi_storage *inner;
} counting;

static hudi_status c_read(hudi_storage *s, const char *path, uint64_t off, void *dst, size_t len, size_t *n,
                          hudi_error *err) {
  return hudi_storage_read(((counting *)s)->inner, path, off, dst, len, n, err);
}
static hudi_status c_read_all(hudi_storage *s, const char *path, size_t max, hudi_buf *out, hudi_error *err) {
  return hudi_storage_read_all(((counting *)s)->inner, path, max, out, err);
}
static hudi_status c_stat(hudi_storage *s, const char *path, hudi_file_stat *out, hudi_error *err) {
  return hudi_storage_stat(((counting *)s)->inner, path, out, err);
}
static hudi_status c_write(hudi_storage *s, const char *path, const void *d, size_t len, unsigned fl, hudi_error *err) {
  return hudi_storage_write(((counting *)s)->inner, path, d, len, fl, err);
}
static hudi_status c_rename(hudi_storage *s, const char *a, const char *b, unsigned fl, hudi_error *err) {
  return hudi_storage_rename(((counting *)s)->inner, a, b, fl, err);
}
static hudi_status c_list(hudi_storage *s, const char *dir, unsigned fl, hudi_file_list *out, hudi_error *err) {
  if (n_listed < 64) snprintf(listed[n_listed++], sizeof listed[0], "%s|%s", s->base, dir);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(((counting *)s)->inner, dir, fl, &l, err));
  *out = l;
  return HUDI_OK;
}
static hudi_status c_remove(hudi_storage *s, const char *path, unsigned fl, hudi_error *err) {
  return hudi_storage_delete(((counting *)s)->inner, path, fl, err);
}
static void c_destroy(hudi_storage *s) {
  hudi_storage_free(((counting *)s)->inner);
  hudi_free(s->base);
  hudi_free(s);
}

static const hudi_storage_vtable counting_vt = {.name = "h5count",
                                                .read = c_read,
                                                .read_all = c_read_all,
                                                .stat = c_stat,
                                                .write = c_write,
                                                .rename = c_rename,
                                                .list = c_list,
                                                .remove = c_remove,
                                                .destroy = c_destroy};

static hudi_status counting_open(hudi_storage **out, const char *uri, const hudi_storage_option *o, size_t n,
                                 hudi_error *err) {
  const char *path = uri + strlen("h5count://");
  counting *c = hudi_calloc(1, sizeof *c);
  if (!c) return HUDI_ERR_NOMEM;
  hudi_status st = hudi_local_storage_open(&c->inner, path, o, n, err);
  if (st != HUDI_OK) {
    hudi_free(c);
    return st;
  }
  c->base.vtable = &counting_vt;
  c->base.base = hudi_strdup(path);
  *out = &c->base;
  return HUDI_OK;
}

/* Listings of a data directory: anything outside .hoodie of the table. */
static int data_listings(const char *table) {
  int n = 0;
  for (int i = 0; i < n_listed; i++) {
    const char *bar = strchr(listed[i], '|');
    size_t bl = (size_t)(bar - listed[i]);
    bool is_table = bl == strlen(table) && memcmp(listed[i], table, bl) == 0;
    if (is_table && strncmp(bar + 1, ".hoodie", 7) != 0) n++;
  }
  return n;
}

static void no_partition_listing(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status rs = hudi_storage_register("h5count", counting_open, &err);
  assert_true(rs == HUDI_OK || rs == HUDI_ERR_EXISTS);
  const char *names[] = {"sample_table/cow/v9_txns_simple_meta/v9_txns_simple_meta",
                         "sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta",
                         "sample_table/cow/v9_txns_nonpart_meta/v9_txns_nonpart_meta"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[1024], uri[1100];
    snprintf(path, sizeof path, "%s/%s", MDT_FIXTURES, names[i]);
    char *real = realpath(path, NULL);
    assert_non_null(real);
    snprintf(uri, sizeof uri, "h5count://%s", real);
    for (int use = 1; use >= 0; use--) {
      hudi_table *t;
      if (hudi_table_open(&t, uri, NULL, 0, &err) != HUDI_OK) fail_msg("%s: %s", uri, err.message);
      assert_string_equal(hudi_storage_backend_name(t->storage), "h5count");
      n_listed = 0;
      hudi_option ro = {"hoodie.metadata.enable", use ? "true" : "false"};
      hudi_read_options o = HUDI_READ_OPTIONS_INIT;
      o.options = &ro;
      o.n_options = 1;
      struct ArrowArrayStream s;
      if (hudi_table_read(&s, t, &o, &err) != HUDI_OK) fail_msg("%s: %s", uri, err.message);
      int64_t rows = 0;
      for (;;) {
        struct ArrowArray a;
        assert_int_equal(s.get_next(&s, &a), 0);
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
      }
      s.release(&s);
      static int64_t rows_mdt;
      if (use) rows_mdt = rows;
      else assert_int_equal(rows, rows_mdt);
      assert_true(rows > 0);
      /* With the MDT: no listing of the table's data directories (the MDT's
       * own directory, a table of its own, is listed); without: one. */
      if (use) assert_int_equal(data_listings(real), 0);
      else assert_true(data_listings(real) >= 1);
      hudi_table_free(t);
    }
    free(real);
  }
}

/* ------------------------------------------------------------ fallback */

static void run(const char *cmd) {
  int rc = system(cmd);
  if (rc != 0) fail_msg("%s: exit %d", cmd, rc);
}

static void behind_falls_back(void **state) {
  (void)state;
  char tmp[] = "/tmp/h5_mdt_fsview_XXXXXX";
  assert_non_null(mkdtemp(tmp));
  char cmd[4096], table[600];
  snprintf(table, sizeof table, "%s/t", tmp);
  snprintf(cmd, sizeof cmd, "cp -r '%s/sample_table/cow/v9_txns_simple_meta/v9_txns_simple_meta' '%s'",
           MDT_FIXTURES, table);
  run(cmd);
  /* A stray base file of a completed instant that the MDT does not list:
   * visible to listing only, so it tells which source a read used. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  assert_int_equal(hudi_table_open(&t, table, NULL, 0, &err), HUDI_OK);
  hudi_read_plan *p;
  assert_int_equal(hudi_read_plan_create(&p, t, NULL, &err), HUDI_OK);
  assert_true(p->view_from_mdt);
  size_t n0 = p->n_slices;
  assert_true(n0 > 0 && p->slices[0].slice->base);
  char src[1200], dst[1200];
  snprintf(src, sizeof src, "%s/%s", table, p->slices[0].slice->base->path);
  const char *name = strrchr(p->slices[0].slice->base->path, '/');
  size_t dir_len = name ? (size_t)(name - p->slices[0].slice->base->path) : 0;
  const char *us = strchr(name ? name + 1 : p->slices[0].slice->base->path, '_');
  snprintf(dst, sizeof dst, "%s/%.*s/ffffffff-0000-0000-0000-000000000000-0%s", table, (int)dir_len,
           p->slices[0].slice->base->path, us);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
  run(cmd);
  hudi_read_plan_free(p);
  hudi_table_free(t);
  assert_int_equal(hudi_table_open(&t, table, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_read_plan_create(&p, t, NULL, &err), HUDI_OK);
  assert_true(p->view_from_mdt);
  assert_int_equal(p->n_slices, n0);
  hudi_read_plan_free(p);
  hudi_option no_mdt = {"hoodie.metadata.enable", "false"};
  hudi_read_options off = HUDI_READ_OPTIONS_INIT;
  off.options = &no_mdt;
  off.n_options = 1;
  assert_int_equal(hudi_read_plan_create(&p, t, &off, &err), HUDI_OK);
  assert_int_equal(p->n_slices, n0 + 1);
  hudi_read_plan_free(p);
  hudi_table_free(t);
  /* Remove the MDT's deltacommit of the data table's latest commit: the
   * MDT is now behind the data timeline, and the read lists storage (and
   * sees the stray). */
  assert_int_equal(hudi_table_open(&t, table, NULL, 0, &err), HUDI_OK);
  const char *latest = NULL;
  for (size_t i = 0; i < t->timeline.count; i++)
    if (strcmp(t->timeline.items[i].action, "commit") == 0) latest = t->timeline.items[i].requested_time;
  assert_non_null(latest);
  snprintf(cmd, sizeof cmd, "rm '%s/.hoodie/metadata/.hoodie/timeline/%s_'*.deltacommit", table, latest);
  run(cmd);
  hudi_table_free(t);
  assert_int_equal(hudi_table_open(&t, table, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_read_plan_create(&p, t, NULL, &err), HUDI_OK);
  assert_false(p->view_from_mdt);
  print_message("fallback: %s\n", p->view_note);
  assert_non_null(strstr(p->view_note, "behind"));
  assert_int_equal(p->n_slices, n0 + 1);
  hudi_read_plan_free(p);
  hudi_table_free(t);
  /* No metadata table at all. */
  snprintf(cmd, sizeof cmd, "rm -rf '%s/.hoodie/metadata'", table);
  run(cmd);
  assert_int_equal(hudi_table_open(&t, table, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_read_plan_create(&p, t, NULL, &err), HUDI_OK);
  assert_false(p->view_from_mdt);
  print_message("fallback: %s\n", p->view_note);
  assert_non_null(strstr(p->view_note, "no metadata table"));
  hudi_read_plan_free(p);
  hudi_table_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd);
}

/* ------------------------------------------------------------ column_stats */

static int64_t count_rows(hudi_table *t, const hudi_read_options *o) {
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  if (hudi_table_read(&s, t, o, &err) != HUDI_OK) fail_msg("%s", err.message);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  s.release(&s);
  return rows;
}

static void column_stats_pruning(void **state) {
  (void)state;
  char path[1024];
  snprintf(path, sizeof path, "%s/sample_table/cow/v9_txns_simple_overwrite/v9_txns_simple_overwrite",
           MDT_FIXTURES);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  /* Filters and, per filter, how the plan with data skipping compares. */
  const char *filters[] = {"txn_id = 'TXN-001'",
                           "txn_id >= 'TXN-0'",
                           "txn_ts < 1700000000003",
                           "txn_ts > 1700400000000 AND is_international",
                           "txn_id = 'TXN-001' OR txn_id = 'TXN-102'",
                           "txn_id IS NULL",
                           "NOT (txn_ts >= 1700000000000)",
                           "txn_datetime IS NOT NULL AND txn_id IN ('TXN-008', 'TXN-103')"};
  size_t total_pruned = 0;
  for (size_t f = 0; f < sizeof filters / sizeof *filters; f++) {
    hudi_read_options on = HUDI_READ_OPTIONS_INIT, off = HUDI_READ_OPTIONS_INIT;
    on.filter_sql = off.filter_sql = filters[f];
    hudi_option skip_off = {"hoodie.enable.data.skipping", "false"};
    off.options = &skip_off;
    off.n_options = 1;
    hudi_read_plan *p, *q;
    if (hudi_read_plan_create(&p, t, &on, &err) != HUDI_OK) fail_msg("%s: %s", filters[f], err.message);
    assert_int_equal(hudi_read_plan_create(&q, t, &off, &err), HUDI_OK);
    assert_true(p->view_from_mdt);
    assert_int_equal(q->n_col_stats_pruned, 0);
    assert_int_equal(p->n_slices + p->n_col_stats_pruned, q->n_slices);
    /* Oracle: a slice (base files only here: COW) is pruned exactly when
     * the Parquet footer's statistics of its base file prune it. */
    size_t want = 0;
    for (size_t i = 0; i < q->n_slices; i++) {
      const hudi_file_slice *s = q->slices[i].slice;
      assert_non_null(s->base);
      assert_int_equal(s->n_logs, 0);
      hudi_pq_reader *r;
      assert_int_equal(hudi_pq_reader_open(&r, t->storage, s->base->path, NULL, &err), HUDI_OK);
      size_t nc = hudi_pred_n_columns(q->pred);
      hudi_col_stats st[8];
      assert_true(nc <= 8);
      bool any_rg = false;
      for (uint32_t rg = 0; rg < hudi_pq_reader_meta(r)->num_row_groups; rg++) {
        for (size_t k = 0; k < nc; k++) {
          hudi_col_stats c = HUDI_COL_STATS_UNKNOWN;
          int64_t leaf = hudi_pq_reader_find_leaf(r, hudi_pred_column_name(q->pred, k));
          hudi_pq_col_stats ps;
          assert_true(leaf >= 0);
          hudi_pq_reader_stats(&ps, r, rg, (uint32_t)leaf);
          c.has_min = ps.has_min;
          c.has_max = ps.has_max;
          hudi_vclass cls = hudi_vclass_of(&hudi_pred_column_field(q->pred, k)->type);
          c.min.cls = c.max.cls = cls;
          if (cls == HUDI_VC_BYTES) {
            c.min.v.bytes.data = ps.min.v.bytes.data;
            c.min.v.bytes.len = ps.min.v.bytes.len;
            c.max.v.bytes.data = ps.max.v.bytes.data;
            c.max.v.bytes.len = ps.max.v.bytes.len;
          } else if (cls == HUDI_VC_DOUBLE) {
            c.min.v.d = ps.min.v.d;
            c.max.v.d = ps.max.v.d;
          } else {
            c.min.v.i = ps.min.v.i;
            c.max.v.i = ps.max.v.i;
          }
          c.null_count = ps.null_count;
          st[k] = c;
        }
        bool might = true;
        hudi_pred_prune(&might, q->pred, st, -1);
        any_rg |= might;
      }
      want += !any_rg;
      hudi_pq_reader_free(r);
    }
    print_message("%-45s %zu of %zu slices skipped by column_stats (footers: %zu)\n", filters[f],
                  p->n_col_stats_pruned, q->n_slices, want);
    assert_int_equal(p->n_col_stats_pruned, want);
    total_pruned += p->n_col_stats_pruned;
    assert_int_equal(count_rows(t, &on), count_rows(t, &off));
    hudi_read_plan_free(p);
    hudi_read_plan_free(q);
  }
  assert_true(total_pruned > 0);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixture_views),
      cmocka_unit_test(no_partition_listing),
      cmocka_unit_test(behind_falls_back),
      cmocka_unit_test(column_stats_pruning),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
