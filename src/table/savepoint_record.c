#include "table/savepoint_record.h"

/* ---- HoodieSavepointMetadata ---- */

#define SPP(c, a, t) HUDI_TL_FIELD(hudi_savepoint_partition, c, a, t)
static const hudi_tl_field sp_part_fields[] = {
    SPP(partition_path, "partitionPath", hudi_tl_t_str),
    SPP(savepoint_data_file, "savepointDataFile", hudi_tl_t_str_array),
};
static const hudi_tl_type sp_part_type =
    HUDI_TL_REC_TYPE(hudi_savepoint_partition, sp_part_fields, "HoodieSavepointPartitionMetadata");
static const hudi_tl_type sp_part_map = HUDI_TL_MAP_TYPE(hudi_savepoint_partition_entry, sp_part_type);

#define SPM(c, a, t) HUDI_TL_FIELD(hudi_savepoint_metadata, c, a, t)
static const hudi_tl_field sp_fields[] = {
    SPM(savepointed_by, "savepointedBy", hudi_tl_t_str),
    SPM(savepointed_at, "savepointedAt", hudi_tl_t_long),
    SPM(comments, "comments", hudi_tl_t_str),
    SPM(partition_metadata, "partitionMetadata", sp_part_map),
    SPM(version, "version", hudi_tl_t_int),
};
const hudi_tl_type hudi_savepoint_metadata_type =
    HUDI_TL_REC_TYPE(hudi_savepoint_metadata, sp_fields, "HoodieSavepointMetadata");

/* ---- HoodieInstantInfo (as in rollback_plan.c) ---- */

static const hudi_tl_field info_fields[] = {
    HUDI_TL_FIELD(hudi_rollback_instant, commit_time, "commitTime", hudi_tl_t_str),
    HUDI_TL_FIELD(hudi_rollback_instant, action, "action", hudi_tl_t_str),
};
static const hudi_tl_type info_type = HUDI_TL_REC_TYPE(hudi_rollback_instant, info_fields, "HoodieInstantInfo");
static const hudi_tl_type info_list = HUDI_TL_ARRAY_TYPE(info_type);

/* ---- HoodieRestorePlan ---- */

#define RP(c, a, t) HUDI_TL_FIELD(hudi_restore_plan, c, a, t)
static const hudi_tl_field plan_fields[] = {
    RP(instants_to_rollback, "instantsToRollback", info_list),
    RP(version, "version", hudi_tl_t_int),
    RP(savepoint_to_restore_timestamp, "savepointToRestoreTimestamp", hudi_tl_t_str),
};
const hudi_tl_type hudi_restore_plan_type = HUDI_TL_REC_TYPE(hudi_restore_plan, plan_fields, "HoodieRestorePlan");

/* ---- HoodieRestoreMetadata ---- */

static const hudi_tl_type rb_list = HUDI_TL_ARRAY_TYPE(hudi_rollback_metadata_type);
static const hudi_tl_type rb_map = HUDI_TL_MAP_TYPE(hudi_restore_rollbacks_entry, rb_list);

#define RM(c, a, t) HUDI_TL_FIELD(hudi_restore_metadata, c, a, t)
static const hudi_tl_field meta_fields[] = {
    RM(start_restore_time, "startRestoreTime", hudi_tl_t_str),
    RM(time_taken_in_millis, "timeTakenInMillis", hudi_tl_t_long),
    RM(instants_to_rollback, "instantsToRollback", hudi_tl_t_str_array),
    RM(hoodie_restore_metadata, "hoodieRestoreMetadata", rb_map),
    RM(version, "version", hudi_tl_t_int),
    RM(restore_instant_info, "restoreInstantInfo", info_list),
};
const hudi_tl_type hudi_restore_metadata_type =
    HUDI_TL_REC_TYPE(hudi_restore_metadata, meta_fields, "HoodieRestoreMetadata");

HUDI_TL_DOC_IMPL(hudi_savepoint_metadata, hudi_savepoint_metadata, hudi_savepoint_metadata_type,
                 HUDI_TL_SAVEPOINT_METADATA)
HUDI_TL_DOC_IMPL(hudi_restore_plan, hudi_restore_plan, hudi_restore_plan_type, HUDI_TL_RESTORE_PLAN)
HUDI_TL_DOC_IMPL(hudi_restore_metadata, hudi_restore_metadata, hudi_restore_metadata_type, HUDI_TL_RESTORE_METADATA)
