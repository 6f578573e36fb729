/* The metadata table's column_stats and partition_stats partitions: the
 * per-file and per-partition column ranges Spark uses for data skipping
 * (spec hudi-metadata-table.md §1.2; Hudi 1.x HoodieTableMetadataUtil,
 * HoodieMetadataPayload, ColumnStatsIndexer / PartitionStatsIndexer).
 *
 * Keys (HoodieMetadataPayload.getColumnStatsIndexKey /
 * getPartitionStatsIndexKey), Base64 with padding:
 *   column_stats:    b64(xxh64(column)) + b64(xxh64(partition)) + b64(md5(file name))
 *   partition_stats: b64(xxh64(column)) + b64(xxh64(partition))
 * xxh64 uses seed 0xdabadaba and is written big-endian (HashID); partition
 * is "." for a non-partitioned table (getColumnStatsIndexPartitionIdentifier).
 *
 * Values are HoodieMetadataColumnStats (index version V2, table version 9):
 *   column_stats (type 3): fileName = the file's name, the column's
 *     min/max (wrapped by value type), valueCount (nulls included),
 *     nullCount, totalSize / totalUncompressedSize (the Parquet column
 *     chunks' compressed / uncompressed sizes), isDeleted, isTightBound
 *     false, valueType {ordinal of Hudi's ValueType, "precision,scale" for
 *     decimals}; for a merge-on-read log file the same over the records of
 *     its data blocks, with both sizes 0 (HoodieAppendHandle's
 *     collectColumnRangeMetadata);
 *   partition_stats (type 6): fileName = the partition path, the ranges of
 *     every latest file of the partition merged (min of mins, max of
 *     maxes, counts and sizes summed), isTightBound true: Hudi recomputes
 *     them on every commit from all latest files (convertMetadataTo
 *     PartitionStatRecords), so the newest record replaces the older ones.
 * A deleted file gets a column_stats record with isDeleted true, no
 * bounds, zero counts and value type NULL.
 *
 * Which columns: hudi_cs_commit_columns, Hudi's rule over the commit's
 * schema reconciled with the column_stats index definition's sourceFields
 * in .hoodie/.index_defs/index.json (Hudi writes the resolved list there
 * after each commit: the three always-indexed meta fields, then the
 * configured or first 32 supported data columns). Columns a file lacks
 * get no record. */
#ifndef HUDI_TABLE_MDT_COLUMN_STATS_H
#define HUDI_TABLE_MDT_COLUMN_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "avro/schema.h"
#include "base/buf.h"
#include "base/error.h"
#include "io/storage.h"
#include "parquet/stats.h"
#include "table/mdt_payload.h"
#include "table/mdt_write.h"

/* Hudi's org.apache.hudi.stats.ValueType ordinals (the valueType field). */
enum {
  HUDI_CS_VT_V1 = 0,
  HUDI_CS_VT_NULL = 1,
  HUDI_CS_VT_BOOLEAN = 2,
  HUDI_CS_VT_INT = 3,
  HUDI_CS_VT_LONG = 4,
  HUDI_CS_VT_FLOAT = 5,
  HUDI_CS_VT_DOUBLE = 6,
  HUDI_CS_VT_STRING = 7,
  HUDI_CS_VT_BYTES = 8,
  HUDI_CS_VT_FIXED = 9,
  HUDI_CS_VT_DECIMAL = 10,
  HUDI_CS_VT_UUID = 11,
  HUDI_CS_VT_DATE = 12,
  HUDI_CS_VT_TIME_MILLIS = 13,
  HUDI_CS_VT_TIME_MICROS = 14,
  HUDI_CS_VT_TIMESTAMP_MILLIS = 15,
  HUDI_CS_VT_TIMESTAMP_MICROS = 16,
  HUDI_CS_VT_TIMESTAMP_NANOS = 17,
  HUDI_CS_VT_LOCAL_TIMESTAMP_MILLIS = 18,
  HUDI_CS_VT_LOCAL_TIMESTAMP_MICROS = 19,
  HUDI_CS_VT_LOCAL_TIMESTAMP_NANOS = 20
};

#define HUDI_CS_MAX_COLUMNS 4096
#define HUDI_CS_MAX_BOUND 65536 /* bytes of one string/binary bound kept */

