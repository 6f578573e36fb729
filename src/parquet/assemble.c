/* Levels + dense values -> Arrow arrays (see assemble.h). */
#include "parquet/assemble.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/alloc.h"
#include "parquet/encoding.h"

/* ---- owned Arrow arrays ---- */

typedef struct arr_priv {
  void *bufs[3];
  const void *buf_ptrs[3];
  struct ArrowArray *kids;
  struct ArrowArray **kid_ptrs;
  int64_t n_kids;
} arr_priv;

static void arr_release(struct ArrowArray *a) {
  if (!a || !a->release) return;
  arr_priv *p = a->private_data;
  for (int64_t i = 0; i < p->n_kids; i++)
    if (p->kids[i].release) p->kids[i].release(&p->kids[i]);
  for (int i = 0; i < 3; i++) hudi_free(p->bufs[i]);
  hudi_free(p->kids);
  hudi_free(p->kid_ptrs);
  hudi_free(p);
  a->release = NULL;
}

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory assembling Arrow arrays from parquet");
}

/* An empty owned array with n_buffers buffer slots and n_kids zeroed
 * children. */
static hudi_status arr_init(struct ArrowArray *a, int64_t length, int n_buffers, int64_t n_kids, hudi_error *err) {
  memset(a, 0, sizeof *a);
  arr_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) return nomem(err);
  if (n_kids) {
    p->kids = hudi_calloc((size_t)n_kids, sizeof *p->kids);
    p->kid_ptrs = hudi_calloc((size_t)n_kids, sizeof *p->kid_ptrs);
    if (!p->kids || !p->kid_ptrs) {
      hudi_free(p->kids);
      hudi_free(p->kid_ptrs);
      hudi_free(p);
      return nomem(err);
    }
    for (int64_t i = 0; i < n_kids; i++) p->kid_ptrs[i] = &p->kids[i];
  }
  p->n_kids = n_kids;
  a->length = length;
  a->n_buffers = n_buffers;
  a->buffers = p->buf_ptrs;
  a->n_children = n_kids;
  a->children = n_kids ? p->kid_ptrs : NULL;
  a->private_data = p;
  a->release = arr_release;
  return HUDI_OK;
}

/* Gives buffer slot i to the array (it frees it). */
static void arr_set_buf(struct ArrowArray *a, int i, void *buf) {
  arr_priv *p = a->private_data;
  p->bufs[i] = buf;
  p->buf_ptrs[i] = buf;
}

