/* The layout-1 archive (table version 6), as Apache Hudi 1.x's
 * TimelineArchiverV1 writes it: .hoodie/<hoodie.archivelog.folder>/
 * .commits_.archive.N_<token>, a log file of AVRO_DATA blocks (header
 * SCHEMA only) of HoodieArchivedMetaEntry records, one record per state
 * file (requested, inflight, completed) of each archived instant, with the
 * instant's plan or metadata nested as MetadataConversionUtils puts it
 * (spec hudi-format-v6-and-archive.md A10). Every archival run writes a
 * new file (version N+1): Java never appends on file systems without
 * append. */
#ifndef HUDI_TABLE_ARCHIVE_V1_H
#define HUDI_TABLE_ARCHIVE_V1_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "io/storage.h"
#include "table/properties.h"
#include "table/timeline.h"

/* Records per block (hoodie.commits.archival.batch's default). */
#define HUDI_ARCHIVE_V1_BATCH 10

/* The archive folder under the storage base: ".hoodie/" +
 * hoodie.archivelog.folder (default "archived"). */
void hudi_archive_v1_dir(char *out, size_t cap, const hudi_props *props);

/* Writes one new archive file holding the state files of the instants
 * tl->items[idx[0..n)] (ascending), found in `files` (the listing of
 * .hoodie). batch: records per block. *n_records: records written. The
 * file appears whole or not at all. */
HUDI_NODISCARD hudi_status hudi_archive_v1_write(hudi_storage *s, const hudi_props *props, const hudi_timeline *tl,
                                                 const size_t *idx, size_t n, const hudi_file_list *files, int batch,
                                                 size_t *n_records, hudi_error *err);

/* ---- reading it back ---- */

/* One state file an archive records (HoodieArchivedMetaEntry's
 * commitTime, actionType, actionState; a null actionState, from archives
 * older than that field, reads as COMPLETED). */
typedef struct hudi_archive_v1_entry {
  char commit_time[HUDI_INSTANT_TIME_MAX];
  char action[HUDI_ACTION_MAX];
  hudi_instant_state state;
} hudi_archive_v1_entry;

typedef struct hudi_archive_v1_entries {
  hudi_archive_v1_entry *items;
  size_t count, cap;
} hudi_archive_v1_entries;

/* Largest archive file read (Java rolls them over at 512 MiB by default). */
#define HUDI_ARCHIVE_V1_MAX_FILE ((size_t)1 << 30)

/* Every entry of every archive file in the archive folder (Java's or
 * hudi-c's), in file then record order; corrupt blocks are skipped as
 * Java's archived-timeline reader skips them, other damage (a record that
 * does not decode with its block's schema) is HUDI_ERR_CORRUPT naming the
 * file and block offset. out must be zeroed; free with
 * hudi_archive_v1_entries_free. */
HUDI_NODISCARD hudi_status hudi_archive_v1_load(hudi_archive_v1_entries *out, hudi_storage *s,
                                                const hudi_props *props, hudi_error *err);
void hudi_archive_v1_entries_free(hudi_archive_v1_entries *e);

/* The entries of one archive file's bytes (name for messages), appended
 * to e (left as far as it got on failure). */
HUDI_NODISCARD hudi_status hudi_archive_v1_read_bytes(hudi_archive_v1_entries *e, const uint8_t *data, size_t len,
                                                      const char *name, hudi_error *err);

/* Whether the archive records (time, action, state). */
bool hudi_archive_v1_has(const hudi_archive_v1_entries *e, const char *time, const char *action,
                         hudi_instant_state state);

#endif
