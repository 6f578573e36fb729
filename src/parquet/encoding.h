/* Parquet value and level encodings (apache/parquet-format Encodings.md):
 * decoders and encoders between encoded bytes and plain C buffers.
 *
 * Conventions: fixed-width values are little-endian arrays of their
 * physical size (BOOLEAN: one uint8_t 0/1 per value; INT96: 12 bytes;
 * FIXED_LEN_BYTE_ARRAY: type_length bytes). Byte arrays are appended to a
 * hudi_buf of data plus an int32_t offsets array: the caller passes
 * offsets with count+1 slots, offsets[0] already set to data->len; every
 * decoder fills offsets[1..count]. Decoders take exactly `count` values and
 * report how many input bytes they used through *consumed (nullable); any
 * shortfall, overlong length or bad header is HUDI_ERR_CORRUPT naming the
 * byte position within the encoded buffer. */
#ifndef HUDI_PARQUET_ENCODING_H
#define HUDI_PARQUET_ENCODING_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "parquet/metadata.h"

/* Byte size of one value of a fixed-width physical type (FLBA: type_length);
 * 0 for BYTE_ARRAY; BOOLEAN counts as 1 (the decoded form). */
size_t hudi_pq_value_size(hudi_pq_type type, int32_t type_length);

/* Bits needed for values 0..max_value (0 for 0). */
int hudi_pq_bit_width(uint64_t max_value);

/* ---- RLE / bit-packed hybrid (levels, dictionary indices, booleans) ---- */
typedef struct hudi_pq_rle_decoder {
  const uint8_t *data;
  size_t len, pos;
  int bit_width;
  uint32_t run_left;   /* values left in the current run */
  int run_is_literal;  /* bit-packed run */
  uint32_t run_value;  /* RLE run value */
  size_t bit_pos;      /* literal runs: bit position in data */
} hudi_pq_rle_decoder;

/* bit_width 0..32. */
HUDI_NODISCARD hudi_status hudi_pq_rle_decoder_init(hudi_pq_rle_decoder *d, const uint8_t *data, size_t len,
                                                    int bit_width, hudi_error *err);
/* Decodes the next n values; fails when the data ends first. */
HUDI_NODISCARD hudi_status hudi_pq_rle_decode(hudi_pq_rle_decoder *d, uint32_t *out, size_t n, hudi_error *err);
/* Like hudi_pq_rle_decode into int16 levels, checking each is <= max. */
HUDI_NODISCARD hudi_status hudi_pq_rle_decode_levels(hudi_pq_rle_decoder *d, int16_t *out, size_t n, int16_t max,
                                                     hudi_error *err);
/* Appends the hybrid encoding of values (each < 2^bit_width). */
HUDI_NODISCARD hudi_status hudi_pq_rle_encode(hudi_buf *out, const uint32_t *values, size_t n, int bit_width,
                                              hudi_error *err);

/* Levels of a data page: RLE with a 4-byte length prefix (v1 pages), or the
 * deprecated BIT_PACKED encoding (MSB-first, no prefix). consumed reports
 * the bytes used including the prefix. */
HUDI_NODISCARD hudi_status hudi_pq_levels_decode(int16_t *out, size_t n, int16_t max_level, int32_t encoding,
                                                 const uint8_t *data, size_t len, size_t *consumed, hudi_error *err);
/* Levels of a v2 page: RLE hybrid without prefix, exactly len bytes. */
HUDI_NODISCARD hudi_status hudi_pq_levels_decode_v2(int16_t *out, size_t n, int16_t max_level, const uint8_t *data,
                                                    size_t len, hudi_error *err);
/* Appends RLE levels; with_length_prefix for v1 pages. */
HUDI_NODISCARD hudi_status hudi_pq_levels_encode(hudi_buf *out, const int16_t *levels, size_t n, int16_t max_level,
                                                 int with_length_prefix, hudi_error *err);

/* Dictionary indices of a data page: one bit-width byte, then RLE hybrid.
 * Each index is checked against dict_size. */
HUDI_NODISCARD hudi_status hudi_pq_dict_indices_decode(uint32_t *out, size_t n, uint32_t dict_size,
                                                       const uint8_t *data, size_t len, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_dict_indices_encode(hudi_buf *out, const uint32_t *indices, size_t n,
                                                       uint32_t dict_size, hudi_error *err);

/* ---- PLAIN ---- */
/* Fixed-width types (everything but BYTE_ARRAY); out holds n values of
 * hudi_pq_value_size bytes. */
HUDI_NODISCARD hudi_status hudi_pq_plain_decode_fixed(void *out, size_t n, hudi_pq_type type, int32_t type_length,
                                                      const uint8_t *data, size_t len, size_t *consumed,
                                                      hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_plain_decode_byte_array(hudi_buf *values, int32_t *offsets, size_t n,
                                                           const uint8_t *data, size_t len, size_t *consumed,
                                                           hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_plain_encode_fixed(hudi_buf *out, const void *values, size_t n, hudi_pq_type type,
                                                      int32_t type_length, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_plain_encode_byte_array(hudi_buf *out, const uint8_t *data,
                                                           const int32_t *offsets, size_t n, hudi_error *err);

/* ---- DELTA_BINARY_PACKED (INT32 with width 4, INT64 with width 8) ---- */
HUDI_NODISCARD hudi_status hudi_pq_delta_decode(void *out, size_t n, int width, const uint8_t *data, size_t len,
                                                size_t *consumed, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_delta_encode(hudi_buf *out, const void *values, size_t n, int width,
                                                hudi_error *err);

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ---- */
HUDI_NODISCARD hudi_status hudi_pq_delta_length_decode(hudi_buf *values, int32_t *offsets, size_t n,
                                                       const uint8_t *data, size_t len, size_t *consumed,
                                                       hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_delta_length_encode(hudi_buf *out, const uint8_t *data, const int32_t *offsets,
                                                       size_t n, hudi_error *err);
/* FIXED_LEN_BYTE_ARRAY columns use DELTA_BYTE_ARRAY too: decode as byte
 * arrays and check every length. */
HUDI_NODISCARD hudi_status hudi_pq_delta_byte_array_decode(hudi_buf *values, int32_t *offsets, size_t n,
                                                           const uint8_t *data, size_t len, size_t *consumed,
                                                           hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_delta_byte_array_encode(hudi_buf *out, const uint8_t *data,
                                                           const int32_t *offsets, size_t n, hudi_error *err);

/* ---- BYTE_STREAM_SPLIT (any fixed width: 4, 8, FLBA length) ---- */
HUDI_NODISCARD hudi_status hudi_pq_bss_decode(void *out, size_t n, size_t width, const uint8_t *data, size_t len,
                                              hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_bss_encode(hudi_buf *out, const void *values, size_t n, size_t width,
                                              hudi_error *err);

#endif
