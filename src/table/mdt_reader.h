/* Reading Hudi's metadata table (MDT): the MOR table at
 * <base>/.hoodie/metadata whose file groups hold HFile base files and log
 * files of HFILE_DATA and DELETE blocks (spec hudi-metadata-table.md §1, §4).
 *
 * The MDT is opened as a table of its own; its file-system view gives each
 * MDT partition's file groups (sorted by file id) and their latest slices.
 * A log block counts only when its INSTANT_TIME is valid for the data table
 * (HoodieTableMetadataUtil.getValidInstantTimestamps):
 *   - completed data-table instants;
 *   - completed MDT deltacommits that are not pending on the data timeline
 *     (async indexing, data instants archived since);
 *   - instants rolled back by a completed data rollback newer than the
 *     oldest valid instant;
 *   - completed MDT rollback and restore instants;
 *   - MDT deltacommits starting with "00000000000000" (initialisation).
 * So an MDT deltacommit whose data commit has not completed (the MDT is
 * written first) is ignored.
 *
 * Merging a key follows Java's file-group reader: the log blocks are merged
 * first, in order (HFILE records combine with hudi_mdt_record_combine, a
 * DELETE removes the key), then the result combines with the base HFile's
 * record. A handle is not thread-safe. */
#ifndef HUDI_TABLE_MDT_READER_H
#define HUDI_TABLE_MDT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hfile/hfile.h"
#include "table/fsview.h"
#include "table/mdt_instants.h"
#include "table/mdt_payload.h"
#include "table/table.h"

typedef struct hudi_mdt hudi_mdt;

#define HUDI_MDT_DIR ".hoodie/metadata"

/* What reads cost, cumulative (callers may reset it). */
typedef struct hudi_mdt_read_stats {
  uint64_t base_files_opened;
  uint64_t base_data_blocks_read; /* HFile data blocks of base files */
  uint64_t base_bytes_read;       /* bytes fetched from base HFiles (trailer and index included) */
  uint64_t log_files_opened;
  uint64_t log_blocks_merged;     /* HFILE/DELETE blocks applied */
  uint64_t log_blocks_skipped;    /* blocks of invalid instants, corrupt or other types */
  uint64_t log_bytes_read;        /* bytes fetched from log files (whole files, or a lookup's ranges) */
} hudi_mdt_read_stats;

/* Opens the MDT of data table t (borrowed: it must outlive the handle):
 * its hoodie.properties and timeline, its file-system view, and the valid
 * instants. No MDT directory is HUDI_ERR_NOT_FOUND. *out is owned by the
 * caller (hudi_mdt_free). */
HUDI_NODISCARD hudi_status hudi_mdt_open(hudi_mdt **out, hudi_table *t, hudi_error *err);
void hudi_mdt_free(hudi_mdt *m);

/* A handle for another thread over the same state as `of` (its MDT table,
 * view and valid instants, borrowed read-only: `of` must outlive it and
 * not be refreshed meanwhile). The payload schema cache, the only part a
 * lookup or merge changes, is `of`'s (its first handle's), shared under a
 * lock: records a sibling decodes stay valid after the sibling is freed,
 * as long as `of` lives. Reads nothing. */
HUDI_NODISCARD hudi_status hudi_mdt_open_sibling(hudi_mdt **out, const hudi_mdt *of, hudi_error *err);

/* Reloads the MDT's timeline, relists its files and rebuilds the valid
 * instants from the data table's current timeline: what hudi_mdt_open
 * would see now, without reading hoodie.properties again (its version
 * and layout do not change under the write lock). On failure m is as it
 * was. */
HUDI_NODISCARD hudi_status hudi_mdt_refresh(hudi_mdt *m, hudi_error *err);

/* ---- one handle per write ----
 *
 * A write (upsert, delete, ...) shares one handle among its file slicing,
 * record-index lookup, metadata writer and the services it runs, instead
 * of each opening the MDT (on object stores each opening is a
 * hoodie.properties GET, a timeline LIST and a file LIST).
 *
 * hudi_mdt_share_begin(t), after the write lock is taken and the timeline
 * reloaded, turns sharing on; hudi_mdt_share_end(t), before the lock is
 * released, frees the handle. While on, hudi_mdt_acquire opens the handle
 * on first use and afterwards returns it, refreshed (hudi_mdt_refresh)
 * when the MDT was written since (hudi_mdt_share_invalidate, which every
 * writer of the MDT calls after writing) or t's data timeline changed
 * since it was built (a commit, a service, a reload): so a caller sees
 * what opening the MDT at that moment would have shown. Without sharing,
 * acquire is hudi_mdt_open. Either way, release with hudi_mdt_release
 * (frees only a handle that is not the shared one), and keep the handle
 * only until the next acquire on t (a refresh replaces its view). */
