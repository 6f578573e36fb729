/* The HFile writer's block pipeline (compress_threads): the same key-values
 * written on the calling thread alone and with 1 and 3 worker threads must
 * give the same file, byte for byte, including sequences where spec §3.9
 * closes blocks early (the pipeline then re-cuts the blocks it queued after
 * them, which the re-cut counter must show happened) and equal keys across
 * the re-cut point. The single-threaded writer is the oracle; its own
 * bytes are checked against Java's in test_hfile_writer.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "hfile/hfile.h"

typedef enum shape {
  RLI,     /* 36-byte keys, 60-byte values: the record index */
  TRIGGER, /* big incompressible values, ~1/3 tiny key-values (a §3.9 trap
            * whenever one ends a block), runs of equal keys */
} shape;

static uint64_t xorshift(uint64_t *r) {
  *r ^= *r << 13;
  *r ^= *r >> 7;
  *r ^= *r << 17;
  return *r;
}

/* The i-th key-value of a shape; key in k (NUL-free), value in v. */
static void make_kv(shape sh, size_t i, char *k, size_t *kl, uint8_t *v, size_t *vl) {
  uint64_t r = 0x9e3779b97f4a7c15ull ^ (i * 0x2545f4914f6cdd1dull);
  for (int j = 0; j < 3; j++) xorshift(&r);
  if (sh == RLI) {
    *kl = (size_t)snprintf(k, 64, "%08zx-%04x-4%03x-%04x-%012llx", i, (unsigned)(r & 0xffff),
                           (unsigned)((r >> 16) & 0xfff), (unsigned)((r >> 28) & 0xffff),
                           (unsigned long long)((r >> 8) & 0xffffffffffffull));
    memcpy(v, "region=us/date=2024-01-0", 24);
    v[24] = (uint8_t)('1' + r % 8);
    for (size_t j = 25; j < 60; j++) v[j] = (uint8_t)xorshift(&r);
    *vl = 60;
    return;
  }
  /* Every 50th key is repeated 3 times (keys stay non-decreasing). */
  size_t key_no = i - (i % 50 < 3 ? i % 50 : 0);
  *kl = (size_t)snprintf(k, 64, "k%07zu", key_no);
  if (r % 3 == 0) {
    *vl = 0; /* 29 bytes: in a 200 KiB block, no longer than the 52 bytes Java skips */
    return;
  }
  *vl = 300 + (size_t)(r % 1200);
  for (size_t j = 0; j < *vl; j++) v[j] = (uint8_t)xorshift(&r);
}

typedef struct run {
  uint8_t *file;
  size_t len;
  uint64_t recuts;
} run;

/* hudi_hfile_writer_options.index_block_size of the runs (0: block size). */
static size_t g_index_block_size;
/* ... and cell_deflate, own_codes. */
static bool g_cell_deflate, g_own_codes;

/* The scan sees the key-values of the shape, in order (zlib or libdeflate
 * inflating every block: the stream itself is checked, not our encoder). */
typedef struct expect {
  shape sh;
  size_t i;
} expect;

static int check_kv(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  expect *e = ctx;
  char k[64];
  static uint8_t v[2000];
  size_t kl, vl;
  make_kv(e->sh, e->i++, k, &kl, v, &vl);
  if (key_len != kl || memcmp(key, k, kl) != 0 || value_len != vl || (vl && memcmp(value, v, vl) != 0))
    fail_msg("key-value %zu differs", e->i - 1);
  return 0;
}

