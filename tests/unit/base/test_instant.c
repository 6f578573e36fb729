/* Instant times: formatting (checked against the C library's gmtime_r),
 * timeline parsing, user timestamps as hudi-rs reads them (its own test
 * cases plus leap years, offsets across days and bad inputs), and the
 * strictly increasing generator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/instant.h"

static void expect_format(int64_t ms, const char *want) {
  char out[HUDI_INSTANT_TIME_BUF];
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_instant_time_format(out, ms, &err), HUDI_OK);
  assert_string_equal(out, want);
}

static void format_known_values(void **state) {
  (void)state;
  expect_format(0, "19700101000000000");
  expect_format(-1, "19691231235959999");
  expect_format(1710512730123, "20240315142530123");
  expect_format(HUDI_INSTANT_MIN_MILLIS, "00000101000000000");
  expect_format(HUDI_INSTANT_MAX_MILLIS, "99991231235959999");
  expect_format(951782400000, "20000229000000000");  /* 2000 is a leap year */
  expect_format(-2203891200000, "19000301000000000"); /* 1900 is not: Feb 28 + 1 day */
  expect_format(-2203977600000, "19000228000000000");
  char out[HUDI_INSTANT_TIME_BUF];
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_instant_time_format(out, HUDI_INSTANT_MAX_MILLIS + 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "253402300800000"));
  assert_int_equal(hudi_instant_time_format(out, HUDI_INSTANT_MIN_MILLIS - 1, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_instant_time_format(out, INT64_MIN, &err), HUDI_ERR_INVALID_ARG);
}

/* Formats with glibc's gmtime_r as the oracle, over the whole range. */
static void format_matches_gmtime(void **state) {
  (void)state;
  srand(12345);
  hudi_error err = HUDI_ERROR_INIT;
  for (int i = 0; i < 200000; i++) {
    uint64_t r = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
    int64_t span = HUDI_INSTANT_MAX_MILLIS - HUDI_INSTANT_MIN_MILLIS + 1;
    int64_t ms = HUDI_INSTANT_MIN_MILLIS + (int64_t)(r % (uint64_t)span);
    if (i < 1000) ms = (int64_t)(r % 4000000000ull) * 1000 - INT64_C(2000000000000); /* near 1970 */
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    time_t t = (time_t)secs;
    struct tm tm;
    assert_non_null(gmtime_r(&t, &tm));
    char want[64];
    snprintf(want, sizeof want, "%04d%02d%02d%02d%02d%02d%03d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms - secs * 1000));
    char out[HUDI_INSTANT_TIME_BUF];
    assert_int_equal(hudi_instant_time_format(out, ms, &err), HUDI_OK);
    if (strcmp(out, want) != 0) fail_msg("ms %lld: got %s want %s", (long long)ms, out, want);
    /* And back. */
    int64_t back = 0;
    assert_int_equal(hudi_instant_time_to_millis(&back, out, 17, &err), HUDI_OK);
    assert_true(back == ms);
  }
}

/* The zone formatter: UTC as hudi_instant_time_format; local time under a
 * fixed-offset TZ (no daylight saving) shifted by that offset. */
static void format_zone(void **state) {
  (void)state;
  const int64_t ms = INT64_C(1752368735797); /* 2025-07-13T01:05:35.797Z */
  char out[HUDI_INSTANT_TIME_BUF];
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_instant_time_format_zone(out, ms, true, &err), HUDI_OK);
  assert_string_equal(out, "20250713010535797");
  const char *old = getenv("TZ");
  char *saved = old ? strdup(old) : NULL;
  setenv("TZ", "UTC-05:30", 1); /* POSIX sign: 5:30 east of UTC */
  tzset();
  assert_int_equal(hudi_instant_time_format_zone(out, ms, false, &err), HUDI_OK);
  assert_string_equal(out, "20250713063535797");
  assert_int_equal(hudi_instant_time_format_zone(out, INT64_C(-1), false, &err), HUDI_OK);
  assert_string_equal(out, "19700101052959999");
  if (saved) setenv("TZ", saved, 1);
  else unsetenv("TZ");
  tzset();
  free(saved);
}

/* A generator with an offset writes that zone's wall-clock time, stays
 * above times observed in that zone, and reports UTC epoch milliseconds. */
