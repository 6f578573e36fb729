#include "avro/arrow_decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avro/arena.h"
#include "avro/arrow_columns.h"
#include "avro/binary.h"
#include "avro/arrow_schema.h"
#include "base/alloc.h"

/* ---- the compiled program ---- */

typedef enum op_kind {
  K_SKIP = 0, /* a value nobody wants: skipped by walking the writer type */
  K_NULL,     /* a null into the column */
  K_BOOL,
  K_INT,      /* int/long -> a signed integer column (with rescaling) */
  K_INT_F32,  /* int/long -> float */
  K_INT_F64,  /* int/long -> double */
  K_F32,      /* float -> float */
  K_F32_F64,  /* float -> double */
  K_F64,      /* double -> double */
  K_BYTES,    /* string/bytes -> string/binary */
  K_FIXED,    /* fixed -> fixed_size_binary */
  K_FIXED_VAR,/* fixed -> string/binary */
  K_DEC,      /* decimal bytes/fixed -> decimal128 */
  K_ENUM,     /* enum -> string */
  K_RECORD,
  K_ARRAY,
  K_MAP,
  K_UNION,
  K_BAD       /* a union branch that the column cannot take */
} op_kind;

typedef enum fill_kind { F_NULL, F_BOOL, F_INT, F_F64, F_BYTES, F_EMPTY } fill_kind;

/* A column the writer does not have, filled with the same value every row. */
typedef struct fill {
  hudi_avro_col *c;
  fill_kind kind;
  int64_t i;
  double d;
  const uint8_t *bytes;
  size_t len;
} fill;

typedef struct op {
  op_kind kind;
  bool from_fixed;     /* K_DEC */
  bool is_int32;       /* K_INT etc.: the writer type is int (values must fit 32 bits) */
  int32_t size;        /* fixed size */
  int64_t mul, div;    /* K_INT: value * mul / div (unit changes) */
  int64_t min, max;    /* K_INT: the column's range */
  hudi_avro_col *c;    /* where values go; NULL for K_SKIP */
  const hudi_avro_node *w; /* the writer type */
  struct op *sub;      /* record: writer fields; union: branches; array/map: items */
  uint32_t n_sub;
  fill *fills;         /* record: columns the writer lacks */
  uint32_t n_fills;
} op;

struct hudi_avro_decoder {
  hudi_avro_arena arena; /* ops, fills, default bytes */
  hudi_arrow_field target;
  hudi_avro_col root;
  op program;
  bool failed, need_seed;
};

/* ---- compile ---- */

typedef struct compiler {
  hudi_avro_decoder *d;
  hudi_error *err;
} compiler;

static const char *cn(const hudi_avro_col *c) { return c && c->field->name ? c->field->name : ""; }

static hudi_status cannot(compiler *cc, const hudi_avro_node *w, const hudi_avro_col *c) {
  return hudi_err_set(cc->err, HUDI_ERR_INVALID_ARG, "column '%s': Avro %s%s%s cannot be read as Arrow %s",
                      cn(c), hudi_avro_type_name(w->type), w->name ? " " : "", w->name ? w->name : "",
                      hudi_arrow_type_name(c->id));
}

static hudi_status alloc_ops(compiler *cc, op **out, uint32_t n) {
  void *p = NULL;
  *out = NULL;
  if (n == 0) return HUDI_OK;
  HUDI_TRY(hudi_avro_arena_array(&cc->d->arena, n, sizeof(op), &p, cc->err));
  *out = p;
  return HUDI_OK;
}

static int64_t unit_per_second(hudi_arrow_time_unit u) {
  return u == HUDI_ARROW_SECOND ? 1 : u == HUDI_ARROW_MILLI ? 1000 : u == HUDI_ARROW_MICRO ? 1000000 : 1000000000;
}

/* The unit a writer's logical type counts in, or -1 when it has none. */
static int writer_unit(const hudi_avro_node *w) {
  switch (w->logical) {
    case HUDI_AVRO_LOGICAL_TIME_MILLIS:
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: return HUDI_ARROW_MILLI;
    case HUDI_AVRO_LOGICAL_TIME_MICROS:
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: return HUDI_ARROW_MICRO;
    default: return -1;
  }
}

static hudi_status compile_int(compiler *cc, op *o, const hudi_avro_node *w, hudi_avro_col *c) {
  o->is_int32 = w->type == HUDI_AVRO_INT;
  o->mul = o->div = 1;
  switch (c->id) {
    case HUDI_ARROW_FLOAT: o->kind = K_INT_F32; return HUDI_OK;
    case HUDI_ARROW_DOUBLE: o->kind = K_INT_F64; return HUDI_OK;
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
    case HUDI_ARROW_DURATION: break;
    default: return cannot(cc, w, c);
  }
  /* int (32-bit) may fill 64-bit columns; long only 64-bit ones. */
  if (!o->is_int32 && c->width < 8) return cannot(cc, w, c);
  if (c->id == HUDI_ARROW_DATE32 && w->logical != HUDI_AVRO_LOGICAL_DATE && w->logical != HUDI_AVRO_LOGICAL_NONE)
    return cannot(cc, w, c);
  int wu = writer_unit(w);
  bool temporal = c->id == HUDI_ARROW_TIME32 || c->id == HUDI_ARROW_TIME64 ||
                  c->id == HUDI_ARROW_TIMESTAMP || c->id == HUDI_ARROW_DURATION;
  if (wu >= 0 && !temporal) return cannot(cc, w, c);
  if (wu >= 0) {
    int64_t from = unit_per_second((hudi_arrow_time_unit)wu), to = unit_per_second(c->field->type.unit);
    if (to >= from) o->mul = to / from;
    else o->div = from / to;
  }
  int bits = c->width * 8;
  o->min = bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  o->max = bits >= 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
  o->kind = K_INT;
  return HUDI_OK;
}

