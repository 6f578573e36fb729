/* Natural merge sort of a few runs (sort_runs.h). */
#include "base/sort_runs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

typedef int (*cmp_fn)(const void *, const void *);

/* Merges the runs a[start[k], start[k + 1]) pairwise into b; start[] then
 * holds the merged runs' bounds. Returns their count. */
static size_t merge_pass(const uint8_t *a, uint8_t *b, size_t size, cmp_fn cmp, size_t *start, size_t runs) {
  size_t out = 0;
  for (size_t k = 0; k < runs; k += 2) {
    size_t i = start[k], mid = start[k + 1], end = k + 1 < runs ? start[k + 2] : mid, j = mid, o = i;
    while (i < mid && j < end) {
      const uint8_t *take = cmp(a + i * size, a + j * size) <= 0 ? a + i++ * size : a + j++ * size;
      memcpy(b + o++ * size, take, size);
    }
    memcpy(b + o * size, a + i * size, (mid - i) * size);
    o += mid - i;
    memcpy(b + o * size, a + j * size, (end - j) * size);
    start[out++] = start[k];
  }
  start[out] = start[runs];
  return out;
}

hudi_status hudi_sort_runs(void *base, size_t n, size_t size, cmp_fn cmp, size_t max_runs, hudi_error *err) {
  if (n < 2) return HUDI_OK;
  uint8_t *a = base;
  /* One scan finds the runs' starts, giving up past max_runs (a failed
   * allocation here is reported only if the runs need merging). */
  size_t *start = max_runs < SIZE_MAX / sizeof *start - 1 ? hudi_malloc((max_runs + 1) * sizeof *start) : NULL;
  size_t runs = 1;
  for (size_t i = 1; i < n && runs <= max_runs; i++)
    if (cmp(a + (i - 1) * size, a + i * size) > 0) {
      if (start && runs < max_runs) start[runs] = i;
      runs++;
    }
  if (runs == 1) {
    hudi_free(start);
    return HUDI_OK;
  }
  if (runs > max_runs || n > SIZE_MAX / size) {
    hudi_free(start);
    qsort(base, n, size, cmp);
    return HUDI_OK;
  }
  uint8_t *tmp = start ? hudi_malloc(n * size) : NULL;
  if (!tmp) {
    hudi_free(start);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory sorting %zu records", n);
  }
  start[0] = 0;
  start[runs] = n;
  uint8_t *src = a, *dst = tmp;
  while (runs > 1) {
    runs = merge_pass(src, dst, size, cmp, start, runs);
    uint8_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * size);
  hudi_free(start);
  hudi_free(tmp);
  return HUDI_OK;
}
