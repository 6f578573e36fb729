/* Internal allocation entry points; every allocation in libhudi uses them. */
#ifndef HUDI_BASE_ALLOC_H
#define HUDI_BASE_ALLOC_H

#include <stddef.h>

#include "hudi/alloc.h"

void *hudi_malloc(size_t size);
void *hudi_calloc(size_t n, size_t size);
void *hudi_realloc(void *ptr, size_t size);
void hudi_free(void *ptr);
char *hudi_strdup(const char *s);
char *hudi_strndup(const char *s, size_t n);

/* n * size, or SIZE_MAX when it would overflow (so the allocation fails). */
size_t hudi_mul_size(size_t n, size_t size);

#endif
