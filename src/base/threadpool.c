#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include "base/threadpool.h"

#if defined(__linux__)
#include <sched.h>
#endif
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"

typedef struct task {
  struct task *next;
  hudi_task_fn fn;
  void *arg;
  hudi_task_group *group;
} task;

struct hudi_threadpool {
  pthread_mutex_t mu;
  pthread_cond_t work; /* a task was queued, or stop was set */
  task *head, *tail;
  int stop;
  int nthreads;
  pthread_t *threads;
};

int hudi_cpu_count(void) {
#if defined(__linux__)
  /* The CPUs this process may run on (taskset, a container's cpuset), not
   * the machine's: threads beyond them only take turns. */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int k = CPU_COUNT(&set);
    if (k >= 1) return k > HUDI_THREADPOOL_MAX_THREADS ? HUDI_THREADPOOL_MAX_THREADS : k;
  }
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > HUDI_THREADPOOL_MAX_THREADS ? HUDI_THREADPOOL_MAX_THREADS : (int)n;
}

/* Pops the oldest task; the pool lock is held. */
static task *pop_locked(hudi_threadpool *p) {
  task *t = p->head;
  if (t) {
    p->head = t->next;
    if (!p->head) p->tail = NULL;
  }
  return t;
}

/* Runs a task outside the lock, then records its outcome in its group. */
static void run_task(hudi_threadpool *p, task *t) {
  hudi_task_group *g = t->group;
  pthread_mutex_lock(&p->mu);
  int skip = g->status != HUDI_OK;
  pthread_mutex_unlock(&p->mu);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = skip ? HUDI_OK : t->fn(t->arg, &err);
  if (st != HUDI_OK && err.code == HUDI_OK) err.code = st; /* a task that forgot to fill err */
  hudi_free(t);
  pthread_mutex_lock(&p->mu);
  if (st != HUDI_OK && g->status == HUDI_OK) {
    g->status = st;
    g->error = err;
  }
  if (--g->pending == 0) pthread_cond_broadcast(&g->done);
  pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg) {
  hudi_threadpool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    task *t = pop_locked(p);
    if (t) {
      pthread_mutex_unlock(&p->mu);
      run_task(p, t);
      pthread_mutex_lock(&p->mu);
    } else if (p->stop) {
      break;
    } else {
      pthread_cond_wait(&p->work, &p->mu);
    }
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void stop_and_join(hudi_threadpool *p, int started) {
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < started; i++) pthread_join(p->threads[i], NULL);
}

hudi_status hudi_threadpool_create(hudi_threadpool **out, int nthreads, hudi_error *err) {
  *out = NULL;
  if (nthreads < 0 || nthreads > HUDI_THREADPOOL_MAX_THREADS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "thread pool size %d is not in 0..%d", nthreads,
                        HUDI_THREADPOOL_MAX_THREADS);
  if (nthreads == 0) nthreads = hudi_cpu_count();
  hudi_threadpool *p = hudi_calloc(1, sizeof *p);
  pthread_t *threads = hudi_calloc((size_t)nthreads, sizeof *threads);
  if (!p || !threads) {
    hudi_free(p);
    hudi_free(threads);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "cannot allocate a pool of %d threads", nthreads);
  }
  p->threads = threads;
  p->nthreads = nthreads;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  for (int i = 0; i < nthreads; i++) {
    int rc = pthread_create(&p->threads[i], NULL, worker, p);
    if (rc != 0) {
      stop_and_join(p, i);
      pthread_cond_destroy(&p->work);
      pthread_mutex_destroy(&p->mu);
      hudi_free(p->threads);
      hudi_free(p);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "cannot start thread %d of %d (error %d)", i + 1, nthreads, rc);
    }
  }
  *out = p;
  return HUDI_OK;
}

void hudi_threadpool_free(hudi_threadpool *p) {
  if (!p) return;
  stop_and_join(p, p->nthreads); /* workers drain the queue before they stop */
  pthread_cond_destroy(&p->work);
  pthread_mutex_destroy(&p->mu);
  hudi_free(p->threads);
  hudi_free(p);
}

int hudi_threadpool_size(const hudi_threadpool *p) { return p ? p->nthreads : 0; }

void hudi_task_group_init(hudi_task_group *g, hudi_threadpool *pool) {
  g->pool = pool;
  g->pending = 0;
  g->status = HUDI_OK;
  hudi_error_clear(&g->error);
  pthread_cond_init(&g->done, NULL);
}

