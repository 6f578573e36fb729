/* The layout-2 archived timeline: an LSM tree of Parquet files in
 * .hoodie/timeline/history (Apache Hudi 1.x LSMTimeline / LSMTimelineWriter;
 * spec hudi-format-v6-and-archive.md part B).
 *
 *   history/_version_          "N" (no newline): the latest snapshot
 *   history/manifest_N         {"files" : [ {"fileName" : ..., "fileLen" : ...} ]}
 *   history/<min>_<max>_<L>.parquet   rows of HoodieLSMTimelineInstant
 *
 * A snapshot is the set of files its manifest lists; writers add a file by
 * writing it, then manifest_<N+1>, then _version_, so readers only ever see
 * complete files. */
#ifndef HUDI_TABLE_LSM_TIMELINE_H
#define HUDI_TABLE_LSM_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/storage.h"
#include "table/instant_file.h"

#define HUDI_LSM_NAME_MAX 96
/* Caps against hostile archives. */
#define HUDI_LSM_MAX_FILES 100000
#define HUDI_LSM_MAX_MANIFEST ((size_t)64 << 20)

typedef struct hudi_lsm_file {
  char name[HUDI_LSM_NAME_MAX];
  int64_t len;
} hudi_lsm_file;

typedef struct hudi_lsm_manifest {
  hudi_lsm_file *files;
  size_t count, cap;
} hudi_lsm_manifest;

/* One archived action (a row of HoodieLSMTimelineInstant). metadata / plan
 * are NULL when the column is null (or was not read). */
typedef struct hudi_lsm_row {
  char instant_time[HUDI_INSTANT_TIME_MAX];
  char completion_time[HUDI_INSTANT_TIME_MAX];
  char action[HUDI_ACTION_MAX];
  uint8_t *metadata;
  size_t metadata_len;
  uint8_t *plan;
  size_t plan_len;
  int32_t version;
  size_t seq; /* reading order (internal) */
} hudi_lsm_row;

typedef struct hudi_lsm_rows {
  hudi_lsm_row *items;
  size_t count, cap;
} hudi_lsm_rows;

void hudi_lsm_manifest_free(hudi_lsm_manifest *m);
void hudi_lsm_rows_free(hudi_lsm_rows *r);

/* Parses a data file name "<min>_<max>_<level>.parquet" (Hudi's reader
 * regex, one-digit level). Returns 1 and fills what is non-NULL, else 0. */
int hudi_lsm_parse_file_name(const char *name, char *min, char *max, int *level);

/* The latest snapshot version: _version_, or (missing / unparsable) the
 * largest manifest_N; -1 when the archive is empty. hist: the history
 * directory relative to the storage base. */
HUDI_NODISCARD hudi_status hudi_lsm_latest_version(int *out, hudi_storage *s, const char *hist, hudi_error *err);

/* Reads manifest_<version> (version < 0: an empty manifest). */
HUDI_NODISCARD hudi_status hudi_lsm_manifest_read(hudi_lsm_manifest *out, hudi_storage *s, const char *hist,
                                                  int version, hudi_error *err);
/* Parses manifest JSON (unknown keys ignored); name is for messages. */
HUDI_NODISCARD hudi_status hudi_lsm_manifest_parse(hudi_lsm_manifest *out, const char *json, size_t len,
                                                   const char *name, hudi_error *err);
/* The JSON Hudi's Jackson pretty printer writes for the manifest. */
HUDI_NODISCARD hudi_status hudi_lsm_manifest_json(hudi_buf *out, const hudi_lsm_manifest *m, hudi_error *err);

/* Publishes m as version cur + 1 (1 when cur < 0): manifest_<v> (a
 * leftover of that name replaced), then _version_. */
HUDI_NODISCARD hudi_status hudi_lsm_publish(hudi_storage *s, const char *hist, int cur, const hudi_lsm_manifest *m,
                                            hudi_error *err);

/* Writes rows (in the given order) as one Parquet file at path, as Hudi's
 * Avro Parquet writer does (parquet.avro.schema in the footer). */
HUDI_NODISCARD hudi_status hudi_lsm_write_file(hudi_storage *s, const char *path, const hudi_lsm_row *rows,
                                               size_t n, hudi_error *err);

enum { HUDI_LSM_READ_METADATA = 1u << 0, HUDI_LSM_READ_PLAN = 1u << 1 };

/* Appends the rows of one data file to out; flags choose the byte columns
 * read besides the times and the action. */
HUDI_NODISCARD hudi_status hudi_lsm_read_file(hudi_lsm_rows *out, hudi_storage *s, const char *path,
                                              unsigned flags, hudi_error *err);

/* Every archived action of the latest snapshot, ascending by instant time,
 * the first row per instant time kept (files are read newest level
 * first). */
HUDI_NODISCARD hudi_status hudi_lsm_load(hudi_lsm_rows *out, hudi_storage *s, const char *hist, unsigned flags,
                                         hudi_error *err);

/* Appends rows as a new L0 file <first>_<last>_0.parquet and publishes a
 * manifest with it (a file of that name already listed: nothing to do). */
HUDI_NODISCARD hudi_status hudi_lsm_append(hudi_storage *s, const char *hist, const hudi_lsm_row *rows, size_t n,
                                           hudi_error *err);

/* LSMTimelineWriter.compactAndClean: per level, once it holds >= batch
 * files, merges the oldest up to batch consecutive files (total under
 * max_bytes, at least 2) into one file of the next level; then keeps the
 * newest 3 + (levels compacted) manifests and deletes older manifests and
 * unlisted data files. *n_compacted: files merged away. */
HUDI_NODISCARD hudi_status hudi_lsm_compact_and_clean(size_t *n_compacted, hudi_storage *s, const char *hist,
                                                      int batch, int64_t max_bytes, hudi_error *err);

#endif
