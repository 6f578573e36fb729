/* The object-store request savers (io/objcache.h), through the storage
 * dispatch: a local directory wrapped in the counting fault wrapper stands
 * in for the backend, with an object cache attached as the s3/gs/az
 * backends attach one. The oracle for "saved a request" is the wrapper's
 * call counter; for "never stale", the bytes on disk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "io/backend.h"
#include "io/faulty.h"
#include "io/objcache.h"
#include "io_test.h"

typedef struct fixture {
  char *dir;
  hudi_storage *f;
} fixture;

#define LOG ".hoodie/metadata/files/.files-0000-0_20240101000000000.log.1_0-0-1"
#define PARQUET "p=a/f1-0_0-1-0_20240101000000000.parquet"
#define HFILE ".hoodie/metadata/files/files-0000-0_0-0-0_20240101000000000.hfile"
#define TL ".hoodie/timeline"
#define DONE TL "/20240101000000000_20240101000000100.deltacommit"

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  fx->dir = io_make_temp_dir();
  static const char *const dirs[] = {".hoodie", ".hoodie/metadata", ".hoodie/metadata/files", TL, "p=a"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) io_mkdir(fx->dir, dirs[i]);
  io_put(fx->dir, LOG, "log-bytes-v1", 12);
  io_put(fx->dir, PARQUET, "0123456789abcdef", 16);
  io_put(fx->dir, HFILE, "HFILE-CONTENT-XYZ", 17);
  io_put(fx->dir, DONE, "{}", 2);
  io_put(fx->dir, ".hoodie/hoodie.properties", "a=1\n", 4);
  hudi_storage *local;
  hudi_storage_option opt = {"fsync", "false"};
  if (hudi_storage_open(&local, fx->dir, &opt, 1, NULL) != HUDI_OK) return -1;
  if (hudi_faulty_storage_wrap(&fx->f, local, true, NULL) != HUDI_OK) return -1;
  if (hudi_objcache_new(&fx->f->objcache, NULL) != HUDI_OK) return -1;
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

static uint64_t calls(fixture *fx) { return hudi_faulty_storage_calls(fx->f, HUDI_STORAGE_OP_ANY); }

static void read_all_is(fixture *fx, const char *path, const char *want) {
  hudi_buf b;
  hudi_buf_init(&b, 1 << 20);
  assert_int_equal(hudi_storage_read_all(fx->f, path, 1 << 20, &b, NULL), HUDI_OK);
  assert_int_equal(b.len, strlen(want));
  assert_memory_equal(b.data, want, b.len);
  hudi_buf_free(&b);
}

static void test_immutable_names(void **state) {
  (void)state;
  assert_true(hudi_objcache_immutable_name(LOG));
  assert_true(hudi_objcache_immutable_name(PARQUET));
  assert_true(hudi_objcache_immutable_name(HFILE));
  assert_true(hudi_objcache_immutable_name(DONE));
  assert_false(hudi_objcache_immutable_name(".hoodie/hoodie.properties"));
  assert_false(hudi_objcache_immutable_name(TL "/20240101000000000.deltacommit.inflight"));
  assert_false(hudi_objcache_immutable_name(TL "/20240101000000000.deltacommit.requested"));
  assert_false(hudi_objcache_immutable_name(".hoodie/.temp/1/p/f.parquet.marker.CREATE"));
  assert_false(hudi_objcache_immutable_name(".hoodie/.temp/1/p/.f_1.log.1_0-0-1.marker.APPEND"));
  assert_false(hudi_objcache_immutable_name(".hoodie/lock"));
  assert_false(hudi_objcache_immutable_name(".hoodie/.heartbeat/20240101000000000"));
  assert_false(hudi_objcache_immutable_name("p/.f.parquet.123-4.hudi-tmp"));
}

static void test_read_all_kept_until_written(void **state) {
  fixture *fx = *state;
  uint64_t c0 = calls(fx);
  read_all_is(fx, LOG, "log-bytes-v1");
  uint64_t c1 = calls(fx);
  assert_true(c1 > c0);
  read_all_is(fx, LOG, "log-bytes-v1");
  read_all_is(fx, DONE, "{}");
  uint64_t c2 = calls(fx);
  read_all_is(fx, DONE, "{}");
  assert_int_equal(calls(fx), c2); /* both kept */
  /* A write through the handle replaces what is kept. */
  assert_int_equal(hudi_storage_write(fx->f, LOG, "log-bytes-v2", 12, 0, NULL), HUDI_OK);
  read_all_is(fx, LOG, "log-bytes-v2");
  /* Mutable files are read every time. */
  uint64_t c3 = calls(fx);
  read_all_is(fx, ".hoodie/hoodie.properties", "a=1\n");
  read_all_is(fx, ".hoodie/hoodie.properties", "a=1\n");
  assert_int_equal(calls(fx), c3 + 2);
  /* A recursive delete of a parent drops it too. */
  assert_int_equal(hudi_storage_delete(fx->f, ".hoodie/metadata", HUDI_DELETE_RECURSIVE, NULL), HUDI_OK);
  hudi_buf b;
  hudi_buf_init(&b, 1 << 20);
  assert_int_equal(hudi_storage_read_all(fx->f, LOG, 1 << 20, &b, NULL), HUDI_ERR_NOT_FOUND);
  hudi_buf_free(&b);
}

