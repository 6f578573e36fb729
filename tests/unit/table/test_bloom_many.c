/* hudi_bloom_add_many against hudi_bloom_add, the one-key path that the
 * other bloom tests check bit for bit against Java's filters: the same keys
 * added either way must serialize to the same bytes. Keys of every tail
 * length (0-3 bytes past a word), empty, non-ASCII (Java's sign-extended
 * tail bytes) and past the 128-byte lane limit; a small filter so that
 * rows are added and the round-robin phase past max entries is reached,
 * and filters of other bit counts (the bit position is a remainder by
 * the bit count, computed by multiplication on the many-keys path). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "table/bloom.h"

#define N 1500

static void check_sizes(int32_t entries, double fpp, int32_t max_entries) {
  hudi_error err = HUDI_ERROR_INIT;
  static char store[N][300];
  const char *keys[N];
  size_t lens[N];
  for (int i = 0; i < N; i++) {
    size_t len = (size_t)((i * 37) % 211);
    if (i % 50 == 0) len = 0;
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
  hudi_buf_free(&a);
  hudi_buf_free(&b);
  hudi_bloom_free(&one);
  hudi_bloom_free(&many);
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
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(same_as_one_at_a_time), cmocka_unit_test(other_bit_counts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
