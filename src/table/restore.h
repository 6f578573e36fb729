/* Restore to a savepoint (hudi_table_restore in hudi/services.h), as Hudi
 * 1.x's RestorePlanActionExecutor and BaseRestoreActionExecutor:
 *
 *   R.restore.requested   HoodieRestorePlan: every write instant requested
 *                         after savepoint S (pending first, then completed
 *                         ones, newest completion first), savepoint S
 *   R.restore.inflight    empty
 *   MDT compactions       requested after S: rolled back first, newest
 *                         first, each by an MDT rollback instant (Hudi
 *                         restores the MDT to S instead: an MDT restore
 *                         instant and a sync deltacommit)
 *   each instant          rolled back as hudi_rollback_run_instant does it
 *                         (a rollback instant > R, its files deleted, its
 *                         metadata-table deltacommit rolled back)
 *   R_C.restore           HoodieRestoreMetadata: instant -> [its rollback
 *                         metadata]
 *   rollback instants > R deleted from the data timeline (Hudi's
 *                         finishRestore: the restore stands for them)
 *
 * A restore that stopped part way stays pending; calling it again with the
 * same savepoint finishes it from its plan (rollbacks already completed
 * are reused, not repeated). */
#ifndef HUDI_TABLE_RESTORE_H
#define HUDI_TABLE_RESTORE_H

#include "hudi/services.h"

#endif
