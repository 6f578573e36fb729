#include "arrow/builder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

struct hudi_arrow_builder {
  hudi_arrow_field *owned;        /* root only: the normalised field tree */
  const hudi_arrow_field *field;  /* this node's field (inside the root's tree) */
  int64_t length, null_count;
  hudi_buf validity;              /* one bit per element, always kept */
  hudi_buf values;                /* fixed-width values, bool bits or offsets */
  hudi_buf data;                  /* string/binary bytes */
  int32_t byte_width;
  bool large;                     /* 64-bit offsets */
  int64_t n_children;
  struct hudi_arrow_builder *children;
  /* hudi_arrow_builder_lend_range: the lent view's buffers, and where in
   * them the next array's lent_length elements start. */
  bool lent;
  const uint8_t *lent_buffers[3];
  int64_t lent_offset, lent_length;
};

static const char *col(const hudi_arrow_builder *b) {
  return b->field->name ? b->field->name : "";
}

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory building an Arrow array");
}

static bool has_offsets(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_MAP: return true;
    default: return false;
  }
}

static void node_clear(hudi_arrow_builder *b) {
  for (int64_t i = 0; i < b->n_children; i++) node_clear(&b->children[i]);
  hudi_free(b->children);
  hudi_buf_free(&b->validity);
  hudi_buf_free(&b->values);
  hudi_buf_free(&b->data);
}

static hudi_status node_init(hudi_arrow_builder *b, const hudi_arrow_field *f, hudi_error *err) {
  memset(b, 0, sizeof *b);
  b->field = f;
  hudi_buf_init(&b->validity, 0);
  hudi_buf_init(&b->values, 0);
  hudi_buf_init(&b->data, 0);
  b->byte_width = hudi_arrow_type_byte_width(&f->type);
  b->large = f->type.id == HUDI_ARROW_LARGE_STRING || f->type.id == HUDI_ARROW_LARGE_BINARY ||
             f->type.id == HUDI_ARROW_LARGE_LIST;
  if (f->dictionary || f->type.id == HUDI_ARROW_STRING_VIEW || f->type.id == HUDI_ARROW_BINARY_VIEW)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "column '%s': builder field is not normalised", col(b));
  if (f->n_children == 0) return HUDI_OK;
  b->children = hudi_calloc((size_t)f->n_children, sizeof *b->children);
  if (!b->children) return nomem(err);
  b->n_children = f->n_children;
  for (int64_t i = 0; i < f->n_children; i++) HUDI_TRY(node_init(&b->children[i], &f->children[i], err));
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_create(hudi_arrow_builder **out, const hudi_arrow_field *field,
                                     hudi_error *err) {
  *out = NULL;
  hudi_arrow_builder *b = hudi_calloc(1, sizeof *b);
  hudi_arrow_field *f = hudi_calloc(1, sizeof *f);
  if (!b || !f) {
    hudi_free(b);
    hudi_free(f);
    return nomem(err);
  }
  hudi_status st = hudi_arrow_field_copy(f, field, true, err);
  if (st == HUDI_OK) st = node_init(b, f, err);
  b->owned = f;
  if (st != HUDI_OK) {
    hudi_arrow_builder_free(b);
    return st;
  }
  *out = b;
  return HUDI_OK;
}

void hudi_arrow_builder_free(hudi_arrow_builder *b) {
  if (!b) return;
  node_clear(b);
  hudi_arrow_field_clear(b->owned);
  hudi_free(b->owned);
  hudi_free(b);
}

const hudi_arrow_field *hudi_arrow_builder_field(const hudi_arrow_builder *b) { return b->field; }
int64_t hudi_arrow_builder_length(const hudi_arrow_builder *b) { return b->length; }

hudi_arrow_builder *hudi_arrow_builder_child(hudi_arrow_builder *b, int64_t i) {
  return i >= 0 && i < b->n_children ? &b->children[i] : NULL;
}

/* ---- low-level appends ---- */

/* Appends bit number idx (the idx-th bit ever written to buf). */
static hudi_status append_bit(hudi_buf *buf, int64_t idx, bool v, hudi_error *err) {
  if ((idx & 7) == 0) HUDI_TRY(hudi_buf_append_byte(buf, 0, err));
  if (v) buf->data[idx >> 3] |= (uint8_t)(1u << (idx & 7));
  return HUDI_OK;
}

static hudi_status append_offset(hudi_arrow_builder *b, int64_t v, hudi_error *err) {
  if (b->large) return hudi_buf_append(&b->values, &v, 8, err);
  if (v > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT,
                        "column '%s': %s offsets would pass 2^31-1 (use a large type)", col(b),
                        hudi_arrow_type_name(b->field->type.id));
  int32_t x = (int32_t)v;
  return hudi_buf_append(&b->values, &x, 4, err);
}

/* The offsets buffer always starts with 0; seeded lazily so that a reset
 * builder needs no allocation. */
static hudi_status seed_offsets(hudi_arrow_builder *b, hudi_error *err) {
  if (b->values.len == 0) return append_offset(b, 0, err);
  return HUDI_OK;
}

static int64_t last_offset(const hudi_arrow_builder *b) {
  if (b->large) {
    int64_t x;
    memcpy(&x, b->values.data + b->values.len - 8, 8);
    return x;
  }
  int32_t x;
  memcpy(&x, b->values.data + b->values.len - 4, 4);
  return x;
}

