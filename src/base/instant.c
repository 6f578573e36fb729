#include "base/instant.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define MS_PER_DAY INT64_C(86400000)
/* Longest input we look at; anything longer is no timestamp. */
#define TIMESTAMP_MAX_LEN 256

/* ---- calendar arithmetic (proleptic Gregorian, UTC) ---- */

static int is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int64_t y, int m) {
  static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : dim[m - 1];
}

/* Days since 1970-01-01 of a civil date, counting in 400-year eras of
 * 146097 days with March as the first month so leap days fall last. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

typedef struct civil {
  int64_t year;
  int month, day, hour, minute, second, milli;
} civil;

/* Checks the fields and converts to epoch milliseconds; 0 when invalid. */
static int civil_to_millis(const civil *c, int64_t *out) {
  if (c->month < 1 || c->month > 12) return 0;
  if (c->day < 1 || c->day > days_in_month(c->year, c->month)) return 0;
  if (c->hour > 23 || c->minute > 59 || c->second > 59 || c->milli > 999) return 0;
  int64_t days = days_from_civil(c->year, c->month, c->day);
  *out = days * MS_PER_DAY + ((int64_t)c->hour * 3600 + c->minute * 60 + c->second) * 1000 + c->milli;
  return 1;
}

/* ---- error messages that name the input ---- */

