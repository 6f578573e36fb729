/* DYNAMIC_V0 bloom filter (apache/hudi common/bloom: HoodieDynamicBoundedBloomFilter,
 * InternalDynamicBloomFilter, InternalBloomFilter, HashFunction), bit for bit. */
#include "table/bloom.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "table/index.h"
#include "table/write.h"

static size_t row_bytes(const hudi_bloom *b) { return ((size_t)b->vector_size + 7) / 8; }

static hudi_status add_row(hudi_bloom *b, hudi_error *err) {
  uint8_t **rows = hudi_realloc(b->rows, ((size_t)b->n_rows + 1) * sizeof *rows);
  if (!rows) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a bloom filter row");
  b->rows = rows;
  rows[b->n_rows] = hudi_calloc(1, row_bytes(b));
  if (!rows[b->n_rows]) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a bloom filter row");
  b->n_rows++;
  return HUDI_OK;
}

/* The sizes of a filter for num_entries keys at fpp (BloomFilterUtils.
 * getBitSize / getNumHashes) and its row rule, into b's fields; no row. */
static hudi_status set_sizes(hudi_bloom *b, int32_t num_entries, double fpp, int32_t max_entries, hudi_error *err) {
  if (num_entries <= 0 || !(fpp > 0 && fpp < 1))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "bloom filter: %d entries at fpp %g", num_entries, fpp);
  double ln2 = log(2.0);
  double bits = ceil((double)num_entries * (-log(fpp) / (ln2 * ln2)));
  if (bits > (double)INT32_MAX - 8) return hudi_err_set(err, HUDI_ERR_LIMIT, "bloom filter of %.0f bits", bits);
  b->vector_size = (int32_t)bits;
  b->nb_hash = (int32_t)ceil((double)b->vector_size * ln2 / (double)num_entries);
  b->nr = num_entries;
  b->max_entries = max_entries > num_entries ? max_entries : num_entries;
  return HUDI_OK;
}

hudi_status hudi_bloom_init(hudi_bloom *b, int32_t num_entries, double fpp, int32_t max_entries, hudi_error *err) {
  memset(b, 0, sizeof *b);
  HUDI_TRY(set_sizes(b, num_entries, fpp, max_entries, err));
  hudi_status st = add_row(b, err);
  if (st != HUDI_OK) hudi_bloom_free(b);
  return st;
}

void hudi_bloom_free(hudi_bloom *b) {
  if (b->held) hudi_buf_free(&b->held_keys);
  for (int32_t i = 0; i < b->n_rows; i++) hudi_free(b->rows[i]);
  hudi_free(b->rows);
  memset(b, 0, sizeof *b);
}

static void positions(const hudi_bloom *b, const void *key, size_t len, int32_t *out);

/* InternalDynamicBloomFilter.getActiveStandardBF, with addRow folded in. */
static hudi_status active_row(hudi_bloom *b, uint8_t **row, hudi_error *err) {
  if (b->reached_max) {
    *row = b->rows[b->round_robin++ % b->n_rows];
    return HUDI_OK;
  }
  if (b->current >= b->nr) {
    if ((int64_t)b->n_rows * b->nr < b->max_entries) {
      HUDI_TRY(add_row(b, err));
      b->current = 0;
    } else {
      b->reached_max = true;
      /* Java's curMatrixIndex++ % length starts at 0 for this key. */
      *row = b->rows[b->round_robin++ % b->n_rows];
      return HUDI_OK;
    }
  }
  *row = b->rows[b->n_rows - 1];
  return HUDI_OK;
}

static hudi_status hold(hudi_bloom *b, const void *key, size_t len, hudi_error *err);

/* Sets a key's bits (its positions pos[i * stride]) in the active row
 * (Java's add for one key). */
static hudi_status set_bits(hudi_bloom *b, const int32_t *pos, size_t stride, hudi_error *err) {
  uint8_t *row;
  HUDI_TRY(active_row(b, &row, err));
  for (int32_t i = 0; i < b->nb_hash; i++) {
    int32_t p = pos[(size_t)i * stride];
    row[p >> 3] |= (uint8_t)(1u << (p & 7));
  }
  b->current++;
  return HUDI_OK;
}

