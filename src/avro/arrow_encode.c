#include "avro/arrow_encode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "avro/arena.h"
#include "avro/arrow_columns.h"
#include "base/alloc.h"

typedef enum ekind {
  E_NULL = 0, /* writes only the null branch (an Avro field without a column, or type null) */
  E_BOOL,
  E_INT,      /* signed integers and temporal types -> int/long (rescaled) */
  E_UINT,     /* unsigned integers -> int/long */
  E_F32,      /* float -> float */
  E_F32_F64,  /* float -> double */
  E_F64,      /* double -> double */
  E_BYTES,    /* string/binary flavours -> string/bytes */
  E_FIXED,    /* fixed_size_binary -> fixed */
  E_DEC_FIXED,
  E_DEC_BYTES,
  E_ENUM,     /* string -> enum symbol */
  E_RECORD,
  E_ARRAY,
  E_MAP,
  E_META      /* a _hoodie_* field from the row's hudi_avro_meta_values */
} ekind;

typedef struct eop {
  ekind kind;
  int32_t null_branch;  /* union index of null, -1 when the Avro type takes no null */
  int32_t value_branch; /* union index for values, -1 when the Avro type is no union */
  bool avro_int;        /* the Avro type is int: values must fit 32 bits */
  int32_t size;         /* fixed size */
  int64_t mul, div;     /* E_INT: value * mul / div */
  int64_t child;        /* record field: the struct child; E_META: the meta index; -1 none */
  const char *name;     /* column, for messages */
  const hudi_avro_node *avro; /* the (non-union) Avro type */
  hudi_arrow_type_id arrow_id; /* what the column holds (after dictionary decoding) */
  struct eop *sub;
  uint32_t n_sub;
} eop;

struct hudi_avro_encoder {
  hudi_avro_arena arena;
  eop root;
};

typedef struct ectx {
  hudi_avro_encoder *e;
  hudi_error *err;
} ectx;

/* ---- compile ---- */

static const char *fn(const hudi_arrow_field *f) { return f && f->name ? f->name : ""; }

static hudi_status mismatch(ectx *x, const hudi_arrow_field *f, const hudi_avro_node *a) {
  return hudi_err_set(x->err, HUDI_ERR_INVALID_ARG, "column '%s': Arrow %s cannot be written as Avro %s%s",
                      fn(f), hudi_arrow_type_name(f->type.id), hudi_avro_type_name(a->type),
                      a->logical == HUDI_AVRO_LOGICAL_NONE ? "" : " with a logical type");
}

static int64_t per_second(hudi_arrow_time_unit u) {
  return u == HUDI_ARROW_SECOND ? 1 : u == HUDI_ARROW_MILLI ? 1000 : u == HUDI_ARROW_MICRO ? 1000000 : 1000000000;
}

static void set_scale(eop *o, int64_t from, int64_t to) {
  if (to >= from) o->mul = to / from;
  else o->div = from / to;
}

/* Unit (per second) of an Avro long/int's logical type; 0 when none. */
static int64_t avro_unit(const hudi_avro_node *a) {
  switch (a->logical) {
    case HUDI_AVRO_LOGICAL_TIME_MILLIS:
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: return 1000;
    case HUDI_AVRO_LOGICAL_TIME_MICROS:
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: return 1000000;
    default: return 0;
  }
}

static hudi_status compile_value(ectx *x, eop *o, const hudi_arrow_field *f, const hudi_avro_node *a, int depth);

static hudi_status alloc_eops(ectx *x, eop **out, uint32_t n) {
  *out = NULL;
  if (!n) return HUDI_OK;
  return hudi_avro_arena_array(&x->e->arena, n, sizeof(eop), (void **)out, x->err);
}

