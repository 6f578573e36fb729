/* Writing log files. Blocks are encoded into one buffer with
 * hudi_log_block_encode (and the content helpers), then the whole file is
 * written at once through the storage layer.
 *
 * Naming, by table version (core spec section 5, v6 spec A5):
 *  - 8 and 9: every delta commit T writes a NEW file per file group,
 *    `.<fileId>_<T>.log.1_<token>`; the version only grows past 1 when that
 *    name is taken (Java's rollOver) or on size rollover within T.
 *  - 6: the instant in the name is the file slice's base instant and the
 *    version is one more than the highest existing version for
 *    (fileId, baseInstant) — hudi_log_file_next_version. Hudi 0.x appended
 *    to the latest file on HDFS only; on local and object storage it also
 *    made a new version per write, which is what we do.
 * Files are never appended to: object stores cannot, and 1.x no longer does. */
#ifndef HUDI_TABLE_LOG_WRITER_H
#define HUDI_TABLE_LOG_WRITER_H

#include "io/storage.h"
#include "table/log_file_name.h"
#include "table/log_format.h"

/* How many taken names hudi_log_file_create skips before giving up. */
#define HUDI_LOG_CREATE_MAX_TRIES 100

/* The next log version for (file_id, instant) among the `.log.` files in
 * dir ("" = the table's base): the highest present plus one, or 1. */
HUDI_NODISCARD hudi_status hudi_log_file_next_version(hudi_storage *s, const char *dir,
                                                      const char *file_id, const char *instant,
                                                      int32_t *out, hudi_error *err);

/* Creates dir/.<file_id>_<instant>.log.<version>_<write_token> holding
 * data[0, len) (whole log blocks). The write is atomic and never replaces a
 * file: when the name exists, the version is raised by one and the write
 * retried. *out_version (may be NULL) gets the version used and out_path
 * (may be NULL) the relative path written. */
HUDI_NODISCARD hudi_status hudi_log_file_create(hudi_storage *s, const char *dir,
                                                const char *file_id, const char *instant,
                                                int32_t version, const char *write_token,
                                                const uint8_t *data, size_t len,
                                                int32_t *out_version, hudi_buf *out_path,
                                                hudi_error *err);

#endif
