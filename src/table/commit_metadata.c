/* HoodieCommitMetadata / HoodieReplaceCommitMetadata: type tables, Avro
 * files and the helpers the read and write paths use. The v6 JSON form is
 * in commit_metadata_json.c. */
#include "table/commit_metadata.h"

#include <string.h>

#include "base/alloc.h"

#define RT(c, a) HUDI_TL_FIELD(hudi_runtime_stats, c, a, hudi_tl_t_long)
static const hudi_tl_field runtime_fields[] = {
    RT(total_scan_time, "totalScanTime"),
    RT(total_create_time, "totalCreateTime"),
    RT(total_upsert_time, "totalUpsertTime"),
};
const hudi_tl_type hudi_runtime_stats_type = HUDI_TL_REC_TYPE(hudi_runtime_stats, runtime_fields, "HoodieRuntimeStats");

#define WS(c, a, t) HUDI_TL_FIELD(hudi_write_stat, c, a, t)
#define WSL(c, a) WS(c, a, hudi_tl_t_long)
static const hudi_tl_field stat_fields[] = {
    WS(file_id, "fileId", hudi_tl_t_str),
    WS(path, "path", hudi_tl_t_str),
    WS(prev_commit, "prevCommit", hudi_tl_t_str),
    WSL(num_writes, "numWrites"),
    WSL(num_deletes, "numDeletes"),
    WSL(num_update_writes, "numUpdateWrites"),
    WSL(total_write_bytes, "totalWriteBytes"),
    WSL(total_write_errors, "totalWriteErrors"),
    WS(partition_path, "partitionPath", hudi_tl_t_str),
    WSL(total_log_records, "totalLogRecords"),
    WSL(total_log_files, "totalLogFiles"),
    WSL(total_updated_records_compacted, "totalUpdatedRecordsCompacted"),
    WSL(num_inserts, "numInserts"),
    WSL(total_log_blocks, "totalLogBlocks"),
    WSL(total_corrupt_log_block, "totalCorruptLogBlock"),
    WSL(total_rollback_blocks, "totalRollbackBlocks"),
    WSL(file_size_in_bytes, "fileSizeInBytes"),
    WS(log_version, "logVersion", hudi_tl_t_int),
    WSL(log_offset, "logOffset"),
    WS(base_file, "baseFile", hudi_tl_t_str),
    WS(log_files, "logFiles", hudi_tl_t_str_array),
    WS(cdc_stats, "cdcStats", hudi_tl_t_long_map),
    WS(prev_base_file, "prevBaseFile", hudi_tl_t_str),
    WSL(min_event_time, "minEventTime"),
    WSL(max_event_time, "maxEventTime"),
    WS(runtime_stats, "runtimeStats", hudi_runtime_stats_type),
    WSL(total_log_files_compacted, "totalLogFilesCompacted"),
    WSL(total_log_read_time_ms, "totalLogReadTimeMs"),
    WSL(total_log_size_compacted, "totalLogSizeCompacted"),
    WS(temp_path, "tempPath", hudi_tl_t_str),
    WSL(num_updates, "numUpdates"),
};
const hudi_tl_type hudi_write_stat_type = HUDI_TL_REC_TYPE(hudi_write_stat, stat_fields, "HoodieWriteStat");
static const hudi_tl_type stat_list_type = HUDI_TL_ARRAY_TYPE(hudi_write_stat_type);
static const hudi_tl_type stats_map_type = HUDI_TL_MAP_TYPE(hudi_partition_write_stats, stat_list_type);

