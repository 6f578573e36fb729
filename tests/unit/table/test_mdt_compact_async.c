/* Metadata-table compaction in the background (mdt_compact_async.h): with
 * hoodie.metadata.compact.async=true the write that makes the MDT due only
 * schedules the compaction C, and a background thread of the handle runs it
 * (a test delay holds the thread between its begin and execute steps, so
 * later writes demonstrably commit while C is pending). Oracles, computed
 * here from what each write wrote: the snapshot rows (every live key once,
 * its last value), and every record-index lookup against the file group the
 * snapshot row comes from (_hoodie_file_name), deleted keys not found; the
 * MDT timeline files (C requested/inflight before later deltacommits
 * completed, C_<c>.commit after them). hudi_table_free cuts the delay short
 * and leaves C pending; a plain handle reads that table right (old slices
 * plus newer logs) and its next write undoes C and compacts inline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/index_rli.h"
#include "table/table.h"
#include "table/write.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-mdt-compact-async-XXXXXX");
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
static const char *const LOC_COLS[] = {"id", "_hoodie_file_name"};
static const char *const CITIES[] = {"sf", "nyc", "la"};

#define MAX_KEYS 400

typedef struct model {
  char ids[MAX_KEYS][12];
  int city[MAX_KEYS];
  int64_t ts[MAX_KEYS];
  int32_t v[MAX_KEYS];
  bool live[MAX_KEYS];
  int n;
} model;

static char *model_lines(const model *m) {
  char *out = calloc(1, (size_t)MAX_KEYS * 80 + 1);
  char **lines = calloc(MAX_KEYS, sizeof *lines);
  int n = 0;
  for (int i = 0; i < m->n; i++) {
    if (!m->live[i]) continue;
    char l[80];
    snprintf(l, sizeof l, "id=%s|city=%s|ts=%lld|v=%d|", m->ids[i], CITIES[m->city[i]], (long long)m->ts[i], m->v[i]);
    lines[n++] = strdup(l);
  }
  qsort(lines, (size_t)n, sizeof *lines, line_cmp);
  char *end = out + strlen(out);
  for (int i = 0; i < n; i++) { /* at a moving end: strcat is quadratic */
    size_t len = strlen(lines[i]);
    memcpy(end, lines[i], len);
    end += len;
    *end++ = '\n';
    *end = 0;
    free(lines[i]);
  }
  free(lines);
  return out;
}

static hudi_table *create(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  static const hudi_option fs[] = {{"fsync", "false"}};
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT; /* metadata table and record index on */
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.options = fs;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, path, &o, &err) != HUDI_OK) fail_msg("create: %s", err.message);
  return t;
}

/* Write w: the first inserts 60 keys; later ones update 12 live keys in
 * place, insert 6 new ones, and every third deletes 4 live keys instead. */
static hudi_write_result write_w(hudi_table *t, model *m, int w, const hudi_option *o, size_t no) {
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (w > 1 && w % 3 == 0) {
    const char *del[4];
    int n = 0;
    for (int i = w; i < m->n && n < 4; i += 5)
      if (m->live[i]) {
        del[n++] = m->ids[i];
        m->live[i] = false;
      }
    if (hudi_table_delete_keys(&r, t, del, (size_t)n, o, no, &err) != HUDI_OK) fail_msg("write %d: %s", w, err.message);
    assert_int_equal(r.num_deletes, n);
    return r;
  }
  const char *ids[80], *cities[80];
  int64_t ts[80];
  int32_t v[80];
  int n = 0;
  if (w == 1) {
    for (int i = 0; i < 60; i++) snprintf(m->ids[m->n + i], sizeof m->ids[0], "key-%04d", m->n + i);
  }
  int add = w == 1 ? 60 : 6;
  for (int i = 0; i < add; i++) {
    int k = m->n++;
    snprintf(m->ids[k], sizeof m->ids[0], "key-%04d", k);
    m->city[k] = k % 3;
    m->live[k] = true;
    m->ts[k] = w;
    m->v[k] = w * 1000 + k;
    ids[n] = m->ids[k], cities[n] = CITIES[m->city[k]], ts[n] = w, v[n] = m->v[k], n++;
  }
  if (w > 1)
    for (int i = (w * 7) % 13, c = 0; i < m->n - add && c < 12; i += 3)
      if (m->live[i]) {
        m->ts[i] = w;
        m->v[i] = w * 1000 + i;
        ids[n] = m->ids[i], cities[n] = CITIES[m->city[i]], ts[n] = w, v[n] = m->v[i], n++, c++;
      }
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, ts, v, n);
  if (hudi_table_upsert(&r, t, &s, o, no, &err) != HUDI_OK) fail_msg("write %d: %s", w, err.message);
  return r;
}

