/* Rollback of one instant on one table (data or metadata), and the
 * data-table entry points (rollback.h). */
#include "table/rollback.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "base/hashmap.h"
#include "table/base_file.h"
#include "table/hadoop_crc.h"
#include "table/heartbeat.h"
#include "table/lock.h"
#include "table/log_file_name.h"
#include "table/instant_v6.h"
#include "table/mdt_rollback.h"
#include "table/clustering_pending.h"
#include "table/rollback_log_blocks.h"
#include "table/schema_resolve.h"
#include "table/write.h"

#define PATH_MAX_LEN 8192
/* A MARKERS<n> file of timeline-server markers is small; cap what we read. */
#define MARKERS_FILE_MAX ((size_t)64 << 20)

/* ---- names and paths -------------------------------------------------- */

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Whether file name `name` is a base or log file written by instant T;
 * *is_log says which, *file_id gets the file id (cap HUDI_FILE_ID_MAX). */
static bool written_by(const char *name, const char *instant, bool *is_log, char *file_id) {
  hudi_base_file_name b;
  if (hudi_base_file_name_parse(&b, name)) {
    *is_log = false;
    snprintf(file_id, HUDI_FILE_ID_MAX, "%s", b.file_id);
    return !strcmp(b.instant, instant);
  }
  if (!hudi_log_file_name_matches(name, strlen(name))) return false;
  hudi_log_file_name l = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_parse(&l, name, strlen(name), NULL) != HUDI_OK) return false;
  bool mine = !strcmp(l.instant, instant);
  *is_log = true;
  snprintf(file_id, HUDI_FILE_ID_MAX, "%s", l.file_id);
  hudi_log_file_name_free(&l);
  return mine;
}

/* <x dir>/<rel> into b (NUL-terminated). */
static hudi_status table_path(hudi_buf *b, const hudi_rb_target *x, const char *rel, hudi_error *err) {
  hudi_buf_reset(b);
  return hudi_buf_printf(b, err, "%s%s%s%c", x->dir, *x->dir ? "/" : "", rel, '\0');
}

static hudi_status tl_path(hudi_buf *b, const hudi_rb_target *x, const char *name, hudi_error *err) {
  hudi_buf_reset(b);
  return hudi_buf_printf(b, err, "%s%s%s/%s%c", x->dir, *x->dir ? "/" : "", x->tl->dir, name, '\0');
}

/* Writes timeline file `name` of x if absent; an existing one is accepted
 * when exist_ok (a step being repeated). */
static hudi_status write_tl(const hudi_rb_target *x, const char *name, const void *data, size_t len, bool exist_ok,
                            hudi_error *err) {
  hudi_buf p;
  hudi_buf_init(&p, PATH_MAX_LEN);
  hudi_status st = tl_path(&p, x, name, err);
  if (st == HUDI_OK) {
    hudi_error e2 = HUDI_ERROR_INIT;
    st = hudi_storage_write_if_absent(x->s, (const char *)p.data, data, len, &e2);
    if (st == HUDI_ERR_EXISTS && exist_ok) st = HUDI_OK;
    else if (st == HUDI_ERR_EXISTS)
      st = hudi_err_set(err, HUDI_ERR_CONFLICT, "timeline file %s already exists: another writer used that instant",
                        (const char *)p.data);
    else if (st != HUDI_OK) st = hudi_err_set(err, st, "%s", e2.message);
  }
  hudi_buf_free(&p);
  return st;
}

/* Deletes rel (missing is fine) and its Hadoop checksum (hadoop_crc.h:
 * Spark's delete removes both). */
static hudi_status delete_file(hudi_storage *s, const char *rel, hudi_error *err) {
  HUDI_TRY(hudi_storage_delete(s, rel, HUDI_DELETE_MISSING_OK, err));
  return hudi_hadoop_crc_delete(s, rel, err);
}

static hudi_status delete_tl(const hudi_rb_target *x, const char *name, hudi_error *err) {
  hudi_buf p;
  hudi_buf_init(&p, PATH_MAX_LEN);
  hudi_status st = tl_path(&p, x, name, err);
  if (st == HUDI_OK) st = delete_file(x->s, (const char *)p.data, err);
  hudi_buf_free(&p);
  return st;
}

/* x's timeline file name: layout 1 (table version 6) has no completion
 * time and no clustering action (instant_v6.h). */
static hudi_status instant_name(char *out, size_t cap, const hudi_rb_target *x, const char *t, const char *completion,
                                const char *action, hudi_instant_state state, hudi_error *err) {
  int layout = x->tl->layout >= 2 ? 2 : 1;
  if (layout == 1) action = hudi_instant_v6_action(action);
  if (hudi_instant_file_name(out, cap, t, completion, action, state, layout) < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "no timeline file name for instant %s action '%s'", t, action);
  return HUDI_OK;
}

/* ---- the plan --------------------------------------------------------- */

typedef struct plan_build {
  hudi_rollback_plan *p;
  const hudi_rb_target *x;
  const char *instant;
  const hudi_instant *in_t; /* T on x's timeline, or NULL */
  hudi_hashmap seen;   /* absolute paths already requested */
  hudi_hashmap slices; /* layout 1: file slices with an APPEND request */
  hudi_rb_dirs *dirs;  /* layout 1: their partitions' listings */
  hudi_buf abs;
} plan_build;

/* One request deleting file rel (relative to x) of partition. Base files
 * name their file group and base instant (MarkerBasedRollbackStrategy);
 * log files and listed files leave both "" (fixture), and so do all on
 * layout 1 (0.x, fixture v6_nonpartitioned_rollback). */
static hudi_status add_request(plan_build *b, const char *partition, const char *rel, bool named, hudi_error *err) {
  bool is_log;
  char fid[HUDI_FILE_ID_MAX];
  if (!written_by(base_name(rel), b->instant, &is_log, fid)) return HUDI_OK; /* never another instant's file */
  hudi_buf_reset(&b->abs);
  const char *base = hudi_storage_base(b->x->s);
  HUDI_TRY(hudi_buf_printf(&b->abs, err, "%s%s%s%s%s", base, *base && base[strlen(base) - 1] != '/' ? "/" : "",
                           b->x->dir, *b->x->dir ? "/" : "", rel));
  if (hudi_hashmap_get(&b->seen, b->abs.data, b->abs.len, NULL)) return HUDI_OK;
  HUDI_TRY(hudi_hashmap_put(&b->seen, b->abs.data, b->abs.len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err));
  HUDI_TRY(hudi_buf_append_byte(&b->abs, 0, err));
  hudi_avro_arena *a = &b->p->doc.arena;
  hudi_rollback_request *r;
  HUDI_TRY(hudi_tl_list_push(&b->p->rollback_requests, a, sizeof *r, (void **)&r, err));
  bool with_ids = named && !is_log && b->x->tl->layout >= 2;
  HUDI_TRY(hudi_tl_strdup(a, partition, &r->partition_path, err));
  HUDI_TRY(hudi_tl_strdup(a, with_ids ? fid : "", &r->file_id, err));
  HUDI_TRY(hudi_tl_strdup(a, with_ids ? b->instant : "", &r->latest_base_instant, err));
  HUDI_TRY(hudi_tl_strs_push(&r->files_to_be_deleted, a, (const char *)b->abs.data, err));
  r->log_blocks_to_be_deleted.has = 1;
  return HUDI_OK;
}