static void test_forget_objects(void **state) {
  fixture *fx = *state;
  read_all_is(fx, LOG, "log-bytes-v1");
  /* Another writer replaces the file (not through this handle): a new view
   * of the table must see it. */
  io_put(fx->dir, LOG, "other-writer", 12);
  read_all_is(fx, LOG, "log-bytes-v1"); /* the same view */
  hudi_storage_forget_objects(fx->f);
  read_all_is(fx, LOG, "other-writer");
}

static void test_stat_then_ranges_fetch_whole_once(void **state) {
  fixture *fx = *state;
  hudi_file_stat st, st2;
  uint64_t c0 = calls(fx);
  assert_int_equal(hudi_storage_stat(fx->f, PARQUET, &st, NULL), HUDI_OK);
  assert_int_equal(st.size, 16);
  uint8_t buf[32];
  size_t n;
  assert_int_equal(hudi_storage_read(fx->f, PARQUET, 12, buf, 4, &n, NULL), HUDI_OK); /* a footer */
  assert_int_equal(n, 4);
  assert_memory_equal(buf, "cdef", 4);
  uint64_t c1 = calls(fx);
  assert_int_equal(hudi_storage_stat(fx->f, PARQUET, &st2, NULL), HUDI_OK);
  assert_int_equal(st2.size, st.size);
  assert_int_equal(st2.mtime_ms, st.mtime_ms);
  assert_int_equal(hudi_storage_read(fx->f, PARQUET, 2, buf, 5, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, "23456", 5);
  assert_int_equal(hudi_storage_read(fx->f, PARQUET, 10, buf, 32, &n, NULL), HUDI_OK);
  assert_int_equal(n, 6); /* short at the end, as the contract says */
  assert_memory_equal(buf, "abcdef", 6);
  assert_int_equal(hudi_storage_read(fx->f, PARQUET, 16, buf, 4, &n, NULL), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read_exact(fx->f, PARQUET, 14, buf, 4, NULL), HUDI_ERR_CORRUPT);
  assert_int_equal(calls(fx), c1);
  assert_true(c1 - c0 <= 3); /* stat + the whole object (read_all, or stat + read) */
}

static void test_listed_stats_save_heads_and_ranges(void **state) {
  fixture *fx = *state;
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->f, ".hoodie/metadata/files", 0, &l, NULL), HUDI_OK);
  assert_int_equal(l.count, 2);
  hudi_file_list_free(&l);
  uint64_t c0 = calls(fx);
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(fx->f, HFILE, &st, NULL), HUDI_OK); /* from the listing */
  assert_int_equal(st.size, 17);
  assert_false(st.is_dir);
  assert_int_equal(calls(fx), c0);
  uint8_t buf[8];
  size_t n;
  assert_int_equal(hudi_storage_read(fx->f, HFILE, 11, buf, 6, &n, NULL), HUDI_OK); /* trailer */
  assert_memory_equal(buf, "NT-XYZ", 6);
  uint64_t c = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, HFILE, 0, buf, 5, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, "HFILE", 5);
  assert_int_equal(calls(fx), c);
}

