/* Timeline archival, after Apache Hudi 1.x TimelineArchiverV2 and
 * ArchivalUtils (spec hudi-format-v6-and-archive.md B3); layout 1 (table
 * version 6) after TimelineArchiverV1, into archive_v1.h's log files. */
#include "table/archive.h"
#include "table/archive_v1.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "table/clean_plan.h"
#include "table/lock.h"
#include "table/lsm_timeline.h"
#include "table/mdt_clean.h"
#include "table/mdt_compact.h"
#include "table/mdt_reader.h"
#include "table/properties.h"
#include "table/timeline_record.h"
#include "table/write.h"

/* ---- options ------------------------------------------------------------- */

static const char *opt(const hudi_table *t, const hudi_option *o, size_t n, const char *key) {
  const char *v = NULL;
  for (size_t i = 0; o && i < n; i++)
    if (o[i].key && o[i].value && strcmp(o[i].key, key) == 0) v = o[i].value;
  if (!v) v = hudi_table_option(t, key);
  return v && *v ? v : NULL;
}

static hudi_status int_opt(int *out, const hudi_table *t, const hudi_option *o, size_t n, const char *key,
                           const char *alias, int def, int lo, hudi_error *err) {
  const char *v = opt(t, o, n, key);
  if (!v && alias) v = opt(t, o, n, alias);
  *out = def;
  if (!v) return HUDI_OK;
  int64_t x;
  HUDI_TRY(hudi_option_parse_int(key, v, lo, 1000000, &x, err));
  *out = (int)x;
  return HUDI_OK;
}

static bool bool_opt(const hudi_table *t, const hudi_option *o, size_t n, const char *key, bool def) {
  const char *v = opt(t, o, n, key);
  if (!v) return def;
  return strcmp(v, "true") == 0 || strcmp(v, "TRUE") == 0 || strcmp(v, "True") == 0;
}

typedef struct archive_cfg {
  int min_keep, max_keep;
  int clean_retained;
  bool keep_latest_commits;
  bool keep_latest_by_hours;
  int clean_hours;
  bool beyond_savepoint;
  int max_delta_commits;
  int lsm_batch;
  int v1_batch; /* hoodie.commits.archival.batch (layout 1) */
} archive_cfg;

/* The timeline being archived: the data table's, or its metadata table's
 * (dir ".hoodie/metadata"). */
typedef struct archive_target {
  hudi_storage *s;
  const char *dir;          /* the table's directory under the storage base: "" or ".hoodie/metadata" */
  const hudi_props *props;  /* its hoodie.properties */
  int layout;               /* timeline layout: 1 (.hoodie, TimelineArchiverV1) or 2 */
  bool mor;
  bool data_has_mdt;        /* data table with a metadata table: rule 4 */
  const hudi_timeline *data; /* metadata table: the data table's active timeline (rule 5) */
  hudi_table *owner;         /* the data table (its handle lists the MDT's file groups: rules 4 and 5) */
  /* Metadata table: the write's compaction options, stale file groups
   * being compacted anew before archiving (refresh); NULL otherwise. */
  const hudi_mdt_compact_options *refresh_opts;
  char tl_dir[128];          /* its timeline directory under the storage base */
} archive_target;

static void target_init(archive_target *t, hudi_storage *s, const char *dir, const hudi_props *props, int layout,
                        bool mor, bool data_has_mdt, const hudi_timeline *data) {
  memset(t, 0, sizeof *t);
  t->s = s;
  t->dir = dir;
  t->props = props;
  t->layout = layout;
  t->mor = mor;
  t->data_has_mdt = data_has_mdt;
  t->data = data;
  /* hudi_timeline.dir is relative to the table (layout 2). */
  snprintf(t->tl_dir, sizeof t->tl_dir, "%s%s.hoodie%s", dir, *dir ? "/" : "", layout < 2 ? "" : "/timeline");
}

static hudi_status read_cfg(archive_cfg *c, const hudi_table *t, const hudi_option *o, size_t n, hudi_error *err) {
  HUDI_TRY(int_opt(&c->min_keep, t, o, n, "hoodie.keep.min.commits", NULL, 20, 1, err));
  HUDI_TRY(int_opt(&c->max_keep, t, o, n, "hoodie.keep.max.commits", NULL, 30, 1, err));
  if (c->max_keep <= c->min_keep)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.keep.max.commits (%d) must be greater than hoodie.keep.min.commits (%d)", c->max_keep,
                        c->min_keep);
  HUDI_TRY(int_opt(&c->clean_retained, t, o, n, "hoodie.clean.commits.retained", "hoodie.cleaner.commits.retained",
                   10, 0, err));
  const char *pol = opt(t, o, n, "hoodie.clean.policy");
  if (!pol) pol = opt(t, o, n, "hoodie.cleaner.policy");
  c->keep_latest_commits = !pol || strcmp(pol, "KEEP_LATEST_COMMITS") == 0;
  c->keep_latest_by_hours = pol && strcmp(pol, "KEEP_LATEST_BY_HOURS") == 0;
  HUDI_TRY(int_opt(&c->clean_hours, t, o, n, "hoodie.clean.hours.retained", "hoodie.cleaner.hours.retained", 24, 0,
                   err));
  c->beyond_savepoint = bool_opt(t, o, n, "hoodie.archive.beyond.savepoint", false);
  HUDI_TRY(int_opt(&c->max_delta_commits, t, o, n, "hoodie.compact.inline.max.delta.commits", NULL, 5, 1, err));
  HUDI_TRY(int_opt(&c->lsm_batch, t, o, n, "hoodie.timeline.compaction.batch.size", NULL, 10, 2, err));
  HUDI_TRY(int_opt(&c->v1_batch, t, o, n, "hoodie.commits.archival.batch", NULL, HUDI_ARCHIVE_V1_BATCH, 1, err));
  return HUDI_OK;
}

