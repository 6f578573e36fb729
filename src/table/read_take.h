/* Copying selected rows of a batch into exactly sized Arrow buffers
 * (merge and filter output, read_slice.c). A builder grows its buffers by
 * doubling, and what it hands out keeps that slack for as long as the
 * caller holds the batch: up to twice the rows' bytes. */
#ifndef HUDI_TABLE_READ_TAKE_H
#define HUDI_TABLE_READ_TAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "arrow/view.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

/* Whether hudi_read_take handles column c: fixed-width values, booleans,
 * strings or binary with 32-bit offsets (no dictionary, no children), or
 * a list (32-bit offsets) of such elements (list<float32> embeddings:
 * fixed-width elements without nulls are copied a list at a time). */
bool hudi_read_take_supports(const hudi_arrow_view *c);

/* *out: a struct array of n rows whose column k is column cols[k] of the
 * struct view v (every one supported) at rows rows[0..n) of v. */
HUDI_NODISCARD hudi_status hudi_read_take(struct ArrowArray *out, const hudi_arrow_view *v, const int64_t *cols,
                                          int64_t n_cols, const int64_t *rows, int64_t n, hudi_error *err);

#endif
