/* The storage interface's front door: checks flags, normalises paths, then
 * calls the backend; also the pieces every backend shares (file lists,
 * options, sorting). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io/group.h"
#include "io/objcache.h"
#include "io/readahead.h"

/* Normalises path into *norm, adding the caller's operation to errors. */
static hudi_status normalize(char **norm, const char *op, const char *path, hudi_error *err) {
  hudi_status st = hudi_path_normalize(norm, path, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s", op);
  return HUDI_OK;
}

static hudi_status check_flags(const char *op, unsigned flags, unsigned known, hudi_error *err) {
  if (flags & ~known)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s: unknown flags 0x%x", op, flags & ~known);
  return HUDI_OK;
}

void hudi_storage_free(hudi_storage *s) {
  if (!s) return;
  hudi_readahead_free(s->readahead);
  s->readahead = NULL;
  hudi_objcache_free(s->objcache);
  s->objcache = NULL;
  s->vtable->destroy(s);
}

/* A write, rename or delete of path may replace bytes the read-ahead or
 * the object cache holds, or change a held listing. Called before the
 * change and again after it: a read racing the change in another thread
 * may have fetched the old bytes after the first call. */
static void forget_cached(hudi_storage *s, const char *path) {
  if (s->readahead) hudi_readahead_clear(s->readahead);
  if (s->objcache) hudi_objcache_invalidate(s->objcache, path);
}

const char *hudi_storage_base(const hudi_storage *s) { return s->base; }

const char *hudi_storage_backend_name(const hudi_storage *s) { return s->vtable->name; }

static hudi_status backend_read_all(hudi_storage *s, const char *path, size_t max_size,
                                    hudi_buf *out, hudi_error *err);

/* A ranged read answered by the object cache: from kept bytes, or by
 * fetching a small immutable object whole (one GET for what would be a
 * footer read, a metadata read and a few block reads). False: not handled,
 * go to the backend. */
static bool cached_read(hudi_storage *s, const char *p, uint64_t offset, void *dst, size_t len,
                        size_t *n_read, hudi_status *st, hudi_error *err) {
  *st = HUDI_OK;
  uint64_t size;
  for (;;) {
    if (hudi_objcache_read(s->objcache, p, offset, dst, len, n_read)) return true;
    if (!hudi_objcache_wants_whole(s->objcache, p, &size)) return false;
    if (hudi_objcache_claim(s->objcache, p)) break;
  }
  uint64_t gen = hudi_objcache_generation(s->objcache);
  hudi_buf whole;
  hudi_buf_init(&whole, (size_t)size);
  hudi_error local = HUDI_ERROR_INIT;
  bool done = false;
  /* Not the size the stat said (rewritten meanwhile, or a LIMIT): let the
   * plain ranged read decide. */
  if (backend_read_all(s, p, (size_t)size, &whole, &local) == HUDI_OK && whole.len == size) {
    hudi_objcache_put_object(s->objcache, gen, p, whole.data, whole.len);
    size_t n = offset >= whole.len ? 0 : whole.len - (size_t)offset < len ? whole.len - (size_t)offset : len;
    if (n) memcpy(dst, whole.data + offset, n);
    *n_read = n;
    done = true;
  }
  hudi_objcache_unclaim(s->objcache, p);
  hudi_error_clear(&local);
  hudi_buf_free(&whole);
  (void)err;
  return done;
}

/* A read's range must fit a signed 64-bit file offset. */
static hudi_status check_range(const char *path, uint64_t offset, size_t len, hudi_error *err) {
  if (offset > INT64_MAX || len > INT64_MAX - offset)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "read of '%s': range %llu+%zu is too large",
                        path, (unsigned long long)offset, len);
  return HUDI_OK;
}

hudi_status hudi_storage_read(hudi_storage *s, const char *path, uint64_t offset, void *dst,
                              size_t len, size_t *n_read, hudi_error *err) {
  *n_read = 0;
  HUDI_TRY(check_range(path, offset, len, err));
  char *p;
  HUDI_TRY(normalize(&p, "read", path, err));
  hudi_status st;
  if (s->objcache && len && cached_read(s, p, offset, dst, len, n_read, &st, err)) {
    hudi_free(p);
    return st;
  }
  uint64_t gen = s->objcache ? hudi_objcache_generation(s->objcache) : 0;
  st = s->readahead && len ? hudi_readahead_read(s->readahead, s, p, offset, dst, len, n_read, err)
                           : s->vtable->read(s, p, offset, dst, len, n_read, err);
  if (st == HUDI_OK && s->objcache) hudi_objcache_put_tail(s->objcache, gen, p, offset, dst, *n_read);
  hudi_free(p);
  return st;
}

