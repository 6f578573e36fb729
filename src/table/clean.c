/* Cleaning (clean.h): the plan from the timeline and the file-system view,
 * then the clean instant, the deletes and the metadata table. */
#include "table/clean.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/instant.h"
#include "table/clean_mdt.h"
#include "table/clean_plan.h"
#include "table/fsview.h"
#include "table/mdt_fsview.h"
#include "table/rollback.h"
#include "table/schema_resolve.h"
#include "table/services.h"
#include "table/write.h"
#include "table/write_mdt.h"

#define CLEAN_FILE_MAX ((size_t)256 << 20)
#define CLEAN_MAX_RETAINED 1000000

/* ---- options ------------------------------------------------------------- */

/* hoodie.clean.X, else the older hoodie.cleaner.X (HoodieCleanConfig
 * keeps both names). */
static const char *clean_opt(const hudi_table *t, const hudi_option *o, size_t n, const char *suffix) {
  char key[96];
  snprintf(key, sizeof key, "hoodie.clean.%s", suffix);
  const char *v = hudi_write_option(t, o, n, key);
  if (v && *v) return v;
  snprintf(key, sizeof key, "hoodie.cleaner.%s", suffix);
  v = hudi_write_option(t, o, n, key);
  return v && *v ? v : NULL;
}

static hudi_status count_opt(const hudi_table *t, const hudi_option *o, size_t n, const char *suffix, int dflt,
                             int lo, int *out, hudi_error *err) {
  const char *v = clean_opt(t, o, n, suffix);
  *out = dflt;
  if (!v) return HUDI_OK;
  char key[96];
  snprintf(key, sizeof key, "hoodie.clean.%s", suffix);
  int64_t x;
  HUDI_TRY(hudi_option_parse_int(key, v, lo, CLEAN_MAX_RETAINED, &x, err));
  *out = (int)x;
  return HUDI_OK;
}

hudi_status hudi_clean_config_load(hudi_clean_config *out, const hudi_table *t, const hudi_option *opts, size_t n,
                                   hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *p = clean_opt(t, opts, n, "policy");
  if (!p || !strcasecmp(p, "KEEP_LATEST_COMMITS")) out->policy = HUDI_CLEAN_KEEP_LATEST_COMMITS;
  else if (!strcasecmp(p, "KEEP_LATEST_FILE_VERSIONS")) out->policy = HUDI_CLEAN_KEEP_LATEST_FILE_VERSIONS;
  else if (!strcasecmp(p, "KEEP_LATEST_BY_HOURS")) out->policy = HUDI_CLEAN_KEEP_LATEST_BY_HOURS;
  else
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.clean.policy: '%s' is not a cleaning policy (KEEP_LATEST_COMMITS, "
                        "KEEP_LATEST_FILE_VERSIONS or KEEP_LATEST_BY_HOURS)",
                        p);
  HUDI_TRY(count_opt(t, opts, n, "commits.retained", HUDI_CLEAN_DEFAULT_COMMITS_RETAINED, 1, &out->commits_retained,
                     err));
  HUDI_TRY(count_opt(t, opts, n, "fileversions.retained", HUDI_CLEAN_DEFAULT_VERSIONS_RETAINED, 1,
                     &out->versions_retained, err));
  HUDI_TRY(count_opt(t, opts, n, "hours.retained", HUDI_CLEAN_DEFAULT_HOURS_RETAINED, 0, &out->hours_retained, err));
  const char *a = hudi_write_option(t, opts, n, "hoodie.clean.automatic");
  if (!a || !*a) a = hudi_write_option(t, opts, n, "hoodie.auto.clean");
  if (!a || !*a || !strcasecmp(a, "true")) out->automatic = true;
  else if (!strcasecmp(a, "false")) out->automatic = false;
  else return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.clean.automatic: '%s' is not a boolean", a);
  return HUDI_OK;
}

static const char *policy_name(hudi_clean_policy p) {
  return p == HUDI_CLEAN_KEEP_LATEST_FILE_VERSIONS ? "KEEP_LATEST_FILE_VERSIONS"
         : p == HUDI_CLEAN_KEEP_LATEST_BY_HOURS    ? "KEEP_LATEST_BY_HOURS"
                                                   : "KEEP_LATEST_COMMITS";
}

/* The policies with an earliest commit to retain (ECTR): slices are kept
 * by how they stand to it. */
static bool by_ectr(const hudi_clean_config *c) {
  return c->policy == HUDI_CLEAN_KEEP_LATEST_COMMITS || c->policy == HUDI_CLEAN_KEEP_LATEST_BY_HOURS;
}

/* ---- the timeline -------------------------------------------------------- */

/* Requested as a write Hudi's getCommitsAndCompactionTimeline holds. */
static bool is_write_action(const char *a) {
  return !strcmp(a, "commit") || !strcmp(a, "deltacommit") || !strcmp(a, "replacecommit") ||
         !strcmp(a, "compaction") || !strcmp(a, "clustering") || !strcmp(a, "logcompaction");
}

typedef struct tl_info {
  size_t n_writes;               /* completed writes */
  const hudi_instant *ectr;      /* by_ectr policies: earliest commit to retain, or NULL */
  const hudi_instant *last_write; /* the latest completed write */
  const hudi_instant *last_clean; /* the latest completed clean */
  bool has_replace;
} tl_info;

