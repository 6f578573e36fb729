/* Values as Java prints them (LocalDate.toString, BigDecimal.toString):
 * where Hudi keys or indexes a value by its Java string, our strings must
 * be the same bytes. */
#ifndef HUDI_BASE_JAVA_TEXT_H
#define HUDI_BASE_JAVA_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The longest text hudi_java_local_date writes, its NUL included. */
#define HUDI_JAVA_DATE_MAX 32
/* The longest text hudi_java_big_decimal writes (39 digits of an int128,
 * sign, point, "E-" and an exponent), its NUL included. */
#define HUDI_JAVA_DECIMAL_MAX 64

/* Days since 1970-01-01 as LocalDate.ofEpochDay(days).toString(): the
 * proleptic Gregorian yyyy-MM-dd, a year of at least four digits, '+'
 * before years above 9999 and '-' before negative ones ("-0005-03-01").
 * days is an Arrow date32 (int32), so every year fits. Returns the length
 * written to out. */
size_t hudi_java_local_date(char out[HUDI_JAVA_DATE_MAX], int32_t days);

/* The decimal unscaled * 10^-scale as new BigDecimal(unscaled,
 * scale).toString(): plain notation ("12.34", "0.05", "-1.00") when scale
 * >= 0 and the adjusted exponent (digits - 1 - scale) is at least -6, else
 * scientific ("1.000E-7", "0E-10", "1E+3"). Returns the length. */
__extension__ size_t hudi_java_big_decimal(char out[HUDI_JAVA_DECIMAL_MAX], __int128 unscaled, int32_t scale);

#endif