static void generator_offset(void **state) {
  (void)state;
  const int64_t off = (5 * 60 + 30) * 60000;
  hudi_instant_gen g;
  hudi_instant_gen_init(&g, NULL, NULL);
  hudi_instant_gen_set_offset(&g, off);
  hudi_error err = HUDI_ERROR_INIT;
  char a[HUDI_INSTANT_TIME_BUF], b[HUDI_INSTANT_TIME_BUF];
  int64_t before = hudi_clock_realtime_ms(NULL), ms_a, ms_b, wall;
  assert_int_equal(hudi_instant_gen_next(&g, a, &ms_a, &err), HUDI_OK);
  int64_t after = hudi_clock_realtime_ms(NULL);
  assert_true(ms_a >= before && ms_a <= after + 1000);
  assert_int_equal(hudi_instant_time_to_millis(&wall, a, strlen(a), &err), HUDI_OK);
  assert_int_equal(wall, ms_a + off);
  /* a time observed ahead (another writer's clock, in the zone; small, as
   * the process-wide generator follows and later tests want it near the
   * clock) */
  hudi_instant_gen_observe(&g, wall + 1500);
  assert_int_equal(hudi_instant_gen_next(&g, b, &ms_b, &err), HUDI_OK);
  assert_int_equal(hudi_instant_time_to_millis(&wall, b, strlen(b), &err), HUDI_OK);
  assert_true(wall > ms_a + off + 1500 - 1);
  assert_int_equal(ms_b, wall - off);
  /* a UTC generator in the same process still hands out distinct times */
  hudi_instant_gen u;
  hudi_instant_gen_init(&u, NULL, NULL);
  char c[HUDI_INSTANT_TIME_BUF];
  assert_int_equal(hudi_instant_gen_next(&u, c, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_instant_time_to_millis(&wall, c, strlen(c), &err), HUDI_OK);
  assert_true(wall > ms_b);
}

static void expect_millis(const char *s, int64_t want) {
  int64_t got = 0;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_instant_time_to_millis(&got, s, strlen(s), &err) != HUDI_OK) fail_msg("%s: %s", s, err.message);
  if (got != want) fail_msg("%s: got %lld want %lld", s, (long long)got, (long long)want);
}

static void expect_bad_instant(const char *s, size_t len, const char *msg_part) {
  int64_t got = 0;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_instant_time_to_millis(&got, s, len, &err), HUDI_ERR_INVALID_ARG);
  if (!strstr(err.message, msg_part)) fail_msg("'%s': message '%s' lacks '%s'", s, err.message, msg_part);
}

static void timeline_instants(void **state) {
  (void)state;
  expect_millis("20240315142530123", 1710512730123);
  expect_millis("20240315142530", 1710512730000);          /* legacy: .000 as hudi-rs */
  expect_millis("20240315142530123001", 1710512730123);    /* 0.x MDT suffix dropped */
  expect_millis("20240229235959999", 1709251199999);       /* leap day */
  expect_millis("00000000000000000", 0);                   /* MDT init instants */
  expect_millis("00000000000000002", 2);
  expect_millis("00000000000000010", 10);
  expect_millis("19700101000000000", 0);
  expect_millis("00000101000000000", HUDI_INSTANT_MIN_MILLIS);
  expect_millis("00000000000000", 0);                      /* 0.x init instant */
  expect_millis("00000000000001", 1000);                   /* same as ...001000 */
  expect_bad_instant("20230229000000", 14, "not a valid calendar date");
  expect_bad_instant("2023022900000", 13, "expected 14 or 17 digits");
  expect_bad_instant("202302290000000", 15, "expected 14 or 17 digits");
  expect_bad_instant("202403151425301230000000", 24, "expected 14 or 17 digits");
  expect_bad_instant("2024031514253a", 14, "not all digits");
  expect_bad_instant("", 0, "expected 14 or 17 digits");
  /* Not a date and past year 9999 as epoch millis. */
  expect_bad_instant("20230229000000000", 17, "20230229000000000");
  expect_bad_instant("20241301000000000", 17, "not a valid calendar");
  expect_bad_instant("2024\0" "315142530123", 17, "not all digits");
}

static void expect_ts(const char *in, const char *want, int64_t want_ms) {
  char out[HUDI_INSTANT_TIME_BUF] = {0};
  int64_t ms = -42;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_timestamp_parse(out, &ms, in, strlen(in), &err) != HUDI_OK) fail_msg("'%s': %s", in, err.message);
  if (strcmp(out, want) != 0) fail_msg("'%s': got %s want %s", in, out, want);
  if (want_ms != INT64_MIN && ms != want_ms) fail_msg("'%s': got %lld ms want %lld", in, (long long)ms, (long long)want_ms);
}

