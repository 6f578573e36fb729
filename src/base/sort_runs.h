/* Sorting arrays that arrive as a few sorted runs (hudi_sort_runs). */
#ifndef HUDI_BASE_SORT_RUNS_H
#define HUDI_BASE_SORT_RUNS_H

#include <stddef.h>

#include "base/error.h"

/* Sorts base[0, n) (elements of `size` bytes) by cmp, which must be a
 * total order (no two elements equal). When the array is at most max_runs
 * ascending runs (e.g. records concatenated from blocks each in key
 * order) the runs are merged pairwise, one pass over the array per
 * doubling, with a scratch copy of the array; otherwise qsort sorts it in
 * place. An array already in order costs one pass of comparisons. */
HUDI_NODISCARD hudi_status hudi_sort_runs(void *base, size_t n, size_t size,
                                          int (*cmp)(const void *, const void *), size_t max_runs,
                                          hudi_error *err);

#endif
