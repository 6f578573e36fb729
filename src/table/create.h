/* Table creation helpers shared with the writer. hudi_table_create itself
 * (include/hudi/write.h) writes table version 6, 8 or 9 as the option
 * hoodie.write.table.version asks (create.c). */
#ifndef HUDI_TABLE_CREATE_H
#define HUDI_TABLE_CREATE_H

#include <stddef.h>

#include "base/error.h"
#include "hudi/write.h"

/* The value of key in the create options, or NULL. */
const char *hudi_create_option(const hudi_create_options *o, const char *key);

/* The table name a base URI gives: its last path segment, with characters
 * outside [A-Za-z0-9_] replaced by '_' (and a leading '_' before a digit). */
HUDI_NODISCARD hudi_status hudi_create_default_name(char *out, size_t cap, const char *base_uri, hudi_error *err);

#endif
