/* Binding: resolve columns, coerce literals to column types (rules in
 * pred.h), and build the bound tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "expr/cast.h"
#include "expr/pred_internal.h"

typedef struct binder {
  hudi_pred *p;
  const hudi_arrow_field *schema;
  hudi_error *err;
} binder;

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory binding a predicate");
}

/* ---- freeing ---- */

static void value_free_bytes(hudi_value *v) {
  if (!v->is_null && v->cls == HUDI_VC_BYTES) hudi_free((void *)v->v.bytes.data);
  v->v.bytes.data = NULL;
}

static void pnode_free(pnode *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n_children; i++) pnode_free(n->children[i]);
  hudi_free(n->children);
  value_free_bytes(&n->value);
  for (size_t i = 0; i < n->n_list; i++) value_free_bytes(&n->list[i]);
  hudi_free(n->list);
  hudi_hashmap_free(&n->set);
  hudi_free(n->pattern);
  hudi_free(n);
}

void hudi_pred_free(hudi_pred *p) {
  if (!p) return;
  pnode_free(p->root);
  for (size_t i = 0; i < p->n_cols; i++) {
    hudi_free(p->cols[i].name);
    hudi_free(p->cols[i].path);
    hudi_arrow_field_clear(&p->cols[i].field);
  }
  hudi_free(p->cols);
  hudi_free(p);
}

size_t hudi_pred_n_columns(const hudi_pred *p) { return p->n_cols; }
const char *hudi_pred_column_name(const hudi_pred *p, size_t k) { return p->cols[k].name; }
const hudi_arrow_field *hudi_pred_column_field(const hudi_pred *p, size_t k) { return &p->cols[k].field; }
const int32_t *hudi_pred_column_path(const hudi_pred *p, size_t k, size_t *depth) {
  *depth = p->cols[k].depth;
  return p->cols[k].path;
}

static hudi_status pnode_new(pnode **out, pnode_kind kind, hudi_error *err) {
  pnode *n = hudi_calloc(1, sizeof *n);
  if (!n) return nomem(err);
  n->kind = kind;
  hudi_hashmap_init(&n->set, 0);
  *out = n;
  return HUDI_OK;
}

/* Makes v's bytes (if any) owned by copying them. */
static hudi_status value_own(hudi_value *v, hudi_error *err) {
  if (v->is_null || v->cls != HUDI_VC_BYTES) return HUDI_OK;
  uint8_t *d = hudi_malloc(v->v.bytes.len ? v->v.bytes.len : 1);
  if (!d) {
    v->v.bytes.data = NULL;
    return nomem(err);
  }
  if (v->v.bytes.len) memcpy(d, v->v.bytes.data, v->v.bytes.len);
  v->v.bytes.data = d;
  return HUDI_OK;
}

/* ---- column resolution ---- */

static size_t edit_distance(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  if (na > 64 || nb > 64) return 99;
  size_t row[65];
  for (size_t j = 0; j <= nb; j++) row[j] = j;
  for (size_t i = 1; i <= na; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= nb; j++) {
      char x = a[i - 1], y = b[j - 1];
      if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
      if (y >= 'A' && y <= 'Z') y = (char)(y + 32);
      size_t best = diag + (x != y);
      if (row[j] + 1 < best) best = row[j] + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      diag = row[j];
      row[j] = best;
    }
  }
  return row[nb];
}

static bool ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z') x = (char)(x + 32);
    if (y >= 'A' && y <= 'Z') y = (char)(y + 32);
    if (x != y) return false;
  }
  return *a == *b;
}

static hudi_status unknown_column(binder *b, const hudi_expr_operand *o, size_t upto,
                                  const hudi_arrow_field *level) {
  char sugg[400] = "";
  size_t used = 0, count = 0;
  const char *want = o->parts[upto];
  size_t limit = strlen(want) / 3 + 1;
  for (int64_t i = 0; i < level->n_children && count < 3; i++) {
    const char *name = level->children[i].name;
    if (!name || edit_distance(want, name) > limit) continue;
    int w = snprintf(sugg + used, sizeof sugg - used, "%s'%.80s'", count ? ", " : "; did you mean ", name);
    if (w < 0 || (size_t)w >= sizeof sugg - used) break;
    used += (size_t)w;
    count++;
  }
  char full[300];
  size_t k = 0;
  for (size_t i = 0; i <= upto && k < sizeof full - 1; i++) {
    int w = snprintf(full + k, sizeof full - k, "%s%s", i ? "." : "", o->parts[i]);
    if (w < 0) break;
    k += (size_t)w;
    if (k >= sizeof full) k = sizeof full - 1;
  }
  return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "unknown column '%s' at position %u%s", full, o->pos, sugg);
}

