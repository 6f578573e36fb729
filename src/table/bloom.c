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

hudi_status hudi_bloom_init(hudi_bloom *b, int32_t num_entries, double fpp, int32_t max_entries, hudi_error *err) {
  memset(b, 0, sizeof *b);
  if (num_entries <= 0 || !(fpp > 0 && fpp < 1))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "bloom filter: %d entries at fpp %g", num_entries, fpp);
  /* BloomFilterUtils.getBitSize / getNumHashes */
  double ln2 = log(2.0);
  double bits = ceil((double)num_entries * (-log(fpp) / (ln2 * ln2)));
  if (bits > (double)INT32_MAX - 8) return hudi_err_set(err, HUDI_ERR_LIMIT, "bloom filter of %.0f bits", bits);
  b->vector_size = (int32_t)bits;
  b->nb_hash = (int32_t)ceil((double)b->vector_size * ln2 / (double)num_entries);
  b->nr = num_entries;
  b->max_entries = max_entries > num_entries ? max_entries : num_entries;
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

hudi_status hudi_bloom_add(hudi_bloom *b, const void *key, size_t len, hudi_error *err) {
  if (b->held) return hold(b, key, len, err);
  int32_t pos[64];
  if (b->nb_hash > 64) return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "bloom filter with %d hashes", b->nb_hash);
  uint8_t *row;
  HUDI_TRY(active_row(b, &row, err));
  positions(b, key, len, pos);
  for (int32_t i = 0; i < b->nb_hash; i++) row[pos[i] >> 3] |= (uint8_t)(1u << (pos[i] & 7));
  b->current++;
  return HUDI_OK;
}

/* ---- several keys at once ---- */

#define LANES 4
#define LANE_WORDS 32 /* keys up to 128 bytes take the lane path */

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
 * multiplies instead of a division per hash, 30 per key. */
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

hudi_status hudi_bloom_add_many(hudi_bloom *b, const char *const *keys, const size_t *lens, size_t n,
                                hudi_error *err) {
  size_t i = 0;
  for (; b->held && i < n; i++) HUDI_TRY(hold(b, keys[i], lens[i], err));
  if (i == n) return HUDI_OK;
  if (b->nb_hash > 64) return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "bloom filter with %d hashes", b->nb_hash);
  lane ls[LANES];
  int32_t pos[LANES][64];
  uint32_t n_bits = (uint32_t)b->vector_size;
  uint64_t m = UINT64_MAX / n_bits + 1;
  while (i < n) {
    size_t g = 0;
    while (g < LANES && i + g < n && lens[i + g] <= LANE_WORDS * 4) {
      lane_init(&ls[g], (const uint8_t *)keys[i + g], lens[i + g]);
      g++;
    }
    if (g == 0) { /* a long key: the one-at-a-time path */
      HUDI_TRY(hudi_bloom_add(b, keys[i], lens[i], err));
      i++;
      continue;
    }
    uint32_t h[LANES] = {0};
    for (int32_t k = 0; k < b->nb_hash; k++)
      for (size_t l = 0; l < g; l++) {
        h[l] = lane_hash(&ls[l], h[l]);
        pos[l][k] = java_pos(h[l], m, n_bits);
      }
    for (size_t l = 0; l < g; l++) {
      uint8_t *row;
      HUDI_TRY(active_row(b, &row, err));
      for (int32_t k = 0; k < b->nb_hash; k++) row[pos[l][k] >> 3] |= (uint8_t)(1u << (pos[l][k] & 7));
      b->current++;
    }
    i += g;
  }
  return HUDI_OK;
}

bool hudi_bloom_might_contain(const hudi_bloom *b, const void *key, size_t len) {
  int32_t pos[64];
  if (b->held || b->nb_hash > 64) return true;
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

hudi_status hudi_bloom_serialize(const hudi_bloom *b, hudi_buf *out, hudi_error *err) {
  if (b->held) return hudi_err_set(err, HUDI_ERR_INTERNAL, "bloom filter serialized before hudi_bloom_finish");
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
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 10);
  if (errno || end == v || *end || x <= 0 || x > INT32_MAX / 64)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is '%s' (a positive number of entries)", key, v);
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
  if (!b->held) return HUDI_OK;
  return size_held(b, b->held_n > 0 ? b->held_n : b->held_cap, err);
}
