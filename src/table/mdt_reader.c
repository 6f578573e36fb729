/* Opening the metadata table and merging the records of its file groups. */
#include "table/mdt_reader.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/hashmap.h"
#include "base/sort_runs.h"
#include "table/log_delete_block.h"
#include "table/log_reader.h"
#include "table/mdt_reader_log.h"

/* Distinct payload schemas a handle caches (never evicted: a streaming
 * merge holds pointers to them). */
#define MAX_SCHEMAS 32
/* Largest MDT log file or timeline file we read whole. */
#define MAX_LOG_FILE ((size_t)1 << 30)

typedef struct cached_schema {
  char *json;
  size_t len;
  hudi_avro_schema *schema;
} cached_schema;

struct hudi_mdt {
  hudi_table *data;
  hudi_table *mdt;
  hudi_fsview view;
  hudi_mdt_instants valid;
  /* The payload schemas, parsed once per distinct JSON. A handle and its
   * siblings share the first handle's cache (`root`), under its lock:
   * records a sibling decodes point into it, so they stay valid after the
   * sibling is freed, for as long as the handle it came from. */
  struct hudi_mdt *root;
  pthread_mutex_t schema_lock; /* the root's */
  cached_schema schemas[MAX_SCHEMAS];
  size_t n_schemas;
  /* The shared handle of a write (hudi_mdt_share_begin): the data timeline
   * its valid instants were built from, and whether the MDT was written
   * since (hudi_mdt_share_invalidate). */
  uint64_t data_timeline_hash;
  bool stale;
  /* A sibling (hudi_mdt_open_sibling): mdt, view and valid are another
   * handle's, not freed here. */
  bool borrowed;
};

bool hudi_mdt_instant_valid(const hudi_mdt *m, const char *instant) {
  return hudi_mdt_instants_has(&m->valid, instant);
}

/* ---- open / free ---- */

static hudi_status open_mdt_table(hudi_mdt *m, hudi_error *err) {
  hudi_table *t = m->data;
  /* No existence check first: opening reads hoodie.properties anyway (one
   * request fewer on object stores). */
  size_t n = strlen(t->base_uri);
  while (n > 1 && t->base_uri[n - 1] == '/') n--;
  hudi_buf uri;
  hudi_buf_init(&uri, 1 << 16);
  hudi_option *opts = hudi_calloc(t->options.len ? t->options.len : 1, sizeof *opts);
  hudi_status st = opts ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < t->options.len; i++) {
    opts[i].key = t->options.entries[i].key;
    opts[i].value = t->options.entries[i].value;
  }
  if (st == HUDI_OK) st = hudi_buf_append(&uri, t->base_uri, n, err);
  if (st == HUDI_OK) st = hudi_buf_append(&uri, "/" HUDI_MDT_DIR, strlen(HUDI_MDT_DIR) + 2, err); /* with NUL */
  if (st == HUDI_OK) st = hudi_table_open(&m->mdt, (const char *)uri.data, opts, t->options.len, err);
  if (st == HUDI_ERR_NOT_FOUND) st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "%s: no metadata table", t->base_uri);
  hudi_free(opts);
  hudi_buf_free(&uri);
  return st;
}

/* A fingerprint of a timeline's state (its instants, their states and
 * completion times), to tell whether it moved since a handle was built. */
static uint64_t hash_str(uint64_t h, const char *s) { return hudi_xxh64(s, strlen(s) + 1, h); }

static uint64_t timeline_hash(const hudi_timeline *tl) {
  uint64_t h = hudi_xxh64(&tl->count, sizeof tl->count, 0);
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    int32_t state = (int32_t)x->state;
    h = hash_str(h, x->requested_time);
    h = hash_str(h, x->completion_time);
    h = hash_str(h, x->action);
    h = hash_str(h, x->file_name);
    h = hudi_xxh64(&state, sizeof state, h);
  }
  return h;
}

/* A base file of a metadata deltacommit whose data instant is still
 * pending on the data timeline (a load whose keys went to a record-index
 * shard's base file, mdt_write.h rli_base_files, and that failed after
 * its metadata deltacommit and is not rolled back yet: with a lazy
 * failed-writes policy, until its heartbeat expires) is no more valid
 * than that instant's log blocks, which readers skip: its slice reads as
 * if it had none (the shard held no key before it). Compaction base files
 * (MDT-only instants) are never on the data timeline. */
static void drop_pending_bases(hudi_fsview *v, const hudi_timeline *data) {
  for (size_t i = 0; i < v->n_groups; i++)
    for (size_t k = 0; k < v->groups[i].n_slices; k++) {
      hudi_file_slice *s = &v->groups[i].slices[k];
      const hudi_instant *in = s->base ? hudi_timeline_find(data, s->base_instant) : NULL;
      if (!in || in->state == HUDI_INSTANT_COMPLETED) continue;
      hudi_free(s->base->path);
      hudi_free(s->base);
      s->base = NULL;
    }
}

hudi_status hudi_mdt_open(hudi_mdt **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  hudi_mdt *m = hudi_calloc(1, sizeof *m);
  if (!m) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  m->data = t;
  m->root = m;
  pthread_mutex_init(&m->schema_lock, NULL);
  hudi_status st = open_mdt_table(m, err);
  if (st == HUDI_OK) {
    hudi_fsview_options o = {NULL, m->mdt->version, false};
    st = hudi_fsview_build_from_listing(&m->view, m->mdt->storage, &m->mdt->timeline, &o, err);
  }
  if (st == HUDI_OK) drop_pending_bases(&m->view, &t->timeline);
  if (st == HUDI_OK)
    st = hudi_mdt_instants_build(&m->valid, m->data->storage, &m->data->timeline, &m->mdt->timeline, err);
  m->data_timeline_hash = timeline_hash(&t->timeline);
  if (st != HUDI_OK) {
    hudi_err_context(err, st, "opening the metadata table of %s", t->base_uri);
    hudi_mdt_free(m);
    return st;
  }
  *out = m;
  return HUDI_OK;
}

void hudi_mdt_free(hudi_mdt *m) {
  if (!m) return;
  if (m->root == m) {
    for (size_t i = 0; i < m->n_schemas; i++) {
      hudi_free(m->schemas[i].json);
      hudi_avro_schema_free(m->schemas[i].schema);
    }
    pthread_mutex_destroy(&m->schema_lock);
  }
  if (!m->borrowed) {
    hudi_mdt_instants_free(&m->valid);
    hudi_fsview_free(&m->view);
    if (m->mdt) hudi_table_free(m->mdt);
  }
  hudi_free(m);
}

hudi_status hudi_mdt_open_sibling(hudi_mdt **out, const hudi_mdt *of, hudi_error *err) {
  *out = NULL;
  hudi_mdt *m = hudi_calloc(1, sizeof *m);
  if (!m) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  m->data = of->data;
  m->mdt = of->mdt;
  m->view = of->view;
  m->valid = of->valid;
  m->data_timeline_hash = of->data_timeline_hash;
  m->root = of->root;
  m->borrowed = true;
  *out = m;
  return HUDI_OK;
}

hudi_status hudi_mdt_refresh(hudi_mdt *m, hudi_error *err) {
  if (m->borrowed) return hudi_err_set(err, HUDI_ERR_INTERNAL, "a sibling metadata-table handle is not refreshed");
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  hudi_fsview view;
  memset(&view, 0, sizeof view);
  hudi_mdt_instants valid;
  memset(&valid, 0, sizeof valid);
  hudi_status st = hudi_timeline_load(&tl, m->mdt->storage, "", m->mdt->layout, err);
  if (st == HUDI_OK) {
    hudi_fsview_options o = {NULL, m->mdt->version, false};
    st = hudi_fsview_build_from_listing(&view, m->mdt->storage, &tl, &o, err);
  }
  if (st == HUDI_OK) drop_pending_bases(&view, &m->data->timeline);
  if (st == HUDI_OK) st = hudi_mdt_instants_build(&valid, m->data->storage, &m->data->timeline, &tl, err);
  if (st != HUDI_OK) {
    hudi_fsview_free(&view);
    hudi_timeline_free(&tl);
    return hudi_err_context(err, st, "refreshing the metadata table of %s", m->data->base_uri);
  }
  /* Swapped in whole: the schema cache stays (its nodes may be lent out). */
  hudi_timeline_free(&m->mdt->timeline);
  m->mdt->timeline = tl;
  hudi_fsview_free(&m->view);
  m->view = view;
  hudi_mdt_instants_free(&m->valid);
  m->valid = valid;
  m->data_timeline_hash = timeline_hash(&m->data->timeline);
  m->stale = false;
  return HUDI_OK;
}