/* A marker path relative to .temp/T: "<partition>/<file>.marker.<TYPE>". */
static hudi_status add_marker(plan_build *b, const char *m, size_t len, hudi_error *err) {
  const char *dot = NULL;
  for (const char *p = m; p + 8 <= m + len; p++)
    if (!memcmp(p, ".marker.", 8)) dot = p;
  if (!dot) return HUDI_OK; /* MARKERS.type and other non-markers */
  const char *type = dot + 8;
  size_t tlen = (size_t)(m + len - type);
  bool known = (tlen == 6 && (!memcmp(type, "CREATE", 6) || !memcmp(type, "APPEND", 6))) ||
               (tlen == 5 && !memcmp(type, "MERGE", 5));
  if (!known) return HUDI_OK;
  char *rel = hudi_malloc((size_t)(dot - m) + 1);
  if (!rel) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  memcpy(rel, m, (size_t)(dot - m));
  rel[dot - m] = 0;
  const char *slash = strrchr(rel, '/');
  char *part = hudi_strdup(rel);
  if (part) part[slash ? (size_t)(slash - rel) : 0] = 0;
  /* Layout 1: a log append is undone by a command block (rollback_log_blocks.h). */
  bool append_v6 = tlen == 6 && !memcmp(type, "APPEND", 6) && b->x->tl->layout < 2;
  hudi_status st = !part          ? hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory")
                   : append_v6    ? hudi_rb_append_request(b->p, b->x, part, rel, b->instant, &b->slices, b->dirs, err)
                                  : add_request(b, part, rel, true, err);
  hudi_free(part);
  hudi_free(rel);
  return st;
}

/* Timeline-server markers: MARKERS<n> files holding one marker path a line. */
static hudi_status add_markers_file(plan_build *b, const char *path, hudi_error *err) {
  hudi_buf data;
  hudi_buf_init(&data, MARKERS_FILE_MAX);
  hudi_status st = hudi_storage_read_all(b->x->s, path, MARKERS_FILE_MAX, &data, err);
  for (size_t i = 0; st == HUDI_OK && i < data.len;) {
    size_t j = i;
    while (j < data.len && data.data[j] != '\n') j++;
    size_t e = j;
    if (e > i && data.data[e - 1] == '\r') e--;
    if (e > i) st = add_marker(b, (const char *)data.data + i, e - i, err);
    i = j + 1;
  }
  hudi_buf_free(&data);
  return st;
}

/* Requests from T's markers; *found = whether there were any. */
static hudi_status plan_from_markers(plan_build *b, bool *found, hudi_error *err) {
  *found = false;
  hudi_buf dir;
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_status st = hudi_buf_printf(&dir, err, ".hoodie/.temp/%s%c", b->instant, '\0');
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  hudi_buf rel;
  hudi_buf_init(&rel, PATH_MAX_LEN);
  if (st == HUDI_OK) st = table_path(&rel, b->x, (const char *)dir.data, err);
  if (st == HUDI_OK) st = hudi_storage_list(b->x->s, (const char *)rel.data, HUDI_LIST_RECURSIVE, &l, err);
  size_t pre = rel.len; /* includes the NUL: the '/' after the directory */
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    const char *p = l.items[i].path;
    if (l.items[i].is_dir || strlen(p) < pre) continue;
    const char *m = p + pre;
    *found = true;
    if (!strncmp(m, "MARKERS", 7) && !strchr(m, '/')) {
      if (strcmp(m, "MARKERS.type") != 0) st = add_markers_file(b, p, err);
    } else {
      st = add_marker(b, m, strlen(m), err);
    }
  }
  hudi_file_list_free(&l);
  hudi_buf_free(&dir);
  hudi_buf_free(&rel);
  return st;
}

/* The write stats in m. */
static size_t n_stats(const hudi_commit_metadata *m) {
  size_t n = 0;
  const hudi_partition_write_stats *ps = m->partition_to_write_stats.items;
  for (size_t i = 0; i < m->partition_to_write_stats.n; i++) n += ps[i].value.n;
  return n;
}

/* Layout 1: the requests for T's log appends. A completed T's commit
 * metadata names its log files, so only those are read; else (T pending
 * without markers, or metadata that does not parse or holds no write
 * stats: a blank file parses as empty) every log file of the listing is. */
static hudi_status append_requests(plan_build *b, const hudi_file_list *l, hudi_error *err) {
  hudi_commit_metadata *m = NULL;
  hudi_status st = HUDI_ERR_NOT_FOUND;
  if (b->in_t && b->in_t->state == HUDI_INSTANT_COMPLETED && b->x->table) {
    st = hudi_table_instant_metadata(&m, b->x->table, b->in_t, err);
    /* Metadata that cannot say (gone, too large, garbled): every log is read. */
    if (st == HUDI_ERR_CORRUPT || st == HUDI_ERR_NOT_FOUND || st == HUDI_ERR_LIMIT) hudi_error_clear(err);
    else if (st != HUDI_OK) return st;
    if (st == HUDI_OK && n_stats(m) == 0) st = HUDI_ERR_NOT_FOUND;
  }
  if (st == HUDI_OK) st = hudi_rb_append_requests_from_metadata(b->p, b->x, m, l, b->instant, err);
  else st = hudi_rb_append_requests_from_listing(b->p, b->x, l, b->instant, err);
  hudi_commit_metadata_free(m);
  return st;
}

/* Requests for every base and log file named with T, found by listing x
 * (outside its .hoodie): ListingBasedRollbackStrategy for a table whose
 * markers are gone. */