static struct ArrowArray *arr_kid(struct ArrowArray *a, int64_t i) {
  return &((arr_priv *)a->private_data)->kids[i];
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Set once the kernel has refused MADV_POPULATE_WRITE (before 5.14). */
static atomic_int prefault_off;

void hudi_pq_prefault(void *p, size_t n) {
  if (!p || n < ((size_t)64 << 10) || atomic_load_explicit(&prefault_off, memory_order_relaxed)) return;
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
  uintptr_t lo = ((uintptr_t)p + mask) & ~mask, hi = ((uintptr_t)p + n) & ~mask;
  /* Pages already resident are left as they are (no content changes). */
  if (hi > lo && madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
    atomic_store_explicit(&prefault_off, 1, memory_order_relaxed);
}

/* At least 8 bytes, so that empty arrays still get real buffers. Every
 * byte is written by the caller: large ones are faulted in at once. */
static void *alloc_buf(size_t n) {
  void *p = hudi_malloc(n < 8 ? 8 : n);
  hudi_pq_prefault(p, n);
  return p;
}
static void *calloc_buf(size_t n) { return hudi_calloc(1, n < 8 ? 8 : n); }

hudi_status hudi_pq_struct_array(struct ArrowArray *out, struct ArrowArray *children, int64_t n, int64_t n_rows,
                                 hudi_error *err) {
  hudi_status st = arr_init(out, n_rows, 1, n, err);
  if (st != HUDI_OK) {
    for (int64_t i = 0; i < n; i++)
      if (children[i].release) children[i].release(&children[i]);
    return st;
  }
  for (int64_t i = 0; i < n; i++) {
    *arr_kid(out, i) = children[i];
    children[i].release = NULL;
  }
  return HUDI_OK;
}

/* ---- levels ---- */

typedef struct levels {
  const int16_t *def, *rep; /* NULL: all max_def / all 0 */
  int16_t max_def, max_rep;
  size_t begin, end;
} levels;

static inline int16_t def_at(const levels *l, size_t k) { return l->def ? l->def[k] : l->max_def; }
static inline int16_t rep_at(const levels *l, size_t k) { return l->rep ? l->rep[k] : 0; }

/* Level scans go a block at a time: fixed-length inner loops the compiler
 * vectorizes even at -O2, so long runs of list elements cost little. */
#define LV_BLOCK 32

/* How many of r[0..LV_BLOCK) are <= t. */
static inline int block_count_le(const int16_t *r, int16_t t) {
  int c = 0;
  for (int i = 0; i < LV_BLOCK; i++) c += r[i] <= t;
  return c;
}

/* How many of r[0..n) are <= t. */
static size_t count_le(const int16_t *r, size_t n, int16_t t) {
  size_t c = 0, k = 0;
  for (; k + LV_BLOCK <= n; k += LV_BLOCK) c += (size_t)block_count_le(r + k, t);
  for (; k < n; k++) c += r[k] <= t;
  return c;
}

hudi_status hudi_pq_check_chunk_start(const hudi_pq_leaf *leaf, const hudi_pq_column_data *d, hudi_error *err) {
  if (leaf->max_rep == 0 || d->num_levels == 0) return HUDI_OK;
  const int16_t *rep = (const int16_t *)(const void *)d->rep_levels.data;
  if (rep[0] != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s: the first entry does not start a row", leaf->path);
  return HUDI_OK;
}

/* Sets cur->end to the entry after n_rows rows from cur->level. */
static hudi_status find_end(hudi_pq_leaf_cursor *cur, const hudi_pq_leaf *leaf, int64_t n_rows, hudi_error *err) {
  const hudi_pq_column_data *d = cur->data;
  size_t k = cur->level;
  if (leaf->max_rep == 0) {
    if ((uint64_t)n_rows > d->num_levels - k) goto short_chunk;
    cur->end = k + (size_t)n_rows;
    return HUDI_OK;
  }
  const int16_t *rep = (const int16_t *)(const void *)d->rep_levels.data;
  int64_t seen = 0;
  /* Whole blocks whose row starts stay within n_rows, then entry by entry. */
  while (d->num_levels - k >= LV_BLOCK) {
    int c = block_count_le(rep + k, 0);
    if (seen + c > n_rows) break;
    seen += c;
    k += LV_BLOCK;
  }
  for (; k < d->num_levels; k++) {
    if (rep[k] == 0 && seen++ == n_rows) break;
  }
  if (seen < n_rows) goto short_chunk;
  cur->end = k;
  return HUDI_OK;
short_chunk:
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet column %s: fewer rows than the row group says", leaf->path);
}

typedef struct asm_ctx {
  const bool *selected;
  hudi_pq_leaf_cursor *cur;
  const hudi_pq_leaf *leaves;
  hudi_error *err;
} asm_ctx;

static uint32_t first_selected(const asm_ctx *c, const hudi_pq_node *n) {
  for (uint32_t i = n->leaf_begin; i < n->leaf_end; i++)
    if (!c->selected || c->selected[i]) return i;
  return n->leaf_begin; /* not reached: callers only visit selected nodes */
}

static levels levels_of(const asm_ctx *c, uint32_t leaf) {
  const hudi_pq_leaf_cursor *cur = &c->cur[leaf];
  const hudi_pq_leaf *l = &c->leaves[leaf];
  levels lv = {NULL, NULL, l->max_def, l->max_rep, cur->level, cur->end};
  /* All entries defined (the common non-null list of non-null elements):
   * the def levels say nothing, and the loops below take their fast,
   * bitmap-free paths. */
  if (l->max_def > 0 && !cur->all_defined) lv.def = (const int16_t *)(const void *)cur->data->def_levels.data;
  if (l->max_rep > 0) lv.rep = (const int16_t *)(const void *)cur->data->rep_levels.data;
  return lv;
}

static hudi_status disagree(asm_ctx *c, const hudi_pq_node *n, int64_t got, int64_t want) {
  return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "parquet column %s: its levels give %lld values where %lld were "
                      "expected", c->leaves[first_selected(c, n)].path, (long long)got, (long long)want);
}

/* Validity of the node's slots over lv: a bitmap (NULL when none is null),
 * the slot count and the null count. */
static hudi_status slot_validity(uint8_t **bits, int64_t *n_slots, int64_t *nulls, const hudi_pq_node *n,
                                 const levels *lv, hudi_error *err) {
  size_t cap = lv->end - lv->begin;
  if (!lv->def) {
    /* No nulls: the slots are the entries that start one. */
    int64_t s = (int64_t)cap;
    if (lv->rep && n->slot_rep < lv->max_rep) {
      s = (int64_t)count_le(lv->rep + lv->begin, cap, n->slot_rep);
    }
    *bits = NULL;
    *n_slots = s;
    *nulls = 0;
    return HUDI_OK;
  }
  uint8_t *b = calloc_buf((cap + 7) / 8);
  if (!b) return nomem(err);
  int64_t s = 0, z = 0;
  const int16_t *d = lv->def ? lv->def + lv->begin : NULL;
  if (!lv->rep || n->slot_rep >= lv->max_rep) {
    /* Every entry passes the repetition test: only levels decide. */
    if (!d) {
      s = (int64_t)cap;
    } else if (n->slot_def == 0) {
      for (size_t k = 0; k < cap; k++) {
        bool v = d[k] >= n->def;
        b[k >> 3] |= (uint8_t)(v << (k & 7));
        z += !v;
      }
      s = (int64_t)cap;
    } else {
      for (size_t k = 0; k < cap; k++) {
        if (d[k] < n->slot_def) continue;
        bool v = d[k] >= n->def;
        b[s >> 3] |= (uint8_t)(v << (s & 7));
        z += !v;
        s++;
      }
    }
  } else {
    for (size_t k = lv->begin; k < lv->end; k++) {
      int16_t dk = def_at(lv, k);
      if (rep_at(lv, k) <= n->slot_rep && dk >= n->slot_def) {
        bool v = dk >= n->def;
        b[s >> 3] |= (uint8_t)(v << (s & 7));
        z += !v;
        s++;
      }
    }
  }
  if (z == 0) {
    hudi_free(b);
    b = NULL;
  }
  *bits = b;
  *n_slots = s;
  *nulls = z;
  return HUDI_OK;
}

static hudi_status assemble_node(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n);

/* ---- leaves ---- */

static inline int64_t le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return (int64_t)v;
}
static inline int32_t le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return (int32_t)v;
}

