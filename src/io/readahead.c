/* Sequential read-ahead (see readahead.h). */
#include "io/readahead.h"

#include <pthread.h>
#include <string.h>

#include "base/alloc.h"
#include "io/objstore.h"

/* What is known about one path: where its last read ended and, maybe, a
 * window of its bytes. */
typedef struct ra_slot {
  char *path;     /* NULL: free */
  uint64_t next;  /* where the last read of path ended */
  uint64_t start; /* data holds [start, start + len) */
  uint8_t *data;
  size_t len;
  bool eof;       /* the object ends at start + len */
  bool sized;     /* a window reached the end: the object is `size` bytes */
  uint64_t size;
  uint64_t used;  /* LRU stamp */
} ra_slot;

struct hudi_readahead {
  pthread_mutex_t lock;
  size_t window;
  uint64_t clock;
  uint64_t gen; /* bumped by clear: a fetch begun before it is not cached */
  size_t held;  /* bytes in all slots' data */
  ra_slot slots[HUDI_READAHEAD_SLOTS];
  hudi_readahead_stats stats;
};

hudi_status hudi_readahead_enable(hudi_storage *s, const hudi_storage_option *options, size_t n_options,
                                  hudi_error *err) {
  static const char *const keys[] = {"read_ahead_bytes", NULL};
  uint64_t window;
  s->readahead = NULL;
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, keys, HUDI_READAHEAD_DEFAULT, 0, HUDI_READAHEAD_MAX,
                                     &window, err));
  if (window == 0) return HUDI_OK;
  hudi_readahead *ra = hudi_calloc(1, sizeof *ra);
  if (!ra) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for the read-ahead cache");
  pthread_mutex_init(&ra->lock, NULL);
  ra->window = (size_t)window;
  s->readahead = ra;
  return HUDI_OK;
}

static void drop_data(hudi_readahead *ra, ra_slot *sl) {
  ra->held -= sl->len;
  hudi_free(sl->data);
  sl->data = NULL;
  sl->len = 0;
  sl->eof = false;
}

static void drop_slot(hudi_readahead *ra, ra_slot *sl) {
  drop_data(ra, sl);
  hudi_free(sl->path);
  sl->path = NULL;
  sl->sized = false;
}

void hudi_readahead_free(hudi_readahead *ra) {
  if (!ra) return;
  for (size_t i = 0; i < HUDI_READAHEAD_SLOTS; i++) drop_slot(ra, &ra->slots[i]);
  pthread_mutex_destroy(&ra->lock);
  hudi_free(ra);
}

void hudi_readahead_clear(hudi_readahead *ra) {
  pthread_mutex_lock(&ra->lock);
  ra->gen++;
  for (size_t i = 0; i < HUDI_READAHEAD_SLOTS; i++) drop_slot(ra, &ra->slots[i]);
  pthread_mutex_unlock(&ra->lock);
}

void hudi_readahead_get_stats(hudi_readahead *ra, hudi_readahead_stats *out) {
  pthread_mutex_lock(&ra->lock);
  *out = ra->stats;
  pthread_mutex_unlock(&ra->lock);
}

static ra_slot *find(hudi_readahead *ra, const char *path) {
  for (size_t i = 0; i < HUDI_READAHEAD_SLOTS; i++)
    if (ra->slots[i].path && strcmp(ra->slots[i].path, path) == 0) return &ra->slots[i];
  return NULL;
}

/* The slot for path, taking a free or the least recently used one; NULL
 * when the path cannot be copied (then nothing is remembered). */
static ra_slot *claim(hudi_readahead *ra, const char *path) {
  ra_slot *sl = find(ra, path);
  if (sl) return sl;
  sl = &ra->slots[0];
  for (size_t i = 0; i < HUDI_READAHEAD_SLOTS; i++) {
    ra_slot *c = &ra->slots[i];
    if (!c->path) {
      sl = c;
      break;
    }
    if (c->used < sl->used) sl = c;
  }
  char *copy = hudi_strdup(path);
  if (!copy) return NULL;
  drop_slot(ra, sl);
  sl->path = copy;
  sl->next = 0;
  return sl;
}