static hudi_status plan_from_listing(plan_build *b, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(b->x->s, b->x->dir, HUDI_LIST_RECURSIVE, &l, err));
  size_t pre = *b->x->dir ? strlen(b->x->dir) + 1 : 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    const char *p = l.items[i].path;
    if (l.items[i].is_dir || strlen(p) <= pre) continue;
    const char *rel = p + pre;
    if (!strncmp(rel, ".hoodie/", 8) || !strcmp(rel, ".hoodie")) continue;
    const char *slash = strrchr(rel, '/');
    size_t plen = slash ? (size_t)(slash - rel) : 0;
    char *part = hudi_malloc(plen + 1);
    if (!part) {
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      break;
    }
    memcpy(part, rel, plen);
    part[plen] = 0;
    st = add_request(b, part, rel, false, err);
    hudi_free(part);
  }
  /* Layout 1: T's log appends are in files named by their slices' base
   * instants: the slices holding blocks of T. */
  if (st == HUDI_OK && b->x->tl->layout < 2) st = append_requests(b, &l, err);
  hudi_file_list_free(&l);
  return st;
}

static hudi_status make_plan(hudi_rollback_plan **out, const hudi_rb_target *x, const char *instant,
                             const char *action, const hudi_instant *in_t, bool use_markers, hudi_error *err) {
  plan_build b;
  memset(&b, 0, sizeof b);
  HUDI_TRY(hudi_rollback_plan_new(&b.p, err));
  b.x = x;
  b.instant = instant;
  b.in_t = in_t;
  hudi_hashmap_init(&b.seen, 0);
  hudi_hashmap_init(&b.slices, 0);
  hudi_buf_init(&b.abs, PATH_MAX_LEN);
  hudi_avro_arena *a = &b.p->doc.arena;
  hudi_status st = hudi_rb_dirs_new(&b.dirs, err);
  if (st == HUDI_OK) st = hudi_avro_arena_alloc(a, sizeof *b.p->instant_to_rollback, (void **)&b.p->instant_to_rollback, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, instant, &b.p->instant_to_rollback->commit_time, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, action, &b.p->instant_to_rollback->action, err);
  b.p->rollback_requests.has = 1;
  b.p->version = (hudi_tl_int){1, 1};
  /* A write only requested wrote nothing (BaseRollbackPlanActionExecutor). */
  bool nothing = in_t && in_t->state == HUDI_INSTANT_REQUESTED;
  bool found = false;
  if (st == HUDI_OK && !nothing && use_markers) st = plan_from_markers(&b, &found, err);
  if (st == HUDI_OK && !nothing && !found) st = plan_from_listing(&b, err);
  hudi_hashmap_free(&b.seen);
  hudi_hashmap_free(&b.slices);
  hudi_rb_dirs_free(b.dirs);
  hudi_buf_free(&b.abs);
  if (st != HUDI_OK) {
    hudi_rollback_plan_free(b.p);
    return st;
  }
  *out = b.p;
  return HUDI_OK;
}

hudi_status hudi_rb_read_plan(hudi_rollback_plan **out, const hudi_rb_target *x, const hudi_instant *r,
                              hudi_error *err) {
  *out = NULL;
  char name[128];
  HUDI_TRY(instant_name(name, sizeof name, x, r->requested_time, "", "rollback", HUDI_INSTANT_REQUESTED, err));
  hudi_buf p, data;
  hudi_buf_init(&p, PATH_MAX_LEN);
  hudi_buf_init(&data, HUDI_TL_MAX_FILE);
  hudi_status st = tl_path(&p, x, name, err);
  hudi_error e2 = HUDI_ERROR_INIT;
  if (st == HUDI_OK) {
    hudi_status rs = hudi_storage_read_all(x->s, (const char *)p.data, HUDI_TL_MAX_FILE, &data, &e2);
    if (rs == HUDI_OK && data.len > 0) {
      hudi_rollback_plan *plan = NULL;
      if (hudi_rollback_plan_parse(&plan, data.data, data.len, name, &e2) == HUDI_OK) {
        if (plan->instant_to_rollback && plan->instant_to_rollback->commit_time) *out = plan;
        else hudi_rollback_plan_free(plan);
      }
    } else if (rs != HUDI_OK && rs != HUDI_ERR_NOT_FOUND) {
      st = hudi_err_set(err, rs, "%s", e2.message);
    }
  }
  hudi_buf_free(&p);
  hudi_buf_free(&data);
  return st;
}

/* ---- running it ------------------------------------------------------- */

static hudi_status part_meta(hudi_rollback_metadata *m, const char *partition, hudi_rollback_partition_metadata **out,
                             hudi_error *err) {
  hudi_rollback_partition_entry *e = m->partition_metadata.items;
  for (size_t i = 0; i < m->partition_metadata.n; i++)
    if (!strcmp(e[i].key, partition)) return *out = &e[i].value, HUDI_OK;
  hudi_avro_arena *a = &m->doc.arena;
  hudi_rollback_partition_entry *n;
  HUDI_TRY(hudi_tl_list_push(&m->partition_metadata, a, sizeof *n, (void **)&n, err));
  HUDI_TRY(hudi_tl_strdup(a, partition, &n->key, err));
  HUDI_TRY(hudi_tl_strdup(a, partition, &n->value.partition_path, err));
  n->value.success_delete_files.has = n->value.failed_delete_files.has = 1;
  n->value.rollback_log_files.has = n->value.log_files_from_failed_commit.has = 1;
  *out = &n->value;
  return HUDI_OK;
}

/* Whether s can hold temporaries at all: the local backend (and the
 * fault-injecting one over it) writes files beside their final name and
 * renames them; object stores put whole objects, so listing for
 * temporaries there would only cost requests. */
static bool has_temps(const hudi_storage *s) {
  const char *b = hudi_storage_backend_name(s);
  return !strcmp(b, "local") || !strcmp(b, "faulty");
}

/* Whether file name `name` holds instant time t as a whole field: after
 * '_' or '.' and before '.' or '_' (a base file's "_T.parquet", a log
 * file's "_T.log.", a timeline file's ".T." or ".T_C."), not inside a
 * longer number. */
static bool names_instant(const char *name, const char *t) {
  size_t n = strlen(t);
  if (!n) return false;
  for (const char *p = strstr(name, t); p; p = strstr(p + 1, t))
    if (p > name && (p[-1] == '_' || p[-1] == '.') && (p[n] == '.' || p[n] == '_')) return true;
  return false;
}

