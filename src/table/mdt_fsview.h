/* The read side's use of the metadata table (MDT): the file-system view
 * from its `files` partition instead of a storage listing, and file-slice
 * pruning by its `column_stats` partition.
 *
 * When the view comes from the MDT (hudi_fsview_mdt_usable):
 *   - the data table lists `files` in hoodie.table.metadata.partitions and
 *     the MDT has file groups for it (Java's isMetadataTableAvailable);
 *     read.c also requires table version >= 8, as hudi-rs 0.5 does (Java
 *     reads version 6 MDTs too; we have no version 6 table with an MDT to
 *     test against);
 *   - the MDT is in sync: it has the completed deltacommit of the data
 *     timeline's latest completed instant that changes files (commit,
 *     deltacommit, replacecommit, clean, rollback, restore; not savepoint
 *     or indexing), or for a data rollback (restore) of a write the MDT
 *     had, its own rollback (restore) at that time. Hudi 1.x writes the
 *     MDT's instant of every such data instant before the data instant
 *     completes, so an MDT behind the data timeline means a writer skipped
 *     it (e.g. ran with hoodie.metadata.enable=false); Java 1.x trusts the
 *     table config there, we fall back to listing instead.
 * The partitions and files come from one lookup of __all_partitions__ and
 * one batched lookup of every partition (base HFile and valid log blocks
 * merged, mdt_files.h); the list then goes through the same visibility
 * rules as a listing (hudi_fsview_build_from_files): files of instants
 * that are not completed, or were rolled back, stay invisible. */
#ifndef HUDI_TABLE_MDT_FSVIEW_H
#define HUDI_TABLE_MDT_FSVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "expr/pred.h"
#include "table/fsview.h"
#include "table/mdt_reader.h"

/* Whether the MDT m can give the view; when not, why (into reason, cap
 * bytes). */
bool hudi_fsview_mdt_usable(const hudi_mdt *m, char *reason, size_t cap);

/* Builds the view of m's data table from m's files partition. stats
 * (nullable) is added to. */
HUDI_NODISCARD hudi_status hudi_fsview_build_from_mdt(hudi_fsview *out, hudi_mdt *m, const hudi_timeline *timeline,
                                                      const hudi_fsview_options *opts, hudi_mdt_read_stats *stats,
                                                      hudi_error *err);

/* How hudi_fsview_build_latest chose its source, and what the caller asks
 * of it. Zero-initialised, it asks for nothing. */
typedef struct hudi_view_source {
  const hudi_timeline *timeline; /* in: the timeline to slice by; NULL: t's */
  bool list_only;                /* in: list storage (hoodie.metadata.enable=false) */
  bool keep_mdt;                 /* in: hand the acquired MDT handle back in mdt */
  hudi_mdt *mdt;                 /* out: with keep_mdt, the handle when one was
                                  * acquired, even when the view was listed;
                                  * the caller releases it (hudi_mdt_release) */
  bool from_mdt;                 /* out: the view is (or was being) built from the MDT */
  char note[256];                /* out: why storage was listed instead */
} hudi_view_source;

/* The view of t's latest files: from t's MDT when t has one (table version
 * 8 or later) that can give it (hudi_fsview_mdt_usable), as Java's readers,
 * cleaner and compaction planner use the MDT-backed view, else from a
 * storage listing. Reads, cleaning, compaction planning and running and
 * partition stats all take it. Within a write the write's shared handle is
 * used (mdt_reader.h; the acquire may refresh it: call it where no
 * handle's view is held). An MDT that cannot be opened (properties,
 * timeline) is not used, as Java's HoodieBackedTableMetadata.initIfNeeded
 * and hudi-rs do; its records failing later is an error in all three.
 * src (nullable) gives the options and receives the choice. */
HUDI_NODISCARD hudi_status hudi_fsview_build_latest(hudi_fsview *out, hudi_table *t, const hudi_fsview_options *opts,
                                                    hudi_view_source *src, hudi_error *err);

/* One file slice to test: its partition and the names of its files (base
 * and logs). */
typedef struct hudi_cs_slice {
  const char *partition;
  const hudi_file_slice *slice;
  bool base_only; /* read-optimized: only the base file's rows are read */
} hudi_cs_slice;

/* Column-stats pruning: might[i] is set false when the column_stats
 * records of every file of slices[i] (base file and log files; ranges of a
 * slice's files are combined, since a merged row comes from one of them)
 * show that no row can make pred TRUE. A slice keeps might[i] true when a
 * file lacks a record for a filtered column (or it is a tombstone), when
 * a bound's type does not match the column's (only integers, dates,
 * timestamps of the column's unit, floats, strings, binaries and booleans
 * are compared), or when the MDT has no column_stats partition. One
 * batched lookup of every (file, column) key. */
HUDI_NODISCARD hudi_status hudi_mdt_prune_slices(hudi_mdt *m, const hudi_pred *pred, const hudi_cs_slice *slices,
                                                 size_t n, bool *might, hudi_mdt_read_stats *stats, hudi_error *err);

#endif
