/* Assignments for UPDATE: column -> value maps such as
 * table.update("doc_id = 'doc1'", {"text": "redacted"}), applied to the
 * selected rows of a batch to produce new arrays of the columns' types.
 *
 * Values arrive as SQL literal text ("'redacted'", "42", "NULL",
 * "DATE '2024-01-01'"), as a plain string cast to the column's type (the
 * rules of expr/cast.h, for Python strings), or as typed values. They are
 * converted once, when added, and must fit the column exactly: 300 into an
 * int8, 1.5 into an int, NULL into a non-nullable column, a string of the
 * wrong length into fixed_size_binary are HUDI_ERR_INVALID_ARG naming the
 * column. Decimal text with more fraction digits than the scale rounds half
 * away from zero (as casts do). Top-level columns only. */
#ifndef HUDI_EXPR_ASSIGN_H
#define HUDI_EXPR_ASSIGN_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "base/error.h"
#include "expr/pred.h"
#include "expr/value.h"
#include "hudi/arrow_abi.h"

typedef struct hudi_assignments hudi_assignments;

/* schema: the struct of the batches the assignments will apply to (copied). */
HUDI_NODISCARD hudi_status hudi_assignments_create(hudi_assignments **out, const hudi_arrow_field *schema,
                                                   hudi_error *err);
void hudi_assignments_free(hudi_assignments *a);

/* column = a SQL literal. Assigning a column twice replaces the value. */
HUDI_NODISCARD hudi_status hudi_assignments_add_sql(hudi_assignments *a, const char *column, const char *literal,
                                                    hudi_error *err);
/* column = value (len bytes) cast to the column's type; value NULL: NULL. */
HUDI_NODISCARD hudi_status hudi_assignments_add_string(hudi_assignments *a, const char *column, const char *value,
                                                       size_t len, hudi_error *err);
/* column = a typed value of the column's comparison class (bytes copied). */
HUDI_NODISCARD hudi_status hudi_assignments_add_value(hudi_assignments *a, const char *column,
                                                      const hudi_value *v, hudi_error *err);

size_t hudi_assignments_count(const hudi_assignments *a);
/* The schema position of assignment k's column. */
int64_t hudi_assignments_column(const hudi_assignments *a, size_t k);

/* For every assignment k, out[k] receives a new array of batch's length
 * for its column: the assigned value on rows selected by sel (NULL: every
 * row), the batch's own value elsewhere. The caller releases out[k]; on
 * failure nothing is left in out. */
HUDI_NODISCARD hudi_status hudi_assignments_apply(struct ArrowArray *out, const hudi_assignments *a,
                                                  const hudi_arrow_view *batch, const hudi_selection *sel,
                                                  hudi_error *err);

/* The whole batch rebuilt (a struct array of the schema's columns, in the
 * builders' normalised types) with the assignments applied to the selected
 * rows; *out_schema (may be NULL) receives its schema. */
HUDI_NODISCARD hudi_status hudi_assignments_apply_batch(struct ArrowArray *out, struct ArrowSchema *out_schema,
                                                        const hudi_assignments *a, const hudi_arrow_view *batch,
                                                        const hudi_selection *sel, hudi_error *err);

#endif