hudi_status hudi_delete_instant_temps(hudi_storage *s, const char *dir, const char *instant, hudi_error *err) {
  if (!has_temps(s)) return HUDI_OK;
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, HUDI_LIST_INCLUDE_TEMP, &l, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    const char *name = base_name(l.items[i].path);
    if (!l.items[i].is_dir && hudi_storage_is_temp_name(name) && names_instant(name, instant))
      st = delete_file(s, l.items[i].path, err);
  }
  hudi_file_list_free(&l);
  return st;
}

/* hudi_delete_instant_temps in directory rel of x. */
static hudi_status delete_temps(const hudi_rb_target *x, const char *rel, const char *instant, hudi_error *err) {
  hudi_buf dir;
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_status st = hudi_buf_printf(&dir, err, "%s%s%s%c", x->dir, *x->dir && *rel ? "/" : "", rel, '\0');
  if (st == HUDI_OK) st = hudi_delete_instant_temps(x->s, (const char *)dir.data, instant, err);
  hudi_buf_free(&dir);
  return st;
}

/* Whether temporary `name` is that of a log file of a file group some
 * request of the plan in partition `part` names: on table version 6 a log
 * file carries its slice's base instant, not the instant that wrote it.
 * Under the table lock nobody else appends to those groups. */
static bool plan_log_temp(const hudi_rollback_plan *plan, const char *part, const char *name) {
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  for (size_t i = 0; i < plan->rollback_requests.n; i++) {
    const char *p = rq[i].partition_path ? rq[i].partition_path : "";
    const char *fid = rq[i].file_id, *base = rq[i].latest_base_instant;
    if (strcmp(p, part) || !fid || !*fid || !base || !*base) continue;
    size_t fl = strlen(fid), bl = strlen(base);
    if (!strncmp(name, "..", 2) && !strncmp(name + 2, fid, fl) && name[2 + fl] == '_' &&
        !strncmp(name + 3 + fl, base, bl) && !strncmp(name + 3 + fl + bl, ".log.", 5))
      return true;
  }
  return false;
}

/* The temporaries of instant's files in every partition the plan names
 * (its markers name each file before the file is opened, so a killed
 * write's temporaries are in these partitions): named with the instant,
 * or (layout 1) log files of the plan's file groups. */
static hudi_status delete_plan_temps(const hudi_rb_target *x, const hudi_rollback_plan *plan, const char *instant,
                                     hudi_error *err) {
  hudi_hashmap seen;
  hudi_hashmap_init(&seen, 0);
  hudi_buf dir;
  hudi_buf_init(&dir, PATH_MAX_LEN);
  hudi_status st = HUDI_OK;
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  for (size_t i = 0; st == HUDI_OK && i < plan->rollback_requests.n; i++) {
    const char *part = rq[i].partition_path ? rq[i].partition_path : "";
    if (hudi_hashmap_get(&seen, part, strlen(part), NULL)) continue;
    st = hudi_hashmap_put(&seen, part, strlen(part), (hudi_hashmap_value){.u64 = 0}, NULL, NULL, err);
    hudi_buf_reset(&dir);
    if (st == HUDI_OK) st = hudi_buf_printf(&dir, err, "%s%s%s%c", x->dir, *x->dir && *part ? "/" : "", part, '\0');
    hudi_file_list l = HUDI_FILE_LIST_INIT;
    if (st == HUDI_OK) st = hudi_storage_list(x->s, (const char *)dir.data, HUDI_LIST_INCLUDE_TEMP, &l, err);
    for (size_t k = 0; st == HUDI_OK && k < l.count; k++) {
      const char *name = base_name(l.items[k].path);
      if (l.items[k].is_dir || !hudi_storage_is_temp_name(name)) continue;
      if (names_instant(name, instant) || (x->tl->layout < 2 && plan_log_temp(plan, part, name)))
        st = delete_file(x->s, l.items[k].path, err);
    }
    hudi_file_list_free(&l);
  }
  hudi_buf_free(&dir);
  hudi_hashmap_free(&seen);
  return st;
}

/* The metadata table writes no markers: its plans come from listing
 * committed names, which a log file killed before its rename is not, so
 * every MDT partition is looked at. */
static hudi_status delete_mdt_temps(const hudi_rb_target *x, const char *instant, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(x->s, x->dir, 0, &l, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++)
    if (l.items[i].is_dir && strcmp(base_name(l.items[i].path), ".hoodie") != 0)
      st = hudi_delete_instant_temps(x->s, l.items[i].path, instant, err);
  hudi_file_list_free(&l);
  return st;
}

/* Deletes the plan's files; fills m's partition metadata. */
static hudi_status execute(const hudi_rb_target *x, const hudi_rollback_plan *plan, const char *instant,
                           const char *rollback_time, hudi_rollback_metadata *m, int32_t *deleted, hudi_error *err) {
  hudi_buf rel, path;
  hudi_buf_init(&rel, PATH_MAX_LEN);
  hudi_buf_init(&path, PATH_MAX_LEN);
  hudi_rb_dirs *dirs = NULL;
  hudi_status st = hudi_rb_dirs_new(&dirs, err);
  const hudi_rollback_request *rq = plan->rollback_requests.items;
  for (size_t i = 0; st == HUDI_OK && i < plan->rollback_requests.n; i++) {
    const char *part = rq[i].partition_path ? rq[i].partition_path : "";
    if (rq[i].log_blocks_to_be_deleted.n > 0 && x->tl->layout >= 2) {
      st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "the rollback plan of %s asks for rollback command blocks in partition '%s' on a table of "
                        "version 8 or 9, whose rollbacks delete log files",
                        instant, part);
      break;
    }
    hudi_rollback_partition_metadata *pm;
    st = part_meta(m, part, &pm, err);
    if (st == HUDI_OK && rq[i].log_blocks_to_be_deleted.n > 0)
      st = hudi_rb_write_command_block(x, dirs, &rq[i], rollback_time, instant, m, pm, err);
    char *const *files = rq[i].files_to_be_deleted.items;
    for (size_t k = 0; st == HUDI_OK && k < rq[i].files_to_be_deleted.n; k++) {
      const char *name = base_name(files[k]);
      bool is_log;
      char fid[HUDI_FILE_ID_MAX];
      hudi_buf_reset(&rel);
      st = hudi_buf_printf(&rel, err, "%s%s%s%c", part, *part ? "/" : "", name, '\0');
      if (st == HUDI_OK) st = table_path(&path, x, (const char *)rel.data, err);
      if (st != HUDI_OK) break;
      if (!written_by(name, instant, &is_log, fid)) {
        /* A plan of another engine naming a file of another instant: keep it. */
        st = hudi_tl_strs_push(&pm->failed_delete_files, &m->doc.arena, files[k], err);
        continue;
      }
      /* A file already gone (a repeated rollback, or a crash before it was
       * written) counts as deleted, as Hudi's delete of a missing file does. */
      st = delete_file(x->s, (const char *)path.data, err);
      if (st == HUDI_OK) st = hudi_tl_strs_push(&pm->success_delete_files, &m->doc.arena, files[k], err);
      if (st == HUDI_OK) (*deleted)++;
    }
  }
  hudi_rb_dirs_free(dirs);
  hudi_buf_free(&rel);
  hudi_buf_free(&path);
  return st;
}

