/* Struct <-> Avro value mapping for timeline records, driven by the
 * hudi_tl_type tables, and the one-record container files Java writes. */
#include "table/timeline_record.h"

#include <stdlib.h>
#include <string.h>

#include "avro/container.h"
#include "base/alloc.h"

const hudi_tl_type hudi_tl_t_str = {HUDI_TL_STR, sizeof(char *), NULL, 0, 0, NULL, 0, NULL};
const hudi_tl_type hudi_tl_t_long = {HUDI_TL_LONG, sizeof(hudi_tl_long), NULL, 0, 0, NULL, 0, NULL};
const hudi_tl_type hudi_tl_t_int = {HUDI_TL_INT, sizeof(hudi_tl_int), NULL, 0, 0, NULL, 0, NULL};
const hudi_tl_type hudi_tl_t_bool = {HUDI_TL_BOOL, sizeof(hudi_tl_bool), NULL, 0, 0, NULL, 0, NULL};
const hudi_tl_type hudi_tl_t_double = {HUDI_TL_DOUBLE, sizeof(hudi_tl_double), NULL, 0, 0, NULL, 0, NULL};
const hudi_tl_type hudi_tl_t_str_array = HUDI_TL_ARRAY_TYPE(hudi_tl_t_str);
const hudi_tl_type hudi_tl_t_str_map = HUDI_TL_MAP_TYPE(hudi_tl_str_entry, hudi_tl_t_str);
const hudi_tl_type hudi_tl_t_long_map = HUDI_TL_MAP_TYPE(hudi_tl_long_entry, hudi_tl_t_long);
const hudi_tl_type hudi_tl_t_double_map = HUDI_TL_MAP_TYPE(hudi_tl_double_entry, hudi_tl_t_double);
const hudi_tl_type hudi_tl_t_strs_map = HUDI_TL_MAP_TYPE(hudi_tl_strs_entry, hudi_tl_t_str_array);

static size_t item_size(const hudi_tl_type *t) {
  return t->kind == HUDI_TL_MAP ? t->entry_size : t->elem->size;
}

/* ---------------------------------------------------------------- decode */

static hudi_status value_into(void *dst, const hudi_tl_type *t, const hudi_avro_value *v, hudi_avro_arena *a,
                              const char *what, hudi_error *err);

static hudi_status wrong_type(const char *what, const hudi_avro_value *u, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: unexpected Avro %s", what,
                      u && u->node ? hudi_avro_type_name(u->node->type) : "value");
}

static hudi_status rec_into(void *rec, const hudi_tl_type *t, const hudi_avro_value *u, hudi_avro_arena *a,
                            hudi_error *err) {
  if (!u->node || u->node->type != HUDI_AVRO_RECORD) return wrong_type(t->name, u, err);
  for (size_t i = 0; i < t->n_fields; i++) {
    const hudi_tl_field *f = &t->fields[i];
    const hudi_avro_value *fv = hudi_avro_value_field((hudi_avro_value *)u, f->name);
    if (!fv || hudi_avro_value_is_null(fv)) continue;
    HUDI_TRY(value_into((char *)rec + f->offset, f->type, fv, a, f->name, err));
  }
  return HUDI_OK;
}

