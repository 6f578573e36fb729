/* The instants whose metadata-table log blocks a reader merges
 * (HoodieTableMetadataUtil.getValidInstantTimestamps; spec
 * hudi-metadata-table.md §4 "How a reader merges"):
 *   - completed data-table instants;
 *   - completed MDT deltacommits that are not pending on the data timeline
 *     (async indexing; data instants archived since);
 *   - the instants undone by completed data rollbacks newer than the oldest
 *     instant above (commitsRollback of the rollback metadata, or the
 *     plan's instantToRollback when the completed file is empty);
 *   - completed MDT rollback and restore instants;
 *   - completed MDT deltacommits starting with "00000000000000"
 *     (initialisation).
 * Data restores (HoodieRestoreMetadata) are not read: a restored table's
 * MDT is restored with it. */
#ifndef HUDI_TABLE_MDT_INSTANTS_H
#define HUDI_TABLE_MDT_INSTANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "io/storage.h"
#include "table/lsm_timeline.h"
#include "table/timeline.h"

#define HUDI_MDT_SOLO_COMMIT_TIMESTAMP "00000000000000"

typedef struct hudi_mdt_instants {
  char (*items)[HUDI_INSTANT_TIME_MAX]; /* sorted, distinct */
  size_t n, cap;
} hudi_mdt_instants;

/* data_storage is the data table's (rollback files are read from its
 * timeline directory). *out is freed with hudi_mdt_instants_free. */
HUDI_NODISCARD hudi_status hudi_mdt_instants_build(hudi_mdt_instants *out, hudi_storage *data_storage,
                                                   const hudi_timeline *data, const hudi_timeline *mdt,
                                                   hudi_error *err);
void hudi_mdt_instants_free(hudi_mdt_instants *s);

/* Whether ts is an MDT initialisation time: 17 digits starting with
 * HUDI_MDT_SOLO_COMMIT_TIMESTAMP (Java's plus milliseconds). */
bool hudi_mdt_is_init_time(const char *ts);

/* The MDT's archived instants (its LSM history under Hudi's default
 * paths), read through the data table's storage s; out must be zeroed. */
HUDI_NODISCARD hudi_status hudi_mdt_archived_load(hudi_lsm_rows *out, hudi_storage *s, hudi_error *err);
bool hudi_mdt_instants_has(const hudi_mdt_instants *s, const char *instant);

#endif
