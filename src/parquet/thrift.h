/* Thrift compact protocol: a pull reader over a byte range and a writer
 * into a hudi_buf. Parquet's footer, page headers and page indexes use it.
 *
 * The reader never trusts a count: every length or element count is
 * checked against the bytes that remain, nesting is capped, and errors
 * name the absolute byte offset (base_offset + position). */
#ifndef HUDI_PARQUET_THRIFT_H
#define HUDI_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* Compact protocol type ids (as they appear on the wire). */
enum {
  HUDI_TT_STOP = 0,
  HUDI_TT_BOOL_TRUE = 1, /* in lists: the bool element type */
  HUDI_TT_BOOL_FALSE = 2,
  HUDI_TT_BYTE = 3,
  HUDI_TT_I16 = 4,
  HUDI_TT_I32 = 5,
  HUDI_TT_I64 = 6,
  HUDI_TT_DOUBLE = 7,
  HUDI_TT_BINARY = 8,
  HUDI_TT_LIST = 9,
  HUDI_TT_SET = 10,
  HUDI_TT_MAP = 11,
  HUDI_TT_STRUCT = 12
};
#define HUDI_TT_BOOL HUDI_TT_BOOL_TRUE

/* Nesting deeper than this is rejected (Parquet needs about 6 levels). */
#define HUDI_THRIFT_MAX_DEPTH 64

typedef struct hudi_thrift_reader {
  const uint8_t *data;
  size_t len;
  size_t pos;
  size_t base_offset; /* absolute offset of data[0], for messages */
  int depth;
  int pending_bool;   /* -1 none, else the bool carried by the last field header */
  hudi_error *err;
} hudi_thrift_reader;

void hudi_thrift_reader_init(hudi_thrift_reader *r, const uint8_t *data, size_t len, size_t base_offset,
                             hudi_error *err);

/* Fails with HUDI_ERR_CORRUPT naming what and the current absolute offset. */
hudi_status hudi_thrift_corrupt(hudi_thrift_reader *r, const char *what);

HUDI_NODISCARD hudi_status hudi_thrift_read_varint(hudi_thrift_reader *r, uint64_t *v);
HUDI_NODISCARD hudi_status hudi_thrift_read_byte(hudi_thrift_reader *r, int8_t *v);
HUDI_NODISCARD hudi_status hudi_thrift_read_i16(hudi_thrift_reader *r, int16_t *v);
HUDI_NODISCARD hudi_status hudi_thrift_read_i32(hudi_thrift_reader *r, int32_t *v);
HUDI_NODISCARD hudi_status hudi_thrift_read_i64(hudi_thrift_reader *r, int64_t *v);
HUDI_NODISCARD hudi_status hudi_thrift_read_double(hudi_thrift_reader *r, double *v);
/* A bool field's value comes from its header; a list element is a byte. */
HUDI_NODISCARD hudi_status hudi_thrift_read_bool(hudi_thrift_reader *r, bool *v);
/* Points into the input (no copy); len is checked against what remains. */
HUDI_NODISCARD hudi_status hudi_thrift_read_binary(hudi_thrift_reader *r, const uint8_t **p, size_t *len);

/* Structs: call struct_begin, then field_next until *type is HUDI_TT_STOP,
 * then struct_end. last_id is the caller's per-struct delta state. Bool
 * fields come back as HUDI_TT_BOOL. */
HUDI_NODISCARD hudi_status hudi_thrift_struct_begin(hudi_thrift_reader *r, int16_t *last_id);
HUDI_NODISCARD hudi_status hudi_thrift_field_next(hudi_thrift_reader *r, int16_t *last_id, int16_t *id,
                                                  uint8_t *type);
void hudi_thrift_struct_end(hudi_thrift_reader *r);

/* Lists and sets: element type (bool elements as HUDI_TT_BOOL) and count,
 * the count already checked against the bytes that remain. */
HUDI_NODISCARD hudi_status hudi_thrift_list_begin(hudi_thrift_reader *r, uint8_t *elem_type, uint32_t *count);
/* Maps: key and value types are 0 when the map is empty. */
HUDI_NODISCARD hudi_status hudi_thrift_map_begin(hudi_thrift_reader *r, uint8_t *key_type, uint8_t *value_type,
                                                 uint32_t *count);

/* Skips one value of the given type (a whole struct, list or map). */
HUDI_NODISCARD hudi_status hudi_thrift_skip(hudi_thrift_reader *r, uint8_t type);

/* ---- writer ----
 * Errors are sticky: calls after a failure do nothing, and
 * hudi_thrift_writer_status reports the first failure. */
typedef struct hudi_thrift_writer {
  hudi_buf *out;
  int depth;
  int16_t last_id[HUDI_THRIFT_MAX_DEPTH + 1];
  hudi_status status;
  hudi_error *err;
} hudi_thrift_writer;

void hudi_thrift_writer_init(hudi_thrift_writer *w, hudi_buf *out, hudi_error *err);
static inline hudi_status hudi_thrift_writer_status(const hudi_thrift_writer *w) { return w->status; }

void hudi_thrift_write_struct_begin(hudi_thrift_writer *w);
void hudi_thrift_write_struct_end(hudi_thrift_writer *w); /* writes the stop byte */
void hudi_thrift_write_field(hudi_thrift_writer *w, uint8_t type, int16_t id);
void hudi_thrift_write_bool_field(hudi_thrift_writer *w, int16_t id, bool v);
void hudi_thrift_write_list_begin(hudi_thrift_writer *w, uint8_t elem_type, uint32_t count);
void hudi_thrift_write_map_begin(hudi_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t count);
void hudi_thrift_write_varint(hudi_thrift_writer *w, uint64_t v);
void hudi_thrift_write_byte(hudi_thrift_writer *w, int8_t v);
void hudi_thrift_write_i16(hudi_thrift_writer *w, int16_t v);
void hudi_thrift_write_i32(hudi_thrift_writer *w, int32_t v);
void hudi_thrift_write_i64(hudi_thrift_writer *w, int64_t v);
void hudi_thrift_write_double(hudi_thrift_writer *w, double v);
void hudi_thrift_write_bool(hudi_thrift_writer *w, bool v); /* list element */
void hudi_thrift_write_binary(hudi_thrift_writer *w, const void *p, size_t len);
void hudi_thrift_write_string(hudi_thrift_writer *w, const char *s);

/* Field helpers: header + value. */
void hudi_thrift_write_i32_field(hudi_thrift_writer *w, int16_t id, int32_t v);
void hudi_thrift_write_i64_field(hudi_thrift_writer *w, int16_t id, int64_t v);
void hudi_thrift_write_binary_field(hudi_thrift_writer *w, int16_t id, const void *p, size_t len);
void hudi_thrift_write_string_field(hudi_thrift_writer *w, int16_t id, const char *s);

/* ZigZag mapping of signed integers (shared with the Parquet encodings). */
static inline uint64_t hudi_zigzag_encode64(int64_t v) {
  return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}
static inline int64_t hudi_zigzag_decode64(uint64_t v) { return (int64_t)((v >> 1) ^ (0 - (v & 1))); }

#endif
