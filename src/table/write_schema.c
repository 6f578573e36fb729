/* Schema evolution on write (write_schema.h). */
#include "table/write_schema.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arrow/builder.h"
#include "avro/arrow_schema.h"
#include "avro/schema.h"
#include "base/alloc.h"
#include "table/schema_resolve.h"
#include "table/write.h"
#include "table/write_convert.h"

hudi_status hudi_write_current_schema(char **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  for (size_t i = t->timeline.count; i-- > 0;) {
    const hudi_instant *in = &t->timeline.items[i];
    if (!hudi_instant_is_write(in)) continue;
    if (!strcmp(in->requested_action, "compaction") || !strcmp(in->requested_action, "clustering") ||
        !strcmp(in->requested_action, "logcompaction"))
      continue;
    hudi_commit_metadata *m = NULL;
    HUDI_TRY(hudi_table_instant_metadata(&m, t, in, err));
    const char *s = hudi_commit_metadata_schema(m);
    const char *op = m->operation_type ? m->operation_type : "";
    bool usable = s && *s && strcmp(op, "COMPACT") && strcmp(op, "CLUSTER") && strcmp(op, "LOG_COMPACT") &&
                  strcmp(op, "INDEX");
    if (usable) *out = hudi_strdup(s);
    hudi_commit_metadata_free(m);
    if (usable) return *out ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  return HUDI_OK;
}

static bool is_meta_name(const char *name) {
  for (int i = 0; i < HUDI_AVRO_N_META_FIELDS; i++)
    if (name && !strcmp(name, hudi_avro_meta_field_names[i])) return true;
  return false;
}

/* The table's data columns (meta columns dropped) from its Avro schema. */
static hudi_status table_columns(hudi_arrow_field *out, const char *json, hudi_error *err) {
  memset(out, 0, sizeof *out);
  hudi_avro_schema *s = NULL;
  HUDI_TRY(hudi_avro_schema_parse(&s, json, strlen(json), err));
  hudi_arrow_field all;
  memset(&all, 0, sizeof all);
  hudi_status st = hudi_avro_schema_to_arrow(&all, s->root, err);
  int64_t n = 0;
  for (int64_t i = 0; st == HUDI_OK && i < all.n_children; i++) n += !is_meta_name(all.children[i].name);
  if (st == HUDI_OK) st = hudi_arrow_field_init(out, "", "+s", 0, err);
  if (st == HUDI_OK) st = hudi_arrow_field_alloc_children(out, n, err);
  for (int64_t i = 0, k = 0; st == HUDI_OK && i < all.n_children; i++)
    if (!is_meta_name(all.children[i].name)) st = hudi_arrow_field_copy(&out->children[k++], &all.children[i], false, err);
  hudi_arrow_field_clear(&all);
  hudi_avro_schema_free(s);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}

static int64_t find(const hudi_arrow_field *f, const char *name) {
  for (int64_t i = 0; i < f->n_children; i++)
    if (f->children[i].name && name && !strcmp(f->children[i].name, name)) return i;
  return -1;
}

/* Same stored type: formats match (timestamps by unit and whether they
 * carry a zone; list and map child names aside), struct fields by name. */
static bool same_type(const hudi_arrow_field *a, const hudi_arrow_field *b) {
  if (a->type.id != b->type.id || a->n_children != b->n_children) return false;
  if (a->type.id == HUDI_ARROW_TIMESTAMP)
    return a->type.unit == b->type.unit && (a->type.timezone_len > 0) == (b->type.timezone_len > 0);
  if (strcmp(a->format, b->format) != 0) return false;
  for (int64_t i = 0; i < a->n_children; i++) {
    if (a->type.id == HUDI_ARROW_STRUCT &&
        (!a->children[i].name || !b->children[i].name || strcmp(a->children[i].name, b->children[i].name)))
      return false;
    if (!same_type(&a->children[i], &b->children[i])) return false;
  }
  return true;
}

typedef enum prim { P_OTHER, P_INT, P_LONG, P_FLOAT, P_DOUBLE, P_STRING, P_BYTES } prim;

static prim prim_of(const hudi_arrow_field *f) {
  switch (f->type.id) {
    case HUDI_ARROW_INT32: return P_INT;
    case HUDI_ARROW_INT64: return P_LONG;
    case HUDI_ARROW_FLOAT: return P_FLOAT;
    case HUDI_ARROW_DOUBLE: return P_DOUBLE;
    case HUDI_ARROW_STRING: return P_STRING;
    case HUDI_ARROW_BINARY: return P_BYTES;
    default: return P_OTHER;
  }
}

/* Hudi's canonicalisation (SchemaChangeUtils.shouldPromoteType, the cases
 * hudi-c converts): incoming values of `from` are written as `to`. */
static bool promotable(prim from, prim to) {
  switch (from) {
    case P_INT: return to == P_LONG || to == P_FLOAT || to == P_DOUBLE || to == P_STRING;
    case P_LONG: return to == P_FLOAT || to == P_DOUBLE || to == P_STRING;
    case P_FLOAT: return to == P_DOUBLE;
    case P_STRING: return to == P_BYTES;
    case P_BYTES: return to == P_STRING;
    default: return false;
  }
}

/* Avro schema resolution: a reader of type `reader` reads data written as
 * `writer` (the new schema must read the table's files). */
static bool avro_reads(prim writer, prim reader) {
  switch (writer) {
    case P_INT: return reader == P_LONG || reader == P_FLOAT || reader == P_DOUBLE;
    case P_LONG: return reader == P_FLOAT || reader == P_DOUBLE;
    case P_FLOAT: return reader == P_DOUBLE;
    case P_STRING: return reader == P_BYTES;
    case P_BYTES: return reader == P_STRING;
    default: return false;
  }
}

static bool in_list(const char *list, const char *name) {
  if (!list || !name) return false;
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    while (*p == ' ') p++;
    size_t len = strcspn(p, ",:");
    if (len == n && !strncmp(p, name, n)) return true;
    p += strcspn(p, ",");
    if (*p == ',') p++;
  }
  return false;
}

