/* Table schema resolution (see schema_resolve.h). */
#include "table/schema_resolve.h"

#include <string.h>

#include "avro/arrow_schema.h"
#include "avro/schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "parquet/reader.h"
#include "table/fsview.h"

/* Instant metadata files are small; anything larger is not one. */
#define INSTANT_META_MAX ((size_t)256 << 20)

hudi_status hudi_table_instant_metadata(hudi_commit_metadata **out, hudi_table *t, const hudi_instant *in,
                                        hudi_error *err) {
  char path[160];
  snprintf(path, sizeof path, "%s/%s", t->timeline.dir, in->file_name);
  hudi_buf b;
  hudi_buf_init(&b, INSTANT_META_MAX);
  hudi_status st = hudi_storage_read_all(t->storage, path, INSTANT_META_MAX, &b, err);
  if (st == HUDI_OK) {
    int replace = strcmp(in->action, "replacecommit") == 0;
    st = hudi_commit_metadata_parse(out, b.data ? b.data : (const uint8_t *)"", b.len, replace, path, err);
  }
  hudi_buf_free(&b);
  return st;
}

bool hudi_instant_is_write(const hudi_instant *in) {
  if (in->state != HUDI_INSTANT_COMPLETED) return false;
  return strcmp(in->action, "commit") == 0 || strcmp(in->action, "deltacommit") == 0 ||
         strcmp(in->action, "replacecommit") == 0;
}

/* Writes whose metadata does not describe the writer's schema. */
static bool schema_source_skipped(const hudi_instant *in, const hudi_commit_metadata *m) {
  if (strcmp(in->requested_action, "compaction") == 0 || strcmp(in->requested_action, "clustering") == 0 ||
      strcmp(in->requested_action, "logcompaction") == 0)
    return true;
  const char *op = m->operation_type;
  return op && (strcmp(op, "COMPACT") == 0 || strcmp(op, "CLUSTER") == 0 || strcmp(op, "INDEX") == 0 ||
                strcmp(op, "LOG_COMPACT") == 0);
}

static bool is_meta_name(const char *name) {
  for (int i = 0; i < HUDI_AVRO_N_META_FIELDS; i++)
    if (name && strcmp(name, hudi_avro_meta_field_names[i]) == 0) return true;
  return false;
}

/* out = [meta fields when with_meta] + data columns of `data` (a struct),
 * in its order, meta-named columns dropped. */
static hudi_status assemble(hudi_arrow_field *out, const hudi_arrow_field *data, bool with_meta, hudi_error *err) {
  int64_t n_data = 0;
  for (int64_t i = 0; i < data->n_children; i++)
    if (!is_meta_name(data->children[i].name)) n_data++;
  int64_t n = n_data + (with_meta ? HUDI_AVRO_N_META_FIELDS : 0);
  HUDI_TRY(hudi_arrow_field_init(out, "", "+s", 0, err));
  hudi_status st = hudi_arrow_field_alloc_children(out, n, err);
  int64_t k = 0;
  for (int i = 0; st == HUDI_OK && with_meta && i < HUDI_AVRO_N_META_FIELDS; i++)
    st = hudi_arrow_field_init(&out->children[k++], hudi_avro_meta_field_names[i], "u", ARROW_FLAG_NULLABLE, err);
  for (int64_t i = 0; st == HUDI_OK && i < data->n_children; i++) {
    if (is_meta_name(data->children[i].name)) continue;
    st = hudi_arrow_field_copy(&out->children[k++], &data->children[i], false, err);
  }
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}

static hudi_status from_avro_text(hudi_arrow_field *out, const char *json, bool with_meta, const char *where,
                                  hudi_error *err) {
  hudi_avro_schema *s = NULL;
  hudi_status st = hudi_avro_schema_parse(&s, json, strlen(json), err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "table schema from %s", where);
  hudi_arrow_field data;
  memset(&data, 0, sizeof data);
  st = hudi_avro_schema_to_arrow(&data, s->root, err);
  if (st == HUDI_OK) st = assemble(out, &data, with_meta, err);
  else hudi_err_context(err, st, "table schema from %s", where);
  hudi_arrow_field_clear(&data);
  hudi_avro_schema_free(s);
  return st;
}

static hudi_status from_parquet(hudi_arrow_field *out, hudi_table *t, const char *path, bool with_meta,
                                hudi_error *err) {
  hudi_pq_reader *r = NULL;
  HUDI_TRY(hudi_pq_reader_open(&r, t->storage, path, NULL, err));
  hudi_status st = assemble(out, hudi_pq_reader_schema(r), with_meta, err);
  hudi_pq_reader_free(r);
  return st;
}

/* A Parquet base file written by m (path of its first stat). */
static const char *first_base_path(const hudi_commit_metadata *m) {
  size_t np;
  const hudi_partition_write_stats *ps = hudi_commit_metadata_partitions(m, &np);
  for (size_t i = 0; i < np; i++) {
    size_t ns;
    const hudi_write_stat *ws = hudi_partition_stats(&ps[i], &ns);
    for (size_t j = 0; j < ns; j++) {
      const char *p = ws[j].path;
      size_t l = p ? strlen(p) : 0;
      if (l > 8 && strcmp(p + l - 8, ".parquet") == 0) return p;
    }
  }
  return NULL;
}

hudi_status hudi_table_resolve_schema(hudi_arrow_field *out, hudi_table *t, bool with_meta, hudi_error *err) {
  memset(out, 0, sizeof *out);
  /* Java's TableSchemaResolver: the latest completed write whose metadata
   * carries a schema (walking back past writes without one, e.g. a blank
   * commit file), else hoodie.table.create.schema, else the Parquet schema
   * of a base file the latest write names. */
  const hudi_timeline *tl = &t->timeline;
  char base[1024] = "";
  bool seen_write = false;
  for (size_t i = tl->count; i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (!hudi_instant_is_write(in)) continue;
    hudi_commit_metadata *m = NULL;
    HUDI_TRY(hudi_table_instant_metadata(&m, t, in, err));
    if (schema_source_skipped(in, m)) {
      hudi_commit_metadata_free(m);
      continue;
    }
    const char *schema = hudi_commit_metadata_schema(m);
    if (!seen_write) {
      const char *p = first_base_path(m);
      if (p && strlen(p) < sizeof base) snprintf(base, sizeof base, "%s", p);
      seen_write = true;
    }
    hudi_status st = schema ? from_avro_text(out, schema, with_meta, in->file_name, err) : HUDI_ERR_NOT_FOUND;
    hudi_commit_metadata_free(m);
    if (st != HUDI_ERR_NOT_FOUND) return st;
  }
  const char *create = hudi_props_get(&t->props, "hoodie.table.create.schema");
  if (create && *create) return from_avro_text(out, create, with_meta, "hoodie.table.create.schema", err);
  if (base[0]) return from_parquet(out, t, base, with_meta, err);
  return hudi_err_set(err, HUDI_ERR_NOT_FOUND,
                      "table %s has no schema: no completed commit with one, and no hoodie.table.create.schema",
                      t->base_uri);
}
