/* Column-chunk statistics as typed values, for row-group pruning.
 *
 * The values are in the Arrow column's terms (the leaf's node of
 * schema_arrow.h): integers, dates, times and timestamps as int64 in the
 * column's unit; unsigned integers as uint64; floats widened to double;
 * decimals as the unscaled 128-bit integer; strings, binaries and
 * fixed-size binaries as bytes in unsigned bytewise order. This mirrors
 * expr/value.h's classes (hudi_value), which the table layer fills from it.
 *
 * What is trusted (parquet-format's rules):
 *   - min_value/max_value (fields 5/6) when the file declares TYPE_ORDER for
 *     the column, or for numeric columns when it declares no orders;
 *   - the deprecated min/max (fields 1/2) only for BOOLEAN, signed INT32 /
 *     INT64 and FLOAT/DOUBLE, whose legacy order was already correct (not
 *     for byte arrays, unsigned integers or decimals on binary);
 *   - never for INT96 (undefined order);
 *   - a NaN min or max makes that bound unknown; a min of +0.0 counts as
 *     -0.0 and a max of -0.0 as +0.0;
 *   - a bound of the wrong byte length is unknown. */
#ifndef HUDI_PARQUET_STATS_H
#define HUDI_PARQUET_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"
#include "parquet/schema_arrow.h"

__extension__ typedef __int128 hudi_pq_i128;

typedef enum hudi_pq_stat_kind {
  HUDI_PQ_STAT_NONE = 0, /* not comparable */
  HUDI_PQ_STAT_BOOL,
  HUDI_PQ_STAT_INT,
  HUDI_PQ_STAT_UINT,
  HUDI_PQ_STAT_DOUBLE,
  HUDI_PQ_STAT_DECIMAL,
  HUDI_PQ_STAT_BYTES
} hudi_pq_stat_kind;

typedef struct hudi_pq_stat_value {
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    hudi_pq_i128 dec;
    struct {
      const uint8_t *data; /* borrowed from the file metadata */
      size_t len;
    } bytes;
  } v;
} hudi_pq_stat_value;

typedef struct hudi_pq_col_stats {
  hudi_pq_stat_kind kind;
  bool has_min, has_max;
  hudi_pq_stat_value min, max;
  int64_t null_count; /* -1 when unknown */
  int64_t nan_count;  /* -1 when unknown */
  int64_t num_values; /* level entries of the chunk (rows for flat columns) */
} hudi_pq_col_stats;

/* The kind of statistics a leaf gets (from its Arrow node). */
hudi_pq_stat_kind hudi_pq_stat_kind_of(const hudi_pq_leaf *leaf, const hudi_pq_node *node);

/* Decodes the statistics of column chunk cc of leaf (column number
 * leaf_index, node its Arrow leaf node) in file m. Never fails: what is not
 * known is marked unknown. */
void hudi_pq_col_stats_decode(hudi_pq_col_stats *out, const hudi_pq_file_meta *m, uint32_t leaf_index,
                              const hudi_pq_leaf *leaf, const hudi_pq_node *node, const hudi_pq_column_chunk *cc);

/* Orders two values of one kind: <0, 0, >0 (doubles: NaN above all). */
int hudi_pq_stat_compare(hudi_pq_stat_kind kind, const hudi_pq_stat_value *a, const hudi_pq_stat_value *b);

#endif
