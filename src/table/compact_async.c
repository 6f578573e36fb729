/* The background compaction thread of a table handle (compact_async.h). */
#include "table/compact_async.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hudi/services.h"
#include "table/bg_worker.h"
#include "table/compact.h"
#include "table/lock.h"
#include "table/mdt_compact_async.h"
#include "table/write.h"

typedef struct hudi_compact_async {
  hudi_bg_worker w;
  struct hudi_mdt_compact_async *mdt; /* mdt_compact_async.h */
} hudi_compact_async;

/* ---- the thread ---------------------------------------------------------- */

/* Runs one pending compaction; *none when there was none left. */
static hudi_status run_one(hudi_compact_async *a, hudi_table *t, bool *none, hudi_error *err) {
  *none = false;
  hudi_compact_result res;
  memset(&res, 0, sizeof res);
  hudi_table_lock lock;
  HUDI_TRY(hudi_bg_worker_lock(&lock, &a->w, t, err));
  char instant[HUDI_INSTANT_TIME_MAX];
  hudi_compact_job *job = NULL;
  hudi_status st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK && !hudi_compact_oldest_pending(instant, t)) *none = true;
  if (st == HUDI_OK && !*none) st = hudi_compact_begin(&job, &res, t, instant, a->w.call_opts, a->w.n_call, err);
  hudi_table_lock_release(&lock, t);
  if (st != HUDI_OK || *none) return st;
  int64_t delay = hudi_bg_worker_opt_ms(&a->w, t, HUDI_COMPACT_ASYNC_TEST_DELAY_OPTION, 0);
  if (delay > 0) (void)hudi_bg_worker_sleep(&a->w, delay);
  st = hudi_compact_execute(job, err);
  if (st == HUDI_OK) st = hudi_bg_worker_lock(&lock, &a->w, t, err);
  if (st == HUDI_OK) {
    /* (The lock refreshed this thread's handle: a metadata table built or
     * dropped while the compaction ran gets, or loses, its commit.) */
    st = hudi_compact_finish(job, err);
    hudi_table_lock_release(&lock, t);
  }
  hudi_compact_job_free(job);
  return st;
}

static void *thread_main(void *arg) {
  hudi_compact_async *a = arg;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = NULL;
  hudi_status st = hudi_table_open(&t, a->w.base_uri, a->w.open_opts, a->w.n_open, &err);
  for (bool none = false; st == HUDI_OK && !none;) st = run_one(a, t, &none, &err);
  hudi_table_free(t);
  if (st != HUDI_OK) hudi_err_context(&err, st, "background compaction of table %s", a->w.base_uri);
  hudi_bg_worker_finish(&a->w, st, &err);
  return NULL;
}

/* ---- the handle's side ---------------------------------------------------- */

static hudi_status state(hudi_compact_async **out, hudi_table *t, hudi_error *err) {
  if (!t->compact_async) {
    hudi_compact_async *a = hudi_calloc(1, sizeof *a);
    if (!a) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    hudi_status st = hudi_bg_worker_init(&a->w, err);
    if (st != HUDI_OK) {
      hudi_free(a);
      return st;
    }
    t->compact_async = a;
  }
  *out = t->compact_async;
  return HUDI_OK;
}

hudi_status hudi_compact_async_after_commit(hudi_table *t, const hudi_option *opts, size_t n, bool due,
                                            hudi_error *err) {
  hudi_compact_async *a = NULL;
  HUDI_TRY(state(&a, t, err));
  hudi_bg_worker_join(&a->w, false);
  /* Still merging: a later write schedules. A kept error: reported by the
   * next call, which is also the one to retry. */
  if (a->w.started || a->w.status != HUDI_OK) return HUDI_OK;
  if (due) {
    char instant[HUDI_INSTANT_TIME_BUF];
    bool scheduled;
    HUDI_TRY(hudi_compact_schedule(instant, &scheduled, t, opts, n, err));
  }
  char pending[HUDI_INSTANT_TIME_MAX];
  if (!hudi_compact_oldest_pending(pending, t)) return HUDI_OK;
  return hudi_bg_worker_start(&a->w, t, opts, n, thread_main, a, "background compaction", err);
}

hudi_status hudi_compact_async_mdt_slot(struct hudi_mdt_compact_async ***out, hudi_table *t, hudi_error *err) {
  hudi_compact_async *a = NULL;
  HUDI_TRY(state(&a, t, err));
  *out = &a->mdt;
  return HUDI_OK;
}

bool hudi_compact_async_busy(hudi_table *t) {
  hudi_compact_async *a = t->compact_async;
  if (!a) return false;
  pthread_mutex_lock(&a->w.mu);
  bool busy = a->w.started && !a->w.done;
  pthread_mutex_unlock(&a->w.mu);
  return busy;
}

struct hudi_mdt_compact_async *hudi_compact_async_mdt_peek(const hudi_table *t) {
  return t->compact_async ? t->compact_async->mdt : NULL;
}

hudi_status hudi_compact_async_before_write(hudi_table *t, hudi_error *err) {
  hudi_compact_async *a = t->compact_async;
  if (!a) return HUDI_OK;
  HUDI_TRY(hudi_mdt_compact_async_before_write(a->mdt, err));
  hudi_bg_worker_join(&a->w, false);
  HUDI_TRY(hudi_bg_worker_take_error(&a->w, err));
  hudi_bg_worker_yield(&a->w);
  return HUDI_OK;
}

hudi_status hudi_table_wait_services(hudi_table *table, hudi_error *err) {
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_wait_services needs a table");
  hudi_compact_async *a = table->compact_async;
  bool ran = a && hudi_bg_worker_join(&a->w, true), mdt_ran = false;
  hudi_error mdt_err = HUDI_ERROR_INIT;
  hudi_status mdt_st = hudi_mdt_compact_async_wait(a ? a->mdt : NULL, &mdt_ran, &mdt_err);
  ran |= mdt_ran;
  hudi_status st = a ? hudi_bg_worker_take_error(&a->w, err) : HUDI_OK;
  if (st == HUDI_OK && mdt_st != HUDI_OK && err) *err = mdt_err;
  else hudi_error_clear(&mdt_err);
  HUDI_TRY(st != HUDI_OK ? st : mdt_st);
  /* The handle's reads see what its background work completed. */
  return ran ? hudi_write_reload_timeline(table, err) : HUDI_OK;
}

void hudi_compact_async_free(hudi_table *t) {
  hudi_compact_async *a = t->compact_async;
  if (!a) return;
  hudi_mdt_compact_async_free(a->mdt);
  a->mdt = NULL;
  hudi_bg_worker_destroy(&a->w);
  hudi_free(a);
  t->compact_async = NULL;
}
