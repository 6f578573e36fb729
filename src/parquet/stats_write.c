/* Statistics accumulation and encoding for the writer. */
#include "parquet/stats_write.h"

#include <math.h>
#include <string.h>

#include "parquet/encoding.h"

void hudi_pq_stats_init(hudi_pq_stats_acc *s, hudi_pq_sort sort, hudi_pq_type type, int32_t type_length) {
  memset(s, 0, sizeof *s);
  s->sort = sort;
  s->width = type == HUDI_PQ_BYTE_ARRAY ? 0 : (int32_t)hudi_pq_value_size(type, type_length);
  hudi_buf_init(&s->min_bytes, 0);
  hudi_buf_init(&s->max_bytes, 0);
}

void hudi_pq_stats_free(hudi_pq_stats_acc *s) {
  hudi_buf_free(&s->min_bytes);
  hudi_buf_free(&s->max_bytes);
}

void hudi_pq_stats_reset(hudi_pq_stats_acc *s) {
  s->has = false;
  s->null_count = 0;
  hudi_buf_reset(&s->min_bytes);
  hudi_buf_reset(&s->max_bytes);
}

static float half_to_float(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v;
  if (e == 0) v = ldexpf((float)m, -24);
  else if (e == 31) v = m ? NAN : INFINITY;
  else v = ldexpf((float)(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return al < bl ? -1 : al > bl;
}

int hudi_pq_stats_compare(hudi_pq_sort sort, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  switch (sort) {
    case HUDI_PQ_SORT_BOOL: return (a[0] != 0) - (b[0] != 0);
    case HUDI_PQ_SORT_I32: { int32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_U32: { uint32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_I64: { int64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_U64: { uint64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_FLOAT: { float x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_DOUBLE: { double x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case HUDI_PQ_SORT_FLOAT16: {
      uint16_t x, y;
      memcpy(&x, a, 2);
      memcpy(&y, b, 2);
      float fx = half_to_float(x), fy = half_to_float(y);
      return (fx > fy) - (fx < fy);
    }
    case HUDI_PQ_SORT_DECIMAL: {
      /* Same widths: the sign byte decides, then unsigned bytes. */
      if (alen && blen && (int8_t)a[0] != (int8_t)b[0]) return (int8_t)a[0] < (int8_t)b[0] ? -1 : 1;
      return cmp_bytes(a, alen, b, blen);
    }
    default: return cmp_bytes(a, alen, b, blen);
  }
}

static bool is_nan(hudi_pq_sort sort, const uint8_t *p) {
  if (sort == HUDI_PQ_SORT_FLOAT) { float f; memcpy(&f, p, 4); return isnan(f); }
  if (sort == HUDI_PQ_SORT_DOUBLE) { double d; memcpy(&d, p, 8); return isnan(d); }
  if (sort == HUDI_PQ_SORT_FLOAT16) { uint16_t h; memcpy(&h, p, 2); return isnan(half_to_float(h)); }
  return false;
}

/* Typed min/max loops for the common fixed-width orders. */
#define MINMAX_LOOP(T)                                   \
  do {                                                   \
    T lo, hi, v;                                         \
    memcpy(&lo, data, sizeof(T));                        \
    hi = lo;                                             \
    for (size_t i = 1; i < n; i++) {                     \
      memcpy(&v, data + i * sizeof(T), sizeof(T));       \
      lo = v < lo ? v : lo;                              \
      hi = v > hi ? v : hi;                              \
    }                                                    \
    memcpy(mn, &lo, sizeof(T));                          \
    memcpy(mx, &hi, sizeof(T));                          \
  } while (0)

/* Floats and doubles: NaN is skipped (it has no place in the order).
 * False when every value is NaN. Eight independent lanes (the compiler
 * turns them into vector min/max) because the embedding columns of RAG
 * tables are hundreds of millions of floats; the lanes may keep a
 * different zero of -0.0 and 0.0 than a scalar loop would, which does not
 * matter: hudi_pq_stats_to_thrift writes a zero bound as -0.0 (min) and
 * 0.0 (max) whichever was kept. */
#define MINMAX_FLOAT_FN(name, T)                                              \
  static bool name(const uint8_t *data, size_t n, uint8_t *mn, uint8_t *mx) { \
    size_t i = 0;                                                             \
    T first = 0;                                                              \
    for (; i < n; i++) {                                                      \
      memcpy(&first, data + i * sizeof(T), sizeof(T));                        \
      if (!isnan(first)) break;                                               \
    }                                                                         \
    if (i == n) return false;                                                 \
    T lo[8], hi[8], v[8];                                                     \
    for (int k = 0; k < 8; k++) lo[k] = hi[k] = first;                        \
    /* comparisons with NaN are false: NaN never replaces a bound */          \
    for (i++; i + 8 <= n; i += 8) {                                           \
      memcpy(v, data + i * sizeof(T), sizeof v);                              \
      for (int k = 0; k < 8; k++) {                                           \
        lo[k] = v[k] < lo[k] ? v[k] : lo[k];                                  \
        hi[k] = v[k] > hi[k] ? v[k] : hi[k];                                  \
      }                                                                       \
    }                                                                         \
    for (; i < n; i++) {                                                      \
      memcpy(&v[0], data + i * sizeof(T), sizeof(T));                         \
      lo[0] = v[0] < lo[0] ? v[0] : lo[0];                                    \
      hi[0] = v[0] > hi[0] ? v[0] : hi[0];                                    \
    }                                                                         \
    for (int k = 1; k < 8; k++) {                                             \
      lo[0] = lo[k] < lo[0] ? lo[k] : lo[0];                                  \
      hi[0] = hi[k] > hi[0] ? hi[k] : hi[0];                                  \
    }                                                                         \
    memcpy(mn, &lo[0], sizeof(T));                                            \
    memcpy(mx, &hi[0], sizeof(T));                                            \
    return true;                                                              \
  }
MINMAX_FLOAT_FN(minmax_float, float)
MINMAX_FLOAT_FN(minmax_double, double)

static void fold_fixed(hudi_pq_stats_acc *s, const uint8_t *mn, const uint8_t *mx) {
  size_t w = (size_t)s->width;
  if (!s->has) {
    memcpy(s->min_fixed, mn, w);
    memcpy(s->max_fixed, mx, w);
    s->has = true;
    return;
  }
  if (hudi_pq_stats_compare(s->sort, mn, w, s->min_fixed, w) < 0) memcpy(s->min_fixed, mn, w);
  if (hudi_pq_stats_compare(s->sort, mx, w, s->max_fixed, w) > 0) memcpy(s->max_fixed, mx, w);
}

static hudi_status set_bytes(hudi_buf *b, const uint8_t *p, size_t n, hudi_error *err) {
  hudi_buf_reset(b);
  return hudi_buf_append(b, p, n, err);
}

static hudi_status fold_bytes(hudi_pq_stats_acc *s, const uint8_t *mn, size_t mnl, const uint8_t *mx, size_t mxl,
                              hudi_error *err) {
  if (!s->has) {
    HUDI_TRY(set_bytes(&s->min_bytes, mn, mnl, err));
    HUDI_TRY(set_bytes(&s->max_bytes, mx, mxl, err));
    s->has = true;
    return HUDI_OK;
  }
  if (hudi_pq_stats_compare(s->sort, mn, mnl, s->min_bytes.data, s->min_bytes.len) < 0)
    HUDI_TRY(set_bytes(&s->min_bytes, mn, mnl, err));
  if (hudi_pq_stats_compare(s->sort, mx, mxl, s->max_bytes.data, s->max_bytes.len) > 0)
    HUDI_TRY(set_bytes(&s->max_bytes, mx, mxl, err));
  return HUDI_OK;
}

hudi_status hudi_pq_stats_update(hudi_pq_stats_acc *s, const uint8_t *data, const int32_t *offsets, size_t n,
                                 hudi_error *err) {
  if (n == 0 || s->sort == HUDI_PQ_SORT_NONE) return HUDI_OK;
  if (s->width == 0 || s->width > (int32_t)sizeof s->min_fixed) {
    /* Byte arrays (and wide FLBA): find the extremes, copy them once. */
    size_t w = (size_t)s->width;
    size_t lo = 0, hi = 0;
    const uint8_t *lp = data + (w ? 0 : (size_t)offsets[0]), *hp = lp;
    size_t ll = w ? w : (size_t)(offsets[1] - offsets[0]), hl = ll;
    bool bytes_order = s->sort == HUDI_PQ_SORT_BYTES;
    for (size_t i = 1; i < n; i++) {
      const uint8_t *p = data + (w ? i * w : (size_t)offsets[i]);
      size_t l = w ? w : (size_t)(offsets[i + 1] - offsets[i]);
      if (bytes_order) {
        /* the common case (strings), without the per-value dispatch */
        if (cmp_bytes(p, l, lp, ll) < 0) { lp = p; ll = l; lo = i; }
        else if (cmp_bytes(p, l, hp, hl) > 0) { hp = p; hl = l; hi = i; }
        continue;
      }
      if (hudi_pq_stats_compare(s->sort, p, l, lp, ll) < 0) { lp = p; ll = l; lo = i; }
      if (hudi_pq_stats_compare(s->sort, p, l, hp, hl) > 0) { hp = p; hl = l; hi = i; }
    }
    (void)lo;
    (void)hi;
    return fold_bytes(s, lp, ll, hp, hl, err);
  }
  uint8_t mn[32], mx[32];
  switch (s->sort) {
    case HUDI_PQ_SORT_I32: MINMAX_LOOP(int32_t); break;
    case HUDI_PQ_SORT_U32: MINMAX_LOOP(uint32_t); break;
    case HUDI_PQ_SORT_I64: MINMAX_LOOP(int64_t); break;
    case HUDI_PQ_SORT_U64: MINMAX_LOOP(uint64_t); break;
    case HUDI_PQ_SORT_BOOL: MINMAX_LOOP(uint8_t); break;
    case HUDI_PQ_SORT_FLOAT: if (!minmax_float(data, n, mn, mx)) return HUDI_OK; break;
    case HUDI_PQ_SORT_DOUBLE: if (!minmax_double(data, n, mn, mx)) return HUDI_OK; break;
    default: {
      /* Floats (skipping NaN) and small FLBA. */
      size_t w = (size_t)s->width;
      bool any = false;
      for (size_t i = 0; i < n; i++) {
        const uint8_t *p = data + i * w;
        if (is_nan(s->sort, p)) continue;
        if (!any) {
          memcpy(mn, p, w);
          memcpy(mx, p, w);
          any = true;
          continue;
        }
        if (hudi_pq_stats_compare(s->sort, p, w, mn, w) < 0) memcpy(mn, p, w);
        if (hudi_pq_stats_compare(s->sort, p, w, mx, w) > 0) memcpy(mx, p, w);
      }
      if (!any) return HUDI_OK;
      break;
    }
  }
  fold_fixed(s, mn, mx);
  return HUDI_OK;
}

hudi_status hudi_pq_stats_merge(hudi_pq_stats_acc *into, const hudi_pq_stats_acc *from, hudi_error *err) {
  into->null_count += from->null_count;
  if (!from->has) return HUDI_OK;
  if (into->width == 0 || into->width > (int32_t)sizeof into->min_fixed)
    return fold_bytes(into, from->min_bytes.data, from->min_bytes.len, from->max_bytes.data, from->max_bytes.len,
                      err);
  fold_fixed(into, from->min_fixed, from->max_fixed);
  return HUDI_OK;
}

static void zero_sign(hudi_pq_sort sort, uint8_t *mn, uint8_t *mx) {
  if (sort == HUDI_PQ_SORT_FLOAT) {
    float a, b;
    memcpy(&a, mn, 4);
    memcpy(&b, mx, 4);
    if (a == 0) a = -0.0f;
    if (b == 0) b = 0.0f;
    memcpy(mn, &a, 4);
    memcpy(mx, &b, 4);
  } else if (sort == HUDI_PQ_SORT_DOUBLE) {
    double a, b;
    memcpy(&a, mn, 8);
    memcpy(&b, mx, 8);
    if (a == 0) a = -0.0;
    if (b == 0) b = 0.0;
    memcpy(mn, &a, 8);
    memcpy(mx, &b, 8);
  } else if (sort == HUDI_PQ_SORT_FLOAT16) {
    if ((mn[0] | (mn[1] & 0x7f)) == 0) mn[1] = 0x80;
    if ((mx[0] | (mx[1] & 0x7f)) == 0) mx[1] = 0x00;
  }
}

static bool signed_order(hudi_pq_sort sort) {
  return sort != HUDI_PQ_SORT_U32 && sort != HUDI_PQ_SORT_U64 && sort != HUDI_PQ_SORT_BYTES &&
         sort != HUDI_PQ_SORT_NONE;
}

hudi_status hudi_pq_stats_to_thrift(hudi_pq_statistics *out, const hudi_pq_stats_acc *s, hudi_pq_arena *arena,
                                    hudi_error *err) {
  memset(out, 0, sizeof *out);
  out->has_null_count = true;
  out->null_count = s->null_count;
  if (!s->has) return HUDI_OK;
  const uint8_t *mn, *mx;
  size_t mnl, mxl;
  uint8_t fmn[32], fmx[32];
  if (s->width == 0 || s->width > (int32_t)sizeof s->min_fixed) {
    mn = s->min_bytes.data;
    mnl = s->min_bytes.len;
    mx = s->max_bytes.data;
    mxl = s->max_bytes.len;
  } else {
    memcpy(fmn, s->min_fixed, (size_t)s->width);
    memcpy(fmx, s->max_fixed, (size_t)s->width);
    zero_sign(s->sort, fmn, fmx);
    mn = fmn;
    mx = fmx;
    mnl = mxl = (size_t)s->width;
  }
  if (mnl > HUDI_PQ_STATS_MAX_VALUE || mxl > HUDI_PQ_STATS_MAX_VALUE) return HUDI_OK;
  uint8_t *a = hudi_pq_arena_alloc(arena, mnl + mxl + 1);
  if (!a) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding statistics");
  if (mnl) memcpy(a, mn, mnl);
  if (mxl) memcpy(a + mnl, mx, mxl);
  out->has_min_value = out->has_max_value = true;
  out->min_value = (hudi_pq_bytes){a, mnl};
  out->max_value = (hudi_pq_bytes){a + mnl, mxl};
  if (signed_order(s->sort)) {
    out->has_min = out->has_max = true;
    out->min = out->min_value;
    out->max = out->max_value;
  }
  return HUDI_OK;
}
