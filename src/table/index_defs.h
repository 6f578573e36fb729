/* The table's index definitions file (hoodie.table.index.defs.path,
 * .hoodie/.index_defs/index.json): Hudi's HoodieIndexMetadata as Jackson
 * pretty-prints it (hudi-metadata-table.md §1.3):
 *
 *   {
 *     "indexDefinitions" : {
 *       "column_stats" : {
 *         "indexName" : "column_stats",
 *         ...
 *         "sourceFields" : [ "_hoodie_commit_time", "a", "b" ],
 *         "indexOptions" : { },
 *         "version" : "V2"
 *       }
 *     }
 *   }
 *
 * Objects keep their members' order (jansson keeps insertion order), so a
 * rewrite changes only what it sets. */
#ifndef HUDI_TABLE_INDEX_DEFS_H
#define HUDI_TABLE_INDEX_DEFS_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/error.h"
#include "io/storage.h"

/* The default path of the file. */
#define HUDI_INDEX_DEFS_DEFAULT_PATH ".hoodie/.index_defs/index.json"

/* Cap on the file's size when read. */
#define HUDI_INDEX_DEFS_MAX ((size_t)16 << 20)

/* Reads and parses the file at path (NULL or "": the default path) into
 * *root (the caller's: json_decref). A missing file is the storage's
 * error; a file that is not JSON is HUDI_ERR_CORRUPT naming it. */
HUDI_NODISCARD hudi_status hudi_index_defs_load(json_t **root, hudi_storage *s, const char *path, hudi_error *err);

/* Appends root as Jackson's DefaultPrettyPrinter writes it: two-space
 * indents, `"name" : value`, arrays on one line (`[ "a", "b" ]`), empty
 * containers as `{ }` and `[ ]`, strings with JSON's escapes only
 * (UTF-8 unescaped). */
HUDI_NODISCARD hudi_status hudi_index_defs_render(const json_t *root, hudi_buf *out, hudi_error *err);

/* A new index definition object: indexName and indexType `name`, the
 * given indexFunction, empty sourceFields and indexOptions, and version
 * (NULL: no version member, as table version 8 writes them). NULL when
 * out of memory. */
json_t *hudi_index_defs_new_entry(const char *name, const char *function, const char *version);

/* The global record index's definition, as Hudi 1.1+ writes it (version
 * V1, indexOptions isPartitioned false). NULL when out of memory. */
json_t *hudi_index_defs_new_record_index(void);

/* Renders root (hudi_index_defs_render) into the file at path, replacing
 * it. A Hadoop checksum Spark left beside the file goes first
 * (hadoop_crc.h): it would no longer match, and Spark 1.2 then reads no
 * index definitions at all (its data skipping fails) and writes that
 * empty view back. */
HUDI_NODISCARD hudi_status hudi_index_defs_save(hudi_storage *s, const char *path, const json_t *root,
                                                hudi_error *err);

/* Sets indexDefinitions.<index>.sourceFields of the file at path to
 * cols[0, n), rewriting the file (atomically) only when they differ.
 * *changed (may be NULL) tells whether it was rewritten. A missing file or
 * index definition is an error naming it. */
HUDI_NODISCARD hudi_status hudi_index_defs_set_source_fields(hudi_storage *s, const char *path, const char *index,
                                                             const char *const *cols, size_t n, bool *changed,
                                                             hudi_error *err);

#endif
