/* Values as Java prints them. The expected strings are what OpenJDK 17's
 * LocalDate.ofEpochDay(d).toString() and new BigDecimal(new
 * BigInteger(u), s).toString() printed for the same inputs (the
 * BigDecimal cases include the examples of its Javadoc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "base/java_text.h"

static void local_date(void **state) {
  (void)state;
  const struct { int32_t days; const char *want; } cases[] = {
      {0, "1970-01-01"},          {-1, "1969-12-31"},          {19782, "2024-02-29"},
      {-719162, "0001-01-01"},    {-719163, "0000-12-31"},     {-719529, "-0001-12-31"},
      {-1000000, "-0768-02-04"},  {2932896, "9999-12-31"},     {2932897, "+10000-01-01"},
      {100000000, "+275760-09-13"}, {-100000000, "-271821-04-20"}, {-678575, "0112-02-16"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[HUDI_JAVA_DATE_MAX];
    size_t n = hudi_java_local_date(out, cases[i].days);
    assert_string_equal(out, cases[i].want);
    assert_int_equal(n, strlen(cases[i].want));
  }
  /* int32's ends (no overflow; Java prints the same). */
  char out[HUDI_JAVA_DATE_MAX];
  hudi_java_local_date(out, INT32_MAX);
  assert_string_equal(out, "+5881580-07-11");
  hudi_java_local_date(out, INT32_MIN);
  assert_string_equal(out, "-5877641-06-23");
}

__extension__ typedef __int128 i128;

static i128 parse_i128(const char *s) {
  bool neg = *s == '-';
  i128 v = 0;
  for (s += neg; *s; s++) v = v * 10 - (*s - '0'); /* negative accumulation reaches INT128_MIN */
  return neg ? v : -v;
}

static void big_decimal(void **state) {
  (void)state;
  const struct { const char *unscaled; int32_t scale; const char *want; } cases[] = {
      {"0", 0, "0"},
      {"0", 2, "0.00"},
      {"0", 10, "0E-10"},
      {"123", 0, "123"},
      {"-123", 0, "-123"},
      {"123", -1, "1.23E+3"},
      {"123", 3, "0.123"},
      {"123", 10, "1.23E-8"},
      {"-123", 12, "-1.23E-10"},
      {"5", 2, "0.05"},
      {"-5", 2, "-0.05"},
      {"1234", 2, "12.34"},
      {"100", 2, "1.00"},
      {"1", 6, "0.000001"},
      {"1", 7, "1E-7"},
      {"1000", 10, "1.000E-7"},
      {"1", 8, "1E-8"},
      {"10", 8, "1.0E-7"},
      {"1", 30, "1E-30"},
      {"12345678901234567890123456789012345678", 20, "123456789012345678.90123456789012345678"},
      {"-99999999999999999999999999999999999999", 38, "-0.99999999999999999999999999999999999999"},
      {"-170141183460469231731687303715884105728", 0, "-170141183460469231731687303715884105728"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char out[HUDI_JAVA_DECIMAL_MAX];
    size_t n = hudi_java_big_decimal(out, parse_i128(cases[i].unscaled), cases[i].scale);
    assert_string_equal(out, cases[i].want);
    assert_int_equal(n, strlen(cases[i].want));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(local_date),
      cmocka_unit_test(big_decimal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
