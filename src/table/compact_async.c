/* The background compaction thread of a table handle (compact_async.h). */
#include "table/compact_async.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "hudi/services.h"
#include "table/compact.h"
#include "table/lock.h"
#include "table/mdt_compact_async.h"
#include "table/write.h"

/* Writes wait at most this long for the thread to take the lock. */
#define YIELD_MAX_MS 10000
/* The thread's poll interval for the table lock. */
#define POLL_MS 5

typedef struct hudi_compact_async {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  bool started;    /* a thread was created and not yet joined */
  bool done;       /* it has finished (joinable without waiting) */
  bool wants_lock; /* it waits for the table lock */
  hudi_status status; /* its failure, kept until reported */
  hudi_error error;
  /* What the thread opens and runs with (its own copies). */
  char *base_uri;
  hudi_option *open_opts, *call_opts;
  size_t n_open, n_call;
  struct hudi_mdt_compact_async *mdt; /* mdt_compact_async.h */
} hudi_compact_async;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static void free_opts(hudi_option *o, size_t n) {
  for (size_t i = 0; o && i < n; i++) {
    hudi_free((char *)o[i].key);
    hudi_free((char *)o[i].value);
  }
  hudi_free(o);
}

static void free_job(hudi_compact_async *a) {
  hudi_free(a->base_uri);
  free_opts(a->open_opts, a->n_open);
  free_opts(a->call_opts, a->n_call);
  a->base_uri = NULL;
  a->open_opts = a->call_opts = NULL;
  a->n_open = a->n_call = 0;
}

static hudi_status copy_opt(hudi_option *dst, const char *k, const char *v, hudi_error *err) {
  dst->key = hudi_strdup(k ? k : "");
  dst->value = hudi_strdup(v ? v : "");
  return dst->key && dst->value ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
}

static hudi_status make_job(hudi_compact_async *a, const hudi_table *t, const hudi_option *opts, size_t n,
                            hudi_error *err) {
  free_job(a);
  a->base_uri = hudi_strdup(t->base_uri);
  a->open_opts = hudi_calloc(t->options.len + 1, sizeof *a->open_opts);
  a->call_opts = hudi_calloc(n + 1, sizeof *a->call_opts);
  if (!a->base_uri || !a->open_opts || !a->call_opts) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < t->options.len; i++, a->n_open++)
    HUDI_TRY(copy_opt(&a->open_opts[i], t->options.entries[i].key, t->options.entries[i].value, err));
  for (size_t i = 0; i < n; i++) {
    if (!opts[i].key || !opts[i].value) continue;
    HUDI_TRY(copy_opt(&a->call_opts[a->n_call], opts[i].key, opts[i].value, err));
    a->n_call++;
  }
  return HUDI_OK;
}

/* ---- the thread ---------------------------------------------------------- */

static int64_t opt_ms(hudi_table *t, const hudi_option *o, size_t n, const char *key, int64_t dflt) {
  const char *v = hudi_write_option(t, o, n, key);
  if (!v || !*v) return dflt;
  char *end;
  long long x = strtoll(v, &end, 10);
  return *end || x < 0 ? dflt : (int64_t)x;
}

