/* HFile writer throughput and batched point-lookup I/O on record-index-shaped
 * key-values, the metadata table's largest partition: 36-char UUID record
 * keys (sorted) and ~60-byte values.
 *
 * (1) Writes N key-values with each block size / compression (Hudi's MDT
 *     default: 1 MiB GZ blocks) and prints key-values per second, best of 3
 *     runs, by process CPU time (other load on a shared machine does not
 *     count) and by wall time, plus the file size.
 * (2) Opens each file through a read_range callback that counts calls and
 *     bytes, looks up K random present keys (sorted) plus K/10 absent ones
 *     for K = 100, 1k, 10k, and prints the data blocks and bytes read. Every
 *     returned value is compared with the written one; any wrong, missing or
 *     spurious value aborts with exit status 1.
 *
 * With 1 MiB blocks and key-values this small most blocks must be closed
 * early (spec §3.9: Java's reader would drop their last key-value); the
 * writer finds where with a few size evaluations, so 1 MiB GZ costs about
 * three compressions of each block (see docs/benchmarks.md).
 *
 * Configs: block size and compression; the index block size is the block
 * size (a multi-level index once the root outgrows it), except "-flat"
 * ones, which keep one root level as the writer did before. GZ data blocks
 * are libdeflate's at the writer's default level; "-L<n>" picks level n,
 * "-zlib" zlib at level 6 (java_exact_bytes: Java's own bytes); "-T<n>"
 * sets compress_threads (-T1: the calling thread only; default: the
 * writer's auto); "-cells" deflates blocks from their cell layout (as the
 * record index is written) with Huffman codes shared per file, "-own"
 * with each block's own codes. "re-cuts" counts the pipeline's §3.9 re-cuts;
 * "busiest-thread" is n over the larger of the calling thread's CPU time
 * and the other threads' together: the wall rate on an idle machine
 * (wall itself counts other processes' load on a shared one);
 * HFILE_BENCH_THREADS=1 prints both CPU times of each run.
 *
 *   bench_hfile [n_keys] [config,config,...]   (default: a fixed list)
 *   e.g. bench_hfile 1000000 4KiB-GZ,4KiB-GZ-zlib,4KiB-GZ-L1,64KiB-GZ-flat
 * HFILE_BENCH_WRITE_ONLY=1 skips the lookups. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "hfile/hfile.h"

#define KEY_LEN 36
#define FLAT ((size_t)64 << 20)
#define VAL_LEN 60

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The calling thread's CPU time: with worker threads (compress_threads),
 * process CPU minus this is theirs, and the larger of the two bounds the
 * wall time a quiet machine could reach. */
static double thread_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(hudi_status st, const hudi_error *err, const char *what) {
  if (st == HUDI_OK) return;
  fprintf(stderr, "FAIL %s: %s\n", what, err->message);
  exit(1);
}

static _Noreturn void fail(const char *msg, size_t i) {
  fprintf(stderr, "FAIL %s (key %zu)\n", msg, i);
  exit(1);
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A random (version 4 shaped) UUID in canonical lowercase form. */
static void make_uuid(char *out, uint64_t *seed) {
  static const char hex[] = "0123456789abcdef";
  uint64_t a = splitmix(seed), b = splitmix(seed);
  int bit = 0;
  for (int i = 0; i < KEY_LEN; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      out[i] = '-';
      continue;
    }
    uint64_t w = bit < 64 ? a : b;
    out[i] = hex[(w >> (bit % 64)) & 15];
    bit += 4;
  }
  out[14] = '4';
}

static int cmp_key(const void *x, const void *y) { return memcmp(x, y, KEY_LEN); }

/* The value written for the i-th key (in sorted order): shaped like an
 * encoded record-index entry — a partition path from a small set, then
 * file-id bits, file index and instant time as random-ish bytes. A function
 * of i, so lookups can be verified without keeping the values. */
static void make_value(uint8_t *v, size_t i) {
  static const char *parts[8] = {"region=us/date=2024-01-01", "region=us/date=2024-01-02",
                                 "region=eu/date=2024-01-01", "region=eu/date=2024-01-02",
                                 "region=ap/date=2024-01-01", "region=ap/date=2024-01-02",
                                 "region=sa/date=2024-01-01", "region=sa/date=2024-01-02"};
  uint64_t s = (uint64_t)i * 0x2545f4914f6cdd1dull + 7;
  const char *p = parts[splitmix(&s) & 7];
  memcpy(v, p, 25);
  for (size_t k = 25; k < VAL_LEN; k += 8) {
    uint64_t r = splitmix(&s);
    size_t n = VAL_LEN - k < 8 ? VAL_LEN - k : 8;
    memcpy(v + k, &r, n);
  }
}