/* KEEP_LATEST_BY_HOURS: the oldest completed write requested at or after
 * now - hours, formatted in the table's timeline timezone. */
static void ectr_by_hours(tl_info *out, const hudi_table *t, const hudi_clean_config *c) {
  int64_t now = c->now_ms ? c->now_ms : hudi_clock_realtime_ms(NULL);
  /* The zone's wall-clock time written as UTC digits, as the metadata
   * table's cleaner and the generator's instants do. */
  int64_t ms = now - (int64_t)c->hours_retained * 3600000 + (int64_t)hudi_table_timeline_offset_minutes(t) * 60000;
  char cutoff[HUDI_INSTANT_TIME_BUF];
  hudi_error ignored = HUDI_ERROR_INIT;
  /* Out of range only for a clock or hours beyond years 0000-9999. */
  if (hudi_instant_time_format(cutoff, ms, &ignored) != HUDI_OK) {
    hudi_error_clear(&ignored);
    return;
  }
  const hudi_timeline *tl = &t->timeline;
  for (size_t i = 0; i < tl->count; i++)
    if (hudi_instant_is_write(&tl->items[i]) && strcmp(tl->items[i].requested_time, cutoff) >= 0) {
      out->ectr = &tl->items[i];
      return;
    }
}

/* CleanerUtils.getEarliestCommitToRetain over t's timeline. */
static void analyse(tl_info *out, const hudi_table *t, const hudi_clean_config *c) {
  const hudi_timeline *tl = &t->timeline;
  memset(out, 0, sizeof *out);
  const hudi_instant *first_pending = NULL;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (hudi_instant_is_write(in)) {
      out->n_writes++;
      out->last_write = in;
      if (!strcmp(in->action, "replacecommit")) out->has_replace = true;
    } else if (in->state != HUDI_INSTANT_COMPLETED && is_write_action(in->requested_action) && !first_pending) {
      first_pending = in;
    }
    if (in->state == HUDI_INSTANT_COMPLETED && !strcmp(in->action, "clean")) out->last_clean = in;
  }
  if (c->policy == HUDI_CLEAN_KEEP_LATEST_BY_HOURS) {
    ectr_by_hours(out, t, c);
    return;
  }
  if (c->policy != HUDI_CLEAN_KEEP_LATEST_COMMITS || out->n_writes <= (size_t)c->commits_retained) return;
  size_t nth = out->n_writes - (size_t)c->commits_retained, k = 0;
  const hudi_instant *before_pending = NULL;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (!hudi_instant_is_write(in)) continue;
    if (first_pending && strcmp(in->requested_time, first_pending->requested_time) < 0) before_pending = in;
    if (k++ == nth) out->ectr = in;
  }
  /* Never past the oldest pending write: its files may still arrive. */
  if (out->ectr && first_pending && strcmp(out->ectr->requested_time, first_pending->requested_time) > 0)
    out->ectr = before_pending;
}

static hudi_status read_clean_metadata(hudi_clean_metadata **out, hudi_table *t, const hudi_instant *in,
                                       hudi_error *err) {
  char path[200];
  snprintf(path, sizeof path, "%s/%s", t->timeline.dir, in->file_name);
  hudi_buf b;
  hudi_buf_init(&b, CLEAN_FILE_MAX);
  hudi_status st = hudi_storage_read_all(t->storage, path, CLEAN_FILE_MAX, &b, err);
  if (st == HUDI_OK) st = hudi_clean_metadata_parse(out, b.data ? b.data : (const uint8_t *)"", b.len, path, err);
  hudi_buf_free(&b);
  return st;
}

hudi_status hudi_clean_earliest_retained(char out[HUDI_INSTANT_TIME_MAX], hudi_table *t, hudi_error *err) {
  out[0] = '\0';
  const hudi_instant *last = NULL;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && !strcmp(in->action, "clean")) last = in;
  }
  if (!last) return HUDI_OK;
  hudi_clean_metadata *m = NULL;
  HUDI_TRY(read_clean_metadata(&m, t, last, err));
  if (m->earliest_commit_to_retain) snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", m->earliest_commit_to_retain);
  hudi_clean_metadata_free(m);
  return HUDI_OK;
}

hudi_status hudi_clean_check_as_of(hudi_table *t, const char *instant, const char *what, hudi_error *err) {
  if (!instant || !*instant) return HUDI_OK;
  char ectr[HUDI_INSTANT_TIME_MAX];
  HUDI_TRY(hudi_clean_earliest_retained(ectr, t, err));
  if (!ectr[0] || strcmp(instant, ectr) >= 0) return HUDI_OK;
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "%s %s is before %s, the earliest commit retained by the table's latest clean: the files "
                      "of that time were cleaned (read as of %s or later)",
                      what, instant, ectr, ectr);
}

/* ---- the plan ------------------------------------------------------------ */

typedef struct clean_file {
  const char *partition; /* borrowed from the view */
  const char *path;      /* relative to the table */
} clean_file;

typedef struct planner {
  hudi_table *t;
  const hudi_clean_config *c;
  tl_info info;
  hudi_fsview view;
  hudi_hashmap replaced; /* partition \0 file id -> index of the replacecommit in the timeline */
  const hudi_instant **savepoints;
  size_t n_savepoints;
  clean_file *files;
  size_t n_files, cap_files;
} planner;

