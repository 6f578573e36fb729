/* A record-index lookup of k keys reads O(k) base HFile blocks, not the
 * shard: a copy of a fixture table whose shard 0 base file is replaced by
 * a 20000-key HFile with small blocks (written with hudi-c's HFile writer
 * and payload encoder, in the fixture's own schema). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "hfile/hfile.h"
#include "table/mdt_record_index.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "mdt_test_util.h"

#define SRC MDT_FIXTURES "/sample_table/mor/avro/v9_txns_simple_meta/v9_txns_simple_meta"
#define N_KEYS 20000

static char scratch[4096];
static char *keys[N_KEYS * 12];
static size_t n_keys;

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Runs of 5 consecutive keys differ only in the UUID's low bits, so a
 * lookup formats each file id from all of its parts. */
static void file_id_for(size_t i, char out[64]) {
  snprintf(out, 64, "%08zx-7a82-4124-9a6b-8a94c18ff8%02zx-%zu", i / 5 % 7, i % 5, i / 5 % 3);
}

static void write_shard(const char *path) {
  hudi_error err = HUDI_ERROR_INIT;
  size_t len;
  const char *json = hudi_mdt_schema_json(9, &len);
  hudi_avro_schema *s;
  assert_int_equal(hudi_avro_schema_parse(&s, json, len, &err), HUDI_OK);
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = 4096;
  hudi_hfile_writer *w;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_add_file_info(w, "schema", (const uint8_t *)json, len, &err), HUDI_OK);
  hudi_buf v;
  hudi_buf_init(&v, 1 << 20);
  for (size_t i = 0; i < n_keys; i++) {
    hudi_mdt_record r;
    hudi_mdt_record_init(&r);
    char fid[64];
    file_id_for(i, fid);
    assert_int_equal(hudi_mdt_record_set_key(&r, keys[i], strlen(keys[i]), HUDI_MDT_TYPE_RECORD_INDEX, &err), HUDI_OK);
    assert_int_equal(hudi_mdt_record_set_rli(&r, "region=us", fid, 1772922372542LL + (int64_t)i, &err), HUDI_OK);
    hudi_buf_reset(&v);
    assert_int_equal(hudi_mdt_record_encode(&r, s->root, &v, &err), HUDI_OK);
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)keys[i], strlen(keys[i]), v.data, v.len, &err),
                     HUDI_OK);
    hudi_mdt_record_free(&r);
  }
  uint8_t *bytes;
  size_t n;
  assert_int_equal(hudi_hfile_writer_finish(w, &bytes, &n, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
  hudi_free(bytes);
  hudi_buf_free(&v);
  hudi_avro_schema_free(s);
}

static int setup(void **state) {
  (void)state;
  char cwd[2048], cmd[8192];
  if (!getcwd(cwd, sizeof cwd)) return -1;
  snprintf(scratch, sizeof scratch, "%s/mdt_cost_%ld", cwd, (long)getpid());
  snprintf(cmd, sizeof cmd, "rm -rf '%.2000s' && cp -r '%.2000s' '%.2000s'", scratch, SRC, scratch);
  if (system(cmd) != 0) return -1;
  /* Keys of shard 0 (of 10), sorted as the HFile needs them. */
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; n_keys < N_KEYS; i++) {
    char k[32];
    snprintf(k, sizeof k, "key-%08zu", i);
    int32_t shard;
    if (hudi_mdt_shard_of(&shard, k, strlen(k), 10, &err) != HUDI_OK) return -1;
    if (shard == 0) keys[n_keys++] = strdup(k);
  }
  qsort(keys, n_keys, sizeof keys[0], cmp_str);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "rm -rf '%.4000s'", scratch);
  int rc = system(cmd);
  for (size_t i = 0; i < n_keys; i++) free(keys[i]);
  return rc == 0 ? 0 : -1;
}

static void lookups_read_few_blocks(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  hudi_mdt *m;
  assert_int_equal(hudi_table_open(&t, scratch, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_OK);
  const char *tz = hudi_table_property(t, "hoodie.table.timeline.timezone");
  bool utc = tz && strcmp(tz, "UTC") == 0;
  size_t n_groups;
  const hudi_file_group *g = hudi_mdt_groups(m, HUDI_MDT_RECORD_INDEX, &n_groups);
  assert_int_equal(n_groups, 10);
  const hudi_file_slice *sl = hudi_file_group_latest_slice(&g[0]);
  assert_non_null(sl->base);
  char path[8192];
  snprintf(path, sizeof path, "%.4000s/.hoodie/metadata/%.2000s", scratch, sl->base->path);
  hudi_mdt_free(m);
  write_shard(path);
  assert_int_equal(hudi_mdt_open(&m, t, &err), HUDI_OK);

  /* k keys spread over the shard: at most k data blocks (of ~hundreds). */
  static const size_t ks[] = {1, 5, 40};
  for (size_t c = 0; c < 3; c++) {
    size_t k = ks[c];
    const char *batch[64];
    size_t idx[64];
    for (size_t i = 0; i < k; i++) {
      idx[i] = (i * 7919 + 13) % n_keys;
      batch[i] = keys[idx[i]];
    }
    batch[k] = "key-not-there"; /* and one absent key */
    hudi_rli_location *locs;
    hudi_mdt_read_stats st = {0};
    assert_int_equal(hudi_mdt_record_index_lookup(m, batch, NULL, k + 1, &locs, &st, &err), HUDI_OK);
    for (size_t i = 0; i < k; i++) {
      char fid[64];
      file_id_for(idx[i], fid);
      assert_true(locs[i].found);
      assert_string_equal(locs[i].file_id, fid);
      assert_string_equal(locs[i].partition, "region=us");
      assert_int_equal(locs[i].instant_ms, 1772922372542LL + (int64_t)idx[i]);
      /* Each key's own instant, though consecutive entries differ. */
      char want[HUDI_INSTANT_TIME_BUF];
      assert_int_equal(hudi_instant_time_format_zone(want, locs[i].instant_ms, utc, &err), HUDI_OK);
      assert_string_equal(locs[i].instant, want);
    }
    print_message("k=%zu: %llu base data blocks, %llu bytes of base HFiles read\n", k,
                  (unsigned long long)st.base_data_blocks_read, (unsigned long long)st.base_bytes_read);
    /* The absent key may land in another shard: one more block at most. */
    assert_true(st.base_data_blocks_read <= k + 1);
    hudi_rli_locations_free(locs, k + 1);
  }
  /* Every key of the shard, in one batch: every block once. */
  hudi_rli_location *locs;
  hudi_mdt_read_stats st = {0};
  assert_int_equal(hudi_mdt_record_index_lookup(m, (const char *const *)keys, NULL, n_keys, &locs, &st, &err), HUDI_OK);
  for (size_t i = 0; i < n_keys; i++) {
    char fid[64];
    file_id_for(i, fid);
    assert_true(locs[i].found);
    assert_string_equal(locs[i].file_id, fid);
  }
  print_message("all %zu keys: %llu base data blocks\n", n_keys, (unsigned long long)st.base_data_blocks_read);
  assert_true(st.base_data_blocks_read > 100);
  hudi_rli_locations_free(locs, n_keys);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test_setup_teardown(lookups_read_few_blocks, setup, teardown)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
