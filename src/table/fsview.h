/* The file-system view: a table's file groups and their file slices, as of
 * an instant, built from a storage listing.
 *
 * Rules (spec hudi-format-core.md §6 "Reader validity rules"):
 *   - a base file is visible iff its instant is a completed instant (or, for
 *     instants older than the first active one, archived = completed);
 *   - a log file of a table version 8/9 is visible iff the delta commit named
 *     in it is completed; it joins the slice with the greatest base instant
 *     <= the delta commit's completion time (the slice keyed by its own
 *     instant when there is none: a file group with only log files);
 *   - table version 6 names a log after its slice's base instant; it joins
 *     that slice, and block-level visibility is left to the log reader. */
#ifndef HUDI_TABLE_FSVIEW_H
#define HUDI_TABLE_FSVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "io/storage.h"
#include "table/base_file.h"
#include "table/log_file_name.h"
#include "table/timeline.h"

typedef struct hudi_fs_base_file {
  char *path; /* relative to the table's base */
  hudi_base_file_name name;
  uint64_t size;
} hudi_fs_base_file;

typedef struct hudi_fs_log_file {
  char *path; /* relative to the table's base */
  char *file_name;
  hudi_log_file_name name;
  uint64_t size;
  /* Completion time of the delta commit that wrote it (layout 2), else "". */
  char completion_time[HUDI_INSTANT_TIME_MAX];
} hudi_fs_log_file;

typedef struct hudi_file_slice {
  char base_instant[HUDI_INSTANT_TIME_MAX];
  hudi_fs_base_file *base; /* NULL for a slice of log files only */
  hudi_fs_log_file *logs;  /* in Hudi's log file order */
  size_t n_logs, cap_logs;
} hudi_file_slice;

typedef struct hudi_file_group {
  char *partition; /* relative path, "" for a non-partitioned table */
  char *file_id;
  hudi_file_slice *slices; /* ascending base instant */
  size_t n_slices, cap_slices;
} hudi_file_group;

typedef struct hudi_fsview {
  hudi_file_group *groups; /* sorted by (partition, file_id) */
  size_t n_groups, cap_groups;
} hudi_fsview;

typedef struct hudi_fsview_options {
  /* Only instants requested at or before this time count as completed
   * (time travel); NULL or "" for the latest. */
  const char *as_of;
  int table_version;
} hudi_fsview_options;

/* Lists every partition of the table in s (all files outside .hoodie/) and
 * builds the view. */
HUDI_NODISCARD hudi_status hudi_fsview_build_from_listing(hudi_fsview *out, hudi_storage *s,
                                                          const hudi_timeline *timeline,
                                                          const hudi_fsview_options *opts, hudi_error *err);
void hudi_fsview_free(hudi_fsview *v);

/* The latest slice of a group (NULL when it has none). */
const hudi_file_slice *hudi_file_group_latest_slice(const hudi_file_group *g);

#endif
