#include "base/utf8.h"

int32_t hudi_utf8_next(const uint8_t *s, size_t len, size_t *i) {
  uint8_t b0 = s[*i];
  if (b0 < 0x80) {
    (*i)++;
    return b0;
  }
  size_t n;
  uint32_t cp, min;
  if (b0 >= 0xc2 && b0 <= 0xdf) { n = 2; cp = b0 & 0x1fu; min = 0x80; }
  else if (b0 >= 0xe0 && b0 <= 0xef) { n = 3; cp = b0 & 0x0fu; min = 0x800; }
  else if (b0 >= 0xf0 && b0 <= 0xf4) { n = 4; cp = b0 & 0x07u; min = 0x10000; }
  else return -1;
  if (len - *i < n) return -1;
  for (size_t k = 1; k < n; k++) {
    uint8_t b = s[*i + k];
    if ((b & 0xc0) != 0x80) return -1;
    cp = cp << 6 | (b & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -1;
  *i += n;
  return (int32_t)cp;
}
