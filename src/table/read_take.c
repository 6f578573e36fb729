/* Exactly sized row selections (read_take.h). */
#include "table/read_take.h"

#include <string.h>

#include "base/alloc.h"
#include "parquet/assemble.h"

typedef struct take_priv {
  void *bufs[3];
  const void *ptrs[3];
  struct ArrowArray kid; /* lists: the elements */
  struct ArrowArray *kid_ptr;
} take_priv;

static void take_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  take_priv *p = a->private_data;
  for (int i = 0; i < 3; i++) hudi_free(p->bufs[i]);
  if (p->kid.release) p->kid.release(&p->kid);
  hudi_free(p);
  a->release = NULL;
}

static bool flat_supported(const hudi_arrow_view *c);

bool hudi_read_take_supports(const hudi_arrow_view *c) {
  /* Lists (32-bit offsets) of flat elements: embeddings and the like. */
  if (c->type.id == HUDI_ARROW_LIST && !c->dictionary && c->n_children == 1) return flat_supported(&c->children[0]);
  return flat_supported(c);
}

static bool flat_supported(const hudi_arrow_view *c) {
  if (c->dictionary || c->n_children) return false;
  switch (c->type.id) {
    case HUDI_ARROW_BOOL:
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY: return true;
    case HUDI_ARROW_NA:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW: return false;
    default: return c->byte_width > 0;
  }
}

/* At least 8 bytes: no buffer pointer is NULL, even for no rows. Those
 * not zeroed are filled whole by the caller: faulted in at once. */
static void *buf(take_priv *p, int i, size_t n, bool zero) {
  p->bufs[i] = zero ? hudi_calloc(1, n < 8 ? 8 : n) : hudi_malloc(n < 8 ? 8 : n);
  p->ptrs[i] = p->bufs[i];
  if (!zero) hudi_pq_prefault(p->bufs[i], n);
  return p->bufs[i];
}

static hudi_status take_column(struct ArrowArray *a, const hudi_arrow_view *c, const int64_t *rows, int64_t n,
                               hudi_error *err);

/* The elements of the selected lists: fixed-width elements without nulls
 * are copied a list at a time; others through their element indices. */
static hudi_status take_elements(struct ArrowArray *kid, const hudi_arrow_view *c, const int32_t *off,
                                 const int64_t *rows, int64_t n, hudi_error *err) {
  const hudi_arrow_view *e = &c->children[0];
  int64_t total = off[n];
  if (e->byte_width > 0 && e->type.id != HUDI_ARROW_BOOL && !e->validity) {
    memset(kid, 0, sizeof *kid);
    take_priv *p = hudi_calloc(1, sizeof *p);
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    kid->private_data = p;
    kid->release = take_release;
    kid->length = total;
    kid->buffers = p->ptrs;
    kid->n_buffers = 2;
    size_t w = (size_t)e->byte_width;
    uint8_t *o = buf(p, 1, hudi_mul_size((size_t)total, w), false);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++) {
      int64_t s, t;
      if (off[k + 1] == off[k]) continue;
      hudi_arrow_view_list_range(c, rows[k], &s, &t);
      memcpy(o + w * (size_t)off[k], hudi_arrow_view_fixed(e, s), w * (size_t)(t - s));
    }
    return HUDI_OK;
  }
  int64_t *erows = hudi_malloc(((size_t)total + 1) * sizeof *erows);
  if (!erows) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t k = 0; k < n; k++) {
    int64_t s, t;
    hudi_arrow_view_list_range(c, rows[k], &s, &t);
    for (int64_t i = 0; i < off[k + 1] - off[k]; i++) erows[off[k] + i] = s + i;
  }
  hudi_status st = take_column(kid, e, erows, total, err);
  hudi_free(erows);
  return st;
}

/* List values: offsets of the selected lists (a null list is empty), then
 * their elements. */
static hudi_status take_lists(struct ArrowArray *a, take_priv *p, const hudi_arrow_view *c, const int64_t *rows,
                              int64_t n, hudi_error *err) {
  int32_t *off = buf(p, 1, ((size_t)n + 1) * sizeof(int32_t), false);
  if (!off) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  int64_t total = 0;
  off[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t s, t;
    hudi_arrow_view_list_range(c, rows[k], &s, &t);
    total += t - s;
    if (total > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "a batch's list elements exceed 2^31-1");
    off[k + 1] = (int32_t)total;
  }
  p->kid_ptr = &p->kid;
  a->n_children = 1;
  a->children = &p->kid_ptr;
  return take_elements(&p->kid, c, off, rows, n, err);
}

