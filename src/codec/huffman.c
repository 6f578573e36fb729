/* Huffman code lengths and canonical codes (huffman.h). */
#include "codec/huffman.h"

#include <stdlib.h>
#include <string.h>

static int key_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* keys (frequency << 16 | symbol, in symbol order) sorted ascending: by
 * insertion for a few symbols, else by stable counting passes over the
 * frequency's bits (one or two, with digits as narrow as the largest
 * frequency allows: a 4 KiB HFile block's counts need two 6-bit passes,
 * and 64 counters cost far less to clear and sum than 256), else qsort;
 * all give the same order. */
static void sort_keys(uint64_t *keys, int m) {
  if (m <= 32) {
    for (int i = 1; i < m; i++) {
      uint64_t k = keys[i];
      int j = i;
      for (; j > 0 && keys[j - 1] > k; j--) keys[j] = keys[j - 1];
      keys[j] = k;
    }
    return;
  }
  uint64_t most = 0;
  for (int i = 0; i < m; i++) most |= keys[i] >> 16;
  int bits = most ? 64 - __builtin_clzll(most) : 1;
  if (bits > 16) {
    qsort(keys, (size_t)m, sizeof *keys, key_cmp);
    return;
  }
  int digit = bits <= 8 ? bits : (bits + 1) / 2;
  uint64_t tmp[HUDI_HUFFMAN_MAX_SYMBOLS];
  unsigned mask = (1u << digit) - 1;
  for (int shift = 16; shift < 16 + bits; shift += digit) {
    int cnt[257];
    memset(cnt, 0, (mask + 2) * sizeof *cnt);
    for (int i = 0; i < m; i++) cnt[((keys[i] >> shift) & mask) + 1]++;
    for (unsigned b = 0; b < mask; b++) cnt[b + 1] += cnt[b];
    for (int i = 0; i < m; i++) tmp[cnt[(keys[i] >> shift) & mask]++] = keys[i];
    memcpy(keys, tmp, (size_t)m * sizeof *keys);
  }
}

/* Code lengths of a minimum-redundancy code for n >= 2 frequencies sorted
 * ascending, computed in place (Moffat and Katajainen's method: the first
 * pass builds parent pointers in A, the second turns them into depths,
 * the third depths of internal nodes into leaf lengths). On return A[i]
 * is the length of the i-th least frequent symbol. */
static void lengths_in_place(uint32_t *A, int n) {
  int root = 0, leaf = 2, next;
  A[0] += A[1];
  for (next = 1; next < n - 1; next++) {
    if (leaf >= n || A[root] < A[leaf]) {
      A[next] = A[root];
      A[root++] = (uint32_t)next;
    } else {
      A[next] = A[leaf++];
    }
    if (leaf >= n || (root < next && A[root] < A[leaf])) {
      A[next] += A[root];
      A[root++] = (uint32_t)next;
    } else {
      A[next] += A[leaf++];
    }
  }
  A[n - 2] = 0;
  for (next = n - 3; next >= 0; next--) A[next] = A[A[next]] + 1;
  int avail = 1, used = 0, depth = 0;
  root = n - 2;
  next = n - 1;
  while (avail > 0) {
    while (root >= 0 && (int)A[root] == depth) {
      used++;
      root--;
    }
    while (avail > used) {
      A[next--] = (uint32_t)depth;
      avail--;
    }
    avail = 2 * used;
    depth++;
    used = 0;
  }
}

/* Too deep a tree is flattened by halving the counts (never to zero)
 * until it fits. */
void hudi_huffman_lengths(const uint32_t *freq, int n, int max_len, uint8_t *len) {
  uint32_t f[HUDI_HUFFMAN_MAX_SYMBOLS];
  uint64_t keys[HUDI_HUFFMAN_MAX_SYMBOLS];
  uint32_t A[HUDI_HUFFMAN_MAX_SYMBOLS];
  if (n > HUDI_HUFFMAN_MAX_SYMBOLS) n = HUDI_HUFFMAN_MAX_SYMBOLS;
  memcpy(f, freq, (size_t)n * sizeof *f);
  for (;;) {
    memset(len, 0, (size_t)n);
    int m = 0;
    for (int s = 0; s < n; s++)
      if (f[s]) keys[m++] = (uint64_t)f[s] << 16 | (uint64_t)s;
    if (m == 0) return;
    if (m == 1) {
      int s = (int)(keys[0] & 0xffff);
      len[s] = 1;
      len[s ? 0 : 1] = 1;
      return;
    }
    sort_keys(keys, m);
    for (int i = 0; i < m; i++) A[i] = (uint32_t)(keys[i] >> 16);
    lengths_in_place(A, m);
    int deepest = 0;
    for (int i = 0; i < m; i++) {
      len[keys[i] & 0xffff] = (uint8_t)A[i];
      if ((int)A[i] > deepest) deepest = (int)A[i];
    }
    if (deepest <= max_len) return;
    for (int s = 0; s < n; s++)
      if (f[s]) f[s] = (f[s] + 1) / 2;
  }
}

static const uint8_t rev8[256] = {
#define R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define R4(n) R2(n), R2(n + 2 * 16), R2(n + 1 * 16), R2(n + 3 * 16)
#define R6(n) R4(n), R4(n + 2 * 4), R4(n + 1 * 4), R4(n + 3 * 4)
    R6(0), R6(2), R6(1), R6(3)};
#undef R2
#undef R4
#undef R6

void hudi_huffman_codes(const uint8_t *len, int n, uint16_t *code) {
  int count[16] = {0}, next[16] = {0};
  for (int s = 0; s < n; s++) count[len[s]]++;
  count[0] = 0;
  int c = 0;
  for (int b = 1; b < 16; b++) {
    c = (c + count[b - 1]) << 1;
    next[b] = c;
  }
  for (int s = 0; s < n; s++) {
    if (!len[s]) continue;
    unsigned v = (unsigned)next[len[s]]++;
    unsigned r = (unsigned)rev8[v & 0xff] << 8 | rev8[(v >> 8) & 0xff]; /* v reversed in 16 bits */
    code[s] = (uint16_t)(r >> (16 - len[s]));
  }
}
