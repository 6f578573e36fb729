/* HFile v3 blocks: the 33-byte header, payload compression (GZ or NONE),
 * Hadoop VLongs and big-endian integers. Shared by reader and writer. */
#ifndef HUDI_HFILE_BLOCK_H
#define HUDI_HFILE_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define HUDI_HFILE_HEADER_SIZE 33
#define HUDI_HFILE_TRAILER_SIZE 4096
#define HUDI_HFILE_BYTES_PER_CHECKSUM 16384
/* A block's decoded payload may not exceed this (Hudi writes 1 MiB
 * blocks, HBase meta blocks hold bloom filters of a few hundred KB). */
#define HUDI_HFILE_MAX_BLOCK ((size_t)256 << 20)

#define HUDI_HFILE_MAGIC_DATA "DATABLK*"
#define HUDI_HFILE_MAGIC_META "METABLKc"
#define HUDI_HFILE_MAGIC_ROOT "IDXROOT2"
#define HUDI_HFILE_MAGIC_LEAF "IDXLEAF2"
#define HUDI_HFILE_MAGIC_INTERMEDIATE "IDXINTE2"
#define HUDI_HFILE_MAGIC_FILE_INFO "FILEINF2"
#define HUDI_HFILE_MAGIC_TRAILER "TRABLK\"$"

typedef struct hudi_hfile_block_header {
  char magic[9];
  uint32_t on_disk_size_without_header;  /* compressed payload + checksums */
  uint32_t uncompressed_size_without_header;
  int64_t prev_block_offset;
  uint8_t checksum_type;
  uint32_t bytes_per_checksum;
  uint32_t on_disk_data_size_with_header; /* header + compressed payload */
} hudi_hfile_block_header;

static inline uint16_t hudi_be16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t hudi_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t hudi_be64(const uint8_t *p) { return ((uint64_t)hudi_be32(p) << 32) | hudi_be32(p + 4); }
static inline void hudi_put_be16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline void hudi_put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline void hudi_put_be64(uint8_t *p, uint64_t v) {
  hudi_put_be32(p, (uint32_t)(v >> 32));
  hudi_put_be32(p + 4, (uint32_t)v);
}

/* Checksum bytes for `n` on-disk bytes (header + data): 4 per 16 KiB chunk. */
uint64_t hudi_hfile_checksum_bytes(uint64_t n, uint32_t bytes_per_checksum);

/* Parses and checks a block header at file offset `off` (for messages)
 * from `avail` bytes: the magic, and that the block fits in `avail`. */
HUDI_NODISCARD hudi_status hudi_hfile_block_header_parse(hudi_hfile_block_header *h, const uint8_t *p,
                                                         size_t avail, uint64_t off, const char *file,
                                                         hudi_error *err);

/* Decodes a whole block (header already parsed from p) into payload,
 * decompressing when gz. Appends to payload after resetting it. */
HUDI_NODISCARD hudi_status hudi_hfile_block_decode(const hudi_hfile_block_header *h, const uint8_t *p, int gz,
                                                   uint64_t off, const char *file, hudi_buf *payload,
                                                   hudi_error *err);

/* Appends a whole block (header, payload compressed when gz, zero
 * checksums with checksum type NULL) to out, as Hudi's Java writer does. */
HUDI_NODISCARD hudi_status hudi_hfile_block_encode(hudi_buf *out, const char *magic, const uint8_t *payload,
                                                   size_t payload_len, int gz, int64_t prev_block_offset,
                                                   hudi_error *err);

/* The same with the payload deflated by `fast` (libdeflate) when it is
 * not NULL: the same gzip framing, another (equally valid) deflate stream,
 * so not Java's bytes. zlib does it should libdeflate fail. gz may also be
 * HUDI_HFILE_GZ_CELLS: with `fast`, a data block's key-values deflated by
 * hudi_hfile_cell_deflate (index partitions: see cell_deflate.h) with
 * `codes` (may be NULL). */
#define HUDI_HFILE_GZ_CELLS 3 /* not 2: that is HUDI_HFILE_NONE in hudi_hfile_compression */
struct hudi_fast_deflater;
struct hudi_deflate_codes;
HUDI_NODISCARD hudi_status hudi_hfile_block_encode_fast(hudi_buf *out, const char *magic, const uint8_t *payload,
                                                        size_t payload_len, int gz, int64_t prev_block_offset,
                                                        struct hudi_fast_deflater *fast,
                                                        const struct hudi_deflate_codes *codes, hudi_error *err);

/* gzip exactly as java.util.zip.GZIPOutputStream writes it (header with
 * mtime 0 and OS 0, deflate level 6, CRC32 and ISIZE); with `fast`, the
 * same header and trailer around libdeflate's deflate stream, or with
 * `cells` too around hudi_hfile_cell_deflate's (src a data block's
 * key-values). */
HUDI_NODISCARD hudi_status hudi_hfile_gzip(hudi_buf *out, const uint8_t *src, size_t len,
                                           struct hudi_fast_deflater *fast, bool cells,
                                           const struct hudi_deflate_codes *codes, hudi_error *err);

/* Hadoop WritableUtils VLong. read returns the number of bytes used, 0 if
 * they run past avail. */
size_t hudi_hfile_vlong_read(const uint8_t *p, size_t avail, int64_t *out);
HUDI_NODISCARD hudi_status hudi_hfile_vlong_write(hudi_buf *out, int64_t v, hudi_error *err);

#endif
