/* Which columns a commit's column stats cover (mdt_column_stats.h,
 * hudi_cs_commit_columns): Hudi's HoodieTableMetadataUtil.getColumnsToIndex
 * over the commit's writer schema, reconciled with the index definition's
 * sourceFields. */
#include "table/mdt_column_stats.h"

#include <string.h>

#include "avro/arrow_schema.h"
#include "base/alloc.h"
#include "table/commit_metadata.h"
#include "table/properties.h"
#include "table/table.h"
#include "table/write.h"

/* HoodieTableMetadataUtil's decimal bound: column stats hold
 * decimal(30, 15) (DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE). */
#define DECIMAL_MAX_PRECISION 30
#define DECIMAL_MAX_SCALE 15

/* META_COLS_TO_ALWAYS_INDEX in TreeMap (name) order. */
static const char *const META_COLS[] = {"_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key"};

/* The five meta columns, and _hoodie_operation (Hudi's
 * HOODIE_META_COLUMNS_WITH_OPERATION). */
static bool is_meta_column(const char *name) {
  for (size_t i = 0; i < HUDI_AVRO_N_META_FIELDS; i++)
    if (!strcmp(name, hudi_avro_meta_field_names[i])) return true;
  return !strcmp(name, "_hoodie_operation");
}

/* The types whose V1 records hudi-c writes (mdt_column_stats.c,
 * v1_writable): V1 wraps the statistics of other timestamps, times and
 * plain fixed values by their Java class, which hudi-c does not write. */
static bool v1_writable(const hudi_avro_node *n) {
  switch (n->logical) {
    case HUDI_AVRO_LOGICAL_TIME_MILLIS:
    case HUDI_AVRO_LOGICAL_TIME_MICROS:
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: return false;
    case HUDI_AVRO_LOGICAL_DECIMAL: return true;
    default: return n->type != HUDI_AVRO_FIXED;
  }
}

/* isColumnTypeSupported with the AVRO record type (what the v9 fixtures'
 * lists show: fixed decimals indexed): the nullable union's branch must
 * not be a record, array, map or enum, and a decimal must fit
 * decimal(30, 15). v1: also a type hudi-c writes V1 records of (Spark
 * 1.0.2, the V1 writer, refuses local timestamps altogether). */
static bool type_supported(const hudi_avro_node *n, bool v1) {
  if (n->type == HUDI_AVRO_UNION) {
    const hudi_avro_node *only = NULL;
    for (uint32_t i = 0; i < n->n_branches; i++) {
      if (n->branches[i]->type == HUDI_AVRO_NULL) continue;
      if (only) return false; /* not a nullable type: Java's resolveNullableSchema refuses it */
      only = n->branches[i];
    }
    if (!only) return true;
    n = only;
  }
  if (n->logical == HUDI_AVRO_LOGICAL_DECIMAL &&
      (n->precision + (DECIMAL_MAX_SCALE - n->scale) > DECIMAL_MAX_PRECISION || n->scale > DECIMAL_MAX_SCALE))
    return false;
  if (v1 && !v1_writable(n)) return false;
  return n->type != HUDI_AVRO_RECORD && n->type != HUDI_AVRO_ARRAY && n->type != HUDI_AVRO_MAP &&
         n->type != HUDI_AVRO_ENUM && n->type != HUDI_AVRO_UNION;
}

static const hudi_avro_field *field_named(const hudi_avro_node *rec, const char *name, size_t len) {
  for (uint32_t i = 0; i < rec->n_fields; i++)
    if (strlen(rec->fields[i].name) == len && !memcmp(rec->fields[i].name, name, len)) return &rec->fields[i];
  return NULL;
}

typedef struct col_list {
  char **items;
  size_t n;
} col_list;

static hudi_status push(col_list *l, const char *name, size_t len, hudi_error *err) {
  char **items = hudi_realloc(l->items, (l->n + 1) * sizeof *items);
  if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "column list");
  l->items = items;
  l->items[l->n] = hudi_malloc(len + 1);
  if (!l->items[l->n]) return hudi_err_set(err, HUDI_ERR_NOMEM, "column list");
  memcpy(l->items[l->n], name, len);
  l->items[l->n++][len] = '\0';
  return HUDI_OK;
}

/* The rule's list for the record schema rec: the meta columns (unless the
 * table populates none), then the listed columns (those rec has, of a
 * supported type) or the first `max` supported data columns. */
