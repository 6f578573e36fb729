/* A small pthread pool: N workers, task groups whose errors come back as a
 * hudi_status, and a parallel-for. A thread waiting on a group runs queued
 * tasks itself meanwhile, so tasks may wait on nested groups without
 * deadlocking the pool. */
#ifndef HUDI_BASE_THREADPOOL_H
#define HUDI_BASE_THREADPOOL_H

#include <pthread.h>
#include <stddef.h>

#include "base/error.h"

typedef struct hudi_threadpool hudi_threadpool;

/* A task: returns HUDI_OK or fills err (never NULL here) and returns its code. */
typedef hudi_status (*hudi_task_fn)(void *arg, hudi_error *err);

#define HUDI_THREADPOOL_MAX_THREADS 256

/* Starts nthreads workers; 0 means one per online core. The caller owns
 * the pool (hudi_threadpool_free). */
HUDI_NODISCARD hudi_status hudi_threadpool_create(hudi_threadpool **out, int nthreads, hudi_error *err);

/* Runs every task still queued, stops and joins the workers, frees the
 * pool. All groups must have been waited for. NULL is a no-op. */
void hudi_threadpool_free(hudi_threadpool *pool);

int hudi_threadpool_size(const hudi_threadpool *pool);

/* The cores this process may run on (on Linux its CPU affinity, which
 * taskset and cpusets narrow; elsewhere the online cores), at least 1. */
int hudi_cpu_count(void);

/* Tasks submitted together and waited for together. Once a task of the
 * group has failed, its tasks not yet started are skipped. */
typedef struct hudi_task_group {
  hudi_threadpool *pool; /* NULL: tasks run inline in submit */
  size_t pending;        /* submitted, not finished (under the pool lock) */
  hudi_status status;    /* first failure */
  hudi_error error;
  pthread_cond_t done;
} hudi_task_group;

/* pool may be NULL (inline execution). Pair with hudi_task_group_destroy. */
void hudi_task_group_init(hudi_task_group *g, hudi_threadpool *pool);
void hudi_task_group_destroy(hudi_task_group *g);

/* Queues fn(arg). HUDI_ERR_NOMEM if the task cannot be queued (it is then
 * not run). With no pool the task runs now and its failure is recorded for
 * wait, as with a pool. */
HUDI_NODISCARD hudi_status hudi_task_group_submit(hudi_task_group *g, hudi_task_fn fn, void *arg,
                                                  hudi_error *err);

/* Waits until every task of the group has finished; returns the first
 * failure with its message in err, or HUDI_OK. The group is then empty
 * and reusable. */
HUDI_NODISCARD hudi_status hudi_task_group_wait(hudi_task_group *g, hudi_error *err);

/* Calls fn(ctx, i, err) for every i in [0, n) on the pool's workers and the
 * calling thread (pool NULL: just the caller). After a failure no new
 * index starts; the first failure is returned. */
typedef hudi_status (*hudi_for_fn)(void *ctx, size_t i, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_parallel_for(hudi_threadpool *pool, size_t n, hudi_for_fn fn, void *ctx,
                                             hudi_error *err);

#endif