static hudi_status add_column(size_t *out, binder *b, const int32_t *path, size_t depth,
                              const hudi_arrow_field *leaf) {
  hudi_pred *p = b->p;
  for (size_t k = 0; k < p->n_cols; k++) {
    if (p->cols[k].depth == depth && memcmp(p->cols[k].path, path, depth * sizeof *path) == 0) {
      *out = k;
      return HUDI_OK;
    }
  }
  pcolumn *nc = hudi_realloc(p->cols, hudi_mul_size(p->n_cols + 1, sizeof *nc));
  if (!nc) return nomem(b->err);
  p->cols = nc;
  pcolumn *c = &p->cols[p->n_cols];
  memset(c, 0, sizeof *c);
  c->path = hudi_malloc(depth * sizeof *path);
  if (!c->path) return nomem(b->err);
  memcpy(c->path, path, depth * sizeof *path);
  c->depth = depth;
  p->n_cols++; /* from here on hudi_pred_free cleans it up */
  size_t len = 0;
  const hudi_arrow_field *f = b->schema;
  for (size_t i = 0; i < depth; i++) {
    f = &f->children[path[i]];
    len += strlen(f->name ? f->name : "") + 1;
  }
  c->name = hudi_malloc(len + 1);
  if (!c->name) return nomem(b->err);
  c->name[0] = 0;
  f = b->schema;
  for (size_t i = 0; i < depth; i++) {
    f = &f->children[path[i]];
    if (i) strcat(c->name, ".");
    strcat(c->name, f->name ? f->name : "");
  }
  HUDI_TRY(hudi_arrow_field_copy(&c->field, leaf, false, b->err));
  c->type = c->field.dictionary ? c->field.dictionary->type : c->field.type;
  c->cls = hudi_vclass_of(&c->type);
  *out = p->n_cols - 1;
  return HUDI_OK;
}

static hudi_status resolve(size_t *out, binder *b, const hudi_expr_operand *o, bool exact_only) {
  int32_t path[HUDI_EXPR_MAX_NAME_PARTS];
  const hudi_arrow_field *level = b->schema;
  for (size_t i = 0; i < o->n_parts; i++) {
    if (level->type.id != HUDI_ARROW_STRUCT) {
      return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG,
                          "column '%s' at position %u: '%s' is a %s, not a struct", o->parts[0], o->pos,
                          o->parts[i - 1], hudi_arrow_type_name(level->type.id));
    }
    int64_t found = -1, ci = -1, n_ci = 0;
    for (int64_t j = 0; j < level->n_children; j++) {
      const char *name = level->children[j].name;
      if (!name) continue;
      if (strcmp(name, o->parts[i]) == 0) {
        found = j;
        break;
      }
      if (ieq(name, o->parts[i])) ci = j, n_ci++;
    }
    if (found < 0 && !exact_only && n_ci == 1) found = ci;
    if (found < 0) return unknown_column(b, o, i, level);
    if (found > INT32_MAX) return hudi_err_set(b->err, HUDI_ERR_LIMIT, "struct too wide");
    path[i] = (int32_t)found;
    level = &level->children[found];
  }
  return add_column(out, b, path, o->n_parts, level);
}

/* ---- literal coercion ---- */

typedef enum co_kind { CO_VALUE, CO_CONST, CO_NULL } co_kind;
typedef struct coerced {
  co_kind kind;
  hudi_cmp_op op;
  hudi_value v; /* bytes borrow the literal */
  hudi_tv tv;
} coerced;

static void describe_literal(char *out, size_t cap, const hudi_expr_literal *lit) {
  int n = lit->len > 100 ? 100 : (int)lit->len;
  switch (lit->kind) {
    case HUDI_LIT_NULL: snprintf(out, cap, "NULL"); break;
    case HUDI_LIT_BOOL: snprintf(out, cap, "%s", lit->b ? "TRUE" : "FALSE"); break;
    case HUDI_LIT_INT:
    case HUDI_LIT_DECIMAL:
    case HUDI_LIT_FLOAT: snprintf(out, cap, "%.*s", n, lit->text); break;
    case HUDI_LIT_DATE: snprintf(out, cap, "DATE '%.*s'", n, lit->text); break;
    case HUDI_LIT_TIMESTAMP: snprintf(out, cap, "TIMESTAMP '%.*s'", n, lit->text); break;
    default: snprintf(out, cap, "'%.*s'", n, lit->text); break;
  }
}

