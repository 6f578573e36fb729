/* Partition paths -> partition column values, per key generator, for
 * partition pruning.
 *
 *  - non-partitioned: no columns;
 *  - simple / complex: hoodie.table.partition.fields (comma-separated;
 *    table version 8+ may write "field:simple"), one path segment per field,
 *    "field=value" when hive-style partitioning is on, else the bare value;
 *    values are URL-decoded (Hudi escapes special characters);
 *  - timestamp-based and custom key generators: the segments are formatted
 *    dates, not column values: not prunable (every partition is read). */
#ifndef HUDI_TABLE_PARTITION_H
#define HUDI_TABLE_PARTITION_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "expr/pred.h"
#include "table/properties.h"

#define HUDI_PARTITION_MAX_FIELDS 64

typedef struct hudi_partition_spec {
  char *fields[HUDI_PARTITION_MAX_FIELDS]; /* owned */
  size_t n_fields;
  bool hive_style;
  bool prunable; /* false: never prune */
} hudi_partition_spec;

HUDI_NODISCARD hudi_status hudi_partition_spec_init(hudi_partition_spec *out, const hudi_props *props,
                                                    hudi_error *err);
void hudi_partition_spec_free(hudi_partition_spec *s);

/* Whether a partition (its relative path) may hold rows matching p. True
 * when the spec is not prunable or the path does not have the expected
 * shape. */
HUDI_NODISCARD hudi_status hudi_partition_might_match(bool *out, const hudi_partition_spec *s, const hudi_pred *p,
                                                      const char *partition_path, hudi_error *err);

#endif
