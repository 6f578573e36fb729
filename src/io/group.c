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

/* ---- the sync ------------------------------------------------------- */

/* fsyncs in flight at once at most. Each waits on the device (its cache
 * flush), not on a core, and the block layer merges flushes in flight
 * together, so a group's files are synced side by side: a 4M-chunk
 * rag-chunks delete (~50 log files) took 0.046 s wall instead of 0.066
 * (docs/benchmarks.md, "Fifth session of 2026-12-03"). */
#define SYNC_THREADS 8

/* Paths [0, n) of one stage of a sync, synced by up to SYNC_THREADS
 * threads; the first failure is kept in err and stops the others taking
 * more. */
typedef struct sync_stage {
  hudi_storage *s;
  char *const *paths;
  size_t n;
  pthread_mutex_t lock; /* next, failed, err */
  size_t next;
  bool failed;
  hudi_error err;
} sync_stage;

static bool take(sync_stage *st, size_t *i) {
  pthread_mutex_lock(&st->lock);
  bool ok = !st->failed && st->next < st->n;
  if (ok) *i = st->next++;
  pthread_mutex_unlock(&st->lock);
  return ok;
}

static void *sync_worker(void *arg) {
  sync_stage *st = arg;
  size_t i;
  while (take(st, &i)) {
    hudi_error e = HUDI_ERROR_INIT;
    if (st->s->vtable->sync(st->s, st->paths[i], &e) == HUDI_OK) continue;
    pthread_mutex_lock(&st->lock);
    if (!st->failed) st->err = e;
    st->failed = true;
    pthread_mutex_unlock(&st->lock);
  }
  return NULL;
}

/* Syncs paths[0, n): on this thread alone when there is one, else on this
 * thread and up to SYNC_THREADS - 1 others (fewer if threads cannot be
 * made: the work is the same, only slower). */
static hudi_status sync_all(hudi_storage *s, char *const *paths, size_t n, hudi_error *err) {
  if (n == 0) return HUDI_OK;
  if (n == 1) return s->vtable->sync(s, paths[0], err);
  sync_stage st = {.s = s, .paths = paths, .n = n};
  if (pthread_mutex_init(&st.lock, NULL) != 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "write group: mutex init failed");
  pthread_t th[SYNC_THREADS - 1];
  size_t started = 0;
  while (started < SYNC_THREADS - 1 && started + 1 < n && pthread_create(&th[started], NULL, sync_worker, &st) == 0)
    started++;
  sync_worker(&st);
  for (size_t k = 0; k < started; k++) pthread_join(th[k], NULL);
  pthread_mutex_destroy(&st.lock);
  if (!st.failed) return HUDI_OK;
  if (err) *err = st.err;
  return st.err.code;
}

/* Path components: 0 for the base (""). */
static size_t depth(const char *p) {
  size_t d = *p ? 1 : 0;
  for (; *p; p++) d += *p == '/';
  return d;
}

static int cmp_deeper_first(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  size_t dx = depth(x), dy = depth(y);
  if (dx != dy) return dx > dy ? -1 : 1;
  return strcmp(x, y);
}

static void free_paths(char **p, size_t n) {
  for (size_t i = 0; i < n; i++) hudi_free(p[i]);
  hudi_free(p);
}

static hudi_status push_dir(char **d, size_t *n, const char *p, size_t len, hudi_error *err) {
  char *dir = hudi_malloc(len + 1);
  if (!dir) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group's sync");
  memcpy(dir, p, len);
  dir[len] = '\0';
  d[(*n)++] = dir;
  return HUDI_OK;
}

/* Every directory holding a pending path and their ancestors up to the
 * base (""), each once, deepest first. */
static hudi_status directories(const hudi_storage_group *g, char ***out, size_t *n_out, hudi_error *err) {
  size_t count = 0;
  for (size_t i = 0; i < g->n; i++) count += depth(g->paths[i]);
  char **d = hudi_malloc(hudi_mul_size(count ? count : 1, sizeof *d));
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory for a write group's sync");
  size_t n = 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < g->n && st == HUDI_OK; i++) {
    const char *p = g->paths[i];
    st = push_dir(d, &n, p, 0, err); /* the base */
    for (const char *c = p; *c && st == HUDI_OK; c++)
      if (*c == '/') st = push_dir(d, &n, p, (size_t)(c - p), err);
  }
  if (st != HUDI_OK) {
    free_paths(d, n);
    return st;
  }
  qsort(d, n, sizeof *d, cmp_deeper_first);
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    if (u > 0 && strcmp(d[u - 1], d[i]) == 0) hudi_free(d[i]);
    else d[u++] = d[i];
  }
  *out = d;
  *n_out = u;
  return HUDI_OK;
}

hudi_status hudi_storage_group_sync(hudi_storage_group *g, hudi_error *err) {
  if (!g || g->n == 0) return HUDI_OK;
  hudi_storage *s = g->s;
  /* Files first, then the directories naming them: a name made durable
   * never points at content that is not. */
  HUDI_TRY(sync_all(s, g->paths, g->n, err));
  char **d = NULL;
  size_t nd = 0;
  HUDI_TRY(directories(g, &d, &nd, err));
  hudi_status st = HUDI_OK;
  /* A depth at a time, deepest first: a directory made earlier in this
   * group is named in its parent, which is synced after it. */
  for (size_t i = 0; i < nd && st == HUDI_OK;) {
    size_t j = i, dep = depth(d[i]);
    while (j < nd && depth(d[j]) == dep) j++;
    st = sync_all(s, d + i, j - i, err);
    i = j;
  }
  free_paths(d, nd);
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
