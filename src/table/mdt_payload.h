/* HoodieMetadataRecord: the Avro payload of every metadata-table (MDT)
 * record, decoded into typed fields and encoded back to the bytes Hudi
 * writes (spec hudi-metadata-table.md §2).
 *
 * A payload is a plain Avro binary datum (no container, no fingerprint) of
 * the schema in the HFile's file info "schema" (or a log block's SCHEMA
 * header): five nullable Hudi meta fields, then key, type,
 * filesystemMetadata, BloomFilterMetadata, ColumnStatsMetadata,
 * recordIndexMetadata, SecondaryIndexMetadata. Hudi writes `key` as "" in
 * the value; the real key is the HFile key.
 *
 * Decoding keeps the whole value tree too, so any record (bloom filters,
 * secondary index, newer fields) re-encodes to its exact bytes; the files
 * and record-index kinds can also be built from their typed fields alone
 * (the write path). */
#ifndef HUDI_TABLE_MDT_PAYLOAD_H
#define HUDI_TABLE_MDT_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "avro/arena.h"
#include "avro/schema.h"
#include "avro/value.h"
#include "base/buf.h"
#include "base/error.h"

/* MetadataPartitionType record types (the payload's `type`). */
enum {
  HUDI_MDT_TYPE_EXPRESSION_INDEX = -1,
  HUDI_MDT_TYPE_PARTITION_LIST = 1, /* files: key __all_partitions__ */
  HUDI_MDT_TYPE_FILE_LIST = 2,      /* files: key = partition path */
  HUDI_MDT_TYPE_COLUMN_STATS = 3,
  HUDI_MDT_TYPE_BLOOM_FILTER = 4,
  HUDI_MDT_TYPE_RECORD_INDEX = 5,
  HUDI_MDT_TYPE_PARTITION_STATS = 6,
  HUDI_MDT_TYPE_SECONDARY_INDEX = 7
};

#define HUDI_MDT_ALL_PARTITIONS_KEY "__all_partitions__"
#define HUDI_MDT_NON_PARTITIONED_NAME "."
#define HUDI_MDT_META_FIELDS 5

/* One entry of filesystemMetadata: map<fileName, HoodieMetadataFileInfo>. */
typedef struct hudi_mdt_file_entry {
  const char *name; /* partition path (type 1) or file name (type 2) */
  size_t name_len;
  int64_t size;
  bool is_deleted;
} hudi_mdt_file_entry;

/* HoodieRecordIndexInfo. A nullable field is absent when its has_ flag is
 * false (the null branch). */
typedef struct hudi_mdt_rli {
  const char *partition; /* NULL = null; "" for a non-partitioned table */
  bool has_high, has_low, has_file_index, has_instant, has_position;
  int64_t high_bits, low_bits; /* UUID most/least significant bits */
  int32_t file_index;          /* the "-N" suffix, -1 when none */
  const char *file_id;         /* NULL = null; "" for encoding 0 */
  int64_t instant_ms;          /* epoch ms of the data instant */
  int32_t encoding;            /* 0 UUID bits, 1 raw fileId */
  int64_t position;
} hudi_mdt_rli;

/* HoodieMetadataColumnStats (column_stats and partition_stats), decoded
 * only. min/max are the wrapper records (IntWrapper, StringWrapper, ...)
 * as value trees, NULL when null. */
typedef struct hudi_mdt_column_stats {
  const char *file_name, *column_name; /* NULL = null */
  const hudi_avro_value *min_value, *max_value;
  bool has_null_count, has_value_count, has_total_size, has_total_uncompressed_size;
  int64_t null_count, value_count, total_size, total_uncompressed_size;
  bool is_deleted;
  bool has_is_tight_bound;
  bool is_tight_bound;
} hudi_mdt_column_stats;

typedef struct hudi_mdt_record {
  hudi_avro_arena arena;   /* owns everything below */
  const char *key;         /* the record key (the HFile key) */
  size_t key_len;
  const char *value_key;   /* the `key` field inside the value ("" as Hudi writes) */
  const char *meta[HUDI_MDT_META_FIELDS]; /* _hoodie_* fields; NULL = null */
  int32_t type;
  /* filesystemMetadata; has_files false = null. Entries in value order. */
  bool has_files;
  hudi_mdt_file_entry *files;
  size_t n_files, cap_files;
  bool has_rli; /* recordIndexMetadata not null */
  hudi_mdt_rli rli;
  bool has_column_stats; /* ColumnStatsMetadata not null */
  hudi_mdt_column_stats column_stats;
  /* The decoded value (NULL for a record built by hand). */
  hudi_avro_value *value;
} hudi_mdt_record;

