/* Building the metadata table (MDT) of an existing data table that has
 * none, as Apache Hudi's writers do when hoodie.metadata.enable is true
 * (HoodieBackedTableMetadataWriter.initializeFromFilesystem): a Spark
 * table written with the metadata table off, or a table whose MDT a write
 * turned off (mdt_drop.h), gets `files` and `record_index` back, so its
 * readers stop listing storage and keyed writes stop reading footers.
 *
 * A write whose own options say hoodie.metadata.enable=true on a table of
 * version 8 or 9 that lists no metadata partitions, under the write lock
 * after the failed writes are rolled back (hudi_write_begin):
 *   1. refuses (HUDI_ERR_CONFLICT, nothing changed) while an instant of the
 *      data timeline is pending, as Java skips initialisation then;
 *   2. deletes a .hoodie/metadata left unlisted (a bootstrap or drop cut
 *      short);
 *   3. lists storage: every committed base and log file of every partition
 *      (the file-system view's rules, older slices included), and reads the
 *      record keys of each file group's latest slice (base and logs merged);
 *   4. initialises the MDT as a create does (mdt_init.h: files at
 *      00000000000000000, record_index at ...001), then writes one more
 *      initialisation deltacommit, ...002 (...001 without a record index):
 *      `files` gets every file with its size, each record-index shard its
 *      keys as a base HFile; each key's instantTime is its file slice's base
 *      instant. Readers merge every completed MDT deltacommit whose time
 *      starts with 00000000000000, whatever the data timeline holds;
 *   5. lists the partitions in hoodie.properties (and, on version 9 with a
 *      record index, adds its entry to .hoodie/.index_defs/index.json).
 * A crash before 5 leaves an unlisted MDT that readers ignore and the next
 * bootstrap deletes. hoodie.metadata.record.index.enable=false (the write's
 * options, else the table's) builds `files` alone.
 *
 * Java writes the contents in the initialisation deltacommits themselves
 * (bulk-inserted base files); hudi-c's third deltacommit carries them as
 * its commits carry theirs (a `files` log block, record-index base files),
 * to the same merged records. Version 6 (no MDT writer): refused. */
#ifndef HUDI_TABLE_MDT_BOOTSTRAP_H
#define HUDI_TABLE_MDT_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "hudi/table.h"
#include "table/table.h"

/* Whether the write's own options say hoodie.metadata.enable=true. */
bool hudi_mdt_bootstrap_requested(const hudi_option *opts, size_t n);

/* Steps 1-5 above when requested and t has no MDT; otherwise nothing.
 * Under the write lock, the timeline reloaded, failed writes rolled back. */
HUDI_NODISCARD hudi_status hudi_mdt_bootstrap_if_requested(hudi_table *t, const hudi_option *opts, size_t n,
                                                           hudi_error *err);

/* Steps 1-5 unconditionally, on a table without an MDT (a restore that
 * dropped it, restore.h): with the record index when rli. */
HUDI_NODISCARD hudi_status hudi_mdt_bootstrap(hudi_table *t, bool rli, hudi_error *err);

#endif