static hudi_status rule_columns(col_list *out, const hudi_avro_node *rec, bool meta, const char *list, int64_t max,
                                bool v1, hudi_error *err) {
  for (size_t i = 0; meta && i < sizeof META_COLS / sizeof META_COLS[0]; i++)
    HUDI_TRY(push(out, META_COLS[i], strlen(META_COLS[i]), err));
  if (list && *list) {
    for (const char *p = list; *p;) {
      const char *end = strchr(p, ',');
      size_t len = end ? (size_t)(end - p) : strlen(p);
      while (len && *p == ' ') p++, len--;
      while (len && p[len - 1] == ' ') len--;
      const hudi_avro_field *f = len ? field_named(rec, p, len) : NULL;
      if (f && !is_meta_column(f->name) && type_supported(f->type, v1)) HUDI_TRY(push(out, f->name, strlen(f->name), err));
      if (!end) break;
      p = end + 1;
    }
    return HUDI_OK;
  }
  int64_t taken = 0;
  for (uint32_t i = 0; i < rec->n_fields && taken < max; i++) {
    const hudi_avro_field *f = &rec->fields[i];
    if (is_meta_column(f->name) || !type_supported(f->type, v1)) continue;
    HUDI_TRY(push(out, f->name, strlen(f->name), err));
    taken++;
  }
  return HUDI_OK;
}

/* a[0, na) is a prefix of b[0, nb). */
static bool is_prefix(char *const *a, size_t na, char *const *b, size_t nb) {
  if (na > nb) return false;
  for (size_t i = 0; i < na; i++)
    if (strcmp(a[i], b[i])) return false;
  return true;
}

hudi_status hudi_cs_commit_columns(char ***out, size_t *n, int *layout, bool *changed, hudi_table *t,
                                   const hudi_commit_metadata *meta, const hudi_option *opts, size_t n_opts,
                                   hudi_error *err) {
  *out = NULL;
  *n = 0;
  *changed = false;
  char **defs = NULL;
  size_t n_defs = 0;
  HUDI_TRY(hudi_cs_columns_load(&defs, &n_defs, layout, t->storage,
                                hudi_props_get(&t->props, "hoodie.table.index.defs.path"), err));
  const char *schema_json = meta ? hudi_commit_metadata_schema(meta) : NULL;
  if (!schema_json) { /* no writer schema: the definition's list */
    *out = defs;
    *n = n_defs;
    return HUDI_OK;
  }
  const char *list = hudi_write_option(t, opts, n_opts, "hoodie.metadata.index.column.stats.column.list");
  int64_t max = 32;
  hudi_status st = hudi_write_int_option(t, opts, n_opts, "hoodie.metadata.index.column.stats.max.columns.to.index",
                                         32, 0, &max, err);
  hudi_avro_schema *schema = NULL;
  if (st == HUDI_OK) st = hudi_avro_schema_parse(&schema, schema_json, strlen(schema_json), err);
  if (st == HUDI_OK && schema->root->type != HUDI_AVRO_RECORD)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "the commit's writer schema is not a record");
  const char *populate = hudi_props_get(&t->props, "hoodie.populate.meta.fields");
  bool with_meta = !populate || strcmp(populate, "false") != 0;
  col_list rule = {NULL, 0};
  bool v1 = t->version < 9 || (layout && *layout == HUDI_CS_LAYOUT_V1);
  if (st == HUDI_OK) st = rule_columns(&rule, schema->root, with_meta, list, max, v1, err);
  hudi_avro_schema_free(schema);
  if (st != HUDI_OK) {
    hudi_cs_columns_free(rule.items, rule.n);
    hudi_cs_columns_free(defs, n_defs);
    return st;
  }
  /* The rule's list when the definition's is empty (a table created with
   * the index: Hudi's initialisation writes no columns), the rule's list
   * grown or shrunk at its end (columns added by schema evolution, or
   * those of a commit rolled back after it set them), or an explicit
   * column.list option; else the definition's (a list Spark's own
   * configuration chose). */
  bool use_rule = (list && *list) || n_defs == 0 || is_prefix(defs, n_defs, rule.items, rule.n) ||
                  is_prefix(rule.items, rule.n, defs, n_defs);
  if (use_rule) {
    *changed = n_defs != rule.n || !is_prefix(defs, n_defs, rule.items, rule.n);
    hudi_cs_columns_free(defs, n_defs);
    *out = rule.items;
    *n = rule.n;
  } else {
    hudi_cs_columns_free(rule.items, rule.n);
    *out = defs;
    *n = n_defs;
  }
  return HUDI_OK;
}
