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

/* On object stores the walk's read of a large block's tail (footer,
 * trailing length, next magic) starts up to this many bytes earlier, so it
 * also brings the end of the block's content: for an HFILE_DATA block the
 * HFile trailer and load-on-open section (root index, file info with the
 * ~8 KB schema), which a lookup's HFile reader then opens without two GETs
 * of its own (hudi_mdt_log_range_tail). Local files: not done. */
#define HUDI_MDT_LOG_TAIL_PREFETCH ((size_t)64 << 10)

typedef struct hudi_mdt_log_walk {
  hudi_log_block *blocks;
  uint8_t **owned;
  /* tails[i]: the last tail_lens[i] bytes of block i's content, or NULL. */
  uint8_t **tails;
  size_t *tail_lens;
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
  uint64_t size;       /* the content's length */
  const uint8_t *tail; /* its last tail_len bytes, or NULL */
  size_t tail_len;
  hudi_storage_file *f; /* path, held from the first read on */
} hudi_mdt_log_range;

void hudi_mdt_log_hfile_source(hudi_hfile_source *src, hudi_mdt_log_range *ctx, hudi_storage *s, const char *path,
                               const hudi_log_block *b);
/* Serves reads of the last len bytes of the block's content from tail
 * (borrowed: the walk's tails[i]) instead of storage. */
void hudi_mdt_log_range_tail(hudi_mdt_log_range *ctx, const uint8_t *tail, size_t len);
/* Closes the file the reads held (after the HFile reader is freed). */
void hudi_mdt_log_range_close(hudi_mdt_log_range *ctx);

/* How a lookup in an MDT HFile on s merges its block reads
 * (hudi_hfile_reader_set_coalesce). Local files and any other backend:
 * the reader's default, adjacent blocks only (the same bytes in fewer
 * reads). Object stores (s3, gcs, azure): a GET costs a round trip
 * whatever its size (~20-50 ms on a cloud service, ~1-3 ms on loopback),
 * so blocks up to HUDI_MDT_REMOTE_COALESCE_GAP apart are fetched together,
 * in reads of at most HUDI_MDT_REMOTE_COALESCE_MAX: a 1k-key record-index
 * lookup then reads each shard's data section in a few GETs instead of one
 * GET per 4 KiB data block (issue 10), at most one gap of extra bytes per
 * block the keys need. */
#define HUDI_MDT_REMOTE_COALESCE_GAP ((uint64_t)1 << 20)
#define HUDI_MDT_REMOTE_COALESCE_MAX ((uint64_t)8 << 20)
void hudi_mdt_hfile_coalesce(hudi_hfile_reader *r, const hudi_storage *s);

#endif
