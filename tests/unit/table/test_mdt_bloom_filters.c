/* The bloom_filters partition of the metadata table (mdt_bloom_filters.h):
 * a table whose properties list it, with its four file groups laid out as
 * Spark initialises them (an empty DELETE block each), gets one record per
 * base file from every write, holding that file's footer bloom filter,
 * type code and instant, in the file group its key hashes to; a clean
 * removes the records of the base files it deletes. (Spark's own records
 * and its BLOOM index reading ours: tests/interop/
 * test_mdt_bloom_filters_engines.py.) */
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
#include "avro/value.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/base_footer.h"
#include "table/log_delete_block.h"
#include "table/log_format.h"
#include "table/log_writer.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_reader.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "table/table.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-bf-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return getenv("HUDI_CLEAN_KEEP") || system(cmd) == 0 ? 0 : -1;
}

/* A stream of one batch: id, city (strings), v (int64). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities, int n,
                        int64_t v) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "v", "l", 0, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), ids[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), cities[i], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), v, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

/* Lists bloom_filters in hoodie.table.metadata.partitions and lays out its
 * four file groups as Spark's initialisation does: one empty DELETE block
 * each, at instant 00000000000000002. */
static void add_bloom_partition(const char *base) {
  char path[512];
  snprintf(path, sizeof path, "%s/.hoodie/hoodie.properties", base);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char text[16384];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *line = "hoodie.table.metadata.partitions=files,record_index\n";
  char *at = strstr(text, line);
  assert_non_null(at);
  f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(text, 1, (size_t)(at - text), f);
  fputs("hoodie.table.metadata.partitions=bloom_filters,files,record_index\n", f);
  fputs(at + strlen(line), f);
  fclose(f);

  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  assert_int_equal(hudi_storage_open(&s, base, NULL, 0, &err), HUDI_OK);
  size_t schema_len;
  const char *schema = hudi_mdt_schema_json(8, &schema_len);
  for (int g = 0; g < 4; g++) {
    hudi_buf content, block;
    hudi_buf_init(&content, 1 << 20);
    hudi_buf_init(&block, 1 << 20);
    hudi_log_meta h = HUDI_LOG_META_INIT;
    assert_int_equal(hudi_log_delete_block_encode(&content, NULL, 0, &err), HUDI_OK);
    assert_int_equal(hudi_log_meta_append(&h, HUDI_LOG_HEADER_INSTANT_TIME, "00000000000000002", 17, &err), HUDI_OK);
    assert_int_equal(hudi_log_meta_append(&h, HUDI_LOG_HEADER_SCHEMA, schema, schema_len, &err), HUDI_OK);
    assert_int_equal(hudi_log_block_encode(&block, HUDI_LOG_BLOCK_DELETE, &h, NULL, content.data, content.len, &err),
                     HUDI_OK);
    char id[64];
    snprintf(id, sizeof id, "bloom-filters-%04d-0", g);
    if (hudi_log_file_create(s, ".hoodie/metadata/bloom_filters", id, "00000000000000002", 1, "0-0-0", block.data,
                             block.len, NULL, NULL, &err) != HUDI_OK)
      fail_msg("%s", err.message);
    hudi_log_meta_free(&h);
    hudi_buf_free(&content);
    hudi_buf_free(&block);
  }
  hudi_storage_free(s);
}

/* The base files on storage: their relative paths. */
static size_t base_files(const char *base, char paths[][512], size_t cap) {
  hudi_storage *s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, base, NULL, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  size_t n = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *p = l.items[i].path;
    size_t len = strlen(p);
    if (len > 8 && !strcmp(p + len - 8, ".parquet") && strncmp(p, ".hoodie", 7) != 0) {
      assert_true(n < cap);
      snprintf(paths[n++], 512, "%s", p);
    }
  }
  hudi_file_list_free(&l);
  hudi_storage_free(s);
  return n;
}

static const hudi_avro_value *bf_field(const hudi_avro_value *rec, const char *name) {
  const hudi_avro_value *u = hudi_avro_value_field(rec, "BloomFilterMetadata");
  assert_non_null(u);
  assert_non_null(u->v.u.value);
  const hudi_avro_value *f = hudi_avro_value_field(u->v.u.value, name);
  assert_non_null(f);
  return f;
}

/* Every base file on storage has exactly one live record, equal to what
 * its footer holds, in the file group of its key; no other record lives. */