static run write_seq(shape sh, size_t n, size_t block_size, hudi_hfile_compression c, bool java_exact,
                     int threads) {
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = block_size;
  o.index_block_size = g_index_block_size;
  o.compression = c;
  o.java_exact_bytes = java_exact;
  o.create_time_ms = 1772922372542;
  o.compress_threads = threads;
  o.cell_deflate = g_cell_deflate;
  o.own_codes = g_own_codes;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  char k[64];
  static uint8_t v[2000];
  for (size_t i = 0; i < n; i++) {
    size_t kl, vl;
    make_kv(sh, i, k, &kl, v, &vl);
    hudi_status st = hudi_hfile_writer_append(w, (const uint8_t *)k, kl, v, vl, &err);
    if (st != HUDI_OK) fail_msg("append %zu: %s", i, err.message);
  }
  assert_int_equal(hudi_hfile_writer_add_file_info(w, "schema", (const uint8_t *)"{}", 2, &err), HUDI_OK);
  run r = {NULL, 0, 0};
  hudi_status st = hudi_hfile_writer_finish(w, &r.file, &r.len, &err);
  if (st != HUDI_OK) fail_msg("finish: %s", err.message);
  r.recuts = hudi_hfile_writer_recuts(w);
  hudi_hfile_writer_free(w);
  /* Readable, with every key-value. */
  hudi_hfile_reader *rd = NULL;
  assert_int_equal(hudi_hfile_reader_open_buffer(&rd, r.file, r.len, "pipeline", &err), HUDI_OK);
  assert_int_equal(hudi_hfile_reader_entry_count(rd), n);
  expect e = {sh, 0};
  assert_int_equal(hudi_hfile_reader_scan(rd, check_kv, &e, &err), HUDI_OK);
  assert_int_equal(e.i, n);
  hudi_hfile_reader_free(rd);
  return r;
}

/* Writes the sequence alone, with 1 and with 3 workers; the files must be
 * identical. Returns the re-cuts of the 1-worker run. */
static uint64_t same_bytes(shape sh, size_t n, size_t block_size, hudi_hfile_compression c, bool java_exact) {
  run one = write_seq(sh, n, block_size, c, java_exact, 1);
  assert_int_equal(one.recuts, 0);
  uint64_t recuts = 0;
  static const int threads[] = {2, 4};
  for (size_t t = 0; t < 2; t++) {
    run many = write_seq(sh, n, block_size, c, java_exact, threads[t]);
    assert_int_equal(many.len, one.len);
    if (memcmp(many.file, one.file, one.len) != 0) {
      size_t at = 0;
      while (many.file[at] == one.file[at]) at++;
      fail_msg("%d threads: files differ at byte %zu of %zu (block size %zu, n %zu)", threads[t], at, one.len,
               block_size, n);
    }
    if (t == 0) recuts = many.recuts;
    hudi_free(many.file);
  }
  hudi_free(one.file);
  return recuts;
}

/* Record-index key-values: small GZ blocks never close early, so no re-cut;
 * libdeflate (the default) and zlib (java_exact_bytes). */
static void test_rli_identical(void **s) {
  (void)s;
  assert_int_equal(same_bytes(RLI, 20000, 4096, HUDI_HFILE_GZ, false), 0);
  assert_int_equal(same_bytes(RLI, 20000, 64 << 10, HUDI_HFILE_GZ, false), 0);
  assert_int_equal(same_bytes(RLI, 5000, 4096, HUDI_HFILE_GZ, true), 0);
  assert_int_equal(same_bytes(RLI, 3000, 4096, HUDI_HFILE_NONE, false), 0);
  /* One block, and none. */
  same_bytes(RLI, 3, 4096, HUDI_HFILE_GZ, false);
  same_bytes(RLI, 0, 4096, HUDI_HFILE_GZ, false);
}

/* Blocks of 200 KiB ending in a tiny key-value: Java's reader would
 * drop it, so the writer closes such blocks one (or more) key-values early
 * and the pipeline must re-cut what it queued after them. NONE, GZ by
 * libdeflate and GZ by zlib (the cut blocks are zlib's in both); several
 * lengths, so that the file ends at various points of a re-cut. */
