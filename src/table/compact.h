/* Compaction of Merge-on-Read tables (hudi-write-semantics.md §7.1,
 * hudi-format-core.md §6 "Compaction"):
 *
 *   schedule: C.compaction.requested = HoodieCompactionPlan, one operation
 *             per file group whose latest slice has log files (not under a
 *             pending compaction, not replaced), biggest logs first;
 *   run:      C.compaction.inflight -> per operation: marker, the slice
 *             (base file + the planned logs) merged as a snapshot read
 *             merges it, written to <fileId>_<token>_C.parquet (rows keep
 *             _hoodie_commit_time and _hoodie_commit_seqno, _hoodie_file_name
 *             is the new file) -> the metadata table's `files` gets the new
 *             base files (the record index is unchanged: file ids stay) ->
 *             C_<completion>.commit (HoodieCommitMetadata, operationType
 *             COMPACT, compacted true) -> markers removed.
 *
 * Writes that land while C is pending append logs that join C's slice
 * (fsview.h), so nothing they write is lost.
 *
 * Memory and threads: without an ordering field (commit-time ordering,
 * where every log record beats the base record of its key) a file group's
 * logs are merged in memory and its base file is streamed batch by batch,
 * unchanged rows going to the Parquet writer as slices of the read batch;
 * a file group then holds one base row group (as the Parquet reader loads
 * it), the row group being written (hoodie.parquet.block.size) and its
 * logs' records. With an ordering field the whole slice is merged in memory
 * (the slice reader's merge). hoodie.compact.parallelism (default: the
 * cores, at most 4) file groups are compacted at once. */
#ifndef HUDI_TABLE_COMPACT_H
#define HUDI_TABLE_COMPACT_H

#include <stdbool.h>

#include "base/error.h"
#include "base/instant.h"
#include "hudi/services.h"
#include "hudi/write.h"
#include "table/table.h"

/* Writes C.compaction.requested for the table's file groups with logs.
 * *scheduled is false (and nothing is written) when no group has logs.
 * instant receives C. */
HUDI_NODISCARD hudi_status hudi_compact_schedule(char instant[HUDI_INSTANT_TIME_BUF], bool *scheduled, hudi_table *t,
                                                 const hudi_option *opts, size_t n, hudi_error *err);

/* Runs the pending compaction `instant` to completion (files a previous
 * attempt left, found by their markers, are deleted first). Adds to
 * *result. */
HUDI_NODISCARD hudi_status hudi_compact_run(hudi_compact_result *result, hudi_table *t, const char *instant,
                                            const hudi_option *opts, size_t n, hudi_error *err);

/* hudi_compact_run in its three steps, so that a background compaction
 * (compact_async.h) holds the table lock only around the first and the
 * last: begin (under the lock) checks instant is pending, reads its plan,
 * deletes a failed attempt's files, marks it inflight and reads the table
 * schema; execute (no lock needed: it writes only C's new base files, which
 * no write touches) merges every planned slice; finish (under the lock)
 * reloads the timeline, updates the metadata table and completes C.
 * result must outlive the job. */
typedef struct hudi_compact_job hudi_compact_job;
HUDI_NODISCARD hudi_status hudi_compact_begin(hudi_compact_job **out, hudi_compact_result *result, hudi_table *t,
                                              const char *instant, const hudi_option *opts, size_t n,
                                              hudi_error *err);
HUDI_NODISCARD hudi_status hudi_compact_execute(hudi_compact_job *job, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_compact_finish(hudi_compact_job *job, hudi_error *err);
void hudi_compact_job_free(hudi_compact_job *job);

/* The oldest pending (requested or inflight) compaction on t's loaded
 * timeline into out; false when there is none. */
bool hudi_compact_oldest_pending(char out[HUDI_INSTANT_TIME_MAX], const hudi_table *t);

/* The hook of hudi_services_after_commit: after a deltacommit, with
 * hoodie.compact.inline=true, compacts when at least
 * hoodie.compact.inline.max.delta.commits (default 5) deltacommits
 * completed since the latest compaction was requested. */
/*
 * With hoodie.datasource.compaction.async.enable=true instead (and inline
 * not set), the due compaction is only scheduled, under the write's lock,
 * and a background thread of the table handle runs it, and any other
 * pending compaction, while later writes go on (compact_async.h). */
HUDI_NODISCARD hudi_status hudi_compact_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                                     const hudi_write_result *wr, hudi_error *err);

#endif
