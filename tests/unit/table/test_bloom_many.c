/* hudi_bloom_add_many (keys hashed 16 at a time in vector lanes) against
 * hudi_bloom_add (keys queued, then hashed the same way) and against an
 * independent reference written here from Hadoop's HashFunction: murmur
 * chained through its seed, Java's Math.abs(h % n) by plain division, and
 * the dynamic filter's row rule (a new row every num_entries keys up to
 * max entries, then round robin). The other bloom tests check the filters
 * bit for bit against Java's. Keys of every tail
 * length (0-3 bytes past a word), empty, non-ASCII (Java's sign-extended
 * tail bytes) and past the 128-byte lane limit; a small filter so that
 * rows are added and the round-robin phase past max entries is reached,
 * and filters of other bit counts (the bit position is a remainder by
 * the bit count, computed by multiplication on the many-keys path); keys
 * all of one length, whose groups skip the per-word masks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "table/bloom.h"

#define N 1500

/* The rows Java's filter has after keys[0, n), built without bloom.c. */
static void reference_rows(const hudi_bloom *b, int32_t entries, int32_t max_entries, const char *const *keys,
                           const size_t *lens, size_t n, uint8_t **rows, int32_t *n_rows) {
  int32_t maxe = max_entries > entries ? max_entries : entries, cur = 0, nr = 1;
  int64_t rr = 0;
  int reached = 0;
  size_t bytes = ((size_t)b->vector_size + 7) / 8;
  for (int32_t r = 0; r < 64; r++) memset(rows[r], 0, bytes);
  for (size_t i = 0; i < n; i++) {
    int32_t r;
    if (reached) {
      r = (int32_t)(rr++ % nr);
    } else if (cur >= entries && (int64_t)nr * entries < maxe) {
      nr++;
      cur = 0;
      r = nr - 1;
    } else if (cur >= entries) {
      reached = 1;
      r = (int32_t)(rr++ % nr);
    } else {
      r = nr - 1;
    }
    assert_true(nr <= 64);
    int32_t h = 0;
    for (int32_t k = 0; k < b->nb_hash; k++) {
      h = hudi_murmur2_hadoop(keys[i], lens[i], h);
      int32_t p = h % b->vector_size;
      if (p < 0) p = -p;
      rows[r][p >> 3] |= (uint8_t)(1u << (p & 7));
    }
    cur++;
  }
  *n_rows = nr;
}

/* fixed >= 0: every key that long (whole groups of one length take the
 * vector path without per-word masks); else lengths 0-210. */
static void check_keys(int32_t entries, double fpp, int32_t max_entries, int fixed) {
  hudi_error err = HUDI_ERROR_INIT;
  static char store[N][300];
  const char *keys[N];
  size_t lens[N];
  for (int i = 0; i < N; i++) {
    size_t len = (size_t)((i * 37) % 211);
    if (i % 50 == 0) len = 0;
    if (fixed >= 0) len = (size_t)fixed;
    for (size_t k = 0; k < len; k++) store[i][k] = (char)(i % 7 == 0 ? 0x80 + (i + k) % 120 : 'a' + (i * 31 + k) % 26);
    char num[16]; /* the index up front: distinct keys */
    size_t nl = (size_t)snprintf(num, sizeof num, "%d", i);
    memcpy(store[i], num, nl < len ? nl : len);
    if (len) store[i][len - 1] = (char)('A' + i % 26);
    keys[i] = store[i];
    lens[i] = len;
  }
  hudi_bloom one, many;
  assert_int_equal(hudi_bloom_init(&one, entries, fpp, max_entries, &err), HUDI_OK);
  assert_int_equal(hudi_bloom_init(&many, entries, fpp, max_entries, &err), HUDI_OK);
  for (int i = 0; i < N; i++) assert_int_equal(hudi_bloom_add(&one, keys[i], lens[i], &err), HUDI_OK);
  /* In uneven batches, as the writer's chunks end wherever they end. */
  size_t at = 0, step = 1;
  while (at < N) {
    size_t n = N - at < step ? N - at : step;
    assert_int_equal(hudi_bloom_add_many(&many, keys + at, lens + at, n, &err), HUDI_OK);
    at += n;
    step = step * 3 % 17 + 1;
  }
  if (max_entries < N) assert_true(one.reached_max);
  assert_int_equal(one.n_rows, many.n_rows);
  hudi_buf a, b;
  hudi_buf_init(&a, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&b, HUDI_BUF_DEFAULT_MAX);
  assert_int_equal(hudi_bloom_serialize(&one, &a, &err), HUDI_OK);
  assert_int_equal(hudi_bloom_serialize(&many, &b, &err), HUDI_OK);
  assert_int_equal(a.len, b.len);
  assert_memory_equal(a.data, b.data, a.len);
  for (int i = 0; i < N; i++) assert_true(hudi_bloom_might_contain(&many, keys[i], lens[i]));
  uint8_t *ref[64];
  size_t bytes = ((size_t)many.vector_size + 7) / 8;
  for (int r = 0; r < 64; r++) assert_non_null(ref[r] = malloc(bytes));
  int32_t ref_rows;
  reference_rows(&many, entries, max_entries, keys, lens, N, ref, &ref_rows);
  assert_int_equal(many.n_rows, ref_rows);
  for (int32_t r = 0; r < ref_rows; r++) assert_memory_equal(many.rows[r], ref[r], bytes);
  for (int r = 0; r < 64; r++) free(ref[r]);
  hudi_buf_free(&a);
  hudi_buf_free(&b);
  hudi_bloom_free(&one);
  hudi_bloom_free(&many);
}

static void check_sizes(int32_t entries, double fpp, int32_t max_entries) {
  check_keys(entries, fpp, max_entries, -1);
}

static void same_as_one_at_a_time(void **state) {
  (void)state;
  check_sizes(100, 1e-6, 300);
}

/* Java's default sizing (60,000 keys at 1e-9: 2,587,617 bits), an odd
 * small size and a power of two's neighbourhood. */
static void other_bit_counts(void **state) {
  (void)state;
  check_sizes(60000, 1e-9, 100000);
  check_sizes(7, 0.5, 7);
  check_sizes(1000, 1e-3, 5000);
  check_sizes(1, 0.9, 1);
  /* Tiny filters: 3 and 13 bits. */
  check_sizes(1, 0.3, 1);
  check_sizes(5, 0.3, 20);
}

/* Keys all of one length: uuids (36 bytes, no tail), every tail length,
 * a single word, empty keys, the 128-byte lane limit. */
static void keys_of_one_length(void **state) {
  (void)state;
  static const int lens[] = {36, 37, 38, 39, 4, 0, 128};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) check_keys(100, 1e-6, 300, lens[i]);
  check_keys(60000, 1e-9, 100000, 36);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(same_as_one_at_a_time), cmocka_unit_test(other_bit_counts),
                                     cmocka_unit_test(keys_of_one_length)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