/* ---- one handle per write ---- */

void hudi_mdt_share_begin(hudi_table *t) {
  hudi_mdt_share_end(t);
  t->mdt_sharing = true;
}

void hudi_mdt_share_end(hudi_table *t) {
  hudi_mdt_free(t->shared_mdt);
  t->shared_mdt = NULL;
  t->mdt_sharing = false;
  t->shared_mdt_version = 0;
}

void hudi_mdt_share_invalidate(hudi_table *t) {
  if (t->shared_mdt) t->shared_mdt->stale = true;
}

hudi_status hudi_mdt_acquire(hudi_mdt **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  if (!t->mdt_sharing) return hudi_mdt_open(out, t, err);
  hudi_mdt *m = t->shared_mdt;
  if (!m) {
    HUDI_TRY(hudi_mdt_open(&m, t, err));
    t->shared_mdt = m;
  } else if (m->stale || m->data_timeline_hash != timeline_hash(&t->timeline)) {
    /* Written since (this write's deltacommit, a service) or the data
     * timeline moved: what a fresh open would see, without the
     * hoodie.properties GET. A failed refresh drops the handle: the next
     * acquire opens anew. */
    hudi_status st = hudi_mdt_refresh(m, err);
    if (st != HUDI_OK) {
      hudi_mdt_free(m);
      t->shared_mdt = NULL;
      return st;
    }
  }
  *out = m;
  return HUDI_OK;
}

void hudi_mdt_release(hudi_table *t, hudi_mdt *m) {
  if (m && m != t->shared_mdt) hudi_mdt_free(m);
}

const hudi_table *hudi_mdt_shared_table(const hudi_table *t) {
  return t->mdt_sharing && t->shared_mdt ? t->shared_mdt->mdt : NULL;
}

int hudi_mdt_shared_version(const hudi_table *t) {
  const hudi_table *m = hudi_mdt_shared_table(t);
  if (m) return m->version;
  return t->mdt_sharing ? t->shared_mdt_version : 0;
}

void hudi_mdt_shared_version_seen(hudi_table *t, int version) {
  if (t->mdt_sharing) t->shared_mdt_version = version;
}

const hudi_table *hudi_mdt_table(const hudi_mdt *m) { return m->mdt; }
const hudi_table *hudi_mdt_data_table(const hudi_mdt *m) { return m->data; }

bool hudi_mdt_partition_available(const hudi_mdt *m, const char *partition) {
  const char *list = hudi_props_get(&m->data->props, "hoodie.table.metadata.partitions");
  size_t n = strlen(partition);
  for (const char *p = list; p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && memcmp(p, partition, n) == 0) return true;
    p = end ? end + 1 : p + len;
  }
  return false;
}

const hudi_file_group *hudi_mdt_groups(const hudi_mdt *m, const char *partition, size_t *n) {
  size_t i = 0;
  while (i < m->view.n_groups && strcmp(m->view.groups[i].partition, partition) != 0) i++;
  size_t j = i;
  while (j < m->view.n_groups && strcmp(m->view.groups[j].partition, partition) == 0) j++;
  *n = j - i;
  return *n ? &m->view.groups[i] : NULL;
}

const hudi_file_group *hudi_mdt_all_groups(const hudi_mdt *m, size_t *n) {
  *n = m->view.n_groups;
  return m->view.groups;
}

const char *hudi_mdt_oldest_live_log(const hudi_mdt *m) {
  const char *oldest = NULL;
  for (size_t i = 0; i < m->view.n_groups; i++) {
    const hudi_file_slice *s = hudi_file_group_latest_slice(&m->view.groups[i]);
    for (size_t k = 0; s && k < s->n_logs; k++) {
      const char *in = s->logs[k].name.instant;
      if (in && in[0] && (!oldest || strcmp(in, oldest) < 0)) oldest = in;
    }
  }
  return oldest;
}

/* ---- schemas ---- */

static hudi_status get_schema_locked(hudi_mdt *m, const uint8_t *json, size_t len, const hudi_avro_node **out,
                                     const char *where, hudi_error *err) {
  for (size_t i = 0; i < m->n_schemas; i++)
    if (m->schemas[i].len == len && memcmp(m->schemas[i].json, json, len) == 0) {
      *out = m->schemas[i].schema->root;
      return HUDI_OK;
    }
  hudi_avro_schema *s;
  hudi_status st = hudi_avro_schema_parse(&s, (const char *)json, len, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s: the payload schema", where);
  if (m->n_schemas == MAX_SCHEMAS) {
    hudi_avro_schema_free(s);
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: more than %d distinct payload schemas", where, MAX_SCHEMAS);
  }
  char *copy = hudi_malloc(len + 1);
  if (!copy) {
    hudi_avro_schema_free(s);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  memcpy(copy, json, len);
  copy[len] = 0;
  m->schemas[m->n_schemas++] = (cached_schema){copy, len, s};
  *out = s->root;
  return HUDI_OK;
}

/* The schema of json from the root handle's cache (see struct hudi_mdt). */
static hudi_status get_schema(hudi_mdt *m, const uint8_t *json, size_t len, const hudi_avro_node **out,
                              const char *where, hudi_error *err) {
  hudi_mdt *r = m->root;
  pthread_mutex_lock(&r->schema_lock);
  hudi_status st = get_schema_locked(r, json, len, out, where, err);
  pthread_mutex_unlock(&r->schema_lock);
  return st;
}

/* The writer schema of an HFile: its file info "schema", else the block's
 * SCHEMA header. */
static hudi_status hfile_schema(hudi_mdt *m, hudi_hfile_reader *r, const hudi_log_block *b,
                                const hudi_avro_node **out, const char *where, hudi_error *err) {
  const uint8_t *v;
  size_t len;
  if (hudi_hfile_reader_file_info(r, "schema", &v, &len)) return get_schema(m, v, len, out, where, err);
  const char *h = b ? hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &len) : NULL;
  if (h) return get_schema(m, (const uint8_t *)h, len, out, where, err);
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: HFile without a schema", where);
}

/* ---- merging ---- */

enum { ABSENT = 0, PRESENT, DELETED };

typedef struct slot {
  char *key; /* scan mode: owned copy; lookup mode: NULL (keys[i]) */
  size_t key_len;
  int state; /* of the log records */
  hudi_mdt_record rec;
} slot;

typedef struct merge {
  hudi_mdt *m;
  bool scan;
  const hudi_hfile_key *keys; /* lookup mode */
  slot *slots;
  size_t n_slots, cap_slots;
  hudi_hashmap index; /* scan mode: key -> slot */
  const hudi_avro_node *schema;
  const char *where;
  bool base_phase;
  struct collect *collect; /* streaming merge: log records are gathered raw */
  struct lead *lead;       /* streaming merge without a base: the oldest block, left out */
  hudi_status st;
  hudi_error *err;
} merge;

static hudi_status collect_put(merge *g, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len,
                               bool is_delete);

static void merge_free(merge *g) {
  for (size_t i = 0; i < g->n_slots; i++) {
    hudi_free(g->slots[i].key);
    hudi_mdt_record_free(&g->slots[i].rec);
  }
  hudi_free(g->slots);
  hudi_hashmap_free(&g->index);
}

/* Scan mode: the slot of key, created ABSENT when new. */
static hudi_status slot_for(merge *g, const uint8_t *key, size_t len, slot **out) {
  hudi_hashmap_value v;
  if (hudi_hashmap_get(&g->index, key, len, &v)) {
    *out = &g->slots[v.u64];
    return HUDI_OK;
  }
  if (g->n_slots == g->cap_slots) {
    size_t cap = g->cap_slots ? g->cap_slots * 2 : 64;
    void *p = hudi_realloc(g->slots, cap * sizeof *g->slots);
    if (!p) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory merging %s", g->where);
    g->slots = p;
    g->cap_slots = cap;
  }
  slot *s = &g->slots[g->n_slots];
  memset(s, 0, sizeof *s);
  s->key = hudi_malloc(len + 1);
  if (!s->key) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory merging %s", g->where);
  memcpy(s->key, key, len);
  s->key[len] = 0;
  s->key_len = len;
  v.u64 = g->n_slots;
  hudi_status st = hudi_hashmap_put(&g->index, key, len, v, NULL, NULL, g->err);
  if (st != HUDI_OK) {
    hudi_free(s->key);
    return st;
  }
  g->n_slots++;
  *out = s;
  return HUDI_OK;
}

/* Folds one decoded record into its slot: log records merge in order;
 * the base record (oldest) goes under the merged log record. */
static hudi_status apply_record(merge *g, slot *s, const uint8_t *key, size_t key_len, const uint8_t *value,
                                size_t value_len) {
  hudi_mdt_record rec;
  hudi_status st = hudi_mdt_record_decode(&rec, g->schema, (const char *)key, key_len, value, value_len, g->where,
                                          g->err);
  if (st != HUDI_OK) {
    hudi_mdt_record_free(&rec);
    return st;
  }
  if (g->base_phase) {
    if (s->state == DELETED) {
      hudi_mdt_record_free(&rec);
      return HUDI_OK;
    }
    if (s->state == PRESENT) return hudi_mdt_record_combine(&s->rec, &rec, &s->rec, g->err);
    s->rec = rec;
    s->state = PRESENT;
    return HUDI_OK;
  }
  if (s->state == PRESENT) return hudi_mdt_record_combine(&s->rec, &s->rec, &rec, g->err);
  s->rec = rec;
  s->state = PRESENT;
  return HUDI_OK;
}

static int on_found(void *ctx, size_t key_index, const uint8_t *value, size_t value_len) {
  merge *g = ctx;
  slot *s = &g->slots[key_index];
  g->st = apply_record(g, s, g->keys[key_index].data, g->keys[key_index].len, value, value_len);
  return g->st != HUDI_OK;
}

/* Base phase of a lookup: key_index is into the subset; map it back. */
typedef struct subset {
  merge *g;
  const hudi_hfile_key *keys;
  const size_t *slot_of;
} subset;

static int on_found_subset(void *ctx, size_t key_index, const uint8_t *value, size_t value_len) {
  subset *u = ctx;
  merge *g = u->g;
  size_t i = u->slot_of[key_index];
  g->st = apply_record(g, &g->slots[i], g->keys[i].data, g->keys[i].len, value, value_len);
  return g->st != HUDI_OK;
}

static int on_kv(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  merge *g = ctx;
  slot *s = NULL;
  g->st = slot_for(g, key, key_len, &s);
  if (g->st == HUDI_OK) g->st = apply_record(g, s, key, key_len, value, value_len);
  return g->st != HUDI_OK;
}

static int cmp_key_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al < bl ? -1 : al > bl);
}

