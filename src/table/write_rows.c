/* Loading a write's input: batches, keys, partitions, order. */
#include "table/write_rows.h"

#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "base/threadpool.h"
#include "table/write_convert.h"

#define MAX_PARTITION_PATH 4000

_Static_assert(MAX_PARTITION_PATH <= UINT16_MAX, "hudi_write_row.part_len is 16 bits");
_Static_assert(sizeof(hudi_write_row) <= 32, "hudi_write_row grew past 32 bytes");

/* Next UTF-16 code unit of a UTF-8 string; invalid bytes count as
 * themselves. *pending keeps the low surrogate of a 4-byte sequence. */
static int next_unit(const uint8_t *s, size_t len, size_t *i, uint32_t *pending) {
  if (*pending) {
    int u = (int)*pending;
    *pending = 0;
    return u;
  }
  if (*i >= len) return -1;
  uint8_t c = s[*i];
  uint32_t cp;
  int n;
  if (c < 0x80) cp = c, n = 1;
  else if ((c & 0xe0) == 0xc0 && *i + 1 < len) cp = (uint32_t)(c & 0x1f) << 6 | (s[*i + 1] & 0x3f), n = 2;
  else if ((c & 0xf0) == 0xe0 && *i + 2 < len)
    cp = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(s[*i + 1] & 0x3f) << 6 | (s[*i + 2] & 0x3f), n = 3;
  else if ((c & 0xf8) == 0xf0 && *i + 3 < len)
    cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[*i + 1] & 0x3f) << 12 | (uint32_t)(s[*i + 2] & 0x3f) << 6 |
         (s[*i + 3] & 0x3f),
    n = 4;
  else cp = c, n = 1;
  *i += (size_t)n;
  if (cp >= 0x10000) {
    cp -= 0x10000;
    *pending = 0xdc00 | (cp & 0x3ff);
    return (int)(0xd800 | (cp >> 10));
  }
  return (int)cp;
}

int hudi_java_string_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  /* Fast path: over an all-ASCII common prefix the UTF-16 units are the
   * bytes, so decoding can start at the first difference, and where one
   * of the two bytes there is ASCII (or a string ends) byte order is
   * Java's (an ASCII unit is below every unit >= 0x80). */
  const uint8_t *ua = (const uint8_t *)a, *ub = (const uint8_t *)b;
  size_t n = alen < blen ? alen : blen, p = 0;
  /* The common prefix 8 bytes at a time (keys of one table often share a
   * long one: "wr_item_sk:...,wr_order_number:..."), then byte by byte up
   * to the first difference. */
  uint64_t acc = 0;
  while (p + 8 <= n) {
    uint64_t x, y;
    memcpy(&x, ua + p, 8);
    memcpy(&y, ub + p, 8);
    if (x != y) break;
    acc |= x;
    p += 8;
  }
  uint8_t high = acc & 0x8080808080808080ull ? 0x80 : 0;
  while (p < n && ua[p] == ub[p]) high |= ua[p++];
  size_t i = 0, j = 0;
  if (high < 0x80) {
    if (p == n) return (alen > n) - (blen > n);
    if (ua[p] < 0x80 || ub[p] < 0x80) return ua[p] < ub[p] ? -1 : 1;
    i = j = p;
  }
  uint32_t pa = 0, pb = 0;
  for (;;) {
    int x = next_unit((const uint8_t *)a, alen, &i, &pa), y = next_unit((const uint8_t *)b, blen, &j, &pb);
    if (x < 0 || y < 0) return (x >= 0) - (y >= 0);
    if (x != y) return x < y ? -1 : 1;
  }
}

/* The sort prefix of a key: its first 8 bytes big-endian, zero-padded.
 * When both keys' prefixes are ASCII and differ, they order the keys as
 * Java does: up to the first differing byte the keys are the same ASCII
 * characters, and a zero pad against a real byte means a shorter key,
 * which is a proper prefix of the other (a real NUL byte pads equal). */
static void key_prefix(hudi_write_row *row, const uint8_t *k, size_t len) {
  uint64_t v = 0;
  bool ascii = true;
  for (size_t i = 0; i < 8; i++) {
    uint8_t b = i < len ? k[i] : 0;
    ascii &= b < 0x80;
    v = v << 8 | b;
  }
  row->key_prefix = v;
  row->key_ascii = ascii;
}

