/* Test support: loads the Arrow batches tests/parquet/write_cases.py
 * exported from pyarrow through the C data interface (format "HCAB": the
 * schema tree, then every batch's buffers byte for byte, with pyarrow's
 * offsets, null counts, dictionaries and view buffers) and rebuilds them as
 * ArrowSchema/ArrowArray structs with release callbacks. Static functions:
 * include from one test source. */
#ifndef HUDI_TEST_WRITER_LOAD_H
#define HUDI_TEST_WRITER_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hudi/arrow_abi.h"

typedef struct hcab_reader {
  const uint8_t *p;
  size_t len, pos;
  int bad;
} hcab_reader;

static int64_t hcab_i64(hcab_reader *r) {
  int64_t v = 0;
  if (r->pos + 8 > r->len) { r->bad = 1; return 0; }
  memcpy(&v, r->p + r->pos, 8);
  r->pos += 8;
  return v;
}

static int32_t hcab_i32(hcab_reader *r) {
  int32_t v = 0;
  if (r->pos + 4 > r->len) { r->bad = 1; return 0; }
  memcpy(&v, r->p + r->pos, 4);
  r->pos += 4;
  return v;
}

static uint8_t hcab_u8(hcab_reader *r) {
  if (r->pos + 1 > r->len) { r->bad = 1; return 0; }
  return r->p[r->pos++];
}

/* A malloc'd copy of n bytes (+1 NUL); NULL for n < 0. */
static char *hcab_bytes(hcab_reader *r, int64_t n) {
  if (n < 0) return NULL;
  if ((size_t)n > r->len - r->pos) { r->bad = 1; return NULL; }
  char *s = malloc((size_t)n + 1);
  memcpy(s, r->p + r->pos, (size_t)n);
  s[n] = 0;
  r->pos += (size_t)n;
  return s;
}

static void hcab_release_schema(struct ArrowSchema *s) {
  free((void *)s->format);
  free((void *)s->name);
  free((void *)s->metadata);
  for (int64_t i = 0; i < s->n_children; i++) {
    s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  if (s->dictionary) {
    s->dictionary->release(s->dictionary);
    free(s->dictionary);
  }
  s->release = NULL;
}

static void hcab_schema(hcab_reader *r, struct ArrowSchema *s) {
  memset(s, 0, sizeof *s);
  s->format = hcab_bytes(r, hcab_i32(r));
  s->name = hcab_bytes(r, hcab_i32(r));
  s->metadata = hcab_bytes(r, hcab_i32(r));
  s->flags = hcab_i64(r);
  s->n_children = hcab_i64(r);
  if (r->bad || s->n_children < 0 || s->n_children > 10000) { r->bad = 1; s->n_children = 0; }
  s->children = calloc((size_t)s->n_children + 1, sizeof *s->children);
  for (int64_t i = 0; i < s->n_children; i++) {
    s->children[i] = calloc(1, sizeof(struct ArrowSchema));
    hcab_schema(r, s->children[i]);
  }
  if (hcab_u8(r)) {
    s->dictionary = calloc(1, sizeof(struct ArrowSchema));
    hcab_schema(r, s->dictionary);
  }
  s->release = hcab_release_schema;
}

static void hcab_release_array(struct ArrowArray *a) {
  for (int64_t i = 0; i < a->n_buffers; i++) free((void *)a->buffers[i]);
  free(a->buffers);
  for (int64_t i = 0; i < a->n_children; i++) {
    a->children[i]->release(a->children[i]);
    free(a->children[i]);
  }
  free(a->children);
  if (a->dictionary) {
    a->dictionary->release(a->dictionary);
    free(a->dictionary);
  }
  a->release = NULL;
}

static void hcab_array(hcab_reader *r, struct ArrowArray *a) {
  memset(a, 0, sizeof *a);
  a->length = hcab_i64(r);
  a->null_count = hcab_i64(r);
  a->offset = hcab_i64(r);
  a->n_buffers = hcab_i64(r);
  if (r->bad || a->n_buffers < 0 || a->n_buffers > 1000) { r->bad = 1; a->n_buffers = 0; }
  a->buffers = calloc((size_t)a->n_buffers + 1, sizeof *a->buffers);
  for (int64_t i = 0; i < a->n_buffers; i++) a->buffers[i] = hcab_bytes(r, hcab_i64(r));
  a->n_children = hcab_i64(r);
  if (r->bad || a->n_children < 0 || a->n_children > 10000) { r->bad = 1; a->n_children = 0; }
  a->children = calloc((size_t)a->n_children + 1, sizeof *a->children);
  for (int64_t i = 0; i < a->n_children; i++) {
    a->children[i] = calloc(1, sizeof(struct ArrowArray));
    hcab_array(r, a->children[i]);
  }
  if (hcab_u8(r)) {
    a->dictionary = calloc(1, sizeof(struct ArrowArray));
    hcab_array(r, a->dictionary);
  }
  a->release = hcab_release_array;
}

/* Loads a whole file; *batches is malloc'd (release each, then free). */
static int hcab_load(const uint8_t *data, size_t len, struct ArrowSchema *schema, struct ArrowArray **batches,
                     int64_t *n) {
  hcab_reader r = {data, len, 0, 0};
  if (len < 4 || memcmp(data, "HCAB", 4) != 0) return -1;
  r.pos = 4;
  hcab_schema(&r, schema);
  *n = hcab_i64(&r);
  if (r.bad || *n < 0 || *n > 100000) return -1;
  *batches = calloc((size_t)*n + 1, sizeof **batches);
  for (int64_t i = 0; i < *n; i++) hcab_array(&r, &(*batches)[i]);
  return r.bad || r.pos != len ? -1 : 0;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  if (n < 0 || fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    fclose(f);
    return NULL;
  }
  p[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return p;
}

#endif
