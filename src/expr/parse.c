/* The predicate lexer and recursive-descent parser (grammar in ast.h). */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "expr/ast.h"

typedef enum tok_kind {
  T_END = 0,
  T_IDENT,  /* bare name or keyword */
  T_QIDENT, /* "quoted" or `quoted` name */
  T_STRING, /* 'string' */
  T_NUMBER,
  T_OP,     /* comparison operator; op set */
  T_LPAREN,
  T_RPAREN,
  T_COMMA,
  T_DOT,
  T_PLUS,
  T_MINUS
} tok_kind;

typedef struct tok {
  tok_kind kind;
  size_t pos, len; /* raw span in the source */
  hudi_cmp_op op;
  hudi_lit_kind num_kind; /* T_NUMBER: INT, DECIMAL or FLOAT */
} tok;

typedef struct parser {
  const char *s;
  size_t n;
  tok cur;
  int depth;
  hudi_error *err;
} parser;

static bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (unsigned char)c >= 0x80;
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* ---- lexer ---- */

static hudi_status lex_error_char(parser *p, size_t pos) {
  unsigned char c = (unsigned char)p->s[pos];
  if (c >= 0x20 && c < 0x7f)
    return hudi_err_set(p->err, HUDI_ERR_INVALID_ARG, "unexpected character '%c' at position %zu", c, pos);
  return hudi_err_set(p->err, HUDI_ERR_INVALID_ARG, "unexpected byte 0x%02x at position %zu", c, pos);
}

/* Lexes the token starting at or after pos; prev is the token before it
 * (a '.' after a name is a separator, elsewhere it may start a number). */