/* The error for a read that ended before the caller's range did. */
static hudi_status short_read(const char *path, uint64_t offset, size_t len, size_t got,
                              hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT,
                      "short read of '%s': wanted %zu bytes at offset %llu but the object ends "
                      "after %zu of them",
                      path, len, (unsigned long long)offset, got);
}

hudi_status hudi_storage_read_exact(hudi_storage *s, const char *path, uint64_t offset, void *dst,
                                    size_t len, hudi_error *err) {
  size_t got;
  HUDI_TRY(hudi_storage_read(s, path, offset, dst, len, &got, err));
  if (got < len) return short_read(path, offset, len, got, err);
  return HUDI_OK;
}

hudi_status hudi_storage_read_buf(hudi_storage *s, const char *path, uint64_t offset, size_t len,
                                  hudi_buf *out, size_t *n_read, hudi_error *err) {
  if (n_read) *n_read = 0;
  HUDI_TRY(hudi_buf_reserve(out, len, err));
  size_t got;
  HUDI_TRY(hudi_storage_read(s, path, offset, out->data + out->len, len, &got, err));
  if (!n_read && got < len) return short_read(path, offset, len, got, err);
  out->len += got;
  if (n_read) *n_read = got;
  return HUDI_OK;
}

struct hudi_storage_file {
  hudi_storage *s;
  char *path;   /* normalised */
  void *handle; /* the backend's, once held */
};

hudi_status hudi_storage_file_open(hudi_storage *s, const char *path, hudi_storage_file **out, hudi_error *err) {
  *out = NULL;
  hudi_storage_file *f = hudi_calloc(1, sizeof *f);
  if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", path);
  hudi_status st = normalize(&f->path, "read", path, err);
  if (st != HUDI_OK) {
    hudi_free(f);
    return st;
  }
  f->s = s;
  *out = f;
  return HUDI_OK;
}

/* Whether reads of f go to the backend's held handle: object stores keep
 * their read-ahead and request cache on the plain path. */
static bool held(const hudi_storage_file *f) {
  const hudi_storage *s = f->s;
  return s->vtable->hold && s->vtable->held_read && !s->readahead && !s->objcache;
}

hudi_status hudi_storage_file_read_exact(hudi_storage_file *f, uint64_t offset, void *dst, size_t len,
                                         hudi_error *err) {
  if (!held(f)) return hudi_storage_read_exact(f->s, f->path, offset, dst, len, err);
  HUDI_TRY(check_range(f->path, offset, len, err));
  if (!f->handle) HUDI_TRY(f->s->vtable->hold(f->s, f->path, &f->handle, err));
  size_t got;
  HUDI_TRY(f->s->vtable->held_read(f->s, f->handle, offset, dst, len, &got, err));
  if (got < len) return short_read(f->path, offset, len, got, err);
  return HUDI_OK;
}

void hudi_storage_file_close(hudi_storage_file *f) {
  if (!f) return;
  if (f->handle) f->s->vtable->release(f->s, f->handle);
  hudi_free(f->path);
  hudi_free(f);
}

/* read_all for backends without their own: stat, then one ranged read. */
static hudi_status read_all_fallback(hudi_storage *s, const char *path, size_t max_size,
                                     hudi_buf *out, hudi_error *err) {
  hudi_file_stat st;
  HUDI_TRY(s->vtable->stat(s, path, &st, err));
  if (st.is_dir) return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "read of '%s': is a directory", path);
  if (st.size > max_size)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "'%s' is %llu bytes, over the cap of %zu", path,
                        (unsigned long long)st.size, max_size);
  HUDI_TRY(hudi_buf_reserve(out, (size_t)st.size, err));
  size_t got;
  HUDI_TRY(s->vtable->read(s, path, 0, out->data + out->len, (size_t)st.size, &got, err));
  out->len += got;
  return HUDI_OK;
}

static hudi_status backend_read_all(hudi_storage *s, const char *path, size_t max_size,
                                    hudi_buf *out, hudi_error *err) {
  return s->vtable->read_all ? s->vtable->read_all(s, path, max_size, out, err)
                             : read_all_fallback(s, path, max_size, out, err);
}

