#include "base/hashmap.h"

#include <string.h>
#include <xxhash.h>

#include "base/alloc.h"

/* A removed slot's key points here, so probes continue past it. */
static uint8_t g_tombstone;
#define TOMBSTONE (&g_tombstone)

#define MIN_CAP 16

static uint64_t hash_key(const void *key, size_t len) { return (uint64_t)XXH3_64bits(key, len); }

void hudi_hashmap_init(hudi_hashmap *m, size_t max_entries) {
  memset(m, 0, sizeof *m);
  m->max_entries = max_entries ? max_entries : HUDI_HASHMAP_DEFAULT_MAX;
}

void hudi_hashmap_free(hudi_hashmap *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].key && m->slots[i].key != TOMBSTONE) hudi_free(m->slots[i].key);
  hudi_free(m->slots);
  size_t max = m->max_entries;
  hudi_hashmap_init(m, max);
}

static int slot_matches(const hudi_hashmap_slot *s, uint64_t h, const void *key, size_t len) {
  return s->key != TOMBSTONE && s->hash == h && s->key_len == len &&
         (len == 0 || memcmp(s->key, key, len) == 0);
}

/* The slot holding key, or SIZE_MAX. */
static size_t find(const hudi_hashmap *m, uint64_t h, const void *key, size_t len) {
  if (m->cap == 0) return SIZE_MAX;
  size_t mask = m->cap - 1;
  for (size_t i = (size_t)h & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
    const hudi_hashmap_slot *s = &m->slots[i];
    if (!s->key) return SIZE_MAX;
    if (slot_matches(s, h, key, len)) return i;
  }
  return SIZE_MAX;
}

void hudi_hashmap_prefetch(const hudi_hashmap *m, const void *key, size_t key_len) {
  if (m->cap) __builtin_prefetch(&m->slots[(size_t)hash_key(key, key_len) & (m->cap - 1)]);
}

/* Rebuilds the table with new_cap slots, dropping tombstones. */
static hudi_status rehash(hudi_hashmap *m, size_t new_cap, hudi_error *err) {
  hudi_hashmap_slot *slots = hudi_calloc(new_cap, sizeof *slots);
  if (!slots)
    return hudi_err_set(err, HUDI_ERR_NOMEM, "hash map: cannot allocate %zu slots", new_cap);
  size_t mask = new_cap - 1;
  for (size_t i = 0; i < m->cap; i++) {
    hudi_hashmap_slot *s = &m->slots[i];
    if (!s->key || s->key == TOMBSTONE) continue;
    size_t j = (size_t)s->hash & mask;
    while (slots[j].key) j = (j + 1) & mask;
    slots[j] = *s;
  }
  hudi_free(m->slots);
  m->slots = slots;
  m->cap = new_cap;
  m->tombstones = 0;
  return HUDI_OK;
}

/* Slots needed so n entries keep the load at or under 3/4; 0 on overflow. */
static size_t cap_for(size_t n) {
  size_t cap = MIN_CAP;
  while (cap - cap / 4 < n) {
    if (cap > SIZE_MAX / 2 / sizeof(hudi_hashmap_slot)) return 0;
    cap *= 2;
  }
  return cap;
}

hudi_status hudi_hashmap_reserve(hudi_hashmap *m, size_t n, hudi_error *err) {
  if (n > m->max_entries)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "hash map: %zu entries exceed the cap of %zu", n, m->max_entries);
  size_t cap = cap_for(n);
  if (cap == 0) return hudi_err_set(err, HUDI_ERR_LIMIT, "hash map: %zu entries are too many", n);
  return cap > m->cap ? rehash(m, cap, err) : HUDI_OK;
}

/* Ensures one more entry fits with live entries and tombstones at or under
 * 3/4 of the slots, so every probe meets an empty slot. */
static hudi_status make_room(hudi_hashmap *m, hudi_error *err) {
  size_t used = m->count + m->tombstones + 1;
  if (m->cap && used <= m->cap - m->cap / 4) return HUDI_OK;
  size_t cap = cap_for(m->count + 1);
  if (cap == 0) return hudi_err_set(err, HUDI_ERR_LIMIT, "hash map: too many entries");
  /* Mostly tombstones: rebuild at the same size; else grow. */
  if (cap < m->cap) cap = m->cap;
  if (cap == m->cap && m->count + 1 > cap / 2) cap *= 2;
  return rehash(m, cap, err);
}

hudi_status hudi_hashmap_put(hudi_hashmap *m, const void *key, size_t key_len, hudi_hashmap_value value,
                             hudi_hashmap_value *old, int *replaced, hudi_error *err) {
  uint64_t h = hash_key(key, key_len);
  size_t at = find(m, h, key, key_len);
  if (at != SIZE_MAX) {
    if (old) *old = m->slots[at].value;
    m->slots[at].value = value;
    if (replaced) *replaced = 1;
    return HUDI_OK;
  }
  if (m->count >= m->max_entries)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "hash map: more than the cap of %zu entries", m->max_entries);
  HUDI_TRY(make_room(m, err));
  uint8_t *copy = hudi_malloc(key_len);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "hash map: cannot copy a %zu-byte key", key_len);
  if (key_len) memcpy(copy, key, key_len);
  size_t mask = m->cap - 1, i = (size_t)h & mask;
  /* The first tombstone or empty slot on the probe path. */
  while (m->slots[i].key && m->slots[i].key != TOMBSTONE) i = (i + 1) & mask;
  if (m->slots[i].key == TOMBSTONE) m->tombstones--;
  m->slots[i] = (hudi_hashmap_slot){copy, key_len, h, value};
  m->count++;
  if (replaced) *replaced = 0;
  return HUDI_OK;
}

int hudi_hashmap_get(const hudi_hashmap *m, const void *key, size_t key_len, hudi_hashmap_value *out) {
  size_t at = find(m, hash_key(key, key_len), key, key_len);
  if (at == SIZE_MAX) return 0;
  if (out) *out = m->slots[at].value;
  return 1;
}

int hudi_hashmap_remove(hudi_hashmap *m, const void *key, size_t key_len, hudi_hashmap_value *old) {
  size_t at = find(m, hash_key(key, key_len), key, key_len);
  if (at == SIZE_MAX) return 0;
  hudi_hashmap_slot *s = &m->slots[at];
  if (old) *old = s->value;
  hudi_free(s->key);
  /* A slot followed by an empty one ends every probe through it, so it can
   * become empty itself; otherwise leave a tombstone. */
  if (!m->slots[(at + 1) & (m->cap - 1)].key) {
    *s = (hudi_hashmap_slot){0};
  } else {
    *s = (hudi_hashmap_slot){TOMBSTONE, 0, 0, {0}};
    m->tombstones++;
  }
  m->count--;
  return 1;
}

int hudi_hashmap_next(const hudi_hashmap *m, size_t *pos, const uint8_t **key, size_t *key_len,
                      hudi_hashmap_value *value) {
  for (size_t i = *pos; i < m->cap; i++) {
    const hudi_hashmap_slot *s = &m->slots[i];
    if (!s->key || s->key == TOMBSTONE) continue;
    if (key) *key = s->key;
    if (key_len) *key_len = s->key_len;
    if (value) *value = s->value;
    *pos = i + 1;
    return 1;
  }
  *pos = m->cap;
  return 0;
}
