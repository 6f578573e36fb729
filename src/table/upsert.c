/* The keyed write verbs of include/hudi/write.h: each turns its input into
 * rows to upsert and/or keys to delete and runs the merge_write engine. */
#include <stdio.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "expr/assign.h"
#include "hudi/read.h"
#include "table/mdt_secondary_index.h"
#include "table/keygen.h"
#include "table/merge_write.h"
#include "table/write.h"
#include "table/write_rows.h"

static void reset(hudi_write_result **res, hudi_write_result *dummy) {
  if (!*res) *res = dummy;
  memset(*res, 0, sizeof **res);
}

/* Loads rows from stream (released) and upserts them. */
static hudi_status upsert_stream(hudi_write_result *res, hudi_table *t, struct ArrowArrayStream *stream,
                                 const hudi_option *opts, size_t n_opts, int mode, const char *op,
                                 hudi_error *err) {
  hudi_keygen kg;
  memset(&kg, 0, sizeof kg);
  hudi_write_rows rows;
  memset(&rows, 0, sizeof rows);
  hudi_status st = hudi_write_check_table_mdt(t, opts, n_opts, err);
  if (st == HUDI_OK) st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK) st = hudi_keygen_init(&kg, &t->props, t->version, err);
  if (st == HUDI_OK) st = hudi_write_rows_load(&rows, stream, &kg, true, err);
  else stream->release(stream);
  if (st == HUDI_OK) {
    hudi_merge_input in = {&rows, NULL, NULL, 0, op, mode};
    st = hudi_merge_write(res, t, &in, opts, n_opts, err);
  }
  hudi_write_rows_free(&rows);
  hudi_keygen_free(&kg);
  return st;
}

hudi_status hudi_table_upsert(hudi_write_result *result, hudi_table *table, struct ArrowArrayStream *stream,
                              const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_write_result dummy;
  reset(&result, &dummy);
  if (!table || !stream || !stream->release) {
    if (stream && stream->release) stream->release(stream);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_upsert needs a table and a stream");
  }
  return upsert_stream(result, table, stream, options, n_options, HUDI_MERGE_UPSERT, "UPSERT", err);
}

hudi_status hudi_table_overwrite(hudi_write_result *result, hudi_table *table, struct ArrowArrayStream *stream,
                                 hudi_overwrite_scope scope, const hudi_option *options, size_t n_options,
                                 hudi_error *err) {
  hudi_write_result dummy;
  reset(&result, &dummy);
  if (!table || !stream || !stream->release || (scope != HUDI_OVERWRITE_PARTITIONS && scope != HUDI_OVERWRITE_TABLE)) {
    if (stream && stream->release) stream->release(stream);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_overwrite needs a table, a stream and a scope");
  }
  bool table_scope = scope == HUDI_OVERWRITE_TABLE;
  if (hudi_si_listed(table)) {
    /* Hudi refuses it too (HoodieIndexException): replacing file groups
     * would need every replaced key's index entry removed. */
    stream->release(stream);
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has secondary indexes: overwrite is refused on such tables, as Apache Hudi refuses "
                        "it; delete and upsert the rows instead",
                        table->base_uri);
  }
  return upsert_stream(result, table, stream, options, n_options,
                       table_scope ? HUDI_MERGE_OVERWRITE_TABLE : HUDI_MERGE_OVERWRITE_PARTITIONS,
                       table_scope ? "INSERT_OVERWRITE_TABLE" : "INSERT_OVERWRITE", err);
}

static hudi_status delete_keys(hudi_write_result *res, hudi_table *t, const char *const *keys, const size_t *lens,
                               size_t n, const hudi_option *opts, size_t n_opts, hudi_error *err) {
  HUDI_TRY(hudi_write_check_table_mdt(t, opts, n_opts, err));
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  hudi_merge_input in = {NULL, keys, lens, n, "DELETE", HUDI_MERGE_UPSERT};
  return hudi_merge_write(res, t, &in, opts, n_opts, err);
}

hudi_status hudi_table_delete_keys(hudi_write_result *result, hudi_table *table, const char *const *keys,
                                   size_t n_keys, const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_write_result dummy;
  reset(&result, &dummy);
  if (!table || (n_keys && !keys)) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_delete_keys: no table");
  size_t *lens = hudi_calloc(n_keys + 1, sizeof *lens);
  if (!lens) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < n_keys && st == HUDI_OK; i++) {
    if (!keys[i] || !*keys[i]) st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record key %zu to delete is null or empty", i);
    else lens[i] = strlen(keys[i]);
  }
  if (st == HUDI_OK) st = delete_keys(result, table, keys, lens, n_keys, options, n_options, err);
  hudi_free(lens);
  return st;
}