/* dst is the C form of t; a REC here is a field, so dst holds a pointer. */
static hudi_status value_into(void *dst, const hudi_tl_type *t, const hudi_avro_value *v, hudi_avro_arena *a,
                              const char *what, hudi_error *err) {
  const hudi_avro_value *u = hudi_avro_value_unwrap(v);
  hudi_avro_type at = u && u->node ? u->node->type : HUDI_AVRO_NULL;
  switch (t->kind) {
    case HUDI_TL_STR:
      if (at != HUDI_AVRO_STRING && at != HUDI_AVRO_BYTES) return wrong_type(what, u, err);
      return hudi_avro_arena_strndup(a, (const char *)u->v.bytes.data, u->v.bytes.len, (char **)dst, err);
    case HUDI_TL_LONG: {
      hudi_tl_long *o = dst;
      if (at == HUDI_AVRO_LONG) o->v = u->v.l;
      else if (at == HUDI_AVRO_INT) o->v = u->v.i;
      else return wrong_type(what, u, err);
      o->has = 1;
      return HUDI_OK;
    }
    case HUDI_TL_INT: {
      hudi_tl_int *o = dst;
      if (at != HUDI_AVRO_INT) return wrong_type(what, u, err);
      o->v = u->v.i;
      o->has = 1;
      return HUDI_OK;
    }
    case HUDI_TL_BOOL: {
      hudi_tl_bool *o = dst;
      if (at != HUDI_AVRO_BOOLEAN) return wrong_type(what, u, err);
      o->v = u->v.boolean;
      o->has = 1;
      return HUDI_OK;
    }
    case HUDI_TL_DOUBLE: {
      hudi_tl_double *o = dst;
      if (at == HUDI_AVRO_DOUBLE) o->v = u->v.d;
      else if (at == HUDI_AVRO_FLOAT) o->v = u->v.f;
      else return wrong_type(what, u, err);
      o->has = 1;
      return HUDI_OK;
    }
    case HUDI_TL_REC: {
      void *rec;
      HUDI_TRY(hudi_avro_arena_alloc(a, t->size, &rec, err));
      HUDI_TRY(rec_into(rec, t, u, a, err));
      *(void **)dst = rec;
      return HUDI_OK;
    }
    case HUDI_TL_ARRAY:
    case HUDI_TL_MAP: {
      hudi_tl_list *l = dst;
      int is_map = t->kind == HUDI_TL_MAP;
      if (at != (is_map ? HUDI_AVRO_MAP : HUDI_AVRO_ARRAY)) return wrong_type(what, u, err);
      size_t n = is_map ? u->v.map.n : u->v.list.n, isz = item_size(t);
      l->has = 1;
      if (!n) return HUDI_OK;
      HUDI_TRY(hudi_avro_arena_array(a, n, isz, &l->items, err));
      l->n = l->cap = n;
      for (size_t i = 0; i < n; i++) {
        char *item = (char *)l->items + i * isz;
        const hudi_avro_value *iv = is_map ? &u->v.map.values[i] : &u->v.list.items[i];
        if (is_map) {
          HUDI_TRY(hudi_avro_arena_strndup(a, u->v.map.keys[i].data, u->v.map.keys[i].len, (char **)item, err));
          item += t->value_offset;
        }
        if (t->elem->kind == HUDI_TL_REC) {
          HUDI_TRY(rec_into(item, t->elem, hudi_avro_value_unwrap(iv), a, err));
        } else if (!hudi_avro_value_is_null(iv)) {
          HUDI_TRY(value_into(item, t->elem, iv, a, what, err));
        } else if (t->elem->kind == HUDI_TL_STR) {
          return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: null item", what);
        }
      }
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "bad timeline type table");
}

hudi_status hudi_tl_from_value(void *rec, const hudi_tl_type *t, const hudi_avro_value *v, hudi_avro_arena *arena,
                               hudi_error *err) {
  return rec_into(rec, t, hudi_avro_value_unwrap(v), arena, err);
}

/* ---------------------------------------------------------------- encode */

/* The value to fill for Avro type `type`: v itself, or v's union branch of
 * that type (selected). */
static hudi_status branch_of(hudi_avro_value *v, hudi_avro_arena *a, hudi_avro_type type, hudi_avro_value **out,
                             const char *what, hudi_error *err) {
  const hudi_avro_node *n = v->node;
  if (n->type == type) {
    *out = v;
    return HUDI_OK;
  }
  if (n->type == HUDI_AVRO_UNION)
    for (uint32_t i = 0; i < n->n_branches; i++)
      if (n->branches[i]->type == type) return hudi_avro_value_select(v, a, i, out, err);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s: schema has no %s here", what, hudi_avro_type_name(type));
}

static int nullable(const hudi_avro_node *n) {
  if (n->type == HUDI_AVRO_NULL) return 1;
  if (n->type != HUDI_AVRO_UNION) return 0;
  for (uint32_t i = 0; i < n->n_branches; i++)
    if (n->branches[i]->type == HUDI_AVRO_NULL) return 1;
  return 0;
}

static int present(const void *src, const hudi_tl_type *t) {
  switch (t->kind) {
    case HUDI_TL_STR:
    case HUDI_TL_REC: return *(void *const *)src != NULL;
    case HUDI_TL_LONG: return ((const hudi_tl_long *)src)->has;
    case HUDI_TL_INT: return ((const hudi_tl_int *)src)->has;
    case HUDI_TL_BOOL: return ((const hudi_tl_bool *)src)->has;
    case HUDI_TL_DOUBLE: return ((const hudi_tl_double *)src)->has;
    case HUDI_TL_ARRAY:
    case HUDI_TL_MAP: return ((const hudi_tl_list *)src)->has || ((const hudi_tl_list *)src)->n;
  }
  return 0;
}

static hudi_status value_from(hudi_avro_value *v, hudi_avro_arena *a, const void *src, const hudi_tl_type *t,
                              const char *what, int has_default, hudi_error *err);

static hudi_status rec_from(hudi_avro_value *v, hudi_avro_arena *a, const void *rec, const hudi_tl_type *t,
                            hudi_error *err) {
  hudi_avro_value *r;
  HUDI_TRY(branch_of(v, a, HUDI_AVRO_RECORD, &r, t->name, err));
  const hudi_avro_node *n = r->node;
  /* Fields the schema has and the struct lacks keep their defaults;
   * fields the struct has and this schema version lacks are dropped. */
  for (uint32_t i = 0; i < n->n_fields; i++) {
    for (size_t k = 0; k < t->n_fields; k++) {
      if (strcmp(t->fields[k].name, n->fields[i].name) != 0) continue;
      HUDI_TRY(value_from(&r->v.list.items[i], a, (const char *)rec + t->fields[k].offset, t->fields[k].type,
                          t->fields[k].name, n->fields[i].default_json != NULL, err));
      break;
    }
  }
  return HUDI_OK;
}

/* An absent value is written as null where the schema allows it, else as
 * the field's default (already in v), else as an empty array or map. */
static hudi_status value_from(hudi_avro_value *v, hudi_avro_arena *a, const void *src, const hudi_tl_type *t,
                              const char *what, int has_default, hudi_error *err) {
  if (!present(src, t)) {
    if (nullable(v->node)) return hudi_avro_value_set_null(v, a, err);
    if (has_default) return HUDI_OK;
    if (t->kind == HUDI_TL_ARRAY || t->kind == HUDI_TL_MAP) {
      hudi_avro_value *c;
      return branch_of(v, a, t->kind == HUDI_TL_MAP ? HUDI_AVRO_MAP : HUDI_AVRO_ARRAY, &c, what, err);
    }
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s: required by the Avro schema but not set", what);
  }
  switch (t->kind) {
    case HUDI_TL_STR: {
      const char *s = *(char *const *)src;
      return hudi_avro_value_set_string(v, a, s, strlen(s), err);
    }
    case HUDI_TL_LONG: return hudi_avro_value_set_long(v, a, ((const hudi_tl_long *)src)->v, err);
    case HUDI_TL_INT: return hudi_avro_value_set_long(v, a, ((const hudi_tl_int *)src)->v, err);
    case HUDI_TL_BOOL: return hudi_avro_value_set_boolean(v, a, ((const hudi_tl_bool *)src)->v, err);
    case HUDI_TL_DOUBLE: return hudi_avro_value_set_double(v, a, ((const hudi_tl_double *)src)->v, err);
    case HUDI_TL_REC: return rec_from(v, a, *(void *const *)src, t, err);
    case HUDI_TL_ARRAY:
    case HUDI_TL_MAP: {
      const hudi_tl_list *l = src;
      int is_map = t->kind == HUDI_TL_MAP;
      hudi_avro_value *c;
      HUDI_TRY(branch_of(v, a, is_map ? HUDI_AVRO_MAP : HUDI_AVRO_ARRAY, &c, what, err));
      size_t isz = item_size(t);
      for (size_t i = 0; i < l->n; i++) {
        const char *item = (const char *)l->items + i * isz;
        hudi_avro_value *iv;
        if (is_map) {
          const char *key = *(char *const *)item;
          if (!key) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s: map entry %zu has no key", what, i);
          HUDI_TRY(hudi_avro_value_put(c, a, key, &iv, err));
          item += t->value_offset;
        } else {
          HUDI_TRY(hudi_avro_value_append(c, a, &iv, err));
        }
        if (t->elem->kind == HUDI_TL_REC) HUDI_TRY(rec_from(iv, a, item, t->elem, err));
        else HUDI_TRY(value_from(iv, a, item, t->elem, what, 0, err));
      }
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "bad timeline type table");
}

hudi_status hudi_tl_to_value(hudi_avro_value *out, hudi_avro_arena *arena, const hudi_avro_node *n, const void *rec,
                             const hudi_tl_type *t, hudi_error *err) {
  HUDI_TRY(hudi_avro_value_init(out, arena, n, err));
  return rec_from(out, arena, rec, t, err);
}

/* ---------------------------------------------------------------- documents */

hudi_status hudi_tl_doc_new(void **out, const hudi_tl_type *t, hudi_tl_schema_id schema, hudi_error *err) {
  *out = NULL;
  hudi_tl_doc *d = hudi_calloc(1, t->size);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for %s", t->name);
  hudi_avro_arena_init(&d->arena, 0);
  d->schema = schema;
  *out = d;
  return HUDI_OK;
}

void hudi_tl_doc_free(void *doc) {
  if (!doc) return;
  hudi_avro_arena_free(&((hudi_tl_doc *)doc)->arena);
  hudi_free(doc);
}

static hudi_status read_file(hudi_tl_doc *d, const hudi_tl_type *t, const hudi_tl_schema_id *ids, size_t n_ids,
                             hudi_avro_file *f, hudi_error *err) {
  const char *wname = f->schema->root->name ? hudi_avro_short_name(f->schema->root->name) : "";
  const hudi_avro_meta *sm = hudi_avro_file_meta(f, "avro.schema");
  int reader = -1;
  for (size_t i = 0; i < n_ids; i++) {
    if (strcmp(hudi_tl_schema_record_name(ids[i]), wname) != 0) continue;
    if (reader < 0) reader = (int)i;
    size_t len;
    const char *js = hudi_tl_schema_json(ids[i], &len);
    if (sm && sm->len == len && memcmp(sm->value, js, len) == 0) {
      d->schema = ids[i];
      break;
    }
  }
  if (reader < 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: holds a %s record, expected %s", f->name, wname,
                        hudi_tl_schema_record_name(ids[0]));
  if (d->schema == HUDI_TL_SCHEMA_COUNT) d->schema = ids[reader];
  hudi_avro_schema *rs;
  HUDI_TRY(hudi_tl_schema_parse(&rs, ids[reader], err));
  hudi_avro_arena tmp;
  hudi_avro_arena_init(&tmp, 0);
  hudi_avro_value *vals = NULL;
  size_t n = 0;
  hudi_status st = hudi_avro_file_read_all(f, &tmp, rs->root, &vals, &n, NULL, NULL, err);
  if (st == HUDI_OK && n != 1)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: %zu records, a timeline file holds exactly one", f->name, n);
  if (st == HUDI_OK) {
    st = rec_into(d, t, hudi_avro_value_unwrap(&vals[0]), &d->arena, err);
    if (st != HUDI_OK) hudi_err_context(err, st, "%s", f->name);
  }
  hudi_avro_arena_free(&tmp);
  hudi_avro_schema_free(rs);
  return st;
}

hudi_status hudi_tl_read(void **out, const hudi_tl_type *t, const hudi_tl_schema_id *ids, size_t n_ids,
                         const uint8_t *data, size_t len, const char *name, hudi_error *err) {
  *out = NULL;
  if (!name) name = "timeline file";
  if (len == 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: empty file, expected an Avro %s", name, t->name);
  if (len > HUDI_TL_MAX_FILE) return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: %zu bytes is too large", name, len);
  hudi_avro_file f;
  HUDI_TRY(hudi_avro_file_open(&f, data, len, name, err));
  hudi_tl_doc *d;
  hudi_status st = hudi_tl_doc_new((void **)&d, t, HUDI_TL_SCHEMA_COUNT, err);
  if (st == HUDI_OK) st = read_file(d, t, ids, n_ids, &f, err);
  hudi_avro_file_close(&f);
  if (st != HUDI_OK) {
    hudi_tl_doc_free(d);
    return st;
  }
  *out = d;
  return HUDI_OK;
}

hudi_status hudi_tl_write(const void *doc, const hudi_tl_type *t, const uint8_t *sync, hudi_buf *out,
                          hudi_error *err) {
  const hudi_tl_doc *d = doc;
  size_t slen;
  const char *sjson = hudi_tl_schema_json(d->schema, &slen);
  hudi_avro_schema *s;
  HUDI_TRY(hudi_tl_schema_parse(&s, d->schema, err));
  hudi_avro_arena tmp;
  hudi_avro_arena_init(&tmp, 0);
  hudi_avro_value v;
  hudi_avro_writer w;
  int w_open = 0;
  hudi_avro_writer_opts opts = HUDI_AVRO_WRITER_OPTS_INIT;
  opts.sync = sync;
  opts.sync_interval = SIZE_MAX;
  hudi_status st = hudi_tl_to_value(&v, &tmp, s->root, doc, t, err);
  if (st == HUDI_OK) {
    st = hudi_avro_writer_init(&w, out, sjson, slen, &opts, err);
    w_open = st == HUDI_OK;
  }
  if (st == HUDI_OK) st = hudi_avro_writer_append(&w, &v, err);
  if (st == HUDI_OK) st = hudi_avro_writer_finish(&w, err);
  if (w_open) hudi_avro_writer_free(&w);
  hudi_avro_arena_free(&tmp);
  hudi_avro_schema_free(s);
  if (st != HUDI_OK) hudi_err_context(err, st, "writing %s", t->name);
  return st;
}

/* ---------------------------------------------------------------- building */

hudi_status hudi_tl_strdup(hudi_avro_arena *a, const char *s, char **out, hudi_error *err) {
  if (!s) {
    *out = NULL;
    return HUDI_OK;
  }
  return hudi_avro_arena_strndup(a, s, strlen(s), out, err);
}

hudi_status hudi_tl_list_push(hudi_tl_list *l, hudi_avro_arena *a, size_t item_size, void **item, hudi_error *err) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 4;
    void *p;
    HUDI_TRY(hudi_avro_arena_array(a, cap, item_size, &p, err));
    if (l->n) memcpy(p, l->items, l->n * item_size);
    l->items = p;
    l->cap = cap;
  }
  *item = (char *)l->items + l->n * item_size;
  memset(*item, 0, item_size);
  l->n++;
  l->has = 1;
  return HUDI_OK;
}

hudi_status hudi_tl_strs_push(hudi_tl_list *l, hudi_avro_arena *a, const char *s, hudi_error *err) {
  char *c;
  HUDI_TRY(hudi_tl_strdup(a, s, &c, err));
  void *item;
  HUDI_TRY(hudi_tl_list_push(l, a, sizeof(char *), &item, err));
  *(char **)item = c;
  return HUDI_OK;
}

hudi_status hudi_tl_str_map_set(hudi_tl_list *m, hudi_avro_arena *a, const char *key, const char *value,
                                hudi_error *err) {
  char *v;
  HUDI_TRY(hudi_tl_strdup(a, value, &v, err));
  hudi_tl_str_entry *e = m->items;
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(e[i].key, key) == 0) {
      e[i].value = v;
      return HUDI_OK;
    }
  void *item;
  HUDI_TRY(hudi_tl_list_push(m, a, sizeof(hudi_tl_str_entry), &item, err));
  hudi_tl_str_entry *ne = item;
  ne->value = v;
  return hudi_tl_strdup(a, key, &ne->key, err);
}

const char *hudi_tl_str_map_get(const hudi_tl_list *m, const char *key) {
  const hudi_tl_str_entry *e = m->items;
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(e[i].key, key) == 0) return e[i].value;
  return NULL;
}
