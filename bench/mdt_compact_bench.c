/* Record-index lookups before and after metadata-table compaction.
 *
 * Creates a non-partitioned MERGE_ON_READ table with the record index,
 * bulk-inserts N keys in C commits (so each record_index shard holds C log
 * files), then looks up K random present keys; compacts the MDT
 * (hudi_mdt_compact, forced) and looks the same keys up again. Prints wall
 * time, base HFile data blocks and bytes read, and log files opened for
 * each lookup, and the compaction's time and output. Every key must be
 * found at both points (exit 1 otherwise).
 *
 *   bench_mdt_compact [n_keys=1000000] [k=1000] [commits=4] [dir=/tmp/...] [parallelism=0: cores up to 4]
 *
 * The compaction line gives wall and process CPU time: file groups are
 * compacted in parallel, so wall < CPU on a machine with several cores. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "hudi/write.h"
#include "table/mdt_compact.h"
#include "table/mdt_reader.h"
#include "table/mdt_record_index.h"
#include "table/table.h"

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

static void append_range(hudi_table *t, long from, long to) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  check(hudi_arrow_field_init(&f, "", "+s", 0, &err), &err, "schema");
  check(hudi_arrow_field_alloc_children(&f, 2, &err), &err, "schema");
  check(hudi_arrow_field_init(&f.children[0], "id", "u", 0, &err), &err, "schema");
  check(hudi_arrow_field_init(&f.children[1], "v", "l", 0, &err), &err, "schema");
  hudi_arrow_batch_builder *bb;
  check(hudi_arrow_batch_builder_create(&bb, &f, &err), &err, "builder");
  for (long i = from; i < to; i++) {
    char k[32];
    snprintf(k, sizeof k, "key-%09ld", i);
    check(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), k, &err), &err, "append");
    check(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), i, &err), &err, "append");
    check(hudi_arrow_batch_builder_end_row(bb, &err), &err, "row");
  }
  struct ArrowArray a;
  check(hudi_arrow_batch_builder_finish(bb, &a, &err), &err, "finish");
  struct ArrowArrayStream s;
  check(hudi_arrow_stream_from_batches(&s, &f, &a, 1, &err), &err, "stream");
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
  /* No automatic MDT compaction: the bench compacts itself. */
  hudi_option o[] = {{"hoodie.metadata.compact.max.delta.commits", "1000"}};
  hudi_write_result r;
  check(hudi_table_append(&r, t, &s, o, 1, &err), &err, "table append");
}

static void lookup(const char *path, char **keys, size_t k, const char *label) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t;
  check(hudi_table_open(&t, path, NULL, 0, &err), &err, "open");
  double t0 = wall_now();
  hudi_mdt *m;
  check(hudi_mdt_open(&m, t, &err), &err, "mdt open");
  hudi_mdt_read_stats st = {0};
  hudi_rli_location *locs;
  double t1 = wall_now();
  check(hudi_mdt_record_index_lookup(m, (const char *const *)keys, NULL, k, &locs, &st, &err), &err, "lookup");
  double t2 = wall_now();
  for (size_t i = 0; i < k; i++)
    if (!locs[i].found) {
      fprintf(stderr, "FAIL %s: key %s not found\n", label, keys[i]);
      exit(1);
    }
  printf("%-17s open %7.1f ms, lookup of %zu keys %8.1f ms: %llu base files, %llu base data blocks, %llu base "
         "bytes; %llu log files (%llu bytes), %llu log blocks merged\n",
         label, (t1 - t0) * 1e3, k, (t2 - t1) * 1e3, (unsigned long long)st.base_files_opened,
         (unsigned long long)st.base_data_blocks_read, (unsigned long long)st.base_bytes_read,
         (unsigned long long)st.log_files_opened, (unsigned long long)st.log_bytes_read,
         (unsigned long long)st.log_blocks_merged);
  hudi_rli_locations_free(locs, k);
  hudi_mdt_free(m);
  hudi_table_free(t);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  size_t k = argc > 2 ? (size_t)atol(argv[2]) : 1000;
  long commits = argc > 3 ? atol(argv[3]) : 4;
  char path[512];
  snprintf(path, sizeof path, "%s", argc > 4 ? argv[4] : "/tmp/hudi-bench-mdt-compact");
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) return 1;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = HUDI_MERGE_ON_READ;
  o.record_key_fields = "id";
  hudi_table *t;
  check(hudi_table_create(&t, path, &o, &err), &err, "create");
  double t0 = wall_now();
  for (long c = 0; c < commits; c++) append_range(t, n * c / commits, n * (c + 1) / commits);
  printf("bulk insert of %ld keys in %ld commits: %.1f s\n", n, commits, wall_now() - t0);

  char **keys = malloc(k * sizeof *keys);
  uint64_t s = 42;
  for (size_t i = 0; i < k; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    keys[i] = malloc(32);
    snprintf(keys[i], 32, "key-%09ld", (long)((s >> 33) % (uint64_t)n));
  }
  lookup(path, keys, k, "before compaction");
  hudi_mdt_compact_options co = HUDI_MDT_COMPACT_OPTIONS_INIT;
  co.force = true;
  co.parallelism = argc > 5 ? atoi(argv[5]) : 0;
  hudi_mdt_compact_result cr;
  t0 = wall_now();
  clock_t c0 = clock();
  check(hudi_mdt_compact(t, &co, &cr, &err), &err, "compact");
  printf("compaction %s (parallelism %d): %.2f s wall, %.2f s CPU, %zu file groups, %zu log files, %llu records, %llu bytes written\n", cr.instant,
         co.parallelism, wall_now() - t0, (double)(clock() - c0) / CLOCKS_PER_SEC, cr.file_groups, cr.log_files, (unsigned long long)cr.records,
         (unsigned long long)cr.bytes_written);
  lookup(path, keys, k, "after compaction");
  for (size_t i = 0; i < k; i++) free(keys[i]);
  free(keys);
  hudi_table_free(t);
  return 0;
}
