/* The Parquet writer fed on its own thread (writer_feed.h): the file it
 * writes is byte for byte the one the writer writes when called directly
 * with the same batches (the direct writer's output is checked against
 * pyarrow in test_writer.c), and a write that fails on the feed's thread
 * comes back from push or finish with the writer's message naming the
 * column; every batch handed over is released (ASan checks). The same
 * holds for a writer encoding its columns on helper threads
 * (encode_threads): the file is the direct writer's, byte for byte, and a
 * failure in a column, whichever thread encodes it, comes back with its
 * message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/view.h"
#include "parquet/reader.h"
#include "parquet/writer.h"
#include "parquet/writer_feed.h"

#define ROWS 3000

static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }

/* Schema: struct { id int64 (required), s utf8 (nullable) }. */
static struct ArrowSchema id_schema = {.format = "l", .name = "id", .flags = 0, .release = noop_schema};
static struct ArrowSchema s_schema = {.format = "u", .name = "s", .flags = ARROW_FLAG_NULLABLE,
                                      .release = noop_schema};
static struct ArrowSchema *kids[2] = {&id_schema, &s_schema};
static struct ArrowSchema root_schema = {.format = "+s", .name = "", .n_children = 2, .children = kids,
                                         .release = noop_schema};

/* A heap batch whose release frees everything: what the feed takes over. */
typedef struct owned {
  struct ArrowArray cols[2];
  struct ArrowArray *col_ptrs[2];
  const void *root_bufs[1];
  const void *id_bufs[2];
  const void *s_bufs[3];
  uint8_t *validity;
  int64_t *ids;
  int32_t *offsets;
  char *chars;
} owned;

static void release_owned(struct ArrowArray *a) {
  owned *o = a->private_data;
  free(o->validity);
  free(o->ids);
  free(o->offsets);
  free(o->chars);
  free(o);
  a->release = NULL;
}

static void release_child(struct ArrowArray *a) { a->release = NULL; }

/* Rows [start, start + ROWS): id = i, s = "v<i>"; with null_id_at >= 0,
 * that row's id is null (refused: the column is required). */
static struct ArrowArray make_batch(int64_t start, int64_t null_id_at) {
  owned *o = calloc(1, sizeof *o);
  assert_non_null(o);
  o->ids = malloc(ROWS * sizeof *o->ids);
  o->offsets = malloc((ROWS + 1) * sizeof *o->offsets);
  o->chars = malloc(ROWS * 24);
  o->validity = calloc((ROWS + 7) / 8, 1);
  assert_true(o->ids && o->offsets && o->chars && o->validity);
  int32_t at = 0;
  for (int64_t i = 0; i < ROWS; i++) {
    o->ids[i] = start + i;
    o->validity[i / 8] |= (uint8_t)(i == null_id_at ? 0 : 1u << (i % 8));
    o->offsets[i] = at;
    at += snprintf(o->chars + at, 24, "v%lld", (long long)(start + i));
  }
  o->offsets[ROWS] = at;
  o->id_bufs[0] = null_id_at >= 0 ? o->validity : NULL;
  o->id_bufs[1] = o->ids;
  o->s_bufs[0] = NULL;
  o->s_bufs[1] = o->offsets;
  o->s_bufs[2] = o->chars;
  o->cols[0] = (struct ArrowArray){.length = ROWS, .null_count = null_id_at >= 0, .n_buffers = 2,
                                   .buffers = o->id_bufs, .release = release_child};
  o->cols[1] = (struct ArrowArray){.length = ROWS, .n_buffers = 3, .buffers = o->s_bufs, .release = release_child};
  o->col_ptrs[0] = &o->cols[0];
  o->col_ptrs[1] = &o->cols[1];
  o->root_bufs[0] = NULL;
  return (struct ArrowArray){.length = ROWS, .n_buffers = 1, .buffers = o->root_bufs, .n_children = 2,
                             .children = o->col_ptrs, .release = release_owned, .private_data = o};
}

/* Small pages and row groups, so batches cross both while queued. */
static hudi_pq_writer_options opts(void) {
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.page_bytes = 4096;
  o.row_group_rows = 7000;
  o.codec = HUDI_PQ_CODEC_ZSTD;
  return o;
}

