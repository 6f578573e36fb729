/* The writer's dictionary (writer_dict.h) on its own: every index it
 * hands out names the value it was given, entries come in first-seen
 * order and are distinct, for 4- and 8-byte values (values held in their
 * slots) and for byte arrays; the index a reset leaves behind is emptied
 * before the next chunk uses it; an index dropped with its entries kept is
 * rebuilt from them by the next insert (no entry twice); a batch of one
 * value gets one index (and a batch that only nearly is one value, each
 * value its own); and past
 * max_plain the table fills to 3/4 before it doubles (the batch that
 * crosses the cap does not double a table about to be given up). The
 * oracle is a plain sort of the input: distinct values counted and
 * ordered by first appearance independently of the hash table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/writer_dict.h"

/* Deterministic values with repeats (x in [0, range)), some runs of the
 * same value (the previous-value shortcut). */
static uint64_t next_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 17;
}

static void fill(uint8_t *data, size_t n, size_t w, uint64_t range, uint64_t seed) {
  uint64_t s = seed, v = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || next_rand(&s) % 4) v = next_rand(&s) % range * 0x9E3779B1ull;
    if (w == 4) {
      uint32_t x = (uint32_t)v;
      memcpy(data + i * 4, &x, 4);
    } else {
      memcpy(data + i * 8, &v, 8);
    }
  }
}

/* Oracle: distinct values in first-seen order, by sorting (position,
 * value) pairs by value. */
typedef struct pos_val {
  uint64_t v;
  size_t pos;
} pos_val;

static int cmp_pv(const void *a, const void *b) {
  const pos_val *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_pos(const void *a, const void *b) {
  const pos_val *x = a, *y = b;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static uint64_t value_at(const uint8_t *data, size_t i, size_t w) {
  uint64_t v = 0;
  memcpy(&v, data + i * w, w);
  return v;
}

/* The dictionary's entries must be the input's distinct values in
 * first-seen order, and every index must name its row's value. */
static void check_against_oracle(const hudi_pq_dict *d, const uint8_t *data, size_t n, size_t w,
                                 const uint32_t *ix) {
  pos_val *pv = malloc(n * sizeof *pv);
  assert_non_null(pv);
  for (size_t i = 0; i < n; i++) pv[i] = (pos_val){value_at(data, i, w), i};
  qsort(pv, n, sizeof *pv, cmp_pv);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || pv[i].v != pv[i - 1].v) pv[k++] = pv[i];
  qsort(pv, k, sizeof *pv, cmp_pos);
  assert_int_equal(d->n, k);
  assert_int_equal(d->plain_size, k * w);
  for (size_t e = 0; e < k; e++) assert_true(value_at(d->values.data, e, w) == pv[e].v);
  for (size_t i = 0; i < n; i++) {
    assert_true(ix[i] < d->n);
    assert_true(value_at(d->values.data, ix[i], w) == value_at(data, i, w));
  }
  free(pv);
}

static void run_width(size_t w, size_t n, uint64_t range, size_t batch) {
  uint8_t *data = malloc(n * w);
  uint32_t *ix = malloc(n * sizeof *ix);
  assert_non_null(data);
  assert_non_null(ix);
  hudi_pq_dict d;
  hudi_pq_dict_init(&d, (int32_t)w);
  hudi_error err = {0};
  for (int round = 0; round < 3; round++) {
    fill(data, n, w, range, 7 + (uint64_t)round);
    for (size_t at = 0; at < n; at += batch) {
      size_t m = n - at < batch ? n - at : batch;
      assert_int_equal(hudi_pq_dict_insert(&d, data + at * w, NULL, m, ix + at, &err), HUDI_OK);
      /* Round 0 drops the index halfway, entries kept: the next insert
       * rebuilds it from them. */
      if (round == 0 && at < n / 2 && at + m >= n / 2) hudi_pq_dict_drop_index(&d);
    }
    check_against_oracle(&d, data, n, w, ix);
    /* Round 1 reuses the stale index after a reset; round 2 rebuilds a
     * dropped one. */
    hudi_pq_dict_reset(&d);
    if (round == 1) hudi_pq_dict_drop_index(&d);
  }
  hudi_pq_dict_free(&d);
  free(data);
  free(ix);
}

static void test_words4(void **state) {
  (void)state;
  run_width(4, 200000, 50000, 65536); /* the table grows through several sizes */
  run_width(4, 3000, 10, 7);          /* small batches, tiny dictionary */
}

static void test_words8(void **state) {
  (void)state;
  run_width(8, 200000, 150000, 4096);
  run_width(8, 1000, 1000000, 1000);
}

/* Byte arrays take the generic slots: same oracle on strings. */
static void test_byte_arrays(void **state) {
  (void)state;
  enum { N = 20000 };
  hudi_pq_dict d;
  hudi_pq_dict_init(&d, 0);
  char *text = malloc((size_t)N * 16);
  int32_t *offs = malloc((N + 1) * sizeof *offs);
  uint32_t *ix = malloc(N * sizeof *ix);
  assert_non_null(text);
  assert_non_null(offs);
  assert_non_null(ix);
  uint64_t s = 3;
  offs[0] = 0;
  for (size_t i = 0; i < N; i++) {
    int len = snprintf(text + offs[i], 16, "k%llu", (unsigned long long)(next_rand(&s) % 5000));
    offs[i + 1] = offs[i] + len;
  }
  hudi_error err = {0};
  /* Round 0 in two halves with the index dropped between them; round 1
   * after a reset, on the stale index. */
  for (int round = 0; round < 2; round++) {
    int32_t *o = offs + (round ? N / 3 : 0); /* another window of the text */
    size_t n = round ? N - N / 3 : N, half = n / 2;
    int32_t *rel = malloc((n + 1) * sizeof *rel);
    assert_non_null(rel);
    for (size_t i = 0; i <= n; i++) rel[i] = o[i] - o[0];
    const uint8_t *base = (const uint8_t *)text + o[0];
    if (round == 0) {
      assert_int_equal(hudi_pq_dict_insert(&d, base, rel, half, ix, &err), HUDI_OK);
      hudi_pq_dict_drop_index(&d);
      int32_t *rest = malloc((n - half + 1) * sizeof *rest);
      assert_non_null(rest);
      for (size_t i = 0; i <= n - half; i++) rest[i] = rel[half + i] - rel[half];
      assert_int_equal(hudi_pq_dict_insert(&d, base + rel[half], rest, n - half, ix + half, &err), HUDI_OK);
      free(rest);
    } else {
      assert_int_equal(hudi_pq_dict_insert(&d, base, rel, n, ix, &err), HUDI_OK);
    }
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
      int32_t a = d.offsets[ix[i]], b = d.offsets[ix[i] + 1];
      assert_int_equal(b - a, rel[i + 1] - rel[i]);
      assert_memory_equal(d.values.data + a, base + rel[i], (size_t)(b - a));
      if (ix[i] == distinct) distinct++; /* first-seen order: new entries come in index order */
      else assert_true(ix[i] < distinct);
    }
    assert_int_equal(d.n, distinct);
    free(rel);
    hudi_pq_dict_reset(&d);
  }
  hudi_pq_dict_free(&d);
  free(text);
  free(offs);
  free(ix);
}