/* Keys of rows x and y in Java order: by their prefixes when those decide
 * (hudi_java_string_cmp skips an ASCII common prefix fast otherwise, as
 * composite keys "a:1,b:2" all begin alike). */
static int key_cmp_rows(const hudi_write_rows *r, const hudi_write_row *x, const hudi_write_row *y) {
  if (x->key_prefix != y->key_prefix && x->key_ascii && y->key_ascii) return x->key_prefix < y->key_prefix ? -1 : 1;
  return hudi_java_string_cmp(hudi_write_rows_row_key(r, x), x->key_len, hudi_write_rows_row_key(r, y), y->key_len);
}

static int row_cmp(const hudi_write_rows *r, const hudi_write_row *x, const hudi_write_row *y) {
  const char *s = (const char *)r->strings.data;
  if (x->part_len | y->part_len) {
    size_t n = x->part_len < y->part_len ? x->part_len : y->part_len;
    int c = memcmp(s + hudi_write_row_part_off(x), s + hudi_write_row_part_off(y), n);
    if (c) return c;
    if (x->part_len != y->part_len) return x->part_len < y->part_len ? -1 : 1;
  }
  if (!r->key_order) return 0;
  return key_cmp_rows(r, x, y);
}

bool hudi_write_rows_same_partition(const hudi_write_rows *r, size_t i, size_t j) {
  if (r->key_column >= 0) return true; /* no partition fields */
  const hudi_write_row *x = &r->order[i], *y = &r->order[j];
  return x->part_len == y->part_len &&
         memcmp(r->strings.data + hudi_write_row_part_off(x), r->strings.data + hudi_write_row_part_off(y),
                x->part_len) == 0;
}

int hudi_write_rows_key_cmp(const hudi_write_rows *r, size_t i, size_t j) {
  return key_cmp_rows(r, &r->order[i], &r->order[j]);
}

/* Merges sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi); on
 * equal keys the left run's row first (stable). */
static void merge_runs(const hudi_write_rows *r, const hudi_write_row *src, hudi_write_row *dst, size_t lo, size_t mid,
                       size_t hi) {
  size_t a = lo, b = mid, k = lo;
  while (a < mid && b < hi) dst[k++] = row_cmp(r, &src[b], &src[a]) < 0 ? src[b++] : src[a++];
  while (a < mid) dst[k++] = src[a++];
  while (b < hi) dst[k++] = src[b++];
}

/* Stable bottom-up merge sort of rows[0, n) with tmp[0, n) as scratch;
 * the result ends in rows. */
static void sort_range(const hudi_write_rows *r, hudi_write_row *rows, hudi_write_row *tmp, size_t n) {
  hudi_write_row *src = rows, *dst = tmp;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w)
      merge_runs(r, src, dst, lo, lo + w < n ? lo + w : n, lo + 2 * w < n ? lo + 2 * w : n);
    hudi_write_row *t = src;
    src = dst;
    dst = t;
  }
  if (src != rows) memcpy(rows, src, n * sizeof *rows);
}

typedef struct sort_halves {
  const hudi_write_rows *r;
  hudi_write_row *tmp;
  size_t mid;
} sort_halves;

static hudi_status sort_half(void *ctx, size_t i, hudi_error *err) {
  (void)err;
  sort_halves *h = ctx;
  size_t lo = i ? h->mid : 0, hi = i ? h->r->n : h->mid;
  sort_range(h->r, h->r->order + lo, h->tmp + lo, hi - lo);
  return HUDI_OK;
}

/* Below this many rows the sort stays on the calling thread. */
#define PARALLEL_SORT_MIN_ROWS 200000

/* Whether rows are already in row_cmp order (one partition, without
 * key_order: always). */
static bool in_order(const hudi_write_rows *r) {
  for (size_t i = 1; i < r->n; i++)
    if (row_cmp(r, &r->order[i - 1], &r->order[i]) > 0) return false;
  return true;
}

/* Stable merge sort (input order kept among equal keys). Large inputs sort
 * their two halves on two cores, then merge them once (10M rows: 1.7 s ->
 * ~1 s of wall time). */