/* A writer of root_schema with opts() (and encode_threads, and a row-group
 * byte limit) into out. */
static hudi_pq_writer *open_writer_with(hudi_buf *out, int threads, int64_t rg_bytes) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_writer_options o = opts();
  o.encode_threads = threads;
  o.row_group_bytes = rg_bytes;
  hudi_pq_writer *w = NULL;
  if (hudi_pq_writer_open_buf(&w, &root_schema, &o, out, &err) != HUDI_OK) fail_msg("open: %s", err.message);
  return w;
}

static hudi_pq_writer *open_writer(hudi_buf *out) { return open_writer_with(out, 0, 0); }

static void write_all_with(hudi_buf *out, int batches, int fed, int threads, int64_t rg_bytes) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_writer *w = open_writer_with(out, threads, rg_bytes);
  hudi_pq_feed *f = NULL;
  if (fed) assert_int_equal(hudi_pq_feed_start(&f, w, &err), HUDI_OK);
  for (int b = 0; b < batches; b++) {
    struct ArrowArray a = make_batch((int64_t)b * ROWS, -1);
    unsigned flags = b == batches - 1 ? HUDI_PQ_WRITE_LAST : 0;
    if (fed) {
      if (hudi_pq_feed_push(f, &a, flags, &err) != HUDI_OK) fail_msg("push %d: %s", b, err.message);
      assert_null(a.release); /* moved */
    } else {
      if (hudi_pq_writer_write_batch(w, &a, flags, &err) != HUDI_OK) fail_msg("batch %d: %s", b, err.message);
      a.release(&a);
    }
  }
  if (fed && hudi_pq_feed_finish(f, &err) != HUDI_OK) fail_msg("finish: %s", err.message);
  if (hudi_pq_writer_close(w, NULL, &err) != HUDI_OK) fail_msg("close: %s", err.message);
  hudi_pq_writer_free(w);
}

static void write_all(hudi_buf *out, int batches, int fed) { write_all_with(out, batches, fed, 0, 0); }

static void fed_file_equals_direct_file(void **state) {
  (void)state;
  hudi_buf direct, fed;
  hudi_buf_init(&direct, 0);
  hudi_buf_init(&fed, 0);
  write_all(&direct, 9, 0);
  write_all(&fed, 9, 1);
  assert_true(direct.len > 1000);
  assert_int_equal(direct.len, fed.len);
  assert_memory_equal(direct.data, fed.data, direct.len);
  hudi_buf_free(&direct);
  hudi_buf_free(&fed);
}

static void encode_threads_file_equals_direct_file(void **state) {
  (void)state;
  static const int threads[] = {2, 3, 16};
  static const int64_t rg_bytes[] = {0, 20000}; /* rows per group, or a byte limit as a bulk insert sets */
  for (size_t b = 0; b < 2; b++) {
    hudi_buf direct;
    hudi_buf_init(&direct, 0);
    write_all_with(&direct, 9, 0, 1, rg_bytes[b]);
    for (size_t t = 0; t < 3; t++)
      for (int fed = 0; fed < 2; fed++) {
        hudi_buf out;
        hudi_buf_init(&out, 0);
        write_all_with(&out, 9, fed, threads[t], rg_bytes[b]);
        assert_int_equal(direct.len, out.len);
        assert_memory_equal(direct.data, out.data, direct.len);
        hudi_buf_free(&out);
      }
    hudi_buf_free(&direct);
  }
}

/* The same columns, the required one second: with two threads the
 * calling thread starts on the first column, so the failing one usually
 * goes to the helper. */
static struct ArrowSchema *kids_rev[2] = {&s_schema, &id_schema};
static struct ArrowSchema rev_schema = {.format = "+s", .name = "", .n_children = 2, .children = kids_rev,
                                        .release = noop_schema};

static struct ArrowArray make_rev_batch(int64_t start, int64_t null_id_at) {
  struct ArrowArray a = make_batch(start, null_id_at);
  owned *o = a.private_data;
  o->col_ptrs[0] = &o->cols[1];
  o->col_ptrs[1] = &o->cols[0];
  return a;
}

