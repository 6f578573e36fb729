/* The HFile reader against files written by others: HBase 2.4 HFiles from
 * hudi-rs's test data (keys hudi-key-NNNNNNNNN, values hudi-value-NNNNNNNNN)
 * and the metadata-table HFiles inside the v8/v9 table zips. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "hfile/hfile.h"
#include "hfile/hfile_test_util.h"

#define HFILE_DIR HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/hfile/"
#define TABLE_DIR HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/test/data/"

static const char *LARGE_PREFIX =
    "hudi-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-";

/* A file-backed range reader, so tests see what only-needed-blocks costs. */
typedef struct file_src {
  int fd;
  uint64_t reads;
} file_src;

static int file_read(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  file_src *f = ctx;
  f->reads++;
  return pread(f->fd, dst, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

static hudi_hfile_reader *open_path(const char *name, file_src *fs) {
  char path[512];
  snprintf(path, sizeof path, HFILE_DIR "%s", name);
  fs->fd = open(path, O_RDONLY);
  assert_true(fs->fd >= 0);
  fs->reads = 0;
  hudi_hfile_source src = {file_read, fs, (uint64_t)lseek(fs->fd, 0, SEEK_END), name};
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_hfile_reader_open(&r, &src, &err);
  if (st != HUDI_OK) print_error("%s\n", err.message);
  assert_int_equal(st, HUDI_OK);
  return r;
}

static void close_path(hudi_hfile_reader *r, file_src *fs) {
  hudi_hfile_reader_free(r);
  close(fs->fd);
}

typedef void (*key_fmt)(char *out, size_t cap, size_t i);
static void fmt_plain(char *o, size_t c, size_t i) { snprintf(o, c, "hudi-key-%09zu", i); }
static void fmt_fake(char *o, size_t c, size_t i) { snprintf(o, c, "hudi-key-%09zu-abcdefghij", i); }
static void fmt_large(char *o, size_t c, size_t i) { snprintf(o, c, "%s%09zu", LARGE_PREFIX, i); }

/* Full scan returns exactly keys 0..n-1 with their values; a batch lookup
 * of every key interleaved with absent keys (before, between, after)
 * finds exactly the present ones, reading each data block once. */
static void check_unique_file(const char *name, size_t n, key_fmt fmt) {
  file_src fs;
  hudi_hfile_reader *r = open_path(name, &fs);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_entry_count(r), n);

  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, n);
  char want[256], wantv[64];
  for (size_t i = 0; i < n; i++) {
    fmt(want, sizeof want, i);
    snprintf(wantv, sizeof wantv, "hudi-value-%09zu", i);
    assert_string_equal(all.keys[i], want);
    assert_string_equal(all.vals[i], wantv);
  }
  tu_kvs_free(&all);

  /* keys: "a" < "hudi-key-" < k0 < k0+"0" < k1 < ... < k(n-1)+"0" < "zzz" */
  size_t nk = 2 * n + 3;
  hudi_hfile_key *keys = calloc(nk, sizeof *keys);
  char **store = calloc(nk, sizeof *store);
  size_t m = 0;
  store[m++] = strdup("a");
  store[m++] = strdup("hudi-key-");
  for (size_t i = 0; i < n; i++) {
    fmt(want, sizeof want, i);
    store[m++] = strdup(want);
    strcat(want, "0");
    store[m++] = strdup(want);
  }
  store[m++] = strdup("zzz");
  for (size_t i = 0; i < m; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)store[i], strlen(store[i])};
  hudi_hfile_stats before, after;
  hudi_hfile_reader_stats(r, &before);
  tu_found f;
  tu_found_init(&f, m);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, m, tu_on_found, &f, &err), HUDI_OK);
  hudi_hfile_reader_stats(r, &after);
  assert_int_equal(f.hits, n);
  assert_null(f.vals[0]);
  assert_null(f.vals[1]);
  assert_null(f.vals[m - 1]);
  for (size_t i = 0; i < n; i++) {
    snprintf(wantv, sizeof wantv, "hudi-value-%09zu", i);
    assert_non_null(f.vals[2 + 2 * i]);
    assert_string_equal(f.vals[2 + 2 * i], wantv);
    assert_null(f.vals[3 + 2 * i]);
  }
  /* Every data block exactly once; after the scan above the index is
   * flattened, so this equals the number of data blocks. */
  uint64_t blocks = after.data_blocks_read - before.data_blocks_read;
  const hudi_hfile_trailer *t = hudi_hfile_reader_trailer(r);
  if (t->num_data_index_levels == 1) assert_int_equal(blocks, t->data_index_count);
  assert_true(blocks >= 1);
  hudi_hfile_stats s0;
  hudi_hfile_reader_stats(r, &s0);
  tu_found_free(&f);

  /* Three far-apart keys cost at most three data blocks. */
  size_t picks[3] = {0, n / 2, n - 1};
  hudi_hfile_key three[3];
  for (int i = 0; i < 3; i++) {
    three[i] = keys[2 + 2 * picks[i]];
  }
  tu_found f3;
  tu_found_init(&f3, 3);
  assert_int_equal(hudi_hfile_reader_lookup(r, three, 3, tu_on_found, &f3, &err), HUDI_OK);
  hudi_hfile_stats s1;
  hudi_hfile_reader_stats(r, &s1);
  assert_int_equal(f3.hits, 3);
  assert_true(s1.data_blocks_read - s0.data_blocks_read <= 3);
  assert_true(blocks >= s1.data_blocks_read - s0.data_blocks_read);
  tu_found_free(&f3);

  /* Prefix scan: keys 100..109 share the prefix of key 100 minus its last digit. */
  if (n > 200) {
    fmt(want, sizeof want, 100);
    strstr(want, "000000100")[8] = 0; /* ...00000010: keys 100..109 */
    tu_kvs pre = {0};
    assert_int_equal(hudi_hfile_reader_scan_prefix(r, (const uint8_t *)want, strlen(want), tu_collect, &pre, &err),
                     HUDI_OK);
    assert_int_equal(pre.n, 10);
    for (size_t i = 0; i < 10; i++) {
      char k[256];
      fmt(k, sizeof k, 100 + i);
      assert_string_equal(pre.keys[i], k);
    }
    tu_kvs_free(&pre);
    tu_kvs none = {0};
    assert_int_equal(hudi_hfile_reader_scan_prefix(r, (const uint8_t *)"hudi-kez", 8, tu_collect, &none, &err),
                     HUDI_OK);
    assert_int_equal(none.n, 0);
  }
  for (size_t i = 0; i < m; i++) free(store[i]);
  free(store);
  free(keys);
  close_path(r, &fs);
}

