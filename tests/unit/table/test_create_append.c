/* hudi_table_create and hudi_table_append: the files and properties they
 * write, the errors they refuse with (and that nothing is written then). */
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
#include "base/hash.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/bloom.h"
#include "table/keygen.h"
#include "table/write_rows.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-create-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t cap, const char *table) { snprintf(out, cap, "%s/%s", dir, table); }

static size_t count_files(const char *base, const char *sub, const char *suffix) {
  hudi_storage *s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, base, NULL, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, sub, HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  size_t n = 0;
  for (size_t i = 0; i < l.count; i++) {
    size_t len = strlen(l.items[i].path), sl = strlen(suffix);
    n += len >= sl && strcmp(l.items[i].path + len - sl, suffix) == 0;
  }
  hudi_file_list_free(&l);
  hudi_storage_free(s);
  return n;
}

/* A stream of one batch: id (string, nullable), city (string), v (int64). */
static void make_stream(struct ArrowArrayStream *out, const char *const *ids, const char *const *cities, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "city", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "v", "s", 0, &err), HUDI_OK); /* int16: widened */
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    hudi_arrow_builder *c0 = hudi_arrow_batch_builder_column(bb, 0), *c1 = hudi_arrow_batch_builder_column(bb, 1);
    assert_int_equal(ids[i] ? hudi_arrow_builder_append_str(c0, ids[i], &err) : hudi_arrow_builder_append_null(c0, &err),
                     HUDI_OK);
    assert_int_equal(cities[i] ? hudi_arrow_builder_append_str(c1, cities[i], &err)
                               : hudi_arrow_builder_append_null(c1, &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), i % 30000, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static hudi_table *create_ok(const char *name, hudi_table_type type, const char *parts, const char *ordering) {
  char p[300];
  path_of(p, sizeof p, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = parts;
  o.ordering_fields = ordering;
  o.record_index_enabled = false;
  hudi_option fs = {"fsync", "false"};
  o.options = &fs;
  o.n_options = 1;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create %s: %s", p, err.message);
  return t;
}

static void create_properties(void **state) {
  (void)state;
  hudi_table *t = create_ok("trips", HUDI_MERGE_ON_READ, "city", "ts");
  assert_string_equal(hudi_table_name(t), "trips");
  assert_int_equal(hudi_table_get_type(t), HUDI_MERGE_ON_READ);
  assert_int_equal(hudi_table_version(t), 8);
  assert_int_equal(hudi_table_timeline_layout(t), 2);
  assert_string_equal(hudi_table_property(t, "hoodie.table.keygenerator.type"), "SIMPLE");
  assert_string_equal(hudi_table_property(t, "hoodie.table.partition.fields"), "city");
  assert_string_equal(hudi_table_property(t, "hoodie.table.precombine.field"), "ts");
  assert_string_equal(hudi_table_property(t, "hoodie.record.merge.mode"), "EVENT_TIME_ORDERING");
  assert_string_equal(hudi_table_property(t, "hoodie.record.merge.strategy.id"),
                      "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5");
  assert_string_equal(hudi_table_property(t, "hoodie.datasource.write.hive_style_partitioning"), "true");
  assert_string_equal(hudi_table_property(t, "hoodie.table.timeline.timezone"), "UTC");
  assert_null(hudi_table_property(t, "hoodie.table.metadata.partitions"));
  char sum[16];
  snprintf(sum, sizeof sum, "%u", (unsigned)hudi_table_checksum("", "trips"));
  assert_string_equal(hudi_table_property(t, "hoodie.table.checksum"), sum);
  assert_int_equal(hudi_table_instant_count(t), 0);
  hudi_table_free(t);

  t = create_ok("plain", HUDI_COPY_ON_WRITE, NULL, NULL);
  assert_string_equal(hudi_table_property(t, "hoodie.table.keygenerator.type"), "NON_PARTITION");
  assert_string_equal(hudi_table_property(t, "hoodie.record.merge.mode"), "COMMIT_TIME_ORDERING");
  assert_null(hudi_table_property(t, "hoodie.table.partition.fields"));
  hudi_table_free(t);
}

static void create_errors(void **state) {
  (void)state;
  char p[300];
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = NULL;
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  path_of(p, sizeof p, "rli");
  /* The record index (on by default) lives in the metadata table. */
  hudi_option no_mdt = {"hoodie.metadata.enable", "false"};
  o.options = &no_mdt;
  o.n_options = 1;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "metadata table"));
  assert_int_equal(count_files(dir, "rli", "hoodie.properties"), 0);
  o.options = NULL;
  o.n_options = 0;
  o.record_index_enabled = false;
  o.record_key_fields = "";
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_INVALID_ARG);
  o.record_key_fields = "id";
  o.ordering_fields = "a,b";
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_UNSUPPORTED);
  o.ordering_fields = NULL;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_OK);
  hudi_table_free(t);
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_ERR_EXISTS);
  assert_null(t);
}