static hudi_status compile_int(ectx *x, eop *o, const hudi_arrow_field *f, const hudi_avro_node *a) {
  hudi_arrow_type_id id = o->arrow_id;
  o->avro_int = a->type == HUDI_AVRO_INT;
  int64_t au = avro_unit(a);
  if (hudi_arrow_type_is_unsigned_int(id)) {
    if (au || a->logical != HUDI_AVRO_LOGICAL_NONE) return mismatch(x, f, a);
    o->kind = E_UINT;
    return HUDI_OK;
  }
  o->kind = E_INT;
  switch (id) {
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
      if (a->logical != HUDI_AVRO_LOGICAL_NONE && a->logical != HUDI_AVRO_LOGICAL_DATE && !au)
        return mismatch(x, f, a);
      return HUDI_OK;
    case HUDI_ARROW_DATE32:
      if (!o->avro_int) return mismatch(x, f, a);
      return HUDI_OK;
    case HUDI_ARROW_DATE64:
      if (!o->avro_int) return mismatch(x, f, a);
      o->div = 86400000; /* milliseconds -> days */
      return HUDI_OK;
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
    case HUDI_ARROW_DURATION:
      if (au) set_scale(o, per_second(f->type.unit), au);
      return HUDI_OK;
    default: return mismatch(x, f, a);
  }
}

static bool arrow_string_like(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_STRING || id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_STRING_VIEW;
}
static bool arrow_bytes_like(hudi_arrow_type_id id) {
  return arrow_string_like(id) || id == HUDI_ARROW_BINARY || id == HUDI_ARROW_LARGE_BINARY ||
         id == HUDI_ARROW_BINARY_VIEW || id == HUDI_ARROW_FIXED_SIZE_BINARY;
}

static hudi_status compile_record(ectx *x, eop *o, const hudi_arrow_field *f, const hudi_avro_node *a,
                                  int depth, bool top) {
  o->kind = E_RECORD;
  o->n_sub = a->n_fields;
  HUDI_TRY(alloc_eops(x, &o->sub, a->n_fields));
  for (uint32_t i = 0; i < a->n_fields; i++) {
    const hudi_avro_field *af = &a->fields[i];
    eop *s = &o->sub[i];
    s->child = -1;
    for (int64_t k = 0; k < f->n_children; k++)
      if (f->children[k].name && strcmp(f->children[k].name, af->name) == 0) {
        s->child = k;
        break;
      }
    if (s->child >= 0) {
      HUDI_TRY(compile_value(x, s, &f->children[s->child], af->type, depth + 1));
      continue;
    }
    /* No column: a meta field (top level), else null. */
    memset(s, 0, sizeof *s);
    s->name = af->name;
    s->child = -1;
    s->null_branch = -1;
    s->value_branch = -1;
    int null_index = -1;
    const hudi_avro_node *inner = hudi_avro_nullable_branch(af->type, &null_index);
    int meta = -1;
    for (int m = 0; top && m < HUDI_AVRO_N_META_FIELDS; m++)
      if (strcmp(af->name, hudi_avro_meta_field_names[m]) == 0) meta = m;
    if (af->type->type == HUDI_AVRO_NULL) {
      s->kind = E_NULL;
    } else if (inner) {
      s->null_branch = null_index;
      s->kind = E_NULL;
      if (meta >= 0 && inner->type == HUDI_AVRO_STRING) {
        s->kind = E_META;
        s->child = meta;
        s->value_branch = 1 - null_index;
      }
    } else if (meta >= 0 && af->type->type == HUDI_AVRO_STRING) {
      s->kind = E_META;
      s->child = meta;
    } else {
      return hudi_err_set(x->err, HUDI_ERR_INVALID_ARG,
                          "Avro field '%s' has no Arrow column and is not nullable", af->name);
    }
  }
  return HUDI_OK;
}

