/* Schema evolution on write (hudi-write-semantics.md §5), as Apache Hudi's
 * Spark writer does by default (HoodieSchemaUtils.deduceWriterSchema with
 * hoodie.datasource.write.reconcile.schema=false, schema on write):
 *
 *   - the table's schema is extraMetadata.schema of its latest write (not a
 *     table service); a table without one takes the data's schema;
 *   - columns keep the table's order; columns the table lacks are appended
 *     (nullable): the table schema gains them, older files read them as null;
 *   - a table column the data lacks is refused (Hudi's
 *     MissingSchemaFieldException) unless
 *     hoodie.write.set.null.for.missing.columns=true, which writes it as null;
 *   - a data type the table's type can hold is promoted to it, as Hudi's
 *     canonicalisation does (int -> long/float/double/string, long ->
 *     float/double/string, float -> double, string <-> bytes);
 *   - a data type wider than the table's, which Avro schema resolution lets
 *     read the old files (int -> long -> float -> double), becomes the
 *     column's new type (Hudi's checkValidEvolution);
 *   - anything else (a narrowing that cannot be promoted, an unrelated type,
 *     a changed nested type, a changed type of a record key or partition
 *     field other than between int and long) is refused, naming the column;
 *   - every written column is nullable (Hudi relaxes differing nullability).
 * All of this happens before anything is written. */
#ifndef HUDI_TABLE_WRITE_SCHEMA_H
#define HUDI_TABLE_WRITE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "hudi/write.h"
#include "table/table.h"
#include "table/write_rows.h"

/* extraMetadata.schema of the table's latest completed write that is not a
 * compaction, clustering, log compaction or index build; *out NULL when
 * there is none. Caller frees *out. */
HUDI_NODISCARD hudi_status hudi_write_current_schema(char **out, hudi_table *t, hudi_error *err);

/* Deduces the writer schema of rows against t's current schema and makes
 * rows carry it: when it differs from the rows' stored schema (a new or
 * missing column, another order, a promoted type), every batch is rebuilt
 * in the writer schema, so that afterwards rows->input and rows->stored are
 * the writer schema column for column. Keys and partitions already
 * extracted stay valid. *evolved (may be NULL) tells whether the writer
 * schema differs from the table's (a new column or type). */
HUDI_NODISCARD hudi_status hudi_write_rows_evolve(hudi_write_rows *rows, hudi_table *t, const hudi_option *opts,
                                                  size_t n_opts, bool *evolved, hudi_error *err);

#endif
