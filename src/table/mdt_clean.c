/* Metadata-table cleaning (mdt_clean.h). */
#include "table/mdt_clean.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "table/clean_plan.h"
#include "table/mdt_reader.h"
#include "table/mdt_write_common.h"
#include "table/write_mdt.h"


static bool is_commit_action(const char *a) {
  return !strcmp(a, "commit") || !strcmp(a, "deltacommit") || !strcmp(a, "replacecommit");
}

static bool is_pending_write(const hudi_instant *i) {
  const char *a = i->requested_action[0] ? i->requested_action : i->action;
  return i->state != HUDI_INSTANT_COMPLETED &&
         (is_commit_action(a) || !strcmp(a, "compaction") || !strcmp(a, "clustering") || !strcmp(a, "logcompaction"));
}

/* Whether fewer than 3 instants completed after the last compaction. */
static bool too_soon_after_compaction(const hudi_timeline *tl) {
  const hudi_instant *c = NULL;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "commit")) c = &tl->items[i];
  if (!c) return false;
  size_t after = 0;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && strcmp(tl->items[i].requested_time, c->requested_time) > 0)
      after++;
  return after < 3;
}

/* The earliest commit to retain, or NULL when there are no more commits
 * than retained (CleanPlanner.getEarliestCommitToRetain). */
static const hudi_instant *earliest_to_retain(const hudi_timeline *tl, size_t retained,
                                              const hudi_instant **last_completed) {
  const hudi_instant **commits = hudi_calloc(tl->count ? tl->count : 1, sizeof *commits);
  if (!commits) return NULL;
  size_t n = 0;
  const hudi_instant *pending = NULL;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    if (x->state == HUDI_INSTANT_COMPLETED && is_commit_action(x->action)) commits[n++] = x;
    else if (!pending && is_pending_write(x)) pending = x;
  }
  *last_completed = n ? commits[n - 1] : NULL;
  const hudi_instant *ecr = NULL;
  if (n > retained) {
    ecr = commits[n - retained];
    if (pending && strcmp(ecr->requested_time, pending->requested_time) > 0) {
      ecr = NULL;
      for (size_t i = 0; i < n && strcmp(commits[i]->requested_time, pending->requested_time) < 0; i++)
        ecr = commits[i];
    }
  }
  hudi_free(commits);
  return ecr;
}

/* KEEP_LATEST_BY_HOURS (CleanerUtils.getEarliestCommitToRetain): the first
 * completed commit requested at or after now - hours, in the data table's
 * timeline zone (the MDT's instants are the data table's); not moved back
 * before pending writes. */
static const hudi_instant *earliest_in_hours(const hudi_table *data, const hudi_timeline *tl, int64_t now_ms,
                                             int32_t hours, const hudi_instant **last_completed) {
  *last_completed = NULL;
  char cutoff[HUDI_INSTANT_TIME_BUF];
  hudi_error ignored = HUDI_ERROR_INIT;
  /* The zone's wall-clock time, written as UTC digits (what its instants say). */
  int64_t ms = now_ms - (int64_t)hours * 3600000 + (int64_t)hudi_table_timeline_offset_minutes(data) * 60000;
  if (hudi_instant_time_format(cutoff, ms, &ignored) != HUDI_OK) {
    hudi_error_clear(&ignored);
    return NULL;
  }
  const hudi_instant *ecr = NULL;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    if (x->state != HUDI_INSTANT_COMPLETED || !is_commit_action(x->action)) continue;
    *last_completed = x;
    if (!ecr && strcmp(x->requested_time, cutoff) >= 0) ecr = x;
  }
  return ecr;
}

/* ---- the files to delete ---- */

typedef struct victim {
  const char *partition;
  const char *path; /* relative to the MDT base */
} victim;

typedef struct victims {
  victim *items;
  size_t n, cap;
} victims;

static hudi_status push(victims *v, const char *partition, const char *path, hudi_error *err) {
  if (v->n == v->cap) {
    size_t cap = v->cap ? v->cap * 2 : 64;
    void *p = hudi_realloc(v->items, cap * sizeof *v->items);
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory planning the metadata clean");
    v->items = p;
    v->cap = cap;
  }
  v->items[v->n++] = (victim){partition, path};
  return HUDI_OK;
}

