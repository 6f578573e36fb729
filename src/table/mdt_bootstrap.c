/* Building the metadata table of an existing table (see mdt_bootstrap.h). */
#include "table/mdt_bootstrap.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "arrow/view.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "expr/value.h"
#include "table/commit_metadata.h"
#include "table/index_defs.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_drop.h"
#include "table/mdt_init.h"
#include "table/mdt_instants.h"
#include "table/mdt_reader.h"
#include "table/mdt_write.h"
#include "table/mdt_write_common.h"
#include "table/read_plan.h"
#include "table/write.h"
#include "table/write_mdt.h"
#include "table/write_schema.h"

#define ENABLE_KEY "hoodie.metadata.enable"
#define RLI_KEY "hoodie.metadata.record.index.enable"
#define PARTITIONS_KEY "hoodie.table.metadata.partitions"
#define INFLIGHT_KEY "hoodie.table.metadata.partitions.inflight"
#define DEFS_PATH_KEY "hoodie.table.index.defs.path"

bool hudi_mdt_bootstrap_requested(const hudi_option *opts, size_t n) {
  for (size_t i = n; opts && i-- > 0;)
    if (opts[i].key && opts[i].value && !strcmp(opts[i].key, ENABLE_KEY)) return !strcasecmp(opts[i].value, "true");
  return false;
}

/* What the bootstrap gathers: every committed file, and each key of the
 * latest slices with its file group (strings in the plan's view). */
typedef struct gathered {
  hudi_mdt_file_change *files;
  size_t n_files, cap_files;
  hudi_mdt_key_change *keys;
  size_t n_keys, cap_keys;
  size_t *key_off; /* keys[i].key is key_bytes + key_off[i] once all are read */
  hudi_buf key_bytes;
  /* The record-index instantTime of each file group, by its file_id
   * pointer (sorted by pointer for the lookup). */
  struct group_ms {
    const char *file_id;
    int64_t ms;
  } *group_ms;
  size_t n_group_ms;
  hudi_read_plan *plan; /* holds the strings above: freed last */
} gathered;

static void gathered_free(gathered *g) {
  hudi_free(g->files);
  hudi_free(g->keys);
  hudi_free(g->key_off);
  hudi_buf_free(&g->key_bytes);
  hudi_free(g->group_ms);
  hudi_read_plan_free(g->plan);
}

static hudi_status add_file(gathered *g, const char *partition, const char *path, uint64_t size, hudi_error *err) {
  /* A zero-byte file holds nothing a reader could use (Hudi writes none;
   * the files partition must list sizes > 0). */
  if (size == 0) return HUDI_OK;
  if (g->n_files == g->cap_files) {
    size_t cap = g->cap_files ? g->cap_files * 2 : 64;
    hudi_mdt_file_change *f = hudi_realloc(g->files, cap * sizeof *f);
    if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata bootstrap: file list");
    g->files = f;
    g->cap_files = cap;
  }
  const char *slash = strrchr(path, '/');
  g->files[g->n_files++] = (hudi_mdt_file_change){partition, slash ? slash + 1 : path, (int64_t)size, false};
  return HUDI_OK;
}

static hudi_status add_slice_files(gathered *g, const char *partition, const hudi_file_slice *sl, hudi_error *err) {
  if (sl->base) HUDI_TRY(add_file(g, partition, sl->base->path, sl->base->size, err));
  for (size_t l = 0; l < sl->n_logs; l++) HUDI_TRY(add_file(g, partition, sl->logs[l].path, sl->logs[l].size, err));
  return HUDI_OK;
}

/* Every base and log file of every slice the listing found visible. */
static hudi_status gather_files(gathered *g, const hudi_fsview *v, hudi_error *err) {
  for (size_t i = 0; i < v->n_groups; i++)
    for (size_t s = 0; s < v->groups[i].n_slices; s++)
      HUDI_TRY(add_slice_files(g, v->groups[i].partition, &v->groups[i].slices[s], err));
  return HUDI_OK;
}

/* The files of the plan's slices (the latest merged slice of each file
 * group a snapshot reads: replaced groups left out) into g->files. */
static hudi_status gather_latest(gathered *g, const hudi_read_plan *p, hudi_error *err) {
  for (size_t i = 0; i < p->n_slices; i++)
    HUDI_TRY(add_slice_files(g, p->slices[i].group->partition, p->slices[i].slice, err));
  return HUDI_OK;
}

static hudi_status add_key(gathered *g, const hudi_file_group *fg, const uint8_t *key, size_t len, hudi_error *err) {
  if (g->n_keys == g->cap_keys) {
    size_t cap = g->cap_keys ? g->cap_keys * 2 : 4096;
    hudi_mdt_key_change *k = hudi_realloc(g->keys, cap * sizeof *k);
    if (!k) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata bootstrap: keys");
    g->keys = k;
    size_t *o = hudi_realloc(g->key_off, cap * sizeof *o);
    if (!o) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata bootstrap: keys");
    g->key_off = o;
    g->cap_keys = cap;
  }
  g->key_off[g->n_keys] = g->key_bytes.len;
  g->keys[g->n_keys++] = (hudi_mdt_key_change){NULL, len, fg->partition, fg->file_id};
  return len ? hudi_buf_append(&g->key_bytes, key, len, err) : HUDI_OK;
}

