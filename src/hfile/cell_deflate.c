/* Cell-layout deflate (cell_deflate.h). The parse is built cell by cell:
 *  - head (key length, value length, row length, row): compared byte by
 *    byte with the previous cell's at the same offsets, so the lengths and
 *    the row's shared prefix become one copy;
 *  - tail (family, qualifier, timestamp, type, value, mvcc): copied whole
 *    from the last cell whose tail had the same bytes (a small table by a
 *    hash of the tail), else compared with the previous cell's like the head.
 * Runs of 3+ equal bytes become copies, everything else literals; a copy
 * right after a copy from the same distance extends it (the tail of one
 * cell and the head of the next often repeat the same earlier pair). */
#include "hfile/cell_deflate.h"

#include <stdbool.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/alloc.h"
#include "codec/deflate_steps.h"
#include "hfile/block.h"

#define TAILS 64           /* tail table entries; a block has ~40 cells */
#define STACK_STEPS 2048   /* steps kept on the stack: a 4 KiB block needs < 1400 */
#define MIN_COPY 3

typedef struct parse {
  hudi_lz_step *steps;
  size_t n;
  uint32_t lit; /* literals since the last copy */
} parse;

static inline void add_copy(parse *p, uint32_t len, uint32_t dist) {
  if (p->lit == 0 && p->n > 0 && p->steps[p->n - 1].dist == dist) {
    p->steps[p->n - 1].len += len;
    return;
  }
  p->steps[p->n++] = (hudi_lz_step){p->lit, len, dist};
  p->lit = 0;
}

static inline uint64_t load64(const uint8_t *s) {
  uint64_t v;
  memcpy(&v, s, sizeof v);
  return v;
}

/* How many bytes from s on equal those dist back, up to n. */
static inline size_t same_run(const uint8_t *s, size_t dist, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x = load64(s + i) ^ load64(s + i - dist);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (x) return i + (size_t)__builtin_ctzll(x) / 8;
#else
    if (x) break;
#endif
  }
  while (i < n && s[i] == s[i - dist]) i++;
  return i;
}

/* Where the next run of MIN_COPY bytes equal to those dist back starts in
 * s[from..n), or n. Sixteen positions compared at once where SSE2 is. */
static size_t next_run(const uint8_t *s, size_t dist, size_t from, size_t n) {
  size_t k = from;
#ifdef __SSE2__
  for (; k + 16 <= n; k += 14) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + k));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + k - dist));
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b));
    unsigned m3 = m & (m >> 1) & (m >> 2) & 0x3fffu;
    if (m3) return k + (size_t)__builtin_ctz(m3);
  }
#endif
  for (; k + MIN_COPY <= n; k++)
    if (s[k] == s[k - dist] && s[k + 1] == s[k + 1 - dist] && s[k + 2] == s[k + 2 - dist]) return k;
  return n;
}

/* Codes s[0..n) against the bytes dist back, position by position. */
static void diff(parse *p, const uint8_t *s, size_t n, size_t dist) {
  size_t i = 0;
  while (i < n) {
    size_t run = same_run(s + i, dist, n - i);
    if (run >= MIN_COPY) {
      add_copy(p, (uint32_t)run, (uint32_t)dist);
      i += run;
    } else {
      size_t j = next_run(s, dist, i + 1, n);
      p->lit += (uint32_t)(j - i);
      i = j;
    }
  }
}

static inline uint32_t tail_hash(const uint8_t *s, size_t n) {
  uint64_t h = n * 0x9e3779b97f4a7c15ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) h = (h ^ load64(s + i)) * 0xff51afd7ed558ccdull;
  for (; i < n; i++) h = (h ^ s[i]) * 0xc4ceb9fe1a85ec53ull;
  return (uint32_t)(h >> 40);
}

/* The cell at src[at..): its row's end and its own end, or 0 when the
 * bytes there do not make a whole cell. */
static int cell_at(const uint8_t *src, size_t len, size_t at, size_t *row_end, size_t *end) {
  if (len - at < 10) return 0;
  const uint8_t *c = src + at;
  uint64_t klen = hudi_be32(c), vlen = hudi_be32(c + 4), rlen = hudi_be16(c + 8);
  if (klen < 2 + rlen || 8 + klen + vlen >= len - at) return 0;
  size_t mvcc = at + 8 + (size_t)klen + (size_t)vlen; /* Hadoop vlong: its first byte tells its size */
  int8_t first = (int8_t)src[mvcc];
  size_t mlen = first >= -112 ? 1 : (size_t)(first < -120 ? -119 - first : -111 - first);
  if (mlen > len - mvcc) return 0;
  *row_end = at + 10 + (size_t)rlen;
  *end = mvcc + mlen;
  return 1;
}

