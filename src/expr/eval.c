/* Evaluation over a record batch: every node yields two bitmaps, the rows
 * where it is TRUE and the rows where it is FALSE (neither: unknown), so
 * that AND, OR and NOT follow SQL's three-valued logic word by word. */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "expr/cast.h"
#include "expr/pred_internal.h"

typedef struct colref {
  const hudi_arrow_view *leaf;
  const hudi_arrow_view **anc; /* struct ancestors, the batch first */
  int64_t *anc_shift;          /* logical index of row i in anc[k] is anc_shift[k] + i */
  size_t n_anc;
  int64_t shift;               /* logical index of row i in leaf */
  bool anc_nulls;              /* some ancestor has a validity bitmap */
} colref;

typedef struct ectx {
  const hudi_pred *p;
  colref *cols;
  int64_t n;
  size_t words;
  hudi_error *err;
} ectx;

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory evaluating a predicate");
}

void hudi_selection_free(hudi_selection *s) {
  if (!s) return;
  hudi_free(s->bits);
  memset(s, 0, sizeof *s);
}

hudi_status hudi_selection_indices(int64_t **out, int64_t *n, const hudi_selection *s, hudi_error *err) {
  *out = NULL;
  *n = 0;
  if (s->n_selected == 0) return HUDI_OK;
  int64_t *idx = hudi_malloc(hudi_mul_size((size_t)s->n_selected, sizeof *idx));
  if (!idx) return nomem(err);
  int64_t k = 0;
  size_t words = (size_t)(s->n_rows + 63) / 64;
  for (size_t w = 0; w < words; w++) {
    uint64_t b = s->bits[w];
    while (b) {
      idx[k++] = (int64_t)(w * 64) + __builtin_ctzll(b);
      b &= b - 1;
    }
  }
  *out = idx;
  *n = k;
  return HUDI_OK;
}

/* ---- column lookup ---- */

static bool same_kind(const pcolumn *c, const hudi_arrow_type *t) {
  if (hudi_vclass_of(t) != c->cls) return false;
  switch (c->cls) {
    case HUDI_VC_DECIMAL: return t->scale == c->type.scale;
    case HUDI_VC_INT: {
      bool temporal = !(t->id >= HUDI_ARROW_INT8 && t->id <= HUDI_ARROW_INT64);
      bool ctemporal = !(c->type.id >= HUDI_ARROW_INT8 && c->type.id <= HUDI_ARROW_INT64);
      if (temporal != ctemporal) return false;
      return !temporal || (t->id == c->type.id && t->unit == c->type.unit);
    }
    default: return true;
  }
}

static hudi_status resolve_col(colref *r, const pcolumn *c, const hudi_arrow_view *batch, hudi_error *err) {
  r->anc = hudi_calloc(c->depth, sizeof *r->anc);
  r->anc_shift = hudi_calloc(c->depth, sizeof *r->anc_shift);
  if (!r->anc || !r->anc_shift) return nomem(err);
  const hudi_arrow_view *v = batch;
  int64_t shift = 0;
  for (size_t k = 0; k < c->depth; k++) {
    if (v->type.id != HUDI_ARROW_STRUCT || c->path[k] >= v->n_children)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s' is not in the batch", c->name);
    r->anc[k] = v;
    r->anc_shift[k] = shift;
    if (v->validity && v->type.id != HUDI_ARROW_NA) r->anc_nulls = true;
    shift += v->offset;
    v = &v->children[c->path[k]];
  }
  r->n_anc = c->depth;
  r->leaf = v;
  r->shift = shift;
  const hudi_arrow_type *t = v->dictionary ? &v->dictionary->type : &v->type;
  if (c->cls != HUDI_VC_NONE && !same_kind(c, t)) {
    char want[96], got[96];
    hudi_type_describe(want, sizeof want, &c->type);
    hudi_type_describe(got, sizeof got, t);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "column '%s' is %s in the batch but the predicate was bound to %s", c->name, got, want);
  }
  return HUDI_OK;
}

static bool anc_null(const colref *r, int64_t i) {
  for (size_t k = 0; k < r->n_anc; k++)
    if (hudi_arrow_view_is_null(r->anc[k], r->anc_shift[k] + i)) return true;
  return false;
}

/* ---- leaves ---- */

static void set_bit(uint64_t *w, int64_t i) { w[i >> 6] |= (uint64_t)1 << (i & 63); }

