/* The local storage backend, checked against plain POSIX calls in a fresh
 * temporary directory per test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <time.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io/storage.h"
#include "io_test.h"

typedef struct fixture {
  char *dir;
  hudi_storage *s;
} fixture;

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  fx->dir = io_make_temp_dir();
  hudi_error err = HUDI_ERROR_INIT;
  /* fsync stays on: the default path is the one under test. */
  if (hudi_storage_open(&fx->s, fx->dir, NULL, 0, &err) != HUDI_OK) {
    fprintf(stderr, "open: %s\n", err.message);
    return -1;
  }
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  hudi_storage_free(fx->s);
  int rc = io_rm_rf(fx->dir);
  free(fx->dir);
  free(fx);
  return rc;
}

static void fill_pattern(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 7 % 251);
}

static void write_creates_parents_and_reads_back(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  time_t before = time(NULL);
  assert_int_equal(hudi_storage_write(fx->s, "a/b/c.txt", "hello world", 11, 0, &err), HUDI_OK);
  size_t len;
  char *got = io_get(fx->dir, "a/b/c.txt", &len);
  assert_non_null(got);
  assert_int_equal(len, 11);
  assert_memory_equal(got, "hello world", 11);
  free(got);
  assert_int_equal(io_count_temp(fx->dir, "a/b"), 0);

  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "a/b/c.txt", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 11);
  assert_memory_equal(b.data, "hello world", 11);
  hudi_buf_free(&b);

  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(fx->s, "a/b/c.txt", &st, &err), HUDI_OK);
  assert_int_equal(st.size, 11);
  assert_false(st.is_dir);
  assert_true(st.mtime_ms >= (int64_t)(before - 2) * 1000);
  assert_true(st.mtime_ms <= (int64_t)(time(NULL) + 2) * 1000);
  assert_int_equal(hudi_storage_stat(fx->s, "a/b", &st, &err), HUDI_OK);
  assert_true(st.is_dir);
  assert_int_equal(hudi_storage_stat(fx->s, "", &st, &err), HUDI_OK);
  assert_true(st.is_dir);

  assert_int_equal(hudi_storage_stat(fx->s, "a/nope", &st, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "a/nope"));
  assert_non_null(strstr(err.message, fx->dir));
  bool exists = true;
  assert_int_equal(hudi_storage_exists(fx->s, "a/nope", &exists, &err), HUDI_OK);
  assert_false(exists);
  assert_int_equal(hudi_storage_exists(fx->s, "a/b/c.txt", &exists, &err), HUDI_OK);
  assert_true(exists);

  /* An empty object is an object. */
  assert_int_equal(hudi_storage_write(fx->s, "empty", NULL, 0, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_stat(fx->s, "empty", &st, &err), HUDI_OK);
  assert_int_equal(st.size, 0);
  assert_true(io_exists(fx->dir, "empty"));
}

static void ranged_reads_report_eof(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t data[1000], got[64];
  fill_pattern(data, sizeof data);
  io_put(fx->dir, "f.bin", data, sizeof data);
  size_t n = 99;

  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 100, got, 50, &n, &err), HUDI_OK);
  assert_int_equal(n, 50);
  assert_memory_equal(got, data + 100, 50);
  /* Straddling the end: the bytes that are there, and n says how many. */
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 990, got, 50, &n, &err), HUDI_OK);
  assert_int_equal(n, 10);
  assert_memory_equal(got, data + 990, 10);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 1000, got, 10, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 5000, got, 10, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 0, got, 0, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);

  assert_int_equal(hudi_storage_read_exact(fx->s, "f.bin", 960, got, 40, &err), HUDI_OK);
  assert_memory_equal(got, data + 960, 40);
  assert_int_equal(hudi_storage_read_exact(fx->s, "f.bin", 990, got, 50, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "f.bin"));
  assert_non_null(strstr(err.message, "offset 990"));
  assert_non_null(strstr(err.message, "after 10"));

  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_buf_append(&b, "xy", 2, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read_buf(fx->s, "f.bin", 995, 20, &b, &n, &err), HUDI_OK);
  assert_int_equal(n, 5);
  assert_int_equal(b.len, 7);
  assert_memory_equal(b.data, "xy", 2);
  assert_memory_equal(b.data + 2, data + 995, 5);
  assert_int_equal(hudi_storage_read_buf(fx->s, "f.bin", 995, 20, &b, NULL, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(b.len, 7);
  assert_int_equal(hudi_storage_read_buf(fx->s, "f.bin", 0, 1000, &b, NULL, &err), HUDI_OK);
  assert_int_equal(b.len, 1007);
  assert_memory_equal(b.data + 7, data, 1000);
  hudi_buf_free(&b);

  assert_int_equal(hudi_storage_read(fx->s, "missing.bin", 0, got, 10, &n, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "missing.bin"));
  io_mkdir(fx->dir, "d");
  assert_int_equal(hudi_storage_read(fx->s, "d", 0, got, 10, &n, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "is a directory"));
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", (uint64_t)INT64_MAX + 1, got, 10, &n, &err),
                   HUDI_ERR_INVALID_ARG);
}

static void read_all_respects_caps(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t data[1000];
  fill_pattern(data, sizeof data);
  io_put(fx->dir, "f.bin", data, sizeof data);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_buf_append(&b, "pre", 3, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read_all(fx->s, "f.bin", 999, &b, &err), HUDI_ERR_LIMIT);
  assert_non_null(strstr(err.message, "1000 bytes"));
  assert_non_null(strstr(err.message, "f.bin"));
  assert_int_equal(b.len, 3);
  assert_int_equal(hudi_storage_read_all(fx->s, "f.bin", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 1003);
  assert_memory_equal(b.data + 3, data, 1000);
  hudi_buf_free(&b);

  /* The buffer's own cap bounds the object too. */
  hudi_buf_init(&b, 500);
  assert_int_equal(hudi_storage_read_all(fx->s, "f.bin", SIZE_MAX, &b, &err), HUDI_ERR_LIMIT);
  assert_int_equal(b.len, 0);
  hudi_buf_free(&b);

  io_put(fx->dir, "zero", "", 0);
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "zero", 0, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "nope", 10, &b, &err), HUDI_ERR_NOT_FOUND);
  io_mkdir(fx->dir, "d");
  assert_int_equal(hudi_storage_read_all(fx->s, "d", 10, &b, &err), HUDI_ERR_NOT_FOUND);
  hudi_buf_free(&b);
}

