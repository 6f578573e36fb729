/* Arrow rows straight into Avro binary.
 *
 * An encoder is compiled once from an Arrow schema (a struct: the batch's
 * columns) and the Avro record schema to write (usually the one
 * hudi_avro_schema_from_arrow made from it): each Avro field is bound to
 * the Arrow column of the same name, and to the union branch its values and
 * nulls take. Encoding then walks array views without looking at schemas.
 *
 * Arrow -> Avro conversions: bool -> boolean; signed/unsigned integers ->
 * int (range-checked) or long; float -> float or double; double -> double;
 * decimal128 -> fixed (big-endian, of the fixed's size) or bytes (minimal,
 * like Java's BigInteger.toByteArray); date32 -> int; date64 -> int days;
 * time32/64 -> time-millis int / time-micros long; timestamp -> long in the
 * logical type's unit (seconds and nanoseconds rescaled, nanoseconds
 * floored to micros); (large/view) string and binary -> string or bytes;
 * fixed_size_binary -> fixed of the same size or bytes; list, large_list
 * and fixed_size_list -> array (list<float32> and fixed_size_list<float32>
 * embeddings become one block of floats, copied in one go); struct ->
 * record; map<string, T> -> map. Dictionary-encoded columns are written as
 * their values.
 *
 * Avro fields without an Arrow column: the five `_hoodie_*` meta fields
 * take their values from a hudi_avro_meta_values per row (or null); other fields
 * must be nullable and are written as null. */
#ifndef HUDI_AVRO_ARROW_ENCODE_H
#define HUDI_AVRO_ARROW_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/arrow_schema.h"
#include "avro/schema.h"
#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_avro_encoder hudi_avro_encoder;

/* The values of the meta fields for one row, in the order of
 * hudi_avro_meta_field_names; a NULL value is written as null. */
typedef struct hudi_avro_meta_values {
  const char *value[HUDI_AVRO_N_META_FIELDS];
  size_t len[HUDI_AVRO_N_META_FIELDS];
} hudi_avro_meta_values;

/* schema: a struct field; record: an Avro record node (its schema must
 * outlive the encoder). */
HUDI_NODISCARD hudi_status hudi_avro_encoder_create(hudi_avro_encoder **out, const hudi_arrow_field *schema,
                                                    const hudi_avro_node *record, hudi_error *err);
void hudi_avro_encoder_free(hudi_avro_encoder *e);

/* Appends the datums of rows [start, start + n) of batch (a struct view of
 * the encoder's schema) to out: back to back (an object container block),
 * or each after its int32 big-endian length (a Hudi data block's records)
 * when length_prefixed. meta: NULL, or n entries (row start + i uses
 * meta[i]). On failure out is back at its old length; the message names
 * the column and the row. */
HUDI_NODISCARD hudi_status hudi_avro_encoder_encode_rows(hudi_avro_encoder *e, hudi_buf *out,
                                                         const hudi_arrow_view *batch, int64_t start,
                                                         int64_t n, const hudi_avro_meta_values *meta,
                                                         bool length_prefixed, hudi_error *err);

/* Appends the content of a Hudi Avro data block: int32 version 3, int32
 * record count, then the length-prefixed records. */
HUDI_NODISCARD hudi_status hudi_avro_encoder_encode_data_block(hudi_avro_encoder *e, hudi_buf *out,
                                                               const hudi_arrow_view *batch,
                                                               int64_t start, int64_t n,
                                                               const hudi_avro_meta_values *meta,
                                                               hudi_error *err);

#endif