/* A large immutable object's tail (a footer) read once is kept: later
 * reads inside it are copies, reads before it go to the backend, and a
 * write through the handle drops it. Kept only for a read that ends at the
 * object's end as its kept stat says. */
static void test_footer_tail_kept(void **state) {
  fixture *fx = *state;
  enum { BIG = (3 << 19) }; /* 1.5 MiB: larger than HUDI_OBJCACHE_WHOLE_MAX */
  static const char *const big = "p=a/f2-0_0-1-0_20240101000000000.parquet";
  static uint8_t data[BIG], buf[1 << 16];
  for (size_t i = 0; i < BIG; i++) data[i] = (uint8_t)(i * 7 + i / 251);
  io_put(fx->dir, big, (const char *)data, BIG);
  size_t n;
  uint64_t c0 = calls(fx);
  /* size unknown: nothing kept */
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 100, buf, 100, &n, NULL), HUDI_OK);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 100, buf, 100, &n, NULL), HUDI_OK);
  assert_int_equal(calls(fx) - c0, 2);
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(fx->f, big, &st, NULL), HUDI_OK);
  assert_int_equal(st.size, BIG);
  /* a read that stops short of the end: not kept */
  c0 = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 1000, buf, 500, &n, NULL), HUDI_OK);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 900, buf, 100, &n, NULL), HUDI_OK);
  assert_int_equal(calls(fx) - c0, 2);
  /* the footer read: one call, then copies inside it */
  c0 = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 4096, buf, 4096, &n, NULL), HUDI_OK);
  assert_int_equal(n, 4096);
  assert_int_equal(calls(fx) - c0, 1);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 8, buf, 8, &n, NULL), HUDI_OK);
  assert_int_equal(n, 8);
  assert_memory_equal(buf, data + BIG - 8, 8);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 3000, buf, 1000, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, data + BIG - 3000, 1000);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 10, buf, 100, &n, NULL), HUDI_OK);
  assert_int_equal(n, 10); /* short at the end */
  assert_memory_equal(buf, data + BIG - 10, 10);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG, buf, 4, &n, NULL), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(calls(fx) - c0, 1);
  hudi_objcache_stats cs;
  hudi_objcache_get_stats(fx->f->objcache, &cs);
  assert_int_equal(cs.tail_hits, 4);
  /* before the tail, or across its start: the backend */
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 5000, buf, 2000, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, data + BIG - 5000, 2000);
  assert_int_equal(hudi_storage_read(fx->f, big, 10, buf, 10, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, data + 10, 10);
  assert_int_equal(calls(fx) - c0, 3);
  /* a longer tail replaces the shorter one */
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 6000, buf, 6000, &n, NULL), HUDI_OK);
  c0 = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 5500, buf, 1000, &n, NULL), HUDI_OK);
  assert_memory_equal(buf, data + BIG - 5500, 1000);
  assert_int_equal(calls(fx), c0);
  /* a read ending where the kept tail starts extends it (the rest of a
   * long footer, read after its last bytes); one that does not is not */
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 10000, buf, 3000, &n, NULL), HUDI_OK);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 12000, buf, 6000, &n, NULL), HUDI_OK);
  c0 = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 12000, buf, 12000, &n, NULL), HUDI_OK);
  assert_int_equal(n, 12000);
  assert_memory_equal(buf, data + BIG - 12000, 12000);
  assert_int_equal(calls(fx), c0);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 20000, buf, 1000, &n, NULL), HUDI_OK);
  assert_int_equal(calls(fx), c0 + 1);
  /* a write through the handle drops it: the new bytes are read */
  data[BIG - 1] ^= 0xff;
  assert_int_equal(hudi_storage_write(fx->f, big, data, BIG, 0, NULL), HUDI_OK);
  c0 = calls(fx);
  assert_int_equal(hudi_storage_read(fx->f, big, BIG - 1, buf, 1, &n, NULL), HUDI_OK);
  assert_int_equal(buf[0], data[BIG - 1]);
  assert_true(calls(fx) > c0);
}

