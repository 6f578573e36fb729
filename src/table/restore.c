#include "table/restore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/instant.h"
#include "table/archive.h"
#include "table/commit_metadata.h"
#include "table/lock.h"
#include "table/lsm_timeline.h"
#include "table/mdt_bootstrap.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_compact.h"
#include "table/mdt_drop.h"
#include "table/mdt_instants.h"
#include "table/mdt_rollback.h"
#include "table/rollback.h"
#include "table/savepoint.h"
#include "table/write.h"
#include "table/write_mdt.h"

#define RESTORE_FILE_MAX ((size_t)256 << 20)

static bool is_write_action(const char *a) {
  static const char *const W[] = {"commit", "deltacommit", "replacecommit", "compaction", "logcompaction",
                                   "clustering"};
  for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
    if (!strcmp(a, W[i])) return true;
  return false;
}

static hudi_status read_tl_file(hudi_buf *b, hudi_table *t, const char *name, hudi_error *err) {
  char path[200];
  snprintf(path, sizeof path, "%s/%s", t->timeline.dir, name);
  hudi_buf_init(b, RESTORE_FILE_MAX);
  return hudi_storage_read_all(t->storage, path, RESTORE_FILE_MAX, b, err);
}

static hudi_status read_plan(hudi_restore_plan **out, hudi_table *t, const char *r, hudi_error *err) {
  char name[96];
  snprintf(name, sizeof name, "%s.restore.requested", r);
  hudi_buf b;
  hudi_status st = read_tl_file(&b, t, name, err);
  if (st == HUDI_OK) st = hudi_restore_plan_parse(out, b.data ? b.data : (const uint8_t *)"", b.len, name, err);
  hudi_buf_free(&b);
  return st;
}

/* Newest first: pending instants (by requested time), then completed ones
 * by completion time (Hudi 1.x orders the write timeline by completion).
 * Version 6 records no completion time: every instant by instant time,
 * pending or not, as Hudi 0.x's getReverseOrderedInstants (before, every
 * pair of completed instants tied and qsort left the oldest first; and a
 * pending compaction C went before the delta commits that wrote logs
 * named by C, whose rollback from a listing deletes those logs, so a
 * restore cut short could leave them completed without their files). */
static int cmp_targets(const void *a, const void *b) {
  const hudi_instant *x = *(const hudi_instant *const *)a, *y = *(const hudi_instant *const *)b;
  if (!x->completion_time[0] && !y->completion_time[0]) return strcmp(y->requested_time, x->requested_time);
  bool xc = x->state == HUDI_INSTANT_COMPLETED, yc = y->state == HUDI_INSTANT_COMPLETED;
  if (xc != yc) return xc ? 1 : -1;
  return strcmp(y->completion_time, x->completion_time);
}

/* ---- the metadata table's compactions after S ---------------------------
 * A data instant's MDT deltacommit can only be rolled back while no MDT
 * compaction holds it (mdt_rollback.h). Hudi restores the MDT to S as
 * well; here the MDT compactions requested after S are rolled back first,
 * newest first (their base files deleted, their timeline files removed,
 * an MDT rollback instant each), so the log files they merged are what
 * the MDT reads again. That needs those log files: when the MDT was
 * cleaned after such a compaction, it is dropped and built again instead
 * (mdt_needs_rebuild), as Hudi drops it. */

static bool mdt_compaction_after(const hudi_instant *c, const char *S) {
  return c->state == HUDI_INSTANT_COMPLETED && !strcmp(c->action, "commit") &&
         strlen(c->requested_time) == strlen(S) && strcmp(c->requested_time, S) > 0;
}

static hudi_status load_mdt(hudi_timeline *out, bool *has, hudi_table *t, hudi_error *err) {
  memset(out, 0, sizeof *out);
  HUDI_TRY(hudi_storage_exists(t->storage, HUDI_MDT_DIR "/.hoodie/hoodie.properties", has, err));
  return *has ? hudi_timeline_load(out, t->storage, HUDI_MDT_DIR, 2, err) : HUDI_OK;
}

