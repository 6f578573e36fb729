/* Building the file-system view from a storage listing. */
#include "table/fsview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "table/compaction_plan.h"

#define FSVIEW_MAX_FILES 100000000

/* One data file found by the listing, before grouping. */
typedef struct entry {
  const hudi_file_info *info;
  const char *partition; /* points into part_buf of the entry's own copy */
  size_t partition_len;
  const char *name;
  int is_log;
  hudi_base_file_name base;
  /* Log files: point into the entry's log_ids slot (stable while sorting,
   * unlike the inline base name's arrays). */
  const char *log_file_id, *log_instant;
} entry;

static const char *entry_file_id(const entry *e) { return e->is_log ? e->log_file_id : e->base.file_id; }
static const char *entry_instant(const entry *e) { return e->is_log ? e->log_instant : e->base.instant; }

/* Completed instants as of the view's time: requested -> completion. */
typedef struct completed_view {
  const hudi_timeline *tl;
  const char *as_of;
  const char *first_active; /* hudi_timeline_start of the timeline, or NULL */
} completed_view;

static bool is_savepoint(const hudi_instant *in) {
  return !strcmp(in->action, "savepoint") || !strcmp(in->requested_action, "savepoint");
}

/* The instant that wrote files at `instant`: a savepoint shares its
 * commit's requested time (and completes later), so it is passed over --
 * its completion time would move the commit's log files into a later
 * slice, where the cleaner deleted the files the savepoint keeps. */
static const hudi_instant *lookup(const completed_view *cv, const char *instant) {
  /* The timeline is sorted by requested time: binary search for the first. */
  size_t lo = 0, hi = cv->tl->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(cv->tl->items[mid].requested_time, instant) < 0) lo = mid + 1;
    else hi = mid;
  }
  const hudi_instant *sp = NULL;
  for (size_t i = lo; i < cv->tl->count && !strcmp(cv->tl->items[i].requested_time, instant); i++) {
    if (!is_savepoint(&cv->tl->items[i])) return &cv->tl->items[i];
    sp = &cv->tl->items[i];
  }
  return sp;
}

/* Whether a file written by instant is visible, and the instant's completion
 * time (its requested time when the layout records none, or archived). */
static int is_visible(const completed_view *cv, const char *instant, const char **completion) {
  if (cv->as_of && strcmp(instant, cv->as_of) > 0) return 0;
  const hudi_instant *in = lookup(cv, instant);
  if (in) {
    if (in->state != HUDI_INSTANT_COMPLETED) return 0;
    *completion = in->completion_time[0] ? in->completion_time : in->requested_time;
    return 1;
  }
  /* Not on the active timeline: archived (completed) when older than its
   * first write, otherwise a leftover of a write that was rolled back. */
  if (cv->first_active && strcmp(instant, cv->first_active) < 0) {
    /* Its completion time from the archived timeline when loaded. */
    const hudi_instant *a = hudi_timeline_find_archived(cv->tl, instant);
    *completion = a && a->completion_time[0] ? a->completion_time : instant;
    return 1;
  }
  return 0;
}

static int cmp_entry(const void *a, const void *b) {
  const entry *x = a, *y = b;
  size_t n = x->partition_len < y->partition_len ? x->partition_len : y->partition_len;
  int c = memcmp(x->partition, y->partition, n);
  if (c) return c;
  if (x->partition_len != y->partition_len) return x->partition_len < y->partition_len ? -1 : 1;
  c = strcmp(entry_file_id(x), entry_file_id(y));
  if (c) return c;
  /* Base files first (slices exist before logs attach), by instant. */
  if (x->is_log != y->is_log) return x->is_log - y->is_log;
  c = strcmp(entry_instant(x), entry_instant(y));
  return c ? c : strcmp(x->name, y->name);
}

static void slice_clear(hudi_file_slice *sl) {
  if (sl->base) {
    hudi_free(sl->base->path);
    hudi_free(sl->base);
  }
  for (size_t l = 0; l < sl->n_logs; l++) {
    hudi_free(sl->logs[l].path);
    hudi_free(sl->logs[l].file_name);
    hudi_log_file_name_free(&sl->logs[l].name);
  }
  hudi_free(sl->logs);
}

