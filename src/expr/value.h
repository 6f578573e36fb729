/* Typed scalar values as the expression layer compares them: a literal
 * coerced to a column's type, one element of an array view, a min/max
 * statistic, a partition value. Every Arrow type the layer understands
 * falls into one comparison class; a value's class is its column's. */
#ifndef HUDI_EXPR_VALUE_H
#define HUDI_EXPR_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "arrow/view.h"
#include "base/error.h"

/* 128-bit integers hold decimal128 values and exact literal arithmetic. */
__extension__ typedef __int128 hudi_i128;

typedef enum hudi_vclass {
  HUDI_VC_NONE = 0, /* not comparable (nested types, decimal256, float16, null) */
  HUDI_VC_BOOL,     /* false < true */
  HUDI_VC_INT,      /* int8..int64, date32/64, time32/64, timestamp, duration: int64 in the column's unit */
  HUDI_VC_UINT,     /* uint8..uint64 */
  HUDI_VC_DOUBLE,   /* float (widened) and double; NaN sorts above +inf and equals itself (Spark, DuckDB) */
  HUDI_VC_DECIMAL,  /* decimal32/64/128: unscaled integer at the column's scale */
  HUDI_VC_BYTES     /* string, binary, their large and view forms, fixed_size_binary: unsigned bytewise order */
} hudi_vclass;

typedef struct hudi_value {
  bool is_null;
  hudi_vclass cls;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    hudi_i128 dec;
    struct {
      const uint8_t *data; /* borrowed; never NULL when len > 0 */
      size_t len;
    } bytes;
  } v;
} hudi_value;

/* The comparison class of values of type t. */
hudi_vclass hudi_vclass_of(const hudi_arrow_type *t);

/* Three-way comparison of two non-null values of the same class. */
int hudi_value_cmp(const hudi_value *a, const hudi_value *b);

/* Element i of v (dictionary arrays are decoded). Bytes borrow v's buffers.
 * A null element, or a null dictionary value, gives is_null. */
void hudi_value_from_view(hudi_value *out, const hudi_arrow_view *v, int64_t i);

/* Reads a little-endian decimal of bit_width 32, 64 or 128. */
hudi_i128 hudi_decimal_load(const uint8_t *p, int32_t bit_width);
/* Writes x as a little-endian decimal of bit_width 32, 64 or 128. */
void hudi_decimal_store(uint8_t *p, int32_t bit_width, hudi_i128 x);
/* 10^n for n in [0, 38]. */
hudi_i128 hudi_pow10_i128(int n);
/* True when |x| < 10^precision. */
bool hudi_decimal_fits(hudi_i128 x, int32_t precision);

/* Formats a value for error messages ("42", "'abc'", "1.50"); scale is used
 * for decimals. Always NUL-terminates. */
void hudi_value_format(char *out, size_t cap, const hudi_value *v, int32_t scale);

#endif
