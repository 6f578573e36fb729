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

/* The visible delete blocks' keys -> the latest instant deleting each
 * (for a streamed compaction, compact.c): blocks count when their instant
 * is visible to the read plan and not the target of a rollback command
 * block of the slice, as the slice reader (read_slice.c) decides. */
typedef struct hudi_compact_log_deletes {
  hudi_hashmap map; /* key -> index into instants */
  char (*instants)[HUDI_INSTANT_TIME_MAX];
  size_t n_instants, cap_instants;
} hudi_compact_log_deletes;

void hudi_compact_log_deletes_free(hudi_compact_log_deletes *d);

/* The latest deleting instant of key, or NULL. */
const char *hudi_compact_log_deletes_get(const hudi_compact_log_deletes *d, const void *key, size_t len);

/* dels (nullable; then p may be NULL too) receives the deletes; free it
 * with hudi_compact_log_deletes_free even on error. */
struct hudi_read_plan;
HUDI_NODISCARD hudi_status hudi_compact_count_logs(hudi_compact_log_counts *lc, hudi_compact_log_deletes *dels,
                                                   const struct hudi_read_plan *p, hudi_storage *s,
                                                   const hudi_file_slice *sl, hudi_error *err);

#endif
