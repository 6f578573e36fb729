/* The metadata table's secondary indexes (`secondary_index_<name>`
 * partitions, made by Spark SQL's CREATE INDEX), kept current by every
 * write as Hudi 1.1 keeps them (SecondaryIndexKeyUtils,
 * SecondaryIndexRecordGenerationUtils, HoodieMetadataPayload).
 *
 * Records: key escape(value) + "$" + escape(record key), where escape puts
 * a backslash before '\\', '$' and NUL, and a null value is the single
 * character NUL; type 7 with SecondaryIndexMetadata {isDeleted false}.
 * Values are the column's Java toString: strings as they are, integers in
 * decimal, dates as epoch days, timestamps as the raw count of their unit.
 * A key lives in the file group mapRecordKeyToFileGroupIndex gives its
 * prefix escape(value) + "$" (index version V2), so one value's entries
 * share a group.
 *
 * Per commit, for every file group it writes (compaction and clustering
 * change no value and are skipped), the record key -> value map of the
 * group's latest merged slice before the commit is compared with the map
 * after it (the new base file, or the slice with the commit's log files
 * appended), over all touched groups at once: a key whose value changed
 * or that went away deletes its old entry, a new or changed key adds its
 * entry, an unchanged one writes nothing. Additions go to an HFILE data
 * block and deletions to a DELETE block (as Hudi's metadata append handle
 * writes records whose payload is deleted) of one log file per touched
 * file group of the index. Reading whole file groups costs what Hudi's
 * writer pays (its merge handles read them too).
 *
 * Supported: table version 9 (index version V2), one source column of a
 * string, integer, date or timestamp type; Hudi itself refuses decimals,
 * booleans, floats and binaries. Doubles (Java's Double.toString) are
 * refused here. */
#ifndef HUDI_TABLE_MDT_SECONDARY_INDEX_H
#define HUDI_TABLE_MDT_SECONDARY_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "table/commit_metadata.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_write.h"
#include "table/table.h"

typedef struct hudi_si_def {
  char *partition; /* secondary_index_<name> */
  char *column;
} hudi_si_def;

typedef struct hudi_si_defs {
  hudi_si_def *items;
  size_t n;
  /* The table's version. 8 (Hudi 1.0.x, as Spark 1.0.2 writes them): an
   * entry's file group hashes its whole key, null values have no entry,
   * the definitions name no index version, and only string columns are
   * kept (the ones seen written). 9: V2 (hudi_si_key_shard). */
  int table_version;
} hudi_si_defs;

void hudi_si_defs_free(hudi_si_defs *d);

/* The secondary indexes t lists in hoodie.table.metadata.partitions, from
 * its index definitions (reads them, the table's schema and each index's
 * file groups); HUDI_ERR_UNSUPPORTED naming the index and the reason when
 * one cannot be kept (see above). */
HUDI_NODISCARD hudi_status hudi_si_defs_load(hudi_si_defs *out, hudi_table *t, hudi_error *err);

/* Whether t lists any secondary index. */
bool hudi_si_listed(const hudi_table *t);

/* One entry to add (deleted false) or remove. */
typedef struct hudi_si_change {
  const char *partition; /* borrowed from the defs */
  char *key;             /* owned */
  size_t len;
  bool deleted;
} hudi_si_change;

typedef struct hudi_si_changes {
  hudi_si_change *items;
  size_t n, cap;
} hudi_si_changes;

void hudi_si_changes_free(hudi_si_changes *c);

/* The changes of the data commit `instant` (not completed yet; its files
 * are meta's write stats) for every index of defs. */
HUDI_NODISCARD hudi_status hudi_si_commit_changes(hudi_si_changes *out, const hudi_si_defs *defs, hudi_table *t,
                                                  const char *instant, const hudi_commit_metadata *meta,
                                                  hudi_error *err);

/* Escapes value[0, len) into out (null: value NULL) followed by "$" and
 * the escaped record key. */
HUDI_NODISCARD hudi_status hudi_si_key(hudi_buf *out, const char *value, size_t len, const char *record_key,
                                       size_t key_len, hudi_error *err);

/* The file group of an index key among n_groups: Java's
 * mapRecordKeyToFileGroupIndex of its prefix up to and including the first
 * unescaped '$' (index version V2). */
HUDI_NODISCARD hudi_status hudi_si_key_shard(int32_t *out, const char *key, size_t len, size_t n_groups,
                                             hudi_error *err);
/* The same for a table of table_version: version 8 hashes the whole key
 * (Spark 1.0.2's entries; test_mdt_secondary_index_engines.py). */
HUDI_NODISCARD hudi_status hudi_si_key_shard_of_version(int32_t *out, const char *key, size_t len, size_t n_groups,
                                                        int table_version, hudi_error *err);

/* The log content per touched file group of each index: an HFILE data
 * block of the additions (ascending keys), then a DELETE block of the
 * removals. Appended to out (items name their partition and file id). */
HUDI_NODISCARD hudi_status hudi_si_group_blocks_build(hudi_cs_group_blocks *out, hudi_storage *s,
                                                      const hudi_si_changes *c, const hudi_avro_node *schema,
                                                      const char *schema_json, size_t schema_len,
                                                      const hudi_mdt_write_options *o, const char *instant,
                                                      hudi_error *err);

#endif
