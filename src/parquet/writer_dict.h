/* The writer's dictionary: distinct values of one column chunk in first-
 * seen order, with an open-addressing hash index, so a value becomes its
 * dictionary index in O(1) and no allocation per value. */
#ifndef HUDI_PARQUET_WRITER_DICT_H
#define HUDI_PARQUET_WRITER_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_pq_dict {
  int32_t width;         /* bytes per value; 0 for byte arrays */
  hudi_buf values;       /* the entries (fixed: n * width; byte arrays: concatenated) */
  int32_t *offsets;      /* byte arrays: n + 1 offsets into values */
  size_t n, cap_offsets;
  uint32_t *slots;       /* 0: empty, else index + 1 (byte arrays, other widths) */
  /* 4- and 8-byte values: the value sits in its slot, so a probe is one
   * memory access instead of a slot and then an entry (most numeric
   * columns; a large dictionary's probes were cache misses twice over).
   * 4-byte values take 8-byte slots (value, index + 1), 8-byte values
   * hudi_pq_dict_word: half the memory to fault in and probe for int32
   * and float columns. */
  void *words;
  uint64_t mask;         /* slots - 1 (a power of two) */
  size_t plain_size;     /* bytes of the PLAIN-encoded dictionary page */
  /* The page size past which the caller drops the dictionary (0: none).
   * Once there, the table fills to 3/4 before it doubles: the entries of
   * the batch in hand would otherwise double a table about to be freed. */
  size_t max_plain;
  bool index_stale; /* reset: the index still holds the last chunk's slots */
} hudi_pq_dict;

typedef struct hudi_pq_dict_word {
  uint64_t value; /* the value's bytes, zero-extended */
  uint32_t index; /* 0: empty, else index + 1 */
} hudi_pq_dict_word;

void hudi_pq_dict_init(hudi_pq_dict *d, int32_t width);
void hudi_pq_dict_free(hudi_pq_dict *d);
/* Forgets the entries, keeps the memory (the index is emptied when next used). */
void hudi_pq_dict_reset(hudi_pq_dict *d);
/* Frees the hash index and keeps the entries: a dictionary given up for
 * the rest of a chunk still writes its page, but looks nothing up (an
 * insert after this rebuilds the index from the entries). */
void hudi_pq_dict_drop_index(hudi_pq_dict *d);

/* Looks up (inserting when new) n values in the page writer's form
 * (fixed-width, or bytes + n + 1 offsets) and writes their indices. */
HUDI_NODISCARD hudi_status hudi_pq_dict_insert(hudi_pq_dict *d, const uint8_t *data, const int32_t *offsets, size_t n,
                                               uint32_t *indices, hudi_error *err);

#endif