/* a is not a union. */
static hudi_status compile_plain(ectx *x, eop *o, const hudi_arrow_field *f, const hudi_avro_node *a,
                                 int depth) {
  hudi_arrow_type_id id = o->arrow_id;
  const hudi_arrow_field *vf = f->dictionary ? f->dictionary : f;
  o->avro = a;
  switch (a->type) {
    case HUDI_AVRO_NULL:
      if (id != HUDI_ARROW_NA) return mismatch(x, f, a);
      o->kind = E_NULL;
      return HUDI_OK;
    case HUDI_AVRO_BOOLEAN:
      if (id != HUDI_ARROW_BOOL) return mismatch(x, f, a);
      o->kind = E_BOOL;
      return HUDI_OK;
    case HUDI_AVRO_INT:
    case HUDI_AVRO_LONG: return compile_int(x, o, vf, a);
    case HUDI_AVRO_FLOAT:
      if (id != HUDI_ARROW_FLOAT) return mismatch(x, f, a);
      o->kind = E_F32;
      return HUDI_OK;
    case HUDI_AVRO_DOUBLE:
      if (id == HUDI_ARROW_FLOAT) o->kind = E_F32_F64;
      else if (id == HUDI_ARROW_DOUBLE) o->kind = E_F64;
      else return mismatch(x, f, a);
      return HUDI_OK;
    case HUDI_AVRO_STRING:
    case HUDI_AVRO_BYTES:
      if (a->logical == HUDI_AVRO_LOGICAL_DECIMAL && a->type == HUDI_AVRO_BYTES) {
        if (id != HUDI_ARROW_DECIMAL || vf->type.bit_width != 128 || vf->type.scale != a->scale)
          return mismatch(x, f, a);
        o->kind = E_DEC_BYTES;
        return HUDI_OK;
      }
      if (!arrow_bytes_like(id)) return mismatch(x, f, a);
      o->kind = E_BYTES;
      return HUDI_OK;
    case HUDI_AVRO_FIXED:
      o->size = (int32_t)a->size;
      if (a->logical == HUDI_AVRO_LOGICAL_DECIMAL && id == HUDI_ARROW_DECIMAL) {
        if (vf->type.bit_width != 128 || vf->type.scale != a->scale || a->size == 0 || a->size > 64)
          return mismatch(x, f, a);
        o->kind = E_DEC_FIXED;
        return HUDI_OK;
      }
      if (arrow_bytes_like(id)) {
        /* Variable-size values are checked per row. */
        if (id == HUDI_ARROW_FIXED_SIZE_BINARY && vf->type.fixed_size != (int32_t)a->size)
          return mismatch(x, f, a);
        o->kind = E_FIXED;
        return HUDI_OK;
      }
      return mismatch(x, f, a);
    case HUDI_AVRO_ENUM:
      if (!arrow_string_like(id)) return mismatch(x, f, a);
      o->kind = E_ENUM;
      return HUDI_OK;
    case HUDI_AVRO_RECORD:
      if (id != HUDI_ARROW_STRUCT) return mismatch(x, f, a);
      return compile_record(x, o, vf, a, depth, false);
    case HUDI_AVRO_ARRAY:
      if (id != HUDI_ARROW_LIST && id != HUDI_ARROW_LARGE_LIST && id != HUDI_ARROW_FIXED_SIZE_LIST)
        return mismatch(x, f, a);
      o->kind = E_ARRAY;
      o->n_sub = 1;
      HUDI_TRY(alloc_eops(x, &o->sub, 1));
      return compile_value(x, &o->sub[0], &vf->children[0], a->items, depth + 1);
    case HUDI_AVRO_MAP: {
      if (id != HUDI_ARROW_MAP) return mismatch(x, f, a);
      const hudi_arrow_field *entries = &vf->children[0];
      const hudi_arrow_field *key = &entries->children[0];
      hudi_arrow_type_id kid = key->dictionary ? key->dictionary->type.id : key->type.id;
      if (entries->n_children != 2 || !arrow_string_like(kid))
        return hudi_err_set(x->err, HUDI_ERR_INVALID_ARG, "column '%s': Avro maps need string keys", fn(f));
      o->kind = E_MAP;
      o->n_sub = 1;
      HUDI_TRY(alloc_eops(x, &o->sub, 1));
      return compile_value(x, &o->sub[0], &entries->children[1], a->items, depth + 1);
    }
    case HUDI_AVRO_UNION: break;
  }
  return mismatch(x, f, a);
}

static hudi_status compile_value(ectx *x, eop *o, const hudi_arrow_field *f, const hudi_avro_node *a,
                                 int depth) {
  int64_t child = o->child;
  memset(o, 0, sizeof *o);
  o->child = child;
  o->name = fn(f);
  o->null_branch = o->value_branch = -1;
  o->mul = o->div = 1;
  o->arrow_id = f->dictionary ? f->dictionary->type.id : f->type.id;
  if (depth > HUDI_ARROW_MAX_DEPTH)
    return hudi_err_set(x->err, HUDI_ERR_LIMIT, "column '%s': nested too deeply", fn(f));
  if (a->type != HUDI_AVRO_UNION) return compile_plain(x, o, f, a, depth);
  /* The null branch takes nulls; the first branch that takes the column's
   * type takes values. */
  for (uint32_t i = 0; i < a->n_branches; i++)
    if (a->branches[i]->type == HUDI_AVRO_NULL) {
      o->null_branch = (int32_t)i;
      break;
    }
  if (o->arrow_id == HUDI_ARROW_NA) {
    if (o->null_branch < 0) return mismatch(x, f, a);
    o->kind = E_NULL;
    return HUDI_OK;
  }
  hudi_status last = HUDI_ERR_INVALID_ARG;
  for (uint32_t i = 0; i < a->n_branches; i++) {
    if (a->branches[i]->type == HUDI_AVRO_NULL) continue;
    int32_t nb = o->null_branch;
    last = compile_plain(x, o, f, a->branches[i], depth);
    o->null_branch = nb;
    if (last == HUDI_OK) {
      o->value_branch = (int32_t)i;
      return HUDI_OK;
    }
    if (last != HUDI_ERR_INVALID_ARG) return last;
  }
  return hudi_err_set(x->err, last, "column '%s': no branch of the Avro union takes Arrow %s", fn(f),
                      hudi_arrow_type_name(f->type.id));
}

