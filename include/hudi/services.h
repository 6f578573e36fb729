/* hudi-c: table services. Compaction of Merge-on-Read tables, cleaning,
 * rollback, savepoint and restore, and timeline archival, run on demand by these calls or
 * automatically by the writes (options below). Each section is owned by
 * the service it documents. */
#ifndef HUDI_SERVICES_H
#define HUDI_SERVICES_H

#include <stdbool.h>
#include <stdint.h>

#include "hudi/common.h"
#include "hudi/error.h"
#include "hudi/table.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HUDI_SERVICE_TIME_MAX 24

/* ---- compaction (MERGE_ON_READ) ----------------------------------------- */

typedef struct hudi_compact_result {
  char requested_time[HUDI_SERVICE_TIME_MAX];  /* "" when nothing was compacted */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  int64_t num_file_groups; /* file groups compacted */
  int64_t num_log_files;   /* log files merged into the new base files */
  int64_t num_records;     /* records written to the new base files */
  int64_t files_written, bytes_written;
} hudi_compact_result;

/* Compacts a MERGE_ON_READ table: first finishes pending compactions (a
 * compaction requested by Spark, or an earlier run that stopped; files of a
 * failed attempt are deleted first), then schedules one over every file
 * group whose latest file slice has log files (<C>.compaction.requested,
 * HoodieCompactionPlan as Spark writes it) and runs it: each group's base
 * file and logs are merged as a snapshot read merges them into a new base
 * file <fileId>_<token>_<C>.parquet (rows keep _hoodie_commit_time and
 * _hoodie_commit_seqno), the metadata table's `files` partition is updated,
 * and C completes as <C>_<completion>.commit (operationType COMPACT).
 * result: the counts add up over every compaction run, the times are the
 * last one's ("" when there was nothing to compact). Takes the table lock like a write.
 *
 * Writes run it inline with option hoodie.compact.inline=true after a
 * deltacommit once hoodie.compact.inline.max.delta.commits (default 5)
 * deltacommits completed since the latest compaction was requested.
 * HUDI_ERR_INVALID_ARG on a COPY_ON_WRITE table; HUDI_ERR_UNSUPPORTED where
 * writes are (table version 6, metadata-table indexes hudi-c does not
 * maintain). */
HUDI_EXTERN hudi_status hudi_table_compact(hudi_compact_result *result, hudi_table *table, const hudi_option *options,
                                           size_t n_options, hudi_error *err);

/* Asynchronous compaction: with hoodie.datasource.compaction.async.enable=true
 * (a write option or a table open option; hoodie.compact.inline wins when
 * both are set), the write that makes a compaction due (the same count as
 * inline) only schedules it (<C>.compaction.requested, under the write's
 * lock), and a background thread owned by the table handle runs it, and
 * any other pending compaction, while later writes go on. It holds the
 * table lock only to mark C inflight and to complete it; writes that land
 * meanwhile append logs that join C's new file slice, so reads see every
 * write. One background compaction runs per handle at a time.
 *
 * hudi_table_wait_services waits for the handle's background work and
 * returns its error (HUDI_OK when there was none or nothing ran); the
 * handle's timeline is then reloaded, so its reads see the compaction. The error
 * of a failed background compaction is kept until reported, by this call,
 * by the next write on the handle (which then writes nothing) or by
 * hudi_table_compact; the compaction stays pending and the next write with
 * async compaction, or hudi_table_compact, finishes it. hudi_table_compact
 * waits for the background compaction first. hudi_table_free waits too (an
 * error nobody asked for is dropped, the compaction left pending).
 *
 * Metadata-table compaction runs the same way with
 * hoodie.metadata.compact.async=true (hudi-c's own key; a write or table
 * option, default false): the write that makes the metadata table due
 * (hoodie.metadata.compact.max.delta.commits) writes the compaction plan
 * under its lock, a background thread writes the new base HFiles without
 * it (hoodie.metadata.compact.async.parallelism file groups at a time,
 * default 1) and completes the compaction and the metadata table's clean
 * under the lock. This call waits for it too. Use one writer process: a
 * Java writer starting meanwhile runs the pending compaction itself.
 *
 * hoodie.metadata.compact.incremental=true (hudi-c's own key; a write or
 * table option, default false) spreads the metadata table's compaction
 * over the commits instead: every P commits (P the file groups compacted
 * side by side: the cores, up to 4) a commit compacts, inline, about
 * P/hoodie.metadata.compact.max.delta.commits of the metadata table's
 * bytes, the file groups whose oldest log file is oldest first, and every
 * group that has read a log file for max.delta.commits deltacommits
 * (sooner when a group has). Each
 * is an ordinary compaction whose plan lists some of the file groups;
 * Java readers and writers take it as any other. Archival keeps every
 * deltacommit whose log files a metadata file group still reads.
 *
 * hoodie.metadata.compact.copy.unchanged.blocks (hudi-c's own key; a
 * write or table option, default true): a metadata file group's new base
 * HFile takes the data blocks of its old one that no log record falls in
 * as their compressed bytes, so a compaction after the first costs about
 * the blocks the commits changed (10M-key uuid table: a commit that
 * compacts 0.5-0.9 s against 3.1-3.4 s re-encoding every block on 2
 * cores; docs/benchmarks.md). Every reader reads the same
 * records; the copied ones keep their older _hoodie_file_name, the bloom
 * filter goes on from the old file's and hfile.AVG_KEY_LEN/AVG_VALUE_LEN
 * are estimated. false writes every block again, as Java does.
 *
 * hoodie.metadata.record.index.initial.base.files (hudi-c's own key; an
 * option of the table handle, given to hudi_table_create or
 * hudi_table_open, or of one write, default true; other values than
 * true and false are refused before the write begins): a commit that puts keys into a
 * record-index shard holding none yet (a bulk load into a new table)
 * writes them as the shard's base HFile, as Java's metadata
 * initialisation does, not as a log block, so the shard's first
 * compaction copies too (10M-key uuid table: 0.5-0.8 s against 2.9-3.1
 * s, for 0.5 s more in the load). false: a log block, as Java's commits
 * write. */