void hudi_archive_history_dir(char *out, size_t cap, const hudi_props *props, const char *table_dir) {
  const char *tp = hudi_props_get(props, "hoodie.timeline.path");
  const char *hp = hudi_props_get(props, "hoodie.timeline.history.path");
  snprintf(out, cap, "%s%s.hoodie/%s/%s", table_dir ? table_dir : "", table_dir && *table_dir ? "/" : "",
           tp && *tp ? tp : "timeline", hp && *hp ? hp : "history");
}

/* ---- which instants ------------------------------------------------------- */

static bool is_commit_action(const char *a) {
  return !strcmp(a, "commit") || !strcmp(a, "deltacommit") || !strcmp(a, "replacecommit");
}

static bool is_write_action(const char *a) {
  return is_commit_action(a) || !strcmp(a, "compaction") || !strcmp(a, "logcompaction") || !strcmp(a, "clustering");
}

static bool completed_commit(const hudi_instant *in) {
  return in->state == HUDI_INSTANT_COMPLETED && is_commit_action(in->action);
}

/* Lowers *bound (a requested time, "" = none) to t. */
static void lower(char *bound, const char *t) {
  if (t && *t && (!*bound || strcmp(t, bound) < 0)) snprintf(bound, HUDI_INSTANT_TIME_MAX, "%s", t);
}

static hudi_status read_file(hudi_buf *out, hudi_storage *s, const char *dir, const char *name, bool *found,
                             hudi_error *err) {
  char p[700];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  hudi_buf_reset(out);
  hudi_error tmp = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_read_all(s, p, HUDI_TL_MAX_FILE, out, &tmp);
  *found = st == HUDI_OK;
  if (st == HUDI_ERR_NOT_FOUND) return HUDI_OK;
  if (st != HUDI_OK && err) *err = tmp;
  return st;
}

/* The earliest commit to retain of the latest completed clean (its
 * replaced file groups are gone only before it). */
static hudi_status last_clean_retain(char *out, hudi_storage *s, const hudi_timeline *tl, const char *dir,
                                     hudi_error *err) {
  out[0] = 0;
  for (size_t i = tl->count; i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "clean")) continue;
    hudi_buf b;
    hudi_buf_init(&b, HUDI_TL_MAX_FILE);
    bool found;
    hudi_status st = read_file(&b, s, dir, in->file_name, &found, err);
    hudi_clean_metadata *m = NULL;
    if (st == HUDI_OK && found && b.len) {
      if (hudi_clean_metadata_parse(&m, b.data, b.len, in->file_name, NULL) == HUDI_OK && m->earliest_commit_to_retain)
        snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", m->earliest_commit_to_retain);
      if (m) hudi_clean_metadata_free(m);
    }
    hudi_buf_free(&b);
    return st;
  }
  return HUDI_OK;
}

/* The latest completed compaction of the metadata table (its requested
 * time), "" when it has none. */
static hudi_status mdt_latest_compaction(char *out, hudi_storage *s, hudi_error *err) {
  out[0] = 0;
  hudi_timeline m;
  HUDI_TRY(hudi_timeline_load(&m, s, ".hoodie/metadata", 2, err));
  for (size_t i = 0; i < m.count; i++)
    if (m.items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(m.items[i].action, "commit"))
      snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", m.items[i].requested_time);
  hudi_timeline_free(&m);
  return HUDI_OK;
}

/* Lowers bound to the earliest deltacommit whose log file a metadata file
 * group's latest slice still reads. After a compaction of only some groups
 * (hoodie.metadata.compact.incremental), the others still read logs older
 * than it. Without an open table (t == NULL) nothing changes. */
static hudi_status lower_to_live_logs(char *bound, hudi_table *t, hudi_error *err) {
  if (!t) return HUDI_OK;
  hudi_mdt *m = NULL;
  HUDI_TRY(hudi_mdt_acquire(&m, t, err));
  lower(bound, hudi_mdt_oldest_live_log(m));
  hudi_mdt_release(t, m);
  return HUDI_OK;
}

/* CompactionUtils.getEarliestInstantToRetainForCompaction: enough delta
 * commits stay active for compaction scheduling to count them. */
