/* The Parquet reader's API against pyarrow: tests/parquet/make_reader_stats.py
 * writes a file of four row groups and dumps pyarrow's view of every
 * chunk's statistics and the "id" column. Checked here: the Arrow schema
 * mapping of each column, the typed statistics (stats.h) equal pyarrow's,
 * row-group pruning from those statistics reads exactly the kept groups,
 * projection, batch sizes, truncated and corrupted files (errors that name
 * the byte offset, never a crash), and allocation failures at every step
 * (no leaks under ASan). Values of every type and nesting are compared with
 * pyarrow by tests/python/test_parquet_reader.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hudi/alloc.h"
#include "io/faulty.h"
#include "io/storage.h"
#include "parquet/reader.h"
#include "parquet/stats.h"

#define GEN_DIR "parquet_reader_gen"

static uint8_t *slurp_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n + 1);
  if (fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

static hudi_storage *gen_storage(void) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_storage_open(&s, GEN_DIR, NULL, 0, &err) != HUDI_OK) fail_msg("%s", err.message);
  return s;
}

static hudi_pq_reader *open_gen(hudi_storage *s, const hudi_pq_reader_options *o) {
  hudi_pq_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_pq_reader_open(&r, s, "stats.parquet", o, &err) != HUDI_OK) fail_msg("%s", err.message);
  return r;
}

static void format_value(char *out, size_t cap, hudi_pq_stat_kind k, const hudi_pq_stat_value *v) {
  switch (k) {
    case HUDI_PQ_STAT_BOOL: snprintf(out, cap, "%d", (int)v->v.b); break;
    case HUDI_PQ_STAT_INT: snprintf(out, cap, "%lld", (long long)v->v.i); break;
    case HUDI_PQ_STAT_UINT: snprintf(out, cap, "%llu", (unsigned long long)v->v.u); break;
    case HUDI_PQ_STAT_DOUBLE: snprintf(out, cap, "%.17g", v->v.d); break;
    case HUDI_PQ_STAT_DECIMAL: snprintf(out, cap, "%lld", (long long)v->v.dec); break;
    case HUDI_PQ_STAT_BYTES:
      if (v->v.bytes.len == 0) snprintf(out, cap, "(empty)");
      for (size_t i = 0; i < v->v.bytes.len && 2 * i + 2 < cap; i++) sprintf(out + 2 * i, "%02x", v->v.bytes.data[i]);
      break;
    default: snprintf(out, cap, "?");
  }
}

static void schema_mapping(void **state) {
  (void)state;
  hudi_storage *s = gen_storage();
  hudi_pq_reader *r = open_gen(s, NULL);
  const hudi_arrow_field *f = hudi_pq_reader_schema(r);
  static const char *names[] = {"id", "u32", "i8", "f64", "s", "dec", "ts", "flag"};
  static const char *formats[] = {"l", "I", "c", "g", "u", "d:12,2", "tsu:UTC", "b"};
  assert_int_equal(f->n_children, 8);
  for (int i = 0; i < 8; i++) {
    assert_string_equal(f->children[i].name, names[i]);
    assert_string_equal(f->children[i].format, formats[i]);
  }
  assert_int_equal(hudi_pq_reader_meta(r)->num_row_groups, 4);
  assert_int_equal(hudi_pq_reader_find_leaf(r, "dec"), 5);
  assert_int_equal(hudi_pq_reader_find_leaf(r, "nope"), -1);
  hudi_pq_reader_free(r);
  hudi_storage_free(s);
}

static void statistics_match_pyarrow(void **state) {
  (void)state;
  hudi_storage *s = gen_storage();
  hudi_pq_reader *r = open_gen(s, NULL);
  size_t len;
  char *txt = (char *)slurp_file(GEN_DIR "/stats.txt", &len);
  assert_non_null(txt);
  int lines = 0;
  for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
    unsigned g;
    char path[64], nulls[32], lo[128], hi[128];
    long long rows;
    assert_int_equal(sscanf(line, "%u %63s %lld %31s %127s %127s", &g, path, &rows, nulls, lo, hi), 6);
    int64_t leaf = hudi_pq_reader_find_leaf(r, path);
    assert_true(leaf >= 0);
    hudi_pq_col_stats st;
    hudi_pq_reader_stats(&st, r, g, (uint32_t)leaf);
    char got[256];
    snprintf(got, sizeof got, "%lld", (long long)st.null_count);
    if (strcmp(nulls, "-") != 0) assert_string_equal(got, nulls);
    if (strcmp(lo, "-") != 0) {
      assert_true(st.has_min);
      format_value(got, sizeof got, st.kind, &st.min);
      if (strcmp(got, lo) != 0) fail_msg("row group %u column %s: min %s, pyarrow %s", g, path, got, lo);
    }
    if (strcmp(hi, "-") != 0) {
      assert_true(st.has_max);
      format_value(got, sizeof got, st.kind, &st.max);
      if (strcmp(got, hi) != 0) fail_msg("row group %u column %s: max %s, pyarrow %s", g, path, got, hi);
    }
    assert_int_equal(st.num_values, rows);
    lines++;
  }
  assert_int_equal(lines, 32);
  free(txt);
  hudi_pq_reader_free(r);
  hudi_storage_free(s);
}

/* Keeps row groups whose "id" range meets [0, 1500]. */
static bool id_filter(void *ctx, const hudi_pq_reader *r, uint32_t rg) {
  (void)ctx;
  hudi_pq_col_stats st;
  hudi_pq_reader_stats(&st, r, rg, (uint32_t)hudi_pq_reader_find_leaf(r, "id"));
  if (st.has_max && st.max.v.i < 0) return false;
  if (st.has_min && st.min.v.i > 1500) return false;
  return true;
}

