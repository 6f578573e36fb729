/* The metadata-table reader on every fixture table that has one: the files
 * partition against a storage listing of the committed files, and the
 * record index against the record keys in the data files (oracle:
 * tests/unit/table/mdt_oracle.py, which uses pyarrow and
 * ../shared/tools/hudi_check.py's independent merge). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/instant.h"
#include "table/mdt_files.h"
#include "table/mdt_record_index.h"
#include "table/mdt_shard.h"
#include "mdt_test_util.h"

#define ORACLE HUDI_SOURCE_DIR "/tests/unit/table/mdt_oracle.py"
#define TOOLS HUDI_SHARED_DIR "/tools"

static const char *python(void) {
  const char *p = getenv("HUDI_TEST_PYTHON");
  return p ? p : HUDI_SOURCE_DIR "/.venv/bin/python";
}

static json_t *oracle(const char *table) {
  char out[512], cmd[16384];
  snprintf(out, sizeof out, "mdt_oracle_%ld.json", (long)getpid());
  snprintf(cmd, sizeof cmd, "'%s' '%s' dump '%s' '%s' '%s'", python(), ORACLE, TOOLS, table, out);
  int rc = system(cmd);
  if (rc == -1 || WEXITSTATUS(rc) != 0) fail_msg("oracle failed for %s", table);
  json_error_t jerr;
  json_t *j = json_load_file(out, 0, &jerr);
  unlink(out);
  if (!j) fail_msg("oracle output: %s", jerr.text);
  return j;
}

static void open_both(const char *path, hudi_table **t, hudi_mdt **m) {
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_open(t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_mdt_open(m, *t, &err) != HUDI_OK) fail_msg("%s", err.message);
}

/* ------------------------------------------------------------ files */

