/* HoodieCommitMetadata and HoodieReplaceCommitMetadata: the content of
 * completed commit/deltacommit/replacecommit instants and of the inflight
 * "workload profile" -- Avro container files in table versions 8 and 9,
 * Jackson-pretty-printed JSON in table version 6. One struct holds both
 * (partition_to_replace_file_ids only for replacecommit). Field names
 * follow the Avro schema (hudi-format-core.md §3). */
#ifndef HUDI_TABLE_COMMIT_METADATA_H
#define HUDI_TABLE_COMMIT_METADATA_H

#include "table/timeline_record.h"

typedef struct hudi_runtime_stats {
  hudi_tl_long total_scan_time, total_create_time, total_upsert_time;
} hudi_runtime_stats;

typedef struct hudi_write_stat {
  char *file_id, *path, *prev_commit;
  hudi_tl_long num_writes, num_deletes, num_update_writes, total_write_bytes, total_write_errors;
  char *partition_path;
  hudi_tl_long total_log_records, total_log_files, total_updated_records_compacted, num_inserts, total_log_blocks,
      total_corrupt_log_block, total_rollback_blocks, file_size_in_bytes;
  hudi_tl_int log_version;
  hudi_tl_long log_offset;
  char *base_file;
  hudi_tl_list log_files; /* char * */
  hudi_tl_list cdc_stats; /* hudi_tl_long_entry */
  char *prev_base_file;
  hudi_tl_long min_event_time, max_event_time;
  hudi_runtime_stats *runtime_stats;
  hudi_tl_long total_log_files_compacted, total_log_read_time_ms, total_log_size_compacted;
  char *temp_path;
  hudi_tl_long num_updates;
  /* v6 JSON only: 1 for Java's HoodieDeltaWriteStat (a log append), whose
   * JSON adds logVersion, logOffset, baseFile, logFiles, recordsStats. Set
   * when such keys are read; not stored in Avro. */
  int json_delta;
} hudi_write_stat;

typedef struct hudi_partition_write_stats {
  char *key;          /* partition path, "" when non-partitioned */
  hudi_tl_list value; /* hudi_write_stat */
} hudi_partition_write_stats;

typedef struct hudi_commit_metadata {
  hudi_tl_doc doc; /* schema: HUDI_TL_COMMIT_METADATA or HUDI_TL_REPLACE_COMMIT_METADATA */
  hudi_tl_list partition_to_write_stats; /* hudi_partition_write_stats */
  hudi_tl_bool compacted;
  hudi_tl_list extra_metadata; /* hudi_tl_str_entry */
  hudi_tl_int version;
  char *operation_type;
  hudi_tl_list partition_to_replace_file_ids; /* hudi_tl_strs_entry; replacecommit only */
} hudi_commit_metadata;

extern const hudi_tl_type hudi_commit_metadata_type, hudi_write_stat_type, hudi_runtime_stats_type;

/* An empty commit metadata (replace = 1: HoodieReplaceCommitMetadata).
 * Free with hudi_commit_metadata_free. */
HUDI_NODISCARD hudi_status hudi_commit_metadata_new(hudi_commit_metadata **out, int replace, hudi_error *err);
void hudi_commit_metadata_free(hudi_commit_metadata *m);
static inline int hudi_commit_metadata_is_replace(const hudi_commit_metadata *m) {
  return m->doc.schema == HUDI_TL_REPLACE_COMMIT_METADATA;
}

/* ---- reading ---- */
/* An Avro container file (either record). */
HUDI_NODISCARD hudi_status hudi_commit_metadata_parse_avro(hudi_commit_metadata **out, const uint8_t *data,
                                                           size_t len, const char *name, hudi_error *err);
/* Table version 6 JSON. An empty (or all-blank) file is an empty metadata,
 * as Java reads it. replace: the file is a .replacecommit. */
HUDI_NODISCARD hudi_status hudi_commit_metadata_parse_json(hudi_commit_metadata **out, const uint8_t *data,
                                                           size_t len, int replace, const char *name,
                                                           hudi_error *err);