/* The keys of one output batch (one column: _hoodie_record_key). */
static hudi_status add_batch(gathered *g, const hudi_read_plan *p, const hudi_file_group *fg, struct ArrowArray *a,
                             hudi_error *err) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  hudi_status st = hudi_arrow_field_export(&s, &p->out_schema, err);
  hudi_arrow_view v;
  memset(&v, 0, sizeof v);
  if (st == HUDI_OK) st = hudi_arrow_view_init(&v, &s, a, err);
  if (st == HUDI_OK && v.n_children < 1)
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata bootstrap: the read returned no key column");
  for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
    hudi_value kv;
    hudi_value_from_view(&kv, &v.children[0], i);
    if (kv.is_null || kv.cls != HUDI_VC_BYTES || kv.v.bytes.len == 0)
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "file group %s of partition '%s': row %lld has no record key",
                        fg->file_id, fg->partition, (long long)i);
    else
      st = add_key(g, fg, kv.v.bytes.data, kv.v.bytes.len, err);
  }
  hudi_arrow_view_clear(&v);
  if (s.release) s.release(&s);
  if (a->release) a->release(a);
  return st;
}

static hudi_status read_slice_keys(gathered *g, const hudi_read_plan *p, const hudi_read_slice_ref *ref,
                                   hudi_error *err) {
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, p, ref, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = add_batch(g, p, ref->group, &a, err);
    if (st != HUDI_OK) break;
  }
  hudi_slice_reader_free(r);
  return st;
}

static int cmp_group_ms(const void *a, const void *b) {
  const char *x = ((const struct group_ms *)a)->file_id, *y = ((const struct group_ms *)b)->file_id;
  return x < y ? -1 : x > y;
}

/* Epoch ms of an instant time of t's timeline zone: UTC, or (LOCAL) the
 * process's zone at that moment, as Java parses it (the offset of that
 * date, not today's: a slice from the other side of a DST change). */
static int64_t instant_epoch_ms(int64_t naive_ms, bool utc) {
  if (utc) return naive_ms;
  time_t now = time(NULL);
  struct tm tm;
  long off = localtime_r(&now, &tm) ? tm.tm_gmtoff : 0;
  time_t guess = (time_t)(naive_ms / 1000 - off);
  if (localtime_r(&guess, &tm)) off = tm.tm_gmtoff;
  return naive_ms - (int64_t)off * 1000;
}

/* The keys of every slice, read on the plan's threads (a snapshot
 * read's parallelism) in slice order; this thread copies them. */
