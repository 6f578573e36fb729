/* Pieces shared by the metadata-table writers (mdt_init.c, mdt_write.c):
 * the MDT's paths, its timeline files, HFile and log-block building, and
 * the commit metadata of its deltacommits. Internal to the table layer. */
#ifndef HUDI_TABLE_MDT_WRITE_COMMON_H
#define HUDI_TABLE_MDT_WRITE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "avro/schema.h"
#include "base/buf.h"
#include "hfile/hfile.h"
#include "io/storage.h"
#include "table/bloom.h"
#include "table/commit_metadata.h"
#include "table/instant_file.h"
#include "table/mdt_payload.h"
#include "table/mdt_write.h"

#define HUDI_MDT_W_BASE ".hoodie/metadata"
#define HUDI_MDT_W_TIMELINE ".hoodie/metadata/.hoodie/timeline"
#define HUDI_MDT_W_PROPS ".hoodie/metadata/.hoodie/hoodie.properties"

/* The options with defaults applied; HUDI_ERR_INVALID_ARG for a table
 * version other than 8 or 9. */
/* The MDT's hoodie.table.version from HUDI_MDT_W_PROPS under s (the data
 * table's storage): HUDI_ERR_NOT_FOUND without an MDT, HUDI_ERR_UNSUPPORTED
 * for a version other than 8 or 9. */
HUDI_NODISCARD hudi_status hudi_mdt_w_read_version(hudi_storage *s, int *out, hudi_error *err);

HUDI_NODISCARD hudi_status hudi_mdt_w_resolve(hudi_mdt_write_options *out, const hudi_mdt_write_options *in,
                                              hudi_error *err);

/* The HoodieMetadataRecord schema of a table version, parsed (free with
 * hudi_avro_schema_free), and its exact JSON text. */
HUDI_NODISCARD hudi_status hudi_mdt_w_schema(hudi_avro_schema **out, int table_version, hudi_error *err);

/* Writes .hoodie/metadata/.hoodie/timeline/<file> for (instant, state)
 * unless it exists (HUDI_ERR_CONFLICT naming it then). */
HUDI_NODISCARD hudi_status hudi_mdt_w_instant(hudi_storage *s, const char *instant, const char *completion,
                                              hudi_instant_state state, const void *data, size_t len,
                                              hudi_error *err);

/* The same for any action (compaction, commit, clean, ...). */
HUDI_NODISCARD hudi_status hudi_mdt_w_instant_action(hudi_storage *s, const char *instant, const char *completion,
                                                     const char *action, hudi_instant_state state, const void *data,
                                                     size_t len, hudi_error *err);

/* A completion time greater than T (and than every completion the MDT
 * timeline holds), or opts->completion_time when set. */
HUDI_NODISCARD hudi_status hudi_mdt_w_completion(hudi_storage *s, const hudi_mdt_write_options *opts,
                                                 const char *instant, char out[HUDI_INSTANT_TIME_BUF],
                                                 hudi_error *err);

/* Writes <mdt partition>/.hoodie_partition_metadata (commitTime, depth 1). */
HUDI_NODISCARD hudi_status hudi_mdt_w_partition_metadata(hudi_storage *s, const char *partition, const char *instant,
                                                         hudi_error *err);

/* Sorts records by key (unsigned bytes) and encodes them as one HFile
 * (Hudi's MDT layout: GZ, the schema in the file info; with_base_info adds
 * the minRecordKey/maxRecordKey a base file carries). Keys must be unique.
 * *out is freed with hudi_free. */
HUDI_NODISCARD hudi_status hudi_mdt_w_hfile(hudi_mdt_record **recs, size_t n, const hudi_avro_node *schema,
                                            const char *schema_json, size_t schema_len,
                                            const hudi_mdt_write_options *opts, bool with_base_info, uint8_t **out,
                                            size_t *out_len, hudi_error *err);

/* The streaming form, for many records: a writer with the MDT settings and
 * the schema in its file info; then one put per record, in ascending key
 * order (scratch is a reusable value buffer). index_cells: the record
 * index or a secondary index, whose data blocks deflate from their cell
 * layout (hudi_hfile_writer_options.cell_deflate). */
HUDI_NODISCARD hudi_status hudi_mdt_w_hfile_open(hudi_hfile_writer **out, const char *schema_json, size_t schema_len,
                                                 const hudi_mdt_write_options *opts, bool index_cells, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_mdt_w_hfile_put(hudi_hfile_writer *w, const hudi_mdt_record *r,
                                                const hudi_avro_node *schema, hudi_buf *scratch, hudi_error *err);

/* ---- base HFiles (compaction, and a record-index shard's first keys) ---- */

/* HoodieMetadataConfig's bloom filter of MDT base files (the fixtures'
 * HFiles: 431328 bits, 30 hashes = 10000 entries at 1e-9). */
#define HUDI_MDT_BLOOM_ENTRIES 10000
#define HUDI_MDT_BLOOM_FPP 1e-9
/* Ends a base HFile as HoodieAvroHFileWriter does: file info
 * bloomFilterTypeCode (DYNAMIC_V0), minRecordKey (min_key) and
 * maxRecordKey (the writer's last key; both empty with no records), the
 * bloomFilter meta block; then finishes the writer (*out freed with
 * hudi_free; *out_len + 1 bytes are the caller's). */
HUDI_NODISCARD hudi_status hudi_mdt_w_base_finish(hudi_hfile_writer *w, hudi_bloom *bloom,
                                                  const uint8_t *min_key, size_t min_len, uint8_t **out,
                                                  size_t *out_len, hudi_error *err);

/* Appends an HFILE_DATA log block (headers SCHEMA then INSTANT_TIME). */
HUDI_NODISCARD hudi_status hudi_mdt_w_hfile_block(hudi_buf *out, const uint8_t *hfile, size_t len,
                                                  const char *schema_json, size_t schema_len, const char *instant,
                                                  hudi_error *err);
/* The same in place: buf holds the HFile and becomes the block (no copy
 * of the HFile into a second buffer). */
HUDI_NODISCARD hudi_status hudi_mdt_w_hfile_block_wrap(hudi_buf *buf, const char *schema_json, size_t schema_len,
                                                       const char *instant, hudi_error *err);

/* Appends a DELETE log block of keys (each {key, "record_index",
 * IntWrapper 0}); with_schema false writes the INSTANT_TIME header alone
 * (the empty initialisation block). */
HUDI_NODISCARD hudi_status hudi_mdt_w_delete_block(hudi_buf *out, const char *const *keys, const size_t *key_lens,
                                                   size_t n, bool with_schema, const char *schema_json,
                                                   size_t schema_len, const char *instant, hudi_error *err);

/* The same with the records' partitionPath `partition` (a secondary
 * index's deletions). */
HUDI_NODISCARD hudi_status hudi_mdt_w_delete_block_in(hudi_buf *out, const char *partition, const char *const *keys,
                                                      const size_t *key_lens, size_t n, bool with_schema,
                                                      const char *schema_json, size_t schema_len,
                                                      const char *instant, hudi_error *err);

/* A fresh deltacommit metadata with the operation and (when schema_json
 * is not NULL) extraMetadata.schema. */
HUDI_NODISCARD hudi_status hudi_mdt_w_commit_metadata(hudi_commit_metadata **out, const char *operation,
                                                      const char *schema_json, hudi_error *err);

/* Serialises m to Avro and completes (instant, completion) with it. */
HUDI_NODISCARD hudi_status hudi_mdt_w_complete(hudi_storage *s, const hudi_commit_metadata *m, const char *instant,
                                               const char *completion, hudi_error *err);

#endif
