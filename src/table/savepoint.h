/* Savepoints (hudi_table_savepoint, hudi_table_savepoints in
 * hudi/services.h) and what the other services read of them. */
#ifndef HUDI_TABLE_SAVEPOINT_H
#define HUDI_TABLE_SAVEPOINT_H

#include "base/error.h"
#include "table/savepoint_record.h"
#include "table/table.h"

/* Reads the metadata of completed savepoint instant `in` of t. */
HUDI_NODISCARD hudi_status hudi_savepoint_read(hudi_savepoint_metadata **out, hudi_table *t, const hudi_instant *in,
                                               hudi_error *err);

/* The completed savepoint of requested time `instant` on t's timeline, or NULL. */
const hudi_instant *hudi_savepoint_find(const hudi_timeline *tl, const char *instant);

#endif
