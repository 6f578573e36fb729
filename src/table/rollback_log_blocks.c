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

/* Whether a block of the log file at path has INSTANT_TIME T (command
 * blocks aside). */
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

/* The request for slice (file_id, base) of partition, whose log files
 * logs[0, n) (listing entries) hold blocks of T. Hudi's marker-based plan
 * names the slice's latest log only, assuming T appended last; a slice
 * can hold blocks of an older failed write below a newer one's (two
 * failed writes, or a rollback's command block on top), so every log
 * holding a block of T is named. None (T failed before its log): a
 * request without log blocks, which writes nothing. */
static hudi_status push_request(hudi_rollback_plan *p, const hudi_rb_target *x, const char *partition,
                                const char *file_id, const char *base, const hudi_file_info *const *logs, size_t n,
                                hudi_error *err) {
  hudi_avro_arena *a = &p->doc.arena;
  hudi_rollback_request *r;
  HUDI_TRY(hudi_tl_list_push(&p->rollback_requests, a, sizeof *r, (void **)&r, err));
  HUDI_TRY(hudi_tl_strdup(a, partition, &r->partition_path, err));
  r->files_to_be_deleted.has = r->log_blocks_to_be_deleted.has = 1;
  HUDI_TRY(hudi_tl_strdup(a, file_id, &r->file_id, err));
  HUDI_TRY(hudi_tl_strdup(a, base, &r->latest_base_instant, err));
  hudi_buf uri;
  hudi_buf_init(&uri, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  size_t pre = *x->dir ? strlen(x->dir) + 1 : 0;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    hudi_tl_long_entry *e = NULL;
    st = hudi_rb_log_uri(&uri, x, logs[i]->path + pre, err);
    if (st == HUDI_OK) st = hudi_tl_list_push(&r->log_blocks_to_be_deleted, a, sizeof *e, (void **)&e, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, (const char *)uri.data, &e->key, err);
    if (st == HUDI_OK) e->value = hudi_tl_some_long((int64_t)logs[i]->size);
  }
  hudi_buf_free(&uri);
  return st;
}

/* The request deleting the latest log of a slice T itself made (base
 * instant T: its logs are T's alone), as Hudi does. */
static hudi_status push_delete(hudi_rollback_plan *p, const hudi_rb_target *x, const char *partition,
                               const hudi_file_info *log, hudi_error *err) {
  hudi_avro_arena *a = &p->doc.arena;
  hudi_rollback_request *r;
  HUDI_TRY(hudi_tl_list_push(&p->rollback_requests, a, sizeof *r, (void **)&r, err));
  HUDI_TRY(hudi_tl_strdup(a, partition, &r->partition_path, err));
  r->files_to_be_deleted.has = r->log_blocks_to_be_deleted.has = 1;
  HUDI_TRY(hudi_tl_strdup(a, "", &r->file_id, err));
  HUDI_TRY(hudi_tl_strdup(a, "", &r->latest_base_instant, err));
  const char *b = hudi_storage_base(x->s);
  hudi_buf uri;
  hudi_buf_init(&uri, PATH_MAX_LEN);
  hudi_status st = hudi_buf_printf(&uri, err, "%s%s%s%c", b, *b && b[strlen(b) - 1] != '/' ? "/" : "", log->path, '\0');
  if (st == HUDI_OK) st = hudi_tl_strs_push(&r->files_to_be_deleted, a, (const char *)uri.data, err);
  hudi_buf_free(&uri);
  return st;
}

/* Whether listing entry i is a log file of slice (file_id, base) directly
 * in dir. */
static bool slice_log(const hudi_file_list *l, size_t i, const char *dir, const char *file_id, const char *base) {
  const char *p = l->items[i].path, *name = base_name(p);
  size_t dlen = strlen(dir), plen = (size_t)(name - p);
  if (l->items[i].is_dir || (dlen ? (plen != dlen + 1 || memcmp(p, dir, dlen) != 0) : plen != 0)) return false;
  if (!hudi_log_file_name_matches(name, strlen(name))) return false;
  hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) return false;
  bool mine = !strcmp(n.file_id, file_id) && !strcmp(n.instant, base) && !strcmp(n.extension, HUDI_LOG_FILE_EXT);
  hudi_log_file_name_free(&n);
  return mine;
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
  const hudi_file_info **mine = NULL;
  size_t n = 0;
  if (st == HUDI_OK && !dup && !strcmp(base, instant)) {
    ptrdiff_t k = latest_log(&l, (const char *)dir.data, file_id, base);
    if (k >= 0) st = push_delete(p, x, partition, &l.items[k], err);
  } else if (st == HUDI_OK && !dup) {
    mine = hudi_calloc(l.count + 1, sizeof *mine);
    if (!mine) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
      bool has = false;
      if (slice_log(&l, i, (const char *)dir.data, file_id, base))
        st = holds_block_of(&has, x->s, l.items[i].path, instant, err);
      if (st == HUDI_OK && has) mine[n++] = &l.items[i];
    }
    if (st == HUDI_OK) st = push_request(p, x, partition, file_id, base, mine, n, err);
  }
  hudi_free(mine);
  hudi_file_list_free(&l);
  hudi_buf_free(&key);
  hudi_buf_free(&dir);
  return st;
}

