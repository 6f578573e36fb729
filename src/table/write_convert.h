/* The types a Hudi table stores (what Spark/parquet-avro write for the Avro
 * schema Hudi records), and copying incoming Arrow values into them:
 * small and unsigned integers widen to int/long, large and view strings and
 * binaries become plain ones, every list flavour (large_list,
 * fixed_size_list: embeddings) becomes a list, date64 becomes date32,
 * seconds and nanoseconds become milli/microseconds; every column is
 * nullable as in Spark's table schema. */
#ifndef HUDI_TABLE_WRITE_CONVERT_H
#define HUDI_TABLE_WRITE_CONVERT_H

#include <stdbool.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "arrow/view.h"
#include "base/error.h"

/* *out = the stored form of `in` (a normalised field). Types without a
 * Hudi form (null, uint64, float16, durations, intervals, unions) are
 * HUDI_ERR_UNSUPPORTED naming the column. On failure *out is empty. */
HUDI_NODISCARD hudi_status hudi_write_storage_field(hudi_arrow_field *out, const hudi_arrow_field *in,
                                                    hudi_error *err);

/* True when values of `in` can be copied into `stored` as they are. */
bool hudi_write_same_storage(const hudi_arrow_field *stored, const hudi_arrow_field *in);

/* Appends element i of v (converted) to b, a builder of the stored type.
 * Besides the storage conversions above, the promotions of schema
 * evolution (write_schema.h): integers to long, float or double, float to
 * double, integers to their decimal text, string <-> binary. */
HUDI_NODISCARD hudi_status hudi_write_append_converted(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i,
                                                       hudi_error *err);

#endif
