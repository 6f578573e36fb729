/* hoodie.parquet.bloom.filter.enabled, as Java's
 * HoodieFileWriterFactory.enableBloomFilter: on by default (also with the
 * record index, as Spark writes it); false leaves out all four footer keys
 * of HoodieBloomFilterWriteSupport (the filter, its type code and the
 * min/max record keys); a hoodie.index.type containing BLOOM keeps it on;
 * anything but true/false is refused before a write. Files without the
 * filter still work with the BLOOM index (a table without record index:
 * an upsert updates, it does not duplicate). The filter we write for a
 * small file has the size and parameters of the one Spark wrote in a
 * hudi-rs fixture (DYNAMIC_V0 starts at hoodie.index.bloom.num_entries =
 * 60000 whatever the file's row count). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "parquet/reader.h"
#include "table/bloom.h"
#include "table/index.h"
#include "compact_rows.h"

#define JAVA_FILE                                                                                      \
  HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/timeline/commits_load_schema_from_base_file_cow/" \
                  "city=chennai/03ffd613-fb74-456e-b6bb-115355d9b0ed-0_2-13-37_20250628002223107.parquet"

static char dir[512];

static int setup(void **state) {
  (void)state;
  char cwd[256];
  if (!getcwd(cwd, sizeof cwd)) return -1;
  snprintf(dir, sizeof dir, "%s/bloom_option_%ld", cwd, (long)getpid());
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return p;
}

/* The four footer keys of one Parquet file: which are there (bit i for
 * FOOTER[i]); the bloom text copied to *bloom when asked. */
static const char *const FOOTER[] = {"org.apache.hudi.bloomfilter", "hoodie_bloom_filter_type_code",
                                     "hoodie_min_record_key", "hoodie_max_record_key"};

static unsigned footer_keys(const char *path, char **bloom, size_t *bloom_len) {
  size_t len;
  uint8_t *data = slurp(path, &len);
  hudi_pq_reader *r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_reader_open_memory(&r, data, len, path, NULL, &err), HUDI_OK);
  unsigned have = 0;
  for (unsigned i = 0; i < 4; i++) {
    size_t vl;
    const char *v = hudi_pq_reader_kv(r, FOOTER[i], &vl);
    if (!v) continue;
    have |= 1u << i;
    if (i == 0 && bloom) {
      *bloom = malloc(vl + 1);
      memcpy(*bloom, v, vl);
      (*bloom)[vl] = 0;
      *bloom_len = vl;
    }
  }
  size_t vl;
  assert_non_null(hudi_pq_reader_kv(r, "parquet.avro.schema", &vl)); /* the footer itself is there */
  hudi_pq_reader_free(r);
  free(data);
  return have;
}

/* Rows of one Parquet file, by its footer. */
static int64_t file_rows(const char *path) {
  size_t len;
  uint8_t *data = slurp(path, &len);
  hudi_pq_reader *r;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_reader_open_memory(&r, data, len, path, NULL, &err), HUDI_OK);
  int64_t n = hudi_pq_reader_meta(r)->num_rows;
  hudi_pq_reader_free(r);
  free(data);
  return n;
}

/* Base files of instant under the table (partitions one level deep). */
static size_t files_of(const char *table, const char *instant, char out[][1024], size_t cap) {
  size_t n = 0;
  DIR *d = opendir(table);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub[768];
    snprintf(sub, sizeof sub, "%s/%s", table, e->d_name);
    DIR *p = opendir(sub);
    if (!p) continue;
    struct dirent *f;
    while ((f = readdir(p)))
      if (strstr(f->d_name, ".parquet") && strstr(f->d_name, instant) && n < cap)
        snprintf(out[n++], 1024, "%s/%s", sub, f->d_name);
    closedir(p);
  }
  closedir(d);
  return n;
}

static const char *const CITY[] = {"sf", "nyc", "la"};