/* Frees the least recently used windows until `more` bytes fit under the
 * cap (keeping the slots' positions for sequential detection). */
static void make_room(hudi_readahead *ra, size_t more) {
  size_t cap = ra->window * HUDI_READAHEAD_HELD;
  while (ra->held + more > cap) {
    ra_slot *lru = NULL;
    for (size_t i = 0; i < HUDI_READAHEAD_SLOTS; i++) {
      ra_slot *c = &ra->slots[i];
      if (c->data && (!lru || c->used < lru->used)) lru = c;
    }
    if (!lru) return;
    drop_data(ra, lru);
  }
}

/* Serves [offset, offset + len) from sl's window when it can (under the
 * lock). A window that ends inside the range serves it only when the object
 * ends there too (a short read, as the backend would give). */
static bool serve(hudi_readahead *ra, ra_slot *sl, uint64_t offset, void *dst, size_t len, size_t *n_read) {
  if (sl && sl->sized && offset >= sl->size) { /* at or past the end: nothing, as the backend says */
    *n_read = 0;
    sl->next = offset;
    sl->used = ++ra->clock;
    ra->stats.hits++;
    return true;
  }
  if (!sl || !sl->data || offset < sl->start || offset - sl->start > sl->len) return false;
  size_t at = (size_t)(offset - sl->start), avail = sl->len - at;
  if (avail < len && !sl->eof) return false;
  size_t n = avail < len ? avail : len;
  memcpy(dst, sl->data + at, n);
  *n_read = n;
  sl->next = offset + n;
  sl->used = ++ra->clock;
  ra->stats.hits++;
  if (at + n == sl->len) drop_data(ra, sl); /* read to its end: not needed again */
  return true;
}

hudi_status hudi_readahead_read(hudi_readahead *ra, hudi_storage *s, const char *path, uint64_t offset,
                                void *dst, size_t len, size_t *n_read, hudi_error *err) {
  *n_read = 0;
  pthread_mutex_lock(&ra->lock);
  ra->stats.reads++;
  ra_slot *sl = find(ra, path);
  if (serve(ra, sl, offset, dst, len, n_read)) {
    pthread_mutex_unlock(&ra->lock);
    return HUDI_OK;
  }
  bool sequential = sl && sl->next == offset && len < ra->window;
  uint64_t gen = ra->gen;
  pthread_mutex_unlock(&ra->lock);

  /* Never past what an offset can address (storage.c bounded offset + len). */
  size_t fetch = len;
  if (sequential && offset <= (uint64_t)INT64_MAX - ra->window) fetch = ra->window;
  uint8_t *win = fetch > len ? hudi_malloc(fetch) : NULL;
  if (!win) fetch = len; /* no memory for a window: read just the range */
  size_t got = 0;
  hudi_status st = s->vtable->read(s, path, offset, win ? (void *)win : dst, fetch, &got, err);
  if (st != HUDI_OK) {
    hudi_free(win);
    return st;
  }
  size_t n = got < len ? got : len;
  if (win) memcpy(dst, win, n);
  *n_read = n;

  pthread_mutex_lock(&ra->lock);
  ra->stats.fetches++;
  ra->stats.bytes_fetched += got;
  if (win) ra->stats.windows++;
  if (ra->gen == gen && (sl = claim(ra, path)) != NULL) {
    sl->next = offset + n;
    sl->used = ++ra->clock;
    if (win && got > n) {
      drop_data(ra, sl);
      make_room(ra, got);
      sl->data = win;
      sl->start = offset;
      sl->len = got;
      sl->eof = got < fetch;
      sl->sized = sl->eof;
      sl->size = offset + got;
      ra->held += got;
      win = NULL;
    }
  }
  pthread_mutex_unlock(&ra->lock);
  hudi_free(win);
  return HUDI_OK;
}
