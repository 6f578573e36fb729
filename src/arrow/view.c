#include "arrow/view.h"

#include <stdarg.h>
#include <stdio.h>

#include "arrow/field.h"
#include "base/alloc.h"

typedef struct view_ctx {
  char path[512]; /* dotted column path for messages */
} view_ctx;

static hudi_status bad(view_ctx *c, hudi_error *err, hudi_status code, const char *fmt, ...)
    HUDI_PRINTF(4, 5);

static hudi_status bad(view_ctx *c, hudi_error *err, hudi_status code, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hudi_err_set(err, code, "Arrow array, column '%s': %s", c->path, msg);
}

void hudi_arrow_view_clear(hudi_arrow_view *v) {
  if (!v) return;
  for (int64_t i = 0; i < v->n_children; i++) hudi_arrow_view_clear(&v->children[i]);
  hudi_free(v->children);
  if (v->dictionary) {
    hudi_arrow_view_clear(v->dictionary);
    hudi_free(v->dictionary);
  }
  memset(v, 0, sizeof *v);
}

/* ---- element access ---- */

int64_t hudi_arrow_view_int(const hudi_arrow_view *v, int64_t i) {
  const uint8_t *p = hudi_arrow_view_fixed(v, i);
  switch (v->byte_width) {
    case 1: return (int8_t)p[0];
    case 2: { int16_t x; memcpy(&x, p, 2); return x; }
    case 4: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
  }
}

uint64_t hudi_arrow_view_uint(const hudi_arrow_view *v, int64_t i) {
  const uint8_t *p = hudi_arrow_view_fixed(v, i);
  switch (v->byte_width) {
    case 1: return p[0];
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
  }
}

