/* Savepoint and restore records (hudi-write-semantics.md §7.3), with the
 * schemas Hudi 1.x embeds (timeline_schemas.c):
 *   T_C.savepoint         HoodieSavepointMetadata
 *   R.restore.requested   HoodieRestorePlan
 *   R_C.restore           HoodieRestoreMetadata (the rollback metadata of
 *                         every instant the restore rolled back) */
#ifndef HUDI_TABLE_SAVEPOINT_RECORD_H
#define HUDI_TABLE_SAVEPOINT_RECORD_H

#include "table/rollback_plan.h"
#include "table/timeline_record.h"

typedef struct hudi_savepoint_partition {
  char *partition_path;            /* required */
  hudi_tl_list savepoint_data_file; /* char *: file names, required */
} hudi_savepoint_partition;

typedef struct hudi_savepoint_partition_entry {
  char *key; /* the partition path */
  hudi_savepoint_partition value;
} hudi_savepoint_partition_entry;

typedef struct hudi_savepoint_metadata {
  hudi_tl_doc doc;
  char *savepointed_by;            /* required */
  hudi_tl_long savepointed_at;     /* required: epoch milliseconds (Java's currentTimeMillis) */
  char *comments;                  /* required */
  hudi_tl_list partition_metadata; /* hudi_savepoint_partition_entry, required */
  hudi_tl_int version;             /* 1 */
} hudi_savepoint_metadata;

typedef struct hudi_restore_plan {
  hudi_tl_doc doc;
  hudi_tl_list instants_to_rollback; /* hudi_rollback_instant (HoodieInstantInfo), newest first */
  hudi_tl_int version;               /* 2 */
  char *savepoint_to_restore_timestamp;
} hudi_restore_plan;

/* One entry of hoodieRestoreMetadata: rolled-back instant -> [metadata].
 * The items are hudi_rollback_metadata structs held inline (their doc
 * header unused; their strings live in the restore document's arena or
 * in documents the caller keeps until it has written the file). */
typedef struct hudi_restore_rollbacks_entry {
  char *key;
  hudi_tl_list value; /* hudi_rollback_metadata */
} hudi_restore_rollbacks_entry;

typedef struct hudi_restore_metadata {
  hudi_tl_doc doc;
  char *start_restore_time;              /* required: R */
  hudi_tl_long time_taken_in_millis;     /* required */
  hudi_tl_list instants_to_rollback;     /* char *, required */
  hudi_tl_list hoodie_restore_metadata;  /* hudi_restore_rollbacks_entry, required */
  hudi_tl_int version;                   /* 1 */
  hudi_tl_list restore_instant_info;     /* hudi_rollback_instant (HoodieInstantInfo) */
} hudi_restore_metadata;

extern const hudi_tl_type hudi_savepoint_metadata_type, hudi_restore_plan_type, hudi_restore_metadata_type;
HUDI_TL_DOC_API(hudi_savepoint_metadata, hudi_savepoint_metadata)
HUDI_TL_DOC_API(hudi_restore_plan, hudi_restore_plan)
HUDI_TL_DOC_API(hudi_restore_metadata, hudi_restore_metadata)

#endif
