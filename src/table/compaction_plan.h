/* HoodieCompactionPlan: the content of T.compaction.requested (and of
 * T.logcompaction.requested), hudi-format-core.md §6. */
#ifndef HUDI_TABLE_COMPACTION_PLAN_H
#define HUDI_TABLE_COMPACTION_PLAN_H

#include "table/timeline_record.h"

typedef struct hudi_compaction_operation {
  char *base_instant_time;
  hudi_tl_list delta_file_paths; /* char *: log file names */
  char *data_file_path;          /* base file name, or NULL for a log-only slice */
  char *file_id;
  char *partition_path;
  hudi_tl_list metrics; /* hudi_tl_double_entry */
  char *bootstrap_file_path;
} hudi_compaction_operation;

typedef struct hudi_compaction_strategy {
  char *compactor_class_name;
  hudi_tl_list strategy_params; /* hudi_tl_str_entry */
  hudi_tl_int version;
} hudi_compaction_strategy;

typedef struct hudi_compaction_plan {
  hudi_tl_doc doc;
  hudi_tl_list operations; /* hudi_compaction_operation */
  hudi_tl_list extra_metadata; /* hudi_tl_str_entry */
  hudi_tl_int version;     /* 2 in Hudi 1.x */
  hudi_compaction_strategy *strategy;
  hudi_tl_bool preserve_hoodie_metadata;
  hudi_tl_list missing_schedule_partitions; /* char * */
} hudi_compaction_plan;

extern const hudi_tl_type hudi_compaction_plan_type;
HUDI_TL_DOC_API(hudi_compaction_plan, hudi_compaction_plan)

#endif
