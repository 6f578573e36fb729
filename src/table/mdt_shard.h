/* Keys to metadata-table file groups (spec hudi-metadata-table.md §1.4).
 *
 * A key of an MDT partition with n file groups lives in the file group at
 * index HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex(key, n) =
 * abs(abs(key.hashCode()) % n) of the partition's file groups sorted by
 * file id; n is the number of file groups present (readers never read the
 * shard-count configs). File ids are "<prefix><index %04d>-0"
 * (getFileIDForFileGroup). */
#ifndef HUDI_TABLE_MDT_SHARD_H
#define HUDI_TABLE_MDT_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "table/mdt_reader.h"

/* The file-id prefix of an MDT partition: "files-", "col-stats-",
 * "bloom-filters-", "record-index-", "partition-stats-"; for
 * secondary_index_<n> and expr_index_<n> the name with '_' -> '-' plus
 * "-". NULL for an unknown partition. Writes into buf (cap bytes). */
const char *hudi_mdt_file_id_prefix(char *buf, size_t cap, const char *partition);

/* Appends "<prefix><index %04d>-0" to out (HUDI_ERR_INVALID_ARG for an
 * unknown partition or a negative index). */
HUDI_NODISCARD hudi_status hudi_mdt_file_id(hudi_buf *out, const char *partition, int32_t index, hudi_error *err);

/* The file-group index of a key among n_groups (>= 1). Keys that are not
 * valid UTF-8 are HUDI_ERR_INVALID_ARG (see hudi_java_string_hash). */
HUDI_NODISCARD hudi_status hudi_mdt_shard_of(int32_t *out, const char *key, size_t len, size_t n_groups,
                                             hudi_error *err);

/* Looks up keys (any order, repeats allowed) in an MDT partition: groups
 * them by shard, sorts each shard's keys and runs one merged lookup per
 * shard (hudi_mdt_group_lookup). out->items[i] is keys[i]'s record, or
 * absent (key NULL). A partition without file groups gives all absent. */
HUDI_NODISCARD hudi_status hudi_mdt_partition_lookup(hudi_mdt *m, const char *partition, const hudi_hfile_key *keys,
                                                     size_t n_keys, hudi_mdt_records *out, hudi_mdt_read_stats *stats,
                                                     hudi_error *err);

#endif
