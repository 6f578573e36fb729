/* Deflate from a given parse (deflate_steps.h): count the symbols, build
 * the block's codes, send the code lengths run-length coded (RFC 1951
 * 3.2.7), then the symbols. */
#include "codec/deflate_steps.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"
#include "codec/huffman.h"

#define N_LITLEN 286
#define N_DIST 30
#define N_CL 19
#define MAX_MATCH 258u
#define MAX_STORED 65535u
#define SHARED_MIN_COUNT 2 /* see hudi_deflate_codes_new */

static const uint8_t cl_order[N_CL] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

/* A symbol with its extra bits (RFC 1951 3.2.5). */
typedef struct sym {
  unsigned code, n_extra, extra;
} sym;

static inline sym length_sym(unsigned len) {
  if (len == MAX_MATCH) return (sym){285, 0, 0};
  unsigned l = len - 3;
  if (l < 8) return (sym){257 + l, 0, 0};
  unsigned msb = 31u - (unsigned)__builtin_clz(l), eb = msb - 2;
  return (sym){257 + 4 * (msb - 1) + ((l >> eb) & 3u), eb, l & ((1u << eb) - 1)};
}

static inline sym dist_sym(unsigned dist) {
  unsigned x = dist - 1;
  if (x < 4) return (sym){x, 0, 0};
  unsigned msb = 31u - (unsigned)__builtin_clz(x), eb = msb - 1;
  return (sym){2 * msb + ((x >> eb) & 1u), eb, x & ((1u << eb) - 1)};
}

/* The next piece of a copy of `left` bytes: at most 258, and never leaving
 * fewer than 3 for the piece after it. */
static inline unsigned piece(uint32_t left) {
  if (left <= MAX_MATCH) return left;
  return left - MAX_MATCH < 3 ? MAX_MATCH - 3 : MAX_MATCH;
}

size_t hudi_deflate_steps_bound(size_t n) { return n + 6 * (n / MAX_STORED + 1) + 16; }

/* Stored blocks from the stream's start (byte-aligned): a byte of header
 * bits and padding, LEN and NLEN, then the bytes, per 65,535. The Huffman
 * block is taken only when it is smaller, so the output never passes this
 * (and the bit writer's last 8-byte store stays inside the bound). */
static uint64_t stored_bits(size_t n) {
  size_t chunks = n ? (n + MAX_STORED - 1) / MAX_STORED : 1;
  return (uint64_t)chunks * 40 + 8 * (uint64_t)n;
}

static size_t emit_stored(const uint8_t *src, size_t n, uint8_t *dst) {
  uint8_t *p = dst;
  do {
    size_t k = n < MAX_STORED ? n : MAX_STORED;
    *p++ = k == n ? 1 : 0; /* BFINAL, BTYPE 00, then padding to the byte */
    p[0] = (uint8_t)k;
    p[1] = (uint8_t)(k >> 8);
    p[2] = (uint8_t)~k;
    p[3] = (uint8_t)(~k >> 8);
    memcpy(p + 4, src, k);
    p += 4 + k;
    src += k;
    n -= k;
  } while (n > 0);
  return (size_t)(p - dst);
}

/* The block's codes and the run-length coded code lengths that announce
 * them. */
typedef struct plan {
  uint32_t lf[N_LITLEN], df[N_DIST];
  uint8_t ll[N_LITLEN], dl[N_DIST];
  uint16_t lc[N_LITLEN], dc[N_DIST];
  int hlit, hdist, hclen;
  uint8_t cl_len[N_CL];
  uint16_t cl_code[N_CL];
  uint8_t rle[N_LITLEN + N_DIST], rle_extra[N_LITLEN + N_DIST];
  int n_rle;
  uint64_t extra_bits; /* of the lengths and distances */
} plan;

static void count(plan *p, const uint8_t *src, const hudi_lz_step *steps, size_t n) {
  memset(p->lf, 0, sizeof p->lf);
  memset(p->df, 0, sizeof p->df);
  p->extra_bits = 0;
  hudi_byte_counts lit;
  memset(&lit, 0, sizeof lit);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    hudi_byte_counts_add(&lit, src + at, steps[i].lit);
    at += (size_t)steps[i].lit + steps[i].len;
    if (!steps[i].len) continue;
    sym d = dist_sym(steps[i].dist);
    for (uint32_t left = steps[i].len; left > 0;) {
      unsigned m = piece(left);
      sym l = length_sym(m);
      p->lf[l.code]++;
      p->df[d.code]++;
      p->extra_bits += l.n_extra + d.n_extra;
      left -= m;
    }
  }
  hudi_byte_counts_sum(&lit, p->lf);
  p->lf[256] = 1; /* end of block */
}

