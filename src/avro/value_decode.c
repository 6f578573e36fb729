/* Schema-driven skipping/validation and decoding with schema resolution
 * (Avro specification, "Schema Resolution"). */
#include <stdio.h>
#include <string.h>

#include "avro/value.h"

static hudi_status fail_at(const hudi_avro_cursor *c, hudi_error *err, size_t pos, hudi_status code,
                           const char *what) {
  return hudi_avro_cursor_fail(c, err, c->base + pos, code, what);
}

/* Reads one block header of an array or map: *count items (0 = end).
 * A negative count is followed by the block's byte size. min_item is the
 * least bytes one item takes, to bound counts by the input. */
static hudi_status read_block_count(hudi_avro_cursor *c, uint32_t min_item, int64_t *count,
                                    int64_t *total, hudi_error *err) {
  size_t start = c->pos;
  int64_t n;
  HUDI_TRY(hudi_avro_read_long(c, &n, err));
  if (n < 0) {
    if (n == INT64_MIN) return fail_at(c, err, start, HUDI_ERR_CORRUPT, "invalid block count");
    n = -n;
    int64_t size;
    HUDI_TRY(hudi_avro_read_long(c, &size, err));
    if (size < 0 || (uint64_t)size > hudi_avro_cursor_left(c))
      return fail_at(c, err, start, HUDI_ERR_CORRUPT, "block byte size outside the data");
  }
  if (min_item > 0 ? (uint64_t)n > hudi_avro_cursor_left(c) / min_item
                   : n > HUDI_AVRO_MAX_EMPTY_ITEMS - *total)
    return fail_at(c, err, start, HUDI_ERR_CORRUPT, "block count larger than the data can hold");
  *total += n;
  *count = n;
  return HUDI_OK;
}

static hudi_status skip_at(const hudi_avro_node *n, hudi_avro_cursor *c, int depth, hudi_error *err) {
  if (depth > HUDI_AVRO_MAX_DATA_DEPTH)
    return fail_at(c, err, c->pos, HUDI_ERR_LIMIT, "data nested too deeply");
  size_t start = c->pos;
  const uint8_t *p;
  size_t len;
  int64_t l;
  switch (n->type) {
    case HUDI_AVRO_NULL: return HUDI_OK;
    case HUDI_AVRO_BOOLEAN: {
      int b;
      return hudi_avro_read_boolean(c, &b, err);
    }
    case HUDI_AVRO_INT: {
      int32_t i;
      return hudi_avro_read_int(c, &i, err);
    }
    case HUDI_AVRO_LONG: return hudi_avro_read_long(c, &l, err);
    case HUDI_AVRO_FLOAT: return hudi_avro_read_fixed(c, 4, &p, err);
    case HUDI_AVRO_DOUBLE: return hudi_avro_read_fixed(c, 8, &p, err);
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_STRING: return hudi_avro_read_bytes(c, &p, &len, HUDI_AVRO_MAX_BYTES, err);
    case HUDI_AVRO_FIXED: return hudi_avro_read_fixed(c, n->size, &p, err);
    case HUDI_AVRO_ENUM:
      HUDI_TRY(hudi_avro_read_long(c, &l, err));
      if (l < 0 || l >= n->n_symbols) return fail_at(c, err, start, HUDI_ERR_CORRUPT, "enum index out of range");
      return HUDI_OK;
    case HUDI_AVRO_UNION:
      HUDI_TRY(hudi_avro_read_long(c, &l, err));
      if (l < 0 || l >= n->n_branches)
        return fail_at(c, err, start, HUDI_ERR_CORRUPT, "union index out of range");
      return skip_at(n->branches[l], c, depth + 1, err);
    case HUDI_AVRO_RECORD:
      for (uint32_t i = 0; i < n->n_fields; i++) HUDI_TRY(skip_at(n->fields[i].type, c, depth + 1, err));
      return HUDI_OK;
    case HUDI_AVRO_ARRAY:
    case HUDI_AVRO_MAP: {
      int is_map = n->type == HUDI_AVRO_MAP;
      uint32_t min = n->items->min_size + (is_map ? 1u : 0u);
      int64_t count, total = 0;
      for (;;) {
        HUDI_TRY(read_block_count(c, min, &count, &total, err));
        if (count == 0) return HUDI_OK;
        for (int64_t i = 0; i < count; i++) {
          if (is_map) HUDI_TRY(hudi_avro_read_bytes(c, &p, &len, HUDI_AVRO_MAX_BYTES, err));
          HUDI_TRY(skip_at(n->items, c, depth + 1, err));
        }
      }
    }
  }
  return fail_at(c, err, start, HUDI_ERR_INTERNAL, "unknown schema node");
}

