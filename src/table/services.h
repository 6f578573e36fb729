/* The hooks through which the writes run the table services: rollback of
 * failed writes before a write starts, and the inline/automatic services
 * (compaction, cleaning, metadata-table services, archival) after a
 * commit completes. */
#ifndef HUDI_TABLE_SERVICES_H
#define HUDI_TABLE_SERVICES_H

#include "base/error.h"
#include "hudi/write.h"
#include "table/lock.h"
#include "table/table.h"

/* Every write runs between these two: hudi_write_begin takes the table
 * lock (lock.h), reloads the timeline and runs hudi_services_before_write;
 * on error nothing is held. hudi_write_end releases the lock; call it after
 * hudi_services_after_commit, on every path once begin succeeded. Services
 * run from inside a write (after_commit) already hold the lock; services
 * called on their own (hudi_table_compact, ...) take it with these too. */
HUDI_NODISCARD hudi_status hudi_write_begin(hudi_table_lock *lock, hudi_table *t, const hudi_option *opts, size_t n,
                                            hudi_error *err);
void hudi_write_end(hudi_table_lock *lock, hudi_table *t);

/* Before a write plans anything: rolls back failed (pending, abandoned)
 * writes. */
HUDI_NODISCARD hudi_status hudi_services_before_write(hudi_table *t, const hudi_option *opts, size_t n,
                                                      hudi_error *err);

/* After the write's commit completed (result filled). An error here is
 * returned to the caller, but the commit stays completed. */
HUDI_NODISCARD hudi_status hudi_services_after_commit(hudi_table *t, const hudi_option *opts, size_t n,
                                                      const hudi_write_result *result, hudi_error *err);

#endif
