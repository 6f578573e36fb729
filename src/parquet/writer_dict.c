/* Writer dictionary: hash index over first-seen distinct values. */
#include "parquet/writer_dict.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <xxhash.h>

#include "base/alloc.h"

void hudi_pq_dict_init(hudi_pq_dict *d, int32_t width) {
  memset(d, 0, sizeof *d);
  d->width = width;
  hudi_buf_init(&d->values, 0);
}

void hudi_pq_dict_free(hudi_pq_dict *d) {
  hudi_buf_free(&d->values);
  hudi_free(d->offsets);
  hudi_free(d->slots);
  hudi_free(d->words);
  memset(d, 0, sizeof *d);
}

/* Bytes per slot of the word table: (value, index + 1) pairs. */
static size_t word_slot_size(size_t width) { return width == 4 ? 2 * sizeof(uint32_t) : sizeof(hudi_pq_dict_word); }

void hudi_pq_dict_reset(hudi_pq_dict *d) {
  hudi_buf_reset(&d->values);
  d->index_stale = d->slots || d->words;
  d->n = 0;
  d->plain_size = 0;
  if (d->offsets) d->offsets[0] = 0;
}

void hudi_pq_dict_drop_index(hudi_pq_dict *d) {
  hudi_free(d->slots);
  hudi_free(d->words);
  d->slots = NULL;
  d->words = NULL;
  d->mask = 0;
  d->index_stale = false;
}

/* Empties the index a reset left behind, on the next chunk's first insert
 * (the last chunk's reset then costs nothing). */
static void clear_stale_index(hudi_pq_dict *d) {
  if (d->slots) memset(d->slots, 0, sizeof(uint32_t) * (size_t)(d->mask + 1));
  if (d->words) memset(d->words, 0, word_slot_size((size_t)d->width) * (size_t)(d->mask + 1));
  d->index_stale = false;
}

/* At half full the table doubles; past max_plain, at 3/4 (see the header). */
static bool needs_growth(const hudi_pq_dict *d) {
  size_t slots = (size_t)d->mask + 1, need = d->n + 1;
  if (need * 2 <= slots) return false;
  bool past_cap = d->max_plain && d->plain_size >= d->max_plain;
  return !past_cap || need * 4 > slots * 3;
}

static uint64_t word_of(const uint8_t *p, size_t w) {
  if (w == 8) {
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
  }
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

static uint64_t hash_word(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  return x ^ (x >> 33);
}

static uint64_t hash_of(const uint8_t *p, size_t len) {
  if (len == 4) {
    uint32_t x;
    memcpy(&x, p, 4);
    return (x * 0x9E3779B97F4A7C15ull) ^ ((x * 0x9E3779B97F4A7C15ull) >> 29);
  }
  if (len == 8) return hash_word(word_of(p, 8));
  return XXH3_64bits(p, len);
}

/* memcmp(a, b, len) == 0, short values (currency codes, statuses) compared
 * in place: a library call per probe cost more than the compare. */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len) {
  if (len > 16) return memcmp(a, b, len) == 0;
  uint8_t x = 0;
  for (size_t i = 0; i < len; i++) x |= (uint8_t)(a[i] ^ b[i]);
  return x == 0;
}

static const uint8_t *entry(const hudi_pq_dict *d, uint32_t k, size_t *len) {
  if (d->width) {
    *len = (size_t)d->width;
    return d->values.data + (size_t)k * (size_t)d->width;
  }
  *len = (size_t)(d->offsets[k + 1] - d->offsets[k]);
  return d->values.data + d->offsets[k];
}

/* Doubles the slot table, or builds it (at most half full) from the
 * entries when there is none (a dropped index). */
static hudi_status grow(hudi_pq_dict *d, hudi_error *err) {
  size_t nslots = d->slots ? (size_t)(d->mask + 1) * 2 : 1024;
  while (nslots < 2 * (d->n + 1)) nslots *= 2;
  uint32_t *s = hudi_calloc(nslots, sizeof *s);
  if (!s) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory growing a dictionary of %zu entries", d->n);
  uint64_t mask = nslots - 1;
  for (size_t k = 0; k < d->n; k++) {
    size_t len;
    const uint8_t *p = entry(d, (uint32_t)k, &len);
    uint64_t h = hash_of(p, len) & mask;
    while (s[h]) h = (h + 1) & mask;
    s[h] = (uint32_t)k + 1;
  }
  hudi_free(d->slots);
  d->slots = s;
  d->mask = mask;
  return HUDI_OK;
}

