/* hudi_sort_runs against qsort (the oracle): arrays made of k ascending
 * runs of random lengths, below, at and above the run cap, come out equal
 * to qsort's order; an allocation failure leaves the array as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sort_runs.h"

/* A key with ties broken by arrival, as the metadata merge orders log
 * records; the padding makes the element size odd-sized (20 bytes). */
typedef struct rec {
  uint32_t key;
  uint32_t seq;
  uint8_t pad[12];
} rec;

static int cmp_rec(const void *a, const void *b) {
  const rec *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t next_u32(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)rng;
}

/* n records as `runs` ascending runs (each sorted by key, keys drawn from
 * a small range so that keys repeat across runs), seq in array order. */
static rec *make_runs(size_t n, size_t runs) {
  rec *a = calloc(n ? n : 1, sizeof *a);
  size_t at = 0;
  for (size_t r = 0; r < runs; r++) {
    size_t len = r + 1 == runs ? n - at : (n - at) / (runs - r) + (next_u32() % 3) - 1;
    if (len > n - at) len = n - at;
    uint32_t k = next_u32() % 50;
    for (size_t i = 0; i < len; i++) {
      k += next_u32() % 4; /* non-decreasing: runs of equal keys too */
      a[at + i].key = k;
    }
    at += len;
  }
  for (size_t i = 0; i < n; i++) {
    a[i].seq = (uint32_t)i;
    memset(a[i].pad, (int)(i & 0xff), sizeof a[i].pad);
  }
  return a;
}

static void check_against_qsort(size_t n, size_t runs, size_t max_runs) {
  rec *got = make_runs(n, runs);
  rec *want = malloc((n ? n : 1) * sizeof *want);
  memcpy(want, got, n * sizeof *want);
  qsort(want, n, sizeof *want, cmp_rec);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sort_runs(got, n, sizeof *got, cmp_rec, max_runs, &err), HUDI_OK);
  assert_memory_equal(got, want, n * sizeof *got);
  free(got);
  free(want);
}

static void equals_qsort(void **state) {
  (void)state;
  static const size_t sizes[] = {0, 1, 2, 3, 17, 100, 1000, 4099};
  static const size_t run_counts[] = {1, 2, 3, 5, 8, 63, 64, 65, 200};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (size_t r = 0; r < sizeof run_counts / sizeof *run_counts; r++)
      for (int rep = 0; rep < 3; rep++) {
        size_t n = sizes[s], k = run_counts[r] < n ? run_counts[r] : (n ? n : 1);
        check_against_qsort(n, k, 64);
      }
}

/* Runs beyond the cap go to qsort; a cap of 1 still sorts. */
static void run_cap(void **state) {
  (void)state;
  check_against_qsort(5000, 10, 1);
  check_against_qsort(5000, 10, 9);
  check_against_qsort(5000, 10, 10);
  /* Reverse order: every element is a run of its own. */
  rec a[300];
  for (size_t i = 0; i < 300; i++) a[i] = (rec){(uint32_t)(300 - i), (uint32_t)i, {0}};
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sort_runs(a, 300, sizeof *a, cmp_rec, 64, &err), HUDI_OK);
  for (size_t i = 0; i < 300; i++) assert_int_equal(a[i].key, i + 1);
}

/* Each allocation failing in turn: NOMEM naming the count, the array
 * untouched. */
static void allocation_failure(void **state) {
  (void)state;
  rec *a = make_runs(1000, 4);
  rec *copy = malloc(1000 * sizeof *copy);
  memcpy(copy, a, 1000 * sizeof *copy);
  for (long budget = 0; budget < 2; budget++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_alloc_fail_after(budget);
    hudi_status st = hudi_sort_runs(a, 1000, sizeof *a, cmp_rec, 64, &err);
    hudi_alloc_fail_after(-1);
    assert_int_equal(st, HUDI_ERR_NOMEM);
    assert_non_null(strstr(err.message, "1000 records"));
    assert_memory_equal(a, copy, 1000 * sizeof *a);
  }
  free(a);
  free(copy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(equals_qsort),
      cmocka_unit_test(run_cap),
      cmocka_unit_test(allocation_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