static bool is_var(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_STRING || id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_BINARY ||
         id == HUDI_ARROW_LARGE_BINARY;
}

static hudi_status compile(compiler *cc, op *o, const hudi_avro_node *w, const hudi_avro_node *r,
                           hudi_avro_col *c, int depth);

/* The reader branch (of a reader union) that a writer type resolves to:
 * the spec's first match by type (and name for named types); for Hudi's
 * nullable unions, the non-null branch. */
static const hudi_avro_node *reader_branch(const hudi_avro_node *w, const hudi_avro_node *r) {
  if (!r || r->type != HUDI_AVRO_UNION) return r;
  for (uint32_t i = 0; i < r->n_branches; i++) {
    const hudi_avro_node *b = r->branches[i];
    if (b->type == w->type && (!b->name || !w->name || strcmp(hudi_avro_short_name(b->name), hudi_avro_short_name(w->name)) == 0))
      return b;
  }
  return hudi_avro_nullable_branch(r, NULL);
}

static hudi_status json_fill(compiler *cc, fill *f, json_t *j, hudi_avro_col *c) {
  f->c = c;
  if (json_is_null(j)) {
    f->kind = F_NULL;
    return HUDI_OK;
  }
  switch (c->id) {
    case HUDI_ARROW_BOOL:
      if (!json_is_boolean(j)) break;
      f->kind = F_BOOL;
      f->i = json_is_true(j);
      return HUDI_OK;
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP: {
      if (!json_is_integer(j)) break;
      int bits = c->width * 8;
      json_int_t v = json_integer_value(j);
      if (bits < 64 && (v < -((json_int_t)1 << (bits - 1)) || v >= ((json_int_t)1 << (bits - 1)))) break;
      f->kind = F_INT;
      f->i = (int64_t)v;
      return HUDI_OK;
    }
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DOUBLE:
      if (!json_is_number(j)) break;
      f->kind = F_F64;
      f->d = json_number_value(j);
      return HUDI_OK;
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
      if (!json_is_string(j)) break;
      f->kind = F_BYTES;
      f->bytes = (const uint8_t *)json_string_value(j);
      f->len = json_string_length(j);
      return HUDI_OK;
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY: {
      /* Avro's JSON encoding of bytes: code points 0-255, one per byte. */
      if (!json_is_string(j)) break;
      const unsigned char *s = (const unsigned char *)json_string_value(j);
      size_t n = json_string_length(j), k = 0;
      uint8_t *p;
      HUDI_TRY(hudi_avro_arena_alloc(&cc->d->arena, n + 1, (void **)&p, cc->err));
      for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x80) p[k++] = s[i];
        else if ((s[i] == 0xC2 || s[i] == 0xC3) && i + 1 < n) {
          p[k++] = (uint8_t)(((s[i] & 0x03) << 6) | (s[i + 1] & 0x3F));
          i++;
        } else {
          return hudi_err_set(cc->err, HUDI_ERR_INVALID_ARG, "column '%s': bytes default has a code point past 255",
                              cn(c));
        }
      }
      f->kind = F_BYTES;
      f->bytes = p;
      f->len = k;
      return HUDI_OK;
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
      if (!json_is_array(j) || json_array_size(j) != 0) break;
      f->kind = F_EMPTY;
      return HUDI_OK;
    case HUDI_ARROW_MAP:
      if (!json_is_object(j) || json_object_size(j) != 0) break;
      f->kind = F_EMPTY;
      return HUDI_OK;
    default: break;
  }
  return hudi_err_set(cc->err, HUDI_ERR_UNSUPPORTED,
                      "column '%s': its default value cannot be used for Arrow %s (only null, scalars, [] and {})",
                      cn(c), hudi_arrow_type_name(c->id));
}

static const hudi_avro_field *writer_field_for(const hudi_avro_node *w, const hudi_avro_field *rf,
                                               const char *name) {
  if (!rf) return hudi_avro_record_field(w, name);
  const hudi_avro_field *wf = hudi_avro_record_field(w, rf->name);
  for (uint32_t a = 0; !wf && a < rf->n_aliases; a++) wf = hudi_avro_record_field(w, rf->aliases[a]);
  return wf;
}

