/* The file-system table lock (see lock.h). */
#include "table/lock.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "table/mdt_drop.h"
#include "table/write.h"

#define LOCK_MAX_BYTES (64 * 1024)

void hudi_table_lock_owner(char *out, size_t cap) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof host - 1) != 0) snprintf(host, sizeof host, "localhost");
  host[sizeof host - 1] = '\0';
  snprintf(out, cap, "hudi-c pid %ld on %s", (long)getpid(), host);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Jackson's pretty printer, as LockInfo is serialized. */
static void lock_json(char *out, size_t cap) {
  char owner[320];
  hudi_table_lock_owner(owner, sizeof owner);
  time_t secs = (time_t)(now_ms() / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  snprintf(out, cap, "{\n  \"lockCreateTime\" : \"%s.%03d\",\n  \"lockThreadName\" : \"%s\",\n  \"lockStacksInfo\" : [ ]\n}",
           when, (int)(now_ms() % 1000), owner);
}

/* The holder named in a lock file ("" when it names none). */
static void holder_of(const char *json, size_t len, char *out, size_t cap) {
  out[0] = '\0';
  static const char key[] = "\"lockThreadName\" : \"";
  const char *p = NULL;
  for (size_t i = 0; i + sizeof key - 1 <= len; i++)
    if (memcmp(json + i, key, sizeof key - 1) == 0) {
      p = json + i + sizeof key - 1;
      break;
    }
  if (!p) return;
  size_t k = 0;
  while (p < json + len && *p != '"' && k + 1 < cap) out[k++] = *p++;
  out[k] = '\0';
}

/* A hudi-c process on this host that is gone left the lock behind. */
static bool holder_is_dead(const char *holder) {
  long pid;
  char host[256], mine[256] = "";
  if (sscanf(holder, "hudi-c pid %ld on %255s", &pid, host) != 2 || pid <= 0) return false;
  if (gethostname(mine, sizeof mine - 1) != 0) return false;
  if (strcmp(host, mine) != 0) return false;
  return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static hudi_status int_opt(hudi_table *t, const hudi_option *o, size_t n, const char *key, int64_t dflt, int64_t *out,
                           hudi_error *err) {
  const char *v = hudi_write_option(t, o, n, key);
  if (!v || !*v) return *out = dflt, HUDI_OK;
  return hudi_option_parse_int(key, v, 0, INT64_MAX, out, err);
}

/* Removes the lock file if it is stale; *removed tells. */
static hudi_status clear_if_stale(hudi_table_lock *lock, hudi_table *t, int64_t expire_min, bool *removed, char *holder,
                                  size_t cap, hudi_error *err) {
  *removed = false;
  holder[0] = '\0';
  hudi_file_stat st;
  hudi_error e2 = HUDI_ERROR_INIT;
  if (hudi_storage_stat(t->storage, lock->path, &st, &e2) != HUDI_OK) return *removed = true, HUDI_OK; /* gone */
  hudi_buf b;
  hudi_buf_init(&b, LOCK_MAX_BYTES);
  if (hudi_storage_read_all(t->storage, lock->path, LOCK_MAX_BYTES, &b, &e2) == HUDI_OK)
    holder_of((const char *)b.data, b.len, holder, cap);
  hudi_buf_free(&b);
  bool expired = expire_min > 0 && now_ms() - st.mtime_ms > expire_min * 60000;
  if (!expired && !holder_is_dead(holder)) return HUDI_OK;
  hudi_status s = hudi_storage_delete(t->storage, lock->path, HUDI_DELETE_MISSING_OK, err);
  if (s == HUDI_OK) *removed = true;
  return s;
}

/* Timeline instants are written only under the lock: while we hold it,
 * a relisting of the timeline can reuse the last listing unless we wrote
 * there since (object stores; io/objcache.h). A cache: failure is ignored. */
static void hold_timeline(hudi_table *t) {
  static const char *const dirs[] = {".hoodie/timeline"};
  hudi_error e = HUDI_ERROR_INIT;
  if (hudi_storage_hold_listings(t->storage, dirs, 1, &e) != HUDI_OK) hudi_error_clear(&e);
}

hudi_status hudi_table_lock_acquire(hudi_table_lock *lock, hudi_table *t, const hudi_option *opts, size_t n,
                                    hudi_error *err) {
  memset(lock, 0, sizeof *lock);
  const char *dir = hudi_write_option(t, opts, n, "hoodie.write.lock.filesystem.path");
  int w = snprintf(lock->path, sizeof lock->path, "%s/lock", dir && *dir ? dir : ".hoodie");
  if (w < 0 || (size_t)w >= sizeof lock->path)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.write.lock.filesystem.path is too long");
  int64_t expire_min = 0, wait_ms = 0;
  HUDI_TRY(int_opt(t, opts, n, "hoodie.write.lock.filesystem.expire", 0, &expire_min, err));
  HUDI_TRY(int_opt(t, opts, n, "hoodie.write.lock.wait_time_ms", 60000, &wait_ms, err));
  char json[512], holder[320] = "";
  int64_t deadline = now_ms() + wait_ms, pause = 20;
  int vanished = 0;
  for (;;) {
    lock_json(json, sizeof json);
    hudi_error e2 = HUDI_ERROR_INIT;
    hudi_status s = hudi_storage_write_if_absent(t->storage, lock->path, json, strlen(json), &e2);
    if (s == HUDI_OK) {
      lock->held = true;
      hold_timeline(t);
      /* The metadata table as the last lock holder left it (mdt_drop.h). */
      s = hudi_table_props_refresh_mdt(t, &lock->mdt_changed, err);
      if (s != HUDI_OK) hudi_table_lock_release(lock, t);
      return s;
    }
    /* NOT_FOUND: our temporary vanished before its link (a writer holding
     * the lock swept it for a dead process's, sweep_timeline_temps in
     * rollback.c, when this pid lived elsewhere): try again. */
    if (s == HUDI_ERR_NOT_FOUND && vanished++ < 3) {
      hudi_error_clear(&e2);
      continue;
    }
    if (s != HUDI_ERR_EXISTS) {
      hudi_status r = hudi_err_set(err, s, "cannot take the table lock %s: %s", lock->path, e2.message);
      hudi_error_clear(&e2);
      return r;
    }
    hudi_error_clear(&e2);
    bool removed;
    HUDI_TRY(clear_if_stale(lock, t, expire_min, &removed, holder, sizeof holder, err));
    if (removed) continue;
    if (now_ms() >= deadline) break;
    sleep_ms(pause);
    if (pause < 1000) pause *= 2;
  }
  return hudi_err_set(err, HUDI_ERR_CONFLICT,
                      "table %s is locked by another writer (%s holds %s); waited %lld ms "
                      "(hoodie.write.lock.wait_time_ms)",
                      t->base_uri, holder[0] ? holder : "unknown", lock->path, (long long)wait_ms);
}

void hudi_table_lock_release(hudi_table_lock *lock, hudi_table *t) {
  if (!lock->held) return;
  hudi_storage_release_listings(t->storage);
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_storage_delete(t->storage, lock->path, HUDI_DELETE_MISSING_OK, &ignored) != HUDI_OK)
    hudi_error_clear(&ignored);
  lock->held = false;
}
