/* Shredding (Dremel): Arrow arrays -> definition/repetition levels and
 * Parquet physical values of one leaf column.
 *
 * The walk follows the leaf's plan from the top-level column down. A run of
 * elements whose parents are all present is handed to the next step as one
 * range, so a leaf's values are converted a range at a time: a fixed-width
 * column without nulls is one memcpy per call, a list<float> one per list.
 * Nothing is allocated per value: levels and values go to growable page
 * buffers. */
#include <limits.h>
#include <string.h>

#include "parquet/writer_column.h"

typedef struct shred {
  hudi_pq_colw *c;
  const hudi_pq_leaf_plan *p;
  hudi_error *err;
} shred;

static int16_t *reserve16(hudi_buf *b, size_t n, hudi_error *err) {
  if (hudi_buf_reserve(b, n * sizeof(int16_t), err) != HUDI_OK) return NULL;
  int16_t *p = (int16_t *)(void *)(b->data + b->len);
  b->len += n * sizeof(int16_t);
  return p;
}

static void fill16(int16_t *p, int16_t v, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = v;
}

/* One level with no value (a null or an empty list). */
static hudi_status push_level(shred *s, int16_t def, int16_t rep) {
  hudi_pq_colw *c = s->c;
  if (s->p->max_def > 0) {
    int16_t *d = reserve16(&c->def, 1, s->err);
    if (!d) return HUDI_ERR_NOMEM;
    *d = def;
  }
  if (s->p->max_rep > 0) {
    int16_t *r = reserve16(&c->rep, 1, s->err);
    if (!r) return HUDI_ERR_NOMEM;
    *r = rep;
  }
  c->page_levels++;
  return HUDI_OK;
}

static hudi_status null_in_required(shred *s, const hudi_arrow_view *v) {
  return hudi_err_set(s->err, HUDI_ERR_INVALID_ARG,
                      "column '%s': a null in '%s', which Parquet stores as required (non-nullable field, map key, "
                      "map entry or 2-level list element)",
                      s->p->name, v->name ? v->name : "?");
}

static hudi_status too_big(shred *s) {
  return hudi_err_set(s->err, HUDI_ERR_LIMIT, "column '%s': a page holds more than 2 GiB of values", s->p->name);
}

/* Appends byte-array offsets o[1..n] for values of the given lengths
 * already appended at base. */
static hudi_status bytes_range(shred *s, const hudi_arrow_view *v, int64_t i, int64_t n) {
  hudi_pq_colw *c = s->c;
  hudi_buf *vals = c->out_vals, *offs = c->out_offs;
  HUDI_TRY(hudi_buf_reserve(offs, (size_t)n * sizeof(int32_t), s->err));
  int32_t *o = (int32_t *)(void *)(offs->data + offs->len);
  int64_t j = v->offset + i;
  hudi_arrow_type_id id = v->type.id;
  if ((id == HUDI_ARROW_STRING || id == HUDI_ARROW_BINARY) && v->values) {
    const int32_t *src = (const int32_t *)(const void *)v->values;
    int32_t a = src[j], b = src[j + n];
    if (vals->len + (size_t)(b - a) > (size_t)INT32_MAX) return too_big(s);
    if (b > a) HUDI_TRY(hudi_buf_append(vals, v->data + a, (size_t)(b - a), s->err));
    int32_t base = (int32_t)vals->len - (b - a) - a;
    for (int64_t k = 0; k < n; k++) o[k] = src[j + k + 1] + base;
  } else if ((id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_LARGE_BINARY) && v->values) {
    const int64_t *src = (const int64_t *)(const void *)v->values;
    int64_t a = src[j], b = src[j + n];
    if (b - a > (int64_t)INT32_MAX || vals->len + (size_t)(b - a) > (size_t)INT32_MAX) return too_big(s);
    if (b > a) HUDI_TRY(hudi_buf_append(vals, v->data + a, (size_t)(b - a), s->err));
    int64_t base = (int64_t)vals->len - (b - a) - a;
    for (int64_t k = 0; k < n; k++) o[k] = (int32_t)(src[j + k + 1] + base);
  } else {
    for (int64_t k = 0; k < n; k++) {
      int64_t len;
      const uint8_t *p = hudi_arrow_view_bytes(v, i + k, &len);
      if (vals->len + (size_t)len > (size_t)INT32_MAX) return too_big(s);
      HUDI_TRY(hudi_buf_append(vals, p, (size_t)len, s->err));
      o = (int32_t *)(void *)(offs->data + offs->len); /* offs does not move, but stay safe */
      o[k] = (int32_t)vals->len;
    }
  }
  offs->len += (size_t)n * sizeof(int32_t);
  return HUDI_OK;
}