static hudi_status incompatible(binder *b, const pcolumn *c, const hudi_expr_literal *lit, const char *why) {
  char ty[96], l[128];
  hudi_type_describe(ty, sizeof ty, &c->type);
  describe_literal(l, sizeof l, lit);
  return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "cannot compare column '%s' (%s) with %s at position %u%s%s",
                      c->name, ty, l, lit->pos, why ? ": " : "", why ? why : "");
}

static hudi_tv outside_result(hudi_cmp_op op, bool above) {
  switch (op) {
    case HUDI_CMP_EQ: return HUDI_TV_FALSE;
    case HUDI_CMP_NE: return HUDI_TV_TRUE;
    case HUDI_CMP_LT:
    case HUDI_CMP_LE: return above ? HUDI_TV_TRUE : HUDI_TV_FALSE;
    default: return above ? HUDI_TV_FALSE : HUDI_TV_TRUE;
  }
}

/* col op L for an integer-valued domain [lo, hi] where L = q + frac with
 * q = floor(L) and frac in [0, 1) (exact: frac == 0). */
static void reduce(coerced *out, hudi_cmp_op op, hudi_i128 q, bool exact, hudi_i128 lo, hudi_i128 hi,
                   hudi_vclass cls) {
  out->op = op;
  if (q > hi || (q == hi && !exact)) {
    out->kind = CO_CONST, out->tv = outside_result(op, true);
    return;
  }
  if (q < lo) {
    out->kind = CO_CONST, out->tv = outside_result(op, false);
    return;
  }
  if (!exact) {
    if (op == HUDI_CMP_EQ || op == HUDI_CMP_NE) {
      out->kind = CO_CONST, out->tv = op == HUDI_CMP_NE ? HUDI_TV_TRUE : HUDI_TV_FALSE;
      return;
    }
    out->op = (op == HUDI_CMP_LT || op == HUDI_CMP_LE) ? HUDI_CMP_LE : HUDI_CMP_GT;
  }
  out->kind = CO_VALUE;
  out->v.cls = cls;
  if (cls == HUDI_VC_INT) out->v.v.i = (int64_t)q;
  else if (cls == HUDI_VC_UINT) out->v.v.u = (uint64_t)q;
  else out->v.v.dec = q;
}

static void domain(const pcolumn *c, hudi_i128 *lo, hudi_i128 *hi, int32_t *scale) {
  *scale = 0;
  if (c->cls == HUDI_VC_INT) *lo = INT64_MIN, *hi = INT64_MAX;
  else if (c->cls == HUDI_VC_UINT) *lo = 0, *hi = (hudi_i128)UINT64_MAX;
  else {
    int32_t p = c->type.precision > 38 ? 38 : c->type.precision;
    *hi = hudi_pow10_i128(p) - 1;
    *lo = -*hi;
    *scale = c->type.scale;
  }
}

/* q = floor(x), for a double x (already scaled). */
static void reduce_double(coerced *out, hudi_cmp_op op, double x, const pcolumn *c) {
  hudi_i128 lo, hi;
  int32_t scale;
  domain(c, &lo, &hi, &scale);
  const double lim = 1.7e38; /* beyond every domain, within i128 */
  if (isnan(x) || x >= lim) {
    out->kind = CO_CONST, out->tv = outside_result(op, true);
    return;
  }
  if (x <= -lim) {
    out->kind = CO_CONST, out->tv = outside_result(op, false);
    return;
  }
  double f = floor(x);
  reduce(out, op, (hudi_i128)f, f == x, lo, hi, c->cls);
}

/* num / den compared against an integer domain at the column's scale. */
static void reduce_ratio(coerced *out, hudi_cmp_op op, hudi_i128 num, hudi_i128 den, const pcolumn *c) {
  hudi_i128 lo, hi;
  int32_t scale;
  domain(c, &lo, &hi, &scale);
  hudi_i128 q = hudi_floor_div(num, den);
  reduce(out, op, q, num % den == 0, lo, hi, c->cls);
}

