/* The fault-injecting wrapper, and allocation failures through every
 * storage operation (leaks show up in the ASan build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io/faulty.h"
#include "io_test.h"

typedef struct fixture {
  char *dir;
  hudi_storage *f; /* faulty, owning the local storage */
} fixture;

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  fx->dir = io_make_temp_dir();
  hudi_storage *local;
  hudi_storage_option opt = {"fsync", "false"};
  if (hudi_storage_open(&local, fx->dir, &opt, 1, NULL) != HUDI_OK) return -1;
  if (hudi_faulty_storage_wrap(&fx->f, local, true, NULL) != HUDI_OK) return -1;
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  hudi_storage_free(fx->f);
  int rc = io_rm_rf(fx->dir);
  free(fx->dir);
  free(fx);
  return rc;
}

static void arm(hudi_storage *f, hudi_fault_kind kind, hudi_storage_op op, uint64_t nth, size_t keep,
                bool repeat) {
  hudi_fault fault = {kind, op, nth, keep, repeat};
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_faulty_storage_arm(f, &fault, &err), HUDI_OK);
}

/* Runs one call of op against the fixture's storage. The table holds
 * "src" (5 bytes) and "dir/x" before each call; each op is written so it
 * can run repeatedly and changes state visibly when it does run. */
static hudi_status run_op(fixture *fx, hudi_storage_op op, int i, hudi_error *err) {
  char path[64];
  uint8_t buf[16];
  size_t n;
  hudi_buf b;
  hudi_file_stat st;
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  hudi_status rc = HUDI_ERR_INTERNAL;
  switch (op) {
    case HUDI_STORAGE_OP_READ: return hudi_storage_read(fx->f, "src", 0, buf, sizeof buf, &n, err);
    case HUDI_STORAGE_OP_READ_ALL:
      hudi_buf_init(&b, 0);
      rc = hudi_storage_read_all(fx->f, "src", 100, &b, err);
      hudi_buf_free(&b);
      return rc;
    case HUDI_STORAGE_OP_STAT: return hudi_storage_stat(fx->f, "src", &st, err);
    case HUDI_STORAGE_OP_WRITE:
      snprintf(path, sizeof path, "w/%d", i);
      return hudi_storage_write(fx->f, path, "data", 4, 0, err);
    case HUDI_STORAGE_OP_WRITE_IF_ABSENT:
      snprintf(path, sizeof path, "wia/%d", i);
      return hudi_storage_write_if_absent(fx->f, path, "data", 4, err);
    case HUDI_STORAGE_OP_RENAME:
      snprintf(path, sizeof path, "r/%d", i);
      io_put(fx->dir, "tomove", "m", 1);
      return hudi_storage_rename(fx->f, "tomove", path, 0, err);
    case HUDI_STORAGE_OP_LIST:
      rc = hudi_storage_list(fx->f, "", HUDI_LIST_RECURSIVE, &l, err);
      hudi_file_list_free(&l);
      return rc;
    case HUDI_STORAGE_OP_DELETE:
      snprintf(path, sizeof path, "del%d", i);
      io_put(fx->dir, path, "d", 1);
      return hudi_storage_delete(fx->f, path, 0, err);
    default: break;
  }
  return rc;
}

/* Whether call i of op left its mark on the table (POSIX check). */
static bool op_took_effect(fixture *fx, hudi_storage_op op, int i) {
  char path[64];
  switch (op) {
    case HUDI_STORAGE_OP_WRITE: snprintf(path, sizeof path, "w/%d", i); return io_exists(fx->dir, path);
    case HUDI_STORAGE_OP_WRITE_IF_ABSENT: snprintf(path, sizeof path, "wia/%d", i); return io_exists(fx->dir, path);
    case HUDI_STORAGE_OP_RENAME: snprintf(path, sizeof path, "r/%d", i); return io_exists(fx->dir, path);
    case HUDI_STORAGE_OP_DELETE: snprintf(path, sizeof path, "del%d", i); return !io_exists(fx->dir, path);
    default: return true; /* reads leave no mark */
  }
}