/* Converts values [i, i + n) of leaf view v (no nulls among them). */
static hudi_status convert(shred *s, const hudi_arrow_view *v, int64_t i, int64_t n) {
  if (n <= 0) return HUDI_OK;
  const hudi_pq_leaf_plan *p = s->p;
  hudi_pq_colw *c = s->c;
  c->out_count += (size_t)n;
  if (p->conv == HUDI_PQ_CONV_BYTES) {
    if (p->type == HUDI_PQ_FIXED_LEN_BYTE_ARRAY && v->values)
      return hudi_buf_append(c->out_vals, v->values + (v->offset + i) * (int64_t)v->byte_width,
                             (size_t)n * (size_t)v->byte_width, s->err);
    return bytes_range(s, v, i, n);
  }
  size_t w = p->type == HUDI_PQ_BOOLEAN ? 1 : p->type == HUDI_PQ_INT32 || p->type == HUDI_PQ_FLOAT ? 4
           : p->type == HUDI_PQ_FIXED_LEN_BYTE_ARRAY ? (size_t)p->type_length : 8;
  hudi_buf *out = c->out_vals;
  const uint8_t *src = v->values + (v->offset + i) * (int64_t)v->byte_width;
  if (p->conv == HUDI_PQ_CONV_COPY) return hudi_buf_append(out, src, (size_t)n * w, s->err);
  HUDI_TRY(hudi_buf_reserve(out, (size_t)n * w, s->err));
  uint8_t *dst = out->data + out->len;
  out->len += (size_t)n * w;
  switch (p->conv) {
    case HUDI_PQ_CONV_BOOL:
      for (int64_t k = 0; k < n; k++) dst[k] = hudi_arrow_bit(v->values, v->offset + i + k);
      break;
    case HUDI_PQ_CONV_I8:
      for (int64_t k = 0; k < n; k++) { int32_t x = (int8_t)src[k]; memcpy(dst + 4 * k, &x, 4); }
      break;
    case HUDI_PQ_CONV_U8:
      for (int64_t k = 0; k < n; k++) { int32_t x = src[k]; memcpy(dst + 4 * k, &x, 4); }
      break;
    case HUDI_PQ_CONV_I16:
      for (int64_t k = 0; k < n; k++) { int16_t y; memcpy(&y, src + 2 * k, 2); int32_t x = y; memcpy(dst + 4 * k, &x, 4); }
      break;
    case HUDI_PQ_CONV_U16:
      for (int64_t k = 0; k < n; k++) { uint16_t y; memcpy(&y, src + 2 * k, 2); int32_t x = y; memcpy(dst + 4 * k, &x, 4); }
      break;
    case HUDI_PQ_CONV_MUL32:
      for (int64_t k = 0; k < n; k++) {
        int32_t x;
        memcpy(&x, src + 4 * k, 4);
        x = (int32_t)((uint32_t)x * (uint32_t)p->factor);
        memcpy(dst + 4 * k, &x, 4);
      }
      break;
    case HUDI_PQ_CONV_MUL64:
      for (int64_t k = 0; k < n; k++) {
        int64_t x;
        memcpy(&x, src + 8 * k, 8);
        x = (int64_t)((uint64_t)x * (uint64_t)p->factor);
        memcpy(dst + 8 * k, &x, 8);
      }
      break;
    case HUDI_PQ_CONV_DATE64:
      for (int64_t k = 0; k < n; k++) {
        int64_t x;
        memcpy(&x, src + 8 * k, 8);
        int64_t d = x / 86400000;
        if (x % 86400000 < 0) d--;
        int32_t y = (int32_t)d;
        memcpy(dst + 4 * k, &y, 4);
      }
      break;
    case HUDI_PQ_CONV_DEC_I32: case HUDI_PQ_CONV_DEC_I64: {
      size_t sw = (size_t)p->src_width;
      for (int64_t k = 0; k < n; k++) memcpy(dst + w * (size_t)k, src + sw * (size_t)k, w); /* little-endian low bytes */
      break;
    }
    case HUDI_PQ_CONV_DEC_FLBA: {
      size_t sw = (size_t)p->src_width;
      for (int64_t k = 0; k < n; k++) {
        const uint8_t *x = src + sw * (size_t)k;
        uint8_t *y = dst + w * (size_t)k;
        for (size_t b = 0; b < w; b++) y[b] = x[w - 1 - b];
      }
      break;
    }
    default: break;
  }
  return HUDI_OK;
}

/* Leaf: elements [start, end) of v, with def_base the level of their
 * parent being present. */