static void append_commit_protocol(void **state) {
  (void)state;
  hudi_table *t = create_ok("cow", HUDI_COPY_ON_WRITE, "city", NULL);
  const char *ids[] = {"k3", "k1", "k2", "k4"}, *cities[] = {"sf", "sf", "nyc", NULL};
  struct ArrowArrayStream s;
  make_stream(&s, ids, cities, 4);
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_append(&r, t, &s, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_string_equal(r.action, "commit");
  assert_string_equal(r.operation, "BULK_INSERT");
  assert_int_equal(r.num_inserts, 4);
  assert_int_equal(r.files_written, 3);
  assert_int_equal(r.partitions_written, 3);
  assert_true(strcmp(r.completion_time, r.requested_time) > 0);
  assert_int_equal(hudi_table_instant_count(t), 1);
  hudi_instant_info in;
  assert_int_equal(hudi_table_instant_at(t, 0, &in, &err), HUDI_OK);
  assert_int_equal(in.state, HUDI_STATE_COMPLETED);
  assert_string_equal(in.requested_time, r.requested_time);
  assert_string_equal(in.completion_time, r.completion_time);
  char base[300];
  path_of(base, sizeof base, "cow");
  assert_int_equal(count_files(base, ".hoodie/timeline", ".commit.requested"), 1);
  assert_int_equal(count_files(base, ".hoodie/timeline", ".inflight"), 1);
  assert_int_equal(count_files(base, "", ".parquet"), 3);
  assert_int_equal(count_files(base, "", ".hoodie_partition_metadata"), 3);
  assert_int_equal(count_files(base, "city=__HIVE_DEFAULT_PARTITION__", ".parquet"), 1);
  assert_int_equal(count_files(base, "city=sf", ".parquet"), 1);
  assert_int_equal(count_files(base, ".hoodie/.temp", ".marker.CREATE"), 0); /* deleted after the commit */

  /* A null key: an error naming the column; nothing new on disk. */
  const char *bad_ids[] = {"k5", NULL};
  make_stream(&s, bad_ids, cities, 2);
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'id' is null"));
  assert_int_equal(count_files(base, ".hoodie/timeline", ".commit.requested"), 1);
  assert_int_equal(count_files(base, "", ".parquet"), 3);
  /* A batch large enough that its keys are read on several threads, null
   * keys in two of their shares: the first row is named, though the later
   * share reaches its bad row sooner. */
  enum { BIG = 100000 };
  static char big_keys[BIG][12];
  static const char *big_ids[BIG], *big_cities[BIG];
  for (int i = 0; i < BIG; i++) {
    snprintf(big_keys[i], sizeof big_keys[i], "b%06d", i);
    big_ids[i] = big_keys[i];
    big_cities[i] = "sf";
  }
  big_ids[30000] = big_ids[BIG / 2 + 5] = NULL;
  for (int run = 0; run < 3; run++) {
    make_stream(&s, big_ids, big_cities, BIG);
    assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
    assert_non_null(strstr(err.message, "'id' is null in row 30000"));
  }
  assert_int_equal(count_files(base, ".hoodie/timeline", ".commit.requested"), 1);

  /* A second commit, MOR-style names on a MOR table. */
  hudi_table *m = create_ok("mor", HUDI_MERGE_ON_READ, NULL, "v");
  make_stream(&s, ids, cities, 4);
  assert_int_equal(hudi_table_append(&r, m, &s, NULL, 0, &err), HUDI_OK);
  make_stream(&s, ids, cities, 2);
  hudi_option small = {"hoodie.parquet.compression.codec", "zstd"};
  assert_int_equal(hudi_table_append(&r, m, &s, &small, 1, &err), HUDI_OK);
  assert_string_equal(r.action, "deltacommit");
  path_of(base, sizeof base, "mor");
  assert_int_equal(count_files(base, ".hoodie/timeline", ".deltacommit"), 2);
  assert_int_equal(count_files(base, ".hoodie/timeline", ".deltacommit.requested"), 2);
  assert_int_equal(count_files(base, "", ".parquet"), 2);
  hudi_option bad = {"hoodie.parquet.compression.codec", "brotli"};
  make_stream(&s, ids, cities, 2);
  assert_int_equal(hudi_table_append(&r, m, &s, &bad, 1, &err), HUDI_ERR_UNSUPPORTED);
  hudi_table_free(m);
  hudi_table_free(t);
}

static void java_string_order(void **state) {
  (void)state;
  /* U+1F600 sorts after U+FF61 in UTF-8 byte order, but before it in
   * Java's UTF-16 order (its lead surrogate 0xD83D < 0xFF61). */
  const char *emoji = "\xf0\x9f\x98\x80", *half = "\xef\xbd\xa1";
  assert_true(hudi_java_string_cmp(emoji, 4, half, 3) < 0);
  assert_true(memcmp(emoji, half, 3) > 0);
  assert_true(hudi_java_string_cmp("a", 1, "ab", 2) < 0);
  assert_int_equal(hudi_java_string_cmp("ab", 2, "ab", 2), 0);
  /* An ASCII prefix, then the difference (the fast path's cases). */
  assert_true(hudi_java_string_cmp("abc\xf0\x9f\x98\x80", 7, "abc\xef\xbd\xa1", 6) < 0);
  assert_true(hudi_java_string_cmp("abcd", 4, "abc\xc3\xa9", 5) < 0);
  assert_true(hudi_java_string_cmp("abc\xc3\xa9", 5, "abcd", 4) > 0);
  assert_true(hudi_java_string_cmp("abc", 3, "abc\xf0\x9f\x98\x80", 7) < 0);
  assert_true(hudi_java_string_cmp("ab\xc3\xa9x", 5, "ab\xc3\xa9y", 5) < 0);
  assert_true(hudi_java_string_cmp("", 0, "", 0) == 0);
}

/* UTF-16 code units of valid UTF-8, decoded independently of the code
 * under test. */
static size_t utf16_units(const uint8_t *s, size_t len, uint16_t *out) {
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    if (s[i] < 0x80) cp = s[i], i += 1;
    else if (s[i] < 0xe0) cp = (uint32_t)(s[i] & 0x1f) << 6 | (s[i + 1] & 0x3f), i += 2;
    else if (s[i] < 0xf0) cp = (uint32_t)(s[i] & 0x0f) << 12 | (uint32_t)(s[i + 1] & 0x3f) << 6 | (s[i + 2] & 0x3f), i += 3;
    else
      cp = (uint32_t)(s[i] & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3f) << 12 | (uint32_t)(s[i + 2] & 0x3f) << 6 |
           (s[i + 3] & 0x3f),
      i += 4;
    if (cp >= 0x10000) {
      out[n++] = (uint16_t)(0xd800 | ((cp - 0x10000) >> 10));
      out[n++] = (uint16_t)(0xdc00 | ((cp - 0x10000) & 0x3ff));
    } else {
      out[n++] = (uint16_t)cp;
    }
  }
  return n;
}

