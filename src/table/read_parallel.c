/* Reading file slices in parallel for one stream (read_plan.h): a window
 * of a few slices is read ahead on a thread pool, each slice into its own
 * queue of batches, and the queues are drained in slice order, so a
 * parallel read returns the same batches in the same order as a serial
 * one.
 *
 * Memory: at most n_slots slices' output batches are held at once, and
 * only the pool's threads decode. The window is two slices per thread
 * (plus the one being returned), so a thread that the scheduler serves
 * faster keeps reading while the other finishes the head slice (with one
 * slice per thread, the fast thread of a 1M-row read on a loaded machine
 * sat idle for 0.08-0.25 s until the consumer had drained the slow one's
 * slice; half that with two). The consumer waits for a slot on the
 * prefetch's own condition rather than in hudi_task_group_wait, which
 * would run a queued slice on the consumer's thread: a third reader (its
 * decode buffers, ~17 MB for a 62k-row file) on a 2-thread read. Each
 * thread's spare decode buffers (parquet/reader.h) are freed once it has
 * read a slice of the last wave, so they are not held beside the
 * finished output. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/threadpool.h"
#include "parquet/reader.h"
#include "table/read_plan.h"

typedef struct pf_slot {
  hudi_slice_prefetch *pf;
  size_t slice;
  bool active; /* a slice was submitted to this slot and not yet drained */
  bool last;   /* the slice is among the last threads + 1: free the spare after */
  bool done;   /* the task finished (under pf->mu) */
  hudi_status status;
  hudi_error error;
  hudi_task_group g;
  struct ArrowArray *batches;
  size_t n, cap, pos;
} pf_slot;

struct hudi_slice_prefetch {
  const hudi_read_plan *p;
  hudi_threadpool *pool;
  pf_slot *slots;
  size_t n_slots;
  size_t threads;
  size_t head;       /* the slot holding the next slice to return */
  bool head_ready;   /* its task has finished */
  bool started;      /* nothing is read before the first batch is asked for */
  size_t next, end;  /* slices [next, end) are not yet submitted */
  atomic_bool cancel; /* being freed: tasks not started read nothing */
  pthread_mutex_t mu;
  pthread_cond_t cv;
};

static hudi_status push_batch(pf_slot *s, struct ArrowArray *a, hudi_error *err) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    void *q = hudi_realloc(s->batches, cap * sizeof *s->batches);
    if (!q) {
      a->release(a);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    }
    s->batches = q;
    s->cap = cap;
  }
  s->batches[s->n++] = *a;
  return HUDI_OK;
}

static hudi_status read_slice(pf_slot *s, hudi_error *err) {
  const hudi_read_plan *p = s->pf->p;
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open_ex(&r, p, &p->slices[s->slice], s->last, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    if ((st = push_batch(s, &a, err)) != HUDI_OK) break;
  }
  hudi_slice_reader_free(r);
  return st;
}

/* Runs on a pool thread: reads one whole slice into the slot's queue and
 * reports to the consumer through the slot (the task itself never fails,
 * so the group is only waited for when the prefetch is freed). */
static hudi_status read_slice_task(void *arg, hudi_error *err) {
  (void)err;
  pf_slot *s = arg;
  hudi_slice_prefetch *pf = s->pf;
  hudi_error e = HUDI_ERROR_INIT;
  hudi_status st = atomic_load(&pf->cancel) ? HUDI_OK : read_slice(s, &e);
  if (s->last) hudi_pq_reader_release_spare();
  pthread_mutex_lock(&pf->mu);
  s->status = st;
  s->error = e;
  s->done = true;
  pthread_cond_broadcast(&pf->cv);
  pthread_mutex_unlock(&pf->mu);
  return HUDI_OK;
}

static void slot_clear(pf_slot *s) {
  for (size_t i = s->pos; i < s->n; i++)
    if (s->batches[i].release) s->batches[i].release(&s->batches[i]);
  s->n = s->pos = 0;
  s->active = false;
}