hudi_status hudi_storage_read_all(hudi_storage *s, const char *path, size_t max_size, hudi_buf *out,
                                  hudi_error *err) {
  char *p;
  HUDI_TRY(normalize(&p, "read", path, err));
  if (max_size > out->max - out->len) max_size = out->max - out->len;
  if (s->objcache && hudi_objcache_get_object(s->objcache, p, max_size, out)) {
    hudi_free(p);
    return HUDI_OK;
  }
  uint64_t gen = s->objcache ? hudi_objcache_generation(s->objcache) : 0;
  size_t start = out->len;
  hudi_status st = backend_read_all(s, p, max_size, out, err);
  if (st == HUDI_OK && s->objcache)
    hudi_objcache_put_object(s->objcache, gen, p, out->data + start, out->len - start);
  hudi_free(p);
  return st;
}

hudi_status hudi_storage_stat(hudi_storage *s, const char *path, hudi_file_stat *out,
                              hudi_error *err) {
  char *p;
  HUDI_TRY(normalize(&p, "stat", path, err));
  if (!s->objcache) {
    hudi_status st = s->vtable->stat(s, p, out, err);
    hudi_free(p);
    return st;
  }
  for (;;) {
    if (hudi_objcache_get_stat(s->objcache, p, out)) {
      hudi_free(p);
      return HUDI_OK;
    }
    if (hudi_objcache_claim(s->objcache, p)) break;
  }
  uint64_t gen = hudi_objcache_generation(s->objcache);
  hudi_status st = s->vtable->stat(s, p, out, err);
  if (st == HUDI_OK) hudi_objcache_put_stat(s->objcache, gen, p, out);
  hudi_objcache_unclaim(s->objcache, p);
  hudi_free(p);
  return st;
}

hudi_status hudi_storage_exists(hudi_storage *s, const char *path, bool *exists, hudi_error *err) {
  *exists = false;
  hudi_file_stat fs;
  hudi_error local = HUDI_ERROR_INIT;
  hudi_status st = hudi_storage_stat(s, path, &fs, &local);
  if (st == HUDI_ERR_NOT_FOUND) return HUDI_OK;
  if (st != HUDI_OK) {
    if (err) *err = local;
    return st;
  }
  *exists = true;
  return HUDI_OK;
}

/* The base is the table; writing, renaming or deleting it as an object is
 * always a caller bug. */
static hudi_status reject_base(const char *op, const char *norm, const char *path, hudi_error *err) {
  if (norm[0] == '\0')
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s: path '%s' names the table base itself", op,
                        path);
  return HUDI_OK;
}

/* The slot of an operation joining this thread's write group on s (NULL:
 * no group, or *st not OK). Taken before the operation, so that once done
 * it is always recorded for the group's sync; a failure to take it is *st. */
static hudi_storage_group *group_slot(hudi_storage *s, hudi_status *st, hudi_error *err) {
  hudi_storage_group *g = *st == HUDI_OK ? hudi_storage_group_of_(s) : NULL;
  if (g && (*st = hudi_storage_group_reserve_(g, err)) != HUDI_OK) g = NULL;
  return g;
}

/* Ends an operation on the normalised path p: done (st OK) in a group, p
 * is handed to the group, synced at its sync; otherwise the slot, if any,
 * is given back and p freed. Returns st. */
static hudi_status group_done(hudi_storage_group *g, char *p, hudi_status st) {
  if (st == HUDI_OK && g) {
    hudi_storage_group_add_(g, p);
    return HUDI_OK;
  }
  if (g) hudi_storage_group_unreserve_(g);
  hudi_free(p);
  return st;
}

