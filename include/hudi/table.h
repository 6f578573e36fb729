/* hudi-c: opening a Hudi table and inspecting it.
 *
 *   hudi_table *t;
 *   hudi_error err = HUDI_ERROR_INIT;
 *   if (hudi_table_open(&t, "/data/trips", NULL, 0, &err) != HUDI_OK)
 *     fprintf(stderr, "%s\n", err.message);
 *   printf("%s %s\n", hudi_table_name(t), hudi_table_type_name(hudi_table_get_type(t)));
 *   hudi_table_free(t);
 */
#ifndef HUDI_TABLE_H
#define HUDI_TABLE_H

#include "hudi/common.h"
#include "hudi/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hudi_table hudi_table;

/* A configuration entry. Keys starting with "hoodie." are Hudi options;
 * others are storage options (e.g. "fsync"). */
typedef struct hudi_option {
  const char *key;
  const char *value;
} hudi_option;

typedef enum hudi_table_type {
  HUDI_COPY_ON_WRITE = 0,
  HUDI_MERGE_ON_READ = 1
} hudi_table_type;

/* "COPY_ON_WRITE" or "MERGE_ON_READ". */
HUDI_EXTERN const char *hudi_table_type_name(hudi_table_type type);

/* Opens the table at base_uri (a local path or file: URI): reads
 * .hoodie/hoodie.properties (checksum validated; the backup file Hudi keeps
 * while updating it is used when the main file is missing or invalid) and
 * loads the active timeline. Table versions 6, 8 and 9 are supported.
 * Errors: HUDI_ERR_NOT_FOUND when there is no table there,
 * HUDI_ERR_CORRUPT for invalid properties, HUDI_ERR_UNSUPPORTED for other
 * table versions. *out is owned by the caller: hudi_table_free. */
HUDI_EXTERN hudi_status hudi_table_open(hudi_table **out, const char *base_uri, const hudi_option *options,
                                        size_t n_options, hudi_error *err);
HUDI_EXTERN void hudi_table_free(hudi_table *table);

/* Strings returned below live as long as the table. */
HUDI_EXTERN const char *hudi_table_base_uri(const hudi_table *table);
HUDI_EXTERN const char *hudi_table_name(const hudi_table *table);
HUDI_EXTERN hudi_table_type hudi_table_get_type(const hudi_table *table);
/* The table version (6, 8 or 9) and timeline layout version (1 or 2). */
HUDI_EXTERN int hudi_table_version(const hudi_table *table);
HUDI_EXTERN int hudi_table_timeline_layout(const hudi_table *table);

/* A hoodie.properties value, or NULL when absent. */
HUDI_EXTERN const char *hudi_table_property(const hudi_table *table, const char *key);
/* All properties, in file order: i in [0, count). */
HUDI_EXTERN size_t hudi_table_property_count(const hudi_table *table);
HUDI_EXTERN void hudi_table_property_at(const hudi_table *table, size_t i, const char **key,
                                        const char **value);

/* The options the table was opened with (Hudi and storage options). */
HUDI_EXTERN const char *hudi_table_option(const hudi_table *table, const char *key);

typedef enum hudi_instant_state_t {
  HUDI_STATE_REQUESTED = 0,
  HUDI_STATE_INFLIGHT = 1,
  HUDI_STATE_COMPLETED = 2
} hudi_instant_state_t;

/* One instant of the active timeline. */
typedef struct hudi_instant_info {
  const char *requested_time;  /* "yyyyMMddHHmmssSSS" */
  const char *completion_time; /* layout 2 completed instants; "" otherwise */
  const char *action;          /* "commit", "deltacommit", "clean", ... (a finished compaction is a "commit") */
  const char *requested_action; /* what was requested: "compaction", "clustering", or action */
  hudi_instant_state_t state;
  int64_t requested_epoch_ms;  /* requested_time in epoch milliseconds (UTC) */
} hudi_instant_info;

/* "REQUESTED", "INFLIGHT" or "COMPLETED". */
HUDI_EXTERN const char *hudi_instant_state_name(hudi_instant_state_t state);

/* The active timeline, in requested-time order: i in [0, count). */
HUDI_EXTERN size_t hudi_table_instant_count(const hudi_table *table);
HUDI_EXTERN hudi_status hudi_table_instant_at(const hudi_table *table, size_t i, hudi_instant_info *out,
                                              hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