hudi_status hudi_avro_skip(const hudi_avro_node *n, hudi_avro_cursor *c, hudi_error *err) {
  return skip_at(n, c, 0, err);
}

/* ---- decoding ---- */

typedef struct dec_ctx {
  hudi_avro_arena *arena;
  hudi_avro_cursor *c;
  hudi_error *err;
} dec_ctx;

static hudi_status decode_at(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                             const hudi_avro_node *r, int depth);

static int names_match(const hudi_avro_node *w, const hudi_avro_node *r, int full) {
  if (!w->name || !r->name) return 0;
  if (full) return strcmp(w->name, r->name) == 0;
  if (strcmp(hudi_avro_short_name(w->name), hudi_avro_short_name(r->name)) == 0) return 1;
  for (uint32_t i = 0; i < r->n_aliases; i++)
    if (strcmp(r->aliases[i], w->name) == 0) return 1;
  return 0;
}

static int promotes(hudi_avro_type w, hudi_avro_type r) {
  switch (r) {
    case HUDI_AVRO_LONG: return w == HUDI_AVRO_INT;
    case HUDI_AVRO_FLOAT: return w == HUDI_AVRO_INT || w == HUDI_AVRO_LONG;
    case HUDI_AVRO_DOUBLE: return w == HUDI_AVRO_INT || w == HUDI_AVRO_LONG || w == HUDI_AVRO_FLOAT;
    case HUDI_AVRO_BYTES: return w == HUDI_AVRO_STRING;
    case HUDI_AVRO_STRING: return w == HUDI_AVRO_BYTES;
    default: return 0;
  }
}

/* The reader-union branch a (non-union) writer type resolves to, or -1:
 * first an exact match (type and full name), then same short name or
 * alias, then a numeric/string promotion. */
static int32_t match_branch(const hudi_avro_node *r, const hudi_avro_node *w) {
  for (int pass = 0; pass < 3; pass++) {
    for (uint32_t i = 0; i < r->n_branches; i++) {
      const hudi_avro_node *b = r->branches[i];
      if (pass < 2 && b->type == w->type) {
        if (!w->name && !b->name) return (int32_t)i;
        if (names_match(w, b, pass == 0)) return (int32_t)i;
      }
      if (pass == 2 && promotes(w->type, b->type)) return (int32_t)i;
    }
  }
  return -1;
}

static hudi_status mismatch(dec_ctx *d, size_t pos, const hudi_avro_node *w, const hudi_avro_node *r) {
  char msg[256];
  snprintf(msg, sizeof msg, "writer type %s cannot be read as reader type %s",
           w->name ? w->name : hudi_avro_type_name(w->type), r->name ? r->name : hudi_avro_type_name(r->type));
  return fail_at(d->c, d->err, pos, HUDI_ERR_INVALID_ARG, msg);
}

static hudi_status copy_bytes(dec_ctx *d, hudi_avro_value *out, const uint8_t *p, size_t len) {
  char *s;
  HUDI_TRY(hudi_avro_arena_strndup(d->arena, (const char *)p, len, &s, d->err));
  out->v.bytes.data = (const uint8_t *)s;
  out->v.bytes.len = len;
  return HUDI_OK;
}

static hudi_status decode_number(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                                 const hudi_avro_node *r) {
  int64_t l = 0;
  double dv = 0;
  float f = 0;
  switch (w->type) {
    case HUDI_AVRO_INT: {
      int32_t i;
      HUDI_TRY(hudi_avro_read_int(d->c, &i, d->err));
      l = i;
      dv = i;
      break;
    }
    case HUDI_AVRO_LONG:
      HUDI_TRY(hudi_avro_read_long(d->c, &l, d->err));
      dv = (double)l;
      break;
    case HUDI_AVRO_FLOAT:
      HUDI_TRY(hudi_avro_read_float(d->c, &f, d->err));
      dv = f;
      break;
    default: HUDI_TRY(hudi_avro_read_double(d->c, &dv, d->err)); break;
  }
  switch (r->type) {
    case HUDI_AVRO_INT: out->v.i = (int32_t)l; break;
    case HUDI_AVRO_LONG: out->v.l = l; break;
    /* Java converts long->float directly, not through double. */
    case HUDI_AVRO_FLOAT: out->v.f = w->type == HUDI_AVRO_FLOAT ? f : w->type == HUDI_AVRO_LONG ? (float)l : (float)dv; break;
    default: out->v.d = dv; break;
  }
  return HUDI_OK;
}

