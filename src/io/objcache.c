/* Immutable-object and held-listing cache (see objcache.h). */
#include "io/objcache.h"

#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "base/alloc.h"

#define MAX_OBJECTS 1024
#define MAX_CLAIMS 64

typedef struct cached_object {
  char *path;     /* NULL: a free slot */
  uint8_t *data;  /* the whole object, or NULL */
  size_t len;
  uint8_t *tail;  /* else its last tail_len bytes, or NULL (hudi_objcache_put_tail) */
  size_t tail_len;
  bool has_stat;
  hudi_file_stat stat;
  bool has_size; /* size known, from stat or a listing */
  uint64_t size;
  uint64_t stamp; /* insertion order: the oldest goes first */
} cached_object;

typedef struct held_dir {
  char *dir;
  bool valid; /* list holds dir's listing as of our last write under it */
  hudi_file_list list;
} held_dir;

struct hudi_objcache {
  pthread_mutex_t lock;
  uint64_t gen, clock;
  cached_object objects[MAX_OBJECTS];
  size_t bytes;
  int holds; /* nesting depth of hudi_objcache_hold */
  held_dir dirs[HUDI_OBJCACHE_HELD_DIRS];
  size_t n_dirs;
  hudi_objcache_stats stats;
  pthread_cond_t claimed_cv; /* signalled when a claim ends */
  char *claims[MAX_CLAIMS];   /* paths being fetched */
};

hudi_status hudi_objcache_new(hudi_objcache **out, hudi_error *err) {
  hudi_objcache *c = hudi_calloc(1, sizeof *c);
  if (!c) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for the object cache");
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->claimed_cv, NULL);
  *out = c;
  return HUDI_OK;
}

hudi_status hudi_objcache_enable(hudi_storage *s, const hudi_storage_option *options, size_t n_options,
                                 hudi_error *err) {
  bool on;
  s->objcache = NULL;
  HUDI_TRY(hudi_storage_option_bool(options, n_options, "request_cache", true, &on, err));
  return on ? hudi_objcache_new(&s->objcache, err) : HUDI_OK;
}

static void drop_object(hudi_objcache *c, cached_object *o) {
  c->bytes -= o->len + o->tail_len;
  hudi_free(o->path);
  hudi_free(o->data);
  hudi_free(o->tail);
  memset(o, 0, sizeof *o);
}

static void drop_dirs(hudi_objcache *c) {
  for (size_t i = 0; i < c->n_dirs; i++) {
    hudi_free(c->dirs[i].dir);
    hudi_file_list_free(&c->dirs[i].list);
  }
  memset(c->dirs, 0, sizeof c->dirs);
  c->n_dirs = 0;
}

