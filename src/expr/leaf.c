/* Leaf tests shared by batch evaluation, row evaluation and pruning. */
#include <math.h>
#include <string.h>

#include "expr/pred_internal.h"

const uint8_t *hudi_pred_value_key(const hudi_value *v, uint8_t *buf, size_t *len) {
  switch (v->cls) {
    case HUDI_VC_BYTES:
      *len = v->v.bytes.len;
      return v->v.bytes.data ? v->v.bytes.data : buf;
    case HUDI_VC_BOOL:
      buf[0] = v->v.b;
      *len = 1;
      return buf;
    case HUDI_VC_DOUBLE: {
      /* One key per SQL-equal class: every NaN alike, -0.0 as 0.0. */
      double d = isnan(v->v.d) ? NAN : (v->v.d == 0 ? 0.0 : v->v.d);
      memcpy(buf, &d, 8);
      *len = 8;
      return buf;
    }
    case HUDI_VC_DECIMAL:
      memcpy(buf, &v->v.dec, 16);
      *len = 16;
      return buf;
    default:
      memcpy(buf, &v->v.i, 8); /* INT and UINT share the 8 bytes */
      *len = 8;
      return buf;
  }
}

bool hudi_pred_cmp_holds(hudi_cmp_op op, int c) {
  switch (op) {
    case HUDI_CMP_EQ: return c == 0;
    case HUDI_CMP_NE: return c != 0;
    case HUDI_CMP_LT: return c < 0;
    case HUDI_CMP_LE: return c <= 0;
    case HUDI_CMP_GT: return c > 0;
    default: return c >= 0;
  }
}

static size_t utf8_len(uint8_t b) {
  if (b < 0x80) return 1;
  if ((b & 0xe0) == 0xc0) return 2;
  if ((b & 0xf0) == 0xe0) return 3;
  if ((b & 0xf8) == 0xf0) return 4;
  return 1;
}

/* Greedy matching with backtracking to the last '%': linear in practice,
 * O(n * m) at worst, never recursive. */
bool hudi_like_match(const uint8_t *s, size_t n, const uint8_t *pat, size_t pn) {
  size_t i = 0, j = 0;
  size_t star_j = (size_t)-1, star_i = 0;
  while (i < n) {
    if (j < pn && pat[j] == '%') {
      star_j = ++j;
      star_i = i;
      continue;
    }
    if (j < pn && pat[j] == '_') {
      size_t k = utf8_len(s[i]);
      i += k > n - i ? n - i : k;
      j++;
      continue;
    }
    if (j < pn) {
      size_t jj = j;
      if (pat[jj] == '\\' && jj + 1 < pn) jj++;
      if (pat[jj] == s[i]) {
        i++;
        j = jj + 1;
        continue;
      }
    }
    if (star_j == (size_t)-1) return false;
    j = star_j;
    i = ++star_i;
  }
  while (j < pn && pat[j] == '%') j++;
  return j == pn;
}

static hudi_tv tv_of(bool b) { return b ? HUDI_TV_TRUE : HUDI_TV_FALSE; }

hudi_tv hudi_pred_leaf(const pnode *nd, const hudi_value *x, const hudi_value *x2) {
  switch (nd->kind) {
    case PN_CONST: return nd->tv;
    case PN_IS_NULL: return tv_of(x->is_null != nd->negated);
    default: break;
  }
  if (x->is_null) return HUDI_TV_UNKNOWN;
  switch (nd->kind) {
    case PN_VALID: return nd->tv;
    case PN_CMP: return tv_of(hudi_pred_cmp_holds(nd->op, hudi_value_cmp(x, &nd->value)));
    case PN_CMP_COL:
      if (x2->is_null) return HUDI_TV_UNKNOWN;
      return tv_of(hudi_pred_cmp_holds(nd->op, hudi_value_cmp(x, x2)));
    case PN_IN: {
      uint8_t buf[16];
      size_t len;
      const uint8_t *key = hudi_pred_value_key(x, buf, &len);
      if (hudi_hashmap_get(&nd->set, key, len, NULL)) return tv_of(!nd->negated);
      if (nd->list_has_null) return HUDI_TV_UNKNOWN;
      return tv_of(nd->negated);
    }
    case PN_LIKE:
      return tv_of(hudi_like_match(x->v.bytes.data, x->v.bytes.len, nd->pattern, nd->pattern_len) != nd->negated);
    default: return HUDI_TV_UNKNOWN;
  }
}

static hudi_tv eval_row(const hudi_pred *p, const pnode *nd, const hudi_value *values) {
  switch (nd->kind) {
    case PN_AND: {
      hudi_tv r = HUDI_TV_TRUE;
      for (size_t i = 0; i < nd->n_children; i++) {
        hudi_tv c = eval_row(p, nd->children[i], values);
        if (c == HUDI_TV_FALSE) return HUDI_TV_FALSE;
        if (c == HUDI_TV_UNKNOWN) r = HUDI_TV_UNKNOWN;
      }
      return r;
    }
    case PN_OR: {
      hudi_tv r = HUDI_TV_FALSE;
      for (size_t i = 0; i < nd->n_children; i++) {
        hudi_tv c = eval_row(p, nd->children[i], values);
        if (c == HUDI_TV_TRUE) return HUDI_TV_TRUE;
        if (c == HUDI_TV_UNKNOWN) r = HUDI_TV_UNKNOWN;
      }
      return r;
    }
    case PN_NOT: {
      hudi_tv c = eval_row(p, nd->children[0], values);
      return c == HUDI_TV_UNKNOWN ? c : (c == HUDI_TV_TRUE ? HUDI_TV_FALSE : HUDI_TV_TRUE);
    }
    case PN_CONST: return nd->tv;
    default: return hudi_pred_leaf(nd, &values[nd->col], nd->kind == PN_CMP_COL ? &values[nd->col2] : NULL);
  }
}

hudi_tv hudi_pred_eval_row(const hudi_pred *p, const hudi_value *values) { return eval_row(p, p->root, values); }