static void test_gz_16k(void **s) { (void)s; check_unique_file("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile", 20000, fmt_plain); }
static void test_none_16k(void **s) { (void)s; check_unique_file("hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile", 5000, fmt_plain); }
static void test_none_64k(void **s) { (void)s; check_unique_file("hudi_1_0_hbase_2_4_9_64KB_NONE_5000.hfile", 5000, fmt_plain); }
static void test_gz_512k(void **s) { (void)s; check_unique_file("hudi_1_0_hbase_2_4_9_512KB_GZ_20000.hfile", 20000, fmt_plain); }
static void test_fake_first_key(void **s) {
  (void)s;
  check_unique_file("hudi_1_0_hbase_2_4_13_16KB_GZ_20000_fake_first_key.hfile", 20000, fmt_fake);
}
static void test_large_keys(void **s) {
  (void)s;
  check_unique_file("hudi_1_0_hbase_2_4_13_1KB_GZ_20000_large_keys.hfile", 20000, fmt_large);
}
static void test_deep_index(void **s) {
  (void)s;
  check_unique_file("hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile", 10000, fmt_large);
}

/* One key of the 3-level index costs one read per level plus the data
 * block, not the whole index. */
static void test_deep_index_reads(void **s) {
  (void)s;
  file_src fs;
  hudi_hfile_reader *r = open_path("hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile", &fs);
  assert_int_equal(hudi_hfile_reader_trailer(r)->num_data_index_levels, 3);
  char k[256];
  fmt_large(k, sizeof k, 5340);
  hudi_hfile_key key = {(const uint8_t *)k, strlen(k)};
  tu_found f;
  tu_found_init(&f, 1);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_lookup(r, &key, 1, tu_on_found, &f, &err), HUDI_OK);
  assert_int_equal(f.hits, 1);
  assert_string_equal(f.vals[0], "hudi-value-000005340");
  hudi_hfile_stats st;
  hudi_hfile_reader_stats(r, &st);
  assert_int_equal(st.data_blocks_read, 1);
  tu_found_free(&f);
  close_path(r, &fs);
}

