/* Dropping metadata-table indexes a write's options turn off (see
 * mdt_drop.h). */
#include "table/mdt_drop.h"

#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "table/index_defs.h"
#include "table/mdt_compact.h"
#include "table/mdt_reader.h"
#include "table/properties.h"
#include "table/write.h"
#include "table/write_mdt.h"

#define PARTITIONS_KEY "hoodie.table.metadata.partitions"
#define DEFS_PATH_KEY "hoodie.table.index.defs.path"

/* Each index option and the partition its false turns off. Partition
 * stats merge the column stats (Hudi 1.1's isPartitionStatsIndexEnabled is
 * the column stats' switch; 1.0 had its own as well). Files goes only
 * with the whole table (hoodie.metadata.enable=false); secondary and
 * expression indexes only with DROP INDEX, as in Hudi. */
static const struct index_switch {
  const char *key, *partition;
} SWITCHES[] = {
    {"hoodie.metadata.record.index.enable", "record_index"},
    {"hoodie.metadata.index.column.stats.enable", "column_stats"},
    {"hoodie.metadata.index.column.stats.enable", "partition_stats"},
    {"hoodie.metadata.index.partition.stats.enable", "partition_stats"},
    {"hoodie.metadata.index.bloom.filter.enable", "bloom_filters"},
};
#define N_SWITCHES (sizeof SWITCHES / sizeof SWITCHES[0])

/* The next item of the comma-separated list at *p (NULL at its end), its
 * length in *len; *p moves past it. */
static const char *next_item(const char **p, size_t *len) {
  if (!*p || !**p) return NULL;
  const char *item = *p, *end = strchr(item, ',');
  *len = end ? (size_t)(end - item) : strlen(item);
  *p = end ? end + 1 : NULL;
  return item;
}

/* The first secondary index t lists, or NULL (len in *len). */
static const char *listed_secondary(const hudi_table *t, size_t *len) {
  const char *p = hudi_props_get(&t->props, PARTITIONS_KEY), *item;
  while ((item = next_item(&p, len)))
    if (*len > 16 && !memcmp(item, "secondary_index_", 16)) return item;
  return NULL;
}

hudi_status hudi_mdt_check_index_options(const hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  for (size_t i = 0; i < N_SWITCHES; i++) {
    const char *v = hudi_write_option(t, opts, n, SWITCHES[i].key);
    if (v && strcasecmp(v, "true") && strcasecmp(v, "false"))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'", SWITCHES[i].key, v);
  }
  /* A secondary index maps values to record keys and is kept through the
   * record index (mdt_secondary_index.h): without it every later write
   * would be refused. Refused before anything changes. */
  size_t len = 0;
  const char *si = listed_secondary(t, &len);
  if (si && hudi_props_list_has(hudi_props_get(&t->props, PARTITIONS_KEY), "record_index") &&
      hudi_mdt_index_dropped(t, opts, n, "record_index", 12))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hoodie.metadata.record.index.enable=false would drop the record index, which its "
                        "secondary index %.*s needs; drop the secondary indexes first (DROP INDEX), or turn the "
                        "metadata table off (hoodie.metadata.enable=false)",
                        t->base_uri, (int)len, si);
  return HUDI_OK;
}

bool hudi_mdt_index_dropped(const hudi_table *t, const hudi_option *opts, size_t n, const char *name, size_t len) {
  if (hudi_mdt_drop_requested(opts, n)) return false; /* the whole table goes */
  for (size_t i = 0; i < N_SWITCHES; i++) {
    if (strlen(SWITCHES[i].partition) != len || memcmp(SWITCHES[i].partition, name, len) != 0) continue;
    const char *v = hudi_write_option(t, opts, n, SWITCHES[i].key);
    if (v && !strcasecmp(v, "false")) return true;
  }
  return false;
}

/* The listed partitions the options drop, as a comma-separated list in
 * *drop, and the rest in *keep (both NUL-terminated). */