/* Records one element's validity and counts it. */
static hudi_status push_valid(hudi_arrow_builder *b, bool valid, hudi_error *err) {
  if (b->length == INT64_MAX - 1) return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s' too long", col(b));
  HUDI_TRY(append_bit(&b->validity, b->length, valid, err));
  b->length++;
  if (!valid) b->null_count++;
  return HUDI_OK;
}

static hudi_status wrong_type(hudi_arrow_builder *b, const char *what, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s' of type %s cannot take %s", col(b),
                      hudi_arrow_type_name(b->field->type.id), what);
}

/* One fixed-width value; with room left, 4- and 8-byte values are stored
 * by an inlined copy (no call per value: row-at-a-time builders append
 * millions). */
static hudi_status append_fixed_raw(hudi_arrow_builder *b, const void *p, hudi_error *err) {
  size_t w = (size_t)b->byte_width;
  hudi_buf *v = &b->values;
  if (w && v->cap - v->len >= w && v->len + w <= v->max) {
    if (w == 8) memcpy(v->data + v->len, p, 8);
    else if (w == 4) memcpy(v->data + v->len, p, 4);
    else memcpy(v->data + v->len, p, w);
    v->len += w;
  } else {
    HUDI_TRY(hudi_buf_append(v, p, w, err));
  }
  return push_valid(b, true, err);
}

/* ---- typed appends ---- */

hudi_status hudi_arrow_builder_append_null(hudi_arrow_builder *b, hudi_error *err) {
  hudi_arrow_type_id id = b->field->type.id;
  switch (id) {
    case HUDI_ARROW_NA: break;
    case HUDI_ARROW_BOOL: HUDI_TRY(append_bit(&b->values, b->length, false, err)); break;
    case HUDI_ARROW_FIXED_SIZE_LIST:
      for (int32_t k = 0; k < b->field->type.fixed_size; k++)
        HUDI_TRY(hudi_arrow_builder_append_null(&b->children[0], err));
      break;
    case HUDI_ARROW_STRUCT:
      for (int64_t k = 0; k < b->n_children; k++)
        HUDI_TRY(hudi_arrow_builder_append_null(&b->children[k], err));
      break;
    default:
      if (has_offsets(id)) {
        HUDI_TRY(seed_offsets(b, err));
        HUDI_TRY(append_offset(b, last_offset(b), err));
      } else {
        HUDI_TRY(hudi_buf_append_zeros(&b->values, (size_t)b->byte_width, err));
      }
  }
  return push_valid(b, false, err);
}

hudi_status hudi_arrow_builder_append_bool(hudi_arrow_builder *b, bool v, hudi_error *err) {
  if (b->field->type.id != HUDI_ARROW_BOOL) return wrong_type(b, "a bool", err);
  HUDI_TRY(append_bit(&b->values, b->length, v, err));
  return push_valid(b, true, err);
}

hudi_status hudi_arrow_builder_append_int(hudi_arrow_builder *b, int64_t v, hudi_error *err) {
  if (!hudi_arrow_type_is_signed_int(b->field->type.id)) return wrong_type(b, "a signed integer", err);
  int bits = b->byte_width * 8;
  if (bits < 64 && (v < -((int64_t)1 << (bits - 1)) || v >= ((int64_t)1 << (bits - 1))))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': %lld out of range for %s", col(b),
                        (long long)v, hudi_arrow_type_name(b->field->type.id));
  /* Little-endian targets: the low bytes of v are the narrow value. */
  int8_t i8 = (int8_t)v;
  int16_t i16 = (int16_t)v;
  int32_t i32 = (int32_t)v;
  const void *p = bits == 8 ? (const void *)&i8 : bits == 16 ? (const void *)&i16
                : bits == 32 ? (const void *)&i32 : (const void *)&v;
  return append_fixed_raw(b, p, err);
}

hudi_status hudi_arrow_builder_append_uint(hudi_arrow_builder *b, uint64_t v, hudi_error *err) {
  if (!hudi_arrow_type_is_unsigned_int(b->field->type.id)) return wrong_type(b, "an unsigned integer", err);
  int bits = b->byte_width * 8;
  if (bits < 64 && v >= ((uint64_t)1 << bits))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': %llu out of range for %s", col(b),
                        (unsigned long long)v, hudi_arrow_type_name(b->field->type.id));
  uint8_t u8 = (uint8_t)v;
  uint16_t u16 = (uint16_t)v;
  uint32_t u32 = (uint32_t)v;
  const void *p = bits == 8 ? (const void *)&u8 : bits == 16 ? (const void *)&u16
                : bits == 32 ? (const void *)&u32 : (const void *)&v;
  return append_fixed_raw(b, p, err);
}

hudi_status hudi_arrow_builder_append_double(hudi_arrow_builder *b, double v, hudi_error *err) {
  if (b->field->type.id == HUDI_ARROW_DOUBLE) return append_fixed_raw(b, &v, err);
  if (b->field->type.id == HUDI_ARROW_FLOAT) {
    float f = (float)v;
    return append_fixed_raw(b, &f, err);
  }
  return wrong_type(b, "a floating-point value", err);
}

static hudi_status append_var(hudi_arrow_builder *b, const void *data, int64_t len, hudi_error *err) {
  HUDI_TRY(seed_offsets(b, err));
  HUDI_TRY(hudi_buf_append(&b->data, data, (size_t)len, err));
  HUDI_TRY(append_offset(b, (int64_t)b->data.len, err));
  return push_valid(b, true, err);
}