static void test_single_key_lookups(void **s) {
  (void)s;
  file_src fs;
  hudi_hfile_reader *r = open_path("hudi_1_0_hbase_2_4_9_16KB_GZ_20000.hfile", &fs);
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < 20000; i += 997) {
    char k[64], v[64];
    fmt_plain(k, sizeof k, i);
    snprintf(v, sizeof v, "hudi-value-%09zu", i);
    hudi_hfile_key key = {(const uint8_t *)k, strlen(k)};
    tu_found f;
    tu_found_init(&f, 1);
    assert_int_equal(hudi_hfile_reader_lookup(r, &key, 1, tu_on_found, &f, &err), HUDI_OK);
    assert_non_null(f.vals[0]);
    assert_string_equal(f.vals[0], v);
    tu_found_free(&f);
  }
  /* Unsorted input is refused. */
  hudi_hfile_key bad[2] = {{(const uint8_t *)"b", 1}, {(const uint8_t *)"a", 1}};
  tu_found f;
  tu_found_init(&f, 2);
  assert_int_equal(hudi_hfile_reader_lookup(r, bad, 2, tu_on_found, &f, &err), HUDI_ERR_INVALID_ARG);
  tu_found_free(&f);
  /* File info the HBase writer stored. */
  const uint8_t *v;
  size_t vl;
  assert_true(hudi_hfile_reader_file_info(r, "hudi_hfile_testing.custom_key", &v, &vl));
  assert_int_equal(vl, strlen("hudi_custom_value"));
  assert_memory_equal(v, "hudi_custom_value", vl);
  assert_true(hudi_hfile_reader_file_info(r, "hfile.LASTKEY", &v, &vl));
  assert_true(vl > 20);
  assert_memory_equal(v + 2, "hudi-key-000019999", 18);
  assert_true(hudi_hfile_reader_file_info(r, "hfile.AVG_KEY_LEN", &v, &vl));
  assert_int_equal(vl, 4);
  assert_int_equal(v[3], 30);
  close_path(r, &fs);
}

