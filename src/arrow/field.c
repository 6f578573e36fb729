#include "arrow/field.h"

#include <stdio.h>
#include <string.h>

#include "arrow/metadata.h"
#include "base/alloc.h"

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory copying an Arrow schema");
}

hudi_status hudi_arrow_field_init(hudi_arrow_field *f, const char *name, const char *format,
                                  int64_t flags, hudi_error *err) {
  memset(f, 0, sizeof *f);
  if (!format) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow field '%s' has no format",
                                   name ? name : "");
  f->format = hudi_strdup(format);
  if (!f->format) return nomem(err);
  if (name && !(f->name = hudi_strdup(name))) {
    hudi_arrow_field_clear(f);
    return nomem(err);
  }
  hudi_status st = hudi_arrow_type_parse(&f->type, f->format, err);
  if (st != HUDI_OK) {
    hudi_arrow_field_clear(f);
    return st;
  }
  f->flags = flags;
  return HUDI_OK;
}

int64_t hudi_arrow_field_child_index(const hudi_arrow_field *f, const char *name) {
  for (int64_t i = 0; i < f->n_children; i++)
    if (f->children[i].name && strcmp(f->children[i].name, name) == 0) return i;
  return -1;
}

hudi_status hudi_arrow_field_alloc_children(hudi_arrow_field *f, int64_t n, hudi_error *err) {
  if (n < 0 || n > HUDI_ARROW_MAX_CHILDREN)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Arrow field '%s': %lld children out of range",
                        f->name ? f->name : "", (long long)n);
  hudi_arrow_field *c = n ? hudi_calloc((size_t)n, sizeof *c) : NULL;
  if (n && !c) return nomem(err);
  for (int64_t i = 0; i < f->n_children; i++) hudi_arrow_field_clear(&f->children[i]);
  hudi_free(f->children);
  f->children = c;
  f->n_children = n;
  return HUDI_OK;
}

hudi_status hudi_arrow_field_set_metadata(hudi_arrow_field *f, const char *metadata, hudi_error *err) {
  size_t size;
  int32_t n;
  HUDI_TRY(hudi_arrow_metadata_size(&size, &n, metadata, err));
  char *copy = NULL;
  if (metadata) {
    if (!(copy = hudi_malloc(size))) return nomem(err);
    memcpy(copy, metadata, size);
  }
  hudi_free(f->metadata);
  f->metadata = copy;
  f->metadata_size = size;
  return HUDI_OK;
}

void hudi_arrow_field_clear(hudi_arrow_field *f) {
  if (!f) return;
  for (int64_t i = 0; i < f->n_children; i++) hudi_arrow_field_clear(&f->children[i]);
  hudi_free(f->children);
  if (f->dictionary) {
    hudi_arrow_field_clear(f->dictionary);
    hudi_free(f->dictionary);
  }
  hudi_free(f->name);
  hudi_free(f->format);
  hudi_free(f->metadata);
  memset(f, 0, sizeof *f);
}

/* ---- copying from an ArrowSchema (or another field) ---- */

/* Either source of a copy: an ArrowSchema node or a field node. */
typedef struct src_node {
  const struct ArrowSchema *schema;
  const hudi_arrow_field *field;
} src_node;

static const char *src_name(src_node s) { return s.schema ? s.schema->name : s.field->name; }
static const char *src_format(src_node s) { return s.schema ? s.schema->format : s.field->format; }
static int64_t src_flags(src_node s) { return s.schema ? s.schema->flags : s.field->flags; }
static const char *src_metadata(src_node s) { return s.schema ? s.schema->metadata : s.field->metadata; }
static int64_t src_n_children(src_node s) { return s.schema ? s.schema->n_children : s.field->n_children; }

static src_node src_child(src_node s, int64_t i) {
  src_node c = {NULL, NULL};
  if (s.schema)
    c.schema = s.schema->children ? s.schema->children[i] : NULL;
  else
    c.field = &s.field->children[i];
  return c;
}

static src_node src_dictionary(src_node s) {
  src_node d = {NULL, NULL};
  if (s.schema)
    d.schema = s.schema->dictionary;
  else
    d.field = s.field->dictionary;
  return d;
}

static bool src_null(src_node s) { return !s.schema && !s.field; }

typedef struct copy_ctx {
  bool normalise;
  char path[512]; /* dotted column path, for messages */
} copy_ctx;

static hudi_status bad_column(copy_ctx *c, hudi_error *err, hudi_status code, const char *what) {
  return hudi_err_set(err, code, "Arrow schema, column '%s': %s", c->path, what);
}