hudi_status hudi_arrow_builder_append_bytes(hudi_arrow_builder *b, const void *data, int64_t len,
                                           hudi_error *err) {
  if (len < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': negative length", col(b));
  switch (b->field->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return append_var(b, data, len, err);
    case HUDI_ARROW_FIXED_SIZE_BINARY:
    case HUDI_ARROW_DECIMAL:
    case HUDI_ARROW_HALF_FLOAT:
      if (len != b->byte_width)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': %lld bytes for a %d-byte %s",
                            col(b), (long long)len, (int)b->byte_width,
                            hudi_arrow_type_name(b->field->type.id));
      return append_fixed_raw(b, data, err);
    default: return wrong_type(b, "bytes", err);
  }
}

hudi_status hudi_arrow_builder_end_element(hudi_arrow_builder *b, hudi_error *err) {
  switch (b->field->type.id) {
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_MAP:
      HUDI_TRY(seed_offsets(b, err));
      HUDI_TRY(append_offset(b, b->children[0].length, err));
      break;
    case HUDI_ARROW_FIXED_SIZE_LIST:
      if (b->children[0].length != (b->length + 1) * b->field->type.fixed_size)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                            "column '%s': a fixed_size_list element needs %d child values",
                            col(b), (int)b->field->type.fixed_size);
      break;
    case HUDI_ARROW_STRUCT:
      for (int64_t k = 0; k < b->n_children; k++)
        if (b->children[k].length != b->length + 1)
          return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                              "column '%s': struct field '%s' has %lld values, expected %lld", col(b),
                              col(&b->children[k]), (long long)b->children[k].length,
                              (long long)(b->length + 1));
      break;
    default: return wrong_type(b, "a nested element", err);
  }
  return push_valid(b, true, err);
}

/* ---- deep copy from a view ---- */

static bool string_like(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_STRING || id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_STRING_VIEW;
}

static bool binary_like(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_BINARY || id == HUDI_ARROW_LARGE_BINARY || id == HUDI_ARROW_BINARY_VIEW;
}

static bool compatible(const hudi_arrow_builder *b, const hudi_arrow_view *v) {
  hudi_arrow_type_id bid = b->field->type.id, vid = v->type.id;
  if (string_like(bid)) return string_like(vid);
  if (binary_like(bid)) return binary_like(vid);
  if (bid != vid) return false;
  if (b->n_children != v->n_children) return false;
  if (bid == HUDI_ARROW_FIXED_SIZE_LIST) return b->field->type.fixed_size == v->type.fixed_size;
  if (bid == HUDI_ARROW_TIME32 || bid == HUDI_ARROW_TIME64 || bid == HUDI_ARROW_TIMESTAMP ||
      bid == HUDI_ARROW_DURATION)
    if (b->field->type.unit != v->type.unit) return false;
  return hudi_arrow_type_byte_width(&b->field->type) == v->byte_width;
}

static hudi_status copy_nested(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i,
                               hudi_error *err) {
  if (b->field->type.id == HUDI_ARROW_STRUCT) {
    int64_t row = hudi_arrow_view_struct_row(v, i);
    for (int64_t k = 0; k < b->n_children; k++)
      HUDI_TRY(hudi_arrow_builder_append_view(&b->children[k], &v->children[k], row, err));
  } else {
    int64_t start, end;
    hudi_arrow_view_list_range(v, i, &start, &end);
    HUDI_TRY(hudi_arrow_builder_append_view_range(&b->children[0], &v->children[0], start, end - start,
                                                  err));
  }
  return hudi_arrow_builder_end_element(b, err);
}

hudi_status hudi_arrow_builder_append_view(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i,
                                          hudi_error *err) {
  if (v->dictionary) {
    if (hudi_arrow_view_is_null(v, i)) return hudi_arrow_builder_append_null(b, err);
    return hudi_arrow_builder_append_view(b, v->dictionary, hudi_arrow_view_dict_index(v, i), err);
  }
  if (!compatible(b, v))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': cannot copy %s values into %s", col(b),
                        hudi_arrow_type_name(v->type.id), hudi_arrow_type_name(b->field->type.id));
  if (hudi_arrow_view_is_null(v, i)) return hudi_arrow_builder_append_null(b, err);
  switch (b->field->type.id) {
    case HUDI_ARROW_BOOL: return hudi_arrow_builder_append_bool(b, hudi_arrow_view_bool(v, i), err);
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: {
      int64_t len;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
      return append_var(b, p, len, err);
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST:
    case HUDI_ARROW_MAP:
    case HUDI_ARROW_STRUCT: return copy_nested(b, v, i, err);
    default:
      if (b->byte_width == 0) return push_valid(b, true, err); /* zero-width fixed_size_binary */
      return append_fixed_raw(b, hudi_arrow_view_fixed(v, i), err);
  }
}

/* ---- bulk copies ---- */

/* Columns copied without a call per element: fixed-width primitives (not
 * bool, whose values are bits) and plain string/binary. */
typedef enum { BULK_NONE, BULK_FIXED, BULK_VAR } bulk_kind;

static bulk_kind bulk_kind_of(const hudi_arrow_builder *b, const hudi_arrow_view *v) {
  if (v->dictionary || !compatible(b, v)) return BULK_NONE;
  switch (b->field->type.id) {
    case HUDI_ARROW_NA:
    case HUDI_ARROW_BOOL: return BULK_NONE;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return BULK_VAR;
    default: return b->n_children == 0 && b->byte_width > 0 && v->values ? BULK_FIXED : BULK_NONE;
  }
}