/* Visits every batch of a read of t with ro: fn(ctx, view, schema). */
typedef hudi_status (*batch_fn)(void *ctx, const hudi_arrow_view *v, const hudi_arrow_field *f, hudi_error *err);

static hudi_status scan(hudi_table *t, const hudi_read_options *ro, batch_fn fn, void *ctx, hudi_error *err) {
  struct ArrowArrayStream s;
  HUDI_TRY(hudi_table_read(&s, t, ro, err));
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  hudi_arrow_field f;
  memset(&f, 0, sizeof f);
  hudi_status st = HUDI_OK;
  if (s.get_schema(&s, &schema) != 0) st = hudi_err_set(err, HUDI_ERR_IO, "reading table %s", t->base_uri);
  if (st == HUDI_OK) st = hudi_arrow_field_from_schema(&f, &schema, true, err);
  while (st == HUDI_OK) {
    struct ArrowArray a;
    memset(&a, 0, sizeof a);
    int rc = s.get_next(&s, &a);
    if (rc != 0) {
      const char *m = s.get_last_error ? s.get_last_error(&s) : NULL;
      st = hudi_err_set(err, hudi_arrow_stored_read_status(rc), "reading table %s: %s", t->base_uri, m ? m : "error");
      break;
    }
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    st = hudi_arrow_view_init(&v, &schema, &a, err);
    if (st == HUDI_OK) st = fn(ctx, &v, &f, err);
    hudi_arrow_view_clear(&v);
    if (a.release) a.release(&a);
  }
  hudi_arrow_field_clear(&f);
  if (schema.release) schema.release(&schema);
  s.release(&s);
  return st;
}

typedef struct key_sink {
  hudi_buf strings;
  size_t *offs, *lens;
  size_t n, cap;
} key_sink;

static hudi_status collect_keys(void *ctx, const hudi_arrow_view *v, const hudi_arrow_field *f, hudi_error *err) {
  (void)f;
  key_sink *k = ctx;
  for (int64_t i = 0; i < v->length; i++) {
    int64_t row = hudi_arrow_view_struct_row(v, i), len;
    if (hudi_arrow_view_is_null(&v->children[0], row)) continue;
    const uint8_t *p = hudi_arrow_view_bytes(&v->children[0], row, &len);
    if (k->n == k->cap) {
      size_t cap = k->cap ? 2 * k->cap : 256;
      size_t *o = hudi_realloc(k->offs, cap * sizeof *o);
      if (o) k->offs = o;
      size_t *l = hudi_realloc(k->lens, cap * sizeof *l);
      if (l) k->lens = l;
      if (!o || !l) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      k->cap = cap;
    }
    k->offs[k->n] = k->strings.len;
    k->lens[k->n++] = (size_t)len;
    HUDI_TRY(hudi_buf_append(&k->strings, p, (size_t)len, err));
  }
  return HUDI_OK;
}

