/* Fuzzes the instant-time and timestamp parsers. Whatever parses must
 * format back to itself: a timestamp's canonical instant must re-parse to
 * the same milliseconds, and formatting those milliseconds must give the
 * same 17 digits unless the instant is a non-date metadata-table time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/instant.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  hudi_error err = HUDI_ERROR_INIT;
  char out[HUDI_INSTANT_TIME_BUF];
  int64_t ms = 0;
  if (hudi_timestamp_parse(out, &ms, s, size, &err) == HUDI_OK) {
    if (strlen(out) != HUDI_INSTANT_TIME_LEN) abort();
    int64_t again = 0;
    if (hudi_instant_time_to_millis(&again, out, HUDI_INSTANT_TIME_LEN, &err) != HUDI_OK || again != ms) abort();
    char back[HUDI_INSTANT_TIME_BUF];
    if (hudi_instant_time_format(back, ms, &err) != HUDI_OK) abort();
    /* Equal, unless out is a metadata-table style non-date time. */
    int64_t cal;
    if (strcmp(back, out) != 0) {
      if (hudi_instant_time_to_millis(&cal, back, HUDI_INSTANT_TIME_LEN, &err) != HUDI_OK || cal != ms) abort();
    }
  } else if (err.code != HUDI_ERR_INVALID_ARG || err.message[0] == '\0') {
    abort();
  }
  hudi_error_clear(&err);
  if (hudi_instant_time_to_millis(&ms, s, size, &err) == HUDI_OK) {
    if (ms < HUDI_INSTANT_MIN_MILLIS || ms > HUDI_INSTANT_MAX_MILLIS) abort();
    if (hudi_instant_time_format(out, ms, &err) != HUDI_OK) abort();
  } else if (err.code != HUDI_ERR_INVALID_ARG) {
    abort();
  }
  /* The input's first 8 bytes as epoch millis: formatting either works or
   * reports the range. */
  if (size >= 8) {
    int64_t v;
    memcpy(&v, data, 8);
    hudi_status st = hudi_instant_time_format(out, v, NULL);
    int in_range = v >= HUDI_INSTANT_MIN_MILLIS && v <= HUDI_INSTANT_MAX_MILLIS;
    if ((st == HUDI_OK) != in_range) abort();
    if (st == HUDI_OK) {
      int64_t back;
      if (hudi_instant_time_to_millis(&back, out, HUDI_INSTANT_TIME_LEN, NULL) != HUDI_OK || back != v) abort();
    }
  }
  return 0;
}