static hudi_status new_metadata(hudi_rollback_metadata **out, const char *r, const char *instant, const char *action,
                                hudi_error *err) {
  hudi_rollback_metadata *m = NULL;
  HUDI_TRY(hudi_rollback_metadata_new(&m, err));
  hudi_avro_arena *a = &m->doc.arena;
  hudi_status st = hudi_tl_strdup(a, r, &m->start_rollback_time, err);
  if (st == HUDI_OK) st = hudi_tl_strs_push(&m->commits_rollback, a, instant, err);
  m->partition_metadata.has = 1;
  m->version = (hudi_tl_int){1, 1};
  hudi_rollback_instant *ri = NULL;
  if (st == HUDI_OK) st = hudi_tl_list_push(&m->instants_rollback, a, sizeof *ri, (void **)&ri, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, instant, &ri->commit_time, err);
  if (st == HUDI_OK) st = hudi_tl_strdup(a, action, &ri->action, err);
  if (st != HUDI_OK) {
    hudi_rollback_metadata_free(m);
    return st;
  }
  *out = m;
  return HUDI_OK;
}

/* Deletes T's pending timeline files (inflight first, as Hudi's
 * deletePending), its markers and its heartbeat. */
static hudi_status forget_instant(const hudi_rb_target *x, const char *instant, const char *action, hudi_error *err) {
  char name[128];
  HUDI_TRY(instant_name(name, sizeof name, x, instant, "", action, HUDI_INSTANT_INFLIGHT, err));
  HUDI_TRY(delete_tl(x, name, err));
  HUDI_TRY(instant_name(name, sizeof name, x, instant, "", action, HUDI_INSTANT_REQUESTED, err));
  HUDI_TRY(delete_tl(x, name, err));
  if (*x->dir) return HUDI_OK;
  hudi_buf p;
  hudi_buf_init(&p, PATH_MAX_LEN);
  hudi_status st = hudi_buf_printf(&p, err, ".hoodie/.temp/%s%c", instant, '\0');
  if (st == HUDI_OK)
    st = hudi_storage_delete(x->s, (const char *)p.data, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err);
  hudi_buf_reset(&p);
  if (st == HUDI_OK) st = hudi_buf_printf(&p, err, ".hoodie/.heartbeat/%s%c", instant, '\0');
  if (st == HUDI_OK) st = hudi_storage_delete(x->s, (const char *)p.data, HUDI_DELETE_MISSING_OK, err);
  hudi_buf_free(&p);
  return st;
}

hudi_status hudi_rb_run(hudi_rollback_result *res, const hudi_rb_target *x, const char *instant, const char *action,
                        const hudi_instant *in_t, const char *rollback_time, const hudi_rollback_plan *plan,
                        bool use_markers, hudi_rb_step_fn mdt_step, void *mdt_ctx, hudi_instant_gen *gen,
                        hudi_error *err) {
  int64_t start_ms = hudi_clock_realtime_ms(NULL);
  hudi_rollback_plan *own = NULL;
  hudi_rollback_metadata *m = NULL;
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_TL_MAX_FILE);
  char name[128], done[HUDI_INSTANT_TIME_BUF];
  /* The requested action of T names its pending files. */
  const char *pending_action = in_t ? in_t->requested_action : action;
  hudi_status st = HUDI_OK;
  if (!plan) {
    st = make_plan(&own, x, instant, action, in_t, use_markers, err);
    if (st == HUDI_OK) st = hudi_rollback_plan_to_avro(own, NULL, &avro, err);
    if (st == HUDI_OK) st = instant_name(name, sizeof name, x, rollback_time, "", "rollback", HUDI_INSTANT_REQUESTED, err);
    if (st == HUDI_OK) st = write_tl(x, name, avro.data, avro.len, false, err);
    plan = own;
  }
  if (st == HUDI_OK) st = instant_name(name, sizeof name, x, rollback_time, "", "rollback", HUDI_INSTANT_INFLIGHT, err);
  if (st == HUDI_OK) st = write_tl(x, name, "", 0, true, err);
  /* A completed T goes back to inflight first (revertToInflight): from here
   * on no reader sees its files. */
  if (st == HUDI_OK && in_t && in_t->state == HUDI_INSTANT_COMPLETED) st = delete_tl(x, in_t->file_name, err);
  int32_t deleted = 0;
  const char *info_action = plan && plan->instant_to_rollback && plan->instant_to_rollback->action
                                ? plan->instant_to_rollback->action
                                : action;
  if (st == HUDI_OK) st = new_metadata(&m, rollback_time, instant, info_action, err);
  if (st == HUDI_OK) st = execute(x, plan, instant, rollback_time, m, &deleted, err);
  if (st == HUDI_OK && has_temps(x->s)) st = delete_plan_temps(x, plan, instant, err);
  if (st == HUDI_OK && has_temps(x->s) && *x->dir) st = delete_mdt_temps(x, instant, err);
  if (st == HUDI_OK && has_temps(x->s)) st = delete_temps(x, x->tl->dir, instant, err);
  if (st == HUDI_OK && mdt_step) st = mdt_step(mdt_ctx, gen, err);
  if (st == HUDI_OK) st = forget_instant(x, instant, pending_action, err);
  if (st == HUDI_OK) st = hudi_instant_gen_next(gen, done, NULL, err);
  if (st == HUDI_OK) {
    m->total_files_deleted = (hudi_tl_int){deleted, 1};
    int64_t took = hudi_clock_realtime_ms(NULL) - start_ms;
    m->time_taken_in_millis = hudi_tl_some_long(took > 0 ? took : 0);
    hudi_buf_reset(&avro);
    st = hudi_rollback_metadata_to_avro(m, NULL, &avro, err);
  }
  if (st == HUDI_OK) st = instant_name(name, sizeof name, x, rollback_time, done, "rollback", HUDI_INSTANT_COMPLETED, err);
  if (st == HUDI_OK) st = write_tl(x, name, avro.data, avro.len, false, err);
  /* Layout 1: the completed file's mtime is the completion time (write.h). */
  if (st == HUDI_OK && x->tl->layout < 2 && x->table) {
    hudi_buf p;
    hudi_buf_init(&p, PATH_MAX_LEN);
    if (tl_path(&p, x, name, NULL) == HUDI_OK) hudi_write_stamp_completion(x->table, (const char *)p.data, done);
    hudi_buf_free(&p);
  }
  if (st == HUDI_OK && res) {
    snprintf(res->rolled_back_instant, sizeof res->rolled_back_instant, "%s", instant);
    snprintf(res->requested_time, sizeof res->requested_time, "%s", rollback_time);
    snprintf(res->completion_time, sizeof res->completion_time, "%s", done);
    res->num_files_deleted = deleted;
  }
  hudi_buf_free(&avro);
  hudi_rollback_metadata_free(m);
  hudi_rollback_plan_free(own);
  return st;
}