/* Either, by content ("Obj\1" = Avro). */
HUDI_NODISCARD hudi_status hudi_commit_metadata_parse(hudi_commit_metadata **out, const uint8_t *data, size_t len,
                                                      int replace, const char *name, hudi_error *err);

/* ---- writing ---- */
/* Appends the Avro container file (sync: 16 bytes or NULL = random). */
HUDI_NODISCARD hudi_status hudi_commit_metadata_to_avro(const hudi_commit_metadata *m, const uint8_t *sync,
                                                        hudi_buf *out, hudi_error *err);
/* Appends the table-version-6 JSON, as Java's Jackson writes it. */
HUDI_NODISCARD hudi_status hudi_commit_metadata_to_json(const hudi_commit_metadata *m, hudi_buf *out,
                                                        hudi_error *err);

/* ---- the fields readers use ---- */
/* extraMetadata.schema (the table's Avro schema JSON), or NULL when absent or empty. */
const char *hudi_commit_metadata_schema(const hudi_commit_metadata *m);
/* A value of extraMetadata, or NULL. */
const char *hudi_commit_metadata_extra(const hudi_commit_metadata *m, const char *key);
/* The partitions' stats, in file order. */
static inline const hudi_partition_write_stats *hudi_commit_metadata_partitions(const hudi_commit_metadata *m,
                                                                                size_t *n) {
  *n = m->partition_to_write_stats.n;
  return (const hudi_partition_write_stats *)m->partition_to_write_stats.items;
}
static inline const hudi_write_stat *hudi_partition_stats(const hudi_partition_write_stats *p, size_t *n) {
  *n = p->value.n;
  return (const hudi_write_stat *)p->value.items;
}
/* The stats of one partition, or NULL. */
const hudi_partition_write_stats *hudi_commit_metadata_find_partition(const hudi_commit_metadata *m,
                                                                      const char *partition);
/* Stats in all partitions. */
size_t hudi_commit_metadata_n_stats(const hudi_commit_metadata *m);
/* The replaced file ids of a partition (replacecommit), or NULL. */
const hudi_tl_list *hudi_commit_metadata_replaced(const hudi_commit_metadata *m, const char *partition);
/* Sums numWrites / numInserts / numUpdateWrites / numDeletes over every stat. */
int64_t hudi_commit_metadata_total(const hudi_commit_metadata *m, size_t offset_of_long);

/* ---- building one for a write ---- */
HUDI_NODISCARD hudi_status hudi_commit_metadata_set_extra(hudi_commit_metadata *m, const char *key,
                                                          const char *value, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_commit_metadata_set_schema(hudi_commit_metadata *m, const char *schema_json,
                                                           hudi_error *err);
/* e.g. "UPSERT", "INSERT", "BULK_INSERT", "DELETE", "COMPACT". */
HUDI_NODISCARD hudi_status hudi_commit_metadata_set_operation(hudi_commit_metadata *m, const char *op,
                                                              hudi_error *err);
/* Appends a zeroed stat to partition's list (creating the partition) with
 * partitionPath set; *stat stays valid until the next add. */
HUDI_NODISCARD hudi_status hudi_commit_metadata_add_stat(hudi_commit_metadata *m, const char *partition,
                                                         hudi_write_stat **stat, hudi_error *err);
/* A copy of s owned by m, for the char * fields of a stat. */
HUDI_NODISCARD hudi_status hudi_commit_metadata_strdup(hudi_commit_metadata *m, const char *s, char **out,
                                                       hudi_error *err);
/* Records a replaced file group (replacecommit). */
HUDI_NODISCARD hudi_status hudi_commit_metadata_add_replaced(hudi_commit_metadata *m, const char *partition,
                                                             const char *file_id, hudi_error *err);
/* Fills the counters Java always writes (zero) that s leaves unset, so the
 * file carries the same fields a Spark write does. */
void hudi_write_stat_zero_unset(hudi_write_stat *s);

#endif