/* An INT/DECIMAL literal's digits as num / 10^k, when it has at most 37
 * significant digits. */
static bool literal_ratio(const hudi_expr_literal *lit, hudi_i128 *num, int *k) {
  const char *s = lit->text;
  bool neg = *s == '-';
  if (neg || *s == '+') s++;
  hudi_i128 m = 0;
  int digits = 0, frac = 0;
  bool in_frac = false;
  for (; *s; s++) {
    if (*s == '.') {
      in_frac = true;
      continue;
    }
    if (m == 0 && *s == '0') {
      if (in_frac) frac++;
      continue;
    }
    if (++digits > 37) return false;
    m = m * 10 + (*s - '0');
    if (in_frac) frac++;
  }
  *num = neg ? -m : m;
  *k = frac;
  return true;
}

static void coerce_number(coerced *out, hudi_cmp_op op, const hudi_expr_literal *lit, const pcolumn *c) {
  hudi_i128 lo, hi, num;
  int32_t scale;
  int k;
  domain(c, &lo, &hi, &scale);
  if (lit->kind != HUDI_LIT_FLOAT && literal_ratio(lit, &num, &k)) {
    if (scale >= k) {
      int up = scale - k;
      hudi_i128 m = hudi_pow10_i128(up);
      /* |num| < 10^37 and scale <= 38; keep the product within i128. */
      if (up <= 38 && (num == 0 || (num < 0 ? -num : num) <= ((hudi_i128)1 << 125) / m)) {
        reduce_ratio(out, op, num * m, 1, c);
        return;
      }
    } else {
      reduce_ratio(out, op, num, hudi_pow10_i128(k - scale), c);
      return;
    }
  }
  reduce_double(out, op, strtod(lit->text, NULL) * pow(10.0, scale), c);
}

static bool is_temporal(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_DATE32 || id == HUDI_ARROW_DATE64 || id == HUDI_ARROW_TIMESTAMP ||
         id == HUDI_ARROW_TIME32 || id == HUDI_ARROW_TIME64;
}

static hudi_status coerce_datetime(coerced *out, binder *b, hudi_cmp_op op, const hudi_expr_literal *lit,
                                   const pcolumn *c) {
  hudi_arrow_type_id id = c->type.id;
  if (id != HUDI_ARROW_DATE32 && id != HUDI_ARROW_DATE64 && id != HUDI_ARROW_TIMESTAMP)
    return incompatible(b, c, lit, NULL);
  hudi_datetime dt;
  hudi_error sub = HUDI_ERROR_INIT;
  if (lit->kind == HUDI_LIT_DATE) {
    /* DATE 'y-m-d' (1- or 2-digit month and day), surrounding blanks allowed. */
    const char *s = lit->text;
    int y, m, d, used = 0;
    memset(&dt, 0, sizeof dt);
    if (sscanf(s, " %4d-%2d-%2d %n", &y, &m, &d, &used) != 3 || (size_t)used != lit->len ||
        !(s[0] == ' ' || (s[0] >= '0' && s[0] <= '9')) || !hudi_civil_to_days(&dt.days, y, m, d))
      return incompatible(b, c, lit, "not a date (expected yyyy-mm-dd)");
  } else if (hudi_parse_datetime(&dt, lit->text, lit->len, &sub) != HUDI_OK) {
    return incompatible(b, c, lit, sub.message);
  }
  int32_t off = 0;
  if (id == HUDI_ARROW_TIMESTAMP && c->type.timezone && !dt.has_offset) {
    if (hudi_parse_tz(&off, c->type.timezone, c->type.timezone_len, &sub) != HUDI_OK)
      return incompatible(b, c, lit, sub.message);
  }
  hudi_i128 ns = hudi_datetime_epoch_nanos(&dt, off);
  int64_t unit = id == HUDI_ARROW_DATE32 ? HUDI_NANOS_PER_DAY
                 : id == HUDI_ARROW_DATE64 ? 1000000
                                           : hudi_time_unit_nanos(c->type.unit);
  reduce_ratio(out, op, ns, unit, c);
  return HUDI_OK;
}

