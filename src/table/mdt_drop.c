/* Turning the metadata table off on a write (see mdt_drop.h). */
#include "table/mdt_drop.h"

#include <strings.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "table/hadoop_crc.h"
#include "table/mdt_reader.h"
#include "table/write.h"

#define PROPS_BACKUP_PATH ".hoodie/hoodie.properties.backup"
#define PARTITIONS_KEY "hoodie.table.metadata.partitions"
#define INFLIGHT_KEY "hoodie.table.metadata.partitions.inflight"
#define ENABLE_KEY "hoodie.metadata.enable"
#define DEFS_PATH_KEY "hoodie.table.index.defs.path"

/* The write's own hoodie.metadata.enable (the last one given), or NULL. */
static const char *enable_option(const hudi_option *opts, size_t n) {
  for (size_t i = n; opts && i-- > 0;)
    if (opts[i].key && opts[i].value && !strcmp(opts[i].key, ENABLE_KEY)) return opts[i].value;
  return NULL;
}

bool hudi_mdt_drop_requested(const hudi_option *opts, size_t n) {
  const char *v = enable_option(opts, n);
  return v && !strcasecmp(v, "false");
}

static bool lists_partitions(const hudi_props *p) {
  const char *parts = hudi_props_get(p, PARTITIONS_KEY), *inflight = hudi_props_get(p, INFLIGHT_KEY);
  return (parts && *parts) || (inflight && *inflight);
}

/* hoodie.properties as storage holds it now (another writer may have
 * changed it since t was opened): the file, else the backup a modify cut
 * short left (HoodieTableConfig.recoverIfNeeded). */
static hudi_status read_props(hudi_storage *s, hudi_buf *text, const char **path, hudi_error *err) {
  *path = HUDI_PROPS_PATH;
  hudi_status st = hudi_storage_read_all(s, HUDI_PROPS_PATH, HUDI_PROPS_MAX_BYTES, text, err);
  if (st != HUDI_ERR_NOT_FOUND) return st;
  hudi_error_clear(err);
  hudi_buf_reset(text);
  *path = PROPS_BACKUP_PATH;
  return hudi_storage_read_all(s, PROPS_BACKUP_PATH, HUDI_PROPS_MAX_BYTES, text, err);
}

/* The two comment lines Properties.store writes: Hudi's "Updated at
 * <instant>" and Date.toString() in UTC. */
static void stamp(char *comment, size_t cap_c, char *date, size_t cap_d) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char iso[32];
  strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(comment, cap_c, "Updated at %s.%03ldZ", iso, ts.tv_nsec / 1000000);
  strftime(date, cap_d, "%a %b %d %H:%M:%S UTC %Y", &tm);
}

/* HoodieTableConfig.modify: the current file copied to the backup, the new
 * one written in its place (atomically: readers see the old or the new
 * file, and fall back to the backup if neither), the backup deleted. A
 * Hadoop checksum Spark left beside them goes first (hadoop_crc.h: with
 * it Spark fails "Could not load Hoodie properties"). */
static hudi_status rewrite_props(hudi_storage *s, const hudi_buf *old, const hudi_props *fresh, hudi_error *err) {
  HUDI_TRY(hudi_hadoop_crc_delete(s, HUDI_PROPS_PATH, err));
  HUDI_TRY(hudi_hadoop_crc_delete(s, PROPS_BACKUP_PATH, err));
  char comment[64], date[64];
  stamp(comment, sizeof comment, date, sizeof date);
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_status st = hudi_props_render(fresh, comment, date, &text, err);
  if (st == HUDI_OK) st = hudi_storage_write(s, PROPS_BACKUP_PATH, old->data, old->len, 0, err);
  if (st == HUDI_OK) st = hudi_storage_write(s, HUDI_PROPS_PATH, text.data, text.len, 0, err);
  if (st == HUDI_OK) st = hudi_storage_delete(s, PROPS_BACKUP_PATH, HUDI_DELETE_MISSING_OK, err);
  hudi_buf_free(&text);
  return st;
}

