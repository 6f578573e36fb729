/* Avro object container files (Avro specification, "Object Container
 * Files"): "Obj\1", a metadata map (avro.schema, avro.codec, ...), a
 * 16-byte sync marker, then blocks of (count, byte size, data, sync).
 *
 * Codecs: null, deflate (raw), snappy (raw + big-endian CRC32 of the
 * uncompressed data), zstandard. The writer can reproduce Java's files byte
 * for byte: the caller gives the metadata order, the sync marker and where
 * blocks end. */
#ifndef HUDI_AVRO_CONTAINER_H
#define HUDI_AVRO_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "avro/binary.h"
#include "avro/schema.h"
#include "avro/value.h"
#include "base/buf.h"
#include "base/error.h"

typedef enum hudi_avro_codec {
  HUDI_AVRO_CODEC_NULL = 0,
  HUDI_AVRO_CODEC_DEFLATE,
  HUDI_AVRO_CODEC_SNAPPY,
  HUDI_AVRO_CODEC_ZSTANDARD
} hudi_avro_codec;

/* "null", "deflate", "snappy", "zstandard" (as stored in avro.codec). */
const char *hudi_avro_codec_name(hudi_avro_codec c);
HUDI_NODISCARD hudi_status hudi_avro_codec_parse(hudi_avro_codec *out, const char *name, size_t len,
                                                 hudi_error *err);

#define HUDI_AVRO_SYNC_SIZE 16
#define HUDI_AVRO_MAX_META_ENTRIES 1024
#define HUDI_AVRO_MAX_BLOCK ((size_t)1 << 30) /* compressed or not */

typedef struct hudi_avro_meta {
  char *key;      /* NUL-terminated */
  uint8_t *value; /* NUL-terminated, len not counting it */
  size_t len;
} hudi_avro_meta;

/* A container file being read from memory (the caller keeps the bytes). */
typedef struct hudi_avro_file {
  const uint8_t *data;
  size_t len;
  char *name; /* for messages */
  hudi_avro_meta *meta;
  size_t n_meta;
  hudi_avro_schema *schema;
  hudi_avro_codec codec;
  uint8_t sync[HUDI_AVRO_SYNC_SIZE];
  size_t header_len; /* where the first block starts */
  size_t pos;        /* where the next block starts */
  hudi_buf block;    /* decompressed block */
  size_t max_block;  /* cap on a decompressed block */
  char where[320];   /* label of the current block, for messages */
} hudi_avro_file;

typedef struct hudi_avro_block {
  int64_t count;       /* objects in the block */
  const uint8_t *data; /* their encoding, uncompressed; valid until the next call */
  size_t len;
  uint64_t offset;     /* file offset of the block's count */
  size_t stored_len;   /* bytes of data as stored (compressed) */
} hudi_avro_block;

/* Parses the header. name labels errors. */
HUDI_NODISCARD hudi_status hudi_avro_file_open(hudi_avro_file *f, const uint8_t *data, size_t len,
                                               const char *name, hudi_error *err);
void hudi_avro_file_close(hudi_avro_file *f);
/* The metadata value for key, or NULL. */
const hudi_avro_meta *hudi_avro_file_meta(const hudi_avro_file *f, const char *key);
/* Next block; *done = 1 (and nothing else set) at the end of the file. */
HUDI_NODISCARD hudi_status hudi_avro_file_next_block(hudi_avro_file *f, hudi_avro_block *b, int *done,
                                                     hudi_error *err);
/* Cursor over a block's data, labelled with the file name and using file
 * offsets when the block is uncompressed. */
void hudi_avro_file_block_cursor(const hudi_avro_file *f, const hudi_avro_block *b, hudi_avro_cursor *c);

/* Decodes every object of the file into an array of values (resolved to
 * `reader`, or the writer schema when NULL) in `arena`. Returns per-block
 * object counts too (optional, allocated with hudi_malloc) so a writer can
 * reproduce the block layout. */
HUDI_NODISCARD hudi_status hudi_avro_file_read_all(hudi_avro_file *f, hudi_avro_arena *arena,
                                                   const hudi_avro_node *reader, hudi_avro_value **values,
                                                   size_t *n_values, int64_t **block_counts,
                                                   size_t *n_blocks, hudi_error *err);

typedef struct hudi_avro_writer_opts {
  hudi_avro_codec codec;
  int level;            /* compression level, 0 = codec default */
  const uint8_t *sync;  /* 16 bytes; NULL = random */
  size_t sync_interval; /* flush a block once its uncompressed data reaches this; 0 = 64000
                           (Java's default); SIZE_MAX = only on hudi_avro_writer_flush */
} hudi_avro_writer_opts;

#define HUDI_AVRO_WRITER_OPTS_INIT {HUDI_AVRO_CODEC_NULL, 0, NULL, 0}

/* Writes a container file into an hudi_buf the caller owns. */
typedef struct hudi_avro_writer {
  hudi_buf *out;
  hudi_avro_writer_opts opts;
  uint8_t sync[HUDI_AVRO_SYNC_SIZE];
  hudi_avro_meta *meta;
  size_t n_meta, cap_meta;
  int header_done;
  hudi_buf block;  /* the open block, uncompressed */
  hudi_buf packed; /* scratch for compression */
  int64_t count;   /* objects in the open block */
} hudi_avro_writer;

/* Starts a file whose avro.schema is schema_json, byte for byte. */
HUDI_NODISCARD hudi_status hudi_avro_writer_init(hudi_avro_writer *w, hudi_buf *out, const char *schema_json,
                                                 size_t schema_len, const hudi_avro_writer_opts *opts,
                                                 hudi_error *err);
void hudi_avro_writer_free(hudi_avro_writer *w);
/* Adds (or replaces) a metadata entry before the first block is written.
 * The header lists entries in the order first added; avro.schema is
 * first unless added explicitly later, avro.codec is added (after the
 * others) only for a codec other than null unless set explicitly --
 * Java's choice for Hudi's timeline files. */
HUDI_NODISCARD hudi_status hudi_avro_writer_set_meta(hudi_avro_writer *w, const char *key, const void *value,
                                                     size_t len, hudi_error *err);
/* Appends one object: a value, or its ready binary encoding. */
HUDI_NODISCARD hudi_status hudi_avro_writer_append(hudi_avro_writer *w, const hudi_avro_value *v,
                                                   hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_writer_append_raw(hudi_avro_writer *w, const uint8_t *datum, size_t len,
                                                       hudi_error *err);
/* Ends the open block (if it holds objects). */
HUDI_NODISCARD hudi_status hudi_avro_writer_flush(hudi_avro_writer *w, hudi_error *err);
/* Flushes and makes sure the header is out (a file with no objects is
 * just the header). */
HUDI_NODISCARD hudi_status hudi_avro_writer_finish(hudi_avro_writer *w, hudi_error *err);

#endif