static void expect_bad_ts(const char *in, size_t len, const char *msg_part) {
  char out[HUDI_INSTANT_TIME_BUF];
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_timestamp_parse(out, NULL, in, len, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(err.code, HUDI_ERR_INVALID_ARG);
  if (!strstr(err.message, msg_part)) fail_msg("'%s': message '%s' lacks '%s'", in, err.message, msg_part);
}

static void timestamps_hudi_rs_cases(void **state) {
  (void)state;
  /* hudi-rs crates/core/src/timeline/util.rs tests, UTC. */
  expect_ts("20240315142530", "20240315142530000", 1710512730000);
  expect_ts("20240315142530123", "20240315142530123", 1710512730123);
  expect_ts("1710512730", "20240315142530000", 1710512730000);
  expect_ts("1710512730123", "20240315142530123", 1710512730123);
  expect_ts("1710512730123456", "20240315142530123", 1710512730123);
  expect_ts("1710512730123456789", "20240315142530123", 1710512730123);
  expect_ts("2024-03-15T14:25:30+00:00", "20240315142530000", 1710512730000);
  expect_ts("2024-03-15T14:25:30Z", "20240315142530000", 1710512730000);
  expect_ts("2024-03-15T14:25:30.123Z", "20240315142530123", 1710512730123);
  expect_ts("2024-03-15T20:25:30+06:00", "20240315142530000", 1710512730000);
  expect_ts("  20240315142530  ", "20240315142530000", 1710512730000);
  expect_ts("  2024-03-15T14:25:30Z  ", "20240315142530000", 1710512730000);
  expect_ts("  1710512730  ", "20240315142530000", 1710512730000);
  expect_ts("2024-02-29T12:00:00Z", "20240229120000000", INT64_MIN);
  expect_ts("2024-12-31T23:59:59Z", "20241231235959000", INT64_MIN);
  expect_ts("2024-01-01T00:00:00Z", "20240101000000000", INT64_MIN);
  expect_bad_ts("invalid-timestamp", 17, "invalid-timestamp");
  expect_bad_ts("2024-13-45T14:25:30Z", 20, "no such date");
  expect_bad_ts("", 0, "empty");
  expect_bad_ts("2024/03/15", 10, "2024/03/15");
  expect_bad_ts("abcdefghijklmn", 14, "abcdefghijklmn");
  expect_bad_ts("2024-03-15 14:25:30", 19, "needs an offset");
  expect_bad_ts("2024/03/15T14:25:30Z", 20, "not RFC 3339");
  expect_bad_ts("not-a-date", 10, "not-a-date");
  expect_bad_ts("-1", 2, "non-negative");
}

static void timestamps_more(void **state) {
  (void)state;
  /* Offsets that cross days, months, years and leap days. */
  expect_ts("2024-01-01T01:00:00+02:00", "20231231230000000", INT64_MIN);
  expect_ts("2023-12-31T22:30:00-05:30", "20240101040000000", INT64_MIN);
  expect_ts("2024-02-28T23:30:00-01:00", "20240229003000000", INT64_MIN);
  expect_ts("2023-02-28T23:30:00-01:00", "20230301003000000", INT64_MIN);
  expect_ts("2024-03-01T00:15:00+00:30", "20240229234500000", INT64_MIN);
  expect_ts("2000-02-29T00:00:00.001Z", "20000229000000001", INT64_MIN);
  expect_ts("2024-01-02T03:04:05.678+02:00", "20240102010405678", INT64_MIN);
  expect_ts("1969-12-31T23:59:59.999Z", "19691231235959999", -1);
  expect_ts("0000-01-01T00:00:00Z", "00000101000000000", HUDI_INSTANT_MIN_MILLIS);
  expect_ts("9999-12-31T23:59:59.999999Z", "99991231235959999", HUDI_INSTANT_MAX_MILLIS);
  expect_ts("2024-06-30T12:00:00+23:59", "20240629120100000", INT64_MIN);
  expect_ts("2024-06-30T12:00:00-23:59", "20240701115900000", INT64_MIN);
  /* Chrono's lenient spots: 't'/' ' separators, 'z', any fraction length, U+2212. */
  expect_ts("2024-03-15t14:25:30z", "20240315142530000", INT64_MIN);
  expect_ts("2024-03-15 14:25:30Z", "20240315142530000", INT64_MIN);
  expect_ts("2024-03-15T14:25:30.5Z", "20240315142530500", INT64_MIN);
  expect_ts("2024-03-15T14:25:30.12Z", "20240315142530120", INT64_MIN);
  expect_ts("2024-03-15T14:25:30.123456789123Z", "20240315142530123", INT64_MIN);
  expect_ts("2024-03-15T14:25:30.999999999Z", "20240315142530999", INT64_MIN);
  expect_ts("2024-03-15T16:25:30\xe2\x88\x92" "02:00", "20240315182530000", INT64_MIN);
  /* Unicode whitespace is trimmed as Rust's str::trim does. */
  expect_ts("\xc2\xa0\t1710512730\xe3\x80\x80\n", "20240315142530000", INT64_MIN);
  /* Epoch units go by the length of the text, sign included. */
  expect_ts("0", "19700101000000000", 0);
  expect_ts("-0", "19700101000000000", 0);
  expect_ts("+1710512730", "19700120190832730", 1710512730);          /* 11 chars: milliseconds */
  expect_ts("0000000001", "19700101000001000", 1000);                  /* 10: seconds */
  expect_ts("000000000001", "19700101000000001", 1);                   /* 12: milliseconds */
  expect_ts("100000000000000", "19730303094640000", 100000000000);     /* 15: microseconds */
  expect_ts("9999999999", "22861120174639000", 9999999999000);
  expect_ts("9223372036854775807", "22620411234716854", 9223372036854); /* ns, int64 max */
  /* 14 and 17 digits are instant times, never epoch values. */
  expect_ts("00000000000000000", "00000000000000000", 0);
  expect_ts("00000000000000", "00000000000000000", 0);
  expect_ts("00000000000007", "00000000000007000", 7000);
  expect_bad_ts("99999999999999", 14, "not a valid calendar date");
  /* Bad inputs. */
  expect_bad_ts("9223372036854775808", 19, "9223372036854775808"); /* overflows int64 */
  expect_bad_ts("-1710512730", 11, "non-negative");
  expect_bad_ts("+", 1, "not RFC 3339");
  expect_bad_ts("12a", 3, "12a");
  expect_bad_ts("   ", 3, "empty");
  expect_bad_ts("2023-02-29T00:00:00Z", 20, "no such date");
  expect_bad_ts("1900-02-29T00:00:00Z", 20, "no such date");
  expect_bad_ts("2100-02-29T00:00:00Z", 20, "no such date");
  expect_bad_ts("2024-04-31T00:00:00Z", 20, "no such date");
  expect_bad_ts("2024-03-15T24:00:00Z", 20, "no such date");
  expect_bad_ts("2024-03-15T23:60:00Z", 20, "no such date");
  expect_bad_ts("2024-12-31T23:59:60Z", 20, "leap second");
  expect_bad_ts("2024-03-15T14:25:30+24:00", 25, "offset out of range");
  expect_bad_ts("2024-03-15T14:25:30+05:60", 25, "offset out of range");
  expect_bad_ts("2024-03-15T14:25:30+0530", 24, "not RFC 3339");
  expect_bad_ts("2024-03-15T14:25:30.Z", 21, "not RFC 3339");
  expect_bad_ts("2024-03-15T14:25:30Zjunk", 24, "trailing characters");
  expect_bad_ts("2024-3-15T14:25:30Z", 19, "not RFC 3339");
  expect_bad_ts("+2024-03-15T14:25:30Z", 21, "not RFC 3339");
  expect_bad_ts("0000-01-01T00:00:00+00:01", 25, "outside years 0000-9999");
  expect_bad_ts("9999-12-31T23:59:59-00:01", 25, "outside years 0000-9999");
  expect_bad_ts("1710512730\0", 11, "?");
  char big[300];
  memset(big, '1', sizeof big);
  expect_bad_ts(big, sizeof big, "longer than 256 bytes");
  /* A NULL epoch_ms is allowed. */
  char out[HUDI_INSTANT_TIME_BUF];
  assert_int_equal(hudi_timestamp_parse(out, NULL, "1", 1, NULL), HUDI_OK);
  assert_string_equal(out, "19700101000001000");
}

/* A clock tests can steer. */
typedef struct fake_clock {
  int64_t now;
} fake_clock;

static int64_t fake_now(void *ctx) { return ((fake_clock *)ctx)->now; }

static void generator_never_repeats(void **state) {
  (void)state;
  fake_clock c = {1710512730123};
  hudi_instant_gen g;
  hudi_instant_gen_init(&g, fake_now, &c);
  hudi_error err = HUDI_ERROR_INIT;
  char out[HUDI_INSTANT_TIME_BUF];
  int64_t ms;
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_OK);
  assert_string_equal(out, "20240315142530123");
  assert_int_equal(ms, 1710512730123);
  /* Same millisecond: last + 1. */
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_OK);
  assert_string_equal(out, "20240315142530124");
  /* Clock stepped back a second: still last + 1. */
  c.now -= 1000;
  assert_int_equal(hudi_instant_gen_next(&g, out, NULL, &err), HUDI_OK);
  assert_string_equal(out, "20240315142530125");
  /* Clock moves ahead: follow it. */
  c.now = 1710512740000;
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_OK);
  assert_string_equal(out, "20240315142540000");
  /* An instant on the timeline from a host whose clock runs ahead. */
  hudi_instant_gen_observe(&g, 1710512800000);
  hudi_instant_gen_observe(&g, 1);  /* lower: no effect */
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_OK);
  assert_string_equal(out, "20240315142640001");
  /* At the end of the representable range the generator reports it. */
  c.now = HUDI_INSTANT_MAX_MILLIS;
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_OK);
  assert_string_equal(out, "99991231235959999");
  assert_int_equal(hudi_instant_gen_next(&g, out, &ms, &err), HUDI_ERR_INVALID_ARG);
}

