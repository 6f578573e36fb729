/* Coalesced block reads of a batched HFile lookup (issue 10): over a
 * source that records every ranged read, a lookup with merging on must
 * answer exactly what the model file holds and what the same lookup with
 * merging off answers, cover every byte range the unmerged lookup read,
 * and do it in fewer reads: with gap 0 the same bytes (adjacent blocks
 * only), with a gap at most one gap of extra bytes per unmerged read and no
 * read above the cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "hfile/hfile.h"

#define N_KEYS 20000

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Key i: ascending in i (8 hex digits of i first); i with suffix 'g' is absent. */
static void model_key(char *out, size_t i) {
  uint64_t a = mix(i), b = mix(i ^ 0xabcdef);
  snprintf(out, 40, "%08zx-%04x-%04x-%04x-%012llx", i, (unsigned)(a & 0xffff), (unsigned)((a >> 16) & 0xffff),
           (unsigned)((a >> 32) & 0xffff), (unsigned long long)(b & 0xffffffffffffull));
}

static size_t model_value(char *out, size_t i) {
  int n = snprintf(out, 128, "v%zu:", i);
  size_t len = (size_t)n + (size_t)(mix(i * 7) % 60);
  for (size_t j = (size_t)n; j < len; j++) out[j] = (char)('a' + (i + j) % 26);
  return len;
}

/* 2 KiB GZ data blocks and 512-byte index blocks: a three-level index. */
static uint8_t *file_bytes;
static size_t file_len;

static int setup(void **state) {
  (void)state;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = 2048;
  o.index_block_size = 512;
  o.compression = HUDI_HFILE_GZ;
  o.create_time_ms = 1772922372542;
  hudi_hfile_writer *w = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_hfile_writer_create(&w, &o, &err) != HUDI_OK) return -1;
  char k[40], v[128];
  for (size_t i = 0; i < N_KEYS; i++) {
    model_key(k, i);
    size_t vl = model_value(v, i);
    if (hudi_hfile_writer_append(w, (const uint8_t *)k, strlen(k), (const uint8_t *)v, vl, &err) != HUDI_OK) return -1;
  }
  hudi_status st = hudi_hfile_writer_finish(w, &file_bytes, &file_len, &err);
  hudi_hfile_writer_free(w);
  return st == HUDI_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  hudi_free(file_bytes);
  return 0;
}

/* ---- a recording source ------------------------------------------------ */

typedef struct range {
  uint64_t off, len;
} range;

typedef struct rec_src {
  range *r;
  size_t n, cap;
  bool recording;
} rec_src;

static int rec_read(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  rec_src *s = ctx;
  if (off > file_len || len > file_len - off) return -1;
  memcpy(dst, file_bytes + off, len);
  if (!s->recording) return 0;
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->r = realloc(s->r, s->cap * sizeof *s->r);
    assert_non_null(s->r);
  }
  s->r[s->n++] = (range){off, len};
  return 0;
}

/* ---- lookups ------------------------------------------------------------- */

typedef struct result {
  size_t n;
  size_t *key_index;
  char **value;
  size_t *value_len;
} result;

static int on_found(void *ctx, size_t key_index, const uint8_t *value, size_t value_len) {
  result *res = ctx;
  res->key_index[res->n] = key_index;
  res->value[res->n] = malloc(value_len ? value_len : 1);
  memcpy(res->value[res->n], value, value_len);
  res->value_len[res->n++] = value_len;
  return 0;
}

static void result_free(result *res) {
  for (size_t i = 0; i < res->n; i++) free(res->value[i]);
  free(res->key_index);
  free(res->value);
  free(res->value_len);
}

/* The queries: clusters of consecutive keys (their blocks adjacent),
 * scattered single keys, absent keys between present ones, a repeat. */
typedef struct query {
  char text[48];
  long model; /* index of the model key, -1 when absent */
} query;

static size_t make_queries(query *q) {
  size_t n = 0;
  for (size_t c = 0; c < 6; c++) /* clusters of 300 consecutive keys */
    for (size_t i = 0; i < 300; i++) {
      size_t k = 1000 + c * 3000 + i;
      model_key(q[n].text, k);
      q[n++].model = (long)k;
    }
  for (size_t k = 5; k < N_KEYS; k += 997) { /* scattered */
    model_key(q[n].text, k);
    q[n++].model = (long)k;
    model_key(q[n].text, k + 1);
    strcat(q[n].text, "g"); /* absent, just after key k+1 */
    q[n++].model = -1;
  }
  model_key(q[n].text, N_KEYS - 1); /* the last key, twice */
  q[n++].model = N_KEYS - 1;
  model_key(q[n].text, N_KEYS - 1);
  q[n++].model = N_KEYS - 1;
  return n;
}

static int query_cmp(const void *a, const void *b) { return strcmp(((const query *)a)->text, ((const query *)b)->text); }

typedef struct run {
  result res;
  rec_src src;
} run;