typedef struct config {
  const char *name;
  size_t block_size;
  hudi_hfile_compression comp;
  size_t index_block_size; /* 0: the block size; "-flat" configs keep one index level */
  int java_exact;          /* "-zlib": zlib level 6, Java's bytes */
  int level;               /* "-L<n>": libdeflate level n (0: the writer's default) */
  int threads;             /* "-T<n>": compress_threads (0: the writer's auto) */
  int cells;               /* "-cells": cell_deflate (the record index's writer) */
  int own;                 /* "-own": with -cells, every block builds its own Huffman codes */
} config;

/* "<n>KiB|MiB-GZ|NONE" then any of "-zlib", "-L<n>", "-T<n>", "-flat", "-cells", "-own". */
static int parse_config(const char *name, config *c) {
  char *end;
  unsigned long long v = strtoull(name, &end, 10);
  memset(c, 0, sizeof *c);
  c->name = name;
  if (strncmp(end, "KiB-", 4) == 0) c->block_size = (size_t)v << 10;
  else if (strncmp(end, "MiB-", 4) == 0) c->block_size = (size_t)v << 20;
  else return 0;
  end += 4;
  if (strncmp(end, "GZ", 2) == 0) c->comp = HUDI_HFILE_GZ, end += 2;
  else if (strncmp(end, "NONE", 4) == 0) c->comp = HUDI_HFILE_NONE, end += 4;
  else return 0;
  while (*end == '-') {
    if (strncmp(end, "-zlib", 5) == 0) c->java_exact = 1, end += 5;
    else if (strncmp(end, "-flat", 5) == 0) c->index_block_size = FLAT, end += 5;
    else if (strncmp(end, "-cells", 6) == 0) c->cells = 1, end += 6;
    else if (strncmp(end, "-own", 4) == 0) c->own = 1, end += 4;
    else if (end[1] == 'L') c->level = (int)strtol(end + 2, &end, 10);
    else if (end[1] == 'T') c->threads = (int)strtol(end + 2, &end, 10);
    else return 0;
  }
  return *end == 0 && c->block_size > 0;
}

static void write_file(const config *c, const char *keys, size_t n, uint8_t **out, size_t *out_len,
                       uint64_t *recuts) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_writer_options o = HUDI_HFILE_WRITER_OPTIONS_INIT;
  o.block_size = c->block_size;
  o.compression = c->comp;
  o.index_block_size = c->index_block_size;
  o.java_exact_bytes = c->java_exact;
  o.deflate_level = c->level;
  o.compress_threads = c->threads;
  o.cell_deflate = c->cells;
  o.own_codes = c->own;
  o.create_time_ms = 1700000000000;
  hudi_hfile_writer *w;
  check(hudi_hfile_writer_create(&w, &o, &err), &err, "writer create");
  uint8_t v[VAL_LEN];
  for (size_t i = 0; i < n; i++) {
    make_value(v, i);
    check(hudi_hfile_writer_append(w, (const uint8_t *)keys + i * KEY_LEN, KEY_LEN, v, VAL_LEN, &err), &err,
          "append");
  }
  check(hudi_hfile_writer_finish(w, out, out_len, &err), &err, "finish");
  *recuts = hudi_hfile_writer_recuts(w);
  hudi_hfile_writer_free(w);
}

/* ---- counting range reader ------------------------------------------ */

typedef struct file_src {
  const uint8_t *data;
  size_t len;
  uint64_t calls, bytes;
} file_src;

static int read_range(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  file_src *f = ctx;
  if (off > f->len || len > f->len - off) return 1;
  memcpy(dst, f->data + off, len);
  f->calls++;
  f->bytes += len;
  return 0;
}

static hudi_hfile_reader *open_counted(file_src *f) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_hfile_source src = {read_range, f, f->len, "bench.hfile"};
  hudi_hfile_reader *r;
  check(hudi_hfile_reader_open(&r, &src, &err), &err, "open");
  return r;
}

/* ---- verification --------------------------------------------------- */

typedef struct query {
  char key[KEY_LEN];
  long idx; /* index of the key in the file, -1 when absent */
} query;