static hudi_status read_keys_parallel(gathered *g, const hudi_read_plan *p, hudi_error *err) {
  int threads = p->parallelism < (int)p->n_slices ? p->parallelism : (int)p->n_slices;
  hudi_slice_prefetch *pf = NULL;
  HUDI_TRY(hudi_slice_prefetch_create(&pf, p, 0, p->n_slices, threads, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a;
    size_t slice = 0;
    bool eof = false;
    st = hudi_slice_prefetch_next_of(pf, &a, &slice, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = add_batch(g, p, p->slices[slice].group, &a, err);
    if (st != HUDI_OK) break;
  }
  hudi_slice_prefetch_free(pf);
  return st;
}

/* The keys of every latest slice, and each group's record-index time:
 * its slice's base instant read in the timeline zone, as a commit's keys
 * carry T's. */
static hudi_status gather_keys(gathered *g, const hudi_read_plan *p, bool utc, hudi_error *err) {
  g->group_ms = hudi_calloc(p->n_slices ? p->n_slices : 1, sizeof *g->group_ms);
  if (!g->group_ms) return hudi_err_set(err, HUDI_ERR_NOMEM, "metadata bootstrap: groups");
  for (size_t i = 0; i < p->n_slices; i++) {
    const hudi_read_slice_ref *ref = &p->slices[i];
    int64_t ms;
    const char *bi = ref->slice->base_instant;
    HUDI_TRY(hudi_instant_time_to_millis(&ms, bi, strlen(bi), err));
    g->group_ms[g->n_group_ms++] = (struct group_ms){ref->group->file_id, instant_epoch_ms(ms, utc)};
  }
  if (p->parallelism > 1 && p->n_slices > 1) HUDI_TRY(read_keys_parallel(g, p, err));
  else
    for (size_t i = 0; i < p->n_slices; i++) HUDI_TRY(read_slice_keys(g, p, &p->slices[i], err));
  qsort(g->group_ms, g->n_group_ms, sizeof *g->group_ms, cmp_group_ms);
  for (size_t i = 0; i < g->n_keys; i++) g->keys[i].key = (const char *)g->key_bytes.data + g->key_off[i];
  return HUDI_OK;
}

static int64_t group_instant_ms(const void *ctx, const char *partition, const char *file_id) {
  (void)partition;
  const gathered *g = ctx;
  struct group_ms probe = {file_id, 0};
  const struct group_ms *hit = bsearch(&probe, g->group_ms, g->n_group_ms, sizeof probe, cmp_group_ms);
  return hit ? hit->ms : 0; /* every key's file_id is a plan slice's group's */
}

/* hoodie.metadata.record.index.enable: the write's, else the table's;
 * hudi-c's default is on, as its creates. */
static hudi_status want_record_index(const hudi_table *t, const hudi_option *opts, size_t n, bool *out,
                                     hudi_error *err) {
  const char *v = hudi_write_option(t, opts, n, RLI_KEY);
  if (v && strcasecmp(v, "true") && strcasecmp(v, "false"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'", RLI_KEY, v);
  *out = !v || !strcasecmp(v, "true");
  return HUDI_OK;
}

static bool has_completed_write(const hudi_timeline *tl) {
  for (size_t i = 0; i < tl->count; i++)
    if (tl->items[i].state == HUDI_INSTANT_COMPLETED) return true;
  return tl->n_archived > 0;
}

/* Step 1. Table-service plans may be pending: their files, once written,
 * reach the MDT through their own commits, and the read merges a slice
 * under compaction as Java's getLatestMergedFileSlicesBeforeOrOn does. A
 * pending write (another writer's, left after the failed writes were
 * rolled back) would complete without updating the new MDT: refused,
 * naming it. (Java 1.x initialises anyway, leaving such files out.) */
static hudi_status check_nothing_pending(const hudi_table *t, hudi_error *err) {
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    const char *ra = in->requested_action;
    if (in->state == HUDI_INSTANT_COMPLETED || !strcmp(ra, "compaction") || !strcmp(ra, "logcompaction") ||
        !strcmp(ra, "clustering"))
      continue;
    return hudi_err_set(err, HUDI_ERR_CONFLICT,
                        "cannot build the metadata table of %s (hoodie.metadata.enable=true): instant %s (%s) is "
                        "pending; complete or roll it back first",
                        t->base_uri, in->requested_time, in->action);
  }
  return HUDI_OK;
}

/* Which files gather() collects: none, every file a listing of storage
 * finds (a bootstrap: there is no MDT to ask), or every file the MDT's
 * `files` lists (an index added to it). */
typedef enum { GATHER_NO_FILES, GATHER_FILES_FROM_STORAGE, GATHER_FILES_FROM_MDT } gather_files_mode;

/* Step 3: the listing (a plan reading _hoodie_record_key: without the
 * metadata table when there is none, through its `files` when an index
 * is added to it, as Java lists from the MDT then) and the keys. */
static hudi_status gather(gathered *g, hudi_table *t, gather_files_mode files, bool rli, hudi_error *err) {
  if (!has_completed_write(&t->timeline)) return HUDI_OK;
  /* The latest snapshot (write.h). */
  hudi_option snap[8] = {{ENABLE_KEY, "false"}};
  size_t n_snap = files == GATHER_FILES_FROM_STORAGE ? 1 : 0;
  for (size_t i = 0; i < hudi_write_n_snapshot_options && n_snap < 8; i++) snap[n_snap++] = hudi_write_snapshot_options[i];
  const char *cols[] = {"_hoodie_record_key"};
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = snap;
  ro.n_options = n_snap;
  ro.projection = cols;
  ro.n_projection = 1;
  HUDI_TRY(hudi_read_plan_create(&g->plan, t, &ro, err));
  if (files != GATHER_NO_FILES) HUDI_TRY(gather_files(g, &g->plan->view, err));
  const char *tz = hudi_props_get(&t->props, "hoodie.table.timeline.timezone");
  return rli ? gather_keys(g, g->plan, tz && !strcasecmp(tz, "UTC"), err) : HUDI_OK;
}

/* Index definition `name` (entry e, taken) into the table's index.json,
 * replacing one of that name; *path_set tells whether the table's
 * hoodie.table.index.defs.path must be added. */
static hudi_status put_index_def(hudi_table *t, const char *name, json_t *e, bool *path_set, hudi_error *err) {
  const char *path = hudi_props_get(&t->props, DEFS_PATH_KEY);
  *path_set = !path || !*path;
  json_t *root = NULL;
  hudi_status st = HUDI_OK;
  if (*path_set) root = json_pack("{s:{}}", "indexDefinitions");
  else st = hudi_index_defs_load(&root, t->storage, path, err);
  if (st != HUDI_OK) {
    json_decref(e);
    return st;
  }
  json_t *defs = root ? json_object_get(root, "indexDefinitions") : NULL;
  if (!defs || !json_is_object(defs)) {
    json_decref(root);
    json_decref(e);
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: no indexDefinitions object", *path_set ? "(new)" : path);
  }
  st = !e || json_object_set_new(defs, name, e) != 0 ? hudi_err_set(err, HUDI_ERR_NOMEM, "index definitions")
                                                    : HUDI_OK;
  if (st == HUDI_OK)
    st = hudi_index_defs_save(t->storage, *path_set ? HUDI_INDEX_DEFS_DEFAULT_PATH : path, root, err);
  json_decref(root);
  return st;
}

/* Step 5 on version 9: the record index's definition, as a create
 * writes it (create_mdt.c). A definition left by an earlier index
 * (Spark's partitioned record index, say) is replaced: this one is
 * global. */
static hudi_status add_index_def(hudi_table *t, bool *path_set, hudi_error *err) {
  return put_index_def(t, "record_index", hudi_index_defs_new_record_index(), path_set, err);
}

/* The gathered files and keys as one more initialisation deltacommit
 * (step 4), each key at its slice's base instant. */
static hudi_status write_contents(hudi_table *t, gathered *g, bool rli, const char *instant, hudi_error *err) {
  if (!g->n_files && !g->n_keys) return HUDI_OK;
  hudi_mdt_write_options co = HUDI_MDT_WRITE_OPTIONS_INIT;
  co.table_version = t->version; /* (the commit checks the MDT's own) */
  co.record_index_shards = rli ? 0 : -1;
  co.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  co.rli_base_files = true;
  co.rli_instant_ms = group_instant_ms;
  co.rli_instant_ctx = g;
  hudi_mdt_commit_input in = {instant, g->files, g->n_files, g->keys, g->n_keys, NULL, NULL};
  return hudi_mdt_commit(t->storage, &co, &in, NULL, err);
}

/* Step 4: the MDT as a create makes it, then the contents. */
static hudi_status write_mdt(hudi_table *t, gathered *g, bool rli, hudi_buf *parts, hudi_error *err) {
  hudi_mdt_write_options mo = HUDI_MDT_WRITE_OPTIONS_INIT;
  mo.table_version = t->version;
  mo.record_index_shards = rli ? 0 : -1;
  mo.table_name = t->name;
  mo.database_name = hudi_props_get(&t->props, "hoodie.database.name");
  /* completion times in the timeline's zone, as every commit's */
  mo.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  HUDI_TRY(hudi_mdt_init(t->storage, &mo, parts, err));
  /* The first initialisation time the MDT does not hold yet (mdt_init.h:
   * files at ...000, record_index at ...001). */
  return write_contents(t, g, rli, rli ? "00000000000000002" : "00000000000000001", err);
}

hudi_status hudi_mdt_bootstrap(hudi_table *t, bool rli, hudi_error *err) {
  if (t->version < 8)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has table version %d: hudi-c builds metadata tables for versions 8 and 9 only "
                        "(hoodie.metadata.enable=true)",
                        t->base_uri, t->version);
  HUDI_TRY(check_nothing_pending(t, err));
  HUDI_TRY(hudi_storage_delete(t->storage, HUDI_MDT_DIR, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err));
  gathered g;
  memset(&g, 0, sizeof g);
  hudi_buf_init(&g.key_bytes, (size_t)1 << 40);
  hudi_buf parts;
  hudi_buf_init(&parts, 4096);
  hudi_status st = gather(&g, t, GATHER_FILES_FROM_STORAGE, rli, err);
  if (st == HUDI_OK) st = write_mdt(t, &g, rli, &parts, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&parts, 0, err);
  bool defs = false, path_set = false;
  if (st == HUDI_OK && rli && t->version >= 9) {
    defs = true;
    st = add_index_def(t, &path_set, err);
  }
  const char *keys[] = {PARTITIONS_KEY, INFLIGHT_KEY, DEFS_PATH_KEY};
  const char *values[] = {st == HUDI_OK ? (const char *)parts.data : "", "", HUDI_INDEX_DEFS_DEFAULT_PATH};
  if (st == HUDI_OK) st = hudi_table_props_update(t, keys, values, defs && path_set ? 3 : 2, err);
  hudi_mdt_share_invalidate(t);
  hudi_buf_free(&parts);
  gathered_free(&g);
  return st;
}

/* ---- A record index added to an existing MDT ---- */

bool hudi_mdt_add_record_index_requested(const hudi_table *t, const hudi_option *opts, size_t n) {
  const char *v = hudi_write_option(t, opts, n, RLI_KEY);
  return v && !strcasecmp(v, "true") && hudi_write_mdt_enabled(t) && !hudi_write_mdt_has_record_index(t);
}

/* The last initialisation time this writer takes (Java's are the
 * milliseconds of 00000000000000: three digits). */
#define MAX_INIT_MS 999

/* An MDT initialisation time (mdt_instants.h) and its milliseconds. */
static bool init_time(const char *ts, long *ms) {
  if (!hudi_mdt_is_init_time(ts)) return false;
  *ms = strtol(ts + strlen(HUDI_MDT_SOLO_COMMIT_TIMESTAMP), NULL, 10);
  return true;
}

/* The initialisation time after every one the MDT has used, active or
 * archived (Java takes the first free one on the active timeline; past
 * the archived ones too, no time is reused). */
static hudi_status next_init_time(long *next, hudi_table *t, const hudi_timeline *mdt, hudi_error *err) {
  *next = 0;
  long ms;
  for (size_t i = 0; i < mdt->count; i++)
    if (init_time(mdt->items[i].requested_time, &ms) && ms >= *next) *next = ms + 1;
  hudi_lsm_rows rows = {0};
  hudi_status st = hudi_mdt_archived_load(&rows, t->storage, err);
  for (size_t i = 0; st == HUDI_OK && i < rows.count; i++)
    if (init_time(rows.items[i].instant_time, &ms) && ms >= *next) *next = ms + 1;
  hudi_lsm_rows_free(&rows);
  if (st == HUDI_OK && *next + 1 > MAX_INIT_MS)
    st = hudi_err_set(err, HUDI_ERR_LIMIT, "%s: every metadata-table initialisation time up to 00000000000000%03d is used",
                      t->base_uri, MAX_INIT_MS);
  return st;
}

/* Whether a listing of an unlisted index directory names initialisation
 * time ts (a file of its: ".record-index-0000-0_<ts>.log.1_0-0-0",
 * "record-index-0000-0_1-0-1_<ts>.hfile"). */
static bool names_time(const hudi_file_list *files, const char *ts) {
  for (size_t i = 0; i < files->count; i++) {
    const char *base = strrchr(files->items[i].path, '/');
    base = base ? base + 1 : files->items[i].path;
    const char *hit = strstr(base, ts);
    if (hit && (hit[17] == '.' || hit[17] == 0) && hit > base && hit[-1] == '_') return true;
  }
  return false;
}

/* Whether any of n listings names time ts. */
static bool any_names_time(const hudi_file_list *lists, size_t n, const char *ts) {
  for (size_t i = 0; i < n; i++)
    if (names_time(&lists[i], ts)) return true;
  return false;
}

static bool is_one_of(const char *name, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(name, names[i])) return true;
  return false;
}

/* The listings of the MDT's partition directories: those named in
 * mine[0..n_mine) into *mine_lists (one each, empty when absent), the
 * others into others (at most cap). */
static hudi_status list_partitions(hudi_storage *s, const char *const *mine, size_t n_mine, hudi_file_list *mine_lists,
                                   hudi_file_list *others, size_t cap, size_t *n, hudi_error *err) {
  *n = 0;
  hudi_file_list top = HUDI_FILE_LIST_INIT;
  hudi_status st = hudi_storage_list(s, HUDI_MDT_DIR, 0, &top, err);
  for (size_t i = 0; st == HUDI_OK && i < top.count; i++) {
    const char *name = strrchr(top.items[i].path, '/');
    name = name ? name + 1 : top.items[i].path;
    if (!top.items[i].is_dir || !strcmp(name, ".hoodie")) continue;
    for (size_t k = 0; k < n_mine; k++)
      if (!strcmp(name, mine[k])) st = hudi_storage_list(s, top.items[i].path, 0, &mine_lists[k], err);
    if (st != HUDI_OK || is_one_of(name, mine, n_mine)) continue;
    if (*n == cap) {
      st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s holds more than %zu partitions", HUDI_MDT_DIR, cap);
      break;
    }
    others[*n] = (hudi_file_list)HUDI_FILE_LIST_INIT;
    st = hudi_storage_list(s, top.items[i].path, 0, &others[(*n)++], err);
  }
  hudi_file_list_free(&top);
  return st;
}

/* Deletes what an add of the unlisted index partitions parts[0..n) that
 * failed or was cut short left (no reader looks at an unlisted
 * partition): the initialisation instants their files name and those
 * still pending (completed file first, so that a crash in between leaves
 * them pending, then inflight and requested), then the directories. A
 * completed instant that other partitions' files name too is not the
 * add's (the bootstrap's contents deltacommit, ...002, writes `files` and
 * `record_index`; a drop cut short leaves its directory) and stays. */
static hudi_status discard_attempt(hudi_table *t, const char *const *parts, size_t n_parts, hudi_error *err) {
  enum { MAX_PARTS = 4, MAX_OTHERS = 64 };
  if (n_parts > MAX_PARTS) return hudi_err_set(err, HUDI_ERR_INTERNAL, "discarding %zu partitions", n_parts);
  hudi_timeline mdt;
  HUDI_TRY(hudi_timeline_load(&mdt, t->storage, HUDI_MDT_DIR, 2, err));
  hudi_file_list mine[MAX_PARTS], others[MAX_OTHERS];
  for (size_t i = 0; i < MAX_PARTS; i++) mine[i] = (hudi_file_list)HUDI_FILE_LIST_INIT;
  size_t n_others = 0;
  hudi_status st = list_partitions(t->storage, parts, n_parts, mine, others, MAX_OTHERS, &n_others, err);
  long ms;
  for (size_t i = 0; st == HUDI_OK && i < mdt.count; i++) {
    const hudi_instant *in = &mdt.items[i];
    if (!init_time(in->requested_time, &ms) || !strcmp(in->action, "commit")) continue;
    bool pending = in->state != HUDI_INSTANT_COMPLETED;
    if (!pending && (!any_names_time(mine, n_parts, in->requested_time) ||
                     any_names_time(others, n_others, in->requested_time)))
      continue;
    char path[256];
    if (!pending) {
      snprintf(path, sizeof path, HUDI_MDT_DIR "/%s/%s", mdt.dir, in->file_name);
      st = hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, err);
    }
    static const char *const states[] = {"inflight", "requested"};
    for (size_t k = 0; st == HUDI_OK && k < 2; k++) {
      snprintf(path, sizeof path, HUDI_MDT_DIR "/%s/%s.%s.%s", mdt.dir, in->requested_time, in->action, states[k]);
      st = hudi_storage_delete(t->storage, path, HUDI_DELETE_MISSING_OK, err);
    }
  }
  for (size_t i = 0; i < MAX_PARTS; i++) hudi_file_list_free(&mine[i]);
  for (size_t i = 0; i < n_others; i++) hudi_file_list_free(&others[i]);
  hudi_timeline_free(&mdt);
  for (size_t i = 0; st == HUDI_OK && i < n_parts; i++) {
    char dir[128];
    snprintf(dir, sizeof dir, HUDI_MDT_DIR "/%s", parts[i]);
    st = hudi_storage_delete(t->storage, dir, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err);
  }
  return st;
}