#define THREADS 4
#define PER_THREAD 20000

typedef struct gen_job {
  hudi_instant_gen *gen;
  int64_t *out;
  int failed;
} gen_job;

static void *gen_worker(void *arg) {
  gen_job *job = arg;
  char s[HUDI_INSTANT_TIME_BUF];
  for (int i = 0; i < PER_THREAD; i++) {
    int64_t parsed;
    if (hudi_instant_gen_next(job->gen, s, &job->out[i], NULL) != HUDI_OK ||
        hudi_instant_time_to_millis(&parsed, s, 17, NULL) != HUDI_OK || parsed != job->out[i])
      job->failed = 1;
    if (i > 0 && job->out[i] <= job->out[i - 1]) job->failed = 1;
  }
  return NULL;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void generator_is_thread_safe(void **state) {
  (void)state;
  /* The process-wide generator: increasing and near the real clock
   * (checked first: the burst below runs it ahead of the clock). */
  char a[HUDI_INSTANT_TIME_BUF], b[HUDI_INSTANT_TIME_BUF];
  int64_t ma, mb;
  assert_int_equal(hudi_instant_time_now(a, &ma, NULL), HUDI_OK);
  assert_int_equal(hudi_instant_time_now(b, &mb, NULL), HUDI_OK);
  assert_true(strcmp(a, b) < 0 && ma < mb);
  int64_t wall = (int64_t)time(NULL) * 1000;
  assert_true(ma > wall - 5000 && ma < wall + 5000);
  hudi_instant_gen g;
  hudi_instant_gen_init(&g, NULL, NULL); /* the real clock */
  int64_t *all = calloc(THREADS * PER_THREAD, sizeof *all);
  assert_non_null(all);
  pthread_t th[THREADS];
  gen_job jobs[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (gen_job){&g, all + t * PER_THREAD, 0};
    assert_int_equal(pthread_create(&th[t], NULL, gen_worker, &jobs[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    pthread_join(th[t], NULL);
    assert_false(jobs[t].failed);
  }
  qsort(all, THREADS * PER_THREAD, sizeof *all, cmp_i64);
  for (int i = 1; i < THREADS * PER_THREAD; i++)
    if (all[i] == all[i - 1]) fail_msg("duplicate instant %lld", (long long)all[i]);
  /* A real-clock generator draws from the process-wide one: a second
   * generator (seeded from another timeline) and the process-wide one
   * continue after everything the first handed out. */
  int64_t top = all[THREADS * PER_THREAD - 1], mc;
  free(all);
  hudi_instant_gen other;
  hudi_instant_gen_init(&other, NULL, NULL);
  assert_int_equal(hudi_instant_gen_next(&other, a, &mc, NULL), HUDI_OK);
  assert_true(mc > top);
  assert_int_equal(hudi_instant_time_now(b, &mb, NULL), HUDI_OK);
  assert_true(mb > mc);
  assert_int_equal(hudi_instant_gen_next(&g, a, &ma, NULL), HUDI_OK);
  assert_true(ma > mb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(format_known_values),
      cmocka_unit_test(format_matches_gmtime),
      cmocka_unit_test(format_zone),
      cmocka_unit_test(generator_offset),
      cmocka_unit_test(timeline_instants),
      cmocka_unit_test(timestamps_hudi_rs_cases),
      cmocka_unit_test(timestamps_more),
      cmocka_unit_test(generator_never_repeats),
      cmocka_unit_test(generator_is_thread_safe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
