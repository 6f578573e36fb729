/* Avro schema JSON -> node tree. Rules from the Avro 1.11 specification:
 * names and namespaces, named-type references, unions, logical types. */
#include "avro/schema.h"

#include <limits.h>
#include <string.h>

#include "base/alloc.h"

typedef struct parse_ctx {
  hudi_avro_schema *s;
  hudi_error *err;
} parse_ctx;

static const char *const type_names[] = {"null",   "boolean", "int",  "long",  "float",
                                         "double", "bytes",   "string", "record", "enum",
                                         "array",  "map",     "union", "fixed"};

const char *hudi_avro_type_name(hudi_avro_type t) {
  return (unsigned)t < sizeof type_names / sizeof type_names[0] ? type_names[t] : "?";
}

static int primitive_type(const char *name, hudi_avro_type *t) {
  for (int i = HUDI_AVRO_NULL; i <= HUDI_AVRO_STRING; i++) {
    if (strcmp(name, type_names[i]) == 0) {
      *t = (hudi_avro_type)i;
      return 1;
    }
  }
  return 0;
}

const char *hudi_avro_short_name(const char *full_name) {
  const char *dot = strrchr(full_name, '.');
  return dot ? dot + 1 : full_name;
}

/* [A-Za-z_][A-Za-z0-9_]* */
static int valid_simple_name(const char *p, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
  }
  return 1;
}

/* A dotted name; each component must be a simple name. An empty string is
 * the null namespace when allow_empty. */
static int valid_dotted_name(const char *name, int allow_empty) {
  if (!*name) return allow_empty;
  const char *p = name;
  for (;;) {
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    if (!valid_simple_name(p, n)) return 0;
    if (!dot) return 1;
    p = dot + 1;
  }
}

static hudi_status new_node(parse_ctx *c, hudi_avro_type t, json_t *j, hudi_avro_node **out) {
  void *p;
  HUDI_TRY(hudi_avro_arena_alloc(&c->s->arena, sizeof(hudi_avro_node), &p, c->err));
  hudi_avro_node *n = p;
  n->type = t;
  n->json = j;
  n->enum_default = -1;
  switch (t) {
    case HUDI_AVRO_NULL: n->min_size = 0; break;
    case HUDI_AVRO_FLOAT: n->min_size = 4; break;
    case HUDI_AVRO_DOUBLE: n->min_size = 8; break;
    default: n->min_size = 1; break; /* records and fixed set theirs later */
  }
  *out = n;
  return HUDI_OK;
}

static hudi_status dup_str(parse_ctx *c, const char *s, const char **out) {
  char *p;
  HUDI_TRY(hudi_avro_arena_strndup(&c->s->arena, s, strlen(s), &p, c->err));
  *out = p;
  return HUDI_OK;
}

/* ns.name, or name when ns is empty. */
static hudi_status join_name(parse_ctx *c, const char *ns, const char *name, const char **out) {
  if (!ns || !*ns || strchr(name, '.')) return dup_str(c, name, out);
  size_t a = strlen(ns), b = strlen(name);
  void *mem;
  HUDI_TRY(hudi_avro_arena_alloc(&c->s->arena, a + b + 2, &mem, c->err));
  char *p = mem;
  memcpy(p, ns, a);
  p[a] = '.';
  memcpy(p + a + 1, name, b + 1);
  *out = p;
  return HUDI_OK;
}

const hudi_avro_node *hudi_avro_schema_find(const hudi_avro_schema *s, const char *full_name) {
  for (uint32_t i = 0; i < s->n_named; i++)
    if (strcmp(s->named[i]->name, full_name) == 0) return s->named[i];
  return NULL;
}

static hudi_status register_named(parse_ctx *c, hudi_avro_node *n) {
  hudi_avro_schema *s = c->s;
  hudi_avro_type prim;
  if (primitive_type(n->name, &prim))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: a named type may not be called '%s'", n->name);
  if (hudi_avro_schema_find(s, n->name))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: type '%s' is defined twice", n->name);
  if (s->n_named == HUDI_AVRO_SCHEMA_MAX_NAMED)
    return hudi_err_set(c->err, HUDI_ERR_LIMIT, "Avro schema defines more than %d named types",
                        HUDI_AVRO_SCHEMA_MAX_NAMED);
  if (s->n_named == s->cap_named) {
    uint32_t cap = s->cap_named ? s->cap_named * 2 : 16;
    hudi_avro_node **p = hudi_realloc(s->named, cap * sizeof *p);
    if (!p) return hudi_err_set(c->err, HUDI_ERR_NOMEM, "out of memory");
    s->named = p;
    s->cap_named = cap;
  }
  s->named[s->n_named++] = n;
  return HUDI_OK;
}