/* Lookup mode: index of key among the sorted keys, or -1. */
static ptrdiff_t find_key(const merge *g, const uint8_t *k, size_t len) {
  size_t lo = 0, hi = g->n_slots;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp_key_bytes(g->keys[mid].data, g->keys[mid].len, k, len);
    if (c == 0) return (ptrdiff_t)mid;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

static hudi_status apply_delete_block(merge *g, const hudi_log_block *b, hudi_mdt_read_stats *st) {
  hudi_log_delete_list list;
  HUDI_TRY(hudi_log_delete_block_decode(&list, b->content, b->content_len, b->content_offset, g->where, g->err));
  hudi_status rc = HUDI_OK;
  for (size_t i = 0; rc == HUDI_OK && i < list.count; i++) {
    const hudi_log_delete_record *d = &list.records[i];
    if (!d->record_key) continue;
    if (g->collect) {
      rc = collect_put(g, (const uint8_t *)d->record_key, d->record_key_len, NULL, 0, true);
      continue;
    }
    slot *s = NULL;
    if (g->scan) {
      rc = slot_for(g, (const uint8_t *)d->record_key, d->record_key_len, &s);
    } else {
      ptrdiff_t at = find_key(g, (const uint8_t *)d->record_key, d->record_key_len);
      if (at >= 0) s = &g->slots[at];
    }
    if (rc == HUDI_OK && s) {
      if (s->state == PRESENT) hudi_mdt_record_free(&s->rec);
      s->state = DELETED;
    }
  }
  hudi_log_delete_list_free(&list);
  if (st) st->log_blocks_merged++;
  return rc;
}

static int on_collect(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  merge *g = ctx;
  g->st = collect_put(g, key, key_len, value, value_len, false);
  return g->st != HUDI_OK;
}

static hudi_status apply_hfile_block(merge *g, const hudi_log_block *b, hudi_mdt_read_stats *st) {
  hudi_hfile_reader *r;
  HUDI_TRY(hudi_hfile_reader_open_buffer(&r, b->content, (size_t)b->content_len, g->where, g->err));
  hudi_status rc = hfile_schema(g->m, r, b, &g->schema, g->where, g->err);
  g->st = HUDI_OK;
  if (rc == HUDI_OK && g->collect) rc = hudi_hfile_reader_scan(r, on_collect, g, g->err);
  else if (rc == HUDI_OK && g->scan) rc = hudi_hfile_reader_scan(r, on_kv, g, g->err);
  if (rc == HUDI_OK && !g->scan) rc = hudi_hfile_reader_lookup(r, g->keys, g->n_slots, on_found, g, g->err);
  if (rc == HUDI_OK) rc = g->st;
  hudi_hfile_reader_free(r);
  if (st) st->log_blocks_merged++;
  return rc;
}

/* A lookup in an HFILE_DATA block left on storage: the HFile reader
 * fetches its trailer, index and the data blocks of the keys only. */
static hudi_status apply_hfile_block_ranged(merge *g, const hudi_log_block *b, const char *path,
                                            const uint8_t *tail, size_t tail_len, hudi_mdt_read_stats *st) {
  hudi_mdt_log_range x;
  hudi_hfile_source src;
  hudi_mdt_log_hfile_source(&src, &x, g->m->mdt->storage, path, b);
  hudi_mdt_log_range_tail(&x, tail, tail_len); /* the walk's copy of the content's end */
  hudi_hfile_reader *r;
  hudi_status rc = hudi_hfile_reader_open(&r, &src, g->err);
  if (rc == HUDI_OK) {
    hudi_mdt_hfile_coalesce(r, g->m->mdt->storage);
    rc = hfile_schema(g->m, r, b, &g->schema, g->where, g->err);
    g->st = HUDI_OK;
    if (rc == HUDI_OK) rc = hudi_hfile_reader_lookup(r, g->keys, g->n_slots, on_found, g, g->err);
    if (rc == HUDI_OK) rc = g->st;
    hudi_hfile_reader_free(r);
  }
  hudi_mdt_log_range_close(&x);
  if (st) {
    st->log_blocks_merged++;
    st->log_bytes_read += x.bytes;
  }
  return rc;
}

/* A DELETE block left on storage: its content is fetched whole. */
static hudi_status apply_delete_block_ranged(merge *g, const hudi_log_block *b, const char *path,
                                             hudi_mdt_read_stats *st) {
  hudi_buf c;
  hudi_buf_init(&c, MAX_LOG_FILE);
  hudi_status rc = hudi_storage_read_buf(g->m->mdt->storage, path, b->content_offset, (size_t)b->content_len, &c,
                                         NULL, g->err);
  if (rc == HUDI_OK) {
    hudi_log_block view = *b; /* shallow: only content is set */
    view.content = c.data;
    rc = apply_delete_block(g, &view, st);
    if (st) st->log_bytes_read += b->content_len;
  }
  hudi_buf_free(&c);
  return rc;
}

/* One log file's bytes and its parsed blocks; ranged: the blocks are
 * walk's, large ones without their content (mdt_reader_log.h). */
typedef struct log_data {
  bool ranged;
  hudi_mdt_log_walk walk;
  hudi_buf bytes;
  hudi_log_reader *reader;
  hudi_log_block *blocks;
  bool *dropped;
  size_t n, cap;
} log_data;

static void log_data_free(log_data *d) {
  if (d->ranged) {
    hudi_mdt_log_walk_free(&d->walk); /* d->blocks are its blocks */
  } else {
    for (size_t i = 0; i < d->n; i++) hudi_log_block_free(&d->blocks[i]);
    hudi_free(d->blocks);
  }
  hudi_free(d->dropped);
  hudi_log_reader_free(d->reader);
  hudi_buf_free(&d->bytes);
}

/* Lookups walk the blocks by ranged reads and leave their content on
 * storage; scans, and files that are not sound throughout, are read whole. */
static hudi_status read_log_ranged(merge *g, const hudi_fs_log_file *lf, log_data *d, bool *done,
                                   hudi_mdt_read_stats *st) {
  *done = false;
  if (g->scan || g->collect) return HUDI_OK;
  hudi_mdt_log_walk *w = &d->walk;
  bool sound = false;
  HUDI_TRY(hudi_mdt_log_walk_file(w, g->m->mdt->storage, lf->path, &sound, g->err));
  if (st) st->log_bytes_read += w->bytes_read;
  if (!sound) return HUDI_OK;
  d->ranged = true; /* from here log_data_free frees the walk */
  d->blocks = w->blocks;
  d->n = d->cap = w->n;
  d->dropped = hudi_calloc(w->n ? w->n : 1, sizeof *d->dropped);
  if (!d->dropped) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory reading %s", lf->path);
  if (st) st->log_files_opened++;
  *done = true;
  return HUDI_OK;
}

static hudi_status read_log(merge *g, const hudi_fs_log_file *lf, log_data *d, hudi_mdt_read_stats *st) {
  hudi_buf_init(&d->bytes, MAX_LOG_FILE);
  bool done;
  HUDI_TRY(read_log_ranged(g, lf, d, &done, st));
  if (done) return HUDI_OK;
  HUDI_TRY(hudi_storage_read_all(g->m->mdt->storage, lf->path, MAX_LOG_FILE, &d->bytes, g->err));
  if (st) {
    st->log_files_opened++;
    st->log_bytes_read += d->bytes.len;
  }
  HUDI_TRY(hudi_log_reader_open_memory(&d->reader, d->bytes.data, d->bytes.len, lf->path, g->err));
  for (;;) {
    if (d->n == d->cap) {
      size_t cap = d->cap ? d->cap * 2 : 4;
      void *p = hudi_realloc(d->blocks, cap * sizeof *d->blocks);
      if (!p) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory reading %s", lf->path);
      d->blocks = p;
      p = hudi_realloc(d->dropped, cap * sizeof *d->dropped);
      if (!p) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory reading %s", lf->path);
      d->dropped = p;
      d->cap = cap;
    }
    bool has = false;
    memset(&d->blocks[d->n], 0, sizeof d->blocks[d->n]);
    HUDI_TRY(hudi_log_reader_next(d->reader, &d->blocks[d->n], &has, g->err));
    if (!has) return HUDI_OK;
    d->dropped[d->n] = false;
    d->n++;
  }
}

static const char *block_instant(const hudi_log_block *b) {
  size_t len;
  return hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, &len);
}

