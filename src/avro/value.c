/* Building and reading value trees: JSON defaults, fresh values, setters,
 * accessors, decimal text. */
#include <string.h>

#include "avro/value.h"

static hudi_status json_bad(hudi_error *err, const hudi_avro_node *n, const char *what) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro default for %s: %s",
                      n->name ? n->name : hudi_avro_type_name(n->type), what);
}

static hudi_status set_copy(hudi_avro_value *out, hudi_avro_arena *a, const void *p, size_t len,
                            hudi_error *err) {
  char *s;
  HUDI_TRY(hudi_avro_arena_strndup(a, p, len, &s, err));
  out->v.bytes.data = (const uint8_t *)s;
  out->v.bytes.len = len;
  return HUDI_OK;
}

/* JSON defaults of bytes/fixed are strings whose code points 0-255 are the bytes. */
static hudi_status json_latin1_bytes(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n,
                                     json_t *j, hudi_error *err) {
  const unsigned char *s = (const unsigned char *)json_string_value(j);
  size_t slen = json_string_length(j), k = 0;
  char *buf;
  HUDI_TRY(hudi_avro_arena_strndup(a, (const char *)s, slen, &buf, err));
  for (size_t i = 0; i < slen; k++) {
    if (s[i] < 0x80) {
      buf[k] = (char)s[i++];
    } else if ((s[i] & 0xe0) == 0xc0 && i + 1 < slen && s[i] <= 0xc3) {
      buf[k] = (char)(((s[i] & 0x1f) << 6) | (s[i + 1] & 0x3f));
      i += 2;
    } else {
      return json_bad(err, n, "bytes default with a character above U+00FF");
    }
  }
  buf[k] = 0;
  if (n->type == HUDI_AVRO_FIXED && k != n->size) return json_bad(err, n, "fixed default of the wrong length");
  out->v.bytes.data = (const uint8_t *)buf;
  out->v.bytes.len = k;
  return HUDI_OK;
}

static hudi_status from_json_at(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, json_t *j,
                                int depth, hudi_error *err);

static hudi_status json_union(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, json_t *j,
                              int depth, hudi_error *err) {
  void *p;
  HUDI_TRY(hudi_avro_arena_alloc(a, sizeof(hudi_avro_value), &p, err));
  out->v.u.value = p;
  /* The spec ties a union default to its first branch; Avro 1.12 and
   * fastavro accept any branch that fits, and so do we. */
  for (uint32_t i = 0; i < n->n_branches; i++) {
    hudi_error tmp = HUDI_ERROR_INIT;
    memset(p, 0, sizeof(hudi_avro_value));
    hudi_status st = from_json_at(p, a, n->branches[i], j, depth + 1, &tmp);
    if (st == HUDI_OK) {
      out->v.u.branch = i;
      return HUDI_OK;
    }
    if (st == HUDI_ERR_NOMEM || st == HUDI_ERR_LIMIT) return hudi_err_set(err, st, "%s", tmp.message);
  }
  return json_bad(err, n, "value fits no branch of the union");
}

static hudi_status json_record(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, json_t *j,
                               int depth, hudi_error *err) {
  if (!json_is_object(j)) return json_bad(err, n, "not a JSON object");
  void *p;
  HUDI_TRY(hudi_avro_arena_array(a, n->n_fields, sizeof(hudi_avro_value), &p, err));
  out->v.list.items = p;
  out->v.list.n = out->v.list.cap = n->n_fields;
  for (uint32_t i = 0; i < n->n_fields; i++) {
    const hudi_avro_field *f = &n->fields[i];
    json_t *fj = json_object_get(j, f->name);
    if (!fj) fj = f->default_json;
    if (!fj) return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro default for %s lacks field '%s'", n->name, f->name);
    HUDI_TRY(from_json_at(&out->v.list.items[i], a, f->type, fj, depth + 1, err));
  }
  return HUDI_OK;
}