double hudi_arrow_view_double(const hudi_arrow_view *v, int64_t i) {
  const uint8_t *p = hudi_arrow_view_fixed(v, i);
  if (v->byte_width == 4) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

bool hudi_arrow_view_bool(const hudi_arrow_view *v, int64_t i) {
  return hudi_arrow_bit(v->values, v->offset + i);
}

static const uint8_t k_empty[1] = {0};

const uint8_t *hudi_arrow_view_bytes(const hudi_arrow_view *v, int64_t i, int64_t *len) {
  int64_t j = v->offset + i;
  switch (v->type.id) {
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW: {
      const uint8_t *e = v->values + j * 16;
      int32_t n, buf, off;
      memcpy(&n, e, 4);
      *len = n;
      if (n <= 12) return e + 4;
      memcpy(&buf, e + 8, 4);
      memcpy(&off, e + 12, 4);
      return v->variadic[buf] + off;
    }
    case HUDI_ARROW_FIXED_SIZE_BINARY:
      *len = v->byte_width;
      return v->values ? v->values + j * (int64_t)v->byte_width : k_empty;
    default: {
      if (!v->values) {
        *len = 0;
        return k_empty;
      }
      int64_t a = hudi_arrow_view_offset(v, j), b = hudi_arrow_view_offset(v, j + 1);
      *len = b - a;
      return v->data ? v->data + a : k_empty;
    }
  }
}

void hudi_arrow_view_list_range(const hudi_arrow_view *v, int64_t i, int64_t *start, int64_t *end) {
  int64_t j = v->offset + i;
  if (v->type.id == HUDI_ARROW_FIXED_SIZE_LIST) {
    *start = j * v->type.fixed_size;
    *end = *start + v->type.fixed_size;
  } else if (!v->values) {
    *start = *end = 0;
  } else {
    *start = hudi_arrow_view_offset(v, j);
    *end = hudi_arrow_view_offset(v, j + 1);
  }
}

/* ---- construction and validation ---- */

static int64_t expected_buffers(const hudi_arrow_view *v, const struct ArrowArray *a) {
  switch (v->type.id) {
    case HUDI_ARROW_NA: return 0;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return 3;
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW: return a->n_buffers >= 3 ? a->n_buffers : 3;
    case HUDI_ARROW_FIXED_SIZE_LIST:
    case HUDI_ARROW_STRUCT: return 1;
    default: return 2;
  }
}

static hudi_status check_header(view_ctx *c, hudi_arrow_view *v, const struct ArrowArray *a,
                                hudi_error *err) {
  if (!a->release) return bad(c, err, HUDI_ERR_INVALID_ARG, "array was already released");
  if (a->length < 0 || a->offset < 0 || a->length > INT64_MAX - a->offset - 1)
    return bad(c, err, HUDI_ERR_CORRUPT, "bad length %lld / offset %lld", (long long)a->length,
               (long long)a->offset);
  int64_t want = expected_buffers(v, a);
  if (a->n_buffers != want)
    return bad(c, err, HUDI_ERR_CORRUPT, "type %s needs %lld buffers, the array has %lld",
               hudi_arrow_type_name(v->type.id), (long long)want, (long long)a->n_buffers);
  if (want > 0 && !a->buffers) return bad(c, err, HUDI_ERR_CORRUPT, "buffers pointer is NULL");
  if (a->null_count < -1 || a->null_count > a->length)
    return bad(c, err, HUDI_ERR_CORRUPT, "null_count %lld out of range for length %lld",
               (long long)a->null_count, (long long)a->length);
  v->length = a->length;
  v->offset = a->offset;
  v->null_count = a->null_count;
  if (v->type.id == HUDI_ARROW_NA) return HUDI_OK;
  v->validity = a->null_count == 0 ? NULL : a->buffers[0];
  if (!v->validity && a->null_count > 0)
    return bad(c, err, HUDI_ERR_CORRUPT, "null_count is %lld but there is no validity buffer",
               (long long)a->null_count);
  if (want > 1) v->values = a->buffers[1];
  if (want > 2) v->data = a->buffers[2];
  return HUDI_OK;
}

/* Offsets of elements [offset, offset + length] must be non-negative and
 * non-decreasing, and (for lists) end within the child. */
static hudi_status check_offsets(view_ctx *c, hudi_arrow_view *v, int64_t limit, hudi_error *err) {
  if (v->length == 0) return HUDI_OK;
  if (!v->values) return bad(c, err, HUDI_ERR_CORRUPT, "offsets buffer is NULL");
  int64_t prev = hudi_arrow_view_offset(v, v->offset);
  if (prev < 0) return bad(c, err, HUDI_ERR_CORRUPT, "negative offset %lld", (long long)prev);
  for (int64_t j = v->offset + 1; j <= v->offset + v->length; j++) {
    int64_t o = hudi_arrow_view_offset(v, j);
    if (o < prev)
      return bad(c, err, HUDI_ERR_CORRUPT, "offsets decrease at element %lld (%lld < %lld)",
                 (long long)(j - v->offset - 1), (long long)o, (long long)prev);
    prev = o;
  }
  if (limit >= 0 && prev > limit)
    return bad(c, err, HUDI_ERR_CORRUPT, "offsets end at %lld past the child's length %lld",
               (long long)prev, (long long)limit);
  if (limit < 0 && prev > 0 && !v->data)
    return bad(c, err, HUDI_ERR_CORRUPT, "data buffer is NULL but offsets reach %lld", (long long)prev);
  return HUDI_OK;
}

static hudi_status check_views(view_ctx *c, hudi_arrow_view *v, const struct ArrowArray *a,
                               hudi_error *err) {
  v->n_variadic = a->n_buffers - 3;
  v->variadic = (const uint8_t *const *)(a->buffers + 2);
  v->variadic_sizes = a->buffers[a->n_buffers - 1];
  v->data = NULL;
  if (v->length == 0) return HUDI_OK;
  if (!v->values) return bad(c, err, HUDI_ERR_CORRUPT, "views buffer is NULL");
  if (v->n_variadic > 0 && !v->variadic_sizes)
    return bad(c, err, HUDI_ERR_CORRUPT, "variadic buffer sizes are missing");
  for (int64_t i = 0; i < v->length; i++) {
    if (hudi_arrow_view_is_null(v, i)) continue;
    const uint8_t *e = v->values + (v->offset + i) * 16;
    int32_t n, buf, off;
    memcpy(&n, e, 4);
    memcpy(&buf, e + 8, 4);
    memcpy(&off, e + 12, 4);
    if (n < 0) return bad(c, err, HUDI_ERR_CORRUPT, "negative view length at element %lld", (long long)i);
    if (n <= 12) continue;
    if (buf < 0 || buf >= v->n_variadic || !v->variadic[buf] || off < 0 ||
        (int64_t)off + n > v->variadic_sizes[buf])
      return bad(c, err, HUDI_ERR_CORRUPT,
                 "view of element %lld (buffer %d, offset %d, length %d) is outside the data buffers",
                 (long long)i, (int)buf, (int)off, (int)n);
  }
  return HUDI_OK;
}

static hudi_status view_node(hudi_arrow_view *v, const struct ArrowSchema *s, const struct ArrowArray *a,
                             view_ctx *c, int depth, hudi_error *err);

static hudi_status view_children(hudi_arrow_view *v, const struct ArrowSchema *s,
                                 const struct ArrowArray *a, view_ctx *c, int depth, hudi_error *err) {
  int want = hudi_arrow_type_n_children(v->type.id);
  if (s->n_children < 0 || s->n_children > HUDI_ARROW_MAX_CHILDREN || (want >= 0 && s->n_children != want))
    return bad(c, err, HUDI_ERR_INVALID_ARG, "type %s cannot have %lld children",
               hudi_arrow_type_name(v->type.id), (long long)s->n_children);
  if (a->n_children != s->n_children)
    return bad(c, err, HUDI_ERR_CORRUPT, "the schema has %lld children, the array %lld",
               (long long)s->n_children, (long long)a->n_children);
  if (s->n_children == 0) return HUDI_OK;
  if (!s->children || !a->children) return bad(c, err, HUDI_ERR_CORRUPT, "children pointer is NULL");
  v->children = hudi_calloc((size_t)s->n_children, sizeof *v->children);
  if (!v->children) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory viewing an Arrow array");
  v->n_children = s->n_children;
  size_t plen = strlen(c->path);
  for (int64_t i = 0; i < s->n_children; i++) {
    if (!s->children[i] || !a->children[i]) return bad(c, err, HUDI_ERR_CORRUPT, "a child is NULL");
    const char *cn = s->children[i]->name;
    snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "", cn && *cn ? cn : "?");
    hudi_status st = view_node(&v->children[i], s->children[i], a->children[i], c, depth + 1, err);
    c->path[plen] = '\0';
    HUDI_TRY(st);
  }
  return HUDI_OK;
}

