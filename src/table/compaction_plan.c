#include "table/compaction_plan.h"

#define OP(c, a, t) HUDI_TL_FIELD(hudi_compaction_operation, c, a, t)
static const hudi_tl_field op_fields[] = {
    OP(base_instant_time, "baseInstantTime", hudi_tl_t_str),
    OP(delta_file_paths, "deltaFilePaths", hudi_tl_t_str_array),
    OP(data_file_path, "dataFilePath", hudi_tl_t_str),
    OP(file_id, "fileId", hudi_tl_t_str),
    OP(partition_path, "partitionPath", hudi_tl_t_str),
    OP(metrics, "metrics", hudi_tl_t_double_map),
    OP(bootstrap_file_path, "bootstrapFilePath", hudi_tl_t_str),
};
static const hudi_tl_type op_type = HUDI_TL_REC_TYPE(hudi_compaction_operation, op_fields, "HoodieCompactionOperation");
static const hudi_tl_type op_list_type = HUDI_TL_ARRAY_TYPE(op_type);

#define ST(c, a, t) HUDI_TL_FIELD(hudi_compaction_strategy, c, a, t)
static const hudi_tl_field strategy_fields[] = {
    ST(compactor_class_name, "compactorClassName", hudi_tl_t_str),
    ST(strategy_params, "strategyParams", hudi_tl_t_str_map),
    ST(version, "version", hudi_tl_t_int),
};
static const hudi_tl_type strategy_type =
    HUDI_TL_REC_TYPE(hudi_compaction_strategy, strategy_fields, "HoodieCompactionStrategy");

#define PL(c, a, t) HUDI_TL_FIELD(hudi_compaction_plan, c, a, t)
static const hudi_tl_field plan_fields[] = {
    PL(operations, "operations", op_list_type),
    PL(extra_metadata, "extraMetadata", hudi_tl_t_str_map),
    PL(version, "version", hudi_tl_t_int),
    PL(strategy, "strategy", strategy_type),
    PL(preserve_hoodie_metadata, "preserveHoodieMetadata", hudi_tl_t_bool),
    PL(missing_schedule_partitions, "missingSchedulePartitions", hudi_tl_t_str_array),
};
const hudi_tl_type hudi_compaction_plan_type = HUDI_TL_REC_TYPE(hudi_compaction_plan, plan_fields, "HoodieCompactionPlan");

HUDI_TL_DOC_IMPL(hudi_compaction_plan, hudi_compaction_plan, hudi_compaction_plan_type, HUDI_TL_COMPACTION_PLAN)