/* Reads every batch; returns the "id" values (column 0) and batch count. */
static int64_t read_ids(hudi_pq_reader *r, int64_t *ids, int64_t cap, int *batches, int64_t max_batch) {
  hudi_error err = HUDI_ERROR_INIT;
  int64_t n = 0;
  *batches = 0;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    if (hudi_pq_reader_next(r, &a, &eof, &err) != HUDI_OK) fail_msg("%s", err.message);
    if (eof) break;
    (*batches)++;
    assert_true(a.length <= max_batch);
    assert_true(a.n_children >= 1);
    const struct ArrowArray *c = a.children[0];
    assert_int_equal(c->length, a.length);
    assert_int_equal(c->null_count, 0);
    const int64_t *v = c->buffers[1];
    for (int64_t i = 0; i < c->length && n < cap; i++) ids[n++] = v[i];
    a.release(&a);
  }
  return n;
}

static int64_t *expected_ids(size_t *n) {
  size_t len;
  char *txt = (char *)slurp_file(GEN_DIR "/values.txt", &len);
  assert_non_null(txt);
  int64_t *v = malloc(sizeof *v * 5000);
  size_t k = 0;
  for (char *line = strtok(txt, "\n"); line && k < 5000; line = strtok(NULL, "\n")) v[k++] = strtoll(line, NULL, 10);
  free(txt);
  *n = k;
  return v;
}

static void pruning_reads_kept_groups(void **state) {
  (void)state;
  hudi_storage *s = gen_storage();
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.filter = id_filter;
  o.batch_size = 300;
  size_t flen;
  free(slurp_file(GEN_DIR "/stats.parquet", &flen));
  o.file_size = flen; /* known size: no stat */
  hudi_pq_reader *r = open_gen(s, &o);
  size_t n_exp;
  int64_t *exp = expected_ids(&n_exp);
  assert_int_equal(n_exp, 4000);
  int64_t got[5000];
  int batches;
  int64_t n = read_ids(r, got, 5000, &batches, 300);
  /* Row groups 1 and 2 (rows 1000..2999) meet the range; 0 and 3 do not. */
  assert_int_equal(n, 2000);
  assert_memory_equal(got, exp + 1000, 2000 * sizeof(int64_t));
  assert_int_equal(hudi_pq_reader_row_groups_skipped(r), 2);
  assert_int_equal(batches, 2 * 4); /* 300 + 300 + 300 + 100 per group */
  free(exp);
  hudi_pq_reader_free(r);
  hudi_storage_free(s);
}