static void fail_nth_call_of_every_op(void **state) {
  fixture *fx = *state;
  io_put(fx->dir, "src", "hello", 5);
  for (int op = HUDI_STORAGE_OP_READ; op < HUDI_STORAGE_OP_COUNT; op++) {
    hudi_faulty_storage_reset_counts(fx->f);
    arm(fx->f, HUDI_FAULT_FAIL, (hudi_storage_op)op, 3, 0, false);
    for (int i = 1; i <= 5; i++) {
      hudi_error err = HUDI_ERROR_INIT;
      hudi_status st = run_op(fx, (hudi_storage_op)op, i, &err);
      if (i == 3) {
        assert_int_equal(st, HUDI_ERR_IO);
        assert_non_null(strstr(err.message, "injected fault"));
        assert_non_null(strstr(err.message, hudi_storage_op_name((hudi_storage_op)op)));
        assert_non_null(strstr(err.message, "#3"));
        /* The failed call never reached the storage. */
        if (op != HUDI_STORAGE_OP_READ && op != HUDI_STORAGE_OP_READ_ALL && op != HUDI_STORAGE_OP_STAT &&
            op != HUDI_STORAGE_OP_LIST)
          assert_false(op_took_effect(fx, (hudi_storage_op)op, i));
      } else {
        if (st != HUDI_OK) fail_msg("%s call %d: %s", hudi_storage_op_name((hudi_storage_op)op), i, err.message);
        assert_true(op_took_effect(fx, (hudi_storage_op)op, i));
      }
    }
    assert_int_equal(hudi_faulty_storage_calls(fx->f, (hudi_storage_op)op), 5);
    assert_int_equal(hudi_faulty_storage_calls(fx->f, HUDI_STORAGE_OP_ANY), 5);
    assert_int_equal(hudi_faulty_storage_fired(fx->f), 1);
  }
}