/* Deletes a failed add's leftovers at once (the error stays). */
static void discard_quietly(hudi_table *t, const char *const *parts, size_t n_parts) {
  hudi_error ignored = HUDI_ERROR_INIT;
  (void)discard_attempt(t, parts, n_parts, &ignored);
  hudi_error_clear(&ignored);
}

/* hoodie.table.metadata.partitions with one more name, in name order as
 * Hudi stores the set. */
static hudi_status list_with(hudi_buf *out, const char *list, const char *name, hudi_error *err) {
  const char *names[64];
  size_t n = 0;
  char copy[4096];
  if (!list) list = "";
  if (strlen(list) >= sizeof copy)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s is longer than %zu bytes", PARTITIONS_KEY, sizeof copy - 1);
  memcpy(copy, list, strlen(list) + 1);
  for (char *save = NULL, *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    if (n == 63) return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s lists more than 63 partitions", PARTITIONS_KEY);
    names[n++] = p;
  }
  names[n++] = name;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      const char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  for (size_t i = 0; i < n; i++) {
    if (i) HUDI_TRY(hudi_buf_append_byte(out, ',', err));
    HUDI_TRY(hudi_buf_append_str(out, names[i], err));
  }
  return hudi_buf_append_byte(out, 0, err);
}

/* The MDT's own table version, which must be the data table's (the
 * writer's record layouts follow it). */
