/* The file groups pending clusterings will rewrite, for writes that must
 * not update them (Hudi's default SparkRejectUpdateStrategy: an update to
 * a file group a pending clustering reads would be lost when the
 * clustering completes and replaces the group).
 *
 * A pending clustering is a `clustering` instant (timeline layout 2) or,
 * on layout 1 (table version 6, no clustering action), a `replacecommit`
 * whose requested file holds a clustering plan. */
#ifndef HUDI_TABLE_CLUSTERING_PENDING_H
#define HUDI_TABLE_CLUSTERING_PENDING_H

#include <stdbool.h>

#include "base/error.h"
#include "table/table.h"
#include "table/timeline.h"

/* Whether pending instant in of t is a clustering. On layout 1 the
 * requested file is read: *out is true when it holds a clustering plan or
 * operationType CLUSTER, and also when it is present but cannot be parsed
 * (a plan of a newer writer is not taken for a write's, whose rollback
 * would destroy it); a storage error other than a missing file is
 * returned. */
HUDI_NODISCARD hudi_status hudi_clustering_is_pending(bool *out, hudi_table *t, const hudi_instant *in,
                                                      hudi_error *err);

/* HUDI_ERR_CONFLICT naming the clustering when file group (partition,
 * file_id) is an input of a pending clustering of t; HUDI_OK otherwise.
 * Reads each pending clustering's plan once per call. */
typedef struct hudi_clustering_fgs hudi_clustering_fgs;
HUDI_NODISCARD hudi_status hudi_clustering_fgs_load(hudi_clustering_fgs **out, hudi_table *t, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_clustering_fgs_check(const hudi_clustering_fgs *f, const char *partition,
                                                     const char *file_id, const char *table_uri, hudi_error *err);
void hudi_clustering_fgs_free(hudi_clustering_fgs *f);

#endif
