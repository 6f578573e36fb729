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

#endif
