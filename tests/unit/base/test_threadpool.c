/* The thread pool: every task runs once, failures come back with their
 * message, nested waits do not deadlock, allocation failures are reported,
 * and several threads can share one pool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/threadpool.h"

static atomic_int g_runs;

static hudi_status count_task(void *arg, hudi_error *err) {
  (void)err;
  atomic_fetch_add(&g_runs, 1);
  atomic_fetch_add((atomic_int *)arg, 1);
  return HUDI_OK;
}

static void create_and_size(void **state) {
  (void)state;
  hudi_threadpool *p = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 0, &err), HUDI_OK);
  assert_int_equal(hudi_threadpool_size(p), hudi_cpu_count());
  assert_true(hudi_cpu_count() >= 1);
  hudi_threadpool_free(p);
  assert_int_equal(hudi_threadpool_create(&p, 3, &err), HUDI_OK);
  assert_int_equal(hudi_threadpool_size(p), 3);
  hudi_threadpool_free(p);
  assert_int_equal(hudi_threadpool_create(&p, -1, &err), HUDI_ERR_INVALID_ARG);
  assert_null(p);
  assert_int_equal(hudi_threadpool_create(&p, HUDI_THREADPOOL_MAX_THREADS + 1, &err), HUDI_ERR_INVALID_ARG);
  hudi_threadpool_free(NULL);
  assert_int_equal(hudi_threadpool_size(NULL), 0);
}

static void every_task_runs_once(void **state) {
  (void)state;
  hudi_threadpool *p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 4, &err), HUDI_OK);
  enum { N = 5000 };
  static atomic_int hits[N];
  for (int i = 0; i < N; i++) atomic_init(&hits[i], 0);
  hudi_task_group g;
  hudi_task_group_init(&g, p);
  for (int round = 0; round < 3; round++) { /* a group is reusable after wait */
    for (int i = 0; i < N; i++) assert_int_equal(hudi_task_group_submit(&g, count_task, &hits[i], &err), HUDI_OK);
    assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_OK);
    for (int i = 0; i < N; i++) assert_int_equal(atomic_load(&hits[i]), round + 1);
  }
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_OK); /* empty group */
  hudi_task_group_destroy(&g);
  hudi_threadpool_free(p);
}

typedef struct fail_arg {
  int index;
  int fail_at;
} fail_arg;

static hudi_status maybe_fail(void *arg, hudi_error *err) {
  fail_arg *a = arg;
  atomic_fetch_add(&g_runs, 1);
  if (a->index == a->fail_at) return hudi_err_set(err, HUDI_ERR_CORRUPT, "task %d found bad bytes", a->index);
  return HUDI_OK;
}

static hudi_status fail_without_message(void *arg, hudi_error *err) {
  (void)arg;
  (void)err;
  return HUDI_ERR_IO;
}

static void errors_propagate(void **state) {
  (void)state;
  hudi_threadpool *p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 2, &err), HUDI_OK);
  enum { N = 1000 };
  static fail_arg args[N];
  for (int i = 0; i < N; i++) args[i] = (fail_arg){i, 500};
  hudi_task_group g;
  hudi_task_group_init(&g, p);
  atomic_store(&g_runs, 0);
  for (int i = 0; i < N; i++) assert_int_equal(hudi_task_group_submit(&g, maybe_fail, &args[i], &err), HUDI_OK);
  hudi_error_clear(&err);
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_ERR_CORRUPT);
  assert_int_equal(err.code, HUDI_ERR_CORRUPT);
  assert_string_equal(err.message, "task 500 found bad bytes");
  assert_true(atomic_load(&g_runs) >= 501 - 2 && atomic_load(&g_runs) <= N);
  /* The group starts clean again. */
  for (int i = 0; i < 10; i++) assert_int_equal(hudi_task_group_submit(&g, maybe_fail, &args[i], &err), HUDI_OK);
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_OK);
  /* A status without a message still comes back as that status. */
  assert_int_equal(hudi_task_group_submit(&g, fail_without_message, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_ERR_IO);
  assert_int_equal(err.code, HUDI_ERR_IO);
  hudi_task_group_destroy(&g);
  hudi_threadpool_free(p);

  /* Without a pool tasks run inline; after the first failure the rest are
   * skipped, deterministically. */
  hudi_task_group_init(&g, NULL);
  atomic_store(&g_runs, 0);
  for (int i = 0; i < 20; i++) {
    args[i] = (fail_arg){i, 3};
    assert_int_equal(hudi_task_group_submit(&g, maybe_fail, &args[i], &err), HUDI_OK);
  }
  assert_int_equal(atomic_load(&g_runs), 4);
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_ERR_CORRUPT);
  assert_string_equal(err.message, "task 3 found bad bytes");
  assert_int_equal(hudi_task_group_wait(&g, NULL), HUDI_OK);
  hudi_task_group_destroy(&g);
}

typedef struct sq_ctx {
  atomic_int *visits;
  uint64_t *squares;
  size_t fail_at; /* SIZE_MAX: never */
} sq_ctx;

static hudi_status square(void *ctx, size_t i, hudi_error *err) {
  sq_ctx *c = ctx;
  atomic_fetch_add(&c->visits[i], 1);
  if (i == c->fail_at) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "index %zu is bad", i);
  c->squares[i] = (uint64_t)i * i;
  return HUDI_OK;
}

