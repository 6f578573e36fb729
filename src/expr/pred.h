/* Bound predicates: a parsed predicate resolved against a schema, its
 * literals coerced to the column types, ready to evaluate over record
 * batches, over single rows (partition values), and over statistics
 * (min/max pruning).
 *
 * Semantics are SQL's (Spark, DuckDB): three-valued logic, a comparison
 * with NULL is unknown, NOT unknown is unknown, a WHERE keeps only rows
 * where the predicate is TRUE. `x IN (a, NULL)` is TRUE when x = a and
 * unknown otherwise; NOT IN is the negation of IN. Doubles order NaN above
 * every number and NaN = NaN (Spark, DuckDB); -0.0 = 0.0.
 *
 * Literal coercion (at bind time, once):
 *  - numbers against integer, unsigned and decimal columns compare exactly:
 *    `pos > 2.5` on an int column is `pos >= 3`, `pos = 2.5` is FALSE for
 *    every non-null pos, `u < -1` on an unsigned column is FALSE;
 *  - numbers against float/double columns compare as doubles;
 *  - strings against non-string columns are cast to the column's type by
 *    the rules of expr/cast.h (as arrow-rs and hence hudi-rs cast them):
 *    `d = '2024-01-01'` on a date column, `n = '5'` on an int column; a
 *    string that does not cast is an error naming the column;
 *  - DATE and TIMESTAMP literals compare with date32/date64/timestamp
 *    columns at the column's unit, exactly (sub-unit parts handled as for
 *    numbers); a naive TIMESTAMP literal is in the column's timezone;
 *  - hudi-rs filter values (HUDI_LIT_RAW) are always cast like strings;
 *  - anything else (a number against a string column, TRUE against an int
 *    column) is HUDI_ERR_INVALID_ARG: "cannot compare column 'pos'
 *    (int32) with 'abc'".
 * Column names resolve exactly, then (SQL text only) by a unique
 * case-insensitive match, as Spark does; dotted names walk struct fields. */
#ifndef HUDI_EXPR_PRED_H
#define HUDI_EXPR_PRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "base/error.h"
#include "expr/ast.h"
#include "expr/value.h"

typedef struct hudi_pred hudi_pred;

/* SQL truth values. */
typedef enum hudi_tv { HUDI_TV_FALSE = 0, HUDI_TV_TRUE = 1, HUDI_TV_UNKNOWN = 2 } hudi_tv;

/* Binds e to schema (a struct field whose children are the columns). The
 * predicate keeps copies of what it needs: e and schema may be freed after.
 * Unknown columns are HUDI_ERR_INVALID_ARG naming the column, its position
 * and close matches. */
HUDI_NODISCARD hudi_status hudi_pred_bind(hudi_pred **out, const hudi_expr *e, const hudi_arrow_field *schema,
                                          hudi_error *err);
/* Parse and bind in one step. */
HUDI_NODISCARD hudi_status hudi_pred_compile(hudi_pred **out, const char *sql, const hudi_arrow_field *schema,
                                             hudi_error *err);
void hudi_pred_free(hudi_pred *p);

/* The columns the predicate reads, numbered 0..n-1 (the order of first
 * use). Statistics and row values are passed in this order. */
size_t hudi_pred_n_columns(const hudi_pred *p);
/* Dotted path, e.g. "address.city" (names as in the schema). */
const char *hudi_pred_column_name(const hudi_pred *p, size_t k);
/* The column's field (a copy owned by p); for dictionary-encoded fields,
 * comparisons use the dictionary's value type. */
const hudi_arrow_field *hudi_pred_column_field(const hudi_pred *p, size_t k);
/* Child indices from the schema root to the column; *depth entries. */
const int32_t *hudi_pred_column_path(const hudi_pred *p, size_t k, size_t *depth);

/* ---- evaluation over a batch ---- */

/* Rows where a predicate is TRUE: bit i of bits is row i. */
typedef struct hudi_selection {
  uint64_t *bits; /* owned; (n_rows + 63) / 64 words, bits past n_rows clear */
  int64_t n_rows;
  int64_t n_selected;
} hudi_selection;

static inline bool hudi_selection_get(const hudi_selection *s, int64_t i) {
  return (s->bits[i >> 6] >> (i & 63)) & 1;
}
void hudi_selection_free(hudi_selection *s);
/* The selected row numbers in increasing order; *out owned by the caller
 * (hudi_free; NULL when none are selected). */
HUDI_NODISCARD hudi_status hudi_selection_indices(int64_t **out, int64_t *n, const hudi_selection *s,
                                                  hudi_error *err);

/* Evaluates p over batch (a struct view of the bound schema's shape: the
 * same columns at the same positions, each of the bound comparison class).
 * A column whose type differs from the bound one is HUDI_ERR_INVALID_ARG.
 * *out is owned by the caller (hudi_selection_free). */
HUDI_NODISCARD hudi_status hudi_pred_eval(hudi_selection *out, const hudi_pred *p, const hudi_arrow_view *batch,
                                          hudi_error *err);

/* The truth value of p for one row: values[k] is column k's value (of the
 * column's class; is_null for NULL). */
hudi_tv hudi_pred_eval_row(const hudi_pred *p, const hudi_value *values);

/* ---- pruning ---- */

/* What is known of one column in a file or row group. Non-null values lie
 * in [min, max] (each optional); NaNs (doubles) may lie outside unless
 * nan_count is 0. Counts are -1 when unknown. */
typedef struct hudi_col_stats {
  bool has_min, has_max;
  hudi_value min, max; /* of the column's class */
  int64_t null_count;
  int64_t nan_count;
} hudi_col_stats;

#define HUDI_COL_STATS_UNKNOWN {false, false, {0}, {0}, -1, -1}

/* Sets *might_match to false only when no row of a file with these
 * statistics (stats[k] for column k; row_count -1 when unknown) can make p
 * TRUE. Conservative: true whenever in doubt. */
void hudi_pred_prune(bool *might_match, const hudi_pred *p, const hudi_col_stats *stats, int64_t row_count);

/* One partition column's value as the partition path gives it; value NULL
 * for a null partition value (e.g. Hive's __HIVE_DEFAULT_PARTITION__,
 * which the caller maps). */
typedef struct hudi_partition_value {
  const char *name;
  const char *value;
  size_t len;
} hudi_partition_value;

/* Partition pruning: the values (strings) are cast to the types the bound
 * schema gives the named top-level columns (expr/cast.h rules); columns of
 * p that are not partition columns are unknown. *might_match is false only
 * when no row of the partition can make p TRUE. A value that does not cast
 * is HUDI_ERR_INVALID_ARG naming the column. */
HUDI_NODISCARD hudi_status hudi_pred_prune_partition(bool *might_match, const hudi_pred *p,
                                                     const hudi_partition_value *values, size_t n,
                                                     hudi_error *err);

#endif