/* Undoing the MDT compactions after S makes the latest one before them,
 * c0, the base of the MDT's latest slices again (c0 may be archived from
 * the MDT's timeline; without one, the MDT's first instant is the base),
 * with the deltacommits since c0 in log files. Readers merge a log block
 * only while its instant is a completed one on the data table's active
 * timeline, or a completed deltacommit, rollback or restore on the MDT's
 * (HoodieTableMetadataUtil.getValidInstantTimestamps); Hudi's archivers
 * keep that true by archiving no instant the MDT has not compacted, and
 * the compactions after S let them archive past c0. When a data write or
 * clean completed after c0 is on neither active timeline, the restored
 * MDT would lose its files and keys (found by
 * tests/interop/test_random_mixed.py): the MDT is dropped and built again
 * instead, as Hudi deletes it then (BaseHoodieWriteClient.restoreToSavepoint:
 * the savepoint is not after the MDT's oldest active compaction) and
 * bootstraps it again. */

/* The MDT's base before `first` when its active timeline has none: the
 * latest archived compaction, else its earliest instant. */
static hudi_status archived_c0(char out[HUDI_INSTANT_TIME_MAX], hudi_table *t, const hudi_timeline *mdt,
                               const char *first, hudi_error *err) {
  out[0] = 0;
  hudi_lsm_rows rows = {0};
  hudi_status st = hudi_mdt_archived_load(&rows, t->storage, err);
  for (size_t i = 0; st == HUDI_OK && i < rows.count; i++) {
    const hudi_lsm_row *r = &rows.items[i];
    if (!out[0] || (!strcmp(r->action, "commit") && strcmp(r->instant_time, first) < 0))
      snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", r->instant_time);
  }
  if (st == HUDI_OK && !out[0] && mdt->count) snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", mdt->items[0].requested_time);
  hudi_lsm_rows_free(&rows);
  return st;
}

/* Whether the block a data instant left in the MDT is still read. */
static bool block_readable(const hudi_table *t, const hudi_timeline *mdt, const hudi_lsm_row *r) {
  if (!is_write_action(r->action) && strcmp(r->action, "clean")) return true; /* left no deltacommit */
  const hudi_instant *d = hudi_timeline_find(&t->timeline, r->instant_time);
  if (d && d->state == HUDI_INSTANT_COMPLETED) return true; /* still active (an archival cut short) */
  const hudi_instant *m = hudi_timeline_find(mdt, r->instant_time);
  return m && m->state == HUDI_INSTANT_COMPLETED &&
         (!strcmp(m->action, "deltacommit") || !strcmp(m->action, "rollback") || !strcmp(m->action, "restore"));
}

static hudi_status archived_past(bool *lost, hudi_table *t, const hudi_timeline *mdt, const char *first,
                                  const char *active_c0, hudi_error *err) {
  char c0[HUDI_INSTANT_TIME_MAX];
  if (active_c0) snprintf(c0, sizeof c0, "%s", active_c0);
  else HUDI_TRY(archived_c0(c0, t, mdt, first, err));
  char hist[600];
  hudi_archive_history_dir(hist, sizeof hist, &t->props, "");
  hudi_lsm_rows rows = {0};
  hudi_status st = hudi_lsm_load(&rows, t->storage, hist, 0, err);
  for (size_t i = 0; st == HUDI_OK && i < rows.count && !*lost; i++) {
    const hudi_lsm_row *r = &rows.items[i];
    const char *done = r->completion_time[0] ? r->completion_time : r->instant_time;
    *lost = strcmp(done, c0) > 0 && !block_readable(t, mdt, r);
  }
  hudi_lsm_rows_free(&rows);
  return st;
}

/* A write after S that the MDT never recorded (the MDT was built after it:
 * mdt_bootstrap.h) cannot be undone in the MDT by rolling instants back:
 * its files and keys are in the bootstrap's records. */
static bool unrecorded_write_after(const hudi_table *t, const hudi_timeline *mdt, const char *S) {
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->requested_time, S) <= 0 ||
        !is_write_action(in->requested_action))
      continue;
    const hudi_instant *m = hudi_timeline_find(mdt, in->requested_time);
    if (!m || m->state != HUDI_INSTANT_COMPLETED) return true;
  }
  return false;
}

