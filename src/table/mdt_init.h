/* Creating the metadata table (MDT) of a new, empty data table, as
 * HoodieBackedTableMetadataWriter initialises it (spec
 * hudi-metadata-table.md §1.1, §1.4, §1.5, §4 "Initialisation"):
 *
 *   .hoodie/metadata/.hoodie/hoodie.properties   the 17 keys Hudi writes
 *   .hoodie/metadata/.hoodie/timeline/            one deltacommit per
 *       partition, in Hudi's order: files at 00000000000000000, then
 *       column_stats, record_index and partition_stats (those asked for)
 *       at ...001, ...002, ... (requested and inflight empty, completed
 *       with a BULK_INSERT_PREPPED commit metadata whose extraMetadata is
 *       the schema)
 *   .hoodie/metadata/files/                       .hoodie_partition_metadata,
 *       .files-0000-0_00000000000000000.log.1_0-0-0 (one empty DELETE
 *       block) and the base files-0000-0_0-0-0_00000000000000000.hfile
 *       holding __all_partitions__ with an empty map (hudi-rs needs a base
 *       file in `files`)
 *   .hoodie/metadata/<index>/                     .hoodie_partition_metadata
 *       and, per file group (record-index-NNNN-0, col-stats-NNNN-0,
 *       partition-stats-NNNN-0), .<fileId>_<its instant>.log.1_0-0-0 (one
 *       empty DELETE block; an empty index has no base file)
 *
 * The caller (the data table's properties writer) then sets
 * hoodie.table.metadata.partitions to *out_partitions. */
#ifndef HUDI_TABLE_MDT_INIT_H
#define HUDI_TABLE_MDT_INIT_H

#include "base/buf.h"
#include "table/mdt_write.h"

/* The instant of the files partition's initialisation deltacommit. */
#define HUDI_MDT_INIT_FILES_INSTANT "00000000000000000"

/* Appends the MDT's hoodie.properties text (Java Properties, the keys in
 * the order Hudi writes them, with the "#Properties saved on" comments) for
 * a data table named table_name (database_name NULL or "" = none). */
HUDI_NODISCARD hudi_status hudi_mdt_properties_text(hudi_buf *out, const char *table_name, const char *database_name,
                                                    int table_version, hudi_error *err);

/* Creates the MDT under s (the data table's storage). opts->table_name is
 * required. An existing .hoodie/metadata/.hoodie/hoodie.properties is
 * HUDI_ERR_EXISTS (nothing written). out_partitions (may be NULL) gets the
 * value for the data table's hoodie.table.metadata.partitions:
 * the partitions in name order ("files,record_index", "files" without a
 * record index, "column_stats,files,partition_stats,record_index" with
 * opts->column_stats_groups and opts->partition_stats_groups). */
HUDI_NODISCARD hudi_status hudi_mdt_init(hudi_storage *s, const hudi_mdt_write_options *opts, hudi_buf *out_partitions,
                                         hudi_error *err);

/* Initialises one index partition of an existing MDT (a record index
 * added later: mdt_bootstrap.h) as hudi_mdt_init initialises it on a new
 * one: .hoodie_partition_metadata, an init log per file group, and its
 * own completed deltacommit `instant` (a free 00000000000000NNN time,
 * the caller's choice). The caller lists the partition afterwards. */
HUDI_NODISCARD hudi_status hudi_mdt_init_index_partition(hudi_storage *s, const hudi_mdt_write_options *opts,
                                                         const char *partition, int32_t n_groups, const char *instant,
                                                         hudi_error *err);

#endif