void hudi_fsview_free(hudi_fsview *v) {
  for (size_t g = 0; g < v->n_groups; g++) {
    hudi_file_group *fg = &v->groups[g];
    for (size_t s = 0; s < fg->n_slices; s++) slice_clear(&fg->slices[s]);
    if (fg->merged) {
      slice_clear(fg->merged);
      hudi_free(fg->merged);
    }
    hudi_free(fg->slices);
    hudi_free(fg->partition);
    hudi_free(fg->file_id);
  }
  hudi_free(v->groups);
  memset(v, 0, sizeof *v);
}

const hudi_file_slice *hudi_file_group_latest_slice(const hudi_file_group *g) {
  if (g->merged) return g->merged;
  return g->n_slices ? &g->slices[g->n_slices - 1] : NULL;
}

const hudi_file_slice *hudi_file_group_slice_at(const hudi_file_group *g, const char *base_instant) {
  for (size_t i = 0; i < g->n_slices; i++)
    if (strcmp(g->slices[i].base_instant, base_instant) == 0) return &g->slices[i];
  return NULL;
}

static hudi_status grow(void **items, size_t *cap, size_t n, size_t size, hudi_error *err) {
  if (n < *cap) return HUDI_OK;
  size_t c = *cap ? *cap * 2 : 4;
  void *p = hudi_realloc(*items, hudi_mul_size(c, size));
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory building the file-system view");
  *items = p;
  *cap = c;
  return HUDI_OK;
}

static hudi_status add_group(hudi_fsview *v, const entry *e, hudi_file_group **out, hudi_error *err) {
  HUDI_TRY(grow((void **)&v->groups, &v->cap_groups, v->n_groups, sizeof *v->groups, err));
  hudi_file_group *g = &v->groups[v->n_groups];
  memset(g, 0, sizeof *g);
  g->partition = hudi_strndup(e->partition, e->partition_len);
  g->file_id = hudi_strdup(entry_file_id(e));
  v->n_groups++;
  if (!g->partition || !g->file_id) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  *out = g;
  return HUDI_OK;
}

/* Slices stay sorted by base instant: bases arrive in instant order, and a
 * log-only slice is inserted where it belongs. */
static hudi_status add_slice(hudi_file_group *g, const char *base_instant, hudi_file_slice **out,
                             hudi_error *err) {
  HUDI_TRY(grow((void **)&g->slices, &g->cap_slices, g->n_slices, sizeof *g->slices, err));
  size_t at = g->n_slices;
  while (at > 0 && strcmp(g->slices[at - 1].base_instant, base_instant) > 0) at--;
  memmove(&g->slices[at + 1], &g->slices[at], (g->n_slices - at) * sizeof *g->slices);
  hudi_file_slice *s = &g->slices[at];
  memset(s, 0, sizeof *s);
  snprintf(s->base_instant, sizeof s->base_instant, "%s", base_instant);
  g->n_slices++;
  *out = s;
  return HUDI_OK;
}

static hudi_status add_base(hudi_file_group *g, const entry *e, hudi_error *err) {
  hudi_file_slice *s;
  HUDI_TRY(add_slice(g, e->base.instant, &s, err));
  s->base = hudi_calloc(1, sizeof *s->base);
  if (!s->base) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  s->base->name = e->base;
  s->base->size = e->info->size;
  s->base->path = hudi_strdup(e->info->path);
  return s->base->path ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
}

/* The slice a log joins: the greatest base instant <= key, else a new
 * log-only slice keyed by the log's own instant. */
static hudi_status slice_for_log(hudi_file_group *g, const char *key, const char *own_instant,
                                 hudi_file_slice **out, hudi_error *err) {
  for (size_t i = g->n_slices; i > 0; i--) {
    if (strcmp(g->slices[i - 1].base_instant, key) <= 0) {
      *out = &g->slices[i - 1];
      return HUDI_OK;
    }
  }
  return add_slice(g, own_instant, out, err);
}

static int cmp_log(const void *a, const void *b) {
  /* HoodieLogFile's comparator: instant, then version, then write token. */
  const hudi_fs_log_file *x = a, *y = b;
  int c = strcmp(x->name.instant, y->name.instant);
  if (c) return c;
  if (x->name.version != y->name.version) return x->name.version < y->name.version ? -1 : 1;
  return strcmp(x->name.write_token, y->name.write_token);
}