/* A record index added after S completed (mdt_bootstrap.h) holds the
 * keys of the writes after S in its initialisation records, which no
 * rollback of those writes takes out. Its initialisation deltacommits
 * (17-digit times starting 00000000000000) list record_index write stats;
 * other partitions initialised later (Spark's column stats) hold only
 * stats of files, which the files partition's rollback hides from
 * readers. S's completion time, not its requested time: Java initialises
 * a new table's MDT inside its first write, before that write completes.
 * An archived initialisation completed after S counts whatever its
 * partition (its metadata is not read back). */
static hudi_status writes_record_index(bool *yes, hudi_table *t, const hudi_timeline *mdt, const hudi_instant *m,
                                       hudi_error *err) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s/%s", HUDI_MDT_DIR, mdt->dir, m->file_name);
  hudi_buf text;
  hudi_buf_init(&text, HUDI_TL_MAX_FILE);
  hudi_commit_metadata *cm = NULL;
  hudi_status st = hudi_storage_read_all(t->storage, path, HUDI_TL_MAX_FILE, &text, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_parse(&cm, text.data, text.len, 0, path, err);
  *yes = false;
  const hudi_partition_write_stats *ps = cm ? cm->partition_to_write_stats.items : NULL;
  for (size_t i = 0; ps && i < cm->partition_to_write_stats.n; i++) *yes = *yes || !strcmp(ps[i].key, "record_index");
  hudi_commit_metadata_free(cm);
  hudi_buf_free(&text);
  return st;
}

static hudi_status index_built_after(bool *after, hudi_table *t, const hudi_timeline *mdt, const char *S,
                                     hudi_error *err) {
  *after = false;
  const hudi_instant *s = hudi_timeline_find(&t->timeline, S);
  const char *done = s && s->completion_time[0] ? s->completion_time : S;
  for (size_t i = 0; i < mdt->count && !*after; i++) {
    const hudi_instant *m = &mdt->items[i];
    if (m->state != HUDI_INSTANT_COMPLETED || !hudi_mdt_is_init_time(m->requested_time) || !m->completion_time[0] ||
        strcmp(m->completion_time, done) <= 0)
      continue;
    HUDI_TRY(writes_record_index(after, t, mdt, m, err));
  }
  hudi_lsm_rows rows = {0};
  hudi_status st = *after ? HUDI_OK : hudi_mdt_archived_load(&rows, t->storage, err);
  for (size_t i = 0; st == HUDI_OK && i < rows.count && !*after; i++)
    *after = hudi_mdt_is_init_time(rows.items[i].instant_time) && strcmp(rows.items[i].completion_time, done) > 0;
  hudi_lsm_rows_free(&rows);
  return st;
}

/* The column (cs_groups > 0) and partition (ps_groups > 0) statistics of
 * a rebuilt MDT, with the file groups the dropped one had. */
static hudi_status rebuild_stats(hudi_table *t, size_t cs_groups, size_t ps_groups, hudi_error *err) {
  char cs[24], ps[24];
  snprintf(cs, sizeof cs, "%zu", cs_groups ? cs_groups : 2);
  snprintf(ps, sizeof ps, "%zu", ps_groups ? ps_groups : 1);
  const hudi_option opts[] = {{"hoodie.metadata.index.column.stats.file.group.count", cs},
                              {"hoodie.metadata.index.partition.stats.file.group.count", ps}};
  return hudi_mdt_add_column_stats(t, opts, 2, cs_groups > 0, ps_groups > 0, err);
}

/* Whether the MDT must be dropped and built again around the restore,
 * as Hudi does (BaseHoodieWriteClient.restoreToSavepoint deletes it when
 * the savepoint is not after its oldest active compaction; the next write
 * bootstraps it): when undoing its compactions after S would need log
 * blocks it no longer reads (archived_past) or no longer has (cleaned
 * after such a compaction), or it holds writes after S it never recorded
 * or recorded in an index built after S. */
