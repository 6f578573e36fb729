/* Arrow schema -> Parquet schema elements and per-leaf shredding plans. */
#include "parquet/arrow_to_parquet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/metadata.h"
#include "base/alloc.h"

#define MAX_STEPS HUDI_ARROW_MAX_DEPTH

typedef struct build_ctx {
  hudi_pq_wschema *s;
  const hudi_pq_schema_options *o;
  hudi_pq_schema_element *el;
  uint32_t n_el, cap_el;
  hudi_pq_leaf_plan *lv;
  uint32_t n_lv, cap_lv;
  hudi_pq_step steps[MAX_STEPS];
  const char *path[MAX_STEPS * 3]; /* Parquet names from the root's child down */
  uint32_t path_len;
  char arrow_path[1024];
  uint32_t top;
  hudi_error *err;
} build_ctx;

int32_t hudi_pq_decimal_flba_width(int32_t precision) {
  /* The smallest n with 2^(8n-1) > 10^precision - 1. */
  double limit = 1;
  for (int32_t i = 0; i < precision; i++) limit *= 10;
  int32_t n = 1;
  double cap = 128; /* 2^(8n-1) */
  while (cap < limit && n < 32) {
    n++;
    cap *= 256;
  }
  return n;
}

static char *arena_str(hudi_pq_arena *a, const char *s) {
  size_t n = strlen(s);
  char *p = hudi_pq_arena_alloc(a, n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

static hudi_status nomem(build_ctx *c) {
  return hudi_err_set(c->err, HUDI_ERR_NOMEM, "out of memory building the Parquet schema of column '%s'",
                      c->arrow_path);
}

/* Appends an element; returns its index through *idx. */
static hudi_status add_element(build_ctx *c, const char *name, uint32_t *idx) {
  if (c->n_el == c->cap_el) {
    uint32_t cap = c->cap_el ? c->cap_el * 2 : 16;
    hudi_pq_schema_element *p = hudi_realloc(c->el, hudi_mul_size(cap, sizeof *p));
    if (!p) return nomem(c);
    c->el = p;
    c->cap_el = cap;
  }
  hudi_pq_schema_element *e = &c->el[c->n_el];
  memset(e, 0, sizeof *e);
  e->name = arena_str(&c->s->arena, name);
  if (!e->name) return nomem(c);
  *idx = c->n_el++;
  return HUDI_OK;
}

static void set_rep(hudi_pq_schema_element *e, hudi_pq_repetition r) {
  e->has_repetition = true;
  e->repetition = r;
}

static void set_converted(hudi_pq_schema_element *e, int32_t ct) {
  e->has_converted_type = true;
  e->converted_type = ct;
}

static hudi_status field_id(build_ctx *c, const hudi_arrow_field *f, hudi_pq_schema_element *e) {
  if (!f->metadata) return HUDI_OK;
  const char *v;
  int32_t n;
  hudi_error e2 = HUDI_ERROR_INIT;
  hudi_status st = hudi_arrow_metadata_find(&v, &n, f->metadata, "PARQUET:field_id", &e2);
  if (st == HUDI_ERR_NOT_FOUND) return HUDI_OK;
  if (st != HUDI_OK) return hudi_err_set(c->err, st, "column '%s': %s", c->arrow_path, e2.message);
  char buf[24];
  if (n <= 0 || n >= (int32_t)sizeof buf) goto bad;
  memcpy(buf, v, (size_t)n);
  buf[n] = 0;
  char *end;
  long long id = strtoll(buf, &end, 10);
  if (*end || id < INT32_MIN || id > INT32_MAX) goto bad;
  e->has_field_id = true;
  e->field_id = (int32_t)id;
  return HUDI_OK;
bad:
  return hudi_err_set(c->err, HUDI_ERR_INVALID_ARG, "column '%s': PARQUET:field_id is not a 32-bit integer",
                      c->arrow_path);
}

static hudi_status unsupported(build_ctx *c, const hudi_arrow_field *f, const char *why) {
  return hudi_err_set(c->err, HUDI_ERR_UNSUPPORTED, "column '%s': Arrow type %s (format '%s') %s", c->arrow_path,
                      hudi_arrow_type_name(f->type.id), f->format ? f->format : "?", why);
}

/* Physical type, annotations and conversion of a primitive Arrow type. */
static hudi_status map_primitive(build_ctx *c, const hudi_arrow_type *t, const hudi_arrow_field *f,
                                 hudi_pq_schema_element *e, hudi_pq_leaf_plan *p) {
  p->conv = HUDI_PQ_CONV_COPY;
  p->factor = 1;
  e->has_type = true;
  hudi_pq_logical_type *lt = &e->logical;
  switch (t->id) {
    case HUDI_ARROW_BOOL:
      e->type = HUDI_PQ_BOOLEAN;
      p->conv = HUDI_PQ_CONV_BOOL;
      p->sort = HUDI_PQ_SORT_BOOL;
      break;
    case HUDI_ARROW_INT8: case HUDI_ARROW_UINT8: case HUDI_ARROW_INT16: case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32: case HUDI_ARROW_UINT64: {
      bool sign = hudi_arrow_type_is_signed_int(t->id);
      int bits = 8 * hudi_arrow_type_byte_width(t);
      e->type = bits == 64 ? HUDI_PQ_INT64 : HUDI_PQ_INT32;
      lt->kind = HUDI_PQ_LT_INTEGER;
      lt->bit_width = (int8_t)bits;
      lt->is_signed = sign;
      /* INT_8..INT_64 are 15..18, UINT_8..UINT_64 11..14. */
      int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
      set_converted(e, (sign ? 15 : 11) + k);
      p->conv = bits == 8 ? (sign ? HUDI_PQ_CONV_I8 : HUDI_PQ_CONV_U8)
              : bits == 16 ? (sign ? HUDI_PQ_CONV_I16 : HUDI_PQ_CONV_U16) : HUDI_PQ_CONV_COPY;
      p->sort = bits == 64 ? (sign ? HUDI_PQ_SORT_I64 : HUDI_PQ_SORT_U64) : (sign ? HUDI_PQ_SORT_I32 : HUDI_PQ_SORT_U32);
      break;
    }
    case HUDI_ARROW_INT32: e->type = HUDI_PQ_INT32; p->sort = HUDI_PQ_SORT_I32; break;
    case HUDI_ARROW_INT64: case HUDI_ARROW_DURATION: e->type = HUDI_PQ_INT64; p->sort = HUDI_PQ_SORT_I64; break;
    case HUDI_ARROW_HALF_FLOAT:
      e->type = HUDI_PQ_FIXED_LEN_BYTE_ARRAY;
      e->has_type_length = true;
      e->type_length = 2;
      lt->kind = HUDI_PQ_LT_FLOAT16;
      p->sort = HUDI_PQ_SORT_FLOAT16;
      break;
    case HUDI_ARROW_FLOAT: e->type = HUDI_PQ_FLOAT; p->sort = HUDI_PQ_SORT_FLOAT; break;
    case HUDI_ARROW_DOUBLE: e->type = HUDI_PQ_DOUBLE; p->sort = HUDI_PQ_SORT_DOUBLE; break;
    case HUDI_ARROW_DECIMAL: {
      if (t->precision < 1 || t->precision > 76) return unsupported(c, f, "has a precision Parquet cannot hold");
      lt->kind = HUDI_PQ_LT_DECIMAL;
      lt->precision = t->precision;
      lt->scale = t->scale;
      set_converted(e, HUDI_PQ_CT_DECIMAL);
      e->has_precision = e->has_scale = true;
      e->precision = t->precision;
      e->scale = t->scale;
      p->src_width = t->bit_width / 8;
      if (c->o->decimal_as_integer && t->precision <= 18) {
        bool small = t->precision <= 9;
        e->type = small ? HUDI_PQ_INT32 : HUDI_PQ_INT64;
        p->conv = small ? HUDI_PQ_CONV_DEC_I32 : HUDI_PQ_CONV_DEC_I64;
        p->sort = small ? HUDI_PQ_SORT_I32 : HUDI_PQ_SORT_I64;
      } else {
        e->type = HUDI_PQ_FIXED_LEN_BYTE_ARRAY;
        e->has_type_length = true;
        e->type_length = hudi_pq_decimal_flba_width(t->precision);
        if (e->type_length > p->src_width) return unsupported(c, f, "is narrower than its precision");
        p->conv = HUDI_PQ_CONV_DEC_FLBA;
        p->sort = HUDI_PQ_SORT_DECIMAL;
      }
      break;
    }
    case HUDI_ARROW_DATE32: case HUDI_ARROW_DATE64:
      e->type = HUDI_PQ_INT32;
      lt->kind = HUDI_PQ_LT_DATE;
      set_converted(e, HUDI_PQ_CT_DATE);
      p->sort = HUDI_PQ_SORT_I32;
      if (t->id == HUDI_ARROW_DATE64) p->conv = HUDI_PQ_CONV_DATE64;
      break;
    case HUDI_ARROW_TIME32:
      e->type = HUDI_PQ_INT32;
      lt->kind = HUDI_PQ_LT_TIME;
      lt->is_adjusted_to_utc = false; /* Arrow times are local, as pyarrow writes them */
      lt->unit = HUDI_PQ_UNIT_MILLIS;
      set_converted(e, 7); /* TIME_MILLIS */
      p->sort = HUDI_PQ_SORT_I32;
      if (t->unit == HUDI_ARROW_SECOND) {
        p->conv = HUDI_PQ_CONV_MUL32;
        p->factor = 1000;
      }
      break;
    case HUDI_ARROW_TIME64:
      e->type = HUDI_PQ_INT64;
      lt->kind = HUDI_PQ_LT_TIME;
      lt->is_adjusted_to_utc = false;
      lt->unit = t->unit == HUDI_ARROW_NANO ? HUDI_PQ_UNIT_NANOS : HUDI_PQ_UNIT_MICROS;
      if (t->unit != HUDI_ARROW_NANO) set_converted(e, 8); /* TIME_MICROS */
      p->sort = HUDI_PQ_SORT_I64;
      break;
    case HUDI_ARROW_TIMESTAMP: {
      e->type = HUDI_PQ_INT64;
      lt->kind = HUDI_PQ_LT_TIMESTAMP;
      lt->is_adjusted_to_utc = t->timezone != NULL && t->timezone_len > 0;
      p->sort = HUDI_PQ_SORT_I64;
      switch (t->unit) {
        case HUDI_ARROW_SECOND: /* Parquet has no seconds: widen to milliseconds as pyarrow does */
          p->conv = HUDI_PQ_CONV_MUL64;
          p->factor = 1000;
          /* fall through */
        case HUDI_ARROW_MILLI: lt->unit = HUDI_PQ_UNIT_MILLIS; break;
        case HUDI_ARROW_MICRO: lt->unit = HUDI_PQ_UNIT_MICROS; break;
        default: lt->unit = HUDI_PQ_UNIT_NANOS; break;
      }
      /* The legacy converted type only says "UTC instant"; local times have none. */
      if (lt->is_adjusted_to_utc && lt->unit != HUDI_PQ_UNIT_NANOS)
        set_converted(e, lt->unit == HUDI_PQ_UNIT_MILLIS ? HUDI_PQ_CT_TIMESTAMP_MILLIS : HUDI_PQ_CT_TIMESTAMP_MICROS);
      break;
    }
    case HUDI_ARROW_STRING: case HUDI_ARROW_LARGE_STRING: case HUDI_ARROW_STRING_VIEW:
      e->type = HUDI_PQ_BYTE_ARRAY;
      lt->kind = HUDI_PQ_LT_STRING;
      set_converted(e, HUDI_PQ_CT_UTF8);
      p->conv = HUDI_PQ_CONV_BYTES;
      p->sort = HUDI_PQ_SORT_BYTES;
      break;
    case HUDI_ARROW_BINARY: case HUDI_ARROW_LARGE_BINARY: case HUDI_ARROW_BINARY_VIEW:
      e->type = HUDI_PQ_BYTE_ARRAY;
      p->conv = HUDI_PQ_CONV_BYTES;
      p->sort = HUDI_PQ_SORT_BYTES;
      break;
    case HUDI_ARROW_FIXED_SIZE_BINARY:
      if (t->fixed_size < 1) return unsupported(c, f, "has a zero width");
      e->type = HUDI_PQ_FIXED_LEN_BYTE_ARRAY;
      e->has_type_length = true;
      e->type_length = t->fixed_size;
      p->conv = HUDI_PQ_CONV_BYTES;
      p->sort = HUDI_PQ_SORT_BYTES;
      break;
    default: return unsupported(c, f, "cannot be stored in Parquet");
  }
  p->type = e->type;
  p->type_length = e->has_type_length ? e->type_length : 0;
  p->dictionary_ok = e->type != HUDI_PQ_BOOLEAN;
  return HUDI_OK;
}

static hudi_status add_node(build_ctx *c, const hudi_arrow_field *f, const char *pname, hudi_pq_repetition rep,
                            int32_t child, uint32_t depth, int16_t def, int16_t rep_level);

static hudi_status add_leaf(build_ctx *c, const hudi_arrow_field *f, uint32_t idx, uint32_t depth) {
  const hudi_arrow_field *vf = f->dictionary ? f->dictionary : f;
  if (f->dictionary && f->dictionary->n_children > 0)
    return unsupported(c, vf, "is dictionary-encoded with nested values");
  if (c->n_lv == c->cap_lv) {
    uint32_t cap = c->cap_lv ? c->cap_lv * 2 : 16;
    hudi_pq_leaf_plan *p = hudi_realloc(c->lv, hudi_mul_size(cap, sizeof *p));
    if (!p) return nomem(c);
    c->lv = p;
    c->cap_lv = cap;
  }
  hudi_pq_leaf_plan *p = &c->lv[c->n_lv];
  memset(p, 0, sizeof *p);
  HUDI_TRY(map_primitive(c, &vf->type, vf, &c->el[idx], p));
  c->n_lv++;
  hudi_pq_arena *a = &c->s->arena;
  p->name = arena_str(a, c->arrow_path);
  p->steps = hudi_pq_arena_alloc(a, sizeof(hudi_pq_step) * (depth + 1));
  p->path = hudi_pq_arena_alloc(a, sizeof(char *) * (c->path_len ? c->path_len : 1));
  if (!p->name || !p->steps || !p->path) return nomem(c);
  memcpy(p->steps, c->steps, sizeof(hudi_pq_step) * (depth + 1));
  p->n_steps = depth + 1;
  for (uint32_t i = 0; i < c->path_len; i++) {
    p->path[i] = arena_str(a, c->path[i]);
    if (!p->path[i]) return nomem(c);
  }
  p->path_len = c->path_len;
  p->top = c->top;
  p->element = idx;
  p->max_def = c->steps[depth].def;
  int16_t r = 0;
  for (uint32_t i = 0; i <= depth; i++)
    if (c->steps[i].kind == HUDI_PQ_STEP_LIST) r = c->steps[i].rep;
  p->max_rep = r;
  return HUDI_OK;
}

/* The list's (or map's) repeated level and its element. */
static hudi_status add_list(build_ctx *c, const hudi_arrow_field *f, uint32_t gidx, uint32_t depth, int16_t def,
                            int16_t rep_level) {
  bool is_map = f->type.id == HUDI_ARROW_MAP;
  const hudi_arrow_field *elem = &f->children[0];
  int16_t inner_def = (int16_t)(def + 1), inner_rep = (int16_t)(rep_level + 1);
  c->steps[depth].rep = inner_rep;
  c->el[gidx].has_num_children = true;
  c->el[gidx].num_children = 1;
  uint32_t ridx;
  if (is_map) {
    set_converted(&c->el[gidx], HUDI_PQ_CT_MAP);
    c->el[gidx].logical.kind = HUDI_PQ_LT_MAP;
    if (elem->n_children != 2) return unsupported(c, f, "has entries without key and value");
    /* The repeated key_value group is the entries struct itself. */
    HUDI_TRY(add_element(c, "key_value", &ridx));
    set_rep(&c->el[ridx], HUDI_PQ_REPEATED);
    c->el[ridx].has_num_children = true;
    c->el[ridx].num_children = 2;
    if (c->o->map_key_value_legacy) set_converted(&c->el[ridx], HUDI_PQ_CT_MAP_KEY_VALUE);
    if (depth + 2 >= MAX_STEPS) return unsupported(c, f, "is nested too deeply");
    c->steps[depth + 1] = (hudi_pq_step){HUDI_PQ_STEP_STRUCT, false, 0, inner_def, 0};
    c->path[c->path_len++] = "key_value";
    static const char *const kv_names[2] = {"key", "value"};
    for (int k = 0; k < 2; k++) {
      const hudi_arrow_field *kf = &elem->children[k];
      bool nullable = k == 1 && (kf->flags & ARROW_FLAG_NULLABLE);
      HUDI_TRY(add_node(c, kf, kv_names[k], nullable ? HUDI_PQ_OPTIONAL : HUDI_PQ_REQUIRED, k, depth + 2, inner_def,
                        inner_rep));
    }
    c->path_len--;
    return HUDI_OK;
  }
  set_converted(&c->el[gidx], HUDI_PQ_CT_LIST);
  c->el[gidx].logical.kind = HUDI_PQ_LT_LIST;
  if (c->o->list_style == HUDI_PQ_LIST_2LEVEL) {
    /* `repeated <element> array`: the element cannot be null. */
    HUDI_TRY(add_node(c, elem, "array", HUDI_PQ_REPEATED, 0, depth + 1, inner_def, inner_rep));
    return HUDI_OK;
  }
  HUDI_TRY(add_element(c, "list", &ridx));
  set_rep(&c->el[ridx], HUDI_PQ_REPEATED);
  c->el[ridx].has_num_children = true;
  c->el[ridx].num_children = 1;
  c->path[c->path_len++] = "list";
  bool nullable = (elem->flags & ARROW_FLAG_NULLABLE) != 0;
  HUDI_TRY(add_node(c, elem, "element", nullable ? HUDI_PQ_OPTIONAL : HUDI_PQ_REQUIRED, 0, depth + 1, inner_def,
                    inner_rep));
  c->path_len--;
  return HUDI_OK;
}

/* Adds the element(s) of Arrow field f reached as child `child` of its
 * parent; def is the definition level of the parent being present. */
static hudi_status add_node(build_ctx *c, const hudi_arrow_field *f, const char *pname, hudi_pq_repetition rep,
                            int32_t child, uint32_t depth, int16_t def, int16_t rep_level) {
  if (depth >= MAX_STEPS - 1 || c->path_len >= MAX_STEPS * 3 - 1)
    return hudi_err_set(c->err, HUDI_ERR_UNSUPPORTED, "column '%s' is nested too deeply", c->arrow_path);
  size_t plen = strlen(c->arrow_path);
  const char *aname = f->name ? f->name : pname;
  int n = snprintf(c->arrow_path + plen, sizeof c->arrow_path - plen, "%s%s", plen ? "." : "", aname);
  if (n < 0 || (size_t)n >= sizeof c->arrow_path - plen) c->arrow_path[sizeof c->arrow_path - 1] = 0;
  uint32_t idx;
  HUDI_TRY(add_element(c, pname, &idx));
  set_rep(&c->el[idx], rep);
  HUDI_TRY(field_id(c, f, &c->el[idx]));
  bool optional = rep == HUDI_PQ_OPTIONAL;
  int16_t mydef = (int16_t)(def + (optional ? 1 : 0));
  c->path[c->path_len++] = pname;
  hudi_status st = HUDI_OK;
  switch (f->dictionary ? HUDI_ARROW_INT32 : f->type.id) {
    case HUDI_ARROW_STRUCT: {
      if (f->n_children == 0) {
        st = unsupported(c, f, "has no fields (Parquet groups need at least one)");
        break;
      }
      c->steps[depth] = (hudi_pq_step){HUDI_PQ_STEP_STRUCT, optional, child, mydef, 0};
      c->el[idx].has_num_children = true;
      c->el[idx].num_children = (int32_t)f->n_children;
      for (int64_t i = 0; i < f->n_children && st == HUDI_OK; i++) {
        const hudi_arrow_field *cf = &f->children[i];
        char nm[32];
        snprintf(nm, sizeof nm, "f%lld", (long long)i);
        st = add_node(c, cf, cf->name ? cf->name : nm,
                      (cf->flags & ARROW_FLAG_NULLABLE) ? HUDI_PQ_OPTIONAL : HUDI_PQ_REQUIRED, (int32_t)i, depth + 1,
                      mydef, rep_level);
      }
      break;
    }
    case HUDI_ARROW_LIST: case HUDI_ARROW_LARGE_LIST: case HUDI_ARROW_FIXED_SIZE_LIST: case HUDI_ARROW_MAP:
      c->steps[depth] = (hudi_pq_step){HUDI_PQ_STEP_LIST, optional, child, mydef, 0};
      st = add_list(c, f, idx, depth, mydef, rep_level);
      break;
    default:
      c->steps[depth] = (hudi_pq_step){HUDI_PQ_STEP_LEAF, optional, child, mydef, 0};
      st = add_leaf(c, f, idx, depth);
      break;
  }
  c->path_len--;
  c->arrow_path[plen] = 0;
  return st;
}

void hudi_pq_wschema_free(hudi_pq_wschema *s) {
  if (!s) return;
  hudi_pq_arena_free(&s->arena);
  memset(s, 0, sizeof *s);
}

hudi_status hudi_pq_wschema_build(hudi_pq_wschema *out, const hudi_arrow_field *schema,
                                  const hudi_pq_schema_options *opts, hudi_error *err) {
  static const hudi_pq_schema_options defaults = HUDI_PQ_SCHEMA_OPTIONS_INIT;
  memset(out, 0, sizeof *out);
  hudi_pq_arena_init(&out->arena, 0);
  if (schema->type.id != HUDI_ARROW_STRUCT || schema->dictionary)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a Parquet file's schema must be a struct (a record batch)");
  build_ctx c;
  memset(&c, 0, sizeof c);
  c.s = out;
  c.o = opts ? opts : &defaults;
  c.err = err;
  uint32_t root;
  hudi_status st = add_element(&c, c.o->root_name ? c.o->root_name : "schema", &root);
  if (st == HUDI_OK) {
    c.el[root].has_num_children = true;
    c.el[root].num_children = (int32_t)schema->n_children;
  }
  if (st == HUDI_OK && schema->n_children == 0)
    st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "a Parquet file needs at least one column");
  for (int64_t i = 0; i < schema->n_children && st == HUDI_OK; i++) {
    const hudi_arrow_field *f = &schema->children[i];
    char nm[32];
    snprintf(nm, sizeof nm, "f%lld", (long long)i);
    c.top = (uint32_t)i;
    st = add_node(&c, f, f->name ? f->name : nm,
                  (f->flags & ARROW_FLAG_NULLABLE) ? HUDI_PQ_OPTIONAL : HUDI_PQ_REQUIRED, (int32_t)i, 0, 0, 0);
  }
  if (st == HUDI_OK) {
    out->elements = hudi_pq_arena_alloc(&out->arena, sizeof *c.el * c.n_el);
    out->leaves = hudi_pq_arena_alloc(&out->arena, sizeof *c.lv * (c.n_lv ? c.n_lv : 1));
    if (!out->elements || !out->leaves) {
      st = nomem(&c);
    } else {
      memcpy(out->elements, c.el, sizeof *c.el * c.n_el);
      if (c.n_lv) memcpy(out->leaves, c.lv, sizeof *c.lv * c.n_lv);
      out->n_elements = c.n_el;
      out->n_leaves = c.n_lv;
    }
  }
  hudi_free(c.el);
  hudi_free(c.lv);
  if (st != HUDI_OK) hudi_pq_wschema_free(out);
  return st;
}