/* Appends a new entry; the caller points its slot at it (index d->n). */
static hudi_status add(hudi_pq_dict *d, const uint8_t *p, size_t len, hudi_error *err) {
  if (d->n >= (size_t)INT32_MAX - 1)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "a dictionary of more than 2^31 entries");
  if (!d->width) {
    if (d->n + 2 > d->cap_offsets) {
      size_t cap = d->cap_offsets ? d->cap_offsets * 2 : 256;
      int32_t *o = hudi_realloc(d->offsets, hudi_mul_size(cap, sizeof *o));
      if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory growing a dictionary");
      if (!d->offsets) o[0] = 0;
      d->offsets = o;
      d->cap_offsets = cap;
    }
    if (d->values.len + len > (size_t)INT32_MAX)
      return hudi_err_set(err, HUDI_ERR_LIMIT, "a dictionary of more than 2 GiB");
  }
  HUDI_TRY(hudi_buf_append(&d->values, p, len, err));
  if (!d->width) d->offsets[d->n + 1] = (int32_t)d->values.len;
  d->n++;
  d->plain_size += len + (d->width ? 0 : 4);
  return HUDI_OK;
}

/* Slot access for the word tables, by value width (a constant where the
 * callers below are inlined). */
static inline uint32_t word_index(const void *t, uint64_t h, size_t w) {
  return w == 4 ? ((const uint32_t *)t)[2 * h + 1] : ((const hudi_pq_dict_word *)t)[h].index;
}

static inline uint64_t word_value(const void *t, uint64_t h, size_t w) {
  return w == 4 ? ((const uint32_t *)t)[2 * h] : ((const hudi_pq_dict_word *)t)[h].value;
}

static inline void word_set(void *t, uint64_t h, size_t w, uint64_t value, uint32_t index) {
  if (w == 4) {
    ((uint32_t *)t)[2 * h] = (uint32_t)value;
    ((uint32_t *)t)[2 * h + 1] = index;
  } else {
    ((hudi_pq_dict_word *)t)[h] = (hudi_pq_dict_word){value, index};
  }
}

static inline const void *word_slot(const void *t, uint64_t h, size_t w) {
  return (const uint8_t *)t + h * word_slot_size(w);
}

/* Doubles the word table, or builds it (at most half full) when there is
 * none (a dropped index keeps its entries); either way from the entries,
 * as grow() does. */
static hudi_status grow_words(hudi_pq_dict *d, size_t w, hudi_error *err) {
  size_t nslots = d->words ? (size_t)(d->mask + 1) * 2 : 1024;
  while (nslots < 2 * (d->n + 1)) nslots *= 2;
  void *t = hudi_calloc(nslots, word_slot_size(w));
  if (!t) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory growing a dictionary of %zu entries", d->n);
  uint64_t mask = nslots - 1;
  for (size_t k = 0; k < d->n; k++) {
    uint64_t x = word_of(d->values.data + k * w, w);
    uint64_t h = hash_word(x) & mask;
    while (word_index(t, h, w)) h = (h + 1) & mask;
    word_set(t, h, w, x, (uint32_t)k + 1);
  }
  hudi_free(d->words);
  d->words = t;
  d->mask = mask;
  return HUDI_OK;
}

/* Values hashed (and their slots prefetched) DICT_AHEAD values before
 * their probe: a dictionary of a high-cardinality column outgrows the
 * caches (Java abandons it only at 1 MiB of values: up to 256k int32
 * entries, a 4 MiB table), and one cache miss at a time would cost a
 * memory latency per value. A power of two (a ring of hashes). */
#define DICT_AHEAD 16

