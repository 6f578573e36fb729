/* The Hudi log format: a log file is a sequence of blocks with no file
 * header. Each block, all integers big-endian (HoodieLogFormatWriter):
 *
 *   offset  size  field
 *   0       6     magic "#HUDI#"
 *   6       8     int64 block size = bytes after this field to the end of
 *                 the block, trailer included (4+4+H+8+C+F+8)
 *   14      4     int32 log format version (always 1)
 *   18      4     int32 block type (HoodieLogBlockType ordinal)
 *   22      H     header map: int32 n, then n x (int32 key ordinal,
 *                 int32 byte length, UTF-8 bytes)
 *   22+H    8     int64 content length C
 *   30+H    C     content
 *   30+H+C  F     footer map, same encoding (Java writes n = 0)
 *   ..      8     int64 = bytes from the magic through the footer, i.e.
 *                 the block's length minus these 8 (a reverse pointer)
 *
 * Header entries are kept in file order: Java writes them from a HashMap
 * whose iteration order differs between writers, and keeping the order is
 * what makes a parsed block re-encode to the same bytes. */
#ifndef HUDI_TABLE_LOG_FORMAT_H
#define HUDI_TABLE_LOG_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

#define HUDI_LOG_MAGIC "#HUDI#"
#define HUDI_LOG_MAGIC_LEN 6
#define HUDI_LOG_FORMAT_VERSION 1
/* Fixed bytes of a block around its header, content and footer maps:
 * magic, size, version, type, content length, trailer. */
#define HUDI_LOG_BLOCK_FIXED (6 + 8 + 4 + 4 + 8 + 8)
/* Smallest block: the fixed bytes plus two empty maps. */
#define HUDI_LOG_BLOCK_MIN (HUDI_LOG_BLOCK_FIXED + 4 + 4)
/* Java reads sizes into an int: no block (or content) is 2 GiB or more. */
#define HUDI_LOG_BLOCK_MAX ((uint64_t)INT32_MAX)
#define HUDI_LOG_META_MAX_ENTRIES 1024

/* HoodieLogBlock.HoodieLogBlockType, by ordinal. CORRUPT is never written:
 * the reader reports unreadable byte ranges with it. */
typedef enum hudi_log_block_type {
  HUDI_LOG_BLOCK_COMMAND = 0,
  HUDI_LOG_BLOCK_DELETE = 1,
  HUDI_LOG_BLOCK_CORRUPT = 2,
  HUDI_LOG_BLOCK_AVRO_DATA = 3,
  HUDI_LOG_BLOCK_HFILE_DATA = 4,
  HUDI_LOG_BLOCK_PARQUET_DATA = 5,
  HUDI_LOG_BLOCK_CDC_DATA = 6
} hudi_log_block_type;
#define HUDI_LOG_BLOCK_TYPE_COUNT 7

/* HoodieLogBlock.HeaderMetadataType, by ordinal (only appended to). */
typedef enum hudi_log_header_key {
  HUDI_LOG_HEADER_INSTANT_TIME = 0,
  HUDI_LOG_HEADER_TARGET_INSTANT_TIME = 1,
  HUDI_LOG_HEADER_SCHEMA = 2,
  HUDI_LOG_HEADER_COMMAND_BLOCK_TYPE = 3,
  HUDI_LOG_HEADER_COMPACTED_BLOCK_TIMES = 4, /* comma-separated instants */
  HUDI_LOG_HEADER_RECORD_POSITIONS = 5,      /* base64 portable Roaring64 bitmap */
  HUDI_LOG_HEADER_BLOCK_IDENTIFIER = 6,
  HUDI_LOG_HEADER_IS_PARTIAL = 7,            /* "true" */
  HUDI_LOG_HEADER_BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS = 8
} hudi_log_header_key;
#define HUDI_LOG_HEADER_KEY_COUNT 9

/* HoodieCommandBlock.HoodieCommandBlockTypeEnum: the value of
 * COMMAND_BLOCK_TYPE is the ordinal in decimal ("0"). */
#define HUDI_LOG_COMMAND_ROLLBACK 0

/* "COMMAND_BLOCK", "INSTANT_TIME", ...; NULL for an unknown ordinal. */
const char *hudi_log_block_type_name(int32_t type);
const char *hudi_log_header_key_name(int32_t key);
/* True for the types whose content is records (AVRO, HFILE, PARQUET, CDC). */
bool hudi_log_block_type_is_data(int32_t type);

/* ---- header / footer maps ------------------------------------------- */

typedef struct hudi_log_meta_entry {
  int32_t key;  /* an ordinal; unknown (newer) ordinals are kept as they are */
  char *value;  /* owned, NUL-terminated (the bytes may contain NUL too) */
  size_t len;
} hudi_log_meta_entry;

