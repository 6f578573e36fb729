/* The background metadata-table compaction thread of a table handle
 * (mdt_compact_async.h). Its state hangs off the handle's background
 * state (compact_async.h), which joins and frees it. */
#include "table/mdt_compact_async.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "table/compact_async.h"
#include "table/lock.h"
#include "table/write.h"

/* Writes wait at most this long for the thread to take the lock. */
#define YIELD_MAX_MS 10000
/* The thread's poll interval for the table lock, and the testing delay's
 * slice. */
#define POLL_MS 5

struct hudi_mdt_compact_async {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  bool started;       /* created and not yet joined */
  bool done;          /* finished (joinable without waiting) */
  bool wants_lock;    /* waits for the table lock */
  bool stop;          /* hudi_table_free: cut the testing delay short */
  hudi_status status; /* its failure, kept until reported */
  hudi_error error;
  char instant[HUDI_INSTANT_TIME_BUF]; /* C */
  /* What the thread opens and runs with (its own copies). */
  char *base_uri;
  hudi_option *open_opts, *call_opts;
  size_t n_open, n_call;
  int parallelism;
};

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

static void free_job(hudi_mdt_compact_async *a) {
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

static hudi_status make_job(hudi_mdt_compact_async *a, const hudi_table *t, const hudi_option *opts, size_t n,
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

static void set_wants_lock(hudi_mdt_compact_async *a, bool on) {
  pthread_mutex_lock(&a->mu);
  a->wants_lock = on;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

/* The table lock, polled often and announced to the handle's writes (as
 * compact_async.c's thread takes it). */
static hudi_status take_lock(hudi_table_lock *lock, hudi_mdt_compact_async *a, hudi_table *t, hudi_error *err) {
  int64_t wait = opt_ms(t, a->call_opts, a->n_call, "hoodie.write.lock.wait_time_ms", 60000);
  int64_t deadline = now_ms() + wait;
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

static bool stopping(hudi_mdt_compact_async *a) {
  pthread_mutex_lock(&a->mu);
  bool s = a->stop;
  pthread_mutex_unlock(&a->mu);
  return s;
}

/* The testing delay; false when hudi_table_free cut it short. */
static bool test_delay(hudi_mdt_compact_async *a, int64_t ms) {
  for (int64_t end = now_ms() + ms; now_ms() < end;) {
    if (stopping(a)) return false;
    sleep_ms(POLL_MS);
  }
  return !stopping(a);
}

static hudi_status run(hudi_mdt_compact_async *a, hudi_table *t, hudi_error *err) {
  hudi_mdt_services_options so;
  HUDI_TRY(hudi_mdt_services_options_get(&so, t, a->call_opts, a->n_call, err));
  so.compact.parallelism = a->parallelism;
  so.compact.single_core = a->parallelism == 1;
  hudi_table_lock lock;
  HUDI_TRY(take_lock(&lock, a, t, err));
  hudi_mdt_compact_job *job = NULL;
  hudi_status st = hudi_mdt_compact_begin(&job, t, a->instant, &so.compact, err);
  hudi_table_lock_release(&lock, t);
  if (st != HUDI_OK || !job) return st; /* undone by another writer meanwhile */
  int64_t delay = opt_ms(t, a->call_opts, a->n_call, HUDI_MDT_COMPACT_ASYNC_TEST_DELAY_OPTION, 0);
  if (delay > 0 && !test_delay(a, delay)) {
    hudi_mdt_compact_job_free(job);
    return HUDI_OK; /* left pending: the next writer undoes it */
  }
  st = hudi_mdt_compact_execute(job, err);
  if (st == HUDI_OK) st = take_lock(&lock, a, t, err);
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
  hudi_status st = hudi_table_open(&t, a->base_uri, a->open_opts, a->n_open, &err);
  if (st == HUDI_OK) st = run(a, t, &err);
  hudi_table_free(t);
  if (st != HUDI_OK)
    hudi_err_context(&err, st, "background metadata-table compaction %s of table %s", a->instant, a->base_uri);
  pthread_mutex_lock(&a->mu);
  a->status = st;
  a->error = err;
  a->done = true;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

/* ---- the handle's side ---------------------------------------------------- */

static void join(hudi_mdt_compact_async *a, bool block) {
  if (!a || !a->started) return;
  pthread_mutex_lock(&a->mu);
  bool done = a->done;
  pthread_mutex_unlock(&a->mu);
  if (!done && !block) return;
  pthread_join(a->thread, NULL);
  a->started = false;
  a->done = false;
  a->instant[0] = '\0';
  free_job(a);
}

static hudi_status take_error(hudi_mdt_compact_async *a, hudi_error *err) {
  if (!a || a->started || a->status == HUDI_OK) return HUDI_OK;
  hudi_status st = a->status;
  if (err) *err = a->error;
  a->status = HUDI_OK;
  hudi_error_clear(&a->error);
  return st;
}

static hudi_status state(hudi_mdt_compact_async **out, hudi_table *t, hudi_error *err) {
  hudi_mdt_compact_async **slot;
  HUDI_TRY(hudi_compact_async_mdt_slot(&slot, t, err));
  if (!*slot) {
    hudi_mdt_compact_async *a = hudi_calloc(1, sizeof *a);
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
    *slot = a;
  }
  *out = *slot;
  return HUDI_OK;
}

void hudi_mdt_compact_async_running(char keep[HUDI_INSTANT_TIME_BUF], hudi_table *t) {
  keep[0] = '\0';
  hudi_mdt_compact_async *a = hudi_compact_async_mdt_peek(t);
  if (a && a->started) memcpy(keep, a->instant, HUDI_INSTANT_TIME_BUF);
}

hudi_status hudi_mdt_compact_async_after_commit(hudi_table *t, const hudi_mdt_services_options *so,
                                                const hudi_option *opts, size_t n, const char *keep,
                                                hudi_error *err) {
  hudi_mdt_compact_async *a = NULL;
  HUDI_TRY(state(&a, t, err));
  join(a, false);
  /* A kept error: reported by the next write, and the write after it
   * plans anew. */
  if (a->status != HUDI_OK) return HUDI_OK;
  /* A thread that finished just now ran keep: it is not kept any more. */
  char instant[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_mdt_compact_schedule(instant, t, &so->compact, a->started ? keep : NULL, err));
  if (!instant[0] || a->started) return HUDI_OK;
  HUDI_TRY(make_job(a, t, opts, n, err));
  memcpy(a->instant, instant, sizeof instant);
  a->parallelism = so->async_parallelism;
  a->done = a->stop = a->wants_lock = false;
  int rc = pthread_create(&a->thread, NULL, thread_main, a);
  if (rc != 0) {
    free_job(a);
    a->instant[0] = '\0';
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "cannot start the background metadata compaction thread: %s",
                        strerror(rc));
  }
  a->started = true;
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_async_before_write(hudi_mdt_compact_async *a, hudi_error *err) {
  if (!a) return HUDI_OK;
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

hudi_status hudi_mdt_compact_async_wait(hudi_mdt_compact_async *a, bool *ran, hudi_error *err) {
  *ran = a && a->started;
  join(a, true);
  return take_error(a, err);
}

void hudi_mdt_compact_async_free(hudi_mdt_compact_async *a) {
  if (!a) return;
  if (a->started) {
    pthread_mutex_lock(&a->mu);
    a->stop = true;
    pthread_mutex_unlock(&a->mu);
  }
  join(a, true);
  hudi_error_clear(&a->error);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  free_job(a);
  hudi_free(a);
}