static hudi_status coerce(coerced *out, binder *b, hudi_cmp_op op, const hudi_expr_literal *lit,
                          const pcolumn *c) {
  memset(out, 0, sizeof *out);
  out->op = op;
  if (lit->kind == HUDI_LIT_NULL) {
    out->kind = CO_NULL;
    return HUDI_OK;
  }
  if (c->cls == HUDI_VC_NONE) {
    char ty[96];
    hudi_type_describe(ty, sizeof ty, &c->type);
    return hudi_err_set(b->err, HUDI_ERR_UNSUPPORTED, "column '%s' of type %s cannot be compared", c->name, ty);
  }
  switch (lit->kind) {
    case HUDI_LIT_STRING:
    case HUDI_LIT_RAW: {
      hudi_error sub = HUDI_ERROR_INIT;
      if (c->cls == HUDI_VC_BYTES && lit->kind == HUDI_LIT_STRING) {
        out->kind = CO_VALUE;
        out->v.cls = HUDI_VC_BYTES;
        out->v.v.bytes.data = (const uint8_t *)lit->text;
        out->v.v.bytes.len = lit->len;
        return HUDI_OK;
      }
      if (hudi_cast_string(&out->v, &c->type, lit->text, lit->len, &sub) != HUDI_OK) {
        if (sub.code == HUDI_ERR_UNSUPPORTED)
          return hudi_err_set(b->err, HUDI_ERR_UNSUPPORTED, "column '%s': %s", c->name, sub.message);
        return incompatible(b, c, lit, sub.message);
      }
      out->kind = CO_VALUE;
      return HUDI_OK;
    }
    case HUDI_LIT_BOOL:
      if (c->cls != HUDI_VC_BOOL) return incompatible(b, c, lit, NULL);
      out->kind = CO_VALUE;
      out->v.cls = HUDI_VC_BOOL;
      out->v.v.b = lit->b;
      return HUDI_OK;
    case HUDI_LIT_INT:
    case HUDI_LIT_DECIMAL:
    case HUDI_LIT_FLOAT:
      if (is_temporal(c->type.id) || c->cls == HUDI_VC_BOOL || c->cls == HUDI_VC_BYTES)
        return incompatible(b, c, lit, NULL);
      if (c->cls == HUDI_VC_DOUBLE) {
        out->kind = CO_VALUE;
        out->v.cls = HUDI_VC_DOUBLE;
        out->v.v.d = strtod(lit->text, NULL);
        return HUDI_OK;
      }
      coerce_number(out, op, lit, c);
      return HUDI_OK;
    case HUDI_LIT_DATE:
    case HUDI_LIT_TIMESTAMP: return coerce_datetime(out, b, op, lit, c);
    default: return incompatible(b, c, lit, NULL);
  }
}

/* ---- building the tree ---- */

static hudi_cmp_op flip(hudi_cmp_op op) {
  switch (op) {
    case HUDI_CMP_LT: return HUDI_CMP_GT;
    case HUDI_CMP_LE: return HUDI_CMP_GE;
    case HUDI_CMP_GT: return HUDI_CMP_LT;
    case HUDI_CMP_GE: return HUDI_CMP_LE;
    default: return op;
  }
}

static hudi_status make_const(pnode **out, hudi_tv tv, hudi_error *err) {
  HUDI_TRY(pnode_new(out, PN_CONST, err));
  (*out)->tv = tv;
  return HUDI_OK;
}

static hudi_status from_coerced(pnode **out, const coerced *co, size_t col, hudi_error *err) {
  if (co->kind == CO_NULL) return make_const(out, HUDI_TV_UNKNOWN, err);
  HUDI_TRY(pnode_new(out, co->kind == CO_CONST ? PN_VALID : PN_CMP, err));
  pnode *n = *out;
  n->col = col;
  n->op = co->op;
  n->tv = co->tv;
  if (co->kind == CO_VALUE) {
    n->value = co->v;
    return value_own(&n->value, err);
  }
  return HUDI_OK;
}

static bool cols_comparable(const pcolumn *a, const pcolumn *b) {
  if (a->cls != b->cls || a->cls == HUDI_VC_NONE) return false;
  if (a->cls == HUDI_VC_DECIMAL) return a->type.scale == b->type.scale;
  if (a->cls == HUDI_VC_INT) {
    bool ai = !is_temporal(a->type.id) && a->type.id != HUDI_ARROW_DURATION;
    bool bi = !is_temporal(b->type.id) && b->type.id != HUDI_ARROW_DURATION;
    if (ai || bi) return ai && bi;
    return a->type.id == b->type.id && a->type.unit == b->type.unit;
  }
  return true;
}

