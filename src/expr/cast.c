#include "expr/cast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small text helpers ---- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ascii_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

static void trim(const char **s, size_t *n) {
  while (*n && is_ascii_ws((*s)[0])) (*s)++, (*n)--;
  while (*n && is_ascii_ws((*s)[*n - 1])) (*n)--;
}

/* arrow's trim_pre_and_post_whitespace: a no-op unless an end is not a digit. */
static void trim_numeric(const char **s, size_t *n) {
  if (*n && !is_digit((*s)[0]))
    while (*n && is_ascii_ws((*s)[0])) (*s)++, (*n)--;
  if (*n && !is_digit((*s)[*n - 1]))
    while (*n && is_ascii_ws((*s)[*n - 1])) (*n)--;
}

static bool ieq(const char *s, size_t n, const char *word) {
  size_t k = strlen(word);
  if (k != n) return false;
  for (size_t i = 0; i < n; i++)
    if (lower(s[i]) != word[i]) return false;
  return true;
}

/* [sign] digits, all of s; magnitude saturates above 2^64 (flagged). */
static bool parse_signed_digits(const char *s, size_t n, bool *neg, unsigned __int128 *mag,
                                bool *overflow) {
  size_t i = 0;
  *neg = false;
  *overflow = false;
  *mag = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) *neg = s[i++] == '-';
  if (i == n) return false;
  for (; i < n; i++) {
    if (!is_digit(s[i])) return false;
    if (*mag > ((unsigned __int128)1 << 80)) *overflow = true;
    else *mag = *mag * 10 + (unsigned)(s[i] - '0');
  }
  return true;
}

static int64_t days_in_month(int64_t y, int m) {
  static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2) {
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return leap ? 29 : 28;
  }
  return dm[m - 1];
}

bool hudi_civil_to_days(int64_t *days, int64_t y, int m, int d) {
  if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) return false;
  if (y > 100000000 || y < -100000000) return false;
  /* Days from civil: shift the year to start in March so leap days fall
   * at the end, then count whole 400-year eras. */
  int64_t yy = y - (m <= 2);
  int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  int64_t yoe = yy - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  *days = era * 146097 + doe - 719468;
  return true;
}

hudi_i128 hudi_floor_div(hudi_i128 a, hudi_i128 b) {
  hudi_i128 q = a / b;
  if ((a % b != 0) && (a < 0)) q--;
  return q;
}

int64_t hudi_time_unit_nanos(hudi_arrow_time_unit unit) {
  switch (unit) {
    case HUDI_ARROW_SECOND: return 1000000000;
    case HUDI_ARROW_MILLI: return 1000000;
    case HUDI_ARROW_MICRO: return 1000;
    default: return 1;
  }
}

/* ---- timezones ---- */

static bool parse_fixed_offset(int32_t *out, const char *s, size_t n) {
  char v[4];
  if (n == 6 && s[3] == ':') v[0] = s[1], v[1] = s[2], v[2] = s[4], v[3] = s[5];
  else if (n == 5) v[0] = s[1], v[1] = s[2], v[2] = s[3], v[3] = s[4];
  else if (n == 3) v[0] = s[1], v[1] = s[2], v[2] = '0', v[3] = '0';
  else return false;
  for (int i = 0; i < 4; i++)
    if (!is_digit(v[i])) return false;
  int32_t secs = ((v[0] - '0') * 10 + (v[1] - '0')) * 3600 + ((v[2] - '0') * 10 + (v[3] - '0')) * 60;
  if (secs >= 86400) return false;
  if (s[0] == '+') *out = secs;
  else if (s[0] == '-') *out = -secs;
  else return false;
  return true;
}

