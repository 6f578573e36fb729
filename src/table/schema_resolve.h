/* The table schema a reader returns (hudi-rs Table::get_schema*):
 *  1. extraMetadata.schema of the latest completed write (commit,
 *     deltacommit, replacecommit; not a compaction, clustering, index or
 *     log compaction, whose metadata may carry none or an older one);
 *  2. else the schema of a base file that write produced (a Parquet footer);
 *  3. else hoodie.table.create.schema.
 * The Avro schema maps to Arrow as avro/arrow_schema.h does; the five
 * _hoodie_* columns (nullable string) lead when meta fields are wanted. */
#ifndef HUDI_TABLE_SCHEMA_RESOLVE_H
#define HUDI_TABLE_SCHEMA_RESOLVE_H

#include <stdbool.h>

#include "arrow/field.h"
#include "table/commit_metadata.h"
#include "table/table.h"

/* Reads and parses the metadata file of instant in (completed or the
 * latest pending file). *out owned by the caller. */
HUDI_NODISCARD hudi_status hudi_table_instant_metadata(hudi_commit_metadata **out, hudi_table *t,
                                                       const hudi_instant *in, hudi_error *err);

/* True for a completed write whose data readers see: commit, deltacommit,
 * replacecommit (compactions are commits too). */
bool hudi_instant_is_write(const hudi_instant *in);

/* Fills *out (a struct field) with the schema; meta fields first when
 * with_meta. On failure *out is empty. */
HUDI_NODISCARD hudi_status hudi_table_resolve_schema(hudi_arrow_field *out, hudi_table *t, bool with_meta,
                                                     hudi_error *err);

#endif
