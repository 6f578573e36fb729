/* The background metadata-table compaction thread of a table handle
 * (mdt_compact_async.h). Its state hangs off the handle's background
 * state (compact_async.h), which joins and frees it. */
#include "table/mdt_compact_async.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "table/bg_worker.h"
#include "table/compact_async.h"
#include "table/lock.h"
#include "table/write.h"

struct hudi_mdt_compact_async {
  hudi_bg_worker w;
  char instant[HUDI_INSTANT_TIME_BUF]; /* C */
  int parallelism;
};

/* ---- the thread ---------------------------------------------------------- */

static hudi_status run(hudi_mdt_compact_async *a, hudi_table *t, hudi_error *err) {
  hudi_mdt_services_options so;
  HUDI_TRY(hudi_mdt_services_options_get(&so, t, a->w.call_opts, a->w.n_call, err));
  so.compact.parallelism = a->parallelism;
  so.compact.single_core = a->parallelism == 1;
  hudi_table_lock lock;
  HUDI_TRY(hudi_bg_worker_lock(&lock, &a->w, t, err));
  hudi_mdt_compact_job *job = NULL;
  hudi_status st = hudi_mdt_compact_begin(&job, t, a->instant, &so.compact, err);
  hudi_table_lock_release(&lock, t);
  if (st != HUDI_OK || !job) return st; /* undone by another writer meanwhile */
  int64_t delay = hudi_bg_worker_opt_ms(&a->w, t, HUDI_MDT_COMPACT_ASYNC_TEST_DELAY_OPTION, 0);
  /* false: hudi_table_free cut the testing delay short */
  if (delay > 0 && !hudi_bg_worker_sleep(&a->w, delay)) {
    hudi_mdt_compact_job_free(job);
    return HUDI_OK; /* left pending: the next writer undoes it */
  }
  st = hudi_mdt_compact_execute(job, err);
  if (st == HUDI_OK) st = hudi_bg_worker_lock(&lock, &a->w, t, err);
  if (st == HUDI_OK) {
    hudi_mdt_compact_result res;
    st = hudi_mdt_compact_finish(job, &res, err);
    /* The MDT clean Hudi runs after it (performTableServices). */
    if (st == HUDI_OK && res.instant[0]) st = hudi_write_reload_timeline(t, err);
    if (st == HUDI_OK && res.instant[0]) st = hudi_mdt_services_clean(t, &so, NULL, err);
    hudi_table_lock_release(&lock, t);
  }
  hudi_mdt_compact_job_free(job);
  return st;
}

static void *thread_main(void *arg) {
  hudi_mdt_compact_async *a = arg;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_table *t = NULL;
  hudi_status st = hudi_table_open(&t, a->w.base_uri, a->w.open_opts, a->w.n_open, &err);
  if (st == HUDI_OK) st = run(a, t, &err);
  hudi_table_free(t);
  if (st != HUDI_OK)
    hudi_err_context(&err, st, "background metadata-table compaction %s of table %s", a->instant, a->w.base_uri);
  hudi_bg_worker_finish(&a->w, st, &err);
  return NULL;
}

/* ---- the handle's side ---------------------------------------------------- */

static void join(hudi_mdt_compact_async *a, bool block) {
  if (a && hudi_bg_worker_join(&a->w, block)) a->instant[0] = '\0';
}

static hudi_status state(hudi_mdt_compact_async **out, hudi_table *t, hudi_error *err) {
  hudi_mdt_compact_async **slot;
  HUDI_TRY(hudi_compact_async_mdt_slot(&slot, t, err));
  if (!*slot) {
    hudi_mdt_compact_async *a = hudi_calloc(1, sizeof *a);
    if (!a) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    hudi_status st = hudi_bg_worker_init(&a->w, err);
    if (st != HUDI_OK) {
      hudi_free(a);
      return st;
    }
    *slot = a;
  }
  *out = *slot;
  return HUDI_OK;
}

void hudi_mdt_compact_async_running(char keep[HUDI_INSTANT_TIME_BUF], hudi_table *t) {
  keep[0] = '\0';
  hudi_mdt_compact_async *a = hudi_compact_async_mdt_peek(t);
  if (a && a->w.started) memcpy(keep, a->instant, HUDI_INSTANT_TIME_BUF);
}

hudi_status hudi_mdt_compact_async_after_commit(hudi_table *t, const hudi_mdt_services_options *so,
                                                const hudi_option *opts, size_t n, const char *keep,
                                                hudi_error *err) {
  hudi_mdt_compact_async *a = NULL;
  HUDI_TRY(state(&a, t, err));
  join(a, false);
  /* A kept error: reported by the next write, and the write after it
   * plans anew. */
  if (a->w.status != HUDI_OK) return HUDI_OK;
  /* A thread that finished just now ran keep: it is not kept any more. */
  char instant[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_mdt_compact_schedule(instant, t, &so->compact, a->w.started ? keep : NULL, err));
  if (!instant[0] || a->w.started) return HUDI_OK;
  memcpy(a->instant, instant, sizeof instant);
  a->parallelism = so->async_parallelism;
  hudi_status st = hudi_bg_worker_start(&a->w, t, opts, n, thread_main, a, "background metadata compaction", err);
  if (st != HUDI_OK) a->instant[0] = '\0';
  return st;
}

hudi_status hudi_mdt_compact_async_before_write(hudi_mdt_compact_async *a, hudi_error *err) {
  if (!a) return HUDI_OK;
  join(a, false);
  HUDI_TRY(hudi_bg_worker_take_error(&a->w, err));
  hudi_bg_worker_yield(&a->w);
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_async_wait(hudi_mdt_compact_async *a, bool *ran, hudi_error *err) {
  *ran = a && a->w.started;
  join(a, true);
  return a ? hudi_bg_worker_take_error(&a->w, err) : HUDI_OK;
}

void hudi_mdt_compact_async_free(hudi_mdt_compact_async *a) {
  if (!a) return;
  hudi_bg_worker_request_stop(&a->w);
  join(a, true);
  hudi_bg_worker_destroy(&a->w);
  hudi_free(a);
}