/* Big-endian two's complement bytes -> little-endian, sign-extended to w. */
static void dec_be(uint8_t *dst, const uint8_t *src, size_t len, int32_t w) {
  uint8_t fill = len && (src[0] & 0x80) ? 0xff : 0;
  memset(dst, fill, (size_t)w);
  size_t k = len < (size_t)w ? len : (size_t)w;
  for (size_t i = 0; i < k; i++) dst[i] = src[len - 1 - i];
}

/* Converts cnt consecutive dense values starting at value j into dst. */
static void convert_run(uint8_t *dst, const hudi_pq_node *n, const hudi_pq_column_data *d, size_t sw, size_t j,
                        size_t cnt) {
  const uint8_t *src = d->values.data + j * sw;
  int32_t w = n->out_width;
  switch (n->conv) {
    case HUDI_PQ_RCONV_COPY: memcpy(dst, src, cnt * (size_t)w); break;
    case HUDI_PQ_RCONV_I32_I8:
      for (size_t i = 0; i < cnt; i++) dst[i] = (uint8_t)le32(src + 4 * i);
      break;
    case HUDI_PQ_RCONV_I32_I16:
      for (size_t i = 0; i < cnt; i++) {
        uint16_t v = (uint16_t)le32(src + 4 * i);
        memcpy(dst + 2 * i, &v, 2);
      }
      break;
    case HUDI_PQ_RCONV_INT96:
      for (size_t i = 0; i < cnt; i++) {
        const uint8_t *p = src + 12 * i;
        /* Julian day 2440588 is 1970-01-01; unsigned arithmetic wraps like Arrow C++. */
        uint64_t v = (uint64_t)((int64_t)le32(p + 8) - 2440588) * UINT64_C(86400000000000) + (uint64_t)le64(p);
        memcpy(dst + 8 * i, &v, 8);
      }
      break;
    case HUDI_PQ_RCONV_DEC_I32:
    case HUDI_PQ_RCONV_DEC_I64:
      for (size_t i = 0; i < cnt; i++) {
        int64_t v = n->conv == HUDI_PQ_RCONV_DEC_I32 ? le32(src + 4 * i) : le64(src + 8 * i);
        uint8_t *o = dst + (size_t)w * i;
        /* The sign extended word by word: a memset call per value was
         * ~4% of a keyed write over decimal columns (tpcds-web-returns). */
        uint64_t ext = v < 0 ? UINT64_MAX : 0;
        memcpy(o, &v, 8);
        for (int32_t b = 8; b < w; b += 8) memcpy(o + b, &ext, 8);
      }
      break;
    case HUDI_PQ_RCONV_DEC_BE:
      if (d->offsets.len) {
        const int32_t *off = (const int32_t *)(const void *)d->offsets.data;
        for (size_t i = 0; i < cnt; i++)
          dec_be(dst + (size_t)w * i, d->values.data + off[j + i], (size_t)(off[j + i + 1] - off[j + i]), w);
      } else {
        for (size_t i = 0; i < cnt; i++) dec_be(dst + (size_t)w * i, src + sw * i, sw, w);
      }
      break;
    case HUDI_PQ_RCONV_BOOL:
    case HUDI_PQ_RCONV_BYTES: break; /* handled by their own loops */
  }
}