#define CM(c, a, t) HUDI_TL_FIELD(hudi_commit_metadata, c, a, t)
static const hudi_tl_field commit_fields[] = {
    CM(partition_to_write_stats, "partitionToWriteStats", stats_map_type),
    CM(compacted, "compacted", hudi_tl_t_bool),
    CM(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
    CM(version, "version", hudi_tl_t_int),
    CM(operation_type, "operationType", hudi_tl_t_str),
    CM(partition_to_replace_file_ids, "partitionToReplaceFileIds", hudi_tl_t_strs_map),
};
const hudi_tl_type hudi_commit_metadata_type =
    HUDI_TL_REC_TYPE(hudi_commit_metadata, commit_fields, "HoodieCommitMetadata");

hudi_status hudi_commit_metadata_new(hudi_commit_metadata **out, int replace, hudi_error *err) {
  return hudi_tl_doc_new((void **)out, &hudi_commit_metadata_type,
                         replace ? HUDI_TL_REPLACE_COMMIT_METADATA : HUDI_TL_COMMIT_METADATA, err);
}

void hudi_commit_metadata_free(hudi_commit_metadata *m) { hudi_tl_doc_free(m); }

hudi_status hudi_commit_metadata_parse_avro(hudi_commit_metadata **out, const uint8_t *data, size_t len,
                                            const char *name, hudi_error *err) {
  static const hudi_tl_schema_id ids[] = {HUDI_TL_COMMIT_METADATA, HUDI_TL_REPLACE_COMMIT_METADATA};
  return hudi_tl_read((void **)out, &hudi_commit_metadata_type, ids, 2, data, len, name, err);
}

hudi_status hudi_commit_metadata_parse(hudi_commit_metadata **out, const uint8_t *data, size_t len, int replace,
                                       const char *name, hudi_error *err) {
  if (len >= 4 && memcmp(data, "Obj\x01", 4) == 0) return hudi_commit_metadata_parse_avro(out, data, len, name, err);
  return hudi_commit_metadata_parse_json(out, data, len, replace, name, err);
}

hudi_status hudi_commit_metadata_to_avro(const hudi_commit_metadata *m, const uint8_t *sync, hudi_buf *out,
                                         hudi_error *err) {
  return hudi_tl_write(m, &hudi_commit_metadata_type, sync, out, err);
}

const char *hudi_commit_metadata_extra(const hudi_commit_metadata *m, const char *key) {
  return hudi_tl_str_map_get(&m->extra_metadata, key);
}

const char *hudi_commit_metadata_schema(const hudi_commit_metadata *m) {
  const char *s = hudi_commit_metadata_extra(m, "schema");
  return s && *s ? s : NULL;
}

const hudi_partition_write_stats *hudi_commit_metadata_find_partition(const hudi_commit_metadata *m,
                                                                      const char *partition) {
  size_t n;
  const hudi_partition_write_stats *p = hudi_commit_metadata_partitions(m, &n);
  for (size_t i = 0; i < n; i++)
    if (strcmp(p[i].key, partition) == 0) return &p[i];
  return NULL;
}

size_t hudi_commit_metadata_n_stats(const hudi_commit_metadata *m) {
  size_t n, total = 0;
  const hudi_partition_write_stats *p = hudi_commit_metadata_partitions(m, &n);
  for (size_t i = 0; i < n; i++) total += p[i].value.n;
  return total;
}

const hudi_tl_list *hudi_commit_metadata_replaced(const hudi_commit_metadata *m, const char *partition) {
  const hudi_tl_strs_entry *e = m->partition_to_replace_file_ids.items;
  for (size_t i = 0; i < m->partition_to_replace_file_ids.n; i++)
    if (strcmp(e[i].key, partition) == 0) return &e[i].value;
  return NULL;
}

int64_t hudi_commit_metadata_total(const hudi_commit_metadata *m, size_t offset_of_long) {
  size_t np, ns;
  int64_t total = 0;
  const hudi_partition_write_stats *p = hudi_commit_metadata_partitions(m, &np);
  for (size_t i = 0; i < np; i++) {
    const hudi_write_stat *s = hudi_partition_stats(&p[i], &ns);
    for (size_t k = 0; k < ns; k++) {
      const hudi_tl_long *l = (const hudi_tl_long *)((const char *)&s[k] + offset_of_long);
      if (l->has) total += l->v;
    }
  }
  return total;
}

hudi_status hudi_commit_metadata_set_extra(hudi_commit_metadata *m, const char *key, const char *value,
                                           hudi_error *err) {
  return hudi_tl_str_map_set(&m->extra_metadata, &m->doc.arena, key, value, err);
}

hudi_status hudi_commit_metadata_set_schema(hudi_commit_metadata *m, const char *schema_json, hudi_error *err) {
  return hudi_commit_metadata_set_extra(m, "schema", schema_json, err);
}

hudi_status hudi_commit_metadata_set_operation(hudi_commit_metadata *m, const char *op, hudi_error *err) {
  return hudi_tl_strdup(&m->doc.arena, op, &m->operation_type, err);
}

hudi_status hudi_commit_metadata_strdup(hudi_commit_metadata *m, const char *s, char **out, hudi_error *err) {
  return hudi_tl_strdup(&m->doc.arena, s, out, err);
}

static hudi_status partition_entry(hudi_tl_list *map, hudi_avro_arena *a, size_t entry_size, const char *partition,
                                   void **out, hudi_error *err) {
  for (size_t i = 0; i < map->n; i++) {
    char *e = (char *)map->items + i * entry_size;
    if (strcmp(*(char **)e, partition) == 0) {
      *out = e;
      return HUDI_OK;
    }
  }
  HUDI_TRY(hudi_tl_list_push(map, a, entry_size, out, err));
  return hudi_tl_strdup(a, partition, (char **)*out, err);
}

hudi_status hudi_commit_metadata_add_stat(hudi_commit_metadata *m, const char *partition, hudi_write_stat **stat,
                                          hudi_error *err) {
  hudi_partition_write_stats *p;
  HUDI_TRY(partition_entry(&m->partition_to_write_stats, &m->doc.arena, sizeof *p, partition, (void **)&p, err));
  void *item;
  HUDI_TRY(hudi_tl_list_push(&p->value, &m->doc.arena, sizeof(hudi_write_stat), &item, err));
  hudi_write_stat *s = item;
  s->partition_path = p->key;
  *stat = s;
  return HUDI_OK;
}

hudi_status hudi_commit_metadata_add_replaced(hudi_commit_metadata *m, const char *partition, const char *file_id,
                                              hudi_error *err) {
  hudi_tl_strs_entry *e;
  HUDI_TRY(partition_entry(&m->partition_to_replace_file_ids, &m->doc.arena, sizeof *e, partition, (void **)&e,
                           err));
  return hudi_tl_strs_push(&e->value, &m->doc.arena, file_id, err);
}

void hudi_write_stat_zero_unset(hudi_write_stat *s) {
  /* Java's primitive long fields of HoodieWriteStat. */
  hudi_tl_long *z[] = {&s->num_writes,           &s->num_deletes,
                       &s->num_update_writes,    &s->total_write_bytes,
                       &s->total_write_errors,   &s->total_log_records,
                       &s->total_updated_records_compacted, &s->num_inserts,
                       &s->total_log_blocks,     &s->total_corrupt_log_block,
                       &s->total_rollback_blocks, &s->file_size_in_bytes,
                       &s->total_log_files_compacted, &s->total_log_read_time_ms,
                       &s->total_log_size_compacted, &s->num_updates};
  for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
    if (!z[i]->has) *z[i] = hudi_tl_some_long(0);
}