static void test_early_close_identical(void **s) {
  (void)s;
  static const size_t ns[] = {4000, 4001, 4017, 4040};
  for (size_t i = 0; i < 4; i++) {
    uint64_t a = same_bytes(TRIGGER, ns[i], 200 << 10, HUDI_HFILE_NONE, false);
    uint64_t b = same_bytes(TRIGGER, ns[i], 200 << 10, HUDI_HFILE_GZ, false);
    uint64_t c = i < 2 ? same_bytes(TRIGGER, ns[i], 200 << 10, HUDI_HFILE_GZ, true) : 1;
    assert_true(a > 0);
    assert_true(b > 0);
    assert_true(c > 0);
  }
  /* Small blocks with tiny key-values: no early close (4 KiB stays far
   * below 5 x 16 KiB), but re-cut bookkeeping must not be needed. */
  assert_int_equal(same_bytes(TRIGGER, 1000, 4096, HUDI_HFILE_GZ, false), 0);
}

/* compress_threads = 0 starts a worker once the file has
 * HUDI_HFILE_PIPE_AUTO_BLOCKS blocks; the bytes stay the same. */
static void test_auto_identical(void **s) {
  (void)s;
  run one = write_seq(RLI, 20000, 4096, HUDI_HFILE_GZ, false, 1);
  run aut = write_seq(RLI, 20000, 4096, HUDI_HFILE_GZ, false, 0);
  assert_true(one.len / 4096 > 2 * HUDI_HFILE_PIPE_AUTO_BLOCKS);
  assert_int_equal(aut.len, one.len);
  assert_memory_equal(aut.file, one.file, one.len);
  hudi_free(one.file);
  hudi_free(aut.file);
}

/* Files of several MiB: the file buffer grows (and moves) many times while
 * the workers pre-fault it ahead of the writer, the queue fills (the writer
 * then encodes blocks too) and leaf index blocks are written between data
 * blocks; 1, 2 and 3 threads, index blocks of 1 KiB (three levels), 4 KiB
 * and one level. */
static void test_large_identical(void **s) {
  (void)s;
  static const size_t index_sizes[] = {1024, 0, (size_t)64 << 20};
  for (size_t i = 0; i < 3; i++) {
    g_index_block_size = index_sizes[i];
    run one = write_seq(RLI, 100000, 4096, HUDI_HFILE_GZ, false, 1);
    assert_true(one.len > (size_t)6 << 20);
    for (int t = 2; t <= 3; t++) {
      run many = write_seq(RLI, 100000, 4096, HUDI_HFILE_GZ, false, t);
      assert_int_equal(many.recuts, 0);
      assert_int_equal(many.len, one.len);
      if (memcmp(many.file, one.file, one.len) != 0)
        fail_msg("%d threads, index blocks %zu: files differ", t, index_sizes[i]);
      hudi_free(many.file);
    }
    hudi_free(one.file);
  }
  g_index_block_size = 0;
  /* 64 KiB blocks: fewer, larger jobs; 16 slots. */
  assert_int_equal(same_bytes(RLI, 100000, 64 << 10, HUDI_HFILE_GZ, false), 0);
}

/* Cell-deflated blocks share Huffman codes sampled from the file's first
 * key-values (writer.c, "shared codes"): the bytes stay the same whatever
 * the threads (a block's codes follow from the appended keys alone), also
 * when queued blocks are re-cut after the sample; the shared codes are
 * used (the file differs from one whose blocks build their own) at little
 * cost in size; a file no longer than the sample has no shared codes. */
