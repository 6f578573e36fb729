/* Compaction of the metadata table (MDT), as Hudi 1.x's metadata writer
 * runs it after each commit (HoodieBackedTableMetadataWriter
 * performTableServices / compactIfNecessary; spec hudi-metadata-table.md
 * §1.5, §1.6):
 *
 *   - due when the MDT holds at least hoodie.metadata.compact.max.delta.commits
 *     (default 10) completed deltacommits since its last completed
 *     compaction (completed after it was requested);
 *   - instant C: a fresh instant time, or, when a data-table instant is
 *     pending on the data timeline but already completed on the MDT, that
 *     instant minus 1 ms (so it can still be rolled back); skipped when C
 *     is already on the MDT timeline;
 *   - every file group whose latest slice has log files completed before C
 *     is compacted (UnBoundedCompactionStrategy; with
 *     hoodie.metadata.compact.incremental, a share of them every few
 *     deltacommits, see below): C.compaction.requested
 *     (a HoodieCompactionPlan), C.compaction.inflight (empty, as Spark
 *     leaves it), one base HFile per group `<fileId>_<token>_<C>.hfile`
 *     holding the merged records in key order (files listings merged as
 *     HoodieMetadataPayload combines them; record-index entries and
 *     column/partition stats latest wins, deleted keys and column-stats
 *     tombstones (isDeleted) dropped; _hoodie_file_name set to the new
 *     file; records of another schema version resolved into the table's),
 *     with minRecordKey/maxRecordKey, bloomFilterTypeCode DYNAMIC_V0 and the
 *     bloomFilter meta block (10000 entries, fpp 1e-9) as Hudi's HFile
 *     writer adds them; then C_<c>.commit (operation COMPACT).
 *   - A compaction left pending by a crash (or by another process) is
 *     undone first (its base files and plan deleted): the file-system view
 *     then slices as before it. The one the handle's own background thread
 *     runs (mdt_compact_async.h) is never undone, and while it is pending
 *     nothing else is scheduled.
 * Readers then read each group's new base file plus the logs completed
 * after C; while C is pending, the old base file, the old logs and the
 * logs completed after C was requested (fsview.h's merged slice).
 *
 * With hoodie.metadata.compact.async=true the steps are split
 * (mdt_compact_async.h): the write schedules C under its lock (the same
 * requested and inflight files as inline), a background thread begins
 * (lock), executes (no lock) and finishes (lock) it. */
#ifndef HUDI_TABLE_MDT_COMPACT_H
#define HUDI_TABLE_MDT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/instant.h"
#include "table/mdt_clean.h"
#include "table/table.h"

#define HUDI_MDT_DEFAULT_MAX_DELTA_COMMITS 10

typedef struct hudi_mdt_compact_options {
  int32_t max_delta_commits;    /* 0 = HUDI_MDT_DEFAULT_MAX_DELTA_COMMITS */
  bool force;                   /* compact whatever the count */
  size_t hfile_block_size;      /* 0 = HUDI_MDT_DEFAULT_HFILE_BLOCK_SIZE */
  int64_t hfile_create_time_ms; /* -1 = now */
  int parallelism;              /* groups compacted at once; 0 = the cores, up to 4 */
  bool single_core;             /* one compression thread per HFile (background runs) */
  bool incremental;             /* hoodie.metadata.compact.incremental (below) */
  /* Re-encode every block of every new base file (below:
   * hoodie.metadata.compact.copy.unchanged.blocks=false). */
  bool rebuild_blocks;
} hudi_mdt_compact_options;

#define HUDI_MDT_COMPACT_OPTIONS_INIT {0, false, 0, -1, 0, false, false, false}

typedef struct hudi_mdt_compact_result {
  char instant[HUDI_INSTANT_TIME_BUF]; /* "" when nothing was compacted */
  char completion_time[HUDI_INSTANT_TIME_BUF];
  size_t delta_commits; /* counted since the last compaction */
  size_t file_groups, log_files;
  uint64_t records, bytes_written;
  uint64_t blocks_copied; /* base file data blocks copied unchanged */
} hudi_mdt_compact_result;

