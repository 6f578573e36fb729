/* Bulk-insert file sizing (table/write_plan.h): the planning arithmetic,
 * and an append whose files are sized by their compressed bytes, measured
 * on disk against a one-file write of the same rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "io/storage.h"
#include "table/write_plan.h"

#define MB ((int64_t)1000 * 1000)

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-sizing-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* ceil(total / max) files, split evenly: 780 MB at 120 MB max is 7 files of
 * ~111 MB, all above a 100 MB small-file limit. */
static void plan_arithmetic(void **state) {
  (void)state;
  assert_int_equal(hudi_write_plan_files(10000000, 780 * MB, 120 * MB), 7);
  assert_int_equal(hudi_write_plan_files(10000000, 720 * MB, 120 * MB), 6);
  assert_int_equal(hudi_write_plan_files(10000000, 720 * MB + 1, 120 * MB), 7);
  assert_int_equal(hudi_write_plan_files(10000000, 5 * MB, 120 * MB), 1);
  assert_int_equal(hudi_write_plan_files(10000000, 0, 120 * MB), 1);
  assert_int_equal(hudi_write_plan_files(3, 780 * MB, 1), 3); /* never more files than rows */
  assert_int_equal(hudi_write_plan_files(0, 780 * MB, 1), 0);
  size_t n = 10000000, files = 7, prev = 0;
  for (size_t f = 0; f < files; f++) {
    size_t a = hudi_write_plan_file_start(n, files, f), b = hudi_write_plan_file_start(n, files, f + 1);
    assert_int_equal(a, prev);
    assert_true(b - a == n / files || b - a == n / files + 1);
    /* each file's share of 780 MB is above 100 MB and below 120 MB */
    double bytes = 780.0 * (double)MB * (double)(b - a) / (double)n;
    assert_true(bytes > 100.0 * (double)MB && bytes <= 120.0 * (double)MB);
    prev = b;
  }
  assert_int_equal(prev, n);
  /* The layout: an even split when its files are not all small ... */
  hudi_write_plan_layout l = hudi_write_plan_layout_for(n, 780 * MB, 120 * MB, 100 * MB);
  assert_int_equal(l.files, 7);
  assert_int_equal(l.full_rows, 0);
  assert_int_equal(hudi_write_plan_layout_start(&l, n, 3), hudi_write_plan_file_start(n, 7, 3));
  l = hudi_write_plan_layout_for(n, 150 * MB, 120 * MB, 0); /* no limit */
  assert_int_equal(l.full_rows, 0);
  /* ... else Java's fill: 150 MB at 120 max, 100 limit is 2 x 75 MB evenly
   * (both small): instead one file of 0.97 x 120 MB and the rest. */
  l = hudi_write_plan_layout_for(n, 150 * MB, 120 * MB, 100 * MB);
  assert_int_equal(l.files, 2);
  size_t want = (size_t)(0.97 * 120.0 / 150.0 * (double)n); /* 7,760,000, +-1 for rounding */
  assert_true(l.full_rows + 1 >= want && l.full_rows <= want + 1);
  assert_int_equal(hudi_write_plan_layout_start(&l, n, 0), 0);
  assert_int_equal(hudi_write_plan_layout_start(&l, n, 1), l.full_rows);
  assert_int_equal(hudi_write_plan_layout_start(&l, n, 2), n);
  /* 524 MB (5 even files of 104.8 MB, under a 104.86 MB limit): 4 full + 1 */
  l = hudi_write_plan_layout_for(n, 524 * MB, 125829120, 104857600);
  assert_int_equal(l.files, 5);
  assert_true(l.full_rows > 0 && 4 * l.full_rows < n);
  double last = 524.0 * (double)MB * (double)(n - 4 * l.full_rows) / (double)n;
  assert_true(last < 104857600.0 && last > 30.0 * (double)MB);
  /* even files just above the limit, within the estimate's margin: filled */
  l = hudi_write_plan_layout_for(n, 535 * MB, 125829120, 104857600);
  assert_true(l.full_rows > 0);
  /* even files 4% above the limit: even */
  l = hudi_write_plan_layout_for(n, (int64_t)(5 * 1.04 * 104857600.0), 125829120, 104857600);
  assert_int_equal(l.full_rows, 0);
  /* a fill under the limit would not help: stays even */
  l = hudi_write_plan_layout_for(n, 150 * MB, 120 * MB, 118 * MB);
  assert_int_equal(l.full_rows, 0);
  /* The sample scales linearly; all of a small partition is exact. */
  assert_int_equal(hudi_write_plan_estimate(1000000, 10000, 500000), 50000000);
  assert_int_equal(hudi_write_plan_estimate(5000, 5000, 123456), 123456);
  /* No sample when the in-memory size fits one file; else up to 64Ki rows
   * or 8 MiB of memory, at least 1024 rows, at most the partition. */
  assert_int_equal(hudi_write_plan_sample_rows(1000, 100, 120 * MB), 0);
  assert_int_equal(hudi_write_plan_sample_rows(10000000, 100, 120 * MB), 65536);
  assert_int_equal(hudi_write_plan_sample_rows(10000000, 1000, 120 * MB), (size_t)(HUDI_WRITE_PLAN_SAMPLE_BYTES / 1000));
  assert_int_equal(hudi_write_plan_sample_rows(10000000, 1 << 20, 120 * MB), HUDI_WRITE_PLAN_SAMPLE_MIN_ROWS);
  assert_int_equal(hudi_write_plan_sample_rows(500, 1 << 20, 120 * MB), 500);
}

