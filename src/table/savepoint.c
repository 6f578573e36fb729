/* Savepoint of a completed commit, as Hudi 1.x's SavepointActionExecutor:
 * checks, the latest file slices as of the commit, T.savepoint.inflight,
 * T_C.savepoint. */
#include "table/savepoint.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/instant.h"
#include "hudi/services.h"
#include "table/clean.h"
#include "table/commit_metadata.h"
#include "table/schema_resolve.h"
#include "table/fsview.h"
#include "table/lock.h"
#include "table/write.h"

#define SAVEPOINT_FILE_MAX ((size_t)256 << 20)

const hudi_instant *hudi_savepoint_find(const hudi_timeline *tl, const char *instant) {
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && !strcmp(in->action, "savepoint") && !strcmp(in->requested_time, instant))
      return in;
  }
  return NULL;
}

hudi_status hudi_savepoint_read(hudi_savepoint_metadata **out, hudi_table *t, const hudi_instant *in,
                                hudi_error *err) {
  char path[200];
  snprintf(path, sizeof path, "%s/%s", t->timeline.dir, in->file_name);
  hudi_buf b;
  hudi_buf_init(&b, SAVEPOINT_FILE_MAX);
  hudi_status st = hudi_storage_read_all(t->storage, path, SAVEPOINT_FILE_MAX, &b, err);
  if (st == HUDI_OK) st = hudi_savepoint_metadata_parse(out, b.data ? b.data : (const uint8_t *)"", b.len, path, err);
  hudi_buf_free(&b);
  return st;
}

static bool is_commit_action(const char *a) {
  return !strcmp(a, "commit") || !strcmp(a, "deltacommit") || !strcmp(a, "replacecommit");
}

/* The commit to savepoint: `instant`, or the latest completed commit. */
static hudi_status pick_commit(const hudi_instant **out, hudi_table *t, const char *instant, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  *out = NULL;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || !is_commit_action(in->action)) continue;
    if (instant && *instant ? !strcmp(in->requested_time, instant) : true) *out = in;
  }
  if (*out) return HUDI_OK;
  if (instant && *instant)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "could not savepoint %s of table %s: no completed commit of that time", instant, t->base_uri);
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "table %s has no completed commit to savepoint", t->base_uri);
}

/* Hudi: a savepoint may not precede the last clean's earliest commit to
 * retain (or the first completed commit): older slices may be gone. */
static hudi_status check_window(hudi_table *t, const char *T, hudi_error *err) {
  char ectr[HUDI_INSTANT_TIME_MAX];
  HUDI_TRY(hudi_clean_earliest_retained(ectr, t, err));
  if (*ectr && strcmp(T, ectr) < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "could not savepoint commit %s of table %s as this is beyond the lookup window %s", T,
                        t->base_uri, ectr);
  return HUDI_OK;
}