hudi_status hudi_avro_encoder_create(hudi_avro_encoder **out, const hudi_arrow_field *schema,
                                     const hudi_avro_node *record, hudi_error *err) {
  *out = NULL;
  if (schema->type.id != HUDI_ARROW_STRUCT || record->type != HUDI_AVRO_RECORD)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro encoding needs a struct schema and a record");
  hudi_avro_encoder *e = hudi_calloc(1, sizeof *e);
  if (!e) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating an Avro encoder");
  hudi_avro_arena_init(&e->arena, HUDI_AVRO_ARENA_DEFAULT_MAX);
  ectx x = {e, err};
  e->root.null_branch = e->root.value_branch = -1;
  e->root.arrow_id = HUDI_ARROW_STRUCT;
  hudi_status st = compile_record(&x, &e->root, schema, record, 0, true);
  if (st != HUDI_OK) {
    hudi_avro_encoder_free(e);
    return st;
  }
  *out = e;
  return HUDI_OK;
}

void hudi_avro_encoder_free(hudi_avro_encoder *e) {
  if (!e) return;
  hudi_avro_arena_free(&e->arena);
  hudi_free(e);
}

/* ---- checking a batch against the compiled program ---- */

static hudi_status check_view(const eop *o, const hudi_arrow_view *v, hudi_error *err) {
  const hudi_arrow_view *vv = v->dictionary ? v->dictionary : v;
  if (o->kind == E_NULL || o->kind == E_META) return HUDI_OK;
  hudi_arrow_type_id id = vv->type.id;
  bool ok = id == o->arrow_id || (arrow_bytes_like(id) && arrow_bytes_like(o->arrow_id) &&
                                  id != HUDI_ARROW_FIXED_SIZE_BINARY && o->arrow_id != HUDI_ARROW_FIXED_SIZE_BINARY);
  if (ok && o->kind == E_FIXED && id == HUDI_ARROW_FIXED_SIZE_BINARY) ok = vv->byte_width == o->size;
  if (ok && (o->kind == E_F32 || o->kind == E_F32_F64)) ok = vv->byte_width == 4;
  if (ok && o->kind == E_F64) ok = vv->byte_width == 8;
  if (ok && (o->kind == E_DEC_FIXED || o->kind == E_DEC_BYTES)) ok = vv->byte_width == 16;
  if (!ok)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': the batch holds %s, the encoder expects %s",
                        o->name, hudi_arrow_type_name(id), hudi_arrow_type_name(o->arrow_id));
  if (o->kind == E_RECORD) {
    for (uint32_t i = 0; i < o->n_sub; i++) {
      if (o->sub[i].kind == E_NULL || o->sub[i].kind == E_META) continue;
      if (o->sub[i].child >= vv->n_children)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': the batch has %lld children", o->name,
                            (long long)vv->n_children);
      HUDI_TRY(check_view(&o->sub[i], &vv->children[o->sub[i].child], err));
    }
  } else if (o->kind == E_ARRAY) {
    HUDI_TRY(check_view(&o->sub[0], &vv->children[0], err));
  } else if (o->kind == E_MAP) {
    if (vv->children[0].n_children != 2)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': map entries need 2 children", o->name);
    const hudi_arrow_view *k = &vv->children[0].children[0];
    if (!arrow_string_like(k->dictionary ? k->dictionary->type.id : k->type.id))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': map keys must be strings", o->name);
    HUDI_TRY(check_view(&o->sub[0], &vv->children[0].children[1], err));
  }
  return HUDI_OK;
}

