/* Write groups (storage.h): grouped writes are recorded here and made
 * durable together at the group's sync. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/backend.h"
#include "io/group.h"

struct hudi_storage_group {
  hudi_storage *s;
  pthread_mutex_t lock; /* paths, n, cap, reserved: joined threads write too */
  char **paths;         /* normalised paths written since the last sync */
  size_t n, cap;
  size_t reserved; /* slots taken by writes in progress */
};

/* One open group per thread: the writes that join it are the ones this
 * thread makes, deep in code that need not know a group is open. */
static _Thread_local hudi_storage_group *open_group;

hudi_status hudi_storage_group_begin(hudi_storage *s, hudi_storage_group **out, hudi_error *err) {
  *out = NULL;
  if (open_group)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a write group is open in this thread already");
  hudi_storage_group *g = hudi_calloc(1, sizeof *g);
  if (!g) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group");
  if (pthread_mutex_init(&g->lock, NULL) != 0) {
    hudi_free(g);
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "write group: mutex init failed");
  }
  g->s = s;
  open_group = g;
  *out = g;
  return HUDI_OK;
}

hudi_storage_group *hudi_storage_group_of_(const hudi_storage *s) {
  hudi_storage_group *g = open_group;
  return g && g->s == s && s->vtable->sync ? g : NULL;
}

bool hudi_storage_group_join(hudi_storage_group *g) {
  if (!g || open_group) return false;
  open_group = g;
  return true;
}

void hudi_storage_group_leave(hudi_storage_group *g, bool joined) {
  if (joined && open_group == g) open_group = NULL;
}

hudi_status hudi_storage_group_reserve_(hudi_storage_group *g, hudi_error *err) {
  pthread_mutex_lock(&g->lock);
  hudi_status st = HUDI_OK;
  if (g->n + g->reserved >= g->cap) {
    size_t cap = g->cap ? g->cap * 2 : 32;
    char **p = hudi_realloc(g->paths, hudi_mul_size(cap, sizeof *p));
    if (p) {
      g->paths = p;
      g->cap = cap;
    } else {
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group");
    }
  }
  if (st == HUDI_OK) g->reserved++;
  pthread_mutex_unlock(&g->lock);
  return st;
}

void hudi_storage_group_unreserve_(hudi_storage_group *g) {
  pthread_mutex_lock(&g->lock);
  g->reserved--;
  pthread_mutex_unlock(&g->lock);
}

void hudi_storage_group_add_(hudi_storage_group *g, char *path) {
  pthread_mutex_lock(&g->lock);
  g->reserved--;
  g->paths[g->n++] = path;
  pthread_mutex_unlock(&g->lock);
}

size_t hudi_storage_group_pending(const hudi_storage_group *g) {
  if (!g) return 0;
  pthread_mutex_lock((pthread_mutex_t *)&g->lock);
  size_t n = g->n;
  pthread_mutex_unlock((pthread_mutex_t *)&g->lock);
  return n;
}

/* A directory of a pending path: its first len bytes ("" for the base). */
typedef struct dir_ref {
  const char *p;
  size_t len;
} dir_ref;

static int cmp_dir(const void *a, const void *b) {
  const dir_ref *x = a, *y = b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = n ? memcmp(x->p, y->p, n) : 0;
  if (c) return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

/* Every directory holding a pending path and their ancestors up to the
 * base, each once, sorted. */
static hudi_status directories(const hudi_storage_group *g, dir_ref **out, size_t *n_out, hudi_error *err) {
  size_t count = 0;
  for (size_t i = 0; i < g->n; i++) {
    count++;
    for (const char *c = g->paths[i]; *c; c++) count += *c == '/';
  }
  dir_ref *d = hudi_malloc(hudi_mul_size(count, sizeof *d));
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group's sync");
  size_t n = 0;
  for (size_t i = 0; i < g->n; i++) {
    const char *p = g->paths[i];
    d[n++] = (dir_ref){p, 0};
    for (const char *c = p; *c; c++)
      if (*c == '/') d[n++] = (dir_ref){p, (size_t)(c - p)};
  }
  qsort(d, n, sizeof *d, cmp_dir);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || cmp_dir(&d[u - 1], &d[i]) != 0) d[u++] = d[i];
  *out = d;
  *n_out = u;
  return HUDI_OK;
}

static hudi_status sync_dir(hudi_storage *s, const dir_ref *d, hudi_error *err) {
  char *path = hudi_malloc(d->len + 1);
  if (!path) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group's sync");
  memcpy(path, d->p, d->len);
  path[d->len] = '\0';
  hudi_status st = s->vtable->sync(s, path, err);
  hudi_free(path);
  return st;
}

hudi_status hudi_storage_group_sync(hudi_storage_group *g, hudi_error *err) {
  if (!g || g->n == 0) return HUDI_OK;
  hudi_storage *s = g->s;
  /* Files first, then the directories naming them: a name made durable
   * never points at content that is not. */
  for (size_t i = 0; i < g->n; i++) HUDI_TRY(s->vtable->sync(s, g->paths[i], err));
  dir_ref *d = NULL;
  size_t nd = 0;
  HUDI_TRY(directories(g, &d, &nd, err));
  hudi_status st = HUDI_OK;
  /* Deepest first: a directory made earlier in this group is named in its
   * parent, which is synced after it. */
  for (size_t i = nd; i-- > 0 && st == HUDI_OK;) st = sync_dir(s, &d[i], err);
  hudi_free(d);
  if (st != HUDI_OK) return st;
  for (size_t i = 0; i < g->n; i++) hudi_free(g->paths[i]);
  g->n = 0;
  return HUDI_OK;
}

void hudi_storage_group_end(hudi_storage_group *g) {
  if (!g) return;
  if (open_group == g) open_group = NULL;
  for (size_t i = 0; i < g->n; i++) hudi_free(g->paths[i]);
  hudi_free(g->paths);
  pthread_mutex_destroy(&g->lock);
  hudi_free(g);
}