static hudi_status mdt_needs_rebuild(bool *rebuild, hudi_table *t, const char *S, hudi_error *err) {
  *rebuild = false;
  hudi_timeline mdt;
  bool has;
  HUDI_TRY(load_mdt(&mdt, &has, t, err));
  if (!has) return HUDI_OK;
  const char *first = NULL, *c0 = NULL;
  for (size_t i = 0; i < mdt.count && !first; i++) {
    const hudi_instant *c = &mdt.items[i];
    if (mdt_compaction_after(c, S)) first = c->requested_time;
    else if (c->state == HUDI_INSTANT_COMPLETED && !strcmp(c->action, "commit"))
      c0 = c->requested_time; /* (the timeline is in requested-time order) */
  }
  hudi_status st = HUDI_OK;
  if (first) st = archived_past(rebuild, t, &mdt, first, c0, err);
  for (size_t i = 0; first && st == HUDI_OK && !*rebuild && i < mdt.count; i++) {
    const hudi_instant *c = &mdt.items[i];
    *rebuild = !strcmp(c->action, "clean") && strcmp(c->requested_time, first) > 0;
  }
  if (st == HUDI_OK && !*rebuild) *rebuild = unrecorded_write_after(t, &mdt, S);
  if (st == HUDI_OK && !*rebuild) st = index_built_after(rebuild, t, &mdt, S, err);
  hudi_timeline_free(&mdt);
  return st;
}

/* A generator past every time of both timelines (MDT-only instants). */
static hudi_status mdt_gen(hudi_instant_gen *gen, hudi_table *t, const hudi_timeline *mdt, hudi_error *err) {
  char unused[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_write_pick_instant(gen, t, unused, err));
  hudi_timeline_observe_times(mdt, gen);
  return HUDI_OK;
}

/* Rolls back (or finishes rolling back) one MDT compaction; *did says
 * whether there was one left. */
static hudi_status mdt_uncompact_one(bool *did, hudi_table *t, const char *S, hudi_error *err) {
  *did = false;
  hudi_timeline mdt;
  bool has;
  HUDI_TRY(load_mdt(&mdt, &has, t, err));
  if (!has) return HUDI_OK;
  hudi_rb_target x = {t->storage, HUDI_MDT_DIR, &mdt, NULL};
  hudi_status st = HUDI_OK;
  /* a pending MDT rollback of a compaction after S first (a restore that stopped) */
  for (size_t i = 0; st == HUDI_OK && !*did && i < mdt.count; i++) {
    const hudi_instant *r = &mdt.items[i];
    if (r->state == HUDI_INSTANT_COMPLETED || strcmp(r->action, "rollback")) continue;
    hudi_rollback_plan *plan = NULL;
    st = hudi_rb_read_plan(&plan, &x, r, err);
    const hudi_rollback_instant *ri = plan ? plan->instant_to_rollback : NULL;
    if (st == HUDI_OK && ri && ri->commit_time && ri->action && !strcmp(ri->action, "commit") &&
        strlen(ri->commit_time) == strlen(S) && strcmp(ri->commit_time, S) > 0) {
      hudi_instant_gen gen;
      char T[HUDI_INSTANT_TIME_MAX], rt[HUDI_INSTANT_TIME_MAX];
      snprintf(T, sizeof T, "%s", ri->commit_time);
      snprintf(rt, sizeof rt, "%s", r->requested_time);
      st = mdt_gen(&gen, t, &mdt, err);
      if (st == HUDI_OK)
        st = hudi_rb_run(NULL, &x, T, "commit", hudi_timeline_find(&mdt, T), rt, plan, false, NULL, NULL, &gen, err);
      *did = true;
    }
    hudi_rollback_plan_free(plan);
  }
  /* else the newest compaction after S */
  const hudi_instant *c = NULL;
  for (size_t i = 0; !*did && i < mdt.count; i++)
    if (mdt_compaction_after(&mdt.items[i], S)) c = &mdt.items[i];
  if (st == HUDI_OK && c) {
    hudi_instant_gen gen;
    char rt[HUDI_INSTANT_TIME_BUF];
    st = mdt_gen(&gen, t, &mdt, err);
    if (st == HUDI_OK) st = hudi_instant_gen_next(&gen, rt, NULL, err);
    if (st == HUDI_OK)
      st = hudi_rb_run(NULL, &x, c->requested_time, "commit", c, rt, NULL, false, NULL, NULL, &gen, err);
    *did = true;
  }
  hudi_timeline_free(&mdt);
  return st;
}