/* Grows the validity bits by m (zero) bits, as m append_bit calls would. */
static hudi_status extend_bits(hudi_arrow_builder *b, size_t m, hudi_error *err) {
  size_t want = (size_t)((b->length + (int64_t)m + 7) >> 3);
  return want > b->validity.len ? hudi_buf_append_zeros(&b->validity, want - b->validity.len, err) : HUDI_OK;
}

static inline void set_bit(uint8_t *bits, int64_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

static hudi_status check_length(hudi_arrow_builder *b, size_t m, hudi_error *err) {
  if (m > (size_t)(INT64_MAX - 1 - b->length))
    return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s' too long", col(b));
  return HUDI_OK;
}

/* The bytes of string/binary element i of v. */
static inline const uint8_t *var_bytes(const hudi_arrow_view *v, int64_t i, int64_t *len) {
  int64_t j = v->offset + i;
  switch (v->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY: {
      int32_t o[2];
      memcpy(o, v->values + j * 4, 8);
      *len = (int64_t)o[1] - o[0];
      return v->data ? v->data + o[0] : (const uint8_t *)"";
    }
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_LARGE_BINARY: {
      int64_t o[2];
      memcpy(o, v->values + j * 8, 16);
      *len = o[1] - o[0];
      return v->data ? v->data + o[0] : (const uint8_t *)"";
    }
    default: return hudi_arrow_view_bytes(v, i, len);
  }
}


/* How many elements ahead of the copy the input is prefetched. A fixed-width
 * element takes a few instructions, so the distance must cover a memory
 * latency of ~60 of them; a string waits for its offsets before its bytes
 * can be fetched (at half the distance). */
#define PREFETCH_AHEAD 16
#define PREFETCH_FIXED 64
#define PREFETCH_VAR 32

/* Sets bits [i, i + n). */
static void set_bits(uint8_t *bits, int64_t i, int64_t n) {
  for (; n > 0 && (i & 7); i++, n--) set_bit(bits, i);
  if (n >= 8) {
    memset(bits + (i >> 3), 0xff, (size_t)(n >> 3));
    i += n & ~(int64_t)7;
    n &= 7;
  }
  for (; n > 0; i++, n--) set_bit(bits, i);
}

/* Runs of at least this many consecutive rows of one view are copied as a
 * block: rows in input order (a bulk insert without sorting) come as one
 * run per chunk, and a per-element loop is then a slower memcpy. */
#define RUN_MIN 16

/* How many of rows [j, m) continue rows[j] in views[j] one by one. */
static size_t run_length(const hudi_arrow_view *const *views, const int64_t *rows, size_t j, size_t m) {
  const hudi_arrow_view *v = views[j];
  int64_t i = rows[j];
  size_t n = 1;
  while (j + n < m && views[j + n] == v && rows[j + n] == i + (int64_t)n) n++;
  return n;
}

/* n consecutive fixed-width elements of v from row i to dst and bits from
 * bit `at` (zeroed for nulls, as gather_fixed); returns the nulls. */
static int64_t copy_fixed_run(const hudi_arrow_view *v, int64_t i, size_t n, size_t w, uint8_t *dst, uint8_t *bits,
                              int64_t at) {
  memcpy(dst, v->values + (v->offset + i) * (int64_t)w, n * w);
  if (!v->validity) {
    set_bits(bits, at, (int64_t)n);
    return 0;
  }
  int64_t nulls = 0;
  for (size_t k = 0; k < n; k++) {
    if (hudi_arrow_bit(v->validity, v->offset + i + (int64_t)k)) {
      set_bit(bits, at + (int64_t)k);
    } else {
      memset(dst + k * w, 0, w);
      nulls++;
    }
  }
  return nulls;
}

/* Element rows[j] of views[j] for j < m, fixed-width. */
static hudi_status gather_fixed(hudi_arrow_builder *b, const hudi_arrow_view *const *views, const int64_t *rows,
                                size_t m, hudi_error *err) {
  size_t w = (size_t)b->byte_width;
  HUDI_TRY(check_length(b, m, err));
  HUDI_TRY(hudi_buf_reserve(&b->values, hudi_mul_size(m, w), err));
  HUDI_TRY(extend_bits(b, m, err));
  uint8_t *dst = b->values.data + b->values.len, *bits = b->validity.data;
  int64_t base = b->length, nulls = 0;
  for (size_t j = 0; j < m;) {
    size_t run = run_length(views, rows, j, m);
    if (run >= RUN_MIN) {
      nulls += copy_fixed_run(views[j], rows[j], run, w, dst, bits, base + (int64_t)j);
      dst += run * w;
      j += run;
      continue;
    }
    for (size_t end = j + run; j < end; j++) {
      if (j + PREFETCH_FIXED < m) hudi_arrow_view_prefetch(views[j + PREFETCH_FIXED], rows[j + PREFETCH_FIXED], false);
      const hudi_arrow_view *v = views[j];
      int64_t i = rows[j];
      if (v->validity && !hudi_arrow_bit(v->validity, v->offset + i)) {
        memset(dst, 0, w);
        nulls++;
      } else {
        const uint8_t *src = v->values + (v->offset + i) * (int64_t)w;
        if (w == 8) memcpy(dst, src, 8);
        else if (w == 4) memcpy(dst, src, 4);
        else memcpy(dst, src, w);
        set_bit(bits, base + (int64_t)j);
      }
      dst += w;
    }
  }
  b->values.len += m * w;
  b->length += (int64_t)m;
  b->null_count += nulls;
  return HUDI_OK;
}

static hudi_status put_offset(hudi_arrow_builder *b, int64_t v, hudi_error *err) {
  if (b->large) {
    memcpy(b->values.data + b->values.len, &v, 8);
    b->values.len += 8;
    return HUDI_OK;
  }
  if (v > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': %s offsets would pass 2^31-1 (use a large type)", col(b),
                        hudi_arrow_type_name(b->field->type.id));
  int32_t x = (int32_t)v;
  memcpy(b->values.data + b->values.len, &x, 4);
  b->values.len += 4;
  return HUDI_OK;
}

/* Where element i of a (large) string/binary view v starts in v->data, or
 * (end) where it ends. */
static inline int64_t var_offset(const hudi_arrow_view *v, int64_t i, bool end) {
  return hudi_arrow_view_offset(v, v->offset + i + (end ? 1 : 0));
}

/* Whether elements [i, i + n) of v can be copied as one block: no
 * validity bits in v, plain offsets, and their bytes within the builder's
 * offset range. */
static bool var_block_ok(const hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i, size_t n) {
  if (n == 0 || v->validity || !v->data) return false;
  switch (v->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_LARGE_BINARY: break;
    default: return false;
  }
  int64_t first = var_offset(v, i, false), last = var_offset(v, i + (int64_t)n - 1, true);
  return first >= 0 && last >= first && (b->large || (uint64_t)(last - first) <= (uint64_t)INT32_MAX - b->data.len);
}

/* The length of the run at j (run_length), and whether it is long enough
 * and var_block_ok to be copied as a block. */
static size_t var_run_length(const hudi_arrow_builder *b, const hudi_arrow_view *const *views, const int64_t *rows,
                             size_t j, size_t m, bool *block) {
  size_t n = run_length(views, rows, j, m);
  *block = n >= RUN_MIN && var_block_ok(b, views[j], rows[j], n);
  return n;
}

/* n consecutive elements of v from row i (var_run_length said yes) at
 * builder element `at`: their bytes in one copy, their offsets moved. */
static hudi_status copy_var_run(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i, size_t n, int64_t at,
                                hudi_error *err) {
  int64_t first = var_offset(v, i, false), last = var_offset(v, i + (int64_t)n - 1, true);
  int64_t shift = (int64_t)b->data.len - first;
  HUDI_TRY(hudi_buf_append(&b->data, v->data + first, (size_t)(last - first), err));
  set_bits(b->validity.data, at, (int64_t)n);
  for (size_t k = 0; k < n; k++) HUDI_TRY(put_offset(b, var_offset(v, i + (int64_t)k, true) + shift, err));
  return HUDI_OK;
}

/* Element i of v at builder element `at` (gather_var's step); counts a null. */
static hudi_status gather_var_one(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i, int64_t at,
                                  int64_t *nulls, hudi_error *err) {
  if (v->validity && !hudi_arrow_bit(v->validity, v->offset + i)) {
    (*nulls)++;
  } else {
    int64_t len;
    const uint8_t *p = var_bytes(v, i, &len);
    if (len == 0) {
      /* nothing to copy (the data buffer may not exist yet) */
    } else if ((size_t)len <= b->data.cap - b->data.len) {
      memcpy(b->data.data + b->data.len, p, (size_t)len);
      b->data.len += (size_t)len;
    } else {
      HUDI_TRY(hudi_buf_append(&b->data, p, (size_t)len, err));
    }
    set_bit(b->validity.data, at);
  }
  return put_offset(b, (int64_t)b->data.len, err);
}

static hudi_status gather_var(hudi_arrow_builder *b, const hudi_arrow_view *const *views, const int64_t *rows,
                              size_t m, hudi_error *err) {
  HUDI_TRY(check_length(b, m, err));
  HUDI_TRY(seed_offsets(b, err));
  HUDI_TRY(hudi_buf_reserve(&b->values, hudi_mul_size(m, b->large ? 8 : 4), err));
  HUDI_TRY(extend_bits(b, m, err));
  int64_t base = b->length, nulls = 0;
  for (size_t j = 0; j < m;) {
    bool block;
    size_t run = var_run_length(b, views, rows, j, m, &block);
    if (block) {
      HUDI_TRY(copy_var_run(b, views[j], rows[j], run, base + (int64_t)j, err));
      j += run;
      continue;
    }
    for (size_t end = j + run; j < end; j++) {
      if (j + PREFETCH_VAR < m) hudi_arrow_view_prefetch(views[j + PREFETCH_VAR], rows[j + PREFETCH_VAR], false);
      if (j + PREFETCH_VAR / 2 < m)
        hudi_arrow_view_prefetch(views[j + PREFETCH_VAR / 2], rows[j + PREFETCH_VAR / 2], true);
      HUDI_TRY(gather_var_one(b, views[j], rows[j], base + (int64_t)j, &nulls, err));
    }
  }
  b->length += (int64_t)m;
  b->null_count += nulls;
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_append_gather(hudi_arrow_builder *b, const hudi_arrow_view *const *views,
                                            const int64_t *rows, size_t m, hudi_error *err) {
  bulk_kind kind = m ? bulk_kind_of(b, views[0]) : BULK_NONE;
  for (size_t j = 1; j < m && kind != BULK_NONE; j++)
    if (views[j] != views[j - 1] && bulk_kind_of(b, views[j]) != kind) kind = BULK_NONE;
  for (size_t j = 0; j < m && kind != BULK_NONE; j++)
    if (rows[j] < 0 || rows[j] >= views[j]->length)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': row %lld outside a view of %lld", col(b),
                          (long long)rows[j], (long long)views[j]->length);
  if (kind == BULK_FIXED) return gather_fixed(b, views, rows, m, err);
  if (kind == BULK_VAR) return gather_var(b, views, rows, m, err);
  for (size_t j = 0; j < m; j++) {
    if (j + PREFETCH_AHEAD < m) hudi_arrow_view_prefetch(views[j + PREFETCH_AHEAD], rows[j + PREFETCH_AHEAD], false);
    HUDI_TRY(hudi_arrow_builder_append_view(b, views[j], rows[j], err));
  }
  return HUDI_OK;
}

/* n contiguous fixed-width elements: one copy of the values. */
static hudi_status range_fixed(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t start, int64_t n,
                               hudi_error *err) {
  size_t w = (size_t)b->byte_width, m = (size_t)n;
  HUDI_TRY(check_length(b, m, err));
  HUDI_TRY(hudi_buf_reserve(&b->values, hudi_mul_size(m, w), err));
  HUDI_TRY(extend_bits(b, m, err));
  b->null_count += copy_fixed_run(v, start, m, w, b->values.data + b->values.len, b->validity.data, b->length);
  b->values.len += m * w;
  b->length += n;
  return HUDI_OK;
}

/* n contiguous string/binary elements: one copy of their bytes when
 * var_block_ok, else element by element. */
static hudi_status range_var(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t start, int64_t n,
                             hudi_error *err) {
  size_t m = (size_t)n;
  HUDI_TRY(check_length(b, m, err));
  HUDI_TRY(seed_offsets(b, err));
  HUDI_TRY(hudi_buf_reserve(&b->values, hudi_mul_size(m, b->large ? 8 : 4), err));
  HUDI_TRY(extend_bits(b, m, err));
  int64_t base = b->length, nulls = 0;
  if (var_block_ok(b, v, start, m)) HUDI_TRY(copy_var_run(b, v, start, m, base, err));
  else
    for (size_t j = 0; j < m; j++) HUDI_TRY(gather_var_one(b, v, start + (int64_t)j, base + (int64_t)j, &nulls, err));
  b->length += n;
  b->null_count += nulls;
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_append_view_range(hudi_arrow_builder *b, const hudi_arrow_view *v,
                                                int64_t start, int64_t n, hudi_error *err) {
  if (start < 0 || n < 0 || start > v->length || n > v->length - start)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': rows [%lld, +%lld) outside a view of %lld",
                        col(b), (long long)start, (long long)n, (long long)v->length);
  bulk_kind kind = n > 0 ? bulk_kind_of(b, v) : BULK_NONE;
  if (kind == BULK_FIXED) return range_fixed(b, v, start, n, err);
  if (kind == BULK_VAR) return range_var(b, v, start, n, err);
  for (int64_t i = start; i < start + n; i++) HUDI_TRY(hudi_arrow_builder_append_view(b, v, i, err));
  return HUDI_OK;
}

/* Unset bits of bits[from, from + n). */
static int64_t unset_bits(const uint8_t *bits, int64_t from, int64_t n) {
  int64_t set = 0, i = from, end = from + n;
  for (; i < end && (i & 7); i++) set += bits[i >> 3] >> (i & 7) & 1;
  for (; i + 64 <= end; i += 64) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    set += __builtin_popcountll(w); /* bit order within the word does not matter for a count */
  }
  for (; i < end; i++) set += bits[i >> 3] >> (i & 7) & 1;
  return n - set;
}

