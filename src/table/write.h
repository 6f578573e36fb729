/* The write client's shared pieces: per-write options and the commit
 * protocol steps (hudi-format-core.md §6). */
#ifndef HUDI_TABLE_WRITE_H
#define HUDI_TABLE_WRITE_H

#include <stdint.h>

#include "base/error.h"
#include "base/instant.h"
#include "hudi/write.h"
#include "parquet/writer.h"
#include "table/table.h"

/* Hudi's defaults (HoodieStorageConfig). */
#define HUDI_WRITE_DEFAULT_MAX_FILE_SIZE INT64_C(125829120)
#define HUDI_WRITE_DEFAULT_BLOCK_SIZE INT64_C(125829120)
#define HUDI_WRITE_DEFAULT_SMALL_FILE_LIMIT INT64_C(104857600)
/* hudi_c.append.segment.bytes: an append holds at most about this much
 * input (estimated Arrow bytes) at once; a larger stream is written a
 * segment at a time into the same commit (write.c). */
#define HUDI_WRITE_DEFAULT_SEGMENT_BYTES (INT64_C(4) << 30)

/* An option of this write: the call's options, then the table's open
 * options, then hoodie.properties; NULL when none has it. */
const char *hudi_write_option(const hudi_table *t, const hudi_option *opts, size_t n, const char *key);

/* The read options of a writer's own reads (the file slices it plans
 * around, the keys a predicate selects, the stored rows it merges): the
 * latest snapshot, whatever read options the handle was opened with (an
 * as-of time, read-optimized mode, an incremental range: read.c falls back
 * to the handle's options for a key the read does not give, and an empty
 * value overrides them). Before, a write through a handle opened
 * read-optimized merged from base files alone and brought deleted rows
 * back. */
extern const hudi_option hudi_write_snapshot_options[];
extern const size_t hudi_write_n_snapshot_options;

/* The value v of option key as a whole number in [lo, hi]; anything else
 * (empty, trailing characters, out of range) is HUDI_ERR_INVALID_ARG
 * naming the option, the value and the range. Every integer option goes
 * through here, whatever it is looked up from. */
HUDI_NODISCARD hudi_status hudi_option_parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out,
                                                 hudi_error *err);

/* An integer option (hudi_write_option): *out = dflt when unset; a value
 * that is not a whole number >= min is an error naming the option. */
HUDI_NODISCARD hudi_status hudi_write_int_option(const hudi_table *t, const hudi_option *opts, size_t n,
                                                 const char *key, int64_t dflt, int64_t min, int64_t *out,
                                                 hudi_error *err);

/* zstd's level when parquet.compression.codec.zstd.level is unset: 1, the
 * default of Arrow's writers (pyarrow, parquet-rs, so PyIceberg and Polars).
 * parquet-java (Spark, Hudi) writes 3; level 1 took 26% less CPU on the
 * 10M-row uuid bulk load and wrote 4% fewer bytes, 24% less CPU and 1.5%
 * more bytes on rag data (docs/benchmarks.md, docs/compatibility.md item
 * 20). Readers do not see the level. */
#define HUDI_WRITE_DEFAULT_ZSTD_LEVEL 1

/* Parquet writer options for base files from the write's options:
 * hoodie.parquet.block.size (row group), hoodie.parquet.page.size,
 * hoodie.parquet.compression.codec (gzip, snappy, zstd, uncompressed;
 * unset: default_codec in write.c) and
 * parquet.compression.codec.zstd.level (parquet-java's key, 1..22),
 * Hudi's schema style (2-level lists, legacy maps) with root_name.
 * *codec_set (may be NULL) tells whether the codec was given. */
HUDI_NODISCARD hudi_status hudi_write_pq_options(hudi_pq_writer_options *pq, const hudi_table *t,
                                                 const hudi_option *opts, size_t n, const char *root_name,
                                                 bool *codec_set, hudi_error *err);

/* Refuses tables hudi-c cannot write to yet (metadata table present, table
 * versions other than 6, 8 and 9, a version-6 metadata table, meta fields
 * off, non-Parquet base files). */
HUDI_NODISCARD hudi_status hudi_write_check_table(const hudi_table *t, hudi_error *err);

/* hudi_write_check_table for writers that keep the metadata table current
 * (append and the keyed verbs): accepts an MDT hudi-c maintains
 * (hudi_write_mdt_check). */
HUDI_NODISCARD hudi_status hudi_write_check_table_mdt(const hudi_table *t, const hudi_option *opts, size_t n,
                                                     hudi_error *err);

/* Reloads the table's timeline (after a commit). */
/* Writes the timeline file of instant (state, action, completion time)
 * with write-if-absent: an existing file is HUDI_ERR_CONFLICT (another
 * writer used the instant). data is the layout-2 content; on a layout-1
 * table (version 6) the file goes to .hoodie/ without the completion time
 * and commit metadata is turned into JSON (instant_v6.h). */
HUDI_NODISCARD hudi_status hudi_write_instant_file(hudi_table *t, const char *instant, const char *action,
                                                   const char *completion, hudi_instant_state state,
                                                   const void *data, size_t len, hudi_error *err);

/* Sets the mtime of completed layout-1 timeline file path (relative to t)
 * to completion, the time Java 1.x reads as its completion time (the
 * reason is at its definition). Best effort: failures are ignored. */
void hudi_write_stamp_completion(hudi_table *t, const char *path, const char *completion);

/* A new instant time later than every requested and completion time on the
 * timeline; gen is left ready to observe later times (the MDT's). */
HUDI_NODISCARD hudi_status hudi_write_pick_instant(hudi_instant_gen *gen, const hudi_table *t,
                                                   char out[HUDI_INSTANT_TIME_BUF], hudi_error *err);

HUDI_NODISCARD hudi_status hudi_write_reload_timeline(hudi_table *t, hudi_error *err);

/* A new file-group id: a random UUID v4 and "-0". */
HUDI_NODISCARD hudi_status hudi_write_new_file_id(char out[48], hudi_error *err);

/* Marker of a data file written by instant T (WriteMarkers, direct
 * markers): .hoodie/.temp/T/<partition>/<file>.marker.<CREATE|MERGE|APPEND>. */
HUDI_NODISCARD hudi_status hudi_write_marker(hudi_storage *s, const char *instant, const char *partition,
                                             const char *file_name, const char *kind, hudi_error *err);

/* Writes <partition>/.hoodie_partition_metadata unless it exists. */
HUDI_NODISCARD hudi_status hudi_write_partition_metadata(hudi_storage *s, const char *partition, const char *instant,
                                                         hudi_error *err);

#endif
