/* Canonical SQL text of a parsed predicate: every name back-quoted, every
 * compound child parenthesised, so that parsing the text gives the same
 * tree (the fuzzer checks this). */
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "expr/ast.h"

const char *hudi_cmp_op_name(hudi_cmp_op op) {
  static const char *names[] = {"=", "!=", "<", "<=", ">", ">="};
  return (unsigned)op < 6 ? names[op] : "?";
}

static hudi_status quoted(hudi_buf *b, const char *s, size_t n, char q, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_byte(b, (uint8_t)q, err));
  for (size_t i = 0; i < n; i++) {
    if (s[i] == q) HUDI_TRY(hudi_buf_append_byte(b, (uint8_t)q, err));
    HUDI_TRY(hudi_buf_append_byte(b, (uint8_t)s[i], err));
  }
  return hudi_buf_append_byte(b, (uint8_t)q, err);
}

static hudi_status literal(hudi_buf *b, const hudi_expr_literal *l, hudi_error *err) {
  switch (l->kind) {
    case HUDI_LIT_NULL: return hudi_buf_append_str(b, "NULL", err);
    case HUDI_LIT_BOOL: return hudi_buf_append_str(b, l->b ? "TRUE" : "FALSE", err);
    case HUDI_LIT_INT:
    case HUDI_LIT_DECIMAL:
    case HUDI_LIT_FLOAT: return hudi_buf_append(b, l->text, l->len, err);
    case HUDI_LIT_DATE: HUDI_TRY(hudi_buf_append_str(b, "DATE ", err)); break;
    case HUDI_LIT_TIMESTAMP: HUDI_TRY(hudi_buf_append_str(b, "TIMESTAMP ", err)); break;
    default: break;
  }
  return quoted(b, l->text, l->len, '\'', err);
}

static hudi_status operand(hudi_buf *b, const hudi_expr_operand *o, hudi_error *err) {
  if (!o->is_column) return literal(b, &o->lit, err);
  for (size_t i = 0; i < o->n_parts; i++) {
    if (i) HUDI_TRY(hudi_buf_append_byte(b, '.', err));
    HUDI_TRY(quoted(b, o->parts[i], strlen(o->parts[i]), '`', err));
  }
  return HUDI_OK;
}

static hudi_status render(hudi_buf *b, const hudi_expr *e, hudi_error *err) {
  switch (e->kind) {
    case HUDI_EXPR_AND:
    case HUDI_EXPR_OR:
      if (e->n_children == 0) return hudi_buf_append_str(b, e->kind == HUDI_EXPR_AND ? "TRUE" : "FALSE", err);
      for (size_t i = 0; i < e->n_children; i++) {
        if (i) HUDI_TRY(hudi_buf_append_str(b, e->kind == HUDI_EXPR_AND ? " AND " : " OR ", err));
        HUDI_TRY(hudi_buf_append_byte(b, '(', err));
        HUDI_TRY(render(b, e->children[i], err));
        HUDI_TRY(hudi_buf_append_byte(b, ')', err));
      }
      return HUDI_OK;
    case HUDI_EXPR_NOT:
      HUDI_TRY(hudi_buf_append_str(b, "NOT (", err));
      HUDI_TRY(render(b, e->children[0], err));
      return hudi_buf_append_byte(b, ')', err);
    case HUDI_EXPR_CMP:
      HUDI_TRY(operand(b, &e->lhs, err));
      HUDI_TRY(hudi_buf_printf(b, err, " %s ", hudi_cmp_op_name(e->op)));
      return operand(b, &e->rhs, err);
    case HUDI_EXPR_IN:
      HUDI_TRY(operand(b, &e->lhs, err));
      HUDI_TRY(hudi_buf_append_str(b, e->negated ? " NOT IN (" : " IN (", err));
      for (size_t i = 0; i < e->n_list; i++) {
        if (i) HUDI_TRY(hudi_buf_append_str(b, ", ", err));
        HUDI_TRY(literal(b, &e->list[i], err));
      }
      return hudi_buf_append_byte(b, ')', err);
    case HUDI_EXPR_IS_NULL:
      HUDI_TRY(operand(b, &e->lhs, err));
      return hudi_buf_append_str(b, e->negated ? " IS NOT NULL" : " IS NULL", err);
    case HUDI_EXPR_LIKE:
      HUDI_TRY(operand(b, &e->lhs, err));
      HUDI_TRY(hudi_buf_append_str(b, e->negated ? " NOT LIKE " : " LIKE ", err));
      return operand(b, &e->rhs, err);
    case HUDI_EXPR_OPERAND: return operand(b, &e->lhs, err);
  }
  return HUDI_OK;
}

hudi_status hudi_expr_to_string(char **out, size_t *out_len, const hudi_expr *e, hudi_error *err) {
  *out = NULL;
  if (out_len) *out_len = 0;
  hudi_buf b;
  hudi_buf_init(&b, HUDI_EXPR_MAX_LEN * 4);
  hudi_status st = render(&b, e, err);
  uint8_t *data = NULL;
  size_t len;
  if (st == HUDI_OK) st = hudi_buf_detach(&b, &data, &len, err);
  hudi_buf_free(&b);
  if (st == HUDI_OK) {
    *out = (char *)data;
    if (out_len) *out_len = len;
  }
  return st;
}
