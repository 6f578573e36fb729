/* The metadata table of a new table (hudi_table_create): which MDT the
 * create options ask for, and creating it (mdt_init.h). */
#ifndef HUDI_TABLE_CREATE_MDT_H
#define HUDI_TABLE_CREATE_MDT_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/error.h"
#include "hudi/write.h"
#include "io/storage.h"

/* From record_index_enabled and hoodie.metadata.enable (default: true
 * when the record index is enabled, else false, as hudi-c has always
 * created tables without one) and hoodie.metadata.record.index.enable
 * (must agree with record_index_enabled when given): *mdt = the table gets
 * an MDT, *rli = it holds a record index. The record index without the
 * MDT, and MDT indexes hudi-c does not maintain (column stats, partition
 * stats, bloom filters), are refused. */
HUDI_NODISCARD hudi_status hudi_create_mdt_plan(const hudi_create_options *o, bool *mdt, bool *rli, hudi_error *err);

/* Where a version-9 table keeps its index definitions
 * (hoodie.table.index.defs.path). */
#define HUDI_CREATE_INDEX_DEFS_PATH ".hoodie/.index_defs/index.json"

/* Creates the MDT of the new table name (table version `version`: 8 or 9;
 * version 6 tables get none, create.c refuses the options asking for it)
 * under s when the options ask for one, and appends the
 * hoodie.table.metadata.partitions value to partitions (nothing when
 * there is no MDT). Version 9 with the record index also writes
 * HUDI_CREATE_INDEX_DEFS_PATH with the record_index definition, as Hudi
 * 1.1+ does; the MDT itself differs from version 8 only in its
 * hoodie.table.version / initial.version (mdt_init.h). */
HUDI_NODISCARD hudi_status hudi_create_mdt(hudi_storage *s, const hudi_create_options *o, const char *name,
                                           int version, hudi_buf *partitions, hudi_error *err);

#endif