static void failure_in_a_helper_comes_back(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  /* Several tries: whichever thread meets the null, its message comes back. */
  for (int attempt = 0; attempt < 20; attempt++) {
    hudi_pq_writer_options o = opts();
    o.encode_threads = 2;
    o.row_group_bytes = 20000;
    hudi_pq_writer *w = NULL;
    hudi_buf_reset(&out);
    assert_int_equal(hudi_pq_writer_open_buf(&w, &rev_schema, &o, &out, &err), HUDI_OK);
    struct ArrowArray good = make_rev_batch(0, -1), bad = make_rev_batch(ROWS, 17);
    assert_int_equal(hudi_pq_writer_write_batch(w, &good, 0, &err), HUDI_OK);
    assert_int_equal(hudi_pq_writer_write_batch(w, &bad, 0, &err), HUDI_ERR_INVALID_ARG);
    assert_non_null(strstr(err.message, "column 'id': a null"));
    good.release(&good);
    bad.release(&bad);
    assert_int_not_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
    hudi_pq_writer_free(w);
  }
  /* and a thread count out of range is refused by name */
  hudi_pq_writer_options o = opts();
  o.encode_threads = 17;
  hudi_pq_writer *w = NULL;
  assert_int_equal(hudi_pq_writer_open_buf(&w, &root_schema, &o, &out, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "encode_threads"));
  assert_null(w);
  hudi_buf_free(&out);
}

static void failure_on_the_feed_thread_comes_back(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = open_writer(&out);
  hudi_pq_feed *f = NULL;
  assert_int_equal(hudi_pq_feed_start(&f, w, &err), HUDI_OK);
  struct ArrowArray good = make_batch(0, -1), bad = make_batch(ROWS, 17);
  assert_int_equal(hudi_pq_feed_push(f, &good, 0, &err), HUDI_OK);
  assert_int_equal(hudi_pq_feed_push(f, &bad, 0, &err), HUDI_OK); /* fails later, on the feed's thread */
  /* Pushing on: a push sees the failure once the feed has met it; the
   * batches pushed meanwhile are released either way. */
  hudi_status st = HUDI_OK;
  for (int b = 2; b < 40 && st == HUDI_OK; b++) {
    struct ArrowArray more = make_batch((int64_t)b * ROWS, -1);
    st = hudi_pq_feed_push(f, &more, 0, &err);
    assert_null(more.release);
  }
  hudi_error ferr = HUDI_ERROR_INIT;
  hudi_status fst = hudi_pq_feed_finish(f, &ferr);
  assert_int_equal(fst, HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(ferr.message, "id"));
  if (st != HUDI_OK) {
    assert_int_equal(st, HUDI_ERR_INVALID_ARG);
    assert_string_equal(err.message, ferr.message);
  }
  /* The writer failed: it refuses to close. */
  assert_int_not_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

static void finish_without_batches_and_null(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_feed_finish(NULL, &err), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = open_writer(&out);
  hudi_pq_feed *f = NULL;
  assert_int_equal(hudi_pq_feed_start(&f, w, &err), HUDI_OK);
  assert_int_equal(hudi_pq_feed_finish(f, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK); /* an empty file */
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
}

/* ---- hudi_pq_writer_write_runs, and runs as feed tasks ---------------- */

#define MAX_RUNS 512

/* Rows of two batches interleaved as a COW rewrite interleaves them: runs
 * of 1-40 rows of a (the stored rows, every one in order) with single rows
 * of b between them (the updates), then one long run of b. */
static size_t make_runs(hudi_pq_run *runs, const hudi_arrow_view *a, const hudi_arrow_view *b) {
  size_t n = 0;
  int64_t at = 0, ub = 0;
  for (int k = 0; at < ROWS; k++) {
    int64_t len = 1 + (k * 7) % 40;
    if (len > ROWS - at) len = ROWS - at;
    runs[n++] = (hudi_pq_run){a, at, len};
    at += len;
    runs[n++] = (hudi_pq_run){b, ub, 1};
    ub += 3;
  }
  runs[n++] = (hudi_pq_run){b, 1000, 1500};
  assert_true(n <= MAX_RUNS);
  return n;
}

typedef struct runs_task {
  const hudi_pq_run *runs;
  size_t n;
  int *calls, *failed_calls;
} runs_task;

static hudi_status write_runs_task(void *ctx, hudi_pq_writer *w, bool failed, hudi_error *err) {
  runs_task *t = ctx;
  hudi_status st = HUDI_OK;
  if (failed) (*t->failed_calls)++;
  else st = hudi_pq_writer_write_runs(w, t->runs, t->n, err);
  (*t->calls)++;
  free(t);
  return st;
}

/* The file's (id, s) rows, in order, against the runs' rows written
 * `times` times over. */
static void check_rows(const hudi_buf *file, const hudi_pq_run *runs, size_t n, int times) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_reader *r = NULL;
  if (hudi_pq_reader_open_memory(&r, file->data, file->len, "runs.parquet", NULL, &err) != HUDI_OK)
    fail_msg("open: %s", err.message);
  size_t run = 0;
  int pass = 0;
  int64_t in_run = 0, total = 0;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    if (hudi_pq_reader_next(r, &a, &eof, &err) != HUDI_OK) fail_msg("next: %s", err.message);
    if (eof) break;
    const int64_t *ids = a.children[0]->buffers[1];
    const int32_t *offs = a.children[1]->buffers[1];
    const char *chars = a.children[1]->buffers[2];
    for (int64_t i = 0; i < a.length; i++, total++) {
      assert_true(pass < times);
      const hudi_arrow_view *v = runs[run].view;
      int64_t want = ((const int64_t *)(const void *)v->children[0].values)[runs[run].row + in_run];
      char s[24];
      int sl = snprintf(s, sizeof s, "v%lld", (long long)want);
      if (ids[a.children[0]->offset + i] != want) fail_msg("row %lld: id %lld, want %lld", (long long)total,
                                                           (long long)ids[a.children[0]->offset + i], (long long)want);
      int64_t o = a.children[1]->offset + i;
      assert_int_equal(offs[o + 1] - offs[o], sl);
      assert_memory_equal(chars + offs[o], s, (size_t)sl);
      if (++in_run == runs[run].n) {
        in_run = 0;
        if (++run == n) run = 0, pass++;
      }
    }
    a.release(&a);
  }
  assert_int_equal(pass, times);
  hudi_pq_reader_free(r);
}

