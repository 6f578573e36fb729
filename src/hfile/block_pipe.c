/* The ordered block pipeline (see block_pipe.h). Jobs are numbered in
 * queue order: [head, tail) are in flight, [take, tail) queued and not yet
 * started. Only the writer's thread moves head and tail; `take` moves under
 * `mu`. A job's buffers belong to whoever holds it by its state: the
 * writer while FREE or DONE, the thread that took it while RUNNING.
 * A 4 KiB block deflates in ~15 us, so the writer's side avoids the lock
 * and system calls on its common path: it publishes a job by storing tail
 * (sequentially consistent) and wakes a worker only when one sleeps, and
 * sees a job done by its state (release/acquire). It wakes a sleeping
 * worker once per `batch` jobs, not per job: a worker faster than the
 * writer drains the queue and sleeps after every job, and a futex wake per
 * 4 KiB block cost the writer about a tenth of its time (perf).
 * Idle workers also pre-fault the memory the writer will copy the file
 * into next (hudi_hfile_pipe_prefault): first touches of fresh pages were
 * a fifth of the writer's time, and the workers had the spare time. */
#include "hfile/block_pipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/alloc.h"

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

typedef struct worker {
  hudi_hfile_pipe *p;
  pthread_t thread;
  hudi_fast_deflater *fast;
  int started;
} worker;

struct hudi_hfile_pipe {
  pthread_mutex_t mu;
  pthread_cond_t work; /* a job was queued, or stop */
  pthread_cond_t done; /* a job was encoded (signalled while the writer waits) */
  hudi_hfile_pipe_job *jobs;
  atomic_int *state;
  size_t n_slots;
  size_t head;          /* the writer's only */
  atomic_size_t tail;   /* written by the writer only */
  size_t take, running; /* under mu */
  atomic_int idle;      /* workers waiting on `work` */
  int writer_waiting;   /* under mu: the writer waits for job `wake_at` */
  size_t wake_at;       /* under mu */
  int stop;             /* under mu */
  size_t batch;         /* wake a sleeping worker once this many jobs wait */
  size_t unwoken;       /* the writer's only: jobs queued since the last wake */
  uint8_t *pf_addr;     /* under mu: memory to pre-fault, not yet started */
  size_t pf_len;
  int pf_busy;          /* under mu: a worker is pre-faulting */
  int pf_waiting;       /* under mu: the writer waits for pf_busy to clear */
  int pf_off;           /* MADV_POPULATE_WRITE is not available: stop asking */
  hudi_hfile_encode_fn fn;
  const void *ctx;
  hudi_fast_deflater *own_fast; /* the writer thread's, for the jobs it encodes */
  worker workers[HUDI_HFILE_PIPE_MAX_WORKERS];
  int n_workers;
};

/* Takes the next queued job (mu held); its slot index. */
static size_t take_job(hudi_hfile_pipe *p) {
  size_t s = p->take++ % p->n_slots;
  atomic_store_explicit(&p->state[s], SLOT_RUNNING, memory_order_relaxed);
  p->running++;
  return s;
}

/* Encodes slot s outside the lock, then marks it done (mu held on entry
 * and on return). */
static void run_job(hudi_hfile_pipe *p, size_t s, hudi_fast_deflater *fast) {
  pthread_mutex_unlock(&p->mu);
  p->fn(p->ctx, &p->jobs[s], fast);
  pthread_mutex_lock(&p->mu);
  atomic_store_explicit(&p->state[s], SLOT_DONE, memory_order_release);
  p->running--;
  if (p->writer_waiting &&
      (p->running == 0 ||
       atomic_load_explicit(&p->state[p->wake_at % p->n_slots], memory_order_relaxed) == SLOT_DONE))
    pthread_cond_broadcast(&p->done);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Pre-faults the pending range (mu held on entry and on return). Populating
 * writable pages never changes their content, so the writer may write into
 * the range meanwhile; it only must not free or move it (prefault_wait). */
static void run_prefault(hudi_hfile_pipe *p) {
  uint8_t *a = p->pf_addr;
  size_t len = p->pf_len;
  p->pf_addr = NULL;
  p->pf_busy = 1;
  pthread_mutex_unlock(&p->mu);
  long page = sysconf(_SC_PAGESIZE);
  uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
  uintptr_t lo = ((uintptr_t)a + mask) & ~mask, hi = ((uintptr_t)a + len) & ~mask;
  int rc = hi > lo ? madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) : 0;
  pthread_mutex_lock(&p->mu);
  if (rc != 0) p->pf_off = 1; /* an older kernel (EINVAL), or memory not ours to populate */
  p->pf_busy = 0;
  if (p->pf_waiting) pthread_cond_broadcast(&p->done);
}

