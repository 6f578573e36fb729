#include "expr/value.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

hudi_vclass hudi_vclass_of(const hudi_arrow_type *t) {
  switch (t->id) {
    case HUDI_ARROW_BOOL: return HUDI_VC_BOOL;
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_DATE64:
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
    case HUDI_ARROW_DURATION: return HUDI_VC_INT;
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_UINT64: return HUDI_VC_UINT;
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DOUBLE: return HUDI_VC_DOUBLE;
    case HUDI_ARROW_DECIMAL:
      return t->bit_width <= 128 ? HUDI_VC_DECIMAL : HUDI_VC_NONE;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW:
    case HUDI_ARROW_FIXED_SIZE_BINARY: return HUDI_VC_BYTES;
    default: return HUDI_VC_NONE;
  }
}

/* NaN is the greatest double and equal to itself, as in Spark and DuckDB,
 * so that comparisons form a total order the pruner can reason about. */
static int cmp_double(double a, double b) {
  bool na = isnan(a), nb = isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

static int cmp_bytes(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return na < nb ? -1 : (na > nb ? 1 : 0);
}

int hudi_value_cmp(const hudi_value *a, const hudi_value *b) {
  switch (a->cls) {
    case HUDI_VC_BOOL: return (int)a->v.b - (int)b->v.b;
    case HUDI_VC_INT: return a->v.i < b->v.i ? -1 : (a->v.i > b->v.i ? 1 : 0);
    case HUDI_VC_UINT: return a->v.u < b->v.u ? -1 : (a->v.u > b->v.u ? 1 : 0);
    case HUDI_VC_DOUBLE: return cmp_double(a->v.d, b->v.d);
    case HUDI_VC_DECIMAL: return a->v.dec < b->v.dec ? -1 : (a->v.dec > b->v.dec ? 1 : 0);
    case HUDI_VC_BYTES:
      return cmp_bytes(a->v.bytes.data, a->v.bytes.len, b->v.bytes.data, b->v.bytes.len);
    default: return 0;
  }
}

hudi_i128 hudi_decimal_load(const uint8_t *p, int32_t bit_width) {
  if (bit_width == 32) {
    int32_t x;
    memcpy(&x, p, 4);
    return x;
  }
  if (bit_width == 64) {
    int64_t x;
    memcpy(&x, p, 8);
    return x;
  }
  uint64_t lo;
  int64_t hi;
  memcpy(&lo, p, 8);
  memcpy(&hi, p + 8, 8);
  return (hudi_i128)(((unsigned __int128)(uint64_t)hi << 64) | lo);
}

void hudi_decimal_store(uint8_t *p, int32_t bit_width, hudi_i128 x) {
  if (bit_width == 32) {
    int32_t v = (int32_t)x;
    memcpy(p, &v, 4);
  } else if (bit_width == 64) {
    int64_t v = (int64_t)x;
    memcpy(p, &v, 8);
  } else {
    uint64_t lo = (uint64_t)x;
    uint64_t hi = (uint64_t)((unsigned __int128)x >> 64);
    memcpy(p, &lo, 8);
    memcpy(p + 8, &hi, 8);
  }
}

hudi_i128 hudi_pow10_i128(int n) {
  hudi_i128 r = 1;
  for (int k = 0; k < n && k < 38; k++) r *= 10;
  return r;
}

bool hudi_decimal_fits(hudi_i128 x, int32_t precision) {
  if (precision >= 39) return true;
  hudi_i128 lim = hudi_pow10_i128(precision < 0 ? 0 : precision);
  return x < lim && x > -lim;
}

void hudi_value_from_view(hudi_value *out, const hudi_arrow_view *v, int64_t i) {
  memset(out, 0, sizeof *out);
  if (hudi_arrow_view_is_null(v, i)) {
    out->is_null = true;
    return;
  }
  if (v->dictionary) {
    int64_t k = hudi_arrow_view_dict_index(v, i);
    hudi_value_from_view(out, v->dictionary, k);
    return;
  }
  out->cls = hudi_vclass_of(&v->type);
  switch (out->cls) {
    case HUDI_VC_BOOL: out->v.b = hudi_arrow_view_bool(v, i); break;
    case HUDI_VC_INT: out->v.i = hudi_arrow_view_int(v, i); break;
    case HUDI_VC_UINT: out->v.u = hudi_arrow_view_uint(v, i); break;
    case HUDI_VC_DOUBLE: out->v.d = hudi_arrow_view_double(v, i); break;
    case HUDI_VC_DECIMAL:
      out->v.dec = hudi_decimal_load(hudi_arrow_view_fixed(v, i), v->type.bit_width);
      break;
    case HUDI_VC_BYTES: {
      int64_t n = 0;
      out->v.bytes.data = hudi_arrow_view_bytes(v, i, &n);
      out->v.bytes.len = (size_t)n;
      break;
    }
    default: out->is_null = true; break;
  }
}

static void format_i128(char *out, size_t cap, hudi_i128 x, int32_t scale) {
  char digits[48];
  int n = 0;
  bool neg = x < 0;
  unsigned __int128 m = neg ? (unsigned __int128)0 - (unsigned __int128)x : (unsigned __int128)x;
  do {
    digits[n++] = (char)('0' + (int)(m % 10));
    m /= 10;
  } while (m && n < 40);
  while (n <= scale && n < 40) digits[n++] = '0';
  char buf[64];
  int k = 0;
  if (neg) buf[k++] = '-';
  for (int j = n - 1; j >= 0; j--) {
    buf[k++] = digits[j];
    if (j == scale && scale > 0) buf[k++] = '.';
  }
  buf[k] = 0;
  snprintf(out, cap, "%s", buf);
}

void hudi_value_format(char *out, size_t cap, const hudi_value *v, int32_t scale) {
  if (!cap) return;
  if (v->is_null) {
    snprintf(out, cap, "NULL");
    return;
  }
  switch (v->cls) {
    case HUDI_VC_BOOL: snprintf(out, cap, "%s", v->v.b ? "TRUE" : "FALSE"); break;
    case HUDI_VC_INT: snprintf(out, cap, "%lld", (long long)v->v.i); break;
    case HUDI_VC_UINT: snprintf(out, cap, "%llu", (unsigned long long)v->v.u); break;
    case HUDI_VC_DOUBLE: snprintf(out, cap, "%.17g", v->v.d); break;
    case HUDI_VC_DECIMAL: format_i128(out, cap, v->v.dec, scale); break;
    case HUDI_VC_BYTES: {
      int n = v->v.bytes.len > 200 ? 200 : (int)v->v.bytes.len;
      snprintf(out, cap, "'%.*s%s'", n, (const char *)v->v.bytes.data, n < (int)v->v.bytes.len ? "..." : "");
      break;
    }
    default: snprintf(out, cap, "?"); break;
  }
}
