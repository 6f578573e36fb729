/* Metadata compaction copying the unchanged blocks of a base HFile
 * (HUDI_MDT_COMPACT_COPY_BLOCKS_OPTION, mdt_compact.h). A MOR table of
 * 130,000 keys (13,000 a record-index shard, over the 10,000 its bloom
 * filter's rows are sized for) gets its record-index base files one of two
 * ways: from the bulk load itself (HUDI_MDT_RLI_BASE_FILES_OPTION, the
 * default: a shard's first keys go to a base HFile), or, with the option
 * false, from a first compaction of the bulk load's log blocks. Then a few
 * commits change it and it is copied twice: one copy compacts copying the
 * unchanged blocks, the other rebuilding every block. Oracles: the rebuilt
 * files (the same keys, and the same payloads but for _hoodie_file_name,
 * which copied records keep from the older base file), the model of live
 * keys (every lookup through the record index), and the bloom filter of the
 * copying files, which must hold every key they store; the bulk load's
 * base files hold exactly the model's keys. */
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
#include "base/buf.h"
#include "hfile/hfile.h"
#include "hudi/hudi.h"
#include "table/bloom.h"
#include "table/index.h"
#include "table/mdt_compact.h"
#include "table/mdt_reader.h"
#include "table/mdt_shard.h"
#include "table/mdt_record_index.h"
#include "table/mdt_write.h"
#include "table/table.h"
#include "mdt_test_util.h"

#define N_KEYS 130000
#define N_ALL (2 * (N_KEYS + 1000)) /* keys of both tables */

static char dir[256];
static char *keys[N_ALL];
static bool live[N_ALL];
static int n_keys;
static int first_key; /* keys[first_key, n_keys) are the current table's */

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-mdt-copy-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  for (int i = 0; i < n_keys; i++) free(keys[i]);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const hudi_option NO_AUTO[] = {{"hoodie.metadata.compact.max.delta.commits", "1000"}, {"fsync", "false"}};

/* A stream of rows (id, v) for keys[idx[0..n)]. */
static void rows(struct ArrowArrayStream *out, const int *idx, int n, int64_t v) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "v", "l", 0, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), keys[idx[i]], &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), v, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static int named_key(const char *k) {
  keys[n_keys] = strdup(k);
  live[n_keys] = true;
  return n_keys++;
}

static int new_key(void) {
  char k[32];
  /* Spread over the key space, so new keys fall between stored ones. */
  snprintf(k, sizeof k, "k%08u", (unsigned)((uint64_t)n_keys * 2654435761u % 1000000007u));
  keys[n_keys] = strdup(k);
  live[n_keys] = true;
  return n_keys++;
}

static int32_t shard_of(const char *k) {
  int32_t s;
  assert_int_equal(hudi_mdt_shard_of(&s, k, strlen(k), 10, NULL), HUDI_OK);
  return s;
}

/* Shards 0-4 have their edges changed; 5-9 keep their first and last
 * blocks, which are then copied (minRecordKey and hfile.LASTKEY from a
 * copied block). */
#define EDGE_SHARDS 5

/* The smallest and largest live key of each of the first EDGE_SHARDS
 * shards, appended to del and marked deleted. */
static void edge_keys(const char **del, int *nd) {
  int lo[10], hi[10];
  for (int s = 0; s < 10; s++) lo[s] = hi[s] = -1;
  for (int i = first_key; i < n_keys; i++) {
    if (!live[i]) continue;
    int32_t s = shard_of(keys[i]);
    if (lo[s] < 0 || strcmp(keys[i], keys[lo[s]]) < 0) lo[s] = i;
    if (hi[s] < 0 || strcmp(keys[i], keys[hi[s]]) > 0) hi[s] = i;
  }
  for (int s = 0; s < EDGE_SHARDS; s++)
    for (int e = 0; e < 2; e++) {
      int i = e ? hi[s] : lo[s];
      del[(*nd)++] = keys[i];
      live[i] = false;
    }
}

static void upsert(hudi_table *t, const int *idx, int n, int64_t v) {
  struct ArrowArrayStream s;
  rows(&s, idx, n, v);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_upsert(&r, t, &s, NO_AUTO, 2, &err) != HUDI_OK) fail_msg("upsert: %s", err.message);
}

