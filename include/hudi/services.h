/* hudi-c: table services. Compaction of Merge-on-Read tables, cleaning,
 * rollback and timeline archival, run on demand by these calls or
 * automatically by the writes (options below). Each section is owned by
 * the service it documents. */
#ifndef HUDI_SERVICES_H
#define HUDI_SERVICES_H

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

/* Schedules and runs a compaction of every file group that has log files.
 * HUDI_ERR_INVALID_ARG on a COPY_ON_WRITE table. */
HUDI_EXTERN hudi_status hudi_table_compact(hudi_compact_result *result, hudi_table *table, const hudi_option *options,
                                           size_t n_options, hudi_error *err);

/* ---- cleaning ------------------------------------------------------------ */

typedef struct hudi_clean_result {
  char requested_time[HUDI_SERVICE_TIME_MAX]; /* "" when there was nothing to clean */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  char earliest_commit_to_retain[HUDI_SERVICE_TIME_MAX];
  int64_t num_files_deleted;
  int64_t num_partitions;
} hudi_clean_result;

/* Deletes the file slices the cleaning policy no longer retains. */
HUDI_EXTERN hudi_status hudi_table_clean(hudi_clean_result *result, hudi_table *table, const hudi_option *options,
                                         size_t n_options, hudi_error *err);

/* ---- rollback ------------------------------------------------------------ */

typedef struct hudi_rollback_result {
  char rolled_back_instant[HUDI_SERVICE_TIME_MAX];
  char requested_time[HUDI_SERVICE_TIME_MAX]; /* the rollback instant */
  char completion_time[HUDI_SERVICE_TIME_MAX];
  int64_t num_files_deleted;
} hudi_rollback_result;

/* Rolls back instant (a pending write, or the latest completed write). */
HUDI_EXTERN hudi_status hudi_table_rollback(hudi_rollback_result *result, hudi_table *table, const char *instant,
                                            const hudi_option *options, size_t n_options, hudi_error *err);

/* ---- archival ------------------------------------------------------------ */

typedef struct hudi_archive_result {
  int64_t num_instants_archived;
} hudi_archive_result;

/* Moves completed instants past hoodie.keep.max.commits into the LSM
 * history (timeline/history). */
HUDI_EXTERN hudi_status hudi_table_archive(hudi_archive_result *result, hudi_table *table, const hudi_option *options,
                                           size_t n_options, hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
