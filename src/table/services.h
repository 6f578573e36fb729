/* The hooks through which the writes run the table services: rollback of
 * failed writes before a write starts, and the inline/automatic services
 * (compaction, cleaning, metadata-table services, archival) after a
 * commit completes. */
#ifndef HUDI_TABLE_SERVICES_H
#define HUDI_TABLE_SERVICES_H

#include "base/error.h"
#include "hudi/write.h"
#include "table/table.h"

/* Before a write plans anything: rolls back failed (pending, abandoned)
 * writes. */
HUDI_NODISCARD hudi_status hudi_services_before_write(hudi_table *t, const hudi_option *opts, size_t n,
                                                      hudi_error *err);

/* After the write's commit completed (result filled). An error here is
 * returned to the caller, but the commit stays completed. */
HUDI_NODISCARD hudi_status hudi_services_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                                      const hudi_write_result *result, hudi_error *err);

#endif