/* Random strings from ASCII, 2-, 3- (U+FF61) and 4-byte (U+1F600)
 * characters, pairs sharing random prefixes: the sign of
 * hudi_java_string_cmp equals the UTF-16 comparison's. */
static void java_string_order_random(void **state) {
  (void)state;
  /* ASCII first; é and è, U+1F600 and U+1F601 share lead bytes (a
   * difference inside a character) */
  static const char *alphabet[] = {"a", "b", "z", "0", "\xc3\xa9", "\xef\xbd\xa1", "\xee\x80\x80", "\xf0\x9f\x98\x80",
                                   "\xc3\xa8", "\xf0\x9f\x98\x81"};
  uint32_t seed = 12345;
  for (int t = 0; t < 20000; t++) {
    uint8_t a[128], b[128];
    size_t al = 0, bl = 0;
    /* common prefixes of up to 23 characters (the 8-byte steps), every
     * other pair's of ASCII alone (the fast path past them) */
    int common = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 24;
    int na = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4, nb = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 4;
    for (int k = 0; k < common + na + nb; k++) {
      const char *c = alphabet[((seed = seed * 1103515245u + 12345u) >> 16) % (k < common && (t & 1) ? 4 : 10)];
      size_t cl = strlen(c);
      if (k < common || k < common + na) {
        memcpy(a + al, c, cl);
        al += cl;
      }
      if (k < common) {
        memcpy(b + bl, c, cl);
        bl += cl;
      } else if (k >= common + na) {
        memcpy(b + bl, c, cl);
        bl += cl;
      }
    }
    uint16_t ua[128], ub[128];
    size_t na16 = utf16_units(a, al, ua), nb16 = utf16_units(b, bl, ub), m = na16 < nb16 ? na16 : nb16;
    int want = 0;
    for (size_t k = 0; k < m && !want; k++) want = ua[k] < ub[k] ? -1 : ua[k] > ub[k];
    if (!want) want = (na16 > m) - (nb16 > m);
    int got = hudi_java_string_cmp((const char *)a, al, (const char *)b, bl);
    got = (got > 0) - (got < 0);
    if (got != want) fail_msg("pair %d: got %d, want %d", t, got, want);
  }
}