hudi_status hudi_parse_tz(int32_t *offset_sec, const char *tz, size_t len, hudi_error *err) {
  static const char *utc_names[] = {"UTC", "UCT", "GMT", "Zulu", "Universal", "Etc/UTC", "Etc/UCT",
                                    "Etc/GMT", "Etc/Zulu", "Etc/Universal", "Etc/GMT+0", "Etc/GMT-0",
                                    "GMT0", "GMT+0", "GMT-0", "Etc/GMT0"};
  if (parse_fixed_offset(offset_sec, tz, len)) return HUDI_OK;
  for (size_t i = 0; i < sizeof utc_names / sizeof utc_names[0]; i++) {
    if (strlen(utc_names[i]) == len && memcmp(utc_names[i], tz, len) == 0) {
      *offset_sec = 0;
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                      "timezone '%.*s' is not supported (only UTC and fixed offsets such as +05:30)",
                      (int)(len > 64 ? 64 : len), tz);
}

/* ---- date-times (arrow-rs string_to_datetime) ---- */

static hudi_status dt_error(hudi_error *err, const char *s, size_t len, const char *why) {
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot parse timestamp from '%.*s': %s",
                      (int)(len > 100 ? 100 : len), s, why);
}

static int two(const char *p) { return (p[0] - '0') * 10 + (p[1] - '0'); }

static bool all_digits(const char *s, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (!is_digit(s[i])) return false;
  return true;
}

/* HH:MM:SS[.fraction] or HHMMSS at s+11; *end is where it stopped. */
static bool parse_time_part(int64_t *nanos, size_t *end, const char *s, size_t len) {
  int h, m, sec;
  int64_t frac = 0;
  if (len >= 19 && all_digits(s, 11, 13) && s[13] == ':' && all_digits(s, 14, 16) && s[16] == ':' &&
      all_digits(s, 17, 19)) {
    h = two(s + 11), m = two(s + 14), sec = two(s + 17);
    *end = 19;
    if (len > 19 && s[19] == '.') {
      size_t k = 20;
      while (k < len && is_digit(s[k])) k++;
      size_t nd = k - 20;
      if (nd == 0) return false;
      for (size_t i = 0; i < 9; i++) frac = frac * 10 + (i < nd ? s[20 + i] - '0' : 0);
      *end = k;
    }
  } else if (len >= 17 && all_digits(s, 11, 17) && !(len > 17 && is_digit(s[17])) &&
             !(len > 18 && is_digit(s[18]))) {
    h = two(s + 11), m = two(s + 13), sec = two(s + 15);
    *end = 17;
  } else {
    return false;
  }
  /* chrono takes :60 as a leap second, which counts as the next second. */
  if (h > 23 || m > 59 || sec > 60) return false;
  *nanos = ((int64_t)h * 3600 + m * 60 + sec) * 1000000000 + frac;
  return true;
}

hudi_status hudi_parse_datetime(hudi_datetime *out, const char *s, size_t len, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (len < 10) return dt_error(err, s, len, "timestamp must contain at least 10 characters");
  if (!(all_digits(s, 0, 4) && s[4] == '-' && all_digits(s, 5, 7) && s[7] == '-' &&
        all_digits(s, 8, 10)) ||
      !hudi_civil_to_days(&out->days, two(s) * 100 + two(s + 2), two(s + 5), two(s + 8)))
    return dt_error(err, s, len, "error parsing date");
  if (len == 10) return HUDI_OK;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return dt_error(err, s, len, "invalid timestamp separator");
  size_t end;
  if (!parse_time_part(&out->nanos, &end, s, len)) return dt_error(err, s, len, "error parsing time");
  if (end >= len) return HUDI_OK;
  if ((s[end] == 'z' || s[end] == 'Z') && end == len - 1) {
    out->has_offset = true;
    return HUDI_OK;
  }
  const char *tz = s + end;
  size_t tzn = len - end;
  while (tzn && is_ascii_ws(*tz)) tz++, tzn--;
  hudi_status st = hudi_parse_tz(&out->offset_sec, tz, tzn, err);
  if (st == HUDI_OK) out->has_offset = true;
  return st;
}

hudi_i128 hudi_datetime_epoch_nanos(const hudi_datetime *dt, int32_t default_offset) {
  int32_t off = dt->has_offset ? dt->offset_sec : default_offset;
  return (hudi_i128)dt->days * HUDI_NANOS_PER_DAY + dt->nanos - (hudi_i128)off * 1000000000;
}

