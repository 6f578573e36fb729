/* hudi_delete_decimal_at_scale: DELETE-block DecimalWrapper values (big-endian
 * two's complement, scale 15) at a decimal column's scale. The inputs are
 * built here from decimal literals (unscaled value * 10^(15 - digits)), so
 * the expected results are the literals at the column's scale. The merge
 * itself is checked against Spark in
 * tests/interop/test_decimal_ordering_deletes.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "table/delete_ordering.h"

/* Minimal big-endian two's complement bytes of x (as Java's
 * BigInteger.toByteArray). */
static size_t be_bytes(uint8_t *out, hudi_i128 x) {
  uint8_t tmp[16];
  for (int i = 15; i >= 0; i--) {
    tmp[i] = (uint8_t)(x & 0xff);
    x >>= 8;
  }
  size_t start = 0;
  while (start < 15 && ((tmp[start] == 0x00 && !(tmp[start + 1] & 0x80)) ||
                        (tmp[start] == 0xff && (tmp[start + 1] & 0x80))))
    start++;
  for (size_t i = start; i < 16; i++) out[i - start] = tmp[i];
  return 16 - start;
}

static hudi_i128 p10(int n) {
  hudi_i128 r = 1;
  while (n-- > 0) r *= 10;
  return r;
}

static void check(hudi_i128 unscaled15, int32_t scale, bool ok, hudi_i128 want) {
  uint8_t b[16];
  size_t n = be_bytes(b, unscaled15);
  hudi_i128 got = 0;
  assert_int_equal(hudi_delete_decimal_at_scale(&got, b, n, scale), ok);
  if (ok) assert_true(got == want);
}

static void conversions(void **state) {
  (void)state;
  check(1049 * p10(13), 2, true, 1049);                /* 10.49 -> decimal(10,2) */
  check(-1 * p10(13), 2, true, -1);                    /* -0.01 */
  check(0, 2, true, 0);
  check(1049 * p10(13), 15, true, 1049 * p10(13));     /* same scale */
  check(7 * p10(15), 0, true, 7);                      /* 7 -> decimal(p,0) */
  check(-123456789 * p10(15), 0, true, -123456789);
  check(10491 * p10(12), 2, false, 0);                 /* 10.491 is not a decimal(.,2) */
  check(1049 * p10(13), 20, true, 1049 * p10(18));     /* scale above 15 */
  check(-1049 * p10(13), 20, true, -1049 * p10(18));
  check(p10(29), 38, false, 0);                        /* 10^14 at scale 38: too large */
  /* Bytes that are not a value. */
  hudi_i128 got;
  uint8_t b[17] = {0};
  assert_false(hudi_delete_decimal_at_scale(&got, b, 0, 2));
  assert_false(hudi_delete_decimal_at_scale(&got, b, 17, 2));
  assert_false(hudi_delete_decimal_at_scale(&got, NULL, 1, 2));
  assert_false(hudi_delete_decimal_at_scale(&got, b, 1, 39));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(conversions)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