/* One key on a sized filter, hashed alone. */
static hudi_status add_one(hudi_bloom *b, const void *key, size_t len, hudi_error *err) {
  int32_t pos[64];
  positions(b, key, len, pos);
  return set_bits(b, pos, 1, err);
}

static hudi_status add_keys(hudi_bloom *b, const char *const *keys, const size_t *lens, size_t n, hudi_error *err);

/* Adds the pending keys (hudi_bloom_add's queue), in order. */
static hudi_status flush_pending(hudi_bloom *b, hudi_error *err) {
  int32_t n = b->pend_n;
  if (n == 0) return HUDI_OK;
  const char *ks[HUDI_BLOOM_PENDING];
  size_t ls[HUDI_BLOOM_PENDING];
  for (int32_t i = 0; i < n; i++) {
    ks[i] = b->pend + b->pend_off[i];
    ls[i] = (size_t)(b->pend_off[i + 1] - b->pend_off[i]);
  }
  b->pend_n = 0;
  return add_keys(b, ks, ls, (size_t)n, err);
}

hudi_status hudi_bloom_add(hudi_bloom *b, const void *key, size_t len, hudi_error *err) {
  if (b->held) return hold(b, key, len, err);
  if (b->nb_hash > 64) return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "bloom filter with %d hashes", b->nb_hash);
  if (b->pend_n == 0) b->pend_off[0] = 0;
  size_t used = b->pend_off[b->pend_n];
  if (len > sizeof b->pend - used) { /* no room: the queue first, then maybe this key alone */
    HUDI_TRY(flush_pending(b, err));
    b->pend_off[0] = 0;
    used = 0;
    if (len > sizeof b->pend) return add_one(b, key, len, err);
  }
  memcpy(b->pend + used, key, len);
  b->pend_off[++b->pend_n] = (uint16_t)(used + len);
  return b->pend_n == HUDI_BLOOM_PENDING ? flush_pending(b, err) : HUDI_OK;
}

/* ---- several keys at once ---- */

#define LANE_WORDS 32 /* keys up to 128 bytes take the vector path */

/* One key of the murmur2 (Hadoop, hudi_murmur2_hadoop) lanes: its mixed
 * words do not depend on the seed, so they are computed once for all
 * nb_hash hashes. */
typedef struct lane {
  uint32_t k[LANE_WORDS];
  size_t words;
  uint32_t len;
  uint32_t tail; /* the tail bytes' xor, Java's order and sign extension */
  bool has_tail;
} lane;

#define MURMUR_M 0x5bd1e995u

static void lane_init(lane *l, const uint8_t *p, size_t len) {
  l->words = len >> 2;
  l->len = (uint32_t)len;
  for (size_t i = 0; i < l->words; i++, p += 4) {
    uint32_t k = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    k *= MURMUR_M;
    k ^= k >> 24;
    l->k[i] = k * MURMUR_M;
  }
  size_t left = len & 3;
  l->has_tail = left != 0;
  l->tail = 0;
  if (left) {
    const uint8_t *end = p + left;
    if (left >= 3) l->tail ^= (uint32_t)(int32_t)(int8_t)end[-3] << 16;
    if (left >= 2) l->tail ^= (uint32_t)(int32_t)(int8_t)end[-2] << 8;
    l->tail ^= (uint32_t)(int32_t)(int8_t)end[-1];
  }
}

static inline uint32_t lane_hash(const lane *l, uint32_t seed) {
  uint32_t h = seed ^ l->len;
  for (size_t i = 0; i < l->words; i++) h = h * MURMUR_M ^ l->k[i];
  if (l->has_tail) h = (h ^ l->tail) * MURMUR_M;
  h ^= h >> 13;
  h *= MURMUR_M;
  return h ^ (h >> 15);
}

/* Java's abs(h % n) for the int32 h whose bits are u: |h % n| = |h| % n,
 * |h| taken as unsigned (INT32_MIN's is 2^31). The remainder is Lemire's
 * fastmod with m = 2^64 / n rounded up (exact for 32-bit operands): two
 * multiplies instead of a division per hash. */