static hudi_status add_file(planner *p, const char *partition, const char *path, hudi_error *err) {
  if (p->n_files == p->cap_files) {
    size_t cap = p->cap_files ? 2 * p->cap_files : 64;
    clean_file *f = hudi_realloc(p->files, hudi_mul_size(cap, sizeof *f));
    if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory planning the clean");
    p->files = f;
    p->cap_files = cap;
  }
  p->files[p->n_files].partition = partition;
  p->files[p->n_files].path = path;
  p->n_files++;
  return HUDI_OK;
}

static hudi_status add_slice_files(planner *p, const hudi_file_group *g, const hudi_file_slice *s,
                                   hudi_error *err) {
  if (s->base) HUDI_TRY(add_file(p, g->partition, s->base->path, err));
  for (size_t l = 0; l < s->n_logs; l++) HUDI_TRY(add_file(p, g->partition, s->logs[l].path, err));
  return HUDI_OK;
}

static hudi_status group_key(hudi_buf *b, const char *partition, const char *file_id, hudi_error *err) {
  hudi_buf_reset(b);
  HUDI_TRY(hudi_buf_append_str(b, partition ? partition : "", err));
  HUDI_TRY(hudi_buf_append_byte(b, 0, err));
  return hudi_buf_append_str(b, file_id ? file_id : "", err);
}

/* The file groups completed replacecommits replaced, and the completed
 * savepoints. */
static hudi_status load_replaced(planner *p, hudi_error *err) {
  const hudi_timeline *tl = &p->t->timeline;
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = HUDI_OK;
  p->savepoints = hudi_calloc(tl->count + 1, sizeof *p->savepoints);
  if (!p->savepoints) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && !strcmp(in->action, "savepoint")) p->savepoints[p->n_savepoints++] = in;
    if (!hudi_instant_is_write(in) || strcmp(in->action, "replacecommit") != 0) continue;
    hudi_commit_metadata *m = NULL;
    st = hudi_table_instant_metadata(&m, p->t, in, err);
    if (st != HUDI_OK) break;
    const hudi_tl_strs_entry *e = m->partition_to_replace_file_ids.items;
    for (size_t a = 0; st == HUDI_OK && a < m->partition_to_replace_file_ids.n; a++) {
      char **ids = e[a].value.items;
      for (size_t b = 0; st == HUDI_OK && b < e[a].value.n; b++) {
        st = group_key(&key, e[a].key, ids[b], err);
        if (st == HUDI_OK)
          st = hudi_hashmap_put(&p->replaced, key.data, key.len, (hudi_hashmap_value){.u64 = i}, NULL, NULL, err);
      }
    }
    hudi_commit_metadata_free(m);
  }
  hudi_buf_free(&key);
  return st;
}

/* Whether slice i of g is what a savepoint sees (the newest slice at or
 * before the savepoint's instant): its files must stay. replaced_at: the
 * replacecommit that replaced g, or NULL; savepoints at or after it do not
 * see g (Hudi's savepoint lists the file system view, which drops
 * replaced groups), so they keep none of its files. */
static bool savepointed_before(const planner *p, const hudi_file_group *g, size_t i, const char *replaced_at) {
  for (size_t k = 0; k < p->n_savepoints; k++) {
    const char *sp = p->savepoints[k]->requested_time;
    if (replaced_at && strcmp(sp, replaced_at) >= 0) continue;
    if (strcmp(g->slices[i].base_instant, sp) > 0) continue;
    if (i + 1 == g->n_slices || strcmp(g->slices[i + 1].base_instant, sp) > 0) return true;
  }
  return false;
}

static bool savepointed(const planner *p, const hudi_file_group *g, size_t i) {
  return savepointed_before(p, g, i, NULL);
}

/* The slice a pending compaction of g reads: the newest one older than the
 * compaction's own (base-less) slice. SIZE_MAX when none. */
static size_t compaction_input(const hudi_file_group *g) {
  if (!g->pending_compaction[0]) return SIZE_MAX;
  for (size_t i = g->n_slices; i-- > 0;)
    if (strcmp(g->slices[i].base_instant, g->pending_compaction) < 0) return i;
  return SIZE_MAX;
}

static bool is_pending_slice(const hudi_file_group *g, size_t i) {
  return g->pending_compaction[0] && !strcmp(g->slices[i].base_instant, g->pending_compaction);
}

/* A replaced group: deleted whole once its replacecommit is older than
 * ECTR (any time under KEEP_LATEST_FILE_VERSIONS). */
static hudi_status plan_replaced(planner *p, const hudi_file_group *g, const hudi_instant *by, hudi_error *err) {
  if (by_ectr(p->c) &&
      (!p->info.ectr || strcmp(by->requested_time, p->info.ectr->requested_time) >= 0))
    return HUDI_OK;
  for (size_t i = 0; i < g->n_slices; i++)
    if (!savepointed_before(p, g, i, by->requested_time)) HUDI_TRY(add_slice_files(p, g, &g->slices[i], err));
  return HUDI_OK;
}

/* KEEP_LATEST_COMMITS and _BY_HOURS: keep the latest slice and the newest
 * one older than ECTR; delete the other slices older than ECTR. */
