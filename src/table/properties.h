/* hoodie.properties: Java Properties text, kept in file order. */
#ifndef HUDI_TABLE_PROPERTIES_H
#define HUDI_TABLE_PROPERTIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef struct hudi_props_entry {
  char *key;
  char *value;
} hudi_props_entry;

typedef struct hudi_props {
  hudi_props_entry *entries;
  size_t len, cap;
} hudi_props;

/* Where a table keeps it, under its base. */
#define HUDI_PROPS_PATH ".hoodie/hoodie.properties"

#define HUDI_PROPS_MAX_BYTES ((size_t)16 << 20) /* far above any real hoodie.properties */
#define HUDI_PROPS_MAX_ENTRIES 100000

void hudi_props_init(hudi_props *p);
void hudi_props_free(hudi_props *p);

/* Parses Java Properties text (java.util.Properties.load rules: '#'/'!'
 * comments, '=', ':' or whitespace separators, backslash escapes including
 * \uXXXX, line continuations). A later duplicate key replaces the earlier
 * value, as in Java. `source` names the input in error messages. */
HUDI_NODISCARD hudi_status hudi_props_parse(hudi_props *out, const char *text, size_t len,
                                            const char *source, hudi_error *err);

/* The value of key, or NULL. The pointer lives as long as p is unchanged. */
const char *hudi_props_get(const hudi_props *p, const char *key);

/* Whether the comma-separated list (a property value; NULL = empty) has
 * the item name (hoodie.table.metadata.partitions and the like). */
bool hudi_props_list_has(const char *list, const char *name);

/* Sets (replaces or appends) key=value. */
HUDI_NODISCARD hudi_status hudi_props_set(hudi_props *p, const char *key, const char *value,
                                          hudi_error *err);

/* Appends p as java.util.Properties.store writes it: "#comment" and
 * "#date" lines (each omitted when NULL), then key=value lines in p's
 * order, escaped as Java escapes them (\\uXXXX outside printable ASCII),
 * so hudi_props_parse reads back p. HUDI_ERR_INVALID_ARG for text that is
 * not UTF-8. */
struct hudi_buf;
HUDI_NODISCARD hudi_status hudi_props_render(const hudi_props *p, const char *comment, const char *date,
                                             struct hudi_buf *out, hudi_error *err);

/* Checks hoodie.table.checksum against hoodie.database.name and
 * hoodie.table.name: HUDI_ERR_CORRUPT naming both values when they differ,
 * HUDI_ERR_CORRUPT when the table name is missing, OK when no checksum is
 * stored (old tables). */
HUDI_NODISCARD hudi_status hudi_props_validate_checksum(const hudi_props *p, const char *source,
                                                        hudi_error *err);

#endif
