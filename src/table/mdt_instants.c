/* Valid instants of metadata-table log blocks. */
#include "table/mdt_instants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "table/archive.h"
#include "table/rollback_plan.h"

#define MAX_TIMELINE_FILE ((size_t)64 << 20)

static hudi_status add(hudi_mdt_instants *s, const char *t, hudi_error *err) {
  if (strlen(t) >= HUDI_INSTANT_TIME_MAX) return HUDI_OK; /* no real instant is that long */
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    void *p = hudi_realloc(s->items, cap * sizeof *s->items);
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory (metadata table instants)");
    s->items = p;
    s->cap = cap;
  }
  snprintf(s->items[s->n++], HUDI_INSTANT_TIME_MAX, "%s", t);
  return HUDI_OK;
}

static int cmp_instant(const void *a, const void *b) { return strcmp(a, b); }

static void sort_unique(hudi_mdt_instants *s) {
  if (!s->n) return;
  qsort(s->items, s->n, sizeof *s->items, cmp_instant);
  size_t w = 1;
  for (size_t i = 1; i < s->n; i++)
    if (strcmp(s->items[i], s->items[w - 1]) != 0) memcpy(s->items[w++], s->items[i], sizeof *s->items);
  s->n = w;
}

bool hudi_mdt_instants_has(const hudi_mdt_instants *s, const char *t) {
  return s->n && bsearch(t, s->items, s->n, sizeof *s->items, cmp_instant) != NULL;
}

void hudi_mdt_instants_free(hudi_mdt_instants *s) {
  hudi_free(s->items);
  memset(s, 0, sizeof *s);
}

static bool is_pending(const hudi_timeline *tl, const char *t) {
  const hudi_instant *in = hudi_timeline_find(tl, t);
  return in && in->state != HUDI_INSTANT_COMPLETED;
}

static hudi_status add_from_plan(hudi_mdt_instants *out, hudi_storage *s, const hudi_timeline *tl,
                                 const hudi_instant *in, hudi_buf *buf, hudi_error *err) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.rollback.requested", tl->dir, in->requested_time);
  hudi_buf_reset(buf);
  HUDI_TRY(hudi_storage_read_all(s, path, MAX_TIMELINE_FILE, buf, err));
  hudi_rollback_plan *plan = NULL;
  hudi_status st = hudi_rollback_plan_parse(&plan, buf->data, buf->len, path, err);
  if (st == HUDI_OK && plan->instant_to_rollback && plan->instant_to_rollback->commit_time)
    st = add(out, plan->instant_to_rollback->commit_time, err);
  if (plan) hudi_rollback_plan_free(plan);
  return st;
}

static hudi_status add_rolled_back(hudi_mdt_instants *out, hudi_storage *s, const hudi_timeline *tl,
                                   const hudi_instant *in, hudi_error *err) {
  char path[256];
  hudi_buf buf;
  hudi_buf_init(&buf, MAX_TIMELINE_FILE);
  snprintf(path, sizeof path, "%s/%s", tl->dir, in->file_name);
  hudi_status st = hudi_storage_read_all(s, path, MAX_TIMELINE_FILE, &buf, err);
  if (st == HUDI_OK && buf.len) {
    hudi_rollback_metadata *md = NULL;
    st = hudi_rollback_metadata_parse(&md, buf.data, buf.len, path, err);
    for (size_t i = 0; st == HUDI_OK && i < md->commits_rollback.n; i++)
      st = add(out, ((char **)md->commits_rollback.items)[i], err);
    if (md) hudi_rollback_metadata_free(md);
  } else if (st == HUDI_OK) {
    st = add_from_plan(out, s, tl, in, &buf, err);
  }
  hudi_buf_free(&buf);
  return st;
}

static hudi_status build(hudi_mdt_instants *out, hudi_storage *s, const hudi_timeline *dt, const hudi_timeline *mt,
                         hudi_error *err) {
  for (size_t i = 0; i < dt->count; i++)
    if (dt->items[i].state == HUDI_INSTANT_COMPLETED) HUDI_TRY(add(out, dt->items[i].requested_time, err));
  for (size_t i = 0; i < mt->count; i++) {
    const hudi_instant *in = &mt->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED) continue;
    bool delta = strcmp(in->action, "deltacommit") == 0;
    if ((delta && !is_pending(dt, in->requested_time)) || strcmp(in->action, "rollback") == 0 ||
        strcmp(in->action, "restore") == 0 ||
        (delta && strncmp(in->requested_time, HUDI_MDT_SOLO_COMMIT_TIMESTAMP, 14) == 0))
      HUDI_TRY(add(out, in->requested_time, err));
  }
  /* Java compares rollbacks with the oldest instant collected so far. */
  char earliest[HUDI_INSTANT_TIME_MAX] = HUDI_MDT_SOLO_COMMIT_TIMESTAMP;
  sort_unique(out);
  if (out->n) snprintf(earliest, sizeof earliest, "%s", out->items[0]);
  for (size_t i = 0; i < dt->count; i++) {
    const hudi_instant *in = &dt->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && strcmp(in->action, "rollback") == 0 &&
        strcmp(in->requested_time, earliest) > 0)
      HUDI_TRY(add_rolled_back(out, s, dt, in, err));
  }
  sort_unique(out);
  return HUDI_OK;
}

hudi_status hudi_mdt_instants_build(hudi_mdt_instants *out, hudi_storage *data_storage, const hudi_timeline *data,
                                    const hudi_timeline *mdt, hudi_error *err) {
  memset(out, 0, sizeof *out);
  hudi_status st = build(out, data_storage, data, mdt, err);
  if (st != HUDI_OK) hudi_mdt_instants_free(out);
  return st;
}

bool hudi_mdt_is_init_time(const char *ts) {
  size_t p = strlen(HUDI_MDT_SOLO_COMMIT_TIMESTAMP);
  return strlen(ts) == HUDI_INSTANT_TIME_LEN && !strncmp(ts, HUDI_MDT_SOLO_COMMIT_TIMESTAMP, p) &&
         strspn(ts, "0123456789") == HUDI_INSTANT_TIME_LEN;
}

hudi_status hudi_mdt_archived_load(hudi_lsm_rows *out, hudi_storage *s, hudi_error *err) {
  char hist[600];
  hudi_props defaults = {0}; /* the MDT's timeline paths are Hudi's defaults */
  hudi_archive_history_dir(hist, sizeof hist, &defaults, ".hoodie/metadata");
  return hudi_lsm_load(out, s, hist, 0, err);
}
