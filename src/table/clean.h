/* Cleaning: deleting the file slices the cleaning policy no longer
 * retains (hudi-write-semantics.md §7.2, as Hudi's CleanPlanner computes
 * them), with the clean instant Spark writes (timeline layout 2):
 *
 *   T.clean.requested   HoodieCleanerPlan (version 2): the policy, the
 *                       earliest commit to retain (ECTR), the last completed
 *                       commit, and per partition the absolute paths to
 *                       delete;
 *   T.clean.inflight    the same plan bytes;
 *   (files deleted)
 *   MDT deltacommit T   the files partition marks the deleted files
 *                       isDeleted (clean_mdt.h), when the table has an MDT;
 *   T_<c>.clean         HoodieCleanMetadata, c later than the MDT's
 *                       completion time.
 *
 * Policies (hoodie.clean.policy / hoodie.cleaner.policy):
 *   KEEP_LATEST_COMMITS (default; hoodie.clean.commits.retained, default
 *     10): with more than N completed writes (commit, deltacommit,
 *     replacecommit), ECTR is the N-th newest, moved back before the oldest
 *     pending write. Per file group the latest slice and the newest slice
 *     with base instant < ECTR are kept, older ones deleted (base file and
 *     log files); file groups replaced by a replacecommit requested before
 *     ECTR are deleted whole.
 *   KEEP_LATEST_BY_HOURS (hoodie.clean.hours.retained, default 24): as
 *     KEEP_LATEST_COMMITS with ECTR the oldest completed write requested
 *     at or after now - N hours (in the table's timeline timezone), as
 *     CleanerUtils.getEarliestCommitToRetain picks it: not moved back
 *     before pending writes, and no write in the window means no ECTR and
 *     nothing to clean (Hudi's cleaner then skips every partition).
 *   KEEP_LATEST_FILE_VERSIONS (hoodie.clean.fileversions.retained, default
 *     3): the newest N slices per group are kept (N-1 besides the one a
 *     pending compaction needs); replaced groups are deleted whole.
 * Never deleted: the latest slice, the slice a pending compaction reads,
 * slices visible as of a savepoint, files of pending writes (not in the
 * file-system view at all).
 *
 * A clean left pending by a crash is finished first (its plan run again;
 * files already gone are recorded as failed deletes; an unfinished MDT
 * deltacommit T is removed and written again), as Hudi's cleaner does.
 *
 * Not done (Hudi does them): deleting a partition whose file groups were all
 * replaced and cleaned (its empty directory stays; readers see no files),
 * empty clean instants when nothing is to be deleted
 * (hudi-c writes no instant then), bootstrap base files. */
#ifndef HUDI_TABLE_CLEAN_H
#define HUDI_TABLE_CLEAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "hudi/services.h"
#include "table/instant_file.h"
#include "table/table.h"

typedef enum hudi_clean_policy {
  HUDI_CLEAN_KEEP_LATEST_COMMITS = 0,
  HUDI_CLEAN_KEEP_LATEST_FILE_VERSIONS = 1,
  HUDI_CLEAN_KEEP_LATEST_BY_HOURS = 2
} hudi_clean_policy;

typedef struct hudi_clean_config {
  hudi_clean_policy policy;
  int commits_retained;  /* KEEP_LATEST_COMMITS */
  int versions_retained; /* KEEP_LATEST_FILE_VERSIONS */
  int hours_retained;    /* KEEP_LATEST_BY_HOURS */
  int64_t now_ms;        /* KEEP_LATEST_BY_HOURS: "now" in epoch ms; 0 = the system clock (tests set it) */
  bool automatic;        /* hoodie.clean.automatic */
} hudi_clean_config;

#define HUDI_CLEAN_DEFAULT_COMMITS_RETAINED 10
#define HUDI_CLEAN_DEFAULT_VERSIONS_RETAINED 3
#define HUDI_CLEAN_DEFAULT_HOURS_RETAINED 24

/* The cleaning options of a call (call options, then the table's open
 * options, then hoodie.properties; hoodie.clean.* or the older
 * hoodie.cleaner.* names). A bad value is HUDI_ERR_INVALID_ARG naming it. */
HUDI_NODISCARD hudi_status hudi_clean_config_load(hudi_clean_config *out, const hudi_table *t,
                                                  const hudi_option *opts, size_t n, hudi_error *err);

/* Plans and runs a clean of t (timeline as loaded) under config c. The
 * caller holds the table lock. result->requested_time is "" when nothing
 * was to be deleted (then nothing is written). */
HUDI_NODISCARD hudi_status hudi_clean_run(hudi_clean_result *result, hudi_table *t, const hudi_clean_config *c,
                                          hudi_error *err);

/* The automatic clean after a commit (services.c): nothing unless
 * hoodie.clean.automatic (default true) and the timeline alone shows there
 * may be something new to clean (more completed writes than retained, and
 * an ECTR later than the last clean's), so most commits list nothing. */
HUDI_NODISCARD hudi_status hudi_clean_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                                   hudi_error *err);

/* The earliest commit retained by the latest completed clean of t's
 * timeline ("" when there is none, or it retained everything). */
HUDI_NODISCARD hudi_status hudi_clean_earliest_retained(char out[HUDI_INSTANT_TIME_MAX], hudi_table *t,
                                                        hudi_error *err);

/* Reads as of `instant` (time travel, or an incremental read's end) need
 * the file slices of that time: HUDI_ERR_INVALID_ARG naming both instants
 * when a clean deleted them (instant earlier than the earliest commit the
 * latest clean retained), as Hudi's TimelineUtils.validateTimestampAsOf.
 * what names the option in the message. */
HUDI_NODISCARD hudi_status hudi_clean_check_as_of(hudi_table *t, const char *instant, const char *what,
                                                  hudi_error *err);

#endif
