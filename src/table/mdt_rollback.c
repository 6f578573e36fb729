/* Rolling back the metadata table's deltacommits (mdt_rollback.h). The
 * MDT's files have no markers (hudi-c writes none for them, as
 * mdt_write.h says), so its plans come from listing. */
#include "table/mdt_rollback.h"

#include <stdio.h>
#include <string.h>

#include "table/mdt_instants.h"
#include "table/rollback.h"

/* HoodieBackedTableMetadataWriter.validateRollback: a deltacommit that a
 * completed MDT compaction already folded into base files cannot be taken
 * out by deleting its log files. */
static hudi_status check_compaction(const hudi_timeline *tl, const hudi_instant *in, hudi_error *err) {
  if (in->state != HUDI_INSTANT_COMPLETED) return HUDI_OK;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *c = &tl->items[i];
    if (c->state != HUDI_INSTANT_COMPLETED || strcmp(c->action, "commit") != 0) continue;
    if (strlen(c->requested_time) == strlen(in->requested_time) &&
        strcmp(in->completion_time, c->requested_time) <= 0)
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "metadata-table deltacommit %s was compacted by %s; rolling back data instant %s would "
                          "need a restore",
                          in->requested_time, c->requested_time, in->requested_time);
  }
  return HUDI_OK;
}

static hudi_status run_one(hudi_storage *s, const hudi_timeline *tl, const char *instant, const char *rollback_time,
                           hudi_instant_gen *gen, hudi_error *err) {
  hudi_rb_target x = {s, HUDI_MDT_DIR, tl, NULL};
  const hudi_instant *in_t = hudi_timeline_find(tl, instant);
  if (in_t && strcmp(in_t->requested_action, "deltacommit") != 0) in_t = NULL;
  const hudi_instant *r = hudi_timeline_find(tl, rollback_time);
  if (r && strcmp(r->action, "rollback") != 0) r = NULL;
  if (r && r->state == HUDI_INSTANT_COMPLETED) return HUDI_OK; /* done before */
  hudi_rollback_plan *plan = NULL;
  if (r) HUDI_TRY(hudi_rb_read_plan(&plan, &x, r, err));
  if (plan && strcmp(plan->instant_to_rollback->commit_time, instant) != 0) {
    hudi_status bad = hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata-table rollback %s rolls back %s, not %s",
                                   rollback_time, plan->instant_to_rollback->commit_time, instant);
    hudi_rollback_plan_free(plan);
    return bad;
  }
  if (!in_t && !plan) return HUDI_OK; /* T never reached the MDT */
  hudi_status st = in_t ? check_compaction(tl, in_t, err) : HUDI_OK;
  const char *action = in_t && in_t->state == HUDI_INSTANT_COMPLETED ? in_t->action : "deltacommit";
  if (st == HUDI_OK) st = hudi_rb_run(NULL, &x, instant, action, in_t, rollback_time, plan, false, NULL, NULL, gen, err);
  hudi_rollback_plan_free(plan);
  return st;
}

hudi_status hudi_mdt_rollback(hudi_storage *s, const char *instant, const char *rollback_time, hudi_instant_gen *gen,
                              hudi_error *err) {
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  HUDI_TRY(hudi_timeline_load(&tl, s, HUDI_MDT_DIR, 2, err));
  hudi_timeline_observe_times(&tl, gen);
  hudi_status st = tl.count ? run_one(s, &tl, instant, rollback_time, gen, err) : HUDI_OK;
  hudi_timeline_free(&tl);
  return st;
}

hudi_status hudi_mdt_rollback_check(hudi_storage *s, const char *instant, hudi_error *err) {
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  HUDI_TRY(hudi_timeline_load(&tl, s, HUDI_MDT_DIR, 2, err));
  const hudi_instant *in = hudi_timeline_find(&tl, instant);
  hudi_status st = in && !strcmp(in->requested_action, "deltacommit") ? check_compaction(&tl, in, err) : HUDI_OK;
  hudi_timeline_free(&tl);
  return st;
}

/* Pending data instants are the data rollback's to undo (with their MDT
 * deltacommit), or belong to a live writer; completed ones stay. */
static bool on_data_timeline(const hudi_timeline *data, const char *instant) {
  return hudi_timeline_find(data, instant) != NULL;
}

/* Phase 1 finishes the MDT's pending rollbacks, phase 2 rolls back its
 * pending deltacommits (on the timeline as phase 1 left it). */
static hudi_status phase(hudi_storage *s, const hudi_timeline *tl, const hudi_timeline *data, hudi_instant_gen *gen,
                         bool rollbacks, size_t *n, hudi_error *err) {
  hudi_rb_target x = {s, HUDI_MDT_DIR, tl, NULL};
  hudi_status st = HUDI_OK;
  for (size_t i = tl->count; st == HUDI_OK && i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED) continue;
    if (rollbacks && !strcmp(in->action, "rollback")) {
      hudi_rollback_plan *plan = NULL;
      st = hudi_rb_read_plan(&plan, &x, in, err);
      if (st == HUDI_OK && plan) {
        st = run_one(s, tl, plan->instant_to_rollback->commit_time, in->requested_time, gen, err);
        if (st == HUDI_OK) (*n)++;
      }
      hudi_rollback_plan_free(plan);
    } else if (!rollbacks && !strcmp(in->requested_action, "deltacommit") &&
               strncmp(in->requested_time, HUDI_MDT_SOLO_COMMIT_TIMESTAMP, strlen(HUDI_MDT_SOLO_COMMIT_TIMESTAMP)) != 0 &&
               !on_data_timeline(data, in->requested_time)) {
      char r[HUDI_INSTANT_TIME_BUF];
      st = hudi_instant_gen_next(gen, r, NULL, err);
      if (st == HUDI_OK) st = run_one(s, tl, in->requested_time, r, gen, err);
      if (st == HUDI_OK) (*n)++;
    }
  }
  return st;
}

hudi_status hudi_mdt_rollback_failed(hudi_storage *s, const hudi_timeline *data, hudi_instant_gen *gen, size_t *n,
                                     hudi_error *err) {
  size_t done = 0;
  if (n) *n = 0;
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  HUDI_TRY(hudi_timeline_load(&tl, s, HUDI_MDT_DIR, 2, err));
  hudi_timeline_observe_times(&tl, gen);
  hudi_status st = phase(s, &tl, data, gen, true, &done, err);
  if (st == HUDI_OK && done) { /* phase 1 changed the timeline */
    hudi_timeline_free(&tl);
    memset(&tl, 0, sizeof tl);
    st = hudi_timeline_load(&tl, s, HUDI_MDT_DIR, 2, err);
  }
  if (st == HUDI_OK) st = phase(s, &tl, data, gen, false, &done, err);
  hudi_timeline_free(&tl);
  if (n) *n = done;
  return st;
}