/* ---- the data table --------------------------------------------------- */

typedef struct mdt_ctx {
  hudi_storage *s;
  const char *instant, *rollback_time;
} mdt_ctx;

static hudi_status mdt_step(void *ctx, hudi_instant_gen *gen, hudi_error *err) {
  mdt_ctx *c = ctx;
  return hudi_mdt_rollback(c->s, c->instant, c->rollback_time, gen, err);
}

typedef struct pending_rb {
  const hudi_instant *r;
  hudi_rollback_plan *plan;
} pending_rb;

static void pending_free(pending_rb *p, size_t n) {
  for (size_t i = 0; i < n; i++) hudi_rollback_plan_free(p[i].plan);
  hudi_free(p);
}

/* The data timeline's pending rollbacks with a readable plan. */
static hudi_status pending_rollbacks(pending_rb **out, size_t *n, const hudi_rb_target *x, hudi_error *err) {
  *out = NULL;
  *n = 0;
  pending_rb *p = hudi_calloc(x->tl->count + 1, sizeof *p);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < x->tl->count; i++) {
    const hudi_instant *in = &x->tl->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED || strcmp(in->action, "rollback") != 0) continue;
    hudi_rollback_plan *plan = NULL;
    hudi_status st = hudi_rb_read_plan(&plan, x, in, err);
    if (st != HUDI_OK) {
      pending_free(p, *n);
      return st;
    }
    if (!plan) continue;
    p[*n].r = in;
    p[(*n)++].plan = plan;
  }
  *out = p;
  return HUDI_OK;
}

static const pending_rb *pending_for(const pending_rb *p, size_t n, const char *instant) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(p[i].plan->instant_to_rollback->commit_time, instant)) return &p[i];
  return NULL;
}

/* Rolls back T on t (+ MDT), resuming pr when given, else with a new
 * rollback instant from gen. */
static hudi_status rollback_one(hudi_rollback_result *res, hudi_table *t, const hudi_rb_target *x,
                                const char *instant, const pending_rb *pr, hudi_instant_gen *gen, hudi_error *err) {
  const hudi_instant *in_t = hudi_timeline_find(x->tl, instant);
  char r[HUDI_INSTANT_TIME_MAX];
  if (pr) snprintf(r, sizeof r, "%s", pr->r->requested_time);
  else HUDI_TRY(hudi_instant_gen_next(gen, r, NULL, err));
  const char *action = in_t ? (in_t->state == HUDI_INSTANT_COMPLETED ? in_t->action : in_t->requested_action)
                            : pr->plan->instant_to_rollback->action;
  if (!action) action = "commit";
  mdt_ctx mc = {t->storage, instant, r};
  /* Table version 6: hudi-c writes no metadata table there (write.c). */
  bool mdt = x->tl->layout >= 2;
  return hudi_rb_run(res, x, instant, action, in_t, r, pr ? pr->plan : NULL, true, mdt ? mdt_step : NULL, &mc, gen,
                     err);
}

static bool is_write_action(const char *a) {
  return !strcmp(a, "commit") || !strcmp(a, "deltacommit") || !strcmp(a, "replacecommit");
}

/* A generator past every time of t's timeline and (with_mdt) its MDT's. */
static hudi_status start_gen(hudi_instant_gen *gen, hudi_table *t, bool with_mdt, hudi_error *err) {
  char unused[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_write_pick_instant(gen, t, unused, err));
  if (!with_mdt) return HUDI_OK;
  /* The MDT's times too: its rollback instant has the data rollback's time. */
  hudi_timeline mdt;
  memset(&mdt, 0, sizeof mdt);
  HUDI_TRY(hudi_timeline_load(&mdt, t->storage, HUDI_MDT_DIR, 2, err));
  hudi_timeline_observe_times(&mdt, gen);
  hudi_timeline_free(&mdt);
  return HUDI_OK;
}

hudi_status hudi_rollback_run_instant(hudi_rollback_result *res, hudi_table *t, const char *instant, hudi_error *err) {
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  hudi_rb_target x = {t->storage, "", &t->timeline, t};
  pending_rb *p;
  size_t n;
  HUDI_TRY(pending_rollbacks(&p, &n, &x, err));
  const pending_rb *pr = pending_for(p, n, instant);
  hudi_instant_gen gen;
  hudi_status st = HUDI_OK;
  if (!pr && !hudi_timeline_find(&t->timeline, instant))
    st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "table %s has no instant %s", t->base_uri, instant);
  if (st == HUDI_OK) st = start_gen(&gen, t, t->layout >= 2, err);
  if (st == HUDI_OK) st = rollback_one(res, t, &x, instant, pr, &gen, err);
  pending_free(p, n);
  hudi_status rs = hudi_write_reload_timeline(t, st == HUDI_OK ? err : NULL);
  return st == HUDI_OK ? rs : st;
}

/* An MDT-only rollback instant is on no data timeline, so the write that
 * follows could pick its time for its own instant (and MDT deltacommit):
 * wait until the clock has passed every time gen handed out. */