/* One lookup of q through a fresh reader with the given merging
 * (max == UINT64_MAX: the reader's default); the open's reads are not recorded. */
static void lookup(run *out, const query *q, size_t n, uint64_t gap, uint64_t max) {
  memset(out, 0, sizeof *out);
  hudi_hfile_source src = {rec_read, &out->src, file_len, "model.hfile"};
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open(&r, &src, &err), HUDI_OK);
  if (max != UINT64_MAX) hudi_hfile_reader_set_coalesce(r, gap, max);
  hudi_hfile_key *keys = calloc(n, sizeof *keys);
  for (size_t i = 0; i < n; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)q[i].text, strlen(q[i].text)};
  out->res.key_index = calloc(n, sizeof(size_t));
  out->res.value = calloc(n, sizeof(char *));
  out->res.value_len = calloc(n, sizeof(size_t));
  out->src.recording = true;
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, n, on_found, &out->res, &err), HUDI_OK);
  out->src.recording = false;
  hudi_hfile_stats st;
  hudi_hfile_reader_stats(r, &st);
  hudi_hfile_reader_free(r);
  free(keys);
}

static void run_free(run *x) {
  result_free(&x->res);
  free(x->src.r);
}

static uint64_t bytes_of(const rec_src *s) {
  uint64_t b = 0;
  for (size_t i = 0; i < s->n; i++) b += s->r[i].len;
  return b;
}

/* Every range of a lies inside one range of b. */
static void covered(const rec_src *a, const rec_src *b) {
  for (size_t i = 0; i < a->n; i++) {
    bool in = false;
    for (size_t j = 0; j < b->n && !in; j++)
      in = a->r[i].off >= b->r[j].off && a->r[i].off + a->r[i].len <= b->r[j].off + b->r[j].len;
    if (!in) fail_msg("range [%llu, +%llu) of the unmerged lookup was not read", (unsigned long long)a->r[i].off,
                      (unsigned long long)a->r[i].len);
  }
}

/* The model answers: each present query's value, in query order. */
static void check_model(const result *res, const query *q, size_t n) {
  size_t want = 0;
  for (size_t i = 0; i < n; i++) want += q[i].model >= 0;
  assert_int_equal(res->n, want);
  for (size_t i = 0; i < res->n; i++) {
    size_t k = res->key_index[i];
    assert_true(k < n);
    assert_true(i == 0 || res->key_index[i - 1] < k);
    assert_true(q[k].model >= 0);
    char v[128];
    size_t vl = model_value(v, (size_t)q[k].model);
    assert_int_equal(res->value_len[i], vl);
    assert_memory_equal(res->value[i], v, vl);
  }
}

static void same_result(const result *a, const result *b) {
  assert_int_equal(a->n, b->n);
  for (size_t i = 0; i < a->n; i++) {
    assert_int_equal(a->key_index[i], b->key_index[i]);
    assert_int_equal(a->value_len[i], b->value_len[i]);
    assert_memory_equal(a->value[i], b->value[i], a->value_len[i]);
  }
}

static query *queries(size_t *n) {
  query *q = calloc(4096, sizeof *q);
  *n = make_queries(q);
  qsort(q, *n, sizeof *q, query_cmp);
  return q;
}

/* Gap 0 (the default): adjacent blocks in one read, the same bytes. */
static void adjacent_blocks_merge(void **state) {
  (void)state;
  size_t n;
  query *q = queries(&n);
  run off, on;
  lookup(&off, q, n, 0, 0);
  lookup(&on, q, n, 0, UINT64_MAX);
  check_model(&off.res, q, n);
  same_result(&on.res, &off.res);
  covered(&off.src, &on.src);
  print_message("unmerged %zu reads, %llu bytes; adjacent merged %zu reads, %llu bytes\n", off.src.n,
                (unsigned long long)bytes_of(&off.src), on.src.n, (unsigned long long)bytes_of(&on.src));
  /* Six clusters of 300 consecutive keys span several blocks each. */
  assert_true(off.src.n > 100);
  assert_true(on.src.n * 2 < off.src.n);
  assert_int_equal(bytes_of(&on.src), bytes_of(&off.src));
  for (size_t i = 0; i < on.src.n; i++) assert_true(on.src.r[i].len <= HUDI_HFILE_COALESCE_MAX_DEFAULT);
  run_free(&off);
  run_free(&on);
  free(q);
}

/* A gap: runs of nearby blocks in one read each, at most max bytes a read,
 * at most one gap of extra bytes per unmerged read. */