static hudi_status sort_rows(hudi_write_rows *r, bool *moved, hudi_error *err) {
  *moved = false;
  if (r->n < 2 || in_order(r)) return HUDI_OK;
  *moved = true;
  hudi_write_row *tmp = hudi_malloc(r->n * sizeof *tmp);
  if (!tmp) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory sorting %zu rows", r->n);
  hudi_threadpool *pool = NULL;
  if (r->n >= PARALLEL_SORT_MIN_ROWS && hudi_cpu_count() > 1) {
    hudi_error ignored = HUDI_ERROR_INIT; /* no pool: sort on this thread */
    if (hudi_threadpool_create(&pool, 1, &ignored) != HUDI_OK) pool = NULL;
  }
  if (!pool) {
    sort_range(r, r->order, tmp, r->n);
    hudi_free(tmp);
    return HUDI_OK;
  }
  sort_halves h = {r, tmp, r->n / 2};
  hudi_status st = hudi_parallel_for(pool, 2, sort_half, &h, err);
  hudi_threadpool_free(pool);
  if (st == HUDI_OK) {
    /* The merged order lands in tmp, which becomes the order array. */
    merge_runs(r, r->order, tmp, 0, h.mid, r->n);
    hudi_free(r->order);
    r->order = tmp;
    r->cap = r->n;
  } else {
    hudi_free(tmp);
  }
  return st;
}

/* Rewrites strings in the sorted row order: every later pass over the keys
 * (meta column, bloom filter, record index) then reads them sequentially
 * instead of one cache miss per row. */
static hudi_status compact_strings(hudi_write_rows *r, hudi_error *err) {
  if (r->n < 2 || r->key_column >= 0) return HUDI_OK; /* keys in place: nothing in strings */
  hudi_buf out;
  hudi_buf_init(&out, r->strings.max);
  hudi_status st = hudi_buf_reserve(&out, r->strings.len, err);
  const uint8_t *s = r->strings.data;
  for (size_t i = 0; st == HUDI_OK && i < r->n; i++) {
    hudi_write_row *row = &r->order[i];
    if (i + 8 < r->n) __builtin_prefetch(s + r->order[i + 8].key_off);
    size_t k = out.len;
    /* Key, NUL, partition path, NUL: one run. */
    size_t run = (size_t)row->key_len + 1 + (size_t)row->part_len + 1;
    memcpy(out.data + k, s + row->key_off, run);
    row->key_off = k;
    out.len = k + run;
  }
  if (st != HUDI_OK) {
    hudi_buf_free(&out);
    return st;
  }
  hudi_buf_free(&r->strings);
  r->strings = out;
  return HUDI_OK;
}

hudi_status hudi_write_rows_own_keys(hudi_write_rows *r, hudi_error *err) {
  if (r->key_column < 0) return HUDI_OK;
  HUDI_TRY(hudi_buf_reserve(&r->strings, r->key_bytes, err));
  for (size_t i = 0; i < r->n; i++) {
    hudi_write_row *row = &r->order[i];
    const char *key = hudi_write_rows_row_key(r, row);
    size_t at = r->strings.len;
    memcpy(r->strings.data + at, key, row->key_len);
    r->strings.data[at + row->key_len] = 0;
    r->strings.data[at + row->key_len + 1] = 0; /* the empty partition path */
    r->strings.len = at + row->key_len + 2;
    row->key_off = at;
  }
  r->key_column = -1;
  r->key_bytes = 0;
  return HUDI_OK;
}