/* Copies the dictionary entries of cnt consecutive indices from index j
 * (a window of dictionary indices, column_reader.h) into dst, w bytes
 * each. */
static void gather_run(uint8_t *dst, const hudi_pq_column_data *d, size_t w, size_t j, size_t cnt) {
  const uint32_t *ids = (const uint32_t *)(const void *)d->values.data + j;
  const uint8_t *dict = d->dict_values->data;
  if (w == 8) {
    for (size_t i = 0; i < cnt; i++) memcpy(dst + 8 * i, dict + 8 * (size_t)ids[i], 8);
  } else if (w == 4) {
    for (size_t i = 0; i < cnt; i++) memcpy(dst + 4 * i, dict + 4 * (size_t)ids[i], 4);
  } else {
    for (size_t i = 0; i < cnt; i++) memcpy(dst + w * i, dict + w * (size_t)ids[i], w);
  }
}

/* A run of valid slots: values copied or converted, or gathered from the
 * dictionary (COPY leaves only, reader.c). */
static void fixed_run(uint8_t *dst, const hudi_pq_node *n, const hudi_pq_column_data *d, size_t sw, size_t j,
                      size_t cnt) {
  if (d->dict_ids) gather_run(dst, d, (size_t)n->out_width, j, cnt);
  else convert_run(dst, n, d, sw, j, cnt);
}

/* Fixed-width leaf values: runs of valid slots are converted in one go,
 * null slots zero-filled. */
static hudi_status leaf_fixed(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n, const uint8_t *bits,
                              int64_t slots, hudi_pq_leaf_cursor *cur, size_t sw) {
  size_t w = (size_t)n->out_width;
  uint8_t *dst = alloc_buf((size_t)slots * w);
  if (!dst) return nomem(c->err);
  arr_set_buf(out, 1, dst);
  if (!bits) {
    fixed_run(dst, n, cur->data, sw, cur->value, (size_t)slots);
    cur->value += (size_t)slots;
    return HUDI_OK;
  }
  int64_t i = 0;
  while (i < slots) {
    int64_t s = i;
    while (i < slots && (bits[i >> 3] >> (i & 7) & 1)) i++;
    if (i > s) {
      fixed_run(dst + (size_t)s * w, n, cur->data, sw, cur->value, (size_t)(i - s));
      cur->value += (size_t)(i - s);
    }
    s = i;
    while (i < slots && !(bits[i >> 3] >> (i & 7) & 1)) i++;
    memset(dst + (size_t)s * w, 0, (size_t)(i - s) * w);
  }
  return HUDI_OK;
}