static hudi_status copy_node(hudi_arrow_field *out, src_node s, copy_ctx *c, int depth,
                             hudi_error *err);

/* The format a normalised copy carries instead of view types. */
static const char *normalised_format(const char *format, const hudi_arrow_type *t) {
  if (t->id == HUDI_ARROW_STRING_VIEW) return "u";
  if (t->id == HUDI_ARROW_BINARY_VIEW) return "z";
  return format;
}

static hudi_status check_children(const hudi_arrow_field *out, src_node s, copy_ctx *c,
                                  hudi_error *err) {
  int want = hudi_arrow_type_n_children(out->type.id);
  int64_t n = src_n_children(s);
  if (n < 0 || n > HUDI_ARROW_MAX_CHILDREN) return bad_column(c, err, HUDI_ERR_LIMIT, "bad child count");
  if (want >= 0 && n != want) {
    char msg[128];
    snprintf(msg, sizeof msg, "type %s needs %d children, the schema has %lld",
             hudi_arrow_type_name(out->type.id), want, (long long)n);
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, msg);
  }
  if (n > 0 && s.schema && !s.schema->children)
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "children pointer is NULL");
  return HUDI_OK;
}

static hudi_status copy_children(hudi_arrow_field *out, src_node s, copy_ctx *c, int depth,
                                 hudi_error *err) {
  HUDI_TRY(check_children(out, s, c, err));
  int64_t n = src_n_children(s);
  HUDI_TRY(hudi_arrow_field_alloc_children(out, n, err));
  size_t plen = strlen(c->path);
  for (int64_t i = 0; i < n; i++) {
    src_node child = src_child(s, i);
    if (src_null(child)) return bad_column(c, err, HUDI_ERR_INVALID_ARG, "a child schema is NULL");
    const char *cn = src_name(child);
    snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "", cn && *cn ? cn : "?");
    hudi_status st = copy_node(&out->children[i], child, c, depth + 1, err);
    c->path[plen] = '\0';
    HUDI_TRY(st);
  }
  if (out->type.id == HUDI_ARROW_MAP &&
      (out->children[0].type.id != HUDI_ARROW_STRUCT || out->children[0].n_children != 2))
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "a map's child must be a struct of key and value");
  return HUDI_OK;
}

/* Copies the dictionary of a dictionary-encoded node; with normalise the
 * value type replaces the index type, keeping the outer name and flags. */
static hudi_status copy_dictionary(hudi_arrow_field *out, src_node s, copy_ctx *c, int depth,
                                   hudi_error *err) {
  if (!hudi_arrow_type_is_signed_int(out->type.id) && !hudi_arrow_type_is_unsigned_int(out->type.id))
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "dictionary index type must be an integer");
  if (out->type.id > HUDI_ARROW_UINT64)
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "dictionary index type must be an integer");
  if (src_n_children(s) != 0)
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "dictionary indices cannot have children");
  hudi_arrow_field *d = hudi_calloc(1, sizeof *d);
  if (!d) return nomem(err);
  hudi_status st = copy_node(d, src_dictionary(s), c, depth + 1, err);
  if (st != HUDI_OK) {
    hudi_arrow_field_clear(d);
    hudi_free(d);
    return st;
  }
  if (!c->normalise) {
    out->dictionary = d;
    return HUDI_OK;
  }
  /* Keep name, nullability and metadata of the outer field; take everything
   * else. The ordered-dictionary flag means nothing once decoded. */
  out->flags &= ~(int64_t)ARROW_FLAG_DICTIONARY_ORDERED;
  hudi_free(out->format);
  out->format = d->format;
  out->type = d->type;
  out->n_children = d->n_children;
  out->children = d->children;
  hudi_free(d->name);
  hudi_free(d->metadata);
  hudi_free(d);
  return HUDI_OK;
}

static hudi_status copy_node(hudi_arrow_field *out, src_node s, copy_ctx *c, int depth,
                             hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (depth > HUDI_ARROW_MAX_DEPTH) return bad_column(c, err, HUDI_ERR_LIMIT, "nesting too deep");
  if (s.schema && !s.schema->release)
    return bad_column(c, err, HUDI_ERR_INVALID_ARG, "schema was already released");
  hudi_arrow_type t;
  hudi_status st = hudi_arrow_type_parse(&t, src_format(s), err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "Arrow schema, column '%s'", c->path);
  const char *format = c->normalise ? normalised_format(src_format(s), &t) : src_format(s);
  HUDI_TRY(hudi_arrow_field_init(out, src_name(s), format, src_flags(s), err));
  st = hudi_arrow_field_set_metadata(out, src_metadata(s), err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "Arrow schema, column '%s'", c->path);
  if (!src_null(src_dictionary(s))) return copy_dictionary(out, s, c, depth, err);
  return copy_children(out, s, c, depth, err);
}