static hudi_status add_file(hudi_savepoint_metadata *m, const char *partition, const char *name, hudi_error *err) {
  hudi_avro_arena *a = &m->doc.arena;
  hudi_savepoint_partition_entry *e = NULL;
  hudi_savepoint_partition_entry *items = m->partition_metadata.items;
  for (size_t i = 0; i < m->partition_metadata.n && !e; i++)
    if (!strcmp(items[i].key, partition)) e = &items[i];
  if (!e) {
    HUDI_TRY(hudi_tl_list_push(&m->partition_metadata, a, sizeof *e, (void **)&e, err));
    HUDI_TRY(hudi_tl_strdup(a, partition, &e->key, err));
    HUDI_TRY(hudi_tl_strdup(a, partition, &e->value.partition_path, err));
    e->value.savepoint_data_file.has = 1;
  }
  return hudi_tl_strs_push(&e->value.savepoint_data_file, a, name, err);
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static hudi_status group_key(hudi_buf *b, const char *partition, const char *file_id, hudi_error *err) {
  hudi_buf_reset(b);
  HUDI_TRY(hudi_buf_append_str(b, partition ? partition : "", err));
  HUDI_TRY(hudi_buf_append_byte(b, 0, err));
  return hudi_buf_append_str(b, file_id ? file_id : "", err);
}

/* The file groups completed replacecommits requested at or before T
 * replaced (partition \0 file id). */
static hudi_status replaced_by(hudi_hashmap *out, hudi_table *t, const char *T, hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (!hudi_instant_is_write(in) || strcmp(in->action, "replacecommit") || strcmp(in->requested_time, T) > 0)
      continue;
    hudi_commit_metadata *m = NULL;
    st = hudi_table_instant_metadata(&m, t, in, err);
    const hudi_tl_strs_entry *e = st == HUDI_OK ? m->partition_to_replace_file_ids.items : NULL;
    for (size_t a = 0; st == HUDI_OK && a < m->partition_to_replace_file_ids.n; a++) {
      char **ids = e[a].value.items;
      for (size_t b = 0; st == HUDI_OK && b < e[a].value.n; b++) {
        st = group_key(&key, e[a].key, ids[b], err);
        if (st == HUDI_OK) st = hudi_hashmap_put(out, key.data, key.len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
      }
    }
    if (m) hudi_commit_metadata_free(m);
  }
  hudi_buf_free(&key);
  return st;
}

/* Per partition, the base and log files of each file group's latest slice
 * as of T (the merged slice under a pending compaction: both slices'
 * files), leaving out groups a replacecommit replaced by then: Hudi's
 * savepoint lists the file system view, which drops them (and the
 * cleaner, keeping the files savepoints list, then deletes them). */
static hudi_status collect_files(hudi_savepoint_metadata *m, hudi_table *t, const char *T, int64_t *n_files,
                                 hudi_error *err) {
  hudi_fsview v;
  memset(&v, 0, sizeof v);
  hudi_fsview_options o = {T, t->version, false};
  HUDI_TRY(hudi_fsview_build_from_listing(&v, t->storage, &t->timeline, &o, err));
  hudi_hashmap replaced;
  hudi_hashmap_init(&replaced, 0);
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = replaced_by(&replaced, t, T, err);
  m->partition_metadata.has = 1;
  for (size_t i = 0; st == HUDI_OK && i < v.n_groups; i++) {
    const hudi_file_group *g = &v.groups[i];
    const hudi_file_slice *sl = hudi_file_group_latest_slice(g);
    if (!sl) continue;
    st = group_key(&key, g->partition, g->file_id, err);
    if (st != HUDI_OK) break;
    if (hudi_hashmap_get(&replaced, key.data, key.len, NULL)) continue;
    if (g->merged && g->n_slices >= 2) {
      /* the merged slice lists the previous base and both slices' logs */
      sl = g->merged;
    }
    if (sl->base) {
      st = add_file(m, g->partition, base_name(sl->base->path), err);
      if (st == HUDI_OK) (*n_files)++;
    }
    for (size_t k = 0; st == HUDI_OK && k < sl->n_logs; k++) {
      st = add_file(m, g->partition, sl->logs[k].file_name, err);
      if (st == HUDI_OK) (*n_files)++;
    }
  }
  hudi_buf_free(&key);
  hudi_hashmap_free(&replaced);
  hudi_fsview_free(&v);
  return st;
}

static hudi_status savepoint_locked(hudi_savepoint_result *res, hudi_table *t, const char *instant, const char *user,
                                    const char *comment, hudi_error *err) {
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  const hudi_instant *c;
  HUDI_TRY(pick_commit(&c, t, instant, err));
  char T[HUDI_INSTANT_TIME_MAX];
  snprintf(T, sizeof T, "%s", c->requested_time);
  if (hudi_savepoint_find(&t->timeline, T))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "commit %s of table %s is savepointed already", T, t->base_uri);
  HUDI_TRY(check_window(t, T, err));
  hudi_savepoint_metadata *m = NULL;
  HUDI_TRY(hudi_savepoint_metadata_new(&m, err));
  hudi_avro_arena *a = &m->doc.arena;
  int64_t n_files = 0;
  hudi_status st = hudi_tl_strdup(a, user ? user : "", &m->savepointed_by, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, comment ? comment : "", &m->comments, err);
  m->savepointed_at = hudi_tl_some_long(hudi_clock_realtime_ms(NULL));
  m->version = (hudi_tl_int){1, 1};
  if (st == HUDI_OK) st = collect_files(m, t, T, &n_files, err);
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_TL_MAX_FILE);
  if (st == HUDI_OK) st = hudi_savepoint_metadata_to_avro(m, NULL, &avro, err);
  hudi_instant_gen gen;
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_write_instant_file(t, T, "savepoint", "", HUDI_INSTANT_INFLIGHT, "", 0, err);
  if (st == HUDI_OK) st = hudi_write_pick_instant(&gen, t, done, err);
  if (st == HUDI_OK)
    st = hudi_write_instant_file(t, T, "savepoint", done, HUDI_INSTANT_COMPLETED,
                                 avro.data ? (const void *)avro.data : "", avro.len, err);
  if (st == HUDI_OK) {
    snprintf(res->instant, sizeof res->instant, "%s", T);
    snprintf(res->completion_time, sizeof res->completion_time, "%s", done);
    res->num_partitions = (int64_t)m->partition_metadata.n;
    res->num_files = n_files;
  }
  hudi_buf_free(&avro);
  hudi_savepoint_metadata_free(m);
  hudi_status rs = hudi_write_reload_timeline(t, st == HUDI_OK ? err : NULL);
  return st == HUDI_OK ? rs : st;
}