/* hudi_pq_dict_insert for w-byte values, w 4 or 8 (inlined per width). */
static inline __attribute__((always_inline)) hudi_status insert_words(hudi_pq_dict *d, const uint8_t *data, size_t n,
                                                                      uint32_t *indices, size_t w, hudi_error *err) {
  if (!d->words) HUDI_TRY(grow_words(d, w, err));
  uint64_t hs[DICT_AHEAD];
  for (size_t i = 0; i < n && i < DICT_AHEAD; i++) {
    hs[i] = hash_word(word_of(data + i * w, w));
    __builtin_prefetch(word_slot(d->words, hs[i] & d->mask, w));
  }
  uint64_t prev = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t x = word_of(data + i * w, w), hx = hs[i % DICT_AHEAD];
    if (i + DICT_AHEAD < n) {
      uint64_t ha = hash_word(word_of(data + (i + DICT_AHEAD) * w, w));
      hs[i % DICT_AHEAD] = ha;
      __builtin_prefetch(word_slot(d->words, ha & d->mask, w));
    }
    if (i > 0 && x == prev) {
      indices[i] = indices[i - 1];
      continue;
    }
    prev = x;
    if (needs_growth(d)) HUDI_TRY(grow_words(d, w, err));
    uint64_t h = hx & d->mask;
    uint32_t index;
    while ((index = word_index(d->words, h, w)) && word_value(d->words, h, w) != x) h = (h + 1) & d->mask;
    if (!index) {
      HUDI_TRY(add(d, data + i * w, w, err));
      index = (uint32_t)d->n;
      word_set(d->words, h, w, x, index);
    }
    indices[i] = index - 1;
  }
  return HUDI_OK;
}

/* Whether values [0, n) (n >= 2) are all value 0: equal lengths, and the
 * bytes equal to themselves shifted by one value (one memcmp over the
 * run instead of one per value). Values 1 and 0 are compared first, so
 * most columns of many values stop there. */
static bool one_value(const uint8_t *data, const int32_t *offsets, size_t n, size_t w) {
  size_t len = w ? w : (size_t)(offsets[1] - offsets[0]);
  const uint8_t *p = w ? data : data + offsets[0];
  if (!w && (size_t)(offsets[2] - offsets[1]) != len) return false;
  if (len && memcmp(p + len, p, len) != 0) return false;
  if (!w)
    for (size_t i = 2; i <= n; i++)
      if ((size_t)(offsets[i] - offsets[0]) != i * len) return false;
  return len == 0 || memcmp(p + len, p, (n - 1) * len) == 0;
}

static hudi_status insert_bytes(hudi_pq_dict *d, const uint8_t *data, const int32_t *offsets, size_t n,
                                uint32_t *indices, hudi_error *err);

hudi_status hudi_pq_dict_insert(hudi_pq_dict *d, const uint8_t *data, const int32_t *offsets, size_t n,
                                uint32_t *indices, hudi_error *err) {
  if (d->index_stale) clear_stale_index(d);
  if (d->width == 4) return insert_words(d, data, n, indices, 4, err);
  if (d->width == 8) return insert_words(d, data, n, indices, 8, err);
  /* A run of one value (Hudi's commit time, partition path and file
   * name are one value per file): the first inserted, its index copied. */
  if (n >= 2 && one_value(data, offsets, n, (size_t)d->width)) {
    HUDI_TRY(insert_bytes(d, data, offsets, 1, indices, err));
    for (size_t i = 1; i < n; i++) indices[i] = indices[0];
    return HUDI_OK;
  }
  return insert_bytes(d, data, offsets, n, indices, err);
}

static hudi_status insert_bytes(hudi_pq_dict *d, const uint8_t *data, const int32_t *offsets, size_t n,
                                uint32_t *indices, hudi_error *err) {
  if (!d->slots) HUDI_TRY(grow(d, err));
  size_t w = (size_t)d->width;
  /* The previous value: sorted or constant columns (Hudi's commit time,
   * partition path and file name are one value per file) repeat it, and
   * then need no hash or probe. */
  const uint8_t *prev = NULL;
  size_t prev_len = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = w ? data + i * w : data + offsets[i];
    size_t len = w ? w : (size_t)(offsets[i + 1] - offsets[i]);
    if (prev && len == prev_len && same_bytes(p, prev, len)) {
      indices[i] = indices[i - 1];
      continue;
    }
    prev = p;
    prev_len = len;
    if (needs_growth(d)) HUDI_TRY(grow(d, err));
    uint64_t h = hash_of(p, len) & d->mask;
    for (;;) {
      uint32_t s = d->slots[h];
      if (!s) {
        HUDI_TRY(add(d, p, len, err));
        d->slots[h] = (uint32_t)d->n;
        indices[i] = (uint32_t)(d->n - 1);
        break;
      }
      size_t el;
      const uint8_t *e = entry(d, s - 1, &el);
      if (el == len && same_bytes(e, p, len)) {
        indices[i] = s - 1;
        break;
      }
      h = (h + 1) & d->mask;
    }
  }
  return HUDI_OK;
}
