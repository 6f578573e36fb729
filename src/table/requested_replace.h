/* HoodieRequestedReplaceMetadata: the content of T.replacecommit.requested
 * and T.clustering.requested (operationType, and a clustering plan for
 * clustering). Two writer schemas: Hudi 1.x, and 0.x (table version 6)
 * without clusteringPlan.missingSchedulePartitions; doc.schema says which
 * one a file used and is written again. */
#ifndef HUDI_TABLE_REQUESTED_REPLACE_H
#define HUDI_TABLE_REQUESTED_REPLACE_H

#include "table/timeline_record.h"

typedef struct hudi_slice_info {
  char *data_file_path;
  hudi_tl_list delta_file_paths; /* char * */
  char *file_id, *partition_path, *bootstrap_file_path;
  hudi_tl_int version;
} hudi_slice_info;

typedef struct hudi_clustering_group {
  hudi_tl_list slices;  /* hudi_slice_info */
  hudi_tl_list metrics; /* hudi_tl_double_entry */
  hudi_tl_int num_output_file_groups;
  hudi_tl_list extra_metadata; /* hudi_tl_str_entry */
  hudi_tl_int version;
} hudi_clustering_group;

typedef struct hudi_clustering_strategy {
  char *strategy_class_name;
  hudi_tl_list strategy_params; /* hudi_tl_str_entry */
  hudi_tl_int version;
} hudi_clustering_strategy;

typedef struct hudi_clustering_plan {
  hudi_tl_list input_groups; /* hudi_clustering_group */
  hudi_clustering_strategy *strategy;
  hudi_tl_list extra_metadata; /* hudi_tl_str_entry */
  hudi_tl_int version;
  hudi_tl_bool preserve_hoodie_metadata;
  hudi_tl_list missing_schedule_partitions; /* char *; not in the 0.x schema */
} hudi_clustering_plan;

typedef struct hudi_requested_replace {
  hudi_tl_doc doc; /* HUDI_TL_REQUESTED_REPLACE or HUDI_TL_REQUESTED_REPLACE_V6 */
  char *operation_type; /* e.g. "CLUSTER", "INSERT_OVERWRITE"; null for a v6 insert_overwrite */
  hudi_clustering_plan *clustering_plan;
  hudi_tl_list extra_metadata; /* hudi_tl_str_entry */
  hudi_tl_int version;
} hudi_requested_replace;

extern const hudi_tl_type hudi_requested_replace_type;
HUDI_TL_DOC_API(hudi_requested_replace, hudi_requested_replace)

#endif
