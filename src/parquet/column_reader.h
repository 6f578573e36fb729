/* Reading one column chunk into a flat description: the leaf's definition
 * and repetition levels plus its non-null values, decoded from every page
 * (dictionary, data v1, data v2) with decompression.
 *
 * This is the hand-off to the Arrow assembly step (src/arrow/): for a leaf
 * with max levels (D, R),
 *   - entry k of the chunk has def_levels[k] (absent when D == 0: all D)
 *     and rep_levels[k] (absent when R == 0: all 0);
 *   - entry k carries a value iff def_levels[k] == D; values are stored
 *     densely in entry order (value j belongs to the j-th such entry);
 *   - rep_levels[k] == 0 starts a new top-level row; r > 0 continues the
 *     list at nesting depth r;
 *   - def_levels[k] < D says how deep the path is defined: with the leaf's
 *     ancestors' repetition types (hudi_pq_leaf.ancestors) it tells
 *     a null struct/list from an empty list from a null element.
 * Values: fixed-width types as little-endian arrays of value_size bytes
 * (BOOLEAN one byte 0/1, INT96 12 bytes, FLBA type_length bytes); BYTE_ARRAY
 * as concatenated bytes plus num_values + 1 int32 offsets. */
#ifndef HUDI_PARQUET_COLUMN_READER_H
#define HUDI_PARQUET_COLUMN_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/codec.h"
#include "base/error.h"
#include "parquet/metadata.h"

#define HUDI_PQ_MAX_NESTING 32

/* One leaf column of the schema. */
typedef struct hudi_pq_leaf {
  uint32_t schema_index; /* into hudi_pq_file_meta.schema */
  const hudi_pq_schema_element *element;
  char *path;            /* dotted path, arena-owned */
  int16_t max_def, max_rep;
  hudi_pq_type type;
  int32_t type_length;
  /* Ancestors from the root's first child down to the leaf itself. */
  uint32_t depth;
  uint32_t ancestors[HUDI_PQ_MAX_NESTING]; /* schema indexes */
} hudi_pq_leaf;

/* Lists the leaves in column order; checks the schema tree is well formed
 * (children counts add up, nesting within HUDI_PQ_MAX_NESTING, leaves have
 * a physical type). */
HUDI_NODISCARD hudi_status hudi_pq_schema_leaves(hudi_pq_leaf **leaves, uint32_t *num_leaves,
                                                 const hudi_pq_file_meta *m, hudi_pq_arena *arena, hudi_error *err);

/* Hard caps for one column chunk read. */
typedef struct hudi_pq_read_limits {
  size_t max_page_size;   /* uncompressed bytes of one page */
  size_t max_values_bytes; /* decoded bytes of one chunk's values */
  size_t max_levels;      /* level entries of one chunk */
} hudi_pq_read_limits;

#define HUDI_PQ_READ_LIMITS_DEFAULT {(size_t)1 << 30, (size_t)1 << 31, (size_t)1 << 28}

typedef struct hudi_pq_column_data {
  size_t num_levels;
  hudi_buf def_levels; /* int16_t entries; empty when max_def == 0 */
  hudi_buf rep_levels; /* int16_t entries; empty when max_rep == 0 */
  size_t num_values;   /* non-null values */
  hudi_buf values;
  hudi_buf offsets;    /* BYTE_ARRAY: int32_t, num_values + 1 entries */
  size_t num_data_pages;
  size_t num_dictionary_pages;
  /* Absolute file offset of each data page header, num_data_pages entries
   * (int64_t), to check against the OffsetIndex. */
  hudi_buf page_offsets;
  /* With hudi_pq_chunk_decoder.keep_dict_ids, dictionary-encoded pages
   * stay indices: values then holds num_values uint32_t indices (each
   * checked against the dictionary's size) into dict_values (and, for
   * BYTE_ARRAY, dict_offsets: int32_t, one more than entries), the
   * decoder's dictionary of the current chunk; offsets is unused. A
   * decoded window is then 4 bytes a value instead of the value itself. */
  bool dict_ids;
  const hudi_buf *dict_values, *dict_offsets;
} hudi_pq_column_data;

