/* Parquet write benchmark (not run by ctest; see parquet_write_bench.sh).
 *
 *   parquet_write_bench rag  N OUT_DIR   N rag-chunk rows: chunk_id, doc_id (string), pos (int32),
 *                                        text (~500 chars), embedding (list<float32> x 384), updated_at (int64)
 *   parquet_write_bench uuid N OUT_DIR   N rows: 36-char UUID string + int32, int64, double, bool, timestamp[us]
 *
 * Builds the batch in memory (one struct array, like a pyarrow Table with
 * one chunk), then times hudi-c writing it with pyarrow.parquet.write_table's
 * defaults (snappy, dictionary, 1 MiB pages, 1Mi-row row groups). Prints
 * JSON: write seconds (wall and process CPU), RSS before the write and
 * peak RSS. The same shapes
 * are written by pyarrow in parquet_write_bench.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "io/storage.h"
#include "parquet/writer.h"

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long v = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) v = atol(line + 6);
  if (f) fclose(f);
  return v;
}

static void release_array(struct ArrowArray *a) {
  for (int64_t i = 0; i < a->n_buffers; i++) free((void *)a->buffers[i]);
  free(a->buffers);
  for (int64_t i = 0; i < a->n_children; i++) {
    a->children[i]->release(a->children[i]);
    free(a->children[i]);
  }
  free(a->children);
  a->release = NULL;
}

static void release_schema(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) {
    s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(s->children);
  s->release = NULL;
}

static struct ArrowArray *arr(int64_t len, int nbuf, int nchild) {
  struct ArrowArray *a = calloc(1, sizeof *a);
  a->length = len;
  a->n_buffers = nbuf;
  a->buffers = calloc((size_t)nbuf, sizeof(void *));
  a->n_children = nchild;
  a->children = nchild ? calloc((size_t)nchild, sizeof(void *)) : NULL;
  a->release = release_array;
  return a;
}

static struct ArrowSchema *sch(const char *fmt, const char *name, int nchild) {
  struct ArrowSchema *s = calloc(1, sizeof *s);
  s->format = fmt;
  s->name = name;
  s->flags = ARROW_FLAG_NULLABLE;
  s->n_children = nchild;
  s->children = nchild ? calloc((size_t)nchild, sizeof(void *)) : NULL;
  s->release = release_schema;
  return s;
}

/* A string column from a generator writing into buf (returns length). */
typedef size_t (*gen_fn)(char *buf, int64_t row);

static struct ArrowArray *strings(int64_t n, size_t avg, gen_fn g) {
  struct ArrowArray *a = arr(n, 3, 0);
  int32_t *off = malloc(sizeof(int32_t) * (size_t)(n + 1));
  size_t cap = (size_t)n * avg + 1024, len = 0;
  char *data = malloc(cap);
  off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    if (len + 4096 > cap) data = realloc(data, cap *= 2);
    len += g(data + len, i);
    off[i + 1] = (int32_t)len;
  }
  a->buffers[1] = off;
  a->buffers[2] = data;
  return a;
}

static const char *words[] = {"the", "hudi", "table", "stores", "records", "in", "parquet", "files", "and", "logs",
                              "with", "a", "timeline", "of", "commits", "that", "readers", "use", "to", "see",
                              "consistent", "snapshots", "while", "writers", "upsert", "data", "into", "groups"};

static size_t g_chunk(char *b, int64_t i) { return (size_t)sprintf(b, "doc%lld-chunk%lld", (long long)(i / 8), (long long)(i % 8)); }
static size_t g_doc(char *b, int64_t i) { return (size_t)sprintf(b, "doc%lld", (long long)(i / 8)); }
static size_t g_text(char *b, int64_t i) {
  (void)i;
  size_t n = 0;
  size_t target = 450 + rnd() % 100;
  while (n < target) {
    const char *w = words[rnd() % (sizeof words / sizeof words[0])];
    size_t l = strlen(w);
    memcpy(b + n, w, l);
    n += l;
    b[n++] = ' ';
  }
  return n;
}
static size_t g_uuid(char *b, int64_t i) {
  (void)i;
  uint64_t x = rnd(), y = rnd();
  return (size_t)sprintf(b, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(x >> 32), (unsigned)(x >> 16) & 0xffff,
                         (unsigned)x & 0xfff, (unsigned)(0x8000 | ((y >> 48) & 0x3fff)),
                         (unsigned long long)(y & 0xffffffffffffull));
}

static struct ArrowArray *fixed(int64_t n, size_t w, int kind) {
  struct ArrowArray *a = arr(n, 2, 0);
  uint8_t *v = malloc((size_t)n * w + 1);
  for (int64_t i = 0; i < n; i++) {
    switch (kind) {
      case 0: { int32_t x = (int32_t)(i % 64); memcpy(v + 4 * i, &x, 4); break; }
      case 1: { int64_t x = 1700000000000000ll + (int64_t)(rnd() % 100000000000ull); memcpy(v + 8 * i, &x, 8); break; }
      case 2: { double x = (double)(rnd() % 1000000) / 100.0; memcpy(v + 8 * i, &x, 8); break; }
      case 3: { int32_t x = (int32_t)(rnd() % 1000); memcpy(v + 4 * i, &x, 4); break; }
      default: break;
    }
  }
  a->buffers[1] = v;
  return a;
}

