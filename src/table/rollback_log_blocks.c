/* Version-6 rollbacks of log appends: command blocks (rollback_log_blocks.h). */
#include "table/rollback_log_blocks.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "table/base_file.h"
#include "table/log_command_block.h"
#include "table/log_file_name.h"
#include "table/log_reader.h"
#include "table/log_writer.h"

#define PATH_MAX_LEN 8192
/* Hudi's HoodieLogFormat.UNKNOWN_WRITE_TOKEN: the token of a rollback's log file. */
#define ROLLBACK_WRITE_TOKEN "1-0-1"

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

hudi_status hudi_rb_log_uri(hudi_buf *out, const hudi_rb_target *x, const char *rel, hudi_error *err) {
  const char *base = hudi_storage_base(x->s);
  bool local = !strcmp(hudi_storage_backend_name(x->s), "local");
  hudi_buf_reset(out);
  return hudi_buf_printf(out, err, "%s%s%s%s%s%s%c", local ? "file:" : "", base,
                         *base && base[strlen(base) - 1] != '/' ? "/" : "", x->dir, *x->dir ? "/" : "", rel, '\0');
}

/* <x dir>/<partition> (NUL-terminated): the directory of a partition. */
static hudi_status partition_dir(hudi_buf *out, const hudi_rb_target *x, const char *partition, hudi_error *err) {
  hudi_buf_reset(out);
  return hudi_buf_printf(out, err, "%s%s%s%c", x->dir, *x->dir && *partition ? "/" : "", partition, '\0');
}

/* The latest log file (LogFileComparator) of slice (file_id, base instant)
 * among listing's files directly in dir: its index, or -1. */
static ptrdiff_t latest_log(const hudi_file_list *l, const char *dir, const char *file_id, const char *base) {
  size_t dlen = strlen(dir);
  ptrdiff_t best = -1;
  hudi_log_file_name bn = HUDI_LOG_FILE_NAME_INIT;
  for (size_t i = 0; i < l->count; i++) {
    const char *p = l->items[i].path;
    if (l->items[i].is_dir) continue;
    const char *name = base_name(p);
    /* Only files of dir itself (a recursive listing holds the others too). */
    size_t plen = (size_t)(name - p);
    if (dlen ? (plen != dlen + 1 || memcmp(p, dir, dlen) != 0) : plen != 0) continue;
    if (!hudi_log_file_name_matches(name, strlen(name))) continue;
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) continue;
    bool mine = !strcmp(n.file_id, file_id) && !strcmp(n.instant, base) && !strcmp(n.extension, HUDI_LOG_FILE_EXT);
    if (mine && (best < 0 || hudi_log_file_name_compare(&n, &bn) > 0)) {
      hudi_log_file_name_free(&bn);
      bn = n;
      best = (ptrdiff_t)i;
    } else {
      hudi_log_file_name_free(&n);
    }
  }
  hudi_log_file_name_free(&bn);
  return best;
}

/* The request for slice (file_id, base) of partition: T's blocks are in the
 * slice's latest log file `log` (listing entry, may be NULL: no log yet). */
