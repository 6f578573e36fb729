/* Version-6 rollbacks of log appends: command blocks (rollback_log_blocks.h). */
#include "table/rollback_log_blocks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/backend.h"
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

/* ---- partition listings, each taken once per plan or execution -------- */

/* The log files of one file slice in a listing: indices into it. */
typedef struct rb_slice {
  size_t *ix;
  size_t n, cap;
} rb_slice;

/* A directory's listing, its log files grouped by file slice. */
typedef struct rb_dir {
  hudi_file_list l;
  hudi_hashmap slices; /* "<fileId>_<baseInstant>" -> index into s */
  rb_slice *s;
  size_t n, cap;
} rb_dir;

struct hudi_rb_dirs {
  hudi_hashmap index; /* dir -> rb_dir * */
  rb_dir **dirs;
  size_t n, cap;
};

hudi_status hudi_rb_dirs_new(hudi_rb_dirs **out, hudi_error *err) {
  *out = hudi_calloc(1, sizeof **out);
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_hashmap_init(&(*out)->index, 0);
  return HUDI_OK;
}

static void dir_free(rb_dir *d) {
  if (!d) return;
  hudi_file_list_free(&d->l);
  hudi_hashmap_free(&d->slices);
  for (size_t i = 0; i < d->n; i++) hudi_free(d->s[i].ix);
  hudi_free(d->s);
  hudi_free(d);
}

void hudi_rb_dirs_free(hudi_rb_dirs *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) dir_free(c->dirs[i]);
  hudi_free(c->dirs);
  hudi_hashmap_free(&c->index);
  hudi_free(c);
}

static hudi_status slice_key(hudi_buf *key, const char *file_id, const char *base, hudi_error *err) {
  hudi_buf_reset(key);
  return hudi_buf_printf(key, err, "%s_%s", file_id, base);
}

/* Files listing entry i under its slice, when it is a log file (not an
 * archive log) of one. */
static hudi_status dir_add(rb_dir *d, size_t i, hudi_buf *key, hudi_error *err) {
  const hudi_file_info *f = &d->l.items[i];
  const char *name = base_name(f->path);
  if (f->is_dir || !hudi_log_file_name_matches(name, strlen(name))) return HUDI_OK;
  hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) return HUDI_OK;
  hudi_status st = strcmp(n.extension, HUDI_LOG_FILE_EXT) ? HUDI_OK : slice_key(key, n.file_id, n.instant, err);
  hudi_log_file_name_free(&n);
  if (st != HUDI_OK || key->len == 0) return st;
  hudi_hashmap_value v = {.u64 = d->n};
  if (!hudi_hashmap_get(&d->slices, key->data, key->len, &v)) {
    if (d->n == d->cap) {
      size_t c = d->cap ? d->cap * 2 : 16;
      rb_slice *q = hudi_realloc(d->s, c * sizeof *q);
      if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      d->s = q, d->cap = c;
    }
    HUDI_TRY(hudi_hashmap_put(&d->slices, key->data, key->len, v, NULL, NULL, err));
    d->s[d->n++] = (rb_slice){0};
  }
  rb_slice *s = &d->s[v.u64];
  if (s->n == s->cap) {
    size_t c = s->cap ? s->cap * 2 : 4;
    size_t *q = hudi_realloc(s->ix, c * sizeof *q);
    if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    s->ix = q, s->cap = c;
  }
  s->ix[s->n++] = i;
  return HUDI_OK;
}