static void test_non_unique(void **s) {
  (void)s;
  file_src fs;
  hudi_hfile_reader *r = open_path("hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile", &fs);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_entry_count(r), 4200);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, 4200);
  for (size_t i = 0; i < 200; i++) {
    char k[64], v[64];
    fmt_plain(k, sizeof k, i);
    snprintf(v, sizeof v, "hudi-value-%09zu", i);
    assert_string_equal(all.keys[21 * i], k);
    assert_string_equal(all.vals[21 * i], v);
    for (size_t j = 0; j < 20; j++) {
      snprintf(v, sizeof v, "hudi-value-%09zu_%zu", i, j);
      assert_string_equal(all.keys[21 * i + 1 + j], k);
      assert_string_equal(all.vals[21 * i + 1 + j], v);
    }
  }
  tu_kvs_free(&all);
  /* A lookup reports the first occurrence; a prefix scan every one. */
  char store[200][64];
  hudi_hfile_key keys[200];
  for (size_t i = 0; i < 200; i++) {
    fmt_plain(store[i], 64, i);
    keys[i] = (hudi_hfile_key){(const uint8_t *)store[i], strlen(store[i])};
  }
  tu_found f;
  tu_found_init(&f, 200);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, 200, tu_on_found, &f, &err), HUDI_OK);
  assert_int_equal(f.hits, 200);
  for (size_t i = 0; i < 200; i++) {
    char v[64];
    snprintf(v, sizeof v, "hudi-value-%09zu", i);
    assert_string_equal(f.vals[i], v);
  }
  tu_found_free(&f);
  tu_kvs pre = {0};
  assert_int_equal(hudi_hfile_reader_scan_prefix(r, keys[57].data, keys[57].len, tu_collect, &pre, &err), HUDI_OK);
  assert_int_equal(pre.n, 21);
  tu_kvs_free(&pre);
  close_path(r, &fs);
}

static void test_no_entry(void **s) {
  (void)s;
  file_src fs;
  hudi_hfile_reader *r = open_path("hudi_1_0_hbase_2_4_9_no_entry.hfile", &fs);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_entry_count(r), 0);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, 0);
  hudi_hfile_key k = {(const uint8_t *)"hudi-key-000000000", 18};
  tu_found f;
  tu_found_init(&f, 1);
  assert_int_equal(hudi_hfile_reader_lookup(r, &k, 1, tu_on_found, &f, &err), HUDI_OK);
  assert_int_equal(f.hits, 0);
  tu_found_free(&f);
  /* It still has a meta block (an HBase bloom filter): readable. */
  assert_int_equal(hudi_hfile_reader_meta_count(r), 1);
  hudi_buf mb;
  hudi_buf_init(&mb, HUDI_BUF_DEFAULT_MAX);
  bool found = false;
  assert_int_equal(hudi_hfile_reader_meta_block(r, hudi_hfile_reader_meta_name(r, 0), &mb, &found, &err), HUDI_OK);
  assert_true(found);
  assert_int_equal(mb.len, 431380); /* uncompressed size in the block header */
  hudi_buf_free(&mb);
  close_path(r, &fs);
}

/* ---- metadata-table HFiles inside the table zips ------------------------ */

static int bytes_cmp(const char *a, size_t al, const char *b, size_t bl) {
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al > bl) - (al < bl);
}

/* Skips the five meta-field unions and the empty key; returns the type,
 * or -1 when the value does not have that shape. */
static int record_type(const uint8_t *v, size_t n) {
  size_t p = 0;
  for (int f = 0; f < 5; f++) {
    if (p >= n) return -1;
    if (v[p] == 0) { p++; continue; }
    if (v[p] != 2 || p + 1 >= n || (v[p + 1] & 0x80)) return -1;
    p += 2 + v[p + 1] / 2; /* zigzag length, short strings only */
  }
  if (p + 1 >= n || v[p] != 0) return -1; /* key "" */
  return v[p + 1] & 0x80 ? -1 : v[p + 1] / 2;
}

typedef struct mdt_stats {
  int files, rli_files, files_partition;
  size_t kvs;
} mdt_stats;