static void set_wants_lock(hudi_compact_async *a, bool on) {
  pthread_mutex_lock(&a->mu);
  a->wants_lock = on;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

/* The table lock, polled often (writes between two writes of a loop
 * leave it free only briefly) and announced to the handle's writes. */
static hudi_status take_lock(hudi_table_lock *lock, hudi_compact_async *a, hudi_table *t, hudi_error *err) {
  int64_t wait = opt_ms(t, a->call_opts, a->n_call, "hoodie.write.lock.wait_time_ms", 60000);
  int64_t deadline = now_ms() + wait;
  /* One try per call; the first option found wins. */
  hudi_option *o = hudi_calloc(a->n_call + 1, sizeof *o);
  if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  o[0] = (hudi_option){"hoodie.write.lock.wait_time_ms", "0"};
  for (size_t i = 0; i < a->n_call; i++) o[i + 1] = a->call_opts[i];
  set_wants_lock(a, true);
  hudi_status st;
  for (;;) {
    hudi_error e2 = HUDI_ERROR_INIT;
    st = hudi_table_lock_acquire(lock, t, o, a->n_call + 1, &e2);
    if (st == HUDI_ERR_CONFLICT && now_ms() >= deadline) {
      st = hudi_err_set(err, st, "waited %lld ms (hoodie.write.lock.wait_time_ms) for the table lock: %s",
                        (long long)wait, e2.message);
      break;
    }
    if (st != HUDI_ERR_CONFLICT) {
      if (st != HUDI_OK && err) *err = e2;
      break;
    }
    sleep_ms(POLL_MS);
  }
  set_wants_lock(a, false);
  hudi_free(o);
  return st;
}

/* Runs one pending compaction; *none when there was none left. */
static hudi_status run_one(hudi_compact_async *a, hudi_table *t, bool *none, hudi_error *err) {
  *none = false;
  hudi_compact_result res;
  memset(&res, 0, sizeof res);
  hudi_table_lock lock;
  HUDI_TRY(take_lock(&lock, a, t, err));
  char instant[HUDI_INSTANT_TIME_MAX];
  hudi_compact_job *job = NULL;
  hudi_status st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK && !hudi_compact_oldest_pending(instant, t)) *none = true;
  if (st == HUDI_OK && !*none) st = hudi_compact_begin(&job, &res, t, instant, a->call_opts, a->n_call, err);
  hudi_table_lock_release(&lock, t);
  if (st != HUDI_OK || *none) return st;
  int64_t delay = opt_ms(t, a->call_opts, a->n_call, HUDI_COMPACT_ASYNC_TEST_DELAY_OPTION, 0);
  if (delay > 0) sleep_ms(delay);
  st = hudi_compact_execute(job, err);
  if (st == HUDI_OK) st = take_lock(&lock, a, t, err);
  if (st == HUDI_OK) {
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
  hudi_status st = hudi_table_open(&t, a->base_uri, a->open_opts, a->n_open, &err);
  for (bool none = false; st == HUDI_OK && !none;) st = run_one(a, t, &none, &err);
  hudi_table_free(t);
  if (st != HUDI_OK) hudi_err_context(&err, st, "background compaction of table %s", a->base_uri);
  pthread_mutex_lock(&a->mu);
  a->status = st;
  a->error = err;
  a->done = true;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

/* ---- the handle's side ---------------------------------------------------- */

/* Joins a thread that has finished, or with block, any; the caller must
 * not hold the table lock when blocking. */
static void join(hudi_compact_async *a, bool block) {
  if (!a || !a->started) return;
  pthread_mutex_lock(&a->mu);
  bool done = a->done;
  pthread_mutex_unlock(&a->mu);
  if (!done && !block) return;
  pthread_join(a->thread, NULL);
  a->started = false;
  a->done = false;
  free_job(a);
}

/* The kept error, moved into err and forgotten. */
static hudi_status take_error(hudi_compact_async *a, hudi_error *err) {
  if (!a || a->started || a->status == HUDI_OK) return HUDI_OK;
  hudi_status st = a->status;
  if (err) *err = a->error;
  a->status = HUDI_OK;
  hudi_error_clear(&a->error);
  return st;
}

static hudi_status state(hudi_compact_async **out, hudi_table *t, hudi_error *err) {
  if (!t->compact_async) {
    hudi_compact_async *a = hudi_calloc(1, sizeof *a);
    if (!a) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
      hudi_free(a);
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_mutex_init failed");
    }
    if (pthread_cond_init(&a->cv, NULL) != 0) {
      pthread_mutex_destroy(&a->mu);
      hudi_free(a);
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_cond_init failed");
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
  join(a, false);
  /* Still merging: a later write schedules. A kept error: reported by the
   * next call, which is also the one to retry. */
  if (a->started || a->status != HUDI_OK) return HUDI_OK;
  if (due) {
    char instant[HUDI_INSTANT_TIME_BUF];
    bool scheduled;
    HUDI_TRY(hudi_compact_schedule(instant, &scheduled, t, opts, n, err));
  }
  char pending[HUDI_INSTANT_TIME_MAX];
  if (!hudi_compact_oldest_pending(pending, t)) return HUDI_OK;
  HUDI_TRY(make_job(a, t, opts, n, err));
  a->done = false;
  a->wants_lock = false;
  int rc = pthread_create(&a->thread, NULL, thread_main, a);
  if (rc != 0) {
    free_job(a);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "cannot start the background compaction thread: %s", strerror(rc));
  }
  a->started = true;
  return HUDI_OK;
}

hudi_status hudi_compact_async_mdt_slot(struct hudi_mdt_compact_async ***out, hudi_table *t, hudi_error *err) {
  hudi_compact_async *a = NULL;
  HUDI_TRY(state(&a, t, err));
  *out = &a->mdt;
  return HUDI_OK;
}

struct hudi_mdt_compact_async *hudi_compact_async_mdt_peek(const hudi_table *t) {
  return t->compact_async ? t->compact_async->mdt : NULL;
}

hudi_status hudi_compact_async_before_write(hudi_table *t, hudi_error *err) {
  hudi_compact_async *a = t->compact_async;
  if (!a) return HUDI_OK;
  HUDI_TRY(hudi_mdt_compact_async_before_write(a->mdt, err));
  join(a, false);
  HUDI_TRY(take_error(a, err));
  if (!a->started) return HUDI_OK;
  int64_t deadline = now_ms() + YIELD_MAX_MS;
  pthread_mutex_lock(&a->mu);
  while (a->wants_lock && !a->done && now_ms() < deadline) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&a->cv, &a->mu, &ts);
  }
  pthread_mutex_unlock(&a->mu);
  return HUDI_OK;
}

hudi_status hudi_table_wait_services(hudi_table *table, hudi_error *err) {
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_wait_services needs a table");
  hudi_compact_async *a = table->compact_async;
  bool ran = a && a->started, mdt_ran = false;
  join(a, true);
  hudi_error mdt_err = HUDI_ERROR_INIT;
  hudi_status mdt_st = hudi_mdt_compact_async_wait(a ? a->mdt : NULL, &mdt_ran, &mdt_err);
  ran |= mdt_ran;
  hudi_status st = take_error(a, err);
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
  join(a, true);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  free_job(a);
  hudi_free(a);
  t->compact_async = NULL;
}