static hudi_status take_column(struct ArrowArray *a, const hudi_arrow_view *c, const int64_t *rows, int64_t n,
                               hudi_error *err) {
  memset(a, 0, sizeof *a);
  take_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  a->private_data = p;
  a->release = take_release;
  a->length = n;
  a->buffers = p->ptrs;
  bool var = c->type.id == HUDI_ARROW_STRING || c->type.id == HUDI_ARROW_BINARY;
  a->n_buffers = var ? 3 : 2; /* lists: validity and offsets */
  size_t bits = ((size_t)n + 7) / 8;
  int64_t nulls = 0;
  if (c->validity) {
    uint8_t *v = buf(p, 0, bits, true);
    if (!v) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++) {
      if (hudi_arrow_view_is_null(c, rows[k])) nulls++;
      else v[k >> 3] |= (uint8_t)(1u << (k & 7));
    }
    if (!nulls) {
      hudi_free(p->bufs[0]);
      p->bufs[0] = NULL;
      p->ptrs[0] = NULL;
    }
  }
  a->null_count = nulls;
  if (c->type.id == HUDI_ARROW_LIST) return take_lists(a, p, c, rows, n, err);
  if (c->type.id == HUDI_ARROW_BOOL) {
    uint8_t *o = buf(p, 1, bits, true);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t k = 0; k < n; k++)
      if (hudi_arrow_bit(c->values, c->offset + rows[k])) o[k >> 3] |= (uint8_t)(1u << (k & 7));
    return HUDI_OK;
  }
  if (!var) {
    size_t w = (size_t)c->byte_width;
    uint8_t *o = buf(p, 1, hudi_mul_size((size_t)n, w), false);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    if (w == 8) {
      for (int64_t k = 0; k < n; k++) memcpy(o + 8 * k, hudi_arrow_view_fixed(c, rows[k]), 8);
    } else {
      for (int64_t k = 0; k < n; k++) memcpy(o + w * (size_t)k, hudi_arrow_view_fixed(c, rows[k]), w);
    }
    return HUDI_OK;
  }
  const int32_t *soff = (const int32_t *)(const void *)c->values + c->offset;
  int32_t *off = buf(p, 1, ((size_t)n + 1) * sizeof(int32_t), false);
  if (!off) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  int64_t total = 0;
  off[0] = 0;
  for (int64_t k = 0; k < n; k++) {
    total += soff[rows[k] + 1] - soff[rows[k]];
    if (total > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "a batch's values exceed 2 GiB");
    off[k + 1] = (int32_t)total;
  }
  uint8_t *d = buf(p, 2, (size_t)total, false);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t k = 0; k < n; k++) {
    int32_t l = off[k + 1] - off[k];
    if (l) memcpy(d + off[k], c->data + soff[rows[k]], (size_t)l);
  }
  return HUDI_OK;
}

hudi_status hudi_read_take(struct ArrowArray *out, const hudi_arrow_view *v, const int64_t *cols, int64_t n_cols,
                           const int64_t *rows, int64_t n, hudi_error *err) {
  struct ArrowArray *kids = hudi_calloc((size_t)n_cols + 1, sizeof *kids);
  if (!kids) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  /* Rows of the struct are rows of its children after its offset. */
  int64_t *crows = hudi_calloc((size_t)n + 1, sizeof *crows);
  hudi_status st = crows ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t k = 0; st == HUDI_OK && k < n; k++) crows[k] = hudi_arrow_view_struct_row(v, rows[k]);
  for (int64_t k = 0; st == HUDI_OK && k < n_cols; k++) st = take_column(&kids[k], &v->children[cols[k]], crows, n, err);
  hudi_free(crows);
  if (st == HUDI_OK) {
    st = hudi_pq_struct_array(out, kids, n_cols, n, err);
  } else {
    for (int64_t k = 0; k < n_cols; k++)
      if (kids[k].release) kids[k].release(&kids[k]);
  }
  hudi_free(kids);
  return st;
}