/* ---- atomic replacement under a concurrent reader --------------------- */

#define BIG 200000
typedef struct race_ctx {
  hudi_storage *s;
  _Atomic int stop;
  _Atomic int torn; /* reads that saw a mix or a prefix */
  int reads;  /* successful reads */
} race_ctx;

static void *reader_main(void *arg) {
  race_ctx *c = arg;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  while (!c->stop) {
    hudi_buf_reset(&b);
    if (hudi_storage_read_all(c->s, "t/obj", BIG, &b, NULL) != HUDI_OK) continue;
    c->reads++;
    /* Old content: BIG/2 'a's. New content: BIG 'b's. Anything else is torn. */
    uint8_t want = b.len == BIG / 2 ? 'a' : 'b';
    if (b.len != BIG / 2 && b.len != BIG) {
      c->torn++;
      continue;
    }
    for (size_t i = 0; i < b.len; i++)
      if (b.data[i] != want) {
        c->torn++;
        break;
      }
  }
  hudi_buf_free(&b);
  return NULL;
}

static void write_is_atomic_for_readers(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *fast;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&fast, fx->dir, &opt, 1, &err), HUDI_OK);
  uint8_t *a = malloc(BIG), *bb = malloc(BIG);
  memset(a, 'a', BIG);
  memset(bb, 'b', BIG);
  assert_int_equal(hudi_storage_write(fast, "t/obj", a, BIG / 2, 0, &err), HUDI_OK);
  race_ctx c = {fast, 0, 0, 0};
  pthread_t th;
  pthread_create(&th, NULL, reader_main, &c);
  for (int i = 0; i < 300; i++) {
    int even = i % 2 == 0;
    assert_int_equal(hudi_storage_write(fast, "t/obj", even ? bb : a, even ? BIG : BIG / 2, 0, &err),
                     HUDI_OK);
  }
  c.stop = 1;
  pthread_join(th, NULL);
  assert_int_equal(c.torn, 0);
  assert_true(c.reads > 0);
  assert_int_equal(io_count_temp(fx->dir, "t"), 0);

  /* The same writes done in place (HUDI_WRITE_DIRECT) do tear: this is what
   * proves the reader above would have noticed. */
  c.stop = 0;
  c.reads = 0;
  pthread_create(&th, NULL, reader_main, &c);
  for (int i = 0; i < 300 && c.torn == 0; i++) {
    int even = i % 2 == 0;
    assert_int_equal(hudi_storage_write(fast, "t/obj", even ? bb : a, even ? BIG : BIG / 2,
                                        HUDI_WRITE_DIRECT, &err),
                     HUDI_OK);
  }
  c.stop = 1;
  pthread_join(th, NULL);
  if (c.torn == 0) print_message("note: direct writes happened not to tear in this run\n");
  free(a);
  free(bb);
  hudi_storage_free(fast);
}