static hudi_status compile_record(compiler *cc, op *o, const hudi_avro_node *w, const hudi_avro_node *r,
                                  hudi_avro_col *c, int depth) {
  if (c->id != HUDI_ARROW_STRUCT) return cannot(cc, w, c);
  if (r && r->type != HUDI_AVRO_RECORD) r = NULL;
  o->kind = K_RECORD;
  o->n_sub = w->n_fields;
  HUDI_TRY(alloc_ops(cc, &o->sub, w->n_fields));
  /* Which column each writer field fills (NULL: skipped), and which reader field. */
  hudi_avro_col **dest = NULL;
  const hudi_avro_field **rdest = NULL;
  if (w->n_fields) {
    HUDI_TRY(hudi_avro_arena_array(&cc->d->arena, w->n_fields, sizeof *dest, (void **)&dest, cc->err));
    HUDI_TRY(hudi_avro_arena_array(&cc->d->arena, w->n_fields, sizeof *rdest, (void **)&rdest, cc->err));
  }
  uint32_t n_missing = 0;
  for (int64_t k = 0; k < c->n_children; k++) {
    hudi_avro_col *cc_k = &c->children[k];
    const hudi_avro_field *rf = r ? hudi_avro_record_field(r, cn(cc_k)) : NULL;
    const hudi_avro_field *wf = writer_field_for(w, rf, cn(cc_k));
    if (!wf) {
      n_missing++;
      continue;
    }
    if (dest[wf->index])
      return hudi_err_set(cc->err, HUDI_ERR_INVALID_ARG, "columns '%s' and '%s' both read Avro field '%s'",
                          cn(dest[wf->index]), cn(cc_k), wf->name);
    dest[wf->index] = cc_k;
    rdest[wf->index] = rf;
  }
  for (uint32_t i = 0; i < w->n_fields; i++) {
    const hudi_avro_field *wf = &w->fields[i];
    hudi_status st = compile(cc, &o->sub[i], wf->type, rdest[i] ? rdest[i]->type : NULL, dest[i], depth + 1);
    if (st != HUDI_OK) return hudi_err_context(cc->err, st, "field '%s'", wf->name);
  }
  if (!n_missing) return HUDI_OK;
  HUDI_TRY(hudi_avro_arena_array(&cc->d->arena, n_missing, sizeof(fill), (void **)&o->fills, cc->err));
  for (int64_t k = 0; k < c->n_children; k++) {
    hudi_avro_col *cc_k = &c->children[k];
    const hudi_avro_field *rf = r ? hudi_avro_record_field(r, cn(cc_k)) : NULL;
    if (writer_field_for(w, rf, cn(cc_k))) continue;
    fill *f = &o->fills[o->n_fills++];
    if (rf && rf->default_json) {
      HUDI_TRY(json_fill(cc, f, rf->default_json, cc_k));
    } else {
      f->c = cc_k;
      f->kind = F_NULL;
    }
    if (f->kind == F_NULL && !(cc_k->field->flags & ARROW_FLAG_NULLABLE))
      return hudi_err_set(cc->err, HUDI_ERR_INVALID_ARG,
                          "column '%s' is not in the writer schema%s and is not nullable", cn(cc_k),
                          rf ? " (the reader's field has no default)" : "");
  }
  return HUDI_OK;
}

static hudi_status compile_union(compiler *cc, op *o, const hudi_avro_node *w, const hudi_avro_node *r,
                                 hudi_avro_col *c, int depth) {
  o->kind = K_UNION;
  o->n_sub = w->n_branches;
  HUDI_TRY(alloc_ops(cc, &o->sub, w->n_branches));
  uint32_t usable = 0;
  hudi_status first_err = HUDI_OK;
  char first_msg[HUDI_ERROR_MESSAGE_MAX] = "";
  for (uint32_t i = 0; i < w->n_branches; i++) {
    const hudi_avro_node *b = w->branches[i];
    hudi_status st = compile(cc, &o->sub[i], b, reader_branch(b, r), c, depth + 1);
    if (st == HUDI_OK) {
      if (b->type != HUDI_AVRO_NULL || w->n_branches == 1) usable++;
      continue;
    }
    if (st != HUDI_ERR_INVALID_ARG && st != HUDI_ERR_UNSUPPORTED) return st;
    if (first_err == HUDI_OK && cc->err) snprintf(first_msg, sizeof first_msg, "%s", cc->err->message);
    if (first_err == HUDI_OK) first_err = st;
    memset(&o->sub[i], 0, sizeof o->sub[i]);
    o->sub[i].kind = K_BAD;
    o->sub[i].c = c;
    o->sub[i].w = b;
  }
  /* A union whose only readable branch is null reads nothing: refuse it. */
  if (usable == 0) return hudi_err_set(cc->err, first_err ? first_err : HUDI_ERR_INVALID_ARG, "%s", first_msg);
  if (cc->err) hudi_error_clear(cc->err);
  return HUDI_OK;
}

