/* Timeline layout 1 (table version 6) from what the writers produce for
 * layout 2: hudi_write_instant_file (write.c) hands every timeline file of
 * a version-6 table through here (hudi-format-v6-and-archive.md A4).
 *
 *  - names: no completion time, files directly in .hoodie/, and no
 *    `clustering` action (0.x writes clustering as replacecommit);
 *  - content: commit, deltacommit and replacecommit keep their
 *    HoodieCommitMetadata / HoodieReplaceCommitMetadata as Jackson JSON
 *    (completed files and the inflight "workload profile"); every plan
 *    (replacecommit.requested, compaction, clean, rollback) stays Avro. */
#ifndef HUDI_TABLE_INSTANT_V6_H
#define HUDI_TABLE_INSTANT_V6_H

#include <stddef.h>

#include "base/buf.h"
#include "base/error.h"
#include "table/instant_file.h"

/* The action layout 1 names: "clustering" -> "replacecommit", else action. */
const char *hudi_instant_v6_action(const char *action);

/* The layout-1 bytes of an instant file whose layout-2 bytes are
 * data[0, len): *out_data / *out_len point at data itself when the bytes
 * are the same in both layouts, else into out (JSON). Avro commit
 * metadata becomes JSON; an empty commit/deltacommit/replacecommit inflight
 * or completed file becomes the JSON of an empty commit metadata (hudi-rs
 * parses completed files as JSON and rejects 0 bytes). A replacecommit's
 * inflight is a plain HoodieCommitMetadata, as 0.x writes it. */
HUDI_NODISCARD hudi_status hudi_instant_v6_content(hudi_buf *out, const void **out_data, size_t *out_len,
                                                   const char *action, hudi_instant_state state, const void *data,
                                                   size_t len, hudi_error *err);

#endif