hudi_status hudi_table_delete(hudi_write_result *result, hudi_table *table, const char *predicate,
                              const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_write_result dummy;
  reset(&result, &dummy);
  if (!table || !predicate || !*predicate)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_delete needs a table and a predicate");
  HUDI_TRY(hudi_write_check_table_mdt(table, options, n_options, err));
  HUDI_TRY(hudi_write_reload_timeline(table, err));
  static const char *const cols[] = {"_hoodie_record_key"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = hudi_write_snapshot_options;
  ro.n_options = hudi_write_n_snapshot_options;
  ro.filter_sql = predicate;
  ro.projection = cols;
  ro.n_projection = 1;
  key_sink k;
  memset(&k, 0, sizeof k);
  hudi_buf_init(&k.strings, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = scan(table, &ro, collect_keys, &k, err);
  const char **keys = NULL;
  if (st == HUDI_OK) {
    keys = hudi_calloc(k.n + 1, sizeof *keys);
    if (!keys) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == HUDI_OK && i < k.n; i++) keys[i] = (const char *)k.strings.data + k.offs[i];
  }
  if (st == HUDI_OK) st = delete_keys(result, table, keys, k.lens, k.n, options, n_options, err);
  hudi_free(keys);
  hudi_free(k.offs);
  hudi_free(k.lens);
  hudi_buf_free(&k.strings);
  return st;
}

/* ---- update ----------------------------------------------------------- */

typedef struct upd {
  hudi_assignments *a;
  struct ArrowArray *out;
  int64_t n, cap;
  hudi_arrow_field schema; /* of the rebuilt batches */
  bool have_schema;
} upd;

static hudi_status apply(void *ctx, const hudi_arrow_view *v, const hudi_arrow_field *f, hudi_error *err) {
  (void)f;
  upd *u = ctx;
  if (v->length == 0) return HUDI_OK;
  if (u->n == u->cap) {
    int64_t cap = u->cap ? 2 * u->cap : 16;
    struct ArrowArray *o = hudi_realloc(u->out, (size_t)cap * sizeof *o);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    u->out = o;
    u->cap = cap;
  }
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  HUDI_TRY(hudi_assignments_apply_batch(&u->out[u->n], &s, u->a, v, NULL, err));
  u->n++;
  hudi_status st = HUDI_OK;
  if (!u->have_schema) {
    st = hudi_arrow_field_from_schema(&u->schema, &s, true, err);
    u->have_schema = st == HUDI_OK;
  }
  if (s.release) s.release(&s);
  return st;
}

static hudi_status check_not_key(hudi_table *t, const char *column, hudi_error *err) {
  hudi_keygen kg;
  memset(&kg, 0, sizeof kg);
  HUDI_TRY(hudi_keygen_init(&kg, &t->props, t->version, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < kg.n_keys && st == HUDI_OK; i++)
    if (!strcmp(kg.key_fields[i], column))
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s' is a record key field and cannot be updated", column);
  hudi_keygen_free(&kg);
  return st;
}

static hudi_status update(hudi_write_result *res, hudi_table *t, const char *predicate,
                          const hudi_update_assignment *as, size_t n_as, const hudi_option *opts, size_t n_opts,
                          upd *u, hudi_error *err) {
  HUDI_TRY(hudi_write_check_table_mdt(t, opts, n_opts, err));
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  struct ArrowSchema ts;
  memset(&ts, 0, sizeof ts);
  hudi_arrow_field data;
  memset(&data, 0, sizeof data);
  HUDI_TRY(hudi_table_get_schema(&ts, t, false, err));
  hudi_status st = hudi_arrow_field_from_schema(&data, &ts, true, err);
  if (ts.release) ts.release(&ts);
  if (st == HUDI_OK) st = hudi_assignments_create(&u->a, &data, err);
  for (size_t i = 0; st == HUDI_OK && i < n_as; i++) {
    if (!as[i].column) {
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "assignment %zu has no column", i);
      break;
    }
    st = check_not_key(t, as[i].column, err);
    if (st != HUDI_OK) break;
    if (as[i].kind == HUDI_ASSIGN_STRING)
      st = hudi_assignments_add_string(u->a, as[i].column, as[i].value, as[i].value ? strlen(as[i].value) : 0, err);
    else st = hudi_assignments_add_sql(u->a, as[i].column, as[i].value ? as[i].value : "NULL", err);
  }
  const char **cols = NULL;
  if (st == HUDI_OK) {
    cols = hudi_calloc((size_t)data.n_children + 1, sizeof *cols);
    if (!cols) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; st == HUDI_OK && i < data.n_children; i++) cols[i] = data.children[i].name;
  }
  if (st == HUDI_OK) {
    hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
    ro.options = hudi_write_snapshot_options;
    ro.n_options = hudi_write_n_snapshot_options;
    ro.filter_sql = predicate && *predicate ? predicate : NULL;
    ro.projection = cols;
    ro.n_projection = (size_t)data.n_children;
    st = scan(t, &ro, apply, u, err);
  }
  hudi_free(cols);
  if (st == HUDI_OK && u->n == 0) {
    hudi_arrow_field_clear(&data);
    snprintf(res->action, sizeof res->action, "%s", t->type == HUDI_MERGE_ON_READ ? "deltacommit" : "commit");
    snprintf(res->operation, sizeof res->operation, "UPSERT");
    return HUDI_OK; /* nothing matched */
  }
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  if (st == HUDI_OK) {
    st = hudi_arrow_stream_from_batches(&s, &u->schema, u->out, u->n, err);
    u->n = 0; /* moved into s */
  }
  hudi_arrow_field_clear(&data);
  if (st == HUDI_OK) st = upsert_stream(res, t, &s, opts, n_opts, HUDI_MERGE_UPSERT, "UPSERT", err);
  return st;
}

hudi_status hudi_table_update(hudi_write_result *result, hudi_table *table, const char *predicate,
                              const hudi_update_assignment *assignments, size_t n_assignments,
                              const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_write_result dummy;
  reset(&result, &dummy);
  if (!table || !n_assignments || !assignments)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_update needs a table and at least one assignment");
  upd u;
  memset(&u, 0, sizeof u);
  hudi_status st = update(result, table, predicate, assignments, n_assignments, options, n_options, &u, err);
  for (int64_t i = 0; i < u.n; i++)
    if (u.out[i].release) u.out[i].release(&u.out[i]);
  hudi_free(u.out);
  hudi_arrow_field_clear(&u.schema);
  hudi_assignments_free(u.a);
  return st;
}