HUDI_EXTERN hudi_status hudi_table_wait_services(hudi_table *table, hudi_error *err);

/* ---- cleaning ------------------------------------------------------------ */

typedef struct hudi_clean_result {
  char requested_time[HUDI_SERVICE_TIME_MAX]; /* "" when there was nothing to clean */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  char earliest_commit_to_retain[HUDI_SERVICE_TIME_MAX]; /* "" unless KEEP_LATEST_COMMITS or _BY_HOURS */
  int64_t num_files_deleted;
  int64_t num_partitions; /* partitions with files deleted */
} hudi_clean_result;

/* Deletes the file slices the cleaning policy no longer retains, as Apache
 * Hudi's cleaner does, and records it as a clean instant (T.clean.requested
 * with the plan, T.clean.inflight, T_<c>.clean with what was deleted; the
 * metadata table marks the files deleted first). Options (call options,
 * then the table's open options, then hoodie.properties):
 *   hoodie.clean.policy            KEEP_LATEST_COMMITS (default): keep every
 *                                  slice a read as of one of the last N
 *                                  commits needs;
 *                                  KEEP_LATEST_FILE_VERSIONS: keep the newest
 *                                  N slices of each file group;
 *                                  KEEP_LATEST_BY_HOURS: keep every slice a
 *                                  read as of a write requested in the last
 *                                  N hours needs (no write in the window:
 *                                  nothing is cleaned, as in Hudi)
 *   hoodie.clean.commits.retained  N for KEEP_LATEST_COMMITS (default 10)
 *   hoodie.clean.fileversions.retained  N for KEEP_LATEST_FILE_VERSIONS (default 3)
 *   hoodie.clean.hours.retained    N for KEEP_LATEST_BY_HOURS (default 24)
 * (hoodie.cleaner.* names are accepted too.) File groups replaced by an
 * overwrite or clustering go whole once outside the window. The latest
 * slice, slices a pending compaction reads and savepointed slices are never
 * deleted. Nothing to delete: no instant, requested_time "".
 * After a KEEP_LATEST_COMMITS or _BY_HOURS clean, reads as of an instant before
 * earliest_commit_to_retain fail with HUDI_ERR_INVALID_ARG.
 * On table version 6 (timeline layout 1) the instants are T.clean.requested,
 * T.clean.inflight and T.clean (its mtime the completion time), and a log
 * file belongs to the slice its name's base instant names.
 * Every write also cleans after its commit (hoodie.clean.automatic=true,
 * the default) when its timeline shows something may be due. */