/* The listing of dir (relative to the storage base), listed on first use. */
static hudi_status dir_get(hudi_rb_dirs *c, hudi_storage *s, const char *dir, rb_dir **out, hudi_error *err) {
  hudi_hashmap_value v;
  if (hudi_hashmap_get(&c->index, dir, strlen(dir), &v)) {
    *out = v.ptr;
    return HUDI_OK;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 8;
    rb_dir **q = hudi_realloc(c->dirs, cap * sizeof *q);
    if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    c->dirs = q, c->cap = cap;
  }
  rb_dir *d = hudi_calloc(1, sizeof *d);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_hashmap_init(&d->slices, 0);
  hudi_buf key;
  hudi_buf_init(&key, 256);
  hudi_status st = hudi_storage_list(s, dir, 0, &d->l, err);
  for (size_t i = 0; st == HUDI_OK && i < d->l.count; i++) {
    hudi_buf_reset(&key);
    st = dir_add(d, i, &key, err);
  }
  if (st == HUDI_OK) st = hudi_hashmap_put(&c->index, dir, strlen(dir), (hudi_hashmap_value){.ptr = d}, NULL, NULL, err);
  hudi_buf_free(&key);
  if (st != HUDI_OK) {
    dir_free(d);
    return st;
  }
  c->dirs[c->n++] = d;
  *out = d;
  return HUDI_OK;
}

/* The log files of slice (file_id, base) in d (none: an empty slice). */
static hudi_status dir_slice(const rb_slice **out, const rb_dir *d, const char *file_id, const char *base,
                             hudi_buf *key, hudi_error *err) {
  static const rb_slice none = {0};
  hudi_hashmap_value v;
  *out = &none;
  HUDI_TRY(slice_key(key, file_id, base, err));
  if (hudi_hashmap_get(&d->slices, key->data, key->len, &v)) *out = &d->s[v.u64];
  return HUDI_OK;
}

/* Adds a file this execution wrote (path relative to the base, its size)
 * to d, so a later request of the same slice sees it. */
static hudi_status dir_note_written(rb_dir *d, const char *path, uint64_t size, hudi_error *err) {
  HUDI_TRY(hudi_file_list_push(&d->l, path, strlen(path), size, 0, false, err));
  hudi_buf key;
  hudi_buf_init(&key, 256);
  hudi_status st = dir_add(d, d->l.count - 1, &key, err);
  hudi_buf_free(&key);
  return st;
}

/* The latest log file (LogFileComparator) of slice sl of d: its index in
 * d's listing and its version, or -1. */
static ptrdiff_t latest_log(const rb_dir *d, const rb_slice *sl, int32_t *version) {
  ptrdiff_t best = -1;
  hudi_log_file_name bn = HUDI_LOG_FILE_NAME_INIT;
  for (size_t k = 0; k < sl->n; k++) {
    const char *name = base_name(d->l.items[sl->ix[k]].path);
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) continue;
    if (best < 0 || hudi_log_file_name_compare(&n, &bn) > 0) {
      hudi_log_file_name_free(&bn);
      bn = n;
      best = (ptrdiff_t)sl->ix[k];
    } else {
      hudi_log_file_name_free(&n);
    }
  }
  if (version) *version = best >= 0 ? bn.version : 0;
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

