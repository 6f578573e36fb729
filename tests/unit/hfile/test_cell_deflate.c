/* Cell-layout deflate of HFile data blocks (hfile/cell_deflate.h). Every
 * stream is inflated by zlib (independent and strict) back to the exact
 * block. Record-index blocks (sorted UUID keys, values naming one of five
 * file groups, as a bulk load writes them) must come out no larger than
 * libdeflate's level 1, the encoder it replaces there; bytes that are not
 * cells (random, truncated, lying lengths, long multi-byte mvcc) still
 * round-trip; copies longer than 258 and tails too far back to copy; the
 * output cap. Through the writer (cell_deflate): the same file with 1 and
 * 3 encoder threads, read back whole by our reader, and java_exact_bytes
 * still giving Java's bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "codec/fast_deflate.h"
#include "hfile/block.h"
#include "hfile/cell_deflate.h"
#include "hfile/hfile.h"
#include "hfile_test_util.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* zlib's raw inflate of z is exactly src. */
static void assert_inflates_to(const uint8_t *z, size_t zl, const uint8_t *src, size_t n) {
  uint8_t *back = malloc(n + 1);
  assert_non_null(back);
  z_stream s;
  memset(&s, 0, sizeof s);
  assert_int_equal(inflateInit2(&s, -15), Z_OK);
  s.next_in = (Bytef *)(uintptr_t)z;
  s.avail_in = (uInt)zl;
  s.next_out = back;
  s.avail_out = (uInt)(n + 1);
  assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
  assert_int_equal(s.total_out, n);
  assert_int_equal(s.avail_in, 0);
  inflateEnd(&s);
  if (n) assert_memory_equal(back, src, n);
  free(back);
}

static size_t cell_round_trip(const uint8_t *src, size_t n) {
  hudi_buf out;
  hudi_buf_init(&out, HUDI_BUF_DEFAULT_MAX);
  assert_true(hudi_hfile_cell_deflate(src, n, NULL, &out));
  assert_inflates_to(out.data, out.len, src, n);
  size_t zl = out.len;
  hudi_buf_free(&out);
  return zl;
}

/* One key-value as the writer lays it out: key length (row + 12), value
 * length, row length, row, family length 0, timestamp Long.MAX_VALUE,
 * type 4, value, mvcc 0. */
