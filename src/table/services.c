/* The order in which the writes run the table services (see services.h).
 * Each service adds its one call below. */
#include "table/services.h"

#include "table/lock.h"
#include "table/write.h"

hudi_status hudi_services_before_write(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  (void)t, (void)opts, (void)n, (void)err;
  /* SERVICE-HOOK: rollback of failed writes */
  return HUDI_OK;
}

hudi_status hudi_services_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                       const hudi_write_result *result, hudi_error *err) {
  (void)t, (void)opts, (void)n, (void)result, (void)err;
  /* SERVICE-HOOK: metadata-table compaction and cleaning */
  /* SERVICE-HOOK: inline / async compaction */
  /* SERVICE-HOOK: cleaning */
  /* SERVICE-HOOK: archival */
  return HUDI_OK;
}

hudi_status hudi_write_begin(hudi_table_lock *lock, hudi_table *t, const hudi_option *opts, size_t n,
                             hudi_error *err) {
  HUDI_TRY(hudi_table_lock_acquire(lock, t, opts, n, err));
  /* Under the lock: the timeline as the last writer left it. */
  hudi_status st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK) st = hudi_services_before_write(t, opts, n, err);
  if (st != HUDI_OK) hudi_table_lock_release(lock, t);
  return st;
}

void hudi_write_end(hudi_table_lock *lock, hudi_table *t) { hudi_table_lock_release(lock, t); }