static hudi_status leaf_bool(asm_ctx *c, struct ArrowArray *out, const uint8_t *bits, int64_t slots,
                             hudi_pq_leaf_cursor *cur) {
  uint8_t *dst = calloc_buf(((size_t)slots + 7) / 8);
  if (!dst) return nomem(c->err);
  arr_set_buf(out, 1, dst);
  const uint8_t *src = cur->data->values.data;
  size_t j = cur->value;
  for (int64_t i = 0; i < slots; i++) {
    if (bits && !(bits[i >> 3] >> (i & 7) & 1)) continue;
    dst[i >> 3] |= (uint8_t)((src[j++] & 1) << (i & 7));
  }
  cur->value = j;
  return HUDI_OK;
}

/* leaf_bytes from a window of dictionary indices: offsets from the
 * entries' lengths, then the entries copied in order. */
static hudi_status leaf_bytes_dict(asm_ctx *c, struct ArrowArray *out, const uint8_t *bits, int64_t slots,
                                   hudi_pq_leaf_cursor *cur) {
  const hudi_pq_column_data *d = cur->data;
  const uint32_t *ids = (const uint32_t *)(const void *)d->values.data;
  const int32_t *doff = (const int32_t *)(const void *)d->dict_offsets->data;
  size_t j = cur->value;
  int32_t *off = alloc_buf(((size_t)slots + 1) * sizeof(int32_t));
  if (!off) return nomem(c->err);
  arr_set_buf(out, 1, off);
  uint64_t total = 0;
  off[0] = 0;
  for (int64_t i = 0; i < slots; i++) {
    if (!bits || (bits[i >> 3] >> (i & 7) & 1)) {
      total += (uint64_t)(doff[ids[j] + 1] - doff[ids[j]]);
      j++;
    }
    if (total > INT32_MAX)
      return hudi_err_set(c->err, HUDI_ERR_LIMIT, "parquet column %s: a batch's values exceed 2 GiB",
                          c->leaves[cur - c->cur].path);
    off[i + 1] = (int32_t)total;
  }
  uint8_t *data = alloc_buf((size_t)total);
  if (!data) return nomem(c->err);
  arr_set_buf(out, 2, data);
  const uint8_t *dict = d->dict_values->data;
  size_t dict_len = d->dict_values->len;
  uint8_t *o = data;
  uint8_t *end = data + total;
  for (size_t k = cur->value; k < j; k++) {
    size_t s = (size_t)doff[ids[k]];
    size_t l = (size_t)doff[ids[k] + 1] - s;
    /* Keys, file names and the like are short: a fixed 32-byte copy
     * (its surplus overwritten by the next entry) where both buffers
     * have the room, rather than a memcpy call per value. */
    if (l <= 32 && dict_len - s >= 32 && (size_t)(end - o) >= 32) memcpy(o, dict + s, 32);
    else if (l) memcpy(o, dict + s, l);
    o += l;
  }
  cur->value = j;
  return HUDI_OK;
}

static hudi_status leaf_bytes(asm_ctx *c, struct ArrowArray *out, const uint8_t *bits, int64_t slots,
                              hudi_pq_leaf_cursor *cur) {
  if (cur->data->dict_ids) return leaf_bytes_dict(c, out, bits, slots, cur);
  const int32_t *soff = (const int32_t *)(const void *)cur->data->offsets.data;
  size_t j = cur->value;
  int32_t base = soff[j];
  int32_t *off = alloc_buf(((size_t)slots + 1) * sizeof(int32_t));
  if (!off) return nomem(c->err);
  arr_set_buf(out, 1, off);
  off[0] = 0;
  if (!bits) {
    for (int64_t i = 0; i < slots; i++) off[i + 1] = soff[j + (size_t)i + 1] - base;
    j += (size_t)slots;
  } else {
    for (int64_t i = 0; i < slots; i++) {
      j += bits[i >> 3] >> (i & 7) & 1;
      off[i + 1] = soff[j] - base;
    }
  }
  size_t len = (size_t)(soff[j] - base);
  uint8_t *data = alloc_buf(len);
  if (!data) return nomem(c->err);
  arr_set_buf(out, 2, data);
  if (len) memcpy(data, cur->data->values.data + base, len);
  cur->value = j;
  return HUDI_OK;
}