static hudi_status compile(compiler *cc, op *o, const hudi_avro_node *w, const hudi_avro_node *r,
                           hudi_avro_col *c, int depth) {
  memset(o, 0, sizeof *o);
  o->w = w;
  o->c = c;
  if (!c) {
    o->kind = K_SKIP;
    return HUDI_OK;
  }
  if (depth > HUDI_AVRO_DECODE_MAX_DEPTH)
    return hudi_err_set(cc->err, HUDI_ERR_LIMIT, "column '%s': schema nested too deeply", cn(c));
  if (w->type == HUDI_AVRO_UNION) return compile_union(cc, o, w, r, c, depth);
  r = reader_branch(w, r);
  switch (w->type) {
    case HUDI_AVRO_NULL:
      o->kind = K_NULL;
      return HUDI_OK;
    case HUDI_AVRO_BOOLEAN:
      if (c->id != HUDI_ARROW_BOOL) return cannot(cc, w, c);
      o->kind = K_BOOL;
      return HUDI_OK;
    case HUDI_AVRO_INT:
    case HUDI_AVRO_LONG: return compile_int(cc, o, w, c);
    case HUDI_AVRO_FLOAT:
      if (c->id == HUDI_ARROW_FLOAT) o->kind = K_F32;
      else if (c->id == HUDI_ARROW_DOUBLE) o->kind = K_F32_F64;
      else return cannot(cc, w, c);
      return HUDI_OK;
    case HUDI_AVRO_DOUBLE:
      if (c->id != HUDI_ARROW_DOUBLE) return cannot(cc, w, c);
      o->kind = K_F64;
      return HUDI_OK;
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_STRING:
    case HUDI_AVRO_FIXED:
      if (w->logical == HUDI_AVRO_LOGICAL_DECIMAL && c->id == HUDI_ARROW_DECIMAL) {
        if (w->scale != c->field->type.scale || w->precision > c->field->type.precision)
          return hudi_err_set(cc->err, HUDI_ERR_INVALID_ARG,
                              "column '%s': decimal(%d,%d) cannot be read as decimal(%d,%d)", cn(c),
                              (int)w->precision, (int)w->scale, (int)c->field->type.precision,
                              (int)c->field->type.scale);
        o->kind = K_DEC;
        o->from_fixed = w->type == HUDI_AVRO_FIXED;
        o->size = (int32_t)w->size;
        return HUDI_OK;
      }
      if (w->type == HUDI_AVRO_FIXED) {
        o->size = (int32_t)w->size;
        if (c->id == HUDI_ARROW_FIXED_SIZE_BINARY && c->width == o->size) o->kind = K_FIXED;
        else if (is_var(c->id)) o->kind = K_FIXED_VAR;
        else return cannot(cc, w, c);
        return HUDI_OK;
      }
      if (!is_var(c->id)) return cannot(cc, w, c);
      o->kind = K_BYTES;
      return HUDI_OK;
    case HUDI_AVRO_ENUM:
      if (c->id != HUDI_ARROW_STRING && c->id != HUDI_ARROW_LARGE_STRING) return cannot(cc, w, c);
      o->kind = K_ENUM;
      return HUDI_OK;
    case HUDI_AVRO_RECORD: return compile_record(cc, o, w, r, c, depth);
    case HUDI_AVRO_ARRAY:
      if (c->id != HUDI_ARROW_LIST && c->id != HUDI_ARROW_LARGE_LIST && c->id != HUDI_ARROW_FIXED_SIZE_LIST)
        return cannot(cc, w, c);
      o->kind = K_ARRAY;
      o->n_sub = 1;
      HUDI_TRY(alloc_ops(cc, &o->sub, 1));
      return compile(cc, &o->sub[0], w->items, r && r->type == HUDI_AVRO_ARRAY ? r->items : NULL,
                     &c->children[0], depth + 1);
    case HUDI_AVRO_MAP: {
      if (c->id != HUDI_ARROW_MAP) return cannot(cc, w, c);
      hudi_avro_col *e = &c->children[0];
      if (e->n_children != 2 || !is_var(e->children[0].id))
        return hudi_err_set(cc->err, HUDI_ERR_UNSUPPORTED, "column '%s': map keys must be strings", cn(c));
      o->kind = K_MAP;
      o->n_sub = 1;
      HUDI_TRY(alloc_ops(cc, &o->sub, 1));
      return compile(cc, &o->sub[0], w->items, r && r->type == HUDI_AVRO_MAP ? r->items : NULL,
                     &e->children[1], depth + 1);
    }
    case HUDI_AVRO_UNION: break;
  }
  return hudi_err_set(cc->err, HUDI_ERR_INTERNAL, "unknown Avro type");
}

/* ---- run ---- */

typedef struct rd {
  const uint8_t *p, *end, *start;
  uint64_t base;
  int64_t record;
  int depth;
  int64_t empty_left; /* items that take no bytes this datum may still hold */
  hudi_error *err;
} rd;

static hudi_status fail_at(rd *x, const uint8_t *at, hudi_status code, const char *fmt, ...) HUDI_PRINTF(4, 5);
static hudi_status fail_at(rd *x, const uint8_t *at, hudi_status code, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return hudi_err_set(x->err, code, "Avro record %lld at byte %llu: %s", (long long)x->record,
                      (unsigned long long)(x->base + (uint64_t)(at - x->start)), what);
}

static hudi_status truncated(rd *x, const char *what) {
  return fail_at(x, x->p, HUDI_ERR_CORRUPT, "%s runs past the end of the record", what);
}

static inline hudi_status rd_long(rd *x, int64_t *v) {
  const uint8_t *p = x->p;
  uint64_t r = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p >= x->end) return truncated(x, "a varint");
    uint8_t b = *p++;
    r |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) {
      if (shift == 63 && b > 1) break;
      x->p = p;
      *v = (int64_t)(r >> 1) ^ -(int64_t)(r & 1);
      return HUDI_OK;
    }
  }
  return fail_at(x, x->p, HUDI_ERR_CORRUPT, "varint longer than 10 bytes");
}

static inline hudi_status rd_int(rd *x, int64_t *v, bool int32) {
  HUDI_TRY(rd_long(x, v));
  if (int32 && (*v < INT32_MIN || *v > INT32_MAX))
    return fail_at(x, x->p, HUDI_ERR_CORRUPT, "int value %lld does not fit 32 bits", (long long)*v);
  return HUDI_OK;
}

/* A length-prefixed string/bytes value, checked against what is left. */
static inline hudi_status rd_bytes(rd *x, const uint8_t **p, size_t *n) {
  const uint8_t *at = x->p;
  int64_t len = 0;
  HUDI_TRY(rd_long(x, &len));
  if (len < 0 || (uint64_t)len > (uint64_t)(x->end - x->p) || (uint64_t)len > HUDI_AVRO_MAX_BYTES)
    return fail_at(x, at, HUDI_ERR_CORRUPT, "length %lld with %lld bytes left", (long long)len,
                   (long long)(x->end - x->p));
  *p = x->p;
  *n = (size_t)len;
  x->p += len;
  return HUDI_OK;
}