static struct ArrowArray *bools(int64_t n) {
  struct ArrowArray *a = arr(n, 2, 0);
  uint8_t *v = calloc((size_t)(n + 7) / 8 + 1, 1);
  for (int64_t i = 0; i < n; i++)
    if (rnd() & 1) v[i >> 3] |= (uint8_t)(1 << (i & 7));
  a->buffers[1] = v;
  return a;
}

/* list<float32> of dim values per row, normal-ish random. */
static struct ArrowArray *embeddings(int64_t n, int dim) {
  struct ArrowArray *l = arr(n, 2, 1);
  int32_t *off = malloc(sizeof(int32_t) * (size_t)(n + 1));
  for (int64_t i = 0; i <= n; i++) off[i] = (int32_t)(i * dim);
  l->buffers[1] = off;
  struct ArrowArray *v = arr(n * dim, 2, 0);
  float *f = malloc(sizeof(float) * (size_t)(n * dim));
  for (int64_t i = 0; i < n * dim; i++) {
    uint64_t x = rnd();
    /* full-entropy floats in (-2, 2), like pyarrow's standard_normal: no dictionary fits */
    f[i] = ((float)(int32_t)(uint32_t)x + (float)(int32_t)(uint32_t)(x >> 32)) / 2147483648.0f;
  }
  v->buffers[1] = f;
  l->children[0] = v;
  return l;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s rag|uuid N OUT_DIR\n", argv[0]);
    return 2;
  }
  bool rag = strcmp(argv[1], "rag") == 0;
  int64_t n = atoll(argv[2]);
  double t0 = now();
  struct ArrowSchema *root;
  struct ArrowArray *batch;
  if (rag) {
    root = sch("+s", "", 6);
    root->flags = 0;
    root->children[0] = sch("u", "chunk_id", 0);
    root->children[1] = sch("u", "doc_id", 0);
    root->children[2] = sch("i", "pos", 0);
    root->children[3] = sch("u", "text", 0);
    root->children[4] = sch("+l", "embedding", 1);
    root->children[4]->children[0] = sch("f", "item", 0);
    root->children[5] = sch("l", "updated_at", 0);
    batch = arr(n, 1, 6);
    batch->children[0] = strings(n, 16, g_chunk);
    batch->children[1] = strings(n, 8, g_doc);
    batch->children[2] = fixed(n, 4, 0);
    batch->children[3] = strings(n, 520, g_text);
    batch->children[4] = embeddings(n, 384);
    batch->children[5] = fixed(n, 8, 1);
  } else {
    root = sch("+s", "", 6);
    root->flags = 0;
    root->children[0] = sch("u", "uuid", 0);
    root->children[1] = sch("i", "a_int", 0);
    root->children[2] = sch("l", "b_long", 0);
    root->children[3] = sch("g", "c_double", 0);
    root->children[4] = sch("b", "d_bool", 0);
    root->children[5] = sch("tsu:UTC", "e_ts", 0);
    batch = arr(n, 1, 6);
    batch->children[0] = strings(n, 36, g_uuid);
    batch->children[1] = fixed(n, 4, 3);
    batch->children[2] = fixed(n, 8, 1);
    batch->children[3] = fixed(n, 8, 2);
    batch->children[4] = bools(n);
    batch->children[5] = fixed(n, 8, 1);
  }
  double t1 = now();
  long rss_before = rss_kb();
  struct rusage ru0;
  getrusage(RUSAGE_SELF, &ru0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *st;
  hudi_storage_option so[] = {{"fsync", "false"}};
  if (hudi_storage_open(&st, argv[3], so, 1, &err) != HUDI_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  hudi_pq_writer *w;
  char name[64];
  snprintf(name, sizeof name, "hudi_c_%s.parquet", argv[1]);
  hudi_pq_write_summary s;
  if (hudi_pq_writer_open_storage(&w, root, &o, st, name, &err) != HUDI_OK ||
      hudi_pq_writer_write_batch(w, batch, HUDI_PQ_WRITE_LAST, &err) != HUDI_OK ||
      hudi_pq_writer_close(w, &s, &err) != HUDI_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  double t2 = now();
  hudi_pq_writer_free(w);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double cpu = (double)(ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec) * 1e-6;
  printf("{\"writer\": \"hudi-c\", \"case\": \"%s\", \"rows\": %lld, \"gen_s\": %.3f, \"write_s\": %.3f, "
         "\"write_cpu_s\": %.3f, \"rss_before_mb\": %.1f, \"peak_rss_mb\": %.1f, \"file_mb\": %.1f}\n",
         argv[1], (long long)n, t1 - t0, t2 - t1, cpu, rss_before / 1024.0, ru.ru_maxrss / 1024.0,
         (double)s.file_size / 1048576.0);
  hudi_pq_write_summary_free(&s);
  hudi_storage_free(st);
  batch->release(batch);
  free(batch);
  root->release(root);
  free(root);
  return 0;
}
