/* Parquet metadata structures (apache/parquet-format parquet.thrift) and
 * their Thrift compact decoding and encoding: FileMetaData (the footer),
 * PageHeader, ColumnIndex and OffsetIndex.
 *
 * Decoded structures own their memory through one arena (hudi_pq_arena):
 * strings and arrays live until the arena is freed. Binary values
 * (statistics, key/value pairs) are copied into the arena, so the input
 * bytes may be released after decoding. Optional fields carry a has_ flag. */
#ifndef HUDI_PARQUET_METADATA_H
#define HUDI_PARQUET_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* ---- enums (values as in parquet.thrift) ---- */
typedef enum {
  HUDI_PQ_BOOLEAN = 0,
  HUDI_PQ_INT32 = 1,
  HUDI_PQ_INT64 = 2,
  HUDI_PQ_INT96 = 3,
  HUDI_PQ_FLOAT = 4,
  HUDI_PQ_DOUBLE = 5,
  HUDI_PQ_BYTE_ARRAY = 6,
  HUDI_PQ_FIXED_LEN_BYTE_ARRAY = 7
} hudi_pq_type;

typedef enum { HUDI_PQ_REQUIRED = 0, HUDI_PQ_OPTIONAL = 1, HUDI_PQ_REPEATED = 2 } hudi_pq_repetition;

typedef enum {
  HUDI_PQ_ENC_PLAIN = 0,
  HUDI_PQ_ENC_PLAIN_DICTIONARY = 2,
  HUDI_PQ_ENC_RLE = 3,
  HUDI_PQ_ENC_BIT_PACKED = 4,
  HUDI_PQ_ENC_DELTA_BINARY_PACKED = 5,
  HUDI_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6,
  HUDI_PQ_ENC_DELTA_BYTE_ARRAY = 7,
  HUDI_PQ_ENC_RLE_DICTIONARY = 8,
  HUDI_PQ_ENC_BYTE_STREAM_SPLIT = 9
} hudi_pq_encoding;

typedef enum {
  HUDI_PQ_CODEC_UNCOMPRESSED = 0,
  HUDI_PQ_CODEC_SNAPPY = 1,
  HUDI_PQ_CODEC_GZIP = 2,
  HUDI_PQ_CODEC_LZO = 3,
  HUDI_PQ_CODEC_BROTLI = 4,
  HUDI_PQ_CODEC_LZ4 = 5,
  HUDI_PQ_CODEC_ZSTD = 6,
  HUDI_PQ_CODEC_LZ4_RAW = 7
} hudi_pq_codec;

typedef enum {
  HUDI_PQ_PAGE_DATA = 0,
  HUDI_PQ_PAGE_INDEX = 1,
  HUDI_PQ_PAGE_DICTIONARY = 2,
  HUDI_PQ_PAGE_DATA_V2 = 3
} hudi_pq_page_type;

/* ConvertedType values used by hudi-c (all 0..21 are accepted). */
enum {
  HUDI_PQ_CT_UTF8 = 0,
  HUDI_PQ_CT_MAP = 1,
  HUDI_PQ_CT_MAP_KEY_VALUE = 2,
  HUDI_PQ_CT_LIST = 3,
  HUDI_PQ_CT_DECIMAL = 5,
  HUDI_PQ_CT_DATE = 6,
  HUDI_PQ_CT_TIMESTAMP_MILLIS = 9,
  HUDI_PQ_CT_TIMESTAMP_MICROS = 10
};

/* LogicalType union members: the field id of the set member. */
typedef enum {
  HUDI_PQ_LT_NONE = 0,
  HUDI_PQ_LT_STRING = 1,
  HUDI_PQ_LT_MAP = 2,
  HUDI_PQ_LT_LIST = 3,
  HUDI_PQ_LT_ENUM = 4,
  HUDI_PQ_LT_DECIMAL = 5,
  HUDI_PQ_LT_DATE = 6,
  HUDI_PQ_LT_TIME = 7,
  HUDI_PQ_LT_TIMESTAMP = 8,
  HUDI_PQ_LT_INTEGER = 10,
  HUDI_PQ_LT_UNKNOWN = 11,
  HUDI_PQ_LT_JSON = 12,
  HUDI_PQ_LT_BSON = 13,
  HUDI_PQ_LT_UUID = 14,
  HUDI_PQ_LT_FLOAT16 = 15,
  HUDI_PQ_LT_VARIANT = 16,
  HUDI_PQ_LT_GEOMETRY = 17,
  HUDI_PQ_LT_GEOGRAPHY = 18
} hudi_pq_logical_kind;

typedef enum { HUDI_PQ_UNIT_NONE = 0, HUDI_PQ_UNIT_MILLIS = 1, HUDI_PQ_UNIT_MICROS = 2, HUDI_PQ_UNIT_NANOS = 3 } hudi_pq_time_unit;

/* ---- arena ---- */
typedef struct hudi_pq_arena_block hudi_pq_arena_block;
typedef struct hudi_pq_arena {
  hudi_pq_arena_block *head;
  size_t used, size; /* of head */
  size_t total;      /* bytes handed out, checked against max */
  size_t max;
} hudi_pq_arena;

