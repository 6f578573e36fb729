/* Secondary-index keys and file groups (mdt_secondary_index.h) against
 * the Spark 1.1 fixtures: every entry of both indexes (merchant_name,
 * txn_date) of the copy-on-write and merge-on-read v9_txns_simple_meta
 * tables lies in the file group hudi_si_key_shard names for its key (the
 * prefix through the first unescaped '$', hashed as Java does); the
 * escaping of values and record keys; and a delete through the C API on
 * copies of both tables removes exactly the deleted keys' entries (the
 * write path's slice reads, diff and DELETE blocks, under the sanitizers
 * too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "table/mdt_reader.h"
#include "table/mdt_secondary_index.h"
#include "table/table.h"
#include "hudi/table.h"
#include "hudi/write.h"

#define FIX HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/sample_table/"

static const char *const tables[] = {
    FIX "cow/v9_txns_simple_meta/v9_txns_simple_meta",
    FIX "mor/avro/v9_txns_simple_meta/v9_txns_simple_meta",
};
static const char *const indexes[] = {"secondary_index_merchant_idx", "secondary_index_txn_date_idx"};

static void fixture_groups(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t checked = 0, nulls = 0;
  for (size_t t_i = 0; t_i < 2; t_i++) {
    hudi_table *t = NULL;
    hudi_mdt *m = NULL;
    if (hudi_table_open(&t, tables[t_i], NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
    if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
    for (size_t x = 0; x < 2; x++) {
      size_t ng;
      const hudi_file_group *g = hudi_mdt_groups(m, indexes[x], &ng);
      assert_int_equal(ng, 10);
      for (size_t i = 0; i < ng; i++) {
        hudi_mdt_records r = {0};
        if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
        for (size_t j = 0; j < r.count; j++) {
          int32_t shard = -1;
          assert_int_equal(hudi_si_key_shard(&shard, r.items[j].key, r.items[j].key_len, ng, &err), HUDI_OK);
          if (shard != (int32_t)i) fail_msg("%s: key %s in group %zu, hudi-c says %d", indexes[x], r.items[j].key, i, shard);
          assert_int_equal(r.items[j].type, 7);
          nulls += r.items[j].key[0] == '\0';
          checked++;
        }
        hudi_mdt_records_free(&r);
      }
    }
    hudi_mdt_free(m);
    hudi_table_free(t);
  }
  printf("%zu secondary-index entries, %zu of null values\n", checked, nulls);
  assert_int_equal(checked, 48); /* 12 rows x 2 indexes x 2 tables */
  assert_int_equal(nulls, 2);    /* TXN-003's merchant_name, in both tables */
}

/* Table version 8 (Spark 1.0.2's v8_trips_8i3u1d, index rider_idx): each
 * entry lies in the file group of its whole key's hash, which for some
 * entries differs from the version-9 rule (the prefix through '$'). */
static void fixture_groups_v8(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = NULL;
  hudi_mdt *m = NULL;
  const char *trips =
      HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data/quickstart_trips_table/mor/avro/v8_trips_8i3u1d/v8_trips_8i3u1d";
  if (hudi_table_open(&t, trips, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  size_t ng, checked = 0, v9_differs = 0;
  const hudi_file_group *g = hudi_mdt_groups(m, "secondary_index_rider_idx", &ng);
  assert_int_equal(ng, 10);
  for (size_t i = 0; i < ng; i++) {
    hudi_mdt_records r = {0};
    if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
    for (size_t j = 0; j < r.count; j++) {
      int32_t shard = -1, v9 = -1;
      assert_int_equal(hudi_si_key_shard_of_version(&shard, r.items[j].key, r.items[j].key_len, ng, 8, &err), HUDI_OK);
      if (shard != (int32_t)i) fail_msg("key %s in group %zu, hudi-c says %d", r.items[j].key, i, shard);
      assert_int_equal(hudi_si_key_shard_of_version(&v9, r.items[j].key, r.items[j].key_len, ng, 9, &err), HUDI_OK);
      v9_differs += v9 != shard;
      checked++;
    }
    hudi_mdt_records_free(&r);
  }
  assert_int_equal(checked, 6); /* riders A, C, D, E, G, I */
  assert_true(v9_differs > 0);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

/* Live entries of an index whose key ends in "$" + rk. */
static size_t entries_of(hudi_mdt *m, const char *index, const char *rk, size_t *total) {
  hudi_error err = HUDI_ERROR_INIT;
  size_t ng, n = 0, rl = strlen(rk);
  *total = 0;
  const hudi_file_group *g = hudi_mdt_groups(m, index, &ng);
  for (size_t i = 0; i < ng; i++) {
    hudi_mdt_records r = {0};
    if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
    for (size_t j = 0; j < r.count; j++) {
      const hudi_mdt_record *x = &r.items[j];
      (*total)++;
      if (x->key_len > rl && x->key[x->key_len - rl - 1] == '$' && !memcmp(x->key + x->key_len - rl, rk, rl)) n++;
    }
    hudi_mdt_records_free(&r);
  }
  return n;
}

static void delete_keeps_indexes(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t t_i = 0; t_i < 2; t_i++) {
    char tmpl[] = "/tmp/hudi_si_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char cmd[2048], path[600];
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/t'", tables[t_i], tmpl);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t", tmpl);
    hudi_table *t = NULL;
    if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
    const char *del[] = {"TXN-001", "TXN-003"};
    hudi_write_result res;
    if (hudi_table_delete_keys(&res, t, del, 2, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(res.num_deletes, 2);
    hudi_table_free(t);
    if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
    hudi_mdt *m = NULL;
    if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
    for (size_t x = 0; x < 2; x++) {
      size_t total;
      assert_int_equal(entries_of(m, indexes[x], "TXN-001", &total), 0);
      assert_int_equal(entries_of(m, indexes[x], "TXN-003", &total), 0);
      assert_int_equal(entries_of(m, indexes[x], "TXN-007", &total), 1);
      assert_int_equal(total, 10); /* 12 rows, 2 deleted */
    }
    hudi_mdt_free(m);
    hudi_table_free(t);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    assert_int_equal(system(cmd), 0);
  }
}

static void keys(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf b;
  hudi_buf_init(&b, 1 << 16);
  assert_int_equal(hudi_si_key(&b, "a$b\\c", 5, "k$1", 3, &err), HUDI_OK);
  assert_int_equal(b.len, 12);
  assert_memory_equal(b.data, "a\\$b\\\\c$k\\$1", 12);
  hudi_buf_reset(&b);
  assert_int_equal(hudi_si_key(&b, NULL, 0, "TXN-003", 7, &err), HUDI_OK);
  assert_int_equal(b.len, 9);
  assert_memory_equal(b.data, "\0$TXN-003", 9);
  hudi_buf_reset(&b);
  assert_int_equal(hudi_si_key(&b, "x\0y", 3, "", 0, &err), HUDI_OK);
  assert_int_equal(b.len, 5);
  assert_memory_equal(b.data, "x\\\0y$", 5);
  /* The escaped '$' is part of the hashed prefix; the key after it is not. */
  int32_t a = -1, c = -1;
  assert_int_equal(hudi_si_key_shard(&a, "v\\$w$k1", 7, 10, &err), HUDI_OK);
  assert_int_equal(hudi_si_key_shard(&c, "v\\$w$other", 10, 10, &err), HUDI_OK);
  assert_int_equal(a, c);
  hudi_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keys),
      cmocka_unit_test(fixture_groups), cmocka_unit_test(fixture_groups_v8),
      cmocka_unit_test(delete_keeps_indexes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