static hudi_status split_listed(const hudi_table *t, const hudi_option *opts, size_t n, hudi_buf *drop,
                                hudi_buf *keep, hudi_error *err) {
  const char *p = hudi_props_get(&t->props, PARTITIONS_KEY), *item;
  size_t len;
  while ((item = next_item(&p, &len))) {
    hudi_buf *to = hudi_mdt_index_dropped(t, opts, n, item, len) ? drop : keep;
    if (len) {
      if (to->len) HUDI_TRY(hudi_buf_append_byte(to, ',', err));
      HUDI_TRY(hudi_buf_append(to, item, len, err));
    }
  }
  HUDI_TRY(hudi_buf_append_byte(drop, 0, err));
  return hudi_buf_append_byte(keep, 0, err);
}

bool hudi_mdt_drop_indexes_requested(const hudi_table *t, const hudi_option *opts, size_t n) {
  const char *p = hudi_props_get(&t->props, PARTITIONS_KEY), *item;
  size_t len;
  while ((item = next_item(&p, &len)))
    if (hudi_mdt_index_dropped(t, opts, n, item, len)) return true;
  return false;
}

/* Version 9's index.json loses the column stats' definition, as Hudi's
 * deleteColumnStatsIndexDefinition removes it (the other definitions
 * stay, as Hudi leaves them). */
static hudi_status drop_column_stats_def(hudi_table *t, hudi_error *err) {
  const char *path = hudi_props_get(&t->props, DEFS_PATH_KEY);
  if (!path || !*path) return HUDI_OK;
  json_t *root = NULL;
  hudi_status st = hudi_index_defs_load(&root, t->storage, path, err);
  if (st == HUDI_ERR_NOT_FOUND) {
    hudi_error_clear(err);
    return HUDI_OK;
  }
  HUDI_TRY(st);
  json_t *defs = json_object_get(root, "indexDefinitions");
  if (defs && json_is_object(defs) && json_object_get(defs, "column_stats")) {
    json_object_del(defs, "column_stats");
    st = hudi_index_defs_save(t->storage, path, root, err);
  }
  json_decref(root);
  return st;
}

/* The directories of switched-off partitions the table does not list:
 * those a drop just took out of the listing, and those a drop cut short
 * between its listing and its deletes left (Java's order, deletes first,
 * would instead leave a listed index with files missing). */
static hudi_status delete_leftovers(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  const char *parts = hudi_props_get(&t->props, PARTITIONS_KEY);
  char path[128];
  for (size_t i = 0; i < N_SWITCHES; i++) {
    const char *name = SWITCHES[i].partition;
    if (hudi_props_list_has(parts, name) || !hudi_mdt_index_dropped(t, opts, n, name, strlen(name))) continue;
    snprintf(path, sizeof path, HUDI_MDT_DIR "/%s", name);
    HUDI_TRY(hudi_storage_delete(t->storage, path, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err));
  }
  return HUDI_OK;
}

hudi_status hudi_mdt_drop_indexes_if_requested(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  if (!hudi_mdt_drop_indexes_requested(t, opts, n)) return delete_leftovers(t, opts, n, err);
  /* Again under the lock: the listing may have changed since the check. */
  HUDI_TRY(hudi_mdt_check_index_options(t, opts, n, err));
  hudi_buf drop, keep;
  hudi_buf_init(&drop, 4096);
  hudi_buf_init(&keep, 4096);
  hudi_status st = split_listed(t, opts, n, &drop, &keep, err);
  const char *names = (const char *)drop.data;
  /* A pending MDT compaction's plan names the partitions' file groups. */
  if (st == HUDI_OK) st = hudi_mdt_compact_undo_all_pending(t, err);
  /* Listing first: readers and writers then leave the partitions alone,
   * and a crash before the deletes leaves unlisted directories, which
   * an initialisation of the partition deletes (Hudi's and mdt_bootstrap.h's). */
  const char *key[] = {PARTITIONS_KEY};
  const char *value[] = {(const char *)keep.data};
  if (st == HUDI_OK) st = hudi_table_props_update(t, key, value, 1, err);
  if (st == HUDI_OK && hudi_props_list_has(names, "column_stats")) st = drop_column_stats_def(t, err);
  if (st == HUDI_OK) st = delete_leftovers(t, opts, n, err);
  hudi_mdt_share_invalidate(t);
  if (st != HUDI_OK)
    hudi_err_context(err, st, "dropping the metadata-table indexes %s of %s (turned off in the write's options)",
                     names ? names : "", t->base_uri);
  hudi_buf_free(&keep);
  hudi_buf_free(&drop);
  return st;
}