/* The file id in a base or log file name. */
static void file_id_of(char *out, size_t cap, const char *name, size_t len) {
  if (len && name[0] == '.') name++, len--;
  size_t k = 0;
  while (k < len && name[k] != '_') k++;
  snprintf(out, cap, "%.*s", (int)k, name);
}

/* Snapshot equals the model, and the record index maps every live key to
 * the file group its snapshot row comes from, deleted keys to nothing. */
static void check_table(hudi_table *t, const model *m, const char *when) {
  char *want = model_lines(m), *got = read_lines(t, COLS, 4, NULL, NULL, NULL, NULL);
  if (strcmp(want, got) != 0) fail_msg("%s: snapshot differs:\n--- want\n%s--- got\n%s", when, want, got);
  free(want);
  free(got);
  char *loc = read_lines(t, LOC_COLS, 2, NULL, NULL, NULL, NULL);
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_write_reload_timeline(t, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_index *ix = NULL;
  if (hudi_index_rli_create(&ix, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  const char *keys[MAX_KEYS];
  size_t lens[MAX_KEYS];
  hudi_index_loc out[MAX_KEYS];
  for (int i = 0; i < m->n; i++) keys[i] = m->ids[i], lens[i] = strlen(m->ids[i]);
  if (hudi_index_lookup(ix, out, keys, lens, (size_t)m->n, &err) != HUDI_OK) fail_msg("%s: %s", when, err.message);
  int live = 0;
  for (int i = 0; i < m->n; i++) {
    if (!m->live[i]) {
      if (out[i].file_id) fail_msg("%s: deleted key %s found in %s", when, m->ids[i], out[i].file_id);
      continue;
    }
    live++;
    if (!out[i].file_id) fail_msg("%s: live key %s not in the record index", when, m->ids[i]);
    char needle[64];
    snprintf(needle, sizeof needle, "id=%s|_hoodie_file_name=", m->ids[i]);
    const char *row = strstr(loc, needle);
    assert_non_null(row);
    const char *name = row + strlen(needle);
    char fid[128];
    file_id_of(fid, sizeof fid, name, strcspn(name, "|"));
    if (strcmp(fid, out[i].file_id) != 0)
      fail_msg("%s: key %s in file group %s, record index says %s", when, m->ids[i], fid, out[i].file_id);
    if (strcmp(out[i].partition, CITIES[m->city[i]]) && !strstr(out[i].partition, CITIES[m->city[i]]))
      fail_msg("%s: key %s partition %s", when, m->ids[i], out[i].partition);
  }
  /* One row per live key: no duplicates. */
  int rows = 0;
  for (const char *p = loc; (p = strchr(p, '\n')); p++) rows++;
  assert_int_equal(rows, live);
  hudi_index_free(ix);
  free(loc);
}

/* The MDT timeline: the pending compaction instant (requested or inflight,
 * not completed) into out ("" when none); counts completed compactions. */
static void mdt_compactions(const char *name, char *out, size_t cap, int *completed) {
  char d[400];
  snprintf(d, sizeof d, "%s/%s/.hoodie/metadata/.hoodie/timeline", dir, name);
  DIR *dd = opendir(d);
  assert_non_null(dd);
  char req[16][32];
  int nreq = 0;
  char done[64][32];
  int ndone = 0;
  *completed = 0;
  struct dirent *e;
  while ((e = readdir(dd))) {
    const char *dot = strchr(e->d_name, '.');
    if (!dot) continue;
    if (!strcmp(dot, ".compaction.requested") && nreq < 16)
      snprintf(req[nreq++], 32, "%.*s", (int)(dot - e->d_name), e->d_name);
    if (!strcmp(dot, ".commit") && ndone < 64) {
      snprintf(done[ndone++], 32, "%.*s", (int)(strchr(e->d_name, '_') - e->d_name), e->d_name);
      (*completed)++;
    }
  }
  closedir(dd);
  out[0] = '\0';
  for (int i = 0; i < nreq; i++) {
    bool c = false;
    for (int j = 0; j < ndone; j++) c |= !strcmp(req[i], done[j]);
    if (!c) snprintf(out, cap, "%.31s", req[i]);
  }
}

static int count_files_with(const char *name, const char *part, const char *suffix) {
  char d[400];
  snprintf(d, sizeof d, "%s/%s/.hoodie/metadata/%s", dir, name, part);
  DIR *dd = opendir(d);
  if (!dd) return 0;
  int n = 0;
  struct dirent *e;
  size_t sl = strlen(suffix);
  while ((e = readdir(dd))) {
    size_t l = strlen(e->d_name);
    if (l >= sl && !strcmp(e->d_name + l - sl, suffix)) n++;
  }
  closedir(dd);
  return n;
}

/* Writes commit while the MDT compaction is pending; record-index lookups
 * route their updates right, before, during and after it. */
static void test_writes_during_pending_compaction(void **state) {
  (void)state;
  hudi_table *t = create("during");
  hudi_option o[4] = {{"hoodie.metadata.compact.async", "true"},
                      {"hoodie.metadata.compact.max.delta.commits", "4"},
                      {"hoodie.metadata.compact.async.test.delay.ms", "1500"},
                      {"fsync", "false"}};
  model m;
  memset(&m, 0, sizeof m);
  char pending[32] = "", first[32] = "";
  int during = 0, completed = 0;
  for (int w = 1; w <= 9; w++) {
    hudi_write_result r = write_w(t, &m, w, o, 4);
    char now[32];
    mdt_compactions("during", now, sizeof now, &completed);
    if (now[0] && !first[0]) {
      /* Scheduled by this write, under its lock, before it returned: the
       * inline path would have completed it. */
      snprintf(first, sizeof first, "%s", now);
      assert_int_equal(completed, 0);
      assert_true(strcmp(now, r.completion_time) > 0);
    } else if (now[0] && !strcmp(now, first)) {
      /* This write committed while C was pending. */
      assert_true(strcmp(r.requested_time, first) > 0);
      during++;
    }
    snprintf(pending, sizeof pending, "%s", now);
    char when[64];
    snprintf(when, sizeof when, "after write %d", w);
    check_table(t, &m, when);
  }
  assert_true(first[0]);
  assert_true(during >= 1);
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_wait_services(t, &err) != HUDI_OK) fail_msg("%s", err.message);
  char now[32];
  mdt_compactions("during", now, sizeof now, &completed);
  assert_string_equal(now, "");
  assert_true(completed >= 1);
  /* C's base files: one per record-index shard and for files. */
  char suffix[64];
  snprintf(suffix, sizeof suffix, "_%s.hfile", first);
  assert_int_equal(count_files_with("during", "files", suffix), 1);
  assert_true(count_files_with("during", "record_index", suffix) >= 1);
  check_table(t, &m, "after wait_services");
  /* More writes after it: the logs written during C are read on top of C's
   * base files. */
  for (int w = 10; w <= 12; w++) write_w(t, &m, w, o, 4);
  if (hudi_table_wait_services(t, &err) != HUDI_OK) fail_msg("%s", err.message);
  check_table(t, &m, "after writes 10-12");
  hudi_table_free(t);
  char path[300];
  snprintf(path, sizeof path, "%s/during", dir);
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  check_table(t, &m, "fresh handle");
  hudi_table_free(t);
}

/* hudi_table_free during the test delay leaves C pending (inflight); a
 * plain handle reads right meanwhile, and its write undoes C (not its own)
 * and compacts inline. */
static void test_left_pending_then_undone(void **state) {
  (void)state;
  hudi_table *t = create("left");
  hudi_option o[4] = {{"hoodie.metadata.compact.async", "true"},
                      {"hoodie.metadata.compact.max.delta.commits", "3"},
                      {"hoodie.metadata.compact.async.test.delay.ms", "60000"},
                      {"fsync", "false"}};
  model m;
  memset(&m, 0, sizeof m);
  char c[32] = "";
  int completed = 0, w = 0;
  while (!c[0] && w < 6) {
    write_w(t, &m, ++w, o, 4);
    mdt_compactions("left", c, sizeof c, &completed);
  }
  assert_true(c[0]);
  /* Writes while it is pending. */
  write_w(t, &m, ++w, o, 4);
  write_w(t, &m, ++w, o, 4);
  hudi_table_free(t); /* cuts the delay short */
  char now[32];
  mdt_compactions("left", now, sizeof now, &completed);
  assert_string_equal(now, c);
  assert_int_equal(completed, 0);
  char path[300];
  snprintf(path, sizeof path, "%s/left", dir);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  check_table(t, &m, "pending, plain handle");
  static const hudi_option plain[] = {{"hoodie.metadata.compact.max.delta.commits", "3"}, {"fsync", "false"}};
  write_w(t, &m, ++w, plain, 2);
  mdt_compactions("left", now, sizeof now, &completed);
  assert_string_equal(now, "");
  assert_int_equal(completed, 1);
  char suffix[64];
  snprintf(suffix, sizeof suffix, "_%s.hfile", c);
  assert_int_equal(count_files_with("left", "files", suffix), 0); /* undone */
  check_table(t, &m, "after the inline compaction");
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_writes_during_pending_compaction),
      cmocka_unit_test(test_left_pending_then_undone),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
