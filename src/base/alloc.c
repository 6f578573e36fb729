#include "base/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *libc_malloc(size_t size, void *ctx) { (void)ctx; return malloc(size); }
static void *libc_realloc(void *p, size_t size, void *ctx) { (void)ctx; return realloc(p, size); }
static void libc_free(void *p, void *ctx) { (void)ctx; free(p); }

static hudi_allocator g_alloc = {libc_malloc, libc_realloc, libc_free, NULL};

/* Failure injection: remaining successful allocations, or -1 for no limit.
 * Atomic because the thread pool allocates from several threads. */
static atomic_long g_fail_budget = -1;
static atomic_long g_count = 0;

void hudi_set_allocator(const hudi_allocator *a) {
  if (a && a->malloc_fn && a->realloc_fn && a->free_fn)
    g_alloc = *a;
  else
    g_alloc = (hudi_allocator){libc_malloc, libc_realloc, libc_free, NULL};
}

long hudi_alloc_fail_after(long n) {
  long made = atomic_exchange(&g_count, 0);
  atomic_store(&g_fail_budget, n < 0 ? -1 : n);
  return made;
}

/* True when this allocation must fail because the test budget is spent. */
static int injected_failure(void) {
  atomic_fetch_add(&g_count, 1);
  long budget = atomic_load(&g_fail_budget);
  while (budget >= 0) {
    if (budget == 0) return 1;
    if (atomic_compare_exchange_weak(&g_fail_budget, &budget, budget - 1)) return 0;
  }
  return 0;
}

size_t hudi_mul_size(size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return SIZE_MAX;
  return n * size;
}

void *hudi_malloc(size_t size) {
  if (size == SIZE_MAX || injected_failure()) return NULL;
  return g_alloc.malloc_fn(size ? size : 1, g_alloc.ctx);
}

void *hudi_calloc(size_t n, size_t size) {
  size_t total = hudi_mul_size(n, size);
  void *p = hudi_malloc(total);
  if (p) memset(p, 0, total ? total : 1);
  return p;
}

void *hudi_realloc(void *ptr, size_t size) {
  if (size == SIZE_MAX || injected_failure()) return NULL;
  return g_alloc.realloc_fn(ptr, size ? size : 1, g_alloc.ctx);
}

void hudi_free(void *ptr) {
  if (ptr) g_alloc.free_fn(ptr, g_alloc.ctx);
}

char *hudi_strndup(const char *s, size_t n) {
  char *d = hudi_malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *hudi_strdup(const char *s) { return hudi_strndup(s, strlen(s)); }