static void put_cell(hudi_buf *b, const char *row, size_t rl, const uint8_t *v, size_t vl) {
  uint8_t h[10], t[10] = {0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 4};
  hudi_put_be32(h, (uint32_t)(rl + 12));
  hudi_put_be32(h + 4, (uint32_t)vl);
  hudi_put_be16(h + 8, (uint16_t)rl);
  assert_int_equal(hudi_buf_append(b, h, 10, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(b, row, rl, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(b, t, 10, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(b, v, vl, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(b, 0, NULL), HUDI_OK);
}

static size_t zigzag(uint8_t *p, int64_t v) {
  uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  size_t n = 0;
  while (u >= 0x80) {
    p[n++] = (uint8_t)(u | 0x80);
    u >>= 7;
  }
  p[n++] = (uint8_t)u;
  return n;
}

/* A record-index value (spec hudi-metadata-table.md §2): five null meta
 * fields, key "", type 5, three null unions, then the record index info
 * for file group g (partition "", high and low bits, index 0, fileId "",
 * instant, encoding 0, position null) and a null secondary index. */
static size_t rli_value(uint8_t *v, int g) {
  static int64_t hi[5], lo[5];
  if (!hi[0])
    for (int i = 0; i < 5; i++) {
      hi[i] = (int64_t)rnd();
      lo[i] = (int64_t)rnd();
    }
  size_t n = 0;
  memset(v, 0, 6);
  n = 6;
  v[n++] = 0x0a;
  memset(v + n, 0, 3);
  n += 3;
  v[n++] = 2;
  v[n++] = 2;
  v[n++] = 0;
  v[n++] = 2;
  n += zigzag(v + n, hi[g]);
  v[n++] = 2;
  n += zigzag(v + n, lo[g]);
  v[n++] = 2;
  v[n++] = 0;
  v[n++] = 2;
  v[n++] = 0;
  v[n++] = 2;
  n += zigzag(v + n, 1764633600000);
  v[n++] = 0;
  v[n++] = 0;
  v[n++] = 0;
  return n;
}

#define KEY_LEN 36

static int cmp_key(const void *a, const void *b) { return memcmp(a, b, KEY_LEN); }

/* n sorted random UUID strings, KEY_LEN bytes each. */
static char *sorted_uuids(size_t n) {
  char *k = malloc(n * KEY_LEN);
  assert_non_null(k);
  for (size_t i = 0; i < n; i++) {
    uint64_t a = rnd(), b = rnd();
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
             (unsigned)a & 0xfff, (unsigned)(b >> 48) & 0xffff, (unsigned long long)(b & 0xffffffffffffull));
    memcpy(k + i * KEY_LEN, tmp, KEY_LEN);
  }
  qsort(k, n, KEY_LEN, cmp_key);
  return k;
}

static void test_rli_blocks(void **st) {
  (void)st;
  size_t n = 100000;
  char *keys = sorted_uuids(n);
  hudi_fast_deflater *lz = hudi_fast_deflater_new(1);
  assert_non_null(lz);
  hudi_buf blk, z;
  hudi_buf_init(&blk, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&z, HUDI_BUF_DEFAULT_MAX);
  size_t cells = 0, libdeflate = 0, raw = 0, blocks = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t v[64];
    size_t vl = rli_value(v, (int)(rnd() % 5));
    put_cell(&blk, keys + i * KEY_LEN, KEY_LEN, v, vl);
    if (blk.len < 4096 && i + 1 < n) continue;
    cells += cell_round_trip(blk.data, blk.len);
    hudi_buf_reset(&z);
    assert_true(hudi_fast_deflate_raw(lz, blk.data, blk.len, &z));
    libdeflate += z.len;
    raw += blk.len;
    blocks++;
    hudi_buf_reset(&blk);
  }
  print_message("%zu blocks, %zu bytes: cell deflate %zu, libdeflate level 1 %zu\n", blocks, raw, cells,
                libdeflate);
  assert_true(cells <= libdeflate);
  assert_true(cells < raw / 3);
  hudi_buf_free(&blk);
  hudi_buf_free(&z);
  hudi_fast_deflater_free(lz);
  free(keys);
}

/* Blocks whose cells alternate between two values (two file groups of a
 * record-index shard) in a random pattern: each value's tail must be copied
 * from the last cell that had it, whichever two values they are. Before
 * tails took two slots, the ~1 pair in 64 whose tails hashed to one slot
 * coded every such tail as a diff against the previous cell: ~10 bytes a
 * cell more. 2,000 random pairs, each against the block with one value. */
static void test_two_values(void **st) {
  (void)st;
  enum { CELLS = 40, PAIRS = 2000 };
  char *keys = sorted_uuids(CELLS);
  size_t worst = 0;
  for (int t = 0; t < PAIRS; t++) {
    uint8_t v[2][24];
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 24; j += 8) {
        uint64_t r = rnd();
        memcpy(v[k] + j, &r, 8);
      }
    uint64_t pattern = rnd();
    hudi_buf one, two;
    hudi_buf_init(&one, HUDI_BUF_DEFAULT_MAX);
    hudi_buf_init(&two, HUDI_BUF_DEFAULT_MAX);
    for (int i = 0; i < CELLS; i++) {
      put_cell(&one, keys + (size_t)i * KEY_LEN, KEY_LEN, v[0], 24);
      put_cell(&two, keys + (size_t)i * KEY_LEN, KEY_LEN, v[i < 2 ? i : (int)((pattern >> i) & 1)], 24);
    }
    size_t a = cell_round_trip(one.data, one.len), b = cell_round_trip(two.data, two.len);
    if (b > a && b - a > worst) worst = b - a;
    hudi_buf_free(&one);
    hudi_buf_free(&two);
  }
  print_message("two values: at most %zu bytes more than one, over %d pairs\n", worst, PAIRS);
  assert_true(worst < 3 * CELLS);
  free(keys);
}

static void test_not_cells(void **st) {
  (void)st;
  uint8_t b[5000];
  /* random bytes, all sizes from nothing to one cell header and more */
  for (size_t n = 0; n < 64; n++) {
    for (size_t i = 0; i < n; i++) b[i] = (uint8_t)rnd();
    cell_round_trip(b, n);
  }
  for (size_t i = 0; i < sizeof b; i++) b[i] = (uint8_t)rnd();
  cell_round_trip(b, sizeof b);
  /* all zeros: cells of empty rows and values whose lengths lie (key
   * length 0 < row length 2 + 0) */
  memset(b, 0, sizeof b);
  cell_round_trip(b, sizeof b);
  /* real cells, then one whose lengths point past the end, then rubbish */
  hudi_buf c;
  hudi_buf_init(&c, HUDI_BUF_DEFAULT_MAX);
  uint8_t v[64];
  size_t vl = rli_value(v, 0);
  put_cell(&c, "key-000001", 10, v, vl);
  put_cell(&c, "key-000002", 10, v, vl);
  put_cell(&c, "key-000003", 10, v, vl);
  size_t good = c.len;
  cell_round_trip(c.data, c.len);
  cell_round_trip(c.data, c.len - 1); /* the last cell's mvcc cut off */
  put_cell(&c, "key-000004", 10, v, vl);
  hudi_put_be32(c.data + good + 4, 0x7ffffff0u); /* value length past the end */
  cell_round_trip(c.data, c.len);
  /* multi-byte mvcc vlongs (-113: one more byte; -121: negative, one
   * more), one claiming more bytes than are left, a row longer than its key */
  c.len = good;
  c.data[good - 1] = (uint8_t)(int8_t)-113;
  assert_int_equal(hudi_buf_append_byte(&c, 0x55, NULL), HUDI_OK);
  put_cell(&c, "key-000005", 10, v, vl);
  c.data[c.len - 1] = (uint8_t)(int8_t)-121;
  assert_int_equal(hudi_buf_append_byte(&c, 0x01, NULL), HUDI_OK);
  put_cell(&c, "key-000006", 10, v, vl);
  cell_round_trip(c.data, c.len);
  c.data[c.len - 1] = (uint8_t)(int8_t)-120; /* 8 more bytes, none left */
  cell_round_trip(c.data, c.len);
  hudi_put_be16(c.data + good + 1 + 8, 0xffff); /* row longer than the key (cell 5 starts a byte late: cell 3's mvcc grew) */
  cell_round_trip(c.data, c.len);
  hudi_buf_free(&c);
}

static void test_long_and_far(void **st) {
  (void)st;
  /* 1 MiB-ish block: tails of 1,000 bytes that repeat (copies split at
   * 258) and of 40,000 bytes, so that a repeat lies beyond 32 KiB (a cell
   * after a 40,000-byte one is too far from the cell before it, too); more
   * steps than the stack holds */
  hudi_buf c;
  hudi_buf_init(&c, HUDI_BUF_DEFAULT_MAX);
  uint8_t *small = malloc(1000), *big = malloc(40000);
  for (size_t i = 0; i < 1000; i++) small[i] = (uint8_t)(rnd() % 7);
  for (size_t i = 0; i < 40000; i++) big[i] = (uint8_t)rnd();
  char row[32];
  for (int i = 0; c.len < (1u << 20); i++) {
    int rl = snprintf(row, sizeof row, "row-%08d", i);
    if (i % 10 == 9) put_cell(&c, row, (size_t)rl, big, 40000);
    else put_cell(&c, row, (size_t)rl, small, 1000);
  }
  size_t zl = cell_round_trip(c.data, c.len);
  print_message("%zu bytes -> %zu\n", c.len, zl);
  assert_true(zl < c.len);
  /* many tiny cells: more than 2048 steps */
  hudi_buf_reset(&c);
  for (int i = 0; i < 20000; i++) {
    int rl = snprintf(row, sizeof row, "r%07d", i);
    uint8_t v[3] = {(uint8_t)(i % 3), 1, 2};
    put_cell(&c, row, (size_t)rl, v, 3);
  }
  cell_round_trip(c.data, c.len);
  free(small);
  free(big);
  hudi_buf_free(&c);
}

static void test_cap(void **st) {
  (void)st;
  hudi_buf c, out;
  hudi_buf_init(&c, HUDI_BUF_DEFAULT_MAX);
  uint8_t v[64];
  size_t vl = rli_value(v, 1);
  put_cell(&c, "a-key", 5, v, vl);
  hudi_buf_init(&out, 8);
  assert_int_equal(hudi_buf_append(&out, "pre", 3, NULL), HUDI_OK);
  assert_false(hudi_hfile_cell_deflate(c.data, c.len, NULL, &out));
  assert_int_equal(out.len, 3);
  assert_memory_equal(out.data, "pre", 3);
  hudi_buf_free(&out);
  hudi_buf_free(&c);
}

/* An RLI-shaped HFile of n key-values with the given options. */
static uint8_t *write_rli(const char *keys, size_t n, const hudi_hfile_writer_options *o, size_t *len) {
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, o, &err), HUDI_OK);
  uint64_t saved = rng;
  for (size_t i = 0; i < n; i++) {
    uint8_t v[64];
    size_t vl = rli_value(v, (int)(i * 7 % 5));
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)keys + i * KEY_LEN, KEY_LEN, v, vl, &err), HUDI_OK);
  }
  rng = saved;
  uint8_t *out = NULL;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  return out;
}

