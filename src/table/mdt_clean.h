/* Cleaning of the metadata table (MDT), as Hudi 1.x's metadata writer runs
 * it after each commit (HoodieBackedTableMetadataWriter.cleanIfNecessary,
 * HoodieMetadataWriteUtils.createMetadataWriteConfig, CleanPlanner):
 *
 *   - the data table's policy: KEEP_LATEST_COMMITS retaining max(20,
 *     (int)(1.2 x hoodie.clean.commits.retained)) commits, or
 *     KEEP_LATEST_BY_HOURS retaining ceil(1.2 x hoodie.clean.hours.retained)
 *     hours (ECR: the first completed commit requested at or after now
 *     minus those hours, in the data table's timeline zone), or
 *     KEEP_LATEST_FILE_VERSIONS keeping the newest ceil(1.2 x
 *     hoodie.clean.fileversions.retained) slices of every file group (no
 *     ECR);
 *   - skipped until 3 instants completed after the last MDT compaction,
 *     so readers that listed the previous slice can finish;
 *   - earliest commit to retain (ECR): the (count - retained)-th completed
 *     commit/deltacommit/replacecommit, or the last one before the earliest
 *     pending one;
 *   - per file group, every slice older than ECR is deleted (base HFile and
 *     log files) except the latest slice and the latest one before ECR
 *     (under KEEP_LATEST_FILE_VERSIONS: every slice but the newest kept);
 *   - written as <t>.clean.requested (HoodieCleanerPlan) and .inflight,
 *     the deletes, then <t>_<c>.clean (HoodieCleanMetadata); t is a new
 *     instant time. Nothing to delete writes nothing. */
#ifndef HUDI_TABLE_MDT_CLEAN_H
#define HUDI_TABLE_MDT_CLEAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/instant.h"
#include "table/table.h"

#define HUDI_MDT_MIN_COMMITS_RETAINED 20

typedef struct hudi_mdt_clean_options {
  /* The data table's hoodie.clean.commits.retained (0 = 10). */
  int32_t data_commits_retained;
  /* Tests: retain exactly this many commits (0 = the rule above) and
   * skip the wait after a compaction. */
  int32_t commits_retained_override;
  /* KEEP_LATEST_BY_HOURS with the data table's hoodie.clean.hours.retained
   * (by_hours; -1 = 24), "now" being now_ms (0 = the system clock). */
  bool by_hours;
  int32_t data_hours_retained;
  int64_t now_ms;
  /* KEEP_LATEST_FILE_VERSIONS with the data table's
   * hoodie.clean.fileversions.retained (0 = 3). */
  bool by_versions;
  int32_t data_versions_retained;
  /* hoodie.metadata.compact.incremental: a share is compacted every few
   * commits, so fewer than 3 instants ever follow the latest compaction
   * and Java's wait after one would never let the MDT be cleaned. Under
   * KEEP_LATEST_COMMITS (20 or more retained) and KEEP_LATEST_FILE_VERSIONS
   * (4 or more) the slices the latest compactions replaced are retained
   * anyway, which is what the wait protects readers from: it is skipped. */
  bool incremental_compaction;
} hudi_mdt_clean_options;

#define HUDI_MDT_CLEAN_OPTIONS_INIT {0, 0, false, -1, 0, false, 0, false}

typedef struct hudi_mdt_clean_result {
  char instant[HUDI_INSTANT_TIME_BUF]; /* "" when nothing was cleaned */
  char completion_time[HUDI_INSTANT_TIME_BUF];
  char earliest_commit_to_retain[HUDI_INSTANT_TIME_BUF];
  size_t files_deleted;
} hudi_mdt_clean_result;

/* Cleans t's MDT when there is something to clean (see above). The caller
 * holds the table lock; t's timeline should be current. A table without
 * an MDT, or with a table-version-6 MDT, is a no-op. result may be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_clean(hudi_table *t, const hudi_mdt_clean_options *opts,
                                          hudi_mdt_clean_result *result, hudi_error *err);

#endif