static void check_mdt_hfile(void *ctx, const char *name, const uint8_t *data, size_t len) {
  mdt_stats *ms = ctx;
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_hfile_reader_open_buffer(&r, data, len, name, &err);
  if (st != HUDI_OK) print_error("%s\n", err.message);
  assert_int_equal(st, HUDI_OK);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, hudi_hfile_reader_entry_count(r));
  const uint8_t *v;
  size_t vl;
  assert_true(hudi_hfile_reader_file_info(r, "schema", &v, &vl));
  assert_true(vl > 1000 && v[0] == '{');
  int rli = strstr(name, "/record_index/") != NULL, files = strstr(name, "/files/") != NULL;
  hudi_hfile_key *keys = calloc(all.n * 2 + 1, sizeof *keys);
  char **absent = calloc(all.n + 1, sizeof *absent);
  for (size_t i = 0; i < all.n; i++) {
    if (i) assert_true(bytes_cmp(all.keys[i - 1], all.klen[i - 1], all.keys[i], all.klen[i]) < 0);
    if (rli || files) {
      /* HoodieMetadataRecord: five ["null","string"] meta fields, key ""
       * (0x00), then the type as a zigzag int: 5 in record_index, 1 or 2
       * in files (1 only for __all_partitions__). */
      int type = record_type((const uint8_t *)all.vals[i], all.vlen[i]);
      if (rli) assert_int_equal(type, 5);
      int all_parts = all.klen[i] == 18 && memcmp(all.keys[i], "__all_partitions__", 18) == 0;
      if (files) assert_int_equal(type, all_parts ? 1 : 2);
    }
    keys[2 * i] = (hudi_hfile_key){(const uint8_t *)all.keys[i], all.klen[i]};
    absent[i] = malloc(all.klen[i] + 2);
    memcpy(absent[i], all.keys[i], all.klen[i]);
    absent[i][all.klen[i]] = '!'; /* sorts after key, before its successor here */
    keys[2 * i + 1] = (hudi_hfile_key){(const uint8_t *)absent[i], all.klen[i] + 1};
  }
  tu_found f;
  tu_found_init(&f, all.n * 2);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, all.n * 2, tu_on_found, &f, &err), HUDI_OK);
  assert_int_equal(f.hits, all.n);
  for (size_t i = 0; i < all.n; i++) {
    assert_non_null(f.vals[2 * i]);
    assert_int_equal(f.vlen[2 * i], all.vlen[i]);
    assert_memory_equal(f.vals[2 * i], all.vals[i], all.vlen[i]);
    assert_null(f.vals[2 * i + 1]);
    free(absent[i]);
  }
  ms->files++;
  ms->rli_files += rli;
  ms->files_partition += files;
  ms->kvs += all.n;
  tu_found_free(&f);
  free(absent);
  free(keys);
  tu_kvs_free(&all);
  hudi_hfile_reader_free(r);
}

static void check_zip(const char *zip, int min_files) {
  size_t len = 0;
  uint8_t *z = tu_read_file(zip, &len);
  assert_non_null(z);
  mdt_stats ms = {0};
  int n = tu_zip_each(z, len, "/.hoodie/metadata/", ".hfile", check_mdt_hfile, &ms);
  assert_true(n >= min_files);
  assert_int_equal(ms.files, n);
  assert_true(ms.rli_files > 0);
  assert_true(ms.files_partition > 0);
  assert_true(ms.kvs > 0);
  free(z);
}

static void test_mdt_v8(void **s) {
  (void)s;
  check_zip(TABLE_DIR "quickstart_trips_table/mor/avro/v8_trips_8i3u1d.zip", 20);
}
static void test_mdt_v9(void **s) {
  (void)s;
  check_zip(TABLE_DIR "sample_table/mor/avro/v9_txns_simple_meta.zip", 12);
}
static void test_mdt_v9_nonpart(void **s) {
  (void)s;
  check_zip(TABLE_DIR "sample_table/cow/v9_txns_nonpart_meta.zip", 12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gz_16k),         cmocka_unit_test(test_none_16k),
      cmocka_unit_test(test_none_64k),       cmocka_unit_test(test_gz_512k),
      cmocka_unit_test(test_fake_first_key), cmocka_unit_test(test_large_keys),
      cmocka_unit_test(test_deep_index),     cmocka_unit_test(test_deep_index_reads),
      cmocka_unit_test(test_single_key_lookups), cmocka_unit_test(test_non_unique),
      cmocka_unit_test(test_no_entry),       cmocka_unit_test(test_mdt_v8),
      cmocka_unit_test(test_mdt_v9),         cmocka_unit_test(test_mdt_v9_nonpart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
