/* The rows of one write: the input stream's batches held in memory, each
 * row's record key and partition path, and the order rows are written in:
 * by partition path, then by record key in Java String order (key_order)
 * or in input order (a bulk insert's default sort mode NONE). */
#ifndef HUDI_TABLE_WRITE_ROWS_H
#define HUDI_TABLE_WRITE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "base/buf.h"
#include "base/error.h"
#include "table/keygen.h"

typedef struct hudi_write_batch {
  struct ArrowArray array;
  hudi_arrow_view view;
  const uint8_t *key_data; /* with key_column: the key column's string bytes */
} hudi_write_batch;

typedef struct hudi_write_row {
  /* The key's first 8 bytes big-endian (zero-padded) when they are all
   * ASCII (key_ascii): most sort comparisons end here, without touching
   * the key bytes (which would be a cache miss per comparison). */
  uint64_t key_prefix;
  /* In strings: the key, NUL, the partition path, NUL (so the path is at
   * key_off + key_len + 1). 32 bytes a row: at 10M rows, each 8 bytes more
   * is 80 MB of pages to fault in. */
  size_t key_off;
  uint32_t row; /* in its batch */
  uint32_t batch;
  uint32_t key_len;
  uint16_t part_len; /* <= MAX_PARTITION_PATH */
  bool key_ascii;
} hudi_write_row;

static inline size_t hudi_write_row_part_off(const hudi_write_row *w) { return w->key_off + w->key_len + 1; }

typedef struct hudi_write_rows {
  struct ArrowSchema schema;   /* the stream's (views borrow it) */
  hudi_arrow_field input;      /* its normalised copy */
  hudi_arrow_field stored;     /* the stored types (write_convert.h) */
  hudi_write_batch *batches;
  size_t n_batches, cap_batches;
  hudi_write_row *order;       /* sorted (see key_order) */
  size_t n, cap;
  hudi_buf strings;            /* after the sort: keys and partitions in row order */
  int64_t data_bytes;          /* estimated in-memory bytes of the data columns */
  bool key_order;              /* within a partition, rows are in key order (else input order) */
  hudi_arrow_field given;      /* segments: the stream's schema as read, unnormalised */
  size_t total_batches;        /* batches read from the stream so far */
  size_t segments;             /* hudi_write_rows_next calls so far */
  /* >= 0: every key is this column's string value as it is, and there is
   * no partition path (one string key field without names, no partition
   * fields, input order): keys are read in place, key_off into their
   * batch's key_data, and strings stays empty (10M uuid keys: 380 MB not
   * copied). -1: keys and partitions in strings. */
  int key_column;
  size_t key_bytes;            /* with key_column: what strings would hold */
} hudi_write_rows;

/* Reads the whole stream (released in every case), extracts every row's
 * key and partition with kg and orders the rows by partition, then (with
 * key_order) by key, else keeping the input order. A missing or null key, an unknown
 * partition field, a meta column in the data, a type Hudi cannot store: an
 * error naming the column. */
HUDI_NODISCARD hudi_status hudi_write_rows_load(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_keygen *kg,
                                                bool key_order, hudi_error *err);
void hudi_write_rows_free(hudi_write_rows *r);

/* The same a segment at a time, for inputs larger than memory: open reads
 * and checks the schema (the stream stays the caller's to release); each
 * next drops the rows it held, reads batches until their estimated bytes
 * reach max_bytes (0: no limit) or the stream ends (*eof) and orders them
 * as load does. hudi_write_rows_evolve applies per segment. */
HUDI_NODISCARD hudi_status hudi_write_rows_open(hudi_write_rows *r, struct ArrowArrayStream *stream, bool key_order,
                                                hudi_error *err);
HUDI_NODISCARD hudi_status hudi_write_rows_next(hudi_write_rows *r, struct ArrowArrayStream *stream, hudi_keygen *kg,
                                                int64_t max_bytes, bool *eof, hudi_error *err);

/* With key_column: the keys copied into strings (key_column -1 after), for
 * a caller about to replace the batches (schema evolution's rebuild). */
HUDI_NODISCARD hudi_status hudi_write_rows_own_keys(hudi_write_rows *r, hudi_error *err);

static inline const char *hudi_write_rows_row_key(const hudi_write_rows *r, const hudi_write_row *w) {
  if (r->key_column >= 0) return (const char *)r->batches[w->batch].key_data + w->key_off;
  return (const char *)r->strings.data + w->key_off;
}
static inline const char *hudi_write_rows_key(const hudi_write_rows *r, size_t i, size_t *len) {
  *len = r->order[i].key_len;
  return hudi_write_rows_row_key(r, &r->order[i]);
}
static inline const char *hudi_write_rows_partition(const hudi_write_rows *r, size_t i) {
  if (r->key_column >= 0) return "";
  return (const char *)r->strings.data + hudi_write_row_part_off(&r->order[i]);
}
bool hudi_write_rows_same_partition(const hudi_write_rows *r, size_t i, size_t j);
/* Record keys of rows i and j compared as Java's String.compareTo. */
int hudi_write_rows_key_cmp(const hudi_write_rows *r, size_t i, size_t j);
/* Estimated bytes of one row (data and meta columns), uncompressed. */
int64_t hudi_write_rows_bytes_per_row(const hudi_write_rows *r);

/* UTF-8 strings compared in UTF-16 code-unit order (Java String.compareTo). */
int hudi_java_string_cmp(const char *a, size_t alen, const char *b, size_t blen);

#endif