bool hudi_arrow_builder_lend_range(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t start, int64_t n) {
  if (b->lent || b->length != 0 || b->n_children != 0 || n <= 0 || start < 0 || start > v->length ||
      n > v->length - start || v->type.id != b->field->type.id || !v->values)
    return false;
  bulk_kind kind = bulk_kind_of(b, v);
  if (kind == BULK_NONE || (kind == BULK_VAR && !v->data)) return false;
  b->lent = true;
  b->lent_buffers[0] = v->validity;
  b->lent_buffers[1] = v->values;
  b->lent_buffers[2] = v->data;
  b->lent_offset = v->offset + start;
  b->lent_length = b->length = n;
  b->null_count = v->validity ? unset_bits(v->validity, v->offset + start, n) : 0;
  return true;
}

/* Checks that b takes string or binary values, for the bulk appends. */
static hudi_status want_var(hudi_arrow_builder *b, hudi_error *err) {
  switch (b->field->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return HUDI_OK;
    default: return wrong_type(b, "bytes", err);
  }
}

/* Room for m more valid var-width elements holding `bytes` bytes, their
 * validity bits set (the offsets are the caller's). */
static hudi_status reserve_var(hudi_arrow_builder *b, size_t m, size_t bytes, hudi_error *err) {
  HUDI_TRY(check_length(b, m, err));
  HUDI_TRY(seed_offsets(b, err));
  if (!b->large && bytes > (size_t)INT32_MAX - b->data.len)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': %s offsets would pass 2^31-1 (use a large type)", col(b),
                        hudi_arrow_type_name(b->field->type.id));
  HUDI_TRY(hudi_buf_reserve(&b->values, hudi_mul_size(m, b->large ? 8 : 4), err));
  HUDI_TRY(hudi_buf_reserve(&b->data, bytes ? bytes : 1, err));
  HUDI_TRY(extend_bits(b, m, err));
  for (size_t j = 0; j < m; j++) set_bit(b->validity.data, b->length + (int64_t)j);
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_append_repeat(hudi_arrow_builder *b, const void *data, int64_t len, size_t n,
                                            hudi_error *err) {
  if (len < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': negative length", col(b));
  HUDI_TRY(want_var(b, err));
  if (n == 0) return HUDI_OK;
  size_t w = (size_t)len;
  if (w && n > SIZE_MAX / w) return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s' too long", col(b));
  size_t total = n * w;
  HUDI_TRY(reserve_var(b, n, total, err));
  /* The value once, then the copied run doubled: a few large copies
   * instead of one call per element. */
  uint8_t *dst = b->data.data + b->data.len;
  if (w) memcpy(dst, data, w);
  for (size_t done = w; done < total;) {
    size_t k = done < total - done ? done : total - done;
    memcpy(dst + done, dst, k);
    done += k;
  }
  int64_t at = (int64_t)b->data.len;
  for (size_t j = 0; j < n; j++) {
    at += len;
    HUDI_TRY(put_offset(b, at, err)); /* within the checked range: cannot fail */
  }
  b->data.len += total;
  b->length += (int64_t)n;
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_append_bytes_many(hudi_arrow_builder *b, const void *const *data, const size_t *lens,
                                                size_t n, hudi_error *err) {
  HUDI_TRY(want_var(b, err));
  size_t total = 0;
  for (size_t j = 0; j < n; j++) {
    if (lens[j] > SIZE_MAX - total) return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s' too long", col(b));
    total += lens[j];
  }
  if (n == 0) return HUDI_OK;
  HUDI_TRY(reserve_var(b, n, total, err));
  uint8_t *dst = b->data.data + b->data.len;
  int64_t at = (int64_t)b->data.len;
  for (size_t j = 0; j < n; j++) {
    if (lens[j]) memcpy(dst, data[j], lens[j]);
    dst += lens[j];
    at += (int64_t)lens[j];
    HUDI_TRY(put_offset(b, at, err)); /* within the checked range: cannot fail */
  }
  b->data.len += total;
  b->length += (int64_t)n;
  return HUDI_OK;
}

/* ---- export ---- */

typedef struct array_priv {
  uint8_t *owned[3];
  const void *buffers[3];
  struct ArrowArray *child_storage;
  struct ArrowArray **children;
} array_priv;

static void release_array(struct ArrowArray *a) {
  if (!a || !a->release) return;
  array_priv *p = a->private_data;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = p->children[i];
    if (c && c->release) c->release(c);
  }
  for (int k = 0; k < 3; k++) hudi_free(p->owned[k]);
  hudi_free(p->child_storage);
  hudi_free(p->children);
  hudi_free(p);
  a->release = NULL;
}

static int n_buffers_of(hudi_arrow_type_id id) {
  switch (id) {
    case HUDI_ARROW_NA: return 0;
    case HUDI_ARROW_STRUCT:
    case HUDI_ARROW_FIXED_SIZE_LIST: return 1;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return 3;
    default: return 2;
  }
}

/* Storage for a buffer that has none: a full buffer is left as it is (a
 * reserve of one byte more would copy it into one twice the size). */
static hudi_status give_storage(hudi_buf *buf, hudi_error *err) {
  return buf->data ? HUDI_OK : hudi_buf_reserve(buf, 1, err);
}

/* Phase 1 of finish: everything that can fail (allocations), with the
 * builder unchanged except for capacity. Gives every exported buffer
 * storage so no buffer pointer is NULL. */
static hudi_status prepare(hudi_arrow_builder *b, struct ArrowArray *out, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (b->lent) {
    if (b->length != b->lent_length)
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "column '%s': appended to after lending %lld rows", col(b),
                          (long long)b->lent_length);
  } else {
    if (has_offsets(b->field->type.id)) HUDI_TRY(seed_offsets(b, err));
    HUDI_TRY(give_storage(&b->validity, err));
    HUDI_TRY(give_storage(&b->values, err));
    HUDI_TRY(give_storage(&b->data, err));
  }
  array_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) return nomem(err);
  out->private_data = p;
  out->release = release_array;
  if (b->n_children) {
    p->child_storage = hudi_calloc((size_t)b->n_children, sizeof *p->child_storage);
    p->children = hudi_calloc((size_t)b->n_children, sizeof *p->children);
    if (!p->child_storage || !p->children) return nomem(err);
    for (int64_t i = 0; i < b->n_children; i++) {
      p->children[i] = &p->child_storage[i];
      out->n_children = i + 1; /* a half-prepared child is released with its parent */
      HUDI_TRY(prepare(&b->children[i], &p->child_storage[i], err));
    }
  }
  return HUDI_OK;
}

