/* Reading file slices in parallel for one stream (read_plan.h): a window
 * of a few slices is read ahead on a thread pool, each slice into its own
 * queue of batches, and the queues are drained in slice order, so a
 * parallel read returns the same batches in the same order as a serial
 * one. Memory: at most n_slots slices' output batches are held at once. */
#include <string.h>

#include "base/alloc.h"
#include "base/threadpool.h"
#include "table/read_plan.h"

typedef struct pf_slot {
  const hudi_read_plan *p;
  size_t slice;
  bool active; /* a slice was submitted to this slot and not yet drained */
  hudi_task_group g;
  struct ArrowArray *batches;
  size_t n, cap, pos;
} pf_slot;

struct hudi_slice_prefetch {
  const hudi_read_plan *p;
  hudi_threadpool *pool;
  pf_slot *slots;
  size_t n_slots;
  size_t head;       /* the slot holding the next slice to return */
  bool head_ready;   /* its task has been waited for */
  bool started;      /* nothing is read before the first batch is asked for */
  size_t next, end;  /* slices [next, end) are not yet submitted */
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

/* Runs on a pool thread: reads one whole slice into the slot's queue. */
static hudi_status read_slice_task(void *arg, hudi_error *err) {
  pf_slot *s = arg;
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, s->p, &s->p->slices[s->slice], err));
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

static void slot_clear(pf_slot *s) {
  for (size_t i = s->pos; i < s->n; i++)
    if (s->batches[i].release) s->batches[i].release(&s->batches[i]);
  s->n = s->pos = 0;
  s->active = false;
}

static hudi_status submit(hudi_slice_prefetch *pf, pf_slot *s, hudi_error *err) {
  if (pf->next >= pf->end) return HUDI_OK;
  s->slice = pf->next++;
  s->active = true;
  return hudi_task_group_submit(&s->g, read_slice_task, s, err);
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
  /* One slice read ahead per thread, plus the one being returned. */
  pf->n_slots = (size_t)threads + 1;
  pf->slots = hudi_calloc(pf->n_slots, sizeof *pf->slots);
  hudi_status st = pf->slots ? hudi_threadpool_create(&pf->pool, threads, err)
                             : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st != HUDI_OK) {
    hudi_free(pf->slots);
    hudi_free(pf);
    return st;
  }
  for (size_t i = 0; i < pf->n_slots; i++) {
    pf->slots[i].p = p;
    hudi_task_group_init(&pf->slots[i].g, pf->pool);
  }
  *out = pf;
  return HUDI_OK;
}

hudi_status hudi_slice_prefetch_next(hudi_slice_prefetch *pf, struct ArrowArray *out, bool *eof, hudi_error *err) {
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
      HUDI_TRY(hudi_task_group_wait(&s->g, err));
      pf->head_ready = true;
    }
    if (s->pos < s->n) {
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
  for (size_t i = 0; i < pf->n_slots; i++) {
    pf_slot *s = &pf->slots[i];
    /* Tasks still running use the plan and the slot: let them finish. */
    hudi_error ignored = HUDI_ERROR_INIT;
    if (hudi_task_group_wait(&s->g, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
    slot_clear(s);
    hudi_free(s->batches);
    hudi_task_group_destroy(&s->g);
  }
  hudi_threadpool_free(pf->pool);
  hudi_free(pf->slots);
  hudi_free(pf);
}