static void test_writer(void **st) {
  (void)st;
  size_t n = 60000;
  char *keys = sorted_uuids(n);
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = 4096;
  o.create_time_ms = 1;
  o.cell_deflate = true;
  o.compress_threads = 1;
  size_t l1, l3, lplain, lj1, lj2;
  uint8_t *f1 = write_rli(keys, n, &o, &l1);
  o.compress_threads = 3;
  uint8_t *f3 = write_rli(keys, n, &o, &l3);
  assert_int_equal(l1, l3);
  assert_memory_equal(f1, f3, l1);
  o.cell_deflate = false;
  uint8_t *plain = write_rli(keys, n, &o, &lplain);
  print_message("cell deflate %zu bytes, libdeflate %zu\n", l1, lplain);
  assert_true(l1 <= lplain);
  /* read back: every key with its value, in order */
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, f1, l1, "cells.hfile", &err), HUDI_OK);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  assert_int_equal(all.n, n);
  for (size_t i = 0; i < n; i++) {
    uint8_t v[64];
    size_t vl = rli_value(v, (int)(i * 7 % 5));
    assert_int_equal(all.klen[i], KEY_LEN);
    assert_memory_equal(all.keys[i], keys + i * KEY_LEN, KEY_LEN);
    assert_int_equal(all.vlen[i], vl);
    assert_memory_equal(all.vals[i], v, vl);
  }
  tu_kvs_free(&all);
  hudi_hfile_reader_free(r);
  /* java_exact_bytes wins: the option changes nothing */
  o.java_exact_bytes = true;
  o.compress_threads = 1;
  uint8_t *j1 = write_rli(keys, 3000, &o, &lj1);
  o.cell_deflate = true;
  uint8_t *j2 = write_rli(keys, 3000, &o, &lj2);
  assert_int_equal(lj1, lj2);
  assert_memory_equal(j1, j2, lj1);
  hudi_free(f1);
  hudi_free(f3);
  hudi_free(plain);
  hudi_free(j1);
  hudi_free(j2);
  free(keys);
}