/* Table size after inserting `n` distinct int32 values in one batch. */
static uint64_t slots_after(size_t n, size_t max_plain) {
  hudi_pq_dict d;
  hudi_pq_dict_init(&d, 4);
  d.max_plain = max_plain;
  uint32_t *v = malloc(n * sizeof *v), *ix = malloc(n * sizeof *ix);
  assert_non_null(v);
  assert_non_null(ix);
  for (size_t i = 0; i < n; i++) v[i] = (uint32_t)(i * 2654435761u);
  hudi_error err = {0};
  assert_int_equal(hudi_pq_dict_insert(&d, (const uint8_t *)v, NULL, n, ix, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) assert_int_equal(ix[i], i);
  uint64_t slots = d.mask + 1;
  hudi_pq_dict_free(&d);
  free(v);
  free(ix);
  return slots;
}

/* The same for byte arrays ("s0000".. : 5 bytes, 9 in the PLAIN page). */
static uint64_t byte_slots_after(size_t n, size_t max_plain) {
  hudi_pq_dict d;
  hudi_pq_dict_init(&d, 0);
  d.max_plain = max_plain;
  char *text = malloc(n * 5 + 1);
  int32_t *offs = malloc((n + 1) * sizeof *offs);
  uint32_t *ix = malloc(n * sizeof *ix);
  assert_non_null(text);
  assert_non_null(offs);
  assert_non_null(ix);
  offs[0] = 0;
  for (size_t i = 0; i < n; i++) {
    char tmp[32];
    snprintf(tmp, sizeof tmp, "s%04u", (unsigned)(i % 10000));
    memcpy(text + i * 5, tmp, 5);
    offs[i + 1] = (int32_t)(i * 5 + 5);
  }
  hudi_error err = {0};
  assert_int_equal(hudi_pq_dict_insert(&d, (const uint8_t *)text, offs, n, ix, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) assert_int_equal(ix[i], i);
  uint64_t slots = d.mask + 1;
  hudi_pq_dict_free(&d);
  free(text);
  free(offs);
  free(ix);
  return slots;
}

static void test_cap_growth(void **state) {
  (void)state;
  assert_int_equal(byte_slots_after(1400, 0), 4096);
  assert_int_equal(byte_slots_after(1400, 1024 * 9), 2048);
  assert_int_equal(byte_slots_after(1600, 1024 * 9), 4096);
  /* 1400 entries: half-full doubling reaches 4096 slots; with a 4 KiB cap
   * (1024 int32 entries) the table stays at 2048 until 3/4 full. */
  assert_int_equal(slots_after(1400, 0), 4096);
  assert_int_equal(slots_after(1400, 4096), 2048);
  /* Past 3/4 it doubles again, cap or not. */
  assert_int_equal(slots_after(1600, 4096), 4096);
  /* Under the cap nothing changes. */
  assert_int_equal(slots_after(1000, 4096), 2048);
  assert_int_equal(slots_after(1000, 0), 2048);
}

/* Inserts the values of `vals` (NUL-separated, byte arrays) as one batch
 * and checks every index names its value; returns the entries' count. */
static size_t insert_strings(hudi_pq_dict *d, const char *const *vals, size_t n, uint32_t *ix) {
  char text[4096];
  int32_t offs[130];
  assert_true(n < 130);
  offs[0] = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(vals[i]);
    memcpy(text + offs[i], vals[i], len);
    offs[i + 1] = offs[i] + (int32_t)len;
  }
  hudi_error err = {0};
  assert_int_equal(hudi_pq_dict_insert(d, (const uint8_t *)text, offs, n, ix, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) {
    assert_true(ix[i] < d->n);
    int32_t a = d->offsets[ix[i]], b = d->offsets[ix[i] + 1];
    assert_int_equal((size_t)(b - a), strlen(vals[i]));
    assert_memory_equal(d->values.data + a, vals[i], (size_t)(b - a));
  }
  return d->n;
}

/* Batches of one value take one insert and copy its index (one_value);
 * batches that only nearly are (the last value's last byte, lengths that
 * differ while the bytes repeat, a different middle value) still get
 * each value's own index. */
static void test_runs_of_one_value(void **state) {
  (void)state;
  hudi_pq_dict d;
  hudi_pq_dict_init(&d, 0);
  const char *v[128];
  uint32_t ix[128];
  for (size_t i = 0; i < 100; i++) v[i] = "20261203051409331";
  assert_int_equal(insert_strings(&d, v, 100, ix), 1);
  for (size_t i = 0; i < 100; i++) assert_int_equal(ix[i], 0);
  v[99] = "20261203051409332"; /* the last byte of the last value */
  assert_int_equal(insert_strings(&d, v, 100, ix), 2);
  assert_int_equal(ix[98], 0);
  assert_int_equal(ix[99], 1);
  const char *periodic[] = {"ab", "ab", "abab", "ab"}; /* the bytes repeat, the lengths do not */
  assert_int_equal(insert_strings(&d, periodic, 4, ix), 4);
  assert_int_equal(ix[0], 2);
  assert_int_equal(ix[2], 3);
  assert_int_equal(ix[3], 2);
  const char *shift[] = {"aa", "a", "aaa"};
  assert_int_equal(insert_strings(&d, shift, 3, ix), 7);
  for (size_t i = 0; i < 50; i++) v[i] = "";
  assert_int_equal(insert_strings(&d, v, 50, ix), 8);
  for (size_t i = 0; i < 50; i++) assert_int_equal(ix[i], 7);
  for (size_t i = 0; i < 2; i++) v[i] = "ab"; /* a run of a known value: no new entry */
  assert_int_equal(insert_strings(&d, v, 2, ix), 8);
  assert_int_equal(ix[1], 2);
  /* Short values that differ in their first or last byte only (compared
   * in place, not by memcmp). */
  const char *edges[] = {"xbc", "ybc", "xbc", "xbd", "ybc"};
  assert_int_equal(insert_strings(&d, edges, 5, ix), 11);
  assert_int_equal(ix[0], ix[2]);
  assert_int_equal(ix[1], ix[4]);
  assert_true(ix[0] != ix[1] && ix[3] != ix[0]);
  hudi_pq_dict_free(&d);

  /* 16-byte fixed values: a run, then one value different in the middle. */
  hudi_pq_dict f;
  hudi_pq_dict_init(&f, 16);
  uint8_t fx[64 * 16];
  for (size_t i = 0; i < 64; i++) memcpy(fx + i * 16, "0123456789abcdef", 16);
  hudi_error err = {0};
  assert_int_equal(hudi_pq_dict_insert(&f, fx, NULL, 64, ix, &err), HUDI_OK);
  assert_int_equal(f.n, 1);
  for (size_t i = 0; i < 64; i++) assert_int_equal(ix[i], 0);
  fx[31 * 16 + 7] = 'X';
  assert_int_equal(hudi_pq_dict_insert(&f, fx, NULL, 64, ix, &err), HUDI_OK);
  assert_int_equal(f.n, 2);
  for (size_t i = 0; i < 64; i++) assert_int_equal(ix[i], i == 31 ? 1u : 0u);
  hudi_pq_dict_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs_of_one_value),
      cmocka_unit_test(test_words4),
      cmocka_unit_test(test_words8),
      cmocka_unit_test(test_byte_arrays),
      cmocka_unit_test(test_cap_growth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
