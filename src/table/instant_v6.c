/* Layout-1 timeline files (instant_v6.h). */
#include "table/instant_v6.h"

#include <string.h>

#include "table/commit_metadata.h"

const char *hudi_instant_v6_action(const char *action) {
  return strcmp(action, "clustering") == 0 ? "replacecommit" : action;
}

/* The action whose file holds commit metadata in this state. */
static int holds_commit_metadata(const char *action, hudi_instant_state state, int *replace) {
  const char *done = hudi_instant_completed_action(action);
  *replace = 0;
  if (state == HUDI_INSTANT_COMPLETED) {
    *replace = strcmp(done, "replacecommit") == 0;
    return !strcmp(done, "commit") || !strcmp(done, "deltacommit") || *replace;
  }
  /* compaction.inflight and logcompaction.inflight stay as written. */
  if (state == HUDI_INSTANT_INFLIGHT)
    return !strcmp(action, "commit") || !strcmp(action, "deltacommit") || !strcmp(action, "replacecommit");
  return 0;
}

/* Log-append stats are Java's HoodieDeltaWriteStat in JSON (extra keys
 * logVersion, logOffset, baseFile, logFiles): the Avro form does not say
 * which class a stat was, the log fields it filled do. */
static void mark_delta_stats(hudi_commit_metadata *m) {
  hudi_partition_write_stats *parts = (hudi_partition_write_stats *)m->partition_to_write_stats.items;
  for (size_t p = 0; p < m->partition_to_write_stats.n; p++) {
    hudi_write_stat *s = (hudi_write_stat *)parts[p].value.items;
    for (size_t i = 0; i < parts[p].value.n; i++)
      s[i].json_delta = s[i].log_files.has && s[i].log_files.n > 0;
  }
}

hudi_status hudi_instant_v6_content(hudi_buf *out, const void **out_data, size_t *out_len, const char *action,
                                    hudi_instant_state state, const void *data, size_t len, hudi_error *err) {
  *out_data = data;
  *out_len = len;
  int replace;
  if (!holds_commit_metadata(action, state, &replace)) return HUDI_OK;
  hudi_commit_metadata *m = NULL;
  if (len == 0) HUDI_TRY(hudi_commit_metadata_new(&m, replace, err));
  else HUDI_TRY(hudi_commit_metadata_parse(&m, data, len, replace, "commit metadata to write", err));
  if (state != HUDI_INSTANT_COMPLETED) m->doc.schema = HUDI_TL_COMMIT_METADATA; /* 0.x's inflight form */
  if (len == 0 && !m->compacted.has) m->compacted = (hudi_tl_bool){0, 1};
  mark_delta_stats(m);
  size_t mark = out->len;
  hudi_status st = hudi_commit_metadata_to_json(m, out, err);
  hudi_commit_metadata_free(m);
  HUDI_TRY(st);
  *out_data = out->data + mark;
  *out_len = out->len - mark;
  return HUDI_OK;
}
