/* Min/max/null-count statistics gathered while writing, in the order of
 * the column's sort order, encoded as parquet-format Statistics the way
 * pyarrow writes them: min_value/max_value always, the deprecated min/max
 * too when the order is signed (readers that predate ColumnOrder can use
 * them), no min/max when a value exceeds the size cap, floats ignore NaN
 * and widen a zero bound to -0.0 / +0.0. */
#ifndef HUDI_PARQUET_STATS_WRITE_H
#define HUDI_PARQUET_STATS_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "parquet/arrow_to_parquet.h"
#include "parquet/metadata.h"

/* pyarrow's max_statistics_size: larger min/max values are dropped. */
#define HUDI_PQ_STATS_MAX_VALUE 4096

typedef struct hudi_pq_stats_acc {
  hudi_pq_sort sort;
  int32_t width;        /* fixed-width values: bytes per value */
  bool has;             /* min/max hold a value */
  int64_t null_count;
  uint8_t min_fixed[32], max_fixed[32];
  hudi_buf min_bytes, max_bytes; /* BYTE_ARRAY / FLBA of any width */
} hudi_pq_stats_acc;

void hudi_pq_stats_init(hudi_pq_stats_acc *s, hudi_pq_sort sort, hudi_pq_type type, int32_t type_length);
void hudi_pq_stats_free(hudi_pq_stats_acc *s);
void hudi_pq_stats_reset(hudi_pq_stats_acc *s);

/* Folds n values in the page writer's form: fixed-width values, or bytes
 * with n + 1 int32 offsets relative to data. */
HUDI_NODISCARD hudi_status hudi_pq_stats_update(hudi_pq_stats_acc *s, const uint8_t *data, const int32_t *offsets,
                                                size_t n, hudi_error *err);
/* Folds another accumulator (a page's into its chunk's). */
HUDI_NODISCARD hudi_status hudi_pq_stats_merge(hudi_pq_stats_acc *into, const hudi_pq_stats_acc *from,
                                               hudi_error *err);

/* Fills *out; min/max bytes are copied into arena. */
HUDI_NODISCARD hudi_status hudi_pq_stats_to_thrift(hudi_pq_statistics *out, const hudi_pq_stats_acc *s,
                                                   hudi_pq_arena *arena, hudi_error *err);

/* Compares two encoded values of a sort order (<0, 0, >0). */
int hudi_pq_stats_compare(hudi_pq_sort sort, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
