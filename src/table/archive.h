/* Timeline archival (Apache Hudi 1.x TimelineArchiverV2): moves the oldest
 * completed instants of a layout-2 timeline into the LSM history
 * (lsm_timeline.h) once there are more completed commits than
 * hoodie.keep.max.commits, keeping hoodie.keep.min.commits. */
#ifndef HUDI_TABLE_ARCHIVE_H
#define HUDI_TABLE_ARCHIVE_H

#include <stdbool.h>

#include "base/error.h"
#include "hudi/services.h"
#include "table/table.h"

/* Archives what the rules allow (nothing is an empty result) and reloads
 * t's timeline. automatic: called after a commit, which honours
 * hoodie.archive.automatic=false. Options (per call, else the table's open
 * options, else Hudi's defaults): hoodie.keep.min.commits (20),
 * hoodie.keep.max.commits (30), hoodie.clean.commits.retained (10),
 * hoodie.clean.policy (KEEP_LATEST_COMMITS), hoodie.archive.beyond.savepoint
 * (false), hoodie.compact.inline.max.delta.commits (5),
 * hoodie.timeline.compaction.batch.size (10), hoodie.commits.archival.batch
 * (10, layout 1). Layout 1 writes archive_v1.h's log file instead of the
 * LSM history (a layout-1 table with a metadata table is left alone). */
/* Checks the archival options as hudi_archive_run reads them, for the
 * data table and its metadata table (HUDI_ERR_INVALID_ARG naming the bad
 * one): a write checks them before it writes anything. */
HUDI_NODISCARD hudi_status hudi_archive_check_options(const hudi_table *t, const hudi_option *opts, size_t n,
                                                      hudi_error *err);

HUDI_NODISCARD hudi_status hudi_archive_run(hudi_archive_result *result, hudi_table *t, const hudi_option *opts,
                                            size_t n, bool automatic, hudi_error *err);

/* The history directory of a table (relative to the storage base): table
 * properties hoodie.timeline.path / hoodie.timeline.history.path. */
void hudi_archive_history_dir(char *out, size_t cap, const hudi_props *props, const char *table_dir);

#endif