void hudi_objcache_free(hudi_objcache *c) {
  if (!c) return;
  for (size_t i = 0; i < MAX_OBJECTS; i++)
    if (c->objects[i].path) drop_object(c, &c->objects[i]);
  drop_dirs(c);
  for (size_t i = 0; i < MAX_CLAIMS; i++) hudi_free(c->claims[i]);
  pthread_cond_destroy(&c->claimed_cv);
  pthread_mutex_destroy(&c->lock);
  hudi_free(c);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* "<digits>_<digits>.<action>": a completed instant (requested and
 * completion times, at least 14 digits each). */
static bool completed_instant(const char *name) {
  const char *p = name;
  size_t d = 0;
  while (isdigit((unsigned char)*p)) p++, d++;
  if (d < 14 || *p != '_') return false;
  p++;
  d = 0;
  while (isdigit((unsigned char)*p)) p++, d++;
  if (d < 14 || *p != '.' || !p[1]) return false;
  for (p++; *p; p++)
    if (!islower((unsigned char)*p) && *p != '_') return false;
  return true;
}

bool hudi_objcache_immutable_name(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (hudi_storage_is_temp_name(name)) return false;
  if (ends_with(name, ".parquet") || ends_with(name, ".hfile")) return true;
  if (name[0] == '.' && strstr(name, ".log.") && !strstr(name, ".marker")) return true;
  return completed_instant(name);
}

uint64_t hudi_objcache_generation(hudi_objcache *c) {
  pthread_mutex_lock(&c->lock);
  uint64_t g = c->gen;
  pthread_mutex_unlock(&c->lock);
  return g;
}

static cached_object *find_object(hudi_objcache *c, const char *path) {
  for (size_t i = 0; i < MAX_OBJECTS; i++)
    if (c->objects[i].path && strcmp(c->objects[i].path, path) == 0) return &c->objects[i];
  return NULL;
}

bool hudi_objcache_get_object(hudi_objcache *c, const char *path, size_t max_size, hudi_buf *out) {
  bool hit = false;
  pthread_mutex_lock(&c->lock);
  cached_object *o = find_object(c, path);
  if (o && o->data && o->len <= max_size && hudi_buf_append(out, o->data, o->len, NULL) == HUDI_OK) hit = true;
  if (hit) c->stats.object_hits++;
  else c->stats.object_misses++;
  pthread_mutex_unlock(&c->lock);
  return hit;
}

bool hudi_objcache_read(hudi_objcache *c, const char *path, uint64_t offset, void *dst, size_t len,
                        size_t *n_read) {
  pthread_mutex_lock(&c->lock);
  cached_object *o = find_object(c, path);
  bool hit = o && o->data;
  if (hit) {
    size_t n = offset >= o->len ? 0 : o->len - (size_t)offset < len ? o->len - (size_t)offset : len;
    if (n) memcpy(dst, o->data + offset, n);
    *n_read = n;
    c->stats.range_hits++;
  } else if (o && o->tail && o->has_size && offset >= o->size - o->tail_len) {
    uint64_t start = o->size - o->tail_len;
    size_t n = offset >= o->size ? 0 : o->size - offset < len ? (size_t)(o->size - offset) : len;
    if (n) memcpy(dst, o->tail + (offset - start), n);
    *n_read = n;
    c->stats.tail_hits++;
    hit = true;
  }
  pthread_mutex_unlock(&c->lock);
  return hit;
}

void hudi_objcache_put_tail(hudi_objcache *c, uint64_t gen, const char *path, uint64_t offset, const void *data,
                            size_t len) {
  if (len == 0 || len > HUDI_OBJCACHE_TAIL_MAX || !hudi_objcache_immutable_name(path)) return;
  pthread_mutex_lock(&c->lock);
  cached_object *o = gen == c->gen ? find_object(c, path) : NULL;
  /* A read up to the object's end (its size known) longer than the kept
   * tail replaces it; a read that ends where the kept tail starts extends
   * it (a Parquet reader reads the footer's last 64 KiB first, then the
   * rest of a longer footer before them). Within the byte budgets. */
  size_t keep = 0;
  bool take = false;
  if (o && !o->data && o->has_size) {
    if (offset + len == o->size) take = len > o->tail_len;
    else if (o->tail && offset + len == o->size - o->tail_len && len + o->tail_len <= HUDI_OBJCACHE_TAIL_MAX)
      take = true, keep = o->tail_len;
  }
  uint8_t *copy = take && c->bytes - o->tail_len + len + keep <= HUDI_OBJCACHE_BYTES ? hudi_malloc(len + keep) : NULL;
  if (copy) {
    memcpy(copy, data, len);
    if (keep) memcpy(copy + len, o->tail, keep);
    c->bytes = c->bytes - o->tail_len + len + keep;
    hudi_free(o->tail);
    o->tail = copy;
    o->tail_len = len + keep;
  }
  pthread_mutex_unlock(&c->lock);
}

bool hudi_objcache_wants_whole(hudi_objcache *c, const char *path, uint64_t *size) {
  pthread_mutex_lock(&c->lock);
  cached_object *o = find_object(c, path);
  bool want = o && !o->data && o->has_size && o->size <= HUDI_OBJCACHE_WHOLE_MAX;
  if (want) *size = o->size;
  pthread_mutex_unlock(&c->lock);
  return want;
}

bool hudi_objcache_get_stat(hudi_objcache *c, const char *path, hudi_file_stat *out) {
  pthread_mutex_lock(&c->lock);
  cached_object *o = find_object(c, path);
  bool hit = o && o->has_stat;
  if (hit) {
    *out = o->stat;
    c->stats.stat_hits++;
  }
  pthread_mutex_unlock(&c->lock);
  return hit;
}

/* A free slot, emptying the oldest ones until need more bytes fit. */
static cached_object *make_room(hudi_objcache *c, size_t need) {
  for (;;) {
    cached_object *free_slot = NULL, *oldest = NULL;
    for (size_t i = 0; i < MAX_OBJECTS; i++) {
      cached_object *o = &c->objects[i];
      if (!o->path) {
        if (!free_slot) free_slot = o;
      } else if (!oldest || o->stamp < oldest->stamp) {
        oldest = o;
      }
    }
    if (free_slot && c->bytes + need <= HUDI_OBJCACHE_BYTES) return free_slot;
    if (!oldest) return NULL;
    drop_object(c, oldest);
  }
}

/* The entry for path (made if need be, with need bytes of room), or NULL;
 * takes *path_copy when it makes one. Called locked. */
static cached_object *entry_for(hudi_objcache *c, const char *path, char **path_copy, size_t need) {
  cached_object *o = find_object(c, path);
  if (o) {
    if (o->data || c->bytes + need <= HUDI_OBJCACHE_BYTES) return o;
    drop_object(c, o);
  }
  o = make_room(c, need);
  if (!o) return NULL;
  o->path = *path_copy;
  *path_copy = NULL;
  o->stamp = ++c->clock;
  return o;
}

void hudi_objcache_put_object(hudi_objcache *c, uint64_t gen, const char *path, const void *data, size_t len) {
  if (len > HUDI_OBJCACHE_OBJECT_MAX || !hudi_objcache_immutable_name(path)) return;
  char *p = hudi_strdup(path);
  uint8_t *copy = hudi_malloc(len ? len : 1);
  if (p && copy) {
    if (len) memcpy(copy, data, len);
    pthread_mutex_lock(&c->lock);
    cached_object *o = gen == c->gen ? entry_for(c, path, &p, len) : NULL;
    if (o && !o->data) {
      o->data = copy;
      o->len = len;
      c->bytes += len - o->tail_len; /* the whole object replaces its tail */
      hudi_free(o->tail);
      o->tail = NULL;
      o->tail_len = 0;
      copy = NULL;
    }
    pthread_mutex_unlock(&c->lock);
  }
  hudi_free(p);
  hudi_free(copy);
}

void hudi_objcache_put_stat(hudi_objcache *c, uint64_t gen, const char *path, const hudi_file_stat *st) {
  if (st->is_dir || !hudi_objcache_immutable_name(path)) return;
  char *p = hudi_strdup(path);
  if (!p) return;
  pthread_mutex_lock(&c->lock);
  cached_object *o = gen == c->gen ? entry_for(c, path, &p, 0) : NULL;
  if (o) {
    o->stat = *st;
    o->has_stat = o->has_size = true;
    o->size = st->size;
  }
  pthread_mutex_unlock(&c->lock);
  hudi_free(p);
}

void hudi_objcache_put_listed(hudi_objcache *c, uint64_t gen, const char *path, uint64_t size, int64_t mtime_ms) {
  if (!hudi_objcache_immutable_name(path)) return;
  char *p = hudi_strdup(path);
  if (!p) return;
  pthread_mutex_lock(&c->lock);
  cached_object *o = gen == c->gen ? entry_for(c, path, &p, 0) : NULL;
  if (o && !o->has_stat) {
    o->stat = (hudi_file_stat){size, mtime_ms, false};
    o->has_stat = o->has_size = true;
    o->size = size;
  }
  pthread_mutex_unlock(&c->lock);
  hudi_free(p);
}

static char **find_claim(hudi_objcache *c, const char *path) {
  for (size_t i = 0; i < MAX_CLAIMS; i++)
    if (c->claims[i] && strcmp(c->claims[i], path) == 0) return &c->claims[i];
  return NULL;
}

bool hudi_objcache_claim(hudi_objcache *c, const char *path) {
  if (!hudi_objcache_immutable_name(path)) return true;
  char *copy = hudi_strdup(path);
  bool mine = true;
  pthread_mutex_lock(&c->lock);
  if (find_claim(c, path)) {
    while (find_claim(c, path)) pthread_cond_wait(&c->claimed_cv, &c->lock);
    mine = false;
  } else if (copy) {
    for (size_t i = 0; i < MAX_CLAIMS; i++)
      if (!c->claims[i]) {
        c->claims[i] = copy; /* no free slot, or no memory: fetch unclaimed */
        copy = NULL;
        break;
      }
  }
  pthread_mutex_unlock(&c->lock);
  hudi_free(copy);
  return mine;
}

void hudi_objcache_unclaim(hudi_objcache *c, const char *path) {
  pthread_mutex_lock(&c->lock);
  char **slot = find_claim(c, path);
  if (slot) {
    hudi_free(*slot);
    *slot = NULL;
    pthread_cond_broadcast(&c->claimed_cv);
  }
  pthread_mutex_unlock(&c->lock);
}

void hudi_objcache_forget_objects(hudi_objcache *c) {
  pthread_mutex_lock(&c->lock);
  c->gen++;
  for (size_t i = 0; i < MAX_OBJECTS; i++)
    if (c->objects[i].path) drop_object(c, &c->objects[i]);
  pthread_mutex_unlock(&c->lock);
}

hudi_status hudi_objcache_hold(hudi_objcache *c, const char *const *dirs, size_t n_dirs, hudi_error *err) {
  if (n_dirs > HUDI_OBJCACHE_HELD_DIRS)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "at most %d held listings", HUDI_OBJCACHE_HELD_DIRS);
  hudi_status st = HUDI_OK;
  pthread_mutex_lock(&c->lock);
  if (c->holds++ == 0) {
    /* A nested hold keeps the outer one's directories. */
    for (size_t i = 0; i < n_dirs && st == HUDI_OK; i++) {
      c->dirs[i].dir = hudi_strdup(dirs[i]);
      if (!c->dirs[i].dir) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      c->n_dirs = i + 1;
    }
    if (st != HUDI_OK) {
      drop_dirs(c);
      c->holds = 0;
    }
  }
  pthread_mutex_unlock(&c->lock);
  return st;
}