static int cmp_query(const void *x, const void *y) { return memcmp(x, y, KEY_LEN); }

typedef struct verify_ctx {
  const query *q;
  uint8_t *seen;
  size_t found;
} verify_ctx;

static int on_found(void *ctx, size_t ki, const uint8_t *value, size_t value_len) {
  verify_ctx *vc = ctx;
  const query *q = &vc->q[ki];
  if (q->idx < 0) fail("an absent key was reported found", ki);
  if (vc->seen[ki]) fail("a key was reported twice", ki);
  uint8_t v[VAL_LEN];
  make_value(v, (size_t)q->idx);
  if (value_len != VAL_LEN || memcmp(v, value, VAL_LEN) != 0) fail("wrong value", ki);
  vc->seen[ki] = 1;
  vc->found++;
  return 0;
}

static int on_scan(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  (void)key;
  (void)key_len;
  (void)value;
  (void)value_len;
  (*(size_t *)ctx)++;
  return 0;
}

/* k distinct present keys + k/10 absent ones, sorted. */
static query *make_queries(const char *keys, size_t n, size_t k, uint64_t seed, size_t *n_q) {
  size_t n_abs = k / 10;
  query *q = malloc((k + n_abs) * sizeof *q);
  uint8_t *taken = calloc(n, 1);
  if (!q || !taken) fail("out of memory", 0);
  for (size_t i = 0; i < k;) {
    size_t j = (size_t)(splitmix(&seed) % n);
    if (taken[j]) continue;
    taken[j] = 1;
    memcpy(q[i].key, keys + j * KEY_LEN, KEY_LEN);
    q[i++].idx = (long)j;
  }
  for (size_t i = 0; i < n_abs;) {
    char u[KEY_LEN];
    make_uuid(u, &seed);
    if (bsearch(u, keys, n, KEY_LEN, cmp_key)) continue;
    memcpy(q[k + i].key, u, KEY_LEN);
    q[k + i++].idx = -1;
  }
  free(taken);
  qsort(q, k + n_abs, sizeof *q, cmp_query);
  *n_q = k + n_abs;
  return q;
}