static uint8_t *take(hudi_buf *buf) {
  uint8_t *d = buf->data;
  hudi_buf_init(buf, buf->max);
  return d;
}

/* Phase 2 of a lent range: the view's own buffers, none owned. */
static void commit_lent(hudi_arrow_builder *b, struct ArrowArray *out) {
  array_priv *p = out->private_data;
  out->length = b->length;
  out->null_count = b->null_count;
  out->offset = b->lent_offset;
  out->n_buffers = n_buffers_of(b->field->type.id);
  out->buffers = p->buffers;
  out->children = p->children;
  p->buffers[0] = b->null_count > 0 ? b->lent_buffers[0] : NULL;
  p->buffers[1] = b->lent_buffers[1];
  if (out->n_buffers > 2) p->buffers[2] = b->lent_buffers[2];
  b->lent = false;
  b->length = b->null_count = 0;
}

/* Phase 2: moves the buffers (cannot fail) and resets the builder. */
static void commit(hudi_arrow_builder *b, struct ArrowArray *out) {
  if (b->lent) {
    commit_lent(b, out);
    return;
  }
  array_priv *p = out->private_data;
  out->length = b->length;
  out->null_count = b->field->type.id == HUDI_ARROW_NA ? b->length : b->null_count;
  out->offset = 0;
  out->n_buffers = n_buffers_of(b->field->type.id);
  out->buffers = p->buffers;
  out->children = p->children;
  if (out->n_buffers > 0) {
    if (b->null_count > 0) p->owned[0] = take(&b->validity);
    p->buffers[0] = p->owned[0];
    hudi_buf_reset(&b->validity);
  }
  if (out->n_buffers > 1) p->buffers[1] = p->owned[1] = take(&b->values);
  if (out->n_buffers > 2) p->buffers[2] = p->owned[2] = take(&b->data);
  hudi_buf_reset(&b->values);
  hudi_buf_reset(&b->data);
  b->length = b->null_count = 0;
  for (int64_t i = 0; i < b->n_children; i++) commit(&b->children[i], &p->child_storage[i]);
}

