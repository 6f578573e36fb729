/* Rollback records: HoodieRollbackPlan (R.rollback.requested) and
 * HoodieRollbackMetadata (R_C.rollback), hudi-format-core.md §6. */
#ifndef HUDI_TABLE_ROLLBACK_PLAN_H
#define HUDI_TABLE_ROLLBACK_PLAN_H

#include "table/timeline_record.h"

typedef struct hudi_rollback_instant {
  char *commit_time, *action; /* required */
} hudi_rollback_instant;

typedef struct hudi_rollback_request {
  char *partition_path; /* required */
  char *file_id, *latest_base_instant;
  hudi_tl_list files_to_be_deleted;      /* char *, required (default []) */
  hudi_tl_list log_blocks_to_be_deleted; /* hudi_tl_long_entry */
} hudi_rollback_request;

typedef struct hudi_rollback_plan {
  hudi_tl_doc doc;
  hudi_rollback_instant *instant_to_rollback;
  hudi_tl_list rollback_requests; /* hudi_rollback_request ("RollbackRequests") */
  hudi_tl_int version;            /* 1 */
} hudi_rollback_plan;

typedef struct hudi_rollback_partition_metadata {
  char *partition_path;                                 /* required */
  hudi_tl_list success_delete_files, failed_delete_files; /* char *, required */
  hudi_tl_list rollback_log_files, log_files_from_failed_commit; /* hudi_tl_long_entry */
} hudi_rollback_partition_metadata;

typedef struct hudi_rollback_partition_entry {
  char *key;
  hudi_rollback_partition_metadata value;
} hudi_rollback_partition_entry;

typedef struct hudi_rollback_metadata {
  hudi_tl_doc doc;
  char *start_rollback_time;         /* required */
  hudi_tl_long time_taken_in_millis; /* required */
  hudi_tl_int total_files_deleted;   /* required */
  hudi_tl_list commits_rollback;     /* char *, required */
  hudi_tl_list partition_metadata;   /* hudi_rollback_partition_entry, required */
  hudi_tl_int version;
  hudi_tl_list instants_rollback; /* hudi_rollback_instant */
} hudi_rollback_metadata;

extern const hudi_tl_type hudi_rollback_plan_type, hudi_rollback_metadata_type;
HUDI_TL_DOC_API(hudi_rollback_plan, hudi_rollback_plan)
HUDI_TL_DOC_API(hudi_rollback_metadata, hudi_rollback_metadata)

#endif
