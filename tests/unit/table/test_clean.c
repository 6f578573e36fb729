/* Cleaning (src/table/clean.h): a COPY_ON_WRITE table with a metadata table
 * gets 15 upsert commits; the automatic clean after each keeps the file
 * slices of the last 10 commits (plus the newest one before them), deletes
 * the rest from storage and marks them deleted in the MDT files partition.
 * The expected files are derived here from the commits' own instant times;
 * the clean instants are read back with the timeline codecs; snapshot and
 * time-travel reads are compared with the rows recorded after each commit.
 * A second test turns automatic cleaning off and cleans on demand with
 * KEEP_LATEST_FILE_VERSIONS. */
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
#include "base/buf.h"
#include "hudi/read.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/base_file.h"
#include "table/clean_plan.h"
#include "table/mdt_files.h"
#include "table/mdt_reader.h"
#include "table/table.h"

#define N_COMMITS 15
#define N_KEYS 4

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-clean-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (getenv("HUDI_CLEAN_KEEP")) return 0;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *const IDS[N_KEYS] = {"a", "b", "c", "d"};
static const char *const CITIES[N_KEYS] = {"sf", "sf", "nyc", "nyc"};

/* One batch of every key: id, city, ts, v. */
static void make_stream(struct ArrowArrayStream *out, int64_t ts, int32_t v) {
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
  for (int i = 0; i < N_KEYS; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), IDS[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), CITIES[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), ts, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 3), v + i, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static hudi_table *create(const char *name, bool mdt) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_COPY_ON_WRITE;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = mdt;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, path, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  return t;
}

/* Commit k (0-based) writes v = 100 k + key index; the first is a bulk insert. */
static void commit(hudi_table *t, int k, const hudi_option *opts, size_t n, char out[HUDI_SERVICE_TIME_MAX]) {
  struct ArrowArrayStream s;
  make_stream(&s, 10 + k, 100 * k);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = k == 0 ? hudi_table_append(&r, t, &s, opts, n, &err) : hudi_table_upsert(&r, t, &s, opts, n, &err);
  if (st != HUDI_OK) fail_msg("commit %d: %s", k, err.message);
  snprintf(out, HUDI_SERVICE_TIME_MAX, "%s", r.requested_time);
}

/* "id:v;..." sorted by id, of a snapshot (as_of NULL) or a time-travel read. */
static hudi_status read_rows(char *out, size_t cap, hudi_table *t, const char *as_of, hudi_error *err) {
  static const char *const cols[] = {"id", "v"};
  hudi_option o = {"hoodie.read.as.of.timestamp", as_of};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 2;
  if (as_of) {
    ro.options = &o;
    ro.n_options = 1;
  }
  struct ArrowArrayStream s;
  hudi_status st = hudi_table_read(&s, t, &ro, err);
  if (st != HUDI_OK) return st;
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  int32_t vals[N_KEYS];
  int seen = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      int64_t len, r = hudi_arrow_view_struct_row(&v, i);
      const uint8_t *p = hudi_arrow_view_bytes(&v.children[0], r, &len);
      assert_int_equal(len, 1);
      int k = p[0] - 'a';
      assert_true(k >= 0 && k < N_KEYS);
      vals[k] = (int32_t)hudi_arrow_view_int(&v.children[1], r);
      seen |= 1 << k;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
  assert_int_equal(seen, (1 << N_KEYS) - 1);
  size_t off = 0;
  out[0] = 0;
  for (int k = 0; k < N_KEYS; k++) off += (size_t)snprintf(out + off, cap - off, "%s:%d;", IDS[k], vals[k]);
  return HUDI_OK;
}

/* The base files on storage: count, and whether every one's instant is in
 * keep[0..n_keep). */
static size_t base_files(hudi_table *t, char keep[][HUDI_SERVICE_TIME_MAX], size_t n_keep, size_t *outside) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_list(t->storage, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  size_t n = 0;
  *outside = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *slash = strrchr(l.items[i].path, '/');
    const char *name = slash ? slash + 1 : l.items[i].path;
    hudi_base_file_name b;
    if (!strncmp(l.items[i].path, ".hoodie", 7) || !hudi_base_file_name_parse(&b, name)) continue;
    n++;
    bool kept = false;
    for (size_t k = 0; k < n_keep; k++) kept |= !strcmp(b.instant, keep[k]);
    if (!kept) (*outside)++;
  }
  hudi_file_list_free(&l);
  return n;
}

