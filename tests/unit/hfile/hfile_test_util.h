/* Test helpers for the HFile tests: whole-file reads, a minimal zip reader
 * (stored and deflate entries, via zlib) so the tests can take metadata
 * table HFiles straight out of the fixture zips, and collectors. */
#ifndef HUDI_TEST_HFILE_UTIL_H
#define HUDI_TEST_HFILE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint8_t *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return p;
}

static uint32_t tu_le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t tu_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Calls fn for every zip entry whose name contains `needle` and ends with
 * `suffix`, with the inflated bytes. Returns the number of entries, or -1. */
typedef void (*tu_zip_fn)(void *ctx, const char *name, const uint8_t *data, size_t len);
static int tu_zip_each(const uint8_t *z, size_t zlen, const char *needle, const char *suffix, tu_zip_fn fn,
                       void *ctx) {
  if (zlen < 22) return -1;
  size_t eocd = zlen - 22;
  while (eocd > 0 && tu_le32(z + eocd) != 0x06054b50) eocd--;
  if (tu_le32(z + eocd) != 0x06054b50) return -1;
  size_t n = tu_le16(z + eocd + 10), pos = tu_le32(z + eocd + 16), count = 0;
  for (size_t i = 0; i < n; i++) {
    if (pos + 46 > zlen || tu_le32(z + pos) != 0x02014b50) return -1;
    uint16_t method = tu_le16(z + pos + 10);
    uint32_t csize = tu_le32(z + pos + 20), usize = tu_le32(z + pos + 24);
    uint16_t nl = tu_le16(z + pos + 28), xl = tu_le16(z + pos + 30), cl = tu_le16(z + pos + 32);
    uint32_t loc = tu_le32(z + pos + 42);
    char name[1024];
    size_t m = nl < sizeof name - 1 ? nl : sizeof name - 1;
    memcpy(name, z + pos + 46, m);
    name[m] = 0;
    pos += 46 + (size_t)nl + xl + cl;
    size_t sl = strlen(suffix);
    if (!strstr(name, needle) || strstr(name, "__MACOSX") || m < sl || strcmp(name + m - sl, suffix) != 0) continue;
    const uint8_t *data = z + loc + 30 + tu_le16(z + loc + 26) + tu_le16(z + loc + 28);
    uint8_t *out = malloc(usize ? usize : 1);
    if (method == 0) {
      memcpy(out, data, usize);
    } else {
      z_stream zs;
      memset(&zs, 0, sizeof zs);
      inflateInit2(&zs, -15);
      zs.next_in = (Bytef *)data;
      zs.avail_in = csize;
      zs.next_out = out;
      zs.avail_out = usize;
      int rc = inflate(&zs, Z_FINISH);
      inflateEnd(&zs);
      if (rc != Z_STREAM_END) {
        free(out);
        return -1;
      }
    }
    fn(ctx, name, out, usize);
    free(out);
    count++;
  }
  return (int)count;
}

/* Key-values gathered by a scan, copied. */
typedef struct tu_kvs {
  size_t n, cap;
  char **keys, **vals;
  size_t *klen, *vlen;
} tu_kvs;

static int tu_collect(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl) {
  tu_kvs *c = ctx;
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
    c->vals = realloc(c->vals, c->cap * sizeof *c->vals);
    c->klen = realloc(c->klen, c->cap * sizeof *c->klen);
    c->vlen = realloc(c->vlen, c->cap * sizeof *c->vlen);
  }
  c->keys[c->n] = malloc(kl + 1);
  memcpy(c->keys[c->n], k, kl);
  c->keys[c->n][kl] = 0;
  c->vals[c->n] = malloc(vl + 1);
  memcpy(c->vals[c->n], v, vl);
  c->vals[c->n][vl] = 0;
  c->klen[c->n] = kl;
  c->vlen[c->n] = vl;
  c->n++;
  return 0;
}

static void tu_kvs_free(tu_kvs *c) {
  for (size_t i = 0; i < c->n; i++) {
    free(c->keys[i]);
    free(c->vals[i]);
  }
  free(c->keys);
  free(c->vals);
  free(c->klen);
  free(c->vlen);
  memset(c, 0, sizeof *c);
}

/* Lookup results: value copies indexed by key position (NULL = absent). */
typedef struct tu_found {
  size_t n;
  char **vals;
  size_t *vlen;
  size_t hits;
} tu_found;

static void tu_found_init(tu_found *f, size_t n) {
  f->n = n;
  f->vals = calloc(n ? n : 1, sizeof *f->vals);
  f->vlen = calloc(n ? n : 1, sizeof *f->vlen);
  f->hits = 0;
}

static int tu_on_found(void *ctx, size_t i, const uint8_t *v, size_t vl) {
  tu_found *f = ctx;
  if (f->vals[i]) return 0; /* repeated lookup key: keep the first */
  f->vals[i] = malloc(vl + 1);
  memcpy(f->vals[i], v, vl);
  f->vals[i][vl] = 0;
  f->vlen[i] = vl;
  f->hits++;
  return 0;
}

static void tu_found_free(tu_found *f) {
  for (size_t i = 0; i < f->n; i++) free(f->vals[i]);
  free(f->vals);
  free(f->vlen);
}

#endif
