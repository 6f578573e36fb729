/* Asynchronous compaction (compact_async.h): writes with
 * hoodie.datasource.compaction.async.enable=true schedule a compaction after
 * the 5th deltacommit and a background thread of the handle runs it while
 * later upserts go on (a test delay holds the thread between inflight and
 * merge, so writes demonstrably complete inside the compaction's window).
 * The oracle is computed here from what each write wrote: every key's last
 * written values, for the snapshot; the values as of the write that
 * scheduled the last compaction, for the read-optimized read. A failing
 * background compaction's error reaches the next write, and the pending
 * compaction is finished by a later write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/table.h"
#include "table/write.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-compact-async-XXXXXX");
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


static const char *const COLS[] = {"id", "city", "ts", "v"};
#define N_COLS 4

static char *snapshot(hudi_table *t) { return read_lines(t, COLS, N_COLS, NULL, NULL, NULL, NULL); }
static char *read_optimized(hudi_table *t) {
  return read_lines(t, COLS, N_COLS, "hoodie.read.use.read_optimized.mode", "true", NULL, NULL);
}

/* Keys: k0..k5 (every write updates them), u1..u10 (write w updates u_w
 * only), so a lost write shows as a stale u_w. */
#define NK 6
#define NU 10
#define NKEYS (NK + NU)

typedef struct model {
  char ids[NKEYS][8];
  const char *cities[NKEYS];
  int64_t ts[NKEYS];
  int32_t v[NKEYS];
} model;

static void model_init(model *m) {
  memset(m, 0, sizeof *m); /* whole models are compared with memcmp */
  for (int i = 0; i < NKEYS; i++) {
    if (i < NK) snprintf(m->ids[i], sizeof m->ids[i], "k%d", i);
    else snprintf(m->ids[i], sizeof m->ids[i], "u%d", i - NK + 1);
    m->cities[i] = i % 2 ? "sf" : "nyc";
    m->ts[i] = 0;
    m->v[i] = 0;
  }
}

static char *model_lines(const model *m) {
  char *lines[NKEYS];
  for (int i = 0; i < NKEYS; i++) {
    char l[200];
    snprintf(l, sizeof l, "id=%s|city=%s|ts=%lld|v=%d|", m->ids[i], m->cities[i], (long long)m->ts[i], m->v[i]);
    lines[i] = strdup(l);
  }
  qsort(lines, NKEYS, sizeof *lines, line_cmp);
  char *out = calloc(1, NKEYS * 200 + 1), *end = out;
  for (int i = 0; i < NKEYS; i++) { /* at a moving end: strcat is quadratic */
    size_t len = strlen(lines[i]);
    memcpy(end, lines[i], len);
    end += len;
    *end++ = '\n';
    free(lines[i]);
  }
  return out;
}

static hudi_table *create(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  return t;
}

/* Write w (1-based) into the model and the table: w == 1 inserts every key,
 * later ones update k* and u_w. Returns the status; err filled. */
static hudi_status upsert_w(hudi_table *t, model *m, int w, const hudi_option *o, size_t no, hudi_write_result *r,
                            hudi_error *err) {
  const char *ids[NKEYS], *cities[NKEYS];
  int64_t ts[NKEYS];
  int32_t v[NKEYS];
  int n = 0;
  model next = *m;
  for (int i = 0; i < NKEYS; i++) {
    bool mine = w == 1 || i < NK || i == NK + w - 1;
    if (!mine) continue;
    next.ts[i] = w;
    next.v[i] = i < NK ? w * 10 + i : 100 + w;
    ids[n] = m->ids[i];
    cities[n] = m->cities[i];
    ts[n] = next.ts[i];
    v[n] = next.v[i];
    n++;
  }
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, n);
  hudi_status st = hudi_table_upsert(r, t, &s, o, no, err);
  if (st == HUDI_OK) {
    for (int i = 0; i < NKEYS; i++) {
      m->ts[i] = next.ts[i];
      m->v[i] = next.v[i];
    }
  }
  return st;
}

static const hudi_instant *last_completed_compaction(const hudi_table *t, int *count) {
  const hudi_instant *c = NULL;
  *count = 0;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (!strcmp(in->requested_action, "compaction") && in->state == HUDI_INSTANT_COMPLETED) {
      c = in;
      (*count)++;
    }
  }
  return c;
}

static int pending_compactions(const hudi_table *t) {
  int n = 0;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (!strcmp(in->requested_action, "compaction") && in->state != HUDI_INSTANT_COMPLETED) n++;
  }
  return n;
}

static void reload(hudi_table *t) {
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_write_reload_timeline(t, &err) != HUDI_OK) fail_msg("%s", err.message);
}


/* Renames the table's log files out of the way ("hidden-" prefix) and back:
 * the failure a background compaction meets when its planned logs vanish. */
