/* A bump allocator for the many small, same-lifetime pieces of an Avro
 * schema or decoded value tree: one free releases them all, and a hard cap
 * bounds what hostile input can make us allocate. Chunks come from
 * hudi_malloc so allocation-failure injection reaches them. */
#ifndef HUDI_AVRO_ARENA_H
#define HUDI_AVRO_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct hudi_avro_chunk hudi_avro_chunk;

typedef struct hudi_avro_arena {
  hudi_avro_chunk *head;
  size_t used; /* bytes handed out, all chunks */
  size_t max;  /* hard cap on used */
} hudi_avro_arena;

#define HUDI_AVRO_ARENA_DEFAULT_MAX ((size_t)256 << 20)

void hudi_avro_arena_init(hudi_avro_arena *a, size_t max);
void hudi_avro_arena_free(hudi_avro_arena *a);

/* Zeroed, 8-byte aligned memory owned by the arena. */
HUDI_NODISCARD hudi_status hudi_avro_arena_alloc(hudi_avro_arena *a, size_t size, void **out,
                                                 hudi_error *err);
/* n * size bytes, zeroed; fails cleanly on overflow. */
HUDI_NODISCARD hudi_status hudi_avro_arena_array(hudi_avro_arena *a, size_t n, size_t size,
                                                 void **out, hudi_error *err);
/* A NUL-terminated copy of n bytes. */
HUDI_NODISCARD hudi_status hudi_avro_arena_strndup(hudi_avro_arena *a, const char *s, size_t n,
                                                   char **out, hudi_error *err);

#endif
