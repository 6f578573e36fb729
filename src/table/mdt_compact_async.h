/* Metadata-table compaction in the background: with
 * hoodie.metadata.compact.async=true (hudi-c's own key; a write option or a
 * table open option; default false) the write whose commit makes the MDT
 * due only schedules the compaction C under its lock (C.compaction.requested
 * and .inflight in the MDT timeline, the same bytes as inline,
 * mdt_compact.h), and a background thread owned by the hudi_table handle
 * runs it:
 *
 *   lock:    begin (the plan's slices, from C.compaction.requested)
 *   no lock: execute (the new base HFiles, one group at a time by default:
 *            hoodie.metadata.compact.async.parallelism raises it)
 *   lock:    finish (C_<completion>.commit, then the MDT clean)
 *
 * Writes go on meanwhile: their MDT deltacommits' logs complete after C was
 * requested, so they join C's new slice, and readers (record-index lookups,
 * the files listing) read a group under C as its old base file, old logs
 * and those newer logs (fsview.h). MDT cleaning keeps the slices a pending
 * compaction reads (mdt_clean.c), archival never passes the MDT's latest
 * completed compaction (archive.c).
 *
 * The thread works on a handle of its own (opened from the table's URI and
 * open options). While it runs, the handle's writes never undo C (a
 * pending compaction of anyone else is undone first, as inline) and
 * schedule nothing new. Its error is kept and reported by the next write
 * or hudi_table_wait_services; C then stays pending and the write after
 * undoes and plans it anew. Writes of the handle let a thread waiting for
 * the lock take it first. hudi_table_free joins the thread; only the
 * testing delay below is cut short by it, leaving C pending (inflight).
 *
 * Another process's writer meanwhile: a hudi-c writer undoes C (the thread
 * then finds C gone at finish and deletes its files); a Java writer runs C
 * itself (its base files and ours then both exist under C until our finish
 * deletes ours), so run async MDT compaction with one writer process. */
#ifndef HUDI_TABLE_MDT_COMPACT_ASYNC_H
#define HUDI_TABLE_MDT_COMPACT_ASYNC_H

#include <stdbool.h>

#include "base/error.h"
#include "hudi/common.h"
#include "table/mdt_compact.h"
#include "table/table.h"

/* Testing only: the thread sleeps this many milliseconds between begin and
 * execute (cut short by hudi_table_free, which then leaves C pending). */
#define HUDI_MDT_COMPACT_ASYNC_TEST_DELAY_OPTION "hoodie.metadata.compact.async.test.delay.ms"

typedef struct hudi_mdt_compact_async hudi_mdt_compact_async;

/* The instant the handle's background thread runs into keep ("" when
 * none is live). */
void hudi_mdt_compact_async_running(char keep[HUDI_INSTANT_TIME_BUF], hudi_table *t);

/* Under the write's lock (hudi_mdt_table_services): harvests a finished
 * thread, schedules C when due and starts the thread on it. keep: as
 * hudi_mdt_compact_async_running gave it. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_async_after_commit(hudi_table *t, const hudi_mdt_services_options *so,
                                                               const hudi_option *opts, size_t n, const char *keep,
                                                               hudi_error *err);

/* Before a write takes the lock (compact_async.c): a finished thread's
 * error, else lets a thread waiting for the lock go first. a may be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_async_before_write(hudi_mdt_compact_async *a, hudi_error *err);

/* hudi_table_wait_services: joins the thread; *ran says whether one ran;
 * its error. a may be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_async_wait(hudi_mdt_compact_async *a, bool *ran, hudi_error *err);

/* hudi_table_free: cuts the testing delay short, joins, frees. */
void hudi_mdt_compact_async_free(hudi_mdt_compact_async *a);

#endif