/* ---- dates (arrow-rs parse_date_to_days) ---- */

static bool parse_extended_date(int64_t *days, const char *s, size_t n) {
  const char *rest = s + 1;
  size_t rn = n - 1;
  const char *hy = memchr(rest, '-', rn);
  if (!hy || hy - rest < 4) return false;
  size_t yn = (size_t)(hy - rest);
  if (yn > 10 || !all_digits(rest, 0, yn)) return false;
  int64_t y = 0;
  for (size_t i = 0; i < yn; i++) y = y * 10 + (rest[i] - '0');
  if (s[0] == '-') y = -y;
  if (y > INT32_MAX || y < INT32_MIN) return false;
  const char *md = hy + 1;
  size_t mn = n - (size_t)(md - s);
  const char *hy2 = memchr(md, '-', mn);
  if (!hy2) return false;
  size_t a = (size_t)(hy2 - md), b = mn - a - 1;
  if (a == 0 || b == 0 || a > 9 || b > 9 || !all_digits(md, 0, a) || !all_digits(hy2 + 1, 0, b)) return false;
  /* digits counted above: the text need not be NUL-terminated (atoi would
   * read past it) */
  int m = 0, d = 0;
  for (size_t i = 0; i < a; i++) m = m * 10 + (md[i] - '0');
  for (size_t i = 0; i < b; i++) d = d * 10 + (hy2[1 + i] - '0');
  return hudi_civil_to_days(days, y, m, d);
}

static bool parse_date_days(int64_t *days, const char *s, size_t n) {
  if (n > 0 && (s[0] == '+' || s[0] == '-')) return parse_extended_date(days, s, n);
  if (n > 10) {
    hudi_datetime dt;
    if (hudi_parse_datetime(&dt, s, n, NULL) != HUDI_OK) return false;
    *days = (int64_t)hudi_floor_div(hudi_datetime_epoch_nanos(&dt, 0), HUDI_NANOS_PER_DAY);
    return true;
  }
  /* Arrow looks at the first (up to) 10 bytes through a digit mask, so
   * e.g. "2024-1-5" is a date; we follow it byte for byte. */
  int dg[10] = {0};
  unsigned mask = 0;
  for (size_t i = 0; i < n && i < 10; i++) {
    dg[i] = (int)(unsigned char)s[i] - '0';
    if (dg[i] >= 0 && dg[i] < 10) mask |= 1u << i;
  }
  const int hyphen = '-' - '0';
  int y = dg[0] * 1000 + dg[1] * 100 + dg[2] * 10 + dg[3];
  int m, d;
  if (dg[4] != hyphen) {
    if (mask != 0xff || n != 8) return false;
    m = dg[4] * 10 + dg[5], d = dg[6] * 10 + dg[7];
  } else if (mask == 0x36f) { /* 0b1101101111: YYYY-MM-DD */
    if (dg[7] != hyphen) return false;
    m = dg[5] * 10 + dg[6], d = dg[8] * 10 + dg[9];
  } else if (mask == 0x16f) { /* 0b101101111: YYYY-MM-D */
    if (dg[7] != hyphen) return false;
    m = dg[5] * 10 + dg[6], d = dg[8];
  } else if (mask == 0x1af) { /* 0b110101111: YYYY-M-DD */
    if (dg[6] != hyphen) return false;
    m = dg[5], d = dg[7] * 10 + dg[8];
  } else if (mask == 0xaf) { /* 0b10101111: YYYY-M-D */
    if (dg[6] != hyphen) return false;
    m = dg[5], d = dg[7];
  } else {
    return false;
  }
  return hudi_civil_to_days(days, y, m, d);
}

/* ---- times (arrow-rs string_to_time) ---- */