/* A printable copy of (part of) the input for messages. */
static void quote_input(char *dst, size_t cap, const char *s, size_t len) {
  size_t n = 0;
  for (size_t i = 0; i < len && n + 4 < cap; i++) {
    unsigned char c = (unsigned char)s[i];
    dst[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (len > 0 && n + 4 >= cap) {
    memcpy(dst + n, "...", 3);
    n += 3;
  }
  dst[n] = '\0';
}

static hudi_status bad_input(hudi_error *err, const char *what, const char *s, size_t len, const char *why) {
  char q[80];
  quote_input(q, sizeof q, s, len);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot parse %s '%s': %s", what, q, why);
}

/* ---- formatting ---- */

static void put_digits(char *p, int64_t v, int width) {
  for (int i = width - 1; i >= 0; i--) {
    p[i] = (char)('0' + v % 10);
    v /= 10;
  }
}

hudi_status hudi_instant_time_format(char out[HUDI_INSTANT_TIME_BUF], int64_t epoch_ms, hudi_error *err) {
  if (epoch_ms < HUDI_INSTANT_MIN_MILLIS || epoch_ms > HUDI_INSTANT_MAX_MILLIS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "epoch milliseconds %lld lie outside years 0000-9999 of an instant time",
                        (long long)epoch_ms);
  int64_t days = epoch_ms / MS_PER_DAY, rem = epoch_ms % MS_PER_DAY;
  if (rem < 0) {
    rem += MS_PER_DAY;
    days--;
  }
  int64_t y;
  int m, d;
  civil_from_days(days, &y, &m, &d);
  put_digits(out, y, 4);
  put_digits(out + 4, m, 2);
  put_digits(out + 6, d, 2);
  put_digits(out + 8, rem / 3600000, 2);
  put_digits(out + 10, rem / 60000 % 60, 2);
  put_digits(out + 12, rem / 1000 % 60, 2);
  put_digits(out + 14, rem % 1000, 3);
  out[HUDI_INSTANT_TIME_LEN] = '\0';
  return HUDI_OK;
}

hudi_status hudi_instant_time_format_zone(char out[HUDI_INSTANT_TIME_BUF], int64_t ms, bool utc, hudi_error *err) {
  if (utc) return hudi_instant_time_format(out, ms, err);
  time_t secs = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  struct tm tm;
  if (!localtime_r(&secs, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "epoch milliseconds %lld lie outside years 0000-9999 of an instant time",
                        (long long)ms);
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%04d%02d%02d%02d%02d%02d%03d", tm.tm_year + 1900, (tm.tm_mon + 1) % 100,
           tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100, (int)(((ms % 1000) + 1000) % 1000));
  memcpy(out, tmp, HUDI_INSTANT_TIME_BUF - 1);
  out[HUDI_INSTANT_TIME_BUF - 1] = 0;
  return HUDI_OK;
}

/* ---- instant times ---- */

static int all_digits(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9') return 0;
  return 1;
}

static int64_t digits_value(const char *s, size_t n) {
  int64_t v = 0;
  for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
  return v;
}

/* yyyyMMddHHmmss[SSS] as a calendar time; 0 when no valid date. */
static int instant_calendar(const char *s, size_t len, int64_t *out) {
  civil c = {digits_value(s, 4),
             (int)digits_value(s + 4, 2),
             (int)digits_value(s + 6, 2),
             (int)digits_value(s + 8, 2),
             (int)digits_value(s + 10, 2),
             (int)digits_value(s + 12, 2),
             len >= 17 ? (int)digits_value(s + 14, 3) : 0};
  return civil_to_millis(&c, out);
}

hudi_status hudi_instant_time_to_millis(int64_t *out, const char *s, size_t len, hudi_error *err) {
  if (len != 14 && (len < 17 || len > 23))
    return bad_input(err, "instant time", s, len, "expected 14 or 17 digits (yyyyMMddHHmmss[SSS])");
  if (!all_digits(s, len)) return bad_input(err, "instant time", s, len, "not all digits");
  size_t n = len > 17 ? 17 : len;
  if (instant_calendar(s, n, out)) return HUDI_OK;
  /* Not a date: the metadata table's "00000000000000000"-style times, which
   * hudi-rs reads as epoch milliseconds (and 0.x's 14-digit
   * "00000000000000", read as if "000" were appended, like a legacy date).
   * Beyond year 9999 we could not write the time back, so refuse. */
  int64_t v = digits_value(s, n);
  if (n == 14) v = v <= HUDI_INSTANT_MAX_MILLIS / 1000 ? v * 1000 : HUDI_INSTANT_MAX_MILLIS + 1;
  if (v <= HUDI_INSTANT_MAX_MILLIS) {
    *out = v;
    return HUDI_OK;
  }
  return bad_input(err, "instant time", s, len, "not a valid calendar date and time");
}

/* ---- user timestamps ---- */

/* Length of a Unicode White_Space character encoded at s (what Rust's
 * str::trim removes), or 0. */
static size_t space_len(const unsigned char *s, size_t len) {
  if (len >= 1 && (s[0] == ' ' || (s[0] >= 0x09 && s[0] <= 0x0d))) return 1;
  if (len >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0)) return 2;
  if (len >= 3) {
    if (s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80) return 3;                  /* U+1680 */
    if (s[0] == 0xe2 && s[1] == 0x80 &&                                          /* U+2000-200A, 2028, 2029, 202F */
        ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
      return 3;
    if (s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) return 3;                  /* U+205F */
    if (s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80) return 3;                  /* U+3000 */
  }
  return 0;
}

/* Length of a Unicode White_Space character ending at s[len-1], or 0. */
static size_t space_len_back(const unsigned char *s, size_t len) {
  for (size_t k = 1; k <= 3 && k <= len; k++)
    if (space_len(s + len - k, k) == k) return k;
  return 0;
}

/* Rust's i64::from_str: optional sign, then one or more digits. */
static int parse_i64(const char *s, size_t len, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (len > 0 && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == len) return 0;
  uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    unsigned dgt = (unsigned)(s[i] - '0');
    if (v > (limit - dgt) / 10) return 0;
    v = v * 10 + dgt;
  }
  *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
  return 1;
}

/* 1 epoch parsed, 0 not an integer, -1 error already set. */
static int parse_epoch(const char *s, size_t len, int64_t *ms, hudi_error *err) {
  int64_t v;
  if (!parse_i64(s, len, &v)) return 0;
  if (v < 0) {
    bad_input(err, "timestamp", s, len, "epoch time must be non-negative");
    return -1;
  }
  if (len <= 10) *ms = v * 1000; /* seconds: at most 9999999999 */
  else if (len <= 13) *ms = v;
  else if (len <= 16) *ms = v / 1000;
  else *ms = v / 1000000;
  return 1;
}

/* Exactly n digits at s[*i]. */
static int take_digits(const char *s, size_t len, size_t *i, size_t n, int64_t *v) {
  if (len - *i < n || !all_digits(s + *i, n)) return 0;
  *v = digits_value(s + *i, n);
  *i += n;
  return 1;
}

static int take_char(const char *s, size_t len, size_t *i, char c) {
  if (*i >= len || s[*i] != c) return 0;
  (*i)++;
  return 1;
}

/* RFC 3339 as chrono's DateTime::parse_from_rfc3339 accepts it. Returns 1
 * parsed, 0 not RFC 3339 (why set), -1 RFC 3339 but out of range. */
static int parse_rfc3339(const char *s, size_t len, int64_t *ms, const char **why) {
  size_t i = 0;
  int64_t y, mo, d, h, mi, se, oh = 0, om = 0;
  *why = "not RFC 3339 (yyyy-MM-ddTHH:mm:ss[.fff](Z|+HH:MM))";
  if (!take_digits(s, len, &i, 4, &y) || !take_char(s, len, &i, '-') || !take_digits(s, len, &i, 2, &mo) ||
      !take_char(s, len, &i, '-') || !take_digits(s, len, &i, 2, &d))
    return 0;
  if (i >= len || (s[i] != 'T' && s[i] != 't' && s[i] != ' ')) return 0;
  i++;
  if (!take_digits(s, len, &i, 2, &h) || !take_char(s, len, &i, ':') || !take_digits(s, len, &i, 2, &mi) ||
      !take_char(s, len, &i, ':') || !take_digits(s, len, &i, 2, &se))
    return 0;
  int64_t milli = 0;
  if (i < len && s[i] == '.') {
    i++;
    size_t start = i;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
      if (i - start < 3) milli = milli * 10 + (s[i] - '0');
      i++;
    }
    if (i == start) return 0;
    for (size_t k = i - start; k < 3; k++) milli *= 10;
  }
  int sign = 0;
  if (i < len && (s[i] == 'Z' || s[i] == 'z')) {
    i++;
  } else {
    if (i < len && s[i] == '+') { sign = 1; i++; }
    else if (i < len && s[i] == '-') { sign = -1; i++; }
    else if (len - i >= 3 && memcmp(s + i, "\xe2\x88\x92", 3) == 0) { sign = -1; i += 3; } /* U+2212 */
    else {
      *why = "RFC 3339 needs an offset (Z or +HH:MM)";
      return 0;
    }
    if (!take_digits(s, len, &i, 2, &oh) || !take_char(s, len, &i, ':') || !take_digits(s, len, &i, 2, &om))
      return 0;
  }
  if (i != len) {
    *why = "trailing characters after the RFC 3339 offset";
    return 0;
  }
  if (oh > 23 || om > 59) {
    *why = "offset out of range (at most +-23:59)";
    return -1;
  }
  if (se == 60) {
    *why = "leap seconds are not supported";
    return -1;
  }
  civil c = {y, (int)mo, (int)d, (int)h, (int)mi, (int)se, (int)milli};
  int64_t local;
  if (!civil_to_millis(&c, &local)) {
    *why = "no such date or time of day";
    return -1;
  }
  *ms = local - sign * (oh * 60 + om) * 60000;
  return 1;
}