/* A zeroed record with its arena ready (value_key ""). */
void hudi_mdt_record_init(hudi_mdt_record *r);
void hudi_mdt_record_free(hudi_mdt_record *r);

/* Largest key or payload accepted. */
#define HUDI_MDT_MAX_PAYLOAD ((size_t)1 << 30)

/* Decodes one payload written with schema `writer` (a HoodieMetadataRecord
 * schema) into a fresh record; key/key_len is the HFile key (copied).
 * Trailing bytes, a missing key/type field or a record-index or file entry
 * of the wrong shape are HUDI_ERR_CORRUPT naming `where` and the key.
 * Free *out with hudi_mdt_record_free, also on failure. */
HUDI_NODISCARD hudi_status hudi_mdt_record_decode(hudi_mdt_record *out, const hudi_avro_node *writer,
                                                  const char *key, size_t key_len, const uint8_t *data,
                                                  size_t len, const char *where, hudi_error *err);

/* Appends the payload bytes of r in schema `schema`. Types 1, 2 and 5 are
 * built from the typed fields (meta fields, value_key, type,
 * filesystemMetadata, recordIndexMetadata; every other field null); any
 * other type needs the decoded value and re-encodes it (its schema must
 * then be `schema`). */
HUDI_NODISCARD hudi_status hudi_mdt_record_encode(const hudi_mdt_record *r, const hudi_avro_node *schema,
                                                  hudi_buf *out, hudi_error *err);

/* ---- merging (HoodieMetadataPayload.preCombine) ---- */

/* Combines an older and a newer value of one key into *out, consuming
 * both (they are left freed; out may be older or newer itself). File listings (types
 * 1 and 2, when both records have that type) merge their maps as Java's
 * combineFileSystemMetadata does (Map.merge): a name the older map lacks is
 * added as it is (a tombstone too); for a name it has, a newer isDeleted
 * removes it and a live newer entry becomes {max(size), live}. Every other
 * type: the newer record replaces the older. older may be NULL. */
HUDI_NODISCARD hudi_status hudi_mdt_record_combine(hudi_mdt_record *out, hudi_mdt_record *older,
                                                   hudi_mdt_record *newer, hudi_error *err);

/* A deep copy of src's typed fields into a fresh *dst (free it with
 * hudi_mdt_record_free, also on failure). The copy has no value tree (and
 * so no column-stats min/max values). */
HUDI_NODISCARD hudi_status hudi_mdt_record_copy(hudi_mdt_record *dst, const hudi_mdt_record *src, hudi_error *err);

/* ---- building records ---- */

/* Sets key (copied) and type. */
HUDI_NODISCARD hudi_status hudi_mdt_record_set_key(hudi_mdt_record *r, const char *key, size_t len,
                                                   int32_t type, hudi_error *err);
/* Appends a filesystemMetadata entry (name copied); sets has_files. */
HUDI_NODISCARD hudi_status hudi_mdt_record_add_file(hudi_mdt_record *r, const char *name, size_t len,
                                                    int64_t size, bool is_deleted, hudi_error *err);

/* ---- record index ---- */

/* The RLI location of a data file id (HoodieMetadataPayload
 * createRecordIndexUpdate): a "<uuid>" or "<uuid>-<N>" id (N a decimal
 * int) is encoding 0 with the UUID's bits and fileIndex N (-1 without a
 * suffix), fileId ""; any other id is encoding 1 with the bits and
 * fileIndex -1 and fileId the raw id. partition and file_id are copied
 * into r's arena; r gets type 5 and has_rli. */
HUDI_NODISCARD hudi_status hudi_mdt_record_set_rli(hudi_mdt_record *r, const char *partition,
                                                   const char *file_id, int64_t instant_ms, hudi_error *err);

/* Appends the data file id an RLI entry points to, as Java's
 * HoodieTableMetadataUtil.getLocationFromRecordIndexInfo builds it:
 * encoding 0: new UUID(high, low).toString() (lower-case hex 8-4-4-4-12),
 * then "-<fileIndex>" unless fileIndex is -1; encoding 1: fileId. A missing
 * field the encoding needs is HUDI_ERR_CORRUPT. */
HUDI_NODISCARD hudi_status hudi_mdt_rli_file_id(const hudi_mdt_rli *rli, hudi_buf *out, hudi_error *err);

/* Parses "<8>-<4>-<4>-<4>-<12>" lower- or upper-case hex into the two
 * Java UUID longs; false when s is not exactly that. */
bool hudi_mdt_parse_uuid(const char *s, size_t len, int64_t *high, int64_t *low);

#endif