/* Whether g's latest slice starts with a base file a deltacommit wrote (a
 * record-index shard's first keys: mdt_write.h rli_base_files), which a
 * rollback of that deltacommit deletes: the slice before it, the shard's
 * empty initialisation log, must then still be there, or the shard would
 * have no file left and the index would hash keys over one shard fewer.
 * A compaction's base file (a commit) and the initialisation's are never
 * rolled back. */
static bool latest_base_undoable(const hudi_file_group *g, const hudi_timeline *mdt) {
  const hudi_file_slice *s = g->n_slices ? &g->slices[g->n_slices - 1] : NULL;
  const hudi_instant *in = s && s->base ? hudi_timeline_find(mdt, s->base_instant) : NULL;
  return in && !strcmp(in->action, "deltacommit") &&
         strncmp(in->requested_time, HUDI_MDT_SOLO_COMMIT_TIMESTAMP, strlen(HUDI_MDT_SOLO_COMMIT_TIMESTAMP)) != 0;
}

/* CleanPlanner.getFilesToCleanKeepingLatestCommits for one group: slices
 * older than ECR except the latest and the latest before ECR (and the one
 * before the latest while latest_base_undoable). */
static hudi_status plan_group(const hudi_file_group *g, const char *ecr, const hudi_timeline *mdt, victims *v,
                              hudi_error *err) {
  if (g->n_slices < 2) return HUDI_OK;
  if (latest_base_undoable(g, mdt)) return HUDI_OK; /* two slices are kept: there are only two */
  if (g->pending_compaction[0]) return HUDI_OK; /* its slices feed a pending compaction */
  const char *latest = g->slices[g->n_slices - 1].base_instant;
  const char *before_ecr = NULL;
  for (size_t i = g->n_slices; i-- > 0;)
    if (strcmp(g->slices[i].base_instant, ecr) < 0) {
      before_ecr = g->slices[i].base_instant;
      break;
    }
  for (size_t i = 0; i < g->n_slices; i++) {
    const hudi_file_slice *s = &g->slices[i];
    if (!strcmp(s->base_instant, latest) || (before_ecr && !strcmp(s->base_instant, before_ecr))) continue;
    if (strcmp(s->base_instant, ecr) >= 0) continue;
    if (s->base) HUDI_TRY(push(v, g->partition, s->base->path, err));
    for (size_t k = 0; k < s->n_logs; k++) HUDI_TRY(push(v, g->partition, s->logs[k].path, err));
  }
  return HUDI_OK;
}

/* CleanPlanner.getFilesToCleanKeepingLatestVersions for one group: every
 * slice but the newest keep (a group feeding a pending compaction is left
 * alone, as plan_group does). */
static hudi_status plan_group_versions(const hudi_file_group *g, size_t keep, const hudi_timeline *mdt, victims *v,
                                       hudi_error *err) {
  if (latest_base_undoable(g, mdt) && keep < 2) keep = 2;
  if (g->n_slices <= keep || g->pending_compaction[0]) return HUDI_OK;
  for (size_t i = 0; i + keep < g->n_slices; i++) {
    const hudi_file_slice *s = &g->slices[i];
    if (s->base) HUDI_TRY(push(v, g->partition, s->base->path, err));
    for (size_t k = 0; k < s->n_logs; k++) HUDI_TRY(push(v, g->partition, s->logs[k].path, err));
  }
  return HUDI_OK;
}

/* The last completed commit (the plan's lastCompletedCommitTimestamp). */
static const hudi_instant *last_completed_commit(const hudi_timeline *tl) {
  const hudi_instant *last = NULL;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED && is_commit_action(tl->items[i].action)) last = &tl->items[i];
  return last;
}

static int cmp_victim(const void *a, const void *b) {
  const victim *x = a, *y = b;
  int c = strcmp(x->partition, y->partition);
  return c ? c : strcmp(x->path, y->path);
}