hudi_status hudi_storage_write(hudi_storage *s, const char *path, const void *data, size_t len,
                               unsigned flags, hudi_error *err) {
  HUDI_TRY(check_flags("write", flags, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_DIRECT | HUDI_WRITE_GROUPED, err));
  if ((flags & HUDI_WRITE_IF_ABSENT) && (flags & HUDI_WRITE_DIRECT))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "write of '%s': HUDI_WRITE_IF_ABSENT cannot be combined with HUDI_WRITE_DIRECT",
                        path);
  if ((flags & HUDI_WRITE_GROUPED) && !(flags & (HUDI_WRITE_IF_ABSENT | HUDI_WRITE_DIRECT)))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "write of '%s': HUDI_WRITE_GROUPED needs HUDI_WRITE_IF_ABSENT or HUDI_WRITE_DIRECT", path);
  if (len > 0 && !data)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "write of '%s': no data for %zu bytes", path, len);
  char *p;
  HUDI_TRY(normalize(&p, "write", path, err));
  hudi_status st = reject_base("write", p, path, err);
  hudi_storage_group *g = (flags & HUDI_WRITE_GROUPED) ? group_slot(s, &st, err) : NULL;
  flags &= ~(unsigned)HUDI_WRITE_GROUPED;
  if (g) flags |= HUDI_WRITE_UNSYNCED_;
  if (st == HUDI_OK) {
    forget_cached(s, p);
    st = s->vtable->write(s, p, data, len, flags, err);
    forget_cached(s, p);
  }
  return group_done(g, p, st);
}

hudi_status hudi_storage_write_if_absent(hudi_storage *s, const char *path, const void *data,
                                         size_t len, hudi_error *err) {
  return hudi_storage_write(s, path, data, len, HUDI_WRITE_IF_ABSENT, err);
}

hudi_status hudi_storage_rename(hudi_storage *s, const char *from, const char *to, unsigned flags,
                                hudi_error *err) {
  HUDI_TRY(check_flags("rename", flags, HUDI_RENAME_NO_REPLACE, err));
  char *f, *t;
  HUDI_TRY(normalize(&f, "rename", from, err));
  hudi_status st = normalize(&t, "rename", to, err);
  if (st != HUDI_OK) {
    hudi_free(f);
    return st;
  }
  st = reject_base("rename", f, from, err);
  if (st == HUDI_OK) st = reject_base("rename", t, to, err);
  if (st == HUDI_OK) {
    forget_cached(s, f);
    forget_cached(s, t);
    st = s->vtable->rename(s, f, t, flags, err);
    forget_cached(s, f);
    forget_cached(s, t);
  }
  hudi_free(f);
  hudi_free(t);
  return st;
}

hudi_status hudi_storage_make_parents(hudi_storage *s, const char *path, hudi_error *err) {
  if (!s->vtable->make_parents) return HUDI_OK;
  char *p;
  HUDI_TRY(normalize(&p, "make directories", path, err));
  hudi_status st = s->vtable->make_parents(s, p, err);
  hudi_free(p);
  return st;
}

hudi_status hudi_storage_set_mtime(hudi_storage *s, const char *path, int64_t mtime_ms, hudi_error *err) {
  if (!s->vtable->set_mtime)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "the %s backend cannot set a modification time", s->vtable->name);
  char *p;
  HUDI_TRY(normalize(&p, "set the modification time of", path, err));
  hudi_status st = s->vtable->set_mtime(s, p, mtime_ms, err);
  forget_cached(s, p);
  hudi_free(p);
  return st;
}

hudi_status hudi_storage_publish(hudi_storage *s, const char *tmp, const char *path, hudi_error *err) {
  if (!s->vtable->sync) return hudi_storage_rename(s, tmp, path, 0, err);
  char *p;
  HUDI_TRY(normalize(&p, "publish", path, err));
  hudi_status st = reject_base("publish", p, path, err);
  hudi_storage_group *g = group_slot(s, &st, err);
  if (st == HUDI_OK && !g) {
    /* The content first, so the name never points at bytes a power loss
     * can take back. */
    char *t;
    st = normalize(&t, "publish", tmp, err);
    if (st == HUDI_OK) {
      st = s->vtable->sync(s, t, err);
      hudi_free(t);
    }
  }
  if (st == HUDI_OK) st = hudi_storage_rename(s, tmp, p, 0, err);
  return group_done(g, p, st);
}

hudi_status hudi_storage_delete(hudi_storage *s, const char *path, unsigned flags, hudi_error *err) {
  HUDI_TRY(check_flags("delete", flags, HUDI_DELETE_MISSING_OK | HUDI_DELETE_RECURSIVE, err));
  char *p;
  HUDI_TRY(normalize(&p, "delete", path, err));
  hudi_status st = reject_base("delete", p, path, err);
  if (st == HUDI_OK) {
    forget_cached(s, p);
    st = s->vtable->remove(s, p, flags, err);
    forget_cached(s, p);
  }
  hudi_free(p);
  return st;
}

static int compare_info(const void *a, const void *b) {
  return strcmp(((const hudi_file_info *)a)->path, ((const hudi_file_info *)b)->path);
}