static void expect_records_match(hudi_table *t, const char *base) {
  static char paths[64][512];
  size_t n_files = base_files(base, paths, 64);
  assert_true(n_files > 0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_mdt *m = NULL;
  if (hudi_mdt_open(&m, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  size_t ng;
  const hudi_file_group *g = hudi_mdt_groups(m, "bloom_filters", &ng);
  /* Groups show once a completed instant wrote to them (the hand-made
   * initialisation has no deltacommit on the metadata timeline). */
  assert_true(ng >= 1 && ng <= 4);
  size_t live = 0, matched = 0;
  hudi_storage *s;
  assert_int_equal(hudi_storage_open(&s, base, NULL, 0, &err), HUDI_OK);
  for (size_t i = 0; i < ng; i++) {
    hudi_mdt_records r = {0};
    if (hudi_mdt_group_scan(m, &g[i], &r, NULL, &err) != HUDI_OK) fail_msg("%s", err.message);
    for (size_t j = 0; j < r.count; j++) {
      const hudi_mdt_record *rec = &r.items[j];
      assert_int_equal(rec->type, 4);
      assert_false(bf_field(rec->value, "isDeleted")->v.boolean);
      int32_t shard;
      assert_int_equal(hudi_mdt_shard_of(&shard, rec->key, rec->key_len, 4, &err), HUDI_OK);
      char want_id[64];
      snprintf(want_id, sizeof want_id, "bloom-filters-%04d-0", (int)shard);
      assert_string_equal(g[i].file_id, want_id);
      live++;
      for (size_t k = 0; k < n_files; k++) {
        char part[512];
        snprintf(part, sizeof part, "%s", paths[k]);
        char *slash = strrchr(part, '/');
        assert_non_null(slash);
        *slash = '\0';
        const char *name = slash + 1;
        hudi_buf key;
        hudi_buf_init(&key, 4096);
        assert_int_equal(hudi_cs_file_key(&key, part, name, &err), HUDI_OK);
        if (key.len == rec->key_len && !memcmp(key.data, rec->key, key.len)) {
          hudi_base_footer f;
          assert_true(hudi_base_footer_open(&f, s, paths[k]));
          const hudi_avro_value *bloom = bf_field(rec->value, "bloomFilter");
          assert_int_equal(bloom->v.bytes.len, f.bloom_len);
          assert_memory_equal(bloom->v.bytes.data, f.bloom, f.bloom_len);
          const hudi_avro_value *type = bf_field(rec->value, "type");
          assert_int_equal(type->v.bytes.len, f.bloom_type_len);
          assert_memory_equal(type->v.bytes.data, f.bloom_type, f.bloom_type_len);
          const char *instant = strrchr(name, '_') + 1;
          assert_memory_equal(bf_field(rec->value, "timestamp")->v.bytes.data, instant, 17);
          hudi_base_footer_close(&f);
          matched++;
        }
        hudi_buf_free(&key);
      }
    }
    hudi_mdt_records_free(&r);
  }
  hudi_storage_free(s);
  hudi_mdt_free(m);
  assert_int_equal(matched, n_files);
  assert_int_equal(live, n_files);
}

static void records_follow_base_files(void **state) {
  (void)state;
  char base[300];
  snprintf(base, sizeof base, "%s/t", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "v";
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("create: %s", err.message);
  hudi_table_free(t);
  add_bloom_partition(base);
  if (hudi_table_open(&t, base, NULL, 0, &err) != HUDI_OK) fail_msg("open: %s", err.message);

  const char *ids[] = {"k1", "k2", "k3"}, *cities[] = {"sf", "nyc", "sf"};
  struct ArrowArrayStream s;
  hudi_write_result r;
  make_stream(&s, ids, cities, 3, 1);
  if (hudi_table_append(&r, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("append: %s", err.message);
  expect_records_match(t, base);

  /* Copy-on-write upserts rewrite sf's file group; with one commit kept,
   * the cleans delete the old versions and their records. */
  hudi_option keep = {"hoodie.clean.commits.retained", "1"};
  for (int i = 0; i < 4; i++) {
    const char *up[] = {"k1", "k4"}, *where[] = {"sf", "la"};
    char k4[8];
    snprintf(k4, sizeof k4, "n%d", i);
    up[1] = k4;
    make_stream(&s, up, where, 2, 10 + i);
    if (hudi_table_upsert(&r, t, &s, &keep, 1, &err) != HUDI_OK) fail_msg("upsert %d: %s", i, err.message);
    expect_records_match(t, base);
  }
  /* The cleans ran (sf keeps two versions of its five) and the metadata
   * table compacted bloom_filters into base files meanwhile. */
  static char paths[64][512];
  size_t sf = 0, n = base_files(base, paths, 64);
  for (size_t i = 0; i < n; i++) sf += !strncmp(paths[i], "city=sf/", 8);
  assert_int_equal(sf, 2);
  hudi_storage *st;
  assert_int_equal(hudi_storage_open(&st, base, NULL, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(st, ".hoodie/metadata/bloom_filters", 0, &l, &err), HUDI_OK);
  size_t hfiles = 0;
  for (size_t i = 0; i < l.count; i++) hfiles += strstr(l.items[i].path, ".hfile") != NULL;
  assert_true(hfiles >= 1); /* one per group holding live records */
  hudi_file_list_free(&l);
  hudi_storage_free(st);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(records_follow_base_files),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