/* ---- encode ---- */

typedef struct wr {
  hudi_buf *out;
  int64_t row;
  const hudi_avro_meta_values *meta;
  hudi_error *err;
} wr;

static hudi_status efail(wr *w, const char *col, const char *fmt, ...) HUDI_PRINTF(3, 4);
static hudi_status efail(wr *w, const char *col, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return hudi_err_set(w->err, HUDI_ERR_INVALID_ARG, "encoding row %lld to Avro, column '%s': %s",
                      (long long)w->row, col, what);
}

static inline uint8_t *put_varint(uint8_t *p, int64_t v) {
  uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  while (z >= 0x80) {
    *p++ = (uint8_t)(z | 0x80);
    z >>= 7;
  }
  *p++ = (uint8_t)z;
  return p;
}

static inline hudi_status w_long(wr *w, int64_t v) {
  HUDI_TRY(hudi_avro_need(w->out, 10, w->err));
  uint8_t *p = w->out->data + w->out->len;
  w->out->len = (size_t)(put_varint(p, v) - w->out->data);
  return HUDI_OK;
}

static inline hudi_status w_raw(wr *w, const void *p, size_t n) {
  HUDI_TRY(hudi_avro_need(w->out, n, w->err));
  if (n) memcpy(w->out->data + w->out->len, p, n);
  w->out->len += n;
  return HUDI_OK;
}

static inline hudi_status w_bytes(wr *w, const void *p, size_t n) {
  HUDI_TRY(hudi_avro_need(w->out, n + 10, w->err));
  uint8_t *d = put_varint(w->out->data + w->out->len, (int64_t)n);
  if (n) memcpy(d, p, n);
  w->out->len = (size_t)(d - w->out->data) + n;
  return HUDI_OK;
}

/* The decimal's 16 little-endian bytes, big-endian in n bytes (n may be
 * more than 16: sign-extended); fails when the value needs more. */
static hudi_status w_decimal(wr *w, const eop *o, const uint8_t *le, int32_t n, bool with_len) {
  uint8_t sign = (le[15] & 0x80) ? 0xFF : 0;
  if (n <= 0) {
    /* minimal: Java's BigInteger.toByteArray */
    n = 16;
    while (n > 1 && le[n - 1] == sign && ((le[n - 2] & 0x80) ? 0xFF : 0) == sign) n--;
  } else if (n < 16) {
    for (int k = n; k < 16; k++)
      if (le[k] != sign || ((le[n - 1] & 0x80) ? 0xFF : 0) != sign)
        return efail(w, o->name, "decimal does not fit %d bytes", (int)n);
  }
  uint8_t be[64];
  for (int32_t j = 0; j < n; j++) {
    int32_t k = n - 1 - j; /* little-endian index */
    be[j] = k < 16 ? le[k] : sign;
  }
  if (with_len) return w_bytes(w, be, (size_t)n);
  return w_raw(w, be, (size_t)n);
}

static hudi_status enc(wr *w, const eop *o, const hudi_arrow_view *v, int64_t i);

static hudi_status enc_record(wr *w, const eop *o, const hudi_arrow_view *v, int64_t i) {
  int64_t row = hudi_arrow_view_struct_row(v, i);
  for (uint32_t k = 0; k < o->n_sub; k++) {
    const eop *s = &o->sub[k];
    if (s->kind == E_NULL && s->child < 0) {
      if (s->null_branch >= 0) HUDI_TRY(w_long(w, s->null_branch));
    } else if (s->kind == E_META) {
      const hudi_avro_meta_values *m = w->meta;
      if (!m || !m->value[s->child]) {
        if (s->null_branch < 0) return efail(w, s->name, "no value for a non-nullable meta field");
        HUDI_TRY(w_long(w, s->null_branch));
      } else {
        if (s->value_branch >= 0) HUDI_TRY(w_long(w, s->value_branch));
        HUDI_TRY(w_bytes(w, m->value[s->child], m->len[s->child]));
      }
    } else {
      /* Struct children are indexed by the struct's row (its offset included). */
      HUDI_TRY(enc(w, s, &v->children[s->child], row));
    }
  }
  return HUDI_OK;
}

