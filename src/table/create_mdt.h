/* The metadata table of a new table (hudi_table_create): which MDT the
 * create options ask for, and creating it (mdt_init.h). */
#ifndef HUDI_TABLE_CREATE_MDT_H
#define HUDI_TABLE_CREATE_MDT_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/error.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/index_defs.h"

/* What the create options ask of the metadata table. */
typedef struct hudi_mdt_create_plan {
  bool mdt; /* the table gets an MDT */
  bool rli; /* with a record index */
  /* File groups of column_stats / partition_stats (0 = none). */
  int32_t column_stats_groups, partition_stats_groups;
} hudi_mdt_create_plan;

/* From record_index_enabled and hoodie.metadata.enable (default: true
 * when the record index or column stats are enabled, else false, as hudi-c
 * has always created tables without one), hoodie.metadata.record.index.enable (must
 * agree with record_index_enabled when given),
 * hoodie.metadata.index.column.stats.enable (default false) and
 * hoodie.metadata.index.partition.stats.enable (default: with column stats
 * on a partitioned table) with their file.group.count options (2 and 1).
 * The record index or column stats without the MDT, partition stats
 * without column stats, and MDT indexes hudi-c does not create (bloom
 * filters, secondary indexes) are refused. */
HUDI_NODISCARD hudi_status hudi_create_mdt_plan(const hudi_create_options *o, hudi_mdt_create_plan *plan,
                                                hudi_error *err);

/* Where a version-9 table keeps its index definitions
 * (hoodie.table.index.defs.path). */
#define HUDI_CREATE_INDEX_DEFS_PATH HUDI_INDEX_DEFS_DEFAULT_PATH

/* Creates the MDT of the new table name (table version `version`: 8 or 9;
 * version 6 tables get none, create.c refuses the options asking for it)
 * under s when the options ask for one, and appends the
 * hoodie.table.metadata.partitions value to partitions (nothing when
 * there is no MDT). Version 9 with the record index, and any version with
 * column stats, also write HUDI_CREATE_INDEX_DEFS_PATH with those
 * definitions, as Hudi does; the MDT itself differs from version 8 only
 * in its hoodie.table.version / initial.version (mdt_init.h). */
HUDI_NODISCARD hudi_status hudi_create_mdt(hudi_storage *s, const hudi_create_options *o, const char *name,
                                           int version, hudi_buf *partitions, hudi_error *err);

#endif
