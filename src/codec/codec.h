/* Compression codecs over the system libraries (zlib, snappy, zstd, lz4).
 * Every decompression is bounded by the caller's expected size (formats
 * store it), so a hostile length cannot make us allocate without bound. */
#ifndef HUDI_CODEC_CODEC_H
#define HUDI_CODEC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef enum hudi_codec {
  HUDI_CODEC_NONE = 0,
  HUDI_CODEC_SNAPPY,  /* raw snappy (Parquet, Avro adds a CRC itself) */
  HUDI_CODEC_GZIP,    /* gzip framing (Parquet GZIP, Hadoop GzipCodec in HFile) */
  HUDI_CODEC_DEFLATE, /* raw deflate, no header (Avro "deflate") */
  HUDI_CODEC_ZSTD,
  HUDI_CODEC_LZ4_RAW  /* LZ4 block format without framing (Parquet LZ4_RAW) */
} hudi_codec;

const char *hudi_codec_name(hudi_codec codec);

/* Decompresses src into dst, which has room for exactly dst_len bytes, the
 * size the format recorded. Fails with HUDI_ERR_CORRUPT when the data does
 * not decode or decodes to another size (more or fewer bytes). GZIP input
 * may hold several gzip members back to back (their outputs concatenate)
 * and zlib-framed data is accepted too; bytes after the last member are
 * corrupt. */
HUDI_NODISCARD hudi_status hudi_codec_decompress(hudi_codec codec, const uint8_t *src, size_t src_len,
                                                 uint8_t *dst, size_t dst_len, hudi_error *err);

/* Decompresses when the decoded size is not recorded (Avro blocks, some
 * gzip streams): appends to out, whose cap (out->max) bounds the result.
 * Output past the cap is HUDI_ERR_LIMIT, undecodable input
 * HUDI_ERR_CORRUPT. LZ4 blocks carry no size: they are tried with growing
 * windows up to 255 x the input (LZ4's maximal ratio) or the cap. */
HUDI_NODISCARD hudi_status hudi_codec_decompress_unsized(hudi_codec codec, const uint8_t *src,
                                                         size_t src_len, hudi_buf *out, hudi_error *err);

/* Compresses src and appends the result to out. level 0 means the codec's
 * default. */
HUDI_NODISCARD hudi_status hudi_codec_compress(hudi_codec codec, int level, const uint8_t *src,
                                               size_t src_len, hudi_buf *out, hudi_error *err);

#endif