hudi_status hudi_table_savepoint(hudi_savepoint_result *result, hudi_table *table, const char *instant,
                                 const char *user, const char *comment, const hudi_option *options, size_t n_options,
                                 hudi_error *err) {
  hudi_savepoint_result dummy;
  hudi_savepoint_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_savepoint needs a table");
  if (instant && strlen(instant) >= HUDI_INSTANT_TIME_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%.40s' is not an instant time", instant);
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_table_lock_acquire(&lock, table, options, options ? n_options : 0, err));
  hudi_status st = savepoint_locked(res, table, instant, user, comment, err);
  hudi_table_lock_release(&lock, table);
  return st;
}

/* ---- delete ---- */

static hudi_status delete_locked(hudi_table *t, const char *instant, hudi_error *err) {
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  const hudi_instant *in = hudi_savepoint_find(&t->timeline, instant);
  if (!in)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "table %s has no completed savepoint %s", t->base_uri, instant);
  char path[200];
  /* revertToInflight, then deleteInflight: never a completed file alone */
  snprintf(path, sizeof path, "%s/%s", t->timeline.dir, in->file_name);
  HUDI_TRY(hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, err));
  snprintf(path, sizeof path, "%s/%s.savepoint.inflight", t->timeline.dir, instant);
  HUDI_TRY(hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, err));
  return hudi_write_reload_timeline(t, err);
}

hudi_status hudi_table_delete_savepoint(hudi_table *table, const char *instant, const hudi_option *options,
                                        size_t n_options, hudi_error *err) {
  if (!table || !instant || !*instant || strlen(instant) >= HUDI_INSTANT_TIME_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_delete_savepoint needs a table and an instant time");
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_table_lock_acquire(&lock, table, options, options ? n_options : 0, err));
  hudi_status st = delete_locked(table, instant, err);
  hudi_table_lock_release(&lock, table);
  return st;
}

/* ---- listing ---- */

void hudi_savepoint_list_free(hudi_savepoint_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->count; i++) {
    hudi_free(l->items[i].user);
    hudi_free(l->items[i].comments);
  }
  hudi_free(l->items);
  l->items = NULL;
  l->count = 0;
}

static hudi_status fill_info(hudi_savepoint_info *info, hudi_table *t, const hudi_instant *in, hudi_error *err) {
  snprintf(info->instant, sizeof info->instant, "%s", in->requested_time);
  snprintf(info->completion_time, sizeof info->completion_time, "%s", in->completion_time);
  hudi_savepoint_metadata *m = NULL;
  HUDI_TRY(hudi_savepoint_read(&m, t, in, err));
  hudi_status st = HUDI_OK;
  info->user = hudi_strdup(m->savepointed_by ? m->savepointed_by : "");
  info->comments = hudi_strdup(m->comments ? m->comments : "");
  if (!info->user || !info->comments) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  info->savepointed_at = m->savepointed_at.v;
  const hudi_savepoint_partition_entry *e = m->partition_metadata.items;
  for (size_t i = 0; i < m->partition_metadata.n; i++) info->num_files += (int64_t)e[i].value.savepoint_data_file.n;
  hudi_savepoint_metadata_free(m);
  return st;
}

hudi_status hudi_table_savepoints(hudi_savepoint_list *out, hudi_table *table, hudi_error *err) {
  if (!out) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_savepoints needs an out list");
  memset(out, 0, sizeof *out);
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_savepoints needs a table");
  HUDI_TRY(hudi_write_reload_timeline(table, err));
  const hudi_timeline *tl = &table->timeline;
  out->items = hudi_calloc(tl->count + 1, sizeof *out->items);
  if (!out->items) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "savepoint") != 0) continue;
    st = fill_info(&out->items[out->count++], table, in, err);
  }
  if (st != HUDI_OK) hudi_savepoint_list_free(out);
  return st;
}