/* A file slice of the listing and its log files holding blocks of T. */
typedef struct slice_hits {
  char *partition;
  hudi_log_file_name name; /* file id and base instant */
  const hudi_file_info **logs;
  size_t n, cap;
} slice_hits;

static void hits_free(slice_hits *h, size_t n) {
  for (size_t i = 0; i < n; i++) {
    hudi_free(h[i].partition);
    hudi_log_file_name_free(&h[i].name);
    hudi_free(h[i].logs);
  }
  hudi_free(h);
}

hudi_status hudi_rb_append_requests_from_listing(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                 const hudi_file_list *l, const char *instant, hudi_error *err) {
  size_t pre = *x->dir ? strlen(x->dir) + 1 : 0;
  /* One pass: every log file of a slice T did not make, read for T's blocks. */
  slice_hits *h = hudi_calloc(l->count + 1, sizeof *h);
  if (!h) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t nh = 0;
  hudi_hashmap slices;
  hudi_hashmap_init(&slices, 0);
  hudi_buf key;
  hudi_buf_init(&key, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l->count; i++) {
    const char *path = l->items[i].path;
    if (l->items[i].is_dir || strlen(path) <= pre) continue;
    const char *rel = path + pre, *name = base_name(rel);
    if (!strncmp(rel, ".hoodie/", 8) || !hudi_log_file_name_matches(name, strlen(name))) continue;
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) continue;
    bool has = false;
    /* A slice T made (base instant T): its files are deleted by name (rollback.c). */
    if (strcmp(n.instant, instant) != 0 && !strcmp(n.extension, HUDI_LOG_FILE_EXT))
      st = holds_block_of(&has, x->s, path, instant, err);
    size_t plen = (size_t)(name - rel);
    hudi_buf_reset(&key);
    if (st == HUDI_OK && has)
      st = hudi_buf_printf(&key, err, "%.*s/%s_%s", (int)(plen ? plen - 1 : 0), rel, n.file_id, n.instant);
    hudi_hashmap_value v = {.u64 = nh};
    bool known = st == HUDI_OK && has && hudi_hashmap_get(&slices, key.data, key.len, &v);
    if (st == HUDI_OK && has && !known) {
      st = hudi_hashmap_put(&slices, key.data, key.len, v, NULL, NULL, err);
      if (st == HUDI_OK) h[nh].partition = hudi_malloc(plen + 1);
      if (st == HUDI_OK && !h[nh].partition) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      if (st == HUDI_OK) {
        memcpy(h[nh].partition, rel, plen);
        h[nh].partition[plen ? plen - 1 : 0] = 0; /* without the '/' */
        h[nh++].name = n;
        n = (hudi_log_file_name)HUDI_LOG_FILE_NAME_INIT;
      }
    }
    slice_hits *s = st == HUDI_OK && has ? &h[v.u64] : NULL;
    if (s && s->n == s->cap) {
      size_t c = s->cap ? s->cap * 2 : 4;
      const hudi_file_info **q = hudi_realloc(s->logs, c * sizeof *q);
      if (!q) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      else s->logs = q, s->cap = c;
    }
    if (st == HUDI_OK && s) s->logs[s->n++] = &l->items[i];
    hudi_log_file_name_free(&n);
  }
  for (size_t i = 0; st == HUDI_OK && i < nh; i++)
    st = push_request(p, x, h[i].partition, h[i].name.file_id, h[i].name.instant, h[i].logs, h[i].n, err);
  hits_free(h, nh);
  hudi_hashmap_free(&slices);
  hudi_buf_free(&key);
  return st;
}

/* Whether the slice's latest log file is this rollback's command block
 * (same bytes), written before a crash: then *out is true and rel its path. */
static hudi_status written_before(bool *out, const hudi_rb_target *x, const char *dir, const hudi_rollback_request *rq,
                                  const hudi_buf *block, hudi_buf *rel, hudi_error *err) {
  *out = false;
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(x->s, dir, 0, &l, err));
  ptrdiff_t k = latest_log(&l, dir, rq->file_id, rq->latest_base_instant);
  hudi_status st = HUDI_OK;
  if (k >= 0 && l.items[k].size == block->len) {
    hudi_buf have;
    hudi_buf_init(&have, block->len + 1);
    st = hudi_storage_read_all(x->s, l.items[k].path, block->len, &have, err);
    *out = st == HUDI_OK && have.len == block->len && !memcmp(have.data, block->data, block->len);
    hudi_buf_free(&have);
    hudi_buf_reset(rel);
    if (st == HUDI_OK && *out) st = hudi_buf_append_str(rel, l.items[k].path, err);
  }
  hudi_file_list_free(&l);
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
  bool again = false;
  hudi_status st = hudi_log_rollback_header(&header, rollback_time, instant, err);
  if (st == HUDI_OK) st = hudi_log_block_encode(&block, HUDI_LOG_BLOCK_COMMAND, &header, NULL, NULL, 0, err);
  if (st == HUDI_OK) st = partition_dir(&dir, x, part, err);
  /* A rollback resumed after a crash: its block may be there already. */
  if (st == HUDI_OK) st = written_before(&again, x, (const char *)dir.data, rq, &block, &rel, err);
  if (st == HUDI_OK && !again)
    st = hudi_log_file_next_version(x->s, (const char *)dir.data, rq->file_id, rq->latest_base_instant, &version, err);
  if (st == HUDI_OK && !again)
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