/* A type name used as a reference: full name, or relative to ns. */
static hudi_status lookup_named(parse_ctx *c, const char *name, const char *ns, hudi_avro_node **out) {
  const hudi_avro_node *n = NULL;
  if (!strchr(name, '.') && ns && *ns) {
    const char *full;
    HUDI_TRY(join_name(c, ns, name, &full));
    n = hudi_avro_schema_find(c->s, full);
  }
  if (!n) n = hudi_avro_schema_find(c->s, name);
  if (!n) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: unknown type '%s'", name);
  *out = (hudi_avro_node *)n;
  return HUDI_OK;
}

static hudi_status parse_type(parse_ctx *c, json_t *j, const char *ns, int depth, hudi_avro_node **out);

/* A JSON string without embedded NULs (defaults may hold \u0000; names,
 * symbols and type names may not), or NULL. */
static const char *str_value(json_t *v) {
  if (!json_is_string(v)) return NULL;
  const char *s = json_string_value(v);
  return strlen(s) == json_string_length(v) ? s : NULL;
}

static const char *get_str(json_t *obj, const char *key) { return str_value(json_object_get(obj, key)); }

/* Full name and the namespace its children inherit. */
static hudi_status named_header(parse_ctx *c, json_t *j, const char *ns, hudi_avro_node *n,
                                const char **child_ns) {
  const char *name = get_str(j, "name");
  if (!name) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: %s without a string \"name\"",
                                 hudi_avro_type_name(n->type));
  json_t *nsj = json_object_get(j, "namespace");
  if (nsj && !str_value(nsj) && !json_is_null(nsj))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: \"namespace\" of '%s' is not a string", name);
  const char *own_ns = json_is_string(nsj) ? json_string_value(nsj) : ns;
  if (!valid_dotted_name(name, 0) || (own_ns && !valid_dotted_name(own_ns, 1)))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: invalid name '%s'", name);
  HUDI_TRY(join_name(c, own_ns, name, &n->name));
  /* Children inherit the namespace of the full name. */
  const char *dot = strrchr(n->name, '.');
  if (dot) {
    char *p;
    HUDI_TRY(hudi_avro_arena_strndup(&c->s->arena, n->name, (size_t)(dot - n->name), &p, c->err));
    *child_ns = p;
  } else {
    *child_ns = "";
  }
  json_t *al = json_object_get(j, "aliases");
  if (al) {
    if (!json_is_array(al))
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: \"aliases\" of '%s' is not an array", name);
    size_t na = json_array_size(al);
    void *p;
    HUDI_TRY(hudi_avro_arena_array(&c->s->arena, na, sizeof(char *), &p, c->err));
    n->aliases = p;
    for (size_t i = 0; i < na; i++) {
      json_t *a = json_array_get(al, i);
      if (!str_value(a) || !valid_dotted_name(json_string_value(a), 0))
        return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: bad alias in '%s'", name);
      HUDI_TRY(join_name(c, *child_ns, json_string_value(a), &n->aliases[i]));
    }
    n->n_aliases = (uint32_t)na;
  }
  return register_named(c, n);
}

