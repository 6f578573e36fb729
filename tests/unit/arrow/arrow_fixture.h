/* Hand-built Arrow C Data structures for the arrow/ tests: schemas and
 * arrays laid out by hand from the specification, with release callbacks
 * that only record that they ran (the buffers live on the test's stack). */
#ifndef HUDI_TEST_ARROW_FIXTURE_H
#define HUDI_TEST_ARROW_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "hudi/arrow_abi.h"

static int g_released_schemas, g_released_arrays;

static void fx_release_schema(struct ArrowSchema *s) {
  g_released_schemas++;
  s->release = NULL;
}

static void fx_release_array(struct ArrowArray *a) {
  g_released_arrays++;
  a->release = NULL;
}

static inline struct ArrowSchema fx_schema(const char *format, const char *name) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  s.format = format;
  s.name = name;
  s.flags = ARROW_FLAG_NULLABLE;
  s.release = fx_release_schema;
  return s;
}

static inline void fx_schema_children(struct ArrowSchema *s, struct ArrowSchema **children, int64_t n) {
  s->children = children;
  s->n_children = n;
}

static inline struct ArrowArray fx_array(int64_t length, int64_t offset, int64_t null_count,
                                         int64_t n_buffers, const void **buffers) {
  struct ArrowArray a;
  memset(&a, 0, sizeof a);
  a.length = length;
  a.offset = offset;
  a.null_count = null_count;
  a.n_buffers = n_buffers;
  a.buffers = buffers;
  a.release = fx_release_array;
  return a;
}

static inline void fx_array_children(struct ArrowArray *a, struct ArrowArray **children, int64_t n) {
  a->children = children;
  a->n_children = n;
}

/* A 16-byte string view: inline when len <= 12, else (prefix, buffer, offset). */
static inline void fx_view(uint8_t out[16], const char *s, int32_t buf, int32_t off) {
  int32_t len = (int32_t)strlen(s);
  memset(out, 0, 16);
  memcpy(out, &len, 4);
  if (len <= 12) {
    memcpy(out + 4, s, (size_t)len);
  } else {
    memcpy(out + 4, s, 4);
    memcpy(out + 8, &buf, 4);
    memcpy(out + 12, &off, 4);
  }
}

#endif