/* A rollback command block undoes the earlier blocks of its target
 * instant (HoodieLogRecordReader); v8+ writers delete files instead, but
 * older MDT logs may carry them. */
static void apply_command(log_data *logs, size_t upto_log, size_t upto_block, const hudi_log_block *cmd) {
  size_t len;
  const char *kind = hudi_log_meta_get(&cmd->header, HUDI_LOG_HEADER_COMMAND_BLOCK_TYPE, &len);
  const char *target = hudi_log_meta_get(&cmd->header, HUDI_LOG_HEADER_TARGET_INSTANT_TIME, &len);
  if (!kind || !target || strcmp(kind, "0") != 0) return;
  for (size_t l = 0; l <= upto_log; l++)
    for (size_t b = 0; b < (l == upto_log ? upto_block : logs[l].n); b++) {
      const char *t = block_instant(&logs[l].blocks[b]);
      if (t && strcmp(t, target) == 0) logs[l].dropped[b] = true;
    }
}

/* The oldest valid data block of a slice without a base file, when it is
 * an HFile block: its records are all older than every other log record,
 * which is what a base file's are, so the merge streams it as the base
 * instead of gathering, sorting and resolving its keys (after a bulk load
 * that is the whole shard: a million keys in one block). Its log file
 * stays in memory until the merge ends. */
typedef struct lead {
  bool found;
  log_data data;           /* the log file holding it */
  const hudi_log_block *block;
  const char *path;
} lead;

static void lead_free(lead *ld) {
  if (ld->found) log_data_free(&ld->data);
}

static bool valid_data_block(merge *g, const log_data *d, size_t b) {
  const hudi_log_block *blk = &d->blocks[b];
  const char *t = block_instant(blk);
  bool data = blk->type == HUDI_LOG_BLOCK_HFILE_DATA || blk->type == HUDI_LOG_BLOCK_DELETE;
  return data && !d->dropped[b] && t && hudi_mdt_instant_valid(g->m, t);
}

/* A DELETE block with no keys (as the metadata table's initialization
 * writes into every file group): nothing to merge. */
static bool empty_delete_block(merge *g, const hudi_log_block *b) {
  if (b->type != HUDI_LOG_BLOCK_DELETE || !b->content) return false;
  hudi_log_delete_list list;
  hudi_error ignored = {0};
  bool empty = false;
  if (hudi_log_delete_block_decode(&list, b->content, b->content_len, b->content_offset, g->where, &ignored) ==
      HUDI_OK) {
    empty = list.count == 0;
    hudi_log_delete_list_free(&list);
  }
  hudi_error_clear(&ignored); /* a bad block fails where the merge applies it */
  return empty;
}

/* Finds g->lead's block: (l, b) of the first valid data block after
 * empty DELETE blocks, if an HFile block held in memory. Record-index
 * shards only: their blocks hold each key once, which streaming it as a
 * base needs (stream_base_kv checks it). */
static bool find_lead(merge *g, const hudi_file_slice *s, const log_data *logs, size_t *lead_l, size_t *lead_b) {
  static const char prefix[] = ".record-index-"; /* file id "record-index-NNNN-0" */
  for (size_t l = 0; l < s->n_logs; l++) {
    const char *name = s->logs[l].file_name;
    if (!name || strncmp(name, prefix, sizeof prefix - 1) != 0) return false;
  }
  for (size_t l = 0; l < s->n_logs; l++)
    for (size_t b = 0; b < logs[l].n; b++) {
      if (!valid_data_block(g, &logs[l], b)) continue;
      const hudi_log_block *blk = &logs[l].blocks[b];
      if (empty_delete_block(g, blk)) continue;
      if (blk->type != HUDI_LOG_BLOCK_HFILE_DATA || !blk->content || logs[l].ranged) return false;
      *lead_l = l;
      *lead_b = b;
      return true;
    }
  return false;
}