static hudi_status bind_cmp(pnode **out, binder *b, const hudi_expr *e) {
  const hudi_expr_operand *l = &e->lhs, *r = &e->rhs;
  hudi_cmp_op op = e->op;
  if (!l->is_column && !r->is_column)
    return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "comparison at position %u does not reference a column",
                        e->pos);
  if (l->is_column && r->is_column) {
    size_t k1, k2;
    HUDI_TRY(resolve(&k1, b, l, false));
    HUDI_TRY(resolve(&k2, b, r, false));
    const pcolumn *a = &b->p->cols[k1], *c = &b->p->cols[k2];
    if (!cols_comparable(a, c)) {
      char ta[96], tc[96];
      hudi_type_describe(ta, sizeof ta, &a->type);
      hudi_type_describe(tc, sizeof tc, &c->type);
      return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG,
                          "cannot compare column '%s' (%s) with column '%s' (%s) at position %u", a->name, ta,
                          c->name, tc, e->pos);
    }
    HUDI_TRY(pnode_new(out, PN_CMP_COL, b->err));
    (*out)->col = k1, (*out)->col2 = k2, (*out)->op = op;
    return HUDI_OK;
  }
  if (!l->is_column) {
    const hudi_expr_operand *t = l;
    l = r, r = t;
    op = flip(op);
  }
  size_t k;
  HUDI_TRY(resolve(&k, b, l, r->lit.kind == HUDI_LIT_RAW));
  coerced co;
  HUDI_TRY(coerce(&co, b, op, &r->lit, &b->p->cols[k]));
  return from_coerced(out, &co, k, b->err);
}

static hudi_status bind_in(pnode **out, binder *b, const hudi_expr *e) {
  if (!e->lhs.is_column)
    return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "IN at position %u needs a column on its left", e->pos);
  bool raw = e->n_list && e->list[0].kind == HUDI_LIT_RAW;
  size_t k;
  HUDI_TRY(resolve(&k, b, &e->lhs, raw));
  HUDI_TRY(pnode_new(out, PN_IN, b->err));
  pnode *n = *out;
  n->col = k;
  n->negated = e->negated;
  n->list = hudi_calloc(e->n_list ? e->n_list : 1, sizeof *n->list);
  if (!n->list) return nomem(b->err);
  for (size_t i = 0; i < e->n_list; i++) {
    coerced co;
    HUDI_TRY(coerce(&co, b, HUDI_CMP_EQ, &e->list[i], &b->p->cols[k]));
    if (co.kind == CO_NULL) {
      n->list_has_null = true;
      continue;
    }
    if (co.kind == CO_CONST) continue; /* can equal no value of the column */
    uint8_t buf[16];
    size_t klen;
    const uint8_t *key = hudi_pred_value_key(&co.v, buf, &klen);
    if (hudi_hashmap_get(&n->set, key, klen, NULL)) continue;
    HUDI_TRY(hudi_hashmap_put(&n->set, key, klen, (hudi_hashmap_value){.u64 = n->n_list}, NULL, NULL, b->err));
    n->list[n->n_list] = co.v;
    n->n_list++;
    HUDI_TRY(value_own(&n->list[n->n_list - 1], b->err));
  }
  return HUDI_OK;
}

static hudi_status bind_node(pnode **out, binder *b, const hudi_expr *e, int depth);

static hudi_status bind_children(pnode *n, binder *b, const hudi_expr *e, int depth) {
  n->children = hudi_calloc(e->n_children ? e->n_children : 1, sizeof *n->children);
  if (!n->children) return nomem(b->err);
  for (size_t i = 0; i < e->n_children; i++) {
    n->n_children++; /* counted first: a half-built child is freed with n */
    HUDI_TRY(bind_node(&n->children[i], b, e->children[i], depth + 1));
  }
  return HUDI_OK;
}