static hudi_status check_nested(view_ctx *c, hudi_arrow_view *v, hudi_error *err) {
  int64_t end = v->offset + v->length;
  switch (v->type.id) {
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_MAP:
      if (v->type.id == HUDI_ARROW_MAP &&
          (v->children[0].type.id != HUDI_ARROW_STRUCT || v->children[0].n_children != 2))
        return bad(c, err, HUDI_ERR_INVALID_ARG, "a map's child must be a struct of key and value");
      return check_offsets(c, v, v->children[0].length, err);
    case HUDI_ARROW_FIXED_SIZE_LIST: {
      int64_t size = v->type.fixed_size;
      if (size > 0 && end > v->children[0].length / size)
        return bad(c, err, HUDI_ERR_CORRUPT, "child length %lld is shorter than %lld lists of %lld",
                   (long long)v->children[0].length, (long long)end, (long long)size);
      return HUDI_OK;
    }
    case HUDI_ARROW_STRUCT:
      for (int64_t i = 0; i < v->n_children; i++)
        if (v->children[i].length < end)
          return bad(c, err, HUDI_ERR_CORRUPT, "child %lld has length %lld, the struct needs %lld",
                     (long long)i, (long long)v->children[i].length, (long long)end);
      return HUDI_OK;
    default: return HUDI_OK;
  }
}