static hudi_status add_log(hudi_file_group *g, const entry *e, const char *completion, int version,
                           hudi_error *err) {
  hudi_file_slice *s;
  /* v8+: by the delta commit's completion time; v6: the name's instant is
   * the slice's base instant. */
  HUDI_TRY(slice_for_log(g, version >= 8 ? completion : e->log_instant, e->log_instant, &s, err));
  HUDI_TRY(grow((void **)&s->logs, &s->cap_logs, s->n_logs, sizeof *s->logs, err));
  hudi_fs_log_file *l = &s->logs[s->n_logs];
  memset(l, 0, sizeof *l);
  hudi_status st = hudi_log_file_name_parse(&l->name, e->name, strlen(e->name), err);
  if (st != HUDI_OK) return st;
  s->n_logs++;
  l->size = e->info->size;
  if (version >= 8) snprintf(l->completion_time, sizeof l->completion_time, "%s", completion);
  l->path = hudi_strdup(e->info->path);
  l->file_name = hudi_strdup(e->name);
  if (!l->path || !l->file_name) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  qsort(s->logs, s->n_logs, sizeof *s->logs, cmp_log);
  return HUDI_OK;
}

/* Classifies one listed file; 0 when it is not a data file. */
static int classify(entry *e, const hudi_file_info *info, char *id_buf, size_t id_cap,
                    char *instant_buf, size_t instant_cap) {
  const char *path = info->path;
  if (strncmp(path, ".hoodie/", 8) == 0 || strcmp(path, ".hoodie") == 0) return 0;
  const char *slash = strrchr(path, '/');
  e->info = info;
  e->name = slash ? slash + 1 : path;
  e->partition = path;
  e->partition_len = slash ? (size_t)(slash - path) : 0;
  if (hudi_base_file_name_parse(&e->base, e->name)) {
    e->is_log = 0;
    return 1;
  }
  hudi_log_file_name ln = HUDI_LOG_FILE_NAME_INIT;
  if (!hudi_log_file_name_matches(e->name, strlen(e->name)) ||
      hudi_log_file_name_parse(&ln, e->name, strlen(e->name), NULL) != HUDI_OK)
    return 0;
  int ok = strcmp(ln.extension, "log") == 0 && ln.suffix[0] == '\0' && strlen(ln.file_id) < id_cap &&
           strlen(ln.instant) < instant_cap;
  if (ok) {
    strcpy(id_buf, ln.file_id);
    strcpy(instant_buf, ln.instant);
    e->is_log = 1;
    e->log_file_id = id_buf;
    e->log_instant = instant_buf;
  }
  hudi_log_file_name_free(&ln);
  return ok;
}

/* ---- pending compactions ------------------------------------------------ */

#define PENDING_PLAN_MAX ((size_t)256 << 20)

void hudi_pending_compactions_free(hudi_pending_compactions *p) {
  for (size_t i = 0; i < p->n; i++) {
    hudi_free(p->ops[i].partition);
    hudi_free(p->ops[i].file_id);
  }
  hudi_free(p->ops);
  memset(p, 0, sizeof *p);
}

static int cmp_op(const void *a, const void *b) {
  const hudi_pending_compaction_op *x = a, *y = b;
  int c = strcmp(x->partition, y->partition);
  return c ? c : strcmp(x->file_id, y->file_id);
}

