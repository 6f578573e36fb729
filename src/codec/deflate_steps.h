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

/* Symbol counts of parses (literal/length and distance alphabets). */
typedef struct hudi_deflate_counts {
  uint32_t lit[286];
  uint32_t dist[30];
} hudi_deflate_counts;

/* Adds the symbols of the n steps over src to c. */
void hudi_deflate_counts_add(hudi_deflate_counts *c, const uint8_t *src, const hudi_lz_step *steps, size_t n);

/* Huffman codes built once from sample counts and reused for many blocks
 * of the same kind (a file's HFile data blocks): building a block's own
 * codes (sorting its symbols, the code lengths' run-length header) was
 * about a sixth of deflating a 4 KiB record-index block. A block that uses
 * a symbol the codes lack builds its own. NULL when memory ran out. */
typedef struct hudi_deflate_codes hudi_deflate_codes;
hudi_deflate_codes *hudi_deflate_codes_new(const hudi_deflate_counts *c);
void hudi_deflate_codes_free(hudi_deflate_codes *codes);

/* Writes src as one final deflate block, dynamic Huffman coded from the n
 * steps (with `codes` when not NULL and they cover every literal, else
 * with the block's own), or as stored blocks (65,535 bytes each) when that
 * is smaller, to dst (with
 * hudi_deflate_steps_bound(src_len) bytes of room); returns the bytes
 * written. The steps must cover src exactly, every copy lying within the
 * bytes before it: the caller guarantees it (checked only in debug builds). */
size_t hudi_deflate_steps(const uint8_t *src, size_t src_len, const hudi_lz_step *steps, size_t n,
                          const hudi_deflate_codes *codes, uint8_t *dst);

#endif