static void check_files(const char *path, json_t *want) {
  hudi_table *t;
  hudi_mdt *m;
  open_both(path, &t, &m);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt_strings parts;
  if (hudi_mdt_list_partitions(m, &parts, NULL, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  /* Every partition with committed files is listed. */
  const char *p;
  json_t *files;
  json_object_foreach(want, p, files) {
    bool listed = false;
    for (size_t i = 0; i < parts.count; i++) listed |= strcmp(parts.items[i], p) == 0;
    if (!listed) fail_msg("%s: partition '%s' missing from __all_partitions__", path, p);
  }
  hudi_mdt_partition_files *got;
  hudi_mdt_read_stats st = {0};
  if (hudi_mdt_list_files(m, (const char *const *)parts.items, parts.count, &got, &st, &err) != HUDI_OK)
    fail_msg("%s: %s", path, err.message);
  size_t total = 0;
  for (size_t i = 0; i < parts.count; i++) {
    json_t *w = json_object_get(want, parts.items[i]);
    size_t want_n = w ? json_object_size(w) : 0;
    if (got[i].n_files != want_n)
      fail_msg("%s: partition '%s': %zu files from the metadata table, %zu committed on storage", path,
               parts.items[i], got[i].n_files, want_n);
    for (size_t f = 0; f < got[i].n_files; f++) {
      json_t *size = json_object_get(w, got[i].files[f].name);
      if (!size) fail_msg("%s: %s/%s is not a committed file", path, parts.items[i], got[i].files[f].name);
      assert_int_equal(got[i].files[f].size, (uint64_t)json_integer_value(size));
      total++;
    }
  }
  assert_true(total > 0);
  assert_int_equal(st.base_files_opened, 1); /* one file group, one batched lookup */
  hudi_mdt_partition_files_free(got, parts.count);
  hudi_mdt_strings_free(&parts);
  /* A partition that does not exist has no record. */
  const char *none = "no/such/partition";
  assert_int_equal(hudi_mdt_list_files(m, &none, 1, &got, NULL, &err), HUDI_OK);
  assert_int_equal(got[0].found, 0);
  assert_int_equal(got[0].n_files, 0);
  hudi_mdt_partition_files_free(got, 1);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

/* ------------------------------------------------------------ record index */

static bool holds(json_t *holders, const hudi_rli_location *loc) {
  size_t i;
  json_t *h;
  json_array_foreach(holders, i, h) {
    if (strcmp(json_string_value(json_array_get(h, 0)), loc->partition) == 0 &&
        strcmp(json_string_value(json_array_get(h, 1)), loc->file_id) == 0)
      return true;
  }
  return false;
}

/* instantTime is a completed data instant's epoch ms in some zone offset
 * that is a whole quarter hour (the fixtures were written in UTC+8). */
static bool is_instant_ms(const hudi_table *t, int64_t ms) {
  for (size_t i = 0; i < t->timeline.count; i++) {
    int64_t utc;
    const char *rt = t->timeline.items[i].requested_time;
    if (hudi_instant_time_to_millis(&utc, rt, strlen(rt), NULL) != HUDI_OK) continue;
    int64_t d = utc - ms;
    if (d % (15 * 60 * 1000) == 0 && d >= -14LL * 3600 * 1000 && d <= 14LL * 3600 * 1000) return true;
  }
  return false;
}

static int tables_with_rli, keys_checked, data_keys_checked, gone_checked;

static void check_rli(const char *path, json_t *o) {
  hudi_table *t;
  hudi_mdt *m;
  open_both(path, &t, &m);
  if (!hudi_mdt_has_record_index(m)) {
    hudi_mdt_free(m);
    hudi_table_free(t);
    return;
  }
  tables_with_rli++;
  json_t *mdt = json_object_get(o, "rli_mdt"), *data = json_object_get(o, "rli_data"), *gone = json_object_get(o, "gone");
  /* Batch: every key the oracle knows, the deleted ones, and made-up ones. */
  size_t cap = json_object_size(mdt) + (json_is_object(data) ? json_object_size(data) : 0) + json_array_size(gone) + 8;
  const char **keys = calloc(cap, sizeof *keys);
  size_t n = 0;
  const char *k;
  json_t *v;
  json_object_foreach(mdt, k, v) keys[n++] = k;
  if (json_is_object(data)) json_object_foreach(data, k, v) if (!json_object_get(mdt, k)) keys[n++] = k;
  size_t i;
  json_array_foreach(gone, i, v) keys[n++] = json_string_value(v);
  static const char *const made_up[] = {"no-such-key", "", "TXN-999999", "\xc3\xa9t\xc3\xa9", "zzzzzzzz"};
  for (size_t j = 0; j < 5; j++) keys[n++] = made_up[j];
  keys[n++] = keys[0]; /* a repeat */
  hudi_rli_location *locs;
  hudi_mdt_read_stats st = {0};
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_mdt_record_index_lookup(m, keys, NULL, n, &locs, &st, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  for (size_t j = 0; j < n; j++) {
    json_t *want = json_object_get(mdt, keys[j]);
    json_t *holders = json_is_object(data) ? json_object_get(data, keys[j]) : NULL;
    if (want) {
      if (!locs[j].found) fail_msg("%s: key %s not found", path, keys[j]);
      assert_string_equal(locs[j].partition, json_string_value(json_array_get(want, 0)));
      assert_string_equal(locs[j].file_id, json_string_value(json_array_get(want, 1)));
      if (!is_instant_ms(t, locs[j].instant_ms)) fail_msg("%s: key %s: instantTime %lld", path, keys[j],
                                                          (long long)locs[j].instant_ms);
      keys_checked++;
    } else if (locs[j].found) {
      fail_msg("%s: key '%s' found at %s/%s, absent in the oracle", path, keys[j], locs[j].partition, locs[j].file_id);
    }
    if (json_is_object(data)) {
      if (holders) {
        if (!locs[j].found || !holds(holders, &locs[j]))
          fail_msg("%s: key %s: the index does not point to a file group holding it", path, keys[j]);
        data_keys_checked++;
      } else if (locs[j].found) {
        fail_msg("%s: key %s is in no live file group, yet indexed", path, keys[j]);
      } else {
        gone_checked++;
      }
    }
  }
  /* The whole batch: one lookup per shard, each base file read once. */
  size_t n_groups;
  hudi_mdt_groups(m, HUDI_MDT_RECORD_INDEX, &n_groups);
  assert_true(st.base_files_opened <= n_groups);
  hudi_rli_locations_free(locs, n);

  /* One key reads one shard only: one base file at most, and at most one
   * of its data blocks. */
  memset(&st, 0, sizeof st);
  if (hudi_mdt_record_index_lookup(m, keys, NULL, 1, &locs, &st, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_true(st.base_files_opened <= 1);
  assert_true(st.base_data_blocks_read <= 1);
  int32_t shard;
  assert_int_equal(hudi_mdt_shard_of(&shard, keys[0], strlen(keys[0]), n_groups, &err), HUDI_OK);
  const hudi_file_group *g = &hudi_mdt_groups(m, HUDI_MDT_RECORD_INDEX, &n_groups)[shard];
  const hudi_file_slice *sl = hudi_file_group_latest_slice(g);
  assert_int_equal(st.log_files_opened, sl->n_logs);
  hudi_rli_locations_free(locs, 1);
  free(keys);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

static void fixtures(void **state) {
  (void)state;
  mdt_tables ts;
  mdt_tables_find(&ts);
  assert_true(ts.n >= 18);
  for (int i = 0; i < ts.n; i++) {
    json_t *o = oracle(ts.paths[i]);
    check_files(ts.paths[i], json_object_get(o, "files"));
    check_rli(ts.paths[i], o);
    json_decref(o);
  }
  print_message("%d tables with a record index; %d keys as hudi_check merges them, %d against the data files, %d "
                "absent keys\n",
                tables_with_rli, keys_checked, data_keys_checked, gone_checked);
  assert_true(tables_with_rli >= 18);
  assert_true(data_keys_checked > 50);
  assert_true(gone_checked > 30);
  mdt_tables_free(&ts);
}

/* ------------------------------------------------------------ mapping */

static void shard_vectors(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  int32_t s;
  /* Spec §1.4, checked against [F9]'s file groups. */
  assert_int_equal(hudi_mdt_shard_of(&s, "TXN-001", 7, 10, &err), HUDI_OK);
  assert_int_equal(s, 8);
  assert_int_equal(hudi_mdt_shard_of(&s, "TXN-008", 7, 10, &err), HUDI_OK);
  assert_int_equal(s, 1);
  assert_int_equal(hudi_mdt_shard_of(&s, "x", 1, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_buf b;
  hudi_buf_init(&b, 256);
  assert_int_equal(hudi_mdt_file_id(&b, "record_index", 9, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, &err), HUDI_OK);
  assert_string_equal((char *)b.data, "record-index-0009-0");
  hudi_buf_reset(&b);
  assert_int_equal(hudi_mdt_file_id(&b, "secondary_index_rider_idx", 0, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, &err), HUDI_OK);
  assert_string_equal((char *)b.data, "secondary-index-rider-idx-0000-0");
  assert_int_equal(hudi_mdt_file_id(&b, "nope", 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_buf_free(&b);
}

/* The data table's pending instant makes its MDT deltacommit invalid;
 * initialisation instants are always valid. */
static void valid_instants(void **state) {
  (void)state;
  char path[4096];
  snprintf(path, sizeof path, "%s/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta", MDT_FIXTURES);
  hudi_table *t;
  hudi_mdt *m;
  open_both(path, &t, &m);
  assert_true(hudi_mdt_instant_valid(m, "00000000000000000"));
  assert_true(hudi_mdt_instant_valid(m, "00000000000000004"));
  assert_true(hudi_mdt_instant_valid(m, "20260307162557587"));
  assert_false(hudi_mdt_instant_valid(m, "20990101000000000"));
  size_t n;
  assert_non_null(hudi_mdt_groups(m, "files", &n));
  assert_int_equal(n, 1);
  assert_non_null(hudi_mdt_groups(m, "record_index", &n));
  assert_int_equal(n, 10);
  assert_null(hudi_mdt_groups(m, "bloom_filters", &n));
  assert_true(hudi_mdt_partition_available(m, "record_index"));
  assert_false(hudi_mdt_partition_available(m, "bloom_filters"));
  assert_false(hudi_mdt_partition_available(m, "record"));
  hudi_mdt_free(m);
  hudi_table_free(t);
  /* A table without a metadata table. */
  snprintf(path, sizeof path, "%s/sample_table/cow/v9_txns_simple_nometa/v9_txns_simple_nometa", MDT_FIXTURES);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_ERR_NOT_FOUND);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(shard_vectors),
      cmocka_unit_test(valid_instants),
      cmocka_unit_test(fixtures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