static void run_length(plan *p) {
  uint8_t seq[N_LITLEN + N_DIST];
  memcpy(seq, p->ll, (size_t)p->hlit);
  memcpy(seq + p->hlit, p->dl, (size_t)p->hdist);
  int total = p->hlit + p->hdist, k = 0;
  for (int i = 0; i < total;) {
    uint8_t v = seq[i];
    int run = 1;
    while (i + run < total && seq[i + run] == v) run++;
    i += run;
    if (v == 0) {
      while (run >= 11) {
        int r = run < 138 ? run : 138;
        p->rle[k] = 18;
        p->rle_extra[k++] = (uint8_t)(r - 11);
        run -= r;
      }
      if (run >= 3) {
        p->rle[k] = 17;
        p->rle_extra[k++] = (uint8_t)(run - 3);
        run = 0;
      }
    } else {
      p->rle[k] = v;
      p->rle_extra[k++] = 0;
      run--;
      while (run >= 3) {
        int r = run < 6 ? run : 6;
        p->rle[k] = 16;
        p->rle_extra[k++] = (uint8_t)(r - 3);
        run -= r;
      }
    }
    for (; run > 0; run--) {
      p->rle[k] = v;
      p->rle_extra[k++] = 0;
    }
  }
  p->n_rle = k;
}

/* Bits out least significant first. Codes are added to a 64-bit word and
 * whole bytes stored after each group (at most 56 bits between stores),
 * so adding a code has no branch; a store writes 8 bytes, of which the
 * destination's slack (hudi_deflate_steps_bound) holds the unused ones. */
typedef struct bitw {
  uint8_t *p;
  uint64_t acc;
  unsigned n; /* pending bits, < 8 after a store */
} bitw;

static inline void add_bits(bitw *w, uint64_t v, unsigned k) {
  w->acc |= v << w->n;
  w->n += k;
}

static inline void store_bytes(bitw *w) {
  uint64_t a = w->acc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(w->p, &a, 8);
#else
  for (int i = 0; i < 8; i++) w->p[i] = (uint8_t)(a >> (8 * i));
#endif
  w->p += w->n >> 3;
  w->acc >>= w->n & ~7u;
  w->n &= 7;
}

static const uint8_t rle_extra_bits[N_CL] = {[16] = 2, [17] = 3, [18] = 7};

/* Bits of the header announcing p's codes (p->cl_len and the run-length
 * sequence set). */
static uint64_t header_bits(const plan *p) {
  uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)p->hclen;
  for (int i = 0; i < p->n_rle; i++) bits += p->cl_len[p->rle[i]] + rle_extra_bits[p->rle[i]];
  return bits;
}

/* Builds the codes; returns the block's size in bits, header included. */
static uint64_t plan_block(plan *p) {
  hudi_huffman_lengths(p->lf, N_LITLEN, 15, p->ll);
  uint32_t df[N_DIST];
  memcpy(df, p->df, sizeof df);
  int used = 0;
  for (int s = 0; s < N_DIST; s++) used += df[s] != 0;
  if (used == 0) df[0] = df[1] = 1; /* two unused codes keep the code complete, as zlib sends */
  hudi_huffman_lengths(df, N_DIST, 15, p->dl);
  hudi_huffman_codes(p->ll, N_LITLEN, p->lc);
  hudi_huffman_codes(p->dl, N_DIST, p->dc);
  p->hlit = N_LITLEN;
  while (p->hlit > 257 && p->ll[p->hlit - 1] == 0) p->hlit--;
  p->hdist = N_DIST;
  while (p->hdist > 1 && p->dl[p->hdist - 1] == 0) p->hdist--;
  run_length(p);
  uint32_t clf[N_CL] = {0};
  for (int i = 0; i < p->n_rle; i++) clf[p->rle[i]]++;
  hudi_huffman_lengths(clf, N_CL, 7, p->cl_len);
  hudi_huffman_codes(p->cl_len, N_CL, p->cl_code);
  p->hclen = N_CL;
  while (p->hclen > 4 && p->cl_len[cl_order[p->hclen - 1]] == 0) p->hclen--;
  uint64_t bits = header_bits(p) + p->extra_bits;
  for (int s = 0; s < N_LITLEN; s++) bits += (uint64_t)p->lf[s] * p->ll[s];
  for (int s = 0; s < N_DIST; s++) bits += (uint64_t)p->df[s] * p->dl[s];
  return bits;
}