static const char *name_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* ---- writing ---- */

typedef struct clean_ctx {
  hudi_table *t;
  hudi_mdt *m;
  victims v;
  const hudi_instant *ecr, *last;
  /* Finishing a pending clean (finish_pending): its plan's times. */
  const char *plan_ecr, *plan_last;
  const char *policy; /* as the plan names it */
  char instant[HUDI_INSTANT_TIME_BUF];
  hudi_mdt_clean_result *res;
} clean_ctx;

static hudi_status new_action_instant(hudi_avro_arena *a, const hudi_instant *x, hudi_action_instant **out,
                                      hudi_error *err) {
  void *p;
  HUDI_TRY(hudi_avro_arena_alloc(a, sizeof(hudi_action_instant), &p, err));
  hudi_action_instant *ai = p;
  HUDI_TRY(hudi_tl_strdup(a, x->requested_time, &ai->timestamp, err));
  HUDI_TRY(hudi_tl_strdup(a, x->action, &ai->action, err));
  HUDI_TRY(hudi_tl_strdup(a, "COMPLETED", &ai->state, err));
  *out = ai;
  return HUDI_OK;
}

static hudi_status build_plan(clean_ctx *c, hudi_buf *out, hudi_error *err) {
  hudi_cleaner_plan *p;
  HUDI_TRY(hudi_cleaner_plan_new(&p, err));
  hudi_avro_arena *a = &p->doc.arena;
  /* KEEP_LATEST_FILE_VERSIONS plans without an earliest instant to retain. */
  hudi_status st = c->ecr ? new_action_instant(a, c->ecr, &p->earliest_instant_to_retain, err) : HUDI_OK;
  if (st == HUDI_OK) st = hudi_tl_strdup(a, c->last ? c->last->requested_time : "", &p->last_completed_commit_timestamp, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, c->policy, &p->policy, err);
  p->files_to_be_deleted_per_partition.has = 1;
  p->version = (hudi_tl_int){2, 1};
  p->file_paths_to_be_deleted_per_partition.has = 1;
  p->partitions_to_be_deleted.has = 1;
  size_t base_len = strlen(c->t->base_uri);
  while (base_len > 1 && c->t->base_uri[base_len - 1] == '/') base_len--;
  hudi_clean_file_infos_entry *e = NULL;
  for (size_t i = 0; st == HUDI_OK && i < c->v.n; i++) {
    const victim *x = &c->v.items[i];
    if (!e || strcmp(e->key, x->partition) != 0) {
      st = hudi_tl_list_push(&p->file_paths_to_be_deleted_per_partition, a, sizeof *e, (void **)&e, err);
      if (st == HUDI_OK) st = hudi_tl_strdup(a, x->partition, &e->key, err);
      e->value.has = 1;
    }
    hudi_clean_file_info *fi;
    if (st == HUDI_OK) st = hudi_tl_list_push(&e->value, a, sizeof *fi, (void **)&fi, err);
    /* Hudi plans full paths (CleanFileInfo). */
    char full[4096];
    snprintf(full, sizeof full, "%.*s/%s/%s", (int)base_len, c->t->base_uri, HUDI_MDT_W_BASE, x->path);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, full, &fi->file_path, err);
    if (st == HUDI_OK) fi->is_bootstrap_base_file = (hudi_tl_bool){0, 1};
  }
  if (st == HUDI_OK) st = hudi_cleaner_plan_to_avro(p, NULL, out, err);
  hudi_cleaner_plan_free(p);
  return st;
}