/* Uncompressed bytes of elements [start, start + n) of v, roughly. */
static int64_t estimate(const hudi_arrow_view *v, int64_t start, int64_t n) {
  if (n <= 0) return 0;
  if (v->dictionary) {
    int64_t t = 0;
    for (int64_t i = start; i < start + n; i++)
      if (!hudi_arrow_view_is_null(v, i)) t += estimate(v->dictionary, hudi_arrow_view_dict_index(v, i), 1);
    return t + n;
  }
  switch (v->type.id) {
    case HUDI_ARROW_BOOL: return n / 8 + 1;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW: {
      int64_t t = 4 * n, len;
      for (int64_t i = start; i < start + n; i++)
        if (!hudi_arrow_view_is_null(v, i)) {
          (void)hudi_arrow_view_bytes(v, i, &len);
          t += len;
        }
      return t;
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST:
    case HUDI_ARROW_MAP: {
      int64_t a, b, c, d;
      hudi_arrow_view_list_range(v, start, &a, &b);
      hudi_arrow_view_list_range(v, start + n - 1, &c, &d);
      return 4 * n + estimate(&v->children[0], a, d - a);
    }
    case HUDI_ARROW_STRUCT: {
      int64_t t = 0;
      for (int64_t k = 0; k < v->n_children; k++)
        t += estimate(&v->children[k], hudi_arrow_view_struct_row(v, start), n);
      return t;
    }
    default: return (v->byte_width > 0 ? v->byte_width : 8) * n;
  }
}

int64_t hudi_write_rows_bytes_per_row(const hudi_write_rows *r) {
  if (r->n == 0) return 1;
  /* Meta columns: two instants, seqno, key, partition, file name. */
  int64_t meta = 17 * 2 + 30 + 90 + (int64_t)((r->strings.len + r->key_bytes) / r->n);
  return r->data_bytes / (int64_t)r->n + meta;
}

static hudi_status check_input_schema(const hudi_arrow_field *in, hudi_error *err) {
  for (int64_t i = 0; i < in->n_children; i++) {
    const char *name = in->children[i].name ? in->children[i].name : "";
    if (!*name) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column %" PRId64 " of the data has no name", i);
    if (!strncmp(name, "_hoodie_", 8))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "the data has a column '%s'; Hudi's _hoodie_* meta columns are written by the writer",
                          name);
    for (int64_t j = 0; j < i; j++)
      if (in->children[j].name && !strcmp(in->children[j].name, name))
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data has two columns named '%s'", name);
  }
  return HUDI_OK;
}

/* A partition path must stay inside the table: no "", "." or ".." level. */
static hudi_status check_partition(const char *p, size_t len, hudi_error *err) {
  if (len > MAX_PARTITION_PATH) return hudi_err_set(err, HUDI_ERR_LIMIT, "partition path '%.100s...' is too long", p);
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && p[i] != '/') continue;
    size_t n = i - start;
    if (len && (n == 0 || (n == 1 && p[start] == '.') || (n == 2 && p[start] == '.' && p[start + 1] == '.')))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "partition path '%.*s' has an empty, '.' or '..' level (a partition value with '/'?)",
                          (int)len, p);
    start = i + 1;
  }
  return HUDI_OK;
}

/* Row i of batch v (row number row_no of the write, for errors): its key
 * and partition appended to strings (key, NUL, partition, NUL), *row
 * filled with key_off relative to strings. */
static hudi_status add_row(hudi_write_row *row, uint32_t batch, int64_t i, const hudi_keygen *kg,
                           const hudi_arrow_view *v, hudi_buf *strings, size_t row_no, hudi_error *err) {
  row->batch = batch;
  row->row = (uint32_t)i;
  row->key_off = strings->len;
  HUDI_TRY(hudi_keygen_record_key(kg, v, i, (int64_t)row_no, strings, err));
  size_t key_len = strings->len - row->key_off;
  if (key_len > UINT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "record key of row %zu is %zu bytes long", row_no, key_len);
  row->key_len = (uint32_t)key_len;
  key_prefix(row, strings->data + row->key_off, key_len);
  HUDI_TRY(hudi_buf_append_byte(strings, 0, err));
  size_t part_off = strings->len;
  HUDI_TRY(hudi_keygen_partition_path(kg, v, i, strings, err));
  size_t part_len = strings->len - part_off;
  HUDI_TRY(check_partition((const char *)strings->data + part_off, part_len, err));
  row->part_len = (uint16_t)part_len; /* <= MAX_PARTITION_PATH */
  return hudi_buf_append_byte(strings, 0, err);
}

/* Row i of batch v with key_column: its key where the column holds it
 * (key_off into the batch's key_data), no partition. A null or empty key
 * fails as the key generator fails it (its message). */
static hudi_status add_row_in_place(hudi_write_row *row, uint32_t batch, int64_t i, const hudi_keygen *kg,
                                    const hudi_arrow_view *v, const hudi_arrow_view *col, size_t row_no,
                                    hudi_error *err) {
  row->batch = batch;
  row->row = (uint32_t)i;
  int64_t j = hudi_arrow_view_struct_row(v, i), len = 0;
  const uint8_t *p = hudi_arrow_view_is_null(col, j) ? NULL : hudi_arrow_view_bytes(col, j, &len);
  if (!p || len == 0) {
    hudi_buf scratch;
    hudi_buf_init(&scratch, HUDI_BUF_DEFAULT_MAX);
    hudi_status st = hudi_keygen_record_key(kg, v, i, (int64_t)row_no, &scratch, err);
    hudi_buf_free(&scratch);
    return st != HUDI_OK ? st
                         : hudi_err_set(err, HUDI_ERR_INTERNAL, "record key of row %zu: the key generator took a %s",
                                        row_no, p ? "empty key" : "null");
  }
  if ((uint64_t)len > UINT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "record key of row %zu is %" PRId64 " bytes long", row_no, len);
  row->key_off = (size_t)(p - col->data);
  row->key_len = (uint32_t)len;
  row->part_len = 0;
  key_prefix(row, p, (size_t)len);
  return HUDI_OK;
}