HUDI_EXTERN hudi_status hudi_table_clean(hudi_clean_result *result, hudi_table *table, const hudi_option *options,
                                         size_t n_options, hudi_error *err);

/* ---- rollback ------------------------------------------------------------ */

typedef struct hudi_rollback_result {
  char rolled_back_instant[HUDI_SERVICE_TIME_MAX];
  char requested_time[HUDI_SERVICE_TIME_MAX]; /* the rollback instant */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  int64_t num_files_deleted;
} hudi_rollback_result;

/* Rolls back instant (a pending write, or the latest completed write): its
 * files deleted, its metadata-table deltacommit rolled back, a rollback
 * instant completed. On table version 6 a delta commit's log appends are
 * undone by a ROLLBACK command block in each slice's next log version (the
 * failed log file stays, as 0.x leaves it); a version-6 table with a
 * metadata table is refused (a write with hoodie.metadata.enable=false
 * deletes it first). */
HUDI_EXTERN hudi_status hudi_table_rollback(hudi_rollback_result *result, hudi_table *table, const char *instant,
                                            const hudi_option *options, size_t n_options, hudi_error *err);

/* ---- savepoint and restore ----------------------------------------------- */

typedef struct hudi_savepoint_result {
  char instant[HUDI_SERVICE_TIME_MAX];         /* the savepointed commit = the savepoint's requested time */
  char completion_time[HUDI_SERVICE_TIME_MAX]; /* of the savepoint instant */
  int64_t num_partitions;
  int64_t num_files; /* base and log files the savepoint keeps */
} hudi_savepoint_result;

/* Savepoints completed commit `instant` (NULL or "": the latest completed
 * commit, deltacommit or replacecommit) as Apache Hudi 1.x does: the
 * savepoint instant has the commit's requested time, T.savepoint.inflight
 * (empty) then T_<completion>.savepoint (T.savepoint on table version 6,
 * its mtime the completion time) holding HoodieSavepointMetadata
 * (savepointedBy = user, savepointedAt = now in epoch ms, comments, and per
 * partition the names of the base and log files of the latest file slices
 * as of T). The cleaner never deletes those slices and archival stops
 * before the first savepoint, so the table can be read as of T (time
 * travel) and restored to T (hudi_table_restore) later. user and comment
 * may be NULL (""). HUDI_ERR_INVALID_ARG when T is no completed commit, is
 * savepointed already, or is older than the last clean's earliest commit
 * to retain (its files may be gone). Takes the table lock. */
HUDI_EXTERN hudi_status hudi_table_savepoint(hudi_savepoint_result *result, hudi_table *table, const char *instant,
                                             const char *user, const char *comment, const hudi_option *options,
                                             size_t n_options, hudi_error *err);

/* Deletes savepoint `instant` as Hudi's deleteSavepoint does (the
 * completed file first, then T.savepoint.inflight); the commit stays. Its
 * files are then cleaned like any others, and the commit can be rolled
 * back. HUDI_ERR_INVALID_ARG when there is no such completed savepoint.
 * Takes the table lock. */
HUDI_EXTERN hudi_status hudi_table_delete_savepoint(hudi_table *table, const char *instant,
                                                    const hudi_option *options, size_t n_options, hudi_error *err);

typedef struct hudi_savepoint_info {
  char instant[HUDI_SERVICE_TIME_MAX];
  char completion_time[HUDI_SERVICE_TIME_MAX];
  char *user, *comments;  /* owned by the list */
  int64_t savepointed_at; /* epoch ms (as written; Hudi writes ms) */
  int64_t num_files;
} hudi_savepoint_info;

typedef struct hudi_savepoint_list {
  hudi_savepoint_info *items; /* oldest first */
  size_t count;
} hudi_savepoint_list;

/* The completed savepoints of the table's active timeline (re-read from
 * storage). Free with hudi_savepoint_list_free. */
HUDI_EXTERN hudi_status hudi_table_savepoints(hudi_savepoint_list *out, hudi_table *table, hudi_error *err);
HUDI_EXTERN void hudi_savepoint_list_free(hudi_savepoint_list *list);

typedef struct hudi_restore_result {
  char requested_time[HUDI_SERVICE_TIME_MAX]; /* the restore instant */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  int64_t num_instants_rolled_back;
  int64_t num_files_deleted;
  /* The metadata table was dropped before the rollbacks and built again
   * from storage after them (see below). */
  bool metadata_table_rebuilt;
} hudi_restore_result;