void hudi_pq_column_data_init(hudi_pq_column_data *d);
void hudi_pq_column_data_free(hudi_pq_column_data *d);

/* The byte range of a column chunk: from its dictionary page (when there
 * is one) or first data page, total_compressed_size bytes; checked against
 * file_size. */
HUDI_NODISCARD hudi_status hudi_pq_column_chunk_range(size_t *offset, size_t *len, const hudi_pq_column_chunk *cc,
                                                      size_t file_size, hudi_error *err);

/* Decoding a chunk a data page at a time, appending to a
 * hudi_pq_column_data that the caller may shrink between pages
 * (hudi_pq_column_data_drop): memory then follows the pages being used,
 * not the whole chunk, and the buffers (the decoder's and the data's) are
 * reused from page to page and, through start, from chunk to chunk. */
typedef struct hudi_pq_chunk_decoder {
  const hudi_pq_leaf *leaf;
  const hudi_pq_column_meta *meta;
  const hudi_pq_read_limits *limits;
  const uint8_t *chunk; /* borrowed: must outlive the decoding */
  size_t len, chunk_offset, pos;
  size_t total_levels;  /* entries decoded from the chunk so far */
  hudi_codec codec;
  size_t value_size;
  int has_dict;
  uint32_t dict_size;
  hudi_buf dict_values, dict_offsets, page, scratch;
  hudi_pq_arena arena;  /* the current page header's statistics */
  /* Set by the caller (kept across chunks): dictionary-encoded pages are
   * decoded to indices (hudi_pq_column_data.dict_ids) while the data
   * window holds only such pages; a page of another encoding expands the
   * window's indices to values first. */
  bool keep_dict_ids;
  hudi_pq_column_data *out; /* for the page being decoded */
  hudi_error *err;
} hudi_pq_chunk_decoder;

void hudi_pq_chunk_decoder_init(hudi_pq_chunk_decoder *c);
void hudi_pq_chunk_decoder_free(hudi_pq_chunk_decoder *c);

/* Starts decoding the chunk chunk[0..len) at absolute file offset
 * chunk_offset (limits NULL: the defaults). */
HUDI_NODISCARD hudi_status hudi_pq_chunk_decoder_start(hudi_pq_chunk_decoder *c, const hudi_pq_leaf *leaf,
                                                       const hudi_pq_column_meta *meta, const uint8_t *chunk,
                                                       size_t len, size_t chunk_offset,
                                                       const hudi_pq_read_limits *limits, hudi_error *err);

/* Decodes the next data page (and any dictionary or index pages before
 * it) into out, or sets *done at the chunk's end, where the entry count is
 * checked against the chunk metadata. Errors name the column path and the
 * page's byte offset. */
HUDI_NODISCARD hudi_status hudi_pq_chunk_decoder_next(hudi_pq_chunk_decoder *c, hudi_pq_column_data *out, bool *done,
                                                      hudi_error *err);

/* Forgets the first `levels` entries and `values` dense values of d
 * (which must belong together), moving the rest to the front. */
HUDI_NODISCARD hudi_status hudi_pq_column_data_drop(hudi_pq_column_data *d, const hudi_pq_leaf *leaf, size_t levels,
                                                    size_t values, hudi_error *err);

/* Decodes the chunk whose bytes are chunk[0..len) at absolute file offset
 * chunk_offset. Errors name the column path and the byte offset. */
HUDI_NODISCARD hudi_status hudi_pq_column_chunk_read(hudi_pq_column_data *out, const hudi_pq_leaf *leaf,
                                                     const hudi_pq_column_meta *meta, const uint8_t *chunk,
                                                     size_t len, size_t chunk_offset,
                                                     const hudi_pq_read_limits *limits, hudi_error *err);

#endif