static hudi_status json_collection(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, json_t *j,
                                   int depth, hudi_error *err) {
  int is_map = n->type == HUDI_AVRO_MAP;
  if (is_map ? !json_is_object(j) : !json_is_array(j))
    return json_bad(err, n, is_map ? "not a JSON object" : "not a JSON array");
  size_t cnt = is_map ? json_object_size(j) : json_array_size(j);
  void *p;
  HUDI_TRY(hudi_avro_arena_array(a, cnt, sizeof(hudi_avro_value), &p, err));
  if (!is_map) {
    out->v.list.items = p;
    out->v.list.n = out->v.list.cap = cnt;
    for (size_t i = 0; i < cnt; i++)
      HUDI_TRY(from_json_at(&out->v.list.items[i], a, n->items, json_array_get(j, i), depth + 1, err));
    return HUDI_OK;
  }
  out->v.map.values = p;
  HUDI_TRY(hudi_avro_arena_array(a, cnt, sizeof(hudi_avro_str), &p, err));
  out->v.map.keys = p;
  out->v.map.cap = cnt;
  const char *key;
  json_t *val;
  size_t i = 0;
  json_object_foreach(j, key, val) {
    char *k;
    HUDI_TRY(hudi_avro_arena_strndup(a, key, strlen(key), &k, err));
    out->v.map.keys[i].data = k;
    out->v.map.keys[i].len = strlen(key);
    HUDI_TRY(from_json_at(&out->v.map.values[i], a, n->items, val, depth + 1, err));
    out->v.map.n = ++i;
  }
  return HUDI_OK;
}

static hudi_status from_json_at(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, json_t *j,
                                int depth, hudi_error *err) {
  if (depth > HUDI_AVRO_MAX_DATA_DEPTH) return json_bad(err, n, "nested too deeply");
  out->node = n;
  switch (n->type) {
    case HUDI_AVRO_NULL: return json_is_null(j) ? HUDI_OK : json_bad(err, n, "not null");
    case HUDI_AVRO_BOOLEAN:
      if (!json_is_boolean(j)) return json_bad(err, n, "not a boolean");
      out->v.boolean = json_is_true(j);
      return HUDI_OK;
    case HUDI_AVRO_INT:
      if (!json_is_integer(j) || json_integer_value(j) < INT32_MIN || json_integer_value(j) > INT32_MAX)
        return json_bad(err, n, "not a 32-bit integer");
      out->v.i = (int32_t)json_integer_value(j);
      return HUDI_OK;
    case HUDI_AVRO_LONG:
      if (!json_is_integer(j)) return json_bad(err, n, "not an integer");
      out->v.l = json_integer_value(j);
      return HUDI_OK;
    case HUDI_AVRO_FLOAT:
    case HUDI_AVRO_DOUBLE:
      if (!json_is_number(j)) return json_bad(err, n, "not a number");
      if (n->type == HUDI_AVRO_FLOAT) out->v.f = (float)json_number_value(j);
      else out->v.d = json_number_value(j);
      return HUDI_OK;
    case HUDI_AVRO_STRING:
      if (!json_is_string(j)) return json_bad(err, n, "not a string");
      return set_copy(out, a, json_string_value(j), json_string_length(j), err);
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_FIXED:
      if (!json_is_string(j)) return json_bad(err, n, "not a string");
      return json_latin1_bytes(out, a, n, j, err);
    case HUDI_AVRO_ENUM: {
      int32_t k = json_is_string(j) ? hudi_avro_enum_symbol(n, json_string_value(j)) : -1;
      if (k < 0) return json_bad(err, n, "not one of the enum's symbols");
      out->v.symbol = (uint32_t)k;
      return HUDI_OK;
    }
    case HUDI_AVRO_UNION: return json_union(out, a, n, j, depth, err);
    case HUDI_AVRO_RECORD: return json_record(out, a, n, j, depth, err);
    case HUDI_AVRO_ARRAY:
    case HUDI_AVRO_MAP: return json_collection(out, a, n, j, depth, err);
  }
  return json_bad(err, n, "unknown type");
}

hudi_status hudi_avro_value_from_json(hudi_avro_value *out, hudi_avro_arena *arena, const hudi_avro_node *n,
                                      json_t *j, hudi_error *err) {
  memset(out, 0, sizeof *out);
  return from_json_at(out, arena, n, j, 0, err);
}

