/* hudi-c: the allocator hook. All of libhudi's own allocations go through
 * it (Arrow buffers it exports too; their release callbacks free them with
 * the same hook). Set it once, before any other call. */
#ifndef HUDI_ALLOC_H
#define HUDI_ALLOC_H

#include "hudi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hudi_allocator {
  void *(*malloc_fn)(size_t size, void *ctx);
  void *(*realloc_fn)(void *ptr, size_t size, void *ctx);
  void (*free_fn)(void *ptr, void *ctx);
  void *ctx;
} hudi_allocator;

/* Installs an allocator; NULL restores the C library's. Not thread-safe
 * against concurrent library calls. */
HUDI_EXTERN void hudi_set_allocator(const hudi_allocator *allocator);

/* Test hook: the next n allocations succeed, every later one fails, until
 * called again with n < 0 (which disables failure injection). Returns the
 * number of allocations made since the last call. */
HUDI_EXTERN long hudi_alloc_fail_after(long n);

#ifdef __cplusplus
}
#endif

#endif
