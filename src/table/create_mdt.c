/* The metadata table of a new table (create_mdt.h). */
#include "table/create_mdt.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "table/create.h"
#include "table/index_defs.h"
#include "table/mdt_init.h"

static hudi_status bool_opt(const hudi_create_options *o, const char *key, int *out, hudi_error *err) {
  const char *v = hudi_create_option(o, key);
  *out = -1;
  if (!v) return HUDI_OK;
  if (!strcasecmp(v, "true")) *out = 1;
  else if (!strcasecmp(v, "false")) *out = 0;
  else return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is '%s', expected true or false", key, v);
  return HUDI_OK;
}

/* A file-group count option: a positive int up to 1000. */
static hudi_status groups_opt(const hudi_create_options *o, const char *key, int32_t dflt, int32_t *out,
                              hudi_error *err) {
  const char *v = hudi_create_option(o, key);
  *out = dflt;
  if (!v) return HUDI_OK;
  char *end = NULL;
  long n = strtol(v, &end, 10);
  if (!*v || *end || n < 1 || n > 1000)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is '%s', expected a file group count from 1 to 1000",
                        key, v);
  *out = (int32_t)n;
  return HUDI_OK;
}

/* column_stats (off unless asked for: every commit then reads its files'
 * footers, and partition_stats every latest file of the partitions it
 * touches) and partition_stats (with column_stats on a partitioned table,
 * as Hudi 1.1+ enables it; Hudi keeps none for a table without partitions). */
static hudi_status stats_plan(const hudi_create_options *o, hudi_mdt_create_plan *p, hudi_error *err) {
  int cs, ps;
  HUDI_TRY(bool_opt(o, "hoodie.metadata.index.column.stats.enable", &cs, err));
  HUDI_TRY(bool_opt(o, "hoodie.metadata.index.partition.stats.enable", &ps, err));
  if (ps == 1 && cs != 1)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.metadata.index.partition.stats.enable=true needs "
                        "hoodie.metadata.index.column.stats.enable=true (partition stats merge the column stats)");
  if (cs != 1) return HUDI_OK;
  if (!p->mdt)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.metadata.index.column.stats.enable=true: column stats live in the metadata table, "
                        "which hoodie.metadata.enable=false leaves out");
  HUDI_TRY(groups_opt(o, "hoodie.metadata.index.column.stats.file.group.count", 2, &p->column_stats_groups, err));
  bool partitioned = o->partition_fields && *o->partition_fields;
  if (ps != 0 && partitioned)
    HUDI_TRY(groups_opt(o, "hoodie.metadata.index.partition.stats.file.group.count", 1, &p->partition_stats_groups,
                        err));
  return HUDI_OK;
}

hudi_status hudi_create_mdt_plan(const hudi_create_options *o, hudi_mdt_create_plan *p, hudi_error *err) {
  memset(p, 0, sizeof *p);
  int enable, rli_opt;
  HUDI_TRY(bool_opt(o, "hoodie.metadata.enable", &enable, err));
  HUDI_TRY(bool_opt(o, "hoodie.metadata.record.index.enable", &rli_opt, err));
  if (rli_opt >= 0 && rli_opt != (int)o->record_index_enabled)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.metadata.record.index.enable=%s contradicts record_index_enabled=%s",
                        rli_opt ? "true" : "false", o->record_index_enabled ? "true" : "false");
  int cs;
  HUDI_TRY(bool_opt(o, "hoodie.metadata.index.column.stats.enable", &cs, err));
  p->rli = o->record_index_enabled;
  p->mdt = enable >= 0 ? enable == 1 : p->rli || cs == 1;
  if (p->rli && !p->mdt)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "the record-level index lives in the metadata table: hoodie.metadata.enable=false needs "
                        "record_index_enabled=false");
  static const char *const unmaintained[] = {"hoodie.metadata.index.bloom.filter.enable",
                                             "hoodie.metadata.index.secondary.enable"};
  for (size_t i = 0; i < sizeof unmaintained / sizeof unmaintained[0]; i++) {
    int on;
    HUDI_TRY(bool_opt(o, unmaintained[i], &on, err));
    if (on == 1)
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "%s=true: hudi-c creates the metadata table with its files, record_index, column_stats and "
                          "partition_stats partitions only (it keeps the other indexes current on tables Spark "
                          "built them for)",
                          unmaintained[i]);
  }
  return stats_plan(o, p, err);
}

/* Hudi 1.1+ (table version 9) records every MDT index it builds in
 * .hoodie/.index_defs/index.json, version 8 (Hudi 1.0) those other than
 * the record index, without a version; Jackson-pretty-printed, the record
 * index entry exactly as the v9 fixtures hold it, column_stats with the
 * empty column list Hudi's initialisation writes (the first commit sets
 * it, mdt_column_stats.h) (hudi-metadata-table.md §1.3). */
static hudi_status write_index_defs(hudi_storage *s, const hudi_mdt_create_plan *p, int version, hudi_error *err) {
  bool v9 = version >= 9;
  if (!(v9 && p->rli) && !p->column_stats_groups) return HUDI_OK;
  json_t *root = json_object(), *defs = json_object();
  bool bad = !root || !defs || json_object_set_new(root, "indexDefinitions", defs) != 0;
  if (!bad && v9 && p->rli) bad = json_object_set_new(defs, "record_index", hudi_index_defs_new_record_index()) != 0;
  if (!bad && p->column_stats_groups)
    bad = json_object_set_new(defs, "column_stats", hudi_index_defs_new_entry("column_stats", "column_stats",
                                                                              v9 ? "V2" : NULL)) != 0;
  hudi_status st = bad ? hudi_err_set(err, HUDI_ERR_NOMEM, "index definitions") : HUDI_OK;
  if (st == HUDI_OK) st = hudi_index_defs_save(s, HUDI_CREATE_INDEX_DEFS_PATH, root, err);
  json_decref(root);
  return st;
}

hudi_status hudi_create_mdt(hudi_storage *s, const hudi_create_options *o, const char *name, int version,
                            hudi_buf *partitions, hudi_error *err) {
  hudi_mdt_create_plan p;
  HUDI_TRY(hudi_create_mdt_plan(o, &p, err));
  if (!p.mdt) return HUDI_OK;
  hudi_mdt_write_options mo = HUDI_MDT_WRITE_OPTIONS_INIT;
  mo.table_version = version;
  mo.record_index_shards = p.rli ? 0 : -1;
  mo.column_stats_groups = p.column_stats_groups;
  mo.partition_stats_groups = p.partition_stats_groups;
  mo.table_name = name;
  mo.database_name = o->database_name;
  hudi_status st = hudi_mdt_init(s, &mo, partitions, err);
  if (st == HUDI_ERR_EXISTS)
    return hudi_err_set(err, HUDI_ERR_EXISTS,
                        "a metadata table already exists under %s/.hoodie/metadata (left by an earlier create?)",
                        hudi_storage_base(s));
  if (st == HUDI_OK) st = write_index_defs(s, &p, version, err);
  return st;
}