static void write_replaces_and_direct_truncates(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write(fx->s, "x", "long content", 12, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(fx->s, "x", "short", 5, 0, &err), HUDI_OK);
  size_t len;
  char *got = io_get(fx->dir, "x", &len);
  assert_int_equal(len, 5);
  assert_memory_equal(got, "short", 5);
  free(got);
  assert_int_equal(hudi_storage_write(fx->s, "d/y", "long content", 12, HUDI_WRITE_DIRECT, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(fx->s, "d/y", "tiny", 4, HUDI_WRITE_DIRECT, &err), HUDI_OK);
  got = io_get(fx->dir, "d/y", &len);
  assert_int_equal(len, 4);
  assert_memory_equal(got, "tiny", 4);
  free(got);

  /* A directory in the way: an error naming it, and no temp file left. */
  io_mkdir(fx->dir, "dir");
  assert_int_not_equal(hudi_storage_write(fx->s, "dir", "z", 1, 0, &err), HUDI_OK);
  assert_non_null(strstr(err.message, "dir"));
  assert_int_equal(io_count_temp(fx->dir, ""), 0);
  /* A file in the way of a parent directory. */
  assert_int_not_equal(hudi_storage_write(fx->s, "x/child", "z", 1, 0, &err), HUDI_OK);
  assert_non_null(strstr(err.message, "x"));

  assert_int_equal(hudi_storage_write(fx->s, "x", "z", 1, 0x80, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_write(fx->s, "x", "z", 1, HUDI_WRITE_DIRECT | HUDI_WRITE_IF_ABSENT, &err),
                   HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_write(fx->s, "x", NULL, 3, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_write(fx->s, "", "z", 1, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_write(fx->s, "a/..", "z", 1, 0, &err), HUDI_ERR_INVALID_ARG);
}

static void write_if_absent_creates_once(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write_if_absent(fx->s, ".hoodie/001.commit", "first", 5, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write_if_absent(fx->s, ".hoodie/001.commit", "second", 6, &err),
                   HUDI_ERR_EXISTS);
  assert_non_null(strstr(err.message, "001.commit"));
  size_t len;
  char *got = io_get(fx->dir, ".hoodie/001.commit", &len);
  assert_int_equal(len, 5);
  assert_memory_equal(got, "first", 5);
  free(got);
  assert_int_equal(io_count_temp(fx->dir, ".hoodie"), 0);
  /* An existing directory counts as present too. */
  io_mkdir(fx->dir, "taken");
  assert_int_equal(hudi_storage_write_if_absent(fx->s, "taken", "x", 1, &err), HUDI_ERR_EXISTS);
  assert_int_equal(io_count_temp(fx->dir, ""), 0);
}

typedef struct creator {
  hudi_storage *s;
  pthread_barrier_t *barrier;
  char path[64];
  char content[32];
  hudi_status st;
} creator;

static void *creator_main(void *arg) {
  creator *c = arg;
  pthread_barrier_wait(c->barrier);
  c->st = hudi_storage_write_if_absent(c->s, c->path, c->content, strlen(c->content), NULL);
  return NULL;
}

static void write_if_absent_race_has_one_winner(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *fast;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&fast, fx->dir, &opt, 1, &err), HUDI_OK);
  /* Four writers, so two of them really are inside write-if-absent at once
   * (two cores), whoever the barrier releases first. */
  enum { N = 4 };
  int wins[N] = {0};
  for (int round = 0; round < 100; round++) {
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, N);
    creator c[N];
    pthread_t th[N];
    for (int t = 0; t < N; t++) {
      c[t].s = fast;
      c[t].barrier = &barrier;
      snprintf(c[t].path, sizeof c[t].path, "timeline/%03d.commit", round);
      snprintf(c[t].content, sizeof c[t].content, "writer-%d", t);
      pthread_create(&th[t], NULL, creator_main, &c[t]);
    }
    for (int t = 0; t < N; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&barrier);
    int ok = 0, winner = -1;
    for (int t = 0; t < N; t++) {
      if (c[t].st == HUDI_OK) {
        ok++;
        winner = t;
      } else {
        assert_int_equal(c[t].st, HUDI_ERR_EXISTS);
      }
    }
    assert_int_equal(ok, 1);
    wins[winner]++;
    size_t len;
    char *got = io_get(fx->dir, c[winner].path, &len);
    assert_int_equal(len, strlen(c[winner].content));
    assert_memory_equal(got, c[winner].content, len);
    free(got);
  }
  print_message("write-if-absent race wins per thread: %d %d %d %d\n", wins[0], wins[1], wins[2], wins[3]);
  assert_int_equal(io_count_temp(fx->dir, "timeline"), 0);
  hudi_storage_free(fast);
}

static void rename_semantics(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_put(fx->dir, "a", "AAA", 3);
  io_put(fx->dir, "b", "BB", 2);
  assert_int_equal(hudi_storage_rename(fx->s, "a", "sub/dir/a2", 0, &err), HUDI_OK);
  assert_false(io_exists(fx->dir, "a"));
  size_t len;
  char *got = io_get(fx->dir, "sub/dir/a2", &len);
  assert_int_equal(len, 3);
  assert_memory_equal(got, "AAA", 3);
  free(got);

  /* Replacing is the default... */
  assert_int_equal(hudi_storage_rename(fx->s, "b", "sub/dir/a2", 0, &err), HUDI_OK);
  got = io_get(fx->dir, "sub/dir/a2", &len);
  assert_int_equal(len, 2);
  assert_memory_equal(got, "BB", 2);
  free(got);
  /* ...and NO_REPLACE leaves both sides alone. */
  io_put(fx->dir, "c", "C", 1);
  assert_int_equal(hudi_storage_rename(fx->s, "c", "sub/dir/a2", HUDI_RENAME_NO_REPLACE, &err),
                   HUDI_ERR_EXISTS);
  assert_non_null(strstr(err.message, "a2"));
  assert_true(io_exists(fx->dir, "c"));
  got = io_get(fx->dir, "sub/dir/a2", &len);
  assert_memory_equal(got, "BB", 2);
  free(got);
  assert_int_equal(hudi_storage_rename(fx->s, "c", "new/c", HUDI_RENAME_NO_REPLACE, &err), HUDI_OK);
  assert_false(io_exists(fx->dir, "c"));
  assert_true(io_exists(fx->dir, "new/c"));

  assert_int_equal(hudi_storage_rename(fx->s, "ghost", "x", 0, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "ghost"));
  assert_false(io_exists(fx->dir, "x"));

  /* Directories rename as a whole on the local backend, also with NO_REPLACE. */
  assert_int_equal(hudi_storage_rename(fx->s, "sub", "moved", HUDI_RENAME_NO_REPLACE, &err), HUDI_OK);
  assert_true(io_exists(fx->dir, "moved/dir/a2"));
  assert_false(io_exists(fx->dir, "sub"));
  assert_int_equal(hudi_storage_rename(fx->s, "moved", "new", HUDI_RENAME_NO_REPLACE, &err),
                   HUDI_ERR_EXISTS);
  assert_int_equal(hudi_storage_rename(fx->s, "new/c", "", 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_rename(fx->s, "new/c", "../c", 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_rename(fx->s, "new/c", "d", 4, &err), HUDI_ERR_INVALID_ARG);
}

static void check_sorted(const hudi_file_list *l) {
  for (size_t i = 1; i < l->count; i++) assert_true(strcmp(l->items[i - 1].path, l->items[i].path) < 0);
}

static void list_is_sorted_with_sizes(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_mkdir(fx->dir, "a");
  io_mkdir(fx->dir, "a/y");
  io_mkdir(fx->dir, "a/empty");
  io_mkdir(fx->dir, ".hoodie");
  io_put(fx->dir, "b.txt", "bbb", 3);
  io_put(fx->dir, "a/x", "x", 1);
  io_put(fx->dir, "a/y/z", "zz", 2);
  io_put(fx->dir, "a/y/w", "", 0);
  io_put(fx->dir, "a/B", "BBBB", 4); /* 'B' < 'x' < 'y' bytewise */
  io_put(fx->dir, ".hoodie/hoodie.properties", "p=1\n", 4);
  io_put(fx->dir, "a/.x.1-2.hudi-tmp", "tmp", 3);
  char target[4096], link_path[4096];
  assert_int_equal(symlink(io_join(target, sizeof target, fx->dir, "a/y"),
                           io_join(link_path, sizeof link_path, fx->dir, "a/link_to_y")), 0);
  assert_int_equal(symlink(io_join(target, sizeof target, fx->dir, "b.txt"),
                           io_join(link_path, sizeof link_path, fx->dir, "link_to_b")), 0);
  assert_int_equal(symlink("/nonexistent/target", io_join(link_path, sizeof link_path, fx->dir, "dangling")), 0);

  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->s, "", 0, &l, &err), HUDI_OK);
  const char *top[] = {".hoodie", "a", "b.txt", "link_to_b"};
  const int top_dir[] = {1, 1, 0, 0};
  assert_int_equal(l.count, 4);
  for (size_t i = 0; i < 4; i++) {
    assert_string_equal(l.items[i].path, top[i]);
    assert_int_equal(l.items[i].is_dir, top_dir[i]);
  }
  assert_int_equal(l.items[2].size, 3);
  assert_int_equal(l.items[3].size, 3);
  assert_true(l.items[2].mtime_ms > 0);
  /* A non-empty list is refused rather than mixed into. */
  assert_int_equal(hudi_storage_list(fx->s, "", 0, &l, &err), HUDI_ERR_INVALID_ARG);
  hudi_file_list_free(&l);

  assert_int_equal(hudi_storage_list(fx->s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  const char *all[] = {".hoodie/hoodie.properties", "a/B", "a/x", "a/y/w", "a/y/z", "b.txt", "link_to_b"};
  const uint64_t sizes[] = {4, 4, 1, 0, 2, 3, 3};
  assert_int_equal(l.count, 7);
  for (size_t i = 0; i < 7; i++) {
    assert_string_equal(l.items[i].path, all[i]);
    assert_int_equal(l.items[i].size, sizes[i]);
    assert_false(l.items[i].is_dir);
  }
  check_sorted(&l);
  hudi_file_list_free(&l);

  assert_int_equal(hudi_storage_list(fx->s, "a/", 0, &l, &err), HUDI_OK);
  const char *in_a[] = {"a/B", "a/empty", "a/link_to_y", "a/x", "a/y"};
  assert_int_equal(l.count, 5);
  for (size_t i = 0; i < 5; i++) assert_string_equal(l.items[i].path, in_a[i]);
  assert_true(l.items[2].is_dir); /* a link to a directory lists as one */
  hudi_file_list_free(&l);

  assert_int_equal(hudi_storage_list(fx->s, "./a/y/../y", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 2);
  assert_string_equal(l.items[0].path, "a/y/w");
  assert_string_equal(l.items[1].path, "a/y/z");
  hudi_file_list_free(&l);

  assert_int_equal(hudi_storage_list(fx->s, "a", HUDI_LIST_INCLUDE_TEMP, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 6);
  assert_string_equal(l.items[0].path, "a/.x.1-2.hudi-tmp");
  hudi_file_list_free(&l);

  assert_int_equal(hudi_storage_list(fx->s, "missing/dir", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 0);
  assert_int_equal(hudi_storage_list(fx->s, "b.txt", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 0);
  assert_int_equal(hudi_storage_list(fx->s, "..", 0, &l, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_list(fx->s, "", 0x40, &l, &err), HUDI_ERR_INVALID_ARG);
  hudi_file_list_free(&l);
}

static void list_many_files(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *fast;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&fast, fx->dir, &opt, 1, &err), HUDI_OK);
  /* Written in descending order so sorting is what puts them in place. */
  for (int i = 299; i >= 0; i--) {
    char p[64] = {0};
    snprintf(p, sizeof p, "p%d/f%04d", i % 3, i);
    assert_int_equal(hudi_storage_write(fast, p, p, (size_t)i % 17, 0, &err), HUDI_OK);
  }
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fast, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 300);
  check_sorted(&l);
  size_t k = 0;
  for (int part = 0; part < 3; part++)
    for (int i = part; i < 300; i += 3, k++) {
      char p[64];
      snprintf(p, sizeof p, "p%d/f%04d", part, i);
      assert_string_equal(l.items[k].path, p);
      assert_int_equal(l.items[k].size, (uint64_t)(i % 17));
    }
  hudi_file_list_free(&l);
  hudi_storage_free(fast);
}

static void delete_semantics(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_put(fx->dir, "f", "1", 1);
  assert_int_equal(hudi_storage_delete(fx->s, "f", 0, &err), HUDI_OK);
  assert_false(io_exists(fx->dir, "f"));
  assert_int_equal(hudi_storage_delete(fx->s, "f", 0, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "f"));
  assert_int_equal(hudi_storage_delete(fx->s, "f", HUDI_DELETE_MISSING_OK, &err), HUDI_OK);
  assert_int_equal(hudi_storage_delete(fx->s, "no/such/dir", HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, &err),
                   HUDI_OK);
  assert_int_equal(hudi_storage_delete(fx->s, "no/such/dir", HUDI_DELETE_RECURSIVE, &err), HUDI_ERR_NOT_FOUND);

  /* A marker directory: nested files, removed as one prefix. */
  io_mkdir(fx->dir, ".hoodie");
  io_mkdir(fx->dir, ".hoodie/.temp");
  io_mkdir(fx->dir, ".hoodie/.temp/001");
  io_mkdir(fx->dir, ".hoodie/.temp/001/p=1");
  io_mkdir(fx->dir, ".hoodie/.temp/001/p=1/empty");
  io_put(fx->dir, ".hoodie/.temp/001/MARKERS.type", "TIMELINE_SERVER_BASED", 21);
  io_put(fx->dir, ".hoodie/.temp/001/p=1/f1.parquet.marker.CREATE", "", 0);
  io_put(fx->dir, ".hoodie/.temp/keep", "k", 1);
  char target[4096], link_path[4096];
  /* A link inside the tree is removed, not followed. */
  assert_int_equal(symlink(io_join(target, sizeof target, fx->dir, ".hoodie"),
                           io_join(link_path, sizeof link_path, fx->dir, ".hoodie/.temp/001/up")), 0);
  assert_int_equal(hudi_storage_delete(fx->s, ".hoodie/.temp/001", 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "is a directory"));
  assert_true(io_exists(fx->dir, ".hoodie/.temp/001/MARKERS.type"));
  assert_int_equal(hudi_storage_delete(fx->s, ".hoodie/.temp/001", HUDI_DELETE_RECURSIVE, &err), HUDI_OK);
  assert_false(io_exists(fx->dir, ".hoodie/.temp/001"));
  assert_true(io_exists(fx->dir, ".hoodie/.temp/keep"));
  assert_true(io_exists(fx->dir, ".hoodie"));
  /* RECURSIVE on a plain file deletes the file. */
  assert_int_equal(hudi_storage_delete(fx->s, ".hoodie/.temp/keep", HUDI_DELETE_RECURSIVE, &err), HUDI_OK);
  assert_false(io_exists(fx->dir, ".hoodie/.temp/keep"));

  assert_int_equal(hudi_storage_delete(fx->s, "", HUDI_DELETE_RECURSIVE, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_delete(fx->s, "x/../..", HUDI_DELETE_RECURSIVE, &err), HUDI_ERR_INVALID_ARG);
  assert_true(io_exists(fx->dir, ".hoodie"));
}

static void paths_cannot_escape_the_base(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  /* The table lives one level down so "escaping" has somewhere to land. */
  hudi_storage *t;
  char base[4096];
  io_mkdir(fx->dir, "table");
  assert_int_equal(hudi_storage_open(&t, io_join(base, sizeof base, fx->dir, "table"), NULL, 0, &err), HUDI_OK);
  io_put(fx->dir, "secret", "s3cr3t", 6);
  const char *bad[] = {"../secret", "a/../../secret", "./../secret", "a/b/../../../secret", "..",
                       "/etc/passwd", "/secret"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint8_t buf[8];
    size_t n;
    hudi_file_stat st;
    hudi_file_list l = HUDI_FILE_LIST_INIT;
    hudi_buf b;
    hudi_buf_init(&b, 0);
    assert_int_equal(hudi_storage_read(t, bad[i], 0, buf, 6, &n, &err), HUDI_ERR_INVALID_ARG);
    assert_non_null(strstr(err.message, bad[i]));
    assert_int_equal(hudi_storage_read_all(t, bad[i], 100, &b, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_stat(t, bad[i], &st, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_write(t, bad[i], "pwned", 5, 0, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_write_if_absent(t, bad[i], "pwned", 5, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_delete(t, bad[i], HUDI_DELETE_RECURSIVE, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_list(t, bad[i], HUDI_LIST_RECURSIVE, &l, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_rename(t, "x", bad[i], 0, &err), HUDI_ERR_INVALID_ARG);
    assert_int_equal(hudi_storage_rename(t, bad[i], "x", 0, &err), HUDI_ERR_INVALID_ARG);
    hudi_buf_free(&b);
  }
  size_t len;
  char *got = io_get(fx->dir, "secret", &len);
  assert_int_equal(len, 6);
  assert_memory_equal(got, "s3cr3t", 6);
  free(got);
  /* ".." that stays inside is just a path. */
  assert_int_equal(hudi_storage_write(t, "a/./b/../c", "in", 2, 0, &err), HUDI_OK);
  assert_true(io_exists(fx->dir, "table/a/c"));
  assert_false(io_exists(fx->dir, "table/a/b"));
  hudi_storage_free(t);
}

static void system_errors_name_path_and_errno(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  char longname[400] = "dir/";
  memset(longname + 4, 'n', 300);
  longname[304] = '\0';
  uint8_t buf[4];
  size_t n;
  hudi_file_stat st;
  /* ENAMETOOLONG from the kernel: the message carries the path and strerror. */
  assert_int_equal(hudi_storage_write(fx->s, longname, "x", 1, HUDI_WRITE_DIRECT, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "nnnnnnnnnn"));
  assert_non_null(strstr(err.message, fx->dir));
  assert_non_null(strstr(err.message, strerror(ENAMETOOLONG)));
  assert_int_equal(hudi_storage_read(fx->s, longname, 0, buf, 4, &n, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, strerror(ENAMETOOLONG)));
  assert_int_equal(hudi_storage_stat(fx->s, longname, &st, &err), HUDI_ERR_INVALID_ARG);
  /* The atomic path shortens its temporary name, so the failure is the
   * final rename's, still naming the target. */
  assert_int_equal(hudi_storage_write(fx->s, longname, "x", 1, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "nnnnnnnnnn"));
  assert_int_equal(io_count_temp(fx->dir, "dir"), 0);
  /* ENOTDIR: a file where a directory should be. */
  io_put(fx->dir, "file", "f", 1);
  assert_int_equal(hudi_storage_read(fx->s, "file/x", 0, buf, 4, &n, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "file/x"));
  assert_non_null(strstr(err.message, strerror(ENOTDIR)));
}

/* Descriptors this process has open (entries of /proc/self/fd). */
static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n - 1; /* the listing's own */
}

static void held_file_reads_ranges_through_one_descriptor(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  enum { N = 300000 };
  uint8_t *data = malloc(N), *got = malloc(N);
  fill_pattern(data, N);
  io_mkdir(fx->dir, "d");
  io_put(fx->dir, "d/blocks", data, N);
  hudi_storage_file *f;
  int before = open_fds();
  assert_int_equal(hudi_storage_file_open(fx->s, "d/./blocks", &f, &err), HUDI_OK);
  assert_int_equal(open_fds(), before); /* nothing opened until the first read */
  static const struct { uint64_t off; size_t len; } ranges[] = {{0, 1}, {N - 1, 1}, {4096, 70000}, {12, 0}, {0, N}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    memset(got, 0, N);
    assert_int_equal(hudi_storage_file_read_exact(f, ranges[i].off, got, ranges[i].len, &err), HUDI_OK);
    assert_memory_equal(got, data + ranges[i].off, ranges[i].len);
    assert_int_equal(open_fds(), before + 1); /* one descriptor, held */
  }
  /* Past the end: corruption naming the file and the offset. */
  assert_int_equal(hudi_storage_file_read_exact(f, N - 10, got, 20, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "d/blocks"));
  assert_non_null(strstr(err.message, "offset 299990"));
  assert_non_null(strstr(err.message, "after 10"));
  /* Replaced while held: the held file is still read as it was. */
  memset(data, 0xee, 64);
  assert_int_equal(hudi_storage_write(fx->s, "d/blocks", data, 64, 0, &err), HUDI_OK);
  fill_pattern(data, N);
  assert_int_equal(hudi_storage_file_read_exact(f, 1000, got, 5000, &err), HUDI_OK);
  assert_memory_equal(got, data + 1000, 5000);
  hudi_storage_file_close(f);
  assert_int_equal(open_fds(), before);
  free(data);
  free(got);
}

static void held_file_errors(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t b[4];
  hudi_storage_file *f;
  /* A path that climbs out of the base fails at open. */
  assert_int_equal(hudi_storage_file_open(fx->s, "../x", &f, &err), HUDI_ERR_INVALID_ARG);
  /* A missing file, a directory: at the first read, naming the path. */
  assert_int_equal(hudi_storage_file_open(fx->s, "missing/file", &f, &err), HUDI_OK);
  assert_int_equal(hudi_storage_file_read_exact(f, 0, b, 4, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "missing/file"));
  hudi_storage_file_close(f);
  io_mkdir(fx->dir, "dir");
  assert_int_equal(hudi_storage_file_open(fx->s, "dir", &f, &err), HUDI_OK);
  assert_int_equal(hudi_storage_file_read_exact(f, 0, b, 4, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "is a directory"));
  hudi_storage_file_close(f);
  hudi_storage_file_close(NULL);
}

/* ---- write groups ------------------------------------------------------- */

static uint64_t fsyncs_since(const hudi_storage *s, uint64_t *mark) {
  uint64_t now = hudi_local_storage_fsyncs(s), d = now - *mark;
  *mark = now;
  return d;
}

static void write_and_check(hudi_storage *s, const char *dir, const char *path, unsigned flags) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write(s, path, path, strlen(path), flags, &err), HUDI_OK);
  size_t len;
  char *got = io_get(dir, path, &len); /* visible at once */
  assert_int_equal(len, strlen(path));
  assert_memory_equal(got, path, len);
  free(got);
}

typedef struct other_thread {
  hudi_storage *s;
  hudi_status st;
} other_thread;

static void *grouped_write_elsewhere(void *arg) {
  other_thread *o = arg;
  hudi_error err = HUDI_ERROR_INIT;
  o->st = hudi_storage_write(o->s, "t/other", "o", 1, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED, &err);
  return NULL;
}

/* Grouped writes are visible at once and fsynced only at the group's sync:
 * each file once, then each directory holding one and its ancestors once. */
static void write_group_syncs_at_the_end(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint64_t mark = hudi_local_storage_fsyncs(fx->s);
  /* Ungrouped, and grouped with no group open: the file and its directory,
   * and for the new directory p the base that names it. */
  write_and_check(fx->s, fx->dir, "p/plain", HUDI_WRITE_DIRECT);
  assert_int_equal(fsyncs_since(fx->s, &mark), 3);
  write_and_check(fx->s, fx->dir, "p/plain2", HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED);
  assert_int_equal(fsyncs_since(fx->s, &mark), 2);

  hudi_storage_group *g, *g2;
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  assert_int_equal(hudi_storage_group_begin(fx->s, &g2, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "open in this thread"));
  write_and_check(fx->s, fx->dir, "p/a/m1", HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  write_and_check(fx->s, fx->dir, "p/a/m2", HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  write_and_check(fx->s, fx->dir, "p/b/f1", HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED);
  write_and_check(fx->s, fx->dir, "top", HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED);
  assert_int_equal(fsyncs_since(fx->s, &mark), 0);
  assert_int_equal(hudi_storage_group_pending(g), 4);
  /* Refused or failed writes join nothing: a replacing write cannot be
   * grouped; a taken name stays EXISTS. */
  assert_int_equal(hudi_storage_write(fx->s, "p/c", "x", 1, HUDI_WRITE_GROUPED, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "HUDI_WRITE_GROUPED"));
  assert_int_equal(hudi_storage_write(fx->s, "p/b/f1", "x", 1, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED, &err),
                   HUDI_ERR_EXISTS);
  /* Another thread's grouped write is synced as it is made (t is new: the
   * base too). */
  other_thread o = {fx->s, HUDI_ERR_INTERNAL};
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, grouped_write_elsewhere, &o), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_int_equal(o.st, HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 3);
  /* So is a grouped write to another storage. */
  hudi_storage *s2;
  char sub[4096];
  io_mkdir(fx->dir, "s2");
  assert_int_equal(hudi_storage_open(&s2, io_join(sub, sizeof sub, fx->dir, "s2"), NULL, 0, &err), HUDI_OK);
  uint64_t mark2 = 0;
  write_and_check(s2, sub, "x", HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED);
  assert_int_equal(fsyncs_since(s2, &mark2), 2);
  hudi_storage_free(s2);
  assert_int_equal(hudi_storage_group_pending(g), 4);

  /* The sync: 4 files, then p/a, p/b, p and the base. */
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 8);
  assert_int_equal(hudi_storage_group_pending(g), 0);
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 0);
  /* The group stays open after a sync; ended without one, its file stays. */
  write_and_check(fx->s, fx->dir, "p/late", HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  assert_int_equal(hudi_storage_group_pending(g), 1);
  hudi_storage_group_end(g);
  assert_true(io_exists(fx->dir, "p/late"));
  assert_int_equal(fsyncs_since(fx->s, &mark), 0);
  /* Closed: a new group can open; grouped writes are synced at once again. */
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  hudi_storage_group_end(g);
  write_and_check(fx->s, fx->dir, "p/after", HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  assert_int_equal(fsyncs_since(fx->s, &mark), 2);
  hudi_storage_group_end(NULL);
  assert_int_equal(hudi_storage_group_sync(NULL, &err), HUDI_OK);
}

typedef struct joiner {
  hudi_storage *s;
  hudi_storage_group *g;
  char path[32];
  bool joined;
  hudi_status st, after;
} joiner;

/* A worker of the group's owner: joins, writes, leaves, writes again. */
static void *join_and_write(void *arg) {
  joiner *j = arg;
  hudi_error err = HUDI_ERROR_INIT;
  j->joined = hudi_storage_group_join(j->g);
  j->st = hudi_storage_write(j->s, j->path, "j", 1, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED, &err);
  hudi_storage_group_leave(j->g, j->joined);
  char later[40];
  snprintf(later, sizeof later, "%s-after", j->path);
  j->after = hudi_storage_write(j->s, later, "a", 1, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED, &err);
  return NULL;
}

/* Threads that join a group write into it, all at once; after leaving,
 * their writes are synced as they are made again. */
static void write_group_joined_by_workers(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage_group *g;
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  assert_false(hudi_storage_group_join(g)); /* the owner has it open already */
  assert_false(hudi_storage_group_join(NULL));
  enum { T = 8 };
  joiner j[T];
  pthread_t th[T];
  uint64_t mark = hudi_local_storage_fsyncs(fx->s);
  for (int i = 0; i < T; i++) {
    j[i] = (joiner){.s = fx->s, .g = g, .st = HUDI_ERR_INTERNAL, .after = HUDI_ERR_INTERNAL};
    snprintf(j[i].path, sizeof j[i].path, "w/%d/f%d", i % 3, i);
    assert_int_equal(pthread_create(&th[i], NULL, join_and_write, &j[i]), 0);
  }
  for (int i = 0; i < T; i++) {
    assert_int_equal(pthread_join(th[i], NULL), 0);
    assert_true(j[i].joined);
    assert_int_equal(j[i].st, HUDI_OK);
    assert_int_equal(j[i].after, HUDI_OK);
  }
  /* Only the writes after leaving were synced (file and directory each). */
  assert_int_equal(fsyncs_since(fx->s, &mark), 2 * T);
  assert_int_equal(hudi_storage_group_pending(g), T);
  /* 8 files, then w/0, w/1, w/2, w and the base. */
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), T + 5);
  hudi_storage_group_end(g);
}

/* A pending file that vanished before the sync: an error naming it, and
 * the writes stay pending. */
static void write_group_sync_errors_name_the_file(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage_group *g;
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  write_and_check(fx->s, fx->dir, "d/gone", HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  char p[4096];
  assert_int_equal(unlink(io_join(p, sizeof p, fx->dir, "d/gone")), 0);
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "d/gone"));
  assert_int_equal(hudi_storage_group_pending(g), 1);
  hudi_storage_group_end(g);
}

/* A group of many files syncs them on several threads (group.c): still each
 * file once and each directory once; a vanished file among them is an error
 * naming it, and everything stays pending. */
static void write_group_syncs_many_files(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage_group *g;
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  uint64_t mark = hudi_local_storage_fsyncs(fx->s);
  enum { N = 61 };
  char path[64];
  for (int i = 0; i < N; i++) {
    snprintf(path, sizeof path, "m/%d/%s/f%02d", i % 3, i % 2 ? "x" : "y", i);
    write_and_check(fx->s, fx->dir, path, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED);
  }
  assert_int_equal(fsyncs_since(fx->s, &mark), 0);
  /* 61 files, then m/{0,1,2}/{x,y}, m/0..m/2, m and the base. */
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), N + 6 + 3 + 1 + 1);
  assert_int_equal(hudi_storage_group_pending(g), 0);

  for (int i = 0; i < N; i++) {
    snprintf(path, sizeof path, "n/g%02d", i);
    write_and_check(fx->s, fx->dir, path, HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED);
  }
  char p[4096];
  assert_int_equal(unlink(io_join(p, sizeof p, fx->dir, "n/g37")), 0);
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "n/g37"));
  assert_int_equal(hudi_storage_group_pending(g), N);
  io_put(fx->dir, "n/g37", "back", 4);
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(hudi_storage_group_pending(g), 0);
  hudi_storage_group_end(g);
}

/* A file written outside the storage layer (the Parquet writer's temporary)
 * is published durable: fsynced before it takes its name, or, in a write
 * group, at the group's sync. */
static void publish_syncs_before_the_name(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_mkdir(fx->dir, "p");
  io_mkdir(fx->dir, "q");
  io_mkdir(fx->dir, "q/r");
  uint64_t mark = hudi_local_storage_fsyncs(fx->s);
  io_put(fx->dir, "p/.f1.tmp", "one", 3);
  /* The temporary, then the directory the rename changed. */
  assert_int_equal(hudi_storage_publish(fx->s, "p/.f1.tmp", "p/f1", &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 2);
  assert_false(io_exists(fx->dir, "p/.f1.tmp"));
  size_t len;
  char *got = io_get(fx->dir, "p/f1", &len);
  assert_int_equal(len, 3);
  assert_memory_equal(got, "one", 3);
  free(got);
  /* A missing temporary: NOT_FOUND naming it, nothing published. */
  assert_int_equal(hudi_storage_publish(fx->s, "p/.gone.tmp", "p/gone", &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "p/.gone.tmp"));
  assert_false(io_exists(fx->dir, "p/gone"));

  /* In a group: renamed now (its directory synced by the rename), the file
   * and its directories at the sync; a failed publish joins nothing. */
  hudi_storage_group *g;
  assert_int_equal(hudi_storage_group_begin(fx->s, &g, &err), HUDI_OK);
  mark = hudi_local_storage_fsyncs(fx->s);
  io_put(fx->dir, "q/r/.f2.tmp", "two", 3);
  assert_int_equal(hudi_storage_publish(fx->s, "q/r/.f2.tmp", "q/r/f2", &err), HUDI_OK);
  assert_int_equal(hudi_storage_publish(fx->s, "q/r/.gone.tmp", "q/r/gone", &err), HUDI_ERR_NOT_FOUND);
  assert_true(io_exists(fx->dir, "q/r/f2"));
  assert_int_equal(fsyncs_since(fx->s, &mark), 1);
  assert_int_equal(hudi_storage_group_pending(g), 1);
  /* f2, then q/r, q and the base. */
  assert_int_equal(hudi_storage_group_sync(g, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 4);
  hudi_storage_group_end(g);
  /* The path names the base: refused. */
  assert_int_equal(hudi_storage_publish(fx->s, "q/r/f2", "", &err), HUDI_ERR_INVALID_ARG);

  /* fsync false: the rename alone. */
  hudi_storage *fast;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&fast, fx->dir, &opt, 1, &err), HUDI_OK);
  io_put(fx->dir, "p/.f3.tmp", "three", 5);
  uint64_t fmark = 0;
  assert_int_equal(hudi_storage_publish(fast, "p/.f3.tmp", "p/f3", &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fast, &fmark), 0);
  assert_true(io_exists(fx->dir, "p/f3"));
  hudi_storage_free(fast);
}

/* A directory a write or a rename makes is named durably: its parent is
 * fsynced after it is made, level by level. */
static void new_directories_are_synced_in_their_parents(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint64_t mark = hudi_local_storage_fsyncs(fx->s);
  /* The file, its directory c, then for the new a, a/b, a/b/c: the base,
   * a, a/b. */
  write_and_check(fx->s, fx->dir, "a/b/c/f", HUDI_WRITE_DIRECT);
  assert_int_equal(fsyncs_since(fx->s, &mark), 5);
  /* Existing directories cost nothing more. */
  write_and_check(fx->s, fx->dir, "a/b/c/g", 0);
  assert_int_equal(fsyncs_since(fx->s, &mark), 2);
  /* A rename into new directories: r and r/s made (the base, r), then the
   * destination's and the source's directories. */
  assert_int_equal(hudi_storage_rename(fx->s, "a/b/c/g", "r/s/g", 0, &err), HUDI_OK);
  assert_int_equal(fsyncs_since(fx->s, &mark), 4);
  assert_true(io_exists(fx->dir, "r/s/g"));
  /* fsync false: none. */
  hudi_storage *fast;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&fast, fx->dir, &opt, 1, &err), HUDI_OK);
  uint64_t fmark = 0;
  write_and_check(fast, fx->dir, "x/y/z", HUDI_WRITE_IF_ABSENT);
  assert_int_equal(fsyncs_since(fast, &fmark), 0);
  hudi_storage_free(fast);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(write_creates_parents_and_reads_back, setup, teardown),
      cmocka_unit_test_setup_teardown(ranged_reads_report_eof, setup, teardown),
      cmocka_unit_test_setup_teardown(read_all_respects_caps, setup, teardown),
      cmocka_unit_test_setup_teardown(write_is_atomic_for_readers, setup, teardown),
      cmocka_unit_test_setup_teardown(write_replaces_and_direct_truncates, setup, teardown),
      cmocka_unit_test_setup_teardown(write_if_absent_creates_once, setup, teardown),
      cmocka_unit_test_setup_teardown(write_if_absent_race_has_one_winner, setup, teardown),
      cmocka_unit_test_setup_teardown(rename_semantics, setup, teardown),
      cmocka_unit_test_setup_teardown(list_is_sorted_with_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(list_many_files, setup, teardown),
      cmocka_unit_test_setup_teardown(delete_semantics, setup, teardown),
      cmocka_unit_test_setup_teardown(paths_cannot_escape_the_base, setup, teardown),
      cmocka_unit_test_setup_teardown(system_errors_name_path_and_errno, setup, teardown),
      cmocka_unit_test_setup_teardown(held_file_reads_ranges_through_one_descriptor, setup, teardown),
      cmocka_unit_test_setup_teardown(held_file_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(write_group_syncs_at_the_end, setup, teardown),
      cmocka_unit_test_setup_teardown(write_group_sync_errors_name_the_file, setup, teardown),
      cmocka_unit_test_setup_teardown(write_group_joined_by_workers, setup, teardown),
      cmocka_unit_test_setup_teardown(write_group_syncs_many_files, setup, teardown),
      cmocka_unit_test_setup_teardown(publish_syncs_before_the_name, setup, teardown),
      cmocka_unit_test_setup_teardown(new_directories_are_synced_in_their_parents, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