static hudi_status push_request(hudi_rollback_plan *p, const hudi_rb_target *x, const char *partition,
                                const char *file_id, const char *base, const char *instant,
                                const hudi_file_info *log, hudi_error *err) {
  hudi_avro_arena *a = &p->doc.arena;
  hudi_rollback_request *r;
  HUDI_TRY(hudi_tl_list_push(&p->rollback_requests, a, sizeof *r, (void **)&r, err));
  HUDI_TRY(hudi_tl_strdup(a, partition, &r->partition_path, err));
  r->files_to_be_deleted.has = r->log_blocks_to_be_deleted.has = 1;
  hudi_buf uri;
  hudi_buf_init(&uri, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  if (log && !strcmp(base, instant)) {
    /* T made the slice: its latest log is T's alone (Hudi deletes it). */
    const char *b = hudi_storage_base(x->s);
    st = hudi_buf_printf(&uri, err, "%s%s%s%c", b, *b && b[strlen(b) - 1] != '/' ? "/" : "", log->path, '\0');
    if (st == HUDI_OK) st = hudi_tl_strdup(a, "", &r->file_id, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, "", &r->latest_base_instant, err);
    if (st == HUDI_OK) st = hudi_tl_strs_push(&r->files_to_be_deleted, a, (const char *)uri.data, err);
  } else {
    st = hudi_tl_strdup(a, file_id, &r->file_id, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, base, &r->latest_base_instant, err);
    if (st == HUDI_OK && log) st = hudi_rb_log_uri(&uri, x, log->path + (*x->dir ? strlen(x->dir) + 1 : 0), err);
    hudi_tl_long_entry *e = NULL;
    if (st == HUDI_OK && log) st = hudi_tl_list_push(&r->log_blocks_to_be_deleted, a, sizeof *e, (void **)&e, err);
    if (st == HUDI_OK && log) st = hudi_tl_strdup(a, (const char *)uri.data, &e->key, err);
    if (st == HUDI_OK && log) e->value = hudi_tl_some_long((int64_t)log->size);
  }
  hudi_buf_free(&uri);
  return st;
}

hudi_status hudi_rb_append_request(hudi_rollback_plan *p, const hudi_rb_target *x, const char *partition,
                                   const char *file, const char *instant, hudi_hashmap *seen, hudi_error *err) {
  /* The slice: from a log name (hudi-c's markers) or a base-file-like name
   * (0.x's: "<fileId>_<token>_<baseInstant>.parquet"). */
  char file_id[HUDI_FILE_ID_MAX], base[HUDI_INSTANT_TIME_MAX];
  hudi_base_file_name bf;
  const char *name = base_name(file);
  if (hudi_log_file_name_matches(name, strlen(name))) {
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) return HUDI_OK;
    snprintf(file_id, sizeof file_id, "%s", n.file_id);
    snprintf(base, sizeof base, "%s", n.instant);
    hudi_log_file_name_free(&n);
  } else if (hudi_base_file_name_parse(&bf, name)) {
    snprintf(file_id, sizeof file_id, "%s", bf.file_id);
    snprintf(base, sizeof base, "%s", bf.instant);
  } else {
    return HUDI_OK;
  }
  hudi_buf key, dir;
  hudi_buf_init(&key, PATH_MAX_LEN);
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_status st = hudi_buf_printf(&key, err, "%s/%s_%s", partition, file_id, base);
  bool dup = st == HUDI_OK && hudi_hashmap_get(seen, key.data, key.len, NULL);
  if (st == HUDI_OK && !dup)
    st = hudi_hashmap_put(seen, key.data, key.len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
  if (st == HUDI_OK && !dup) st = partition_dir(&dir, x, partition, err);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  if (st == HUDI_OK && !dup) st = hudi_storage_list(x->s, (const char *)dir.data, 0, &l, err);
  if (st == HUDI_OK && !dup) {
    ptrdiff_t k = latest_log(&l, (const char *)dir.data, file_id, base);
    st = push_request(p, x, partition, file_id, base, instant, k >= 0 ? &l.items[k] : NULL, err);
  }
  hudi_file_list_free(&l);
  hudi_buf_free(&key);
  hudi_buf_free(&dir);
  return st;
}

/* Whether a block of the log file at path has INSTANT_TIME T. */
static hudi_status holds_block_of(bool *out, hudi_storage *s, const char *path, const char *instant,
                                  hudi_error *err) {
  *out = false;
  hudi_log_reader *r = NULL;
  HUDI_TRY(hudi_log_reader_open(&r, s, path, err));
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK && !*out) {
    hudi_log_block b;
    bool has = false;
    st = hudi_log_reader_next(r, &b, &has, err);
    if (st != HUDI_OK || !has) break;
    const char *t = hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_INSTANT_TIME, NULL);
    *out = t && !strcmp(t, instant) && b.type != HUDI_LOG_BLOCK_COMMAND;
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  return st;
}