static hudi_status plan_commits(planner *p, const hudi_file_group *g, hudi_error *err) {
  const char *ectr = p->info.ectr->requested_time;
  size_t keep_before = SIZE_MAX, needed = compaction_input(g);
  for (size_t i = g->n_slices; i-- > 0;)
    if (strcmp(g->slices[i].base_instant, ectr) < 0) {
      keep_before = i;
      break;
    }
  for (size_t i = 0; i + 1 < g->n_slices; i++) {
    if (i == keep_before || i == needed || is_pending_slice(g, i) || savepointed(p, g, i)) continue;
    if (strcmp(g->slices[i].base_instant, ectr) < 0) HUDI_TRY(add_slice_files(p, g, &g->slices[i], err));
  }
  return HUDI_OK;
}

/* KEEP_LATEST_FILE_VERSIONS: the newest N slices stay (the slice a pending
 * compaction reads counts as one of them). */
static hudi_status plan_versions(planner *p, const hudi_file_group *g, hudi_error *err) {
  size_t needed = compaction_input(g);
  int keep = p->c->versions_retained - (needed != SIZE_MAX ? 1 : 0);
  for (size_t i = g->n_slices; i-- > 0;) {
    if (i == needed) continue;
    if (keep > 0) {
      keep--;
      continue;
    }
    if (is_pending_slice(g, i) || savepointed(p, g, i)) continue;
    HUDI_TRY(add_slice_files(p, g, &g->slices[i], err));
  }
  return HUDI_OK;
}

static hudi_status plan(planner *p, hudi_error *err) {
  analyse(&p->info, p->t, p->c);
  if (by_ectr(p->c) && !p->info.ectr) return HUDI_OK; /* too few commits, or none in the hours window */
  HUDI_TRY(load_replaced(p, err));
  hudi_fsview_options fo = {NULL, p->t->version, false};
  /* The metadata table's view when it can give it: no listing of every
   * partition after every commit. */
  HUDI_TRY(hudi_fsview_build_latest(&p->view, p->t, &fo, NULL, err));
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = HUDI_OK;
  for (size_t g = 0; st == HUDI_OK && g < p->view.n_groups; g++) {
    const hudi_file_group *fg = &p->view.groups[g];
    hudi_hashmap_value by;
    st = group_key(&key, fg->partition, fg->file_id, err);
    if (st != HUDI_OK) break;
    if (hudi_hashmap_get(&p->replaced, key.data, key.len, &by))
      st = plan_replaced(p, fg, &p->t->timeline.items[by.u64], err);
    else if (by_ectr(p->c))
      st = plan_commits(p, fg, err);
    else
      st = plan_versions(p, fg, err);
  }
  hudi_buf_free(&key);
  return st;
}

static void planner_free(planner *p) {
  hudi_fsview_free(&p->view);
  hudi_hashmap_free(&p->replaced);
  hudi_free(p->savepoints);
  hudi_free(p->files);
}

/* ---- Java HashMap order ---------------------------------------------------- */

/* Partitions in the order a java.util.HashMap filled with them iterates
 * (bucket (h ^ h>>>16) & (cap-1), cap 16 doubled while n > 0.75 cap; ties in
 * insertion order), so the Avro maps come out in the order Spark's do. */
typedef struct part_slot {
  const char *name;
  uint32_t bucket;
  size_t seq;
} part_slot;