static hudi_mdt_compact_result compact(const char *path, bool rebuild) {
  hudi_table *t;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
  co.force = true;
  co.rebuild_blocks = rebuild;
  hudi_mdt_compact_result res;
  if (hudi_mdt_compact(t, &co, &res, &err) != HUDI_OK) fail_msg("compact: %s", err.message);
  assert_true(res.instant[0]);
  hudi_table_free(t);
  return res;
}

typedef struct kvs {
  hudi_buf keys, tails; /* (u32 length, bytes) records */
  size_t n;
  bool bloom_ok;
  hudi_bloom bloom;
  hudi_buf first, last; /* the current shard's first and last keys */
  size_t blocks;         /* data blocks of the files read */
} kvs;

static hudi_buf *put(hudi_buf *b, const uint8_t *p, size_t n) {
  uint8_t len[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
  assert_int_equal(hudi_buf_append(b, len, 4, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(b, p, n, NULL), HUDI_OK);
  return b;
}

static int on_kv(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  kvs *k = ctx;
  size_t meta_end = 0;
  assert_true(hudi_mdt_payload_meta_end(value, value_len, &meta_end));
  put(&k->keys, key, key_len);
  put(&k->tails, value + meta_end, value_len - meta_end);
  if (k->bloom_ok && !hudi_bloom_might_contain(&k->bloom, key, key_len))
    fail_msg("the bloom filter misses key %.*s", (int)key_len, (const char *)key);
  if (k->first.len == 0) assert_int_equal(hudi_buf_append(&k->first, key, key_len, NULL), HUDI_OK);
  k->last.len = 0;
  assert_int_equal(hudi_buf_append(&k->last, key, key_len, NULL), HUDI_OK);
  k->n++;
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static uint32_t hudi_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* (u32 length, bytes) records, compared as unsigned bytes. */
static int cmp_record(const void *a, const void *b) {
  const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;
  uint32_t xl = hudi_le32(x), yl = hudi_le32(y);
  int c = memcmp(x + 4, y + 4, xl < yl ? xl : yl);
  return c ? c : (xl > yl) - (xl < yl);
}

/* File info `name` of r equals want (a row key). */
static void info_is(hudi_hfile_reader *r, const char *name, const hudi_buf *want, bool key_value) {
  const uint8_t *v;
  size_t n;
  if (!hudi_hfile_reader_file_info(r, name, &v, &n)) fail_msg("no %s", name);
  if (key_value) { /* hfile.LASTKEY: i16 row length, row, then the rest of the cell key */
    assert_true(n >= 2);
    n = (size_t)v[0] << 8 | v[1];
    v += 2;
  }
  if (n != want->len || memcmp(v, want->data, n) != 0)
    fail_msg("%s is '%.*s', the scan's key '%.*s'", name, (int)n, (const char *)v, (int)want->len,
             (const char *)want->data);
}

static bool take_all(void *ctx, const uint8_t *first, size_t first_len, const uint8_t *next, size_t next_len) {
  (void)ctx, (void)first, (void)first_len, (void)next, (void)next_len;
  return true;
}

static hudi_status count_block(void *ctx, const uint8_t *block, size_t len, const uint8_t *first, size_t first_len,
                               const uint8_t *last, size_t last_len, hudi_error *err) {
  (void)block, (void)len, (void)first, (void)first_len, (void)last, (void)last_len, (void)err;
  (*(size_t *)ctx)++;
  return HUDI_OK;
}

/* Every key-value of the record-index base files written by `instant`,
 * shard after shard, with their bloom filters checked. */
static void read_shards(const char *path, const char *instant, kvs *out) {
  memset(out, 0, sizeof *out);
  hudi_buf_init(&out->keys, (size_t)1 << 30);
  hudi_buf_init(&out->tails, (size_t)1 << 30);
  hudi_buf_init(&out->first, 4096);
  hudi_buf_init(&out->last, 4096);
  for (int shard = 0; shard < 10; shard++) {
    char p[600];
    snprintf(p, sizeof p, "%s/.hoodie/metadata/record_index/record-index-%04d-0_%s_%s.hfile", path, shard,
             HUDI_MDT_WRITE_TOKEN, instant);
    size_t len;
    unsigned char *bytes = mdt_read_file(p, &len);
    if (!bytes) fail_msg("no %s", p);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_hfile_reader *r;
    assert_int_equal(hudi_hfile_reader_open_buffer(&r, bytes, len, p, &err), HUDI_OK);
    hudi_buf text;
    hudi_buf_init(&text, 1 << 26);
    bool found = false;
    assert_int_equal(hudi_hfile_reader_meta_block(r, "bloomFilter", &text, &found, &err), HUDI_OK);
    assert_true(found);
    assert_int_equal(hudi_bloom_deserialize(&out->bloom, (const char *)text.data, text.len, true, &err), HUDI_OK);
    out->bloom_ok = true;
    out->first.len = 0;
    assert_int_equal(hudi_hfile_reader_scan(r, on_kv, out, &err), HUDI_OK);
    hudi_hfile_block_visitor count = {take_all, count_block, NULL};
    assert_int_equal(hudi_hfile_reader_scan_blocks(r, &count, &out->blocks, NULL, &err), HUDI_OK);
    info_is(r, "minRecordKey", &out->first, false);
    info_is(r, "maxRecordKey", &out->last, false);
    info_is(r, "hfile.LASTKEY", &out->last, true);
    hudi_bloom_free(&out->bloom);
    out->bloom_ok = false;
    hudi_buf_free(&text);
    hudi_hfile_reader_free(r);
    free(bytes);
  }
}

static void kvs_free(kvs *k) {
  hudi_buf_free(&k->keys);
  hudi_buf_free(&k->tails);
  hudi_buf_free(&k->first);
  hudi_buf_free(&k->last);
}

/* Every model key is found through the record index exactly when live. */
static void lookups_match(const char *path) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  if (hudi_table_open(&t, path, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_mdt *mdt;
  if (hudi_mdt_open(&mdt, t, &err) != HUDI_OK) fail_msg("%s", err.message);
  hudi_rli_location *locs;
  size_t n = (size_t)(n_keys - first_key);
  if (hudi_mdt_record_index_lookup(mdt, (const char *const *)keys + first_key, NULL, n, &locs, NULL, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  for (size_t i = 0; i < n; i++)
    if (locs[i].found != live[first_key + i])
      fail_msg("key %s: found=%d, live=%d", keys[first_key + i], locs[i].found, live[first_key + i]);
  hudi_rli_locations_free(locs, n);
  hudi_mdt_free(mdt);
  hudi_table_free(t);
}

/* The current table's live keys, sorted (what its record index holds). */
static hudi_buf live_keys(void) {
  int n = 0;
  char **k = malloc(sizeof *k * (size_t)(n_keys - first_key));
  for (int i = first_key; i < n_keys; i++)
    if (live[i]) k[n++] = keys[i];
  qsort(k, (size_t)n, sizeof *k, cmp_str);
  hudi_buf b;
  hudi_buf_init(&b, (size_t)1 << 30);
  for (int i = 0; i < n; i++) put(&b, (const uint8_t *)k[i], strlen(k[i]));
  free(k);
  return b;
}

/* Keys of shards read one after the other (read_shards), re-sorted as one
 * list of (u32 length, key) records. */
static hudi_buf sorted_records(const hudi_buf *recs) {
  size_t n = 0;
  for (size_t off = 0; off < recs->len; n++) off += 4 + hudi_le32(recs->data + off);
  const uint8_t **at = malloc(sizeof *at * (n ? n : 1));
  n = 0;
  for (size_t off = 0; off < recs->len; off += 4 + hudi_le32(recs->data + off)) at[n++] = recs->data + off;
  qsort(at, n, sizeof *at, cmp_record);
  hudi_buf b;
  hudi_buf_init(&b, (size_t)1 << 30);
  for (size_t i = 0; i < n; i++) put(&b, at[i] + 4, hudi_le32(at[i]));
  free(at);
  return b;
}

/* One table at dir/name, its first keys appended; with base_first (the
 * default) the append writes each shard's base file, else its log and a
 * first compaction the base file. Then three commits of changes, and the
 * copying and the rebuilding compaction compared. */
static void run(const char *name, bool base_first) {
  char a[300], b[300], cmd[700];
  snprintf(a, sizeof a, "%s/%s", dir, name);
  snprintf(b, sizeof b, "%s/%s-rebuild", dir, name);
  first_key = n_keys;
  const hudi_option table_opts[] = {NO_AUTO[0], NO_AUTO[1],
                                    {HUDI_MDT_RLI_BASE_FILES_OPTION, base_first ? "true" : "false"}};
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  o.options = table_opts;
  o.n_options = 3;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, a, &o, &err) != HUDI_OK) fail_msg("create: %s", err.message);
  int *idx = malloc(sizeof *idx * N_KEYS);
  for (int i = 0; i < N_KEYS; i++) idx[i] = new_key();
  struct ArrowArrayStream s;
  rows(&s, idx, N_KEYS, 0);
  hudi_write_result r;
  if (hudi_table_append(&r, t, &s, NO_AUTO, 2, &err) != HUDI_OK) fail_msg("append: %s", err.message);
  char base_instant[HUDI_WRITE_TIME_MAX];
  if (base_first) {
    snprintf(base_instant, sizeof base_instant, "%s", r.requested_time);
  } else {
    /* The first compaction reads the bulk load's log blocks: nothing to copy. */
    hudi_mdt_compact_result first = compact(a, false);
    assert_int_equal(first.blocks_copied, 0);
    snprintf(base_instant, sizeof base_instant, "%s", first.instant);
  }
  /* The base files (the bulk load's: exactly the keys appended), each key
   * in its file's bloom filter, min/max keys and LASTKEY as their scans
   * say. */
  kvs base;
  read_shards(a, base_instant, &base);
  assert_int_equal(base.n, N_KEYS);
  hudi_buf want = live_keys(), got = sorted_records(&base.keys);
  assert_int_equal(got.len, want.len);
  assert_memory_equal(got.data, want.data, want.len);
  hudi_buf_free(&want);
  hudi_buf_free(&got);
  size_t base_blocks = base.blocks;
  kvs_free(&base);
  lookups_match(a);
  /* Three commits: new keys between stored ones, updates, deletes; the
   * first also keys before and after all stored ones (in front of a
   * shard's first block, behind its last) and deletes the smallest and
   * largest key, in shards 0 to EDGE_SHARDS - 1. */
  for (int c = 0; c < 3; c++) {
    const char *del[120];
    int nd = 0;
    if (c == 0) edge_keys(del, &nd);
    int n = 0;
    for (int i = 0; i < 300; i++) idx[n++] = new_key();
    for (int i = 0; c == 0 && i < 60; i++) {
      char k[16];
      snprintf(k, sizeof k, "%c%c%04d", base_first ? 'b' : 'l', i % 2 ? 'a' : 'z', i);
      if (shard_of(k) < EDGE_SHARDS) idx[n++] = named_key(k);
    }
    for (int i = first_key + c; i < first_key + N_KEYS && n < 800; i += 260) idx[n++] = i; /* updates */
    upsert(t, idx, n, c + 1);
    for (int i = first_key + c * 7 + 3; i < first_key + N_KEYS && nd < 100; i += 1290)
      if (live[i]) {
        del[nd++] = keys[i];
        live[i] = false;
      }
    if (hudi_table_delete_keys(&r, t, del, (size_t)nd, NO_AUTO, 2, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(r.num_deletes, nd);
  }
  hudi_table_free(t);
  snprintf(cmd, sizeof cmd, "cp -a '%s' '%s'", a, b);
  assert_int_equal(system(cmd), 0);
  hudi_mdt_compact_result copied = compact(a, false), rebuilt = compact(b, true);
  assert_int_equal(rebuilt.blocks_copied, 0);
  print_message("%s: %llu of %zu blocks copied\n", name, (unsigned long long)copied.blocks_copied, base_blocks);
  /* 1,200 index changes over ~3,700 blocks (~1,900 from the bulk load,
   * whose values name no file: twice the records a block): most blocks
   * are copied. */
  assert_true(copied.blocks_copied > base_blocks / 2);
  assert_int_equal(copied.records, rebuilt.records);
  kvs x, y;
  read_shards(a, copied.instant, &x);
  read_shards(b, rebuilt.instant, &y);
  int n_live = 0;
  for (int i = first_key; i < n_keys; i++) n_live += live[i];
  assert_int_equal(x.n, (size_t)n_live);
  assert_int_equal(y.n, (size_t)n_live);
  assert_int_equal(x.keys.len, y.keys.len);
  assert_memory_equal(x.keys.data, y.keys.data, x.keys.len);
  assert_int_equal(x.tails.len, y.tails.len);
  assert_memory_equal(x.tails.data, y.tails.data, x.tails.len);
  kvs_free(&x);
  kvs_free(&y);
  lookups_match(a);
  lookups_match(b);
  free(idx);
}

/* Base files from a first compaction of the bulk load's log blocks. */
static void copies_what_no_change_touches(void **state) {
  (void)state;
  run("logs", false);
}

/* Base files from the bulk load itself: the first compaction copies. */
static void first_compaction_copies_bulk_load_base(void **state) {
  (void)state;
  run("base", true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_what_no_change_touches),
      cmocka_unit_test(first_compaction_copies_bulk_load_base),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
