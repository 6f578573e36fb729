/* Builders: the write side of libhudi's Arrow layer. A builder is made from
 * a field (its schema) and exports an ArrowArray (and the matching
 * ArrowSchema) whose release callbacks free everything through hudi_free.
 *
 * Types written (the "normalised" types): every type of type.h, except that
 * dictionary-encoded fields are written decoded (as their value type) and
 * string_view/binary_view are written as string/binary. Large types stay
 * large (large_string, large_binary, large_list), so no value that fitted
 * before can overflow 32-bit offsets; a string/binary/list builder refuses
 * (HUDI_ERR_LIMIT) data past 2^31-1 bytes or elements.
 *
 * Appending: scalars with the typed calls; nested values by appending to
 * the child builders and then calling hudi_arrow_builder_end_element (list,
 * large_list, fixed_size_list, map: the children appended since the last
 * element form this element; struct: each child got exactly one value);
 * nulls of any type with hudi_arrow_builder_append_null (nested children
 * get the filler they need). After a failed append the builder's contents
 * are unspecified: export nothing from it, only free it. */
#ifndef HUDI_ARROW_BUILDER_H
#define HUDI_ARROW_BUILDER_H

#include <stdbool.h>
#include <stdint.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_arrow_builder hudi_arrow_builder;

/* Makes a builder for (a normalised copy of) field. Free with
 * hudi_arrow_builder_free. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_create(hudi_arrow_builder **out,
                                                     const hudi_arrow_field *field, hudi_error *err);
void hudi_arrow_builder_free(hudi_arrow_builder *b);

/* The normalised field this builder writes. */
const hudi_arrow_field *hudi_arrow_builder_field(const hudi_arrow_builder *b);
/* Elements appended since creation or the last finish. */
int64_t hudi_arrow_builder_length(const hudi_arrow_builder *b);
/* Child i of a nested builder (list-likes: 0; map: 0 is the entries struct). */
hudi_arrow_builder *hudi_arrow_builder_child(hudi_arrow_builder *b, int64_t i);

HUDI_NODISCARD hudi_status hudi_arrow_builder_append_null(hudi_arrow_builder *b, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_bool(hudi_arrow_builder *b, bool v, hudi_error *err);
/* int8..int64, date32/64, time32/64, timestamp, duration; range-checked. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_int(hudi_arrow_builder *b, int64_t v, hudi_error *err);
/* uint8..uint64; range-checked. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_uint(hudi_arrow_builder *b, uint64_t v,
                                                          hudi_error *err);
/* float (narrowed) and double. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_double(hudi_arrow_builder *b, double v,
                                                            hudi_error *err);
/* string, large_string, binary, large_binary; fixed_size_binary, decimal
 * and float16 when len equals their byte width (little-endian layout). */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_bytes(hudi_arrow_builder *b, const void *data,
                                                           int64_t len, hudi_error *err);
static inline hudi_status hudi_arrow_builder_append_str(hudi_arrow_builder *b, const char *s,
                                                        hudi_error *err) {
  return hudi_arrow_builder_append_bytes(b, s, (int64_t)strlen(s), err);
}
/* n valid copies of one value, or n values data[j] of lens[j] bytes:
 * string, large_string, binary and large_binary only (one reservation and
 * a few large copies instead of a call per element). On an error nothing
 * is appended. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_repeat(hudi_arrow_builder *b, const void *data, int64_t len,
                                                            size_t n, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_bytes_many(hudi_arrow_builder *b, const void *const *data,
                                                                const size_t *lens, size_t n, hudi_error *err);
/* Closes one valid element of a nested builder (see above). */
HUDI_NODISCARD hudi_status hudi_arrow_builder_end_element(hudi_arrow_builder *b, hudi_error *err);

/* Appends a deep copy of element i of v (any flavour the view reads:
 * dictionaries are decoded, views copied into plain buffers). v's type must
 * match the builder's (string-like into string-like, binary-like into
 * binary-like, otherwise equal types); HUDI_ERR_INVALID_ARG names the column. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_view(hudi_arrow_builder *b,
                                                          const hudi_arrow_view *v, int64_t i,
                                                          hudi_error *err);
/* Elements [start, start + n) of v. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_view_range(hudi_arrow_builder *b,
                                                                const hudi_arrow_view *v,
                                                                int64_t start, int64_t n,
                                                                hudi_error *err);
/* Makes elements [start, start + n) of v (n > 0) this builder's whole next
 * array without copying them: the array finish exports points into v's
 * buffers (owning none of them), so those buffers (not v itself) must
 * outlive that array. Only on an empty builder of a flat fixed-width,
 * string or binary type that v has exactly; returns false, changing
 * nothing, when that does not hold (the caller copies instead). Appending
 * to the builder before it is finished makes finish fail. */
bool hudi_arrow_builder_lend_range(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t start, int64_t n);
/* Element rows[j] of views[j], for j in [0, m): a gather, each element
 * possibly from a different view (rows in another order than stored, e.g.
 * sorted by key). The same result as m calls of append_view; fixed-width
 * and string/binary columns are copied without a call per element, and the
 * input is prefetched ahead of the copy (a gather misses the cache on
 * nearly every element). */
HUDI_NODISCARD hudi_status hudi_arrow_builder_append_gather(hudi_arrow_builder *b,
                                                            const hudi_arrow_view *const *views,
                                                            const int64_t *rows, size_t m,
                                                            hudi_error *err);

/* Moves everything appended so far into *out and empties the builder,
 * which can then build the next array. On failure nothing is moved. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_finish(hudi_arrow_builder *b, struct ArrowArray *out,
                                                     hudi_error *err);
/* The ArrowSchema of the arrays this builder exports. */
HUDI_NODISCARD hudi_status hudi_arrow_builder_export_schema(const hudi_arrow_builder *b,
                                                            struct ArrowSchema *out, hudi_error *err);

/* ---- record batches: a struct of columns, every row valid ---- */

typedef struct hudi_arrow_batch_builder hudi_arrow_batch_builder;

/* schema must be a struct field; its children are the columns. */
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_create(hudi_arrow_batch_builder **out,
                                                           const hudi_arrow_field *schema,
                                                           hudi_error *err);
void hudi_arrow_batch_builder_free(hudi_arrow_batch_builder *bb);
int64_t hudi_arrow_batch_builder_n_columns(const hudi_arrow_batch_builder *bb);
hudi_arrow_builder *hudi_arrow_batch_builder_column(hudi_arrow_batch_builder *bb, int64_t i);
/* After appending one value to every column: checks that, closes the row. */
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_end_row(hudi_arrow_batch_builder *bb,
                                                            hudi_error *err);
/* After appending n values to every column (a column at a time): checks
 * that, closes n rows. */
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_end_rows(hudi_arrow_batch_builder *bb, int64_t n,
                                                             hudi_error *err);
/* Copies rows [start, start + n) of a struct view with the same columns. */
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_append_rows(hudi_arrow_batch_builder *bb,
                                                                const hudi_arrow_view *batch,
                                                                int64_t start, int64_t n,
                                                                hudi_error *err);
int64_t hudi_arrow_batch_builder_n_rows(const hudi_arrow_batch_builder *bb);
/* Exports the rows so far as one batch (a struct array without nulls) and
 * starts the next batch. */
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_finish(hudi_arrow_batch_builder *bb,
                                                           struct ArrowArray *out, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_arrow_batch_builder_export_schema(const hudi_arrow_batch_builder *bb,
                                                                  struct ArrowSchema *out,
                                                                  hudi_error *err);

#endif