/* ---- fresh values ---- */

static hudi_status init_at(hudi_avro_value *out, hudi_avro_arena *a, const hudi_avro_node *n, int depth,
                           hudi_error *err) {
  if (depth > HUDI_AVRO_MAX_DATA_DEPTH)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Avro schema %s cannot be initialised: it has no finite value",
                        n->name ? n->name : hudi_avro_type_name(n->type));
  memset(out, 0, sizeof *out);
  out->node = n;
  switch (n->type) {
    case HUDI_AVRO_STRING:
    case HUDI_AVRO_BYTES: return set_copy(out, a, "", 0, err);
    case HUDI_AVRO_FIXED: {
      void *p;
      HUDI_TRY(hudi_avro_arena_alloc(a, (size_t)n->size + 1, &p, err));
      out->v.bytes.data = p;
      out->v.bytes.len = n->size;
      return HUDI_OK;
    }
    case HUDI_AVRO_ENUM:
      /* The spec does not forbid an enum without symbols, but no value has it. */
      if (n->n_symbols == 0)
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro enum %s has no symbols, so no value", n->name);
      return HUDI_OK; /* the first symbol */
    case HUDI_AVRO_UNION: {
      if (n->n_branches == 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "empty Avro union has no value");
      void *p;
      HUDI_TRY(hudi_avro_arena_alloc(a, sizeof(hudi_avro_value), &p, err));
      out->v.u.value = p;
      return init_at(p, a, n->branches[0], depth + 1, err);
    }
    case HUDI_AVRO_RECORD: {
      void *p;
      HUDI_TRY(hudi_avro_arena_array(a, n->n_fields, sizeof(hudi_avro_value), &p, err));
      out->v.list.items = p;
      out->v.list.n = out->v.list.cap = n->n_fields;
      for (uint32_t i = 0; i < n->n_fields; i++) {
        const hudi_avro_field *f = &n->fields[i];
        if (f->default_json) HUDI_TRY(hudi_avro_value_from_json(&out->v.list.items[i], a, f->type, f->default_json, err));
        else HUDI_TRY(init_at(&out->v.list.items[i], a, f->type, depth + 1, err));
      }
      return HUDI_OK;
    }
    default: return HUDI_OK; /* zero numbers, first symbol, empty collections */
  }
}

hudi_status hudi_avro_value_init(hudi_avro_value *out, hudi_avro_arena *arena, const hudi_avro_node *n,
                                 hudi_error *err) {
  return init_at(out, arena, n, 0, err);
}

/* ---- accessors ---- */

const hudi_avro_value *hudi_avro_value_unwrap(const hudi_avro_value *v) {
  if (v && v->node && v->node->type == HUDI_AVRO_UNION) return v->v.u.value;
  return v;
}

hudi_avro_value *hudi_avro_value_field(const hudi_avro_value *rec, const char *name) {
  rec = hudi_avro_value_unwrap(rec);
  if (!rec || !rec->node || rec->node->type != HUDI_AVRO_RECORD) return NULL;
  const hudi_avro_field *f = hudi_avro_record_field(rec->node, name);
  return f && f->index < rec->v.list.n ? &rec->v.list.items[f->index] : NULL;
}

hudi_avro_value *hudi_avro_value_map_get(const hudi_avro_value *map, const char *key) {
  map = hudi_avro_value_unwrap(map);
  if (!map || !map->node || map->node->type != HUDI_AVRO_MAP) return NULL;
  size_t len = strlen(key);
  for (size_t i = 0; i < map->v.map.n; i++)
    if (map->v.map.keys[i].len == len && memcmp(map->v.map.keys[i].data, key, len) == 0) return &map->v.map.values[i];
  return NULL;
}

int hudi_avro_value_is_null(const hudi_avro_value *v) {
  v = hudi_avro_value_unwrap(v);
  return !v || !v->node || v->node->type == HUDI_AVRO_NULL;
}

/* ---- setters ---- */

/* For a union, selects the first branch whose type is in `types` (a bit
 * set of hudi_avro_type); returns the value to fill, or NULL. */