static int hide_logs(const char *name, bool hide) {
  int n = 0;
  const char *parts[] = {"city=nyc", "city=sf"};
  for (int p = 0; p < 2; p++) {
    char d[400];
    snprintf(d, sizeof d, "%s/%s/%s", dir, name, parts[p]);
    DIR *dd = opendir(d);
    assert_non_null(dd);
    struct dirent *e;
    while ((e = readdir(dd))) {
      bool hidden = !strncmp(e->d_name, "hidden-", 7);
      if (hide == hidden || !strstr(e->d_name, ".log.")) continue;
      char from[700], to[700];
      snprintf(from, sizeof from, "%s/%s", d, e->d_name);
      if (hide) snprintf(to, sizeof to, "%s/hidden-%s", d, e->d_name);
      else snprintf(to, sizeof to, "%s/%s", d, e->d_name + 7);
      assert_int_equal(rename(from, to), 0);
      n++;
    }
    closedir(dd);
  }
  return n;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Waits (polling the timeline) until the pending compaction is inflight. */
static void wait_inflight(hudi_table *t) {
  for (int i = 0; i < 1000; i++) {
    reload(t);
    for (size_t k = 0; k < t->timeline.count; k++) {
      const hudi_instant *in = &t->timeline.items[k];
      if (!strcmp(in->requested_action, "compaction") && in->state == HUDI_INSTANT_INFLIGHT) return;
    }
    sleep_ms(5);
  }
  fail_msg("the background compaction never became inflight");
}

/* Write 1..5 with async compaction; the compaction the 5th schedules fails
 * (its logs are hidden while the test delay holds it after inflight). */
static void failing_compaction(hudi_table *t, const char *name, model *m) {
  hudi_option good[1] = {{"hoodie.datasource.compaction.async.enable", "true"}};
  hudi_option slow[2] = {{"hoodie.datasource.compaction.async.enable", "true"},
                         {"hoodie.compact.async.test.delay.ms", "700"}};
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  for (int w = 1; w <= 4; w++)
    if (upsert_w(t, m, w, good, 1, &r, &err) != HUDI_OK) fail_msg("write %d: %s", w, err.message);
  if (upsert_w(t, m, 5, slow, 2, &r, &err) != HUDI_OK) fail_msg("write 5: %s", err.message);
  wait_inflight(t);
  assert_true(hide_logs(name, true) > 0);
  sleep_ms(2000); /* past the delay: the thread fails, nobody asks yet */
  assert_true(hide_logs(name, false) > 0);
}

static void ten_upserts(const char *name, const char *delay) {
  hudi_table *t = create(name);
  hudi_option o[2] = {{"hoodie.datasource.compaction.async.enable", "true"},
                      {"hoodie.compact.async.test.delay.ms", delay}};
  model m, at[11];
  model_init(&m);
  at[0] = m;
  hudi_write_result res[11];
  for (int w = 1; w <= 10; w++) {
    hudi_error err = HUDI_ERROR_INIT;
    if (upsert_w(t, &m, w, o, 2, &res[w], &err) != HUDI_OK) fail_msg("write %d: %s", w, err.message);
    assert_string_equal(res[w].action, "deltacommit");
    at[w] = m;
    if (w == 5) {
      /* Scheduled under the 5th write's lock, before it returned. */
      reload(t);
      assert_int_equal(pending_compactions(t), 1);
    }
  }
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_wait_services(t, &err) != HUDI_OK) fail_msg("%s", err.message);
  /* wait_services reloaded the handle's timeline. */
  assert_int_equal(pending_compactions(t), 0);
  int n_comp = 0;
  const hudi_instant *last = last_completed_compaction(t, &n_comp);
  assert_non_null(last);
  assert_true(n_comp >= 1 && n_comp <= 2);

  /* The first compaction was requested right after write 5 completed, and
   * writes 6.. completed while it ran (the delay keeps it open). */
  const hudi_instant *first = NULL;
  for (size_t i = 0; i < t->timeline.count && !first; i++)
    if (!strcmp(t->timeline.items[i].requested_action, "compaction")) first = &t->timeline.items[i];
  assert_true(strcmp(first->requested_time, res[5].completion_time) > 0);
  assert_true(strcmp(first->requested_time, res[6].requested_time) < 0);
  int during = 0;
  for (int w = 6; w <= 10; w++)
    if (strcmp(res[w].completion_time, first->completion_time) < 0) during++;
  if (atoi(delay) > 0) assert_true(during >= 1);

  /* Snapshot: every write's values, the ones that landed during the
   * compaction included. */
  char *want = model_lines(&m), *got = snapshot(t);
  assert_string_equal(got, want);
  free(want);
  free(got);

  /* Read-optimized: the base files of the last compaction = the table as
   * of the write that scheduled it (every write updates existing keys, so
   * later writes only add logs). */
  int k = 0;
  for (int w = 1; w <= 10; w++)
    if (strcmp(res[w].completion_time, last->requested_time) < 0) k = w;
  assert_true(k == 5 || k == 10);
  assert_int_equal(k == 10, n_comp == 2);
  want = model_lines(&at[k]);
  got = read_optimized(t);
  assert_string_equal(got, want);
  free(want);
  free(got);

  /* A fresh handle reads the same. */
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_table *t2 = NULL;
  assert_int_equal(hudi_table_open(&t2, path, NULL, 0, &err), HUDI_OK);
  want = model_lines(&m);
  got = snapshot(t2);
  assert_string_equal(got, want);
  free(want);
  free(got);
  hudi_table_free(t2);
  hudi_table_free(t);
}

