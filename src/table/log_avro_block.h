/* The content framing of an AVRO_DATA block (HoodieAvroDataBlock,
 * serializeRecords / deserializeRecords):
 *
 *   int32 version (3; HoodieAvroDataBlockVersion, every version has a count)
 *   int32 record count N
 *   N x (int32 length L, L bytes: one Avro binary datum encoded with the
 *        block's SCHEMA header, which includes the five _hoodie_ fields)
 *
 * All big-endian. This module only splits the content into records; the
 * Avro decoding into Arrow happens elsewhere. CDC_DATA blocks use the same
 * framing (HoodieCDCDataBlock extends HoodieAvroDataBlock). */
#ifndef HUDI_TABLE_LOG_AVRO_BLOCK_H
#define HUDI_TABLE_LOG_AVRO_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define HUDI_LOG_AVRO_BLOCK_VERSION 3

typedef struct hudi_log_avro_records {
  const uint8_t *data; /* borrowed content */
  size_t len, pos;
  int32_t version;
  int32_t count; /* N */
  int32_t index; /* records returned so far */
  uint64_t base; /* file offset of data[0] */
  const char *where;
} hudi_log_avro_records;

/* Reads the version and count. A count larger than the content could hold
 * (4 bytes per record at least) is HUDI_ERR_CORRUPT; a version outside 1..3
 * HUDI_ERR_UNSUPPORTED. */
HUDI_NODISCARD hudi_status hudi_log_avro_records_open(hudi_log_avro_records *it,
                                                      const uint8_t *content, size_t len,
                                                      uint64_t base, const char *where,
                                                      hudi_error *err);

/* The next record's datum (pointing into the content); *has false after N.
 * Bytes after the N-th record are ignored, as Java does. */
HUDI_NODISCARD hudi_status hudi_log_avro_records_next(hudi_log_avro_records *it,
                                                      const uint8_t **datum, size_t *len,
                                                      bool *has, hudi_error *err);

/* Building the content in a buffer: begin writes the version and a count
 * placeholder; each record is either added whole or encoded in place
 * between record_begin and record_end; finish patches the count. */
typedef struct hudi_log_avro_records_writer {
  hudi_buf *out;
  size_t start;      /* offset of the version in out */
  size_t record_at;  /* offset of the open record's length, or SIZE_MAX */
  int32_t count;
} hudi_log_avro_records_writer;

HUDI_NODISCARD hudi_status hudi_log_avro_records_begin(hudi_log_avro_records_writer *w,
                                                       hudi_buf *out, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_avro_records_add(hudi_log_avro_records_writer *w,
                                                     const uint8_t *datum, size_t len,
                                                     hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_avro_records_record_begin(hudi_log_avro_records_writer *w,
                                                              hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_avro_records_record_end(hudi_log_avro_records_writer *w,
                                                            hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_avro_records_finish(hudi_log_avro_records_writer *w,
                                                        hudi_error *err);

#endif
