/* The order in which the writes run the table services (see services.h). */
#include "table/services.h"

#include <string.h>
#include <strings.h>

#include "hudi/services.h"

#include "table/archive.h"
#include "table/clean.h"
#include "table/compact.h"
#include "table/compact_async.h"
#include "table/mdt_bootstrap.h"
#include "table/mdt_drop.h"
#include "table/mdt_compact.h"
#include "table/rollback.h"

#include "table/lock.h"
#include "table/write.h"
#include "table/write_mdt.h"

/* A restore left pending (a crash mid-restore) must be finished first: a
 * write on the half-restored table would be rolled back by it or lost
 * (hudi-write-semantics.md §7.3, as Hudi refuses). */
static hudi_status refuse_pending_restore(const hudi_table *t, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state != HUDI_INSTANT_COMPLETED && strcmp(tl->items[i].action, "restore") == 0)
      return hudi_err_set(err, HUDI_ERR_CONFLICT,
                          "restore %s is pending: run restore to its savepoint again before writing",
                          tl->items[i].requested_time);
  return HUDI_OK;
}

/* The options the services after the commit read, checked before anything
 * is written: a bad value refused after the data commit would leave the
 * write done while the caller is told it failed. */
static hudi_status check_service_options(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  hudi_clean_config cc;
  HUDI_TRY(hudi_clean_config_load(&cc, t, opts, n, err));
  hudi_mdt_services_options so;
  HUDI_TRY(hudi_mdt_services_options_get(&so, t, opts, n, err));
  HUDI_TRY(hudi_archive_check_options(t, opts, n, err));
  int64_t max_delta;
  return hudi_write_int_option(t, opts, n, "hoodie.compact.inline.max.delta.commits", 5, 1, &max_delta, err);
}

hudi_status hudi_services_before_write(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  HUDI_TRY(check_service_options(t, opts, n, err));
  HUDI_TRY(refuse_pending_restore(t, err));
  /* Failed writes first (EAGER): nothing below may plan around them. */
  HUDI_TRY(hudi_rollback_failed_writes(t, opts, n, NULL, err));
  return HUDI_OK;
}

hudi_status hudi_services_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                       const hudi_write_result *result, hudi_error *err) {
  /* Data table: inline compaction when due (hoodie.compact.inline). */
  HUDI_TRY(hudi_compact_after_commit(t, opts, n, result, err));
  HUDI_TRY(hudi_clean_after_commit(t, opts, n, err));
  /* Metadata table: clean, then compact when due (Hudi's performTableServices
   * after every MDT commit; once here covers the data compaction's and
   * clean's MDT updates too). */
  HUDI_TRY(hudi_mdt_table_services(t, opts, n, NULL, NULL, err));
  /* Archival last: it never passes what cleaning and compaction need.
   * Its failure fails the (committed) write, unless
   * hoodie.fail.on.timeline.archiving is false, as in Hudi. */
  {
    hudi_archive_result ar;
    hudi_status st = hudi_archive_run(&ar, t, opts, n, true, err);
    const char *fail = hudi_write_option(t, opts, n, "hoodie.fail.on.timeline.archiving");
    if (st != HUDI_OK && fail && !strcasecmp(fail, "false")) {
      hudi_error_clear(err);
      st = HUDI_OK;
    }
    HUDI_TRY(st);
  }
  return HUDI_OK;
}

/* Whether the write builds the MDT, adds its record index
 * (mdt_bootstrap.h) or drops indexes (mdt_drop.h), by the handle's view
 * of the table. */
static bool mdt_build_requested(const hudi_table *t, const hudi_option *opts, size_t n) {
  return (hudi_mdt_bootstrap_requested(opts, n) && !hudi_write_mdt_enabled(t)) ||
         hudi_mdt_add_record_index_requested(t, opts, n) || hudi_mdt_add_column_stats_requested(t, opts, n, NULL, NULL) ||
         hudi_mdt_drop_indexes_requested(t, opts, n);
}

hudi_status hudi_write_begin(hudi_table_lock *lock, hudi_table *t, const hudi_option *opts, size_t n,
                             hudi_error *err) {
  /* The write's own options that nothing else reads before it begins. */
  HUDI_TRY(hudi_write_mdt_check_options(t, opts, n, err));
  HUDI_TRY(hudi_mdt_check_index_options(t, opts, n, err));
  /* A background compaction's error first; its commit step goes first. */
  HUDI_TRY(hudi_compact_async_before_write(t, err));
  /* Turning the metadata table off, building it or adding its record
   * index: no background work of this handle may still read or write it
   * (mdt_drop.h, mdt_bootstrap.h). */
  bool waited = hudi_mdt_drop_requested(opts, n) || mdt_build_requested(t, opts, n);
  if (waited) HUDI_TRY(hudi_table_wait_services(t, err));
  HUDI_TRY(hudi_table_lock_acquire(lock, t, opts, n, err));
  /* The lock's refresh may show a build due that the handle's stale view
   * hid: the services are joined (outside the lock, which their commit
   * steps take) and the lock taken again. */
  if (!waited && mdt_build_requested(t, opts, n)) {
    bool changed = lock->mdt_changed;
    hudi_table_lock_release(lock, t);
    HUDI_TRY(hudi_table_wait_services(t, err));
    HUDI_TRY(hudi_table_lock_acquire(lock, t, opts, n, err));
    lock->mdt_changed = lock->mdt_changed || changed;
  }
  /* Under the lock: the timeline as the last writer left it. The lock
   * refreshed the metadata partitions (mdt_drop.h): a change is checked
   * again. */
  hudi_status st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK && lock->mdt_changed) st = hudi_write_check_table_mdt(t, opts, n, err);
  /* hoodie.metadata.enable=false: the metadata table goes first, before
   * the failed writes' rollbacks would update it (mdt_drop.h). */
  if (st == HUDI_OK) st = hudi_mdt_drop_if_requested(t, opts, n, err);
  if (st == HUDI_OK) st = hudi_services_before_write(t, opts, n, err);
  /* Indexes turned off: dropped after the rollbacks (which update them),
   * as Hudi drops them when its metadata writer opens (mdt_drop.h). */
  if (st == HUDI_OK) st = hudi_mdt_drop_indexes_if_requested(t, opts, n, err);
  /* hoodie.metadata.enable=true on a table without one: built now, after
   * the rollbacks, before the write plans anything; likewise a record index
   * asked for and missing (mdt_bootstrap.h). */
  if (st == HUDI_OK) st = hudi_mdt_bootstrap_if_requested(t, opts, n, err);
  if (st != HUDI_OK) hudi_table_lock_release(lock, t);
  return st;
}

void hudi_write_end(hudi_table_lock *lock, hudi_table *t) { hudi_table_lock_release(lock, t); }
