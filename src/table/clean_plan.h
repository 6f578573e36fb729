/* The cleaner's records: HoodieCleanerPlan (T.clean.requested) and
 * HoodieCleanMetadata (T_C.clean). No fixture table holds a clean; the
 * schemas are those of Hudi 1.0.2's generated classes (see
 * timeline_schemas.c). */
#ifndef HUDI_TABLE_CLEAN_PLAN_H
#define HUDI_TABLE_CLEAN_PLAN_H

#include "table/timeline_record.h"

typedef struct hudi_action_instant {
  char *timestamp, *action, *state; /* all required */
} hudi_action_instant;

typedef struct hudi_clean_file_info {
  char *file_path;
  hudi_tl_bool is_bootstrap_base_file;
} hudi_clean_file_info;

typedef struct hudi_clean_file_infos_entry {
  char *key;          /* partition */
  hudi_tl_list value; /* hudi_clean_file_info */
} hudi_clean_file_infos_entry;

typedef struct hudi_cleaner_plan {
  hudi_tl_doc doc;
  hudi_action_instant *earliest_instant_to_retain;
  char *last_completed_commit_timestamp; /* required; absent writes the default "" */
  char *policy;                          /* required, e.g. "KEEP_LATEST_COMMITS" */
  hudi_tl_list files_to_be_deleted_per_partition; /* hudi_tl_strs_entry (legacy) */
  hudi_tl_int version;                            /* 2 */
  hudi_tl_list file_paths_to_be_deleted_per_partition; /* hudi_clean_file_infos_entry */
  hudi_tl_list partitions_to_be_deleted;          /* char * */
  hudi_tl_list extra_metadata;                    /* hudi_tl_str_entry */
} hudi_cleaner_plan;

typedef struct hudi_clean_partition_metadata {
  char *partition_path, *policy; /* required */
  hudi_tl_list delete_path_patterns, success_delete_files, failed_delete_files; /* char *, required */
  hudi_tl_bool is_partition_deleted;
} hudi_clean_partition_metadata;

typedef struct hudi_clean_partition_entry {
  char *key;
  hudi_clean_partition_metadata value;
} hudi_clean_partition_entry;

typedef struct hudi_clean_metadata {
  hudi_tl_doc doc;
  char *start_clean_time;            /* required */
  hudi_tl_long time_taken_in_millis; /* required */
  hudi_tl_int total_files_deleted;   /* required */
  char *earliest_commit_to_retain;   /* required */
  char *last_completed_commit_timestamp;
  hudi_tl_list partition_metadata; /* hudi_clean_partition_entry, required */
  hudi_tl_int version;
  hudi_tl_list bootstrap_partition_metadata; /* hudi_clean_partition_entry */
  hudi_tl_list extra_metadata;               /* hudi_tl_str_entry */
} hudi_clean_metadata;

extern const hudi_tl_type hudi_cleaner_plan_type, hudi_clean_metadata_type;
HUDI_TL_DOC_API(hudi_cleaner_plan, hudi_cleaner_plan)
HUDI_TL_DOC_API(hudi_clean_metadata, hudi_clean_metadata)

#endif