static hudi_status parse_field(parse_ctx *c, json_t *fj, const char *ns, int depth, hudi_avro_node *rec,
                               uint32_t i) {
  hudi_avro_field *f = &rec->fields[i];
  if (!json_is_object(fj))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: field %u of '%s' is not an object", i,
                        rec->name);
  const char *name = get_str(fj, "name");
  if (!name || !valid_simple_name(name, strlen(name)))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: field %u of '%s' has an invalid name", i,
                        rec->name);
  for (uint32_t k = 0; k < i; k++)
    if (strcmp(rec->fields[k].name, name) == 0)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: field '%s' appears twice in '%s'", name,
                          rec->name);
  f->name = name; /* borrowed from the document, which lives as long */
  f->index = i;
  json_t *tj = json_object_get(fj, "type");
  if (!tj) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: field '%s' has no type", name);
  hudi_status st = parse_type(c, tj, ns, depth + 1, &f->type);
  if (st != HUDI_OK) return hudi_err_context(c->err, st, "field '%s.%s'", rec->name, name);
  f->default_json = json_object_get(fj, "default");
  json_t *al = json_object_get(fj, "aliases");
  if (json_is_array(al)) {
    size_t na = json_array_size(al);
    void *p;
    HUDI_TRY(hudi_avro_arena_array(&c->s->arena, na, sizeof(char *), &p, c->err));
    f->aliases = p;
    for (size_t k = 0; k < na; k++) {
      const char *a = str_value(json_array_get(al, k));
      if (!a) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: bad alias of field '%s'", name);
      f->aliases[k] = a;
    }
    f->n_aliases = (uint32_t)na;
  }
  return HUDI_OK;
}

static hudi_status parse_record(parse_ctx *c, json_t *j, const char *ns, int depth, hudi_avro_node *n) {
  const char *child_ns;
  HUDI_TRY(named_header(c, j, ns, n, &child_ns));
  json_t *fields = json_object_get(j, "fields");
  if (!json_is_array(fields))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: record '%s' has no \"fields\" array", n->name);
  size_t nf = json_array_size(fields);
  void *p;
  HUDI_TRY(hudi_avro_arena_array(&c->s->arena, nf, sizeof(hudi_avro_field), &p, c->err));
  n->fields = p;
  n->n_fields = (uint32_t)nf;
  uint64_t min = 0;
  for (uint32_t i = 0; i < nf; i++) {
    HUDI_TRY(parse_field(c, json_array_get(fields, i), child_ns, depth, n, i));
    min += n->fields[i].type->min_size;
  }
  n->min_size = min > UINT32_MAX ? UINT32_MAX : (uint32_t)min;
  return HUDI_OK;
}

static hudi_status parse_enum(parse_ctx *c, json_t *j, const char *ns, hudi_avro_node *n) {
  const char *child_ns;
  HUDI_TRY(named_header(c, j, ns, n, &child_ns));
  json_t *syms = json_object_get(j, "symbols");
  if (!json_is_array(syms))
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: enum '%s' has no \"symbols\" array", n->name);
  size_t ns_ = json_array_size(syms);
  void *p;
  HUDI_TRY(hudi_avro_arena_array(&c->s->arena, ns_, sizeof(char *), &p, c->err));
  n->symbols = p;
  for (size_t i = 0; i < ns_; i++) {
    const char *sym = str_value(json_array_get(syms, i));
    if (!sym || !valid_simple_name(sym, strlen(sym)))
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: enum '%s' has an invalid symbol", n->name);
    for (size_t k = 0; k < i; k++)
      if (strcmp(n->symbols[k], sym) == 0)
        return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: enum '%s' repeats symbol '%s'", n->name, sym);
    n->symbols[i] = sym;
  }
  n->n_symbols = (uint32_t)ns_;
  const char *def = get_str(j, "default");
  if (def) {
    n->enum_default = hudi_avro_enum_symbol(n, def);
    if (n->enum_default < 0)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: enum '%s' default '%s' is not a symbol",
                          n->name, def);
  }
  return HUDI_OK;
}

static hudi_status parse_fixed(parse_ctx *c, json_t *j, const char *ns, hudi_avro_node *n) {
  const char *child_ns;
  HUDI_TRY(named_header(c, j, ns, n, &child_ns));
  json_t *size = json_object_get(j, "size");
  if (!json_is_integer(size) || json_integer_value(size) < 0 || json_integer_value(size) > INT32_MAX)
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: fixed '%s' needs a non-negative int \"size\"",
                        n->name);
  n->size = (uint32_t)json_integer_value(size);
  n->min_size = n->size;
  return HUDI_OK;
}

/* Largest decimal precision a fixed of n bytes holds: floor(log10(2^(8n-1) - 1)). */
static int32_t fixed_max_precision(uint32_t n) {
  if (n == 0) return 0;
  if (n > 128) return INT32_MAX; /* beyond any realistic decimal */
  /* log10(2) * (8n - 1), computed without libm rounding surprises. */
  double digits = 0.30102999566398119521 * (8.0 * n - 1);
  return (int32_t)digits;
}