static hudi_status lex(parser *p, tok *t, size_t pos, tok_kind prev) {
  const char *s = p->s;
  size_t n = p->n;
  while (pos < n && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r' || s[pos] == '\f'))
    pos++;
  memset(t, 0, sizeof *t);
  t->pos = pos;
  if (pos >= n) {
    t->kind = T_END;
    return HUDI_OK;
  }
  char c = s[pos];
  size_t e = pos + 1;
  if (is_ident_start(c)) {
    while (e < n && is_ident_char(s[e])) e++;
    t->kind = T_IDENT;
  } else if (c == '\'' || c == '"' || c == '`') {
    for (;;) {
      if (e >= n) {
        return hudi_err_set(p->err, HUDI_ERR_INVALID_ARG, "unterminated %s starting at position %zu",
                            c == '\'' ? "string" : "quoted name", pos);
      }
      if (s[e] == c) {
        if (e + 1 < n && s[e + 1] == c) {
          e += 2;
          continue;
        }
        e++;
        break;
      }
      e++;
    }
    t->kind = c == '\'' ? T_STRING : T_QIDENT;
  } else if (is_digit(c) || (c == '.' && pos + 1 < n && is_digit(s[pos + 1]) && prev != T_IDENT &&
                             prev != T_QIDENT)) {
    bool dot = c == '.', exp = false;
    e = pos + 1;
    while (e < n && is_digit(s[e])) e++;
    if (!dot && e < n && s[e] == '.') {
      dot = true;
      e++;
      while (e < n && is_digit(s[e])) e++;
    }
    if (e < n && (s[e] == 'e' || s[e] == 'E')) {
      size_t k = e + 1;
      if (k < n && (s[k] == '+' || s[k] == '-')) k++;
      if (k < n && is_digit(s[k])) {
        exp = true;
        while (k < n && is_digit(s[k])) k++;
        e = k;
      }
    }
    t->kind = T_NUMBER;
    t->num_kind = exp ? HUDI_LIT_FLOAT : (dot ? HUDI_LIT_DECIMAL : HUDI_LIT_INT);
  } else {
    char d = pos + 1 < n ? s[pos + 1] : 0;
    switch (c) {
      case '(': t->kind = T_LPAREN; break;
      case ')': t->kind = T_RPAREN; break;
      case ',': t->kind = T_COMMA; break;
      case '.': t->kind = T_DOT; break;
      case '+': t->kind = T_PLUS; break;
      case '-': t->kind = T_MINUS; break;
      case '=':
        t->kind = T_OP, t->op = HUDI_CMP_EQ;
        if (d == '=') e++;
        break;
      case '!':
        if (d != '=') return lex_error_char(p, pos);
        t->kind = T_OP, t->op = HUDI_CMP_NE, e++;
        break;
      case '<':
        t->kind = T_OP, t->op = HUDI_CMP_LT;
        if (d == '=') t->op = HUDI_CMP_LE, e++;
        else if (d == '>') t->op = HUDI_CMP_NE, e++;
        break;
      case '>':
        t->kind = T_OP, t->op = HUDI_CMP_GT;
        if (d == '=') t->op = HUDI_CMP_GE, e++;
        break;
      default: return lex_error_char(p, pos);
    }
  }
  t->len = e - pos;
  return HUDI_OK;
}

static hudi_status advance(parser *p) {
  tok_kind prev = p->cur.kind;
  return lex(p, &p->cur, p->cur.pos + p->cur.len, prev);
}

static bool is_kw(const parser *p, const tok *t, const char *kw) {
  if (t->kind != T_IDENT || strlen(kw) != t->len) return false;
  for (size_t i = 0; i < t->len; i++) {
    char c = p->s[t->pos + i];
    if (c >= 'a' && c <= 'z') c = (char)(c - 32);
    if (c != kw[i]) return false;
  }
  return true;
}

static bool is_reserved(const parser *p, const tok *t) {
  static const char *kws[] = {"AND", "OR", "NOT", "IN", "IS", "NULL", "BETWEEN", "LIKE", "TRUE", "FALSE"};
  for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
    if (is_kw(p, t, kws[i])) return true;
  return false;
}

static hudi_status unexpected(parser *p, const char *expected) {
  const tok *t = &p->cur;
  if (t->kind == T_END)
    return hudi_err_set(p->err, HUDI_ERR_INVALID_ARG, "unexpected end of input at position %zu; expected %s",
                        t->pos, expected);
  int shown = t->len > 40 ? 40 : (int)t->len;
  return hudi_err_set(p->err, HUDI_ERR_INVALID_ARG, "unexpected token '%.*s%s' at position %zu; expected %s",
                      shown, p->s + t->pos, shown < (int)t->len ? "..." : "", t->pos, expected);
}

/* ---- tree construction ---- */

void hudi_expr_literal_clear(hudi_expr_literal *lit) {
  hudi_free(lit->text);
  memset(lit, 0, sizeof *lit);
}

static void operand_clear(hudi_expr_operand *o) {
  for (size_t i = 0; i < o->n_parts; i++) hudi_free(o->parts[i]);
  hudi_free(o->parts);
  hudi_expr_literal_clear(&o->lit);
  memset(o, 0, sizeof *o);
}

void hudi_expr_free(hudi_expr *e) {
  if (!e) return;
  for (size_t i = 0; i < e->n_children; i++) hudi_expr_free(e->children[i]);
  hudi_free(e->children);
  operand_clear(&e->lhs);
  operand_clear(&e->rhs);
  for (size_t i = 0; i < e->n_list; i++) hudi_expr_literal_clear(&e->list[i]);
  hudi_free(e->list);
  hudi_free(e);
}

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory building a predicate");
}

static hudi_status node_new(hudi_expr **out, hudi_expr_kind kind, size_t pos, hudi_error *err) {
  hudi_expr *e = hudi_calloc(1, sizeof *e);
  if (!e) return nomem(err);
  e->kind = kind;
  e->pos = (uint32_t)pos;
  *out = e;
  return HUDI_OK;
}