static inline hudi_status rd_raw(rd *x, size_t n, const uint8_t **p, const char *what) {
  if ((size_t)(x->end - x->p) < n) return truncated(x, what);
  *p = x->p;
  x->p += n;
  return HUDI_OK;
}

/* The item count of the next array/map block (0 ends the value). Checked
 * against the bytes left, given what one item takes at least. */
static hudi_status rd_block(rd *x, size_t item_min, int64_t *count) {
  const uint8_t *at = x->p;
  HUDI_TRY(rd_long(x, count));
  if (*count < 0) {
    if (*count == INT64_MIN) return fail_at(x, at, HUDI_ERR_CORRUPT, "bad block count");
    *count = -*count;
    int64_t size = 0;
    HUDI_TRY(rd_long(x, &size));
    if (size < 0 || size > x->end - x->p)
      return fail_at(x, at, HUDI_ERR_CORRUPT, "block byte size %lld with %lld bytes left", (long long)size,
                     (long long)(x->end - x->p));
  }
  uint64_t left = (uint64_t)(x->end - x->p);
  if (item_min ? (uint64_t)*count > left / item_min : *count > x->empty_left)
    return fail_at(x, at, item_min ? HUDI_ERR_CORRUPT : HUDI_ERR_LIMIT,
                   "block of %lld items with %llu bytes left", (long long)*count, (unsigned long long)left);
  /* Items of no bytes are bounded per datum, not per block: a few bytes of
   * block headers must not stand for billions of nulls. */
  if (!item_min) x->empty_left -= *count;
  return HUDI_OK;
}

static hudi_status enter(rd *x) {
  if (++x->depth > HUDI_AVRO_DECODE_MAX_DEPTH)
    return fail_at(x, x->p, HUDI_ERR_LIMIT, "nested deeper than %d", HUDI_AVRO_DECODE_MAX_DEPTH);
  return HUDI_OK;
}

static hudi_status skip(rd *x, const hudi_avro_node *w) {
  int64_t v = 0;
  const uint8_t *p = NULL;
  size_t n = 0;
  switch (w->type) {
    case HUDI_AVRO_NULL: return HUDI_OK;
    case HUDI_AVRO_BOOLEAN: return rd_raw(x, 1, &p, "a boolean");
    case HUDI_AVRO_INT:
    case HUDI_AVRO_LONG:
    case HUDI_AVRO_ENUM: return rd_long(x, &v);
    case HUDI_AVRO_FLOAT: return rd_raw(x, 4, &p, "a float");
    case HUDI_AVRO_DOUBLE: return rd_raw(x, 8, &p, "a double");
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_STRING: return rd_bytes(x, &p, &n);
    case HUDI_AVRO_FIXED: return rd_raw(x, w->size, &p, "a fixed");
    default: break;
  }
  HUDI_TRY(enter(x));
  switch (w->type) {
    case HUDI_AVRO_RECORD:
      for (uint32_t i = 0; i < w->n_fields; i++) HUDI_TRY(skip(x, w->fields[i].type));
      break;
    case HUDI_AVRO_UNION: {
      const uint8_t *at = x->p;
      HUDI_TRY(rd_long(x, &v));
      if (v < 0 || v >= (int64_t)w->n_branches)
        return fail_at(x, at, HUDI_ERR_CORRUPT, "union branch %lld of %u", (long long)v, (unsigned)w->n_branches);
      HUDI_TRY(skip(x, w->branches[v]));
      break;
    }
    case HUDI_AVRO_ARRAY:
    case HUDI_AVRO_MAP: {
      bool map = w->type == HUDI_AVRO_MAP;
      for (;;) {
        const uint8_t *at = x->p;
        int64_t count = 0;
        HUDI_TRY(rd_long(x, &count));
        if (count == 0) break;
        if (count < 0) {
          /* The writer told us the block's size: jump over it. */
          int64_t size = 0;
          HUDI_TRY(rd_long(x, &size));
          if (size < 0 || size > x->end - x->p)
            return fail_at(x, at, HUDI_ERR_CORRUPT, "block byte size %lld with %lld bytes left",
                           (long long)size, (long long)(x->end - x->p));
          x->p += size;
          continue;
        }
        x->p = at;
        HUDI_TRY(rd_block(x, w->items->min_size + (map ? 1u : 0u), &count));
        for (int64_t i = 0; i < count; i++) {
          if (map) HUDI_TRY(rd_bytes(x, &p, &n));
          HUDI_TRY(skip(x, w->items));
        }
      }
      break;
    }
    default: break;
  }
  x->depth--;
  return HUDI_OK;
}

static hudi_status put_int(rd *x, const op *o, int64_t v) {
  if (o->mul != 1) {
    if (__builtin_mul_overflow(v, o->mul, &v))
      return fail_at(x, x->p, HUDI_ERR_CORRUPT, "column '%s': value overflows its unit", cn(o->c));
  } else if (o->div != 1) {
    int64_t q = v / o->div;
    if (v % o->div < 0) q--; /* floor: -1 ms is -1 s, not 0 */
    v = q;
  }
  if (v < o->min || v > o->max)
    return fail_at(x, x->p, HUDI_ERR_CORRUPT, "column '%s': %lld out of range for %s", cn(o->c), (long long)v,
                   hudi_arrow_type_name(o->c->id));
  hudi_avro_col *c = o->c;
  HUDI_TRY(hudi_avro_need(&c->values, 8, x->err));
  uint8_t *dst = c->values.data + c->values.len;
  switch (c->width) { /* little-endian: the low bytes are the narrow value */
    case 1: *dst = (uint8_t)v; break;
    case 2: { int16_t t = (int16_t)v; memcpy(dst, &t, 2); break; }
    case 4: { int32_t t = (int32_t)v; memcpy(dst, &t, 4); break; }
    default: memcpy(dst, &v, 8);
  }
  c->values.len += (size_t)c->width;
  return hudi_avro_col_push_valid(c, x->err);
}