static hudi_status target(hudi_avro_value *v, hudi_avro_arena *a, unsigned types, hudi_avro_value **out,
                          hudi_error *err) {
  const hudi_avro_node *n = v->node;
  if (n && n->type == HUDI_AVRO_UNION) {
    if (v->v.u.value && v->v.u.value->node && (types >> v->v.u.value->node->type & 1u)) {
      *out = v->v.u.value;
      return HUDI_OK;
    }
    for (uint32_t i = 0; i < n->n_branches; i++)
      if (types >> n->branches[i]->type & 1u) return hudi_avro_value_select(v, a, i, out, err);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro union has no branch for this value");
  }
  if (!n || !(types >> n->type & 1u))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Avro value of type %s cannot take this value",
                        n ? hudi_avro_type_name(n->type) : "(none)");
  *out = v;
  return HUDI_OK;
}

#define BIT(t) (1u << (t))

hudi_status hudi_avro_value_select(hudi_avro_value *v, hudi_avro_arena *a, uint32_t branch,
                                   hudi_avro_value **out, hudi_error *err) {
  const hudi_avro_node *n = v->node;
  if (!n || n->type != HUDI_AVRO_UNION || branch >= n->n_branches)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "no union branch %u to select", branch);
  void *p;
  HUDI_TRY(hudi_avro_arena_alloc(a, sizeof(hudi_avro_value), &p, err));
  HUDI_TRY(hudi_avro_value_init(p, a, n->branches[branch], err));
  v->v.u.branch = branch;
  v->v.u.value = p;
  *out = p;
  return HUDI_OK;
}

hudi_status hudi_avro_value_set_null(hudi_avro_value *v, hudi_avro_arena *a, hudi_error *err) {
  hudi_avro_value *t;
  return target(v, a, BIT(HUDI_AVRO_NULL), &t, err);
}

hudi_status hudi_avro_value_set_boolean(hudi_avro_value *v, hudi_avro_arena *a, int b, hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_BOOLEAN), &t, err));
  t->v.boolean = b != 0;
  return HUDI_OK;
}

static void store_number(hudi_avro_value *t, int64_t l, double d, int is_int) {
  switch (t->node->type) {
    case HUDI_AVRO_INT: t->v.i = (int32_t)l; break;
    case HUDI_AVRO_LONG: t->v.l = l; break;
    case HUDI_AVRO_FLOAT: t->v.f = is_int ? (float)l : (float)d; break;
    default: t->v.d = is_int ? (double)l : d; break;
  }
}

hudi_status hudi_avro_value_set_long(hudi_avro_value *v, hudi_avro_arena *a, int64_t l, hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_LONG) | BIT(HUDI_AVRO_INT) | BIT(HUDI_AVRO_DOUBLE) | BIT(HUDI_AVRO_FLOAT), &t,
                  err));
  if (t->node->type == HUDI_AVRO_INT && (l < INT32_MIN || l > INT32_MAX))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%lld does not fit an Avro int", (long long)l);
  store_number(t, l, 0, 1);
  return HUDI_OK;
}

hudi_status hudi_avro_value_set_double(hudi_avro_value *v, hudi_avro_arena *a, double d, hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_DOUBLE) | BIT(HUDI_AVRO_FLOAT), &t, err));
  store_number(t, 0, d, 0);
  return HUDI_OK;
}

hudi_status hudi_avro_value_set_string(hudi_avro_value *v, hudi_avro_arena *a, const char *s, size_t len,
                                       hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_STRING) | BIT(HUDI_AVRO_BYTES) | BIT(HUDI_AVRO_FIXED) | BIT(HUDI_AVRO_ENUM), &t,
                  err));
  const hudi_avro_node *n = t->node;
  if (n->type == HUDI_AVRO_ENUM) {
    char *sym;
    HUDI_TRY(hudi_avro_arena_strndup(a, s, len, &sym, err));
    int32_t k = hudi_avro_enum_symbol(n, sym);
    if (k < 0) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s' is not a symbol of enum %s", sym, n->name);
    t->v.symbol = (uint32_t)k;
    return HUDI_OK;
  }
  if (n->type == HUDI_AVRO_FIXED && len != n->size)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "fixed %s needs %u bytes, got %zu", n->name, n->size, len);
  return set_copy(t, a, s, len, err);
}

