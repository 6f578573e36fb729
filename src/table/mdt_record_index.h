/* Record-level index lookups in the metadata table's record_index
 * partition (spec hudi-metadata-table.md §1.4, §2, §6): a record key ->
 * the data file group holding it, as Spark's SparkMetadataTableRecordIndex
 * tags records: keys are hashed to shards (Java String.hashCode over the
 * number of record_index file groups present), each shard's keys are
 * sorted and merge-joined against its latest slice (base HFile blocks
 * holding them, then its log blocks). */
#ifndef HUDI_TABLE_MDT_RECORD_INDEX_H
#define HUDI_TABLE_MDT_RECORD_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/instant.h"
#include "table/mdt_reader.h"

#define HUDI_MDT_RECORD_INDEX "record_index"

typedef struct hudi_rli_location {
  bool found;
  char *partition;  /* owned; "" for a non-partitioned table */
  char *file_id;    /* owned; getLocationFromRecordIndexInfo's file id */
  int64_t instant_ms; /* the entry's instantTime (epoch ms) */
  /* instant_ms as an instant time in the table's timeline zone
   * (hoodie.table.timeline.timezone: UTC, else the process's local zone,
   * as Java formats it in the JVM's zone). */
  char instant[HUDI_INSTANT_TIME_BUF];
} hudi_rli_location;

/* Whether the table has a usable record index: record_index is listed in
 * hoodie.table.metadata.partitions and has at least one file group. */
bool hudi_mdt_has_record_index(const hudi_mdt *m);

/* Looks up n keys (any order; repeats allowed). *out is an array of n
 * locations (freed with hudi_rli_locations_free) in the order asked;
 * found is false for keys the index does not hold. stats (nullable) is
 * added to: a lookup of k keys reads at most k base data blocks per shard
 * plus the shards' log blocks. Without a record index:
 * HUDI_ERR_NOT_FOUND. */
HUDI_NODISCARD hudi_status hudi_mdt_record_index_lookup(hudi_mdt *m, const char *const *keys, const size_t *key_lens,
                                                        size_t n, hudi_rli_location **out,
                                                        hudi_mdt_read_stats *stats, hudi_error *err);
void hudi_rli_locations_free(hudi_rli_location *locs, size_t n);

#endif