static hudi_status check_mdt_version(hudi_table *t, hudi_error *err) {
  int v = 0;
  HUDI_TRY(hudi_mdt_w_read_version(t->storage, &v, err));
  if (v != t->version)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: hoodie.table.version=%d, but the table's is %d",
                        HUDI_MDT_W_PROPS, v, t->version);
  return HUDI_OK;
}

/* The new partition at initialisation time N (empty, as a create makes
 * it), the keys at N+1, then the listing (and index.json on version 9). */
static hudi_status add_record_index_at(hudi_table *t, gathered *g, long next, hudi_error *err) {
  char init[24], contents[24];
  snprintf(init, sizeof init, "%017ld", next);
  snprintf(contents, sizeof contents, "%017ld", next + 1);
  hudi_mdt_write_options mo = HUDI_MDT_WRITE_OPTIONS_INIT;
  mo.table_version = t->version;
  mo.table_name = t->name;
  mo.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  HUDI_TRY(hudi_mdt_init_index_partition(t->storage, &mo, "record_index", HUDI_MDT_DEFAULT_RLI_SHARDS, init, err));
  HUDI_TRY(write_contents(t, g, true, contents, err));
  bool path_set = false;
  if (t->version >= 9) HUDI_TRY(add_index_def(t, &path_set, err));
  hudi_buf parts;
  hudi_buf_init(&parts, 4096);
  hudi_status st = list_with(&parts, hudi_props_get(&t->props, PARTITIONS_KEY), "record_index", err);
  const char *keys[] = {PARTITIONS_KEY, DEFS_PATH_KEY};
  const char *values[] = {st == HUDI_OK ? (const char *)parts.data : "", HUDI_INDEX_DEFS_DEFAULT_PATH};
  if (st == HUDI_OK) st = hudi_table_props_update(t, keys, values, path_set ? 2 : 1, err);
  hudi_buf_free(&parts);
  return st;
}

