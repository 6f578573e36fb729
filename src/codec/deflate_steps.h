/* Deflate (RFC 1951) from an LZ77 parse the caller already has. Data whose
 * repeats the caller knows in advance (HFile key-values repeat the previous
 * key-value's lengths, key prefix and value at known offsets) needs no
 * match search: the caller compares a few spans and hands the result here,
 * which only does the Huffman coding. The stream reads the same in every
 * inflater; only how the matches were found differs. */
#ifndef HUDI_CODEC_DEFLATE_STEPS_H
#define HUDI_CODEC_DEFLATE_STEPS_H

#include <stddef.h>
#include <stdint.h>

/* One step of the parse: `lit` bytes of the source as literals, then a copy
 * of `len` bytes from `dist` bytes back (len 0: none; otherwise len >= 3,
 * of any size: runs longer than deflate's 258 are split; dist 1..32768). */
typedef struct hudi_lz_step {
  uint32_t lit;
  uint32_t len;
  uint32_t dist;
} hudi_lz_step;

#define HUDI_DEFLATE_MAX_DIST 32768u

/* Room hudi_deflate_steps needs for n source bytes. */
size_t hudi_deflate_steps_bound(size_t n);

/* Writes src as one final deflate block, dynamic Huffman coded from the n
 * steps, or as stored blocks (65,535 bytes each) when that is smaller, to
 * dst (with
 * hudi_deflate_steps_bound(src_len) bytes of room); returns the bytes
 * written. The steps must cover src exactly, every copy lying within the
 * bytes before it: the caller guarantees it (checked only in debug builds). */
size_t hudi_deflate_steps(const uint8_t *src, size_t src_len, const hudi_lz_step *steps, size_t n, uint8_t *dst);

#endif