static hudi_status check_values(view_ctx *c, hudi_arrow_view *v, const struct ArrowArray *a,
                                hudi_error *err) {
  switch (v->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: return check_offsets(c, v, -1, err);
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY_VIEW: return check_views(c, v, a, err);
    case HUDI_ARROW_NA:
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_MAP:
    case HUDI_ARROW_FIXED_SIZE_LIST:
    case HUDI_ARROW_STRUCT: return HUDI_OK;
    default:
      if (v->length > 0 && !v->values && (v->type.id == HUDI_ARROW_BOOL || v->byte_width > 0))
        return bad(c, err, HUDI_ERR_CORRUPT, "values buffer is NULL");
      return HUDI_OK;
  }
}

static hudi_status check_dictionary(view_ctx *c, hudi_arrow_view *v, hudi_error *err) {
  if (v->type.id < HUDI_ARROW_INT8 || v->type.id > HUDI_ARROW_UINT64)
    return bad(c, err, HUDI_ERR_INVALID_ARG, "dictionary index type must be an integer");
  for (int64_t i = 0; i < v->length; i++) {
    if (hudi_arrow_view_is_null(v, i)) continue;
    int64_t k = v->type.id == HUDI_ARROW_UINT64 && hudi_arrow_view_uint(v, i) > INT64_MAX
                    ? -1
                    : hudi_arrow_view_dict_index(v, i);
    if (k < 0 || k >= v->dictionary->length)
      return bad(c, err, HUDI_ERR_CORRUPT, "dictionary index %lld at element %lld is outside the %lld values",
                 (long long)k, (long long)i, (long long)v->dictionary->length);
  }
  return HUDI_OK;
}

static hudi_status view_dictionary(hudi_arrow_view *v, const struct ArrowSchema *s,
                                   const struct ArrowArray *a, view_ctx *c, int depth, hudi_error *err) {
  if (!s->dictionary != !a->dictionary)
    return bad(c, err, HUDI_ERR_CORRUPT, "the schema and the array disagree on dictionary encoding");
  if (!s->dictionary) return HUDI_OK;
  if (s->n_children != 0 || a->n_children != 0)
    return bad(c, err, HUDI_ERR_CORRUPT, "dictionary indices cannot have children");
  v->dictionary = hudi_calloc(1, sizeof *v->dictionary);
  if (!v->dictionary) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory viewing an Arrow array");
  HUDI_TRY(view_node(v->dictionary, s->dictionary, a->dictionary, c, depth + 1, err));
  return check_dictionary(c, v, err);
}

static hudi_status view_node(hudi_arrow_view *v, const struct ArrowSchema *s, const struct ArrowArray *a,
                             view_ctx *c, int depth, hudi_error *err) {
  memset(v, 0, sizeof *v);
  if (depth > HUDI_ARROW_MAX_DEPTH) return bad(c, err, HUDI_ERR_LIMIT, "nesting too deep");
  if (!s->release) return bad(c, err, HUDI_ERR_INVALID_ARG, "schema was already released");
  hudi_status st = hudi_arrow_type_parse(&v->type, s->format, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "Arrow array, column '%s'", c->path);
  v->name = s->name;
  v->flags = s->flags;
  v->byte_width = hudi_arrow_type_byte_width(&v->type);
  HUDI_TRY(check_header(c, v, a, err));
  if (s->dictionary || a->dictionary) {
    HUDI_TRY(check_values(c, v, a, err));
    return view_dictionary(v, s, a, c, depth, err);
  }
  HUDI_TRY(view_children(v, s, a, c, depth, err));
  HUDI_TRY(check_values(c, v, a, err));
  return check_nested(c, v, err);
}

hudi_status hudi_arrow_view_init(hudi_arrow_view *v, const struct ArrowSchema *schema,
                                 const struct ArrowArray *array, hudi_error *err) {
  view_ctx c;
  memset(v, 0, sizeof *v);
  if (!schema || !array) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow schema or array is NULL");
  snprintf(c.path, sizeof c.path, "%s", schema->name ? schema->name : "");
  hudi_status st = view_node(v, schema, array, &c, 0, err);
  if (st != HUDI_OK) hudi_arrow_view_clear(v);
  return st;
}