hudi_status hudi_timestamp_parse(char out[HUDI_INSTANT_TIME_BUF], int64_t *epoch_ms, const char *s, size_t len,
                                 hudi_error *err) {
  if (!s) s = "";
  const unsigned char *u = (const unsigned char *)s;
  size_t sp;
  if (len > TIMESTAMP_MAX_LEN) return bad_input(err, "timestamp", s, len, "longer than 256 bytes");
  while (len > 0 && (sp = space_len(u, len)) > 0) {
    u += sp;
    s += sp;
    len -= sp;
  }
  while (len > 0 && (sp = space_len_back(u, len)) > 0) len -= sp;
  if (len == 0) return bad_input(err, "timestamp", s, len, "empty");

  int64_t ms = 0;
  if ((len == 14 || len == 17) && all_digits(s, len)) {
    HUDI_TRY(hudi_instant_time_to_millis(&ms, s, len, err));
    memcpy(out, s, len);
    if (len == 14) memcpy(out + 14, "000", 3);
    out[HUDI_INSTANT_TIME_LEN] = '\0';
    if (epoch_ms) *epoch_ms = ms;
    return HUDI_OK;
  }
  int r = parse_epoch(s, len, &ms, err);
  if (r < 0) return HUDI_ERR_INVALID_ARG;
  if (r == 0) {
    const char *why;
    r = parse_rfc3339(s, len, &ms, &why);
    if (r <= 0) {
      char msg[200];
      snprintf(msg, sizeof msg, "%s; expected an instant time (14 or 17 digits), epoch time or RFC 3339", why);
      return bad_input(err, "timestamp", s, len, msg);
    }
  }
  hudi_status st = hudi_instant_time_format(out, ms, err);
  if (st != HUDI_OK) return bad_input(err, "timestamp", s, len, "outside years 0000-9999");
  if (epoch_ms) *epoch_ms = ms;
  return HUDI_OK;
}