static inline int32_t java_pos(uint32_t u, uint64_t m, uint32_t n) {
  uint32_t a = u & 0x80000000u ? 0u - u : u;
  uint64_t low = m * a;
  /* (low * n) >> 64 from 32-bit halves. */
  uint64_t hi = (low >> 32) * n + (((low & 0xffffffffu) * n) >> 32);
  return (int32_t)(hi >> 32);
}

/* HashFunction.hash: murmur chained through its seed, Java's abs(h % n);
 * keys of up to 128 bytes through a lane (words mixed once for all
 * hashes). */
static void positions(const hudi_bloom *b, const void *key, size_t len, int32_t *out) {
  uint32_t n_bits = (uint32_t)b->vector_size;
  uint64_t m = UINT64_MAX / n_bits + 1;
  uint32_t h = 0;
  if (len <= LANE_WORDS * 4) {
    lane l;
    lane_init(&l, (const uint8_t *)key, len);
    for (int32_t i = 0; i < b->nb_hash; i++) {
      h = lane_hash(&l, h);
      out[i] = java_pos(h, m, n_bits);
    }
    return;
  }
  for (int32_t i = 0; i < b->nb_hash; i++) {
    h = (uint32_t)hudi_murmur2_hadoop(key, len, (int32_t)h);
    out[i] = java_pos(h, m, n_bits);
  }
}

/* VL keys are hashed at once, eight to a vector (GCC/Clang vector
 * extensions, 32-byte vectors; on x86-64 compiled twice, for AVX2 and the
 * baseline, the loader picking one), two vectors side by side so that
 * one's multiplies wait out the other's. The words of the keys are mixed
 * beforehand (lane_init, transposed to kw[word][lane]); a lane whose key
 * has fewer words keeps its hash (on[word][lane] = 0) while longer keys
 * go on, and every key's tail bytes are folded in after the last word,
 * which is where its own loop would have folded them. */
#define VL 16
typedef uint32_t vu32 __attribute__((vector_size(32)));
typedef int32_t vi32x4 __attribute__((vector_size(16)));
typedef double vf64 __attribute__((vector_size(32)));
typedef int64_t vi64 __attribute__((vector_size(32)));

typedef struct vgroup {
  uint32_t kw[LANE_WORDS][VL];
  uint32_t on[LANE_WORDS][VL];
  uint32_t len[VL], tail[VL], has_tail[VL];
  size_t max_words;
  /* Every lane has max_words words, and a tail either in all or in none
   * (keys of one length: uuids, fixed-width ids): no masks needed. */
  bool uniform, all_tail;
} vgroup;

/* HUDI_BLOOM_NO_CLONES: the baseline alone (tests/unit/CMakeLists.txt). */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(HUDI_BLOOM_NO_CLONES)
#if __has_attribute(target_clones)
#define HUDI_VEC_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef HUDI_VEC_CLONES
#define HUDI_VEC_CLONES
#endif

/* Java's abs(h % n) of four hashes (int32 bits), in doubles: |h| <= 2^31
 * and n < 2^31 are exact, the quotient from |h| * (1/n) is off by at most
 * one (its error is below 2^-21), and the exact |h| - q*n is moved back
 * into [0, n). q < 2^31 for n >= 2, so it goes through int32, the widest
 * conversion AVX2 has. */
#define JAVA_POS4(h4, out)                                                          \
  do {                                                                              \
    vf64 a_ = __builtin_convertvector((h4), vf64);                                  \
    a_ = (vf64)((vi64)a_ & abs_mask);                                               \
    vf64 q_ = __builtin_convertvector(__builtin_convertvector(a_ * inv, vi32x4), vf64); \
    vf64 r_ = a_ - q_ * nd;                                                         \
    r_ += (vf64)((vi64)nd & (vi64)(r_ < zero));                                     \
    r_ -= (vf64)((vi64)nd & (vi64)(r_ >= nd));                                      \
    vi32x4 p_ = __builtin_convertvector(r_, vi32x4);                                \
    memcpy((out), &p_, sizeof p_);                                                  \
  } while (0)

/* pos[k][l]: the k-th bit position of lane l's key, for nb_hash hashes
 * into n_bits >= 2 bits. Inlined twice: for uniform groups without the
 * per-word masks (two vector operations per word instead of five). */
