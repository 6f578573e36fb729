#include "base/java_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

size_t hudi_java_local_date(char out[HUDI_JAVA_DATE_MAX], int32_t days) {
  /* Civil date from days (Howard Hinnant's algorithm; eras of 400 years). */
  int64_t z = (int64_t)days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int d = (int)(doy - (153 * mp + 2) / 5 + 1);
  int m = (int)(mp < 10 ? mp + 3 : mp - 9);
  if (m <= 2) y++;
  /* LocalDate.toString: four digits at least, the sign outside the
   * padding, '+' only past 9999. */
  const char *sign = y < 0 ? "-" : y > 9999 ? "+" : "";
  uint64_t ay = y < 0 ? (uint64_t)0 - (uint64_t)y : (uint64_t)y;
  int n = snprintf(out, HUDI_JAVA_DATE_MAX, "%s%04" PRIu64 "-%02d-%02d", sign, ay, m, d);
  return n < 0 ? 0 : (size_t)n;
}

__extension__ typedef unsigned __int128 u128;

size_t hudi_java_big_decimal(char out[HUDI_JAVA_DECIMAL_MAX], __int128 unscaled, int32_t scale) {
  char digits[48];
  char *p = digits + sizeof digits;
  u128 v = unscaled < 0 ? (u128)0 - (u128)unscaled : (u128)unscaled;
  do {
    *--p = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  size_t nd = (size_t)(digits + sizeof digits - p);
  int64_t adjusted = (int64_t)nd - 1 - scale;
  size_t n = 0;
  if (unscaled < 0) out[n++] = '-';
  if (scale >= 0 && adjusted >= -6) {
    if (scale == 0) {
      memcpy(out + n, p, nd);
      n += nd;
    } else if ((int64_t)nd > scale) { /* digits on both sides of the point */
      size_t ip = nd - (size_t)scale;
      memcpy(out + n, p, ip);
      n += ip;
      out[n++] = '.';
      memcpy(out + n, p + ip, (size_t)scale);
      n += (size_t)scale;
    } else { /* 0.000ddd: at most 6 zeros after the point, by adjusted >= -6 */
      out[n++] = '0';
      out[n++] = '.';
      for (int64_t i = 0; i < scale - (int64_t)nd; i++) out[n++] = '0';
      memcpy(out + n, p, nd);
      n += nd;
    }
  } else {
    out[n++] = p[0];
    if (nd > 1) {
      out[n++] = '.';
      memcpy(out + n, p + 1, nd - 1);
      n += nd - 1;
    }
    int k = snprintf(out + n, HUDI_JAVA_DECIMAL_MAX - n, "E%s%" PRId64, adjusted > 0 ? "+" : "", adjusted);
    n += k < 0 ? 0 : (size_t)k;
  }
  out[n] = '\0';
  return n;
}