/* One share of a batch's rows [lo, hi), read on one thread: part 0 appends
 * to the rows' strings, the others to their own (moved after it once all
 * are done). Each stops at its first bad row. */
typedef struct key_part {
  hudi_write_rows *r;
  const hudi_keygen *kg;
  const hudi_arrow_view *v;
  size_t first;   /* r->n before the batch */
  int64_t lo, hi;
  hudi_buf own;   /* parts after the first */
  size_t key_bytes; /* key_column: the keys' bytes, 2 more each (key_bytes) */
  int64_t data_bytes;
  hudi_status status;
  hudi_error error;
} key_part;

static hudi_status key_part_run(void *ctx, size_t k, hudi_error *err) {
  (void)err;
  key_part *p = &((key_part *)ctx)[k];
  hudi_write_rows *r = p->r;
  hudi_buf *strings = k ? &p->own : &r->strings;
  uint32_t batch = (uint32_t)(r->n_batches - 1);
  const hudi_arrow_view *col = r->key_column >= 0 ? &p->v->children[r->key_column] : NULL;
  for (int64_t i = p->lo; i < p->hi && p->status == HUDI_OK; i++) {
    size_t at = p->first + (size_t)i;
    if (!col) {
      p->status = add_row(&r->order[at], batch, i, p->kg, p->v, strings, at, &p->error);
      continue;
    }
    p->status = add_row_in_place(&r->order[at], batch, i, p->kg, p->v, col, at, &p->error);
    p->key_bytes += (size_t)r->order[at].key_len + 2;
  }
  for (int64_t c = 0; p->status == HUDI_OK && c < p->v->n_children; c++)
    p->data_bytes += estimate(&p->v->children[c], p->v->offset + p->lo, p->hi - p->lo);
  return HUDI_OK;
}

/* Below this many rows a batch's keys are read on the calling thread. */
#define PARALLEL_KEY_ROWS 65536
#define MAX_KEY_PARTS 16

/* Reads the keys and partitions of the batch's len rows into r->order
 * from r->n on, on the pool's threads and this one; a bad row fails as it
 * would on one thread (the first bad row named). */
static hudi_status read_keys(hudi_write_rows *r, hudi_threadpool *pool, const hudi_keygen *kg,
                             const hudi_arrow_view *v, int64_t len, hudi_error *err) {
  size_t n_parts = pool && len >= PARALLEL_KEY_ROWS ? (size_t)hudi_threadpool_size(pool) + 1 : 1;
  if (n_parts > MAX_KEY_PARTS) n_parts = MAX_KEY_PARTS;
  key_part parts[MAX_KEY_PARTS];
  int64_t per = (len + (int64_t)n_parts - 1) / (int64_t)n_parts;
  for (size_t k = 0; k < n_parts; k++) {
    int64_t lo = (int64_t)k * per < len ? (int64_t)k * per : len;
    parts[k] = (key_part){r, kg, v, r->n, lo, lo + per < len ? lo + per : len, {0}, 0, 0, HUDI_OK, HUDI_ERROR_INIT};
    hudi_buf_init(&parts[k].own, r->strings.max);
  }
  hudi_status st = hudi_parallel_for(n_parts > 1 ? pool : NULL, n_parts, key_part_run, parts, err);
  for (size_t k = 0; st == HUDI_OK && k < n_parts; k++)
    if (parts[k].status != HUDI_OK) {
      if (err) *err = parts[k].error;
      st = parts[k].status;
    }
  /* The later parts' strings after the first's, their offsets moved along. */
  size_t extra = 0;
  for (size_t k = 1; k < n_parts; k++) extra += parts[k].own.len;
  if (st == HUDI_OK && extra) st = hudi_buf_reserve(&r->strings, extra, err);
  for (size_t k = 1; st == HUDI_OK && r->key_column < 0 && k < n_parts; k++) { /* keys in place: nothing */
    size_t base = r->strings.len;
    if (parts[k].own.len) memcpy(r->strings.data + base, parts[k].own.data, parts[k].own.len);
    r->strings.len += parts[k].own.len;
    for (int64_t i = parts[k].lo; i < parts[k].hi; i++) r->order[r->n + (size_t)i].key_off += base;
  }
  for (size_t k = 0; k < n_parts; k++) {
    hudi_buf_free(&parts[k].own);
    r->data_bytes += parts[k].data_bytes;
    r->key_bytes += parts[k].key_bytes;
  }
  if (st == HUDI_OK) r->n += (size_t)len;
  return st;
}