/* Big-endian two's complement of any length -> 16 bytes little-endian. */
static hudi_status put_decimal(rd *x, const op *o, const uint8_t *p, size_t n) {
  uint8_t out[16];
  bool neg = n > 0 && (p[0] & 0x80);
  memset(out, neg ? 0xFF : 0, sizeof out);
  if (n > 16) {
    for (size_t i = 0; i < n - 16; i++)
      if (p[i] != (neg ? 0xFF : 0) || ((p[n - 16] & 0x80) != 0) != neg)
        return fail_at(x, x->p, HUDI_ERR_CORRUPT, "column '%s': decimal of %zu bytes does not fit 128 bits",
                       cn(o->c), n);
    p += n - 16;
    n = 16;
  }
  for (size_t i = 0; i < n; i++) out[i] = p[n - 1 - i];
  return hudi_avro_col_put_fixed(o->c, out, x->err);
}

static hudi_status run(rd *x, const op *o);

static hudi_status end_list(rd *x, const op *o, int64_t count) {
  hudi_avro_col *c = o->c;
  if (c->id == HUDI_ARROW_FIXED_SIZE_LIST) {
    if (count != c->field->type.fixed_size)
      return fail_at(x, x->p, HUDI_ERR_CORRUPT, "column '%s': %lld items for a fixed_size_list of %d", cn(c),
                     (long long)count, (int)c->field->type.fixed_size);
    return hudi_avro_col_push_valid(c, x->err);
  }
  return hudi_avro_col_put_offset(c, c->children[0].length, x->err);
}

static hudi_status run_array(rd *x, const op *o) {
  const op *item = &o->sub[0];
  hudi_avro_col *ic = &o->c->children[0];
  int64_t total = 0;
  HUDI_TRY(enter(x));
  for (;;) {
    int64_t count = 0;
    HUDI_TRY(rd_block(x, item->w->min_size, &count));
    if (count == 0) break;
    total += count;
    if (item->kind == K_F32 || item->kind == K_F64) {
      /* Avro floats are little-endian IEEE like Arrow's: one copy per block. */
      size_t n = (size_t)count * (size_t)ic->width;
      const uint8_t *p = NULL;
      HUDI_TRY(rd_raw(x, n, &p, "an array of floats"));
      HUDI_TRY(hudi_avro_need(&ic->values, n, x->err));
      memcpy(ic->values.data + ic->values.len, p, n);
      ic->values.len += n;
      HUDI_TRY(hudi_avro_col_valid_bits(ic, count, x->err));
      continue;
    }
    for (int64_t i = 0; i < count; i++) HUDI_TRY(run(x, item));
  }
  x->depth--;
  return end_list(x, o, total);
}

static hudi_status run_map(rd *x, const op *o) {
  hudi_avro_col *e = &o->c->children[0];
  hudi_avro_col *kc = &e->children[0];
  HUDI_TRY(enter(x));
  for (;;) {
    int64_t count = 0;
    HUDI_TRY(rd_block(x, o->sub[0].w->min_size + 1u, &count));
    if (count == 0) break;
    for (int64_t i = 0; i < count; i++) {
      const uint8_t *p = NULL;
      size_t n = 0;
      HUDI_TRY(rd_bytes(x, &p, &n));
      HUDI_TRY(hudi_avro_col_put_bytes(kc, p, n, x->err));
      HUDI_TRY(run(x, &o->sub[0]));
      HUDI_TRY(hudi_avro_col_push_valid(e, x->err));
    }
  }
  x->depth--;
  return hudi_avro_col_put_offset(o->c, e->length, x->err);
}

static hudi_status run_fill(rd *x, const fill *f) {
  hudi_avro_col *c = f->c;
  switch (f->kind) {
    case F_NULL: return hudi_avro_col_append_null(c, x->err);
    case F_BOOL: return hudi_avro_col_put_bool(c, f->i != 0, x->err);
    case F_INT: {
      op o = {.c = c, .mul = 1, .div = 1, .min = INT64_MIN, .max = INT64_MAX};
      return put_int(x, &o, f->i);
    }
    case F_F64:
      if (c->id == HUDI_ARROW_FLOAT) {
        float v = (float)f->d;
        return hudi_avro_col_put_fixed(c, &v, x->err);
      }
      return hudi_avro_col_put_fixed(c, &f->d, x->err);
    case F_BYTES: return hudi_avro_col_put_bytes(c, f->bytes, f->len, x->err);
    case F_EMPTY:
      return hudi_avro_col_put_offset(c, c->children[0].length, x->err);
  }
  return HUDI_OK;
}

