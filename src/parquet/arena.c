/* A bump allocator for decoded metadata: one free releases a footer's
 * thousands of small strings and arrays, and max bounds what a hostile
 * footer can make us allocate. */
#include <string.h>

#include "base/alloc.h"
#include "parquet/metadata.h"

struct hudi_pq_arena_block {
  hudi_pq_arena_block *next;
  size_t size;
  /* data follows, 16-byte aligned by the allocation */
};

#define BLOCK_HEADER ((sizeof(hudi_pq_arena_block) + 15) & ~(size_t)15)
#define MIN_BLOCK 4096

void hudi_pq_arena_init(hudi_pq_arena *a, size_t max) {
  a->head = NULL;
  a->used = a->size = 0;
  a->total = 0;
  a->max = max ? max : HUDI_PQ_ARENA_DEFAULT_MAX;
}

void hudi_pq_arena_free(hudi_pq_arena *a) {
  hudi_pq_arena_block *b = a->head;
  while (b) {
    hudi_pq_arena_block *next = b->next;
    hudi_free(b);
    b = next;
  }
  a->head = NULL;
  a->used = a->size = a->total = 0;
}

void *hudi_pq_arena_alloc(hudi_pq_arena *a, size_t size) {
  size_t need = (size + 7) & ~(size_t)7;
  if (need < size || need > a->max - a->total) return NULL;
  if (!a->head || a->size - a->used < need) {
    size_t block = a->size ? a->size * 2 : MIN_BLOCK;
    if (block < need) block = need;
    if (block > ((size_t)1 << 24) && block > need) block = need > ((size_t)1 << 24) ? need : ((size_t)1 << 24);
    hudi_pq_arena_block *b = hudi_malloc(BLOCK_HEADER + block);
    if (!b) return NULL;
    b->next = a->head;
    b->size = block;
    a->head = b;
    a->size = block;
    a->used = 0;
  }
  uint8_t *p = (uint8_t *)a->head + BLOCK_HEADER + a->used;
  a->used += need;
  a->total += need;
  memset(p, 0, size);
  return p;
}