static void run_lookups(const config *c, const uint8_t *file, size_t file_len, const char *keys, size_t n) {
  hudi_error err = HUDI_ERROR_INIT;
  /* Whole-file scan: the number of data blocks, and every key present. */
  file_src fs = {file, file_len, 0, 0};
  hudi_hfile_reader *r = open_counted(&fs);
  size_t scanned = 0;
  check(hudi_hfile_reader_scan(r, on_scan, &scanned, &err), &err, "scan");
  if (scanned != n) fail("scan count differs from the keys written", scanned);
  hudi_hfile_stats all;
  hudi_hfile_reader_stats(r, &all);
  hudi_hfile_reader_free(r);

  static const size_t ks[] = {100, 1000, 10000};
  for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
    size_t k = ks[t] < n ? ks[t] : n, nq;
    query *q = make_queries(keys, n, k, 0x5eed + t, &nq);
    hudi_hfile_key *hk = malloc(nq * sizeof *hk);
    uint8_t *seen = calloc(nq, 1);
    if (!hk || !seen) fail("out of memory", 0);
    for (size_t i = 0; i < nq; i++) hk[i] = (hudi_hfile_key){(const uint8_t *)q[i].key, KEY_LEN};
    double best_cpu = 1e9, best_wall = 1e9;
    hudi_hfile_stats open_st = {0}, st = {0};
    uint64_t calls = 0, bytes = 0;
    for (int rep = 0; rep < 3; rep++) {
      /* A fresh reader each time: nothing cached from the previous run. */
      file_src f = {file, file_len, 0, 0};
      double c0 = cpu_now(), w0 = wall_now();
      hudi_hfile_reader *rr = open_counted(&f);
      hudi_hfile_reader_stats(rr, &open_st);
      memset(seen, 0, nq);
      verify_ctx vc = {q, seen, 0};
      check(hudi_hfile_reader_lookup(rr, hk, nq, on_found, &vc, &err), &err, "lookup");
      double c1 = cpu_now(), w1 = wall_now();
      if (vc.found != k) fail("present keys not found", k - vc.found);
      hudi_hfile_reader_stats(rr, &st);
      hudi_hfile_reader_free(rr);
      if (st.reads != f.calls || st.bytes_read != f.bytes) fail("reader stats disagree with the callback", 0);
      calls = f.calls;
      bytes = f.bytes;
      if (c1 - c0 < best_cpu) best_cpu = c1 - c0;
      if (w1 - w0 < best_wall) best_wall = w1 - w0;
    }
    printf("lookup  %-13s keys %6zu+%-5zu data blocks %6llu of %6llu  index blocks %3llu  reads %6llu  "
           "bytes %11llu (open %8llu, %5.1f%% of file)  cpu %8.2f ms  wall %8.2f ms\n",
           c->name, k, nq - k, (unsigned long long)st.data_blocks_read, (unsigned long long)all.data_blocks_read,
           (unsigned long long)st.index_blocks_read, (unsigned long long)calls, (unsigned long long)bytes,
           (unsigned long long)open_st.bytes_read, 100.0 * (double)bytes / (double)file_len, best_cpu * 1e3,
           best_wall * 1e3);
    free(hk);
    free(seen);
    free(q);
  }
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
  if (n == 0) n = 1;
  char *keys = malloc(n * KEY_LEN);
  if (!keys) fail("out of memory", 0);
  uint64_t seed = 42;
  for (size_t i = 0; i < n; i++) make_uuid(keys + i * KEY_LEN, &seed);
  qsort(keys, n, KEY_LEN, cmp_key);
  for (size_t i = 1; i < n; i++)
    if (memcmp(keys + (i - 1) * KEY_LEN, keys + i * KEY_LEN, KEY_LEN) == 0) fail("duplicate UUID", i);

  static const char *defaults =
      "1MiB-GZ,1MiB-NONE,64KiB-GZ,64KiB-NONE,16KiB-GZ,16KiB-NONE,8KiB-GZ,4KiB-GZ,"
      /* one index level whatever its size (what the writer did before multi-level indexes) */
      "64KiB-GZ-flat,16KiB-GZ-flat,4KiB-GZ-flat";
  printf("%zu key-values: %d-byte UUID keys, %d-byte values (%.1f MB of raw key+value)\n", n, KEY_LEN, VAL_LEN,
         (double)n * (KEY_LEN + VAL_LEN) / 1e6);
  char *list = strdup(argc > 2 ? argv[2] : defaults);
  /* HFILE_BENCH_WRITE_ONLY=1: no lookups (the level sweeps). */
  const char *wo = getenv("HFILE_BENCH_WRITE_ONLY");
  int write_only = wo && *wo == '1';
  if (!list) fail("out of memory", 0);
  for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    config cfg;
    if (!parse_config(name, &cfg)) {
      fprintf(stderr, "bad config '%s' (e.g. 4KiB-GZ, 1MiB-NONE, 64KiB-GZ-zlib, 4KiB-GZ-L3, 16KiB-GZ-flat)\n", name);
      return 2;
    }
    double best_cpu = 1e9, best_wall = 1e9, best_crit = 1e9;
    uint8_t *file = NULL;
    size_t file_len = 0;
    uint64_t recuts = 0;
    for (int rep = 0; rep < 3; rep++) {
      if (file) hudi_free(file);
      double c0 = cpu_now(), w0 = wall_now(), t0 = thread_cpu_now();
      write_file(&cfg, keys, n, &file, &file_len, &recuts);
      double c1 = cpu_now(), w1 = wall_now(), t1 = thread_cpu_now();
      double mine = t1 - t0, others = (c1 - c0) - mine;
      double crit = mine > others ? mine : others;
      if (crit < best_crit) best_crit = crit;
      if (getenv("HFILE_BENCH_THREADS"))
        fprintf(stderr, "  %s: calling thread %.3f s CPU, other threads %.3f s, wall %.3f s\n", cfg.name, mine,
                others, w1 - w0);
      if (c1 - c0 < best_cpu) best_cpu = c1 - c0;
      if (w1 - w0 < best_wall) best_wall = w1 - w0;
    }
    printf("write   %-13s %8.3f M kv/s cpu  %8.3f M kv/s wall  %8.3f M kv/s busiest-thread  file %10zu bytes "
           "(%.1f MiB)  re-cuts %llu\n",
           cfg.name, (double)n / best_cpu / 1e6, (double)n / best_wall / 1e6, (double)n / best_crit / 1e6, file_len,
           (double)file_len / 1048576.0, (unsigned long long)recuts);
    fflush(stdout);
    if (!write_only) run_lookups(&cfg, file, file_len, keys, n);
    fflush(stdout);
    hudi_free(file);
  }
  free(list);
  free(keys);
  return 0;
}
