/* The metadata table's side of a rollback (Hudi 1.x
 * HoodieBackedTableMetadataWriter.update(HoodieRollbackMetadata)): when
 * the MDT has deltacommit T (pending or completed), the MDT's own write
 * client rolls it back with a rollback instant of the same time R as the
 * data rollback: R.rollback.requested (a plan listing T's MDT log and
 * base files, one request per file, fileId and latestBaseInstant "", as
 * in fixture mor/avro/v9_nonpartitioned_rollback), R.rollback.inflight,
 * the files deleted, T's MDT timeline files deleted, R_C.rollback. The
 * data rollback completes after it, so readers never merge T's MDT log
 * blocks. */
#ifndef HUDI_TABLE_MDT_ROLLBACK_H
#define HUDI_TABLE_MDT_ROLLBACK_H

#include <stddef.h>

#include "base/error.h"
#include "base/instant.h"
#include "io/storage.h"
#include "table/timeline.h"

#define HUDI_MDT_DIR ".hoodie/metadata"

/* Rolls back MDT deltacommit `instant` with rollback instant rollback_time
 * (finishing a pending MDT rollback of that time when there is one). A
 * no-op when the MDT has neither. HUDI_ERR_UNSUPPORTED when a completed
 * MDT compaction already holds T (Hudi: "restore" territory). gen
 * observes the MDT completion time. */
HUDI_NODISCARD hudi_status hudi_mdt_rollback(hudi_storage *s, const char *instant, const char *rollback_time,
                                             hudi_instant_gen *gen, hudi_error *err);

/* HUDI_ERR_UNSUPPORTED (as hudi_mdt_rollback would fail) when a completed
 * MDT compaction already holds MDT deltacommit `instant`; checked before
 * a rollback deletes anything, so that a refused rollback leaves the
 * table as it was. HUDI_OK without an MDT. */
HUDI_NODISCARD hudi_status hudi_mdt_rollback_check(hudi_storage *s, const char *instant, hudi_error *err);

/* The MDT's own failed writes: pending deltacommits whose instant is not
 * on the data timeline at all (pending data instants are rolled back
 * with their MDT deltacommit by the data rollback), and pending MDT
 * rollbacks no data rollback owns, each rolled back / finished with a new
 * instant from gen. Initialisation instants (00000000000000...) are left
 * alone. A no-op without an MDT. *n (may be NULL) counts them. */
HUDI_NODISCARD hudi_status hudi_mdt_rollback_failed(hudi_storage *s, const hudi_timeline *data, hudi_instant_gen *gen,
                                                    size_t *n, hudi_error *err);

#endif