static inline __attribute__((always_inline)) void positions_of(const vgroup *g, int32_t nb_hash, uint32_t n_bits,
                                                               int32_t pos[][VL], const bool uniform) {
  vu32 len0, len1, tail0, tail1, has0, has1;
  memcpy(&len0, g->len, 32);
  memcpy(&len1, g->len + 8, 32);
  memcpy(&tail0, g->tail, 32);
  memcpy(&tail1, g->tail + 8, 32);
  memcpy(&has0, g->has_tail, 32);
  memcpy(&has1, g->has_tail + 8, 32);
  vu32 h0 = len0 ^ len0, h1 = h0; /* the first seed: 0 */
  const vf64 zero = {0}, nd = zero + (double)n_bits, inv = zero + 1.0 / (double)n_bits;
  const vi64 abs_mask = (vi64){0} + INT64_MAX;
  for (int32_t k = 0; k < nb_hash; k++) {
    h0 ^= len0;
    h1 ^= len1;
    for (size_t w = 0; w < g->max_words; w++) {
      vu32 k0, k1, on0, on1;
      memcpy(&k0, g->kw[w], 32);
      memcpy(&k1, g->kw[w] + 8, 32);
      if (uniform) {
        h0 = h0 * MURMUR_M ^ k0;
        h1 = h1 * MURMUR_M ^ k1;
        continue;
      }
      memcpy(&on0, g->on[w], 32);
      memcpy(&on1, g->on[w] + 8, 32);
      h0 = ((h0 * MURMUR_M ^ k0) & on0) | (h0 & ~on0);
      h1 = ((h1 * MURMUR_M ^ k1) & on1) | (h1 & ~on1);
    }
    if (!uniform) {
      h0 = (((h0 ^ tail0) * MURMUR_M) & has0) | (h0 & ~has0);
      h1 = (((h1 ^ tail1) * MURMUR_M) & has1) | (h1 & ~has1);
    } else if (g->all_tail) {
      h0 = (h0 ^ tail0) * MURMUR_M;
      h1 = (h1 ^ tail1) * MURMUR_M;
    }
    h0 ^= h0 >> 13;
    h1 ^= h1 >> 13;
    h0 *= MURMUR_M;
    h1 *= MURMUR_M;
    h0 ^= h0 >> 15;
    h1 ^= h1 >> 15;
    vi32x4 q[4];
    memcpy(q, &h0, 32);
    memcpy(q + 2, &h1, 32);
    for (int i = 0; i < 4; i++) JAVA_POS4(q[i], pos[k] + 4 * i);
  }
}

HUDI_VEC_CLONES static void group_positions(const vgroup *g, int32_t nb_hash, uint32_t n_bits,
                                            int32_t pos[][VL]) {
  if (g->uniform) positions_of(g, nb_hash, n_bits, pos, true);
  else positions_of(g, nb_hash, n_bits, pos, false);
}

/* Adds keys[0, n) (each at most LANE_WORDS * 4 bytes) in order. */
static hudi_status add_group(hudi_bloom *b, vgroup *g, const char *const *keys, const size_t *lens, size_t n,
                             hudi_error *err) {
  lane ls[VL];
  g->max_words = 0;
  for (size_t i = 0; i < VL; i++) {
    lane_init(&ls[i], (const uint8_t *)(i < n ? keys[i] : ""), i < n ? lens[i] : 0);
    g->len[i] = ls[i].len;
    g->tail[i] = ls[i].tail;
    g->has_tail[i] = ls[i].has_tail ? UINT32_MAX : 0;
    if (ls[i].words > g->max_words) g->max_words = ls[i].words;
  }
  g->uniform = true;
  g->all_tail = ls[0].has_tail;
  for (size_t i = 0; i < VL; i++)
    g->uniform = g->uniform && ls[i].words == g->max_words && ls[i].has_tail == g->all_tail;
  for (size_t w = 0; w < g->max_words; w++)
    for (size_t i = 0; i < VL; i++) {
      bool on = w < ls[i].words;
      g->kw[w][i] = on ? ls[i].k[w] : 0;
      g->on[w][i] = on ? UINT32_MAX : 0;
    }
  int32_t pos[64][VL];
  group_positions(g, b->nb_hash, (uint32_t)b->vector_size, pos);
  for (size_t i = 0; i < n; i++) HUDI_TRY(set_bits(b, &pos[0][i], VL, err));
  return HUDI_OK;
}