static hudi_status mdt_uncompact(hudi_table *t, const char *S, hudi_error *err) {
  for (int i = 0; i < 100000; i++) {
    bool did;
    HUDI_TRY(mdt_uncompact_one(&did, t, S, err));
    if (!did) return HUDI_OK;
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata table compactions of %s do not go away", t->base_uri);
}

static hudi_status new_plan(hudi_restore_plan **out, hudi_table *t, const char *S, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  const hudi_instant **v = hudi_calloc(tl->count + 1, sizeof *v);
  if (!v) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n = 0;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (strcmp(in->requested_time, S) > 0 && is_write_action(in->requested_action)) v[n++] = in;
  }
  qsort(v, n, sizeof *v, cmp_targets);
  hudi_restore_plan *p = NULL;
  hudi_status st = hudi_restore_plan_new(&p, err);
  hudi_avro_arena *a = p ? &p->doc.arena : NULL;
  if (st == HUDI_OK) {
    p->instants_to_rollback.has = 1;
    p->version = (hudi_tl_int){2, 1};
    st = hudi_tl_strdup(a, S, &p->savepoint_to_restore_timestamp, err);
  }
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    hudi_rollback_instant *ri = NULL;
    st = hudi_tl_list_push(&p->instants_to_rollback, a, sizeof *ri, (void **)&ri, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, v[i]->requested_time, &ri->commit_time, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, v[i]->action, &ri->action, err);
  }
  hudi_free(v);
  if (st != HUDI_OK) {
    hudi_restore_plan_free(p);
    return st;
  }
  *out = p;
  return HUDI_OK;
}

/* The completed rollback instant > r that rolled back `instant`, with its
 * metadata, or NULL: a restore resumed reuses the rollbacks it finished. */
static hudi_status find_done_rollback(hudi_rollback_metadata **out, hudi_table *t, const char *r, const char *instant,
                                      hudi_error *err) {
  *out = NULL;
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "rollback") || strcmp(in->requested_time, r) <= 0)
      continue;
    hudi_buf b;
    hudi_rollback_metadata *m = NULL;
    hudi_status st = read_tl_file(&b, t, in->file_name, err);
    if (st == HUDI_OK)
      st = hudi_rollback_metadata_parse(&m, b.data ? b.data : (const uint8_t *)"", b.len, in->file_name, err);
    hudi_buf_free(&b);
    HUDI_TRY(st);
    char *const *c = m->commits_rollback.items;
    for (size_t k = 0; k < m->commits_rollback.n; k++)
      if (!strcmp(c[k], instant)) {
        *out = m;
        return HUDI_OK;
      }
    hudi_rollback_metadata_free(m);
  }
  return HUDI_OK;
}

/* Deletes the timeline files of every rollback instant requested after
 * restore r started and before it completed (at `done`): the restore's
 * own. Hudi's finishRestore deletes the rollbacks after r. */
static hudi_status drop_rollbacks(hudi_table *t, const char *r, const char *done, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (strcmp(in->action, "rollback") || strcmp(in->requested_time, r) <= 0 || strcmp(in->requested_time, done) >= 0)
      continue;
    /* completed first: a crash in between leaves a pending rollback whose
     * instant is gone, which the next write finishes harmlessly */
    hudi_instant_state states[3] = {HUDI_INSTANT_COMPLETED, HUDI_INSTANT_INFLIGHT, HUDI_INSTANT_REQUESTED};
    for (int k = 0; k < 3; k++) {
      if (states[k] == HUDI_INSTANT_COMPLETED && in->state != HUDI_INSTANT_COMPLETED) continue;
      char name[128], path[200];
      if (hudi_instant_file_name(name, sizeof name, in->requested_time, in->completion_time, "rollback", states[k],
                                 tl->layout >= 2 ? 2 : 1) < 0)
        return hudi_err_set(err, HUDI_ERR_INTERNAL, "rollback file name");
      snprintf(path, sizeof path, "%s/%s", tl->dir, name);
      HUDI_TRY(hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, err));
    }
  }
  return HUDI_OK;
}

typedef struct run_state {
  hudi_rollback_metadata **docs; /* kept until the restore file is written */
  size_t n;
} run_state;

static void run_state_free(run_state *rs) {
  for (size_t i = 0; i < rs->n; i++) hudi_rollback_metadata_free(rs->docs[i]);
  hudi_free(rs->docs);
}

