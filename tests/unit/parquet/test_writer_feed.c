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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fed_file_equals_direct_file),
      cmocka_unit_test(encode_threads_file_equals_direct_file),
      cmocka_unit_test(failure_in_a_helper_comes_back),
      cmocka_unit_test(failure_on_the_feed_thread_comes_back),
      cmocka_unit_test(finish_without_batches_and_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