static const char *compaction_bound(const hudi_timeline *tl, int max_delta) {
  const hudi_instant *last_compaction = NULL;
  size_t first = 0;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "commit")) {
      last_compaction = &tl->items[i];
      first = i + 1;
    }
  const hudi_instant *deltas[4096];
  size_t nd = 0;
  for (size_t i = first; i < tl->count && nd < 4096; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "deltacommit"))
      deltas[nd++] = &tl->items[i];
  if (nd >= (size_t)max_delta) return deltas[nd - (size_t)max_delta]->requested_time;
  if (last_compaction) return last_compaction->requested_time;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "deltacommit"))
      return tl->items[i].requested_time;
  return NULL;
}

/* KEEP_LATEST_BY_HOURS as ArchivalUtils sees it: the first completed commit
 * requested at or after the latest one's time minus the hours (calendar
 * arithmetic on the instant times; NULL when none parses). */
static const char *hours_window_start(const archive_cfg *c, const hudi_timeline *tl, const size_t *commits,
                                      size_t nc) {
  const char *latest = tl->items[commits[nc - 1]].requested_time;
  int64_t ms;
  char cutoff[HUDI_INSTANT_TIME_BUF];
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_instant_time_to_millis(&ms, latest, strlen(latest), &ignored) != HUDI_OK ||
      hudi_instant_time_format(cutoff, ms - (int64_t)c->clean_hours * 3600000, &ignored) != HUDI_OK) {
    hudi_error_clear(&ignored);
    return NULL;
  }
  for (size_t i = 0; i < nc; i++)
    if (strcmp(tl->items[commits[i]].requested_time, cutoff) >= 0) return tl->items[commits[i]].requested_time;
  return NULL;
}

/* ArchivalUtils.getMinAndMaxInstantsToKeep: never archive commits the
 * cleaner still retains (KEEP_LATEST_COMMITS, KEEP_LATEST_BY_HOURS). */
static void adjust_for_cleaning(archive_cfg *c, const hudi_timeline *tl, const size_t *commits, size_t nc) {
  const char *e = NULL;
  if (c->keep_latest_by_hours && nc > 0) e = hours_window_start(c, tl, commits, nc);
  else if (c->keep_latest_commits && nc > (size_t)c->clean_retained)
    e = tl->items[commits[nc - (size_t)c->clean_retained]].requested_time;
  if (!e) return;
  /* Moved back before the oldest pending write (KEEP_LATEST_COMMITS only,
   * as CleanerUtils.getEarliestCommitToRetain does). */
  for (size_t i = 0; c->keep_latest_commits && i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED && is_commit_action(in->requested_action) &&
        strcmp(in->requested_time, e) < 0) {
      e = in->requested_time;
      break;
    }
  }
  int after = 0;
  for (size_t i = 0; i < nc; i++) after += strcmp(tl->items[commits[i]].requested_time, e) > 0;
  int by_cleaning = after + 2;
  if (c->min_keep < by_cleaning) {
    c->max_keep = by_cleaning + c->max_keep - c->min_keep;
    c->min_keep = by_cleaning;
  }
}

/* Whether a completed savepoint has requested time t. */
static bool savepointed(const hudi_timeline *tl, const char *t) {
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "savepoint") &&
        !strcmp(tl->items[i].requested_time, t))
      return true;
  return false;
}