static hudi_status add_plan_ops(hudi_pending_compactions *out, const hudi_compaction_plan *plan, const char *instant,
                                const char *where, hudi_error *err) {
  const hudi_compaction_operation *ops = plan->operations.items;
  for (size_t i = 0; i < plan->operations.n; i++) {
    if (!ops[i].file_id)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: operation %zu has no fileId", where, i);
    HUDI_TRY(grow((void **)&out->ops, &out->cap, out->n, sizeof *out->ops, err));
    hudi_pending_compaction_op *o = &out->ops[out->n];
    memset(o, 0, sizeof *o);
    o->partition = hudi_strdup(ops[i].partition_path ? ops[i].partition_path : "");
    o->file_id = hudi_strdup(ops[i].file_id);
    snprintf(o->instant, sizeof o->instant, "%s", instant);
    out->n++;
    if (!o->partition || !o->file_id) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  return HUDI_OK;
}

hudi_status hudi_pending_compactions_load(hudi_pending_compactions *out, hudi_storage *s,
                                          const hudi_timeline *timeline, const char *as_of, hudi_error *err) {
  memset(out, 0, sizeof *out);
  hudi_buf data;
  hudi_buf_init(&data, PENDING_PLAN_MAX);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < timeline->count; i++) {
    const hudi_instant *in = &timeline->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED || strcmp(in->requested_action, "compaction") != 0) continue;
    if (as_of && *as_of && strcmp(in->requested_time, as_of) > 0) continue;
    char name[128], path[256];
    if (hudi_instant_file_name(name, sizeof name, in->requested_time, "", "compaction", HUDI_INSTANT_REQUESTED,
                               timeline->layout) < 0) {
      st = hudi_err_set(err, HUDI_ERR_INTERNAL, "compaction plan file name of %s", in->requested_time);
      break;
    }
    snprintf(path, sizeof path, "%s/%s", timeline->dir, name);
    hudi_buf_reset(&data);
    st = hudi_storage_read_all(s, path, PENDING_PLAN_MAX, &data, err);
    hudi_compaction_plan *plan = NULL;
    if (st == HUDI_OK && data.len == 0) continue; /* Java treats an empty plan as no operations */
    if (st == HUDI_OK) st = hudi_compaction_plan_parse(&plan, data.data, data.len, path, err);
    if (st == HUDI_OK) st = add_plan_ops(out, plan, in->requested_time, path, err);
    hudi_compaction_plan_free(plan);
    if (st != HUDI_OK) hudi_err_context(err, st, "pending compaction %s", in->requested_time);
  }
  hudi_buf_free(&data);
  if (st == HUDI_OK && out->n) qsort(out->ops, out->n, sizeof *out->ops, cmp_op);
  if (st != HUDI_OK) hudi_pending_compactions_free(out);
  return st;
}

const char *hudi_pending_compactions_find(const hudi_pending_compactions *p, const char *partition, size_t plen,
                                          const char *file_id) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    const hudi_pending_compaction_op *o = &p->ops[mid];
    size_t ol = strlen(o->partition);
    size_t n = ol < plen ? ol : plen;
    int c = memcmp(o->partition, partition, n);
    if (!c && ol != plen) c = ol < plen ? -1 : 1;
    if (!c) c = strcmp(o->file_id, file_id);
    if (c == 0) return o->instant;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return NULL;
}

static hudi_status copy_log(hudi_fs_log_file *dst, const hudi_fs_log_file *src, hudi_error *err) {
  memset(dst, 0, sizeof *dst);
  dst->size = src->size;
  memcpy(dst->completion_time, src->completion_time, sizeof dst->completion_time);
  dst->path = hudi_strdup(src->path);
  dst->file_name = hudi_strdup(src->file_name);
  if (!dst->path || !dst->file_name) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  return hudi_log_file_name_parse(&dst->name, dst->file_name, strlen(dst->file_name), err);
}

/* The merged slice of a group whose latest slice is the pending
 * compaction's: the previous slice, then the pending slice's logs. */