hudi_status hudi_rb_append_request(hudi_rollback_plan *p, const hudi_rb_target *x, const char *partition,
                                   const char *file, const char *instant, hudi_hashmap *seen, hudi_rb_dirs *dirs,
                                   hudi_error *err) {
  /* The slice: from a log name (hudi-c's markers) or a base-file-like name
   * (0.x's: "<fileId>_<token>_<baseInstant>.parquet"). */
  char file_id[HUDI_FILE_ID_MAX], base[HUDI_INSTANT_TIME_MAX];
  hudi_base_file_name bf;
  const char *name = base_name(file);
  if (hudi_log_file_name_matches(name, strlen(name))) {
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) return HUDI_OK;
    bool fits = strlen(n.file_id) < sizeof file_id && strlen(n.instant) < sizeof base;
    if (fits) {
      snprintf(file_id, sizeof file_id, "%s", n.file_id);
      snprintf(base, sizeof base, "%s", n.instant);
    }
    hudi_log_file_name_free(&n);
    /* Cut short, the slice would be looked up under another name and its
     * blocks left unanswered. */
    if (!fits)
      return hudi_err_set(err, HUDI_ERR_LIMIT, "APPEND marker of %s in partition '%s': file id or instant too long",
                          name, partition);
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
  rb_dir *d = NULL;
  if (st == HUDI_OK && !dup) st = dir_get(dirs, x->s, (const char *)dir.data, &d, err);
  const rb_slice *sl = NULL;
  if (st == HUDI_OK && !dup) st = dir_slice(&sl, d, file_id, base, &key, err);
  const hudi_file_info **mine = NULL;
  size_t n = 0;
  if (st == HUDI_OK && sl && !strcmp(base, instant)) {
    ptrdiff_t k = latest_log(d, sl, NULL);
    if (k >= 0) st = push_delete(p, x, partition, &d->l.items[k], err);
  } else if (st == HUDI_OK && sl) {
    mine = hudi_calloc(sl->n + 1, sizeof *mine);
    if (!mine) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (size_t k = 0; st == HUDI_OK && k < sl->n; k++) {
      bool has = false;
      st = holds_block_of(&has, x->s, d->l.items[sl->ix[k]].path, instant, err);
      if (st == HUDI_OK && has) mine[n++] = &d->l.items[sl->ix[k]];
    }
    if (st == HUDI_OK) st = push_request(p, x, partition, file_id, base, mine, n, err);
  }
  hudi_free(mine);
  hudi_buf_free(&key);
  hudi_buf_free(&dir);
  return st;
}

/* A file slice and its log files holding blocks of T. */
typedef struct slice_hits {
  char *partition;
  hudi_log_file_name name; /* file id and base instant */
  const hudi_file_info **logs;
  size_t n, cap;
} slice_hits;

/* The slices found so far, one request each at the end. */
typedef struct hits {
  slice_hits *h;
  size_t n, cap;
  hudi_hashmap slices; /* "<partition>/<fileId>_<base>" -> index into h */
  hudi_hashmap files;  /* paths considered (metadata: named twice, in path and logFiles) */
  hudi_buf key;
} hits;

static void hits_init(hits *t) {
  memset(t, 0, sizeof *t);
  hudi_hashmap_init(&t->slices, 0);
  hudi_hashmap_init(&t->files, 0);
  hudi_buf_init(&t->key, PATH_MAX_LEN);
}

static void hits_free(hits *t) {
  for (size_t i = 0; i < t->n; i++) {
    hudi_free(t->h[i].partition);
    hudi_log_file_name_free(&t->h[i].name);
    hudi_free(t->h[i].logs);
  }
  hudi_free(t->h);
  hudi_hashmap_free(&t->slices);
  hudi_hashmap_free(&t->files);
  hudi_buf_free(&t->key);
}

/* Adds log file f (name n, in partition part[0, plen)) to its slice's hits;
 * takes n's strings when it starts a slice. A file already there is not
 * added twice. */
static hudi_status hits_add(hits *t, const char *part, size_t plen, hudi_log_file_name *n, const hudi_file_info *f,
                            hudi_error *err) {
  hudi_buf_reset(&t->key);
  HUDI_TRY(hudi_buf_printf(&t->key, err, "%.*s/%s_%s", (int)plen, part, n->file_id, n->instant));
  hudi_hashmap_value v = {.u64 = t->n};
  if (!hudi_hashmap_get(&t->slices, t->key.data, t->key.len, &v)) {
    if (t->n == t->cap) {
      size_t c = t->cap ? t->cap * 2 : 16;
      slice_hits *q = hudi_realloc(t->h, c * sizeof *q);
      if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      t->h = q, t->cap = c;
    }
    char *pp = hudi_malloc(plen + 1);
    if (!pp) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    memcpy(pp, part, plen);
    pp[plen] = 0;
    hudi_status st = hudi_hashmap_put(&t->slices, t->key.data, t->key.len, v, NULL, NULL, err);
    if (st != HUDI_OK) {
      hudi_free(pp);
      return st;
    }
    t->h[t->n++] = (slice_hits){.partition = pp, .name = *n};
    *n = (hudi_log_file_name)HUDI_LOG_FILE_NAME_INIT;
  }
  slice_hits *sh = &t->h[v.u64];
  for (size_t i = 0; i < sh->n; i++)
    if (sh->logs[i] == f) return HUDI_OK;
  if (sh->n == sh->cap) {
    size_t c = sh->cap ? sh->cap * 2 : 4;
    const hudi_file_info **q = hudi_realloc(sh->logs, c * sizeof *q);
    if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    sh->logs = q, sh->cap = c;
  }
  sh->logs[sh->n++] = f;
  return HUDI_OK;
}