/* Appends child to an AND/OR node, taking ownership (freed on failure). */
static hudi_status node_push(hudi_expr *e, hudi_expr *child, hudi_error *err) {
  if ((e->n_children & (e->n_children - 1)) == 0) {
    size_t cap = e->n_children ? e->n_children * 2 : 2;
    hudi_expr **c = hudi_realloc(e->children, hudi_mul_size(cap, sizeof *c));
    if (!c) {
      hudi_expr_free(child);
      return nomem(err);
    }
    e->children = c;
  }
  e->children[e->n_children++] = child;
  return HUDI_OK;
}

/* Combines a and b under kind (AND/OR), flattening same-kind children.
 * Takes ownership of both. */
static hudi_status combine(hudi_expr **out, hudi_expr_kind kind, hudi_expr *a, hudi_expr *b, hudi_error *err) {
  hudi_expr *e = a;
  if (a->kind != kind) {
    if (node_new(&e, kind, a->pos, err) != HUDI_OK) {
      hudi_expr_free(a);
      hudi_expr_free(b);
      return err ? err->code : HUDI_ERR_NOMEM;
    }
    if (node_push(e, a, err) != HUDI_OK) {
      hudi_expr_free(e);
      hudi_expr_free(b);
      return HUDI_ERR_NOMEM;
    }
  }
  if (b->kind == kind) {
    for (size_t i = 0; i < b->n_children; i++) {
      hudi_expr *c = b->children[i];
      b->children[i] = NULL;
      if (node_push(e, c, err) != HUDI_OK) {
        hudi_expr_free(e);
        hudi_expr_free(b);
        return HUDI_ERR_NOMEM;
      }
    }
    hudi_expr_free(b);
  } else if (node_push(e, b, err) != HUDI_OK) {
    hudi_expr_free(e);
    return HUDI_ERR_NOMEM;
  }
  *out = e;
  return HUDI_OK;
}

hudi_status hudi_expr_and(hudi_expr **out, hudi_expr *a, hudi_expr *b, hudi_error *err) {
  return combine(out, HUDI_EXPR_AND, a, b, err);
}

/* Copies the inside of a quoted token, collapsing doubled quotes. */
static hudi_status unquote(char **out, size_t *out_len, const parser *p, const tok *t) {
  const char *s = p->s + t->pos;
  char q = s[0];
  char *d = hudi_malloc(t->len);
  if (!d) return nomem(p->err);
  size_t k = 0;
  for (size_t i = 1; i + 1 < t->len; i++) {
    d[k++] = s[i];
    if (s[i] == q) i++;
  }
  d[k] = 0;
  *out = d;
  if (out_len) *out_len = k;
  return HUDI_OK;
}

static hudi_status copy_span(char **out, size_t *out_len, const char *s, size_t n, hudi_error *err) {
  char *d = hudi_strndup(s, n);
  if (!d) return nomem(err);
  *out = d;
  if (out_len) *out_len = n;
  return HUDI_OK;
}

/* ---- parser ---- */

static hudi_status parse_literal(parser *p, hudi_expr_literal *lit, bool *matched) {
  tok *t = &p->cur;
  memset(lit, 0, sizeof *lit);
  lit->pos = (uint32_t)t->pos;
  *matched = true;
  if (t->kind == T_STRING) {
    lit->kind = HUDI_LIT_STRING;
    HUDI_TRY(unquote(&lit->text, &lit->len, p, t));
    return advance(p);
  }
  if (t->kind == T_NUMBER || t->kind == T_PLUS || t->kind == T_MINUS) {
    bool neg = t->kind == T_MINUS;
    if (t->kind != T_NUMBER) {
      HUDI_TRY(advance(p));
      if (p->cur.kind != T_NUMBER) return unexpected(p, "a number after the sign");
    }
    lit->kind = p->cur.num_kind;
    char *d = hudi_malloc(p->cur.len + 2);
    if (!d) return nomem(p->err);
    size_t k = 0;
    if (neg) d[k++] = '-';
    memcpy(d + k, p->s + p->cur.pos, p->cur.len);
    k += p->cur.len;
    d[k] = 0;
    lit->text = d;
    lit->len = k;
    return advance(p);
  }
  if (is_kw(p, t, "TRUE") || is_kw(p, t, "FALSE")) {
    lit->kind = HUDI_LIT_BOOL;
    lit->b = is_kw(p, t, "TRUE");
    return advance(p);
  }
  if (is_kw(p, t, "NULL")) {
    lit->kind = HUDI_LIT_NULL;
    return advance(p);
  }
  if (is_kw(p, t, "DATE") || is_kw(p, t, "TIMESTAMP")) {
    tok next;
    HUDI_TRY(lex(p, &next, t->pos + t->len, t->kind));
    if (next.kind == T_STRING) {
      lit->kind = is_kw(p, t, "DATE") ? HUDI_LIT_DATE : HUDI_LIT_TIMESTAMP;
      p->cur = next;
      HUDI_TRY(unquote(&lit->text, &lit->len, p, &next));
      return advance(p);
    }
  }
  *matched = false;
  return HUDI_OK;
}