static hudi_status merge_pending(hudi_file_group *g, hudi_error *err) {
  if (g->n_slices < 2 || strcmp(g->slices[g->n_slices - 1].base_instant, g->pending_compaction) != 0)
    return HUDI_OK;
  const hudi_file_slice *prev = &g->slices[g->n_slices - 2], *cur = &g->slices[g->n_slices - 1];
  hudi_file_slice *m = hudi_calloc(1, sizeof *m);
  if (!m) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  g->merged = m;
  memcpy(m->base_instant, prev->base_instant, sizeof m->base_instant);
  if (prev->base) {
    if (!(m->base = hudi_calloc(1, sizeof *m->base))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    m->base->name = prev->base->name;
    m->base->size = prev->base->size;
    if (!(m->base->path = hudi_strdup(prev->base->path))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  size_t n = prev->n_logs + cur->n_logs;
  m->logs = hudi_calloc(n + 1, sizeof *m->logs);
  if (!m->logs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  m->cap_logs = n + 1;
  /* Counted before the copy so a half-made copy is freed with the view. */
  for (size_t i = 0; i < n; i++) {
    m->n_logs++;
    HUDI_TRY(copy_log(&m->logs[i], i < prev->n_logs ? &prev->logs[i] : &cur->logs[i - prev->n_logs], err));
  }
  return HUDI_OK;
}

typedef struct log_ids {
  char file_id[HUDI_FILE_ID_MAX];
  char instant[HUDI_INSTANT_TIME_MAX];
} log_ids;

/* A version-6 log named by its group's pending compaction (written after
 * the compaction was requested, into the compaction's slice): visible, as
 * Java's view counts pending compactions among committed instants
 * (filterCompletedAndCompactionInstants); its blocks are filtered by
 * their own instants. A base file of a pending compaction stays hidden. */
static bool under_pending(const entry *e, const hudi_pending_compactions *pending, const char **completion) {
  if (!e->is_log) return false;
  const char *c = hudi_pending_compactions_find(pending, e->partition, e->partition_len, entry_file_id(e));
  if (!c || strcmp(c, entry_instant(e)) != 0) return false;
  *completion = c;
  return true;
}

static hudi_status build_groups(hudi_fsview *out, entry *entries, size_t n, const completed_view *cv,
                                const hudi_pending_compactions *pending, int version, hudi_error *err) {
  hudi_file_group *g = NULL;
  for (size_t i = 0; i < n; i++) {
    const entry *e = &entries[i];
    const char *completion;
    if (!is_visible(cv, entry_instant(e), &completion) && !under_pending(e, pending, &completion)) continue;
    if (!g || strlen(g->partition) != e->partition_len ||
        memcmp(g->partition, e->partition, e->partition_len) != 0 || strcmp(g->file_id, entry_file_id(e)) != 0) {
      HUDI_TRY(add_group(out, e, &g, err));
      /* The pending compaction's slice exists before any log attaches. */
      const char *c = hudi_pending_compactions_find(pending, e->partition, e->partition_len, entry_file_id(e));
      hudi_file_slice *ps;
      if (c) {
        snprintf(g->pending_compaction, sizeof g->pending_compaction, "%s", c);
        HUDI_TRY(add_slice(g, c, &ps, err));
      }
    }
    if (e->is_log)
      HUDI_TRY(add_log(g, e, completion, version, err));
    else
      HUDI_TRY(add_base(g, e, err));
  }
  for (size_t k = 0; k < out->n_groups; k++)
    if (out->groups[k].pending_compaction[0]) HUDI_TRY(merge_pending(&out->groups[k], err));
  return HUDI_OK;
}

hudi_status hudi_fsview_build_from_listing(hudi_fsview *out, hudi_storage *s, const hudi_timeline *timeline,
                                           const hudi_fsview_options *opts, hudi_error *err) {
  memset(out, 0, sizeof *out);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, "", HUDI_LIST_RECURSIVE, &list, err));
  hudi_status st = hudi_fsview_build_from_files(out, s, timeline, &list, opts, err);
  hudi_file_list_free(&list);
  return st;
}

hudi_status hudi_fsview_build_from_files(hudi_fsview *out, hudi_storage *s, const hudi_timeline *timeline,
                                         const hudi_file_list *files, const hudi_fsview_options *opts,
                                         hudi_error *err) {
  memset(out, 0, sizeof *out);
  const hudi_file_list list = *files;
  if (list.count > FSVIEW_MAX_FILES) return hudi_err_set(err, HUDI_ERR_LIMIT, "the table holds %zu files", list.count);
  entry *entries = hudi_calloc(list.count ? list.count : 1, sizeof *entries);
  log_ids *ids = hudi_calloc(list.count ? list.count : 1, sizeof *ids);
  hudi_status st = HUDI_OK;
  if (!entries || !ids) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory listing the table");
  size_t n = 0;
  for (size_t i = 0; st == HUDI_OK && i < list.count; i++)
    if (classify(&entries[n], &list.items[i], ids[n].file_id, sizeof ids[n].file_id, ids[n].instant,
                 sizeof ids[n].instant))
      n++;
  hudi_pending_compactions pending;
  memset(&pending, 0, sizeof pending);
  const char *as_of = opts && opts->as_of && *opts->as_of ? opts->as_of : NULL;
  if (st == HUDI_OK) st = hudi_pending_compactions_load(&pending, s, timeline, opts && opts->all_pending ? NULL : as_of, err);
  if (st == HUDI_OK) {
    qsort(entries, n, sizeof *entries, cmp_entry);
    completed_view cv = {timeline, as_of, hudi_timeline_start(timeline)};
    st = build_groups(out, entries, n, &cv, &pending, opts ? opts->table_version : 8, err);
  }
  hudi_pending_compactions_free(&pending);
  hudi_free(entries);
  hudi_free(ids);
  if (st != HUDI_OK) hudi_fsview_free(out);
  return st;
}