static void test_ten_upserts_delayed(void **state) {
  (void)state;
  ten_upserts("delayed", "300");
}

/* Without the test delay: whatever the interleaving, nothing is lost. */
static void test_ten_upserts_free_running(void **state) {
  (void)state;
  ten_upserts("free", "0");
}

/* The table's open options enable it too, and hudi_table_free joins a
 * running compaction (it completes: a fresh handle sees it). */
static void test_open_option_and_free_joins(void **state) {
  (void)state;
  hudi_table *c = create("openopt");
  hudi_table_free(c);
  char path[300];
  snprintf(path, sizeof path, "%s/openopt", dir);
  hudi_option oo[2] = {{"hoodie.datasource.compaction.async.enable", "true"},
                       {"hoodie.compact.async.test.delay.ms", "200"}};
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, oo, 2, &err), HUDI_OK);
  model m;
  model_init(&m);
  hudi_write_result r;
  for (int w = 1; w <= 5; w++)
    if (upsert_w(t, &m, w, NULL, 0, &r, &err) != HUDI_OK) fail_msg("write %d: %s", w, err.message);
  hudi_table_free(t); /* joins */
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  int n = 0;
  assert_non_null(last_completed_compaction(t, &n));
  assert_int_equal(n, 1);
  assert_int_equal(pending_compactions(t), 0);
  char *want = model_lines(&m), *got = read_optimized(t);
  assert_string_equal(got, want);
  free(got);
  got = snapshot(t);
  assert_string_equal(got, want);
  free(got);
  free(want);
  /* Nothing ran on this handle: waiting is a no-op. */
  assert_int_equal(hudi_table_wait_services(t, &err), HUDI_OK);
  hudi_table_free(t);
}

/* A background compaction that fails: the next write reports it and
 * writes nothing; the compaction stays pending; the write after finishes it. */
static void test_failure_reported_and_retried(void **state) {
  (void)state;
  hudi_table *t = create("fail");
  hudi_option good[1] = {{"hoodie.datasource.compaction.async.enable", "true"}};
  model m;
  model_init(&m);
  failing_compaction(t, "fail", &m);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  model before = m;
  reload(t);
  size_t n_before = t->timeline.count;
  hudi_status st = upsert_w(t, &m, 6, good, 1, &r, &err);
  assert_int_not_equal(st, HUDI_OK);
  assert_non_null(strstr(err.message, "background compaction"));
  /* The plan's log files are gone: the view (from the metadata table)
   * still lists them, so opening one fails, naming it (a listing's view
   * misses them: "log files missing"). */
  assert_true(strstr(err.message, ".log.") || strstr(err.message, "log files"));
  reload(t);
  assert_int_equal(t->timeline.count, n_before); /* the write wrote nothing */
  assert_int_equal(pending_compactions(t), 1);
  assert_int_equal(memcmp(&before, &m, sizeof m), 0);
  /* Reported once: waiting now is clean. */
  err = (hudi_error)HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_wait_services(t, &err), HUDI_OK);
  /* The next write relaunches it; waiting shows it done. */
  if (upsert_w(t, &m, 6, good, 1, &r, &err) != HUDI_OK) fail_msg("write 6: %s", err.message);
  if (hudi_table_wait_services(t, &err) != HUDI_OK) fail_msg("%s", err.message);
  reload(t);
  assert_int_equal(pending_compactions(t), 0);
  int n = 0;
  const hudi_instant *c = last_completed_compaction(t, &n);
  assert_non_null(c);
  assert_int_equal(n, 1);
  /* It compacted what write 5 left: write 6's log joined the new slice. */
  assert_true(strcmp(c->requested_time, r.requested_time) < 0);
  char *want = model_lines(&m), *got = snapshot(t);
  assert_string_equal(got, want);
  free(got);
  free(want);
  hudi_table_free(t);
}

/* The error reaches wait_services too; hudi_table_compact finishes the
 * pending compaction (no write in between). */
static void test_failure_reported_by_wait(void **state) {
  (void)state;
  hudi_table *t = create("fail2");
  model m, at5;
  model_init(&m);
  failing_compaction(t, "fail2", &m);
  at5 = m;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_not_equal(hudi_table_wait_services(t, &err), HUDI_OK);
  assert_non_null(strstr(err.message, "background compaction"));
  err = (hudi_error)HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_wait_services(t, &err), HUDI_OK);
  hudi_compact_result cr;
  if (hudi_table_compact(&cr, t, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(cr.num_file_groups, 2);
  reload(t);
  assert_int_equal(pending_compactions(t), 0);
  char *want = model_lines(&at5), *got = read_optimized(t);
  assert_string_equal(got, want);
  free(got);
  free(want);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ten_upserts_delayed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ten_upserts_free_running, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_option_and_free_joins, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_reported_and_retried, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_reported_by_wait, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