static hudi_status leaf(shred *s, const hudi_pq_step *st, const hudi_arrow_view *v, int64_t start, int64_t end,
                        int16_t first_rep, int16_t inner_rep, int16_t def_base) {
  hudi_pq_colw *c = s->c;
  const hudi_pq_leaf_plan *p = s->p;
  size_t n = (size_t)(end - start);
  if (n == 0) return HUDI_OK;
  int16_t *d = NULL, *r = NULL;
  if (p->max_def > 0 && !(d = reserve16(&c->def, n, s->err))) return HUDI_ERR_NOMEM;
  if (p->max_rep > 0) {
    if (!(r = reserve16(&c->rep, n, s->err))) return HUDI_ERR_NOMEM;
    r[0] = first_rep;
    fill16(r + 1, inner_rep, n - 1);
  }
  c->page_levels += n;
  if (v->dictionary) {
    const hudi_arrow_view *dv = v->dictionary;
    for (size_t k = 0; k < n; k++) {
      int64_t i = start + (int64_t)k;
      bool null = hudi_arrow_view_is_null(v, i);
      int64_t di = null ? 0 : hudi_arrow_view_dict_index(v, i);
      if (!null) null = hudi_arrow_view_is_null(dv, di);
      if (null) {
        if (!st->optional) return null_in_required(s, v);
        d[k] = def_base;
        continue;
      }
      if (d) d[k] = st->def;
      HUDI_TRY(convert(s, dv, di, 1));
    }
    return HUDI_OK;
  }
  if (!v->validity || v->null_count == 0) {
    if (d) fill16(d, st->def, n);
    return convert(s, v, start, (int64_t)n);
  }
  /* Runs of valid values convert together. */
  int64_t i = start;
  while (i < end) {
    int64_t j = i;
    while (j < end && hudi_arrow_bit(v->validity, v->offset + j)) j++;
    if (j > i) {
      if (d) fill16(d + (i - start), st->def, (size_t)(j - i));
      HUDI_TRY(convert(s, v, i, j - i));
    }
    int64_t k = j;
    while (k < end && !hudi_arrow_bit(v->validity, v->offset + k)) k++;
    if (k > j) {
      if (!st->optional) return null_in_required(s, v);
      fill16(d + (j - start), def_base, (size_t)(k - j));
    }
    i = k;
  }
  return HUDI_OK;
}

static hudi_status walk(shred *s, uint32_t k, const hudi_arrow_view *v, int64_t start, int64_t end, int16_t first_rep,
                        int16_t inner_rep, int16_t def_base);

static hudi_status list_node(shred *s, uint32_t k, const hudi_arrow_view *v, int64_t start, int64_t end,
                             int16_t first_rep, int16_t inner_rep, int16_t def_base) {
  const hudi_pq_step *st = &s->p->steps[k];
  const hudi_arrow_view *child = &v->children[0];
  for (int64_t i = start; i < end; i++) {
    int16_t rep = i == start ? first_rep : inner_rep;
    if (hudi_arrow_view_is_null(v, i)) {
      if (!st->optional) return null_in_required(s, v);
      HUDI_TRY(push_level(s, def_base, rep));
      continue;
    }
    int64_t cs, ce;
    hudi_arrow_view_list_range(v, i, &cs, &ce);
    if (cs == ce) {
      HUDI_TRY(push_level(s, st->def, rep));
      continue;
    }
    HUDI_TRY(walk(s, k + 1, child, cs, ce, rep, st->rep, (int16_t)(st->def + 1)));
  }
  return HUDI_OK;
}

static hudi_status struct_node(shred *s, uint32_t k, const hudi_arrow_view *v, int64_t start, int64_t end,
                               int16_t first_rep, int16_t inner_rep, int16_t def_base) {
  const hudi_pq_step *st = &s->p->steps[k];
  const hudi_arrow_view *child = &v->children[s->p->steps[k + 1].child];
  if (!v->validity || v->null_count == 0)
    return walk(s, k + 1, child, v->offset + start, v->offset + end, first_rep, inner_rep, st->def);
  int64_t i = start;
  while (i < end) {
    int64_t j = i;
    while (j < end && hudi_arrow_bit(v->validity, v->offset + j)) j++;
    if (j > i)
      HUDI_TRY(walk(s, k + 1, child, v->offset + i, v->offset + j, i == start ? first_rep : inner_rep, inner_rep,
                    st->def));
    for (; j < end && !hudi_arrow_bit(v->validity, v->offset + j); j++) {
      if (!st->optional) return null_in_required(s, v);
      HUDI_TRY(push_level(s, def_base, j == start ? first_rep : inner_rep));
    }
    i = j;
  }
  return HUDI_OK;
}

static hudi_status walk(shred *s, uint32_t k, const hudi_arrow_view *v, int64_t start, int64_t end, int16_t first_rep,
                        int16_t inner_rep, int16_t def_base) {
  const hudi_pq_step *st = &s->p->steps[k];
  switch (st->kind) {
    case HUDI_PQ_STEP_LEAF: return leaf(s, st, v, start, end, first_rep, inner_rep, def_base);
    case HUDI_PQ_STEP_STRUCT: return struct_node(s, k, v, start, end, first_rep, inner_rep, def_base);
    default: return list_node(s, k, v, start, end, first_rep, inner_rep, def_base);
  }
}

hudi_status hudi_pq_shred(hudi_pq_colw *c, const hudi_arrow_view *top, int64_t row, int64_t n, hudi_error *err) {
  shred s = {c, c->plan, err};
  hudi_status st = walk(&s, 0, top, row, row + n, 0, 0, 0);
  if (st == HUDI_ERR_NOMEM && err && err->code != HUDI_ERR_NOMEM)
    hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory writing column '%s'", c->plan->name);
  return st;
}