/* The column whose values are the keys as they are (hudi_write_rows'
 * key_column), or -1. */
static int key_in_place(const hudi_write_rows *r, const hudi_keygen *kg, const hudi_arrow_view *v) {
  if (r->key_order || kg->n_keys != 1 || kg->key_with_names || kg->n_parts != 0) return -1;
  const hudi_arrow_view *col = &v->children[kg->key_index[0]];
  bool string = col->type.id == HUDI_ARROW_STRING || col->type.id == HUDI_ARROW_LARGE_STRING;
  return string && !col->dictionary ? kg->key_index[0] : -1;
}

static hudi_status add_batch(hudi_write_rows *r, hudi_threadpool *pool, hudi_keygen *kg, struct ArrowArray *array,
                             hudi_error *err) {
  if (r->n_batches == r->cap_batches) {
    size_t cap = r->cap_batches ? r->cap_batches * 2 : 16;
    hudi_write_batch *b = hudi_realloc(r->batches, cap * sizeof *b);
    if (!b) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    r->batches = b;
    r->cap_batches = cap;
  }
  if (r->n_batches >= UINT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "too many input batches");
  hudi_write_batch *b = &r->batches[r->n_batches];
  b->array = *array;
  memset(array, 0, sizeof *array);
  memset(&b->view, 0, sizeof b->view);
  r->n_batches++;
  HUDI_TRY(hudi_arrow_view_init(&b->view, &r->schema, &b->array, err));
  if (r->n_batches == 1) {
    HUDI_TRY(hudi_keygen_bind(kg, &b->view, err));
    r->key_column = key_in_place(r, kg, &b->view);
  }
  const hudi_arrow_view *v = &b->view;
  b->key_data = r->key_column >= 0 ? v->children[r->key_column].data : NULL;
  int64_t len = v->length;
  if (len < 0 || len > (int64_t)UINT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "input batch %zu has %" PRId64 " rows: at most %" PRIu32 " a batch",
                        r->n_batches - 1, len, UINT32_MAX);
  if (r->n + (size_t)len > r->cap) {
    size_t cap = r->cap ? r->cap : 1024;
    while (cap < r->n + (size_t)len) cap *= 2;
    hudi_write_row *o = hudi_realloc(r->order, cap * sizeof *o);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %zu rows", cap);
    r->order = o;
    r->cap = cap;
  }
  return read_keys(r, pool, kg, v, len, err);
}

static hudi_status read_schema(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_error *err) {
  if (stream->get_schema(stream, &r->schema) != 0) {
    const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "reading the data's schema failed: %s", m ? m : "unknown error");
  }
  HUDI_TRY(hudi_arrow_field_from_schema(&r->input, &r->schema, true, err));
  if (r->input.type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data must be a table of columns, got %s",
                        hudi_arrow_type_name(r->input.type.id));
  HUDI_TRY(check_input_schema(&r->input, err));
  return hudi_write_storage_field(&r->stored, &r->input, err);
}

/* Reads batches until the estimated data bytes reach max_bytes (0: no
 * limit) or the stream ends (*eof), then orders the rows. */