static bool parse_time_of_day(int64_t *nanos, const char *s, size_t n) {
  if (n < 4) return false;
  int am = -1;
  if (n >= 3 && s[n - 3] == ' ') {
    char a = lower(s[n - 2]), b = lower(s[n - 1]);
    if (a == 'a' && b == 'm') am = 1, n -= 3;
    else if (a == 'p' && b == 'm') am = 0, n -= 3;
  }
  if (n < 4) return false;
  char dg[6] = {'0', '0', '0', '0', '0', '0'};
  size_t p;
  if (s[1] == ':') dg[1] = s[0], p = 2;
  else if (s[2] == ':') dg[0] = s[0], dg[1] = s[1], p = 3;
  else return false;
  if (n - p < 2) return false;
  dg[2] = s[p], dg[3] = s[p + 1];
  int64_t frac = 0;
  if (n > p + 2) {
    if (s[p + 2] != ':' || n < p + 5) return false;
    dg[4] = s[p + 3], dg[5] = s[p + 4];
    size_t q = p + 5;
    if (n > q) {
      if (s[q] != '.') return false;
      size_t nd = n - q - 1;
      if (nd == 0 || !all_digits(s, q + 1, n)) return false;
      for (size_t i = 0; i < 9; i++) frac = frac * 10 + (i < nd ? s[q + 1 + i] - '0' : 0);
    }
  }
  for (int i = 0; i < 6; i++)
    if (!is_digit(dg[i])) return false;
  int h = two(dg), m = two(dg + 2), sec = two(dg + 4);
  if (am >= 0) {
    if (h < 1 || h > 12) return false;
    if (am) h = h == 12 ? 0 : h;
    else h = h == 12 ? 12 : h + 12;
  }
  if (sec == 60) sec = 59, frac += 1000000000;
  if (h > 23 || m > 59 || sec > 59) return false;
  *nanos = ((int64_t)h * 3600 + m * 60 + sec) * 1000000000 + frac;
  return true;
}

/* ---- decimals (arrow-rs parse_string_to_decimal_native) ---- */

static bool parse_decimal_text(hudi_i128 *out, const char *s, size_t n, int32_t scale) {
  const char *dot = memchr(s, '.', n);
  if (dot && memchr(dot + 1, '.', n - (size_t)(dot - s) - 1)) return false;
  size_t in = dot ? (size_t)(dot - s) : n;
  const char *ip = s, *fp = dot ? dot + 1 : s + n;
  size_t fn = dot ? n - in - 1 : 0;
  bool neg = false;
  if (in && (ip[0] == '-' || ip[0] == '+')) neg = ip[0] == '-', ip++, in--;
  if (!all_digits(ip, 0, in) || !all_digits(fp, 0, fn)) return false;
  if (in == 0 && fn == 0 && scale == 0) return false;
  unsigned __int128 mag = 0, lim = (unsigned __int128)1 << 126;
  for (size_t i = 0; i < in; i++) {
    mag = mag * 10 + (unsigned)(ip[i] - '0');
    if (mag > lim) return false;
  }
  for (int32_t i = 0; i < scale; i++) {
    mag = mag * 10 + ((size_t)i < fn ? (unsigned)(fp[i] - '0') : 0);
    if (mag > lim) return false;
  }
  /* Extra fraction digits round half up on the magnitude (arrow compares
   * the remainder with half the divisor). */
  if (fn > (size_t)scale && fp[scale] >= '5') mag++;
  *out = neg ? -(hudi_i128)mag : (hudi_i128)mag;
  return true;
}

/* ---- floats (lexical_core grammar) ---- */

static bool parse_float_text(double *out, const char *s, size_t n) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  const char *r = s + i;
  size_t rn = n - i;
  if (ieq(r, rn, "inf") || ieq(r, rn, "infinity")) {
    *out = neg ? -INFINITY : INFINITY;
    return true;
  }
  if (ieq(r, rn, "nan")) {
    *out = NAN;
    return true;
  }
  size_t d1 = 0, d2 = 0;
  while (i < n && is_digit(s[i])) i++, d1++;
  if (i < n && s[i] == '.') {
    i++;
    while (i < n && is_digit(s[i])) i++, d2++;
  }
  if (d1 + d2 == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    size_t de = 0;
    while (i < n && is_digit(s[i])) i++, de++;
    if (!de) return false;
  }
  if (i != n || n > 400) return false;
  char buf[401];
  memcpy(buf, s, n);
  buf[n] = 0;
  *out = strtod(buf, NULL);
  return true;
}

