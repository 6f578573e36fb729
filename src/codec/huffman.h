/* Huffman codes and LSB-first bit output for deflate (RFC 1951), shared by
 * the encoders that build their own blocks: literal-only gzip
 * (gzip_huffman.c) and deflate from a given LZ77 parse (deflate_steps.c). */
#ifndef HUDI_CODEC_HUFFMAN_H
#define HUDI_CODEC_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

/* The largest alphabet deflate codes: 286 literal/length symbols (288 in
 * the fixed code). */
#define HUDI_HUFFMAN_MAX_SYMBOLS 288

/* len[s] for the n (2 <= n <= HUDI_HUFFMAN_MAX_SYMBOLS) symbols of freq, none
 * longer than max_len. Unused symbols get 0. The code is always complete
 * (Kraft sum 1, as strict inflaters require): a single used symbol gets a
 * partner of the same length. */
void hudi_huffman_lengths(const uint32_t *freq, int n, int max_len, uint8_t *len);

/* Canonical codes (RFC 1951 3.2.2) of those lengths, bit-reversed for
 * LSB-first output. */
void hudi_huffman_codes(const uint8_t *len, int n, uint16_t *code);

/* Byte counts kept in four tables (a byte's table by its position mod 4):
 * runs of one byte value would otherwise serialise on one counter. Zero
 * the tables, add any number of spans, then sum them into freq[0..255]. */
typedef struct hudi_byte_counts {
  uint32_t t[4][256];
} hudi_byte_counts;

static inline void hudi_byte_counts_add(hudi_byte_counts *c, const uint8_t *s, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    c->t[0][s[i]]++;
    c->t[1][s[i + 1]]++;
    c->t[2][s[i + 2]]++;
    c->t[3][s[i + 3]]++;
  }
  for (; i < n; i++) c->t[0][s[i]]++;
}

static inline void hudi_byte_counts_sum(const hudi_byte_counts *c, uint32_t *freq) {
  for (int b = 0; b < 256; b++) freq[b] = c->t[0][b] + c->t[1][b] + c->t[2][b] + c->t[3][b];
}

/* Bits go out least significant first, 32 at a time: the caller keeps at
 * least 8 bytes of room past the last byte it expects to write. */
typedef struct hudi_bitw {
  uint8_t *p;
  uint64_t acc;
  unsigned n;
} hudi_bitw;

/* Appends the k (<= 32) low bits of v. */
static inline void hudi_bitw_put(hudi_bitw *w, uint32_t v, unsigned k) {
  w->acc |= (uint64_t)v << w->n;
  w->n += k;
  if (w->n >= 32) {
    uint32_t lo = (uint32_t)w->acc;
    w->p[0] = (uint8_t)lo;
    w->p[1] = (uint8_t)(lo >> 8);
    w->p[2] = (uint8_t)(lo >> 16);
    w->p[3] = (uint8_t)(lo >> 24);
    w->p += 4;
    w->acc >>= 32;
    w->n -= 32;
  }
}

/* Pads to a byte boundary and writes out what is pending. */
static inline void hudi_bitw_align(hudi_bitw *w) {
  while (w->n > 0) {
    *w->p++ = (uint8_t)w->acc;
    w->acc >>= 8;
    w->n = w->n > 8 ? w->n - 8 : 0;
  }
  w->acc = 0;
}

#endif