static hudi_status merge_logs(merge *g, const hudi_file_slice *s, hudi_mdt_read_stats *st) {
  log_data *logs = hudi_calloc(s->n_logs ? s->n_logs : 1, sizeof *logs);
  if (!logs) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory merging %s", g->where);
  hudi_status rc = HUDI_OK;
  for (size_t l = 0; rc == HUDI_OK && l < s->n_logs; l++) rc = read_log(g, &s->logs[l], &logs[l], st);
  for (size_t l = 0; rc == HUDI_OK && l < s->n_logs; l++)
    for (size_t b = 0; b < logs[l].n; b++) {
      const hudi_log_block *blk = &logs[l].blocks[b];
      const char *t = block_instant(blk);
      if (blk->type == HUDI_LOG_BLOCK_COMMAND && t && hudi_mdt_instant_valid(g->m, t)) apply_command(logs, l, b, blk);
    }
  size_t lead_l = SIZE_MAX, lead_b = SIZE_MAX;
  if (rc == HUDI_OK && g->lead && !find_lead(g, s, logs, &lead_l, &lead_b)) lead_l = SIZE_MAX;
  for (size_t l = 0; rc == HUDI_OK && l < s->n_logs; l++) {
    for (size_t b = 0; rc == HUDI_OK && b < logs[l].n; b++) {
      const hudi_log_block *blk = &logs[l].blocks[b];
      if (!valid_data_block(g, &logs[l], b)) {
        if (st) st->log_blocks_skipped++;
        continue;
      }
      if (l == lead_l && b == lead_b) continue; /* streamed by the caller */
      g->where = s->logs[l].path;
      if (logs[l].ranged && !blk->content)
        rc = blk->type == HUDI_LOG_BLOCK_DELETE ? apply_delete_block_ranged(g, blk, s->logs[l].path, st)
                                                : apply_hfile_block_ranged(g, blk, s->logs[l].path,
                                                                           logs[l].walk.tails[b],
                                                                           logs[l].walk.tail_lens[b], st);
      else
        rc = blk->type == HUDI_LOG_BLOCK_DELETE ? apply_delete_block(g, blk, st) : apply_hfile_block(g, blk, st);
    }
  }
  if (rc == HUDI_OK && lead_l != SIZE_MAX) {
    g->lead->found = true;
    g->lead->data = logs[lead_l]; /* moved: its blocks point into its bytes */
    g->lead->block = &g->lead->data.blocks[lead_b];
    g->lead->path = s->logs[lead_l].path;
    memset(&logs[lead_l], 0, sizeof logs[lead_l]);
  }
  for (size_t l = 0; l < s->n_logs; l++) log_data_free(&logs[l]);
  hudi_free(logs);
  return rc;
}

/* Base HFile over storage: ctx is its hudi_storage_file (one descriptor
 * for all of a lookup's block reads on local storage). */
static int read_storage(void *ctx, uint64_t off, size_t len, uint8_t *dst) {
  return hudi_storage_file_read_exact(ctx, off, dst, len, NULL) != HUDI_OK;
}

/* A reader over base HFile b, its blocks read through *f (held until
 * base_close). */
static hudi_status base_open(hudi_storage *s, const hudi_fs_base_file *b, hudi_storage_file **f, hudi_hfile_reader **r,
                             hudi_error *err) {
  HUDI_TRY(hudi_storage_file_open(s, b->path, f, err));
  hudi_hfile_source src = {read_storage, *f, b->size, b->path};
  hudi_status st = hudi_hfile_reader_open(r, &src, err);
  if (st != HUDI_OK) hudi_storage_file_close(*f);
  return st;
}

static void base_close(hudi_storage_file *f, hudi_hfile_reader *r) {
  hudi_hfile_reader_free(r);
  hudi_storage_file_close(f);
}

static hudi_status merge_base(merge *g, const hudi_file_slice *s, hudi_mdt_read_stats *st) {
  if (!s->base) return HUDI_OK;
  hudi_storage_file *f;
  hudi_hfile_reader *r;
  g->where = s->base->path;
  g->base_phase = true;
  HUDI_TRY(base_open(g->m->mdt->storage, s->base, &f, &r, g->err));
  hudi_mdt_hfile_coalesce(r, g->m->mdt->storage);
  hudi_status rc = hfile_schema(g->m, r, NULL, &g->schema, g->where, g->err);
  g->st = HUDI_OK;
  if (rc == HUDI_OK && g->scan) {
    rc = hudi_hfile_reader_scan(r, on_kv, g, g->err);
  } else if (rc == HUDI_OK) {
    /* Only keys the logs did not delete. */
    hudi_hfile_key *keys = hudi_calloc(g->n_slots ? g->n_slots : 1, sizeof *keys);
    size_t *slot_of = hudi_calloc(g->n_slots ? g->n_slots : 1, sizeof *slot_of);
    size_t n = 0;
    if (!keys || !slot_of) rc = hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == HUDI_OK && i < g->n_slots; i++)
      if (g->slots[i].state != DELETED) {
        keys[n] = g->keys[i];
        slot_of[n++] = i;
      }
    subset u = {g, keys, slot_of};
    if (rc == HUDI_OK && n) rc = hudi_hfile_reader_lookup(r, keys, n, on_found_subset, &u, g->err);
    hudi_free(keys);
    hudi_free(slot_of);
  }
  if (rc == HUDI_OK) rc = g->st;
  if (st) {
    hudi_hfile_stats hs;
    hudi_hfile_reader_stats(r, &hs);
    st->base_files_opened++;
    st->base_data_blocks_read += hs.data_blocks_read;
    st->base_bytes_read += hs.bytes_read;
  }
  base_close(f, r);
  return rc;
}

void hudi_mdt_records_free(hudi_mdt_records *r) {
  if (!r) return;
  for (size_t i = 0; i < r->count; i++) hudi_mdt_record_free(&r->items[i]);
  hudi_free(r->items);
  r->items = NULL;
  r->count = 0;
}

static hudi_status run_merge(merge *g, const hudi_file_group *fg, hudi_mdt_read_stats *st) {
  const hudi_file_slice *s = hudi_file_group_latest_slice(fg);
  if (!s) return HUDI_OK;
  HUDI_TRY(merge_logs(g, s, st));
  return merge_base(g, s, st);
}