hudi_status hudi_avro_value_append(hudi_avro_value *v, hudi_avro_arena *a, hudi_avro_value **item,
                                   hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_ARRAY), &t, err));
  if (t->v.list.n == t->v.list.cap) {
    size_t cap = t->v.list.cap ? t->v.list.cap * 2 : 4;
    void *p;
    HUDI_TRY(hudi_avro_arena_array(a, cap, sizeof(hudi_avro_value), &p, err));
    if (t->v.list.n) memcpy(p, t->v.list.items, t->v.list.n * sizeof(hudi_avro_value));
    t->v.list.items = p;
    t->v.list.cap = cap;
  }
  hudi_avro_value *it = &t->v.list.items[t->v.list.n];
  HUDI_TRY(hudi_avro_value_init(it, a, t->node->items, err));
  t->v.list.n++;
  *item = it;
  return HUDI_OK;
}

hudi_status hudi_avro_value_put(hudi_avro_value *v, hudi_avro_arena *a, const char *key, hudi_avro_value **item,
                                hudi_error *err) {
  hudi_avro_value *t;
  HUDI_TRY(target(v, a, BIT(HUDI_AVRO_MAP), &t, err));
  if (t->v.map.n == t->v.map.cap) {
    size_t cap = t->v.map.cap ? t->v.map.cap * 2 : 4;
    void *p, *k;
    HUDI_TRY(hudi_avro_arena_array(a, cap, sizeof(hudi_avro_value), &p, err));
    HUDI_TRY(hudi_avro_arena_array(a, cap, sizeof(hudi_avro_str), &k, err));
    if (t->v.map.n) {
      memcpy(p, t->v.map.values, t->v.map.n * sizeof(hudi_avro_value));
      memcpy(k, t->v.map.keys, t->v.map.n * sizeof(hudi_avro_str));
    }
    t->v.map.values = p;
    t->v.map.keys = k;
    t->v.map.cap = cap;
  }
  size_t i = t->v.map.n;
  char *kc;
  HUDI_TRY(hudi_avro_arena_strndup(a, key, strlen(key), &kc, err));
  t->v.map.keys[i].data = kc;
  t->v.map.keys[i].len = strlen(key);
  HUDI_TRY(hudi_avro_value_init(&t->v.map.values[i], a, t->node->items, err));
  t->v.map.n++;
  *item = &t->v.map.values[i];
  return HUDI_OK;
}

/* ---- decimals ---- */

hudi_status hudi_avro_decimal_to_string(const uint8_t *data, size_t len, int32_t scale, hudi_buf *out,
                                        hudi_error *err) {
  if (len > 64) return hudi_err_set(err, HUDI_ERR_LIMIT, "decimal of %zu bytes is too long", len);
  if (scale < 0 || scale > 100) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "decimal scale %d", scale);
  uint8_t mag[64];
  int neg = len > 0 && (data[0] & 0x80);
  /* Magnitude of the two's complement value. */
  for (size_t i = 0; i < len; i++) mag[i] = neg ? (uint8_t)~data[i] : data[i];
  if (neg)
    for (size_t i = len; i-- > 0;)
      if (++mag[i] != 0) break;
  char digits[160];
  size_t nd = 0;
  /* Repeated division by 10 of the big-endian magnitude. */
  for (;;) {
    int nonzero = 0;
    unsigned rem = 0;
    for (size_t i = 0; i < len; i++) {
      unsigned cur = rem << 8 | mag[i];
      mag[i] = (uint8_t)(cur / 10);
      rem = cur % 10;
      nonzero |= mag[i];
    }
    digits[nd++] = (char)('0' + rem);
    if (!nonzero) break;
  }
  while (nd <= (size_t)scale) digits[nd++] = '0';
  if (neg) HUDI_TRY(hudi_buf_append_byte(out, '-', err));
  for (size_t i = nd; i-- > 0;) {
    HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)digits[i], err));
    if (scale > 0 && i == (size_t)scale) HUDI_TRY(hudi_buf_append_byte(out, '.', err));
  }
  return HUDI_OK;
}