#define TABLE_DIR HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/test/data/"

typedef struct fixture_stats {
  int files;
  size_t kvs;
} fixture_stats;

/* A Spark-written metadata-table HFile's key-values written again with
 * cell deflate in 256-byte blocks (so that Spark's few keys still span
 * many blocks), then every key looked up in the new file: the value Spark
 * stored. */
static void rewrite_fixture(void *ctx, const char *name, const uint8_t *data, size_t len) {
  fixture_stats *fs = ctx;
  if (!strstr(name, "/record_index/") && !strstr(name, "/secondary_index")) return;
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, data, len, name, &err), HUDI_OK);
  tu_kvs all = {0};
  assert_int_equal(hudi_hfile_reader_scan(r, tu_collect, &all, &err), HUDI_OK);
  hudi_hfile_reader_free(r);
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = 256;
  o.cell_deflate = true;
  hudi_hfile_writer *w = NULL;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  for (size_t i = 0; i < all.n; i++)
    assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)all.keys[i], all.klen[i],
                                              (const uint8_t *)all.vals[i], all.vlen[i], &err),
                     HUDI_OK);
  uint8_t *out = NULL;
  size_t out_len = 0;
  assert_int_equal(hudi_hfile_writer_finish(w, &out, &out_len, &err), HUDI_OK);
  hudi_hfile_writer_free(w);
  assert_int_equal(hudi_hfile_reader_open_buffer(&r, out, out_len, name, &err), HUDI_OK);
  hudi_hfile_key *keys = calloc(all.n ? all.n : 1, sizeof *keys);
  for (size_t i = 0; i < all.n; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)all.keys[i], all.klen[i]};
  tu_found f;
  tu_found_init(&f, all.n);
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, all.n, tu_on_found, &f, &err), HUDI_OK);
  assert_int_equal(f.hits, all.n);
  for (size_t i = 0; i < all.n; i++) {
    assert_int_equal(f.vlen[i], all.vlen[i]);
    assert_memory_equal(f.vals[i], all.vals[i], all.vlen[i]);
  }
  fs->files++;
  fs->kvs += all.n;
  tu_found_free(&f);
  free(keys);
  hudi_hfile_reader_free(r);
  hudi_free(out);
  tu_kvs_free(&all);
}

static void test_fixture_indexes(void **st) {
  (void)st;
  static const char *zips[] = {TABLE_DIR "sample_table/cow/v9_txns_nonpart_meta.zip",
                               TABLE_DIR "sample_table/mor/avro/v9_txns_simple_meta.zip"};
  fixture_stats fs = {0, 0};
  for (size_t i = 0; i < 2; i++) {
    size_t len = 0;
    uint8_t *z = tu_read_file(zips[i], &len);
    assert_non_null(z);
    tu_zip_each(z, len, "/.hoodie/metadata/", ".hfile", rewrite_fixture, &fs);
    free(z);
  }
  print_message("%d Spark-written index HFiles (%zu key-values) rewritten and looked up\n", fs.files, fs.kvs);
  assert_true(fs.files >= 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rli_blocks), cmocka_unit_test(test_two_values), cmocka_unit_test(test_not_cells), cmocka_unit_test(test_long_and_far),
      cmocka_unit_test(test_cap),        cmocka_unit_test(test_writer),    cmocka_unit_test(test_fixture_indexes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