static int cmp_part_slot(const void *a, const void *b) {
  const part_slot *x = a, *y = b;
  if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static hudi_status java_order(part_slot *slots, size_t n, hudi_error *err) {
  size_t cap = 16;
  while (n > cap / 4 * 3) cap *= 2;
  for (size_t i = 0; i < n; i++) {
    int32_t h;
    HUDI_TRY(hudi_java_string_hash(&h, slots[i].name, strlen(slots[i].name), err));
    uint32_t u = (uint32_t)h;
    slots[i].bucket = (u ^ (u >> 16)) & (uint32_t)(cap - 1);
    slots[i].seq = i;
  }
  qsort(slots, n, sizeof *slots, cmp_part_slot);
  return HUDI_OK;
}

/* ---- running it -------------------------------------------------------------- */

typedef struct part_run {
  const char *partition;
  size_t first, n;       /* files[first, first + n) */
  size_t n_ok;           /* deleted */
  bool *ok;              /* per file */
} part_run;

typedef struct runner {
  planner *p;
  hudi_clean_result *res;
  char instant[HUDI_INSTANT_TIME_MAX];
  char last_commit[HUDI_INSTANT_TIME_MAX];
  hudi_instant_gen gen;
  part_slot *order; /* partitions in Java HashMap order */
  part_run *parts;
  size_t n_parts;
  bool *ok;
  int64_t start_ms;
  const char *ectr;   /* earliest commit to retain, "" none */
  const char *policy; /* as the plan names it */
} runner;

/* The absolute path Spark records: the table's base path as given (a
 * local table opened as /x gives "/x/<partition>/<file>", as Spark's plans
 * of such a table hold) and the relative path. */
static hudi_status abs_path(hudi_buf *out, const char *base, const char *rel, hudi_error *err) {
  hudi_buf_reset(out);
  if (!strncmp(base, "file://", 7) && base[7] == '/') base += 7;
  HUDI_TRY(hudi_buf_append_str(out, base, err));
  size_t len = out->len;
  while (len > 0 && out->data[len - 1] == '/') len--;
  out->len = len;
  HUDI_TRY(hudi_buf_append_byte(out, '/', err));
  HUDI_TRY(hudi_buf_append_str(out, rel, err));
  return hudi_buf_append_byte(out, 0, err);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static hudi_status group_parts(runner *r, hudi_error *err) {
  planner *p = r->p;
  /* The view is sorted by partition, so a partition's files are adjacent. */
  r->parts = hudi_calloc(p->n_files + 1, sizeof *r->parts);
  r->order = hudi_calloc(p->n_files + 1, sizeof *r->order);
  r->ok = hudi_calloc(p->n_files + 1, sizeof *r->ok);
  if (!r->parts || !r->order || !r->ok) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < p->n_files; i++) {
    if (!r->n_parts || strcmp(r->parts[r->n_parts - 1].partition, p->files[i].partition) != 0) {
      part_run *pr = &r->parts[r->n_parts++];
      pr->partition = p->files[i].partition;
      pr->first = i;
      pr->ok = &r->ok[i];
    }
    r->parts[r->n_parts - 1].n++;
  }
  for (size_t i = 0; i < r->n_parts; i++) {
    r->order[i].name = r->parts[i].partition;
    r->order[i].seq = i;
  }
  return java_order(r->order, r->n_parts, err);
}

/* The k-th partition in Java HashMap order (java_order keeps each slot's
 * original index in seq). */
static const part_run *part_of(const runner *r, size_t k) { return &r->parts[r->order[k].seq]; }

/* Clean instants are Avro in both layouts; layout 1 (table version 6)
 * names them without the completion time, in .hoodie/, and the completed
 * file's mtime is the completion time (write.h). */
static hudi_status write_timeline_file(runner *r, hudi_instant_state state, const char *completion,
                                       const hudi_buf *data, hudi_error *err) {
  hudi_table *t = r->p->t;
  int layout = t->layout >= 2 ? 2 : 1;
  char name[128], path[200];
  if (hudi_instant_file_name(name, sizeof name, r->instant, completion, "clean", state, layout) < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "clean instant file name");
  snprintf(path, sizeof path, "%s/%s", layout == 2 ? ".hoodie/timeline" : ".hoodie", name);
  hudi_status st = hudi_storage_write_if_absent(t->storage, path, data->data, data->len, err);
  if (st == HUDI_ERR_EXISTS)
    return hudi_err_set(err, HUDI_ERR_CONFLICT, "timeline file %s already exists: another writer used instant %s",
                        path, r->instant);
  if (st == HUDI_OK && layout == 1 && state == HUDI_INSTANT_COMPLETED) hudi_write_stamp_completion(t, path, completion);
  return st;
}

static hudi_status build_plan(runner *r, hudi_buf *out, hudi_error *err) {
  planner *p = r->p;
  hudi_cleaner_plan *plan = NULL;
  HUDI_TRY(hudi_cleaner_plan_new(&plan, err));
  hudi_avro_arena *a = &plan->doc.arena;
  hudi_action_instant ectr;
  hudi_buf path;
  hudi_buf_init(&path, 1 << 20);
  hudi_status st = HUDI_OK;
  if (p->info.ectr) {
    ectr.timestamp = (char *)p->info.ectr->requested_time;
    ectr.action = (char *)p->info.ectr->action;
    ectr.state = "COMPLETED";
    plan->earliest_instant_to_retain = &ectr;
  }
  plan->last_completed_commit_timestamp = r->last_commit;
  plan->policy = (char *)policy_name(p->c->policy);
  plan->files_to_be_deleted_per_partition.has = 1;
  plan->version = (hudi_tl_int){2, 1};
  plan->file_paths_to_be_deleted_per_partition.has = 1;
  plan->partitions_to_be_deleted.has = 1;
  plan->extra_metadata.has = 1; /* {} as Spark writes it */
  for (size_t k = 0; st == HUDI_OK && k < r->n_parts; k++) {
    const part_run *pr = part_of(r, k);
    hudi_clean_file_infos_entry *e = NULL;
    st = hudi_tl_list_push(&plan->file_paths_to_be_deleted_per_partition, a, sizeof *e, (void **)&e, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, pr->partition, &e->key, err);
    if (st == HUDI_OK) e->value.has = 1;
    for (size_t i = 0; st == HUDI_OK && i < pr->n; i++) {
      hudi_clean_file_info *fi = NULL;
      st = abs_path(&path, p->t->base_uri, p->files[pr->first + i].path, err);
      if (st == HUDI_OK) st = hudi_tl_list_push(&e->value, a, sizeof *fi, (void **)&fi, err);
      if (st == HUDI_OK) st = hudi_tl_strdup(a, (const char *)path.data, &fi->file_path, err);
      if (st == HUDI_OK) fi->is_bootstrap_base_file = (hudi_tl_bool){0, 1};
    }
  }
  if (st == HUDI_OK) st = hudi_cleaner_plan_to_avro(plan, NULL, out, err);
  hudi_buf_free(&path);
  hudi_cleaner_plan_free(plan);
  return st;
}

/* Deletes every planned file; a file already gone is a failed delete, as
 * Java records it; any other failure stops the clean (left inflight). */
static hudi_status delete_files(runner *r, hudi_error *err) {
  planner *p = r->p;
  for (size_t k = 0; k < r->n_parts; k++) {
    part_run *pr = &r->parts[k];
    for (size_t i = 0; i < pr->n; i++) {
      const char *path = p->files[pr->first + i].path;
      hudi_error e = HUDI_ERROR_INIT;
      hudi_status st = hudi_storage_delete(p->t->storage, path, 0, &e);
      if (st == HUDI_OK) {
        pr->ok[i] = true;
        pr->n_ok++;
        r->res->num_files_deleted++;
      } else if (st != HUDI_ERR_NOT_FOUND) {
        return hudi_err_set(err, st, "clean %s: deleting %s: %s", r->instant, path, e.message);
      }
    }
  }
  return HUDI_OK;
}

static hudi_status update_mdt(runner *r, hudi_error *err) {
  planner *p = r->p;
  if (!hudi_write_mdt_enabled(p->t)) return HUDI_OK;
  hudi_mdt_file_change *ch = hudi_calloc(p->n_files + 1, sizeof *ch);
  if (!ch) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  /* Every planned file (Hudi's deletePathPatterns), deleted now or before. */
  for (size_t i = 0; i < p->n_files; i++) {
    ch[i].partition = p->files[i].partition;
    ch[i].name = base_name(p->files[i].path);
    ch[i].deleted = true;
  }
  hudi_status st = hudi_clean_mdt_update(p->t, r->instant, ch, p->n_files, &r->gen, err);
  hudi_free(ch);
  return st;
}

static hudi_status push_names(hudi_tl_list *l, hudi_avro_arena *a, const runner *r, const part_run *pr, int which,
                              hudi_error *err) {
  l->has = 1;
  for (size_t i = 0; i < pr->n; i++) {
    if (which == 1 && !pr->ok[i]) continue;
    if (which == 2 && pr->ok[i]) continue;
    HUDI_TRY(hudi_tl_strs_push(l, a, base_name(r->p->files[pr->first + i].path), err));
  }
  return HUDI_OK;
}

static hudi_status build_metadata(runner *r, hudi_buf *out, hudi_error *err) {
  hudi_clean_metadata *m = NULL;
  HUDI_TRY(hudi_clean_metadata_new(&m, err));
  hudi_avro_arena *a = &m->doc.arena;
  m->start_clean_time = r->instant;
  m->time_taken_in_millis = hudi_tl_some_long(hudi_clock_realtime_ms(NULL) - r->start_ms);
  m->total_files_deleted = (hudi_tl_int){(int32_t)r->res->num_files_deleted, 1};
  m->earliest_commit_to_retain = (char *)r->ectr;
  m->last_completed_commit_timestamp = r->last_commit;
  m->partition_metadata.has = 1;
  m->version = (hudi_tl_int){2, 1};
  m->bootstrap_partition_metadata.has = 1;
  m->extra_metadata.has = 1;
  hudi_status st = HUDI_OK;
  for (size_t k = 0; st == HUDI_OK && k < r->n_parts; k++) {
    const part_run *pr = part_of(r, k);
    hudi_clean_partition_entry *e = NULL;
    st = hudi_tl_list_push(&m->partition_metadata, a, sizeof *e, (void **)&e, err);
    if (st != HUDI_OK) break;
    e->key = e->value.partition_path = (char *)pr->partition;
    e->value.policy = (char *)r->policy;
    e->value.is_partition_deleted = (hudi_tl_bool){0, 1};
    st = push_names(&e->value.delete_path_patterns, a, r, pr, 0, err);
    if (st == HUDI_OK) st = push_names(&e->value.success_delete_files, a, r, pr, 1, err);
    if (st == HUDI_OK) st = push_names(&e->value.failed_delete_files, a, r, pr, 2, err);
  }
  if (st == HUDI_OK) st = hudi_clean_metadata_to_avro(m, NULL, out, err);
  hudi_clean_metadata_free(m);
  return st;
}

/* From the deletes to the completed instant (the plan is on the timeline). */
static hudi_status finish(runner *r, bool mdt_done, hudi_error *err) {
  planner *p = r->p;
  HUDI_TRY(delete_files(r, err));
  if (!mdt_done) HUDI_TRY(update_mdt(r, err));
  char done[HUDI_INSTANT_TIME_BUF];
  hudi_buf data;
  hudi_buf_init(&data, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = build_metadata(r, &data, err);
  if (st == HUDI_OK) st = hudi_instant_gen_next(&r->gen, done, NULL, err);
  if (st == HUDI_OK) st = write_timeline_file(r, HUDI_INSTANT_COMPLETED, done, &data, err);
  hudi_buf_free(&data);
  HUDI_TRY(st);
  snprintf(r->res->completion_time, sizeof r->res->completion_time, "%s", done);
  return hudi_write_reload_timeline(p->t, err);
}

static hudi_status execute(runner *r, hudi_error *err) {
  planner *p = r->p;
  HUDI_TRY(hudi_write_pick_instant(&r->gen, p->t, r->instant, err));
  snprintf(r->res->requested_time, sizeof r->res->requested_time, "%s", r->instant);
  snprintf(r->last_commit, sizeof r->last_commit, "%s", p->info.last_write ? p->info.last_write->requested_time : "");
  r->ectr = p->info.ectr ? p->info.ectr->requested_time : "";
  r->policy = policy_name(p->c->policy);
  HUDI_TRY(group_parts(r, err));
  r->res->num_partitions = (int64_t)r->n_parts;
  hudi_buf data;
  hudi_buf_init(&data, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = build_plan(r, &data, err);
  /* Spark's clean.inflight holds the plan too. */
  if (st == HUDI_OK) st = write_timeline_file(r, HUDI_INSTANT_REQUESTED, "", &data, err);
  if (st == HUDI_OK) st = write_timeline_file(r, HUDI_INSTANT_INFLIGHT, "", &data, err);
  hudi_buf_free(&data);
  HUDI_TRY(st);
  return finish(r, false, err);
}

/* ---- pending cleans ------------------------------------------------------------ */

/* Removes what an interrupted MDT deltacommit T left (its timeline files
 * and its files log): readers ignore it, and the clean writes it again. A
 * completed one stays: *done is set and gen observes its completion time. */
static hudi_status reset_mdt_commit(hudi_table *t, const char *instant, bool *done, hudi_instant_gen *gen,
                                    hudi_error *err) {
  *done = false;
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  static const char *const dirs[] = {".hoodie/metadata/.hoodie/timeline", ".hoodie/metadata/files"};
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->storage, dirs[0], 0, &l, err));
  size_t n = strlen(instant);
  for (size_t i = 0; i < l.count; i++) {
    const char *name = base_name(l.items[i].path);
    int64_t ms;
    if (strncmp(name, instant, n) || name[n] != '_' || !strstr(name, ".deltacommit")) continue;
    *done = true;
    if (hudi_instant_time_to_millis(&ms, name + n + 1, HUDI_INSTANT_TIME_LEN, NULL) == HUDI_OK)
      hudi_instant_gen_observe(gen, ms);
  }
  hudi_status st = HUDI_OK;
  for (int d = 0; !*done && st == HUDI_OK && d < 2; d++) {
    hudi_file_list_free(&l);
    st = hudi_storage_list(t->storage, dirs[d], 0, &l, err);
    for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
      const char *name = base_name(l.items[i].path);
      bool mine = d == 0 ? !strncmp(name, instant, n) && name[n] == '.'
                         : !strncmp(name, ".files-0000-0_", 14) && !strncmp(name + 14, instant, n) &&
                               !strncmp(name + 14 + n, ".log.", 5);
      if (mine) st = hudi_storage_delete(t->storage, l.items[i].path, HUDI_DELETE_MISSING_OK, err);
    }
    /* and the temporary of a log file killed before its rename */
    if (d == 1 && st == HUDI_OK) st = hudi_delete_instant_temps(t->storage, dirs[1], instant, err);
  }
  hudi_file_list_free(&l);
  return st;
}