static hudi_status build_metadata(clean_ctx *c, int64_t took_ms, hudi_buf *out, hudi_error *err) {
  hudi_clean_metadata *m;
  HUDI_TRY(hudi_clean_metadata_new(&m, err));
  hudi_avro_arena *a = &m->doc.arena;
  hudi_status st = hudi_tl_strdup(a, c->instant, &m->start_clean_time, err);
  m->time_taken_in_millis = (hudi_tl_long){took_ms, 1};
  m->total_files_deleted = (hudi_tl_int){(int32_t)c->v.n, 1};
  const char *ecr = c->ecr ? c->ecr->requested_time : c->plan_ecr ? c->plan_ecr : "";
  const char *last = c->last ? c->last->requested_time : c->plan_last ? c->plan_last : "";
  if (st == HUDI_OK) st = hudi_tl_strdup(a, ecr, &m->earliest_commit_to_retain, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, last, &m->last_completed_commit_timestamp, err);
  m->partition_metadata.has = 1;
  m->version = (hudi_tl_int){2, 1};
  m->bootstrap_partition_metadata.has = 1;
  hudi_clean_partition_entry *e = NULL;
  for (size_t i = 0; st == HUDI_OK && i < c->v.n; i++) {
    const victim *x = &c->v.items[i];
    if (!e || strcmp(e->key, x->partition) != 0) {
      st = hudi_tl_list_push(&m->partition_metadata, a, sizeof *e, (void **)&e, err);
      if (st == HUDI_OK) st = hudi_tl_strdup(a, x->partition, &e->key, err);
      if (st == HUDI_OK) st = hudi_tl_strdup(a, x->partition, &e->value.partition_path, err);
      if (st == HUDI_OK) st = hudi_tl_strdup(a, c->policy, &e->value.policy, err);
      e->value.delete_path_patterns.has = e->value.success_delete_files.has = e->value.failed_delete_files.has = 1;
      e->value.is_partition_deleted = (hudi_tl_bool){0, 1};
    }
    if (st == HUDI_OK) st = hudi_tl_strs_push(&e->value.delete_path_patterns, a, name_of(x->path), err);
    if (st == HUDI_OK) st = hudi_tl_strs_push(&e->value.success_delete_files, a, name_of(x->path), err);
  }
  if (st == HUDI_OK) st = hudi_clean_metadata_to_avro(m, NULL, out, err);
  hudi_clean_metadata_free(m);
  return st;
}

static hudi_status new_instant(const hudi_table *data, const hudi_timeline *mdt, char out[HUDI_INSTANT_TIME_BUF],
                               hudi_error *err) {
  hudi_instant_gen gen;
  hudi_instant_gen_init(&gen, NULL, NULL);
  hudi_instant_gen_set_offset(&gen, (int64_t)hudi_table_timeline_offset_minutes(data) * 60000);
  hudi_timeline_observe_times(&data->timeline, &gen);
  hudi_timeline_observe_times(mdt, &gen);
  return hudi_instant_gen_next(&gen, out, NULL, err);
}

static hudi_status delete_and_complete(clean_ctx *c, int64_t start, hudi_error *err);

/* The victims of a parsed plan: its full paths cut to the path below the
 * MDT base (the absolute prefix differs between writers). */
static hudi_status plan_victims(clean_ctx *c, hudi_cleaner_plan *plan, hudi_error *err) {
  const hudi_clean_file_infos_entry *e = plan->file_paths_to_be_deleted_per_partition.items;
  for (size_t i = 0; i < plan->file_paths_to_be_deleted_per_partition.n; i++) {
    const char *part = e[i].key ? e[i].key : "";
    const hudi_clean_file_info *fi = e[i].value.items;
    for (size_t k = 0; k < e[i].value.n; k++) {
      const char *name = fi[k].file_path ? name_of(fi[k].file_path) : "";
      if (!*name)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata clean plan: partition '%s' has a file without a path",
                            part);
      size_t len = strlen(part) + strlen(name) + 2;
      char *rel;
      HUDI_TRY(hudi_avro_arena_alloc(&plan->doc.arena, len, (void **)&rel, err));
      snprintf(rel, len, "%s%s%s", part, *part ? "/" : "", name);
      HUDI_TRY(push(&c->v, part, rel, err));
    }
  }
  return HUDI_OK;
}

/* Finishes MDT clean `in` that a writer killed after its plan left
 * pending: its plan's files deleted (those already gone count as
 * deleted), then its completed instant. Hudi's cleaner runs pending plans
 * before it plans anew; a new plan would leave the files this clean had
 * deleted recorded by no clean. */