/* n rows: id "k<6 digits>", payload 32 pseudo-random hex digits (about
 * half compressible), v int64. */
static void make_stream(struct ArrowArrayStream *out, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "payload", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[2], "v", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < n; i++) {
    char id[16], hex[40];
    snprintf(id, sizeof id, "k%06d", (i * 7919) % n); /* not in key order */
    for (int k = 0; k < 32; k++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      hex[k] = "0123456789abcdef"[x & 15];
    }
    hex[32] = 0;
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 1), hex, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 2), (int64_t)(x >> 1), &err),
                     HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

/* Appends n rows into a new table `name` with max.file.size `max`; returns
 * the base files' on-disk sizes (at most cap) and their count. */
static size_t load(const char *name, int n, int64_t max, int64_t *sizes, size_t cap, int64_t *rows_read) {
  char p[300], maxs[32];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  snprintf(maxs, sizeof maxs, "%lld", (long long)max);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  o.record_index_enabled = false;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, p, &o, &err) != HUDI_OK) fail_msg("create: %s", err.message);
  struct ArrowArrayStream s;
  make_stream(&s, n);
  /* No footer bloom filter: the file on disk is then its data and a
   * small footer. */
  hudi_option opts[] = {{"hoodie.parquet.max.file.size", maxs}, {"hoodie.parquet.bloom.filter.enabled", "false"}};
  hudi_write_result r;
  if (hudi_table_append(&r, t, &s, opts, 2, &err) != HUDI_OK) fail_msg("append: %s", err.message);
  assert_int_equal(r.num_inserts, n);

  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  struct ArrowArrayStream rs;
  assert_int_equal(hudi_table_read(&rs, t, &ro, &err), HUDI_OK);
  *rows_read = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(rs.get_next(&rs, &a), 0);
    if (!a.release) break;
    *rows_read += a.length;
    a.release(&a);
  }
  rs.release(&rs);
  hudi_table_free(t);

  hudi_storage *st;
  assert_int_equal(hudi_storage_open(&st, p, NULL, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(st, "", 0, &l, &err), HUDI_OK);
  size_t k = 0;
  for (size_t i = 0; i < l.count; i++) {
    size_t len = strlen(l.items[i].path);
    if (len < 8 || strcmp(l.items[i].path + len - 8, ".parquet")) continue;
    char full[600];
    snprintf(full, sizeof full, "%s/%s", p, l.items[i].path);
    struct stat sb;
    assert_int_equal(stat(full, &sb), 0);
    assert_true(k < cap);
    sizes[k++] = (int64_t)sb.st_size;
  }
  hudi_file_list_free(&l);
  hudi_storage_free(st);
  return k;
}

static void files_sized_by_compressed_bytes(void **state) {
  (void)state;
  enum { N = 150000 };
  int64_t sizes[64], rows;
  /* The oracle: the rows' real compressed size, as one file. */
  size_t n1 = load("one", N, (int64_t)1 << 40, sizes, 64, &rows);
  assert_int_equal(n1, 1);
  assert_int_equal(rows, N);
  int64_t whole = sizes[0];
  /* In memory the rows are several times that: the old rule split them
   * into files of a fraction of the maximum. */
  int64_t max = whole * 2 / 5; /* 2.5 maxes of data: 3 files of ~0.83 max */
  size_t n = load("three", N, max, sizes, 64, &rows);
  assert_int_equal(rows, N);
  assert_int_equal(n, 3);
  for (size_t i = 0; i < n; i++) {
    assert_true(sizes[i] <= max + max / 20);       /* under the maximum (estimate +-5%) */
    assert_true(sizes[i] >= max * 3 / 4);          /* and not split finer than needed */
  }
}

/* A bad thread count is refused before anything is written. */
static void bad_parallelism_refused(void **state) {
  (void)state;
  char p[300];
  snprintf(p, sizeof p, "%s/bad", dir);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, p, &o, &err), HUDI_OK);
  struct ArrowArrayStream s;
  make_stream(&s, 100);
  hudi_option opts[] = {{"hoodie.bulkinsert.shuffle.parallelism", "two"}};
  assert_int_equal(hudi_table_append(NULL, t, &s, opts, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "hoodie.bulkinsert.shuffle.parallelism"));
  /* No instant file was written (listed on disk, not the table's cache). */
  char tl[400];
  snprintf(tl, sizeof tl, "%s/.hoodie/timeline", p);
  DIR *d = opendir(tl);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".commit")) fail_msg("instant file %s written", e->d_name);
  closedir(d);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(plan_arithmetic),
      cmocka_unit_test_setup_teardown(files_sized_by_compressed_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_parallelism_refused, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
