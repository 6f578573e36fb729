/* The file-system view: a table's file groups and their file slices, as of
 * an instant, built from a storage listing or from the metadata table's
 * files partition (mdt_fsview.h); both go through the same rules.
 *
 * Rules (spec hudi-format-core.md §6 "Reader validity rules"):
 *   - a base file is visible iff its instant is a completed instant (or, for
 *     instants older than the first active one, archived = completed);
 *   - a log file of a table version 8/9 is visible iff the delta commit named
 *     in it is completed; it joins the slice with the greatest base instant
 *     <= the delta commit's completion time (the slice keyed by its own
 *     instant when there is none: a file group with only log files);
 *   - table version 6 names a log after its slice's base instant; it joins
 *     that slice, and block-level visibility is left to the log reader;
 *   - a pending (requested or inflight) compaction C of a file group (one
 *     of the operations of C.compaction.requested) gives that group a slice
 *     keyed C without a base file, so logs completed after C was requested
 *     join it (Java's AbstractTableFileSystemView adds the same slice). The
 *     group's `merged` slice is what a snapshot reads until C completes: the
 *     previous slice's base file and logs followed by the new slice's logs
 *     (Java's getLatestMergedFileSlicesBeforeOrOn); a read-optimized read
 *     sees the previous base file through it. */
#ifndef HUDI_TABLE_FSVIEW_H
#define HUDI_TABLE_FSVIEW_H

#include <stdbool.h>
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
  /* Pending compaction of this group: its instant ("" when none), and the
   * merged slice (NULL unless the pending slice has a predecessor). */
  char pending_compaction[HUDI_INSTANT_TIME_MAX];
  hudi_file_slice *merged;
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
  /* The latest view bounded by as_of only for completion (a snapshot read
   * sets as_of to the latest completed write): pending compactions count
   * whenever they were requested, as Java's view takes every pending
   * compaction of the active timeline. */
  bool all_pending;
} hudi_fsview_options;

/* Lists every partition of the table in s (all files outside .hoodie/) and
 * builds the view. */
HUDI_NODISCARD hudi_status hudi_fsview_build_from_listing(hudi_fsview *out, hudi_storage *s,
                                                          const hudi_timeline *timeline,
                                                          const hudi_fsview_options *opts, hudi_error *err);
/* Builds the view from files, a list of the table's files as a listing
 * gives them (paths relative to the base; anything that is not a base or
 * log file is ignored): hudi_fsview_build_from_mdt passes the metadata
 * table's files partition here. s is read for pending compaction plans. */
HUDI_NODISCARD hudi_status hudi_fsview_build_from_files(hudi_fsview *out, hudi_storage *s,
                                                        const hudi_timeline *timeline, const hudi_file_list *files,
                                                        const hudi_fsview_options *opts, hudi_error *err);
void hudi_fsview_free(hudi_fsview *v);

/* The slice a snapshot reads: the merged slice of a group under pending
 * compaction, else the latest slice (NULL when it has none). */
const hudi_file_slice *hudi_file_group_latest_slice(const hudi_file_group *g);

/* The slice with this base instant, or NULL. */
const hudi_file_slice *hudi_file_group_slice_at(const hudi_file_group *g, const char *base_instant);

/* The pending compactions of a timeline: for each compaction instant that
 * is requested or inflight (and, when as_of is set, requested at or before
 * it) the plan's file groups. Read from <instant>.compaction.requested. */
typedef struct hudi_pending_compaction_op {
  char *partition, *file_id;
  char instant[HUDI_INSTANT_TIME_MAX];
} hudi_pending_compaction_op;

typedef struct hudi_pending_compactions {
  hudi_pending_compaction_op *ops; /* sorted by (partition, file_id) */
  size_t n, cap;
} hudi_pending_compactions;

HUDI_NODISCARD hudi_status hudi_pending_compactions_load(hudi_pending_compactions *out, hudi_storage *s,
                                                         const hudi_timeline *timeline, const char *as_of,
                                                         hudi_error *err);
/* The pending compaction instant of a file group, or NULL. */
const char *hudi_pending_compactions_find(const hudi_pending_compactions *p, const char *partition, size_t plen,
                                          const char *file_id);
void hudi_pending_compactions_free(hudi_pending_compactions *p);

#endif