/* ---- the cast ---- */

void hudi_type_describe(char *out, size_t cap, const hudi_arrow_type *t) {
  static const char *units[] = {"s", "ms", "us", "ns"};
  const char *name = hudi_arrow_type_name(t->id);
  switch (t->id) {
    case HUDI_ARROW_DECIMAL:
      if (t->bit_width == 128) snprintf(out, cap, "decimal(%d, %d)", t->precision, t->scale);
      else snprintf(out, cap, "decimal%d(%d, %d)", t->bit_width, t->precision, t->scale);
      break;
    case HUDI_ARROW_TIMESTAMP:
      if (t->timezone)
        snprintf(out, cap, "timestamp[%s, %.*s]", units[t->unit & 3], (int)t->timezone_len, t->timezone);
      else snprintf(out, cap, "timestamp[%s]", units[t->unit & 3]);
      break;
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_DURATION: snprintf(out, cap, "%s[%s]", name, units[t->unit & 3]); break;
    case HUDI_ARROW_FIXED_SIZE_BINARY: snprintf(out, cap, "fixed_size_binary(%d)", t->fixed_size); break;
    default: snprintf(out, cap, "%s", name); break;
  }
}

static hudi_status cast_error(hudi_error *err, const hudi_arrow_type *t, const char *s, size_t len) {
  char ty[96];
  hudi_type_describe(ty, sizeof ty, t);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot cast '%.*s' to %s", (int)(len > 100 ? 100 : len),
                      s, ty);
}

static bool int_range(const hudi_arrow_type *t, int64_t *lo, int64_t *hi) {
  switch (t->id) {
    case HUDI_ARROW_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case HUDI_ARROW_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_TIME32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    default: *lo = INT64_MIN, *hi = INT64_MAX; return true;
  }
}

static uint64_t uint_max(const hudi_arrow_type *t) {
  switch (t->id) {
    case HUDI_ARROW_UINT8: return UINT8_MAX;
    case HUDI_ARROW_UINT16: return UINT16_MAX;
    case HUDI_ARROW_UINT32: return UINT32_MAX;
    default: return UINT64_MAX;
  }
}

/* Rust's str::parse::<i64> (no whitespace, optional sign) into t's range. */
static bool parse_exact_int(int64_t *out, const hudi_arrow_type *t, const char *s, size_t n) {
  bool neg, of;
  unsigned __int128 mag;
  if (!parse_signed_digits(s, n, &neg, &mag, &of) || of) return false;
  int64_t lo, hi;
  int_range(t, &lo, &hi);
  hudi_i128 v = neg ? -(hudi_i128)mag : (hudi_i128)mag;
  if (v < lo || v > hi) return false;
  *out = (int64_t)v;
  return true;
}

static hudi_status cast_timestamp(hudi_value *out, const hudi_arrow_type *t, const char *s, size_t len,
                                  hudi_error *err) {
  hudi_datetime dt;
  HUDI_TRY(hudi_parse_datetime(&dt, s, len, err));
  int32_t off = 0;
  if (!dt.has_offset && t->timezone) HUDI_TRY(hudi_parse_tz(&off, t->timezone, t->timezone_len, err));
  hudi_i128 v = hudi_floor_div(hudi_datetime_epoch_nanos(&dt, off), hudi_time_unit_nanos(t->unit));
  if (v < INT64_MIN || v > INT64_MAX) {
    char ty[96];
    hudi_type_describe(ty, sizeof ty, t);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%.*s' is out of the range of %s",
                        (int)(len > 100 ? 100 : len), s, ty);
  }
  out->v.i = (int64_t)v;
  return HUDI_OK;
}