hudi_status hudi_mdt_group_lookup(hudi_mdt *m, const hudi_file_group *fg, const hudi_hfile_key *keys,
                                  size_t n_keys, hudi_mdt_records *out, hudi_mdt_read_stats *stats,
                                  hudi_error *err) {
  out->items = NULL;
  out->count = 0;
  for (size_t i = 1; i < n_keys; i++)
    if (cmp_key_bytes(keys[i - 1].data, keys[i - 1].len, keys[i].data, keys[i].len) >= 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata lookup keys must be sorted and distinct (key %zu)", i);
  merge g = {0};
  g.m = m;
  g.keys = keys;
  g.err = err;
  g.where = fg->file_id;
  hudi_hashmap_init(&g.index, 0);
  g.slots = hudi_calloc(n_keys ? n_keys : 1, sizeof *g.slots);
  if (!g.slots) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  g.n_slots = g.cap_slots = n_keys;
  hudi_status st = run_merge(&g, fg, stats);
  if (st == HUDI_OK) {
    out->items = hudi_calloc(n_keys ? n_keys : 1, sizeof *out->items);
    if (!out->items) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  if (st == HUDI_OK) {
    out->count = n_keys;
    for (size_t i = 0; i < n_keys; i++)
      if (g.slots[i].state == PRESENT) {
        out->items[i] = g.slots[i].rec;
        memset(&g.slots[i].rec, 0, sizeof g.slots[i].rec);
        g.slots[i].state = ABSENT;
      }
  }
  merge_free(&g);
  return st;
}

static int cmp_record_key(const void *a, const void *b) {
  const hudi_mdt_record *x = a, *y = b;
  return cmp_key_bytes((const uint8_t *)x->key, x->key_len, (const uint8_t *)y->key, y->key_len);
}

hudi_status hudi_mdt_group_scan(hudi_mdt *m, const hudi_file_group *fg, hudi_mdt_records *out,
                                hudi_mdt_read_stats *stats, hudi_error *err) {
  out->items = NULL;
  out->count = 0;
  merge g = {0};
  g.m = m;
  g.scan = true;
  g.err = err;
  g.where = fg->file_id;
  hudi_hashmap_init(&g.index, 0);
  hudi_status st = run_merge(&g, fg, stats);
  size_t n = 0;
  if (st == HUDI_OK) {
    out->items = hudi_calloc(g.n_slots ? g.n_slots : 1, sizeof *out->items);
    if (!out->items) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; st == HUDI_OK && i < g.n_slots; i++)
    if (g.slots[i].state == PRESENT) {
      out->items[n++] = g.slots[i].rec;
      memset(&g.slots[i].rec, 0, sizeof g.slots[i].rec);
      g.slots[i].state = ABSENT;
    }
  if (st == HUDI_OK) {
    out->count = n;
    qsort(out->items, n, sizeof *out->items, cmp_record_key);
  }
  merge_free(&g);
  return st;
}

/* ---- streaming merge (compaction) ---- */

hudi_status hudi_mdt_schema(hudi_mdt *m, const char *json, size_t len, const hudi_avro_node **out, hudi_error *err) {
  return get_schema(m, (const uint8_t *)json, len, out, "metadata payload schema", err);
}

/* One log record or delete, its bytes in the collect pool: the key, then
 * the value. 32 bytes: a 10M-key compaction holds 10M of them (twice
 * while their runs merge). */
typedef struct centry {
  union {
    size_t off;       /* while the pool grows */
    const uint8_t *p; /* once it stops (gather_logs) */
  } key;
  const hudi_avro_node *schema; /* NULL for a delete */
  uint32_t key_len, val_len;
  uint32_t seq;
} centry;

static inline const uint8_t *centry_value(const centry *e) { return e->key.p + e->key_len; }

typedef struct collect {
  hudi_buf pool;
  centry *items;
  size_t n, cap;
} collect;

static hudi_status collect_put(merge *g, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len,
                               bool is_delete) {
  collect *c = g->collect;
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 256;
    void *p = hudi_realloc(c->items, cap * sizeof *c->items);
    if (!p) return hudi_err_set(g->err, HUDI_ERR_NOMEM, "out of memory merging %s", g->where);
    c->items = p;
    c->cap = cap;
  }
  if (c->n >= UINT32_MAX || key_len > UINT32_MAX || value_len > UINT32_MAX)
    return hudi_err_set(g->err, HUDI_ERR_LIMIT, "%s: more than 4 Gi log records or a record of more than 4 GiB",
                        g->where);
  centry *e = &c->items[c->n];
  e->key.off = c->pool.len;
  e->key_len = (uint32_t)key_len;
  HUDI_TRY(hudi_buf_append(&c->pool, key, key_len, g->err));
  e->val_len = is_delete ? 0 : (uint32_t)value_len;
  if (!is_delete && value_len) HUDI_TRY(hudi_buf_append(&c->pool, value, value_len, g->err));
  e->schema = is_delete ? NULL : g->schema;
  e->seq = (uint32_t)c->n++;
  return HUDI_OK;
}

static int cmp_centry(const void *a, const void *b) {
  const centry *x = a, *y = b;
  int c = cmp_key_bytes(x->key.p, x->key_len, y->key.p, y->key_len);
  if (c) return c;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* ---- the payload's `type` without decoding it ---- */

static bool read_zigzag(const uint8_t *p, size_t len, size_t *pos, int64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= len) return false;
    uint8_t b = p[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
      return true;
    }
  }
  return false;
}

/* Whether a payload schema starts as every HoodieMetadataRecord schema
 * does: five nullable-string meta fields, then key (string), type (int). */
static bool standard_layout(const hudi_avro_node *n) {
  static const char *const names[] = {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                      "_hoodie_partition_path", "_hoodie_file_name", "key", "type"};
  if (!n || n->type != HUDI_AVRO_RECORD || n->n_fields < 7) return false;
  for (int i = 0; i < 7; i++) {
    const hudi_avro_node *t = n->fields[i].type;
    if (strcmp(n->fields[i].name, names[i]) != 0) return false;
    if (i < 5 && !(t->type == HUDI_AVRO_UNION && t->n_branches == 2 && t->branches[0]->type == HUDI_AVRO_NULL &&
                   t->branches[1]->type == HUDI_AVRO_STRING))
      return false;
    if (i == 5 && t->type != HUDI_AVRO_STRING) return false;
    if (i == 6 && t->type != HUDI_AVRO_INT) return false;
  }
  return true;
}

/* Offsets in a standard-layout payload: where the meta fields end and the
 * record's type. False when the bytes do not parse. */
static bool raw_layout(const uint8_t *v, size_t len, size_t *meta_end, int32_t *type) {
  size_t pos = 0;
  int64_t x;
  for (int i = 0; i < 5; i++) {
    if (!read_zigzag(v, len, &pos, &x) || (x != 0 && x != 1)) return false;
    if (x == 1) {
      if (!read_zigzag(v, len, &pos, &x) || x < 0 || (uint64_t)x > len - pos) return false;
      pos += (size_t)x;
    }
  }
  *meta_end = pos;
  if (!read_zigzag(v, len, &pos, &x) || x < 0 || (uint64_t)x > len - pos) return false;
  pos += (size_t)x;
  if (!read_zigzag(v, len, &pos, &x) || x < INT32_MIN || x > INT32_MAX) return false;
  *type = (int32_t)x;
  return true;
}

bool hudi_mdt_standard_layout(const hudi_avro_node *schema) { return standard_layout(schema); }

bool hudi_mdt_payload_meta_end(const uint8_t *v, size_t len, size_t *meta_end) {
  int32_t type;
  return raw_layout(v, len, meta_end, &type);
}

static bool is_listing(int32_t type) { return type == HUDI_MDT_TYPE_PARTITION_LIST || type == HUDI_MDT_TYPE_FILE_LIST; }

/* The merged log state of one key: deleted, or a record (its newest
 * value raw, or the files listing combined from several). */
typedef struct resolved {
  size_t first, count; /* the key's entries (sorted by seq) */
  bool deleted;
  bool reset;          /* a delete among them: what came before is gone */
  size_t last_put;     /* entry of the newest value */
  int32_t type;        /* of the newest value; INT32_MIN unknown */
  hudi_mdt_record *combined; /* non-NULL when file listings were combined */
} resolved;

typedef struct stream {
  hudi_mdt *m;
  collect c;
  resolved *res;
  size_t n_res, next;
  hudi_mdt_emit_fn fn;
  void *ctx;
  hudi_mdt_merge_counts *counts;
  const hudi_avro_node *base_schema;
  bool base_is_lead; /* the "base" is the oldest log block (struct lead) */
  uint64_t lead_records;
  hudi_buf lead_prev; /* its previous key */
  const char *where;
  hudi_status st;
  hudi_error *err;
  /* The last schema standard_layout judged, and its answer: a merge sees
   * one or two schemas over millions of records. */
  const hudi_avro_node *layout_of;
  bool layout_std;
  hudi_mdt_block_copy *copy; /* nullable: base blocks no log record changes go whole */
  const uint8_t *base_last;  /* the base file's last key (copy) */
  size_t base_last_len;
  bool inserting;            /* emitting keys only the logs have */
} stream;

static bool stream_standard(stream *s, const hudi_avro_node *schema) {
  if (schema != s->layout_of) {
    s->layout_of = schema;
    s->layout_std = standard_layout(schema);
  }
  return s->layout_std;
}

static hudi_status decode_entry(stream *s, const centry *e, hudi_mdt_record *out) {
  hudi_status st = hudi_mdt_record_decode(out, e->schema, (const char *)e->key.p, e->key_len, centry_value(e),
                                          e->val_len, s->where, s->err);
  if (st != HUDI_OK) hudi_mdt_record_free(out);
  return st;
}

/* The type of a value: read raw when the schema allows, else decoded. */
static hudi_status value_type(stream *s, const hudi_avro_node *schema, const char *key, size_t key_len,
                              const uint8_t *v, size_t len, int32_t *type) {
  size_t meta_end;
  if (stream_standard(s, schema) && raw_layout(v, len, &meta_end, type)) return HUDI_OK;
  hudi_mdt_record r;
  hudi_status st = hudi_mdt_record_decode(&r, schema, key, key_len, v, len, s->where, s->err);
  *type = r.type;
  hudi_mdt_record_free(&r);
  return st;
}

/* Folds the entries of one key as the log merge does: a delete drops what
 * came before; values combine in order (listings merge, others replace). */