/* Indexes into tl of the instants to archive, ascending. */
static hudi_status choose(size_t *out, size_t *n_out, const archive_target *t, const hudi_timeline *tl,
                          archive_cfg *c, hudi_error *err) {
  *n_out = 0;
  size_t *commits = hudi_calloc(tl->count + 1, sizeof *commits);
  if (!commits) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t nc = 0;
  for (size_t i = 0; i < tl->count; i++)
    if (completed_commit(&tl->items[i])) commits[nc++] = i;
  adjust_for_cleaning(c, tl, commits, nc);
  hudi_status st = HUDI_OK;
  if (nc <= (size_t)c->max_keep) goto cleans;

  char bound[HUDI_INSTANT_TIME_MAX] = "";
  /* 1. The earliest pending write, or the last commit completed before it. */
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *p = &tl->items[i];
    if (p->state == HUDI_INSTANT_COMPLETED || !is_write_action(p->requested_action)) continue;
    const char *before = NULL;
    for (size_t j = 0; j < nc; j++)
      if (strcmp(tl->items[commits[j]].requested_time, p->requested_time) < 0)
        before = tl->items[commits[j]].requested_time;
    lower(bound, before ? before : p->requested_time);
    break;
  }
  /* 2. Merge-on-Read: the delta commits compaction scheduling counts. */
  if (t->mor) lower(bound, compaction_bound(tl, c->max_delta_commits));
  /* 3. Replace commits whose replaced files the cleaner has not removed. */
  char retain[HUDI_INSTANT_TIME_MAX];
  bool has_replace = false;
  for (size_t j = 0; j < nc; j++) has_replace |= !strcmp(tl->items[commits[j]].action, "replacecommit");
  if (has_replace) {
    st = last_clean_retain(retain, t->s, tl, t->tl_dir, err);
    if (st != HUDI_OK) goto done;
    for (size_t j = 0; j < nc; j++) {
      const hudi_instant *in = &tl->items[commits[j]];
      if (!strcmp(in->action, "replacecommit") && (!retain[0] || strcmp(in->requested_time, retain) >= 0)) {
        lower(bound, in->requested_time);
        break;
      }
    }
    /* ... nor those a savepoint older than them still reads: the cleaner
     * keeps the savepointed slices of the groups they replaced
     * (ClusteringUtils.getEarliestReplacedSavepointInClean; reachable with
     * hoodie.archive.beyond.savepoint). */
    for (size_t j = 0; j < nc; j++) {
      const hudi_instant *in = &tl->items[commits[j]];
      if (strcmp(in->action, "replacecommit")) continue;
      bool seen = false;
      for (size_t i = 0; i < tl->count && !seen; i++)
        seen = tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "savepoint") &&
               strcmp(tl->items[i].requested_time, in->requested_time) < 0;
      if (seen) {
        lower(bound, in->requested_time);
        break;
      }
    }
  }
  /* 4. With a metadata table: nothing completed after its last compaction
   * (none yet: nothing at all), nor at or after the oldest deltacommit whose
   * log files a metadata file group still reads (after a compaction of only
   * some groups, hoodie.metadata.compact.incremental). Readers take MDT log
   * blocks only of instants active on the data timeline or on the MDT's,
   * and the MDT's archival follows the data table's (rule 5 in Java too). */
  if (t->data_has_mdt) {
    char mc[HUDI_INSTANT_TIME_MAX];
    st = mdt_latest_compaction(mc, t->s, err);
    if (st != HUDI_OK || !mc[0]) goto done;
    for (size_t j = 0; j < nc; j++) {
      const hudi_instant *in = &tl->items[commits[j]];
      if (in->completion_time[0] && strcmp(in->completion_time, mc) > 0) {
        lower(bound, in->requested_time);
        break;
      }
    }
    st = lower_to_live_logs(bound, t->owner, err);
    if (st != HUDI_OK) goto done;
  }
  /* 5. The metadata table: nothing at or after the data table's earliest
   * commit or earliest pending instant
   * (TimelineUtils.getEarliestInstantForMetadataArchival: rollbacks of
   * data instants still active need their MDT deltacommits); and, going
   * further than Java, nothing at or after the MDT's own latest
   * compaction (none yet: nothing at all), so every archived deltacommit's
   * log blocks are already merged into a base file readers use. */
  if (t->data) {
    for (size_t i = 0; i < t->data->count; i++) {
      const hudi_instant *in = &t->data->items[i];
      if (is_commit_action(in->action) || !strcmp(in->action, "clustering") ||
          in->state != HUDI_INSTANT_COMPLETED) {
        lower(bound, in->requested_time);
        break;
      }
    }
    const char *last_compaction = NULL;
    for (size_t i = 0; i < tl->count; i++)
      if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "commit"))
        last_compaction = tl->items[i].requested_time;
    if (!last_compaction) goto done;
    lower(bound, last_compaction);
    st = lower_to_live_logs(bound, t->owner, err);
    if (st != HUDI_OK) goto done;
  }
  /* Savepoints: stop at the first, or with beyond.savepoint keep only
   * the savepointed commits (a savepoint shares its commit's requested
   * time, and archiving that commit would delete the savepoint's files). */
  const char *first_savepoint = NULL;
  for (size_t i = 0; i < tl->count && !first_savepoint; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "savepoint"))
      first_savepoint = tl->items[i].requested_time;

  size_t limit = nc - (size_t)c->min_keep, taken = 0;
  for (size_t j = 0; j < nc && taken < limit; j++) {
    const hudi_instant *in = &tl->items[commits[j]];
    if (bound[0] && strcmp(in->requested_time, bound) >= 0) continue;
    if (first_savepoint && !c->beyond_savepoint && strcmp(in->requested_time, first_savepoint) >= 0) continue;
    if (first_savepoint && savepointed(tl, in->requested_time)) continue;
    out[(*n_out)++] = commits[j];
    taken++;
  }
cleans:
  if (*n_out) {
    /* Completed cleans and rollbacks older than the last archived commit
     * go with them. Layout 1 too: TimelineArchiverV1 instead archives
     * cleans and rollbacks by their own count (all but the latest
     * keep.min.commits once there are more than keep.max.commits), which
     * can leave a clean older than archived commits, or archive the clean
     * that deleted files an active commit wrote; this way the active
     * timeline explains every file its commits name. */
    const char *last = tl->items[out[*n_out - 1]].requested_time;
    for (size_t i = 0; i < tl->count; i++) {
      const hudi_instant *in = &tl->items[i];
      if (in->state == HUDI_INSTANT_COMPLETED && (!strcmp(in->action, "clean") || !strcmp(in->action, "rollback")) &&
          strcmp(in->requested_time, last) < 0)
        out[(*n_out)++] = i;
    }
  }
  /* Indexes into a requested-time-sorted timeline: sorting them sorts by time. */
  for (size_t i = 1; i < *n_out; i++)
    for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
      size_t x = out[j];
      out[j] = out[j - 1];
      out[j - 1] = x;
    }