static void projection_and_stream(void **state) {
  (void)state;
  hudi_storage *s = gen_storage();
  static const char *cols[] = {"s", "id"};
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = 2;
  hudi_pq_reader *r = open_gen(s, &o);
  const hudi_arrow_field *f = hudi_pq_reader_schema(r);
  assert_int_equal(f->n_children, 2);
  assert_string_equal(f->children[0].name, "id"); /* file order */
  assert_string_equal(f->children[1].name, "s");
  for (uint32_t i = 0; i < hudi_pq_reader_num_leaves(r); i++)
    assert_int_equal(hudi_pq_reader_leaf_selected(r, i), i == 0 || i == 4);
  struct ArrowArrayStream st;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_reader_stream(&st, r, &err), HUDI_OK);
  struct ArrowSchema sc;
  assert_int_equal(st.get_schema(&st, &sc), 0);
  assert_int_equal(sc.n_children, 2);
  assert_string_equal(sc.children[1]->format, "u");
  sc.release(&sc);
  size_t n_exp;
  int64_t *exp = expected_ids(&n_exp);
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(st.get_next(&st, &a), 0);
    if (!a.release) break;
    const int64_t *v = a.children[0]->buffers[1];
    assert_memory_equal(v, exp + rows, (size_t)a.length * sizeof(int64_t));
    /* Strings: offsets are monotone and end within the data. */
    const int32_t *off = a.children[1]->buffers[1];
    for (int64_t i = 0; i < a.length; i++) assert_true(off[i] <= off[i + 1]);
    rows += a.length;
    a.release(&a);
  }
  assert_int_equal(rows, 4000);
  free(exp);
  st.release(&st);
  hudi_storage_free(s);
}

/* Reads the whole file from memory; returns the status. */
static hudi_status read_all_memory(const uint8_t *data, size_t len, hudi_error *err) {
  hudi_pq_reader *r = NULL;
  hudi_status st = hudi_pq_reader_open_memory(&r, data, len, "mem.parquet", NULL, err);
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_pq_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    a.release(&a);
  }
  hudi_pq_reader_free(r);
  return st;
}