static void rows(struct ArrowArrayStream *s, int from, int n, int32_t v) {
  char **ids = calloc((size_t)n, sizeof *ids);
  const char **cities = calloc((size_t)n, sizeof *cities);
  int64_t *ts = calloc((size_t)n, sizeof *ts);
  int32_t *vs = calloc((size_t)n, sizeof *vs);
  for (int i = 0; i < n; i++) {
    ids[i] = malloc(16);
    snprintf(ids[i], 16, "id-%05d", from + i);
    cities[i] = CITY[(from + i) % 3];
    ts[i] = from + i;
    vs[i] = v;
  }
  make_stream(s, (const char *const *)ids, cities, ts, vs, n);
  for (int i = 0; i < n; i++) free(ids[i]);
  free(ids);
  free(cities);
  free(ts);
  free(vs);
}

static hudi_table *create(const char *name, hudi_table_type type, bool rli) {
  char path[768];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.type = type;
  o.record_key_fields = "id";
  o.partition_fields = "city";
  o.ordering_fields = "ts";
  o.record_index_enabled = rli;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_table_create(&t, path, &o, &err) != HUDI_OK) fail_msg("%s", err.message);
  return t;
}

static unsigned all_files(const char *table, const char *instant, size_t *n_files) {
  static char files[64][1024];
  size_t n = files_of(table, instant, files, 64);
  assert_true(n > 0);
  unsigned first = footer_keys(files[0], NULL, NULL);
  for (size_t i = 1; i < n; i++) assert_int_equal(footer_keys(files[i], NULL, NULL), first);
  *n_files = n;
  return first;
}

/* (sum of v, rows) of a read. */
static void totals(hudi_table *t, int64_t *sum, int64_t *n) {
  static const char *const cols[] = {"v"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.projection = cols;
  ro.n_projection = 1;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, &ro, &err), HUDI_OK);
  struct ArrowSchema schema;
  assert_int_equal(s.get_schema(&s, &schema), 0);
  *sum = *n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    hudi_arrow_view v;
    memset(&v, 0, sizeof v);
    assert_int_equal(hudi_arrow_view_init(&v, &schema, &a, &err), HUDI_OK);
    for (int64_t i = 0; i < v.length; i++) {
      *sum += hudi_arrow_view_int(&v.children[0], hudi_arrow_view_struct_row(&v, i));
      (*n)++;
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  schema.release(&schema);
  s.release(&s);
}

static void option_off_and_bloom_index(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = create("cow", HUDI_COPY_ON_WRITE, false);
  char table[768];
  snprintf(table, sizeof table, "%s/cow", dir);
  hudi_option off[] = {{"hoodie.parquet.bloom.filter.enabled", "false"}};
  struct ArrowArrayStream s;
  hudi_write_result r;
  rows(&s, 0, 300, 1);
  assert_int_equal(hudi_table_append(&r, t, &s, off, 1, &err), HUDI_OK);
  size_t n;
  assert_int_equal(all_files(table, r.requested_time, &n), 0u);
  assert_int_equal(n, 3);

  /* An upsert through the BLOOM index over files without a filter (or key
   * range): 50 updates (v 1 -> 2) and 10 inserts. */
  rows(&s, 250, 60, 2);
  assert_int_equal(hudi_table_upsert(&r, t, &s, off, 1, &err), HUDI_OK);
  assert_int_equal(r.num_updates, 50);
  assert_int_equal(r.num_inserts, 10);
  assert_int_equal(all_files(table, r.requested_time, &n), 0u);
  int64_t sum, rows_n;
  totals(t, &sum, &rows_n);
  assert_int_equal(rows_n, 310);
  assert_int_equal(sum, 250 * 1 + 60 * 2);

  /* Not true/false: refused, nothing written. */
  hudi_option bad[] = {{"hoodie.parquet.bloom.filter.enabled", "yes"}};
  rows(&s, 0, 5, 9);
  assert_int_equal(hudi_table_upsert(&r, t, &s, bad, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "hoodie.parquet.bloom.filter.enabled"));
  totals(t, &sum, &rows_n);
  assert_int_equal(sum, 250 * 1 + 60 * 2);

  /* The BLOOM index type keeps the filter (Java: ... || index type
   * contains BLOOM). */
  hudi_option bloom_ix[] = {{"hoodie.parquet.bloom.filter.enabled", "false"}, {"hoodie.index.type", "GLOBAL_BLOOM"}};
  rows(&s, 0, 5, 3);
  assert_int_equal(hudi_table_upsert(&r, t, &s, bloom_ix, 2, &err), HUDI_OK);
  assert_int_equal(all_files(table, r.requested_time, &n), 15u);

  /* Default: all four keys again. */
  rows(&s, 100, 5, 4);
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(all_files(table, r.requested_time, &n), 15u);
  totals(t, &sum, &rows_n);
  assert_int_equal(rows_n, 310);
  assert_int_equal(sum, 250 * 1 + 60 * 2 + 5 * (3 - 1) + 5 * (4 - 1));
  hudi_table_free(t);
}

