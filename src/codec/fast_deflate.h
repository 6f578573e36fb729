/* gzip and raw deflate through libdeflate, for whole buffers whose size is
 * known: two to three times zlib's speed in both directions. codec.c tries
 * these first and falls back to zlib, which stays the reference: it gives
 * the precise error for bad input, handles zlib-framed "gzip", and is what
 * writes raw deflate (HFile blocks, Avro) where Java's exact bytes matter. */
#ifndef HUDI_CODEC_FAST_DEFLATE_H
#define HUDI_CODEC_FAST_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "codec/codec.h"

/* Decodes src (GZIP: one or more gzip members; DEFLATE: one raw stream)
 * into exactly dst_len bytes. Returns true when it did; false when the
 * input is anything else (another framing, corrupt, another size, bytes
 * left over) or memory ran out, so that the caller decides with zlib. */
bool hudi_fast_inflate(hudi_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len);

/* Appends the gzip compression of src to out at level (0 = 6, zlib's
 * default; 1..12 libdeflate's scale). Returns false, out unchanged, when
 * the output would pass out's cap, the level is bad or memory ran out: the
 * caller then uses zlib, which reports those. */
bool hudi_fast_gzip(int level, const uint8_t *src, size_t src_len, hudi_buf *out);

/* A raw-deflate compressor kept across many small buffers (HFile data
 * blocks): allocating libdeflate's state per 4 KiB block would cost more
 * than compressing it. Level 0 writes stored (uncompressed) deflate
 * blocks. NULL when the level (0..12) is bad or memory ran out; the caller
 * then uses zlib. */
typedef struct hudi_fast_deflater hudi_fast_deflater;
hudi_fast_deflater *hudi_fast_deflater_new(int level);
void hudi_fast_deflater_free(hudi_fast_deflater *d);
/* Appends the raw deflate stream (RFC 1951, no framing) of src to out.
 * False, out unchanged, when it would pass out's cap or memory ran out. */
bool hudi_fast_deflate_raw(hudi_fast_deflater *d, const uint8_t *src, size_t src_len, hudi_buf *out);
/* CRC-32 (gzip's, zlib's crc32) continued from crc (0 to start). */
uint32_t hudi_fast_crc32(uint32_t crc, const uint8_t *src, size_t len);

#endif
