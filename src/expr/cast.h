/* Strings to typed values. hudi-rs turns a filter value string into the
 * column's type with arrow-rs's `cast(Utf8 -> type, safe = false)`; these
 * functions follow those parsers (arrow-cast: parse.rs and the cast module) so
 * that a filter means the same thing here as there:
 *  - integers: ASCII whitespace trimmed, optional sign, decimal digits,
 *    range-checked against the column's width;
 *  - floats: trimmed; decimal or exponent notation, inf, infinity, nan;
 *  - bool: trimmed, case-insensitive t tr tru true y ye yes on 1 /
 *    f fa fal fals false n no of off 0;
 *  - decimal: trimmed; [sign] digits [. digits]; extra fraction digits
 *    rounded half away from zero; then checked against the precision;
 *  - date32: YYYY-MM-DD (also 1-digit month/day, YYYYMMDD, +/-YYYYY-MM-DD,
 *    or a longer timestamp whose UTC date is taken);
 *  - timestamp: arrow's string_to_datetime (RFC 3339 and variants, offsets
 *    Z, +HH, +HHMM, +HH:MM); strings without an offset are in the column's
 *    timezone (UTC when it has none); sub-unit digits are floored;
 *  - time32/time64: H:MM[:SS[.f]] with optional AM/PM, or an integer;
 *  - duration: an integer;
 *  - string/binary: the bytes as given; fixed_size_binary: same length.
 * Named timezones other than UTC are HUDI_ERR_UNSUPPORTED (no tz database);
 * fixed offsets work. Leap seconds (:60) count as the next second, as
 * chrono does. */
#ifndef HUDI_EXPR_CAST_H
#define HUDI_EXPR_CAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "base/error.h"
#include "expr/value.h"

#define HUDI_NANOS_PER_DAY INT64_C(86400000000000)

/* A parsed date-time: days since the epoch, nanoseconds into that day,
 * and the offset east of UTC it carried (when has_offset). */
typedef struct hudi_datetime {
  int64_t days;
  int64_t nanos;
  bool has_offset;
  int32_t offset_sec;
} hudi_datetime;

/* Days since 1970-01-01 of a proleptic Gregorian date; false when the date
 * does not exist. */
bool hudi_civil_to_days(int64_t *days, int64_t y, int m, int d);

/* arrow-rs string_to_datetime's grammar (see above). */
HUDI_NODISCARD hudi_status hudi_parse_datetime(hudi_datetime *out, const char *s, size_t len,
                                               hudi_error *err);

/* A timezone name as Arrow schemas carry it: "UTC" and its aliases, or a
 * fixed offset "+HH:MM", "+HHMM", "+HH". Others: HUDI_ERR_UNSUPPORTED. */
HUDI_NODISCARD hudi_status hudi_parse_tz(int32_t *offset_sec, const char *tz, size_t len,
                                         hudi_error *err);

/* Epoch nanoseconds (128-bit, no overflow) of a date-time, applying
 * default_offset when it carries none. */
hudi_i128 hudi_datetime_epoch_nanos(const hudi_datetime *dt, int32_t default_offset);

/* Nanoseconds in one unit. */
int64_t hudi_time_unit_nanos(hudi_arrow_time_unit unit);

/* floor(a / b) for b > 0. */
hudi_i128 hudi_floor_div(hudi_i128 a, hudi_i128 b);

/* Parses s the way arrow-rs casts a Utf8 value to t (see above). Bytes
 * values borrow s. Errors name the value and the type. */
HUDI_NODISCARD hudi_status hudi_cast_string(hudi_value *out, const hudi_arrow_type *t,
                                            const char *s, size_t len, hudi_error *err);

/* A readable type name: "int32", "timestamp[us, UTC]", "decimal(10, 2)". */
void hudi_type_describe(char *out, size_t cap, const hudi_arrow_type *t);

#endif
