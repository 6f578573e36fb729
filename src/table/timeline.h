/* The active timeline: one entry per instant, in requested-time order,
 * built from the instant files in .hoodie/ (layout 1) or
 * .hoodie/timeline/ (layout 2). */
#ifndef HUDI_TABLE_TIMELINE_H
#define HUDI_TABLE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/instant.h"
#include "io/storage.h"
#include "table/instant_file.h"

typedef struct hudi_instant {
  char requested_time[HUDI_INSTANT_TIME_MAX];
  /* Layout 2: from the completed file's name. Layout 1 has none: Hudi uses
   * the completed file's modification time, kept in completed_mtime_ms. */
  char completion_time[HUDI_INSTANT_TIME_MAX];
  int64_t completed_mtime_ms;
  /* The action as Hudi reports it: a completed instant's is its completed
   * file's (a finished compaction is a "commit"), a pending one's is its
   * pending action ("compaction"). */
  char action[HUDI_ACTION_MAX];
  /* The action it was requested as (compaction, clustering, logcompaction,
   * or the same as action). */
  char requested_action[HUDI_ACTION_MAX];
  hudi_instant_state state;
  /* Name of the file holding the instant's metadata (completed file, or
   * the latest pending one), relative to the timeline directory. */
  char file_name[96];
} hudi_instant;

typedef struct hudi_timeline {
  hudi_instant *items;
  size_t count;
  int layout;
  char dir[32]; /* ".hoodie" or ".hoodie/timeline", relative to the table */
  /* The archived instants (layout 2: the LSM history), all COMPLETED, in
   * requested-time order; filled only by hudi_timeline_load_archive. Not
   * part of items: services and writers work on the active timeline. */
  hudi_instant *archived;
  size_t n_archived;
  bool archive_loaded;
} hudi_timeline;

/* Lists the timeline directory of the table in s (table base = "" unless
 * table_dir is given, e.g. ".hoodie/metadata" for the metadata table) and
 * builds the timeline. Two actions for one requested time is
 * HUDI_ERR_CORRUPT naming both files, except a savepoint: it has its
 * commit's requested time and is an entry of its own (after the commit). */
HUDI_NODISCARD hudi_status hudi_timeline_load(hudi_timeline *out, hudi_storage *s, const char *table_dir,
                                              int layout, hudi_error *err);
void hudi_timeline_free(hudi_timeline *t);

/* Feeds every requested and completion time of t into gen, so the next
 * instant it makes is later than all of them. Unparseable times are
 * skipped. */
void hudi_timeline_observe_times(const hudi_timeline *t, hudi_instant_gen *gen);

/* Loads the archived instants from the history directory hist_dir
 * (relative to s; NULL: ".hoodie/timeline/history", see
 * hudi_archive_history_dir) into t->archived, once (later calls return at
 * once). Layout 1: none (its .hoodie/archived log files are not read).
 * Each gets its completion time and action from the history's rows; an
 * archived instant still on the active timeline is skipped. */
HUDI_NODISCARD hudi_status hudi_timeline_load_archive(hudi_timeline *t, hudi_storage *s, const char *hist_dir,
                                                      hudi_error *err);

/* Where the active timeline starts for the files readers see: the
 * requested time of its first write instant (commit, deltacommit,
 * replacecommit, compaction, logcompaction, clustering; any state), or
 * NULL when it has none. A file of an instant older than this and not on
 * the timeline is archived, hence completed -- Hudi's
 * isBeforeTimelineStarts on the write timeline. Cleans, rollbacks and
 * savepoints do not count: Hudi's version-6 archiver (TimelineArchiverV1)
 * leaves cleans older than the commits it archives. Nor do savepointed
 * writes (findFirstNonSavepointCommit): with
 * hoodie.archive.beyond.savepoint they stay while later commits are
 * archived, a hole in the timeline. When every write on the timeline is
 * savepointed (a restore to the latest savepoint after archival), the
 * last of them: the instants before it that are gone were archived
 * (returning NULL there hid every archived file: a restored table read
 * as the savepointed commit's own files alone). */
const char *hudi_timeline_start(const hudi_timeline *t);

/* The archived instant of requested_time, or NULL (binary search). */
const hudi_instant *hudi_timeline_find_archived(const hudi_timeline *t, const char *requested_time);

/* Counts and finds; the returned pointer lives as long as t. */
size_t hudi_timeline_count_state(const hudi_timeline *t, hudi_instant_state state);
/* hudi_timeline_find returns the instant of requested_time that is not a
 * savepoint (the savepoint only when it is alone). */
const hudi_instant *hudi_timeline_find(const hudi_timeline *t, const char *requested_time);

#endif