/* What every index add does first, under the lock: refuse while a write
 * is pending or the MDT's version differs, discard what an earlier
 * attempt at parts[0..n) left, and find the first free initialisation
 * time (*next). */
static hudi_status begin_add(hudi_table *t, const char *const *parts, size_t n, long *next, hudi_error *err) {
  HUDI_TRY(check_nothing_pending(t, err));
  HUDI_TRY(check_mdt_version(t, err));
  HUDI_TRY(discard_attempt(t, parts, n, err));
  hudi_timeline mdt;
  HUDI_TRY(hudi_timeline_load(&mdt, t->storage, HUDI_MDT_DIR, 2, err));
  hudi_status st = next_init_time(next, t, &mdt, err);
  hudi_timeline_free(&mdt);
  return st;
}

hudi_status hudi_mdt_add_record_index(hudi_table *t, hudi_error *err) {
  if (t->version < 8)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has table version %d: hudi-c adds a record index to metadata tables of versions 8 "
                        "and 9 only (hoodie.metadata.record.index.enable=true)",
                        t->base_uri, t->version);
  static const char *const rli_part[] = {"record_index"};
  long next = 0;
  HUDI_TRY(begin_add(t, rli_part, 1, &next, err));
  gathered g;
  memset(&g, 0, sizeof g);
  hudi_buf_init(&g.key_bytes, (size_t)1 << 40);
  hudi_status st = gather(&g, t, GATHER_NO_FILES, true, err);
  if (st == HUDI_OK) {
    st = add_record_index_at(t, &g, next, err);
    /* Not listed: what it wrote goes again at once (the error stays). */
    if (st != HUDI_OK && !hudi_write_mdt_has_record_index(t)) discard_quietly(t, rli_part, 1);
  }
  hudi_mdt_share_invalidate(t);
  gathered_free(&g);
  return st;
}

/* ---- Column statistics added to an existing MDT ---- */

#define CS_KEY "hoodie.metadata.index.column.stats.enable"
#define PS_KEY "hoodie.metadata.index.partition.stats.enable"

static bool table_partitioned(const hudi_table *t) {
  const char *f = hudi_props_get(&t->props, "hoodie.table.partition.fields");
  return f && *f;
}

/* Option key of t (the write's, else the handle's) is true (1), false
 * (0) or unset (-1). */
static int switch_of(const hudi_table *t, const hudi_option *opts, size_t n, const char *key) {
  const char *v = hudi_write_option(t, opts, n, key);
  return !v ? -1 : !strcasecmp(v, "true") ? 1 : !strcasecmp(v, "false") ? 0 : -1;
}

bool hudi_mdt_add_column_stats_requested(const hudi_table *t, const hudi_option *opts, size_t n, bool *cs, bool *ps) {
  bool c = false, p = false;
  if (hudi_write_mdt_enabled(t) && t->version >= 8) {
    const char *listed = hudi_props_get(&t->props, PARTITIONS_KEY);
    bool has_cs = hudi_props_list_has(listed, "column_stats"), has_ps = hudi_props_list_has(listed, "partition_stats");
    int want_cs = switch_of(t, opts, n, CS_KEY), want_ps = switch_of(t, opts, n, PS_KEY);
    c = want_cs == 1 && !has_cs;
    /* With column stats on a partitioned table unless switched off (as a
     * create adds them), or asked for beside column stats it has. */
    p = table_partitioned(t) && !has_ps && ((c && want_ps != 0) || (has_cs && want_cs != 0 && want_ps == 1));
  }
  if (cs) *cs = c;
  if (ps) *ps = p;
  return c || p;
}

/* A file-group count option (create_mdt.c's rule: 1 to 1000). */
static hudi_status groups_option(const hudi_table *t, const hudi_option *opts, size_t n, const char *key, int64_t dflt,
                                 int32_t *out, hudi_error *err) {
  int64_t v = dflt;
  HUDI_TRY(hudi_write_int_option(t, opts, n, key, dflt, 1, &v, err));
  if (v > 1000) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "option %s is %lld, at most 1000", key, (long long)v);
  *out = (int32_t)v;
  return HUDI_OK;
}

