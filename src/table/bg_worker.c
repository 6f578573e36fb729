/* A background thread of a table handle (bg_worker.h). */
#include "table/bg_worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "table/write.h"

/* Writes wait at most this long for the thread to take the lock. */
#define YIELD_MAX_MS 10000
/* The thread's poll interval for the table lock, and its sleep slice. */
#define POLL_MS 5

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

static void free_job(hudi_bg_worker *w) {
  hudi_free(w->base_uri);
  free_opts(w->open_opts, w->n_open);
  free_opts(w->call_opts, w->n_call);
  w->base_uri = NULL;
  w->open_opts = w->call_opts = NULL;
  w->n_open = w->n_call = 0;
}

static hudi_status copy_opt(hudi_option *dst, const char *k, const char *v, hudi_error *err) {
  dst->key = hudi_strdup(k ? k : "");
  dst->value = hudi_strdup(v ? v : "");
  return dst->key && dst->value ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
}

static hudi_status make_job(hudi_bg_worker *w, const hudi_table *t, const hudi_option *opts, size_t n,
                            hudi_error *err) {
  free_job(w);
  w->base_uri = hudi_strdup(t->base_uri);
  w->open_opts = hudi_calloc(t->options.len + 1, sizeof *w->open_opts);
  w->call_opts = hudi_calloc(n + 1, sizeof *w->call_opts);
  if (!w->base_uri || !w->open_opts || !w->call_opts) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < t->options.len; i++, w->n_open++)
    HUDI_TRY(copy_opt(&w->open_opts[i], t->options.entries[i].key, t->options.entries[i].value, err));
  for (size_t i = 0; i < n; i++) {
    if (!opts[i].key || !opts[i].value) continue;
    HUDI_TRY(copy_opt(&w->call_opts[w->n_call], opts[i].key, opts[i].value, err));
    w->n_call++;
  }
  return HUDI_OK;
}

hudi_status hudi_bg_worker_init(hudi_bg_worker *w, hudi_error *err) {
  memset(w, 0, sizeof *w);
  if (pthread_mutex_init(&w->mu, NULL) != 0) return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_mutex_init failed");
  if (pthread_cond_init(&w->cv, NULL) != 0) {
    pthread_mutex_destroy(&w->mu);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "pthread_cond_init failed");
  }
  return HUDI_OK;
}

void hudi_bg_worker_destroy(hudi_bg_worker *w) {
  hudi_bg_worker_join(w, true);
  hudi_error_clear(&w->error);
  pthread_cond_destroy(&w->cv);
  pthread_mutex_destroy(&w->mu);
  free_job(w);
}

hudi_status hudi_bg_worker_start(hudi_bg_worker *w, const hudi_table *t, const hudi_option *opts, size_t n,
                                 void *(*main)(void *), void *arg, const char *what, hudi_error *err) {
  HUDI_TRY(make_job(w, t, opts, n, err));
  w->done = w->stop = w->wants_lock = false;
  int rc = pthread_create(&w->thread, NULL, main, arg);
  if (rc != 0) {
    free_job(w);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "cannot start the %s thread: %s", what, strerror(rc));
  }
  w->started = true;
  return HUDI_OK;
}

bool hudi_bg_worker_join(hudi_bg_worker *w, bool block) {
  if (!w->started) return false;
  pthread_mutex_lock(&w->mu);
  bool done = w->done;
  pthread_mutex_unlock(&w->mu);
  if (!done && !block) return false;
  pthread_join(w->thread, NULL);
  w->started = false;
  w->done = false;
  free_job(w);
  return true;
}

hudi_status hudi_bg_worker_take_error(hudi_bg_worker *w, hudi_error *err) {
  if (w->started || w->status == HUDI_OK) return HUDI_OK;
  hudi_status st = w->status;
  if (err) *err = w->error;
  w->status = HUDI_OK;
  hudi_error_clear(&w->error);
  return st;
}

void hudi_bg_worker_yield(hudi_bg_worker *w) {
  if (!w->started) return;
  int64_t deadline = now_ms() + YIELD_MAX_MS;
  pthread_mutex_lock(&w->mu);
  while (w->wants_lock && !w->done && now_ms() < deadline) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 20 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&w->cv, &w->mu, &ts);
  }
  pthread_mutex_unlock(&w->mu);
}

void hudi_bg_worker_request_stop(hudi_bg_worker *w) {
  if (!w->started) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_mutex_unlock(&w->mu);
}

/* ---- the thread ---------------------------------------------------------- */

int64_t hudi_bg_worker_opt_ms(hudi_bg_worker *w, hudi_table *t, const char *key, int64_t dflt) {
  const char *v = hudi_write_option(t, w->call_opts, w->n_call, key);
  if (!v || !*v) return dflt;
  char *end;
  long long x = strtoll(v, &end, 10);
  return *end || x < 0 ? dflt : (int64_t)x;
}

static void set_wants_lock(hudi_bg_worker *w, bool on) {
  pthread_mutex_lock(&w->mu);
  w->wants_lock = on;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

hudi_status hudi_bg_worker_lock(hudi_table_lock *lock, hudi_bg_worker *w, hudi_table *t, hudi_error *err) {
  int64_t wait = hudi_bg_worker_opt_ms(w, t, "hoodie.write.lock.wait_time_ms", 60000);
  int64_t deadline = now_ms() + wait;
  /* One try per call; the first option found wins. */
  hudi_option *o = hudi_calloc(w->n_call + 1, sizeof *o);
  if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  o[0] = (hudi_option){"hoodie.write.lock.wait_time_ms", "0"};
  for (size_t i = 0; i < w->n_call; i++) o[i + 1] = w->call_opts[i];
  set_wants_lock(w, true);
  hudi_status st;
  for (;;) {
    hudi_error e2 = HUDI_ERROR_INIT;
    st = hudi_table_lock_acquire(lock, t, o, w->n_call + 1, &e2);
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
  set_wants_lock(w, false);
  hudi_free(o);
  return st;
}

static bool stopping(hudi_bg_worker *w) {
  pthread_mutex_lock(&w->mu);
  bool s = w->stop;
  pthread_mutex_unlock(&w->mu);
  return s;
}

bool hudi_bg_worker_sleep(hudi_bg_worker *w, int64_t ms) {
  for (int64_t end = now_ms() + ms; now_ms() < end;) {
    if (stopping(w)) return false;
    sleep_ms(POLL_MS);
  }
  return !stopping(w);
}

void hudi_bg_worker_finish(hudi_bg_worker *w, hudi_status st, const hudi_error *err) {
  pthread_mutex_lock(&w->mu);
  w->status = st;
  w->error = *err;
  w->done = true;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
}
