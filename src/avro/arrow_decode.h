/* Avro binary straight into Arrow columns.
 *
 * A decoder is compiled once from the writer schema (what the bytes
 * follow), an optional reader schema (Avro schema resolution: field
 * matching by name and alias, defaults for fields the writer lacks) and an
 * optional target Arrow schema (the columns wanted, by name: projection;
 * the types wanted: promotions). The compiled program is a tree of ops,
 * one per writer type, each bound to its output column, so decoding a
 * record never looks at schemas, allocates per value, or builds generic
 * values. Fields the target does not want are skipped without decoding.
 *
 * Writer -> Arrow conversions: null -> any nullable column; boolean ->
 * bool; int -> int8/16/32/64 (range-checked), float, double, date32,
 * time32; long -> int64, timestamp (millis/micros rescaled to the column's
 * unit), time64, duration, float, double; float -> float, double; double
 * -> double; string/bytes -> (large) string or binary; fixed -> fixed_size
 * binary of the same size, binary; decimal (bytes or fixed) -> decimal128
 * of the same scale; enum -> string (the symbol); record -> struct; array
 * -> list, large_list, fixed_size_list (length checked); map -> map; a
 * union -> whatever each branch converts to (a branch that cannot is an
 * error when a record takes it).
 *
 * Limits: lengths are checked against the bytes left, array and map
 * blocks against what their items need at least, nesting depth at run
 * time (recursive schemas), and every error names the record index and
 * the byte offset. */
#ifndef HUDI_AVRO_ARROW_DECODE_H
#define HUDI_AVRO_ARROW_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "arrow/field.h"
#include "avro/schema.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

typedef struct hudi_avro_decoder hudi_avro_decoder;

/* Nesting (records, arrays, maps, unions) one datum may reach while decoding. */
#define HUDI_AVRO_DECODE_MAX_DEPTH 200
/* Array/map items that take no bytes (nulls, empty records) one datum may hold. */
#define HUDI_AVRO_DECODE_MAX_EMPTY_ITEMS ((int64_t)1 << 24)

/* writer: a record schema node; reader: NULL or a record node; target: NULL
 * (the Arrow mapping of reader, else writer; see avro/arrow_schema.h) or a
 * struct field whose children name the columns to produce. A target column
 * neither schema has is filled with nulls (it must be nullable). The nodes
 * and target must outlive the decoder only during this call: the decoder
 * copies what it keeps, except the writer schema's nodes (enum symbols),
 * which must outlive it. */
HUDI_NODISCARD hudi_status hudi_avro_decoder_create(hudi_avro_decoder **out,
                                                    const hudi_avro_node *writer,
                                                    const hudi_avro_node *reader,
                                                    const hudi_arrow_field *target, hudi_error *err);
void hudi_avro_decoder_free(hudi_avro_decoder *d);

/* The schema of the batches finish exports (a struct field). */
const hudi_arrow_field *hudi_avro_decoder_schema(const hudi_avro_decoder *d);
/* Rows decoded since creation or the last finish/reset. */
int64_t hudi_avro_decoder_n_rows(const hudi_avro_decoder *d);

/* Decodes one datum that must fill exactly len bytes. offset is the file
 * offset of data[0] and record the datum's index, both for messages. After
 * a failure the decoder holds part of a row: reset it (dropping the rows
 * since the last finish) or free it; finish refuses. */
HUDI_NODISCARD hudi_status hudi_avro_decoder_decode(hudi_avro_decoder *d, const uint8_t *data,
                                                    size_t len, uint64_t offset, int64_t record,
                                                    hudi_error *err);
/* n datums back to back, filling exactly len bytes (an object container
 * file block, decompressed). */
HUDI_NODISCARD hudi_status hudi_avro_decoder_decode_concat(hudi_avro_decoder *d, const uint8_t *data,
                                                           size_t len, int64_t n, uint64_t offset,
                                                           hudi_error *err);
/* The content of a Hudi Avro data block: int32 version (3), int32 record
 * count, then per record an int32 length and the datum (big-endian ints).
 * *n_records (may be NULL) receives the count. */
HUDI_NODISCARD hudi_status hudi_avro_decoder_decode_data_block(hudi_avro_decoder *d,
                                                               const uint8_t *content, size_t len,
                                                               uint64_t offset, int64_t *n_records,
                                                               hudi_error *err);

/* Exports the rows so far as one struct array (no nulls at the top) and
 * starts the next batch. */
HUDI_NODISCARD hudi_status hudi_avro_decoder_finish(hudi_avro_decoder *d, struct ArrowArray *out,
                                                    hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_decoder_export_schema(const hudi_avro_decoder *d,
                                                           struct ArrowSchema *out, hudi_error *err);
/* Drops the rows since the last finish (and a failed decode's partial row). */
void hudi_avro_decoder_reset(hudi_avro_decoder *d);

#endif