static hudi_status parse_name_part(parser *p, char **out) {
  if (p->cur.kind == T_QIDENT) return unquote(out, NULL, p, &p->cur);
  return copy_span(out, NULL, p->s + p->cur.pos, p->cur.len, p->err);
}

static hudi_status parse_operand(parser *p, hudi_expr_operand *o) {
  memset(o, 0, sizeof *o);
  o->pos = (uint32_t)p->cur.pos;
  bool matched;
  HUDI_TRY(parse_literal(p, &o->lit, &matched));
  if (matched) return HUDI_OK;
  if (!(p->cur.kind == T_QIDENT || (p->cur.kind == T_IDENT && !is_reserved(p, &p->cur))))
    return unexpected(p, "a column or a literal");
  o->is_column = true;
  for (;;) {
    if (o->n_parts == HUDI_EXPR_MAX_NAME_PARTS)
      return hudi_err_set(p->err, HUDI_ERR_LIMIT, "column name at position %u has more than %d parts", o->pos,
                          HUDI_EXPR_MAX_NAME_PARTS);
    if ((o->n_parts & (o->n_parts - 1)) == 0) {
      size_t cap = o->n_parts ? o->n_parts * 2 : 1;
      char **np = hudi_realloc(o->parts, cap * sizeof *np);
      if (!np) return nomem(p->err);
      o->parts = np;
    }
    HUDI_TRY(parse_name_part(p, &o->parts[o->n_parts]));
    o->n_parts++;
    HUDI_TRY(advance(p));
    if (p->cur.kind != T_DOT) return HUDI_OK;
    HUDI_TRY(advance(p));
    if (p->cur.kind != T_IDENT && p->cur.kind != T_QIDENT) return unexpected(p, "a field name after '.'");
  }
}

static hudi_status operand_copy(hudi_expr_operand *dst, const hudi_expr_operand *src, hudi_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->is_column = src->is_column;
  dst->pos = src->pos;
  dst->lit.kind = src->lit.kind;
  dst->lit.b = src->lit.b;
  dst->lit.pos = src->lit.pos;
  if (src->lit.text) HUDI_TRY(copy_span(&dst->lit.text, &dst->lit.len, src->lit.text, src->lit.len, err));
  if (src->n_parts) {
    dst->parts = hudi_calloc(src->n_parts, sizeof *dst->parts);
    if (!dst->parts) return nomem(err);
    for (size_t i = 0; i < src->n_parts; i++) {
      HUDI_TRY(copy_span(&dst->parts[i], NULL, src->parts[i], strlen(src->parts[i]), err));
      dst->n_parts++;
    }
  }
  return HUDI_OK;
}

static hudi_status parse_expr(parser *p, hudi_expr **out);