static hudi_status finish_pending(clean_ctx *c, const hudi_instant *in, hudi_error *err) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.clean.requested", HUDI_MDT_W_TIMELINE, in->requested_time);
  hudi_buf b;
  hudi_buf_init(&b, (size_t)256 << 20);
  hudi_cleaner_plan *plan = NULL;
  int64_t start = hudi_clock_realtime_ms(NULL);
  hudi_status st = hudi_storage_read_all(c->t->storage, path, (size_t)256 << 20, &b, err);
  if (st == HUDI_OK) st = hudi_cleaner_plan_parse(&plan, b.data ? b.data : (const uint8_t *)"", b.len, path, err);
  if (st == HUDI_OK) {
    snprintf(c->instant, sizeof c->instant, "%.*s", (int)sizeof c->instant - 1, in->requested_time);
    c->policy = plan->policy ? plan->policy : "KEEP_LATEST_COMMITS";
    c->plan_ecr = plan->earliest_instant_to_retain ? plan->earliest_instant_to_retain->timestamp : NULL;
    c->plan_last = plan->last_completed_commit_timestamp;
    st = plan_victims(c, plan, err);
  }
  if (st == HUDI_OK && in->state == HUDI_INSTANT_REQUESTED)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, "", "clean", HUDI_INSTANT_INFLIGHT, b.data, b.len, err);
  if (st == HUDI_OK) st = delete_and_complete(c, start, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "finishing pending metadata clean %s", in->requested_time);
  c->v.n = 0;
  c->plan_ecr = c->plan_last = NULL;
  hudi_cleaner_plan_free(plan);
  hudi_buf_free(&b);
  return st;
}

static hudi_status run(clean_ctx *c, const hudi_mdt_clean_options *o, hudi_error *err) {
  /* Within a write: its handle, refreshed after the write's commit. */
  HUDI_TRY(hudi_mdt_acquire(&c->m, c->t, err));
  if (hudi_mdt_table(c->m)->layout != 2) return HUDI_OK; /* table version 6: not cleaned here */
  const hudi_timeline *tl = &hudi_mdt_table(c->m)->timeline;
  bool finished = false;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state != HUDI_INSTANT_COMPLETED && !strcmp(tl->items[i].action, "clean")) {
      HUDI_TRY(finish_pending(c, &tl->items[i], err));
      finished = true;
    }
  if (finished) { /* planned anew on the timeline and files as they are now */
    c->instant[0] = '\0';
    hudi_mdt_release(c->t, c->m);
    c->m = NULL;
    hudi_mdt_share_invalidate(c->t);
    HUDI_TRY(hudi_mdt_acquire(&c->m, c->t, err));
    tl = &hudi_mdt_table(c->m)->timeline;
  }
  c->policy = o->by_versions ? "KEEP_LATEST_FILE_VERSIONS" : o->by_hours ? "KEEP_LATEST_BY_HOURS" : "KEEP_LATEST_COMMITS";
  size_t n_groups;
  const hudi_file_group *g = hudi_mdt_all_groups(c->m, &n_groups);
  bool wait = !o->incremental_compaction; /* see mdt_clean.h */
  if (o->by_versions) {
    if (wait && too_soon_after_compaction(tl)) return HUDI_OK;
    /* HoodieMetadataWriteUtils: ceil(1.2 x the data table's versions). */
    int32_t data = o->data_versions_retained > 0 ? o->data_versions_retained : 3;
    size_t keep = (size_t)((data * 6 + 4) / 5);
    c->last = last_completed_commit(tl);
    for (size_t i = 0; i < n_groups; i++) HUDI_TRY(plan_group_versions(&g[i], keep, tl, &c->v, err));
  } else if (o->by_hours) {
    if (too_soon_after_compaction(tl)) return HUDI_OK;
    /* HoodieMetadataWriteUtils: ceil(1.2 x the data table's hours). */
    int32_t data = o->data_hours_retained >= 0 ? o->data_hours_retained : 24;
    int32_t hours = (int32_t)((data * 6 + 4) / 5);
    c->ecr = earliest_in_hours(c->t, tl, o->now_ms ? o->now_ms : hudi_clock_realtime_ms(NULL), hours, &c->last);
  } else {
    size_t retained;
    if (o->commits_retained_override > 0) {
      retained = (size_t)o->commits_retained_override;
    } else {
      if (wait && too_soon_after_compaction(tl)) return HUDI_OK;
      int32_t data = o->data_commits_retained > 0 ? o->data_commits_retained : 10;
      double scaled = (double)data * 1.2;
      retained = scaled > HUDI_MDT_MIN_COMMITS_RETAINED ? (size_t)scaled : HUDI_MDT_MIN_COMMITS_RETAINED;
    }
    c->ecr = earliest_to_retain(tl, retained, &c->last);
  }
  if (!o->by_versions && !c->ecr) return HUDI_OK;
  for (size_t i = 0; c->ecr && i < n_groups; i++) HUDI_TRY(plan_group(&g[i], c->ecr->requested_time, tl, &c->v, err));
  if (c->v.n == 0) return HUDI_OK; /* "Nothing to clean here" */
  qsort(c->v.items, c->v.n, sizeof *c->v.items, cmp_victim);

  HUDI_TRY(new_instant(c->t, tl, c->instant, err));
  int64_t start = hudi_clock_realtime_ms(NULL);
  hudi_buf plan;
  hudi_buf_init(&plan, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = build_plan(c, &plan, err);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, "", "clean", HUDI_INSTANT_REQUESTED, plan.data,
                                   plan.len, err);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, "", "clean", HUDI_INSTANT_INFLIGHT, plan.data,
                                   plan.len, err);
  hudi_buf_free(&plan);
  HUDI_TRY(st);
  return delete_and_complete(c, start, err);
}