static bool is_key_field(const hudi_table *t, const char *name) {
  return in_list(hudi_props_get(&t->props, "hoodie.table.recordkey.fields"), name) ||
         in_list(hudi_props_get(&t->props, "hoodie.datasource.write.recordkey.field"), name) ||
         in_list(hudi_props_get(&t->props, "hoodie.table.partition.fields"), name) ||
         in_list(hudi_props_get(&t->props, "hoodie.datasource.write.partitionpath.field"), name);
}

static bool opt_true(const hudi_table *t, const hudi_option *o, size_t n, const char *key) {
  const char *v = hudi_write_option(t, o, n, key);
  return v && !strcasecmp(v, "true");
}

static const char *cname(const hudi_arrow_field *f) { return f->name ? f->name : "(unnamed)"; }

static hudi_status copy_nullable(hudi_arrow_field *out, const hudi_arrow_field *in, hudi_error *err) {
  HUDI_TRY(hudi_arrow_field_copy(out, in, false, err));
  out->flags |= ARROW_FLAG_NULLABLE;
  return HUDI_OK;
}

static bool nested(const hudi_arrow_field *f) {
  return f->type.id == HUDI_ARROW_STRUCT || f->type.id == HUDI_ARROW_LIST || f->type.id == HUDI_ARROW_MAP;
}

/* Changes Hudi accepts that hudi-c does not make: nested columns (new
 * fields inside a struct, element types), decimal precision, double/float
 * or date to string (Java's text forms). */
static bool hudi_unsupported_change(const hudi_arrow_field *tc, const hudi_arrow_field *dc) {
  if (nested(tc) && nested(dc)) return true;
  if (tc->type.id == HUDI_ARROW_DECIMAL && dc->type.id == HUDI_ARROW_DECIMAL) return true;
  prim dp = prim_of(dc);
  bool date = dc->type.id == HUDI_ARROW_DATE32;
  return prim_of(tc) == P_STRING && (dp == P_FLOAT || dp == P_DOUBLE || date);
}

