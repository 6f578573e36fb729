/* Hudi instant times: "yyyyMMddHHmmssSSS" in UTC (the table timezone we
 * write, hoodie.table.timeline.timezone=UTC), their generation, and the
 * timestamp forms users may give for time travel and incremental reads. */
#ifndef HUDI_BASE_INSTANT_H
#define HUDI_BASE_INSTANT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define HUDI_INSTANT_TIME_LEN 17
#define HUDI_INSTANT_TIME_BUF 18 /* 17 digits and a NUL */

/* The epoch-millisecond range a 4-digit year can express:
 * 0000-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z. */
#define HUDI_INSTANT_MIN_MILLIS INT64_C(-62167219200000)
#define HUDI_INSTANT_MAX_MILLIS INT64_C(253402300799999)

/* Writes epoch_ms as a 17-digit UTC instant time. HUDI_ERR_INVALID_ARG
 * outside [HUDI_INSTANT_MIN_MILLIS, HUDI_INSTANT_MAX_MILLIS]. */
HUDI_NODISCARD hudi_status hudi_instant_time_format(char out[HUDI_INSTANT_TIME_BUF], int64_t epoch_ms,
                                                    hudi_error *err);

/* The same in UTC (utc) or in the process's local timezone, as Java's
 * HoodieInstantTimeGenerator.formatDate writes times for a table whose
 * hoodie.table.timeline.timezone is LOCAL (Hudi's default for tables Spark
 * created) and the JVM runs in that zone. */
HUDI_NODISCARD hudi_status hudi_instant_time_format_zone(char out[HUDI_INSTANT_TIME_BUF], int64_t epoch_ms, bool utc,
                                                         hudi_error *err);

/* Epoch milliseconds of an instant time as it appears on a timeline (UTC):
 *  - 17 digits yyyyMMddHHmmssSSS, a valid calendar time;
 *  - 14 digits yyyyMMddHHmmss (legacy tables): milliseconds .000, as hudi-rs
 *    reads them (Java's HoodieInstantTimeGenerator pads "999" instead);
 *  - 18 to 23 digits (0.x metadata-table instants "<t>001", "<t>010"...):
 *    the first 17, as Java's fixInstantTimeCompatibility does;
 *  - digits that are no calendar time (the metadata table's
 *    "00000000000000000", "...001", 0.x's "00000000000000"): the 17-digit
 *    form (the first 17 digits, or 14 digits and "000") read as an
 *    epoch-millisecond number, as hudi-rs does for 17 digits, provided it
 *    is at most HUDI_INSTANT_MAX_MILLIS. So a time and its 17-digit form
 *    always mean the same milliseconds.
 * Anything else is HUDI_ERR_INVALID_ARG naming the input. */
HUDI_NODISCARD hudi_status hudi_instant_time_to_millis(int64_t *out, const char *s, size_t len,
                                                       hudi_error *err);

/* A timestamp a user gave (hoodie.read.as.of.timestamp, start/end
 * timestamps), read the way hudi-rs's timeline::util::format_timestamp
 * reads it with the UTC timezone: surrounding whitespace is trimmed, then
 *  1. 14 or 17 ASCII digits are an instant time (14 digits get "000");
 *  2. an optionally signed decimal integer is epoch time, its unit chosen by
 *     the length of the text (sign included): <= 10 seconds, <= 13
 *     milliseconds, <= 16 microseconds, else nanoseconds (truncated to
 *     milliseconds); negative values are rejected;
 *  3. RFC 3339 with a mandatory offset: "2024-01-02T03:04:05.678+02:00",
 *     "...Z"; 'T', 't' or a space between date and time; any number of
 *     fraction digits (truncated to milliseconds); offsets up to +-23:59.
 *     A leap second (:60) is rejected (chrono would yield a 1000+ ms field).
 * Writes the canonical 17-digit instant time to out and, when epoch_ms is
 * not NULL, its epoch milliseconds. Errors name the input. */
HUDI_NODISCARD hudi_status hudi_timestamp_parse(char out[HUDI_INSTANT_TIME_BUF], int64_t *epoch_ms,
                                                const char *s, size_t len, hudi_error *err);

/* Reads the current time in epoch milliseconds. */
typedef int64_t (*hudi_clock_fn)(void *ctx);

/* Generates strictly increasing instant times: each is max(clock, last+1)
 * milliseconds, so a clock that stalls or steps back cannot produce a
 * duplicate or an earlier time. Lock-free and thread-safe. */
typedef struct hudi_instant_gen {
  _Atomic int64_t last_ms; /* last time handed out; INT64_MIN before the first */
  hudi_clock_fn clock;     /* NULL: the system's realtime clock */
  void *clock_ctx;
  /* The timeline zone's offset from UTC (hudi_instant_gen_set_offset):
   * last_ms and every time observed or handed out are wall-clock times of
   * that zone read as if UTC, which is what the 17 digits say. */
  int64_t offset_ms;
} hudi_instant_gen;

/* clock may be NULL for the system clock. The offset starts at 0 (UTC). */
void hudi_instant_gen_init(hudi_instant_gen *gen, hudi_clock_fn clock, void *clock_ctx);

/* Times from here on are wall-clock times offset_ms east of UTC: a table
 * whose hoodie.table.timeline.timezone is LOCAL (Spark's default) gets the
 * process zone's local time, as Java's HoodieInstantTimeGenerator writes
 * it. Call before observing a timeline's times. */
void hudi_instant_gen_set_offset(hudi_instant_gen *gen, int64_t offset_ms);

/* Makes every later time strictly greater than epoch_ms (e.g. the newest
 * instant already on a timeline, written by a host whose clock runs ahead). */
void hudi_instant_gen_observe(hudi_instant_gen *gen, int64_t epoch_ms);

/* The next instant time; epoch_ms (may be NULL) gets its epoch
 * milliseconds (UTC, whatever the generator's offset). A generator over the system
 * clock (clock NULL) also draws from the process-wide generator below, so
 * no two instant times handed out in one process are equal, whatever
 * timeline each generator was seeded from. */
HUDI_NODISCARD hudi_status hudi_instant_gen_next(hudi_instant_gen *gen, char out[HUDI_INSTANT_TIME_BUF],
                                                 int64_t *epoch_ms, hudi_error *err);

/* The next instant time from one process-wide generator over the system
 * clock (as Java's HoodieInstantTimeGenerator keeps one per JVM). */
HUDI_NODISCARD hudi_status hudi_instant_time_now(char out[HUDI_INSTANT_TIME_BUF], int64_t *epoch_ms,
                                                 hudi_error *err);

/* The system realtime clock in epoch milliseconds. */
int64_t hudi_clock_realtime_ms(void *ctx);

#endif
