#include "avro/arena.h"

#include <string.h>

#include "base/alloc.h"

struct hudi_avro_chunk {
  hudi_avro_chunk *next;
  size_t size; /* usable bytes after the header */
  size_t pos;
  /* data follows, aligned by the union below */
};

typedef union {
  hudi_avro_chunk c;
  max_align_t align;
} chunk_header;

/* The first chunk is small: many trees are single records (a decoded
 * record-index entry needs a few hundred bytes, and a keyed commit holds
 * one per key: at 16 KiB each, 11k keys faulted in ~68 MB). Later chunks
 * double, so a big tree still takes few mallocs. */
#define CHUNK_FIRST ((size_t)1 << 10)
#define CHUNK_MAX_DOUBLE ((size_t)1 << 24) /* chunks grow to this, then stay */

void hudi_avro_arena_init(hudi_avro_arena *a, size_t max) {
  a->head = NULL;
  a->used = 0;
  a->max = max ? max : HUDI_AVRO_ARENA_DEFAULT_MAX;
}

void hudi_avro_arena_free(hudi_avro_arena *a) {
  hudi_avro_chunk *c = a->head;
  while (c) {
    hudi_avro_chunk *next = c->next;
    hudi_free(c);
    c = next;
  }
  a->head = NULL;
  a->used = 0;
}

static uint8_t *chunk_data(hudi_avro_chunk *c) { return (uint8_t *)c + sizeof(chunk_header); }

hudi_status hudi_avro_arena_alloc(hudi_avro_arena *a, size_t size, void **out, hudi_error *err) {
  size_t need = (size + 7) & ~(size_t)7;
  if (need < size || need > a->max || a->used > a->max - need)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Avro data needs more than the %zu-byte memory cap", a->max);
  hudi_avro_chunk *c = a->head;
  if (!c || c->size - c->pos < need) {
    /* Chunks double with use so big trees take few mallocs. */
    size_t csize = CHUNK_FIRST;
    if (a->head) csize = a->head->size < CHUNK_MAX_DOUBLE / 2 ? a->head->size * 2 : CHUNK_MAX_DOUBLE;
    if (csize < need) csize = need;
    c = hudi_malloc(sizeof(chunk_header) + csize);
    if (!c) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory allocating %zu bytes", csize);
    c->size = csize;
    c->pos = 0;
    c->next = a->head;
    a->head = c;
  }
  void *p = chunk_data(c) + c->pos;
  c->pos += need;
  a->used += need;
  memset(p, 0, size);
  *out = p;
  return HUDI_OK;
}

hudi_status hudi_avro_arena_array(hudi_avro_arena *a, size_t n, size_t size, void **out,
                                  hudi_error *err) {
  size_t total = hudi_mul_size(n, size);
  if (total == SIZE_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Avro array of %zu items of %zu bytes is too large", n, size);
  return hudi_avro_arena_alloc(a, total, out, err);
}

hudi_status hudi_avro_arena_strndup(hudi_avro_arena *a, const char *s, size_t n, char **out,
                                    hudi_error *err) {
  if (n == SIZE_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "string too large");
  void *p = NULL;
  HUDI_TRY(hudi_avro_arena_alloc(a, n + 1, &p, err));
  if (n) memcpy(p, s, n);
  ((char *)p)[n] = 0;
  *out = p;
  return HUDI_OK;
}
