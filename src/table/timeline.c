#include "table/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "table/lsm_timeline.h"

#define TIMELINE_MAX_INSTANTS 10000000

void hudi_timeline_observe_times(const hudi_timeline *t, hudi_instant_gen *gen) {
  for (size_t i = 0; i < t->count; i++) {
    const char *times[2] = {t->items[i].requested_time, t->items[i].completion_time};
    for (int k = 0; k < 2; k++) {
      int64_t ms;
      if (*times[k] && hudi_instant_time_to_millis(&ms, times[k], strlen(times[k]), NULL) == HUDI_OK)
        hudi_instant_gen_observe(gen, ms);
    }
  }
}

void hudi_timeline_free(hudi_timeline *t) {
  hudi_free(t->items);
  t->items = NULL;
  t->count = 0;
  hudi_free(t->archived);
  t->archived = NULL;
  t->n_archived = 0;
  t->archive_loaded = false;
}

static int cmp_instant(const void *a, const void *b) {
  const hudi_instant *x = a, *y = b;
  int c = strcmp(x->requested_time, y->requested_time);
  return c ? c : strcmp(x->action, y->action);
}

/* Folds one more instant file into the entry for its requested time. The
 * files of one instant name the same action family: "compaction.requested"
 * and "T_C.commit" are one compaction. */
static hudi_status merge_file(hudi_instant *e, const hudi_instant_file *f, const hudi_file_info *info,
                              const char *name, const char *dir, hudi_error *err) {
  if (strcmp(hudi_instant_completed_action(e->requested_action), hudi_instant_completed_action(f->action)))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: instant %s has files of two actions: %s and %s", dir,
                        f->requested_time, e->file_name, name);
  /* Pending files say what was requested; a completed file only its family. */
  if (f->state != HUDI_INSTANT_COMPLETED) strcpy(e->requested_action, f->action);
  if (f->state == HUDI_INSTANT_COMPLETED) {
    strcpy(e->completion_time, f->completion_time);
    e->completed_mtime_ms = info->mtime_ms;
  }
  if (f->state >= e->state) {
    e->state = f->state;
    snprintf(e->file_name, sizeof e->file_name, "%s", name);
  }
  strcpy(e->action, e->state == HUDI_INSTANT_COMPLETED ? hudi_instant_completed_action(e->requested_action)
                                                       : e->requested_action);
  return HUDI_OK;
}

/* The entry for requested_time: listings are sorted by name and every file
 * of an instant starts with its (fixed-width) requested time, so it is
 * nearly always the last one; legacy tables mixing 14- and 17-digit times
 * fall back to a search. */
static bool is_savepoint(const char *action) { return strcmp(action, "savepoint") == 0; }

/* A savepoint shares the requested time of the commit it savepoints
 * (Hudi's SavepointActionExecutor), so it is an entry of its own. */
static bool same_entry(const hudi_instant *e, const char *requested_time, const char *action) {
  return strcmp(e->requested_time, requested_time) == 0 && is_savepoint(e->requested_action) == is_savepoint(action);
}

static hudi_instant *find_entry(hudi_instant *items, size_t n, const char *requested_time, const char *action) {
  for (size_t j = n; j-- > 0;) {
    if (same_entry(&items[j], requested_time, action)) return &items[j];
    if (j + 2 < n) break; /* nearly always the last or the one before it (sorted listing) */
  }
  for (size_t j = 0; j + 2 < n; j++)
    if (same_entry(&items[j], requested_time, action)) return &items[j];
  return NULL;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

hudi_status hudi_timeline_load(hudi_timeline *out, hudi_storage *s, const char *table_dir, int layout,
                               hudi_error *err) {
  memset(out, 0, sizeof *out);
  out->layout = layout;
  snprintf(out->dir, sizeof out->dir, "%s", layout >= 2 ? ".hoodie/timeline" : ".hoodie");
  char dir[512];
  snprintf(dir, sizeof dir, "%s%s%s", table_dir ? table_dir : "", table_dir && *table_dir ? "/" : "",
           out->dir);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  hudi_storage_forget_objects(s); /* a new view of the table: io/storage.h */
  HUDI_TRY(hudi_storage_list(s, dir, 0, &list, err));
  if (list.count > TIMELINE_MAX_INSTANTS * 3) {
    hudi_file_list_free(&list);
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s holds %zu files", dir, list.count);
  }
  hudi_instant *items = hudi_calloc(list.count ? list.count : 1, sizeof *items);
  if (!items) {
    hudi_file_list_free(&list);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory loading the timeline");
  }
  size_t n = 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < list.count && st == HUDI_OK; i++) {
    if (list.items[i].is_dir) continue;
    const char *name = base_name(list.items[i].path);
    hudi_instant_file f;
    if (!hudi_instant_file_parse(&f, name, layout)) continue;
    hudi_instant *e = find_entry(items, n, f.requested_time, f.action);
    if (!e) {
      e = &items[n++];
      strcpy(e->requested_time, f.requested_time);
      strcpy(e->requested_action, f.action);
      strcpy(e->action, f.action);
      e->state = f.state;
      snprintf(e->file_name, sizeof e->file_name, "%s", name);
    }
    st = merge_file(e, &f, &list.items[i], name, dir, err);
  }
  hudi_file_list_free(&list);
  if (st != HUDI_OK) {
    hudi_free(items);
    return st;
  }
  qsort(items, n, sizeof *items, cmp_instant);
  out->items = items;
  out->count = n;
  return HUDI_OK;
}