static void runs_write_their_rows_in_turn(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray aa = make_batch(0, -1), ba = make_batch(100000, -1);
  hudi_arrow_view a, b;
  assert_int_equal(hudi_arrow_view_init(&a, &root_schema, &aa, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_view_init(&b, &root_schema, &ba, &err), HUDI_OK);
  hudi_pq_run runs[MAX_RUNS];
  size_t n = make_runs(runs, &a, &b);
  /* Three times over: 13,500 rows cross the 7,000-row groups (and the
   * 20 KB ones) inside runs; with helpers and without; written here and
   * as feed tasks. */
  static const int threads[] = {1, 2};
  static const int64_t rg_bytes[] = {0, 20000};
  for (size_t t = 0; t < 2; t++)
    for (size_t g = 0; g < 2; g++)
      for (int fed = 0; fed < 2; fed++) {
        hudi_buf out;
        hudi_buf_init(&out, 0);
        hudi_pq_writer *w = open_writer_with(&out, threads[t], rg_bytes[g]);
        hudi_pq_feed *f = NULL;
        int calls = 0, failed_calls = 0;
        if (fed) assert_int_equal(hudi_pq_feed_start(&f, w, &err), HUDI_OK);
        for (int pass = 0; pass < 3; pass++) {
          if (!fed) {
            if (hudi_pq_writer_write_runs(w, runs, n, &err) != HUDI_OK) fail_msg("runs: %s", err.message);
            continue;
          }
          runs_task *task = malloc(sizeof *task);
          assert_non_null(task);
          *task = (runs_task){runs, n, &calls, &failed_calls};
          assert_int_equal(hudi_pq_feed_push_task(f, write_runs_task, task, &err), HUDI_OK);
        }
        if (fed) {
          assert_int_equal(hudi_pq_feed_sync(f, &err), HUDI_OK);
          assert_int_equal(calls, 3); /* all written by the time sync returns */
          assert_int_equal(hudi_pq_feed_finish(f, &err), HUDI_OK);
          assert_int_equal(failed_calls, 0);
        }
        if (hudi_pq_writer_close(w, NULL, &err) != HUDI_OK) fail_msg("close: %s", err.message);
        hudi_pq_writer_free(w);
        check_rows(&out, runs, n, 3);
        hudi_buf_free(&out);
      }
  hudi_arrow_view_clear(&a);
  hudi_arrow_view_clear(&b);
  aa.release(&aa);
  ba.release(&ba);
}

static void a_run_outside_its_view_is_refused(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray aa = make_batch(0, -1);
  hudi_arrow_view a;
  assert_int_equal(hudi_arrow_view_init(&a, &root_schema, &aa, &err), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = open_writer(&out);
  hudi_pq_run runs[2] = {{&a, 0, 10}, {&a, ROWS - 5, 6}};
  assert_int_equal(hudi_pq_writer_write_runs(w, runs, 2, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "run 1: rows [2995, +6)"));
  /* Nothing was written: the writer goes on. */
  runs[1].n = 5;
  assert_int_equal(hudi_pq_writer_write_runs(w, runs, 2, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  check_rows(&out, runs, 2, 1);
  hudi_buf_free(&out);
  hudi_arrow_view_clear(&a);
  aa.release(&aa);
}

/* Tasks queued behind a failed write are still called, with `failed`, so
 * that they free what they hold (ASan counts the leaks). */
static void tasks_after_a_failure_only_free(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray aa = make_batch(0, -1);
  hudi_arrow_view a;
  assert_int_equal(hudi_arrow_view_init(&a, &root_schema, &aa, &err), HUDI_OK);
  hudi_pq_run runs[1] = {{&a, 0, ROWS}};
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_pq_writer *w = open_writer(&out);
  hudi_pq_feed *f = NULL;
  assert_int_equal(hudi_pq_feed_start(&f, w, &err), HUDI_OK);
  struct ArrowArray bad = make_batch(ROWS, 17);
  assert_int_equal(hudi_pq_feed_push(f, &bad, 0, &err), HUDI_OK);
  int calls = 0, failed_calls = 0, pushed = 0;
  hudi_status st = HUDI_OK;
  for (int k = 0; k < 20; k++) {
    runs_task *task = malloc(sizeof *task);
    assert_non_null(task);
    *task = (runs_task){runs, 1, &calls, &failed_calls};
    st = hudi_pq_feed_push_task(f, write_runs_task, task, &err);
    pushed++;
    if (st != HUDI_OK) break;
  }
  hudi_error ferr = HUDI_ERROR_INIT;
  assert_int_equal(hudi_pq_feed_sync(f, &ferr), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(ferr.message, "id"));
  assert_int_equal(hudi_pq_feed_finish(f, &ferr), HUDI_ERR_INVALID_ARG);
  assert_int_equal(calls, pushed);
  assert_int_equal(failed_calls, pushed); /* the bad batch came first: no task wrote */
  assert_int_not_equal(hudi_pq_writer_close(w, NULL, &err), HUDI_OK);
  hudi_pq_writer_free(w);
  hudi_buf_free(&out);
  hudi_arrow_view_clear(&a);
  aa.release(&aa);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fed_file_equals_direct_file),
      cmocka_unit_test(encode_threads_file_equals_direct_file),
      cmocka_unit_test(failure_in_a_helper_comes_back),
      cmocka_unit_test(failure_on_the_feed_thread_comes_back),
      cmocka_unit_test(finish_without_batches_and_null),
      cmocka_unit_test(runs_write_their_rows_in_turn),
      cmocka_unit_test(a_run_outside_its_view_is_refused),
      cmocka_unit_test(tasks_after_a_failure_only_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