/* Compacts t's MDT when due (see above). The caller holds the table lock
 * (lock.h; the writes' hook does); t's timeline is reloaded first. A
 * table without an MDT, with a table-version-6 MDT, or with MDT partitions
 * other than files, record_index and (on copy-on-write tables of version
 * 9, hudi_cs_supported) column_stats and partition_stats is a no-op:
 * bloom filters, secondary indexes and the log-file column stats of
 * merge-on-read tables have merge rules not implemented here. result may
 * be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_compact(hudi_table *t, const hudi_mdt_compact_options *opts,
                                            hudi_mdt_compact_result *result, hudi_error *err);

/* A refresh, going further than Java (docs/compatibility.md 34): under
 * the table lock, one compaction (opts: the write's; nullable) of every file group of a
 * listed partition whose latest base file an instant at or before
 * `through` (nullable), or one no longer on the MDT's active timeline,
 * wrote: with its logs, or base only (a plan operation without delta
 * files, its blocks copied); and, but with opts->incremental, of every
 * other group with logs, as the compaction due next would. Why: Java's
 * readers take a base file as committed when its instant is active or
 * before the first active one, and a partition initialised later (at
 * 00000000000000NNN, by hudi-c's record-index add or a Java writer
 * enabling an index) sorts before every other instant, hiding every live
 * base file an archived instant wrote. Nothing is done on an MDT
 * hudi_mdt_compact leaves alone, nor while the handle's background
 * compaction is pending; result->instant says whether a compaction ran. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_refresh(hudi_table *t, const char *through,
                                                    const hudi_mdt_compact_options *opts,
                                                    hudi_mdt_compact_result *result, hudi_error *err);

/* Under the table lock, with the handle's services joined: undoes every
 * compaction pending on t's MDT (its base files and plan deleted, as a
 * crashed one is undone before the next is planned). A metadata partition
 * is dropped only after this (mdt_drop.h): a plan naming its file groups
 * could not run once they are gone. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_undo_all_pending(hudi_table *t, hudi_error *err);

/* ---- a compaction in steps (the background thread, mdt_compact_async.h) ---- */

typedef struct hudi_mdt_compact_job hudi_mdt_compact_job;

/* Under the table lock: reloads t's timeline, undoes pending compactions
 * other than keep (nullable), and when due (and keep is not pending)
 * writes C.compaction.requested and C.compaction.inflight exactly as the
 * inline path does. instant is C, or "" when nothing was scheduled. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_schedule(char instant[HUDI_INSTANT_TIME_BUF], hudi_table *t,
                                                     const hudi_mdt_compact_options *o, const char *keep,
                                                     hudi_error *err);

/* Under the table lock: loads pending compaction instant from its plan
 * (each operation's slice and planned log files, checked against the
 * view). *job is NULL when instant is no longer pending. */
HUDI_NODISCARD hudi_status hudi_mdt_compact_begin(hudi_mdt_compact_job **job, hudi_table *t, const char *instant,
                                                  const hudi_mdt_compact_options *o, hudi_error *err);

/* Without the lock: writes the new base HFiles (files named after C stay
 * invisible until C completes). */
HUDI_NODISCARD hudi_status hudi_mdt_compact_execute(hudi_mdt_compact_job *job, hudi_error *err);

/* Under the table lock: C_<completion>.commit when C is still pending;
 * when another writer undid or completed it meanwhile, the base files
 * written are deleted instead (result->instant ""). */
HUDI_NODISCARD hudi_status hudi_mdt_compact_finish(hudi_mdt_compact_job *job, hudi_mdt_compact_result *result,
                                                   hudi_error *err);
void hudi_mdt_compact_job_free(hudi_mdt_compact_job *job);

/* ---- the post-commit services ---- */