/* One column's range over a file or a partition. */
typedef struct hudi_cs_range {
  char *column;       /* owned */
  int32_t value_type; /* HUDI_CS_VT_* */
  int32_t precision, scale;
  hudi_pq_stat_kind kind;
  bool has_min, has_max;
  /* Some values exist but their bounds are not known (no statistics, or a
   * bound over HUDI_CS_MAX_BOUND): merged ranges then have none either. */
  bool bounds_unknown;
  hudi_pq_stat_value min, max; /* byte bounds owned (min_buf/max_buf) */
  uint8_t *min_buf, *max_buf;
  int64_t null_count, value_count, total_size, total_uncompressed_size;
} hudi_cs_range;

typedef struct hudi_cs_ranges {
  hudi_cs_range *items;
  size_t n, cap;
} hudi_cs_ranges;

void hudi_cs_ranges_free(hudi_cs_ranges *r);

/* ---- keys ---- */

/* Appends the column_stats key of (column, partition, file name);
 * partition "" means non-partitioned. */
HUDI_NODISCARD hudi_status hudi_cs_column_stats_key(hudi_buf *out, const char *column, const char *partition,
                                                    const char *file_name, hudi_error *err);
/* Appends the bloom_filters key of (partition, file name): Hudi's
 * PartitionIndexID then FileIndexID, the column_stats key without its
 * column. */
HUDI_NODISCARD hudi_status hudi_cs_file_key(hudi_buf *out, const char *partition, const char *file_name,
                                            hudi_error *err);
/* Appends the partition_stats key of (column, partition). */
HUDI_NODISCARD hudi_status hudi_cs_partition_stats_key(hudi_buf *out, const char *column, const char *partition,
                                                       hudi_error *err);

/* ---- columns ---- */

/* The indexed columns: sourceFields of the column_stats definition in the
 * table's index definitions file (index_defs_path relative to the table,
 * hoodie.table.index.defs.path). HUDI_ERR_NOT_FOUND when the file or the
 * definition is missing; HUDI_ERR_UNSUPPORTED for an index version other
 * than V1 and V2. *layout (nullable) gets 1 for V1, 2 for V2 (also when
 * the definition names none). Free with hudi_cs_columns_free. */
HUDI_NODISCARD hudi_status hudi_cs_columns_load(char ***out, size_t *n, int *layout, hudi_storage *s,
                                                const char *index_defs_path, hudi_error *err);
void hudi_cs_columns_free(char **cols, size_t n);

/* ---- ranges ---- */

/* The ranges of columns[0, n) in the Parquet file at path (file_size 0 =
 * stat it), from its footer (column chunk statistics and sizes summed over
 * row groups). Columns the file lacks, or nested ones, are left out. */
HUDI_NODISCARD hudi_status hudi_cs_parquet_ranges(hudi_cs_ranges *out, hudi_storage *s, const char *path,
                                                  uint64_t file_size, const char *const *columns, size_t n,
                                                  hudi_error *err);

/* The ranges of columns[0, n) over the records of the data blocks (Avro
 * or Parquet) of the log file at path, as Hudi's append handle collects
 * them: min/max of the non-null values, nullCount, valueCount = records,
 * sizes 0. Delete blocks add nothing; a file without data records gives
 * no ranges. Columns the records lack, or nested ones, are left out.
 * *n_records (nullable) gets the data records read. */
HUDI_NODISCARD hudi_status hudi_cs_log_ranges(hudi_cs_ranges *out, hudi_storage *s, const char *path,
                                              const char *const *columns, size_t n, int64_t *n_records,
                                              hudi_error *err);

/* Hudi's ValueType (HUDI_CS_VT_*) of an Arrow format string, with the
 * precision and scale of decimals; -1 for types column stats skip. */
int32_t hudi_cs_value_type_of(const char *fmt, int32_t *precision, int32_t *scale);

/* Merges src into acc (same column): min of mins, max of maxes, counts and
 * sizes summed (Hudi's mergeColumnStatsRecords / partition aggregation). A
 * range without bounds because it has no values leaves the other's; one
 * whose bounds are unknown (bounds_unknown) leaves the merge without. */
HUDI_NODISCARD hudi_status hudi_cs_range_merge(hudi_cs_range *acc, const hudi_cs_range *src, hudi_error *err);

/* A deep copy of src appended to out. */
HUDI_NODISCARD hudi_status hudi_cs_ranges_push(hudi_cs_ranges *out, const hudi_cs_range *src, hudi_error *err);

/* ---- records ---- */

/* Column-stats record layouts: V2 (a value type; table version 9) and V1,
 * which Hudi 1.0.x writes in version-8 metadata tables (no valueType field)
 * and Spark 1.2 in tables it upgraded from version 8 (valueType null): the
 * same wrappers in both (dates in DateWrapper, decimals in DecimalWrapper
 * at scale 15, UTC microsecond timestamps in LongWrapper, the rest as V2
 * wraps them). Whether the record has a valueType field is the schema's
 * business (hudi_mdt_w_schema of the table's version). */