static hudi_status run(rd *x, const op *o) {
  hudi_avro_col *c = o->c;
  const uint8_t *p = NULL;
  size_t n = 0;
  int64_t v = 0;
  switch (o->kind) {
    case K_SKIP: return skip(x, o->w);
    case K_NULL:
      if (!(c->field->flags & ARROW_FLAG_NULLABLE))
        return fail_at(x, x->p, HUDI_ERR_CORRUPT, "null in non-nullable column '%s'", cn(c));
      return hudi_avro_col_append_null(c, x->err);
    case K_BOOL:
      HUDI_TRY(rd_raw(x, 1, &p, "a boolean"));
      if (*p > 1) return fail_at(x, p, HUDI_ERR_CORRUPT, "boolean byte %u", (unsigned)*p);
      return hudi_avro_col_put_bool(c, *p == 1, x->err);
    case K_INT:
      HUDI_TRY(rd_int(x, &v, o->is_int32));
      return put_int(x, o, v);
    case K_INT_F32: {
      HUDI_TRY(rd_int(x, &v, o->is_int32));
      float f = (float)v;
      return hudi_avro_col_put_fixed(c, &f, x->err);
    }
    case K_INT_F64: {
      HUDI_TRY(rd_int(x, &v, o->is_int32));
      double d = (double)v;
      return hudi_avro_col_put_fixed(c, &d, x->err);
    }
    case K_F32:
      HUDI_TRY(rd_raw(x, 4, &p, "a float"));
      return hudi_avro_col_put_fixed(c, p, x->err);
    case K_F32_F64: {
      float f;
      HUDI_TRY(rd_raw(x, 4, &p, "a float"));
      memcpy(&f, p, 4);
      double d = f;
      return hudi_avro_col_put_fixed(c, &d, x->err);
    }
    case K_F64:
      HUDI_TRY(rd_raw(x, 8, &p, "a double"));
      return hudi_avro_col_put_fixed(c, p, x->err);
    case K_BYTES:
      HUDI_TRY(rd_bytes(x, &p, &n));
      return hudi_avro_col_put_bytes(c, p, n, x->err);
    case K_FIXED:
      HUDI_TRY(rd_raw(x, (size_t)o->size, &p, "a fixed"));
      return hudi_avro_col_put_fixed(c, p, x->err);
    case K_FIXED_VAR:
      HUDI_TRY(rd_raw(x, (size_t)o->size, &p, "a fixed"));
      return hudi_avro_col_put_bytes(c, p, (size_t)o->size, x->err);
    case K_DEC:
      if (o->from_fixed) HUDI_TRY(rd_raw(x, (size_t)o->size, &p, "a decimal"));
      else HUDI_TRY(rd_bytes(x, &p, &n));
      return put_decimal(x, o, p, o->from_fixed ? (size_t)o->size : n);
    case K_ENUM: {
      const uint8_t *at = x->p;
      HUDI_TRY(rd_long(x, &v));
      if (v < 0 || v >= (int64_t)o->w->n_symbols)
        return fail_at(x, at, HUDI_ERR_CORRUPT, "enum index %lld of %u symbols", (long long)v,
                       (unsigned)o->w->n_symbols);
      const char *s = o->w->symbols[v];
      return hudi_avro_col_put_bytes(c, (const uint8_t *)s, strlen(s), x->err);
    }
    case K_RECORD:
      HUDI_TRY(enter(x));
      for (uint32_t i = 0; i < o->n_sub; i++) HUDI_TRY(run(x, &o->sub[i]));
      for (uint32_t i = 0; i < o->n_fills; i++) HUDI_TRY(run_fill(x, &o->fills[i]));
      x->depth--;
      return hudi_avro_col_push_valid(c, x->err);
    case K_ARRAY: return run_array(x, o);
    case K_MAP: return run_map(x, o);
    case K_UNION: {
      const uint8_t *at = x->p;
      HUDI_TRY(rd_long(x, &v));
      if (v < 0 || v >= (int64_t)o->n_sub)
        return fail_at(x, at, HUDI_ERR_CORRUPT, "union branch %lld of %u", (long long)v, (unsigned)o->n_sub);
      return run(x, &o->sub[v]);
    }
    case K_BAD:
      return fail_at(x, x->p, HUDI_ERR_INVALID_ARG, "column '%s': a union value of Avro type %s cannot be read as %s",
                     cn(c), hudi_avro_type_name(o->w->type), hudi_arrow_type_name(c->id));
  }
  return HUDI_OK;
}

/* ---- API ---- */