static hudi_status assemble_leaf(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n, uint8_t *bits,
                                 int64_t slots, int64_t nulls) {
  bool bytes = n->conv == HUDI_PQ_RCONV_BYTES;
  hudi_status st = arr_init(out, slots, bytes ? 3 : 2, 0, c->err);
  if (st != HUDI_OK) {
    hudi_free(bits);
    return st;
  }
  arr_set_buf(out, 0, bits);
  out->null_count = nulls;
  hudi_pq_leaf_cursor *cur = &c->cur[n->leaf_begin];
  const hudi_pq_leaf *leaf = &c->leaves[n->leaf_begin];
  /* The dense values these slots consume must exist. */
  if ((uint64_t)(slots - nulls) > cur->data->num_values - cur->value)
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "parquet column %s: levels ask for more values than the pages hold",
                        leaf->path);
  /* Windows of dictionary indices come only for leaves that gather. */
  if (cur->data->dict_ids && n->conv != HUDI_PQ_RCONV_BYTES && n->conv != HUDI_PQ_RCONV_COPY)
    return hudi_err_set(c->err, HUDI_ERR_INTERNAL, "parquet column %s: dictionary indices for a converted type",
                        leaf->path);
  if (n->conv == HUDI_PQ_RCONV_BOOL) return leaf_bool(c, out, bits, slots, cur);
  if (bytes) return leaf_bytes(c, out, bits, slots, cur);
  return leaf_fixed(c, out, n, bits, slots, cur, hudi_pq_value_size(leaf->type, leaf->type_length));
}

/* ---- nested ---- */

static hudi_status assemble_struct(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n, int64_t slots) {
  int64_t k = 0;
  for (uint32_t i = 0; i < n->n_children; i++)
    k += hudi_pq_node_has_selected(&n->children[i], c->selected);
  HUDI_TRY(arr_init(out, slots, 1, k, c->err));
  for (uint32_t i = 0, j = 0; i < n->n_children; i++) {
    const hudi_pq_node *ch = &n->children[i];
    if (!hudi_pq_node_has_selected(ch, c->selected)) continue;
    struct ArrowArray *kid = arr_kid(out, j++);
    HUDI_TRY(assemble_node(c, kid, ch));
    if (kid->length != slots) return disagree(c, ch, kid->length, slots);
  }
  return HUDI_OK;
}

static hudi_status assemble_list(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n, const levels *lv,
                                 int64_t slots) {
  HUDI_TRY(arr_init(out, slots, 2, 1, c->err));
  int32_t *off = alloc_buf(((size_t)slots + 1) * sizeof(int32_t));
  if (!off) return nomem(c->err);
  arr_set_buf(out, 1, off);
  if (lv->end - lv->begin > INT32_MAX)
    return hudi_err_set(c->err, HUDI_ERR_LIMIT, "list of more than 2^31-1 elements");
  /* A list's first leaf is below a repeated field: rep levels exist; def
   * levels too unless every entry is defined (levels_of). */
  const int16_t *dl = lv->def, *rl = lv->rep;
  int16_t srep = n->slot_rep, sdef = n->slot_def, erep = n->elem_rep, edef = n->elem_def;
  int64_t s = 0, e = 0;
  if (!dl && erep >= lv->max_rep) {
    /* Every entry is an element: offsets are where slots start. */
    size_t k = lv->begin;
    while (k < lv->end) {
      if (lv->end - k >= LV_BLOCK && block_count_le(rl + k, srep) == 0) {
        k += LV_BLOCK;
        continue;
      }
      size_t stop = lv->end - k >= LV_BLOCK ? k + LV_BLOCK : lv->end;
      for (; k < stop; k++)
        if (rl[k] <= srep) off[s++] = (int32_t)(k - lv->begin);
    }
    e = (int64_t)(lv->end - lv->begin);
  } else if (!dl) {
    for (size_t k = lv->begin; k < lv->end; k++) {
      int16_t r = rl[k];
      if (r <= srep) off[s++] = (int32_t)e;
      e += r <= erep;
    }
  } else if (erep >= lv->max_rep) {
    for (size_t k = lv->begin; k < lv->end; k++) {
      int16_t d = dl[k];
      if (rl[k] <= srep && d >= sdef) off[s++] = (int32_t)e;
      e += d >= edef;
    }
  } else {
    for (size_t k = lv->begin; k < lv->end; k++) {
      int16_t d = dl[k], r = rl[k];
      if (r <= srep && d >= sdef) off[s++] = (int32_t)e;
      e += r <= erep && d >= edef;
    }
  }
  off[s] = (int32_t)e;
  struct ArrowArray *kid = arr_kid(out, 0);
  HUDI_TRY(assemble_node(c, kid, &n->children[0]));
  if (kid->length != e) return disagree(c, &n->children[0], kid->length, e);
  return HUDI_OK;
}