static hudi_status hits_push(hudi_rollback_plan *p, const hudi_rb_target *x, const hits *t, hudi_error *err) {
  for (size_t i = 0; i < t->n; i++)
    HUDI_TRY(push_request(p, x, t->h[i].partition, t->h[i].name.file_id, t->h[i].name.instant, t->h[i].logs,
                          t->h[i].n, err));
  return HUDI_OK;
}

/* Listing entry f (path relative to the storage base; rel: past x's dir)
 * when it is a log file of a slice T did not make holding a block of T. */
static hudi_status consider(hits *t, const hudi_rb_target *x, const hudi_file_info *f, const char *rel,
                            const char *instant, hudi_error *err) {
  const char *name = base_name(rel);
  if (f->is_dir || !hudi_log_file_name_matches(name, strlen(name))) return HUDI_OK;
  hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) return HUDI_OK;
  bool has = false;
  hudi_status st = HUDI_OK;
  /* A slice T made (base instant T): its files are deleted by name (rollback.c). */
  if (strcmp(n.instant, instant) != 0 && !strcmp(n.extension, HUDI_LOG_FILE_EXT))
    st = holds_block_of(&has, x->s, f->path, instant, err);
  size_t plen = (size_t)(name - rel);
  if (st == HUDI_OK && has) st = hits_add(t, rel, plen ? plen - 1 : 0, &n, f, err);
  hudi_log_file_name_free(&n);
  return st;
}

hudi_status hudi_rb_append_requests_from_listing(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                 const hudi_file_list *l, const char *instant, hudi_error *err) {
  size_t pre = *x->dir ? strlen(x->dir) + 1 : 0;
  hits t;
  hits_init(&t);
  /* One pass: every log file of a slice T did not make, read for T's blocks. */
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l->count; i++) {
    const char *path = l->items[i].path;
    if (strlen(path) <= pre || !strncmp(path + pre, ".hoodie/", 8)) continue;
    st = consider(&t, x, &l->items[i], path + pre, instant, err);
  }
  if (st == HUDI_OK) st = hits_push(p, x, &t, err);
  hits_free(&t);
  return st;
}

static int cmp_info_path(const void *key, const void *item) {
  return strcmp((const char *)key, ((const hudi_file_info *)item)->path);
}

/* Log file rel (relative to x) of T's write stats, when listed. */
static hudi_status consider_named(hits *t, const hudi_rb_target *x, const hudi_file_list *l, hudi_buf *path,
                                  const char *rel, const char *instant, hudi_error *err) {
  hudi_buf_reset(path);
  HUDI_TRY(hudi_buf_printf(path, err, "%s%s%s%c", x->dir, *x->dir ? "/" : "", rel, '\0'));
  /* Listings are sorted bytewise by path (storage.h). */
  const hudi_file_info *f = bsearch(path->data, l->items, l->count, sizeof *l->items, cmp_info_path);
  if (!f || hudi_hashmap_get(&t->files, path->data, path->len, NULL)) return HUDI_OK;
  HUDI_TRY(hudi_hashmap_put(&t->files, path->data, path->len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err));
  return consider(t, x, f, rel, instant, err);
}