static void parallel_for_covers_every_index(void **state) {
  (void)state;
  enum { N = 100000 };
  atomic_int *visits = calloc(N, sizeof *visits);
  uint64_t *squares = calloc(N, sizeof *squares);
  assert_non_null(visits);
  assert_non_null(squares);
  hudi_threadpool *p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 3, &err), HUDI_OK);
  hudi_threadpool *pools[2] = {p, NULL};
  for (int k = 0; k < 2; k++) {
    for (size_t n = 0; n <= N; n = n ? n * 10 : 1) {
      memset(visits, 0, N * sizeof *visits);
      memset(squares, 0, N * sizeof *squares);
      sq_ctx c = {visits, squares, SIZE_MAX};
      assert_int_equal(hudi_parallel_for(pools[k], n, square, &c, &err), HUDI_OK);
      for (size_t i = 0; i < N; i++) {
        assert_int_equal(atomic_load(&visits[i]), i < n);
        assert_true(squares[i] == (i < n ? (uint64_t)i * i : 0));
      }
    }
    /* A failure stops new indices and comes back with its message. */
    memset(visits, 0, N * sizeof *visits);
    sq_ctx c = {visits, squares, 777};
    hudi_error_clear(&err);
    assert_int_equal(hudi_parallel_for(pools[k], N, square, &c, &err), HUDI_ERR_INVALID_ARG);
    assert_string_equal(err.message, "index 777 is bad");
    size_t visited = 0;
    for (size_t i = 0; i < N; i++) {
      assert_true(atomic_load(&visits[i]) <= 1);
      visited += (size_t)atomic_load(&visits[i]);
    }
    assert_true(visited >= 778 && visited < N);
  }
  hudi_threadpool_free(p);
  free(visits);
  free(squares);
}

/* Each outer index runs an inner parallel-for on the same pool. */
typedef struct nest_ctx {
  hudi_threadpool *pool;
  atomic_int total;
} nest_ctx;

static hudi_status inner(void *ctx, size_t i, hudi_error *err) {
  (void)i;
  (void)err;
  atomic_fetch_add(&((nest_ctx *)ctx)->total, 1);
  return HUDI_OK;
}

static hudi_status outer(void *ctx, size_t i, hudi_error *err) {
  (void)i;
  nest_ctx *c = ctx;
  return hudi_parallel_for(c->pool, 50, inner, c, err);
}

static void nested_parallel_for(void **state) {
  (void)state;
  hudi_threadpool *p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 2, &err), HUDI_OK);
  nest_ctx c = {p, 0};
  assert_int_equal(hudi_parallel_for(p, 200, outer, &c, &err), HUDI_OK);
  assert_int_equal(atomic_load(&c.total), 200 * 50);
  hudi_threadpool_free(p);
}

static void allocation_failures(void **state) {
  (void)state;
  hudi_threadpool *p = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_alloc_fail_after(0);
  assert_int_equal(hudi_threadpool_create(&p, 2, &err), HUDI_ERR_NOMEM);
  hudi_alloc_fail_after(1);
  assert_int_equal(hudi_threadpool_create(&p, 2, &err), HUDI_ERR_NOMEM);
  hudi_alloc_fail_after(-1);
  assert_null(p);
  assert_int_equal(hudi_threadpool_create(&p, 2, &err), HUDI_OK);
  hudi_task_group g;
  hudi_task_group_init(&g, p);
  atomic_int hits;
  atomic_init(&hits, 0);
  hudi_alloc_fail_after(3);
  int ok = 0;
  hudi_status st;
  while ((st = hudi_task_group_submit(&g, count_task, &hits, &err)) == HUDI_OK) ok++;
  hudi_alloc_fail_after(-1);
  assert_int_equal(st, HUDI_ERR_NOMEM);
  assert_non_null(strstr(err.message, "cannot queue a task"));
  assert_int_equal(ok, 3);
  assert_int_equal(hudi_task_group_wait(&g, &err), HUDI_OK);
  assert_int_equal(atomic_load(&hits), 3); /* the refused task never ran */
  hudi_task_group_destroy(&g);
  /* parallel_for whose helpers cannot be queued reports it. */
  enum { N = 100 };
  atomic_int visits[N];
  uint64_t squares[N];
  for (int i = 0; i < N; i++) atomic_init(&visits[i], 0);
  sq_ctx c = {visits, squares, SIZE_MAX};
  hudi_alloc_fail_after(0);
  st = hudi_parallel_for(p, N, square, &c, &err);
  hudi_alloc_fail_after(-1);
  assert_int_equal(st, HUDI_ERR_NOMEM);
  hudi_threadpool_free(p);
}

/* Several outside threads share one pool, each with its own groups. */
typedef struct client {
  hudi_threadpool *pool;
  int failures;
} client;

static void *client_main(void *arg) {
  client *c = arg;
  atomic_int hits;
  atomic_init(&hits, 0);
  for (int round = 0; round < 50; round++) {
    hudi_task_group g;
    hudi_task_group_init(&g, c->pool);
    for (int i = 0; i < 40; i++)
      if (hudi_task_group_submit(&g, count_task, &hits, NULL) != HUDI_OK) c->failures++;
    if (hudi_task_group_wait(&g, NULL) != HUDI_OK) c->failures++;
    hudi_task_group_destroy(&g);
    if (atomic_load(&hits) != (round + 1) * 40) c->failures++;
  }
  return NULL;
}

static void shared_by_threads(void **state) {
  (void)state;
  hudi_threadpool *p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_threadpool_create(&p, 3, &err), HUDI_OK);
  pthread_t th[4];
  client cl[4];
  for (int i = 0; i < 4; i++) {
    cl[i] = (client){p, 0};
    assert_int_equal(pthread_create(&th[i], NULL, client_main, &cl[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(cl[i].failures, 0);
  }
  hudi_threadpool_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_and_size),
      cmocka_unit_test(every_task_runs_once),
      cmocka_unit_test(errors_propagate),
      cmocka_unit_test(parallel_for_covers_every_index),
      cmocka_unit_test(nested_parallel_for),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(shared_by_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