done:
  hudi_free(commits);
  return st;
}

/* ---- rows and deletes ------------------------------------------------------ */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* MetadataConversionUtils.createLSMTimelineInstant: the completed file's
 * bytes, and the plan that action keeps. */
static hudi_status make_row(hudi_lsm_row *r, hudi_storage *s, const char *dir, const hudi_timeline *tl,
                            const hudi_instant *in, const hudi_file_list *files, hudi_error *err) {
  memset(r, 0, sizeof *r);
  snprintf(r->instant_time, sizeof r->instant_time, "%s", in->requested_time);
  snprintf(r->completion_time, sizeof r->completion_time, "%s",
           in->completion_time[0] ? in->completion_time : in->requested_time);
  snprintf(r->action, sizeof r->action, "%s", in->action);
  r->version = 1;
  hudi_buf b;
  hudi_buf_init(&b, HUDI_TL_MAX_FILE);
  bool found;
  hudi_status st = read_file(&b, s, dir, in->file_name, &found, err);
  if (st == HUDI_OK && found && b.len) st = hudi_buf_detach(&b, &r->metadata, &r->metadata_len, err);
  /* The plan: clean -> requested; replace/clustering -> inflight if it
   * has bytes, else requested; compaction/logcompaction -> requested. */
  const char *ra = in->requested_action;
  bool want = !strcmp(ra, "clean") || !strcmp(ra, "compaction") || !strcmp(ra, "logcompaction") ||
              !strcmp(ra, "replacecommit") || !strcmp(ra, "clustering");
  bool inflight_first = !strcmp(ra, "replacecommit") || !strcmp(ra, "clustering");
  for (int pass = 0; st == HUDI_OK && want && !r->plan && pass < 2; pass++) {
    hudi_instant_state need = inflight_first && pass == 0 ? HUDI_INSTANT_INFLIGHT : HUDI_INSTANT_REQUESTED;
    if (!inflight_first && pass == 1) break;
    for (size_t i = 0; i < files->count && st == HUDI_OK; i++) {
      hudi_instant_file f;
      const char *name = base_name(files->items[i].path);
      if (!hudi_instant_file_parse(&f, name, tl->layout) || strcmp(f.requested_time, in->requested_time) ||
          f.state != need)
        continue;
      st = read_file(&b, s, dir, name, &found, err);
      if (st == HUDI_OK && found && b.len) st = hudi_buf_detach(&b, &r->plan, &r->plan_len, err);
      break;
    }
  }
  hudi_buf_free(&b);
  return st;
}

/* Whether listing entry fi is one of instant in's state files (a
 * savepoint shares its commit's time, so the action must match too). */
static bool state_file_of(hudi_instant_file *f, const hudi_file_info *fi, const hudi_instant *in, int layout) {
  return !fi->is_dir && hudi_instant_file_parse(f, base_name(fi->path), layout) &&
         !strcmp(f->requested_time, in->requested_time) &&
         !strcmp(hudi_instant_completed_action(f->action), hudi_instant_completed_action(in->requested_action));
}

/* Deletes the archived instants' files: marker directories, pending files,
 * then completed files in ascending order (a reader never sees a pending
 * file whose completed file is already gone). */
static hudi_status delete_active(hudi_storage *s, const char *dir, const hudi_timeline *tl, const size_t *idx,
                                 size_t n, const hudi_file_list *files, hudi_error *err) {
  for (size_t k = 0; k < n; k++) {
    char p[600];
    snprintf(p, sizeof p, "%s%s.hoodie/.temp/%s", dir, *dir ? "/" : "", tl->items[idx[k]].requested_time);
    HUDI_TRY(hudi_storage_delete(s, p, HUDI_DELETE_MISSING_OK | HUDI_DELETE_RECURSIVE, err));
  }
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < n; k++) {
      const hudi_instant *in = &tl->items[idx[k]];
      for (size_t i = 0; i < files->count; i++) {
        hudi_instant_file f;
        if (!state_file_of(&f, &files->items[i], in, tl->layout)) continue;
        if ((f.state == HUDI_INSTANT_COMPLETED) != (pass == 1)) continue;
        HUDI_TRY(hudi_storage_delete(s, files->items[i].path, HUDI_DELETE_MISSING_OK, err));
      }
    }
  return HUDI_OK;
}

/* Layout 1: the instants' state files into a new archive log file, then
 * their active files go, as TimelineArchiverV1 does. */
