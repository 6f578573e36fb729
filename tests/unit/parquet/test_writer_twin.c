/* Twin columns (hudi_pq_writer_twin): a column declared equal to a later
 * one is written from that one's pages. The file must be byte for byte the
 * one written without the declaration (whose bytes test_writer.c checks
 * against pyarrow): over dictionary and PLAIN pages, a dictionary falling
 * back, several row groups cut by rows or by bytes, nulls, helper threads
 * and a row group written column by column, alone or after held ones. A
 * row where the two differ fails the write naming both columns and the
 * row, in either kind of row group; columns Parquet does
 * not store alike are declined. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "parquet/writer.h"

static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }

/* struct { key utf8?, n int64?, copy utf8?, req utf8 (required), bin binary? } */
static struct ArrowSchema key_s = {.format = "u", .name = "key", .flags = ARROW_FLAG_NULLABLE, .release = noop_schema};
static struct ArrowSchema n_s = {.format = "l", .name = "n", .flags = ARROW_FLAG_NULLABLE, .release = noop_schema};
static struct ArrowSchema copy_s = {.format = "u", .name = "copy", .flags = ARROW_FLAG_NULLABLE,
                                    .release = noop_schema};
static struct ArrowSchema req_s = {.format = "u", .name = "req", .flags = 0, .release = noop_schema};
static struct ArrowSchema bin_s = {.format = "z", .name = "bin", .flags = ARROW_FLAG_NULLABLE, .release = noop_schema};
static struct ArrowSchema *kids[5] = {&key_s, &n_s, &copy_s, &req_s, &bin_s};
static struct ArrowSchema root = {.format = "+s", .name = "", .n_children = 5, .children = kids,
                                  .release = noop_schema};

#define BATCH 2500

/* How a batch's rows look: key of row i, null where null_every divides i
 * (0: never); copy equal to it except at row differ_at (-1: nowhere) or
 * with its nulls shifted by one row (shift_nulls). */
typedef struct shape {
  int null_every;
  int64_t differ_at;
  bool shift_nulls;
} shape;

/* The first rows repeat a few values (a dictionary that pays), later ones
 * are all distinct and long (it falls back to PLAIN past the page size). */
static int key_text(char *out, size_t cap, int64_t i) {
  if (i < 6000) return snprintf(out, cap, "doc-%lld", (long long)(i % 13));
  return snprintf(out, cap, "%016llx-%08llx-key", (unsigned long long)(i * 0x9E3779B97F4A7C15ull),
                  (unsigned long long)i);
}

static bool is_null_row(const shape *sh, int64_t i) { return sh->null_every && i % sh->null_every == 0; }

