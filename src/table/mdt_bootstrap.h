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
 * to the same merged records. Version 6 (no MDT writer): refused.
 *
 * A record index added to an existing MDT: a write whose options (or the
 * handle's) say hoodie.metadata.record.index.enable=true on a table of
 * version 8 or 9 whose MDT lacks `record_index` (a Spark table with its
 * default metadata table: files, column_stats, partition_stats; a hudi-c
 * table created with record_index_enabled=false) gets it as Java's writers
 * initialise a partition enabled later (initializeFromFilesystem for the
 * partitions not in the table config): under the same lock and refusal,
 * the keys of every latest slice read through the MDT's own `files`; the
 * partition initialised empty at the first initialisation time the MDT
 * has not used (00000000000000NNN: Java's generateUniqueInstantTime), the
 * keys as base HFiles at the next one, then `record_index` listed (and on
 * version 9 its index.json entry). The other partitions are untouched. A
 * crash before the listing leaves an unlisted `record_index` directory
 * that readers ignore: the next attempt deletes the initialisation
 * instants its files name and any pending ones, then the directory, and
 * starts again; a failed add does the same at once.
 *
 * Column statistics added to an existing MDT: a write whose options (or
 * the handle's) say hoodie.metadata.index.column.stats.enable=true on a
 * table of version 8 or 9 whose MDT lacks `column_stats` (hudi-c's
 * default tables, Spark tables written with column stats off) gets it,
 * and on a partitioned table `partition_stats` too unless
 * hoodie.metadata.index.partition.stats.enable=false (that option =true
 * alone adds partition_stats beside column_stats it has), as Java's
 * writers initialise index partitions enabled later: under the same lock
 * and refusal, after a bootstrap or record-index add of the same write,
 * each partition initialised empty at the next free initialisation time
 * (column_stats first, its index definition written with an empty
 * column list as a create writes it; file groups from the
 * ...file.group.count options, 2 and 1), then one more initialisation
 * deltacommit holding the records of every file the MDT's `files` lists
 * (every slice's base and log files, as Java's initialisation indexes
 * its whole listing; partition stats over the latest merged slices),
 * their columns chosen from the writer schema of the latest completed
 * write as a commit chooses them and written into the definition, then
 * the listing. A crash or failure before the listing is undone as the
 * record index's is. */
#ifndef HUDI_TABLE_MDT_BOOTSTRAP_H
#define HUDI_TABLE_MDT_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "hudi/table.h"
#include "table/table.h"

/* Whether the write's own options say hoodie.metadata.enable=true. */
bool hudi_mdt_bootstrap_requested(const hudi_option *opts, size_t n);

/* Steps 1-5 above when requested and t has no MDT, else the record index
 * added when requested and missing; then column stats when requested and
 * missing; otherwise nothing.
 * Under the write lock, the timeline reloaded, failed writes rolled back. */
HUDI_NODISCARD hudi_status hudi_mdt_bootstrap_if_requested(hudi_table *t, const hudi_option *opts, size_t n,
                                                           hudi_error *err);

/* Whether the write's or the handle's options ask for a record index that
 * t's MDT lacks (see above). */
bool hudi_mdt_add_record_index_requested(const hudi_table *t, const hudi_option *opts, size_t n);

/* Adds `record_index` to t's MDT (see above), unconditionally. */
HUDI_NODISCARD hudi_status hudi_mdt_add_record_index(hudi_table *t, hudi_error *err);

/* Whether the write's or the handle's options ask for column stats
 * (*cs) or partition stats (*ps) that t's MDT lacks (see above). */
bool hudi_mdt_add_column_stats_requested(const hudi_table *t, const hudi_option *opts, size_t n, bool *cs, bool *ps);

/* Adds column_stats (cs) and/or partition_stats (ps) to t's MDT (see
 * above), unconditionally. */
HUDI_NODISCARD hudi_status hudi_mdt_add_column_stats(hudi_table *t, const hudi_option *opts, size_t n, bool cs, bool ps,
                                                     hudi_error *err);

/* Steps 1-5 unconditionally, on a table without an MDT (a restore that
 * dropped it, restore.h): with the record index when rli. */
HUDI_NODISCARD hudi_status hudi_mdt_bootstrap(hudi_table *t, bool rli, hudi_error *err);

#endif