enum { HUDI_CS_LAYOUT_V1 = 1, HUDI_CS_LAYOUT_V2 = 2 };

/* Builds the column_stats (type 3; name = the file name) or partition_stats
 * (type 6; name = the partition path) record of range r in *out (fresh;
 * free with hudi_mdt_record_free, also on failure), its value a tree of
 * schema (the HoodieMetadataRecord schema of the table's version). deleted:
 * a tombstone (no bounds, zero counts, value type NULL). layout: one of
 * HUDI_CS_LAYOUT_*; HUDI_ERR_UNSUPPORTED naming the column for types whose
 * V1 wrapping hudi-c has not seen Spark write (timestamps other than UTC
 * microseconds, times), and for V1 decimals outside decimal(30,15). */
HUDI_NODISCARD hudi_status hudi_cs_record(hudi_mdt_record *out, const hudi_avro_node *schema, int32_t type,
                                          const char *partition, const char *name, const hudi_cs_range *r,
                                          bool deleted, int layout, hudi_error *err);

/* ---- a commit ---- */

/* The column_stats and partition_stats records for a commit, given the
 * data files it added or deleted (files: as hudi_mdt_commit takes them):
 * for each added Parquet base file its footer's column ranges, for each
 * added log file the ranges of its records (a log file of deletes only:
 * one record per column without bounds, value type NULL), for each
 * deleted file tombstones, and for each touched partition (when
 * with_partition_stats) the merged ranges of every file of its latest
 * merged file slices after the commit (latest: the table's file-system
 * view of existing files, with each added base file replacing its file
 * group's slice, added log files joining theirs, deleted files and file
 * groups replaced by completed replacecommits or by meta (the commit's
 * metadata, nullable) removed). Records are appended to *recs
 * (hudi_malloc'ed array of hudi_malloc'ed records; free with
 * hudi_cs_records_free). */
typedef struct hudi_cs_records {
  hudi_mdt_record **items;
  size_t n, cap;
  int layout; /* HUDI_CS_LAYOUT_*: the index definition's version, V1 on version-8 tables */
  hudi_avro_schema *schema; /* owned by hudi_cs_mdt_records' result: the records' value trees use it */
  /* The indexed columns (hudi_cs_commit_columns; owned): set before
   * hudi_cs_commit_records, which then takes them instead of the index
   * definition's; cols_changed: they differ from the definition's, which
   * the caller rewrites once the commit's metadata is written. */
  char **cols;
  size_t n_cols;
  bool cols_changed;
  /* Partition statistics' existing files: taken from their column_stats
   * records, or read (their records missing or not convertible). */
  size_t ps_files_from_records, ps_files_read;
} hudi_cs_records;

void hudi_cs_records_free(hudi_cs_records *r);
/* Room for one more record in r->items. */
HUDI_NODISCARD hudi_status hudi_cs_records_grow(hudi_cs_records *r, hudi_error *err);

struct hudi_table;
struct hudi_commit_metadata;
struct hudi_option;
HUDI_NODISCARD hudi_status hudi_cs_commit_records(hudi_cs_records *out, struct hudi_table *t,
                                                  const hudi_avro_node *schema,
                                                  const struct hudi_commit_metadata *meta,
                                                  const hudi_mdt_file_change *files,
                                                  size_t n_files, bool with_column_stats, bool with_partition_stats,
                                                  hudi_error *err);

/* The write path's entry: when the table lists column_stats (and
 * partition_stats) in hoodie.table.metadata.partitions, the records of the
 * commit (meta: its commit metadata, nullable; files: as for
 * hudi_mdt_commit), with out->schema the table-version-9 payload schema
 * their values use; nothing otherwise. */
HUDI_NODISCARD hudi_status hudi_cs_mdt_records(hudi_cs_records *out, struct hudi_table *t,
                                               const struct hudi_option *opts, size_t n_opts,
                                               const struct hudi_commit_metadata *meta,
                                               const hudi_mdt_file_change *files, size_t n_files, hudi_error *err);

