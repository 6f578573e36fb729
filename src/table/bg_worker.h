/* One background thread of a table handle, as the async compaction of the
 * data table (compact_async.h) and of the metadata table
 * (mdt_compact_async.h) run them: the thread opens its own handle from
 * copies of the table's URI and open options plus the write's options,
 * keeps its failure until a call on the caller's handle reports it, and
 * announces when it waits for the table lock, so the handle's writes let
 * it in first (a loop of writes cannot starve it).
 *
 * The caller's handle owns the worker and calls everything but
 * hudi_bg_worker_lock, hudi_bg_worker_stopping and hudi_bg_worker_finish,
 * which the thread calls. */
#ifndef HUDI_TABLE_BG_WORKER_H
#define HUDI_TABLE_BG_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "hudi/common.h"
#include "table/lock.h"
#include "table/table.h"

typedef struct hudi_bg_worker {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t thread;
  bool started;       /* created and not yet joined */
  bool done;          /* finished (joinable without waiting) */
  bool wants_lock;    /* waits for the table lock */
  bool stop;          /* the handle is being freed */
  hudi_status status; /* its failure, kept until reported */
  hudi_error error;
  /* What the thread opens and runs with (its own copies). */
  char *base_uri;
  hudi_option *open_opts, *call_opts;
  size_t n_open, n_call;
} hudi_bg_worker;

HUDI_NODISCARD hudi_status hudi_bg_worker_init(hudi_bg_worker *w, hudi_error *err);

/* Joins (blocking), then frees what init and start made. */
void hudi_bg_worker_destroy(hudi_bg_worker *w);

/* Copies t's URI and open options and opts, then starts main(arg); what
 * names the thread in the error when it cannot start. */
HUDI_NODISCARD hudi_status hudi_bg_worker_start(hudi_bg_worker *w, const hudi_table *t, const hudi_option *opts,
                                                size_t n, void *(*main)(void *), void *arg, const char *what,
                                                hudi_error *err);

/* Joins a thread that has finished, or with block, any (the caller must
 * not hold the table lock then); true when one was joined. */
bool hudi_bg_worker_join(hudi_bg_worker *w, bool block);

/* The kept error (only once no thread runs), moved into err and
 * forgotten. */
HUDI_NODISCARD hudi_status hudi_bg_worker_take_error(hudi_bg_worker *w, hudi_error *err);

/* Before a write takes the lock: lets a running thread that waits for it
 * go first (at most 10 s). */
void hudi_bg_worker_yield(hudi_bg_worker *w);

/* Asks a running thread to stop waiting (hudi_bg_worker_stopping). */
void hudi_bg_worker_request_stop(hudi_bg_worker *w);

/* ---- called by the thread ------------------------------------------------ */

/* The table lock, polled often (a loop of writes leaves it free only
 * briefly) within hoodie.write.lock.wait_time_ms, and announced. */
HUDI_NODISCARD hudi_status hudi_bg_worker_lock(hudi_table_lock *lock, hudi_bg_worker *w, hudi_table *t,
                                               hudi_error *err);

/* A millisecond option of the thread's write options (dflt when absent or
 * not a non-negative number). */
int64_t hudi_bg_worker_opt_ms(hudi_bg_worker *w, hudi_table *t, const char *key, int64_t dflt);

/* Sleeps ms in short slices; false when a stop was requested. */
bool hudi_bg_worker_sleep(hudi_bg_worker *w, int64_t ms);

/* The thread's last act: keeps st and err and wakes the waiters. */
void hudi_bg_worker_finish(hudi_bg_worker *w, hudi_status st, const hudi_error *err);

#endif
