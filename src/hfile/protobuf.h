/* A tiny protobuf wire-format reader and writer: just what the HFile
 * trailer (TrailerProto) and file info (InfoProto) need. Varints, tags,
 * length-delimited fields; unknown fields are skipped by wire type. */
#ifndef HUDI_HFILE_PROTOBUF_H
#define HUDI_HFILE_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

enum {
  HUDI_PB_VARINT = 0,
  HUDI_PB_FIXED64 = 1,
  HUDI_PB_BYTES = 2,
  HUDI_PB_FIXED32 = 5
};

/* A cursor over one message's bytes. `base` is the file offset of data[0],
 * used only to name offsets in error messages. */
typedef struct hudi_pb_reader {
  const uint8_t *data;
  size_t len;
  size_t pos;
  uint64_t base;
} hudi_pb_reader;

void hudi_pb_reader_init(hudi_pb_reader *r, const uint8_t *data, size_t len, uint64_t base);
int hudi_pb_at_end(const hudi_pb_reader *r);

HUDI_NODISCARD hudi_status hudi_pb_read_varint(hudi_pb_reader *r, uint64_t *out, hudi_error *err);
/* Reads a field key; *field is the field number, *wire the wire type. */
HUDI_NODISCARD hudi_status hudi_pb_read_tag(hudi_pb_reader *r, uint32_t *field, int *wire, hudi_error *err);
/* Reads a length-delimited value; *out points into the reader's bytes. */
HUDI_NODISCARD hudi_status hudi_pb_read_bytes(hudi_pb_reader *r, const uint8_t **out, size_t *len,
                                              hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pb_skip(hudi_pb_reader *r, int wire, hudi_error *err);

/* Writers append to a hudi_buf. */
HUDI_NODISCARD hudi_status hudi_pb_write_varint(hudi_buf *b, uint64_t v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pb_write_tag(hudi_buf *b, uint32_t field, int wire, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pb_write_uint_field(hudi_buf *b, uint32_t field, uint64_t v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pb_write_bytes_field(hudi_buf *b, uint32_t field, const void *p, size_t n,
                                                     hudi_error *err);
/* Number of bytes the varint encoding of v takes. */
size_t hudi_pb_varint_size(uint64_t v);

#endif
