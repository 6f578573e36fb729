/* Key generators (hudi-write-semantics.md §2): the record key and the
 * partition path of each row, as Hudi's SIMPLE, COMPLEX and NON_PARTITION
 * key generators write them into _hoodie_record_key and
 * _hoodie_partition_path. */
#ifndef HUDI_TABLE_KEYGEN_H
#define HUDI_TABLE_KEYGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/view.h"
#include "base/buf.h"
#include "base/error.h"
#include "table/properties.h"

#define HUDI_KEYGEN_MAX_FIELDS 32

typedef enum hudi_keygen_kind { HUDI_KEYGEN_SIMPLE, HUDI_KEYGEN_COMPLEX, HUDI_KEYGEN_NON_PARTITION } hudi_keygen_kind;

typedef struct hudi_keygen {
  hudi_keygen_kind kind;
  size_t n_keys, n_parts;
  char *key_fields[HUDI_KEYGEN_MAX_FIELDS];
  char *part_fields[HUDI_KEYGEN_MAX_FIELDS];
  int key_index[HUDI_KEYGEN_MAX_FIELDS];  /* top-level column of each key field */
  size_t key_field_len[HUDI_KEYGEN_MAX_FIELDS]; /* strlen of each, set by bind (keys of every row name them) */
  int part_index[HUDI_KEYGEN_MAX_FIELDS];
  bool key_with_names;  /* "f1:v1,f2:v2" (several fields, or COMPLEX on table version 9) */
  bool hive_style;
  bool urlencode;
} hudi_keygen;

/* From a table's properties (and its version). TIMESTAMP, CUSTOM and
 * user-provided key generators are HUDI_ERR_UNSUPPORTED. */
HUDI_NODISCARD hudi_status hudi_keygen_init(hudi_keygen *kg, const hudi_props *props, int table_version,
                                            hudi_error *err);
void hudi_keygen_free(hudi_keygen *kg);

/* Finds the key and partition fields among the columns of a batch view
 * (top-level names); a missing one is HUDI_ERR_INVALID_ARG naming it. */
HUDI_NODISCARD hudi_status hudi_keygen_bind(hudi_keygen *kg, const hudi_arrow_view *batch, hudi_error *err);

/* Appends row `row`'s record key (no NUL) to out. A null or empty key
 * (all null/empty for a composite key) is HUDI_ERR_INVALID_ARG naming the
 * column and row_no (the row's number in the whole write, counted from 0
 * over every batch, not within this one). */
HUDI_NODISCARD hudi_status hudi_keygen_record_key(const hudi_keygen *kg, const hudi_arrow_view *batch, int64_t row,
                                                  int64_t row_no, hudi_buf *out, hudi_error *err);
/* Appends row i's partition path ("" when non-partitioned). */
HUDI_NODISCARD hudi_status hudi_keygen_partition_path(const hudi_keygen *kg, const hudi_arrow_view *batch,
                                                      int64_t row, hudi_buf *out, hudi_error *err);

/* Appends the value as Java's toString prints the Avro value (strings as
 * they are, integers in decimal, booleans, dates as yyyy-MM-dd). *is_null
 * is set for nulls (nothing appended). Other types are
 * HUDI_ERR_UNSUPPORTED naming `column`. */
HUDI_NODISCARD hudi_status hudi_keygen_value_string(const hudi_arrow_view *col, int64_t row, const char *column,
                                                    hudi_buf *out, bool *is_null, hudi_error *err);

#endif