/* Adds keys in order on a sized filter with nothing pending. */
static hudi_status add_keys(hudi_bloom *b, const char *const *keys, const size_t *lens, size_t n, hudi_error *err) {
  if (b->vector_size < 2) { /* the vector remainder wants n >= 2 */
    for (size_t i = 0; i < n; i++) HUDI_TRY(add_one(b, keys[i], lens[i], err));
    return HUDI_OK;
  }
  vgroup g;
  size_t i = 0;
  while (i < n) {
    size_t c = 0;
    while (c < VL && i + c < n && lens[i + c] <= LANE_WORDS * 4) c++;
    if (c == 0) { /* a long key: the one-at-a-time path */
      HUDI_TRY(add_one(b, keys[i], lens[i], err));
      i++;
      continue;
    }
    HUDI_TRY(add_group(b, &g, keys + i, lens + i, c, err));
    i += c;
  }
  return HUDI_OK;
}

hudi_status hudi_bloom_add_many(hudi_bloom *b, const char *const *keys, const size_t *lens, size_t n,
                                hudi_error *err) {
  size_t i = 0;
  for (; b->held && i < n; i++) HUDI_TRY(hold(b, keys[i], lens[i], err));
  if (i == n) return HUDI_OK;
  if (b->nb_hash > 64) return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "bloom filter with %d hashes", b->nb_hash);
  HUDI_TRY(flush_pending(b, err));
  return add_keys(b, keys + i, lens + i, n - i, err);
}

bool hudi_bloom_might_contain(const hudi_bloom *b, const void *key, size_t len) {
  int32_t pos[64];
  if (b->held || b->nb_hash > 64) return true;
  for (int32_t i = 0; i < b->pend_n; i++) {
    size_t pl = (size_t)(b->pend_off[i + 1] - b->pend_off[i]);
    if (pl == len && memcmp(b->pend + b->pend_off[i], key, len) == 0) return true;
  }
  positions(b, key, len, pos);
  for (int32_t r = 0; r < b->n_rows; r++) {
    int32_t i = 0;
    while (i < b->nb_hash && (b->rows[r][pos[i] >> 3] >> (pos[i] & 7) & 1)) i++;
    if (i == b->nb_hash) return true;
  }
  return false;
}

static hudi_status be32(hudi_buf *o, int32_t v, hudi_error *err) {
  uint32_t u = (uint32_t)v;
  uint8_t x[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
  return hudi_buf_append(o, x, 4, err);
}

/* Filter.write: version -1, nbHash, hashType (1 = murmur), vectorSize. */
static hudi_status filter_header(const hudi_bloom *b, hudi_buf *o, hudi_error *err) {
  HUDI_TRY(be32(o, -1, err));
  HUDI_TRY(be32(o, b->nb_hash, err));
  HUDI_TRY(hudi_buf_append_byte(o, 1, err));
  return be32(o, b->vector_size, err);
}

hudi_status hudi_bloom_serialize(hudi_bloom *b, hudi_buf *out, hudi_error *err) {
  if (b->held) return hudi_err_set(err, HUDI_ERR_INTERNAL, "bloom filter serialized before hudi_bloom_finish");
  HUDI_TRY(flush_pending(b, err));
  hudi_buf raw;
  hudi_buf_init(&raw, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = filter_header(b, &raw, err);
  if (st == HUDI_OK) st = be32(&raw, b->nr, err);
  if (st == HUDI_OK) st = be32(&raw, b->current, err);
  if (st == HUDI_OK) st = be32(&raw, b->n_rows, err);
  for (int32_t r = 0; st == HUDI_OK && r < b->n_rows; r++) {
    st = filter_header(b, &raw, err);
    if (st == HUDI_OK) st = hudi_buf_append(&raw, b->rows[r], row_bytes(b), err);
  }
  if (st == HUDI_OK) st = hudi_base64_encode(out, raw.data, raw.len, err);
  hudi_buf_free(&raw);
  return st;
}

hudi_status hudi_base64_encode(hudi_buf *out, const void *data, size_t len, hudi_error *err) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const uint8_t *p = data;
  HUDI_TRY(hudi_buf_reserve(out, (len + 2) / 3 * 4 + 1, err));
  char *o = (char *)out->data + out->len;
  size_t i = 0, n = 0;
  for (; i + 3 <= len; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
    o[n++] = A[v >> 18];
    o[n++] = A[(v >> 12) & 63];
    o[n++] = A[(v >> 6) & 63];
    o[n++] = A[v & 63];
  }
  if (i < len) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
    o[n++] = A[v >> 18];
    o[n++] = A[(v >> 12) & 63];
    o[n++] = i + 1 < len ? A[(v >> 6) & 63] : '=';
    o[n++] = '=';
  }
  out->len += n;
  return HUDI_OK;
}