static hudi_status parse_in_list(parser *p, hudi_expr *e) {
  if (p->cur.kind != T_LPAREN) return unexpected(p, "'(' after IN");
  HUDI_TRY(advance(p));
  size_t cap = 0;
  for (;;) {
    if (e->n_list == HUDI_EXPR_MAX_LIST)
      return hudi_err_set(p->err, HUDI_ERR_LIMIT, "IN list at position %u has more than %zu values", e->pos,
                          HUDI_EXPR_MAX_LIST);
    if (e->n_list == cap) {
      cap = cap ? cap * 2 : 4;
      hudi_expr_literal *l = hudi_realloc(e->list, hudi_mul_size(cap, sizeof *l));
      if (!l) return nomem(p->err);
      e->list = l;
    }
    bool matched;
    hudi_expr_literal *lit = &e->list[e->n_list++]; /* counted first: freed with e on failure */
    HUDI_TRY(parse_literal(p, lit, &matched));
    if (!matched) return unexpected(p, "a literal in the IN list");
    if (p->cur.kind == T_COMMA) {
      HUDI_TRY(advance(p));
      continue;
    }
    if (p->cur.kind == T_RPAREN) return advance(p);
    return unexpected(p, "',' or ')' in the IN list");
  }
}

static hudi_status parse_between(parser *p, hudi_expr *e, hudi_expr **out) {
  /* x BETWEEN a AND b is (x >= a AND x <= b); e holds x in lhs. */
  hudi_expr *lo = NULL, *hi = NULL, *both = NULL;
  hudi_status st;
  if ((st = node_new(&lo, HUDI_EXPR_CMP, e->pos, p->err)) != HUDI_OK) goto fail;
  if ((st = node_new(&hi, HUDI_EXPR_CMP, e->pos, p->err)) != HUDI_OK) goto fail;
  lo->op = HUDI_CMP_GE;
  hi->op = HUDI_CMP_LE;
  if ((st = operand_copy(&lo->lhs, &e->lhs, p->err)) != HUDI_OK) goto fail;
  if ((st = operand_copy(&hi->lhs, &e->lhs, p->err)) != HUDI_OK) goto fail;
  if ((st = parse_operand(p, &lo->rhs)) != HUDI_OK) goto fail;
  if (!is_kw(p, &p->cur, "AND")) {
    st = unexpected(p, "AND in BETWEEN");
    goto fail;
  }
  if ((st = advance(p)) != HUDI_OK) goto fail;
  if ((st = parse_operand(p, &hi->rhs)) != HUDI_OK) goto fail;
  st = combine(&both, HUDI_EXPR_AND, lo, hi, p->err);
  lo = hi = NULL;
  if (st != HUDI_OK) goto fail;
  if (e->negated) {
    hudi_expr *n = NULL;
    if ((st = node_new(&n, HUDI_EXPR_NOT, e->pos, p->err)) != HUDI_OK) goto fail;
    if ((st = node_push(n, both, p->err)) != HUDI_OK) {
      both = NULL;
      hudi_expr_free(n);
      goto fail;
    }
    both = n;
  }
  hudi_expr_free(e);
  *out = both;
  return HUDI_OK;
fail:
  hudi_expr_free(lo);
  hudi_expr_free(hi);
  hudi_expr_free(both);
  hudi_expr_free(e);
  return st;
}

