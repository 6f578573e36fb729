/* Writing pages: encodes one page's levels and values, compresses it and
 * appends header + body. The column/file writer over Arrow arrays builds
 * on this; values use the flat form of column_reader.h. */
#ifndef HUDI_PARQUET_PAGE_WRITER_H
#define HUDI_PARQUET_PAGE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "codec/codec.h"
#include "parquet/metadata.h"

typedef struct hudi_pq_page_input {
  hudi_pq_type type;
  int32_t type_length;
  int16_t max_def, max_rep;
  size_t num_levels;
  const int16_t *def_levels; /* NULL when max_def == 0 */
  const int16_t *rep_levels; /* NULL when max_rep == 0 */
  size_t num_values;         /* entries whose def level is max_def */
  /* Fixed-width values (BOOLEAN one byte each), or BYTE_ARRAY bytes with
   * num_values + 1 offsets; for dictionary encodings, uint32_t indices. */
  const void *values;
  const int32_t *offsets;
  int32_t encoding;          /* hudi_pq_encoding */
  uint32_t dict_size;        /* RLE_DICTIONARY / PLAIN_DICTIONARY */
  bool v2;                   /* DataPageHeaderV2 */
  int32_t num_rows;          /* v2 header: rows starting in this page */
  hudi_pq_codec codec;
  int level;                 /* the codec's level; 0: its default (GZIP: always hudi_gzip_adaptive's) */
} hudi_pq_page_input;

/* Encodes values with one encoding (no levels) and appends them. */
HUDI_NODISCARD hudi_status hudi_pq_values_encode(hudi_buf *out, int32_t encoding, hudi_pq_type type,
                                                 int32_t type_length, const void *values, const int32_t *offsets,
                                                 size_t n, uint32_t dict_size, hudi_error *err);

/* Reusable buffers for building pages one after another: the encoded
 * body, and the page (header + compressed body) handed back by the
 * *_build functions. */
typedef struct hudi_pq_page_scratch {
  hudi_buf body, page, header;
} hudi_pq_page_scratch;

void hudi_pq_page_scratch_init(hudi_pq_page_scratch *s);
void hudi_pq_page_scratch_free(hudi_pq_page_scratch *s);

/* A built page: header + body bytes, valid until the scratch is used again. */
typedef struct hudi_pq_page_out {
  const uint8_t *data;
  size_t len;
} hudi_pq_page_out;

/* Builds a data page in s (the body is compressed once, straight into the
 * page buffer behind room for the header). GZIP bodies go through
 * hudi_gzip_adaptive (codec/gzip_huffman.h): values LZ77 cannot shrink,
 * such as float vectors, are coded with literals only, v1 levels with
 * matching. The size totals (nullable) grow by the page's sizes, header
 * included. */
HUDI_NODISCARD hudi_status hudi_pq_data_page_build(hudi_pq_page_scratch *s, const hudi_pq_page_input *in,
                                                   hudi_pq_page_out *out, int64_t *uncompressed_total,
                                                   int64_t *compressed_total, hudi_error *err);

/* Builds a dictionary page of n PLAIN-encoded entries in s. */
HUDI_NODISCARD hudi_status hudi_pq_dictionary_page_build(hudi_pq_page_scratch *s, hudi_pq_type type,
                                                         int32_t type_length, const void *values,
                                                         const int32_t *offsets, size_t n, hudi_pq_codec codec,
                                                         hudi_pq_page_out *out, int64_t *uncompressed_total,
                                                         int64_t *compressed_total, hudi_error *err);

/* Appends a data page (header and body). *uncompressed_total and
 * *compressed_total (nullable) grow by the page's sizes, header included. */
HUDI_NODISCARD hudi_status hudi_pq_data_page_write(hudi_buf *out, const hudi_pq_page_input *in,
                                                   int64_t *uncompressed_total, int64_t *compressed_total,
                                                   hudi_error *err);

/* Appends a dictionary page of n PLAIN-encoded entries. */
HUDI_NODISCARD hudi_status hudi_pq_dictionary_page_write(hudi_buf *out, hudi_pq_type type, int32_t type_length,
                                                         const void *values, const int32_t *offsets, size_t n,
                                                         hudi_pq_codec codec, int64_t *uncompressed_total,
                                                         int64_t *compressed_total, hudi_error *err);

/* Maps a Parquet codec to ours (HUDI_ERR_UNSUPPORTED for LZO, BROTLI and
 * the ambiguous framed LZ4). */
HUDI_NODISCARD hudi_status hudi_pq_codec_map(hudi_codec *out, hudi_pq_codec codec, hudi_error *err);

#endif