static void apply_logical(hudi_avro_node *n, json_t *j) {
  const char *lt = get_str(j, "logicalType");
  if (!lt) return;
  hudi_avro_type t = n->type;
  if (strcmp(lt, "decimal") == 0 && (t == HUDI_AVRO_BYTES || t == HUDI_AVRO_FIXED)) {
    json_t *pj = json_object_get(j, "precision"), *sj = json_object_get(j, "scale");
    if (!json_is_integer(pj) || (sj && !json_is_integer(sj))) return;
    json_int_t p = json_integer_value(pj), s = sj ? json_integer_value(sj) : 0;
    if (p <= 0 || p > INT32_MAX || s < 0 || s > p) return;
    if (t == HUDI_AVRO_FIXED && p > fixed_max_precision(n->size)) return;
    n->logical = HUDI_AVRO_LOGICAL_DECIMAL;
    n->precision = (int32_t)p;
    n->scale = (int32_t)s;
  } else if (strcmp(lt, "date") == 0 && t == HUDI_AVRO_INT) {
    n->logical = HUDI_AVRO_LOGICAL_DATE;
  } else if (strcmp(lt, "time-millis") == 0 && t == HUDI_AVRO_INT) {
    n->logical = HUDI_AVRO_LOGICAL_TIME_MILLIS;
  } else if (strcmp(lt, "time-micros") == 0 && t == HUDI_AVRO_LONG) {
    n->logical = HUDI_AVRO_LOGICAL_TIME_MICROS;
  } else if (strcmp(lt, "timestamp-millis") == 0 && t == HUDI_AVRO_LONG) {
    n->logical = HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS;
  } else if (strcmp(lt, "timestamp-micros") == 0 && t == HUDI_AVRO_LONG) {
    n->logical = HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS;
  } else if (strcmp(lt, "local-timestamp-millis") == 0 && t == HUDI_AVRO_LONG) {
    n->logical = HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS;
  } else if (strcmp(lt, "local-timestamp-micros") == 0 && t == HUDI_AVRO_LONG) {
    n->logical = HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS;
  } else if (strcmp(lt, "uuid") == 0 && t == HUDI_AVRO_STRING) {
    n->logical = HUDI_AVRO_LOGICAL_UUID;
  }
}

/* Two union branches clash when a datum could not say which it is:
 * same unnamed type (and logical type -- Hudi's delete-record union has
 * plain bytes and decimal bytes), or the same name. */
static int union_branches_clash(const hudi_avro_node *a, const hudi_avro_node *b) {
  if (a->type != b->type) return 0;
  if (a->name || b->name) return a->name && b->name && strcmp(a->name, b->name) == 0;
  return a->logical == b->logical;
}

static hudi_status parse_union(parse_ctx *c, json_t *j, const char *ns, int depth, hudi_avro_node *n) {
  size_t nb = json_array_size(j);
  void *p;
  HUDI_TRY(hudi_avro_arena_array(&c->s->arena, nb, sizeof(hudi_avro_node *), &p, c->err));
  n->branches = p;
  n->n_branches = (uint32_t)nb;
  for (size_t i = 0; i < nb; i++) {
    HUDI_TRY(parse_type(c, json_array_get(j, i), ns, depth + 1, &n->branches[i]));
    if (n->branches[i]->type == HUDI_AVRO_UNION)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: a union may not contain a union");
    for (size_t k = 0; k < i; k++)
      if (union_branches_clash(n->branches[k], n->branches[i]))
        return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: union has two '%s' branches",
                            n->branches[i]->name ? n->branches[i]->name
                                                 : hudi_avro_type_name(n->branches[i]->type));
  }
  return HUDI_OK;
}