hudi_status hudi_avro_decoder_create(hudi_avro_decoder **out, const hudi_avro_node *writer,
                                     const hudi_avro_node *reader, const hudi_arrow_field *target,
                                     hudi_error *err) {
  *out = NULL;
  if (writer->type != HUDI_AVRO_RECORD || (reader && reader->type != HUDI_AVRO_RECORD))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro decoding needs record schemas");
  if (target && target->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the target Arrow schema must be a struct");
  hudi_avro_decoder *d = hudi_calloc(1, sizeof *d);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating an Avro decoder");
  hudi_avro_arena_init(&d->arena, HUDI_AVRO_ARENA_DEFAULT_MAX);
  hudi_status st = target ? hudi_arrow_field_copy(&d->target, target, true, err)
                          : hudi_avro_schema_to_arrow(&d->target, reader ? reader : writer, err);
  if (st == HUDI_OK) {
    d->target.flags = 0; /* the batch itself has no nulls */
    st = hudi_avro_col_init(&d->root, &d->target, err);
  }
  if (st == HUDI_OK) {
    compiler cc = {d, err};
    st = compile(&cc, &d->program, writer, reader, &d->root, 0);
  }
  if (st != HUDI_OK) {
    hudi_avro_decoder_free(d);
    return st;
  }
  *out = d;
  return HUDI_OK;
}

void hudi_avro_decoder_free(hudi_avro_decoder *d) {
  if (!d) return;
  hudi_avro_col_clear(&d->root);
  hudi_arrow_field_clear(&d->target);
  hudi_avro_arena_free(&d->arena);
  hudi_free(d);
}

const hudi_arrow_field *hudi_avro_decoder_schema(const hudi_avro_decoder *d) { return &d->target; }
int64_t hudi_avro_decoder_n_rows(const hudi_avro_decoder *d) { return d->root.length; }

static hudi_status ready(hudi_avro_decoder *d, hudi_error *err) {
  if (d->failed)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the Avro decoder failed earlier: reset it first");
  if (d->need_seed) {
    HUDI_TRY(hudi_avro_col_reseed(&d->root, err));
    d->need_seed = false;
  }
  return HUDI_OK;
}

/* Decodes one datum from x->p, leaving x->p after it. */
static hudi_status one(hudi_avro_decoder *d, rd *x) {
  hudi_status st = run(x, &d->program);
  if (st != HUDI_OK) d->failed = true;
  return st;
}

hudi_status hudi_avro_decoder_decode(hudi_avro_decoder *d, const uint8_t *data, size_t len,
                                     uint64_t offset, int64_t record, hudi_error *err) {
  HUDI_TRY(ready(d, err));
  rd x = {data, data + len, data, offset, record, 0, HUDI_AVRO_DECODE_MAX_EMPTY_ITEMS, err};
  HUDI_TRY(one(d, &x));
  if (x.p != x.end) {
    d->failed = true;
    return fail_at(&x, x.p, HUDI_ERR_CORRUPT, "the datum ends %lld bytes before the record does",
                   (long long)(x.end - x.p));
  }
  return HUDI_OK;
}

hudi_status hudi_avro_decoder_decode_concat(hudi_avro_decoder *d, const uint8_t *data, size_t len,
                                            int64_t n, uint64_t offset, hudi_error *err) {
  HUDI_TRY(ready(d, err));
  size_t min = d->program.w->min_size;
  if (n < 0 || (min ? (uint64_t)n > len / min : n > HUDI_AVRO_DECODE_MAX_EMPTY_ITEMS))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%lld Avro records cannot fit %zu bytes at byte %llu", (long long)n,
                        len, (unsigned long long)offset);
  rd x = {data, data + len, data, offset, 0, 0, 0, err};
  for (int64_t i = 0; i < n; i++) {
    x.record = i;
    x.empty_left = HUDI_AVRO_DECODE_MAX_EMPTY_ITEMS;
    HUDI_TRY(one(d, &x));
  }
  if (x.p != x.end) {
    d->failed = true;
    return fail_at(&x, x.p, HUDI_ERR_CORRUPT, "%lld bytes after the last of %lld records",
                   (long long)(x.end - x.p), (long long)n);
  }
  return HUDI_OK;
}

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

hudi_status hudi_avro_decoder_decode_data_block(hudi_avro_decoder *d, const uint8_t *content, size_t len,
                                                uint64_t offset, int64_t *n_records, hudi_error *err) {
  if (n_records) *n_records = 0;
  HUDI_TRY(ready(d, err));
  if (len < 8)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro data block at byte %llu: %zu bytes, no header",
                        (unsigned long long)offset, len);
  uint32_t version = be32(content);
  if (version != 3)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "Avro data block at byte %llu: content version %u (only 3)",
                        (unsigned long long)offset, version);
  int32_t count = (int32_t)be32(content + 4);
  /* Every record takes its 4-byte length at least. */
  if (count < 0 || (size_t)count > (len - 8) / 4)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro data block at byte %llu: %d records in %zu bytes",
                        (unsigned long long)offset, (int)count, len);
  size_t pos = 8;
  for (int32_t i = 0; i < count; i++) {
    if (len - pos < 4)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro data block at byte %llu: record %d has no length",
                          (unsigned long long)(offset + pos), (int)i);
    int32_t rl = (int32_t)be32(content + pos);
    pos += 4;
    if (rl < 0 || (size_t)rl > len - pos)
      return hudi_err_set(err, HUDI_ERR_CORRUPT,
                          "Avro data block: record %d at byte %llu has length %d with %zu bytes left", (int)i,
                          (unsigned long long)(offset + pos - 4), (int)rl, len - pos);
    HUDI_TRY(hudi_avro_decoder_decode(d, content + pos, (size_t)rl, offset + pos, i, err));
    pos += (size_t)rl;
  }
  if (pos != len)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro data block at byte %llu: %zu bytes after %d records",
                        (unsigned long long)(offset + pos), len - pos, (int)count);
  if (n_records) *n_records = count;
  return HUDI_OK;
}

hudi_status hudi_avro_decoder_finish(hudi_avro_decoder *d, struct ArrowArray *out, hudi_error *err) {
  HUDI_TRY(ready(d, err));
  HUDI_TRY(hudi_avro_col_finish(&d->root, out, err));
  d->need_seed = true;
  return HUDI_OK;
}

hudi_status hudi_avro_decoder_export_schema(const hudi_avro_decoder *d, struct ArrowSchema *out,
                                            hudi_error *err) {
  return hudi_arrow_field_export(out, &d->target, err);
}

void hudi_avro_decoder_reset(hudi_avro_decoder *d) {
  hudi_avro_col_reset(&d->root);
  d->failed = false;
  d->need_seed = true;
}
