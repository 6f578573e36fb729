/* A Parquet writer fed on its own thread: the caller builds the next batch
 * while the previous one is encoded and compressed (a bulk insert's file
 * then uses two cores, and a load whose file count is not a multiple of
 * the cores keeps both busy to its end).
 *
 *   hudi_pq_feed *f;
 *   hudi_pq_feed_start(&f, w, &err);
 *   hudi_pq_feed_push(f, &batch, 0, &err);        // batch moved in; any number
 *   hudi_pq_feed_push(f, &last, HUDI_PQ_WRITE_LAST, &err);
 *   hudi_pq_feed_finish(f, &err);                  // waits, stops, frees f
 *
 * Batches are written in push order, at most HUDI_PQ_FEED_DEPTH queued.
 * Between start and finish only the feed's thread touches w. */
#ifndef HUDI_PARQUET_WRITER_FEED_H
#define HUDI_PARQUET_WRITER_FEED_H

#include <stdbool.h>

#include "base/error.h"
#include "parquet/writer.h"

#define HUDI_PQ_FEED_DEPTH 2

typedef struct hudi_pq_feed hudi_pq_feed;

HUDI_NODISCARD hudi_status hudi_pq_feed_start(hudi_pq_feed **out, hudi_pq_writer *w, hudi_error *err);

/* Queues *batch (ownership moves: *batch is released-marked on return, in
 * every case) to be written with flags; waits while the queue is full.
 * Once a write has failed, returns that failure (and drops the batch). */
HUDI_NODISCARD hudi_status hudi_pq_feed_push(hudi_pq_feed *f, struct ArrowArray *batch, unsigned flags,
                                             hudi_error *err);

/* Work for the feed's thread in the writer's order: task(ctx, w, failed,
 * err) writes to w (hudi_pq_writer_write_runs, say) and frees ctx. With
 * `failed` a write before it has failed: it must only free ctx. */
typedef hudi_status (*hudi_pq_feed_task)(void *ctx, hudi_pq_writer *w, bool failed, hudi_error *err);

/* Queues a task (ctx moves to it: it is freed by the task in every case,
 * on this thread when the feed has already failed). */
HUDI_NODISCARD hudi_status hudi_pq_feed_push_task(hudi_pq_feed *f, hudi_pq_feed_task task, void *ctx,
                                                  hudi_error *err);

/* Waits until everything queued is written (the thread idle): what a
 * caller needs before it changes memory a queued item points to. Returns
 * the first failure of any write. */
HUDI_NODISCARD hudi_status hudi_pq_feed_sync(hudi_pq_feed *f, hudi_error *err);

/* Waits until every queued batch is written, stops the thread and frees f;
 * returns the first failure of any write. NULL is a no-op. */
HUDI_NODISCARD hudi_status hudi_pq_feed_finish(hudi_pq_feed *f, hudi_error *err);

#endif