static hudi_status decode_enum(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                               const hudi_avro_node *r, size_t start) {
  int64_t l;
  HUDI_TRY(hudi_avro_read_long(d->c, &l, d->err));
  if (l < 0 || l >= w->n_symbols) return fail_at(d->c, d->err, start, HUDI_ERR_CORRUPT, "enum index out of range");
  if (w == r) {
    out->v.symbol = (uint32_t)l;
    return HUDI_OK;
  }
  int32_t k = hudi_avro_enum_symbol(r, w->symbols[l]);
  if (k < 0) k = r->enum_default;
  if (k < 0) {
    char msg[200];
    snprintf(msg, sizeof msg, "enum symbol '%.100s' unknown to the reader", w->symbols[l]);
    return fail_at(d->c, d->err, start, HUDI_ERR_INVALID_ARG, msg);
  }
  out->v.symbol = (uint32_t)k;
  return HUDI_OK;
}

static hudi_status decode_record(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                                 const hudi_avro_node *r, int depth) {
  void *p;
  HUDI_TRY(hudi_avro_arena_array(d->arena, r->n_fields, sizeof(hudi_avro_value), &p, d->err));
  out->v.list.items = p;
  out->v.list.n = out->v.list.cap = r->n_fields;
  for (uint32_t i = 0; i < w->n_fields; i++) {
    const hudi_avro_field *wf = &w->fields[i];
    const hudi_avro_field *rf = NULL;
    if (w == r) rf = wf;
    else if (i < r->n_fields && strcmp(r->fields[i].name, wf->name) == 0) rf = &r->fields[i];
    else rf = hudi_avro_record_field(r, wf->name);
    if (!rf) {
      HUDI_TRY(skip_at(wf->type, d->c, depth + 1, d->err));
      continue;
    }
    hudi_status st = decode_at(d, &out->v.list.items[rf->index], wf->type, rf->type, depth + 1);
    if (st != HUDI_OK) return hudi_err_context(d->err, st, "field '%s'", wf->name);
  }
  if (w == r) return HUDI_OK;
  for (uint32_t i = 0; i < r->n_fields; i++) {
    hudi_avro_value *fv = &out->v.list.items[i];
    if (fv->node) continue;
    const hudi_avro_field *rf = &r->fields[i];
    if (!rf->default_json)
      return hudi_err_set(d->err, HUDI_ERR_INVALID_ARG,
                          "%s: reader field '%s.%s' is not in the writer schema and has no default", d->c->where,
                          r->name, rf->name);
    hudi_status st = hudi_avro_value_from_json(fv, d->arena, rf->type, rf->default_json, d->err);
    if (st != HUDI_OK) return hudi_err_context(d->err, st, "default of field '%s.%s'", r->name, rf->name);
  }
  return HUDI_OK;
}

/* Arrays and maps grow by doubling inside the arena. */
static hudi_status grow(dec_ctx *d, hudi_avro_value *out, int is_map, size_t need) {
  size_t cap = is_map ? out->v.map.cap : out->v.list.cap;
  if (need <= cap) return HUDI_OK;
  size_t ncap = cap ? cap : 4;
  while (ncap < need) ncap *= 2;
  size_t n = is_map ? out->v.map.n : out->v.list.n;
  void *p;
  HUDI_TRY(hudi_avro_arena_array(d->arena, ncap, sizeof(hudi_avro_value), &p, d->err));
  if (n) memcpy(p, is_map ? out->v.map.values : out->v.list.items, n * sizeof(hudi_avro_value));
  if (is_map) {
    void *k;
    HUDI_TRY(hudi_avro_arena_array(d->arena, ncap, sizeof(hudi_avro_str), &k, d->err));
    if (n) memcpy(k, out->v.map.keys, n * sizeof(hudi_avro_str));
    out->v.map.keys = k;
    out->v.map.values = p;
    out->v.map.cap = ncap;
  } else {
    out->v.list.items = p;
    out->v.list.cap = ncap;
  }
  return HUDI_OK;
}