static void *worker_main(void *arg) {
  worker *wk = arg;
  hudi_hfile_pipe *p = wk->p;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    /* Announce the wait before the last look at tail: the writer reads
     * `idle` after storing tail, so one of the two sees the other. */
    while (!p->stop && p->take == atomic_load(&p->tail)) {
      if (p->pf_addr) {
        run_prefault(p);
        continue;
      }
      atomic_fetch_add(&p->idle, 1);
      if (!p->stop && p->take == atomic_load(&p->tail)) pthread_cond_wait(&p->work, &p->mu);
      atomic_fetch_sub(&p->idle, 1);
    }
    if (p->stop) break;
    run_job(p, take_job(p), wk->fast);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

hudi_status hudi_hfile_pipe_create(hudi_hfile_pipe **out, int workers, size_t slots, int deflate_level,
                                   size_t max_block, hudi_hfile_encode_fn fn, const void *ctx, hudi_error *err) {
  *out = NULL;
  if (workers < 1 || workers > HUDI_HFILE_PIPE_MAX_WORKERS || slots < 2)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "HFile block pipeline: %d workers, %zu slots", workers, slots);
  hudi_hfile_pipe *p = hudi_calloc(1, sizeof *p);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile block pipeline");
  p->jobs = hudi_calloc(slots, sizeof *p->jobs);
  p->state = hudi_calloc(slots, sizeof *p->state); /* zero: SLOT_FREE */
  if (!p->jobs || !p->state) {
    hudi_free(p->jobs);
    hudi_free(p->state);
    hudi_free(p);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for an HFile block pipeline");
  }
  p->n_slots = slots;
  p->batch = slots / 8 < 1 ? 1 : slots / 8 > 8 ? 8 : slots / 8;
  for (size_t i = 0; i < slots; i++) {
    hudi_buf_init(&p->jobs[i].kv, max_block);
    hudi_buf_init(&p->jobs[i].enc, HUDI_BUF_DEFAULT_MAX);
  }
  p->fn = fn;
  p->ctx = ctx;
  atomic_init(&p->tail, 0);
  atomic_init(&p->idle, 0);
  for (size_t i = 0; i < slots; i++) atomic_init(&p->state[i], SLOT_FREE);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  int ok = 1;
  if (deflate_level > 0) {
    p->own_fast = hudi_fast_deflater_new(deflate_level);
    ok = p->own_fast != NULL;
  }
  for (int i = 0; ok && i < workers; i++) {
    worker *wk = &p->workers[i];
    wk->p = p;
    if (deflate_level > 0 && !(wk->fast = hudi_fast_deflater_new(deflate_level))) ok = 0;
    else if (pthread_create(&wk->thread, NULL, worker_main, wk) != 0) ok = 0;
    else wk->started = 1;
    p->n_workers = i + 1;
  }
  if (!ok) {
    hudi_hfile_pipe_free(p);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "could not start the HFile block pipeline's threads");
  }
  *out = p;
  return HUDI_OK;
}

void hudi_hfile_pipe_free(hudi_hfile_pipe *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n_workers; i++) {
    if (p->workers[i].started) pthread_join(p->workers[i].thread, NULL);
    hudi_fast_deflater_free(p->workers[i].fast);
  }
  hudi_fast_deflater_free(p->own_fast);
  for (size_t i = 0; i < p->n_slots; i++) {
    hudi_buf_free(&p->jobs[i].kv);
    hudi_buf_free(&p->jobs[i].enc);
    hudi_free(p->jobs[i].starts);
  }
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  pthread_mutex_destroy(&p->mu);
  hudi_free(p->jobs);
  hudi_free(p->state);
  hudi_free(p);
}

size_t hudi_hfile_pipe_count(const hudi_hfile_pipe *p) {
  return atomic_load_explicit(&p->tail, memory_order_relaxed) - p->head;
}

bool hudi_hfile_pipe_full(const hudi_hfile_pipe *p) { return hudi_hfile_pipe_count(p) == p->n_slots; }

hudi_hfile_pipe_job *hudi_hfile_pipe_next(hudi_hfile_pipe *p) {
  size_t t = atomic_load_explicit(&p->tail, memory_order_relaxed);
  return hudi_hfile_pipe_full(p) ? NULL : &p->jobs[t % p->n_slots];
}