/* predicate := '(' expr ')' | operand [...] */
static hudi_status parse_predicate(parser *p, hudi_expr **out) {
  if (p->cur.kind == T_LPAREN) {
    if (++p->depth > HUDI_EXPR_MAX_DEPTH)
      return hudi_err_set(p->err, HUDI_ERR_LIMIT, "predicate nests deeper than %d at position %zu",
                          HUDI_EXPR_MAX_DEPTH, p->cur.pos);
    HUDI_TRY(advance(p));
    hudi_expr *inner = NULL;
    HUDI_TRY(parse_expr(p, &inner));
    if (p->cur.kind != T_RPAREN) {
      hudi_expr_free(inner);
      return unexpected(p, "')'");
    }
    p->depth--;
    hudi_status st = advance(p);
    if (st != HUDI_OK) {
      hudi_expr_free(inner);
      return st;
    }
    *out = inner;
    return HUDI_OK;
  }
  hudi_expr *e = NULL;
  HUDI_TRY(node_new(&e, HUDI_EXPR_OPERAND, p->cur.pos, p->err));
  hudi_status st = parse_operand(p, &e->lhs);
  if (st != HUDI_OK) goto fail;
  if (p->cur.kind == T_OP) {
    e->kind = HUDI_EXPR_CMP;
    e->op = p->cur.op;
    if ((st = advance(p)) != HUDI_OK || (st = parse_operand(p, &e->rhs)) != HUDI_OK) goto fail;
  } else if (is_kw(p, &p->cur, "IS")) {
    e->kind = HUDI_EXPR_IS_NULL;
    if ((st = advance(p)) != HUDI_OK) goto fail;
    if (is_kw(p, &p->cur, "NOT")) {
      e->negated = true;
      if ((st = advance(p)) != HUDI_OK) goto fail;
    }
    if (!is_kw(p, &p->cur, "NULL")) {
      st = unexpected(p, e->negated ? "NULL after IS NOT" : "NULL or NOT after IS");
      goto fail;
    }
    if ((st = advance(p)) != HUDI_OK) goto fail;
  } else if (is_kw(p, &p->cur, "NOT") || is_kw(p, &p->cur, "IN") || is_kw(p, &p->cur, "BETWEEN") ||
             is_kw(p, &p->cur, "LIKE")) {
    if (is_kw(p, &p->cur, "NOT")) {
      e->negated = true;
      if ((st = advance(p)) != HUDI_OK) goto fail;
    }
    if (is_kw(p, &p->cur, "IN")) {
      e->kind = HUDI_EXPR_IN;
      if ((st = advance(p)) != HUDI_OK || (st = parse_in_list(p, e)) != HUDI_OK) goto fail;
    } else if (is_kw(p, &p->cur, "BETWEEN")) {
      if ((st = advance(p)) != HUDI_OK) goto fail;
      return parse_between(p, e, out);
    } else if (is_kw(p, &p->cur, "LIKE")) {
      e->kind = HUDI_EXPR_LIKE;
      if ((st = advance(p)) != HUDI_OK) goto fail;
      if (p->cur.kind != T_STRING) {
        st = unexpected(p, "a string pattern after LIKE");
        goto fail;
      }
      if ((st = parse_operand(p, &e->rhs)) != HUDI_OK) goto fail;
    } else {
      st = unexpected(p, "IN, BETWEEN or LIKE after NOT");
      goto fail;
    }
  }
  *out = e;
  return HUDI_OK;
fail:
  hudi_expr_free(e);
  return st;
}

static hudi_status parse_not(parser *p, hudi_expr **out) {
  if (!is_kw(p, &p->cur, "NOT")) return parse_predicate(p, out);
  if (++p->depth > HUDI_EXPR_MAX_DEPTH)
    return hudi_err_set(p->err, HUDI_ERR_LIMIT, "predicate nests deeper than %d at position %zu",
                        HUDI_EXPR_MAX_DEPTH, p->cur.pos);
  size_t pos = p->cur.pos;
  HUDI_TRY(advance(p));
  hudi_expr *inner = NULL, *e = NULL;
  HUDI_TRY(parse_not(p, &inner));
  p->depth--;
  hudi_status st = node_new(&e, HUDI_EXPR_NOT, pos, p->err);
  if (st != HUDI_OK) {
    hudi_expr_free(inner);
    return st;
  }
  if ((st = node_push(e, inner, p->err)) != HUDI_OK) {
    hudi_expr_free(e);
    return st;
  }
  *out = e;
  return HUDI_OK;
}