void hudi_task_group_destroy(hudi_task_group *g) { pthread_cond_destroy(&g->done); }

hudi_status hudi_task_group_submit(hudi_task_group *g, hudi_task_fn fn, void *arg, hudi_error *err) {
  hudi_threadpool *p = g->pool;
  if (!p) {
    if (g->status != HUDI_OK) return HUDI_OK; /* skipped, as queued tasks would be */
    hudi_error terr = HUDI_ERROR_INIT;
    hudi_status st = fn(arg, &terr);
    if (st != HUDI_OK) {
      if (terr.code == HUDI_OK) terr.code = st;
      g->status = st;
      g->error = terr;
    }
    return HUDI_OK;
  }
  task *t = hudi_malloc(sizeof *t);
  if (!t) return hudi_err_set(err, HUDI_ERR_NOMEM, "cannot queue a task");
  *t = (task){NULL, fn, arg, g};
  pthread_mutex_lock(&p->mu);
  if (p->tail) p->tail->next = t;
  else p->head = t;
  p->tail = t;
  g->pending++;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
  return HUDI_OK;
}

hudi_status hudi_task_group_wait(hudi_task_group *g, hudi_error *err) {
  hudi_threadpool *p = g->pool;
  if (p) {
    pthread_mutex_lock(&p->mu);
    while (g->pending > 0) {
      /* Help rather than sleep: a worker waiting here on a nested group
       * would otherwise hold a thread the group's own tasks need. */
      task *t = pop_locked(p);
      if (t) {
        pthread_mutex_unlock(&p->mu);
        run_task(p, t);
        pthread_mutex_lock(&p->mu);
      } else {
        pthread_cond_wait(&g->done, &p->mu);
      }
    }
    pthread_mutex_unlock(&p->mu);
  }
  hudi_status st = g->status;
  if (st != HUDI_OK && err) *err = g->error;
  g->status = HUDI_OK;
  hudi_error_clear(&g->error);
  return st;
}

/* Shared state of one parallel-for. */
typedef struct pfor {
  atomic_size_t next;
  atomic_int failed;
  size_t n;
  hudi_for_fn fn;
  void *ctx;
} pfor;

/* Takes indices until none are left or an index has failed. */
static hudi_status pfor_run(void *arg, hudi_error *err) {
  pfor *f = arg;
  while (!atomic_load(&f->failed)) {
    size_t i = atomic_fetch_add(&f->next, 1);
    if (i >= f->n) break;
    hudi_status st = f->fn(f->ctx, i, err);
    if (st != HUDI_OK) {
      atomic_store(&f->failed, 1);
      return st;
    }
  }
  return HUDI_OK;
}

hudi_status hudi_parallel_for(hudi_threadpool *pool, size_t n, hudi_for_fn fn, void *ctx, hudi_error *err) {
  pfor f;
  atomic_init(&f.next, 0);
  atomic_init(&f.failed, 0);
  f.n = n;
  f.fn = fn;
  f.ctx = ctx;
  hudi_task_group g;
  hudi_task_group_init(&g, pool);
  /* One helper per worker at most; the caller works too. */
  size_t helpers = pool ? (size_t)pool->nthreads : 0;
  if (helpers > n) helpers = n > 0 ? n - 1 : 0;
  hudi_status sub = HUDI_OK;
  hudi_error sub_err = HUDI_ERROR_INIT;
  for (size_t k = 0; k < helpers && sub == HUDI_OK; k++) sub = hudi_task_group_submit(&g, pfor_run, &f, &sub_err);
  /* The caller's own share, recorded like a task so the first failure wins. */
  hudi_error own_err = HUDI_ERROR_INIT;
  hudi_status own = sub == HUDI_OK ? pfor_run(&f, &own_err) : HUDI_OK;
  if (sub != HUDI_OK) atomic_store(&f.failed, 1);
  hudi_error grp_err = HUDI_ERROR_INIT;
  hudi_status grp = hudi_task_group_wait(&g, &grp_err);
  hudi_task_group_destroy(&g);
  if (sub != HUDI_OK) {
    if (err) *err = sub_err;
    return sub;
  }
  if (own != HUDI_OK) {
    if (own_err.code == HUDI_OK) own_err.code = own;
    if (err) *err = own_err;
    return own;
  }
  if (grp != HUDI_OK && err) *err = grp_err;
  return grp;
}
