/* The table lock (table/lock.h) and writer heartbeats (table/heartbeat.h):
 * a second writer waits or fails with a conflict naming the holder, stale
 * locks (dead local process, expired) are taken over, concurrent writers
 * serialize without losing rows, and completed writes leave no heartbeat. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "arrow/view.h"
#include "hudi/read.h"
#include "hudi/write.h"
#include "table/heartbeat.h"
#include "table/lock.h"
#include "table/table.h"

static char dir[256];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/hudi-lock-XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static hudi_table *create(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  o.record_key_fields = "id";
  o.type = HUDI_MERGE_ON_READ;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_create(&t, path, &o, &err), HUDI_OK);
  return t;
}

static hudi_table *open_again(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_open(&t, path, NULL, 0, &err), HUDI_OK);
  return t;
}

/* n rows id = "<prefix><i>", v = i. */
static void make_stream(struct ArrowArrayStream *out, const char *prefix, int n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "id", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "v", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  for (int i = 0; i < n; i++) {
    char id[64];
    snprintf(id, sizeof id, "%s%d", prefix, i);
    assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_batch_builder_column(bb, 0), id, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_batch_builder_column(bb, 1), i, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, &err), HUDI_OK);
  }
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_from_batches(out, &f, &a, 1, &err), HUDI_OK);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
}

static int64_t count_rows(hudi_table *t) {
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  struct ArrowArrayStream s;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_read(&s, t, &ro, &err), HUDI_OK);
  int64_t n = 0;
  for (;;) {
    struct ArrowArray a;
    assert_int_equal(s.get_next(&s, &a), 0);
    if (!a.release) break;
    n += a.length;
    a.release(&a);
  }
  s.release(&s);
  return n;
}

static bool lock_file_exists(const char *name) {
  char p[400];
  snprintf(p, sizeof p, "%s/%s/.hoodie/lock", dir, name);
  struct stat st;
  return stat(p, &st) == 0;
}

static void write_lock_file(const char *name, const char *holder, int age_s) {
  char p[400];
  snprintf(p, sizeof p, "%s/%s/.hoodie/lock", dir, name);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fprintf(f, "{\n  \"lockCreateTime\" : \"2026-01-01 00:00:00.000\",\n  \"lockThreadName\" : \"%s\",\n"
             "  \"lockStacksInfo\" : [ ]\n}", holder);
  fclose(f);
  struct utimbuf ut = {time(NULL) - age_s, time(NULL) - age_s};
  assert_int_equal(utime(p, &ut), 0);
}

static const hudi_option no_wait[] = {{"hoodie.write.lock.wait_time_ms", "0"}};

static void test_second_holder_conflicts(void **state) {
  (void)state;
  hudi_table *t = create("conflict");
  hudi_table_lock a, b;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_table_lock_acquire(&a, t, NULL, 0, &err), HUDI_OK);
  assert_true(lock_file_exists("conflict"));
  assert_int_equal(hudi_table_lock_acquire(&b, t, no_wait, 1, &err), HUDI_ERR_CONFLICT);
  char me[320];
  hudi_table_lock_owner(me, sizeof me);
  assert_non_null(strstr(err.message, me));
  hudi_error_clear(&err);
  /* A write while another holds the lock fails and writes nothing. */
  struct ArrowArrayStream s;
  make_stream(&s, "k", 3);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, no_wait, 1, &err), HUDI_ERR_CONFLICT);
  assert_string_equal(r.completion_time, "");
  hudi_error_clear(&err);
  hudi_table_lock_release(&a, t);
  assert_false(lock_file_exists("conflict"));
  assert_int_equal(hudi_table_lock_acquire(&b, t, no_wait, 1, &err), HUDI_OK);
  hudi_table_lock_release(&b, t);
  assert_int_equal(count_rows(t), 0);
  hudi_table_free(t);
}

