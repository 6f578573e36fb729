/* A Parquet writer fed on its own thread (see writer_feed.h). */
#include "parquet/writer_feed.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "base/alloc.h"

struct hudi_pq_feed {
  hudi_pq_writer *w;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t changed; /* an item was queued or taken, or the feed closed */
  struct ArrowArray queue[HUDI_PQ_FEED_DEPTH];
  unsigned flags[HUDI_PQ_FEED_DEPTH];
  hudi_pq_feed_task task[HUDI_PQ_FEED_DEPTH]; /* NULL: write queue[i] */
  void *ctx[HUDI_PQ_FEED_DEPTH];
  size_t head, count;
  bool closed;        /* no more pushes */
  hudi_status status; /* first failed write */
  hudi_error error;
};

static void release(struct ArrowArray *a) {
  if (a->release) a->release(a);
  memset(a, 0, sizeof *a);
}

static void *run(void *arg) {
  hudi_pq_feed *f = arg;
  pthread_mutex_lock(&f->mu);
  for (;;) {
    while (f->count == 0 && !f->closed) pthread_cond_wait(&f->changed, &f->mu);
    if (f->count == 0) break; /* closed and drained */
    struct ArrowArray a = f->queue[f->head];
    unsigned flags = f->flags[f->head];
    hudi_pq_feed_task task = f->task[f->head];
    void *ctx = f->ctx[f->head];
    memset(&f->queue[f->head], 0, sizeof f->queue[f->head]);
    bool failed = f->status != HUDI_OK;
    pthread_mutex_unlock(&f->mu);
    /* After a failure the writer is unusable: later items are dropped (a
     * task is still called, with failed set, to free what it holds). */
    hudi_error e = HUDI_ERROR_INIT;
    hudi_status st = HUDI_OK;
    if (task) st = task(ctx, f->w, failed, &e);
    else if (!failed) st = hudi_pq_writer_write_batch(f->w, &a, flags, &e);
    release(&a);
    pthread_mutex_lock(&f->mu);
    if (st != HUDI_OK && f->status == HUDI_OK) {
      f->status = st;
      f->error = e;
    }
    f->head = (f->head + 1) % HUDI_PQ_FEED_DEPTH;
    f->count--;
    pthread_cond_broadcast(&f->changed);
  }
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

hudi_status hudi_pq_feed_start(hudi_pq_feed **out, hudi_pq_writer *w, hudi_error *err) {
  *out = NULL;
  hudi_pq_feed *f = hudi_calloc(1, sizeof *f);
  if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  f->w = w;
  if (pthread_mutex_init(&f->mu, NULL) != 0) {
    hudi_free(f);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_mutex_init failed");
  }
  if (pthread_cond_init(&f->changed, NULL) != 0) {
    pthread_mutex_destroy(&f->mu);
    hudi_free(f);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_cond_init failed");
  }
  if (pthread_create(&f->thread, NULL, run, f) != 0) {
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->mu);
    hudi_free(f);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "cannot start a Parquet writer thread");
  }
  *out = f;
  return HUDI_OK;
}

static hudi_status failure(hudi_pq_feed *f, hudi_error *err) {
  if (err) *err = f->error;
  return f->status;
}

/* Queues a batch (task NULL) or a task; on a failure already recorded,
 * drops it (the batch released, the task called with failed set). */
static hudi_status push(hudi_pq_feed *f, struct ArrowArray *batch, unsigned flags, hudi_pq_feed_task task, void *ctx,
                        hudi_error *err) {
  pthread_mutex_lock(&f->mu);
  while (f->count == HUDI_PQ_FEED_DEPTH && f->status == HUDI_OK) pthread_cond_wait(&f->changed, &f->mu);
  hudi_status st = f->status;
  if (st != HUDI_OK) {
    st = failure(f, err);
    pthread_mutex_unlock(&f->mu);
    if (batch) release(batch);
    if (task) {
      hudi_error ignored = HUDI_ERROR_INIT;
      hudi_status unused = task(ctx, f->w, true, &ignored);
      (void)unused;
    }
    return st;
  }
  size_t slot = (f->head + f->count) % HUDI_PQ_FEED_DEPTH;
  if (batch) {
    f->queue[slot] = *batch;
    memset(batch, 0, sizeof *batch);
  }
  f->flags[slot] = flags;
  f->task[slot] = task;
  f->ctx[slot] = ctx;
  f->count++;
  pthread_cond_broadcast(&f->changed);
  pthread_mutex_unlock(&f->mu);
  return HUDI_OK;
}

hudi_status hudi_pq_feed_push(hudi_pq_feed *f, struct ArrowArray *batch, unsigned flags, hudi_error *err) {
  return push(f, batch, flags, NULL, NULL, err);
}

hudi_status hudi_pq_feed_push_task(hudi_pq_feed *f, hudi_pq_feed_task task, void *ctx, hudi_error *err) {
  return push(f, NULL, 0, task, ctx, err);
}

hudi_status hudi_pq_feed_sync(hudi_pq_feed *f, hudi_error *err) {
  pthread_mutex_lock(&f->mu);
  while (f->count > 0 && f->status == HUDI_OK) pthread_cond_wait(&f->changed, &f->mu);
  hudi_status st = f->status == HUDI_OK ? HUDI_OK : failure(f, err);
  pthread_mutex_unlock(&f->mu);
  return st;
}

hudi_status hudi_pq_feed_finish(hudi_pq_feed *f, hudi_error *err) {
  if (!f) return HUDI_OK;
  pthread_mutex_lock(&f->mu);
  f->closed = true;
  pthread_cond_broadcast(&f->changed);
  pthread_mutex_unlock(&f->mu);
  pthread_join(f->thread, NULL);
  hudi_status st = f->status == HUDI_OK ? HUDI_OK : failure(f, err);
  pthread_cond_destroy(&f->changed);
  pthread_mutex_destroy(&f->mu);
  hudi_free(f);
  return st;
}