/* A commit metadata carrying the table's writer schema (the columns to
 * index follow it, as Java's getColumnsToIndex takes the table schema):
 * the latest write's, else hoodie.table.create.schema; *out NULL when the
 * table has neither. */
static hudi_status writer_schema_meta(hudi_commit_metadata **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  char *json = NULL;
  HUDI_TRY(hudi_write_current_schema(&json, t, err));
  const char *schema = json ? json : hudi_props_get(&t->props, "hoodie.table.create.schema");
  hudi_status st = schema && *schema ? hudi_mdt_w_commit_metadata(out, "UPSERT", schema, err) : HUDI_OK;
  hudi_free(json);
  return st;
}

/* The records of every file the MDT lists (every slice's, as Java's
 * initialisation indexes every file of its listing), as one more
 * initialisation deltacommit at `instant`; *cols/n_cols: the columns
 * indexed (owned by the caller). */
static hudi_status write_stats_contents(hudi_table *t, const hudi_option *opts, size_t n, gathered *g, bool cs,
                                        bool ps, const char *instant, char ***cols, size_t *n_cols, bool *changed,
                                        hudi_error *err) {
  *cols = NULL;
  *n_cols = 0;
  *changed = false;
  if (!g->n_files) return HUDI_OK;
  hudi_commit_metadata *meta = NULL;
  HUDI_TRY(writer_schema_meta(&meta, t, err));
  hudi_cs_records csr = {0};
  hudi_status st = meta ? HUDI_OK
                        : hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                                       "table %s: neither its writes nor hoodie.table.create.schema give a schema "
                                       "to choose the columns to index from",
                                       t->base_uri);
  if (st == HUDI_OK) st = hudi_mdt_w_schema(&csr.schema, t->version, err);
  if (st == HUDI_OK)
    st = hudi_cs_commit_columns(&csr.cols, &csr.n_cols, &csr.layout, &csr.cols_changed, t, meta, opts, n, err);
  /* Column stats of every listed file; partition stats over the latest
   * merged slices only (the files of the plan's slices: a file given is
   * counted, and the others of those slices come from the same view). */
  if (st == HUDI_OK && cs)
    st = hudi_cs_commit_records(&csr, t, csr.schema->root, meta, g->files, g->n_files, true, false, err);
  gathered latest;
  memset(&latest, 0, sizeof latest);
  if (st == HUDI_OK && ps) st = gather_latest(&latest, g->plan, err);
  if (st == HUDI_OK && ps)
    st = hudi_cs_commit_records(&csr, t, csr.schema->root, meta, latest.files, latest.n_files, false, true, err);
  hudi_free(latest.files);
  hudi_mdt_write_options co = HUDI_MDT_WRITE_OPTIONS_INIT;
  co.table_version = t->version;
  co.record_index_shards = -1;
  co.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  co.index_records = csr.items;
  co.n_index_records = csr.n;
  hudi_mdt_commit_input in = {instant, NULL, 0, NULL, 0, NULL, NULL};
  if (st == HUDI_OK && csr.n) st = hudi_mdt_commit(t->storage, &co, &in, NULL, err);
  if (st == HUDI_OK) {
    *cols = csr.cols;
    *n_cols = csr.n_cols;
    *changed = csr.cols_changed;
    csr.cols = NULL;
    csr.n_cols = 0;
  }
  hudi_cs_records_free(&csr);
  hudi_commit_metadata_free(meta);
  return st;
}

/* Whether t's index.json has a column_stats definition. */
static hudi_status has_column_stats_def(hudi_table *t, bool *out, hudi_error *err) {
  *out = false;
  const char *path = hudi_props_get(&t->props, DEFS_PATH_KEY);
  if (!path || !*path) return HUDI_OK;
  bool exists = false;
  HUDI_TRY(hudi_storage_exists(t->storage, path, &exists, err));
  if (!exists) return HUDI_OK;
  json_t *root = NULL;
  HUDI_TRY(hudi_index_defs_load(&root, t->storage, path, err));
  json_t *defs = root ? json_object_get(root, "indexDefinitions") : NULL;
  *out = defs && json_is_object(json_object_get(defs, "column_stats"));
  json_decref(root);
  return HUDI_OK;
}

/* The new partitions, each at its own initialisation time from *next on
 * (column_stats first, as Hudi initialises them), then the records, the
 * column list and the listing. */