/* The files of a parsed plan, relative to the table: partition and file
 * name (the absolute prefix differs between writers: "/x", "file:/x", ...). */
static hudi_status plan_files(planner *p, hudi_cleaner_plan *plan, hudi_error *err) {
  const hudi_clean_file_infos_entry *e = plan->file_paths_to_be_deleted_per_partition.items;
  hudi_avro_arena *a = &plan->doc.arena;
  for (size_t i = 0; i < plan->file_paths_to_be_deleted_per_partition.n; i++) {
    const char *part = e[i].key ? e[i].key : "";
    const hudi_clean_file_info *fi = e[i].value.items;
    for (size_t k = 0; k < e[i].value.n; k++) {
      if (!fi[k].file_path || !*base_name(fi[k].file_path))
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "clean plan: partition '%s' has a file without a path", part);
      size_t len = strlen(part) + strlen(fi[k].file_path) + 2;
      char *rel;
      HUDI_TRY(hudi_avro_arena_alloc(a, len, (void **)&rel, err));
      snprintf(rel, len, "%s%s%s", part, *part ? "/" : "", base_name(fi[k].file_path));
      HUDI_TRY(add_file(p, part, rel, err));
    }
  }
  return HUDI_OK;
}

/* Finishes a clean that was requested but never completed (a crash), as
 * Hudi's cleaner runs pending plans before planning anew. */