static hudi_status wait_past(hudi_instant_gen *gen, hudi_error *err) {
  char last[HUDI_INSTANT_TIME_BUF];
  int64_t ms;
  HUDI_TRY(hudi_instant_gen_next(gen, last, &ms, err));
  for (int i = 0; i < 5000 && hudi_clock_realtime_ms(NULL) <= ms; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  return HUDI_OK;
}

static int cmp_desc(const void *a, const void *b) {
  return strcmp(*(const char *const *)b, *(const char *const *)a);
}

typedef enum { POLICY_EAGER, POLICY_LAZY, POLICY_NEVER } failed_policy;

static hudi_status policy_of(failed_policy *out, hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  const char *v = hudi_write_option(t, opts, n, "hoodie.cleaner.policy.failed.writes");
  *out = POLICY_EAGER;
  if (!v || !strcasecmp(v, "EAGER")) return HUDI_OK;
  if (!strcasecmp(v, "LAZY")) return *out = POLICY_LAZY, HUDI_OK;
  if (!strcasecmp(v, "NEVER")) return *out = POLICY_NEVER, HUDI_OK;
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.cleaner.policy.failed.writes is '%s': use EAGER, LAZY or NEVER",
                      v);
}

/* The process id in temporary name ".<name>.<pid>-<n>.hudi-tmp"; 0 when
 * name is no such name. */
static long temp_pid(const char *name) {
  if (!hudi_storage_is_temp_name(name)) return 0;
  const char *end = name + strlen(name) - strlen(".hudi-tmp");
  const char *dash = end;
  while (dash > name && *dash != '-') dash--;
  const char *dot = dash;
  while (dot > name && *dot != '.') dot--;
  if (dash <= name || *dot != '.' || dash - dot - 1 < 1 || dash - dot - 1 > 9) return 0;
  long pid = 0;
  for (const char *c = dot + 1; c < dash; c++) {
    if (*c < '0' || *c > '9') return 0;
    pid = pid * 10 + (*c - '0');
  }
  return pid;
}

/* Whether temporary `name` is that of a timeline file: its real name
 * (after the leading '.') starts with an instant time, then '.' or '_'.
 * Other temporaries may sit in the same folder -- on version 6 the
 * timeline folder is .hoodie, where a writer waiting for the table lock
 * writes the lock file's temporary outside the lock. */
static bool timeline_temp(const char *name) {
  size_t d = 0;
  while (name[1 + d] >= '0' && name[1 + d] <= '9') d++;
  return d >= 14 && (name[1 + d] == '.' || name[1 + d] == '_');
}

/* A temporary of the lock file (".lock.<pid>-<n>.hudi-tmp", version 6:
 * the lock sits in the timeline folder) whose process no longer runs on
 * this host. A live writer's exists only between its write and its link
 * (and if it ran on another host sharing the folder, its link fails with
 * NOT_FOUND and hudi_table_lock_acquire tries again). */
static bool dead_lock_temp(const char *name, long pid) {
  return !strncmp(name, ".lock.", 6) && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Deletes the timeline-file temporaries another process left in timeline
 * directory dir: timeline files are written only under the table lock,
 * which this writer holds, so such a file is a dead writer's (killed between writing
 * and renaming an instant file, e.g. a clean's requested plan, whose
 * instant then never reached the timeline and is rolled back by nobody).
 * This process's own are its background services' (their instant files
 * are written under the lock too, but they are not ours to judge).
 * Local storage only: object stores put objects whole, with no
 * temporaries. */
static hudi_status sweep_timeline_temps(hudi_storage *s, const char *dir, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, HUDI_LIST_INCLUDE_TEMP, &l, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    const char *name = base_name(l.items[i].path);
    long pid = temp_pid(name);
    if (!l.items[i].is_dir && pid > 0 && pid != (long)getpid() && (timeline_temp(name) || dead_lock_temp(name, pid)))
      st = delete_file(s, l.items[i].path, err);
  }
  hudi_file_list_free(&l);
  return st;
}

/* Deletes the marker directories (.hoodie/.temp/<T>) of instants the
 * timeline holds completed: a writer killed between its commit and the
 * deletion of its markers leaves them, and Java deletes such leftovers
 * only when it archives T (deleteAnyLeftOverMarkers). */
static hudi_status sweep_completed_markers(hudi_table *t, hudi_error *err) {
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->storage, ".hoodie/.temp", 0, &l, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < l.count; i++) {
    if (!l.items[i].is_dir) continue;
    const hudi_instant *in = hudi_timeline_find(&t->timeline, base_name(l.items[i].path));
    if (in && in->state == HUDI_INSTANT_COMPLETED)
      st = hudi_storage_delete(t->storage, l.items[i].path, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err);
  }
  hudi_file_list_free(&l);
  return st;
}

hudi_status hudi_rollback_failed_writes(hudi_table *t, const hudi_option *opts, size_t n_opts, size_t *n_rolled_back,
                                        hudi_error *err) {
  if (n_rolled_back) *n_rolled_back = 0;
  failed_policy policy;
  HUDI_TRY(policy_of(&policy, t, opts, n_opts, err));
  if (policy == POLICY_NEVER) return HUDI_OK;
  hudi_rb_target x = {t->storage, "", &t->timeline, t};
  pending_rb *p;
  size_t np;
  HUDI_TRY(pending_rollbacks(&p, &np, &x, err));
  /* Targets: pending writes, and what pending rollbacks were undoing. */
  const char **targets = hudi_calloc(t->timeline.count + np + 1, sizeof *targets);
  hudi_status st = targets ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t nt = 0;
  for (size_t i = 0; st == HUDI_OK && i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state == HUDI_INSTANT_COMPLETED || !is_write_action(in->requested_action)) continue;
    /* Layout 1: a replacecommit may be a clustering, left to its job as
     * Hudi leaves it (getInflightTimelineExcludeCompactionAndClustering). */
    bool clustering = false;
    st = hudi_clustering_is_pending(&clustering, t, in, err);
    if (st != HUDI_OK) break;
    if (clustering) continue;
    if (policy == POLICY_LAZY && !pending_for(p, np, in->requested_time)) {
      bool alive = false;
      st = hudi_heartbeat_alive(&alive, t, in->requested_time, 0, 0, err);
      if (st != HUDI_OK || alive) continue;
    }
    targets[nt++] = in->requested_time;
  }
  for (size_t i = 0; st == HUDI_OK && i < np; i++) {
    const char *c = p[i].plan->instant_to_rollback->commit_time;
    bool dup = false;
    for (size_t k = 0; k < nt && !dup; k++) dup = !strcmp(targets[k], c);
    if (!dup) targets[nt++] = c;
  }
  if (st == HUDI_OK) qsort(targets, nt, sizeof *targets, cmp_desc);
  hudi_instant_gen gen;
  bool mdt = t->layout >= 2; /* version 6: no metadata table of hudi-c's (write.c) */
  if (st == HUDI_OK && nt) st = start_gen(&gen, t, mdt, err);
  for (size_t i = 0; st == HUDI_OK && i < nt; i++)
    st = rollback_one(NULL, t, &x, targets[i], pending_for(p, np, targets[i]), &gen, err);
  if (st == HUDI_OK && n_rolled_back) *n_rolled_back = nt;
  hudi_free(targets);
  pending_free(p, np);
  if (st == HUDI_OK && nt) st = hudi_write_reload_timeline(t, err);
  /* A killed writer's other leftovers, where a listing costs no request
   * (object stores put whole objects: no temporaries; their marker
   * directories go with archival, as in Java). */
  if (st == HUDI_OK && has_temps(t->storage)) st = sweep_timeline_temps(t->storage, t->timeline.dir, err);
  if (st == HUDI_OK && has_temps(t->storage)) st = sweep_completed_markers(t, err);
  if (st == HUDI_OK && mdt && has_temps(t->storage))
    st = sweep_timeline_temps(t->storage, HUDI_MDT_DIR "/.hoodie/timeline", err);
  if (!mdt) return st;
  /* The MDT's own leftovers (a pending MDT deltacommit without a data
   * instant is a write that failed between the two timelines). */
  if (st == HUDI_OK && !nt) st = start_gen(&gen, t, false, err); /* the MDT step observes its own */
  size_t mdt_only = 0;
  if (st == HUDI_OK) st = hudi_mdt_rollback_failed(t->storage, &t->timeline, &gen, &mdt_only, err);
  if (st == HUDI_OK && mdt_only) st = wait_past(&gen, err);
  return st;
}