/* Valid (non-null) rows of a column, including its ancestors. */
static void valid_bits(uint64_t *valid, const colref *r, int64_t n, size_t words) {
  const hudi_arrow_view *v = r->leaf;
  if (!v->validity && !r->anc_nulls && v->type.id != HUDI_ARROW_NA && !v->dictionary) {
    memset(valid, 0xff, words * 8);
  } else {
    memset(valid, 0, words * 8);
    for (int64_t i = 0; i < n; i++) {
      if (r->anc_nulls && anc_null(r, i)) continue;
      hudi_value x;
      if (v->dictionary) {
        hudi_value_from_view(&x, v, r->shift + i);
        if (x.is_null) continue;
      } else if (hudi_arrow_view_is_null(v, r->shift + i)) {
        continue;
      }
      set_bit(valid, i);
    }
  }
  if (n & 63) valid[words - 1] &= ((uint64_t)1 << (n & 63)) - 1;
}

#define LOOP(COND)                       \
  for (int64_t i = 0; i < n; i++) {      \
    if (COND) set_bit(t, i);             \
  }

#define CMP_LOOPS(X)                          \
  switch (op) {                               \
    case HUDI_CMP_EQ: LOOP((X) == lit) break; \
    case HUDI_CMP_NE: LOOP((X) != lit) break; \
    case HUDI_CMP_LT: LOOP((X) < lit) break;  \
    case HUDI_CMP_LE: LOOP((X) <= lit) break; \
    case HUDI_CMP_GT: LOOP((X) > lit) break;  \
    case HUDI_CMP_GE: LOOP((X) >= lit) break; \
  }

#define LOAD(CT) (memcpy(&x, base + (size_t)i * sizeof(CT), sizeof(CT)), x)

/* Tight loops for column-op-literal on primitive columns; returns false
 * when no fast path applies. t receives the comparison result for every
 * row (nulls are masked later). */
static bool fast_cmp(uint64_t *t, const pnode *nd, const colref *r, int64_t n) {
  const hudi_arrow_view *v = r->leaf;
  if (v->dictionary || !v->values) return false;
  hudi_cmp_op op = nd->op;
  const uint8_t *base = v->values + (size_t)(v->offset + r->shift) * (size_t)v->byte_width;
  switch (nd->value.cls) {
    case HUDI_VC_INT: {
      int64_t lit = nd->value.v.i;
      switch (v->byte_width) {
        case 1: { int8_t x; CMP_LOOPS(LOAD(int8_t)) return true; }
        case 2: { int16_t x; CMP_LOOPS(LOAD(int16_t)) return true; }
        case 4: { int32_t x; CMP_LOOPS(LOAD(int32_t)) return true; }
        case 8: { int64_t x; CMP_LOOPS(LOAD(int64_t)) return true; }
        default: return false;
      }
    }
    case HUDI_VC_UINT: {
      uint64_t lit = nd->value.v.u;
      switch (v->byte_width) {
        case 1: { uint8_t x; CMP_LOOPS(LOAD(uint8_t)) return true; }
        case 2: { uint16_t x; CMP_LOOPS(LOAD(uint16_t)) return true; }
        case 4: { uint32_t x; CMP_LOOPS(LOAD(uint32_t)) return true; }
        case 8: { uint64_t x; CMP_LOOPS(LOAD(uint64_t)) return true; }
        default: return false;
      }
    }
    case HUDI_VC_DOUBLE: {
      double lit = nd->value.v.d;
      if (isnan(lit)) return false;
      /* NaN sorts above every number: true for != > >=. */
      bool nan_true = op == HUDI_CMP_NE || op == HUDI_CMP_GT || op == HUDI_CMP_GE;
      if (v->byte_width == 4) {
        float x;
        CMP_LOOPS((double)LOAD(float))
        if (nan_true) LOOP(isnan(LOAD(float)))
      } else {
        double x;
        CMP_LOOPS(LOAD(double))
        if (nan_true) LOOP(isnan(LOAD(double)))
      }
      return true;
    }
    default: return false;
  }
}

