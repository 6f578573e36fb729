/* Rollback of a write (hudi-format-core.md §6 "Rollback", fixture
 * mor/avro/v9_nonpartitioned_rollback), as Hudi 1.x's
 * BaseRollbackActionExecutor does it on a timeline-layout-2 table:
 *
 *   R.rollback.requested   HoodieRollbackPlan: one request per file T wrote,
 *                          found from T's markers (.hoodie/.temp/T, direct
 *                          or timeline-server MARKERS files), or, when
 *                          there are none, by listing the table for base
 *                          and log files named with T (in table versions
 *                          8 and 9 a log file carries its own instant);
 *                          empty when T is only requested
 *   R.rollback.inflight    empty
 *   T_C.<action>           deleted first when T had completed
 *   T's files              deleted (never a file named with another instant)
 *   the metadata table     MDT deltacommit T rolled back by an MDT rollback
 *                          instant R (mdt_rollback.h)
 *   T.inflight, T.requested deleted; markers and heartbeat of T deleted
 *   R_C.rollback           HoodieRollbackMetadata
 *
 * Every step can be repeated: a rollback that stopped part way leaves R
 * pending, and the next rollback of T (or hudi_rollback_failed_writes)
 * finishes R from its plan. Readers see T's files only while T is
 * completed, so the table reads as before T at every step.
 *
 * Table version 6 (timeline layout 1, fixture
 * mor/parquet/v6_nonpartitioned_rollback): the same steps with layout-1
 * names (R.rollback, its mtime the completion time), requests without file
 * ids for base files, and T's log appends undone by command blocks, not
 * deleted (rollback_log_blocks.h); no metadata table step. */
#ifndef HUDI_TABLE_ROLLBACK_H
#define HUDI_TABLE_ROLLBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/instant.h"
#include "hudi/services.h"
#include "io/storage.h"
#include "table/rollback_plan.h"
#include "table/table.h"
#include "table/timeline.h"

/* One table a rollback works on: the data table (dir "") or its metadata
 * table (dir ".hoodie/metadata"), through the data table's storage. */
typedef struct hudi_rb_target {
  hudi_storage *s;
  const char *dir;      /* "" or ".hoodie/metadata" */
  const hudi_timeline *tl; /* that table's timeline (layout 2, or 1 for the data table of version 6) */
  hudi_table *table;    /* the data table (dir ""), else NULL */
} hudi_rb_target;

/* Rolls back instant T of x with rollback instant R (requested time
 * rollback_time). in_t is T on x's timeline, or NULL when T's timeline
 * files are gone already (a rollback resumed at its last steps). plan is
 * the plan of a pending R to resume, or NULL to make one (from markers
 * when use_markers, else by listing). mdt_step (may be NULL) runs after
 * T's files are deleted and before T's timeline files are; gen gives the
 * completion time. res (may be NULL) gets the numbers. */
typedef hudi_status (*hudi_rb_step_fn)(void *ctx, hudi_instant_gen *gen, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_rb_run(hudi_rollback_result *res, const hudi_rb_target *x, const char *instant,
                                       const char *action, const hudi_instant *in_t, const char *rollback_time,
                                       const hudi_rollback_plan *plan, bool use_markers, hudi_rb_step_fn mdt_step,
                                       void *mdt_ctx, hudi_instant_gen *gen, hudi_error *err);

/* The plan of pending rollback instant r of x (its .requested file), or
 * NULL in *out when it has none that parses (Hudi skips such plans). */
HUDI_NODISCARD hudi_status hudi_rb_read_plan(hudi_rollback_plan **out, const hudi_rb_target *x,
                                             const hudi_instant *r, hudi_error *err);

/* Rolls back T (any pending write, or a completed one; no ordering checks:
 * hudi_table_rollback makes them) on t and its metadata table, resuming a
 * pending rollback of T when there is one. Reloads t's timeline. */
HUDI_NODISCARD hudi_status hudi_rollback_run_instant(hudi_rollback_result *res, hudi_table *t, const char *instant,
                                                 hudi_error *err);

/* Deletes the temporary files (hudi_storage_is_temp_name) that a writer
 * of `instant` killed before its renames left in directory dir (relative
 * to the storage base): their names hold the instant time (a base file's,
 * a timeline file's). Readers never list them, but nothing else would
 * ever delete them. Used by rollbacks and by retried compactions. A no-op
 * on object stores, which have no temporaries. */
HUDI_NODISCARD hudi_status hudi_delete_instant_temps(hudi_storage *s, const char *dir, const char *instant,
                                                     hudi_error *err);

/* Rolls back what an earlier attempt at instant left on the metadata table
 * (its deltacommit T, pending or completed), so that a retried compaction
 * can write T there again: Hudi's metadata writer rolls back a re-attempted
 * commit's earlier MDT deltacommit the same way. A no-op without one, or
 * without a metadata table. Under the table lock. */
HUDI_NODISCARD hudi_status hudi_rollback_mdt_attempt(hudi_table *t, const char *instant, hudi_error *err);

/* Rolls back failed writes before a write (hoodie.cleaner.policy.failed.writes:
 * EAGER, the default: every pending commit, deltacommit and replacecommit
 * (not compaction, log compaction or clustering); LAZY: those whose
 * heartbeat expired; NEVER: none), newest first, finishing pending
 * rollbacks first; then the metadata table's pending deltacommits whose
 * data instant is not completed, and its pending rollbacks. *n_rolled_back
 * (may be NULL) counts the data instants rolled back. On timeline-layout-1
 * tables (version 6) the data table's only: hudi-c keeps no metadata table
 * there, and log appends are undone by command blocks
 * (rollback_log_blocks.h). */
HUDI_NODISCARD hudi_status hudi_rollback_failed_writes(hudi_table *t, const hudi_option *opts, size_t n,
                                                       size_t *n_rolled_back, hudi_error *err);

#endif