static hudi_status int_opt(int32_t *out, const hudi_table *t, const hudi_option *opts, size_t n, const char *key,
                           bool *set, hudi_error *err) {
  const char *v = hudi_write_option(t, opts, n, key);
  if (set) *set = v != NULL;
  if (!v) return HUDI_OK;
  int64_t x;
  HUDI_TRY(hudi_option_parse_int(key, v, 1, INT32_MAX / 64, &x, err));
  *out = (int32_t)x;
  return HUDI_OK;
}

hudi_status hudi_bloom_cfg_read(hudi_bloom_cfg *cfg, const hudi_table *t, const hudi_option *opts, size_t n_opts,
                                hudi_error *err) {
  memset(cfg, 0, sizeof *cfg);
  cfg->entries = HUDI_BLOOM_DEFAULT_ENTRIES;
  cfg->max_entries = HUDI_BLOOM_DEFAULT_MAX_ENTRIES;
  cfg->fpp = HUDI_BLOOM_DEFAULT_FPP;
  const char *v = hudi_write_option(t, opts, n_opts, "hoodie.parquet.bloom.filter.enabled");
  const char *ix = hudi_write_option(t, opts, n_opts, "hoodie.index.type");
  cfg->on = true;
  if (v && strcasecmp(v, "true") != 0) {
    if (strcasecmp(v, "false") != 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "option hoodie.parquet.bloom.filter.enabled is '%s' (true or false)", v);
    cfg->on = ix && strstr(ix, "BLOOM") != NULL;
  }
  HUDI_TRY(int_opt(&cfg->entries, t, opts, n_opts, "hoodie.index.bloom.num_entries", &cfg->entries_set, err));
  HUDI_TRY(int_opt(&cfg->max_entries, t, opts, n_opts, "hoodie.bloom.index.filter.dynamic.max.entries", NULL, err));
  const char *f = hudi_write_option(t, opts, n_opts, "hoodie.index.bloom.fpp");
  if (f) {
    char *end;
    errno = 0;
    double x = strtod(f, &end);
    if (errno || end == f || *end || !(x > 0 && x < 1))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option hoodie.index.bloom.fpp is '%s' (a rate in (0, 1))", f);
    cfg->fpp = x;
  }
  return HUDI_OK;
}

hudi_status hudi_bloom_init_for(hudi_bloom *b, const hudi_bloom_cfg *cfg, hudi_error *err) {
  if (cfg->entries_set) return hudi_bloom_init(b, cfg->entries, cfg->fpp, cfg->max_entries, err);
  memset(b, 0, sizeof *b);
  b->held = true;
  b->held_cap = cfg->entries;
  b->held_max = cfg->max_entries;
  b->held_fpp = cfg->fpp;
  hudi_buf_init(&b->held_keys, (size_t)1 << 34);
  return HUDI_OK;
}