static struct ArrowArray make_batch(int64_t start, int64_t rows, const shape *sh) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_from_schema(&f, &root, false, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb = NULL;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  char t[96];
  for (int64_t i = start; i < start + rows; i++) {
    int n = key_text(t, sizeof t, i);
    hudi_arrow_builder *key = hudi_arrow_batch_builder_column(bb, 0), *copy = hudi_arrow_batch_builder_column(bb, 2);
    if (is_null_row(sh, i)) assert_int_equal(hudi_arrow_builder_append_null(key, &err), HUDI_OK);
    else assert_int_equal(hudi_arrow_builder_append_bytes(key, t, n, &err), HUDI_OK);
    bool copy_null = is_null_row(sh, sh->shift_nulls ? i + 1 : i);
    if (copy_null) assert_int_equal(hudi_arrow_builder_append_null(copy, &err), HUDI_OK);
    else if (i == sh->differ_at) assert_int_equal(hudi_arrow_builder_append_bytes(copy, "other", 5, &err), HUDI_OK);
    else assert_int_equal(hudi_arrow_builder_append_bytes(copy, t, n, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), i, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_bytes(hudi_arrow_batch_builder_column(bb, 3), t, n, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_bytes(hudi_arrow_batch_builder_column(bb, 4), t, n, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
  return a;
}

typedef struct run {
  int batches;
  int64_t rows_per_batch;
  int threads;
  int64_t rg_rows, rg_bytes;
  bool twin;
  shape sh;
} run;

/* Writes the batches; the status of the first failing call (write or
 * close), its message in err. */
static hudi_status write_file(const run *r, hudi_buf *out, hudi_error *err) {
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.page_bytes = 4096;
  o.dictionary_page_bytes = 2048;
  o.row_group_rows = r->rg_rows;
  o.row_group_bytes = r->rg_bytes;
  o.encode_threads = r->threads;
  o.codec = HUDI_PQ_CODEC_ZSTD;
  hudi_pq_writer *w = NULL;
  hudi_status st = hudi_pq_writer_open_buf(&w, &root, &o, out, err);
  if (st == HUDI_OK && r->twin) assert_true(hudi_pq_writer_twin(w, 0, 2));
  for (int b = 0; st == HUDI_OK && b < r->batches; b++) {
    struct ArrowArray a = make_batch(b * r->rows_per_batch, r->rows_per_batch, &r->sh);
    st = hudi_pq_writer_write_batch(w, &a, b == r->batches - 1 ? HUDI_PQ_WRITE_LAST : 0, err);
    a.release(&a);
  }
  hudi_pq_write_summary sum;
  memset(&sum, 0, sizeof sum);
  if (st == HUDI_OK) st = hudi_pq_writer_close(w, &sum, err);
  if (st == HUDI_OK) {
    /* The twin's chunk metadata is its source's, under its own name. */
    assert_string_equal(sum.columns[0].path, "key");
    assert_string_equal(sum.columns[2].path, "copy");
    assert_int_equal(sum.columns[0].compressed_size, sum.columns[2].compressed_size);
    assert_int_equal(sum.columns[0].null_count, sum.columns[2].null_count);
    if (getenv("TWIN_DEBUG")) fprintf(stderr, "row groups %u, %lld bytes\n", sum.num_row_groups, (long long)sum.file_size);
    hudi_pq_write_summary_free(&sum);
  }
  hudi_pq_writer_free(w);
  return st;
}

static void same_file_with_and_without(run r) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf plain, twin;
  hudi_buf_init(&plain, 0);
  hudi_buf_init(&twin, 0);
  r.twin = false;
  if (write_file(&r, &plain, &err) != HUDI_OK) fail_msg("plain: %s", err.message);
  r.twin = true;
  if (write_file(&r, &twin, &err) != HUDI_OK) fail_msg("twin: %s", err.message);
  assert_true(plain.len > 10000);
  assert_int_equal(plain.len, twin.len);
  assert_memory_equal(plain.data, twin.data, plain.len);
  hudi_buf_free(&plain);
  hudi_buf_free(&twin);
}

static void twin_file_is_the_plain_file(void **state) {
  (void)state;
  /* Row groups by rows, by bytes (as a bulk insert cuts them); helpers. */
  for (int threads = 0; threads <= 2; threads += 2) {
    same_file_with_and_without((run){6, BATCH, threads, 4000, 0, false, {0, -1, false}});
    /* Small batches: a row group closes within a few of the limit, so a
     * twin counted short would move the cuts. */
    same_file_with_and_without((run){60, 250, threads, 1 << 20, 40000, false, {0, -1, false}});
    same_file_with_and_without((run){60, 250, threads, 1 << 20, 40000, false, {7, -1, false}});
  }
}

static void whole_row_group_column_by_column(void **state) {
  (void)state;
  /* One batch that is the whole file, written as the last: each column
   * streams out as it is encoded, the twin encoded too. Then two row
   * groups of one batch each, both column by column. */
  same_file_with_and_without((run){1, 9000, 0, 1 << 20, 0, false, {5, -1, false}});
  same_file_with_and_without((run){2, 9000, 0, 9000, 0, false, {0, -1, false}});
  /* A held row group (the twin copied, not encoded), then the last one
   * column by column (the twin encoded, its page sizes estimated as if
   * it had been all along). */
  same_file_with_and_without((run){3, 2500, 0, 5000, 0, false, {0, -1, false}});
  same_file_with_and_without((run){5, 2500, 2, 5000, 0, false, {9, -1, false}});
}

static void a_differing_row_fails_the_write(void **state) {
  (void)state;
  static const shape bad[] = {{0, 7777, false}, {0, 6000, false}, {11, -1, true}};
  static const char *const rows[] = {"row 7777", "row 6000", "row 0"};
  for (int threads = 0; threads <= 2; threads += 2)
    for (size_t k = 0; k < 3; k++) {
      hudi_error err = HUDI_ERROR_INIT;
      hudi_buf out;
      hudi_buf_init(&out, 0);
      run r = {6, BATCH, threads, 1 << 20, 30000, true, bad[k]};
      assert_int_equal(write_file(&r, &out, &err), HUDI_ERR_INVALID_ARG);
      assert_non_null(strstr(err.message, "'key'"));
      assert_non_null(strstr(err.message, "'copy'"));
      if (!strstr(err.message, rows[k])) fail_msg("case %zu: %s", k, err.message);
      hudi_buf_free(&out);
    }
  /* In a row group written column by column, where the twin is encoded. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  run r = {1, 9000, 0, 1 << 20, 0, true, {0, 4321, false}};
  assert_int_equal(write_file(&r, &out, &err), HUDI_ERR_INVALID_ARG);
  if (!strstr(err.message, "row 4321")) fail_msg("column by column: %s", err.message);
  hudi_buf_free(&out);
}

static void unlike_columns_are_declined(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = NULL;
  assert_int_equal(hudi_pq_writer_open_buf(&w, &root, NULL, &out, &err), HUDI_OK);
  assert_false(hudi_pq_writer_twin(w, 2, 0)); /* the source must come later */
  assert_false(hudi_pq_writer_twin(w, 0, 1)); /* string and int64 */
  assert_false(hudi_pq_writer_twin(w, 2, 3)); /* optional and required */
  assert_false(hudi_pq_writer_twin(w, 0, 0));
  assert_false(hudi_pq_writer_twin(w, 0, 9)); /* no such column */
  assert_true(hudi_pq_writer_twin(w, 0, 4));  /* string and binary: the same pages */
  assert_true(hudi_pq_writer_twin(w, 2, 4));  /* two twins of one source */
  assert_false(hudi_pq_writer_twin(w, 0, 2)); /* 0 is a twin already */
  hudi_pq_writer_free(w);
  assert_int_equal(hudi_pq_writer_open_buf(&w, &root, NULL, &out, &err), HUDI_OK);
  assert_true(hudi_pq_writer_twin(w, 0, 2));
  assert_false(hudi_pq_writer_twin(w, 2, 4)); /* 2 is a source: no chains */
  hudi_pq_writer_free(w);
  /* Nothing once rows are written. */
  assert_int_equal(hudi_pq_writer_open_buf(&w, &root, NULL, &out, &err), HUDI_OK);
  shape sh = {0, -1, false};
  struct ArrowArray a = make_batch(0, 100, &sh);
  assert_int_equal(hudi_pq_writer_write_batch(w, &a, 0, &err), HUDI_OK);
  a.release(&a);
  assert_false(hudi_pq_writer_twin(w, 0, 2));
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(twin_file_is_the_plain_file),
      cmocka_unit_test(whole_row_group_column_by_column),
      cmocka_unit_test(a_differing_row_fails_the_write),
      cmocka_unit_test(unlike_columns_are_declined),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