static hudi_status finish_pending(hudi_table *t, const hudi_instant *in, hudi_error *err) {
  char path[200];
  snprintf(path, sizeof path, "%s/%s.clean.requested", t->timeline.dir, in->requested_time);
  hudi_buf b;
  hudi_buf_init(&b, CLEAN_FILE_MAX);
  hudi_cleaner_plan *plan = NULL;
  hudi_status st = hudi_storage_read_all(t->storage, path, CLEAN_FILE_MAX, &b, err);
  if (st == HUDI_OK) st = hudi_cleaner_plan_parse(&plan, b.data ? b.data : (const uint8_t *)"", b.len, path, err);
  planner p;
  memset(&p, 0, sizeof p);
  p.t = t;
  hudi_hashmap_init(&p.replaced, 0);
  hudi_clean_result res;
  memset(&res, 0, sizeof res);
  runner r;
  memset(&r, 0, sizeof r);
  r.p = &p;
  r.res = &res;
  r.start_ms = hudi_clock_realtime_ms(NULL);
  snprintf(r.instant, sizeof r.instant, "%s", in->requested_time);
  bool mdt_done = false;
  char unused[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = plan_files(&p, plan, err);
  if (st == HUDI_OK) {
    r.ectr = plan->earliest_instant_to_retain && plan->earliest_instant_to_retain->timestamp
                 ? plan->earliest_instant_to_retain->timestamp
                 : "";
    r.policy = plan->policy ? plan->policy : "KEEP_LATEST_COMMITS";
    snprintf(r.last_commit, sizeof r.last_commit, "%s",
             plan->last_completed_commit_timestamp ? plan->last_completed_commit_timestamp : "");
    st = hudi_write_pick_instant(&r.gen, t, unused, err); /* a generator past every time on the timeline */
  }
  if (st == HUDI_OK) st = group_parts(&r, err);
  if (st == HUDI_OK && in->state == HUDI_INSTANT_REQUESTED) {
    hudi_buf copy = b;
    st = write_timeline_file(&r, HUDI_INSTANT_INFLIGHT, "", &copy, err);
  }
  if (st == HUDI_OK) st = reset_mdt_commit(t, in->requested_time, &mdt_done, &r.gen, err);
  if (st == HUDI_OK) st = finish(&r, mdt_done, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "finishing pending clean %s", in->requested_time);
  hudi_free(r.parts);
  hudi_free(r.order);
  hudi_free(r.ok);
  planner_free(&p);
  hudi_cleaner_plan_free(plan);
  hudi_buf_free(&b);
  return st;
}

static hudi_status finish_pending_cleans(hudi_table *t, hudi_error *err) {
  /* Each finished clean completes (and the timeline is reloaded): look again. */
  for (size_t round = 0, limit = t->timeline.count; round < limit; round++) {
    const hudi_instant *pending = NULL;
    for (size_t i = 0; i < t->timeline.count && !pending; i++) {
      const hudi_instant *in = &t->timeline.items[i];
      if (in->state != HUDI_INSTANT_COMPLETED && !strcmp(in->action, "clean")) pending = in;
    }
    if (!pending) return HUDI_OK;
    HUDI_TRY(finish_pending(t, pending, err));
  }
  return HUDI_OK;
}

hudi_status hudi_clean_run(hudi_clean_result *result, hudi_table *t, const hudi_clean_config *c, hudi_error *err) {
  memset(result, 0, sizeof *result);
  planner p;
  memset(&p, 0, sizeof p);
  p.t = t;
  p.c = c;
  hudi_hashmap_init(&p.replaced, 0);
  runner r;
  memset(&r, 0, sizeof r);
  r.p = &p;
  r.res = result;
  r.start_ms = hudi_clock_realtime_ms(NULL);
  hudi_status st = finish_pending_cleans(t, err);
  if (st == HUDI_OK) st = plan(&p, err);
  if (st == HUDI_OK && p.info.ectr)
    snprintf(result->earliest_commit_to_retain, sizeof result->earliest_commit_to_retain, "%s",
             p.info.ectr->requested_time);
  if (st == HUDI_OK && p.n_files > 0) st = execute(&r, err);
  if (st != HUDI_OK) result->completion_time[0] = '\0';
  hudi_free(r.parts);
  hudi_free(r.order);
  hudi_free(r.ok);
  planner_free(&p);
  return st;
}

/* ---- automatic cleaning ---------------------------------------------------- */

/* From the timeline alone: whether a clean could delete anything the last
 * clean did not. */
static hudi_status worth_listing(bool *out, hudi_table *t, const hudi_clean_config *c, hudi_error *err) {
  tl_info info;
  analyse(&info, t, c);
  *out = false;
  if (!info.last_write) return HUDI_OK;
  if (by_ectr(c)) {
    if (!info.ectr) return HUDI_OK; /* no more commits than retained (none in the hours window) */
  } else if (info.n_writes <= (size_t)c->versions_retained && !info.has_replace) {
    return HUDI_OK; /* no group can hold more slices than there were writes */
  }
  if (!info.last_clean) {
    *out = true;
    return HUDI_OK;
  }
  hudi_clean_metadata *m = NULL;
  HUDI_TRY(read_clean_metadata(&m, t, info.last_clean, err));
  const char *prev_last = m->last_completed_commit_timestamp ? m->last_completed_commit_timestamp : "";
  const char *prev_ectr = m->earliest_commit_to_retain ? m->earliest_commit_to_retain : "";
  /* hoodie.clean.max.commits = 1: a write since the last clean; and, for
   * the ECTR policies, an ECTR that moved (slices become eligible only
   * when it does). */
  bool new_write = strcmp(info.last_write->requested_time, prev_last) > 0;
  bool moved = !by_ectr(c) || strcmp(info.ectr->requested_time, prev_ectr) > 0;
  *out = new_write && moved;
  hudi_clean_metadata_free(m);
  return HUDI_OK;
}

hudi_status hudi_clean_after_commit(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  hudi_clean_config c;
  HUDI_TRY(hudi_clean_config_load(&c, t, opts, n, err));
  if (!c.automatic) return HUDI_OK;
  bool worth;
  HUDI_TRY(worth_listing(&worth, t, &c, err));
  if (!worth) return HUDI_OK;
  hudi_clean_result res;
  hudi_status st = hudi_clean_run(&res, t, &c, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "automatic clean after commit (hoodie.clean.automatic)");
  return HUDI_OK;
}

/* ---- the public call ----------------------------------------------------------- */

hudi_status hudi_table_clean(hudi_clean_result *result, hudi_table *table, const hudi_option *options,
                             size_t n_options, hudi_error *err) {
  hudi_clean_result dummy;
  hudi_clean_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_clean needs a table");
  size_t n = options ? n_options : 0;
  hudi_clean_config c;
  HUDI_TRY(hudi_clean_config_load(&c, table, options, n, err));
  HUDI_TRY(hudi_write_check_table_mdt(table, options, n, err));
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_write_begin(&lock, table, options, n, err));
  hudi_status st = hudi_clean_run(res, table, &c, err);
  hudi_write_end(&lock, table);
  return st;
}