static hudi_status eval_leaf(ectx *c, const pnode *nd, uint64_t *t, uint64_t *f) {
  int64_t n = c->n;
  size_t words = c->words;
  memset(t, 0, words * 8);
  memset(f, 0, words * 8);
  if (nd->kind == PN_CONST) {
    uint64_t *dst = nd->tv == HUDI_TV_TRUE ? t : (nd->tv == HUDI_TV_FALSE ? f : NULL);
    if (dst) {
      memset(dst, 0xff, words * 8);
      if (n & 63) dst[words - 1] &= ((uint64_t)1 << (n & 63)) - 1;
    }
    return HUDI_OK;
  }
  const colref *r = &c->cols[nd->col];
  /* f holds the valid rows until the end. */
  valid_bits(f, r, n, words);
  if (nd->kind == PN_IS_NULL) {
    for (size_t w = 0; w < words; w++) {
      uint64_t nulls = ~f[w];
      if (w == words - 1 && (n & 63)) nulls &= ((uint64_t)1 << (n & 63)) - 1;
      t[w] = nd->negated ? f[w] : nulls;
      f[w] = nd->negated ? nulls : f[w];
    }
    return HUDI_OK;
  }
  if (nd->kind == PN_VALID) {
    if (nd->tv == HUDI_TV_TRUE) memcpy(t, f, words * 8), memset(f, 0, words * 8);
    else if (nd->tv == HUDI_TV_UNKNOWN) memset(f, 0, words * 8);
    return HUDI_OK;
  }
  if (!(nd->kind == PN_CMP && fast_cmp(t, nd, r, n))) {
    const colref *r2 = nd->kind == PN_CMP_COL ? &c->cols[nd->col2] : NULL;
    for (int64_t i = 0; i < n; i++) {
      if (!((f[i >> 6] >> (i & 63)) & 1)) continue;
      hudi_value x, x2;
      hudi_value_from_view(&x, r->leaf, r->shift + i);
      if (r2) {
        if (r2->anc_nulls && anc_null(r2, i)) x2.is_null = true;
        else hudi_value_from_view(&x2, r2->leaf, r2->shift + i);
      }
      hudi_tv tv = hudi_pred_leaf(nd, &x, r2 ? &x2 : NULL);
      if (tv == HUDI_TV_TRUE) set_bit(t, i);
      else if (tv == HUDI_TV_UNKNOWN) f[i >> 6] &= ~((uint64_t)1 << (i & 63));
    }
  }
  for (size_t w = 0; w < words; w++) {
    t[w] &= f[w];
    f[w] &= ~t[w];
  }
  return HUDI_OK;
}

static hudi_status eval_node(ectx *c, const pnode *nd, uint64_t *t, uint64_t *f) {
  size_t words = c->words;
  if (nd->kind == PN_NOT) return eval_node(c, nd->children[0], f, t);
  if (nd->kind != PN_AND && nd->kind != PN_OR) return eval_leaf(c, nd, t, f);
  bool is_and = nd->kind == PN_AND;
  /* Identity: AND starts all-TRUE, OR all-FALSE. */
  uint64_t *start = is_and ? t : f;
  memset(t, 0, words * 8);
  memset(f, 0, words * 8);
  memset(start, 0xff, words * 8);
  if (c->n & 63) start[words - 1] &= ((uint64_t)1 << (c->n & 63)) - 1;
  if (nd->n_children == 0) return HUDI_OK;
  uint64_t *tmp = hudi_malloc(hudi_mul_size(words ? words * 2 : 2, 8));
  if (!tmp) return nomem(c->err);
  hudi_status st = HUDI_OK;
  for (size_t k = 0; k < nd->n_children && st == HUDI_OK; k++) {
    st = eval_node(c, nd->children[k], tmp, tmp + words);
    for (size_t w = 0; w < words && st == HUDI_OK; w++) {
      if (is_and) t[w] &= tmp[w], f[w] |= tmp[words + w];
      else t[w] |= tmp[w], f[w] &= tmp[words + w];
    }
  }
  hudi_free(tmp);
  return st;
}

hudi_status hudi_pred_eval(hudi_selection *out, const hudi_pred *p, const hudi_arrow_view *batch, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (batch->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "predicates evaluate over struct batches, not %s",
                        hudi_arrow_type_name(batch->type.id));
  ectx c = {p, NULL, batch->length, (size_t)(batch->length + 63) / 64, err};
  size_t words = c.words ? c.words : 1;
  hudi_status st = HUDI_OK;
  uint64_t *t = hudi_calloc(words, 8), *f = hudi_calloc(words, 8);
  c.cols = hudi_calloc(p->n_cols ? p->n_cols : 1, sizeof *c.cols);
  if (!t || !f || !c.cols) st = nomem(err);
  for (size_t k = 0; k < p->n_cols && st == HUDI_OK; k++) st = resolve_col(&c.cols[k], &p->cols[k], batch, err);
  if (st == HUDI_OK && c.n > 0) st = eval_node(&c, p->root, t, f);
  if (c.cols) {
    for (size_t k = 0; k < p->n_cols; k++) {
      hudi_free(c.cols[k].anc);
      hudi_free(c.cols[k].anc_shift);
    }
  }
  hudi_free(c.cols);
  hudi_free(f);
  if (st != HUDI_OK) {
    hudi_free(t);
    return st;
  }
  out->bits = t;
  out->n_rows = c.n;
  for (size_t w = 0; w < c.words; w++) out->n_selected += __builtin_popcountll(t[w]);
  return HUDI_OK;
}
