/* The Arrow <-> Avro schema mapping, the way Hudi on Spark does it.
 *
 * Arrow -> Avro follows Spark's SchemaConverters.toAvroType as Hudi calls it
 * for a table (AvroConversionUtils.convertStructTypeToAvroSchema): the
 * record is `<table>_record` in namespace `hoodie.<table>`; a nullable field
 * is ["null", T] with "default": null, a non-nullable one plain T; a nested
 * struct becomes a record named after its field, in the namespace
 * `<parent namespace>.<parent record name>`; decimals (and fixed-size
 * binaries) are a fixed named "fixed" in the namespace
 * `<record namespace>.<record name>.<field>`. The text is byte-for-byte what
 * Java's Schema.toString() prints, so it equals the `extraMetadata.schema`
 * Spark writes into commit metadata.
 *
 * Avro -> Arrow gives the types our readers produce (matching hudi-rs,
 * whose Avro blocks are decoded by arrow-avro and whose base files by the
 * parquet reader): ["null", T] -> nullable T, enum -> string, fixed ->
 * fixed_size_binary, decimal -> decimal128, date -> date32,
 * timestamp-micros/millis -> timestamp[us/ms, tz=UTC], local-timestamp-* ->
 * timestamp without zone, time-millis -> time32[ms], time-micros ->
 * time64[us], array -> list<item>, map -> map<string, value>. Unions of
 * anything else than null and one type are unsupported. */
#ifndef HUDI_AVRO_ARROW_SCHEMA_H
#define HUDI_AVRO_ARROW_SCHEMA_H

#include <stdbool.h>

#include "arrow/field.h"
#include "avro/schema.h"
#include "base/buf.h"
#include "base/error.h"

/* The five Hudi meta fields, in the order they lead every record. */
#define HUDI_AVRO_N_META_FIELDS 5
extern const char *const hudi_avro_meta_field_names[HUDI_AVRO_N_META_FIELDS];

/* Hudi's name sanitising (HoodieAvroUtils.sanitizeName): a first character
 * outside [A-Za-z_] and every later one outside [A-Za-z0-9_] becomes "__".
 * Appends the result to out. */
HUDI_NODISCARD hudi_status hudi_avro_sanitize_name(hudi_buf *out, const char *name, hudi_error *err);

/* Appends the Avro schema JSON of a table whose columns are the children of
 * `schema` (a struct field). With meta_fields, the five `_hoodie_*` fields
 * (["null","string"], "doc":"", default null) come first; columns of the
 * same names in `schema` are then not repeated. Unsupported Arrow types
 * (unsigned 64-bit, intervals, unions...) are HUDI_ERR_UNSUPPORTED naming
 * the column. */
HUDI_NODISCARD hudi_status hudi_avro_schema_from_arrow(hudi_buf *out, const hudi_arrow_field *schema,
                                                       const char *table_name, bool meta_fields,
                                                       hudi_error *err);

/* Same with the record's name and namespace given as they are (namespace
 * may be NULL or empty). */
HUDI_NODISCARD hudi_status hudi_avro_schema_from_arrow_named(hudi_buf *out,
                                                             const hudi_arrow_field *schema,
                                                             const char *record_name,
                                                             const char *namespace_,
                                                             bool meta_fields, hudi_error *err);

/* Fills *out (a struct field named "", flags 0) with the Arrow schema a
 * reader produces for records of `record`. On failure *out is empty. */
HUDI_NODISCARD hudi_status hudi_avro_schema_to_arrow(hudi_arrow_field *out, const hudi_avro_node *record,
                                                     hudi_error *err);

/* The Arrow field for one Avro type (name may be NULL); nullable says
 * whether to set ARROW_FLAG_NULLABLE when the type is not a null union. */
HUDI_NODISCARD hudi_status hudi_avro_type_to_arrow(hudi_arrow_field *out, const hudi_avro_node *type,
                                                   const char *name, bool nullable, hudi_error *err);

/* The non-null branch of a ["null", T] / [T, "null"] union, with the null
 * branch's index in *null_index; NULL (and -1) for anything else. */
const hudi_avro_node *hudi_avro_nullable_branch(const hudi_avro_node *n, int *null_index);

/* Bytes of the smallest two's-complement fixed that holds `precision`
 * decimal digits (Spark's minBytesForPrecision). 0 when precision > 76. */
int hudi_avro_decimal_fixed_size(int precision);

#endif