static void test_stale_locks_taken_over(void **state) {
  (void)state;
  hudi_table *t = create("stale");
  char host[256] = "";
  assert_int_equal(gethostname(host, sizeof host - 1), 0);
  pid_t child = fork();
  if (child == 0) _exit(0);
  assert_true(child > 0);
  assert_int_equal(waitpid(child, NULL, 0), child);
  char holder[400];
  snprintf(holder, sizeof holder, "hudi-c pid %ld on %s", (long)child, host);
  hudi_table_lock l;
  hudi_error err = HUDI_ERROR_INIT;
  /* A dead hudi-c process on this host: taken over. */
  write_lock_file("stale", holder, 0);
  assert_int_equal(hudi_table_lock_acquire(&l, t, no_wait, 1, &err), HUDI_OK);
  hudi_table_lock_release(&l, t);
  /* A holder elsewhere, 2 minutes old: held, unless locks expire after 1 minute. */
  write_lock_file("stale", "Spark driver on another-host", 120);
  assert_int_equal(hudi_table_lock_acquire(&l, t, no_wait, 1, &err), HUDI_ERR_CONFLICT);
  assert_non_null(strstr(err.message, "Spark driver on another-host"));
  hudi_error_clear(&err);
  const hudi_option expire[] = {{"hoodie.write.lock.wait_time_ms", "0"}, {"hoodie.write.lock.filesystem.expire", "1"}};
  assert_int_equal(hudi_table_lock_acquire(&l, t, expire, 2, &err), HUDI_OK);
  hudi_table_lock_release(&l, t);
  hudi_table_free(t);
}

typedef struct writer_arg {
  const char *prefix;
  hudi_status st;
} writer_arg;

static void *writer(void *p) {
  writer_arg *w = p;
  hudi_table *t = open_again("threads");
  for (int k = 0; k < 3 && w->st == HUDI_OK; k++) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "%s%d-", w->prefix, k);
    struct ArrowArrayStream s;
    make_stream(&s, prefix, 20);
    hudi_error err = HUDI_ERROR_INIT;
    w->st = hudi_table_upsert(NULL, t, &s, NULL, 0, &err);
    if (w->st != HUDI_OK) fprintf(stderr, "writer %s: %s\n", w->prefix, err.message);
  }
  hudi_table_free(t);
  return NULL;
}

/* Two handles in two threads upsert at once: they serialize on the lock
 * and every row of both arrives. */
static void test_concurrent_writers_serialize(void **state) {
  (void)state;
  hudi_table *t = create("threads");
  writer_arg a = {"a", HUDI_OK}, b = {"b", HUDI_OK};
  pthread_t ta, tb;
  assert_int_equal(pthread_create(&ta, NULL, writer, &a), 0);
  assert_int_equal(pthread_create(&tb, NULL, writer, &b), 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  assert_int_equal(a.st, HUDI_OK);
  assert_int_equal(b.st, HUDI_OK);
  hudi_table *fresh = open_again("threads");
  assert_int_equal(count_rows(fresh), 120);
  assert_false(lock_file_exists("threads"));
  hudi_table_free(fresh);
  hudi_table_free(t);
}

static void test_heartbeats(void **state) {
  (void)state;
  hudi_table *t = create("heartbeat");
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArrayStream s;
  make_stream(&s, "h", 5);
  hudi_write_result r;
  assert_int_equal(hudi_table_append(&r, t, &s, NULL, 0, &err), HUDI_OK);
  bool alive = true;
  /* Completed: its heartbeat is gone. */
  assert_int_equal(hudi_heartbeat_alive(&alive, t, r.requested_time, 0, 0, &err), HUDI_OK);
  assert_false(alive);
  assert_int_equal(hudi_heartbeat_start(t, "20990101000000000", &err), HUDI_OK);
  assert_int_equal(hudi_heartbeat_alive(&alive, t, "20990101000000000", 0, 0, &err), HUDI_OK);
  assert_true(alive);
  /* Touched 10 s ago with a 1 s interval and 2 misses: stale. */
  char p[400];
  snprintf(p, sizeof p, "%s/heartbeat/.hoodie/.heartbeat/20990101000000000", dir);
  struct utimbuf ut = {time(NULL) - 10, time(NULL) - 10};
  assert_int_equal(utime(p, &ut), 0);
  assert_int_equal(hudi_heartbeat_alive(&alive, t, "20990101000000000", 1000, 2, &err), HUDI_OK);
  assert_false(alive);
  hudi_heartbeat_stop(t, "20990101000000000");
  assert_int_equal(hudi_heartbeat_alive(&alive, t, "20990101000000000", 0, 0, &err), HUDI_OK);
  assert_false(alive);
  hudi_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_second_holder_conflicts),
      cmocka_unit_test(test_stale_locks_taken_over),
      cmocka_unit_test(test_concurrent_writers_serialize),
      cmocka_unit_test(test_heartbeats),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