hudi_status hudi_rb_append_requests_from_metadata(hudi_rollback_plan *p, const hudi_rb_target *x,
                                                  const hudi_commit_metadata *m, const hudi_file_list *l,
                                                  const char *instant, hudi_error *err) {
  hits t;
  hits_init(&t);
  hudi_buf path, rel;
  hudi_buf_init(&path, PATH_MAX_LEN);
  hudi_buf_init(&rel, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  const hudi_partition_write_stats *ps = m->partition_to_write_stats.items;
  for (size_t i = 0; st == HUDI_OK && i < m->partition_to_write_stats.n; i++) {
    const char *part = ps[i].key ? ps[i].key : "";
    const hudi_write_stat *ws = ps[i].value.items;
    for (size_t k = 0; st == HUDI_OK && k < ps[i].value.n; k++) {
      /* path (relative to the table) is the log file T wrote, as Hudi
       * takes it; logFiles (names in the partition) lists every log of
       * the slice, so it is read only when path names no log file. */
      const char *pn = ws[k].path ? base_name(ws[k].path) : "";
      bool path_is_log = hudi_log_file_name_matches(pn, strlen(pn));
      if (path_is_log) st = consider_named(&t, x, l, &path, ws[k].path, instant, err);
      char *const *logs = ws[k].log_files.items;
      for (size_t j = 0; st == HUDI_OK && !path_is_log && j < ws[k].log_files.n; j++) {
        if (!logs[j]) continue;
        hudi_buf_reset(&rel);
        st = hudi_buf_printf(&rel, err, "%s%s%s%c", part, *part ? "/" : "", logs[j], '\0');
        if (st == HUDI_OK) st = consider_named(&t, x, l, &path, (const char *)rel.data, instant, err);
      }
    }
  }
  if (st == HUDI_OK) st = hits_push(p, x, &t, err);
  hits_free(&t);
  hudi_buf_free(&path);
  hudi_buf_free(&rel);
  return st;
}

/* Whether slice sl's latest log file in d is this rollback's command block
 * (same bytes), written before a crash: then *out is true and rel its
 * path; else *version is the slice's next log version. */
static hudi_status written_before(bool *out, int32_t *version, const hudi_rb_target *x, const rb_dir *d,
                                  const rb_slice *sl, const hudi_buf *block, hudi_buf *rel, hudi_error *err) {
  *out = false;
  int32_t latest = 0;
  ptrdiff_t k = latest_log(d, sl, &latest);
  if (latest == INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "log version overflow");
  *version = latest + 1;
  hudi_status st = HUDI_OK;
  if (k >= 0 && d->l.items[k].size == block->len) {
    hudi_buf have;
    hudi_buf_init(&have, block->len + 1);
    st = hudi_storage_read_all(x->s, d->l.items[k].path, block->len, &have, err);
    *out = st == HUDI_OK && have.len == block->len && !memcmp(have.data, block->data, block->len);
    hudi_buf_free(&have);
    hudi_buf_reset(rel);
    if (st == HUDI_OK && *out) st = hudi_buf_append_str(rel, d->l.items[k].path, err);
  }
  return st;
}

hudi_status hudi_rb_write_command_block(const hudi_rb_target *x, hudi_rb_dirs *dirs, const hudi_rollback_request *rq,
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
  rb_dir *d = NULL;
  if (st == HUDI_OK) st = dir_get(dirs, x->s, (const char *)dir.data, &d, err);
  const rb_slice *sl = NULL;
  if (st == HUDI_OK) st = dir_slice(&sl, d, rq->file_id, rq->latest_base_instant, &uri, err);
  /* A rollback resumed after a crash: its block may be there already. */
  if (st == HUDI_OK) st = written_before(&again, &version, x, d, sl, &block, &rel, err);
  if (st == HUDI_OK && !again)
    st = hudi_log_file_create(x->s, (const char *)dir.data, rq->file_id, rq->latest_base_instant, version,
                              ROLLBACK_WRITE_TOKEN, block.data, block.len, NULL, &rel, err);
  if (st == HUDI_OK && !again) st = hudi_buf_append_byte(&rel, 0, err);
  if (st == HUDI_OK && !again) st = dir_note_written(d, (const char *)rel.data, block.len, err);
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
