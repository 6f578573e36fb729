/* Pruning: from what statistics say of each column, the set of truth
 * values each node can take on some row ({TRUE, FALSE, UNKNOWN} as bits);
 * a file can be skipped when TRUE is not in the root's set. Every step
 * over-approximates, so "cannot match" is always sound. */
#include <math.h>
#include <string.h>

#include "base/alloc.h"
#include "expr/cast.h"
#include "expr/pred_internal.h"

enum { O_T = 1, O_F = 2, O_N = 4, O_ALL = 7 };

typedef struct pctx {
  const hudi_pred *p;
  const hudi_col_stats *stats;
  int64_t row_count;
} pctx;

static unsigned tv_bit(hudi_tv tv) { return tv == HUDI_TV_TRUE ? O_T : tv == HUDI_TV_FALSE ? O_F : O_N; }

static bool usable(const hudi_value *v, hudi_vclass cls, bool has) { return has && !v->is_null && v->cls == cls; }

/* Outcomes of `x op v` for x ranging over [lo, hi] (missing bounds open). */
static unsigned range_cmp(hudi_cmp_op op, const hudi_value *lo, const hudi_value *hi, const hudi_value *v) {
  int cl = lo ? hudi_value_cmp(lo, v) : -1; /* an open bound behaves as -inf / +inf */
  int ch = hi ? hudi_value_cmp(hi, v) : 1;
  bool lo_lt = cl < 0, lo_le = cl <= 0, hi_gt = ch > 0, hi_ge = ch >= 0;
  bool point = lo && hi && cl == 0 && ch == 0;
  unsigned o = 0;
  switch (op) {
    case HUDI_CMP_EQ: o = (lo_le && hi_ge ? O_T : 0) | (!point ? O_F : 0); break;
    case HUDI_CMP_NE: o = (!point ? O_T : 0) | (lo_le && hi_ge ? O_F : 0); break;
    case HUDI_CMP_LT: o = (lo_lt ? O_T : 0) | (hi_ge ? O_F : 0); break;
    case HUDI_CMP_LE: o = (lo_le ? O_T : 0) | (hi_gt ? O_F : 0); break;
    case HUDI_CMP_GT: o = (hi_gt ? O_T : 0) | (lo_le ? O_F : 0); break;
    case HUDI_CMP_GE: o = (hi_ge ? O_T : 0) | (lo_lt ? O_F : 0); break;
  }
  return o;
}

/* The LIKE pattern's literal prefix (escapes removed) into buf; *exact when
 * the pattern has no wildcard at all. */
static size_t like_prefix(uint8_t *buf, const uint8_t *pat, size_t pn, bool *exact) {
  size_t k = 0;
  *exact = true;
  for (size_t j = 0; j < pn; j++) {
    if (pat[j] == '%' || pat[j] == '_') {
      *exact = false;
      break;
    }
    if (pat[j] == '\\' && j + 1 < pn) j++;
    buf[k++] = pat[j];
  }
  return k;
}

static unsigned like_outcomes(const pnode *nd, const hudi_value *lo, const hudi_value *hi) {
  if (nd->negated) return O_T | O_F;
  uint8_t *buf = hudi_malloc(nd->pattern_len + 1);
  if (!buf) return O_T | O_F; /* cannot tell: assume anything */
  bool exact;
  size_t k = like_prefix(buf, nd->pattern, nd->pattern_len, &exact);
  hudi_value pv = {.cls = HUDI_VC_BYTES};
  pv.v.bytes.data = buf;
  pv.v.bytes.len = k;
  unsigned o;
  if (exact) {
    o = range_cmp(HUDI_CMP_EQ, lo, hi, &pv);
  } else {
    /* Matches lie in [prefix, successor(prefix)): some may exist only if
     * hi >= prefix and lo < successor. */
    o = O_F;
    bool t = !hi || hudi_value_cmp(hi, &pv) >= 0;
    size_t m = k;
    while (m > 0 && buf[m - 1] == 0xff) m--;
    if (t && m > 0 && lo) {
      buf[m - 1]++;
      pv.v.bytes.len = m;
      if (hudi_value_cmp(lo, &pv) >= 0) t = false;
    }
    if (t) o |= O_T;
  }
  hudi_free(buf);
  return o;
}

static unsigned in_outcomes(const pnode *nd, const hudi_value *lo, const hudi_value *hi) {
  unsigned o = 0;
  bool point = lo && hi && hudi_value_cmp(lo, hi) == 0;
  bool point_in = false;
  for (size_t i = 0; i < nd->n_list; i++) {
    const hudi_value *v = &nd->list[i];
    if ((!lo || hudi_value_cmp(lo, v) <= 0) && (!hi || hudi_value_cmp(hi, v) >= 0)) {
      o |= O_T;
      if (point) point_in = true;
    }
  }
  if (!point_in) o |= nd->list_has_null ? O_N : O_F;
  if (nd->negated) o = (o & O_N) | ((o & O_T) ? O_F : 0) | ((o & O_F) ? O_T : 0);
  return o;
}

