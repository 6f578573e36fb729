#include "table/clean_plan.h"

#define AI(c, a) HUDI_TL_FIELD(hudi_action_instant, c, a, hudi_tl_t_str)
static const hudi_tl_field action_fields[] = {AI(timestamp, "timestamp"), AI(action, "action"), AI(state, "state")};
static const hudi_tl_type action_type = HUDI_TL_REC_TYPE(hudi_action_instant, action_fields, "HoodieActionInstant");

static const hudi_tl_field file_info_fields[] = {
    HUDI_TL_FIELD(hudi_clean_file_info, file_path, "filePath", hudi_tl_t_str),
    HUDI_TL_FIELD(hudi_clean_file_info, is_bootstrap_base_file, "isBootstrapBaseFile", hudi_tl_t_bool),
};
static const hudi_tl_type file_info_type = HUDI_TL_REC_TYPE(hudi_clean_file_info, file_info_fields, "HoodieCleanFileInfo");
static const hudi_tl_type file_info_list = HUDI_TL_ARRAY_TYPE(file_info_type);
static const hudi_tl_type file_info_map = HUDI_TL_MAP_TYPE(hudi_clean_file_infos_entry, file_info_list);

#define CP(c, a, t) HUDI_TL_FIELD(hudi_cleaner_plan, c, a, t)
static const hudi_tl_field plan_fields[] = {
    CP(earliest_instant_to_retain, "earliestInstantToRetain", action_type),
    CP(last_completed_commit_timestamp, "lastCompletedCommitTimestamp", hudi_tl_t_str),
    CP(policy, "policy", hudi_tl_t_str),
    CP(files_to_be_deleted_per_partition, "filesToBeDeletedPerPartition", hudi_tl_t_strs_map),
    CP(version, "version", hudi_tl_t_int),
    CP(file_paths_to_be_deleted_per_partition, "filePathsToBeDeletedPerPartition", file_info_map),
    CP(partitions_to_be_deleted, "partitionsToBeDeleted", hudi_tl_t_str_array),
    CP(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
};
const hudi_tl_type hudi_cleaner_plan_type = HUDI_TL_REC_TYPE(hudi_cleaner_plan, plan_fields, "HoodieCleanerPlan");

#define PM(c, a, t) HUDI_TL_FIELD(hudi_clean_partition_metadata, c, a, t)
static const hudi_tl_field part_fields[] = {
    PM(partition_path, "partitionPath", hudi_tl_t_str),
    PM(policy, "policy", hudi_tl_t_str),
    PM(delete_path_patterns, "deletePathPatterns", hudi_tl_t_str_array),
    PM(success_delete_files, "successDeleteFiles", hudi_tl_t_str_array),
    PM(failed_delete_files, "failedDeleteFiles", hudi_tl_t_str_array),
    PM(is_partition_deleted, "isPartitionDeleted", hudi_tl_t_bool),
};
static const hudi_tl_type part_type =
    HUDI_TL_REC_TYPE(hudi_clean_partition_metadata, part_fields, "HoodieCleanPartitionMetadata");
static const hudi_tl_type part_map = HUDI_TL_MAP_TYPE(hudi_clean_partition_entry, part_type);

#define CM(c, a, t) HUDI_TL_FIELD(hudi_clean_metadata, c, a, t)
static const hudi_tl_field meta_fields[] = {
    CM(start_clean_time, "startCleanTime", hudi_tl_t_str),
    CM(time_taken_in_millis, "timeTakenInMillis", hudi_tl_t_long),
    CM(total_files_deleted, "totalFilesDeleted", hudi_tl_t_int),
    CM(earliest_commit_to_retain, "earliestCommitToRetain", hudi_tl_t_str),
    CM(last_completed_commit_timestamp, "lastCompletedCommitTimestamp", hudi_tl_t_str),
    CM(partition_metadata, "partitionMetadata", part_map),
    CM(version, "version", hudi_tl_t_int),
    CM(bootstrap_partition_metadata, "bootstrapPartitionMetadata", part_map),
    CM(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
};
const hudi_tl_type hudi_clean_metadata_type = HUDI_TL_REC_TYPE(hudi_clean_metadata, meta_fields, "HoodieCleanMetadata");

HUDI_TL_DOC_IMPL(hudi_cleaner_plan, hudi_cleaner_plan, hudi_cleaner_plan_type, HUDI_TL_CLEANER_PLAN)
HUDI_TL_DOC_IMPL(hudi_clean_metadata, hudi_clean_metadata, hudi_clean_metadata_type, HUDI_TL_CLEAN_METADATA)
