/* Decimal ordering values of DELETE blocks (delete_ordering.h). */
#include "table/delete_ordering.h"

/* |x| bound that keeps x * 10^k inside an i128: 10^38 < 2^127 - 1. */
static bool mul_fits(hudi_i128 x, int k) {
  if (k > 38) return x == 0;
  hudi_i128 lim = hudi_pow10_i128(38 - k);
  return x < lim && x > -lim;
}

__extension__ typedef unsigned __int128 u128;

bool hudi_delete_decimal_at_scale(hudi_i128 *out, const uint8_t *be, size_t len, int32_t col_scale) {
  if (!be || len == 0 || len > 16 || col_scale < 0 || col_scale > 38) return false;
  /* Sign-extend the big-endian two's complement bytes. */
  u128 u = (be[0] & 0x80) ? ~(u128)0 : 0;
  for (size_t i = 0; i < len; i++) u = (u << 8) | be[i];
  hudi_i128 v = (hudi_i128)u;
  if (col_scale == HUDI_DELETE_DECIMAL_SCALE) {
    *out = v;
    return true;
  }
  if (col_scale < HUDI_DELETE_DECIMAL_SCALE) {
    hudi_i128 p = hudi_pow10_i128(HUDI_DELETE_DECIMAL_SCALE - col_scale);
    if (v % p != 0) return false;
    *out = v / p;
    return true;
  }
  int k = col_scale - HUDI_DELETE_DECIMAL_SCALE;
  if (!mul_fits(v, k)) return false;
  *out = v * hudi_pow10_i128(k);
  return true;
}