static void test_shared_codes(void **s) {
  (void)s;
  g_cell_deflate = true;
  assert_int_equal(same_bytes(RLI, 20000, 4096, HUDI_HFILE_GZ, false), 0);
  assert_int_equal(same_bytes(RLI, 20000, 64 << 10, HUDI_HFILE_GZ, false), 0);
  assert_true(same_bytes(TRIGGER, 4017, 200 << 10, HUDI_HFILE_GZ, false) > 0);
  run shared = write_seq(RLI, 20000, 4096, HUDI_HFILE_GZ, false, 1);
  g_own_codes = true;
  run own = write_seq(RLI, 20000, 4096, HUDI_HFILE_GZ, false, 1);
  run own_small = write_seq(RLI, 700, 4096, HUDI_HFILE_GZ, false, 1);
  g_own_codes = false;
  run shared_small = write_seq(RLI, 700, 4096, HUDI_HFILE_GZ, false, 1);
  assert_true(shared.len != own.len || memcmp(shared.file, own.file, own.len) != 0);
  assert_true(shared.len * 100 <= own.len * 104);
  /* 700 key-values are ~24 blocks, fewer than the 32 sampled. */
  assert_int_equal(shared_small.len, own_small.len);
  assert_memory_equal(shared_small.file, own_small.file, own_small.len);
  hudi_free(shared.file);
  hudi_free(own.file);
  hudi_free(shared_small.file);
  hudi_free(own_small.file);
  g_cell_deflate = false;
}

/* Out-of-order keys are refused while the earlier blocks are still queued
 * (nothing is written yet); bad thread counts are refused. */
static void test_rejects(void **s) {
  (void)s;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = 64;
  o.compress_threads = 2;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_OK);
  uint8_t v[100] = {0};
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"b", 1, v, sizeof v, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"c", 1, v, sizeof v, &err), HUDI_OK);
  assert_int_equal(hudi_hfile_writer_append(w, (const uint8_t *)"a", 1, v, sizeof v, &err), HUDI_ERR_INVALID_ARG);
  hudi_hfile_writer_free(w); /* with blocks still queued */
  o.compress_threads = -1;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_ERR_INVALID_ARG);
  o.compress_threads = 100;
  assert_int_equal(hudi_hfile_writer_create(&w, &o, &err), HUDI_ERR_INVALID_ARG);
}

/* Allocation failures anywhere (writer, pipeline, worker threads) end in
 * HUDI_ERR_NOMEM or, when only the pipeline could not start, the same file;
 * never a crash or leak (ASan). */
static void test_alloc_failures(void **s) {
  (void)s;
  run ref = write_seq(TRIGGER, 1500, 200 << 10, HUDI_HFILE_GZ, false, 1);
  char k[64];
  static uint8_t v[2000];
  for (long budget = 0; budget < 520; budget += 6) { /* a run makes ~500 */
    hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
    o.block_size = 200 << 10;
    o.create_time_ms = 1772922372542;
    o.compress_threads = 2;
    hudi_error err = HUDI_ERROR_INIT;
    hudi_hfile_writer *w = NULL;
    (void)hudi_alloc_fail_after(budget);
    hudi_status st = hudi_hfile_writer_create(&w, &o, &err);
    for (size_t i = 0; st == HUDI_OK && i < 1500; i++) {
      size_t kl, vl;
      make_kv(TRIGGER, i, k, &kl, v, &vl);
      st = hudi_hfile_writer_append(w, (const uint8_t *)k, kl, v, vl, &err);
    }
    if (st == HUDI_OK) st = hudi_hfile_writer_add_file_info(w, "schema", (const uint8_t *)"{}", 2, &err);
    uint8_t *f = NULL;
    size_t len = 0;
    if (st == HUDI_OK) st = hudi_hfile_writer_finish(w, &f, &len, &err);
    (void)hudi_alloc_fail_after(-1);
    hudi_hfile_writer_free(w);
    if (st == HUDI_OK) {
      assert_int_equal(len, ref.len);
      assert_memory_equal(f, ref.file, len);
    } else {
      assert_int_equal(st, HUDI_ERR_NOMEM);
    }
    hudi_free(f);
  }
  hudi_free(ref.file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rli_identical),   cmocka_unit_test(test_early_close_identical),
      cmocka_unit_test(test_auto_identical),  cmocka_unit_test(test_rejects),
      cmocka_unit_test(test_alloc_failures),  cmocka_unit_test(test_large_identical),
      cmocka_unit_test(test_shared_codes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
