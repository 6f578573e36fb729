/* Timeline file names: which instant, action and state a file in
 * .hoodie/ (layout 1) or .hoodie/timeline/ (layout 2) stands for. */
#ifndef HUDI_TABLE_INSTANT_FILE_H
#define HUDI_TABLE_INSTANT_FILE_H

#include "base/error.h"

typedef enum hudi_instant_state {
  HUDI_INSTANT_REQUESTED = 0,
  HUDI_INSTANT_INFLIGHT = 1,
  HUDI_INSTANT_COMPLETED = 2
} hudi_instant_state;

/* 17 digits (14 in legacy tables; 20 for 0.x metadata-table instants such as
 * "<t>001" compactions), plus NUL. */
#define HUDI_INSTANT_TIME_MAX 24
#define HUDI_ACTION_MAX 24

typedef struct hudi_instant_file {
  char requested_time[HUDI_INSTANT_TIME_MAX];  /* 17 digits, or 14 for legacy tables */
  char completion_time[HUDI_INSTANT_TIME_MAX]; /* layout 2 completed files only, else "" */
  /* The action the file names. Completed compactions are named "commit",
   * completed log compactions "deltacommit" and completed clusterings
   * "replacecommit", as Hudi names their files. */
  char action[HUDI_ACTION_MAX];
  hudi_instant_state state;
} hudi_instant_file;

/* Parses a timeline file name for timeline layout 1 or 2. Returns 1 and
 * fills *out when the name is an instant file Hudi would load, 0 for any
 * other name (".tmp" files, "*.crc", "hoodie.properties", directories,
 * layout-2 completed files without a completion time, unknown actions). */
int hudi_instant_file_parse(hudi_instant_file *out, const char *name, int layout);

/* The file name of an instant in a state, for a layout (the inverse of
 * parse). `action` is the pending action (compaction, clustering, ...);
 * completed files get the completed action's name. Returns the length
 * written, or -1 when the buffer is too small or the action unknown. */
int hudi_instant_file_name(char *buf, size_t cap, const char *requested_time, const char *completion_time,
                           const char *action, hudi_instant_state state, int layout);

/* The action whose completed file a pending action produces: compaction ->
 * commit, logcompaction -> deltacommit, clustering -> replacecommit; any
 * other action is its own. */
const char *hudi_instant_completed_action(const char *action);

#endif
