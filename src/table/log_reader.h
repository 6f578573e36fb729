/* Reads the blocks of a log file in order, over a byte range in memory or
 * a file in a hudi_storage, recovering from damaged blocks exactly as Java's
 * HoodieLogFileReader does:
 *
 *  - at each block start 6 bytes of magic are read; fewer than 6 bytes left
 *    is the end of the file (a torn tail is ignored);
 *  - the block is CORRUPT when its size field cannot be read, when it runs
 *    past the end of the file, when the trailing length at its end is not
 *    size + 6, or when the 6 bytes after it are neither the next magic nor
 *    cut short by the end of the file;
 *  - a CORRUPT block spans from its magic to the next "#HUDI#" found after
 *    that magic (or to the end of the file); reading continues there.
 *
 * So garbage after a block makes that block (and the garbage) one corrupt
 * block, and the next complete block is read normally. Java skips the
 * checks on storage whose writes are transactional (object stores); we
 * always run them, which only differs for files that Java itself could not
 * read. A file whose first 6 bytes are not the magic is an error, as in
 * Java; so is a block that passes the checks but whose own fields do not
 * add up (Java would fail reading it too). */
#ifndef HUDI_TABLE_LOG_READER_H
#define HUDI_TABLE_LOG_READER_H

#include <stdbool.h>

#include "io/storage.h"
#include "table/log_format.h"

typedef struct hudi_log_reader hudi_log_reader;

/* Most bytes of one block's header the reader will hold at once. */
#define HUDI_LOG_HEAD_MAX ((size_t)256 << 20)

/* A reader over data[0, len) (borrowed: it must outlive the reader); name
 * is copied and used in messages. Blocks come with content pointers. */
HUDI_NODISCARD hudi_status hudi_log_reader_open_memory(hudi_log_reader **out, const uint8_t *data,
                                                       size_t len, const char *name,
                                                       hudi_error *err);

/* A reader over the file at path in s (borrowed). It reads headers and
 * footers only; content is fetched on request with hudi_log_reader_content. */
HUDI_NODISCARD hudi_status hudi_log_reader_open(hudi_log_reader **out, hudi_storage *s,
                                                const char *path, hudi_error *err);

void hudi_log_reader_free(hudi_log_reader *r);

/* The file's size in bytes. */
uint64_t hudi_log_reader_size(const hudi_log_reader *r);

/* Reads the next block into *out (which the caller frees with
 * hudi_log_block_free) and sets *has_block; *has_block false means the end
 * of the file (out untouched). A content pointer in out stays valid until
 * the reader is freed. */
HUDI_NODISCARD hudi_status hudi_log_reader_next(hudi_log_reader *r, hudi_log_block *out,
                                                bool *has_block, hudi_error *err);

/* Appends the block's content bytes (for a CORRUPT block: its bytes after
 * the magic) to out. */
HUDI_NODISCARD hudi_status hudi_log_reader_content(hudi_log_reader *r, const hudi_log_block *b,
                                                   hudi_buf *out, hudi_error *err);

#endif