#define HUDI_PQ_ARENA_DEFAULT_MAX ((size_t)1 << 30)

void hudi_pq_arena_init(hudi_pq_arena *a, size_t max);
void hudi_pq_arena_free(hudi_pq_arena *a);
/* Zeroed, 8-byte aligned memory; NULL when out of memory or over max. */
void *hudi_pq_arena_alloc(hudi_pq_arena *a, size_t size);

/* ---- structures ---- */
typedef struct hudi_pq_bytes {
  const uint8_t *data;
  size_t len;
} hudi_pq_bytes;

typedef struct hudi_pq_logical_type {
  hudi_pq_logical_kind kind;
  int32_t scale, precision;       /* DECIMAL */
  bool is_adjusted_to_utc;        /* TIME, TIMESTAMP */
  hudi_pq_time_unit unit;         /* TIME, TIMESTAMP */
  int8_t bit_width;               /* INTEGER */
  bool is_signed;                 /* INTEGER */
} hudi_pq_logical_type;

typedef struct hudi_pq_schema_element {
  char *name;
  bool has_type, has_type_length, has_repetition, has_num_children, has_converted_type;
  bool has_scale, has_precision, has_field_id;
  hudi_pq_type type;
  int32_t type_length;
  hudi_pq_repetition repetition;
  int32_t num_children;
  int32_t converted_type;
  int32_t scale, precision, field_id;
  hudi_pq_logical_type logical; /* kind NONE when absent */
} hudi_pq_schema_element;

typedef struct hudi_pq_statistics {
  bool has_max, has_min, has_null_count, has_distinct_count, has_max_value, has_min_value;
  bool has_is_max_value_exact, has_is_min_value_exact, has_nan_count;
  hudi_pq_bytes max, min, max_value, min_value;
  int64_t null_count, distinct_count, nan_count;
  bool is_max_value_exact, is_min_value_exact;
} hudi_pq_statistics;

typedef struct hudi_pq_key_value {
  char *key;
  char *value; /* NULL when absent */
  size_t value_len;
} hudi_pq_key_value;

typedef struct hudi_pq_page_encoding_stats {
  int32_t page_type, encoding, count;
} hudi_pq_page_encoding_stats;

typedef struct hudi_pq_i64_list {
  int64_t *v;
  uint32_t n;
} hudi_pq_i64_list;

typedef struct hudi_pq_size_statistics {
  bool has_unencoded_byte_array_data_bytes, has_repetition_level_histogram, has_definition_level_histogram;
  int64_t unencoded_byte_array_data_bytes;
  hudi_pq_i64_list repetition_level_histogram, definition_level_histogram;
} hudi_pq_size_statistics;

typedef struct hudi_pq_column_meta {
  hudi_pq_type type;
  int32_t *encodings;
  uint32_t num_encodings;
  char **path_in_schema;
  uint32_t path_len;
  hudi_pq_codec codec;
  int64_t num_values, total_uncompressed_size, total_compressed_size;
  hudi_pq_key_value *key_value;
  uint32_t num_key_value;
  bool has_key_value;
  int64_t data_page_offset;
  bool has_index_page_offset, has_dictionary_page_offset, has_statistics, has_encoding_stats;
  bool has_bloom_filter_offset, has_bloom_filter_length, has_size_statistics;
  int64_t index_page_offset, dictionary_page_offset;
  hudi_pq_statistics statistics;
  hudi_pq_page_encoding_stats *encoding_stats;
  uint32_t num_encoding_stats;
  int64_t bloom_filter_offset;
  int32_t bloom_filter_length;
  hudi_pq_size_statistics size_statistics;
} hudi_pq_column_meta;

typedef struct hudi_pq_column_chunk {
  char *file_path; /* NULL when absent */
  int64_t file_offset;
  bool has_meta_data, has_offset_index, has_column_index, has_crypto;
  hudi_pq_column_meta meta;
  int64_t offset_index_offset, column_index_offset;
  int32_t offset_index_length, column_index_length;
} hudi_pq_column_chunk;

typedef struct hudi_pq_sorting_column {
  int32_t column_idx;
  bool descending, nulls_first;
} hudi_pq_sorting_column;

typedef struct hudi_pq_row_group {
  hudi_pq_column_chunk *columns;
  uint32_t num_columns;
  int64_t total_byte_size, num_rows;
  bool has_sorting_columns, has_file_offset, has_total_compressed_size, has_ordinal;
  hudi_pq_sorting_column *sorting_columns;
  uint32_t num_sorting_columns;
  int64_t file_offset, total_compressed_size;
  int16_t ordinal;
} hudi_pq_row_group;

