/* Parsed (unbound) predicates: the syntax tree of a SQL WHERE clause as
 * Spark SQL and DuckDB users write it, or of hudi-rs filter tuples.
 *
 * Grammar (keywords case-insensitive):
 *   expr      := and_expr (OR and_expr)*
 *   and_expr  := not_expr (AND not_expr)*
 *   not_expr  := NOT not_expr | predicate
 *   predicate := '(' expr ')'
 *              | operand [ cmp_op operand
 *                        | [NOT] IN '(' literal (',' literal)* ')'
 *                        | IS [NOT] NULL
 *                        | [NOT] BETWEEN operand AND operand
 *                        | [NOT] LIKE 'pattern' ]
 *   cmp_op    := = | == | != | <> | < | <= | > | >=
 *   operand   := column | literal
 *   column    := name ('.' name)*      name: bare, "double quoted" or `backquoted`
 *   literal   := 'string' ('' escapes a quote) | [+|-] number | TRUE | FALSE | NULL
 *              | DATE 'yyyy-mm-dd' | TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.f][offset]'
 * A lone operand is a predicate too: a boolean column, or TRUE/FALSE/NULL.
 * BETWEEN becomes (x >= a AND x <= b); NOT forms keep SQL's three-valued
 * meaning. AND/OR chains are flattened into n-ary nodes, so only nesting
 * (parentheses, NOT) deepens the tree, and that is capped. */
#ifndef HUDI_EXPR_AST_H
#define HUDI_EXPR_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define HUDI_EXPR_MAX_LEN ((size_t)1 << 20)   /* bytes of predicate text */
#define HUDI_EXPR_MAX_DEPTH 128               /* nested parentheses / NOTs */
#define HUDI_EXPR_MAX_NAME_PARTS 64           /* a.b.c... */
#define HUDI_EXPR_MAX_LIST ((size_t)1 << 20)  /* IN list entries */

typedef enum hudi_cmp_op {
  HUDI_CMP_EQ = 0,
  HUDI_CMP_NE,
  HUDI_CMP_LT,
  HUDI_CMP_LE,
  HUDI_CMP_GT,
  HUDI_CMP_GE
} hudi_cmp_op;

typedef enum hudi_lit_kind {
  HUDI_LIT_NULL = 0,
  HUDI_LIT_BOOL,
  HUDI_LIT_INT,       /* text: [-]digits */
  HUDI_LIT_DECIMAL,   /* text: [-]digits.digits */
  HUDI_LIT_FLOAT,     /* text with an exponent */
  HUDI_LIT_STRING,    /* text: the unescaped bytes */
  HUDI_LIT_DATE,      /* text: the quoted date */
  HUDI_LIT_TIMESTAMP, /* text: the quoted timestamp */
  HUDI_LIT_RAW        /* hudi-rs tuple value: cast to the column type as arrow-rs does */
} hudi_lit_kind;

typedef struct hudi_expr_literal {
  hudi_lit_kind kind;
  bool b;       /* BOOL */
  char *text;   /* owned, NUL-terminated (may contain NULs for strings) */
  size_t len;
  uint32_t pos; /* byte offset in the source */
} hudi_expr_literal;

typedef struct hudi_expr_operand {
  bool is_column;
  char **parts; /* column: owned name parts */
  size_t n_parts;
  hudi_expr_literal lit; /* literal */
  uint32_t pos;
} hudi_expr_operand;

typedef enum hudi_expr_kind {
  HUDI_EXPR_AND = 0, /* children */
  HUDI_EXPR_OR,      /* children */
  HUDI_EXPR_NOT,     /* children[0] */
  HUDI_EXPR_CMP,     /* lhs op rhs */
  HUDI_EXPR_IN,      /* lhs [NOT] IN list */
  HUDI_EXPR_IS_NULL, /* lhs IS [NOT] NULL */
  HUDI_EXPR_LIKE,    /* lhs [NOT] LIKE pattern (rhs, a string literal) */
  HUDI_EXPR_OPERAND  /* lhs alone: a boolean column or TRUE/FALSE/NULL */
} hudi_expr_kind;

typedef struct hudi_expr hudi_expr;
struct hudi_expr {
  hudi_expr_kind kind;
  uint32_t pos;
  bool negated; /* NOT IN, IS NOT NULL, NOT LIKE */
  hudi_cmp_op op;
  hudi_expr **children;
  size_t n_children;
  hudi_expr_operand lhs, rhs;
  hudi_expr_literal *list;
  size_t n_list;
};

/* Parses a predicate. *out is owned by the caller (hudi_expr_free). Syntax
 * errors are HUDI_ERR_INVALID_ARG naming the 0-based byte position and
 * what was expected: "unexpected token ')' at position 17; expected a
 * column or a literal". Over-long or over-deep input: HUDI_ERR_LIMIT. */
HUDI_NODISCARD hudi_status hudi_expr_parse(hudi_expr **out, const char *text, size_t len,
                                           hudi_error *err);

/* A hudi-rs filter tuple (field, op, value): op is one of = != < <= > >=
 * IN, NOT IN (ASCII case-insensitive, exactly as hudi-rs spells them);
 * the field is a column name taken verbatim (no quoting, no dots); value is
 * the raw string cast to the column's type at binding. For IN / NOT IN it
 * is split on unescaped commas ("\," is a comma, "\\" a backslash), each
 * part trimmed and empty parts dropped; at least one must remain. */
HUDI_NODISCARD hudi_status hudi_expr_from_filter(hudi_expr **out, const char *field, const char *op,
                                                 const char *value, hudi_error *err);

/* The AND of n filter tuples (fields[i], ops[i], values[i]); n == 0 gives
 * the always-true predicate. */
HUDI_NODISCARD hudi_status hudi_expr_from_filters(hudi_expr **out, const char *const *fields,
                                                  const char *const *ops, const char *const *values,
                                                  size_t n, hudi_error *err);

/* The AND of a and b; takes ownership of both (freed on failure too). */
HUDI_NODISCARD hudi_status hudi_expr_and(hudi_expr **out, hudi_expr *a, hudi_expr *b, hudi_error *err);

void hudi_expr_free(hudi_expr *e);

/* Parses one literal (as in a predicate: 'text', 42, -1.5, TRUE, NULL,
 * DATE '...', TIMESTAMP '...') filling *out (owned: free with
 * hudi_expr_literal_clear). Used by assignments. */
HUDI_NODISCARD hudi_status hudi_expr_parse_literal(hudi_expr_literal *out, const char *text, size_t len,
                                                   hudi_error *err);
void hudi_expr_literal_clear(hudi_expr_literal *lit);

/* Writes a canonical SQL rendering of e (for tests and messages). *out is
 * owned by the caller (hudi_free) and NUL-terminated; *len (may be NULL)
 * gets its length, which counts NUL bytes inside string literals. */
HUDI_NODISCARD hudi_status hudi_expr_to_string(char **out, size_t *len, const hudi_expr *e, hudi_error *err);

const char *hudi_cmp_op_name(hudi_cmp_op op);

#endif