static hudi_status enc_array(wr *w, const eop *o, const hudi_arrow_view *v, int64_t i) {
  int64_t start, end;
  hudi_arrow_view_list_range(v, i, &start, &end);
  const hudi_arrow_view *c = &v->children[0];
  int64_t n = end - start;
  if (n > 0) {
    HUDI_TRY(w_long(w, n));
    const eop *item = &o->sub[0];
    bool dense = !c->dictionary && (!c->validity || c->null_count == 0) && item->value_branch < 0;
    if (dense && (item->kind == E_F32 || item->kind == E_F64)) {
      /* Arrow and Avro floats are both little-endian IEEE: one copy. */
      HUDI_TRY(w_raw(w, hudi_arrow_view_fixed(c, start), (size_t)n * (size_t)c->byte_width));
    } else {
      for (int64_t k = start; k < end; k++) HUDI_TRY(enc(w, item, c, k));
    }
  }
  return w_long(w, 0);
}

static hudi_status enc_map(wr *w, const eop *o, const hudi_arrow_view *v, int64_t i) {
  int64_t start, end;
  hudi_arrow_view_list_range(v, i, &start, &end);
  const hudi_arrow_view *e = &v->children[0];
  if (end > start) {
    HUDI_TRY(w_long(w, end - start));
    for (int64_t k = start; k < end; k++) {
      int64_t row = hudi_arrow_view_struct_row(e, k);
      const hudi_arrow_view *key = &e->children[0];
      int64_t kidx = row;
      if (key->dictionary) {
        if (hudi_arrow_view_is_null(key, kidx)) return efail(w, o->name, "null map key");
        kidx = hudi_arrow_view_dict_index(key, kidx);
        key = key->dictionary;
      }
      if (hudi_arrow_view_is_null(key, kidx)) return efail(w, o->name, "null map key");
      int64_t len = 0;
      const uint8_t *p = hudi_arrow_view_bytes(key, kidx, &len);
      HUDI_TRY(w_bytes(w, p, (size_t)len));
      HUDI_TRY(enc(w, &o->sub[0], &e->children[1], row));
    }
  }
  return w_long(w, 0);
}

static int64_t scale(const eop *o, int64_t v, bool *overflow) {
  *overflow = false;
  if (o->mul != 1) {
    int64_t r;
    if (__builtin_mul_overflow(v, o->mul, &r)) *overflow = true;
    return r;
  }
  if (o->div != 1) {
    int64_t q = v / o->div;
    if (v % o->div < 0) q--;
    return q;
  }
  return v;
}

static hudi_status enc(wr *w, const eop *o, const hudi_arrow_view *v, int64_t i) {
  if (v->dictionary) {
    if (hudi_arrow_view_is_null(v, i)) {
      if (o->null_branch < 0 && o->kind != E_NULL) return efail(w, o->name, "null, but the Avro type is not nullable");
      return o->null_branch >= 0 ? w_long(w, o->null_branch) : HUDI_OK;
    }
    i = hudi_arrow_view_dict_index(v, i);
    v = v->dictionary;
  }
  if (o->kind == E_NULL) return o->null_branch >= 0 ? w_long(w, o->null_branch) : HUDI_OK;
  if (hudi_arrow_view_is_null(v, i)) {
    if (o->null_branch < 0) return efail(w, o->name, "null, but the Avro type is not nullable");
    return w_long(w, o->null_branch);
  }
  if (o->value_branch >= 0) HUDI_TRY(w_long(w, o->value_branch));
  switch (o->kind) {
    case E_BOOL: {
      uint8_t b = hudi_arrow_view_bool(v, i) ? 1 : 0;
      return w_raw(w, &b, 1);
    }
    case E_INT: {
      bool ovf;
      int64_t x = scale(o, hudi_arrow_view_int(v, i), &ovf);
      if (ovf || (o->avro_int && (x < INT32_MIN || x > INT32_MAX)))
        return efail(w, o->name, "%lld does not fit an Avro %s", (long long)hudi_arrow_view_int(v, i),
                     o->avro_int ? "int" : "long");
      return w_long(w, x);
    }
    case E_UINT: {
      uint64_t x = hudi_arrow_view_uint(v, i);
      if (x > (o->avro_int ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX))
        return efail(w, o->name, "%llu does not fit an Avro %s", (unsigned long long)x, o->avro_int ? "int" : "long");
      return w_long(w, (int64_t)x);
    }
    case E_F32:
    case E_F64: return w_raw(w, hudi_arrow_view_fixed(v, i), (size_t)v->byte_width);
    case E_F32_F64: {
      double d = hudi_arrow_view_double(v, i);
      return w_raw(w, &d, 8);
    }
    case E_BYTES: {
      int64_t len = 0;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
      return w_bytes(w, p, (size_t)len);
    }
    case E_FIXED: {
      int64_t len = 0;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
      if (len != o->size) return efail(w, o->name, "%lld bytes for a fixed of %d", (long long)len, (int)o->size);
      return w_raw(w, p, (size_t)len);
    }
    case E_DEC_FIXED: return w_decimal(w, o, hudi_arrow_view_fixed(v, i), o->size, false);
    case E_DEC_BYTES: return w_decimal(w, o, hudi_arrow_view_fixed(v, i), 0, true);
    case E_ENUM: {
      int64_t len = 0;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
      for (uint32_t s = 0; s < o->avro->n_symbols; s++)
        if (strlen(o->avro->symbols[s]) == (size_t)len && memcmp(o->avro->symbols[s], p, (size_t)len) == 0)
          return w_long(w, s);
      return efail(w, o->name, "'%.*s' is not a symbol of enum %s", (int)(len > 100 ? 100 : len), (const char *)p,
                   o->avro->name ? o->avro->name : "");
    }
    case E_RECORD: return enc_record(w, o, v, i);
    case E_ARRAY: return enc_array(w, o, v, i);
    case E_MAP: return enc_map(w, o, v, i);
    default: break;
  }
  return hudi_err_set(w->err, HUDI_ERR_INTERNAL, "bad encoder op");
}

