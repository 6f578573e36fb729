/* LSB-first bit packing and ULEB128 varints shared by the RLE hybrid and
 * DELTA_BINARY_PACKED encodings. Callers check that the packed bytes lie
 * inside the buffer before unpacking. */
#ifndef HUDI_PARQUET_BITPACK_H
#define HUDI_PARQUET_BITPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Reads a ULEB128 of at most 10 bytes at *pos; false when it runs past len
 * or overflows 64 bits. */
static inline bool hudi_pq_read_uleb(const uint8_t *p, size_t len, size_t *pos, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= len) return false;
    uint8_t b = p[(*pos)++];
    if (shift == 63 && (b & 0x7e)) return false;
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

static inline size_t hudi_pq_write_uleb(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

/* The bw-bit value starting at bit bitpos (bw 0..64); reads only the
 * bytes the value spans. */
static inline uint64_t hudi_pq_get_bits(const uint8_t *p, size_t bitpos, int bw) {
  if (bw == 0) return 0;
  size_t byte = bitpos >> 3;
  int shift = (int)(bitpos & 7);
  int nbytes = (shift + bw + 7) / 8; /* at most 9 */
  uint64_t v = 0;
  for (int i = 0; i < nbytes && i < 8; i++) v |= (uint64_t)p[byte + (size_t)i] << (8 * i);
  v >>= shift;
  if (nbytes == 9) v |= (uint64_t)p[byte + 8] << (64 - shift);
  return bw >= 64 ? v : v & (((uint64_t)1 << bw) - 1);
}

static inline void hudi_pq_unpack32(uint32_t *out, const uint8_t *p, size_t bitpos, size_t n, int bw) {
  for (size_t i = 0; i < n; i++, bitpos += (size_t)bw) out[i] = (uint32_t)hudi_pq_get_bits(p, bitpos, bw);
}

/* ORs n values of bw bits into zeroed bytes at out, LSB first. */
static inline void hudi_pq_pack64(uint8_t *out, const uint64_t *v, size_t n, int bw) {
  size_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = v[i];
    for (int b = 0; b < bw;) {
      size_t byte = bit >> 3;
      int off = (int)(bit & 7);
      int take = 8 - off < bw - b ? 8 - off : bw - b;
      out[byte] |= (uint8_t)(((x >> b) & ((1u << take) - 1)) << off);
      b += take;
      bit += (size_t)take;
    }
  }
}

/* ORs w into the four bytes at out, least significant byte first. */
static inline void hudi_pq_or32le(uint8_t *out, uint32_t w) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t cur;
  memcpy(&cur, out, 4);
  cur |= w;
  memcpy(out, &cur, 4);
#else
  for (int i = 0; i < 4; i++) out[i] |= (uint8_t)(w >> (8 * i));
#endif
}

/* ORs n values of bw bits (0..32) into zeroed bytes at out, LSB first, and
 * touches only the ceil(n * bw / 8) bytes they span. The values gather in
 * a 64-bit word written four bytes at a time: the byte-at-a-time loop this
 * replaced was 5% of a bulk load's CPU (every dictionary index goes here). */
static inline void hudi_pq_pack32(uint8_t *out, const uint32_t *v, size_t n, int bw) {
  if (bw <= 0) return;
  uint64_t mask = bw >= 32 ? 0xffffffffu : (((uint64_t)1 << bw) - 1);
  uint64_t acc = 0;
  int bits = 0; /* bits held in acc: below 32 between values */
  for (size_t i = 0; i < n; i++) {
    acc |= ((uint64_t)v[i] & mask) << bits;
    bits += bw;
    if (bits >= 32) {
      hudi_pq_or32le(out, (uint32_t)acc);
      out += 4;
      acc >>= 32;
      bits -= 32;
    }
  }
  for (; bits > 0; bits -= 8, acc >>= 8) *out++ |= (uint8_t)acc;
}

#endif
