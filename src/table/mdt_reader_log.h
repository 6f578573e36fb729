/* Ranged reading of metadata-table log files for key lookups.
 *
 * A record-index lookup needs, from each log block, its header (instant
 * time, schema, block type) and, for an HFILE_DATA block, only the HFile
 * trailer, its load-on-open section (root index, file info) and the data
 * blocks holding the looked-up keys. Reading the log file whole makes a
 * commit's cost grow with the table (until the MDT compacts, a bulk
 * insert leaves each shard's whole key range in one log block). This walks the blocks with two small ranged reads
 * each (head, and tail through the next magic) and leaves the content on
 * storage: hudi_mdt_log_hfile_source reads an embedded HFile in place.
 *
 * Only files whose every block passes Java's soundness checks
 * (HoodieLogFileReader.isBlockCorrupted: size in range, trailing length =
 * size + 6, the next magic follows or fewer than 6 bytes remain) are walked
 * this way; anything else sets *sound = false and the caller reads the file
 * whole through hudi_log_reader, whose corrupt-block recovery this does not
 * repeat. */
#ifndef HUDI_TABLE_MDT_READER_LOG_H
#define HUDI_TABLE_MDT_READER_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hfile/hfile.h"
#include "io/storage.h"
#include "table/log_format.h"

/* A log file's blocks. A block of at most HUDI_MDT_LOG_WHOLE_MAX bytes is
 * read whole (one read costs less than its HFile's trailer, index and file
 * info read apart): its content points into owned[i]. A larger one is left
 * on storage (content == NULL, owned[i] NULL). */
#define HUDI_MDT_LOG_WHOLE_MAX ((size_t)48 << 10)

typedef struct hudi_mdt_log_walk {
  hudi_log_block *blocks;
  uint8_t **owned;
  size_t n, cap;
  uint64_t file_size;
  uint64_t bytes_read; /* what the walk fetched */
} hudi_mdt_log_walk;

/* Walks path in s. On HUDI_OK with *sound false, w holds no blocks. */
HUDI_NODISCARD hudi_status hudi_mdt_log_walk_file(hudi_mdt_log_walk *w, hudi_storage *s, const char *path,
                                                  bool *sound, hudi_error *err);
void hudi_mdt_log_walk_free(hudi_mdt_log_walk *w);

/* An HFile embedded as the content of block b of the log file path:
 * reads go to storage at b->content_offset + off. src->ctx points at ctx,
 * which must outlive the HFile reader; ctx->bytes counts what was read. */
typedef struct hudi_mdt_log_range {
  hudi_storage *s;
  const char *path;
  uint64_t base;
  uint64_t bytes;
} hudi_mdt_log_range;

void hudi_mdt_log_hfile_source(hudi_hfile_source *src, hudi_mdt_log_range *ctx, hudi_storage *s, const char *path,
                               const hudi_log_block *b);

#endif