static hudi_status parse_object(parse_ctx *c, json_t *j, const char *ns, int depth, hudi_avro_node **out) {
  const char *t = get_str(j, "type");
  if (!t) {
    json_t *tj = json_object_get(j, "type");
    /* {"type": {...}} and {"type": [...]}: Java rejects these; so do we. */
    return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: object %s a string \"type\"",
                        tj ? "with a non-string \"type\" instead of" : "without");
  }
  hudi_avro_type prim;
  hudi_avro_node *n;
  if (primitive_type(t, &prim)) {
    HUDI_TRY(new_node(c, prim, j, &n));
  } else if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
    HUDI_TRY(new_node(c, HUDI_AVRO_RECORD, j, &n));
    HUDI_TRY(parse_record(c, j, ns, depth, n));
  } else if (strcmp(t, "enum") == 0) {
    HUDI_TRY(new_node(c, HUDI_AVRO_ENUM, j, &n));
    HUDI_TRY(parse_enum(c, j, ns, n));
  } else if (strcmp(t, "fixed") == 0) {
    HUDI_TRY(new_node(c, HUDI_AVRO_FIXED, j, &n));
    HUDI_TRY(parse_fixed(c, j, ns, n));
  } else if (strcmp(t, "array") == 0 || strcmp(t, "map") == 0) {
    int is_array = t[0] == 'a';
    json_t *inner = json_object_get(j, is_array ? "items" : "values");
    if (!inner)
      return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: %s without \"%s\"", t,
                          is_array ? "items" : "values");
    HUDI_TRY(new_node(c, is_array ? HUDI_AVRO_ARRAY : HUDI_AVRO_MAP, j, &n));
    HUDI_TRY(parse_type(c, inner, ns, depth + 1, &n->items));
  } else {
    /* {"type": "some.Named"}: a reference written as an object. */
    return lookup_named(c, t, ns, out);
  }
  apply_logical(n, j);
  *out = n;
  return HUDI_OK;
}

static hudi_status parse_type(parse_ctx *c, json_t *j, const char *ns, int depth, hudi_avro_node **out) {
  if (depth > HUDI_AVRO_SCHEMA_MAX_DEPTH)
    return hudi_err_set(c->err, HUDI_ERR_LIMIT, "Avro schema nests deeper than %d levels",
                        HUDI_AVRO_SCHEMA_MAX_DEPTH);
  if (json_is_string(j)) {
    const char *t = str_value(j);
    hudi_avro_type prim;
    if (!t) return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: a type name holds a NUL");
    if (primitive_type(t, &prim)) return new_node(c, prim, j, out);
    return lookup_named(c, t, ns, out);
  }
  if (json_is_array(j)) {
    HUDI_TRY(new_node(c, HUDI_AVRO_UNION, j, out));
    return parse_union(c, j, ns, depth, *out);
  }
  if (json_is_object(j)) return parse_object(c, j, ns, depth, out);
  return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "Avro schema: a type must be a string, array or object");
}

hudi_status hudi_avro_schema_parse(hudi_avro_schema **out, const char *json, size_t len, hudi_error *err) {
  *out = NULL;
  if (len > HUDI_AVRO_SCHEMA_MAX_JSON)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Avro schema of %zu bytes exceeds the cap", len);
  hudi_avro_schema *s = hudi_calloc(1, sizeof *s);
  if (!s) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_avro_arena_init(&s->arena, 0);
  json_error_t jerr;
  s->doc = json_loadb(json, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
  if (!s->doc) {
    hudi_avro_schema_free(s);
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "Avro schema is not JSON: %s at byte %d", jerr.text,
                        jerr.position);
  }
  parse_ctx c = {s, err};
  hudi_status st = parse_type(&c, s->doc, "", 0, &s->root);
  if (st != HUDI_OK) {
    hudi_avro_schema_free(s);
    return st;
  }
  *out = s;
  return HUDI_OK;
}

void hudi_avro_schema_free(hudi_avro_schema *s) {
  if (!s) return;
  if (s->doc) json_decref(s->doc);
  hudi_avro_arena_free(&s->arena);
  hudi_free(s->named);
  hudi_free(s);
}

const hudi_avro_field *hudi_avro_record_field(const hudi_avro_node *rec, const char *name) {
  if (rec->type != HUDI_AVRO_RECORD) return NULL;
  for (uint32_t i = 0; i < rec->n_fields; i++)
    if (strcmp(rec->fields[i].name, name) == 0) return &rec->fields[i];
  for (uint32_t i = 0; i < rec->n_fields; i++)
    for (uint32_t k = 0; k < rec->fields[i].n_aliases; k++)
      if (strcmp(rec->fields[i].aliases[k], name) == 0) return &rec->fields[i];
  return NULL;
}

int32_t hudi_avro_enum_symbol(const hudi_avro_node *e, const char *symbol) {
  for (uint32_t i = 0; i < e->n_symbols; i++)
    if (strcmp(e->symbols[i], symbol) == 0) return (int32_t)i;
  return -1;
}