/* Rolls back every instant of the plan (or reuses its finished rollback). */
static hudi_status run_plan(run_state *rs, hudi_restore_result *res, hudi_table *t, const char *r,
                            const hudi_restore_plan *plan, hudi_error *err) {
  size_t n = plan->instants_to_rollback.n;
  const hudi_rollback_instant *ri = plan->instants_to_rollback.items;
  rs->docs = hudi_calloc(n + 1, sizeof *rs->docs);
  if (!rs->docs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const char *T = ri[i].commit_time;
    if (!T) return hudi_err_set(err, HUDI_ERR_CORRUPT, "restore plan %s: instant %zu has no time", r, i);
    hudi_rollback_metadata *m = NULL;
    HUDI_TRY(find_done_rollback(&m, t, r, T, err));
    if (!m) {
      hudi_rollback_result rr;
      HUDI_TRY(hudi_rollback_run_instant(&rr, t, T, err));
      if (!*rr.requested_time) continue; /* nothing of T left */
      HUDI_TRY(find_done_rollback(&m, t, r, T, err));
      if (!m)
        return hudi_err_set(err, HUDI_ERR_INTERNAL, "rollback %s of %s is not on the timeline", rr.requested_time, T);
    }
    rs->docs[rs->n++] = m;
    res->num_instants_rolled_back++;
    res->num_files_deleted += m->total_files_deleted.v;
  }
  return HUDI_OK;
}

static hudi_status build_metadata(hudi_restore_metadata **out, const char *r, int64_t took,
                                  const hudi_restore_plan *plan, const run_state *rs, hudi_error *err) {
  hudi_restore_metadata *m = NULL;
  HUDI_TRY(hudi_restore_metadata_new(&m, err));
  hudi_avro_arena *a = &m->doc.arena;
  hudi_status st = hudi_tl_strdup(a, r, &m->start_restore_time, err);
  m->time_taken_in_millis = hudi_tl_some_long(took > 0 ? took : 0);
  m->instants_to_rollback.has = 1;
  m->hoodie_restore_metadata.has = 1;
  m->restore_instant_info.has = 1;
  m->version = (hudi_tl_int){1, 1};
  const hudi_rollback_instant *ri = plan->instants_to_rollback.items;
  for (size_t i = 0; st == HUDI_OK && i < plan->instants_to_rollback.n; i++) {
    const char *T = ri[i].commit_time;
    hudi_rollback_metadata *rm = NULL;
    for (size_t k = 0; k < rs->n && !rm; k++)
      if (rs->docs[k]->commits_rollback.n && !strcmp(((char **)rs->docs[k]->commits_rollback.items)[0], T))
        rm = rs->docs[k];
    st = hudi_tl_strs_push(&m->instants_to_rollback, a, T, err);
    hudi_rollback_instant *info = NULL;
    if (st == HUDI_OK) st = hudi_tl_list_push(&m->restore_instant_info, a, sizeof *info, (void **)&info, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, T, &info->commit_time, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, ri[i].action ? ri[i].action : "commit", &info->action, err);
    if (st != HUDI_OK || !rm) continue;
    hudi_restore_rollbacks_entry *e = NULL;
    st = hudi_tl_list_push(&m->hoodie_restore_metadata, a, sizeof *e, (void **)&e, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, T, &e->key, err);
    hudi_rollback_metadata *slot = NULL;
    if (st == HUDI_OK) st = hudi_tl_list_push(&e->value, a, sizeof *slot, (void **)&slot, err);
    if (st == HUDI_OK) *slot = *rm; /* shallow: rm's document outlives the write */
  }
  if (st != HUDI_OK) {
    hudi_restore_metadata_free(m);
    return st;
  }
  *out = m;
  return HUDI_OK;
}

/* After a restore the latest completed write is the savepointed commit
 * (Hudi's validateSavepointRestore). */
static hudi_status check_restored(hudi_table *t, const char *S, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (strcmp(in->requested_time, S) > 0 && is_write_action(in->requested_action))
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "restore of table %s to %s left instant %s (%s)", t->base_uri, S,
                          in->requested_time, in->action);
  }
  return HUDI_OK;
}

/* What a completed restore that stopped before dropping its rollback
 * instants left behind goes now. */
