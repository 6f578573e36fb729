#include "table/rollback_plan.h"

static const hudi_tl_field info_fields[] = {
    HUDI_TL_FIELD(hudi_rollback_instant, commit_time, "commitTime", hudi_tl_t_str),
    HUDI_TL_FIELD(hudi_rollback_instant, action, "action", hudi_tl_t_str),
};
static const hudi_tl_type info_type = HUDI_TL_REC_TYPE(hudi_rollback_instant, info_fields, "HoodieInstantInfo");
static const hudi_tl_type info_list = HUDI_TL_ARRAY_TYPE(info_type);

#define RQ(c, a, t) HUDI_TL_FIELD(hudi_rollback_request, c, a, t)
static const hudi_tl_field request_fields[] = {
    RQ(partition_path, "partitionPath", hudi_tl_t_str),
    RQ(file_id, "fileId", hudi_tl_t_str),
    RQ(latest_base_instant, "latestBaseInstant", hudi_tl_t_str),
    RQ(files_to_be_deleted, "filesToBeDeleted", hudi_tl_t_str_array),
    RQ(log_blocks_to_be_deleted, "logBlocksToBeDeleted", hudi_tl_t_long_map),
};
static const hudi_tl_type request_type = HUDI_TL_REC_TYPE(hudi_rollback_request, request_fields, "HoodieRollbackRequest");
static const hudi_tl_type request_list = HUDI_TL_ARRAY_TYPE(request_type);

#define RP(c, a, t) HUDI_TL_FIELD(hudi_rollback_plan, c, a, t)
static const hudi_tl_field plan_fields[] = {
    RP(instant_to_rollback, "instantToRollback", info_type),
    RP(rollback_requests, "RollbackRequests", request_list),
    RP(version, "version", hudi_tl_t_int),
};
const hudi_tl_type hudi_rollback_plan_type = HUDI_TL_REC_TYPE(hudi_rollback_plan, plan_fields, "HoodieRollbackPlan");

#define PM(c, a, t) HUDI_TL_FIELD(hudi_rollback_partition_metadata, c, a, t)
static const hudi_tl_field part_fields[] = {
    PM(partition_path, "partitionPath", hudi_tl_t_str),
    PM(success_delete_files, "successDeleteFiles", hudi_tl_t_str_array),
    PM(failed_delete_files, "failedDeleteFiles", hudi_tl_t_str_array),
    PM(rollback_log_files, "rollbackLogFiles", hudi_tl_t_long_map),
    PM(log_files_from_failed_commit, "logFilesFromFailedCommit", hudi_tl_t_long_map),
};
static const hudi_tl_type part_type =
    HUDI_TL_REC_TYPE(hudi_rollback_partition_metadata, part_fields, "HoodieRollbackPartitionMetadata");
static const hudi_tl_type part_map = HUDI_TL_MAP_TYPE(hudi_rollback_partition_entry, part_type);

#define RM(c, a, t) HUDI_TL_FIELD(hudi_rollback_metadata, c, a, t)
static const hudi_tl_field meta_fields[] = {
    RM(start_rollback_time, "startRollbackTime", hudi_tl_t_str),
    RM(time_taken_in_millis, "timeTakenInMillis", hudi_tl_t_long),
    RM(total_files_deleted, "totalFilesDeleted", hudi_tl_t_int),
    RM(commits_rollback, "commitsRollback", hudi_tl_t_str_array),
    RM(partition_metadata, "partitionMetadata", part_map),
    RM(version, "version", hudi_tl_t_int),
    RM(instants_rollback, "instantsRollback", info_list),
};
const hudi_tl_type hudi_rollback_metadata_type =
    HUDI_TL_REC_TYPE(hudi_rollback_metadata, meta_fields, "HoodieRollbackMetadata");

HUDI_TL_DOC_IMPL(hudi_rollback_plan, hudi_rollback_plan, hudi_rollback_plan_type, HUDI_TL_ROLLBACK_PLAN)
HUDI_TL_DOC_IMPL(hudi_rollback_metadata, hudi_rollback_metadata, hudi_rollback_metadata_type,
                 HUDI_TL_ROLLBACK_METADATA)