static hudi_status assemble_node(asm_ctx *c, struct ArrowArray *out, const hudi_pq_node *n) {
  levels lv = levels_of(c, first_selected(c, n));
  uint8_t *bits = NULL;
  int64_t slots = 0, nulls = 0;
  HUDI_TRY(slot_validity(&bits, &slots, &nulls, n, &lv, c->err));
  if (n->kind == HUDI_PQ_NODE_LEAF) return assemble_leaf(c, out, n, bits, slots, nulls);
  hudi_status st;
  if (n->kind == HUDI_PQ_NODE_STRUCT) st = assemble_struct(c, out, n, slots);
  else st = assemble_list(c, out, n, &lv, slots);
  if (out->release) {
    arr_set_buf(out, 0, bits);
    out->null_count = nulls;
  } else {
    hudi_free(bits);
  }
  return st;
}

/* Whether every def level of the batch's entries is the leaf's max (one
 * branch-free pass the compiler vectorizes). */
static bool all_defined(const hudi_pq_leaf_cursor *cur, const hudi_pq_leaf *leaf) {
  if (leaf->max_def == 0) return true;
  const int16_t *d = (const int16_t *)(const void *)cur->data->def_levels.data;
  int16_t m = leaf->max_def;
  size_t k = cur->level;
  for (; cur->end - k >= LV_BLOCK; k += LV_BLOCK) {
    int acc = 0;
    for (int i = 0; i < LV_BLOCK; i++) acc |= d[k + (size_t)i] ^ m;
    if (acc) return false;
  }
  for (; k < cur->end; k++)
    if (d[k] != m) return false;
  return true;
}

hudi_status hudi_pq_assemble(struct ArrowArray *out, const hudi_pq_node *node, const bool *selected,
                             hudi_pq_leaf_cursor *cursors, const hudi_pq_leaf *leaves, int64_t n_rows,
                             hudi_error *err) {
  asm_ctx c = {.selected = selected, .cur = cursors, .leaves = leaves, .err = err};
  for (uint32_t i = node->leaf_begin; i < node->leaf_end; i++) {
    if (selected && !selected[i]) continue;
    if (!cursors[i].data) return hudi_err_set(err, HUDI_ERR_INTERNAL, "parquet column %s was not read", leaves[i].path);
    HUDI_TRY(find_end(&cursors[i], &leaves[i], n_rows, err));
    cursors[i].all_defined = all_defined(&cursors[i], &leaves[i]);
  }
  memset(out, 0, sizeof *out);
  struct ArrowArray tmp;
  memset(&tmp, 0, sizeof tmp);
  hudi_status st = assemble_node(&c, &tmp, node);
  if (st == HUDI_OK && tmp.length != n_rows) st = disagree(&c, node, tmp.length, n_rows);
  if (st != HUDI_OK) {
    if (tmp.release) tmp.release(&tmp);
    return st;
  }
  for (uint32_t i = node->leaf_begin; i < node->leaf_end; i++)
    if (cursors[i].data) cursors[i].level = cursors[i].end;
  *out = tmp;
  return HUDI_OK;
}