static hudi_status read_rows(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_keygen *kg, int64_t max_bytes,
                             bool *eof, hudi_error *err) {
  *eof = false;
  /* Keys of large batches are read on all cores (10M uuid keys: ~1 s on
   * one); the pool is made at the first such batch. */
  hudi_threadpool *pool = NULL;
  bool no_pool = hudi_cpu_count() < 2;
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK && (!max_bytes || r->data_bytes < max_bytes)) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    if (stream->get_next(stream, &a) != 0) {
      const char *m = stream->get_last_error ? stream->get_last_error(stream) : NULL;
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "reading the data failed: %s", m ? m : "unknown error");
      break;
    }
    if (!a.release) {
      *eof = true;
      break;
    }
    if (!pool && !no_pool && a.length >= PARALLEL_KEY_ROWS) {
      hudi_error ignored = HUDI_ERROR_INIT; /* no threads: this one reads alone */
      if (hudi_threadpool_create(&pool, hudi_cpu_count() - 1, &ignored) != HUDI_OK) {
        hudi_error_clear(&ignored);
        no_pool = true;
      }
    }
    r->total_batches++;
    st = add_batch(r, pool, kg, &a, err);
    if (a.release) a.release(&a);
  }
  hudi_threadpool_free(pool);
  HUDI_TRY(st);
  if (r->total_batches == 0) {
    /* A stream without batches: still bind, so an unknown key field is an
     * error whatever the row count. */
    for (size_t i = 0; i < kg->n_keys; i++) {
      bool found = false;
      for (int64_t k = 0; k < r->input.n_children; k++)
        found |= r->input.children[k].name && !strcmp(r->input.children[k].name, kg->key_fields[i]);
      if (!found)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record key field '%s' is not a column of the data",
                            kg->key_fields[i]);
    }
  }
  bool moved;
  HUDI_TRY(sort_rows(r, &moved, err));
  /* Unmoved rows have their strings in row order already. */
  return moved ? compact_strings(r, err) : HUDI_OK;
}

hudi_status hudi_write_rows_load(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_keygen *kg,
                                 bool key_order, hudi_error *err) {
  bool eof;
  hudi_status st = hudi_write_rows_open(r, stream, key_order, err);
  if (st == HUDI_OK) st = read_rows(r, stream, kg, 0, &eof, err);
  stream->release(stream);
  if (st != HUDI_OK) hudi_write_rows_free(r);
  return st;
}

hudi_status hudi_write_rows_open(hudi_write_rows *r, struct ArrowArrayStream *stream, bool key_order,
                                 hudi_error *err) {
  memset(r, 0, sizeof *r);
  r->key_order = key_order;
  r->key_column = -1;
  hudi_buf_init(&r->strings, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = read_schema(r, stream, err);
  /* The stream's own types, to view the next segment's batches with
   * after hudi_write_rows_evolve replaced the schema. */
  if (st == HUDI_OK) st = hudi_arrow_field_from_schema(&r->given, &r->schema, false, err);
  return st;
}

static void drop_batches(hudi_write_rows *r) {
  for (size_t i = 0; i < r->n_batches; i++) {
    hudi_arrow_view_clear(&r->batches[i].view);
    if (r->batches[i].array.release) r->batches[i].array.release(&r->batches[i].array);
  }
  r->n_batches = 0;
}

hudi_status hudi_write_rows_next(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_keygen *kg,
                                 int64_t max_bytes, bool *eof, hudi_error *err) {
  if (r->segments++ > 0) {
    drop_batches(r);
    r->n = 0;
    r->data_bytes = 0;
    r->key_bytes = 0;
    r->key_column = -1; /* decided again at the segment's first batch */
    hudi_buf_reset(&r->strings);
    /* Back to the stream's schema (evolution may have replaced it). */
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    HUDI_TRY(hudi_arrow_field_export(&s, &r->given, err));
    if (r->schema.release) r->schema.release(&r->schema);
    r->schema = s;
    hudi_arrow_field_clear(&r->input);
    hudi_arrow_field_clear(&r->stored);
    HUDI_TRY(hudi_arrow_field_from_schema(&r->input, &r->schema, true, err));
    HUDI_TRY(hudi_write_storage_field(&r->stored, &r->input, err));
  }
  return read_rows(r, stream, kg, max_bytes, eof, err);
}

void hudi_write_rows_free(hudi_write_rows *r) {
  drop_batches(r);
  hudi_free(r->batches);
  hudi_free(r->order);
  hudi_buf_free(&r->strings);
  hudi_arrow_field_clear(&r->input);
  hudi_arrow_field_clear(&r->stored);
  hudi_arrow_field_clear(&r->given);
  if (r->schema.release) r->schema.release(&r->schema);
  memset(r, 0, sizeof *r);
}