typedef struct hudi_log_meta {
  hudi_log_meta_entry *items;
  size_t count, cap;
} hudi_log_meta;

#define HUDI_LOG_META_INIT {NULL, 0, 0}

void hudi_log_meta_free(hudi_log_meta *m);
/* Replaces the value of key where it is, or appends key. */
HUDI_NODISCARD hudi_status hudi_log_meta_set(hudi_log_meta *m, int32_t key, const char *value,
                                             size_t len, hudi_error *err);
/* hudi_log_meta_set with a NUL-terminated value. */
HUDI_NODISCARD hudi_status hudi_log_meta_set_str(hudi_log_meta *m, int32_t key, const char *value,
                                                 hudi_error *err);
/* Appends an entry even if key is present (to mirror a file exactly). */
HUDI_NODISCARD hudi_status hudi_log_meta_append(hudi_log_meta *m, int32_t key, const char *value,
                                                size_t len, hudi_error *err);
/* The value of key (the last one, as Java's HashMap keeps), or NULL. */
const char *hudi_log_meta_get(const hudi_log_meta *m, int32_t key, size_t *len);
/* Encoded size of the map (4 + per entry 8 + value length). */
uint64_t hudi_log_meta_encoded_size(const hudi_log_meta *m);

/* ---- blocks --------------------------------------------------------- */

typedef struct hudi_log_block {
  int32_t type;           /* hudi_log_block_type */
  int32_t format_version; /* 1; 0 for a corrupt block */
  uint64_t offset;        /* file offset of the magic */
  uint64_t length;        /* bytes from the magic to the end of the block */
  hudi_log_meta header;   /* owned */
  hudi_log_meta footer;   /* owned */
  uint64_t content_offset;
  uint64_t content_len;
  /* The content bytes when the reader has them in memory (a reader over a
   * byte range); NULL when it reads lazily from storage: then
   * hudi_log_reader_content fetches them. Borrowed from the reader. For a
   * CORRUPT block, "content" is everything after its magic up to the next
   * magic or the end of the file, as Java's HoodieCorruptBlock. */
  const uint8_t *content;
  const char *corrupt_reason; /* static text, for CORRUPT blocks */
} hudi_log_block;

void hudi_log_block_free(hudi_log_block *b);

/* Appends one complete block to out. header and footer may be NULL (an
 * empty map). content may be NULL when content_len is 0. */
HUDI_NODISCARD hudi_status hudi_log_block_encode(hudi_buf *out, int32_t type,
                                                 const hudi_log_meta *header,
                                                 const hudi_log_meta *footer,
                                                 const uint8_t *content, size_t content_len,
                                                 hudi_error *err);

/* The same, with buf holding the content (all of it): the header is put in
 * front of it in place and the footer after, so a large content is not
 * copied into a second buffer. On failure buf is unchanged. */
HUDI_NODISCARD hudi_status hudi_log_block_wrap(hudi_buf *buf, int32_t type, const hudi_log_meta *header,
                                               const hudi_log_meta *footer, hudi_error *err);

/* Parses the block that fills data[0, len) exactly (data starts at its
 * magic; len is 14 + its size field). base is the file offset of data[0]
 * and where the file's name, for messages. Every length is checked against
 * the block; a block whose parts do not add up to its size is
 * HUDI_ERR_CORRUPT, a format version other than 1 or an unknown block type
 * HUDI_ERR_UNSUPPORTED. out->content points into data. */
HUDI_NODISCARD hudi_status hudi_log_block_parse(hudi_log_block *out, const uint8_t *data,
                                                size_t len, uint64_t base, const char *where,
                                                hudi_error *err);

/* The two halves of hudi_log_block_parse, for readers that fetch a block
 * in pieces. b->offset and b->length must be set. parse_head reads from the
 * magic through the content length (data holds the block's first `avail`
 * bytes; *need_more is set, with an error, when avail was too short) and
 * sets content_offset/len and header; parse_tail reads the footer map and
 * the trailer from the bytes between the content's end and the block's. */
HUDI_NODISCARD hudi_status hudi_log_block_parse_head(hudi_log_block *b, const uint8_t *data,
                                                     size_t avail, uint64_t base,
                                                     const char *where, bool *need_more,
                                                     hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_block_parse_tail(hudi_log_block *b, const uint8_t *tail,
                                                     size_t len, const char *where,
                                                     hudi_error *err);

/* Big-endian helpers shared by the log code. */
static inline uint32_t hudi_log_be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t hudi_log_be64(const uint8_t *p) {
  return ((uint64_t)hudi_log_be32(p) << 32) | hudi_log_be32(p + 4);
}
HUDI_NODISCARD hudi_status hudi_log_put_be32(hudi_buf *b, uint32_t v, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_log_put_be64(hudi_buf *b, uint64_t v, hudi_error *err);

#endif
