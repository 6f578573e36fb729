/* A DELETE block's decimal ordering value (DecimalWrapper: big-endian
 * two's complement bytes of a decimal(30,15), log_delete_block.h) at the
 * scale of the table's decimal ordering column, so that merging compares
 * it with the column's values exactly. Java's HoodieAvroUtils upcasts a
 * BigDecimal of scale <= 15 to scale 15 without rounding before writing
 * it, so a value written for a column of scale s <= 15 converts back
 * exactly. */
#ifndef HUDI_TABLE_DELETE_ORDERING_H
#define HUDI_TABLE_DELETE_ORDERING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr/value.h"

#define HUDI_DELETE_DECIMAL_SCALE 15

/* *out = the value's unscaled integer at column scale col_scale (0..38).
 * False (out untouched) when the bytes are empty or longer than 16, or
 * the value is not exactly representable at col_scale (digits below it,
 * or too large): then it cannot be compared with the column. */
bool hudi_delete_decimal_at_scale(hudi_i128 *out, const uint8_t *be, size_t len, int32_t col_scale);

#endif