void hudi_mdt_share_begin(hudi_table *t);
void hudi_mdt_share_end(hudi_table *t);
void hudi_mdt_share_invalidate(hudi_table *t);
HUDI_NODISCARD hudi_status hudi_mdt_acquire(hudi_mdt **out, hudi_table *t, hudi_error *err);
void hudi_mdt_release(hudi_table *t, hudi_mdt *m);

/* The MDT (as a table: its hoodie.properties, version, layout) of t's
 * shared handle when one is open, else NULL: writers take the MDT's
 * properties from it instead of reading them again. */
const hudi_table *hudi_mdt_shared_table(const hudi_table *t);

/* The MDT's table version as this write knows it: its shared handle's,
 * else what an earlier metadata commit of the write read (0: not known,
 * or not sharing). A metadata commit that read it records it with
 * hudi_mdt_shared_version_seen, so an append's later metadata writes (a
 * clean's, before any handle is open) need not GET hoodie.properties. */
int hudi_mdt_shared_version(const hudi_table *t);
void hudi_mdt_shared_version_seen(hudi_table *t, int version);

/* The MDT as a table (its properties, storage and timeline), and the
 * data table it belongs to. */
const hudi_table *hudi_mdt_table(const hudi_mdt *m);
const hudi_table *hudi_mdt_data_table(const hudi_mdt *m);

/* Whether the data table lists the MDT partition as built
 * (hoodie.table.metadata.partitions). */
bool hudi_mdt_partition_available(const hudi_mdt *m, const char *partition);

/* Whether log blocks of this instant are merged (see above). */
bool hudi_mdt_instant_valid(const hudi_mdt *m, const char *instant);

/* The file groups of an MDT partition ("files", "record_index", ...),
 * sorted by file id; *n = 0 when it has none. The array lives as long as m. */
const hudi_file_group *hudi_mdt_groups(const hudi_mdt *m, const char *partition, size_t *n);

/* Every file group of the MDT, sorted by (partition, file id). */
const hudi_file_group *hudi_mdt_all_groups(const hudi_mdt *m, size_t *n);

/* The earliest instant in the names of the log files that the MDT's
 * latest slices still read, NULL when none: archival must keep it, and
 * incremental compaction bounds a group's age by it. Points into m. */
const char *hudi_mdt_oldest_live_log(const hudi_mdt *m);

/* Records of a lookup or scan: items[i].key == NULL marks an absent key. */
typedef struct hudi_mdt_records {
  hudi_mdt_record *items;
  size_t count;
} hudi_mdt_records;

void hudi_mdt_records_free(hudi_mdt_records *r);

/* Merged values of keys (sorted ascending as unsigned bytes, no repeats)
 * in the latest slice of g: out->items[i] is keys[i]'s record, or absent.
 * Reads only the base HFile blocks holding the keys, and each valid log
 * block once: by ranges (mdt_reader_log.h), a large HFILE_DATA block only
 * its HFile's trailer, index and the data blocks of the keys; a log file
 * with a corrupt block is read whole. stats (nullable) is added to;
 * log_bytes_read counts what was fetched of the log files. */
HUDI_NODISCARD hudi_status hudi_mdt_group_lookup(hudi_mdt *m, const hudi_file_group *g, const hudi_hfile_key *keys,
                                                 size_t n_keys, hudi_mdt_records *out, hudi_mdt_read_stats *stats,
                                                 hudi_error *err);

/* Every merged record of the latest slice of g, sorted by key. */
HUDI_NODISCARD hudi_status hudi_mdt_group_scan(hudi_mdt *m, const hudi_file_group *g, hudi_mdt_records *out,
                                               hudi_mdt_read_stats *stats, hudi_error *err);

/* ---- streaming merge (compaction) ---- */

/* One merged record of a streaming merge: decoded (rec; the callee may
 * change its fields, not keep it), or, when it needed no merging, its raw
 * payload in its writer schema (a node of the handle's schema cache, see
 * hudi_mdt_schema). Valid only during the call. */