/* The head of the cell at `at` (row end `row_end`): against the previous
 * cell, dist back. When the previous tail was copied from an earlier cell,
 * the bytes after that source (its next cell's head) may continue the copy
 * (ext_dist back): one copy instead of two, taken unless the previous
 * cell shares clearly more. */
static void code_head(parse *p, const uint8_t *src, size_t at, size_t row_end, size_t dist, size_t ext_dist) {
  size_t n = row_end - at, done = 0;
  if (ext_dist && ext_dist != dist && ext_dist <= at) {
    size_t ext = same_run(src + at, ext_dist, n);
    if (ext >= MIN_COPY && ext + 2 >= same_run(src + at, dist, n)) {
      add_copy(p, (uint32_t)ext, (uint32_t)ext_dist);
      done = ext;
    }
  }
  diff(p, src + at + done, n - done, dist);
}

static void parse_cells(parse *p, const uint8_t *src, size_t len) {
  struct {
    size_t at, n;
  } tails[TAILS];
  memset(tails, 0, sizeof tails);
  size_t at = 0, prev = 0, row_end, end, ext_dist = 0;
  while (at < len && cell_at(src, len, at, &row_end, &end)) {
    size_t dist = at - prev; /* 0 for the first cell: nothing before it */
    int near = dist > 0 && dist <= HUDI_DEFLATE_MAX_DIST;
    if (near) code_head(p, src, at, row_end, dist, ext_dist);
    else p->lit += (uint32_t)(row_end - at);
    ext_dist = 0;
    size_t tn = end - row_end;
    /* Two slots a tail: with one, two of a shard's few values (the
     * record index's five file groups) shared a slot in ~15% of tables
     * (the file ids are random), and each then missed the other's copy:
     * an index 15-20% larger. Taken: the slot that matches, else the one
     * used less recently. */
    uint32_t slot = tail_hash(src + row_end, tn) % TAILS, alt = (slot + 1) % TAILS;
    bool same = tails[slot].n == tn && memcmp(src + tails[slot].at, src + row_end, tn) == 0;
    if (!same) {
      bool alt_same = tails[alt].n == tn && memcmp(src + tails[alt].at, src + row_end, tn) == 0;
      if (alt_same || tails[alt].at < tails[slot].at) {
        slot = alt;
        same = alt_same;
      }
    }
    size_t from = tails[slot].at;
    if (same && row_end - from <= HUDI_DEFLATE_MAX_DIST) {
      if (tn >= MIN_COPY) {
        add_copy(p, (uint32_t)tn, (uint32_t)(row_end - from));
        ext_dist = row_end - from;
      } else {
        p->lit += (uint32_t)tn;
      }
    } else if (near) {
      diff(p, src + row_end, tn, dist);
    } else {
      p->lit += (uint32_t)tn;
    }
    tails[slot].at = row_end;
    tails[slot].n = tn;
    prev = at;
    at = end;
  }
  p->lit += (uint32_t)(len - at);
}

/* Parses src into p, whose steps are `stack` or, for a long src, from the
 * heap (release with parse_done). False when memory ran out. */
static bool parse_block(parse *p, hudi_lz_step *stack, const uint8_t *src, size_t len) {
  /* Every step but the last copies at least MIN_COPY bytes. */
  size_t most = len / MIN_COPY + 1;
  *p = (parse){stack, 0, 0};
  if (most > STACK_STEPS) {
    p->steps = hudi_malloc(hudi_mul_size(most, sizeof *p->steps));
    if (!p->steps) return false;
  }
  parse_cells(p, src, len);
  p->steps[p->n++] = (hudi_lz_step){p->lit, 0, 0};
  return true;
}

static void parse_done(parse *p, const hudi_lz_step *stack) {
  if (p->steps != stack) hudi_free(p->steps);
}

bool hudi_hfile_cell_count(const uint8_t *src, size_t len, hudi_deflate_counts *c) {
  if (len > UINT32_MAX / 2) return false;
  hudi_lz_step stack[STACK_STEPS];
  parse p;
  if (!parse_block(&p, stack, src, len)) return false;
  hudi_deflate_counts_add(c, src, p.steps, p.n);
  parse_done(&p, stack);
  return true;
}

bool hudi_hfile_cell_deflate(const uint8_t *src, size_t len, const hudi_deflate_codes *codes, hudi_buf *out) {
  if (len > UINT32_MAX / 2) return false;
  hudi_lz_step stack[STACK_STEPS];
  parse p;
  if (!parse_block(&p, stack, src, len)) return false;
  size_t bound = hudi_deflate_steps_bound(len);
  bool ok = bound <= out->max - out->len && hudi_buf_reserve(out, bound, NULL) == HUDI_OK;
  if (ok) out->len += hudi_deflate_steps(src, len, p.steps, p.n, codes, out->data + out->len);
  parse_done(&p, stack);
  return ok;
}