static hudi_status copy_root(hudi_arrow_field *out, src_node s, bool normalise, hudi_error *err) {
  copy_ctx c = {.normalise = normalise};
  const char *n = src_null(s) ? NULL : src_name(s);
  snprintf(c.path, sizeof c.path, "%s", n ? n : "");
  if (src_null(s)) {
    memset(out, 0, sizeof *out);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "Arrow schema is NULL");
  }
  hudi_status st = copy_node(out, s, &c, 0, err);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}

hudi_status hudi_arrow_field_from_schema(hudi_arrow_field *out, const struct ArrowSchema *schema,
                                         bool normalise, hudi_error *err) {
  src_node s = {schema, NULL};
  return copy_root(out, s, normalise, err);
}

hudi_status hudi_arrow_field_copy(hudi_arrow_field *out, const hudi_arrow_field *in, bool normalise,
                                  hudi_error *err) {
  src_node s = {NULL, in};
  return copy_root(out, s, normalise, err);
}

/* ---- export ---- */

typedef struct schema_priv {
  char *format, *name, *metadata;
  struct ArrowSchema **children;
  struct ArrowSchema *child_storage;
  struct ArrowSchema *dictionary;
} schema_priv;

static void release_schema(struct ArrowSchema *s) {
  if (!s || !s->release) return;
  schema_priv *p = s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = p->children[i];
    if (c && c->release) c->release(c);
  }
  if (p->dictionary && p->dictionary->release) p->dictionary->release(p->dictionary);
  hudi_free(p->dictionary);
  hudi_free(p->children);
  hudi_free(p->child_storage);
  hudi_free(p->format);
  hudi_free(p->name);
  hudi_free(p->metadata);
  hudi_free(p);
  s->release = NULL;
}

static hudi_status export_node(struct ArrowSchema *out, const hudi_arrow_field *f);

static hudi_status export_parts(struct ArrowSchema *out, schema_priv *p, const hudi_arrow_field *f) {
  if (!(p->format = hudi_strdup(f->format))) return HUDI_ERR_NOMEM;
  if (f->name && !(p->name = hudi_strdup(f->name))) return HUDI_ERR_NOMEM;
  if (f->metadata) {
    if (!(p->metadata = hudi_malloc(f->metadata_size))) return HUDI_ERR_NOMEM;
    memcpy(p->metadata, f->metadata, f->metadata_size);
  }
  out->format = p->format;
  out->name = p->name;
  out->metadata = p->metadata;
  if (f->n_children) {
    p->child_storage = hudi_calloc((size_t)f->n_children, sizeof *p->child_storage);
    p->children = hudi_calloc((size_t)f->n_children, sizeof *p->children);
    if (!p->child_storage || !p->children) return HUDI_ERR_NOMEM;
    out->children = p->children;
    for (int64_t i = 0; i < f->n_children; i++) {
      p->children[i] = &p->child_storage[i];
      HUDI_TRY(export_node(&p->child_storage[i], &f->children[i]));
      out->n_children = i + 1; /* release only what was made */
    }
  }
  if (f->dictionary) {
    if (!(p->dictionary = hudi_calloc(1, sizeof *p->dictionary))) return HUDI_ERR_NOMEM;
    HUDI_TRY(export_node(p->dictionary, f->dictionary));
    out->dictionary = p->dictionary;
  }
  return HUDI_OK;
}

/* Fills *out; on failure everything made so far is released and
 * out->release is NULL. */
static hudi_status export_node(struct ArrowSchema *out, const hudi_arrow_field *f) {
  memset(out, 0, sizeof *out);
  schema_priv *p = hudi_calloc(1, sizeof *p);
  if (!p) return HUDI_ERR_NOMEM;
  out->flags = f->flags;
  out->private_data = p;
  out->release = release_schema;
  hudi_status st = export_parts(out, p, f);
  if (st != HUDI_OK) release_schema(out);
  return st;
}

hudi_status hudi_arrow_field_export(struct ArrowSchema *out, const hudi_arrow_field *f, hudi_error *err) {
  struct ArrowSchema tmp;
  if (export_node(&tmp, f) != HUDI_OK)
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory exporting Arrow schema '%s'",
                        f->name ? f->name : "");
  *out = tmp;
  return HUDI_OK;
}