static unsigned value_outcomes(const pnode *nd, const pcolumn *c, const hudi_col_stats *s) {
  const hudi_value *lo = usable(&s->min, c->cls, s->has_min) ? &s->min : NULL;
  const hudi_value *hi = usable(&s->max, c->cls, s->has_max) ? &s->max : NULL;
  unsigned o;
  switch (nd->kind) {
    case PN_VALID: return tv_bit(nd->tv);
    case PN_CMP: o = range_cmp(nd->op, lo, hi, &nd->value); break;
    case PN_IN: o = in_outcomes(nd, lo, hi); break;
    case PN_LIKE: o = like_outcomes(nd, lo, hi); break;
    default: return O_ALL;
  }
  /* NaNs are left out of min/max by Parquet writers: add what a NaN gives. */
  if (c->cls == HUDI_VC_DOUBLE && s->nan_count != 0) {
    hudi_value nan = {.cls = HUDI_VC_DOUBLE};
    nan.v.d = NAN;
    o |= tv_bit(hudi_pred_leaf(nd, &nan, NULL));
  }
  return o;
}

static unsigned prune_node(const pctx *c, const pnode *nd) {
  switch (nd->kind) {
    case PN_CONST: return tv_bit(nd->tv);
    case PN_NOT: {
      unsigned o = prune_node(c, nd->children[0]);
      return (o & O_N) | ((o & O_T) ? O_F : 0) | ((o & O_F) ? O_T : 0);
    }
    case PN_AND:
    case PN_OR: {
      bool is_and = nd->kind == PN_AND;
      unsigned acc = is_and ? O_T : O_F;
      for (size_t i = 0; i < nd->n_children; i++) {
        unsigned b = prune_node(c, nd->children[i]);
        unsigned r = 0;
        /* Pairwise over the truth tables of AND / OR. */
        for (unsigned x = 1; x <= 4; x <<= 1) {
          if (!(acc & x)) continue;
          for (unsigned y = 1; y <= 4; y <<= 1) {
            if (!(b & y)) continue;
            if (is_and) r |= (x == O_F || y == O_F) ? O_F : (x == O_N || y == O_N) ? O_N : O_T;
            else r |= (x == O_T || y == O_T) ? O_T : (x == O_N || y == O_N) ? O_N : O_F;
          }
        }
        acc = r;
      }
      return acc;
    }
    default: break;
  }
  const pcolumn *col = &c->p->cols[nd->col];
  const hudi_col_stats *s = &c->stats[nd->col];
  bool can_null = s->null_count != 0;
  bool can_value = !(c->row_count >= 0 && s->null_count >= 0 && s->null_count >= c->row_count);
  if (nd->kind == PN_IS_NULL) {
    unsigned t = can_null ? O_T : 0, f = can_value ? O_F : 0;
    return nd->negated ? (t ? O_F : 0) | (f ? O_T : 0) : t | f;
  }
  unsigned o = can_null ? O_N : 0;
  if (nd->kind == PN_CMP_COL) {
    const hudi_col_stats *s2 = &c->stats[nd->col2];
    bool v2 = !(c->row_count >= 0 && s2->null_count >= 0 && s2->null_count >= c->row_count);
    if (s2->null_count != 0) o |= O_N;
    return o | (can_value && v2 ? (O_T | O_F) : 0);
  }
  if (can_value) o |= value_outcomes(nd, col, s);
  return o;
}

void hudi_pred_prune(bool *might_match, const hudi_pred *p, const hudi_col_stats *stats, int64_t row_count) {
  if (row_count == 0) {
    *might_match = false;
    return;
  }
  pctx c = {p, stats, row_count};
  *might_match = (prune_node(&c, p->root) & O_T) != 0;
}

hudi_status hudi_pred_prune_partition(bool *might_match, const hudi_pred *p, const hudi_partition_value *values,
                                      size_t n, hudi_error *err) {
  *might_match = true;
  hudi_col_stats *st = hudi_calloc(p->n_cols ? p->n_cols : 1, sizeof *st);
  if (!st) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory pruning partitions");
  hudi_status status = HUDI_OK;
  for (size_t k = 0; k < p->n_cols && status == HUDI_OK; k++) {
    const pcolumn *c = &p->cols[k];
    st[k].null_count = -1;
    st[k].nan_count = -1;
    if (c->depth != 1) continue;
    for (size_t j = 0; j < n; j++) {
      if (!values[j].name || strcmp(values[j].name, c->name) != 0) continue;
      if (!values[j].value) {
        st[k].null_count = 1;
        break;
      }
      status = hudi_cast_string(&st[k].min, &c->type, values[j].value, values[j].len, err);
      if (status != HUDI_OK) {
        hudi_err_context(err, status, "partition value of column '%s'", c->name);
        break;
      }
      st[k].max = st[k].min;
      st[k].has_min = st[k].has_max = true;
      st[k].null_count = 0;
      st[k].nan_count = 0;
      break;
    }
  }
  if (status == HUDI_OK) hudi_pred_prune(might_match, p, st, 1);
  hudi_free(st);
  return status;
}
