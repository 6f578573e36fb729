/* DELETE block content (HoodieDeleteBlock): int32 version, int32 length L,
 * then L bytes. Version 3 (Hudi 0.14 and later) holds the Avro binary datum
 * of HoodieDeleteRecordList (hudi-common/src/main/avro/HoodieDeleteRecordList.avsc):
 *
 *   record HoodieDeleteRecordList { array<HoodieDeleteRecord> deleteRecordList; }
 *   record HoodieDeleteRecord {
 *     union {null, string} recordKey;
 *     union {null, string} partitionPath;
 *     union {null, BooleanWrapper, IntWrapper, LongWrapper, FloatWrapper,
 *            DoubleWrapper, BytesWrapper, StringWrapper, DateWrapper,
 *            DecimalWrapper, TimeMicrosWrapper, TimestampMicrosWrapper,
 *            ArrayWrapper} orderingVal;
 *   }
 *
 * Each *Wrapper is a record with one field `value` of that type (defined in
 * HoodieMetadata.avsc: DateWrapper an int of days, DecimalWrapper bytes
 * decimal(30,15), TimeMicrosWrapper a time-micros long,
 * TimestampMicrosWrapper a long of microseconds), so a wrapper's binary
 * form is just its value's. ArrayWrapper (branch 12, Hudi 1.1 multiple
 * ordering fields) is not decoded: HUDI_ERR_UNSUPPORTED.
 *
 * NOTE: the shared spec and hudi-rs's bundled schema describe orderingVal
 * as a union of bare primitives (null, int, long, float, ...). That is
 * wrong from branch 1 on; the bytes `04 00` that Spark writes for a SQL
 * delete are IntWrapper{0} (Java DeleteRecord's default ordering value is
 * the Integer 0), not long 0 — the two encode identically.
 *
 * Versions 1 and 2 hold Java/Kryo serialized objects (before 0.14): they
 * are detected and refused with HUDI_ERR_UNSUPPORTED. */
#ifndef HUDI_TABLE_LOG_DELETE_BLOCK_H
#define HUDI_TABLE_LOG_DELETE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define HUDI_LOG_DELETE_BLOCK_VERSION 3
/* Most records one delete block may hold. */
#define HUDI_LOG_DELETE_MAX_RECORDS ((size_t)1 << 28)

/* orderingVal union branches (= wrapper kinds). */
typedef enum hudi_log_ordering_kind {
  HUDI_LOG_ORDERING_NULL = 0,
  HUDI_LOG_ORDERING_BOOLEAN = 1,
  HUDI_LOG_ORDERING_INT = 2,
  HUDI_LOG_ORDERING_LONG = 3,
  HUDI_LOG_ORDERING_FLOAT = 4,
  HUDI_LOG_ORDERING_DOUBLE = 5,
  HUDI_LOG_ORDERING_BYTES = 6,
  HUDI_LOG_ORDERING_STRING = 7,
  HUDI_LOG_ORDERING_DATE = 8,             /* int: days since the epoch */
  HUDI_LOG_ORDERING_DECIMAL = 9,          /* bytes: big-endian two's complement, scale 15 */
  HUDI_LOG_ORDERING_TIME_MICROS = 10,     /* long */
  HUDI_LOG_ORDERING_TIMESTAMP_MICROS = 11 /* long */
} hudi_log_ordering_kind;
#define HUDI_LOG_ORDERING_ARRAY_BRANCH 12

typedef struct hudi_log_ordering_val {
  int32_t kind; /* hudi_log_ordering_kind */
  union {
    bool b;
    int32_t i;   /* INT, DATE */
    int64_t l;   /* LONG, TIME_MICROS, TIMESTAMP_MICROS */
    float f;
    double d;
    struct {
      const uint8_t *p;
      size_t len;
    } bytes;     /* BYTES, STRING, DECIMAL */
  } v;
} hudi_log_ordering_val;

typedef struct hudi_log_delete_record {
  const char *record_key;     /* NULL for null; not NUL-terminated */
  size_t record_key_len;
  const char *partition_path; /* NULL for null; not NUL-terminated */
  size_t partition_path_len;
  hudi_log_ordering_val ordering;
} hudi_log_delete_record;

/* A decoded delete list. Owns a copy of the datum; the records' strings
 * point into it. */
typedef struct hudi_log_delete_list {
  hudi_log_delete_record *records;
  size_t count;
  int32_t version;
  uint8_t *datum;
  size_t datum_len;
} hudi_log_delete_list;

void hudi_log_delete_list_free(hudi_log_delete_list *l);

/* Decodes a DELETE block's content. base is the content's file offset and
 * where the file name, for messages. */
HUDI_NODISCARD hudi_status hudi_log_delete_block_decode(hudi_log_delete_list *out,
                                                        const uint8_t *content, size_t len,
                                                        uint64_t base, const char *where,
                                                        hudi_error *err);

/* Appends a version 3 DELETE block content for the records (as Java's
 * SpecificDatumWriter writes them: one array block, then 0). */
HUDI_NODISCARD hudi_status hudi_log_delete_block_encode(hudi_buf *out,
                                                        const hudi_log_delete_record *records,
                                                        size_t count, hudi_error *err);

/* The Avro datum alone (the L bytes), for callers that frame it themselves. */
HUDI_NODISCARD hudi_status hudi_log_delete_list_encode_datum(hudi_buf *out,
                                                             const hudi_log_delete_record *records,
                                                             size_t count, hudi_error *err);

#endif