static void truncated_and_corrupt(void **state) {
  (void)state;
  size_t len;
  uint8_t *file = slurp_file(GEN_DIR "/stats.parquet", &len);
  assert_non_null(file);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(read_all_memory(file, len, &err), HUDI_OK);
  size_t cuts[] = {0, 4, 11, 12, 100, len / 2, len - 9, len - 5, len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    hudi_error_clear(&err);
    hudi_status st = read_all_memory(file, cuts[i], &err);
    assert_int_not_equal(st, HUDI_OK);
    assert_non_null(strstr(err.message, "mem.parquet"));
  }
  /* A cut that keeps a valid-looking tail: move the footer forward so the
   * column chunks it points at lie past the end. */
  uint32_t flen;
  memcpy(&flen, file + len - 8, 4);
  size_t short_len = 4 + flen + 8;
  uint8_t *shortf = malloc(short_len);
  memcpy(shortf, "PAR1", 4);
  memcpy(shortf + 4, file + len - 8 - flen, flen + 8);
  hudi_error_clear(&err);
  assert_int_equal(read_all_memory(shortf, short_len, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte"));
  free(shortf);
  /* Flipped bytes in the data pages: an error naming the column and the
   * byte offset, or a successful read, never a crash. */
  uint8_t *bad = malloc(len);
  int errors = 0;
  for (size_t k = 0; k < 300; k++) {
    memcpy(bad, file, len);
    size_t pos = 4 + (k * 104729u) % (len - 8 - flen - 4);
    bad[pos] ^= (uint8_t)(0x41 + k);
    hudi_error_clear(&err);
    if (read_all_memory(bad, len, &err) != HUDI_OK) {
      errors++;
      if (!strstr(err.message, "byte offset") && !strstr(err.message, "parquet column"))
        fail_msg("error without a location: %s", err.message);
    }
  }
  assert_true(errors > 0);
  free(bad);
  free(file);
}

static void allocation_failures(void **state) {
  (void)state;
  size_t len;
  uint8_t *file = slurp_file(GEN_DIR "/stats.parquet", &len);
  assert_non_null(file);
  int failed = 0;
  for (long n = 0;; n++) {
    hudi_alloc_fail_after(n);
    hudi_error err = HUDI_ERROR_INIT;
    hudi_status st = read_all_memory(file, len, &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) break;
    assert_true(st == HUDI_ERR_NOMEM || st == HUDI_ERR_LIMIT);
    failed++;
  }
  assert_true(failed > 10);
  free(file);
}

/* Ranged reads: one for the footer, then one per projected chunk of each
 * row group read; storage failures surface naming the file. */
static void reads_only_what_is_needed(void **state) {
  (void)state;
  hudi_storage *inner = gen_storage(), *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_faulty_storage_wrap(&s, inner, true, &err), HUDI_OK);
  size_t flen;
  free(slurp_file(GEN_DIR "/stats.parquet", &flen));
  static const char *cols[] = {"id", "s"};
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.columns = cols;
  o.n_columns = 2;
  o.file_size = flen;
  hudi_pq_reader *r = open_gen(s, &o);
  assert_int_equal(hudi_faulty_storage_calls(s, HUDI_STORAGE_OP_STAT), 0);
  assert_int_equal(hudi_faulty_storage_calls(s, HUDI_STORAGE_OP_READ), 1);
  int64_t ids[5000];
  int batches;
  assert_int_equal(read_ids(r, ids, 5000, &batches, 65536), 4000);
  assert_int_equal(hudi_faulty_storage_calls(s, HUDI_STORAGE_OP_READ), 1 + 4 * 2);
  hudi_pq_reader_free(r);
  /* With pruning: two row groups, two chunks each. */
  hudi_faulty_storage_reset_counts(s);
  o.filter = id_filter;
  r = open_gen(s, &o);
  assert_int_equal(read_ids(r, ids, 5000, &batches, 65536), 2000);
  assert_int_equal(hudi_faulty_storage_calls(s, HUDI_STORAGE_OP_READ), 1 + 2 * 2);
  hudi_pq_reader_free(r);
  /* The fourth read fails; then the third is cut short. */
  o.filter = NULL;
  hudi_fault f = {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_READ, 4, 0, false};
  hudi_fault sh = {HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_READ, 3, 10, false};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(hudi_faulty_storage_arm(s, k ? &sh : &f, &err), HUDI_OK);
    r = open_gen(s, &o);
    hudi_status st = HUDI_OK;
    for (int n = 0; st == HUDI_OK && n < 10; n++) {
      struct ArrowArray a;
      bool eof = false;
      st = hudi_pq_reader_next(r, &a, &eof, &err);
      if (st == HUDI_OK && !eof) a.release(&a);
      if (eof) break;
    }
    assert_int_equal(st, k ? HUDI_ERR_CORRUPT : HUDI_ERR_IO);
    assert_non_null(strstr(err.message, "stats.parquet"));
    /* Read 4 is row group 1's first chunk; read 3 row group 0's second. */
    if (!strstr(err.message, k ? "row group 0" : "row group 1")) fail_msg("%s", err.message);
    if (k && !strstr(err.message, "offset")) fail_msg("%s", err.message);
    hudi_pq_reader_free(r);
    hudi_faulty_storage_disarm(s);
  }
  hudi_storage_free(s);
}

static int generate(void **state) {
  (void)state;
  const char *py = getenv("HUDI_PYTHON");
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/parquet/make_reader_stats.py' '%s'",
           py ? py : HUDI_SOURCE_DIR "/.venv/bin/python", HUDI_SOURCE_DIR, GEN_DIR);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "generator failed (%d): %s\n", rc, cmd);
    return -1;
  }
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(schema_mapping),
      cmocka_unit_test(statistics_match_pyarrow),
      cmocka_unit_test(pruning_reads_kept_groups),
      cmocka_unit_test(projection_and_stream),
      cmocka_unit_test(truncated_and_corrupt),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(reads_only_what_is_needed),
  };
  return cmocka_run_group_tests(tests, generate, NULL);
}
