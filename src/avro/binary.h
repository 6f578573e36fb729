/* Avro binary encoding primitives: zigzag varints, IEEE floats (little
 * endian), length-prefixed bytes. Reads go through a cursor that knows its
 * absolute position in the file, so every error names a byte offset. */
#ifndef HUDI_AVRO_BINARY_H
#define HUDI_AVRO_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_avro_cursor {
  const uint8_t *data;
  size_t len;
  size_t pos;
  uint64_t base;     /* file offset of data[0], for messages */
  const char *where; /* what the bytes are ("x.commit", "block at 120"), for messages */
} hudi_avro_cursor;

/* Longest string/bytes/fixed value we accept (the remaining input bounds it too). */
#define HUDI_AVRO_MAX_BYTES ((size_t)1 << 30)

void hudi_avro_cursor_init(hudi_avro_cursor *c, const uint8_t *data, size_t len, uint64_t base,
                           const char *where);
static inline size_t hudi_avro_cursor_left(const hudi_avro_cursor *c) { return c->len - c->pos; }
static inline uint64_t hudi_avro_cursor_offset(const hudi_avro_cursor *c) { return c->base + c->pos; }

/* Sets err to code with "<where>: <what> at byte <offset>"; returns code. */
hudi_status hudi_avro_cursor_fail(const hudi_avro_cursor *c, hudi_error *err, uint64_t offset,
                                  hudi_status code, const char *what);

HUDI_NODISCARD hudi_status hudi_avro_read_long(hudi_avro_cursor *c, int64_t *v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_read_int(hudi_avro_cursor *c, int32_t *v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_read_boolean(hudi_avro_cursor *c, int *v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_read_float(hudi_avro_cursor *c, float *v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_read_double(hudi_avro_cursor *c, double *v, hudi_error *err);
/* n raw bytes; *p points into the cursor's data. */
HUDI_NODISCARD hudi_status hudi_avro_read_fixed(hudi_avro_cursor *c, size_t n, const uint8_t **p,
                                                hudi_error *err);
/* A long length then that many bytes; fails past max_len or the input. */
HUDI_NODISCARD hudi_status hudi_avro_read_bytes(hudi_avro_cursor *c, const uint8_t **p, size_t *len,
                                                size_t max_len, hudi_error *err);

HUDI_NODISCARD hudi_status hudi_avro_write_long(hudi_buf *b, int64_t v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_write_float(hudi_buf *b, float v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_write_double(hudi_buf *b, double v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_write_bytes(hudi_buf *b, const void *p, size_t len, hudi_error *err);
/* Encodes v as a zigzag varint into out (10 bytes room); returns its length. */
size_t hudi_avro_encode_long(uint8_t *out, int64_t v);

#endif