void hudi_hfile_pipe_submit(hudi_hfile_pipe *p) {
  size_t t = atomic_load_explicit(&p->tail, memory_order_relaxed);
  atomic_store_explicit(&p->state[t % p->n_slots], SLOT_QUEUED, memory_order_relaxed);
  atomic_store(&p->tail, t + 1); /* publishes the job */
  if (++p->unwoken >= p->batch && atomic_load(&p->idle) > 0) {
    p->unwoken = 0;
    pthread_mutex_lock(&p->mu);
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
  }
}

/* Wakes the sleeping workers for jobs queued below the batch (mu held). */
static void wake_all(hudi_hfile_pipe *p) {
  p->unwoken = 0;
  if (atomic_load(&p->idle) > 0 && p->take < atomic_load(&p->tail)) pthread_cond_broadcast(&p->work);
}

void hudi_hfile_pipe_prefault(hudi_hfile_pipe *p, uint8_t *addr, size_t len) {
  pthread_mutex_lock(&p->mu);
  if (!p->pf_off) {
    p->pf_addr = addr;
    p->pf_len = len;
    if (atomic_load(&p->idle) > 0) pthread_cond_signal(&p->work);
  }
  pthread_mutex_unlock(&p->mu);
}

void hudi_hfile_pipe_prefault_wait(hudi_hfile_pipe *p) {
  pthread_mutex_lock(&p->mu);
  p->pf_addr = NULL;
  while (p->pf_busy) {
    p->pf_waiting = 1;
    pthread_cond_wait(&p->done, &p->mu);
    p->pf_waiting = 0;
  }
  pthread_mutex_unlock(&p->mu);
}

hudi_hfile_pipe_job *hudi_hfile_pipe_head(hudi_hfile_pipe *p, bool wait) {
  if (hudi_hfile_pipe_count(p) == 0) return NULL;
  size_t s = p->head % p->n_slots;
  if (atomic_load_explicit(&p->state[s], memory_order_acquire) == SLOT_DONE) return &p->jobs[s];
  if (!wait) return NULL;
  /* Wait for half the queue, not just the head: one wake-up per several
   * blocks. The queue is full (or the file ends), so the workers are
   * behind: the writer encodes queued jobs itself meanwhile, oldest first.
   * (With the workers also pre-faulting the file buffer they are the
   * busier side; a writer that only waited idled a third of the time.) */
  size_t n = hudi_hfile_pipe_count(p), half = n / 2 > 0 ? n / 2 : 1;
  pthread_mutex_lock(&p->mu);
  wake_all(p);
  p->wake_at = p->head + half - 1;
  while (atomic_load_explicit(&p->state[s], memory_order_acquire) != SLOT_DONE ||
         (p->running > 0 &&
          atomic_load_explicit(&p->state[p->wake_at % p->n_slots], memory_order_acquire) != SLOT_DONE)) {
    if (p->take < atomic_load(&p->tail)) {
      run_job(p, take_job(p), p->own_fast);
    } else if (p->running > 0) {
      p->writer_waiting = 1;
      pthread_cond_wait(&p->done, &p->mu);
      p->writer_waiting = 0;
    }
  }
  pthread_mutex_unlock(&p->mu);
  return &p->jobs[s];
}

void hudi_hfile_pipe_pop(hudi_hfile_pipe *p) {
  /* A DONE job is no other thread's business: no lock. */
  atomic_store_explicit(&p->state[p->head % p->n_slots], SLOT_FREE, memory_order_relaxed);
  p->head++;
}

void hudi_hfile_pipe_cancel(hudi_hfile_pipe *p) {
  pthread_mutex_lock(&p->mu);
  p->take = atomic_load(&p->tail);
  p->wake_at = p->take; /* any */
  while (p->running > 0) {
    p->writer_waiting = 1;
    pthread_cond_wait(&p->done, &p->mu);
    p->writer_waiting = 0;
  }
  pthread_mutex_unlock(&p->mu);
}

hudi_hfile_pipe_job *hudi_hfile_pipe_at(hudi_hfile_pipe *p, size_t i) {
  return i < hudi_hfile_pipe_count(p) ? &p->jobs[(p->head + i) % p->n_slots] : NULL;
}

void hudi_hfile_pipe_clear(hudi_hfile_pipe *p) {
  size_t t = atomic_load(&p->tail);
  for (; p->head != t; p->head++) atomic_store_explicit(&p->state[p->head % p->n_slots], SLOT_FREE, memory_order_relaxed);
  pthread_mutex_lock(&p->mu);
  p->take = t;
  pthread_mutex_unlock(&p->mu);
}
