/* Asynchronous compaction of Merge-on-Read tables: with
 * hoodie.datasource.compaction.async.enable=true (a write option or a
 * table open option), the write whose deltacommit makes a compaction due
 * (hoodie.compact.inline.max.delta.commits, default 5) only schedules it,
 * under its own lock, and a background thread owned by the hudi_table
 * handle runs every pending compaction, oldest first:
 *
 *   lock:    begin (inflight marking, plan, schema)           compact.h
 *   no lock: execute (merging the slices into new base files)
 *   lock:    finish (metadata table, C_<completion>.commit)
 *
 * Later writes go on while it merges: their logs complete after C was
 * requested, so they join C's new slice (fsview.h) and nothing is lost.
 * The thread works on a handle of its own (opened from the table's URI and
 * open options), so the caller's handle is never touched from two threads.
 *
 * Only one background compaction runs per handle; a write that finds it
 * still running schedules nothing (a later write does). Its error is kept
 * and reported by the next call on the handle: hudi_table_wait_services,
 * a write (which then does nothing else) or hudi_table_compact. A failed
 * compaction stays pending; the next write with async compaction (or
 * hudi_table_compact) finishes it. hudi_table_free joins the thread.
 *
 * Lock fairness inside the process: the thread announces that it waits for
 * the table lock, and writes of the same handle let it in first
 * (hudi_compact_async_before_write), so a loop of writes cannot starve it. */
#ifndef HUDI_TABLE_COMPACT_ASYNC_H
#define HUDI_TABLE_COMPACT_ASYNC_H

#include <stdbool.h>

#include "base/error.h"
#include "hudi/common.h"
#include "table/table.h"

#define HUDI_COMPACT_ASYNC_OPTION "hoodie.datasource.compaction.async.enable"

/* Testing only: the background thread sleeps this many milliseconds
 * between begin and execute, so tests can observe writes running
 * alongside it. */
#define HUDI_COMPACT_ASYNC_TEST_DELAY_OPTION "hoodie.compact.async.test.delay.ms"

/* Called by hudi_compact_after_commit under the write's lock: harvests a
 * finished thread, schedules a compaction when due, and starts the thread
 * when the timeline has a pending compaction and none runs. */
HUDI_NODISCARD hudi_status hudi_compact_async_after_commit(hudi_table *t, const hudi_option *opts, size_t n, bool due,
                                                           hudi_error *err);

/* Called by hudi_write_begin before it takes the lock: the error of a
 * finished background compaction, else lets a background thread that
 * waits for the lock take it first. */
HUDI_NODISCARD hudi_status hudi_compact_async_before_write(hudi_table *t, hudi_error *err);

/* Whether the handle's background compaction thread is running (it runs
 * every pending compaction: nobody else may undo and redo one meanwhile). */
bool hudi_compact_async_busy(hudi_table *t);

/* The handle's background metadata-table compaction (mdt_compact_async.h)
 * lives in the same state: its slot, created on demand, and a peek that
 * never allocates (NULL when there is none). hudi_compact_async_before_write,
 * hudi_table_wait_services and hudi_compact_async_free serve both threads. */
struct hudi_mdt_compact_async;
HUDI_NODISCARD hudi_status hudi_compact_async_mdt_slot(struct hudi_mdt_compact_async ***out, hudi_table *t,
                                                       hudi_error *err);
struct hudi_mdt_compact_async *hudi_compact_async_mdt_peek(const hudi_table *t);

/* hudi_table_free: joins the thread (its error is dropped: nobody is left
 * to report it to; the compaction stays pending) and frees the state. */
void hudi_compact_async_free(hudi_table *t);

#endif