static hudi_status resolve_key(stream *s, resolved *r) {
  const centry *e = &s->c.items[r->first];
  size_t start = 0;
  for (size_t i = 0; i < r->count; i++)
    if (!e[i].schema) start = i + 1;
  r->reset = start > 0;
  r->deleted = start == r->count;
  if (r->deleted) return HUDI_OK;
  r->last_put = r->first + r->count - 1;
  const centry *newest = &e[r->count - 1];
  HUDI_TRY(value_type(s, newest->schema, (const char *)newest->key.p, newest->key_len, centry_value(newest),
                      newest->val_len, &r->type));
  if (r->count - start == 1 || !is_listing(r->type)) return HUDI_OK; /* the newest replaces the others */
  hudi_mdt_record *acc = hudi_calloc(1, sizeof *acc);
  if (!acc) return hudi_err_set(s->err, HUDI_ERR_NOMEM, "out of memory merging %s", s->where);
  hudi_status st = decode_entry(s, &e[start], acc);
  for (size_t i = start + 1; st == HUDI_OK && i < r->count; i++) {
    hudi_mdt_record next;
    st = decode_entry(s, &e[i], &next);
    if (st == HUDI_OK) st = hudi_mdt_record_combine(acc, acc, &next, s->err);
  }
  if (st != HUDI_OK) {
    hudi_mdt_record_free(acc);
    hudi_free(acc);
    return st;
  }
  r->combined = acc;
  return HUDI_OK;
}

static hudi_status emit_decoded(stream *s, hudi_mdt_record *rec) {
  hudi_mdt_merged out = {(const uint8_t *)rec->key, rec->key_len, rec, NULL, 0, NULL, s->inserting};
  hudi_status st = s->fn(s->ctx, &out, s->err);
  hudi_mdt_record_free(rec);
  if (st == HUDI_OK && s->counts) s->counts->written++;
  return st;
}

static hudi_status emit_raw(stream *s, const uint8_t *key, size_t key_len, const uint8_t *v, size_t len,
                            const hudi_avro_node *schema) {
  hudi_mdt_merged out = {key, key_len, NULL, v, len, schema, s->inserting};
  HUDI_TRY(s->fn(s->ctx, &out, s->err));
  if (s->counts) s->counts->written++;
  return HUDI_OK;
}

/* The log state of r as the newest value: combined, or raw. */
static hudi_status emit_log(stream *s, const resolved *r) {
  if (r->combined) {
    hudi_mdt_record rec;
    HUDI_TRY(hudi_mdt_record_copy(&rec, r->combined, s->err));
    return emit_decoded(s, &rec);
  }
  const centry *e = &s->c.items[r->last_put];
  return emit_raw(s, e->key.p, e->key_len, centry_value(e), e->val_len, e->schema);
}

/* Emits the log-only keys before (key, len), or all that remain. */
static hudi_status emit_logs_before(stream *s, const uint8_t *key, size_t len) {
  while (s->next < s->n_res) {
    const resolved *r = &s->res[s->next];
    const centry *e = &s->c.items[r->first];
    if (key && cmp_key_bytes(e->key.p, e->key_len, key, len) >= 0) break;
    s->next++;
    if (r->deleted) {
      if (s->counts) s->counts->deletes++;
      continue;
    }
    if (s->counts) s->counts->inserts++;
    s->inserting = true;
    hudi_status st = emit_log(s, r);
    s->inserting = false;
    HUDI_TRY(st);
  }
  return HUDI_OK;
}

/* A key of the lead block that later log records change: the log fold
 * resolve_key does, with the lead record first (a key only in the logs
 * for the counts, as without the lead). */
static hudi_status lead_merge(stream *s, const resolved *r, const uint8_t *key, size_t key_len, const uint8_t *value,
                              size_t value_len) {
  if (s->counts) s->counts->inserts++;
  /* A delete among the later records drops the lead record; a newest
   * record that is not a listing replaces everything before it. */
  if (r->reset || !is_listing(r->type)) return emit_log(s, r);
  hudi_mdt_record acc;
  hudi_status st = hudi_mdt_record_decode(&acc, s->base_schema, (const char *)key, key_len, value, value_len,
                                          s->where, s->err);
  if (st != HUDI_OK) {
    hudi_mdt_record_free(&acc);
    return st;
  }
  for (size_t i = 0; st == HUDI_OK && i < r->count; i++) {
    hudi_mdt_record next;
    st = decode_entry(s, &s->c.items[r->first + i], &next);
    if (st == HUDI_OK) st = hudi_mdt_record_combine(&acc, &acc, &next, s->err);
  }
  if (st != HUDI_OK) {
    hudi_mdt_record_free(&acc);
    return st;
  }
  return emit_decoded(s, &acc);
}

/* Counts a key of the lead block, which must come after the previous one:
 * a key twice would be emitted twice. */
static hudi_status lead_key(stream *s, const uint8_t *key, size_t key_len) {
  if (s->lead_records++ && cmp_key_bytes(s->lead_prev.data, s->lead_prev.len, key, key_len) >= 0)
    return hudi_err_set(s->err, HUDI_ERR_CORRUPT, "%s: HFile log block keys not in ascending order at key '%.*s'",
                        s->where, (int)(key_len > 200 ? 200 : key_len), (const char *)key);
  s->lead_prev.len = 0;
  return hudi_buf_append(&s->lead_prev, key, key_len, s->err);
}

static hudi_status stream_base_kv(stream *s, const uint8_t *key, size_t key_len, const uint8_t *value,
                                  size_t value_len) {
  HUDI_TRY(emit_logs_before(s, key, key_len));
  const resolved *r = NULL;
  if (s->next < s->n_res) {
    const centry *e = &s->c.items[s->res[s->next].first];
    if (cmp_key_bytes(e->key.p, e->key_len, key, key_len) == 0) r = &s->res[s->next++];
  }
  if (s->base_is_lead) HUDI_TRY(lead_key(s, key, key_len));
  if (!r) {
    if (s->base_is_lead && s->counts) s->counts->inserts++;
    return emit_raw(s, key, key_len, value, value_len, s->base_schema);
  }
  if (r->deleted) {
    if (s->counts) s->counts->deletes++;
    return HUDI_OK;
  }
  if (s->base_is_lead) return lead_merge(s, r, key, key_len, value, value_len);
  if (s->counts) s->counts->updates++;
  int32_t base_type;
  HUDI_TRY(value_type(s, s->base_schema, (const char *)key, key_len, value, value_len, &base_type));
  /* Only two listings merge; any other newer record replaces the base one
   * (hudi_mdt_record_combine). */
  if (!(is_listing(r->type) && base_type == r->type)) return emit_log(s, r);
  hudi_mdt_record base, upd;
  hudi_status st = hudi_mdt_record_decode(&base, s->base_schema, (const char *)key, key_len, value, value_len,
                                          s->where, s->err);
  if (st != HUDI_OK) {
    hudi_mdt_record_free(&base);
    return st;
  }
  if (r->combined) {
    st = hudi_mdt_record_copy(&upd, r->combined, s->err);
  } else {
    const centry *e = &s->c.items[r->last_put];
    st = decode_entry(s, e, &upd);
  }
  if (st != HUDI_OK) {
    hudi_mdt_record_free(&upd);
    hudi_mdt_record_free(&base);
    return st;
  }
  HUDI_TRY(hudi_mdt_record_combine(&base, &base, &upd, s->err));
  return emit_decoded(s, &base);
}

static int on_base_kv(void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value, size_t value_len) {
  stream *s = ctx;
  s->st = stream_base_kv(s, key, key_len, value, value_len);
  return s->st != HUDI_OK;
}

/* Whether no log record falls in a base block's keys, [first, next) or,
 * for the last block (next NULL), [first, the base's last key]. */
static bool block_unchanged(void *ctx, const uint8_t *first, size_t first_len, const uint8_t *next, size_t next_len) {
  stream *s = ctx;
  size_t j = s->next;
  while (j < s->n_res) {
    const centry *e = &s->c.items[s->res[j].first];
    if (cmp_key_bytes(e->key.p, e->key_len, first, first_len) >= 0) break;
    j++;
  }
  if (j == s->n_res) return true;
  const centry *e = &s->c.items[s->res[j].first];
  if (next) return cmp_key_bytes(e->key.p, e->key_len, next, next_len) >= 0;
  return cmp_key_bytes(e->key.p, e->key_len, s->base_last, s->base_last_len) > 0;
}