/* Restores the table to savepoint `savepoint_instant` as Apache Hudi 1.x
 * does: a restore instant R (R.restore.requested with HoodieRestorePlan:
 * every write instant requested after the savepoint, pending or completed,
 * newest first; R.restore.inflight), each of those rolled back in that
 * order like hudi_table_rollback does it (files deleted, its metadata-table
 * deltacommit rolled back), then R_<completion>.restore holding
 * HoodieRestoreMetadata with the rollback metadata of every instant, and
 * the rollback instants themselves removed from the timeline (Hudi keeps
 * only the restore; on table version 6 they stay, because their command
 * blocks in log files name them). Afterwards a snapshot read equals a read as of the
 * savepoint; cleans and rollbacks after the savepoint stay on the
 * timeline. Metadata-table compactions requested after the savepoint are
 * rolled back first (each with an MDT rollback instant), so the MDT's
 * log files are read again. Where that cannot restore the metadata table
 * (it was compacted and then cleaned after the savepoint, or archival
 * moved writes it still needs off both timelines, or it was built after
 * the savepoint), it is dropped before the rollbacks and built again from
 * storage once the restore has completed, as Hudi drops it and its next
 * write rebuilds it (metadata_table_rebuilt; a crash in between leaves the
 * table without one, which a write with hoodie.metadata.enable=true
 * builds). A restore that stopped part way is finished
 * by calling it again (a write in between is not refused yet: call it
 * again first). HUDI_ERR_INVALID_ARG without that completed savepoint or
 * while a restore to another savepoint is pending; HUDI_ERR_UNSUPPORTED
 * on a version-6 table with a metadata table. Takes the table lock. */
HUDI_EXTERN hudi_status hudi_table_restore(hudi_restore_result *result, hudi_table *table,
                                           const char *savepoint_instant, const hudi_option *options,
                                           size_t n_options, hudi_error *err);

/* ---- archival ------------------------------------------------------------ */

typedef struct hudi_archive_result {
  int64_t num_instants_archived; /* 0: nothing to archive */
  int64_t num_files_compacted;   /* history files merged into the next LSM level */
  char first_archived[HUDI_SERVICE_TIME_MAX]; /* requested times of the first and last archived */
  char last_archived[HUDI_SERVICE_TIME_MAX];
  int64_t mdt_instants_archived; /* of the metadata table's own timeline (after the data table's) */
} hudi_archive_result;

/* Moves the oldest completed instants into the LSM history
 * (.hoodie/timeline/history, read back by time travel and incremental
 * reads) once there are more than hoodie.keep.max.commits (30) completed
 * commits, keeping hoodie.keep.min.commits (20), as Apache Hudi 1.x's
 * TimelineArchiverV2 does: never at or past the earliest pending write,
 * the commits the cleaner retains (hoodie.clean.commits.retained), a
 * Merge-on-Read table's last hoodie.compact.inline.max.delta.commits delta
 * commits, uncleaned replace commits, the first savepoint, or (with a
 * metadata table) anything completed after the metadata table's last
 * compaction. Then merges history files (hoodie.timeline.compaction.batch.size,
 * 10). Then archives the metadata table's own timeline into
 * .hoodie/metadata/.hoodie/timeline/history by the same rules, with
 * max(hoodie.metadata.keep.min.commits (20), hoodie.keep.min.commits) and
 * max(hoodie.metadata.keep.max.commits (30), hoodie.keep.max.commits),
 * never at or past the data table's earliest commit or pending instant,
 * nor the metadata table's latest compaction. Writes run it after every
 * commit unless hoodie.archive.automatic is false. A savepointed commit
 * is never archived (with hoodie.archive.beyond.savepoint=true the others
 * are). Timeline layout 1 (table version 6): the same rules (Apache Hudi
 * 1.x's TimelineArchiverV1), into a new log file
 * .hoodie/<hoodie.archivelog.folder, "archived">/.commits_.archive.N_1-0-1
 * of Avro HoodieArchivedMetaEntry records, one per requested, inflight and
 * completed file (hoodie.commits.archival.batch, 10, per block), which
 * Spark reads as its own archive; a version-6 table with a metadata table
 * is left alone. */
HUDI_EXTERN hudi_status hudi_table_archive(hudi_archive_result *result, hudi_table *table, const hudi_option *options,
                                           size_t n_options, hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
