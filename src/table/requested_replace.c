#include "table/requested_replace.h"

#define SL(c, a, t) HUDI_TL_FIELD(hudi_slice_info, c, a, t)
static const hudi_tl_field slice_fields[] = {
    SL(data_file_path, "dataFilePath", hudi_tl_t_str),
    SL(delta_file_paths, "deltaFilePaths", hudi_tl_t_str_array),
    SL(file_id, "fileId", hudi_tl_t_str),
    SL(partition_path, "partitionPath", hudi_tl_t_str),
    SL(bootstrap_file_path, "bootstrapFilePath", hudi_tl_t_str),
    SL(version, "version", hudi_tl_t_int),
};
static const hudi_tl_type slice_type = HUDI_TL_REC_TYPE(hudi_slice_info, slice_fields, "HoodieSliceInfo");
static const hudi_tl_type slice_list = HUDI_TL_ARRAY_TYPE(slice_type);

#define GR(c, a, t) HUDI_TL_FIELD(hudi_clustering_group, c, a, t)
static const hudi_tl_field group_fields[] = {
    GR(slices, "slices", slice_list),
    GR(metrics, "metrics", hudi_tl_t_double_map),
    GR(num_output_file_groups, "numOutputFileGroups", hudi_tl_t_int),
    GR(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
    GR(version, "version", hudi_tl_t_int),
};
static const hudi_tl_type group_type = HUDI_TL_REC_TYPE(hudi_clustering_group, group_fields, "HoodieClusteringGroup");
static const hudi_tl_type group_list = HUDI_TL_ARRAY_TYPE(group_type);

#define ST(c, a, t) HUDI_TL_FIELD(hudi_clustering_strategy, c, a, t)
static const hudi_tl_field strategy_fields[] = {
    ST(strategy_class_name, "strategyClassName", hudi_tl_t_str),
    ST(strategy_params, "strategyParams", hudi_tl_t_str_map),
    ST(version, "version", hudi_tl_t_int),
};
static const hudi_tl_type strategy_type =
    HUDI_TL_REC_TYPE(hudi_clustering_strategy, strategy_fields, "HoodieClusteringStrategy");

#define CP(c, a, t) HUDI_TL_FIELD(hudi_clustering_plan, c, a, t)
static const hudi_tl_field plan_fields[] = {
    CP(input_groups, "inputGroups", group_list),
    CP(strategy, "strategy", strategy_type),
    CP(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
    CP(version, "version", hudi_tl_t_int),
    CP(preserve_hoodie_metadata, "preserveHoodieMetadata", hudi_tl_t_bool),
    CP(missing_schedule_partitions, "missingSchedulePartitions", hudi_tl_t_str_array),
};
static const hudi_tl_type plan_type = HUDI_TL_REC_TYPE(hudi_clustering_plan, plan_fields, "HoodieClusteringPlan");

#define RR(c, a, t) HUDI_TL_FIELD(hudi_requested_replace, c, a, t)
static const hudi_tl_field rr_fields[] = {
    RR(operation_type, "operationType", hudi_tl_t_str),
    RR(clustering_plan, "clusteringPlan", plan_type),
    RR(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
    RR(version, "version", hudi_tl_t_int),
};
const hudi_tl_type hudi_requested_replace_type =
    HUDI_TL_REC_TYPE(hudi_requested_replace, rr_fields, "HoodieRequestedReplaceMetadata");

HUDI_TL_DOC_IMPL(hudi_requested_replace, hudi_requested_replace, hudi_requested_replace_type,
                 HUDI_TL_REQUESTED_REPLACE, HUDI_TL_REQUESTED_REPLACE_V6)