hudi_status hudi_rb_append_requests_from_listing(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                 const hudi_file_list *l, const char *instant, hudi_error *err) {
  size_t pre = *x->dir ? strlen(x->dir) + 1 : 0;
  hudi_hashmap seen;
  hudi_hashmap_init(&seen, 0);
  hudi_buf key, dir;
  hudi_buf_init(&key, PATH_MAX_LEN);
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l->count; i++) {
    const char *path = l->items[i].path;
    if (l->items[i].is_dir || strlen(path) <= pre) continue;
    const char *rel = path + pre;
    if (!strncmp(rel, ".hoodie/", 8)) continue;
    const char *name = base_name(rel);
    if (!hudi_log_file_name_matches(name, strlen(name))) continue;
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) continue;
    size_t plen = (size_t)(name - rel);
    char *part = hudi_malloc(plen + 1);
    if (!part) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    if (part) {
      memcpy(part, rel, plen);
      part[plen ? plen - 1 : 0] = 0; /* without the '/' */
    }
    hudi_buf_reset(&key);
    if (st == HUDI_OK) st = hudi_buf_printf(&key, err, "%s/%s_%s", part, n.file_id, n.instant);
    bool dup = st == HUDI_OK && hudi_hashmap_get(&seen, key.data, key.len, NULL);
    if (st == HUDI_OK && !dup)
      st = hudi_hashmap_put(&seen, key.data, key.len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
    /* A slice T made (base instant T): its files are deleted by name (rollback.c). */
    dup = dup || !strcmp(n.instant, instant);
    if (st == HUDI_OK && !dup) st = partition_dir(&dir, x, part, err);
    if (st == HUDI_OK && !dup) {
      ptrdiff_t k = latest_log(l, (const char *)dir.data, n.file_id, n.instant);
      bool mine = false;
      if (k >= 0) st = holds_block_of(&mine, x->s, l->items[k].path, instant, err);
      if (st == HUDI_OK && mine) st = push_request(p, x, part, n.file_id, n.instant, instant, &l->items[k], err);
    }
    hudi_free(part);
    hudi_log_file_name_free(&n);
  }
  hudi_hashmap_free(&seen);
  hudi_buf_free(&key);
  hudi_buf_free(&dir);
  return st;
}

hudi_status hudi_rb_write_command_block(const hudi_rb_target *x, const hudi_rollback_request *rq,
                                        const char *rollback_time, const char *instant, hudi_rollback_metadata *m,
                                        hudi_rollback_partition_metadata *pm, hudi_error *err) {
  const char *part = rq->partition_path ? rq->partition_path : "";
  if (!rq->file_id || !*rq->file_id || !rq->latest_base_instant || !*rq->latest_base_instant)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "the rollback plan of %s asks for a command block in partition '%s' without naming the file "
                        "slice (fileId and latestBaseInstant)",
                        instant, part);
  hudi_log_meta header = HUDI_LOG_META_INIT;
  hudi_buf block, dir, rel, uri;
  hudi_buf_init(&block, 1 << 20);
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_buf_init(&rel, PATH_MAX_LEN);
  hudi_buf_init(&uri, PATH_MAX_LEN);
  int32_t version = 1;
  hudi_status st = hudi_log_rollback_header(&header, rollback_time, instant, err);
  if (st == HUDI_OK) st = hudi_log_block_encode(&block, HUDI_LOG_BLOCK_COMMAND, &header, NULL, NULL, 0, err);
  if (st == HUDI_OK) st = partition_dir(&dir, x, part, err);
  if (st == HUDI_OK)
    st = hudi_log_file_next_version(x->s, (const char *)dir.data, rq->file_id, rq->latest_base_instant, &version, err);
  if (st == HUDI_OK)
    st = hudi_log_file_create(x->s, (const char *)dir.data, rq->file_id, rq->latest_base_instant, version,
                              ROLLBACK_WRITE_TOKEN, block.data, block.len, NULL, &rel, err);
  if (st == HUDI_OK && (rel.len == 0 || rel.data[rel.len - 1] != 0)) st = hudi_buf_append_byte(&rel, 0, err);
  const char *r = (const char *)rel.data;
  if (st == HUDI_OK) st = hudi_rb_log_uri(&uri, x, r + (*x->dir ? strlen(x->dir) + 1 : 0), err);
  hudi_avro_arena *a = &m->doc.arena;
  hudi_tl_long_entry *e = NULL;
  if (st == HUDI_OK) st = hudi_tl_list_push(&pm->rollback_log_files, a, sizeof *e, (void **)&e, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, (const char *)uri.data, &e->key, err);
  if (st == HUDI_OK) e->value = hudi_tl_some_long((int64_t)block.len);
  const hudi_tl_long_entry *from = rq->log_blocks_to_be_deleted.items;
  for (size_t i = 0; st == HUDI_OK && i < rq->log_blocks_to_be_deleted.n; i++) {
    st = hudi_tl_list_push(&pm->log_files_from_failed_commit, a, sizeof *e, (void **)&e, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, from[i].key ? from[i].key : "", &e->key, err);
    if (st == HUDI_OK) e->value = from[i].value;
  }
  hudi_log_meta_free(&header);
  hudi_buf_free(&block);
  hudi_buf_free(&dir);
  hudi_buf_free(&rel);
  hudi_buf_free(&uri);
  return st;
}