/* The columns the column stats of a commit (meta, nullable) of t cover,
 * as Hudi's getColumnsToIndex picks them from the commit's writer schema:
 * _hoodie_commit_time, _hoodie_partition_path, _hoodie_record_key (unless
 * the table populates no meta fields), then the columns of the write
 * option hoodie.metadata.index.column.stats.column.list or the first
 * ...max.columns.to.index (32) data columns of a supported type (not a
 * record, array, map or enum; decimals within decimal(30,15); for the V1
 * layout, not a time, millisecond or local timestamp, or plain fixed:
 * hudi-c writes no V1 records of those). That list
 * is taken when the index definition's sourceFields are empty (a table
 * created with the index), or one is a prefix of the other (columns added
 * by schema evolution, or left by a commit rolled back after it listed
 * them), or column.list is given; otherwise the definition's list (one
 * Spark's own configuration chose). Without a writer schema, the
 * definition's. *changed: the result differs from the definition's.
 * *layout as hudi_cs_columns_load. Free *out with hudi_cs_columns_free. */
HUDI_NODISCARD hudi_status hudi_cs_commit_columns(char ***out, size_t *n, int *layout, bool *changed,
                                                  struct hudi_table *t, const struct hudi_commit_metadata *meta,
                                                  const struct hudi_option *opts, size_t n_opts, hudi_error *err);

/* The valueType ordinal of a column_stats record (V2), -1 when it has
 * none (V1). */
int32_t hudi_cs_record_value_type(const hudi_mdt_record *r);

/* A file's ranges from its column_stats records recs[k] of cols[k]
 * (k < n_cols), typed like refs[k] (a range of the column read from
 * another file, NULL if none): appended to out when every record is there
 * and converts (*ok), else nothing is appended and *ok is false (the
 * caller reads the file). A delete-only log file's NULL-typed stub needs
 * no ref; a V1 decimal (DecimalWrapper, scale 15) goes back to the ref's
 * scale. */
HUDI_NODISCARD hudi_status hudi_cs_ranges_from_records(hudi_cs_ranges *out, bool *ok, const hudi_mdt_record *recs,
                                                       char *const *cols, size_t n_cols,
                                                       const hudi_cs_range *const *refs, hudi_error *err);

/* Whether hudi-c can keep column_stats / partition_stats of table t
 * current (table version 9 or later, copy-on-write or merge-on-read). */
bool hudi_cs_supported(const struct hudi_table *t);

/* Whether the MDT partition name[0, len) is one hudi-c keeps current for t:
 * column_stats or partition_stats, when hudi_cs_supported, the table's
 * index definitions hold a V1 or V2 column_stats definition (an empty
 * column list included: a table created with the index), and the
 * partition has its file groups (reads storage). */
bool hudi_cs_maintains(const struct hudi_table *t, const char *name, size_t len);

/* One MDT log file's content: the HFILE_DATA block of the records of one
 * file group of column_stats, partition_stats or bloom_filters. */
typedef struct hudi_cs_group_block {
  const char *partition; /* "column_stats", "partition_stats" or "bloom_filters" */
  char file_id[64];
  hudi_buf blocks;
  size_t n_records;
} hudi_cs_group_block;

typedef struct hudi_cs_group_blocks {
  hudi_cs_group_block *items;
  size_t n;
} hudi_cs_group_blocks;

void hudi_cs_group_blocks_free(hudi_cs_group_blocks *b);

/* Appends an empty block for file group `shard` of MDT partition
 * `partition` (borrowed) to out; *g points at it (valid until the next
 * append). On failure nothing is left half-added except a block whose
 * file id could not be formatted (freed with out). */
HUDI_NODISCARD hudi_status hudi_cs_group_block_add(hudi_cs_group_blocks *out, const char *partition, int32_t shard,
                                                   size_t n_records, hudi_cs_group_block **g, hudi_error *err);

/* The number of file groups of an MDT partition (its files' distinct
 * "<prefix>NNNN-0" ids, which must be 0..n-1). */
HUDI_NODISCARD hudi_status hudi_cs_count_groups(hudi_storage *s, const char *partition, size_t *out, hudi_error *err);

/* Groups recs (types 3 and 6) by MDT partition and file group (key shard
 * among the file groups present under .hoodie/metadata/<partition> of s)
 * and encodes each group's records as one HFILE_DATA log block (headers
 * SCHEMA = schema_json, INSTANT_TIME = instant). For hudi_mdt_commit. */
HUDI_NODISCARD hudi_status hudi_cs_group_blocks_build(hudi_cs_group_blocks *out, hudi_storage *s,
                                                      hudi_mdt_record *const *recs, size_t n,
                                                      const hudi_avro_node *schema, const char *schema_json,
                                                      size_t schema_len, const hudi_mdt_write_options *o,
                                                      const char *instant, hudi_error *err);

#endif