static void nearby_blocks_merge(void **state) {
  (void)state;
  size_t n;
  query *q = queries(&n);
  const uint64_t gap = 16 << 10, max = 96 << 10;
  run off, adj, on;
  lookup(&off, q, n, 0, 0);
  lookup(&adj, q, n, 0, UINT64_MAX);
  lookup(&on, q, n, gap, max);
  same_result(&on.res, &off.res);
  check_model(&on.res, q, n);
  covered(&off.src, &on.src);
  print_message("gap %llu max %llu: %zu reads, %llu bytes (file %zu)\n", (unsigned long long)gap,
                (unsigned long long)max, on.src.n, (unsigned long long)bytes_of(&on.src), file_len);
  assert_true(on.src.n < adj.src.n);
  assert_true(bytes_of(&on.src) <= bytes_of(&off.src) + gap * off.src.n);
  for (size_t i = 0; i < on.src.n; i++) assert_true(on.src.r[i].len <= max);
  /* Still proportional to the keys: far from the whole file. */
  assert_true(bytes_of(&on.src) * 2 < file_len);
  run_free(&off);
  run_free(&adj);
  run_free(&on);
  free(q);
}

/* Any gap: reads of at most max, the file read at most once; a max below
 * one block turns merging off. */
static void caps_hold(void **state) {
  (void)state;
  size_t n;
  query *q = queries(&n);
  run off, big, tiny;
  lookup(&off, q, n, 0, 0);
  lookup(&big, q, n, (uint64_t)1 << 30, 256 << 10);
  lookup(&tiny, q, n, (uint64_t)1 << 30, 64);
  same_result(&big.res, &off.res);
  same_result(&tiny.res, &off.res);
  covered(&off.src, &big.src);
  for (size_t i = 0; i < big.src.n; i++) assert_true(big.src.r[i].len <= 256 << 10);
  /* Fewer reads, and no byte read twice (a window the next level needs is
   * still held when it gets there): never more than the file. */
  assert_true(big.src.n < off.src.n);
  assert_true(bytes_of(&big.src) <= file_len);
  assert_int_equal(tiny.src.n, off.src.n);
  assert_int_equal(bytes_of(&tiny.src), bytes_of(&off.src));
  run_free(&off);
  run_free(&big);
  run_free(&tiny);
  free(q);
}

/* A callback that stops early stops the data block reads. */
static int stop_after_3(void *ctx, size_t key_index, const uint8_t *value, size_t value_len) {
  (void)key_index;
  (void)value;
  (void)value_len;
  return ++*(int *)ctx >= 3;
}

static void early_stop(void **state) {
  (void)state;
  size_t n;
  query *q = queries(&n);
  rec_src s = {0};
  hudi_hfile_source src = {rec_read, &s, file_len, "model.hfile"};
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open(&r, &src, &err), HUDI_OK);
  hudi_hfile_reader_set_coalesce(r, 4096, 32 << 10);
  hudi_hfile_key *keys = calloc(n, sizeof *keys);
  for (size_t i = 0; i < n; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)q[i].text, strlen(q[i].text)};
  int calls = 0;
  s.recording = true;
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, n, stop_after_3, &calls, &err), HUDI_OK);
  assert_int_equal(calls, 3);
  /* The index levels, then only the first data blocks' run: fewer reads
   * than the whole lookup with the same merging. */
  run full, off;
  lookup(&full, q, n, 4096, 32 << 10);
  assert_true(s.n < full.src.n);
  run_free(&full);
  /* The reader is reusable: a second lookup answers as a fresh one does. */
  lookup(&off, q, n, 0, 0);
  result res = {0, calloc(n, sizeof(size_t)), calloc(n, sizeof(char *)), calloc(n, sizeof(size_t))};
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, n, on_found, &res, &err), HUDI_OK);
  same_result(&res, &off.res);
  result_free(&res);
  run_free(&off);
  hudi_hfile_reader_free(r);
  free(keys);
  free(s.r);
  free(q);
}

/* A failing read inside a merged run is an I/O error, not a crash. */
static int fail_big(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  (void)ctx;
  if (len > 8192) return 1;
  if (off > file_len || len > file_len - off) return -1;
  memcpy(dst, file_bytes + off, len);
  return 0;
}

static void failed_merged_read(void **state) {
  (void)state;
  size_t n;
  query *q = queries(&n);
  hudi_hfile_source src = {fail_big, NULL, file_len, "model.hfile"};
  hudi_hfile_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_hfile_reader_open(&r, &src, &err), HUDI_OK);
  hudi_hfile_reader_set_coalesce(r, 1 << 20, 1 << 20);
  hudi_hfile_key *keys = calloc(n, sizeof *keys);
  for (size_t i = 0; i < n; i++) keys[i] = (hudi_hfile_key){(const uint8_t *)q[i].text, strlen(q[i].text)};
  result res = {0, calloc(n, sizeof(size_t)), calloc(n, sizeof(char *)), calloc(n, sizeof(size_t))};
  assert_int_equal(hudi_hfile_reader_lookup(r, keys, n, on_found, &res, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "model.hfile"));
  result_free(&res);
  hudi_hfile_reader_free(r);
  free(keys);
  free(q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(adjacent_blocks_merge), cmocka_unit_test(nearby_blocks_merge), cmocka_unit_test(caps_hold),
      cmocka_unit_test(early_stop),            cmocka_unit_test(failed_merged_read),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