/* ---- generation ---- */

int64_t hudi_clock_realtime_ms(void *ctx) {
  (void)ctx;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void hudi_instant_gen_init(hudi_instant_gen *gen, hudi_clock_fn clock, void *clock_ctx) {
  atomic_init(&gen->last_ms, INT64_MIN);
  gen->clock = clock;
  gen->clock_ctx = clock_ctx;
  gen->offset_ms = 0;
}

void hudi_instant_gen_set_offset(hudi_instant_gen *gen, int64_t offset_ms) { gen->offset_ms = offset_ms; }

void hudi_instant_gen_observe(hudi_instant_gen *gen, int64_t epoch_ms) {
  int64_t last = atomic_load(&gen->last_ms);
  while (last < epoch_ms && !atomic_compare_exchange_weak(&gen->last_ms, &last, epoch_ms)) {
  }
}

/* max(clock, last+1) from one generator, no other coordination. */
static hudi_status gen_next_raw(hudi_instant_gen *gen, int64_t *out_ms, hudi_error *err) {
  int64_t last = atomic_load(&gen->last_ms), next;
  do {
    int64_t now = (gen->clock ? gen->clock(gen->clock_ctx) : hudi_clock_realtime_ms(NULL)) + gen->offset_ms;
    if (last >= HUDI_INSTANT_MAX_MILLIS)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "no instant time after %lld ms is representable",
                          (long long)last);
    next = now > last ? now : last + 1;
  } while (!atomic_compare_exchange_weak(&gen->last_ms, &last, next));
  *out_ms = next;
  return HUDI_OK;
}

static hudi_instant_gen g_process_gen = {INT64_MIN, NULL, NULL, 0};

hudi_status hudi_instant_gen_next(hudi_instant_gen *gen, char out[HUDI_INSTANT_TIME_BUF], int64_t *epoch_ms,
                                  hudi_error *err) {
  int64_t next = 0;
  if (gen->clock || gen == &g_process_gen) {
    HUDI_TRY(gen_next_raw(gen, &next, err));
  } else {
    /* A system-clock generator seeded from one timeline (the data table's,
     * the metadata table's) also goes through the process-wide one: two
     * generators seeded from different timelines could otherwise hand out
     * the same millisecond, e.g. a metadata-table compaction and the next
     * data write, whose deltacommit lands on the same metadata timeline.
     * The process-wide one runs in UTC; gen's times are its zone's. */
    int64_t last = atomic_load(&gen->last_ms);
    if (last != INT64_MIN) hudi_instant_gen_observe(&g_process_gen, last - gen->offset_ms);
    HUDI_TRY(gen_next_raw(&g_process_gen, &next, err));
    next += gen->offset_ms;
    hudi_instant_gen_observe(gen, next);
  }
  HUDI_TRY(hudi_instant_time_format(out, next, err));
  if (epoch_ms) *epoch_ms = next - gen->offset_ms;
  return HUDI_OK;
}

hudi_status hudi_instant_time_now(char out[HUDI_INSTANT_TIME_BUF], int64_t *epoch_ms, hudi_error *err) {
  return hudi_instant_gen_next(&g_process_gen, out, epoch_ms, err);
}