hudi_status hudi_arrow_builder_finish(hudi_arrow_builder *b, struct ArrowArray *out, hudi_error *err) {
  struct ArrowArray tmp;
  hudi_status st = prepare(b, &tmp, err);
  if (st != HUDI_OK) {
    release_array(&tmp);
    return hudi_err_context(err, st, "exporting column '%s'", col(b));
  }
  commit(b, &tmp);
  *out = tmp;
  return HUDI_OK;
}

hudi_status hudi_arrow_builder_export_schema(const hudi_arrow_builder *b, struct ArrowSchema *out,
                                            hudi_error *err) {
  return hudi_arrow_field_export(out, b->field, err);
}

/* ---- record batches ---- */

struct hudi_arrow_batch_builder {
  hudi_arrow_builder *root; /* a struct builder */
};

hudi_status hudi_arrow_batch_builder_create(hudi_arrow_batch_builder **out, const hudi_arrow_field *schema,
                                           hudi_error *err) {
  *out = NULL;
  if (schema->type.id != HUDI_ARROW_STRUCT || schema->dictionary)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "a record batch schema must be a struct, got %s", hudi_arrow_type_name(schema->type.id));
  hudi_arrow_batch_builder *bb = hudi_calloc(1, sizeof *bb);
  if (!bb) return nomem(err);
  hudi_status st = hudi_arrow_builder_create(&bb->root, schema, err);
  if (st != HUDI_OK) {
    hudi_free(bb);
    return st;
  }
  *out = bb;
  return HUDI_OK;
}

