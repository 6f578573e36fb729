/* Turning the metadata table off on a write, as Apache Hudi's writers do
 * (HoodieTable.maybeDeleteMetadataTable): a write whose own options say
 * hoodie.metadata.enable=false on a table that lists metadata partitions
 * clears hoodie.table.metadata.partitions (and .inflight) in
 * hoodie.properties, then deletes .hoodie/metadata, before anything else
 * of the write. Readers then list storage; a later Hudi writer with the
 * metadata table on rebuilds it from storage (hudi-c's with
 * hoodie.metadata.enable=true: mdt_bootstrap.h). hudi-c uses it to continue
 * tables whose metadata table it cannot keep current (table version 6,
 * indexes it does not maintain). */
#ifndef HUDI_TABLE_MDT_DROP_H
#define HUDI_TABLE_MDT_DROP_H

#include <stdbool.h>
#include <stddef.h>

#include "hudi/table.h"
#include "table/table.h"

/* Whether the write's options (not the table's open options, which reads
 * use to list storage instead of the metadata table) turn it off. */
bool hudi_mdt_drop_requested(const hudi_option *opts, size_t n);

/* HUDI_ERR_INVALID_ARG when the write's options give hoodie.metadata.enable
 * a value other than true or false (any case): Java would read "no" as
 * false, a typo must not delete the metadata table or keep it silently. */
HUDI_NODISCARD hudi_status hudi_mdt_check_enable_option(const hudi_option *opts, size_t n, hudi_error *err);

/* Under the write lock (background services joined first: hudi_write_begin;
 * the lock refreshed t's metadata partitions from storage), when requested: if t lists metadata partitions, rewrites
 * hoodie.properties without them (HoodieTableConfig's protocol: a backup
 * copy, the new file, the backup deleted) and t's properties follow; then
 * deletes the metadata table's directory, if any. */
HUDI_NODISCARD hudi_status hudi_mdt_drop_if_requested(hudi_table *t, const hudi_option *opts, size_t n,
                                                      hudi_error *err);

/* The same, unconditionally (a restore that rebuilds the metadata table,
 * restore.h). */
HUDI_NODISCARD hudi_status hudi_mdt_drop(hudi_table *t, hudi_error *err);

/* ---- indexes turned off (mdt_drop_index.c) ----
 *
 * As Hudi's writers drop a metadata partition their config turns off
 * (HoodieTable.deleteMetadataIndexIfNecessary): a write whose options (or
 * the handle's) say false for
 *   hoodie.metadata.record.index.enable          -> record_index
 *   hoodie.metadata.index.column.stats.enable    -> column_stats, partition_stats
 *   hoodie.metadata.index.partition.stats.enable -> partition_stats
 *   hoodie.metadata.index.bloom.filter.enable    -> bloom_filters
 * on a table whose metadata table lists that partition drops it, under
 * the write lock after the failed writes are rolled back: pending MDT
 * compactions undone, the partition taken out of
 * hoodie.table.metadata.partitions, on dropping column stats its
 * index.json definition removed, then its directory deleted. Unlike
 * Java's, hudi-c's default for an option not given is to keep what the
 * table has (Java's record index and bloom filter switches default to
 * false, so a Java writer that does not set them drops those partitions). */

/* HUDI_ERR_INVALID_ARG, naming the key, for a value other than true or
 * false (any case). */
HUDI_NODISCARD hudi_status hudi_mdt_check_index_options(const hudi_table *t, const hudi_option *opts, size_t n,
                                                        hudi_error *err);

/* Whether the options turn off metadata partition name[0..len) (false
 * when they turn off the whole metadata table). */
bool hudi_mdt_index_dropped(const hudi_table *t, const hudi_option *opts, size_t n, const char *name, size_t len);

/* Whether t's handle lists a partition the options turn off. */
bool hudi_mdt_drop_indexes_requested(const hudi_table *t, const hudi_option *opts, size_t n);

/* Under the write lock (the handle's services joined), when requested:
 * the drop above. */
HUDI_NODISCARD hudi_status hudi_mdt_drop_indexes_if_requested(hudi_table *t, const hudi_option *opts, size_t n,
                                                              hudi_error *err);

/* Under the write lock: the metadata-table keys of t's handle
 * (hoodie.table.metadata.partitions, .inflight, hoodie.table.index.defs.path)
 * as hoodie.properties holds them now. Another handle or engine may have
 * built, dropped or extended the metadata table since t was opened; a write
 * that went by the handle's old list would leave the table's metadata
 * stale. *changed (changed may be NULL) tells whether any differed.
 * hudi_table_lock_acquire calls it once it holds the lock. */
HUDI_NODISCARD hudi_status hudi_table_props_refresh_mdt(hudi_table *t, bool *changed, hudi_error *err);

/* Sets keys[i] to values[i] in t's hoodie.properties as storage holds it
 * now (HoodieTableConfig.modify's protocol: a backup copy, the new file,
 * the backup deleted; a Hadoop checksum beside them deleted first), and
 * in t's handle. Under the write lock. */
HUDI_NODISCARD hudi_status hudi_table_props_update(hudi_table *t, const char *const *keys, const char *const *values,
                                                   size_t n, hudi_error *err);

#endif