static void bloom_basics(void **state) {
  (void)state;
  hudi_bloom b;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_bloom_init(&b, 60000, 1e-9, 100000, &err), HUDI_OK);
  assert_int_equal(b.vector_size, 2587966); /* hudi-format-core.md §4 */
  assert_int_equal(b.nb_hash, 30);
  for (int i = 0; i < 1000; i++) {
    char k[16];
    snprintf(k, sizeof k, "key%d", i);
    assert_int_equal(hudi_bloom_add(&b, k, strlen(k), &err), HUDI_OK);
  }
  assert_true(hudi_bloom_might_contain(&b, "key7", 4));
  int fp = 0;
  for (int i = 0; i < 1000; i++) {
    char k[16];
    snprintf(k, sizeof k, "other%d", i);
    fp += hudi_bloom_might_contain(&b, k, strlen(k));
  }
  assert_int_equal(fp, 0);
  hudi_buf out;
  hudi_buf_init(&out, HUDI_BUF_DEFAULT_MAX);
  assert_int_equal(hudi_bloom_serialize(&b, &out, &err), HUDI_OK);
  /* -1, 30, 1, 2587966 (0x277D3E), nr 60000 (0xEA60), 1000 (0x3E8), rows 1. */
  assert_memory_equal(out.data, "/////wAAAB4BACd9PgAA6mAAAAPoAAAAAf////8AAAAeAQAnfT4", 51);
  hudi_buf_free(&out);
  hudi_bloom_free(&b);
}

/* hoodie.datasource.insert.dup.policy through the C API, with the record
 * index and with bloom filters: fail names the key and writes nothing,
 * drop writes only the new keys (test_write_insert_dup.py has the rest). */
static void append_dup_policy(void **state) {
  (void)state;
  for (int rli = 0; rli < 2; rli++) {
    char name[16], base[300];
    snprintf(name, sizeof name, "dup%d", rli);
    path_of(base, sizeof base, name);
    hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
    o.record_key_fields = "id";
    o.partition_fields = "city";
    o.record_index_enabled = rli;
    hudi_table *t = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_table_create(&t, base, &o, &err) != HUDI_OK) fail_msg("create: %s", err.message);
    const char *ids[] = {"k1", "k2", "k3"}, *cities[] = {"sf", "nyc", "sf"};
    struct ArrowArrayStream s;
    hudi_write_result r;
    make_stream(&s, ids, cities, 3);
    assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);

    const char *again[] = {"k4", "k2", "k5", "k3"}, *where[] = {"la", "sf", "la", "la"};
    hudi_option fail = {"hoodie.datasource.insert.dup.policy", "fail"};
    make_stream(&s, again, where, 4);
    assert_int_equal(hudi_table_append(&r, t, &s, &fail, 1, &err), HUDI_ERR_INVALID_ARG);
    assert_non_null(strstr(err.message, "record key 'k3' is already in table"));
    assert_non_null(strstr(err.message, "partition 'city=sf'"));
    hudi_error_clear(&err);
    assert_int_equal(count_files(base, "", ".parquet"), 2);
    assert_int_equal(hudi_table_instant_count(t), 1);

    hudi_option drop = {"hoodie.datasource.insert.dup.policy", "drop"};
    make_stream(&s, again, where, 4);
    if (hudi_table_append(&r, t, &s, &drop, 1, &err) != HUDI_OK) fail_msg("%s", err.message);
    assert_int_equal(r.num_inserts, 2);
    assert_int_equal(r.files_written, 1);
    assert_int_equal(count_files(base, "city=la", ".parquet"), 1);
    assert_int_equal(count_files(base, "city=sf", ".parquet"), 1);
    assert_int_equal(hudi_table_instant_count(t), 2);
    hudi_table_free(t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_properties), cmocka_unit_test(create_errors),
      cmocka_unit_test(append_commit_protocol), cmocka_unit_test(java_string_order),
      cmocka_unit_test(java_string_order_random),
      cmocka_unit_test(bloom_basics), cmocka_unit_test(append_dup_policy),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