typedef struct hudi_mdt_merged {
  const uint8_t *key;
  size_t key_len;
  hudi_mdt_record *rec;
  const uint8_t *value;
  size_t value_len;
  const hudi_avro_node *schema;
  bool insert; /* the key is only in the logs (a new key of the file group) */
} hudi_mdt_merged;

typedef hudi_status (*hudi_mdt_emit_fn)(void *ctx, hudi_mdt_merged *r, hudi_error *err);

/* The handle's parse of a payload schema JSON (the same node the merge
 * hands out for that schema; it lives as long as m). */
HUDI_NODISCARD hudi_status hudi_mdt_schema(hudi_mdt *m, const char *json, size_t len, const hudi_avro_node **out,
                                           hudi_error *err);

/* Whether a payload schema has the standard HoodieMetadataRecord layout
 * (five nullable-string meta fields, key, type, ...). It compares field
 * names: callers merging many records check each schema once. */
bool hudi_mdt_standard_layout(const hudi_avro_node *schema);

/* Where the five meta fields of a payload in a standard-layout schema end;
 * false when the bytes do not parse. */
bool hudi_mdt_payload_meta_end(const uint8_t *v, size_t len, size_t *meta_end);

/* What a streaming merge saw, as Hudi's compaction write stats count it. */
typedef struct hudi_mdt_merge_counts {
  uint64_t log_blocks;  /* valid HFILE/DELETE blocks merged */
  uint64_t log_records; /* records and deletes in them */
  uint64_t inserts;     /* keys only in the logs */
  uint64_t updates;     /* base keys the logs changed */
  uint64_t deletes;     /* keys the logs deleted (dropped from the output) */
  uint64_t written;     /* records emitted */
} hudi_mdt_merge_counts;

/* Unchanged base blocks handed over whole by hudi_mdt_slice_merge: a data
 * block of the base file that no log record falls in (no update, delete
 * or new key between its first key and the next block's) goes to fn as
 * its on-disk bytes instead of record by record, so a compaction copies
 * it instead of inflating, re-encoding and deflating it again. Only when
 * the base file's writer schema is `schema` (its payloads stay valid
 * as they are). */
typedef struct hudi_mdt_block_copy {
  /* last: the block's last key when it is the base file's last block,
   * else NULL (hudi_hfile_writer_copy_block's arguments). */
  hudi_status (*fn)(void *ctx, const uint8_t *block, size_t len, const uint8_t *first, size_t first_len,
                    const uint8_t *last, size_t last_len, hudi_error *err);
  void *ctx;
  const hudi_avro_node *schema;
  /* Whether the base file (its reader, open) may give blocks whole; NULL:
   * yes. A compaction checks that it can go on with the file's bloom
   * filter without its keys. */
  bool (*accept)(void *ctx, hudi_hfile_reader *r);
  uint64_t blocks;  /* out: blocks handed over */
  uint64_t records; /* out: the base records they hold */
} hudi_mdt_block_copy;

/* Merges a base HFile (NULL: none) and logs[0, n_logs) of one MDT file
 * group, as hudi_mdt_group_scan does, and hands every surviving record to
 * fn in ascending key order. Memory is bounded by the logs: their valid
 * records are held as raw bytes (sorted), the base file is streamed block
 * by block, and only records that merge (two file listings) are decoded.
 * Without a base file, the oldest valid HFile log block (after empty
 * DELETE blocks) is streamed as the base, in memory: after a bulk load
 * written as log blocks (HUDI_MDT_RLI_BASE_FILES_OPTION false, or by
 * Spark) that is all of a record-index shard. counts and stats (nullable) are
 * added to, the same either way (copied records count as written). With
 * copy (nullable) and a base file, blocks no log record changes go whole
 * to copy->fn, in order with the records fn gets. */
HUDI_NODISCARD hudi_status hudi_mdt_slice_merge(hudi_mdt *m, const hudi_fs_base_file *base,
                                                const hudi_fs_log_file *logs, size_t n_logs, hudi_mdt_emit_fn fn,
                                                void *ctx, hudi_mdt_block_copy *copy, hudi_mdt_merge_counts *counts,
                                                hudi_mdt_read_stats *stats, hudi_error *err);

#endif