/* The MDT files partition lists exactly the base files on storage. */
static void check_mdt_files(hudi_table *t) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt_strings parts;
  if (hudi_mdt_list_partitions(mdt, &parts, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(parts.count, 2);
  hudi_mdt_partition_files *pf;
  if (hudi_mdt_list_files(mdt, (const char *const *)parts.items, parts.count, &pf, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(t->storage, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  size_t on_storage = 0, listed = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *path = l.items[i].path, *slash = strrchr(path, '/');
    hudi_base_file_name b;
    if (!strncmp(path, ".hoodie", 7) || !slash || !hudi_base_file_name_parse(&b, slash + 1)) continue;
    on_storage++;
    bool found = false;
    for (size_t p = 0; p < parts.count; p++) {
      if (strlen(parts.items[p]) != (size_t)(slash - path) || strncmp(parts.items[p], path, (size_t)(slash - path)))
        continue;
      for (size_t f = 0; f < pf[p].n_files; f++)
        if (!strcmp(pf[p].files[f].name, slash + 1)) found = true;
    }
    if (!found) fail_msg("%s is on storage but not in the MDT files partition", path);
  }
  for (size_t p = 0; p < parts.count; p++) listed += pf[p].n_files;
  /* Nothing the clean deleted is still listed. */
  assert_int_equal(listed, on_storage);
  hudi_file_list_free(&l);
  hudi_mdt_partition_files_free(pf, parts.count);
  hudi_mdt_strings_free(&parts);
  hudi_mdt_free(mdt);
}

/* The timeline's completed clean instants; the newest's file name. */
static size_t cleans(hudi_table *t, char *last, size_t cap, char *last_time) {
  size_t n = 0;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (strcmp(in->action, "clean") != 0) continue;
    assert_int_equal(in->state, HUDI_INSTANT_COMPLETED);
    snprintf(last, cap, "%s/%s", t->timeline.dir, in->file_name);
    snprintf(last_time, HUDI_SERVICE_TIME_MAX, "%s", in->requested_time);
    n++;
  }
  return n;
}

static void read_file(hudi_table *t, const char *path, hudi_buf *b) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf_init(b, (size_t)64 << 20);
  if (hudi_storage_read_all(t->storage, path, (size_t)64 << 20, b, &err) != HUDI_OK) fail_msg("%s", err.message);
}

static void automatic_keeps_ten_commits(void **state) {
  (void)state;
  hudi_table *t = create("auto", true);
  char times[N_COMMITS][HUDI_SERVICE_TIME_MAX];
  char rows[N_COMMITS][128];
  hudi_error err = HUDI_ERROR_INIT;
  for (int k = 0; k < N_COMMITS; k++) {
    commit(t, k, NULL, 0, times[k]);
    assert_int_equal(read_rows(rows[k], sizeof rows[k], t, NULL, &err), HUDI_OK);
    /* Up to 11 commits nothing is old enough: no clean instant yet. */
    char last[300], last_time[HUDI_SERVICE_TIME_MAX];
    assert_int_equal(cleans(t, last, sizeof last, last_time), k < 11 ? 0 : (size_t)(k - 10));
  }
  /* ECTR = the 10th newest commit (index 5); kept: its predecessor's slice
   * (newest before ECTR) and every newer one; 2 file groups. */
  size_t outside;
  assert_int_equal(base_files(t, &times[4], N_COMMITS - 4, &outside), 2 * (N_COMMITS - 4));
  assert_int_equal(outside, 0);
  check_mdt_files(t);

  /* The last clean instant, read back with the timeline codecs. */
  char last[300], last_time[HUDI_SERVICE_TIME_MAX];
  assert_int_equal(cleans(t, last, sizeof last, last_time), N_COMMITS - 11);
  hudi_buf b;
  read_file(t, last, &b);
  hudi_clean_metadata *m = NULL;
  if (hudi_clean_metadata_parse(&m, b.data, b.len, last, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(m->start_clean_time, last_time);
  assert_string_equal(m->earliest_commit_to_retain, times[5]);
  assert_string_equal(m->last_completed_commit_timestamp, times[N_COMMITS - 1]);
  assert_int_equal(m->total_files_deleted.v, 2);
  assert_int_equal(m->partition_metadata.n, 2);
  const hudi_clean_partition_entry *pe = m->partition_metadata.items;
  for (size_t i = 0; i < 2; i++) {
    assert_string_equal(pe[i].key, pe[i].value.partition_path);
    assert_string_equal(pe[i].value.policy, "KEEP_LATEST_COMMITS");
    assert_int_equal(pe[i].value.success_delete_files.n, 1);
    assert_int_equal(pe[i].value.failed_delete_files.n, 0);
    /* The slice of commit index 3 went: its base file names that instant. */
    const char *name = ((char **)pe[i].value.success_delete_files.items)[0];
    hudi_base_file_name bn;
    assert_true(hudi_base_file_name_parse(&bn, name));
    assert_string_equal(bn.instant, times[3]);
  }
  hudi_clean_metadata_free(m);
  hudi_buf_free(&b);

  /* Its plan (requested and inflight hold the same bytes). */
  char req[300], infl[300];
  snprintf(req, sizeof req, ".hoodie/timeline/%s.clean.requested", last_time);
  snprintf(infl, sizeof infl, ".hoodie/timeline/%s.clean.inflight", last_time);
  hudi_buf rb, ib;
  read_file(t, req, &rb);
  read_file(t, infl, &ib);
  assert_int_equal(rb.len, ib.len);
  assert_memory_equal(rb.data, ib.data, rb.len);
  hudi_cleaner_plan *plan = NULL;
  if (hudi_cleaner_plan_parse(&plan, rb.data, rb.len, req, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_non_null(plan->earliest_instant_to_retain);
  assert_string_equal(plan->earliest_instant_to_retain->timestamp, times[5]);
  assert_string_equal(plan->earliest_instant_to_retain->action, "commit");
  assert_string_equal(plan->earliest_instant_to_retain->state, "COMPLETED");
  assert_string_equal(plan->policy, "KEEP_LATEST_COMMITS");
  assert_int_equal(plan->version.v, 2);
  assert_int_equal(plan->file_paths_to_be_deleted_per_partition.n, 2);
  const hudi_clean_file_infos_entry *fe = plan->file_paths_to_be_deleted_per_partition.items;
  for (size_t i = 0; i < 2; i++) {
    assert_int_equal(fe[i].value.n, 1);
    const hudi_clean_file_info *fi = fe[i].value.items;
    /* Absolute: the table's base path, the partition, the file. */
    char prefix[400];
    snprintf(prefix, sizeof prefix, "%s/%s/", t->base_uri, fe[i].key);
    assert_true(!strncmp(fi->file_path, prefix, strlen(prefix)));
    assert_false(fi->is_bootstrap_base_file.v);
  }
  hudi_cleaner_plan_free(plan);
  hudi_buf_free(&rb);
  hudi_buf_free(&ib);

  /* The metadata table recorded the clean as deltacommit T, completed
   * before the clean itself. */
  const hudi_instant *ci = NULL;
  for (size_t i = 0; i < t->timeline.count; i++)
    if (!strcmp(t->timeline.items[i].requested_time, last_time)) ci = &t->timeline.items[i];
  assert_non_null(ci);
  hudi_file_list ml = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(t->storage, ".hoodie/metadata/.hoodie/timeline", 0, &ml, &err), HUDI_OK);
  bool mdt_done = false;
  for (size_t i = 0; i < ml.count; i++) {
    const char *name = strrchr(ml.items[i].path, '/') + 1;
    if (strncmp(name, last_time, strlen(last_time)) || name[strlen(last_time)] != '_') continue;
    assert_true(strstr(name, ".deltacommit") != NULL);
    assert_true(strncmp(name + strlen(last_time) + 1, ci->completion_time, 17) < 0);
    mdt_done = true;
  }
  assert_true(mdt_done);
  hudi_file_list_free(&ml);

  /* Reads: the snapshot is unchanged; time travel to ECTR works (and sees
   * that commit's rows); before it is an error naming both instants. */
  char now[128];
  assert_int_equal(read_rows(now, sizeof now, t, NULL, &err), HUDI_OK);
  assert_string_equal(now, rows[N_COMMITS - 1]);
  for (int k = 5; k < N_COMMITS; k++) {
    if (read_rows(now, sizeof now, t, times[k], &err) != HUDI_OK) fail_msg("as of %s: %s", times[k], err.message);
    assert_string_equal(now, rows[k]);
  }
  assert_int_equal(read_rows(now, sizeof now, t, times[4], &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, times[4]));
  assert_non_null(strstr(err.message, times[5]));
  hudi_table_free(t);
}

/* hoodie.clean.automatic=false: no clean however many commits; then an
 * explicit KEEP_LATEST_FILE_VERSIONS clean keeps 2 slices per group. */
static void manual_file_versions(void **state) {
  (void)state;
  hudi_table *t = create("manual", false);
  static const hudi_option off[] = {{"hoodie.clean.automatic", "false"}};
  char times[13][HUDI_SERVICE_TIME_MAX];
  char rows[128], last[300], last_time[HUDI_SERVICE_TIME_MAX];
  hudi_error err = HUDI_ERROR_INIT;
  for (int k = 0; k < 13; k++) commit(t, k, off, 1, times[k]);
  assert_int_equal(cleans(t, last, sizeof last, last_time), 0);
  size_t outside;
  assert_int_equal(base_files(t, times, 13, &outside), 26);
  assert_int_equal(read_rows(rows, sizeof rows, t, NULL, &err), HUDI_OK);

  /* A bad policy names itself. */
  static const hudi_option bad[] = {{"hoodie.clean.policy", "KEEP_SOME"}};
  hudi_clean_result res;
  assert_int_equal(hudi_table_clean(&res, t, bad, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "KEEP_SOME"));

  static const hudi_option fv[] = {{"hoodie.cleaner.policy", "KEEP_LATEST_FILE_VERSIONS"},
                                   {"hoodie.cleaner.fileversions.retained", "2"}};
  if (hudi_table_clean(&res, t, fv, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(res.num_files_deleted, 22);
  assert_int_equal(res.num_partitions, 2);
  assert_string_equal(res.earliest_commit_to_retain, "");
  assert_int_equal(strlen(res.requested_time), 17);
  assert_true(strcmp(res.completion_time, res.requested_time) > 0);
  assert_int_equal(cleans(t, last, sizeof last, last_time), 1);
  assert_string_equal(last_time, res.requested_time);
  assert_int_equal(base_files(t, &times[11], 2, &outside), 4);
  assert_int_equal(outside, 0);
  char now[128];
  assert_int_equal(read_rows(now, sizeof now, t, NULL, &err), HUDI_OK);
  assert_string_equal(now, rows);

  /* Nothing left to clean: no new instant. */
  if (hudi_table_clean(&res, t, fv, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(res.requested_time, "");
  assert_int_equal(res.num_files_deleted, 0);
  assert_int_equal(cleans(t, last, sizeof last, last_time), 1);
  /* With no ECTR recorded, time travel is not limited by the clean. */
  assert_int_equal(read_rows(now, sizeof now, t, times[12], &err), HUDI_OK);
  hudi_table_free(t);
}

/* A clean interrupted after its plan (here: its completed file and its MDT
 * deltacommit removed, as if the process died before them) is finished by
 * the next clean: the same instant completes, the files it had already
 * deleted are recorded as failed deletes, and the MDT deltacommit is
 * written again. */
static void pending_clean_is_finished(void **state) {
  (void)state;
  hudi_table *t = create("pending", true);
  static const hudi_option off[] = {{"hoodie.clean.automatic", "false"}};
  static const hudi_option fv[] = {{"hoodie.clean.policy", "KEEP_LATEST_FILE_VERSIONS"},
                                   {"hoodie.clean.fileversions.retained", "1"}};
  char times[4][HUDI_SERVICE_TIME_MAX], last[300], last_time[HUDI_SERVICE_TIME_MAX];
  hudi_error err = HUDI_ERROR_INIT;
  for (int k = 0; k < 4; k++) commit(t, k, off, 1, times[k]);
  hudi_clean_result res;
  if (hudi_table_clean(&res, t, fv, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(res.num_files_deleted, 6);
  assert_int_equal(cleans(t, last, sizeof last, last_time), 1);

  /* Undo the last two steps. */
  char path[300];
  assert_int_equal(hudi_storage_delete(t->storage, last, 0, &err), HUDI_OK);
  hudi_file_list ml = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(t->storage, ".hoodie/metadata/.hoodie/timeline", 0, &ml, &err), HUDI_OK);
  int removed = 0;
  for (size_t i = 0; i < ml.count; i++) {
    const char *name = strrchr(ml.items[i].path, '/') + 1;
    if (!strncmp(name, last_time, 17) && name[17] == '_') {
      snprintf(path, sizeof path, "%s", ml.items[i].path);
      assert_int_equal(hudi_storage_delete(t->storage, path, 0, &err), HUDI_OK);
      removed++;
    }
  }
  hudi_file_list_free(&ml);
  assert_int_equal(removed, 1);

  if (hudi_table_clean(&res, t, fv, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(res.requested_time, ""); /* nothing new to clean */
  char again[300], again_time[HUDI_SERVICE_TIME_MAX];
  assert_int_equal(cleans(t, again, sizeof again, again_time), 1);
  assert_string_equal(again_time, last_time);
  hudi_buf b;
  read_file(t, again, &b);
  hudi_clean_metadata *m = NULL;
  if (hudi_clean_metadata_parse(&m, b.data, b.len, again, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(m->total_files_deleted.v, 0);
  size_t failed = 0;
  const hudi_clean_partition_entry *pe = m->partition_metadata.items;
  for (size_t i = 0; i < m->partition_metadata.n; i++) {
    assert_int_equal(pe[i].value.success_delete_files.n, 0);
    failed += pe[i].value.failed_delete_files.n;
    assert_int_equal(pe[i].value.failed_delete_files.n, pe[i].value.delete_path_patterns.n);
  }
  assert_int_equal(failed, 6);
  hudi_clean_metadata_free(m);
  hudi_buf_free(&b);
  size_t outside;
  assert_int_equal(base_files(t, &times[3], 1, &outside), 2);
  assert_int_equal(outside, 0);
  check_mdt_files(t);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(automatic_keeps_ten_commits),
      cmocka_unit_test(manual_file_versions),
      cmocka_unit_test(pending_clean_is_finished),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