static hudi_status archive_instants_v1(hudi_archive_result *res, const archive_target *t, const hudi_timeline *tl,
                                       const size_t *idx, size_t n, const archive_cfg *c, hudi_error *err) {
  hudi_file_list files = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->s, t->tl_dir, 0, &files, err));
  size_t records = 0;
  hudi_status st = hudi_archive_v1_write(t->s, t->props, tl, idx, n, &files, c->v1_batch, &records, err);
  if (st == HUDI_OK) st = delete_active(t->s, t->dir, tl, idx, n, &files, err);
  if (st == HUDI_OK) {
    res->num_instants_archived = (int64_t)n;
    snprintf(res->first_archived, sizeof res->first_archived, "%s", tl->items[idx[0]].requested_time);
    snprintf(res->last_archived, sizeof res->last_archived, "%s", tl->items[idx[n - 1]].requested_time);
  }
  hudi_file_list_free(&files);
  return st;
}

static hudi_status archive_instants(hudi_archive_result *res, const archive_target *t, const hudi_timeline *tl,
                                    const size_t *idx, size_t n, const archive_cfg *c, hudi_error *err) {
  if (t->layout < 2) return archive_instants_v1(res, t, tl, idx, n, c, err);
  hudi_file_list files = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->s, t->tl_dir, 0, &files, err));
  hudi_lsm_row *rows = hudi_calloc(n, sizeof *rows);
  hudi_status st = rows ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t built = 0;
  for (; st == HUDI_OK && built < n; built++) st = make_row(&rows[built], t->s, t->tl_dir, tl, &tl->items[idx[built]], &files, err);
  char hist[600];
  hudi_archive_history_dir(hist, sizeof hist, t->props, t->dir);
  if (st == HUDI_OK) st = hudi_lsm_append(t->s, hist, rows, n, err);
  if (st == HUDI_OK) st = delete_active(t->s, t->dir, tl, idx, n, &files, err);
  size_t compacted = 0;
  if (st == HUDI_OK) st = hudi_lsm_compact_and_clean(&compacted, t->s, hist, c->lsm_batch, (int64_t)1 << 30, err);
  if (st == HUDI_OK) {
    res->num_instants_archived = (int64_t)n;
    res->num_files_compacted = (int64_t)compacted;
    snprintf(res->first_archived, sizeof res->first_archived, "%s", rows[0].instant_time);
    snprintf(res->last_archived, sizeof res->last_archived, "%s", rows[n - 1].instant_time);
  }
  for (size_t i = 0; rows && i < built && i < n; i++) {
    hudi_free(rows[i].metadata);
    hudi_free(rows[i].plan);
  }
  hudi_free(rows);
  hudi_file_list_free(&files);
  return st;
}

/* Layout 1: an archival cut short after its archive file and its deletion
 * of pending files (delete_active's order, TimelineArchiverV1's) leaves
 * completed files with no pending file beside them. Java leaves them to
 * its next run past the archival threshold, which archives them a second
 * time; here every run deletes those the archive already records as
 * completed, so a crash there costs nothing later (an instant without
 * pending files that the archive does not hold stays, whatever made it). */
static hudi_status finish_interrupted_v1(const archive_target *t, hudi_timeline *tl, hudi_error *err) {
  hudi_file_list files = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->s, t->tl_dir, 0, &files, err));
  size_t *idx = hudi_calloc(tl->count + 1, sizeof *idx);
  size_t n = 0;
  hudi_status st = idx ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t k = 0; st == HUDI_OK && k < tl->count; k++) {
    const hudi_instant *in = &tl->items[k];
    if (in->state != HUDI_INSTANT_COMPLETED) continue;
    bool pending = false;
    for (size_t i = 0; i < files.count && !pending; i++) {
      hudi_instant_file f;
      pending = state_file_of(&f, &files.items[i], in, 1) && f.state != HUDI_INSTANT_COMPLETED;
    }
    if (!pending) idx[n++] = k;
  }
  hudi_archive_v1_entries arch = {0};
  if (st == HUDI_OK && n) st = hudi_archive_v1_load(&arch, t->s, t->props, err);
  size_t kept = 0;
  for (size_t j = 0; st == HUDI_OK && j < n; j++)
    if (hudi_archive_v1_has(&arch, tl->items[idx[j]].requested_time, tl->items[idx[j]].action, HUDI_INSTANT_COMPLETED))
      idx[kept++] = idx[j];
  if (st == HUDI_OK && kept) st = delete_active(t->s, t->dir, tl, idx, kept, &files, err);
  if (st == HUDI_OK && kept) {
    hudi_timeline_free(tl);
    st = hudi_timeline_load(tl, t->s, t->dir, t->layout, err);
  }
  hudi_archive_v1_entries_free(&arch);
  hudi_free(idx);
  hudi_file_list_free(&files);
  return st;
}