hudi_status hudi_mdt_check_enable_option(const hudi_option *opts, size_t n, hudi_error *err) {
  const char *v = enable_option(opts, n);
  if (v && strcasecmp(v, "true") && strcasecmp(v, "false"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'", ENABLE_KEY, v);
  return HUDI_OK;
}

/* hoodie.properties as storage holds it now: its text and its parse. */
static hudi_status load_props(hudi_storage *s, hudi_buf *text, hudi_props *out, hudi_error *err) {
  const char *path;
  HUDI_TRY(read_props(s, text, &path, err));
  return hudi_props_parse(out, (const char *)text->data, text->len, path, err);
}

hudi_status hudi_table_props_update(hudi_table *t, const char *const *keys, const char *const *values, size_t n,
                                    hudi_error *err) {
  hudi_buf old;
  hudi_buf_init(&old, HUDI_PROPS_MAX_BYTES);
  hudi_props fresh;
  hudi_props_init(&fresh);
  hudi_status st = load_props(t->storage, &old, &fresh, err);
  for (size_t i = 0; st == HUDI_OK && i < n; i++) st = hudi_props_set(&fresh, keys[i], values[i], err);
  if (st == HUDI_OK) st = rewrite_props(t->storage, &old, &fresh, err);
  /* The handle follows at once (t->name points into its properties: only
   * the keys given change). */
  for (size_t i = 0; st == HUDI_OK && i < n; i++) st = hudi_props_set(&t->props, keys[i], values[i], err);
  hudi_props_free(&fresh);
  hudi_buf_free(&old);
  return st;
}

hudi_status hudi_table_props_refresh_mdt(hudi_table *t, bool *changed, hudi_error *err) {
  bool dummy;
  if (!changed) changed = &dummy;
  *changed = false;
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_props now;
  hudi_props_init(&now);
  hudi_status st = load_props(t->storage, &text, &now, err);
  static const char *const keys[] = {PARTITIONS_KEY, INFLIGHT_KEY, DEFS_PATH_KEY};
  for (size_t i = 0; st == HUDI_OK && i < sizeof keys / sizeof keys[0]; i++) {
    const char *mine = hudi_props_get(&t->props, keys[i]), *theirs = hudi_props_get(&now, keys[i]);
    if (!strcmp(mine ? mine : "", theirs ? theirs : "")) continue;
    st = hudi_props_set(&t->props, keys[i], theirs ? theirs : "", err);
    *changed = true;
  }
  if (*changed) hudi_mdt_share_invalidate(t);
  hudi_props_free(&now);
  hudi_buf_free(&text);
  return st;
}

hudi_status hudi_mdt_drop_if_requested(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  if (!hudi_mdt_drop_requested(opts, n)) return HUDI_OK;
  hudi_status st = hudi_mdt_drop(t, err);
  if (st != HUDI_OK)
    hudi_err_context(err, st, "turning off the metadata table of %s (hoodie.metadata.enable=false)", t->base_uri);
  return st;
}

hudi_status hudi_mdt_drop(hudi_table *t, hudi_error *err) {
  /* Hudi clears both lists (setMetadataPartitionState(FILES, false)) and
   * deletes the directory after the properties say there is none: a
   * reader in between lists storage. The handle follows at once, so a
   * failed delete never leaves it writing to a half-deleted table. (The
   * lock refreshed the handle's lists from storage.) */
  const char *keys[] = {PARTITIONS_KEY, INFLIGHT_KEY}, *none[] = {"", ""};
  hudi_status st = lists_partitions(&t->props) ? hudi_table_props_update(t, keys, none, 2, err) : HUDI_OK;
  /* Whenever asked, listed or not: a crash after the rewrite leaves the
   * directory behind, unlisted. */
  if (st == HUDI_OK)
    st = hudi_storage_delete(t->storage, HUDI_MDT_DIR, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err);
  if (st == HUDI_OK) hudi_mdt_share_end(t);
  return st;
}