/* Sizes a held filter for entries keys and adds the held ones, in order. */
static hudi_status size_held(hudi_bloom *b, int32_t entries, hudi_error *err) {
  hudi_buf keys = b->held_keys;
  int32_t max = b->held_max;
  double fpp = b->held_fpp;
  hudi_status st = hudi_bloom_init(b, entries, fpp, max, err);
  const uint8_t *p = keys.data, *end = keys.data + keys.len;
  enum { CHUNK = 256 };
  const char *ks[CHUNK];
  size_t ls[CHUNK];
  while (st == HUDI_OK && p < end) {
    size_t n = 0;
    for (; n < CHUNK && p < end; n++) {
      uint32_t len;
      memcpy(&len, p, 4);
      ks[n] = (const char *)p + 4;
      ls[n] = len;
      p += 4 + len;
    }
    st = hudi_bloom_add_many(b, ks, ls, n, err);
  }
  hudi_buf_free(&keys);
  return st;
}

static hudi_status hold(hudi_bloom *b, const void *key, size_t len, hudi_error *err) {
  if (b->held_n == b->held_cap) { /* one more than Java's first row takes: Java's filter */
    HUDI_TRY(size_held(b, b->held_cap, err));
    return hudi_bloom_add(b, key, len, err);
  }
  if (len > UINT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "record key of %zu bytes", len);
  uint32_t l = (uint32_t)len;
  HUDI_TRY(hudi_buf_append(&b->held_keys, &l, 4, err));
  HUDI_TRY(hudi_buf_append(&b->held_keys, key, len, err));
  b->held_n++;
  return HUDI_OK;
}

hudi_status hudi_bloom_finish(hudi_bloom *b, hudi_error *err) {
  if (!b->held) return flush_pending(b, err);
  return size_held(b, b->held_n > 0 ? b->held_n : b->held_cap, err);
}

/* The state Java's filter has after `keys` adds (active_row's rules): its
 * row count, the fill counter and, past max entries, the round-robin
 * position. */
static void state_after(const hudi_bloom *b, int64_t keys, int32_t *n_rows, int64_t *current, int64_t *rr,
                        bool *reached) {
  int64_t max_rows = ((int64_t)b->max_entries + b->nr - 1) / b->nr; /* rows are added while rows * nr < max */
  if (max_rows < 1) max_rows = 1;
  *reached = keys > max_rows * b->nr;
  int64_t rows = *reached ? max_rows : keys == 0 ? 1 : (keys + b->nr - 1) / b->nr;
  *n_rows = (int32_t)rows;
  *current = keys - (rows - 1) * b->nr; /* the counter goes on counting in the round-robin phase */
  *rr = *reached ? keys - max_rows * b->nr : 0;
}

bool hudi_bloom_resume(hudi_bloom *b, const char *text, size_t len, const hudi_bloom_cfg *cfg, int64_t keys) {
  memset(b, 0, sizeof *b);
  /* Fewer keys than num_entries: the writer sized the filter for them
   * (hudi_bloom_init_for), not for the file this one becomes. */
  if (!cfg->on || keys < cfg->entries || keys >= INT32_MAX) return false;
  hudi_bloom want; /* the sizes cfg gives, no rows */
  memset(&want, 0, sizeof want);
  hudi_error ignored = HUDI_ERROR_INIT;
  if (set_sizes(&want, cfg->entries, cfg->fpp, cfg->max_entries, &ignored) != HUDI_OK) return false;
  int32_t n_rows;
  int64_t current, rr;
  bool reached;
  state_after(&want, keys, &n_rows, &current, &rr, &reached);
  if (hudi_bloom_deserialize(b, text, len, true, &ignored) != HUDI_OK) return false;
  if (b->nb_hash != want.nb_hash || b->vector_size != want.vector_size || b->nr != want.nr || b->n_rows != n_rows ||
      b->current != current) {
    hudi_bloom_free(b);
    return false;
  }
  b->max_entries = want.max_entries;
  b->reached_max = reached;
  b->round_robin = rr;
  return true;
}

bool hudi_bloom_counted(const hudi_bloom *b, int64_t keys) {
  if (b->held || b->nr <= 0) return false;
  int32_t n_rows;
  int64_t current, rr;
  bool reached;
  state_after(b, keys - b->pend_n, &n_rows, &current, &rr, &reached);
  return b->n_rows == n_rows && b->current == current && b->reached_max == reached && b->round_robin == rr;
}