static hudi_status parse_chain(parser *p, hudi_expr **out, bool is_or) {
  hudi_expr *acc = NULL;
  HUDI_TRY(is_or ? parse_chain(p, &acc, false) : parse_not(p, &acc));
  while (is_kw(p, &p->cur, is_or ? "OR" : "AND")) {
    hudi_status st = advance(p);
    hudi_expr *rhs = NULL;
    if (st == HUDI_OK) st = is_or ? parse_chain(p, &rhs, false) : parse_not(p, &rhs);
    if (st != HUDI_OK) {
      hudi_expr_free(acc);
      return st;
    }
    HUDI_TRY(combine(&acc, is_or ? HUDI_EXPR_OR : HUDI_EXPR_AND, acc, rhs, p->err));
  }
  *out = acc;
  return HUDI_OK;
}

static hudi_status parse_expr(parser *p, hudi_expr **out) { return parse_chain(p, out, true); }

static hudi_status parser_init(parser *p, const char *text, size_t len, hudi_error *err) {
  memset(p, 0, sizeof *p);
  p->s = text ? text : "";
  p->n = text ? len : 0;
  p->err = err;
  if (len > HUDI_EXPR_MAX_LEN)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "predicate of %zu bytes exceeds the limit of %zu", len,
                        HUDI_EXPR_MAX_LEN);
  return lex(p, &p->cur, 0, T_END);
}

hudi_status hudi_expr_parse(hudi_expr **out, const char *text, size_t len, hudi_error *err) {
  *out = NULL;
  parser p;
  HUDI_TRY(parser_init(&p, text, len, err));
  if (p.cur.kind == T_END) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "empty predicate");
  hudi_expr *e = NULL;
  HUDI_TRY(parse_expr(&p, &e));
  if (p.cur.kind != T_END) {
    hudi_expr_free(e);
    return unexpected(&p, p.cur.kind == T_RPAREN ? "end of input (unbalanced ')')" : "AND, OR or end of input");
  }
  *out = e;
  return HUDI_OK;
}

hudi_status hudi_expr_parse_literal(hudi_expr_literal *out, const char *text, size_t len, hudi_error *err) {
  memset(out, 0, sizeof *out);
  parser p;
  HUDI_TRY(parser_init(&p, text, len, err));
  bool matched;
  hudi_status st = parse_literal(&p, out, &matched);
  if (st == HUDI_OK && !matched) st = unexpected(&p, "a literal");
  if (st == HUDI_OK && p.cur.kind != T_END) st = unexpected(&p, "end of input after the literal");
  if (st != HUDI_OK) hudi_expr_literal_clear(out);
  return st;
}

/* ---- hudi-rs filter tuples ---- */

static bool ascii_ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'a' && x <= 'z') x = (char)(x - 32);
    if (y >= 'a' && y <= 'z') y = (char)(y - 32);
    if (x != y) return false;
  }
  return *a == *b;
}

static bool tuple_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static hudi_status raw_literal(hudi_expr_literal *lit, const char *s, size_t n, hudi_error *err) {
  memset(lit, 0, sizeof *lit);
  lit->kind = HUDI_LIT_RAW;
  return copy_span(&lit->text, &lit->len, s, n, err);
}

/* hudi-rs split_in_values: unescaped commas separate; "\," and "\\" are
 * escapes; other backslashes stay; parts trimmed, empty parts dropped. */
static hudi_status split_in_values(hudi_expr *e, const char *v, hudi_error *err) {
  size_t n = strlen(v);
  char *cur = hudi_malloc(n + 1);
  if (!cur) return nomem(err);
  size_t k = 0, cap = 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i <= n && st == HUDI_OK; i++) {
    if (i < n && v[i] == '\\' && i + 1 < n && (v[i + 1] == ',' || v[i + 1] == '\\')) {
      cur[k++] = v[++i];
      continue;
    }
    if (i < n && v[i] != ',') {
      cur[k++] = v[i];
      continue;
    }
    size_t a = 0, b = k;
    while (a < b && tuple_ws(cur[a])) a++;
    while (b > a && tuple_ws(cur[b - 1])) b--;
    k = 0;
    if (a == b) continue;
    if (e->n_list == cap) {
      cap = cap ? cap * 2 : 4;
      hudi_expr_literal *l = hudi_realloc(e->list, hudi_mul_size(cap, sizeof *l));
      if (!l) {
        st = nomem(err);
        break;
      }
      e->list = l;
    }
    st = raw_literal(&e->list[e->n_list], cur + a, b - a, err);
    if (st == HUDI_OK) e->n_list++;
  }
  hudi_free(cur);
  return st;
}

