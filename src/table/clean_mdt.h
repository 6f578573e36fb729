/* A clean in the metadata table (MDT), as Spark records it
 * (HoodieTableMetadataUtil.convertMetadataToFilesPartitionRecords for a
 * HoodieCleanMetadata): MDT deltacommit T (the clean's instant) with one
 * log file in `files` holding one record per cleaned partition that lists
 * its deleted files with isDeleted=true. Unlike a data commit there is no
 * `__all_partitions__` record (a clean deletes no partition here) and no
 * record-index change (the live file groups keep their keys). When the
 * table keeps column_stats (version 9), the deltacommit also
 * removes the deleted files' column_stats entries as Spark 1.2 does: per
 * column_stats file group the keys shard to, a log file with one DELETE
 * block of the (file, indexed column) keys in ascending order (Java's
 * isDeleted tombstones, which its MDT append handle writes as deletes).
 * partition_stats are untouched: no latest file goes. */
#ifndef HUDI_TABLE_CLEAN_MDT_H
#define HUDI_TABLE_CLEAN_MDT_H

#include <stddef.h>

#include "base/error.h"
#include "base/instant.h"
#include "table/mdt_write.h"
#include "table/table.h"

/* Writes MDT deltacommit `instant` for the deleted files (each .deleted =
 * true, .partition "" when non-partitioned); gen observes the MDT's
 * completion time so the clean completes after it. A no-op when t has no
 * MDT or nothing was deleted. */
HUDI_NODISCARD hudi_status hudi_clean_mdt_update(hudi_table *t, const char *instant,
                                                 const hudi_mdt_file_change *deleted, size_t n,
                                                 hudi_instant_gen *gen, hudi_error *err);

#endif