static hudi_status bind_node(pnode **out, binder *b, const hudi_expr *e, int depth) {
  *out = NULL;
  if (depth > 4 * HUDI_EXPR_MAX_DEPTH + 8)
    return hudi_err_set(b->err, HUDI_ERR_LIMIT, "predicate nests too deeply");
  switch (e->kind) {
    case HUDI_EXPR_AND:
    case HUDI_EXPR_OR:
    case HUDI_EXPR_NOT: {
      pnode_kind k = e->kind == HUDI_EXPR_AND ? PN_AND : e->kind == HUDI_EXPR_OR ? PN_OR : PN_NOT;
      HUDI_TRY(pnode_new(out, k, b->err));
      return bind_children(*out, b, e, depth);
    }
    case HUDI_EXPR_CMP: return bind_cmp(out, b, e);
    case HUDI_EXPR_IN: return bind_in(out, b, e);
    case HUDI_EXPR_IS_NULL: {
      if (!e->lhs.is_column) {
        bool is_null = e->lhs.lit.kind == HUDI_LIT_NULL;
        return make_const(out, is_null != e->negated ? HUDI_TV_TRUE : HUDI_TV_FALSE, b->err);
      }
      size_t k;
      HUDI_TRY(resolve(&k, b, &e->lhs, false));
      HUDI_TRY(pnode_new(out, PN_IS_NULL, b->err));
      (*out)->col = k;
      (*out)->negated = e->negated;
      return HUDI_OK;
    }
    case HUDI_EXPR_LIKE: {
      if (!e->lhs.is_column)
        return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "LIKE at position %u needs a column on its left",
                            e->pos);
      size_t k;
      HUDI_TRY(resolve(&k, b, &e->lhs, false));
      const pcolumn *c = &b->p->cols[k];
      if (c->cls != HUDI_VC_BYTES || c->type.id == HUDI_ARROW_FIXED_SIZE_BINARY)
        return incompatible(b, c, &e->rhs.lit, "LIKE needs a string or binary column");
      HUDI_TRY(pnode_new(out, PN_LIKE, b->err));
      pnode *n = *out;
      n->col = k;
      n->negated = e->negated;
      n->pattern = hudi_malloc(e->rhs.lit.len + 1);
      if (!n->pattern) return nomem(b->err);
      memcpy(n->pattern, e->rhs.lit.text, e->rhs.lit.len);
      n->pattern_len = e->rhs.lit.len;
      return HUDI_OK;
    }
    case HUDI_EXPR_OPERAND: {
      const hudi_expr_operand *o = &e->lhs;
      if (!o->is_column) {
        if (o->lit.kind == HUDI_LIT_NULL) return make_const(out, HUDI_TV_UNKNOWN, b->err);
        if (o->lit.kind == HUDI_LIT_BOOL) return make_const(out, o->lit.b ? HUDI_TV_TRUE : HUDI_TV_FALSE, b->err);
        char l[128];
        describe_literal(l, sizeof l, &o->lit);
        return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG, "%s at position %u is not a predicate", l, o->pos);
      }
      size_t k;
      HUDI_TRY(resolve(&k, b, o, false));
      const pcolumn *c = &b->p->cols[k];
      if (c->cls != HUDI_VC_BOOL) {
        char ty[96];
        hudi_type_describe(ty, sizeof ty, &c->type);
        return hudi_err_set(b->err, HUDI_ERR_INVALID_ARG,
                            "column '%s' (%s) at position %u is not a boolean predicate", c->name, ty, o->pos);
      }
      HUDI_TRY(pnode_new(out, PN_CMP, b->err));
      (*out)->col = k;
      (*out)->op = HUDI_CMP_EQ;
      (*out)->value.cls = HUDI_VC_BOOL;
      (*out)->value.v.b = true;
      return HUDI_OK;
    }
  }
  return hudi_err_set(b->err, HUDI_ERR_INTERNAL, "unknown expression kind");
}

hudi_status hudi_pred_bind(hudi_pred **out, const hudi_expr *e, const hudi_arrow_field *schema, hudi_error *err) {
  *out = NULL;
  if (schema->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a predicate binds to a struct schema, not %s",
                        hudi_arrow_type_name(schema->type.id));
  hudi_pred *p = hudi_calloc(1, sizeof *p);
  if (!p) return nomem(err);
  binder b = {p, schema, err};
  hudi_status st = bind_node(&p->root, &b, e, 0);
  if (st != HUDI_OK) {
    hudi_pred_free(p);
    return st;
  }
  *out = p;
  return HUDI_OK;
}

hudi_status hudi_pred_compile(hudi_pred **out, const char *sql, const hudi_arrow_field *schema, hudi_error *err) {
  *out = NULL;
  hudi_expr *e;
  HUDI_TRY(hudi_expr_parse(&e, sql, sql ? strlen(sql) : 0, err));
  hudi_status st = hudi_pred_bind(out, e, schema, err);
  hudi_expr_free(e);
  return st;
}