static hudi_status add_column_stats_at(hudi_table *t, const hudi_option *opts, size_t n, gathered *g, bool cs, bool ps,
                                       long next, hudi_error *err) {
  int32_t cs_groups = 0, ps_groups = 0;
  if (cs) HUDI_TRY(groups_option(t, opts, n, "hoodie.metadata.index.column.stats.file.group.count", 2, &cs_groups, err));
  if (ps)
    HUDI_TRY(groups_option(t, opts, n, "hoodie.metadata.index.partition.stats.file.group.count", 1, &ps_groups, err));
  if (next + (cs ? 1 : 0) + (ps ? 1 : 0) > MAX_INIT_MS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: every metadata-table initialisation time up to 00000000000000%03d is used",
                        t->base_uri, MAX_INIT_MS);
  bool path_set = false;
  /* The definition with an empty column list, as a create writes it; the
   * records' columns go into it below (version 8: no version). One the
   * table has (a restore's rebuild: the drop keeps index.json; an attempt
   * cut short) is kept, with the columns and options it names. */
  bool has_def = false;
  if (cs) HUDI_TRY(has_column_stats_def(t, &has_def, err));
  if (cs && !has_def)
    HUDI_TRY(put_index_def(t, "column_stats",
                           hudi_index_defs_new_entry("column_stats", "column_stats", t->version >= 9 ? "V2" : NULL),
                           &path_set, err));
  hudi_mdt_write_options mo = HUDI_MDT_WRITE_OPTIONS_INIT;
  mo.table_version = t->version;
  mo.table_name = t->name;
  mo.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  char ts[24];
  if (cs) {
    snprintf(ts, sizeof ts, "%017ld", next++);
    HUDI_TRY(hudi_mdt_init_index_partition(t->storage, &mo, "column_stats", cs_groups, ts, err));
  }
  if (ps) {
    snprintf(ts, sizeof ts, "%017ld", next++);
    HUDI_TRY(hudi_mdt_init_index_partition(t->storage, &mo, "partition_stats", ps_groups, ts, err));
  }
  snprintf(ts, sizeof ts, "%017ld", next);
  char **cols = NULL;
  size_t n_cols = 0;
  bool cols_changed = false;
  HUDI_TRY(write_stats_contents(t, opts, n, g, cs, ps, ts, &cols, &n_cols, &cols_changed, err));
  hudi_status st = HUDI_OK;
  if (n_cols && cols_changed)
    st = hudi_index_defs_set_source_fields(t->storage, path_set ? HUDI_INDEX_DEFS_DEFAULT_PATH
                                                                : hudi_props_get(&t->props, DEFS_PATH_KEY),
                                           "column_stats", (const char *const *)cols, n_cols, NULL, err);
  hudi_cs_columns_free(cols, n_cols);
  hudi_buf parts, more;
  hudi_buf_init(&parts, 4096);
  hudi_buf_init(&more, 4096);
  const char *listed = hudi_props_get(&t->props, PARTITIONS_KEY);
  if (st == HUDI_OK && cs) {
    st = list_with(&parts, listed, "column_stats", err);
    listed = st == HUDI_OK ? (const char *)parts.data : listed;
  }
  if (st == HUDI_OK && ps) {
    st = list_with(&more, listed, "partition_stats", err);
    listed = st == HUDI_OK ? (const char *)more.data : listed;
  }
  const char *keys[] = {PARTITIONS_KEY, DEFS_PATH_KEY};
  const char *values[] = {listed ? listed : "", HUDI_INDEX_DEFS_DEFAULT_PATH};
  if (st == HUDI_OK) st = hudi_table_props_update(t, keys, values, path_set ? 2 : 1, err);
  hudi_buf_free(&parts);
  hudi_buf_free(&more);
  return st;
}

hudi_status hudi_mdt_add_column_stats(hudi_table *t, const hudi_option *opts, size_t n, bool cs, bool ps,
                                      hudi_error *err) {
  if (!hudi_cs_supported(t))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has table version %d: hudi-c adds column stats to metadata tables of versions 8 and "
                        "9 only (" CS_KEY "=true)",
                        t->base_uri, t->version);
  const char *parts[2];
  size_t n_parts = 0;
  if (cs) parts[n_parts++] = "column_stats";
  if (ps) parts[n_parts++] = "partition_stats";
  long next = 0;
  HUDI_TRY(begin_add(t, parts, n_parts, &next, err));
  gathered g;
  memset(&g, 0, sizeof g);
  hudi_buf_init(&g.key_bytes, 0);
  hudi_status st = gather(&g, t, GATHER_FILES_FROM_MDT, false, err);
  if (st == HUDI_OK) {
    st = add_column_stats_at(t, opts, n, &g, cs, ps, next, err);
    const char *listed = hudi_props_get(&t->props, PARTITIONS_KEY);
    /* Not listed: what it wrote goes again at once (the error stays). */
    if (st != HUDI_OK && !(cs && hudi_props_list_has(listed, "column_stats")) &&
        !(ps && hudi_props_list_has(listed, "partition_stats")))
      discard_quietly(t, parts, n_parts);
  }
  hudi_mdt_share_invalidate(t);
  gathered_free(&g);
  return st;
}

hudi_status hudi_mdt_bootstrap_if_requested(hudi_table *t, const hudi_option *opts, size_t n, hudi_error *err) {
  bool rli = true;
  HUDI_TRY(want_record_index(t, opts, n, &rli, err));
  hudi_status st = HUDI_OK;
  if (hudi_mdt_bootstrap_requested(opts, n) && !hudi_write_mdt_enabled(t)) {
    st = hudi_mdt_bootstrap(t, rli, err);
    if (st != HUDI_OK) hudi_err_context(err, st, "building the metadata table of %s", t->base_uri);
  } else if (hudi_mdt_add_record_index_requested(t, opts, n)) {
    st = hudi_mdt_add_record_index(t, err);
    if (st != HUDI_OK) hudi_err_context(err, st, "adding the record index to the metadata table of %s", t->base_uri);
  }
  HUDI_TRY(st);
  /* Column statistics asked for and missing: after the rest, from the
   * MDT's listing. */
  bool cs = false, ps = false;
  if (!hudi_mdt_add_column_stats_requested(t, opts, n, &cs, &ps)) return HUDI_OK;
  st = hudi_mdt_add_column_stats(t, opts, n, cs, ps, err);
  if (st != HUDI_OK)
    hudi_err_context(err, st, "adding %s to the metadata table of %s",
                     cs && ps ? "column_stats and partition_stats" : cs ? "column_stats" : "partition_stats",
                     t->base_uri);
  return st;
}