void hudi_arrow_batch_builder_free(hudi_arrow_batch_builder *bb) {
  if (!bb) return;
  hudi_arrow_builder_free(bb->root);
  hudi_free(bb);
}

int64_t hudi_arrow_batch_builder_n_columns(const hudi_arrow_batch_builder *bb) {
  return bb->root->n_children;
}

hudi_arrow_builder *hudi_arrow_batch_builder_column(hudi_arrow_batch_builder *bb, int64_t i) {
  return hudi_arrow_builder_child(bb->root, i);
}

int64_t hudi_arrow_batch_builder_n_rows(const hudi_arrow_batch_builder *bb) { return bb->root->length; }

hudi_status hudi_arrow_batch_builder_end_row(hudi_arrow_batch_builder *bb, hudi_error *err) {
  return hudi_arrow_builder_end_element(bb->root, err);
}

hudi_status hudi_arrow_batch_builder_end_rows(hudi_arrow_batch_builder *bb, int64_t n, hudi_error *err) {
  hudi_arrow_builder *r = bb->root;
  for (int64_t k = 0; k < r->n_children; k++)
    if (n < 0 || r->children[k].length != r->length + n)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s' has %lld values, expected %lld",
                          col(&r->children[k]), (long long)r->children[k].length, (long long)(r->length + n));
  for (int64_t i = 0; i < n; i++) HUDI_TRY(push_valid(r, true, err));
  return HUDI_OK;
}

hudi_status hudi_arrow_batch_builder_append_rows(hudi_arrow_batch_builder *bb, const hudi_arrow_view *batch,
                                                int64_t start, int64_t n, hudi_error *err) {
  hudi_arrow_builder *r = bb->root;
  if (batch->type.id != HUDI_ARROW_STRUCT || batch->dictionary || batch->n_children != r->n_children)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "record batch has %lld columns of type %s, the builder %lld columns",
                        (long long)batch->n_children, hudi_arrow_type_name(batch->type.id),
                        (long long)r->n_children);
  if (start < 0 || n < 0 || start > batch->length || n > batch->length - start)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "rows [%lld, +%lld) outside a batch of %lld",
                        (long long)start, (long long)n, (long long)batch->length);
  /* Rows of a batch are never null: copy the columns whatever the struct's
   * own validity says. */
  for (int64_t k = 0; k < r->n_children; k++) {
    hudi_status st = hudi_arrow_builder_append_view_range(
        &r->children[k], &batch->children[k], hudi_arrow_view_struct_row(batch, start), n, err);
    if (st != HUDI_OK) return st;
  }
  for (int64_t i = 0; i < n; i++) HUDI_TRY(push_valid(r, true, err));
  return HUDI_OK;
}

hudi_status hudi_arrow_batch_builder_finish(hudi_arrow_batch_builder *bb, struct ArrowArray *out,
                                           hudi_error *err) {
  return hudi_arrow_builder_finish(bb->root, out, err);
}

hudi_status hudi_arrow_batch_builder_export_schema(const hudi_arrow_batch_builder *bb,
                                                  struct ArrowSchema *out, hudi_error *err) {
  return hudi_arrow_builder_export_schema(bb->root, out, err);
}