hudi_status hudi_rollback_mdt_attempt(hudi_table *t, const char *instant, hudi_error *err) {
  if (t->layout < 2) return HUDI_OK; /* version 6: hudi-c writes no metadata table */
  hudi_instant_gen gen;
  char r[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(start_gen(&gen, t, true, err));
  HUDI_TRY(hudi_instant_gen_next(&gen, r, NULL, err));
  HUDI_TRY(hudi_mdt_rollback(t->storage, instant, r, &gen, err));
  /* The rollback instant r is on no data timeline: the next instant this
   * writer picks must come after it. */
  return wait_past(&gen, err);
}

/* ---- hudi_table_rollback ---------------------------------------------- */

static bool is_pending_write(const hudi_instant *in) {
  return in->state != HUDI_INSTANT_COMPLETED && is_write_action(in->requested_action);
}

/* Hudi's validateRollbackCommitSequence and the limits of this rollback. */
static hudi_status check_rollback(hudi_table *t, const hudi_instant *in, hudi_error *err) {
  const hudi_timeline *tl = &t->timeline;
  const char *T = in->requested_time;
  for (size_t i = 0; i < tl->count; i++)
    if (!strcmp(tl->items[i].action, "savepoint") && !strcmp(tl->items[i].requested_time, T))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "instant %s of table %s is savepointed; delete the savepoint first",
                          T, t->base_uri);
  bool clustering = false;
  HUDI_TRY(hudi_clustering_is_pending(&clustering, t, in, err));
  if (clustering)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "instant %s of table %s is a pending clustering (a replacecommit with a clustering plan); "
                        "hudi_table_rollback rolls back writes",
                        T, t->base_uri);
  if (!is_write_action(in->requested_action)) {
    if (in->state == HUDI_INSTANT_COMPLETED && (!strcmp(in->requested_action, "compaction") ||
                                                !strcmp(in->requested_action, "logcompaction")))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "instant %s of table %s is a completed %s: a compaction changes no data and cannot be "
                          "rolled back (Hudi restores to a savepoint instead)",
                          T, t->base_uri, in->requested_action);
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "instant %s of table %s is a %s %s; hudi_table_rollback rolls back a pending write or the "
                        "latest completed write (commit, deltacommit or replacecommit)",
                        T, t->base_uri, in->state == HUDI_INSTANT_COMPLETED ? "completed" : "pending",
                        in->requested_action);
  }
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *o = &tl->items[i];
    if (o == in || strcmp(o->requested_time, T) <= 0) {
      if (o != in && in->state == HUDI_INSTANT_COMPLETED && is_pending_write(o))
        return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                            "table %s has a pending write %s: roll it back before rolling back completed instant %s",
                            t->base_uri, o->requested_time, T);
      continue;
    }
    bool completed_write = o->state == HUDI_INSTANT_COMPLETED &&
                           (is_write_action(o->requested_action) || !strcmp(o->requested_action, "compaction") ||
                            !strcmp(o->requested_action, "logcompaction"));
    if (completed_write || is_pending_write(o))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "instant %s of table %s is not the latest write: %s %s (%s) came after it; roll back the "
                          "latest first",
                          T, t->base_uri, o->state == HUDI_INSTANT_COMPLETED ? "completed" : "pending",
                          o->requested_action, o->requested_time);
  }
  return HUDI_OK;
}

hudi_status hudi_table_rollback(hudi_rollback_result *result, hudi_table *table, const char *instant,
                                const hudi_option *options, size_t n_options, hudi_error *err) {
  hudi_rollback_result dummy;
  hudi_rollback_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table || !instant || !*instant)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_rollback needs a table and an instant");
  if (strlen(instant) >= HUDI_INSTANT_TIME_MAX)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%.40s' is not an instant time", instant);
  const char *mdt6 = table->layout < 2 ? hudi_props_get(&table->props, "hoodie.table.metadata.partitions") : NULL;
  if (mdt6 && *mdt6)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s (table version %d) has a metadata table (%s), which hudi-c cannot update in version "
                        "6; a write with hoodie.metadata.enable=false deletes it (and rolls back failed writes)",
                        table->base_uri, table->version, mdt6);
  const hudi_option *o = options ? options : NULL;
  size_t n = options ? n_options : 0;
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_table_lock_acquire(&lock, table, o, n, err));
  hudi_status st = hudi_write_reload_timeline(table, err);
  const hudi_instant *in = st == HUDI_OK ? hudi_timeline_find(&table->timeline, instant) : NULL;
  if (st == HUDI_OK && in) st = check_rollback(table, in, err);
  /* Before anything is deleted: a rollback the metadata table refuses
   * (validateRollback) must leave the table as it was. */
  if (st == HUDI_OK && in && table->layout >= 2) st = hudi_mdt_rollback_check(table->storage, instant, err);
  /* Without the instant, only a pending rollback of it can be finished. */
  if (st == HUDI_OK) st = hudi_rollback_run_instant(res, table, instant, err);
  hudi_table_lock_release(&lock, table);
  return st;
}