static void emit_header(bitw *w, const plan *p) {
  add_bits(w, 1, 1); /* final */
  add_bits(w, 2, 2); /* dynamic Huffman */
  add_bits(w, (uint32_t)(p->hlit - 257), 5);
  add_bits(w, (uint32_t)(p->hdist - 1), 5);
  add_bits(w, (uint32_t)(p->hclen - 4), 4);
  store_bytes(w);
  for (int i = 0; i < p->hclen; i++) {
    add_bits(w, p->cl_len[cl_order[i]], 3);
    if (i % 8 == 7) store_bytes(w);
  }
  store_bytes(w);
  for (int i = 0; i < p->n_rle; i++) {
    uint8_t s = p->rle[i];
    add_bits(w, p->cl_code[s], p->cl_len[s]);
    add_bits(w, p->rle_extra[i], rle_extra_bits[s]);
    store_bytes(w);
  }
}

/* Writes the symbols with p's codes. False, with the output incomplete,
 * when a symbol has no code in p (shared codes lack the symbols their
 * sample did not have twice) or the output reaches `end` (then it would
 * be no smaller than stored blocks). Every store starts before `end` and
 * writes 8 bytes: the bound's slack past the stored blocks' size holds them. */
static bool emit_symbols(bitw *w, const plan *p, const uint8_t *src, const hudi_lz_step *steps, size_t n,
                         const uint8_t *end) {
  /* code, length and a missing-code flag in one word: one load per
   * literal; the flags are ORed and looked at once, after the block */
  enum { MISSING = 1u << 31 };
  uint32_t tab[256], miss = 0;
  for (int s = 0; s < 256; s++) tab[s] = (uint32_t)p->lc[s] | (uint32_t)p->ll[s] << 16 | (p->ll[s] ? 0 : MISSING);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *s = src + at;
    uint32_t k = 0, lit = steps[i].lit;
    for (; k + 3 <= lit; k += 3) { /* three codes of at most 15 bits per store */
      uint32_t a = tab[s[k]], b = tab[s[k + 1]], c = tab[s[k + 2]];
      miss |= a | b | c;
      add_bits(w, a & 0xffff, (a >> 16) & 31);
      add_bits(w, b & 0xffff, (b >> 16) & 31);
      add_bits(w, c & 0xffff, (c >> 16) & 31);
      store_bytes(w);
      if (w->p >= end) return false;
    }
    for (; k < lit; k++) {
      uint32_t a = tab[s[k]];
      miss |= a;
      add_bits(w, a & 0xffff, (a >> 16) & 31);
    }
    store_bytes(w);
    if (w->p >= end) return false;
    at += (size_t)lit + steps[i].len;
    if (!steps[i].len) continue;
    sym d = dist_sym(steps[i].dist);
    if (!p->dl[d.code]) return false;
    uint32_t dbits = (uint32_t)p->dc[d.code] | d.extra << p->dl[d.code];
    unsigned dn = p->dl[d.code] + d.n_extra;
    for (uint32_t left = steps[i].len; left > 0;) {
      unsigned m = piece(left);
      sym l = length_sym(m);
      if (!p->ll[l.code]) return false;
      add_bits(w, (uint32_t)p->lc[l.code] | l.extra << p->ll[l.code], p->ll[l.code] + l.n_extra);
      add_bits(w, dbits, dn);
      store_bytes(w);
      if (w->p >= end) return false;
      left -= m;
    }
  }
  add_bits(w, p->lc[256], p->ll[256]);
  store_bytes(w);
  return !(miss & MISSING) && w->p < end;
}

#ifndef NDEBUG
static bool parse_covers(size_t src_len, const hudi_lz_step *steps, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    at += steps[i].lit;
    if (steps[i].len && (steps[i].len < 3 || steps[i].dist < 1 || steps[i].dist > HUDI_DEFLATE_MAX_DIST ||
                         steps[i].dist > at))
      return false;
    at += steps[i].len;
  }
  return at == src_len;
}
#endif

void hudi_deflate_counts_add(hudi_deflate_counts *c, const uint8_t *src, const hudi_lz_step *steps, size_t n) {
  plan p;
  count(&p, src, steps, n);
  for (int s = 0; s < N_LITLEN; s++) c->lit[s] += p.lf[s];
  for (int s = 0; s < N_DIST; s++) c->dist[s] += p.df[s];
}

/* A header's bits at most: 17 of fields, 19 code-length lengths of 3
 * bits, at most 316 run-length symbols of 7 bits with 7 extra. */