hudi_status hudi_storage_list(hudi_storage *s, const char *dir, unsigned flags, hudi_file_list *out,
                              hudi_error *err) {
  HUDI_TRY(check_flags("list", flags, HUDI_LIST_RECURSIVE | HUDI_LIST_INCLUDE_TEMP, err));
  if (out->count != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "list of '%s': the output list is not empty", dir);
  char *p;
  HUDI_TRY(normalize(&p, "list", dir, err));
  if (s->objcache && hudi_objcache_get_list(s->objcache, p, flags, out)) {
    hudi_free(p);
    return HUDI_OK; /* kept sorted */
  }
  uint64_t gen = s->objcache ? hudi_objcache_generation(s->objcache) : 0;
  hudi_status st = s->vtable->list(s, p, flags, out, err);
  if (st != HUDI_OK) {
    hudi_free(p);
    hudi_file_list_free(out);
    return st;
  }
  if (out->count > 1) qsort(out->items, out->count, sizeof *out->items, compare_info);
  if (s->objcache) {
    hudi_objcache_put_list(s->objcache, gen, p, flags, out);
    /* Stats of immutable files, saving their HEADs; not from a listing of
     * thousands (they would only push each other out). */
    if (out->count <= 1024)
      for (size_t i = 0; i < out->count; i++)
        if (!out->items[i].is_dir)
          hudi_objcache_put_listed(s->objcache, gen, out->items[i].path, out->items[i].size,
                                   out->items[i].mtime_ms);
  }
  hudi_free(p);
  return HUDI_OK;
}

hudi_status hudi_storage_hold_listings(hudi_storage *s, const char *const *dirs, size_t n_dirs,
                                      hudi_error *err) {
  if (!s->objcache) return HUDI_OK;
  char *norm[HUDI_OBJCACHE_HELD_DIRS] = {NULL};
  if (n_dirs > HUDI_OBJCACHE_HELD_DIRS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hold of %zu listings: at most %d", n_dirs,
                        HUDI_OBJCACHE_HELD_DIRS);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < n_dirs && st == HUDI_OK; i++) st = normalize(&norm[i], "hold", dirs[i], err);
  if (st == HUDI_OK) st = hudi_objcache_hold(s->objcache, (const char *const *)norm, n_dirs, err);
  for (size_t i = 0; i < n_dirs; i++) hudi_free(norm[i]);
  return st;
}

void hudi_storage_release_listings(hudi_storage *s) {
  if (s->objcache) hudi_objcache_release(s->objcache);
}

void hudi_storage_forget_objects(hudi_storage *s) {
  if (s->objcache) hudi_objcache_forget_objects(s->objcache);
}

void hudi_file_list_free(hudi_file_list *list) {
  for (size_t i = 0; i < list->count; i++) hudi_free(list->items[i].path);
  hudi_free(list->items);
  list->items = NULL;
  list->count = list->cap = 0;
}

hudi_status hudi_file_list_push(hudi_file_list *list, const char *path, size_t path_len,
                                uint64_t size, int64_t mtime_ms, bool is_dir, hudi_error *err) {
  if (list->count == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 16;
    hudi_file_info *items = hudi_realloc(list->items, hudi_mul_size(cap, sizeof *items));
    if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory listing %zu files", cap);
    list->items = items;
    list->cap = cap;
  }
  char *copy = hudi_strndup(path, path_len);
  if (!copy) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory listing '%.*s'", (int)path_len, path);
  list->items[list->count++] = (hudi_file_info){copy, size, mtime_ms, is_dir};
  return HUDI_OK;
}

const char *hudi_storage_option_get(const hudi_storage_option *options, size_t n_options,
                                    const char *key) {
  const char *value = NULL;
  for (size_t i = 0; i < n_options; i++)
    if (options[i].key && strcmp(options[i].key, key) == 0) value = options[i].value;
  return value;
}

hudi_status hudi_storage_option_bool(const hudi_storage_option *options, size_t n_options,
                                     const char *key, bool dflt, bool *out, hudi_error *err) {
  const char *v = hudi_storage_option_get(options, n_options, key);
  *out = dflt;
  if (!v) return HUDI_OK;
  if (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0) {
    *out = true;
  } else if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0) {
    *out = false;
  } else {
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "storage option '%s' = '%s': expected true or false", key, v);
  }
  return HUDI_OK;
}