hudi_status hudi_cast_string(hudi_value *out, const hudi_arrow_type *t, const char *s, size_t len,
                             hudi_error *err) {
  memset(out, 0, sizeof *out);
  out->cls = hudi_vclass_of(t);
  const char *p = s;
  size_t n = len;
  switch (t->id) {
    case HUDI_ARROW_BOOL:
      trim(&p, &n);
      if (ieq(p, n, "t") || ieq(p, n, "tr") || ieq(p, n, "tru") || ieq(p, n, "true") || ieq(p, n, "y") ||
          ieq(p, n, "ye") || ieq(p, n, "yes") || ieq(p, n, "on") || ieq(p, n, "1")) {
        out->v.b = true;
        return HUDI_OK;
      }
      if (ieq(p, n, "f") || ieq(p, n, "fa") || ieq(p, n, "fal") || ieq(p, n, "fals") || ieq(p, n, "false") ||
          ieq(p, n, "n") || ieq(p, n, "no") || ieq(p, n, "of") || ieq(p, n, "off") || ieq(p, n, "0")) {
        out->v.b = false;
        return HUDI_OK;
      }
      return cast_error(err, t, s, len);
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_DURATION:
      trim_numeric(&p, &n);
      if (!n || !is_digit(p[n - 1]) || !parse_exact_int(&out->v.i, t, p, n)) return cast_error(err, t, s, len);
      return HUDI_OK;
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_UINT64: {
      trim_numeric(&p, &n);
      bool neg, of;
      unsigned __int128 mag;
      if (!n || !is_digit(p[n - 1]) || !parse_signed_digits(p, n, &neg, &mag, &of) || of ||
          (neg && mag != 0) || mag > uint_max(t))
        return cast_error(err, t, s, len);
      out->v.u = (uint64_t)mag;
      return HUDI_OK;
    }
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DOUBLE:
      trim_numeric(&p, &n);
      if (!parse_float_text(&out->v.d, p, n)) return cast_error(err, t, s, len);
      if (t->id == HUDI_ARROW_FLOAT) out->v.d = (float)out->v.d;
      return HUDI_OK;
    case HUDI_ARROW_DECIMAL:
      if (t->bit_width > 128 || t->scale < 0 || t->scale > 38) {
        char ty[96];
        hudi_type_describe(ty, sizeof ty, t);
        return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "cannot cast strings to %s", ty);
      }
      trim(&p, &n);
      if (!parse_decimal_text(&out->v.dec, p, n, t->scale) || !hudi_decimal_fits(out->v.dec, t->precision))
        return cast_error(err, t, s, len);
      return HUDI_OK;
    case HUDI_ARROW_DATE32: {
      int64_t d;
      if (!parse_date_days(&d, s, len) || d < INT32_MIN || d > INT32_MAX) return cast_error(err, t, s, len);
      out->v.i = d;
      return HUDI_OK;
    }
    case HUDI_ARROW_DATE64: {
      int64_t d;
      if (len <= 10) {
        if (!parse_date_days(&d, s, len)) return cast_error(err, t, s, len);
        out->v.i = d * 86400000;
        return HUDI_OK;
      }
      hudi_datetime dt;
      if (hudi_parse_datetime(&dt, s, len, NULL) != HUDI_OK) return cast_error(err, t, s, len);
      out->v.i = (int64_t)hudi_floor_div(hudi_datetime_epoch_nanos(&dt, 0), 1000000);
      return HUDI_OK;
    }
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64: {
      int64_t ns;
      if (parse_time_of_day(&ns, s, len)) {
        out->v.i = ns / hudi_time_unit_nanos(t->unit);
        return HUDI_OK;
      }
      if (!parse_exact_int(&out->v.i, t, s, len)) return cast_error(err, t, s, len);
      return HUDI_OK;
    }
    case HUDI_ARROW_TIMESTAMP: return cast_timestamp(out, t, s, len, err);
    case HUDI_ARROW_FIXED_SIZE_BINARY:
      if ((int64_t)len != t->fixed_size) return cast_error(err, t, s, len);
      /* fall through */
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW:
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW:
      out->v.bytes.data = (const uint8_t *)(s ? s : "");
      out->v.bytes.len = len;
      return HUDI_OK;
    default: {
      char ty[96];
      hudi_type_describe(ty, sizeof ty, t);
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "cannot compare values of type %s", ty);
    }
  }
}