#define HEAD_MAX_BYTES ((17 + 19 * 3 + (N_LITLEN + N_DIST) * 14 + 7) / 8)

struct hudi_deflate_codes {
  plan p;           /* the codes and their header; counts unused */
  uint64_t header;  /* bits of the header */
  /* The header as written at a stream's start, copied into every block
   * (writing it code by code was 2.4% of a record-index compaction); 8
   * bytes of slack for the bit writer's last store. */
  uint8_t head[HEAD_MAX_BYTES + 8];
};

hudi_deflate_codes *hudi_deflate_codes_new(const hudi_deflate_counts *c) {
  hudi_deflate_codes *k = hudi_malloc(sizeof *k);
  if (!k) return NULL;
  plan *p = &k->p;
  /* A symbol the sample had only once gets no code: every code costs
   * header bits in every block, and a block that needs a missing one
   * builds its own. On record-index files (sampled over 32 blocks) this
   * left 7% of the blocks to build their own, and the shared codes cost
   * 1.7% more bytes than each block's own (+9 header bytes, +5 symbol
   * bytes on ~840); giving every length and distance symbol a code
   * instead cost +3.6%. */
  for (int s = 0; s < N_LITLEN; s++) p->lf[s] = c->lit[s] >= SHARED_MIN_COUNT ? c->lit[s] : 0;
  for (int s = 0; s < N_DIST; s++) p->df[s] = c->dist[s] >= SHARED_MIN_COUNT ? c->dist[s] : 0;
  p->lf[256] = 1; /* end of block */
  p->extra_bits = 0;
  plan_block(p);
  k->header = header_bits(p);
  bitw w = {k->head, 0, 0};
  emit_header(&w, p);
  assert((uint64_t)(w.p - k->head) * 8 + w.n == k->header);
  return k;
}

void hudi_deflate_codes_free(hudi_deflate_codes *codes) { hudi_free(codes); }

/* The block's size in bits with the shared codes, or 0 when they lack a
 * code for one of its symbols. */
static uint64_t shared_bits(const hudi_deflate_codes *k, const plan *p) {
  uint64_t bits = k->header + p->extra_bits;
  for (int s = 0; s < N_LITLEN; s++) {
    if (p->lf[s] && !k->p.ll[s]) return 0;
    bits += (uint64_t)p->lf[s] * k->p.ll[s];
  }
  for (int s = 0; s < N_DIST; s++) {
    if (p->df[s] && !k->p.dl[s]) return 0;
    bits += (uint64_t)p->df[s] * k->p.dl[s];
  }
  return bits;
}

/* The block with the shared codes, written without counting its symbols
 * first (counting was ~3% of a record-index compaction): 0 when a symbol
 * lacks a code or the block would be no smaller than stored blocks, and
 * then the caller decides as if it had counted. */
static size_t emit_shared(const hudi_deflate_codes *k, const uint8_t *src, size_t src_len, const hudi_lz_step *steps,
                          size_t n, uint8_t *dst) {
  uint64_t stored = stored_bits(src_len);
  if (k->header >= stored) return 0; /* a short block: the header alone would pass `end` */
  size_t whole = (size_t)(k->header / 8);
  unsigned rest = (unsigned)(k->header % 8);
  memcpy(dst, k->head, whole);
  bitw w = {dst + whole, rest ? k->head[whole] & ((1u << rest) - 1) : 0, rest};
  /* ending before `end`, the block has fewer bits than stored blocks */
  if (!emit_symbols(&w, &k->p, src, steps, n, dst + stored / 8)) return 0;
  return (size_t)(w.p - dst) + (w.n > 0); /* the last partial byte is stored already */
}

size_t hudi_deflate_steps(const uint8_t *src, size_t src_len, const hudi_lz_step *steps, size_t n,
                          const hudi_deflate_codes *codes, uint8_t *dst) {
  assert(parse_covers(src_len, steps, n));
  if (codes) {
    size_t done = emit_shared(codes, src, src_len, steps, n, dst);
    if (done) return done;
  }
  plan p;
  count(&p, src, steps, n);
  const plan *use = &p;
  uint64_t bits = codes ? shared_bits(codes, &p) : 0;
  if (bits) use = &codes->p;
  else bits = plan_block(&p);
  uint64_t stored = stored_bits(src_len);
  if (bits >= stored) return emit_stored(src, src_len, dst);
  bitw w = {dst, 0, 0};
  emit_header(&w, use);
  emit_symbols(&w, use, src, steps, n, dst + stored / 8);
  return (size_t)(w.p - dst) + (w.n > 0); /* the last partial byte is stored already */
}