size_t hudi_timeline_count_state(const hudi_timeline *t, hudi_instant_state state) {
  size_t c = 0;
  for (size_t i = 0; i < t->count; i++) c += t->items[i].state == state;
  return c;
}

const hudi_instant *hudi_timeline_find(const hudi_timeline *t, const char *requested_time) {
  const hudi_instant *sp = NULL; /* the savepoint of that time only when nothing else has it */
  for (size_t i = 0; i < t->count; i++)
    if (strcmp(t->items[i].requested_time, requested_time) == 0) {
      if (!is_savepoint(t->items[i].action)) return &t->items[i];
      sp = &t->items[i];
    }
  return sp;
}

/* ---- the archived timeline (layout 2) --------------------------------------- */

hudi_status hudi_timeline_load_archive(hudi_timeline *t, hudi_storage *s, const char *hist_dir, hudi_error *err) {
  if (t->archive_loaded) return HUDI_OK;
  if (t->layout < 2) {
    t->archive_loaded = true;
    return HUDI_OK;
  }
  const char *hist = hist_dir && *hist_dir ? hist_dir : ".hoodie/timeline/history";
  hudi_lsm_rows rows;
  hudi_status st = hudi_lsm_load(&rows, s, hist, 0, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "loading the archived timeline %s", hist);
  hudi_instant *a = hudi_calloc(rows.count ? rows.count : 1, sizeof *a);
  if (!a) {
    hudi_lsm_rows_free(&rows);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < rows.count; i++) {
    const hudi_lsm_row *r = &rows.items[i];
    /* Archived, then (crash before the deletes) still active: the active
     * entry is the one readers use. */
    if (hudi_timeline_find(t, r->instant_time)) continue;
    hudi_instant *in = &a[n++];
    snprintf(in->requested_time, sizeof in->requested_time, "%s", r->instant_time);
    snprintf(in->completion_time, sizeof in->completion_time, "%s", r->completion_time);
    snprintf(in->action, sizeof in->action, "%s", r->action);
    snprintf(in->requested_action, sizeof in->requested_action, "%s", r->action);
    in->state = HUDI_INSTANT_COMPLETED;
  }
  hudi_lsm_rows_free(&rows);
  hudi_free(t->archived);
  t->archived = a;
  t->n_archived = n;
  t->archive_loaded = true;
  return HUDI_OK;
}

/* Any savepoint instant, whatever its state (Java collects savepoint
 * times from the instants as they are; a read's timeline copy marks
 * instants completed after its end time pending). */
static bool savepointed_time(const hudi_timeline *t, const char *time) {
  for (size_t i = 0; i < t->count; i++)
    if ((!strcmp(t->items[i].requested_action, "savepoint") || !strcmp(t->items[i].action, "savepoint")) &&
        !strcmp(t->items[i].requested_time, time))
      return true;
  return false;
}

const char *hudi_timeline_start(const hudi_timeline *t) {
  static const char *const writes[] = {"commit", "deltacommit", "replacecommit", "compaction", "logcompaction",
                                       "clustering"};
  const char *last_savepointed = NULL;
  for (size_t i = 0; i < t->count; i++)
    for (size_t k = 0; k < sizeof writes / sizeof *writes; k++)
      if (!strcmp(t->items[i].requested_action, writes[k]) || !strcmp(t->items[i].action, writes[k])) {
        if (!savepointed_time(t, t->items[i].requested_time)) return t->items[i].requested_time;
        last_savepointed = t->items[i].requested_time;
        break;
      }
  return last_savepointed;
}

const hudi_instant *hudi_timeline_find_archived(const hudi_timeline *t, const char *requested_time) {
  size_t lo = 0, hi = t->n_archived;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(t->archived[mid].requested_time, requested_time);
    if (c == 0) return &t->archived[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}