void hudi_objcache_release(hudi_objcache *c) {
  pthread_mutex_lock(&c->lock);
  if (c->holds > 0 && --c->holds == 0) drop_dirs(c);
  pthread_mutex_unlock(&c->lock);
}

static held_dir *find_dir(hudi_objcache *c, const char *dir) {
  for (size_t i = 0; i < c->n_dirs; i++)
    if (strcmp(c->dirs[i].dir, dir) == 0) return &c->dirs[i];
  return NULL;
}

static hudi_status copy_list(hudi_file_list *dst, const hudi_file_list *src) {
  for (size_t i = 0; i < src->count; i++) {
    const hudi_file_info *f = &src->items[i];
    hudi_status st = hudi_file_list_push(dst, f->path, strlen(f->path), f->size, f->mtime_ms, f->is_dir, NULL);
    if (st != HUDI_OK) {
      hudi_file_list_free(dst);
      return st;
    }
  }
  return HUDI_OK;
}

bool hudi_objcache_get_list(hudi_objcache *c, const char *dir, unsigned flags, hudi_file_list *out) {
  if (flags != 0) return false;
  pthread_mutex_lock(&c->lock);
  held_dir *h = c->holds ? find_dir(c, dir) : NULL;
  bool hit = h && h->valid && copy_list(out, &h->list) == HUDI_OK;
  if (h) {
    if (hit) c->stats.list_hits++;
    else c->stats.list_misses++;
  }
  pthread_mutex_unlock(&c->lock);
  return hit;
}