/* Going further than Java (docs/compatibility.md 34): when the metadata
 * table's archival is due (through: the newest instant it would archive),
 * the file groups whose latest base file an instant up to through wrote,
 * or one no longer active, are compacted anew first
 * (hudi_mdt_compact_refresh), then the instants are chosen again. A
 * partition initialised later (at 00000000000000NNN, by hudi-c's
 * record-index add or a Java writer enabling an index, as Spark 1.x does
 * column stats by default) would otherwise hide those files from Java's
 * readers, and Spark's record-index lookups would fail. Costs a copy of
 * the groups no commit changed (record-index shards under updates only)
 * once per archival of their base file's instant. While the handle's
 * background compaction is pending (or on an MDT hudi-c does not compact)
 * nothing is refreshed and the archival goes on as Java's does: a later
 * refresh takes the groups left behind (no longer active). */
static hudi_status refresh(archive_target *t, hudi_timeline *tl, const char *through, hudi_error *err) {
  hudi_mdt_compact_result r;
  HUDI_TRY(hudi_mdt_compact_refresh(t->owner, through, t->refresh_opts, &r, err));
  if (!r.instant[0]) return HUDI_OK;
  hudi_timeline_free(tl);
  return hudi_timeline_load(tl, t->s, t->dir, t->layout, err);
}

/* choose() into a new *idx. */
static hudi_status choose_new(size_t **idx, size_t *k, const archive_target *t, const hudi_timeline *tl,
                              archive_cfg *c, hudi_error *err) {
  *k = 0;
  *idx = hudi_calloc(tl->count + 1, sizeof **idx);
  if (!*idx) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  return choose(*idx, k, t, tl, c, err);
}

/* Archives what the rules allow of target t's timeline into res. */
static hudi_status archive_timeline(hudi_archive_result *res, archive_target *t, archive_cfg *c, bool *archived,
                                    hudi_error *err) {
  *archived = false;
  hudi_timeline tl;
  HUDI_TRY(hudi_timeline_load(&tl, t->s, t->dir, t->layout, err));
  if (t->layout < 2) {
    hudi_status fs = finish_interrupted_v1(t, &tl, err);
    if (fs != HUDI_OK) {
      hudi_timeline_free(&tl);
      return fs;
    }
  }
  archive_cfg c0 = *c; /* choose() adjusts c */
  size_t *idx = NULL, k = 0;
  hudi_status st = choose_new(&idx, &k, t, &tl, c, err);
  if (st == HUDI_OK && k && t->refresh_opts) {
    char through[HUDI_INSTANT_TIME_MAX];
    snprintf(through, sizeof through, "%s", tl.items[idx[k - 1]].requested_time);
    hudi_free(idx);
    idx = NULL;
    st = refresh(t, &tl, through, err);
    *c = c0;
    if (st == HUDI_OK) st = choose_new(&idx, &k, t, &tl, c, err);
  }
  if (st == HUDI_OK && k) st = archive_instants(res, t, &tl, idx, k, c, err);
  *archived = st == HUDI_OK && k > 0;
  hudi_free(idx);
  hudi_timeline_free(&tl);
  return st;
}

/* The metadata table's archival config, as Hudi's metadata writer derives
 * it (HoodieMetadataWriteUtils.createMetadataWriteConfig): keep
 * max(hoodie.metadata.keep.min/max.commits (20/30), the data table's), the
 * cleaner retaining max(20, 1.2 x the data table's retained commits)
 * (mdt_clean.h), compaction after hoodie.metadata.compact.max.delta.commits
 * (10) delta commits. */
static hudi_status mdt_cfg(archive_cfg *m, const archive_cfg *data, const hudi_table *t, const hudi_option *o,
                           size_t n, hudi_error *err) {
  *m = *data;
  int min_keep, max_keep;
  HUDI_TRY(int_opt(&min_keep, t, o, n, "hoodie.metadata.keep.min.commits", NULL, 20, 1, err));
  HUDI_TRY(int_opt(&max_keep, t, o, n, "hoodie.metadata.keep.max.commits", NULL, 30, 1, err));
  m->min_keep = min_keep > data->min_keep ? min_keep : data->min_keep;
  m->max_keep = max_keep > data->max_keep ? max_keep : data->max_keep;
  if (m->max_keep <= m->min_keep)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table: keep.max.commits (%d) must exceed keep.min.commits (%d)",
                        m->max_keep, m->min_keep);
  int scaled = (int)(1.2 * data->clean_retained);
  m->clean_retained = scaled > HUDI_MDT_MIN_COMMITS_RETAINED ? scaled : HUDI_MDT_MIN_COMMITS_RETAINED;
  HUDI_TRY(int_opt(&m->max_delta_commits, t, o, n, "hoodie.metadata.compact.max.delta.commits", NULL, 10, 1, err));
  m->beyond_savepoint = false;
  return HUDI_OK;
}

/* Archives the metadata table's own timeline after the data table's, as
 * Hudi's metadata write client does after its commits: the same rules on
 * the MDT (a merge-on-read table) with its config (mdt_cfg), plus rule 5
 * of choose(). The history goes to .hoodie/metadata/.hoodie/timeline/history. */