/* hudi-c's own keys (Hudi runs MDT compaction inline only). */
#define HUDI_MDT_COMPACT_ASYNC_OPTION "hoodie.metadata.compact.async"
#define HUDI_MDT_COMPACT_ASYNC_PARALLELISM_OPTION "hoodie.metadata.compact.async.parallelism"
/* Incremental compaction (hudi-c's own key, default false): instead of
 * every file group once per max.delta.commits deltacommits, every P
 * deltacommits (P the groups compacted side by side: the cores, up to 4)
 * a commit compacts about P/max.delta.commits of the MDT's bytes, the
 * groups whose oldest log is oldest first, and every group that has read
 * a log for max.delta.commits deltacommits (sooner when one has). The
 * same work spread over the commits: no commit pays for the whole record
 * index. Each compaction is an ordinary one whose plan lists only some
 * file groups, as a bounded compaction strategy's would; Java's readers
 * and writers take it as any other. */
#define HUDI_MDT_COMPACT_INCREMENTAL_OPTION "hoodie.metadata.compact.incremental"

/* A compacted group's new base file copies the data blocks of its old one
 * that no log record changes (no update, delete or new key falls between
 * their first key and the next block's) instead of inflating, re-encoding
 * and deflating them: a compaction costs about the changed blocks plus a
 * copy of the rest. hudi-c's own key, default true. The file is the same
 * to every reader; what differs from a file Java writes: the copied
 * records keep the _hoodie_file_name of the base file they were first
 * compacted into (Java rewrites it; no reader uses it), the bloom filter
 * goes on from the old file's (keys deleted since stay in it, which a
 * bloom filter allows) and hfile.AVG_KEY_LEN / AVG_VALUE_LEN count the
 * copied records at the old file's averages. A base file whose bloom
 * filter cannot go on (none, or not sized as ours and Java's are) is
 * rebuilt whole, as are record-index shards whose keys all sit in log
 * blocks (a bulk load with HUDI_MDT_RLI_BASE_FILES_OPTION false, or
 * Spark's). false: every block re-encoded, the file Java would write. */
#define HUDI_MDT_COMPACT_COPY_BLOCKS_OPTION "hoodie.metadata.compact.copy.unchanged.blocks"

typedef struct hudi_mdt_services_options {
  hudi_mdt_clean_options clean;
  bool clean_enabled;
  hudi_mdt_compact_options compact;
  bool async;                /* hoodie.metadata.compact.async */
  int32_t async_parallelism; /* groups at once in the background (default 1) */
} hudi_mdt_services_options;

/* The options below from opts, then the table's open options. */
HUDI_NODISCARD hudi_status hudi_mdt_services_options_get(hudi_mdt_services_options *out, const hudi_table *t,
                                                         const hudi_option *opts, size_t n, hudi_error *err);
/* MDT clean when the policy cleans it (KEEP_LATEST_COMMITS). */
HUDI_NODISCARD hudi_status hudi_mdt_services_clean(hudi_table *t, const hudi_mdt_services_options *so, bool *cleaned,
                                                   hudi_error *err);

/* The metadata-table services a write runs after its commit, in Hudi's
 * order (performTableServices): clean (mdt_clean.h), then compact when
 * due. Options (opts first, then the table's open options):
 * hoodie.metadata.compact.max.delta.commits, hoodie.metadata.compact.async
 * (then only scheduled here, mdt_compact_async.h), hoodie.clean.commits.retained
 * (alias hoodie.cleaner.commits.retained), hoodie.clean.policy (alias
 * hoodie.cleaner.policy; only KEEP_LATEST_COMMITS cleans the MDT).
 * compacted/cleaned (nullable) say what ran. */
HUDI_NODISCARD hudi_status hudi_mdt_table_services(hudi_table *t, const hudi_option *opts, size_t n,
                                                   hudi_mdt_compact_result *compacted, bool *cleaned,
                                                   hudi_error *err);

#endif