static hudi_status finish_completed(hudi_table *t, hudi_error *err) {
  if (t->layout < 2) return HUDI_OK; /* version 6 keeps them (restore_locked) */
  bool dropped = false;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "restore")) continue;
    for (size_t k = 0; k < t->timeline.count && !dropped; k++) {
      const hudi_instant *rb = &t->timeline.items[k];
      dropped = !strcmp(rb->action, "rollback") && strcmp(rb->requested_time, in->requested_time) > 0 &&
                strcmp(rb->requested_time, in->completion_time) < 0;
    }
    if (dropped) {
      char r[HUDI_INSTANT_TIME_MAX], done[HUDI_INSTANT_TIME_MAX];
      snprintf(r, sizeof r, "%s", in->requested_time);
      snprintf(done, sizeof done, "%s", in->completion_time);
      HUDI_TRY(drop_rollbacks(t, r, done, err));
      HUDI_TRY(hudi_write_reload_timeline(t, err));
      return finish_completed(t, err); /* the timeline changed under the loop */
    }
  }
  return HUDI_OK;
}

/* A restore that rolled back metadata compactions brings back the base
 * files of older ones, which the MDT may have archived: they are
 * compacted anew (mdt_compact.h hudi_mdt_compact_refresh,
 * docs/compatibility.md 34), unless the handle's background compaction is
 * pending (a later archival refreshes them then). */
static hudi_status refresh_mdt(hudi_table *t, const char *S, hudi_error *err) {
  hudi_status st = hudi_mdt_compact_refresh(t, NULL, NULL, NULL, err);
  if (st != HUDI_OK)
    hudi_err_context(err, st, "table %s is restored to %s; compacting anew the metadata file groups whose base files "
                     "the metadata table archived", t->base_uri, S);
  return st;
}

