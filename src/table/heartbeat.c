/* Writer heartbeats (see heartbeat.h). */
#include "table/heartbeat.h"

#include <stdio.h>
#include <time.h>

static void heartbeat_path(char *out, size_t cap, const char *instant) {
  snprintf(out, cap, ".hoodie/.heartbeat/%s", instant);
}

hudi_status hudi_heartbeat_start(hudi_table *t, const char *instant, hudi_error *err) {
  char path[128];
  heartbeat_path(path, sizeof path, instant);
  return hudi_storage_write(t->storage, path, "", 0, 0, err);
}

void hudi_heartbeat_stop(hudi_table *t, const char *instant) {
  char path[128];
  heartbeat_path(path, sizeof path, instant);
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, &ignored) != HUDI_OK) hudi_error_clear(&ignored);
}

hudi_status hudi_heartbeat_alive(bool *alive, hudi_table *t, const char *instant, int64_t interval_ms, int misses,
                                 hudi_error *err) {
  *alive = false;
  if (interval_ms <= 0) interval_ms = HUDI_HEARTBEAT_INTERVAL_MS;
  if (misses <= 0) misses = HUDI_HEARTBEAT_TOLERABLE_MISSES;
  char path[128];
  heartbeat_path(path, sizeof path, instant);
  hudi_file_stat st;
  hudi_status s = hudi_storage_stat(t->storage, path, &st, err);
  if (s == HUDI_ERR_NOT_FOUND) {
    hudi_error_clear(err);
    return HUDI_OK;
  }
  HUDI_TRY(s);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
  *alive = now - st.mtime_ms <= interval_ms * (misses + 1);
  return HUDI_OK;
}
