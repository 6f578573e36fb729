/* An open-addressing hash map from byte-string keys (copied in) to a
 * pointer or 64-bit value, with a hard cap on entries. Not thread-safe;
 * iteration must not be mixed with insertion or removal. */
#ifndef HUDI_BASE_HASHMAP_H
#define HUDI_BASE_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef union hudi_hashmap_value {
  void *ptr;
  uint64_t u64;
} hudi_hashmap_value;

typedef struct hudi_hashmap_slot {
  uint8_t *key; /* NULL: empty; the map's tombstone marker: removed */
  size_t key_len;
  uint64_t hash;
  hudi_hashmap_value value;
} hudi_hashmap_slot;

typedef struct hudi_hashmap {
  hudi_hashmap_slot *slots;
  size_t cap;         /* number of slots: 0 or a power of two */
  size_t count;       /* live entries */
  size_t tombstones;  /* removed slots not yet reclaimed */
  size_t max_entries; /* hard cap on count */
} hudi_hashmap;

#define HUDI_HASHMAP_DEFAULT_MAX ((size_t)1 << 30)

/* max_entries 0 means HUDI_HASHMAP_DEFAULT_MAX. Allocates nothing. */
void hudi_hashmap_init(hudi_hashmap *m, size_t max_entries);
/* Frees the slots and the key copies; values are the caller's. */
void hudi_hashmap_free(hudi_hashmap *m);

/* Makes room for n entries in total without further allocation. */
HUDI_NODISCARD hudi_status hudi_hashmap_reserve(hudi_hashmap *m, size_t n, hudi_error *err);

/* Inserts or replaces. When the key was present, its value is replaced,
 * the old one written to *old (if not NULL) and *replaced set to 1 (if not
 * NULL); otherwise the key is copied and *replaced set to 0. Fails with
 * HUDI_ERR_LIMIT past max_entries and HUDI_ERR_NOMEM when an allocation
 * fails; the map is unchanged by a failed call. */
HUDI_NODISCARD hudi_status hudi_hashmap_put(hudi_hashmap *m, const void *key, size_t key_len,
                                            hudi_hashmap_value value, hudi_hashmap_value *old,
                                            int *replaced, hudi_error *err);

/* 1 and *out (if not NULL) when the key is present, else 0. */
int hudi_hashmap_get(const hudi_hashmap *m, const void *key, size_t key_len, hudi_hashmap_value *out);

/* Fetches the slot where a lookup of key starts into the cache: a caller
 * about to look up many keys in a map larger than the cache calls this a
 * few keys ahead, so that the lookups' cache misses overlap. */
void hudi_hashmap_prefetch(const hudi_hashmap *m, const void *key, size_t key_len);

/* Removes the key: 1 and its value in *old (if not NULL), or 0 when absent. */
int hudi_hashmap_remove(hudi_hashmap *m, const void *key, size_t key_len, hudi_hashmap_value *old);

/* Iteration in slot order: start with *pos = 0; each call that returns 1
 * yields one entry (the key stays owned by the map). */
int hudi_hashmap_next(const hudi_hashmap *m, size_t *pos, const uint8_t **key, size_t *key_len,
                      hudi_hashmap_value *value);

#endif
