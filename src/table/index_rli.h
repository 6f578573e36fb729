/* The record-level index (the metadata table's record_index partition) as
 * an implementation of the write path's index (index.h). */
#ifndef HUDI_TABLE_INDEX_RLI_H
#define HUDI_TABLE_INDEX_RLI_H

#include "table/index.h"

/* The record index of table t as its timeline stands (t must outlive it):
 * each lookup is one batched read of the record_index shards
 * (mdt_record_index.h). The index is global, as Hudi's RECORD_INDEX. Fails
 * with HUDI_ERR_NOT_FOUND when t has no metadata table or no record index
 * (callers then fall back to hudi_index_bloom_create). Within a write that
 * shares its metadata-table handle (mdt_reader.h), the index uses that
 * handle and does not free it. */
HUDI_NODISCARD hudi_status hudi_index_rli_create(hudi_index **out, hudi_table *t, hudi_error *err);

/* The index a write looks keys up in: the record index when t has one,
 * else footer bloom filters (hudi_index_bloom_create). */
HUDI_NODISCARD hudi_status hudi_index_for_write(hudi_index **out, hudi_table *t, hudi_error *err);

#endif