hudi_status hudi_expr_from_filter(hudi_expr **out, const char *field, const char *op, const char *value,
                                  hudi_error *err) {
  static const struct {
    const char *name;
    hudi_expr_kind kind;
    hudi_cmp_op op;
    bool negated;
  } ops[] = {{"=", HUDI_EXPR_CMP, HUDI_CMP_EQ, false},  {"!=", HUDI_EXPR_CMP, HUDI_CMP_NE, false},
             {"<", HUDI_EXPR_CMP, HUDI_CMP_LT, false},  {"<=", HUDI_EXPR_CMP, HUDI_CMP_LE, false},
             {">", HUDI_EXPR_CMP, HUDI_CMP_GT, false},  {">=", HUDI_EXPR_CMP, HUDI_CMP_GE, false},
             {"IN", HUDI_EXPR_IN, HUDI_CMP_EQ, false},  {"NOT IN", HUDI_EXPR_IN, HUDI_CMP_EQ, true}};
  *out = NULL;
  if (!field || !op || !value) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "filter tuple has a NULL member");
  size_t k = 0;
  while (k < sizeof ops / sizeof ops[0] && !ascii_ieq(ops[k].name, op)) k++;
  if (k == sizeof ops / sizeof ops[0])
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "unsupported operator '%.40s' in the filter on '%.200s'", op,
                        field);
  size_t vlen = strlen(value);
  if (vlen > HUDI_EXPR_MAX_LEN || strlen(field) > HUDI_EXPR_MAX_LEN)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "filter on '%.200s' is longer than %zu bytes", field,
                        HUDI_EXPR_MAX_LEN);
  hudi_expr *e = NULL;
  HUDI_TRY(node_new(&e, ops[k].kind, 0, err));
  e->op = ops[k].op;
  e->negated = ops[k].negated;
  e->lhs.is_column = true;
  hudi_status st = HUDI_OK;
  e->lhs.parts = hudi_calloc(1, sizeof *e->lhs.parts);
  if (!e->lhs.parts) st = nomem(err);
  if (st == HUDI_OK) st = copy_span(&e->lhs.parts[0], NULL, field, strlen(field), err);
  if (st == HUDI_OK) e->lhs.n_parts = 1;
  if (st == HUDI_OK && e->kind == HUDI_EXPR_IN) {
    st = split_in_values(e, value, err);
    if (st == HUDI_OK && e->n_list == 0)
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s operator requires at least one value for field '%.200s'",
                        ops[k].name, field);
  } else if (st == HUDI_OK) {
    st = raw_literal(&e->rhs.lit, value, vlen, err);
  }
  if (st != HUDI_OK) {
    hudi_expr_free(e);
    return st;
  }
  *out = e;
  return HUDI_OK;
}

hudi_status hudi_expr_from_filters(hudi_expr **out, const char *const *fields, const char *const *ops,
                                   const char *const *values, size_t n, hudi_error *err) {
  *out = NULL;
  hudi_expr *acc = NULL;
  HUDI_TRY(node_new(&acc, HUDI_EXPR_AND, 0, err)); /* an empty AND is TRUE */
  for (size_t i = 0; i < n; i++) {
    hudi_expr *f = NULL;
    hudi_status st = hudi_expr_from_filter(&f, fields[i], ops[i], values[i], err);
    if (st == HUDI_OK) st = node_push(acc, f, err);
    if (st != HUDI_OK) {
      hudi_expr_free(acc);
      return st;
    }
  }
  *out = acc;
  return HUDI_OK;
}