static hudi_status decode_collection(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                                     const hudi_avro_node *r, int depth) {
  int is_map = w->type == HUDI_AVRO_MAP;
  uint32_t min = w->items->min_size + (is_map ? 1u : 0u);
  int64_t count, total = 0;
  for (;;) {
    HUDI_TRY(read_block_count(d->c, min, &count, &total, d->err));
    if (count == 0) return HUDI_OK;
    size_t n = is_map ? out->v.map.n : out->v.list.n;
    HUDI_TRY(grow(d, out, is_map, n + (size_t)count));
    for (int64_t i = 0; i < count; i++, n++) {
      if (is_map) {
        const uint8_t *p;
        size_t len;
        HUDI_TRY(hudi_avro_read_bytes(d->c, &p, &len, HUDI_AVRO_MAX_BYTES, d->err));
        char *key;
        HUDI_TRY(hudi_avro_arena_strndup(d->arena, (const char *)p, len, &key, d->err));
        out->v.map.keys[n].data = key;
        out->v.map.keys[n].len = len;
        HUDI_TRY(decode_at(d, &out->v.map.values[n], w->items, r->items, depth + 1));
        out->v.map.n = n + 1;
      } else {
        HUDI_TRY(decode_at(d, &out->v.list.items[n], w->items, r->items, depth + 1));
        out->v.list.n = n + 1;
      }
    }
  }
}

static hudi_status decode_at(dec_ctx *d, hudi_avro_value *out, const hudi_avro_node *w,
                             const hudi_avro_node *r, int depth) {
  hudi_avro_cursor *c = d->c;
  if (depth > HUDI_AVRO_MAX_DATA_DEPTH) return fail_at(c, d->err, c->pos, HUDI_ERR_LIMIT, "data nested too deeply");
  size_t start = c->pos;
  if (w->type == HUDI_AVRO_UNION) {
    int64_t idx;
    HUDI_TRY(hudi_avro_read_long(c, &idx, d->err));
    if (idx < 0 || idx >= w->n_branches)
      return fail_at(c, d->err, start, HUDI_ERR_CORRUPT, "union index out of range");
    if (w == r) {
      out->node = r;
      out->v.u.branch = (uint32_t)idx;
      void *p;
      HUDI_TRY(hudi_avro_arena_alloc(d->arena, sizeof(hudi_avro_value), &p, d->err));
      out->v.u.value = p;
      return decode_at(d, p, w->branches[idx], r->branches[idx], depth + 1);
    }
    w = w->branches[idx];
    start = c->pos;
  }
  if (r->type == HUDI_AVRO_UNION) {
    int32_t b = match_branch(r, w);
    if (b < 0) return mismatch(d, start, w, r);
    out->node = r;
    out->v.u.branch = (uint32_t)b;
    void *p;
    HUDI_TRY(hudi_avro_arena_alloc(d->arena, sizeof(hudi_avro_value), &p, d->err));
    out->v.u.value = p;
    return decode_at(d, p, w, r->branches[b], depth + 1);
  }
  if (w->type != r->type && !promotes(w->type, r->type)) return mismatch(d, start, w, r);
  out->node = r;
  const uint8_t *p;
  size_t len;
  switch (r->type) {
    case HUDI_AVRO_NULL: return HUDI_OK;
    case HUDI_AVRO_BOOLEAN: return hudi_avro_read_boolean(c, &out->v.boolean, d->err);
    case HUDI_AVRO_INT:
    case HUDI_AVRO_LONG:
    case HUDI_AVRO_FLOAT:
    case HUDI_AVRO_DOUBLE: return decode_number(d, out, w, r);
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_STRING:
      HUDI_TRY(hudi_avro_read_bytes(c, &p, &len, HUDI_AVRO_MAX_BYTES, d->err));
      return copy_bytes(d, out, p, len);
    case HUDI_AVRO_FIXED:
      if (w->size != r->size) return mismatch(d, start, w, r);
      HUDI_TRY(hudi_avro_read_fixed(c, w->size, &p, d->err));
      return copy_bytes(d, out, p, w->size);
    case HUDI_AVRO_ENUM: return decode_enum(d, out, w, r, start);
    case HUDI_AVRO_RECORD: return decode_record(d, out, w, r, depth);
    case HUDI_AVRO_ARRAY:
    case HUDI_AVRO_MAP: return decode_collection(d, out, w, r, depth);
    case HUDI_AVRO_UNION: break;
  }
  return fail_at(c, d->err, start, HUDI_ERR_INTERNAL, "unknown schema node");
}

hudi_status hudi_avro_decode(hudi_avro_value *out, hudi_avro_arena *arena, const hudi_avro_node *writer,
                             const hudi_avro_node *reader, hudi_avro_cursor *c, hudi_error *err) {
  memset(out, 0, sizeof *out);
  dec_ctx d = {arena, c, err};
  return decode_at(&d, out, writer, reader ? reader : writer, 0);
}