typedef struct hudi_pq_file_meta {
  int32_t version;
  hudi_pq_schema_element *schema;
  uint32_t num_schema;
  int64_t num_rows;
  hudi_pq_row_group *row_groups;
  uint32_t num_row_groups;
  bool has_key_value, has_column_orders, has_encryption;
  hudi_pq_key_value *key_value;
  uint32_t num_key_value;
  char *created_by; /* NULL when absent */
  int32_t *column_orders; /* the union member id per column (1 = TYPE_ORDER) */
  uint32_t num_column_orders;
} hudi_pq_file_meta;

typedef struct hudi_pq_data_page_header {
  int32_t num_values;
  int32_t encoding, definition_level_encoding, repetition_level_encoding;
  bool has_statistics;
  hudi_pq_statistics statistics;
} hudi_pq_data_page_header;

typedef struct hudi_pq_dictionary_page_header {
  int32_t num_values;
  int32_t encoding;
  bool has_is_sorted, is_sorted;
} hudi_pq_dictionary_page_header;

typedef struct hudi_pq_data_page_header_v2 {
  int32_t num_values, num_nulls, num_rows;
  int32_t encoding;
  int32_t definition_levels_byte_length, repetition_levels_byte_length;
  bool has_is_compressed, is_compressed; /* is_compressed defaults to true */
  bool has_statistics;
  hudi_pq_statistics statistics;
} hudi_pq_data_page_header_v2;

typedef struct hudi_pq_page_header {
  int32_t type; /* hudi_pq_page_type, or an unknown value to skip */
  int32_t uncompressed_page_size, compressed_page_size;
  bool has_crc, has_data_page, has_dictionary_page, has_data_page_v2, has_index_page;
  int32_t crc;
  hudi_pq_data_page_header data_page;
  hudi_pq_dictionary_page_header dictionary_page;
  hudi_pq_data_page_header_v2 data_page_v2;
} hudi_pq_page_header;

typedef struct hudi_pq_page_location {
  int64_t offset;
  int32_t compressed_page_size;
  int64_t first_row_index;
} hudi_pq_page_location;

typedef struct hudi_pq_offset_index {
  hudi_pq_page_location *pages;
  uint32_t num_pages;
  bool has_unencoded_byte_array_data_bytes;
  hudi_pq_i64_list unencoded_byte_array_data_bytes;
} hudi_pq_offset_index;

typedef struct hudi_pq_column_index {
  bool *null_pages;
  uint32_t num_pages;
  hudi_pq_bytes *min_values, *max_values; /* num_pages each */
  int32_t boundary_order;
  bool has_null_counts, has_repetition_level_histograms, has_definition_level_histograms, has_nan_counts;
  hudi_pq_i64_list null_counts, repetition_level_histograms, definition_level_histograms, nan_counts;
} hudi_pq_column_index;

/* ---- decoding ----
 * base_offset is the absolute file offset of data[0]; errors name the
 * absolute byte offset. *consumed (nullable) receives the bytes read. */
HUDI_NODISCARD hudi_status hudi_pq_file_meta_decode(hudi_pq_file_meta *out, hudi_pq_arena *arena, const uint8_t *data,
                                                    size_t len, size_t base_offset, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_page_header_decode(hudi_pq_page_header *out, size_t *consumed,
                                                      hudi_pq_arena *arena, const uint8_t *data, size_t len,
                                                      size_t base_offset, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_offset_index_decode(hudi_pq_offset_index *out, hudi_pq_arena *arena,
                                                       const uint8_t *data, size_t len, size_t base_offset,
                                                       hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_column_index_decode(hudi_pq_column_index *out, hudi_pq_arena *arena,
                                                       const uint8_t *data, size_t len, size_t base_offset,
                                                       hudi_error *err);

/* ---- encoding (appends to out) ---- */
HUDI_NODISCARD hudi_status hudi_pq_file_meta_encode(hudi_buf *out, const hudi_pq_file_meta *m, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_page_header_encode(hudi_buf *out, const hudi_pq_page_header *h, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_offset_index_encode(hudi_buf *out, const hudi_pq_offset_index *o, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_pq_column_index_encode(hudi_buf *out, const hudi_pq_column_index *c, hudi_error *err);

/* ---- footer ----
 * A file ends with <footer><4-byte LE footer length>"PAR1" and starts with
 * "PAR1". Given the file's last bytes (tail, at absolute offset
 * file_size - tail_len), finds the footer: *footer_offset and *footer_len.
 * When the footer is not wholly inside tail, it still returns its position
 * so the caller can read it (check *footer_offset against the tail's). */
HUDI_NODISCARD hudi_status hudi_pq_footer_locate(size_t *footer_offset, size_t *footer_len, const uint8_t *tail,
                                                 size_t tail_len, size_t file_size, hudi_error *err);
/* Parses a whole Parquet file held in memory: checks both magics and
 * decodes the footer. */
HUDI_NODISCARD hudi_status hudi_pq_file_meta_parse_file(hudi_pq_file_meta *out, hudi_pq_arena *arena,
                                                        const uint8_t *file, size_t file_size, hudi_error *err);

/* Number of leaf columns of a schema (elements without children). */
uint32_t hudi_pq_schema_num_leaves(const hudi_pq_file_meta *m);

#endif