static hudi_status restore_locked(hudi_restore_result *res, hudi_table *t, const char *S, hudi_error *err) {
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  HUDI_TRY(finish_completed(t, err));
  if (!hudi_savepoint_find(&t->timeline, S))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "table %s has no completed savepoint %s", t->base_uri, S);
  int64_t start_ms = hudi_clock_realtime_ms(NULL);
  char r[HUDI_INSTANT_TIME_MAX] = "";
  bool requested_only = true, rebuild = false, rebuild_rli = false, rebuild_cs = false, rebuild_ps = false;
  size_t cs_groups = 0, ps_groups = 0;
  hudi_restore_plan *plan = NULL;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (strcmp(in->action, "restore") || in->state == HUDI_INSTANT_COMPLETED) continue;
    snprintf(r, sizeof r, "%s", in->requested_time);
    requested_only = in->state == HUDI_INSTANT_REQUESTED;
  }
  if (*r) { /* a pending restore: finish it, if it is to S */
    HUDI_TRY(read_plan(&plan, t, r, err));
    const char *other = plan->savepoint_to_restore_timestamp;
    if (!other || strcmp(other, S)) {
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "table %s has a pending restore %s to savepoint %s: finish it first (restore to %s)",
                        t->base_uri, r, other ? other : "?", other ? other : "it");
      hudi_restore_plan_free(plan);
      return st;
    }
  } else {
    /* The MDT goes before anything else, as Hudi deletes it; it is built
     * again once the restore has completed (a crash in between leaves the
     * table without one: readers list storage). */
    HUDI_TRY(mdt_needs_rebuild(&rebuild, t, S, err));
    rebuild_rli = rebuild && hudi_write_mdt_has_record_index(t);
    /* Its column and partition statistics are built again too (the other
     * indexes are not: docs/status.md). */
    const char *listed = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
    rebuild_cs = rebuild && hudi_props_list_has(listed, "column_stats");
    rebuild_ps = rebuild && hudi_props_list_has(listed, "partition_stats");
    /* ... with the file groups they had (the columns stay in index.json). */
    if (rebuild_cs) HUDI_TRY(hudi_cs_count_groups(t->storage, "column_stats", &cs_groups, err));
    if (rebuild_ps) HUDI_TRY(hudi_cs_count_groups(t->storage, "partition_stats", &ps_groups, err));
    if (rebuild) HUDI_TRY(hudi_mdt_drop(t, err));
    hudi_instant_gen gen;
    HUDI_TRY(hudi_write_pick_instant(&gen, t, r, err));
    HUDI_TRY(new_plan(&plan, t, S, err));
    hudi_buf avro;
    hudi_buf_init(&avro, HUDI_TL_MAX_FILE);
    st = hudi_restore_plan_to_avro(plan, NULL, &avro, err);
    if (st == HUDI_OK)
      st = hudi_write_instant_file(t, r, "restore", "", HUDI_INSTANT_REQUESTED, avro.data, avro.len, err);
    hudi_buf_free(&avro);
  }
  if (st == HUDI_OK && requested_only)
    st = hudi_write_instant_file(t, r, "restore", "", HUDI_INSTANT_INFLIGHT, "", 0, err);
  if (st == HUDI_OK) st = mdt_uncompact(t, S, err);
  run_state rs = {0};
  if (st == HUDI_OK) st = run_plan(&rs, res, t, r, plan, err);
  hudi_restore_metadata *m = NULL;
  if (st == HUDI_OK) st = build_metadata(&m, r, hudi_clock_realtime_ms(NULL) - start_ms, plan, &rs, err);
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_TL_MAX_FILE);
  if (st == HUDI_OK) st = hudi_restore_metadata_to_avro(m, NULL, &avro, err);
  char done[HUDI_INSTANT_TIME_BUF];
  hudi_instant_gen gen;
  if (st == HUDI_OK) st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK) st = hudi_write_pick_instant(&gen, t, done, err);
  if (st == HUDI_OK)
    st = hudi_write_instant_file(t, r, "restore", done, HUDI_INSTANT_COMPLETED, avro.data, avro.len, err);
  /* Version 6 keeps the rollback instants: their command blocks in log
   * files name them (rollback_log_blocks.h), and a block of an instant
   * that is on no timeline is an unknown writer's. */
  if (st == HUDI_OK && t->layout >= 2) st = drop_rollbacks(t, r, done, err);
  if (st == HUDI_OK) st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK) st = check_restored(t, S, err);
  if (st == HUDI_OK && !rebuild) st = refresh_mdt(t, S, err);
  if (st == HUDI_OK && rebuild) {
    st = hudi_mdt_bootstrap(t, rebuild_rli, err);
    if (st != HUDI_OK)
      hudi_err_context(err, st, "table %s is restored to %s without its metadata table (a write with "
                       "hoodie.metadata.enable=true builds it)", t->base_uri, S);
    if (st == HUDI_OK && (rebuild_cs || rebuild_ps)) st = rebuild_stats(t, cs_groups, ps_groups, err);
    if (st != HUDI_OK && (rebuild_cs || rebuild_ps) && hudi_write_mdt_enabled(t))
      hudi_err_context(err, st, "table %s is restored to %s and its metadata table rebuilt without column "
                       "statistics (a write with hoodie.metadata.index.column.stats.enable=true adds them)",
                       t->base_uri, S);
  }
  if (st == HUDI_OK) {
    res->metadata_table_rebuilt = rebuild;
    snprintf(res->requested_time, sizeof res->requested_time, "%s", r);
    snprintf(res->completion_time, sizeof res->completion_time, "%s", done);
  }
  hudi_buf_free(&avro);
  hudi_restore_metadata_free(m);
  run_state_free(&rs);
  hudi_restore_plan_free(plan);
  return st;
}

hudi_status hudi_table_restore(hudi_restore_result *result, hudi_table *table, const char *savepoint_instant,
                               const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_restore_result dummy;
  hudi_restore_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table || !savepoint_instant || !*savepoint_instant)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_restore needs a table and a savepoint instant");
  if (strlen(savepoint_instant) >= HUDI_INSTANT_TIME_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%.40s' is not an instant time", savepoint_instant);
  /* Version 6: the rollbacks keep no metadata table (rollback.h). */
  const char *mdt6 = table->layout < 2 ? hudi_props_get(&table->props, "hoodie.table.metadata.partitions") : NULL;
  if (mdt6 && *mdt6)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s (table version %d) has a metadata table (%s), which hudi-c cannot update in version "
                        "6; a write with hoodie.metadata.enable=false deletes it",
                        table->base_uri, table->version, mdt6);
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_table_lock_acquire(&lock, table, options, options ? n_options : 0, err));
  hudi_status st = restore_locked(res, table, savepoint_instant, err);
  hudi_table_lock_release(&lock, table);
  return st;
}