static hudi_status archive_mdt_with(hudi_archive_result *res, hudi_table *t, const archive_cfg *data_cfg,
                                    const hudi_props *props, const hudi_option *opts, size_t n, hudi_error *err) {
  const char *layout = hudi_props_get(props, "hoodie.timeline.layout.version");
  if (!layout || strcmp(layout, "2") != 0) return HUDI_OK;
  archive_cfg c;
  hudi_status st = mdt_cfg(&c, data_cfg, t, opts, n, err);
  archive_target tgt;
  target_init(&tgt, t->storage, ".hoodie/metadata", props, 2, true, false, &t->timeline);
  tgt.owner = t;
  hudi_mdt_services_options so;
  if (st == HUDI_OK) st = hudi_mdt_services_options_get(&so, t, opts, n, err);
  tgt.refresh_opts = &so.compact;
  hudi_archive_result r;
  memset(&r, 0, sizeof r);
  bool archived = false;
  if (st == HUDI_OK) st = archive_timeline(&r, &tgt, &c, &archived, err);
  if (st == HUDI_OK) res->mdt_instants_archived = r.num_instants_archived;
  if (st != HUDI_OK) hudi_err_context(err, st, "archiving the metadata table's timeline");
  return st;
}

static hudi_status archive_mdt(hudi_archive_result *res, hudi_table *t, const archive_cfg *data_cfg,
                               const hudi_option *opts, size_t n, hudi_error *err) {
  /* Within a write, the properties its metadata-table handle read. */
  const hudi_table *shared = hudi_mdt_shared_table(t);
  if (shared) return archive_mdt_with(res, t, data_cfg, &shared->props, opts, n, err);
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_error tmp = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_read_all(t->storage, ".hoodie/metadata/.hoodie/hoodie.properties",
                                         HUDI_PROPS_MAX_BYTES, &text, &tmp);
  if (st == HUDI_ERR_NOT_FOUND) {
    hudi_buf_free(&text);
    return HUDI_OK; /* no metadata table */
  }
  if (st != HUDI_OK && err) *err = tmp;
  hudi_props props;
  hudi_props_init(&props);
  if (st == HUDI_OK)
    st = hudi_props_parse(&props, (const char *)text.data, text.len, ".hoodie/metadata/.hoodie/hoodie.properties", err);
  hudi_buf_free(&text);
  if (st == HUDI_OK) st = archive_mdt_with(res, t, data_cfg, &props, opts, n, err);
  hudi_props_free(&props);
  return st;
}

hudi_status hudi_archive_check_options(const hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  archive_cfg c, m;
  HUDI_TRY(read_cfg(&c, t, opts, n, err));
  return mdt_cfg(&m, &c, t, opts, n, err);
}

hudi_status hudi_archive_run(hudi_archive_result *result, hudi_table *t, const hudi_option *opts, size_t n,
                             bool automatic, hudi_error *err) {
  memset(result, 0, sizeof *result);
  if (automatic && !bool_opt(t, opts, n, "hoodie.archive.automatic", true)) return HUDI_OK;
  archive_cfg c;
  HUDI_TRY(read_cfg(&c, t, opts, n, err));
  const char *parts = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  /* Layout 1 with a metadata table (hudi-c writes none there): left alone,
   * since TimelineArchiverV1 would bound archival by that table's
   * compactions, which hudi-c does not run on version 6. */
  if (t->layout < 2 && parts && *parts) return HUDI_OK;
  archive_target tgt;
  target_init(&tgt, t->storage, "", &t->props, t->layout, t->type == HUDI_MERGE_ON_READ, parts && *parts, NULL);
  tgt.owner = t;
  bool archived = false;
  hudi_status st = archive_timeline(result, &tgt, &c, &archived, err);
  if (archived || st != HUDI_OK) {
    /* The handle's timeline no longer holds the archived instants (nor,
     * after a failure midway, those whose files are already deleted). */
    hudi_timeline fresh;
    hudi_error tmp = HUDI_ERROR_INIT;
    hudi_status rs = hudi_timeline_load(&fresh, t->storage, "", t->layout, st == HUDI_OK ? err : &tmp);
    if (rs == HUDI_OK) {
      hudi_timeline_free(&t->timeline);
      t->timeline = fresh;
    }
    if (st == HUDI_OK) st = rs;
  }
  if (st != HUDI_OK) hudi_err_context(err, st, "archiving the timeline of %s", t->base_uri);
  /* Then the metadata table's, kept behind the data table's active timeline. */
  if (st == HUDI_OK) st = archive_mdt(result, t, &c, opts, n, err);
  return st;
}

hudi_status hudi_table_archive(hudi_archive_result *result, hudi_table *table, const hudi_option *options,
                               size_t n_options, hudi_error *err) {
  if (!result || !table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_archive: NULL argument");
  /* Archival rewrites the timeline: under the writers' table lock. */
  hudi_table_lock lock;
  HUDI_TRY(hudi_table_lock_acquire(&lock, table, options, n_options, err));
  hudi_status st = hudi_archive_run(result, table, options, n_options, false, err);
  hudi_table_lock_release(&lock, table);
  return st;
}