static hudi_status submit(hudi_slice_prefetch *pf, pf_slot *s, hudi_error *err) {
  if (pf->next >= pf->end) return HUDI_OK;
  s->slice = pf->next++;
  /* Slices start in order, so these are (about) each thread's last one:
   * lean readers, and their spare decode buffers freed after them. */
  s->last = s->slice + pf->threads + 1 >= pf->end;
  s->active = true;
  s->done = false;
  s->status = HUDI_OK;
  hudi_error_clear(&s->error);
  hudi_status st = hudi_task_group_submit(&s->g, read_slice_task, s, err);
  if (st != HUDI_OK) s->active = false;
  return st;
}

hudi_status hudi_slice_prefetch_create(hudi_slice_prefetch **out, const hudi_read_plan *p, size_t from, size_t to,
                                       int threads, hudi_error *err) {
  *out = NULL;
  if (threads < 1) threads = 1;
  hudi_slice_prefetch *pf = hudi_calloc(1, sizeof *pf);
  if (!pf) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  pf->p = p;
  pf->next = from;
  pf->end = to;
  atomic_init(&pf->cancel, false);
  /* Two slices read ahead per thread, plus the one being returned. */
  pf->threads = (size_t)threads;
  pf->n_slots = 2 * (size_t)threads + 1;
  pf->slots = hudi_calloc(pf->n_slots, sizeof *pf->slots);
  hudi_status st = pf->slots ? hudi_threadpool_create(&pf->pool, threads, err)
                             : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st != HUDI_OK) {
    hudi_free(pf->slots);
    hudi_free(pf);
    return st;
  }
  pthread_mutex_init(&pf->mu, NULL);
  pthread_cond_init(&pf->cv, NULL);
  for (size_t i = 0; i < pf->n_slots; i++) {
    pf->slots[i].pf = pf;
    hudi_task_group_init(&pf->slots[i].g, pf->pool);
  }
  *out = pf;
  return HUDI_OK;
}

hudi_status hudi_slice_prefetch_next(hudi_slice_prefetch *pf, struct ArrowArray *out, bool *eof, hudi_error *err) {
  return hudi_slice_prefetch_next_of(pf, out, NULL, eof, err);
}

hudi_status hudi_slice_prefetch_next_of(hudi_slice_prefetch *pf, struct ArrowArray *out, size_t *slice, bool *eof,
                                        hudi_error *err) {
  *eof = false;
  if (!pf->started) {
    pf->started = true;
    for (size_t i = 0; i < pf->n_slots; i++) HUDI_TRY(submit(pf, &pf->slots[i], err));
  }
  for (;;) {
    pf_slot *s = &pf->slots[pf->head];
    if (!s->active) {
      *eof = true;
      return HUDI_OK;
    }
    if (!pf->head_ready) {
      pthread_mutex_lock(&pf->mu);
      while (!s->done) pthread_cond_wait(&pf->cv, &pf->mu);
      pthread_mutex_unlock(&pf->mu);
      if (s->status != HUDI_OK) {
        if (err) *err = s->error;
        return s->status;
      }
      pf->head_ready = true;
    }
    if (s->pos < s->n) {
      if (slice) *slice = s->slice;
      *out = s->batches[s->pos];
      s->batches[s->pos++].release = NULL;
      return HUDI_OK;
    }
    /* Drained: refill the slot with the next slice, move to the next slot. */
    slot_clear(s);
    pf->head_ready = false;
    HUDI_TRY(submit(pf, s, err));
    pf->head = (pf->head + 1) % pf->n_slots;
  }
}

void hudi_slice_prefetch_free(hudi_slice_prefetch *pf) {
  if (!pf) return;
  atomic_store(&pf->cancel, true);
  for (size_t i = 0; i < pf->n_slots; i++) {
    pf_slot *s = &pf->slots[i];
    /* Tasks still running use the plan and the slot: let them finish
     * (queued ones return at once, cancelled). */
    hudi_error ignored = HUDI_ERROR_INIT;
    if (hudi_task_group_wait(&s->g, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
    slot_clear(s);
    hudi_free(s->batches);
    hudi_task_group_destroy(&s->g);
  }
  hudi_threadpool_free(pf->pool);
  /* A cancelled task may have run here, in the wait. */
  hudi_pq_reader_release_spare();
  pthread_cond_destroy(&pf->cv);
  pthread_mutex_destroy(&pf->mu);
  hudi_free(pf->slots);
  hudi_free(pf);
}
