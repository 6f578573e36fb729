/* The order in which the writes run the table services (see services.h).
 * Each service adds its one call below. */
#include "table/services.h"

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