void hudi_objcache_put_list(hudi_objcache *c, uint64_t gen, const char *dir, unsigned flags,
                            const hudi_file_list *list) {
  if (flags != 0 || list->count > HUDI_OBJCACHE_LIST_MAX) return;
  pthread_mutex_lock(&c->lock);
  held_dir *h = c->holds && gen == c->gen ? find_dir(c, dir) : NULL;
  if (h) {
    hudi_file_list_free(&h->list);
    h->valid = copy_list(&h->list, list) == HUDI_OK;
  }
  pthread_mutex_unlock(&c->lock);
}

/* Whether a is b, or one of them lies under the other ("" is the base,
 * above everything). */
static bool related(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la == 0 || lb == 0) return true;
  const char *s = la <= lb ? a : b, *l = la <= lb ? b : a;
  size_t ls = la <= lb ? la : lb;
  return strncmp(s, l, ls) == 0 && (l[ls] == '\0' || l[ls] == '/');
}

void hudi_objcache_invalidate(hudi_objcache *c, const char *path) {
  pthread_mutex_lock(&c->lock);
  c->gen++;
  for (size_t i = 0; i < MAX_OBJECTS; i++)
    if (c->objects[i].path && related(c->objects[i].path, path)) drop_object(c, &c->objects[i]);
  for (size_t i = 0; i < c->n_dirs; i++)
    if (c->dirs[i].valid && related(c->dirs[i].dir, path)) {
      hudi_file_list_free(&c->dirs[i].list);
      c->dirs[i].valid = false;
    }
  pthread_mutex_unlock(&c->lock);
}

void hudi_objcache_get_stats(hudi_objcache *c, hudi_objcache_stats *out) {
  pthread_mutex_lock(&c->lock);
  *out = c->stats;
  pthread_mutex_unlock(&c->lock);
}