/* MOR with the record index: new keys go to a new base file; with the
 * option off it has no filter, by default it has Spark's. */
static void record_index_table(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = create("mor", HUDI_MERGE_ON_READ, true);
  char table[768];
  snprintf(table, sizeof table, "%s/mor", dir);
  struct ArrowArrayStream s;
  hudi_write_result r;
  rows(&s, 0, 30, 1);
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  size_t n;
  assert_int_equal(all_files(table, r.requested_time, &n), 15u);
  hudi_option off[] = {{"hoodie.parquet.bloom.filter.enabled", "false"}};
  rows(&s, 20, 20, 2); /* 10 updates (log blocks), 10 inserts (base files) */
  assert_int_equal(hudi_table_upsert(&r, t, &s, off, 1, &err), HUDI_OK);
  assert_int_equal(r.num_inserts, 10);
  assert_int_equal(all_files(table, r.requested_time, &n), 0u);
  int64_t sum, rows_n;
  totals(t, &sum, &rows_n);
  assert_int_equal(rows_n, 40);
  assert_int_equal(sum, 20 * 1 + 20 * 2);

  /* hoodie.index.bloom.num_entries set: the filter has the parameters and
   * size of Spark's (sized for 60000 keys whatever the file holds). */
  hudi_option java_size[] = {{"hoodie.index.bloom.num_entries", "60000"}};
  rows(&s, 40, 3, 1);
  assert_int_equal(hudi_table_upsert(&r, t, &s, java_size, 1, &err), HUDI_OK);
  static char files[8][1024];
  n = files_of(table, r.requested_time, files, 8);
  assert_true(n > 0);
  char *ours = NULL, *java = NULL;
  size_t ol = 0, jl = 0;
  assert_int_equal(footer_keys(files[0], &ours, &ol), 15u);
  assert_int_equal(footer_keys(JAVA_FILE, &java, &jl), 15u);
  assert_int_equal(ol, jl);
  hudi_bloom ob, jb;
  assert_int_equal(hudi_bloom_deserialize(&ob, ours, ol, true, &err), HUDI_OK);
  assert_int_equal(hudi_bloom_deserialize(&jb, java, jl, true, &err), HUDI_OK);
  assert_int_equal(ob.vector_size, jb.vector_size);
  assert_int_equal(ob.nb_hash, jb.nb_hash);
  assert_int_equal(ob.nr, jb.nr);
  assert_int_equal(ob.n_rows, jb.n_rows);
  /* Our keys are in ours; and not all in Java's (a sanity check of the
   * comparison). */
  int in_ours = 0, in_java = 0;
  for (int i = 40; i < 43; i++) { /* one per partition, so one per file */
    char k[16];
    snprintf(k, sizeof k, "id-%05d", i);
    in_ours += hudi_bloom_might_contain(&ob, k, strlen(k));
    in_java += hudi_bloom_might_contain(&jb, k, strlen(k));
  }
  assert_int_equal(in_ours, 1);
  assert_int_equal(in_java, 0);
  hudi_bloom_free(&ob);
  free(ours);

  /* Default: each of the 3 files the inserts go to (small-file rewrites of
   * one partition's file group, or new file groups) gets a filter sized for
   * the keys it holds (Java's formulas at fpp 1e-9), which holds them. */
  rows(&s, 43, 3, 1);
  assert_int_equal(hudi_table_upsert(&r, t, &s, NULL, 0, &err), HUDI_OK);
  assert_int_equal(r.num_inserts, 3);
  n = files_of(table, r.requested_time, files, 8);
  assert_int_equal(n, 3u);
  for (size_t f = 0; f < n; f++) {
    assert_int_equal(footer_keys(files[f], &ours, &ol), 15u);
    assert_true(ol < jl / 1000);
    assert_int_equal(hudi_bloom_deserialize(&ob, ours, ol, true, &err), HUDI_OK);
    int64_t keys_in_file = file_rows(files[f]);
    assert_int_equal(ob.nr, keys_in_file);
    assert_int_equal(ob.n_rows, 1);
    assert_int_equal(ob.vector_size, (int32_t)ceil(keys_in_file * (-log(1e-9) / (log(2) * log(2)))));
    assert_int_equal(ob.nb_hash, (int32_t)ceil(ob.vector_size * log(2) / keys_in_file));
    in_ours = 0;
    for (int i = 43; i < 46; i++) {
      char k[16];
      snprintf(k, sizeof k, "id-%05d", i);
      in_ours += hudi_bloom_might_contain(&ob, k, strlen(k));
    }
    assert_true(in_ours >= 1);
    hudi_bloom_free(&ob);
    free(ours);
  }
  hudi_bloom_free(&jb);
  free(java);

  /* Bad values name the option and write nothing. */
  const char *bad_keys[] = {"hoodie.index.bloom.num_entries", "hoodie.index.bloom.fpp",
                            "hoodie.bloom.index.filter.dynamic.max.entries"};
  const char *bad_vals[] = {"0", "1.5", "lots"};
  for (int i = 0; i < 3; i++) {
    hudi_option bad[] = {{bad_keys[i], bad_vals[i]}};
    hudi_error e2 = HUDI_ERROR_INIT;
    rows(&s, 50, 3, 1);
    assert_int_equal(hudi_table_upsert(&r, t, &s, bad, 1, &e2), HUDI_ERR_INVALID_ARG);
    assert_non_null(strstr(e2.message, bad_keys[i]));
  }
  totals(t, &sum, &rows_n);
  assert_int_equal(rows_n, 46);

  /* Compaction follows the option as Java's (same writer factory): its new
   * base files carry no filter when it is off, and rows are unchanged. */
  hudi_option no_small[] = {{"hoodie.parquet.small.file.limit", "0"}};
  rows(&s, 0, 5, 5); /* 5 updates into log files (no small-file rewrite) */
  assert_int_equal(hudi_table_upsert(&r, t, &s, no_small, 1, &err), HUDI_OK);
  assert_int_equal(r.num_updates, 5);
  hudi_compact_result cr;
  assert_int_equal(hudi_table_compact(&cr, t, off, 1, &err), HUDI_OK);
  assert_true(cr.num_file_groups > 0);
  assert_int_equal(all_files(table, cr.requested_time, &n), 0u);
  assert_int_equal((int64_t)n, cr.num_file_groups);
  totals(t, &sum, &rows_n);
  assert_int_equal(rows_n, 46);
  assert_int_equal(sum, 20 * 1 + 20 * 2 + 6 * 1 + 5 * (5 - 1));
  hudi_table_free(t);
}

int main(void) {
  (void)read_lines; /* compact_rows.h: not needed here */
  const struct CMUnitTest tests[] = {cmocka_unit_test(option_off_and_bloom_index),
                                     cmocka_unit_test(record_index_table)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