static size_t list_count(fixture *fx, const char *dir) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->f, dir, 0, &l, NULL), HUDI_OK);
  size_t n = l.count;
  for (size_t i = 1; i < l.count; i++) assert_true(strcmp(l.items[i - 1].path, l.items[i].path) < 0);
  hudi_file_list_free(&l);
  return n;
}

static void test_held_listings(void **state) {
  fixture *fx = *state;
  uint64_t c0 = calls(fx);
  assert_int_equal(list_count(fx, TL), 1);
  assert_int_equal(list_count(fx, TL), 1);
  assert_int_equal(calls(fx), c0 + 2); /* not held: listed every time */
  static const char *const dirs[] = {TL};
  assert_int_equal(hudi_storage_hold_listings(fx->f, dirs, 1, NULL), HUDI_OK);
  /* What was listed before the hold is not reused. */
  assert_int_equal(list_count(fx, TL), 1);
  uint64_t c1 = calls(fx);
  assert_int_equal(list_count(fx, TL), 1);
  assert_int_equal(list_count(fx, TL "/"), 1);
  assert_int_equal(calls(fx), c1);
  /* Our own write under it: listed again, and the new file is there. */
  assert_int_equal(hudi_storage_write(fx->f, TL "/20240102000000000.commit.requested", "", 0, 0, NULL), HUDI_OK);
  assert_int_equal(list_count(fx, TL), 2);
  uint64_t c2 = calls(fx);
  assert_int_equal(list_count(fx, TL), 2);
  assert_int_equal(calls(fx), c2);
  /* Other directories and recursive listings are never held. */
  assert_int_equal(list_count(fx, ".hoodie"), 3);
  assert_int_equal(list_count(fx, ".hoodie"), 3);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->f, TL, HUDI_LIST_RECURSIVE, &l, NULL), HUDI_OK);
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_list(fx->f, TL, HUDI_LIST_RECURSIVE, &l, NULL), HUDI_OK);
  hudi_file_list_free(&l);
  assert_int_equal(calls(fx), c2 + 4);
  c2 += 2;
  /* Released: someone else may write now. */
  hudi_storage_release_listings(fx->f);
  io_put(fx->dir, TL "/20240103000000000.commit.requested", "", 0);
  assert_int_equal(list_count(fx, TL), 3);
  assert_int_equal(calls(fx), c2 + 3);
}

static void test_nested_holds(void **state) {
  fixture *fx = *state;
  static const char *const dirs[] = {TL};
  assert_int_equal(hudi_storage_hold_listings(fx->f, dirs, 1, NULL), HUDI_OK);
  assert_int_equal(hudi_storage_hold_listings(fx->f, dirs, 1, NULL), HUDI_OK);
  assert_int_equal(list_count(fx, TL), 1);
  hudi_storage_release_listings(fx->f);
  uint64_t c = calls(fx);
  assert_int_equal(list_count(fx, TL), 1); /* the outer hold still stands */
  assert_int_equal(calls(fx), c);
  hudi_storage_release_listings(fx->f);
  assert_int_equal(list_count(fx, TL), 1);
  assert_int_equal(calls(fx), c + 1);
  const char *many[] = {"a", "b", "c", "d", "e"};
  assert_int_equal(hudi_storage_hold_listings(fx->f, many, 5, NULL), HUDI_ERR_INVALID_ARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_immutable_names),
      cmocka_unit_test_setup_teardown(test_read_all_kept_until_written, setup, teardown),
      cmocka_unit_test_setup_teardown(test_forget_objects, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stat_then_ranges_fetch_whole_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_listed_stats_save_heads_and_ranges, setup, teardown),
      cmocka_unit_test_setup_teardown(test_footer_tail_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_held_listings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_holds, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
