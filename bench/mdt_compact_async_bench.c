/* The commit that makes the metadata table (MDT) due for compaction, inline
 * vs in the background (hoodie.metadata.compact.async).
 *
 * Creates a non-partitioned MERGE_ON_READ table with the record index,
 * bulk-inserts N uuid-like keys in 2 commits (no MDT compaction), then runs
 * U upserts of B keys each (half updates of random existing keys, half new
 * keys) with hoodie.metadata.compact.max.delta.commits=M, so that one of
 * them makes the MDT due (the MDT counts its 2 initialisation and the 2
 * load deltacommits too). For each upsert: wall time, CPU time of the
 * calling thread (what the writer spent) and of the whole process (the
 * background thread included), and the MDT compaction state after it.
 * In async mode, hudi_table_wait_services is timed at the end.
 *
 *   bench_mdt_compact_async [n_keys=1500000] [mode=inline|async] [dir=/tmp/...] [upserts=6] [batch=20000]
 *                           [max_delta=7] [parallelism=1 (async only)] */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/table.h"

static double now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(hudi_status st, const hudi_error *err, const char *what) {
  if (st == HUDI_OK) return;
  fprintf(stderr, "FAIL %s: %s\n", what, err->message);
  exit(1);
}

/* Key i as a uuid-like string (a bijective mix of i, so keys are unique). */
static void key_of(char out[40], uint64_t i) {
  uint64_t a = i * 0x9E3779B97F4A7C15ull, b = (a ^ (a >> 29)) * 0xBF58476D1CE4E5B9ull;
  b ^= b >> 32;
  snprintf(out, 40, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffff,
           (unsigned)a & 0xffff, (unsigned)(b >> 48), (unsigned long long)(b & 0xffffffffffffull));
}

static void make(struct ArrowArrayStream *s, const uint64_t *ids, size_t n, int64_t v) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  check(hudi_arrow_field_init(&f, "", "+s", 0, &err), &err, "schema");
  check(hudi_arrow_field_alloc_children(&f, 2, &err), &err, "schema");
  check(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), &err, "schema");
  check(hudi_arrow_field_init(&f.children[1], "v", "l", 0, &err), &err, "schema");
  hudi_arrow_batch_builder *bb;
  check(hudi_arrow_batch_builder_create(&bb, &f, &err), &err, "builder");
  for (size_t i = 0; i < n; i++) {
    char k[40];
    key_of(k, ids[i]);
    check(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), k, &err), &err, "append");
    check(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), v, &err), &err, "append");
    check(hudi_arrow_batch_builder_end_row(bb, &err), &err, "row");
  }
  struct ArrowArray a;
  check(hudi_arrow_batch_builder_finish(bb, &a, &err), &err, "finish");
  check(hudi_arrow_stream_from_batches(s, &f, &a, 1, &err), &err, "stream");
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

/* "pending C" / "completed C" / "-" from the MDT timeline's compactions. */
static void mdt_state(const char *path, char *out, size_t cap) {
  char d[600], req[64] = "", done[64] = "";
  snprintf(d, sizeof d, "%s/.hoodie/metadata/.hoodie/timeline", path);
  DIR *dd = opendir(d);
  struct dirent *e;
  int n_done = 0;
  while (dd && (e = readdir(dd))) {
    const char *dot = strchr(e->d_name, '.');
    if (!dot) continue;
    if (!strcmp(dot, ".compaction.requested") && strcmp(e->d_name, req) > 0) snprintf(req, sizeof req, "%.17s", e->d_name);
    if (!strcmp(dot, ".commit")) {
      n_done++;
      if (strcmp(e->d_name, done) > 0) snprintf(done, sizeof done, "%.17s", e->d_name);
    }
  }
  if (dd) closedir(dd);
  if (!req[0]) snprintf(out, cap, "-");
  else if (strcmp(req, done) == 0) snprintf(out, cap, "%d completed (last %s)", n_done, done);
  else snprintf(out, cap, "%d completed, %s pending", n_done, req);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1500000;
  const char *mode = argc > 2 ? argv[2] : "inline";
  char path[512];
  snprintf(path, sizeof path, "%s", argc > 3 ? argv[3] : "/tmp/hudi-bench-mdt-compact-async");
  int upserts = argc > 4 ? atoi(argv[4]) : 6;
  size_t batch = argc > 5 ? (size_t)atol(argv[5]) : 20000;
  const char *max_delta = argc > 6 ? argv[6] : "7";
  const char *par = argc > 7 ? argv[7] : "1";
  bool async = !strcmp(mode, "async");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) return 1;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  hudi_table *t;
  check(hudi_table_create(&t, path, &o, &err), &err, "create");
  hudi_option load[] = {{"hoodie.metadata.compact.max.delta.commits", "1000"}};
  uint64_t *ids = malloc((size_t)n * sizeof *ids);
  for (long i = 0; i < n; i++) ids[i] = (uint64_t)i;
  double t0 = now(CLOCK_MONOTONIC);
  for (int c = 0; c < 2; c++) {
    struct ArrowArrayStream s;
    make(&s, ids + n * c / 2, (size_t)(n * (c + 1) / 2 - n * c / 2), 0);
    hudi_write_result r;
    check(hudi_table_append(&r, t, &s, load, 1, &err), &err, "append");
  }
  printf("load: %ld keys in 2 commits, %.1f s\n", n, now(CLOCK_MONOTONIC) - t0);
  hudi_option up[] = {{"hoodie.metadata.compact.max.delta.commits", max_delta},
                      {"hoodie.metadata.compact.async", async ? "true" : "false"},
                      {"hoodie.metadata.compact.async.parallelism", par}};
  uint64_t *b = malloc(batch * sizeof *b), next = (uint64_t)n, rng = 7;
  for (int u = 1; u <= upserts; u++) {
    for (size_t i = 0; i < batch; i++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      b[i] = i % 2 ? (rng >> 33) % (uint64_t)n : next++;
    }
    struct ArrowArrayStream s;
    make(&s, b, batch, u);
    hudi_write_result r;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID), p0 = now(CLOCK_PROCESS_CPUTIME_ID);
    check(hudi_table_upsert(&r, t, &s, up, 3, &err), &err, "upsert");
    double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID), p1 = now(CLOCK_PROCESS_CPUTIME_ID);
    char st[128];
    mdt_state(path, st, sizeof st);
    printf("%s upsert %d (%zu keys): %6.2f s wall, %6.2f s writer CPU, %6.2f s process CPU; MDT compactions: %s\n",
           mode, u, batch, w1 - w0, c1 - c0, p1 - p0, st);
    fflush(stdout);
  }
  double w0 = now(CLOCK_MONOTONIC), p0 = now(CLOCK_PROCESS_CPUTIME_ID);
  check(hudi_table_wait_services(t, &err), &err, "wait");
  char st[128];
  mdt_state(path, st, sizeof st);
  printf("%s wait_services: %.2f s wall, %.2f s process CPU; MDT compactions: %s\n", mode, now(CLOCK_MONOTONIC) - w0,
         now(CLOCK_PROCESS_CPUTIME_ID) - p0, st);
  hudi_table_free(t);
  free(b);
  free(ids);
  return 0;
}
