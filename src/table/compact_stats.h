/* Reading side of a compaction (compact.c): the base file's keys and the
 * planned logs' block and record counts, for the write stats. Kept apart
 * from compact.c because the Parquet reader's and writer's headers cannot
 * be included together. */
#ifndef HUDI_TABLE_COMPACT_STATS_H
#define HUDI_TABLE_COMPACT_STATS_H

#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/hashmap.h"
#include "io/storage.h"
#include "table/fsview.h"

/* Keys of the base file -> their _hoodie_commit_seqno (map value: offset
 * into seqs of a uint32 length and the bytes), to tell unchanged, updated
 * and deleted records apart. */
typedef struct hudi_compact_base_keys {
  hudi_hashmap map;
  hudi_buf seqs;
  int64_t n, matched;
} hudi_compact_base_keys;

/* base NULL: no keys. Free with hudi_compact_base_keys_free even on error. */
HUDI_NODISCARD hudi_status hudi_compact_base_keys_load(hudi_compact_base_keys *bk, hudi_storage *s,
                                                       const hudi_fs_base_file *base, hudi_error *err);
void hudi_compact_base_keys_free(hudi_compact_base_keys *bk);

/* totalLogBlocks (data and delete blocks), totalLogRecords,
 * totalRollbackBlocks, totalCorruptLogBlock and the logs' bytes. */
typedef struct hudi_compact_log_counts {
  int64_t blocks, records, rollback_blocks, corrupt_blocks, bytes;
} hudi_compact_log_counts;

HUDI_NODISCARD hudi_status hudi_compact_count_logs(hudi_compact_log_counts *lc, hudi_storage *s,
                                                   const hudi_file_slice *sl, hudi_error *err);

#endif