/* One table column present in the data: its writer type. */
static hudi_status merge_column(hudi_arrow_field *out, const hudi_table *t, const hudi_arrow_field *tc,
                                const hudi_arrow_field *dc, bool *widened, hudi_error *err) {
  if (same_type(tc, dc)) return copy_nullable(out, tc, err);
  prim tp = prim_of(tc), dp = prim_of(dc);
  bool key = is_key_field(t, cname(tc));
  bool ints = (tp == P_INT || tp == P_LONG) && (dp == P_INT || dp == P_LONG);
  if (key && !ints)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "column '%s' is a record key or partition field of table %s: its type cannot change from %s "
                        "to %s",
                        cname(tc), t->base_uri, hudi_arrow_type_name(tc->type.id), hudi_arrow_type_name(dc->type.id));
  if (promotable(dp, tp)) return copy_nullable(out, tc, err);
  if (avro_reads(tp, dp)) {
    *widened = true;
    return copy_nullable(out, dc, err);
  }
  if (hudi_unsupported_change(tc, dc))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "column '%s' of table %s has type %s, the data has %s: Hudi may allow this change, hudi-c "
                        "does not (it evolves top-level int, long, float, double, string and bytes columns)",
                        cname(tc), t->base_uri, tc->format, dc->format);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "column '%s' of table %s has type %s, the data has %s: not a promotion Hudi allows (the new "
                      "schema must read the table's files)",
                      cname(tc), t->base_uri, hudi_arrow_type_name(tc->type.id), hudi_arrow_type_name(dc->type.id));
}

/* The writer schema w and, per column of w, its column in the data (-1:
 * written as null). */
static hudi_status deduce(hudi_arrow_field *w, int64_t *src, const hudi_table *t, const hudi_arrow_field *table,
                          const hudi_arrow_field *data, bool fill_missing, bool *evolved, hudi_error *err) {
  int64_t n_new = 0;
  for (int64_t i = 0; i < data->n_children; i++) n_new += find(table, data->children[i].name) < 0;
  HUDI_TRY(hudi_arrow_field_init(w, "", "+s", 0, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(w, table->n_children + n_new, err));
  *evolved = n_new > 0;
  int64_t k = 0;
  for (int64_t i = 0; i < table->n_children; i++, k++) {
    const hudi_arrow_field *tc = &table->children[i];
    int64_t d = find(data, tc->name);
    src[k] = d;
    if (d >= 0) {
      HUDI_TRY(merge_column(&w->children[k], t, tc, &data->children[d], evolved, err));
      continue;
    }
    if (!fill_missing)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "the data has no column '%s' of table %s: Hudi refuses writes that drop a column (set "
                          "hoodie.write.set.null.for.missing.columns=true to write it as null)",
                          cname(tc), t->base_uri);
    if (is_key_field(t, cname(tc)))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data has no column '%s', a record key or partition field",
                          cname(tc));
    if (!(tc->flags & ARROW_FLAG_NULLABLE)) *evolved = true; /* relaxed to nullable */
    HUDI_TRY(copy_nullable(&w->children[k], tc, err));
  }
  for (int64_t i = 0; i < data->n_children; i++) {
    if (find(table, data->children[i].name) >= 0) continue;
    src[k] = i;
    HUDI_TRY(copy_nullable(&w->children[k++], &data->children[i], err));
  }
  return HUDI_OK;
}

/* Whether rows stored as `stored` already are the writer schema w. */
static bool already(const hudi_arrow_field *w, const int64_t *src, const hudi_arrow_field *stored) {
  if (w->n_children != stored->n_children) return false;
  for (int64_t k = 0; k < w->n_children; k++)
    if (src[k] != k || !same_type(&w->children[k], &stored->children[k])) return false;
  return true;
}