static hudi_status encode_rows(hudi_avro_encoder *e, hudi_buf *out, const hudi_arrow_view *batch,
                               int64_t start, int64_t n, const hudi_avro_meta_values *meta, bool length_prefixed,
                               hudi_error *err) {
  if (batch->type.id != HUDI_ARROW_STRUCT || batch->dictionary)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro encoding needs a struct batch");
  if (start < 0 || n < 0 || start > batch->length || n > batch->length - start)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "rows [%lld, +%lld) outside a batch of %lld",
                        (long long)start, (long long)n, (long long)batch->length);
  HUDI_TRY(check_view(&e->root, batch, err));
  wr w = {out, 0, NULL, err};
  for (int64_t r = start; r < start + n; r++) {
    w.row = r;
    w.meta = meta ? &meta[r - start] : NULL;
    size_t at = out->len;
    if (length_prefixed) HUDI_TRY(w_raw(&w, "\0\0\0\0", 4));
    /* Rows of a batch are never null: encode the columns whatever the
     * struct's own validity says. */
    HUDI_TRY(enc_record(&w, &e->root, batch, r));
    if (length_prefixed) {
      size_t len = out->len - at - 4;
      if (len > INT32_MAX) return efail(&w, "", "datum of %zu bytes is too long for a Hudi block", len);
      uint8_t *p = out->data + at;
      p[0] = (uint8_t)(len >> 24);
      p[1] = (uint8_t)(len >> 16);
      p[2] = (uint8_t)(len >> 8);
      p[3] = (uint8_t)len;
    }
  }
  return HUDI_OK;
}

hudi_status hudi_avro_encoder_encode_rows(hudi_avro_encoder *e, hudi_buf *out, const hudi_arrow_view *batch,
                                          int64_t start, int64_t n, const hudi_avro_meta_values *meta,
                                          bool length_prefixed, hudi_error *err) {
  size_t old = out->len;
  hudi_status st = encode_rows(e, out, batch, start, n, meta, length_prefixed, err);
  if (st != HUDI_OK) out->len = old;
  return st;
}

hudi_status hudi_avro_encoder_encode_data_block(hudi_avro_encoder *e, hudi_buf *out,
                                                const hudi_arrow_view *batch, int64_t start, int64_t n,
                                                const hudi_avro_meta_values *meta, hudi_error *err) {
  if (n < 0 || n > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%lld records do not fit one Hudi data block", (long long)n);
  size_t old = out->len;
  uint8_t head[8] = {0, 0, 0, 3, (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n};
  hudi_status st = hudi_buf_append(out, head, 8, err);
  if (st == HUDI_OK) st = encode_rows(e, out, batch, start, n, meta, true, err);
  if (st != HUDI_OK) out->len = old;
  return st;
}