/* Deletes c's victims (those already gone count as deleted) and completes
 * clean c->instant, whose plan is on the timeline. */
static hudi_status delete_and_complete(clean_ctx *c, int64_t start, hudi_error *err) {
  hudi_status st;
  for (size_t i = 0; i < c->v.n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_BASE, c->v.items[i].path);
    HUDI_TRY(hudi_storage_delete(c->t->storage, path, HUDI_DELETE_MISSING_OK, err));
  }
  hudi_mdt_write_options wo = HUDI_MDT_WRITE_OPTIONS_INIT;
  wo.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(c->t);
  char done[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_mdt_w_completion(c->t->storage, &wo, c->instant, done, err));
  hudi_buf meta;
  hudi_buf_init(&meta, HUDI_BUF_DEFAULT_MAX);
  st = build_metadata(c, hudi_clock_realtime_ms(NULL) - start, &meta, err);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, done, "clean", HUDI_INSTANT_COMPLETED, meta.data,
                                   meta.len, err);
  hudi_buf_free(&meta);
  HUDI_TRY(st);
  memcpy(c->res->instant, c->instant, HUDI_INSTANT_TIME_BUF);
  memcpy(c->res->completion_time, done, HUDI_INSTANT_TIME_BUF);
  snprintf(c->res->earliest_commit_to_retain, HUDI_INSTANT_TIME_BUF, "%.17s",
           c->ecr ? c->ecr->requested_time : c->plan_ecr ? c->plan_ecr : "");
  c->res->files_deleted = c->v.n;
  return HUDI_OK;
}

hudi_status hudi_mdt_clean(hudi_table *t, const hudi_mdt_clean_options *opts, hudi_mdt_clean_result *result,
                           hudi_error *err) {
  hudi_mdt_clean_result dummy;
  hudi_mdt_clean_options d = HUDI_MDT_CLEAN_OPTIONS_INIT;
  clean_ctx c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.res = result ? result : &dummy;
  memset(c.res, 0, sizeof *c.res);
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  hudi_status st = run(&c, opts ? opts : &d, err);
  hudi_free(c.v.items);
  hudi_mdt_release(t, c.m);
  /* A clean planned (even one that failed halfway) changed the MDT. */
  if (c.instant[0]) hudi_mdt_share_invalidate(t);
  if (st != HUDI_OK) c.res->instant[0] = '\0';
  return st;
}