/* Rebuilds every batch of r in schema w. */
static hudi_status rebuild(hudi_write_rows *r, const hudi_arrow_field *w, const int64_t *src, hudi_error *err) {
  /* Keys read in place leave with the old arrays: copied first. */
  HUDI_TRY(hudi_write_rows_own_keys(r, err));
  hudi_arrow_batch_builder *bb = NULL;
  HUDI_TRY(hudi_arrow_batch_builder_create(&bb, w, err));
  hudi_status st = HUDI_OK;
  /* New arrays replace old ones batch by batch; views are made again once
   * the new schema is in place (the old views borrow the old schema). */
  for (size_t b = 0; st == HUDI_OK && b < r->n_batches; b++) {
    hudi_write_batch *wb = &r->batches[b];
    const hudi_arrow_view *v = &wb->view;
    for (int64_t i = 0; st == HUDI_OK && i < v->length; i++) {
      int64_t row = hudi_arrow_view_struct_row(v, i);
      for (int64_t k = 0; st == HUDI_OK && k < w->n_children; k++) {
        hudi_arrow_builder *cb = hudi_arrow_batch_builder_column(bb, k);
        st = src[k] < 0 ? hudi_arrow_builder_append_null(cb, err)
                        : hudi_write_append_converted(cb, &v->children[src[k]], row, err);
      }
      if (st == HUDI_OK) st = hudi_arrow_batch_builder_end_row(bb, err);
    }
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    if (st == HUDI_OK) st = hudi_arrow_batch_builder_finish(bb, &a, err);
    if (st != HUDI_OK) break;
    hudi_arrow_view_clear(&wb->view);
    if (wb->array.release) wb->array.release(&wb->array);
    wb->array = a;
  }
  hudi_arrow_batch_builder_free(bb);
  if (st != HUDI_OK) return st;
  struct ArrowSchema ns;
  memset(&ns, 0, sizeof ns);
  HUDI_TRY(hudi_arrow_field_export(&ns, w, err));
  if (r->schema.release) r->schema.release(&r->schema);
  r->schema = ns;
  hudi_arrow_field_clear(&r->input);
  hudi_arrow_field_clear(&r->stored);
  HUDI_TRY(hudi_arrow_field_copy(&r->input, w, false, err));
  HUDI_TRY(hudi_arrow_field_copy(&r->stored, w, false, err));
  for (size_t b = 0; b < r->n_batches; b++)
    HUDI_TRY(hudi_arrow_view_init(&r->batches[b].view, &r->schema, &r->batches[b].array, err));
  return HUDI_OK;
}

hudi_status hudi_write_rows_evolve(hudi_write_rows *rows, hudi_table *t, const hudi_option *opts, size_t n_opts,
                                   bool *evolved, hudi_error *err) {
  bool ev = false;
  if (evolved) *evolved = false;
  /* Every write's rows carry the ordering field: merges compare it (a
   * stored record without it cannot lose or win by it), as upserts have
   * always required. */
  char ob[256];
  const char *of = hudi_table_ordering_field(t, ob, sizeof ob);
  if (of && hudi_arrow_field_child_index(&rows->input, of) < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data has no column '%s' (the table's ordering field)", of);
  char *json = NULL;
  HUDI_TRY(hudi_write_current_schema(&json, t, err));
  if (!json) return HUDI_OK; /* the first write: the data's schema */
  hudi_arrow_field table, w;
  memset(&table, 0, sizeof table);
  memset(&w, 0, sizeof w);
  hudi_status st = table_columns(&table, json, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "the schema of table %s", t->base_uri);
  hudi_free(json);
  bool fill = opt_true(t, opts, n_opts, "hoodie.write.set.null.for.missing.columns") ||
              opt_true(t, opts, n_opts, "hoodie.datasource.write.set.null.for.missing.columns");
  int64_t *src = NULL;
  if (st == HUDI_OK) {
    src = hudi_calloc((size_t)(table.n_children + rows->stored.n_children) + 1, sizeof *src);
    if (!src) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  if (st == HUDI_OK) st = deduce(&w, src, t, &table, &rows->stored, fill, &ev, err);
  if (st == HUDI_OK && !already(&w, src, &rows->stored)) st = rebuild(rows, &w, src, err);
  if (st == HUDI_OK && evolved) *evolved = ev;
  hudi_free(src);
  hudi_arrow_field_clear(&w);
  hudi_arrow_field_clear(&table);
  return st;
}
