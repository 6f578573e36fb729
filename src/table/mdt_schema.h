/* The exact HoodieMetadataRecord schema strings a metadata-table writer
 * puts in its HFiles' file info "schema" and its log blocks' SCHEMA header
 * (spec hudi-metadata-table.md §2: 7969 bytes for table version 8, 8910
 * for version 9; only ColumnStats differs). */
#ifndef HUDI_TABLE_MDT_SCHEMA_H
#define HUDI_TABLE_MDT_SCHEMA_H

#include <stddef.h>

/* The schema JSON for table version 8 (also used for older versions) or 9
 * (and newer); static, not NUL-counted in *len (len may be NULL). */
const char *hudi_mdt_schema_json(int table_version, size_t *len);

#endif
