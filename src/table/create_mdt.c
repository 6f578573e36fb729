/* The metadata table of a new table (create_mdt.h). */
#include "table/create_mdt.h"

#include <strings.h>

#include "table/create.h"
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

hudi_status hudi_create_mdt_plan(const hudi_create_options *o, bool *mdt, bool *rli, hudi_error *err) {
  int enable, rli_opt;
  HUDI_TRY(bool_opt(o, "hoodie.metadata.enable", &enable, err));
  HUDI_TRY(bool_opt(o, "hoodie.metadata.record.index.enable", &rli_opt, err));
  if (rli_opt >= 0 && rli_opt != (int)o->record_index_enabled)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.metadata.record.index.enable=%s contradicts record_index_enabled=%s",
                        rli_opt ? "true" : "false", o->record_index_enabled ? "true" : "false");
  *rli = o->record_index_enabled;
  *mdt = enable >= 0 ? enable == 1 : *rli;
  if (*rli && !*mdt)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "the record-level index lives in the metadata table: hoodie.metadata.enable=false needs "
                        "record_index_enabled=false");
  static const char *const unmaintained[] = {
      "hoodie.metadata.index.column.stats.enable", "hoodie.metadata.index.partition.stats.enable",
      "hoodie.metadata.index.bloom.filter.enable", "hoodie.metadata.index.secondary.enable"};
  for (size_t i = 0; i < sizeof unmaintained / sizeof unmaintained[0]; i++) {
    int on;
    HUDI_TRY(bool_opt(o, unmaintained[i], &on, err));
    if (on == 1)
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "%s=true: hudi-c creates the metadata table with its files and record_index partitions "
                          "only (it keeps that index current on tables Spark built it for)",
                          unmaintained[i]);
  }
  return HUDI_OK;
}

/* Hudi 1.1+ (table version 9) records every MDT index it builds in
 * .hoodie/.index_defs/index.json, Jackson-pretty-printed; the record index
 * entry exactly as the v9 fixtures hold it (hudi-metadata-table.md §1.3). */
static const char INDEX_DEFS[] =
    "{\n"
    "  \"indexDefinitions\" : {\n"
    "    \"record_index\" : {\n"
    "      \"indexName\" : \"record_index\",\n"
    "      \"indexType\" : \"record_index\",\n"
    "      \"indexFunction\" : \"\",\n"
    "      \"sourceFields\" : [ ],\n"
    "      \"indexOptions\" : {\n"
    "        \"isPartitioned\" : \"false\"\n"
    "      },\n"
    "      \"version\" : \"V1\"\n"
    "    }\n"
    "  }\n"
    "}";

static hudi_status write_index_defs(hudi_storage *s, hudi_error *err) {
  return hudi_storage_write(s, HUDI_CREATE_INDEX_DEFS_PATH, INDEX_DEFS, sizeof INDEX_DEFS - 1, 0, err);
}

hudi_status hudi_create_mdt(hudi_storage *s, const hudi_create_options *o, const char *name, int version,
                            hudi_buf *partitions, hudi_error *err) {
  bool mdt, rli;
  HUDI_TRY(hudi_create_mdt_plan(o, &mdt, &rli, err));
  if (!mdt) return HUDI_OK;
  hudi_mdt_write_options mo = HUDI_MDT_WRITE_OPTIONS_INIT;
  mo.table_version = version;
  mo.record_index_shards = rli ? 0 : -1;
  mo.table_name = name;
  mo.database_name = o->database_name;
  hudi_status st = hudi_mdt_init(s, &mo, partitions, err);
  if (st == HUDI_ERR_EXISTS)
    return hudi_err_set(err, HUDI_ERR_EXISTS,
                        "a metadata table already exists under %s/.hoodie/metadata (left by an earlier create?)",
                        hudi_storage_base(s));
  if (st == HUDI_OK && rli && version >= 9) st = write_index_defs(s, err);
  return st;
}