static void fail_nth_overall_and_repeat(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_put(fx->dir, "src", "hello", 5);
  arm(fx->f, HUDI_FAULT_FAIL, HUDI_STORAGE_OP_ANY, 4, 0, false);
  hudi_storage_op seq[] = {HUDI_STORAGE_OP_STAT, HUDI_STORAGE_OP_READ, HUDI_STORAGE_OP_WRITE,
                           HUDI_STORAGE_OP_LIST, HUDI_STORAGE_OP_READ_ALL};
  for (int i = 0; i < 5; i++)
    assert_int_equal(run_op(fx, seq[i], 100 + i, &err), i == 3 ? HUDI_ERR_IO : HUDI_OK);
  assert_int_equal(hudi_faulty_storage_calls(fx->f, HUDI_STORAGE_OP_ANY), 5);
  assert_int_equal(hudi_faulty_storage_calls(fx->f, HUDI_STORAGE_OP_STAT), 1);
  assert_int_equal(hudi_faulty_storage_calls(fx->f, HUDI_STORAGE_OP_LIST), 1);

  /* Storage "goes down" from the 2nd write on, until disarmed. */
  arm(fx->f, HUDI_FAULT_FAIL, HUDI_STORAGE_OP_WRITE, 2, 0, true);
  assert_int_equal(run_op(fx, HUDI_STORAGE_OP_WRITE, 200, &err), HUDI_OK);
  for (int i = 201; i < 206; i++) assert_int_equal(run_op(fx, HUDI_STORAGE_OP_WRITE, i, &err), HUDI_ERR_IO);
  assert_int_equal(run_op(fx, HUDI_STORAGE_OP_STAT, 0, &err), HUDI_OK); /* other ops still fine */
  hudi_faulty_storage_disarm(fx->f);
  assert_int_equal(run_op(fx, HUDI_STORAGE_OP_WRITE, 206, &err), HUDI_OK);
  assert_int_equal(hudi_faulty_storage_fired(fx->f), 6);

  /* exists() is a stat: a failing stat is an error, not "absent". */
  bool exists = true;
  arm(fx->f, HUDI_FAULT_FAIL, HUDI_STORAGE_OP_STAT, 1, 0, false);
  assert_int_equal(hudi_storage_exists(fx->f, "src", &exists, &err), HUDI_ERR_IO);

  /* Bad arming requests. */
  hudi_fault bad[] = {{HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_WRITE, 1, 0, false},
                      {HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_READ, 1, 0, false},
                      {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_READ, 0, 0, false},
                      {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_COUNT, 1, 0, false}};
  for (size_t i = 0; i < 4; i++) assert_int_equal(hudi_faulty_storage_arm(fx->f, &bad[i], &err), HUDI_ERR_INVALID_ARG);
  hudi_storage *local;
  assert_int_equal(hudi_storage_open(&local, fx->dir, NULL, 0, &err), HUDI_OK);
  assert_int_equal(hudi_faulty_storage_arm(local, &bad[2], &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_faulty_storage_calls(local, HUDI_STORAGE_OP_ANY), 0);
  hudi_storage_free(local);
  hudi_faulty_storage_disarm(fx->f);
  for (int i = 0; i < HUDI_FAULTY_MAX_FAULTS; i++) arm(fx->f, HUDI_FAULT_FAIL, HUDI_STORAGE_OP_READ, 1000, 0, false);
  hudi_fault one_more = {HUDI_FAULT_FAIL, HUDI_STORAGE_OP_READ, 1, 0, false};
  assert_int_equal(hudi_faulty_storage_arm(fx->f, &one_more, &err), HUDI_ERR_LIMIT);
}

static void short_reads_are_detected(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t data[100], got[100];
  for (int i = 0; i < 100; i++) data[i] = (uint8_t)(i + 1);
  io_put(fx->dir, "obj", data, sizeof data);

  arm(fx->f, HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_READ, 1, 10, false);
  size_t n;
  assert_int_equal(hudi_storage_read(fx->f, "obj", 20, got, 50, &n, &err), HUDI_OK);
  assert_int_equal(n, 10);
  assert_memory_equal(got, data + 20, 10);

  /* A caller that needs the bytes sees corruption, naming where. */
  arm(fx->f, HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_ANY, 1, 7, false);
  assert_int_equal(hudi_storage_read_exact(fx->f, "obj", 40, got, 30, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "obj"));
  assert_non_null(strstr(err.message, "offset 40"));
  assert_non_null(strstr(err.message, "after 7"));

  hudi_buf b;
  hudi_buf_init(&b, 0);
  arm(fx->f, HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_READ, 1, 3, false);
  assert_int_equal(hudi_storage_read_buf(fx->f, "obj", 0, 10, &b, NULL, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(b.len, 0);

  arm(fx->f, HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_READ_ALL, 1, 33, false);
  assert_int_equal(hudi_storage_read_all(fx->f, "obj", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 33);
  assert_memory_equal(b.data, data, 33);
  /* Once fired, reads are whole again. */
  hudi_buf_reset(&b);
  assert_int_equal(hudi_storage_read_all(fx->f, "obj", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 100);
  hudi_buf_free(&b);
  assert_int_equal(hudi_storage_read_exact(fx->f, "obj", 40, got, 30, &err), HUDI_OK);
  assert_int_equal(hudi_faulty_storage_fired(fx->f), 4);

  /* A held file reads through the wrapper: its faults reach it. */
  hudi_storage_file *h;
  assert_int_equal(hudi_storage_file_open(fx->f, "obj", &h, &err), HUDI_OK);
  assert_int_equal(hudi_storage_file_read_exact(h, 0, got, 10, &err), HUDI_OK);
  arm(fx->f, HUDI_FAULT_SHORT_READ, HUDI_STORAGE_OP_READ, 1, 5, false);
  assert_int_equal(hudi_storage_file_read_exact(h, 60, got, 30, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "offset 60"));
  assert_non_null(strstr(err.message, "after 5"));
  assert_int_equal(hudi_storage_file_read_exact(h, 60, got, 30, &err), HUDI_OK);
  assert_memory_equal(got, data + 60, 30);
  hudi_storage_file_close(h);
  assert_int_equal(hudi_faulty_storage_fired(fx->f), 5);
}

static void torn_atomic_write_leaves_no_final_object(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  const char *next = "new content, longer than before";
  size_t next_len = strlen(next);

  /* Replacing: the target keeps its old bytes. */
  io_mkdir(fx->dir, "t");
  io_put(fx->dir, "t/obj", "old", 3);
  arm(fx->f, HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_WRITE, 1, 8, false);
  assert_int_equal(hudi_storage_write(fx->f, "t/obj", next, next_len, 0, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "torn write"));
  assert_non_null(strstr(err.message, "8 of 31"));
  size_t len;
  char *got = io_get(fx->dir, "t/obj", &len);
  assert_int_equal(len, 3);
  assert_memory_equal(got, "old", 3);
  free(got);

  /* Creating (write-if-absent, how an instant completes): still absent. */
  arm(fx->f, HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_ANY, 1, 5, false);
  assert_int_equal(hudi_storage_write_if_absent(fx->f, "t/001.commit", next, next_len, &err), HUDI_ERR_IO);
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(fx->f, "t/001.commit", &st, &err), HUDI_ERR_NOT_FOUND);

  /* The crash debris is the temporaries: hidden from listings... */
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->f, "t", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_string_equal(l.items[0].path, "t/obj");
  hudi_file_list_free(&l);
  /* ...but there, holding exactly the prefix that was written. */
  assert_int_equal(hudi_storage_list(fx->f, "t", HUDI_LIST_INCLUDE_TEMP, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 3);
  int seen8 = 0, seen5 = 0;
  for (size_t i = 0; i < l.count; i++) {
    const char *name = strrchr(l.items[i].path, '/') + 1;
    if (!hudi_storage_is_temp_name(name)) continue;
    got = io_get(fx->dir, l.items[i].path, &len);
    assert_memory_equal(got, next, len);
    seen8 += len == 8 && strncmp(name, ".obj.", 5) == 0;
    seen5 += len == 5 && strncmp(name, ".001.commit.", 12) == 0;
    free(got);
  }
  hudi_file_list_free(&l);
  assert_int_equal(seen8, 1);
  assert_int_equal(seen5, 1);
  /* A later completion attempt still works. */
  assert_int_equal(hudi_storage_write_if_absent(fx->f, "t/001.commit", next, next_len, &err), HUDI_OK);
}

static void torn_direct_write_leaves_prefix(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  io_put(fx->dir, "obj", "old content", 11);
  arm(fx->f, HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_WRITE, 1, 4, false);
  assert_int_equal(hudi_storage_write(fx->f, "obj", "NEWDATA", 7, HUDI_WRITE_DIRECT, &err), HUDI_ERR_IO);
  size_t len;
  char *got = io_get(fx->dir, "obj", &len);
  assert_int_equal(len, 4);
  assert_memory_equal(got, "NEWD", 4);
  free(got);
  assert_int_equal(io_count_temp(fx->dir, ""), 0);
  /* keep past the end writes everything, then still fails. */
  arm(fx->f, HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_WRITE, 1, 1000, false);
  assert_int_equal(hudi_storage_write(fx->f, "obj2", "abc", 3, HUDI_WRITE_DIRECT, &err), HUDI_ERR_IO);
  got = io_get(fx->dir, "obj2", &len);
  assert_int_equal(len, 3);
  free(got);
}

/* ---- allocation failures ---------------------------------------------- */

/* Runs fn with the n-th allocation failing, for n = 0, 1, ... until it
 * succeeds; each failure must be HUDI_ERR_NOMEM. Returns the successful
 * run's allocation count. */
typedef hudi_status (*alloc_case)(fixture *fx, int attempt, hudi_error *err);

static long sweep(fixture *fx, const char *name, alloc_case fn) {
  for (long n = 0; n < 1000; n++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_alloc_fail_after(n);
    hudi_status st = fn(fx, (int)n, &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) return n;
    if (st != HUDI_ERR_NOMEM) fail_msg("%s with %ld allocations: %s (%s)", name, n, hudi_status_name(st), err.message);
    /* Nothing half-done stays behind. */
    assert_int_equal(io_count_temp(fx->dir, "a") + io_count_temp(fx->dir, "a/b"), 0);
  }
  fail_msg("%s never succeeded", name);
  return -1;
}

static hudi_status case_open(fixture *fx, int i, hudi_error *err) {
  hudi_storage *s, *f;
  HUDI_TRY(hudi_storage_open(&s, "file:///tmp/some/table/../t", NULL, 0, err));
  hudi_status st = hudi_faulty_storage_wrap(&f, s, true, err);
  if (st != HUDI_OK) {
    hudi_storage_free(s);
    return st;
  }
  hudi_storage_free(f);
  return HUDI_OK;
}

static hudi_status case_open_relative(fixture *fx, int i, hudi_error *err) {
  hudi_storage *s;
  HUDI_TRY(hudi_storage_open(&s, "relative/t", NULL, 0, err));
  hudi_storage_free(s);
  return HUDI_OK;
}

static hudi_status case_write(fixture *fx, int i, hudi_error *err) {
  char p[64];
  snprintf(p, sizeof p, "a/b/w%d", i);
  return hudi_storage_write(fx->f, p, "payload", 7, 0, err);
}

static hudi_status case_write_if_absent(fixture *fx, int i, hudi_error *err) {
  char p[64];
  snprintf(p, sizeof p, "a/wia%d", i);
  return hudi_storage_write_if_absent(fx->f, p, "payload", 7, err);
}

static hudi_status case_write_direct(fixture *fx, int i, hudi_error *err) {
  return hudi_storage_write(fx->f, "a/direct", "payload", 7, HUDI_WRITE_DIRECT, err);
}

static hudi_status case_read_all(fixture *fx, int i, hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_storage_read_all(fx->f, "a/big", 1 << 20, &b, err);
  if (st == HUDI_OK && b.len != 50000) st = HUDI_ERR_INTERNAL;
  hudi_buf_free(&b);
  return st;
}

static hudi_status case_read_buf(fixture *fx, int i, hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_storage_read_buf(fx->f, "a/big", 100, 1000, &b, NULL, err);
  hudi_buf_free(&b);
  return st;
}

static hudi_status case_read_stat(fixture *fx, int i, hudi_error *err) {
  uint8_t buf[8];
  hudi_file_stat st;
  bool exists;
  HUDI_TRY(hudi_storage_read_exact(fx->f, "a/big", 0, buf, sizeof buf, err));
  HUDI_TRY(hudi_storage_stat(fx->f, "a/big", &st, err));
  return hudi_storage_exists(fx->f, "a/nope", &exists, err);
}

/* Held files: over the local backend (one descriptor) and over the
 * faulty wrapper (reads through it). */
static hudi_status case_held_file(fixture *fx, int i, hudi_error *err) {
  uint8_t buf[8];
  hudi_storage *local;
  HUDI_TRY(hudi_storage_open(&local, fx->dir, NULL, 0, err));
  hudi_storage *over[2] = {local, fx->f};
  hudi_status st = HUDI_OK;
  for (int k = 0; k < 2 && st == HUDI_OK; k++) {
    hudi_storage_file *h;
    st = hudi_storage_file_open(over[k], "a/big", &h, err);
    if (st != HUDI_OK) break;
    st = hudi_storage_file_read_exact(h, 100, buf, sizeof buf, err);
    if (st == HUDI_OK) st = hudi_storage_file_read_exact(h, 49990, buf, sizeof buf, err);
    hudi_storage_file_close(h);
  }
  hudi_storage_free(local);
  return st;
}

static hudi_status case_list(fixture *fx, int i, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  hudi_status st = hudi_storage_list(fx->f, "", HUDI_LIST_RECURSIVE, &l, err);
  if (st == HUDI_OK && l.count < 40) st = HUDI_ERR_INTERNAL;
  hudi_file_list_free(&l);
  if (st != HUDI_OK) return st;
  st = hudi_storage_list(fx->f, "a", 0, &l, err);
  hudi_file_list_free(&l);
  return st;
}

static hudi_status case_rename(fixture *fx, int i, hudi_error *err) {
  char p[64];
  snprintf(p, sizeof p, "a/renamed/r%d", i);
  io_put(fx->dir, "a/torename", "r", 1);
  return hudi_storage_rename(fx->f, "a/torename", p, HUDI_RENAME_NO_REPLACE, err);
}

static hudi_status case_delete_tree(fixture *fx, int i, hudi_error *err) {
  io_mkdir(fx->dir, "a/tree");
  io_mkdir(fx->dir, "a/tree/sub");
  io_put(fx->dir, "a/tree/sub/f", "f", 1);
  hudi_status st = hudi_storage_delete(fx->f, "a/tree", HUDI_DELETE_RECURSIVE, err);
  if (st == HUDI_OK && io_exists(fx->dir, "a/tree")) st = HUDI_ERR_INTERNAL;
  return st;
}

static hudi_status case_faults(fixture *fx, int i, hudi_error *err) {
  hudi_fault torn = {HUDI_FAULT_TORN_WRITE, HUDI_STORAGE_OP_WRITE, 1, 2, false};
  HUDI_TRY(hudi_faulty_storage_arm(fx->f, &torn, err));
  hudi_status st = hudi_storage_write(fx->f, "b/torn", "abcdef", 6, 0, err);
  hudi_faulty_storage_disarm(fx->f);
  return st == HUDI_ERR_IO ? HUDI_OK : st;
}

/* A write group over local storage (fsync on, the deferring path), and
 * over the faulty wrapper (which defers nothing). */
static hudi_status case_write_group(fixture *fx, int i, hudi_error *err) {
  hudi_storage *local;
  HUDI_TRY(hudi_storage_open(&local, fx->dir, NULL, 0, err));
  hudi_status st = HUDI_OK;
  for (int k = 0; k < 2 && st == HUDI_OK; k++) {
    hudi_storage *s = k ? fx->f : local;
    hudi_storage_group *g;
    st = hudi_storage_group_begin(s, &g, err);
    if (st != HUDI_OK) break;
    for (int j = 0; j < 3 && st == HUDI_OK; j++) {
      char p[64];
      snprintf(p, sizeof p, "g%d/%d/%d/f%d", k, i, j % 2, j);
      st = hudi_storage_write(s, p, "g", 1, HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED, err);
    }
    if (st == HUDI_OK && hudi_storage_group_pending(g) != (k ? 0u : 3u)) st = HUDI_ERR_INTERNAL;
    if (st == HUDI_OK) st = hudi_storage_group_sync(g, err);
    hudi_storage_group_end(g);
  }
  hudi_storage_free(local);
  return st;
}

static void allocation_failures_are_clean(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t *big = calloc(1, 50000);
  io_mkdir(fx->dir, "a");
  io_put(fx->dir, "a/big", big, 50000);
  free(big);
  for (int i = 0; i < 40; i++) {
    char p[32];
    snprintf(p, sizeof p, "a/many/f%02d", i);
    assert_int_equal(hudi_storage_write(fx->f, p, "x", 1, 0, &err), HUDI_OK);
  }
  struct {
    const char *name;
    alloc_case fn;
  } cases[] = {
      {"open", case_open},         {"open relative", case_open_relative},
      {"write", case_write},       {"write_if_absent", case_write_if_absent},
      {"write direct", case_write_direct}, {"read_all", case_read_all},
      {"read_buf", case_read_buf}, {"read/stat/exists", case_read_stat},
      {"list", case_list},         {"rename", case_rename},
      {"delete tree", case_delete_tree}, {"torn write", case_faults},
      {"held file", case_held_file}, {"write group", case_write_group},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long n = sweep(fx, cases[i].name, cases[i].fn);
    print_message("%s: succeeds with %ld allocations\n", cases[i].name, n);
    assert_true(n > 0); /* every case allocates, so failures were exercised */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(fail_nth_call_of_every_op, setup, teardown),
      cmocka_unit_test_setup_teardown(fail_nth_overall_and_repeat, setup, teardown),
      cmocka_unit_test_setup_teardown(short_reads_are_detected, setup, teardown),
      cmocka_unit_test_setup_teardown(torn_atomic_write_leaves_no_final_object, setup, teardown),
      cmocka_unit_test_setup_teardown(torn_direct_write_leaves_prefix, setup, teardown),
      cmocka_unit_test_setup_teardown(allocation_failures_are_clean, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