/* An unchanged base block: the log-only keys before it, then the block. */
static hudi_status copy_block(void *ctx, const uint8_t *block, size_t len, const uint8_t *first, size_t first_len,
                              const uint8_t *last, size_t last_len, hudi_error *err) {
  stream *s = ctx;
  HUDI_TRY(emit_logs_before(s, first, first_len));
  HUDI_TRY(s->copy->fn(s->copy->ctx, block, len, first, first_len, last, last_len, err));
  s->copy->blocks++;
  return HUDI_OK;
}

/* Merges the records of r (a base file, or with b the lead log block) with
 * the resolved log records, in key order; with s->copy, a base file's
 * unchanged blocks go whole (hudi_mdt_block_copy). */
static hudi_status scan_base(stream *s, hudi_hfile_reader *r, const hudi_log_block *b) {
  hudi_status rc = hfile_schema(s->m, r, b, &s->base_schema, s->where, s->err);
  s->st = HUDI_OK;
  if (rc != HUDI_OK) return rc;
  if (b || !s->copy || s->base_schema != s->copy->schema || (s->copy->accept && !s->copy->accept(s->copy->ctx, r))) {
    rc = hudi_hfile_reader_scan(r, on_base_kv, s, s->err);
    return rc == HUDI_OK ? s->st : rc;
  }
  s->base_last = hudi_hfile_reader_last_key(r, &s->base_last_len);
  hudi_hfile_block_visitor v = {block_unchanged, copy_block, on_base_kv};
  uint64_t decoded = 0;
  rc = hudi_hfile_reader_scan_blocks(r, &v, s, &decoded, s->err);
  if (rc != HUDI_OK || s->st != HUDI_OK) return rc == HUDI_OK ? s->st : rc;
  uint64_t total = hudi_hfile_reader_entry_count(r);
  if (decoded > total)
    return hudi_err_set(s->err, HUDI_ERR_CORRUPT, "%s: %llu key-values in its blocks, %llu in its trailer", s->where,
                        (unsigned long long)decoded, (unsigned long long)total);
  s->copy->records = total - decoded;
  if (s->counts) s->counts->written += total - decoded;
  return HUDI_OK;
}

static hudi_status stream_base(stream *s, const hudi_fs_base_file *base, hudi_mdt_read_stats *st) {
  hudi_storage_file *f;
  hudi_hfile_reader *r;
  s->where = base->path;
  HUDI_TRY(base_open(s->m->mdt->storage, base, &f, &r, s->err));
  hudi_status rc = scan_base(s, r, NULL);
  if (st) {
    hudi_hfile_stats hs;
    hudi_hfile_reader_stats(r, &hs);
    st->base_files_opened++;
    st->base_data_blocks_read += hs.data_blocks_read;
    st->base_bytes_read += hs.bytes_read;
  }
  base_close(f, r);
  return rc;
}

/* The lead block (struct lead) streamed as the base. */
static hudi_status stream_lead(stream *s, const lead *ld, hudi_mdt_read_stats *st) {
  hudi_hfile_reader *r;
  s->where = ld->path;
  s->base_is_lead = true;
  HUDI_TRY(hudi_hfile_reader_open_buffer(&r, ld->block->content, (size_t)ld->block->content_len, s->where, s->err));
  hudi_status rc = scan_base(s, r, ld->block);
  hudi_hfile_reader_free(r);
  if (st) st->log_blocks_merged++;
  if (s->counts) {
    s->counts->log_blocks++;
    s->counts->log_records += s->lead_records;
  }
  return rc;
}

/* Gathers the valid log records of logs[0, n) raw, sorted by key; with
 * ld, all but the lead block's (left in ld when there is one). */
static hudi_status gather_logs(stream *s, const hudi_fs_log_file *logs, size_t n, lead *ld, hudi_mdt_read_stats *st) {
  merge g = {0};
  g.m = s->m;
  g.scan = true;
  g.collect = &s->c;
  g.lead = ld;
  g.err = s->err;
  g.where = "metadata log";
  hudi_hashmap_init(&g.index, 0);
  hudi_file_slice slice;
  memset(&slice, 0, sizeof slice);
  slice.logs = (hudi_fs_log_file *)logs;
  slice.n_logs = n;
  hudi_mdt_read_stats local = {0};
  hudi_status rc = merge_logs(&g, &slice, &local);
  merge_free(&g);
  if (st) {
    st->log_files_opened += local.log_files_opened;
    st->log_blocks_merged += local.log_blocks_merged;
    st->log_blocks_skipped += local.log_blocks_skipped;
    st->log_bytes_read += local.log_bytes_read;
  }
  if (s->counts) {
    s->counts->log_blocks += local.log_blocks_merged;
    s->counts->log_records += s->c.n;
  }
  HUDI_TRY(rc);
  for (size_t i = 0; i < s->c.n; i++) s->c.items[i].key.p = s->c.pool.data + s->c.items[i].key.off;
  /* They arrive as sorted runs, one per log block (an HFile block lists
   * its keys in order): merging the runs costs a pass per doubling, where
   * qsort compared every key ~20 times at a million keys (a tenth of a
   * 10M-key compaction). Many runs (Avro blocks) go to qsort. */
  return hudi_sort_runs(s->c.items, s->c.n, sizeof *s->c.items, cmp_centry, 64, s->err);
}

static bool same_key(const centry *a, const centry *b) {
  return cmp_key_bytes(a->key.p, a->key_len, b->key.p, b->key_len) == 0;
}

static hudi_status resolve_all(stream *s) {
  size_t n_keys = 0;
  for (size_t i = 0; i < s->c.n; i++)
    if (i == 0 || !same_key(&s->c.items[i - 1], &s->c.items[i])) n_keys++;
  s->res = hudi_calloc(n_keys ? n_keys : 1, sizeof *s->res);
  if (!s->res) return hudi_err_set(s->err, HUDI_ERR_NOMEM, "out of memory merging %zu log keys", n_keys);
  for (size_t i = 0; i < s->c.n;) {
    size_t j = i + 1;
    while (j < s->c.n && same_key(&s->c.items[i], &s->c.items[j])) j++;
    resolved *r = &s->res[s->n_res++];
    r->first = i;
    r->count = j - i;
    HUDI_TRY(resolve_key(s, r));
    i = j;
  }
  return HUDI_OK;
}

hudi_status hudi_mdt_slice_merge(hudi_mdt *m, const hudi_fs_base_file *base, const hudi_fs_log_file *logs,
                                 size_t n_logs, hudi_mdt_emit_fn fn, void *ctx, hudi_mdt_block_copy *copy,
                                 hudi_mdt_merge_counts *counts, hudi_mdt_read_stats *stats, hudi_error *err) {
  stream s;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.fn = fn;
  s.ctx = ctx;
  s.counts = counts;
  s.copy = copy;
  s.err = err;
  s.where = "metadata log";
  hudi_buf_init(&s.c.pool, (size_t)1 << 34);
  hudi_buf_init(&s.lead_prev, 1 << 20);
  lead ld;
  memset(&ld, 0, sizeof ld);
  hudi_status st = gather_logs(&s, logs, n_logs, base ? NULL : &ld, stats);
  if (st == HUDI_OK) st = resolve_all(&s);
  if (st == HUDI_OK && base) st = stream_base(&s, base, stats);
  else if (st == HUDI_OK && ld.found) st = stream_lead(&s, &ld, stats);
  if (st == HUDI_OK) st = emit_logs_before(&s, NULL, 0);
  lead_free(&ld);
  hudi_buf_free(&s.lead_prev);
  for (size_t i = 0; i < s.n_res; i++)
    if (s.res[i].combined) {
      hudi_mdt_record_free(s.res[i].combined);
      hudi_free(s.res[i].combined);
    }
  hudi_free(s.res);
  hudi_free(s.c.items);
  hudi_buf_free(&s.c.pool);
  return st;
}
