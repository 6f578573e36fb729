/* One data commit into the metadata table: the files listing and the
 * record-level index (mdt_write.h; spec hudi-metadata-table.md §5). */
#include "table/mdt_secondary_index.h"
#include "table/mdt_write.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/instant.h"
#include "base/threadpool.h"
#include "table/log_file_name.h"
#include "table/log_writer.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_instants.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"
#include "table/properties.h"

#define MAX_KEY_LEN 32767

/* ---- record-index changes, sorted and bucketed by shard ---- */

/* The key's pointer, length and first 8 bytes sit beside the change:
 * sorting and the duplicate pass then read keys without a second
 * indirection (a bulk insert's keys lie in one arena; their changes would
 * be reached by scattered reads, ~2 s for 10M keys), and most comparisons
 * end at the prefix without touching the key bytes at all (keys in input
 * order are a cache miss each). */
typedef struct key_ref {
  uint64_t prefix; /* the first 8 bytes big-endian, zero-padded */
  const char *key;
  uint32_t key_len;
  int32_t shard;
  const char *file_id;   /* the change's (NULL: a delete) */
  const char *partition; /* the change's */
} key_ref;

static uint64_t key_prefix_at(const char *k, size_t len, size_t off) {
  if (off + 8 <= len) { /* one load, byte-swapped to big-endian */
    uint64_t v;
    memcpy(&v, k + off, 8);
    return __builtin_bswap64(v);
  }
  uint64_t v = 0;
  for (size_t i = off; i < off + 8; i++) v = v << 8 | (i < len ? (uint8_t)k[i] : 0);
  return v;
}

static uint64_t key_prefix(const char *k, size_t len) { return key_prefix_at(k, len, 0); }

static int cmp_bytes(const char *a, size_t al, const char *b, size_t bl) {
  size_t n = al < bl ? al : bl;
  int c = memcmp(a, b, n);
  if (c) return c;
  return al < bl ? -1 : al > bl;
}

/* By shard, then key (byte order: differing prefixes order the keys as
 * the bytes do, a zero pad being the shorter key); for one key the delete
 * first, so the insert that follows it wins (a key moving between
 * partitions). */
static int cmp_key_ref(const void *a, const void *b) {
  const key_ref *x = a, *y = b;
  if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
  if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
  int c = cmp_bytes(x->key, x->key_len, y->key, y->key_len);
  if (c) return c;
  return (x->file_id != NULL) - (y->file_id != NULL);
}

static bool same_key(const key_ref *x, const key_ref *y) {
  return x->prefix == y->prefix && cmp_bytes(x->key, x->key_len, y->key, y->key_len) == 0;
}

/* The largest log a record-index shard's initialisation leaves (one
 * empty DELETE block: 80 bytes); a log holding any key carries the
 * schema in its header and is several KiB. */
#define INIT_LOG_MAX 1024

/* Whether a record_index file (name, size bytes) is one the metadata
 * initialisation wrote into a shard that holds no key: a log of an
 * initialisation instant (HUDI_MDT_SOLO_COMMIT_TIMESTAMP...), small. */
static bool init_only_file(const char *name, uint64_t size) {
  if (*name != '.' || size > INIT_LOG_MAX) return false;
  hudi_log_file_name ln = HUDI_LOG_FILE_NAME_INIT;
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_log_file_name_parse(&ln, name, strlen(name), &ignored) != HUDI_OK) return false;
  bool init = !strncmp(ln.instant, HUDI_MDT_SOLO_COMMIT_TIMESTAMP, strlen(HUDI_MDT_SOLO_COMMIT_TIMESTAMP)) &&
              !strcmp(ln.extension, "log");
  hudi_log_file_name_free(&ln);
  return init;
}

/* Counts the record_index file groups present (their file ids, from base
 * and log file names). With fresh (nullable), *fresh gets a flag per
 * shard: set when the shard holds no key yet (init_only_file is true of
 * every file it has; hudi_mdt_write_options.rli_base_files). */
static hudi_status count_rli_shards(hudi_storage *s, int32_t *out, uint8_t **fresh, hudi_error *err) {
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, HUDI_MDT_W_BASE "/record_index", 0, &list, err));
  int32_t max_index = -1;
  size_t distinct = 0;
  /* seen[i]: bit 0 a file of shard i, bit 1 one holding keys */
  unsigned char *seen = hudi_calloc(HUDI_MDT_MAX_RLI_SHARDS, 1);
  if (!seen) {
    hudi_file_list_free(&list);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "record_index listing");
  }
  for (size_t i = 0; i < list.count; i++) {
    if (list.items[i].is_dir) continue;
    const char *name = strrchr(list.items[i].path, '/');
    name = name ? name + 1 : list.items[i].path;
    const char *id = *name == '.' ? name + 1 : name;
    int idx = -1, n = 0;
    if (sscanf(id, "record-index-%4d-0_%n", &idx, &n) == 1 && n > 0 && idx >= 0 && idx < HUDI_MDT_MAX_RLI_SHARDS) {
      if (!seen[idx]) distinct++;
      seen[idx] |= 1;
      if (fresh && !init_only_file(name, list.items[i].size)) seen[idx] |= 2;
      if (idx > max_index) max_index = idx;
    }
  }
  hudi_file_list_free(&list);
  hudi_status st = HUDI_OK;
  if (max_index + 1 != (int32_t)distinct)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT,
                      "%s/record_index: %zu file groups but the highest index is %d (a shard is missing)",
                      HUDI_MDT_W_BASE, distinct, max_index);
  if (st == HUDI_OK && fresh && distinct) {
    *fresh = hudi_malloc(distinct);
    if (!*fresh) st = hudi_err_set(err, HUDI_ERR_NOMEM, "record_index listing");
    for (size_t i = 0; st == HUDI_OK && i < distinct; i++) (*fresh)[i] = seen[i] == 1;
  }
  hudi_free(seen);
  HUDI_TRY(st);
  *out = (int32_t)distinct;
  return HUDI_OK;
}

/* ---- the files partition ---- */

typedef struct file_ref {
  const hudi_mdt_file_change *f;
} file_ref;

static int cmp_file_ref(const void *a, const void *b) {
  const hudi_mdt_file_change *x = ((const file_ref *)a)->f, *y = ((const file_ref *)b)->f;
  int c = strcmp(x->partition, y->partition);
  return c ? c : strcmp(x->name, y->name);
}

static hudi_status check_files(const hudi_mdt_commit_input *in, hudi_error *err) {
  for (size_t i = 0; i < in->n_files; i++) {
    const hudi_mdt_file_change *f = &in->files[i];
    if (!f->partition || !f->name || !*f->name || strchr(f->name, '/'))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: file entry %zu has no valid name",
                          in->instant, i);
    if (!f->deleted && f->size <= 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "metadata table commit %s: file %s/%s has size %lld (existing files need size > 0)",
                          in->instant, f->partition, f->name, (long long)f->size);
    if (f->partition[0] == '/' || (f->partition[0] && f->partition[strlen(f->partition) - 1] == '/'))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: partition '%s' is not relative",
                          in->instant, f->partition);
  }
  return HUDI_OK;
}

/* ---- Java HashMap iteration order ---- */

typedef struct map_slot {
  hudi_mdt_file_entry e;
  uint32_t bucket;
  size_t seq;
} map_slot;

static int cmp_slot(const void *a, const void *b) {
  const map_slot *x = a, *y = b;
  if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Reorders r's filesystemMetadata entries as a java.util.HashMap filled
 * in this order iterates them: by bucket (h ^ h >>> 16) & (cap - 1) with
 * cap the table size after n puts (16, doubled while n > 0.75 cap), ties
 * in insertion order. (A bucket of 8+ colliding keys in a table of 64+
 * would be a tree in Java; such hash collisions are not modelled.) */
static hudi_status java_map_order(hudi_mdt_record *r, hudi_error *err) {
  size_t n = r->n_files;
  if (n < 2) return HUDI_OK;
  size_t cap = 16;
  while (n > cap / 4 * 3) cap *= 2;
  map_slot *slots = hudi_calloc(n, sizeof *slots);
  if (!slots) return hudi_err_set(err, HUDI_ERR_NOMEM, "map of %zu entries", n);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    int32_t h;
    st = hudi_java_string_hash(&h, r->files[i].name, r->files[i].name_len, err);
    uint32_t u = (uint32_t)h;
    slots[i].e = r->files[i];
    slots[i].bucket = (u ^ (u >> 16)) & (uint32_t)(cap - 1);
    slots[i].seq = i;
  }
  if (st == HUDI_OK) {
    qsort(slots, n, sizeof *slots, cmp_slot);
    for (size_t i = 0; i < n; i++) r->files[i] = slots[i].e;
  }
  hudi_free(slots);
  return st;
}

static const char *mdt_partition_key(const char *p) { return *p ? p : HUDI_MDT_NON_PARTITIONED_NAME; }

/* Builds __all_partitions__ and one record per touched partition. */
static hudi_status build_files_records(const hudi_mdt_commit_input *in, hudi_mdt_record **recs, size_t *n_recs,
                                       hudi_error *err) {
  *n_recs = 0;
  file_ref *refs = hudi_calloc(in->n_files, sizeof *refs);
  if (!refs) return hudi_err_set(err, HUDI_ERR_NOMEM, "files partition records");
  for (size_t i = 0; i < in->n_files; i++) refs[i].f = &in->files[i];
  qsort(refs, in->n_files, sizeof *refs, cmp_file_ref);
  hudi_status st = HUDI_OK;
  hudi_mdt_record *all = hudi_calloc(1, sizeof *all);
  if (!all) st = hudi_err_set(err, HUDI_ERR_NOMEM, "files partition records");
  if (st == HUDI_OK) {
    hudi_mdt_record_init(all);
    recs[(*n_recs)++] = all;
    st = hudi_mdt_record_set_key(all, HUDI_MDT_ALL_PARTITIONS_KEY, strlen(HUDI_MDT_ALL_PARTITIONS_KEY),
                                 HUDI_MDT_TYPE_PARTITION_LIST, err);
    all->has_files = true;
  }
  hudi_mdt_record *cur = NULL;
  for (size_t i = 0; st == HUDI_OK && i < in->n_files; i++) {
    const hudi_mdt_file_change *f = refs[i].f;
    if (i > 0 && strcmp(f->partition, refs[i - 1].f->partition) == 0 && strcmp(f->name, refs[i - 1].f->name) == 0) {
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: file %s/%s given twice", in->instant,
                        f->partition, f->name);
      break;
    }
    if (!cur || strcmp(f->partition, refs[i - 1].f->partition) != 0) {
      const char *key = mdt_partition_key(f->partition);
      st = hudi_mdt_record_add_file(all, key, strlen(key), 0, false, err);
      if (st != HUDI_OK) break;
      cur = hudi_calloc(1, sizeof *cur);
      if (!cur) {
        st = hudi_err_set(err, HUDI_ERR_NOMEM, "files partition records");
        break;
      }
      hudi_mdt_record_init(cur);
      recs[(*n_recs)++] = cur;
      st = hudi_mdt_record_set_key(cur, key, strlen(key), HUDI_MDT_TYPE_FILE_LIST, err);
      cur->has_files = true;
      if (st != HUDI_OK) break;
    }
    st = hudi_mdt_record_add_file(cur, f->name, strlen(f->name), f->deleted ? 0 : f->size, f->deleted, err);
  }
  hudi_free(refs);
  for (size_t i = 0; st == HUDI_OK && i < *n_recs; i++) st = java_map_order(recs[i], err);
  return st;
}

/* ---- the commit ---- */

/* Buffers of shard logs already written, for the next shards' HFiles: a
 * shard's log is ~30 MB at 10M keys, and each fresh one was that many
 * pages faulted in; with the shards' tasks on two cores, eight of ten
 * reuse a buffer instead. Lock-free slots: a buffer's capacity is kept
 * in its first bytes while it waits. */
#define SPARE_SLOTS 4
#define SPARE_MIN ((size_t)1 << 16)
typedef struct spare_bufs {
  _Atomic(uint8_t *) slot[SPARE_SLOTS];
} spare_bufs;

/* Keeps data (cap bytes) for a later shard, or frees it. */
static void spare_put(spare_bufs *sp, uint8_t *data, size_t cap) {
  if (!sp || !data || cap < SPARE_MIN) {
    hudi_free(data);
    return;
  }
  memcpy(data, &cap, sizeof cap);
  for (int i = 0; i < SPARE_SLOTS; i++) {
    uint8_t *none = NULL;
    if (atomic_compare_exchange_strong(&sp->slot[i], &none, data)) return;
  }
  hudi_free(data);
}

/* A kept buffer (*cap its size), or NULL. */
static uint8_t *spare_take(spare_bufs *sp, size_t *cap) {
  for (int i = 0; sp && i < SPARE_SLOTS; i++) {
    uint8_t *d = atomic_exchange(&sp->slot[i], NULL);
    if (d) {
      memcpy(cap, d, sizeof *cap);
      return d;
    }
  }
  return NULL;
}

static void spare_free(spare_bufs *sp) {
  size_t cap;
  for (uint8_t *d; (d = spare_take(sp, &cap));) hudi_free(d);
}

typedef struct commit_ctx {
  hudi_storage *s;
  hudi_mdt_write_options o;
  const hudi_mdt_commit_input *in;
  hudi_mdt_commit_result *res;
  hudi_avro_schema *schema;
  const char *schema_json;
  size_t schema_len;
  int64_t instant_ms;
  hudi_commit_metadata *meta;
  key_ref *refs; /* resolved record-index changes, by shard and key */
  size_t n_refs;
  char *key_bytes; /* their keys (refs point here) */
  /* fresh[s]: record-index shard s holds no key yet (count_rli_shards),
   * so its keys go to a base file (o.rli_base_files); NULL: none is. */
  uint8_t *fresh;
  int32_t n_fresh; /* fresh's length */
  spare_bufs *spares; /* while the shards' tasks run (run_shards) */
  /* The log files of the commit (run_commit), shard tasks included, made
   * durable together before the instant completes (io/storage.h). */
  hudi_storage_group *group;
} commit_ctx;

/* Creates the log file of one file group holding blocks (whole log
 * blocks); *path gets its NUL-terminated path, *version its version.
 * Touches nothing of c: shards create theirs on several threads. */
static hudi_status create_log(const commit_ctx *c, const char *partition, const char *file_id, const hudi_buf *blocks,
                              hudi_buf *path, int32_t *version, hudi_error *err) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s/%s", HUDI_MDT_W_BASE, partition);
  *version = 1;
  HUDI_TRY(hudi_log_file_create(c->s, dir, file_id, c->in->instant, 1, HUDI_MDT_WRITE_TOKEN, blocks->data, blocks->len,
                                version, path, err));
  return hudi_buf_append_byte(path, 0, err);
}

/* Lists a created log file (full_path, len bytes) in the commit metadata. */
static hudi_status add_log_stat(commit_ctx *c, const char *partition, const char *file_id, const char *full,
                                int32_t version, size_t len, int64_t n_writes, int64_t n_deletes, hudi_error *err) {
  hudi_write_stat *ws = NULL;
  const char *rel = full && strncmp(full, HUDI_MDT_W_BASE "/", strlen(HUDI_MDT_W_BASE) + 1) == 0
                        ? full + strlen(HUDI_MDT_W_BASE) + 1
                        : full;
  const char *name = rel ? strrchr(rel, '/') : NULL;
  name = name ? name + 1 : rel;
  HUDI_TRY(hudi_commit_metadata_add_stat(c->meta, partition, &ws, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, file_id, &ws->file_id, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, rel, &ws->path, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, c->in->instant, &ws->prev_commit, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, "", &ws->base_file, err));
  HUDI_TRY(hudi_tl_strs_push(&ws->log_files, &c->meta->doc.arena, name, err));
  /* As Spark's metadata writer fills a log append's stat ([F9]). */
  ws->num_writes = ws->num_update_writes = (hudi_tl_long){n_writes, 1};
  ws->num_deletes = (hudi_tl_long){n_deletes, 1};
  ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)len, 1};
  ws->log_version = (hudi_tl_int){version, 1};
  ws->log_offset = (hudi_tl_long){0, 1};
  hudi_write_stat_zero_unset(ws);
  c->res->log_files++;
  c->res->bytes_written += len;
  return HUDI_OK;
}

/* Writes one log file of MDT file group (partition, file_id) holding the
 * given blocks and records its write stat. */
static hudi_status write_log(commit_ctx *c, const char *partition, const char *file_id, const hudi_buf *blocks,
                             int64_t n_writes, int64_t n_deletes, hudi_error *err) {
  hudi_buf path;
  hudi_buf_init(&path, 4096);
  int32_t version;
  hudi_status st = create_log(c, partition, file_id, blocks, &path, &version, err);
  if (st == HUDI_OK)
    st = add_log_stat(c, partition, file_id, (const char *)path.data, version, blocks->len, n_writes, n_deletes, err);
  hudi_buf_free(&path);
  return st;
}

static hudi_status commit_files(commit_ctx *c, hudi_error *err) {
  if (c->in->n_files == 0) return HUDI_OK;
  size_t cap = c->in->n_files + 1, n = 0;
  hudi_mdt_record **recs = hudi_calloc(cap, sizeof *recs);
  if (!recs) return hudi_err_set(err, HUDI_ERR_NOMEM, "files partition records");
  hudi_status st = build_files_records(c->in, recs, &n, err);
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  hudi_buf blocks;
  hudi_buf_init(&blocks, HUDI_BUF_DEFAULT_MAX);
  if (st == HUDI_OK)
    st = hudi_mdt_w_hfile(recs, n, c->schema->root, c->schema_json, c->schema_len, &c->o, false, &hf, &hf_len, err);
  if (st == HUDI_OK)
    st = hudi_mdt_w_hfile_block(&blocks, hf, hf_len, c->schema_json, c->schema_len, c->in->instant, err);
  if (st == HUDI_OK) st = write_log(c, "files", "files-0000-0", &blocks, (int64_t)n, 0, err);
  hudi_buf_free(&blocks);
  hudi_free(hf);
  for (size_t i = 0; i < n; i++) {
    hudi_mdt_record_free(recs[i]);
    hudi_free(recs[i]);
  }
  hudi_free(recs);
  return st;
}

/* The Avro value of a record-index entry depends only on (partition, file
 * id, instant): its key field is "" (the key lives in the HFile key, as
 * Hudi writes it) and the meta fields are null. The generic encoder makes
 * it once per file group; every key of that file group reuses the bytes,
 * with no Avro objects built per key. Keys in input order alternate
 * between file groups, so the values are kept in a map keyed by the
 * change's file id pointer (a file group's keys share it, and a file id
 * names one file group in one partition; the same id at another address
 * only costs another entry). */
typedef struct rli_value {
  const char *file_id; /* NULL: an empty slot */
  hudi_buf bytes;
} rli_value;

typedef struct rli_values {
  rli_value *slots;
  size_t n, cap; /* cap a power of two, n <= cap / 2 */
} rli_values;

static void rli_values_free(rli_values *m) {
  for (size_t i = 0; i < m->cap; i++) hudi_buf_free(&m->slots[i].bytes);
  hudi_free(m->slots);
  memset(m, 0, sizeof *m);
}

static size_t rli_slot(const rli_values *m, const char *file_id) {
  uint64_t h = (uint64_t)(uintptr_t)file_id * 0x9e3779b97f4a7c15u;
  size_t i = (size_t)(h >> 32) & (m->cap - 1);
  while (m->slots[i].file_id && m->slots[i].file_id != file_id) i = (i + 1) & (m->cap - 1);
  return i;
}

static hudi_status rli_values_grow(rli_values *m, hudi_error *err) {
  rli_values g = {hudi_calloc(m->cap ? m->cap * 2 : 16, sizeof(rli_value)), 0, m->cap ? m->cap * 2 : 16};
  if (!g.slots) return hudi_err_set(err, HUDI_ERR_NOMEM, "record-index values");
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].file_id) continue;
    g.slots[rli_slot(&g, m->slots[i].file_id)] = m->slots[i];
    g.n++;
  }
  hudi_free(m->slots);
  *m = g;
  return HUDI_OK;
}

/* The encoded value of ref's (partition, file id), made on first use. */
static hudi_status rli_value_for(rli_values *m, const commit_ctx *c, const key_ref *ref, const hudi_buf **out,
                                 hudi_error *err) {
  if (m->cap == 0 || (m->n + 1) * 2 > m->cap) HUDI_TRY(rli_values_grow(m, err));
  rli_value *v = &m->slots[rli_slot(m, ref->file_id)];
  *out = &v->bytes;
  if (v->file_id) return HUDI_OK;
  hudi_buf_init(&v->bytes, HUDI_MDT_MAX_PAYLOAD);
  hudi_mdt_record r;
  hudi_mdt_record_init(&r);
  hudi_status st = hudi_mdt_record_set_key(&r, ref->key, ref->key_len, HUDI_MDT_TYPE_RECORD_INDEX, err);
  int64_t ms = c->o.rli_instant_ms ? c->o.rli_instant_ms(c->o.rli_instant_ctx, ref->partition, ref->file_id)
                                    : c->instant_ms;
  if (st == HUDI_OK) st = hudi_mdt_record_set_rli(&r, ref->partition, ref->file_id, ms, err);
  if (st == HUDI_OK) st = hudi_mdt_record_encode(&r, c->schema->root, &v->bytes, err);
  hudi_mdt_record_free(&r);
  if (st != HUDI_OK) {
    hudi_buf_free(&v->bytes);
    return st;
  }
  v->file_id = ref->file_id;
  m->n++;
  return HUDI_OK;
}

#define KEY_PREFETCH 16

/* The HFile of a shard's upserts (refs sorted by key); with bloom
 * (nullable), the shard's base file: every key goes into bloom, and the
 * file ends as a base file does (hudi_mdt_w_base_finish). */
static hudi_status shard_hfile(const commit_ctx *c, const key_ref *refs, size_t n, hudi_bloom *bloom, uint8_t **out,
                               size_t *out_len, hudi_error *err) {
  hudi_hfile_writer *w = NULL;
  HUDI_TRY(hudi_mdt_w_hfile_open(&w, c->schema_json, c->schema_len, &c->o, true, err));
  size_t cap;
  uint8_t *spare = spare_take(c->spares, &cap);
  if (spare) hudi_hfile_writer_use_buffer(w, spare, cap);
  rli_values values = {NULL, 0, 0};
  const key_ref *first = NULL;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    /* Keys are in sequence after order_keys; a shard that needed no sort
     * reads them where its input had them: fetch ahead. */
    if (i + KEY_PREFETCH < n) __builtin_prefetch(refs[i + KEY_PREFETCH].key);
    const key_ref *k = &refs[i];
    if (!k->file_id) continue;
    if (!first) first = k;
    const hudi_buf *v = NULL;
    st = rli_value_for(&values, c, k, &v, err);
    if (st == HUDI_OK) st = hudi_hfile_writer_append(w, (const uint8_t *)k->key, k->key_len, v->data, v->len, err);
    if (st == HUDI_OK && bloom) st = hudi_bloom_add(bloom, k->key, k->key_len, err);
  }
  if (st == HUDI_OK && bloom)
    st = hudi_mdt_w_base_finish(w, bloom, first ? (const uint8_t *)first->key : NULL, first ? first->key_len : 0, out,
                                out_len, err);
  else if (st == HUDI_OK)
    st = hudi_hfile_writer_finish(w, out, out_len, err);
  rli_values_free(&values);
  hudi_hfile_writer_free(w);
  return st;
}

/* One shard's log content: an HFILE block of upserts and/or a DELETE
 * block. refs[0, n) are the shard's resolved changes, sorted by key. */
typedef struct shard_job {
  int32_t shard;
  const key_ref *refs;
  size_t n, n_up, n_del;
  hudi_buf blocks; /* the log's content, freed once written */
  char file_id[64];
  hudi_buf path;   /* the created log file (or base file, with base) */
  int32_t version;
  size_t len;
  bool base;       /* the shard's keys went to a base file (write_base_shard) */
} shard_job;

static void count_shard(shard_job *j) {
  j->n_up = j->n_del = 0;
  for (size_t i = 0; i < j->n; i++) (j->refs[i].file_id ? j->n_up++ : j->n_del++);
}

static hudi_status build_shard(const commit_ctx *c, shard_job *j, hudi_error *err) {
  const key_ref *refs = j->refs;
  size_t n = j->n;
  count_shard(j);
  size_t n_del = j->n_del;
  const char **del_keys = n_del ? hudi_calloc(n_del, sizeof *del_keys) : NULL;
  size_t *del_lens = n_del ? hudi_calloc(n_del, sizeof *del_lens) : NULL;
  hudi_status st = HUDI_OK;
  if (n_del && (!del_keys || !del_lens)) st = hudi_err_set(err, HUDI_ERR_NOMEM, "record-index shard %d", (int)j->shard);
  for (size_t i = 0, d = 0; st == HUDI_OK && i < n; i++)
    if (!refs[i].file_id) {
      del_keys[d] = refs[i].key;
      del_lens[d++] = refs[i].key_len;
    }
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  if (st == HUDI_OK && j->n_up) st = shard_hfile(c, refs, n, NULL, &hf, &hf_len, err);
  if (st == HUDI_OK && j->n_up) {
    /* The log's first block: the HFile's buffer becomes the log's (a copy
     * is as many fresh pages again: 10M keys, ~300 MB). */
    hudi_buf_attach(&j->blocks, hf, hf_len);
    hf = NULL;
    st = hudi_mdt_w_hfile_block_wrap(&j->blocks, c->schema_json, c->schema_len, c->in->instant, err);
  }
  if (st == HUDI_OK && n_del)
    st = hudi_mdt_w_delete_block(&j->blocks, del_keys, del_lens, n_del, true, c->schema_json, c->schema_len,
                                 c->in->instant, err);
  hudi_free(hf);
  hudi_free(del_keys);
  hudi_free(del_lens);
  return st;
}

/* Shard j's record-index file id, into j->file_id. */
static hudi_status name_shard(shard_job *j, hudi_error *err) {
  hudi_buf id;
  hudi_buf_init(&id, sizeof j->file_id);
  hudi_status st = hudi_mdt_file_id(&id, "record_index", j->shard, err);
  if (st == HUDI_OK && id.len >= sizeof j->file_id)
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "record-index file id of %zu bytes", id.len);
  if (st == HUDI_OK) {
    memcpy(j->file_id, id.data, id.len);
    j->file_id[id.len] = '\0';
  }
  hudi_buf_free(&id);
  return st;
}

/* Shard j's keys, all new to a shard that holds none (c->fresh), as its
 * base file <fileId>_<token>_<T>.hfile, the file Java's metadata
 * initialisation (bulkCommit) writes for the keys an index starts with:
 * the values as a log block holds them (meta fields null, as bulkCommit
 * leaves them: [F9]'s files-0000-0_0-5-4_00000000000000000.hfile), a
 * bloom filter of the keys, min/max keys. The shard's first compaction
 * then copies the blocks no later commit changed. The file starts the
 * shard's latest file slice; the slice before holds only the
 * initialisation's empty log. */
static hudi_status write_base_shard(const commit_ctx *c, shard_job *j, hudi_error *err) {
  char name[256];
  snprintf(name, sizeof name, "%s_%s_%s.hfile", j->file_id, HUDI_MDT_WRITE_TOKEN, c->in->instant);
  hudi_bloom bloom;
  HUDI_TRY(hudi_bloom_init(&bloom, HUDI_MDT_BLOOM_ENTRIES, HUDI_MDT_BLOOM_FPP, HUDI_BLOOM_DEFAULT_MAX_ENTRIES, err));
  uint8_t *hf = NULL;
  size_t len = 0;
  hudi_status st = shard_hfile(c, j->refs, j->n, &bloom, &hf, &len, err);
  hudi_bloom_free(&bloom);
  hudi_buf_reset(&j->path);
  if (st == HUDI_OK) st = hudi_buf_printf(&j->path, err, "%s/record_index/%s", HUDI_MDT_W_BASE, name);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&j->path, 0, err);
  if (st == HUDI_OK)
    st = hudi_storage_write(c->s, (const char *)j->path.data, hf, len, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED,
                            err);
  j->len = len;
  j->base = true;
  /* finish NUL-terminates: len + 1 bytes are ours, for the next shard */
  if (hf) spare_put(c->spares, hf, len + 1);
  return st;
}

/* Builds shard j's log content and creates its log file (or, for a shard
 * that holds no key yet, its base file); the commit metadata lists it
 * later (list_shard), in shard order. */
static hudi_status write_shard(const commit_ctx *c, shard_job *j, hudi_error *err) {
  HUDI_TRY(name_shard(j, err));
  count_shard(j);
  if (j->shard < c->n_fresh && c->fresh[j->shard] && j->n_up && !j->n_del) return write_base_shard(c, j, err);
  HUDI_TRY(build_shard(c, j, err));
  hudi_status st = create_log(c, "record_index", j->file_id, &j->blocks, &j->path, &j->version, err);
  j->len = j->blocks.len;
  /* At most one shard per thread held at a time; its buffer serves the
   * next. */
  spare_put(c->spares, j->blocks.data, j->blocks.cap);
  hudi_buf_init(&j->blocks, HUDI_BUF_DEFAULT_MAX);
  return st;
}

/* Lists a record-index base file (write_base_shard) in the commit
 * metadata, as Java's bulkCommit lists the base files it writes. */
static hudi_status add_base_stat(commit_ctx *c, const shard_job *j, hudi_error *err) {
  hudi_write_stat *ws = NULL;
  const char *rel = (const char *)j->path.data + strlen(HUDI_MDT_W_BASE) + 1;
  HUDI_TRY(hudi_commit_metadata_add_stat(c->meta, "record_index", &ws, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, j->file_id, &ws->file_id, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, rel, &ws->path, err));
  HUDI_TRY(hudi_commit_metadata_strdup(c->meta, "null", &ws->prev_commit, err));
  ws->num_writes = ws->num_inserts = (hudi_tl_long){(int64_t)j->n_up, 1};
  ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)j->len, 1};
  hudi_write_stat_zero_unset(ws);
  c->res->base_files++;
  c->res->bytes_written += j->len;
  return HUDI_OK;
}

static hudi_status list_shard(commit_ctx *c, const shard_job *j, hudi_error *err) {
  if (j->base) HUDI_TRY(add_base_stat(c, j, err));
  else HUDI_TRY(add_log_stat(c, "record_index", j->file_id, (const char *)j->path.data, j->version, j->len,
                             (int64_t)j->n_up, (int64_t)j->n_del, err));
  c->res->rli_upserts += j->n_up;
  c->res->rli_deletes += j->n_del;
  return HUDI_OK;
}

typedef struct shard_sort {
  key_ref *refs;
  const size_t *end; /* end[s]: the end of shard s */
  char *arena;       /* the keys, shard by shard (bucket_by_shard) */
  const size_t *key_end; /* key_end[s]: the end of shard s's keys in arena */
  bool *repeats;     /* repeats[s]: shard s has a key twice (after its sort) */
  size_t n_shards;
  atomic_size_t next; /* the next shard a lane takes */
} shard_sort;

/* A sorting lane's scratch, kept from one shard to the next: a fresh
 * buffer per shard (10M keys: 400 MB) was that many pages faulted in. */
typedef struct sort_scratch {
  key_ref *refs;
  size_t cap;
  size_t *start; /* the bucket sort's counters (BUCKET_BITS) */
  char *keys;    /* order_keys' copy, when refs cannot hold it */
  size_t keys_cap;
} sort_scratch;

/* Shards smaller than this are sorted by qsort alone. */
#define BUCKET_SORT_MIN 4096
#define BUCKET_BITS 16

/* Sorts r[0, n) (one shard) by cmp_key_ref: a counting sort by the 16
 * prefix bits after the bits all keys share, then qsort per bucket. The
 * buckets fit in cache, where one qsort over a shard of keys in input
 * order is a cache miss per comparison at every merge level (10M uuid
 * keys: 4.4 CPU s in qsort). */
static hudi_status sort_refs_by_prefix(key_ref *r, size_t n, sort_scratch *sc, hudi_error *err);

/* Bytes of leading key text all of a shard's keys may share before the
 * bucket sort looks past it (composite keys: "field:value,field:..."). */
#define SHARED_PREFIX_MAX 64

/* Sorts r[0, n) (one shard) by cmp_key_ref. When every key starts with the
 * same 8 bytes (composite keys begin with the first field's name), the
 * prefixes are taken further on, past the bytes all keys share, so the
 * bucket sort still spreads them (else one qsort compares every pair by
 * memcmp over the shared text); they go back to the first 8 bytes after. */
static hudi_status sort_refs(key_ref *r, size_t n, sort_scratch *sc, hudi_error *err) {
  uint64_t diff = 0;
  for (size_t i = 1; i < n; i++) diff |= r[i].prefix ^ r[0].prefix;
  if (diff || n < BUCKET_SORT_MIN) return sort_refs_by_prefix(r, n, sc, err);
  size_t off = 0;
  while (!diff && off + 8 < SHARED_PREFIX_MAX) {
    off += 8;
    uint64_t first = key_prefix_at(r[0].key, r[0].key_len, off);
    for (size_t i = 0; i < n; i++) {
      /* Shared so far: the bytes before off are equal in every key (a
       * shorter key's missing bytes read as zeros there too). */
      r[i].prefix = key_prefix_at(r[i].key, r[i].key_len, off);
      diff |= r[i].prefix ^ first;
    }
  }
  hudi_status st = sort_refs_by_prefix(r, n, sc, err);
  for (size_t i = 0; i < n; i++) r[i].prefix = key_prefix(r[i].key, r[i].key_len);
  return st;
}

/* Below this many refs a range is left to qsort. */
#define MSD_SMALL 48

/* Sorts r[0, n) (one shard) by cmp_key_ref with scratch[0, n): by the 8
 * prefix bits after those all of r's prefixes share, the buckets again the
 * same way, down to small ranges or equal prefixes, which qsort finishes.
 * (Hex keys such as uuids use 16 of a byte's 256 values: one 16-bit pass
 * leaves ~4,000 keys a bucket at 1M keys a shard, which qsort took ~1 CPU s
 * to sort over 10M keys.) */
static void msd_sort(key_ref *r, key_ref *scratch, size_t n) {
  if (n < MSD_SMALL) {
    if (n > 1) qsort(r, n, sizeof *r, cmp_key_ref);
    return;
  }
  uint64_t diff = 0;
  for (size_t i = 1; i < n; i++) diff |= r[i].prefix ^ r[0].prefix;
  if (!diff) {
    qsort(r, n, sizeof *r, cmp_key_ref);
    return;
  }
  unsigned lz = (unsigned)__builtin_clzll(diff);
  unsigned shift = lz + 8 <= 64 ? 56 - lz : 0;
  size_t start[257] = {0};
  for (size_t i = 0; i < n; i++) start[((r[i].prefix >> shift) & 0xff) + 1]++;
  for (int b = 0; b < 256; b++) start[b + 1] += start[b];
  for (size_t i = 0; i < n; i++) scratch[start[(r[i].prefix >> shift) & 0xff]++] = r[i];
  memcpy(r, scratch, n * sizeof *r);
  /* start[b] is now bucket b's end. */
  for (size_t b = 0, a = 0; b < 256; a = start[b++]) msd_sort(r + a, scratch + a, start[b] - a);
}

/* Scratch for n refs and the bucket counters (zeroed). */
static hudi_status scratch_for(sort_scratch *sc, size_t n, hudi_error *err) {
  const size_t n_start = ((size_t)1 << BUCKET_BITS) + 1;
  if (sc->cap < n) {
    hudi_free(sc->refs);
    sc->cap = 0;
    if (!(sc->refs = hudi_malloc(hudi_mul_size(n, sizeof *sc->refs))))
      return hudi_err_set(err, HUDI_ERR_NOMEM, "sorting %zu record-index keys", n);
    sc->cap = n;
  }
  if (!sc->start && !(sc->start = hudi_malloc(n_start * sizeof *sc->start)))
    return hudi_err_set(err, HUDI_ERR_NOMEM, "sorting %zu record-index keys", n);
  memset(sc->start, 0, n_start * sizeof *sc->start);
  return HUDI_OK;
}

static hudi_status sort_refs_by_prefix(key_ref *r, size_t n, sort_scratch *sc, hudi_error *err) {
  uint64_t diff = 0;
  for (size_t i = 1; i < n; i++) diff |= r[i].prefix ^ r[0].prefix;
  if (n < BUCKET_SORT_MIN || !diff) {
    qsort(r, n, sizeof *r, cmp_key_ref);
    return HUDI_OK;
  }
  HUDI_TRY(scratch_for(sc, n, err));
  key_ref *tmp = sc->refs;
  size_t *start = sc->start;
  /* Bits [lz, lz + 16) of every prefix, counted from the top: monotone in
   * the prefix, since the lz bits above are the same in all. */
  unsigned lz = (unsigned)__builtin_clzll(diff);
  unsigned shift = lz + BUCKET_BITS <= 64 ? 64 - lz - BUCKET_BITS : 0;
  uint64_t mask = ((uint64_t)1 << BUCKET_BITS) - 1;
  for (size_t i = 0; i < n; i++) start[((r[i].prefix >> shift) & mask) + 1]++;
  for (size_t b = 0; b < mask + 1; b++) start[b + 1] += start[b];
  for (size_t i = 0; i < n; i++) tmp[start[(r[i].prefix >> shift) & mask]++] = r[i];
  /* start[b] is now bucket b's end. */
  for (size_t b = 0, a = 0; b <= mask; a = start[b++])
    if (start[b] - a > 1) msd_sort(tmp + a, r + a, start[b] - a);
  memcpy(r, tmp, n * sizeof *r);
  return HUDI_OK;
}

/* Puts the keys of sorted refs r[0, n) in their order into region (their
 * len bytes of the arena, in input order so far), so the shard's HFile
 * reads them in sequence: read in sorted order from input order, each key
 * was a cache and TLB miss in the middle of the HFile's work (10M uuid
 * keys: ~1.2 CPU s); this tight prefetched copy takes a fraction. The
 * copy goes through the sort's scratch refs when they are large enough
 * (keys up to 40 bytes), else through a buffer of its own. */
static hudi_status order_keys(key_ref *r, size_t n, char *region, size_t len, sort_scratch *sc, hudi_error *err) {
  char *tmp = sc->refs && sc->cap * sizeof *sc->refs >= len ? (char *)(void *)sc->refs : NULL;
  if (!tmp && sc->keys_cap < len) {
    hudi_free(sc->keys);
    sc->keys_cap = 0;
    if (!(sc->keys = hudi_malloc(len))) return hudi_err_set(err, HUDI_ERR_NOMEM, "%zu bytes of record-index keys", len);
    sc->keys_cap = len;
  }
  if (!tmp) tmp = sc->keys;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (i + KEY_PREFETCH < n) __builtin_prefetch(r[i + KEY_PREFETCH].key);
    if (r[i].key_len > len - at) return hudi_err_set(err, HUDI_ERR_INTERNAL, "record-index keys overrun their shard");
    memcpy(tmp + at, r[i].key, r[i].key_len);
    at += r[i].key_len;
  }
  if (at != len) return hudi_err_set(err, HUDI_ERR_INTERNAL, "record-index keys: %zu of %zu bytes", at, len);
  memcpy(region, tmp, len);
  for (size_t i = 0, off = 0; i < n; off += r[i++].key_len) r[i].key = region + off;
  return HUDI_OK;
}

/* Sorts one shard's refs unless they are in order already. */
static hudi_status sort_shard(shard_sort *ss, size_t s, sort_scratch *sc, hudi_error *err) {
  size_t a = s ? ss->end[s - 1] : 0, b = ss->end[s];
  key_ref *r = ss->refs;
  bool sorted = true;
  for (size_t i = a + 1; sorted && i < b; i++) sorted = cmp_key_ref(&r[i - 1], &r[i]) <= 0;
  if (!sorted) {
    HUDI_TRY(sort_refs(r + a, b - a, sc, err));
    size_t ka = s ? ss->key_end[s - 1] : 0;
    HUDI_TRY(order_keys(r + a, b - a, ss->arena + ka, ss->key_end[s] - ka, sc, err));
  }
  /* Repeated keys, looked for here on the shard's thread while its keys
   * are in cache: resolve_keys then passes over shards without any. */
  for (size_t i = a + 1; i < b && !ss->repeats[s]; i++)
    ss->repeats[s] = same_key(&r[i - 1], &r[i]);
  return HUDI_OK;
}

/* One lane per core takes shards in turn, with one scratch for all. */
static hudi_status sort_lane(void *ctx, size_t lane, hudi_error *err) {
  (void)lane;
  shard_sort *ss = ctx;
  sort_scratch sc = {NULL, 0, NULL, NULL, 0};
  /* Scratch for the largest shard from the start: grown shard by shard, a
   * lane faulted in fresh pages at every new largest (10M keys: ~150 MB). */
  size_t most = 0;
  for (size_t s = 0; s < ss->n_shards; s++) {
    size_t n = ss->end[s] - (s ? ss->end[s - 1] : 0);
    if (n > most) most = n;
  }
  hudi_status st = most >= BUCKET_SORT_MIN ? scratch_for(&sc, most, err) : HUDI_OK;
  for (size_t s; st == HUDI_OK && (s = atomic_fetch_add(&ss->next, 1)) < ss->n_shards;)
    st = sort_shard(ss, s, &sc, err);
  hudi_free(sc.refs);
  hudi_free(sc.start);
  hudi_free(sc.keys);
  return st;
}

/* Below this many changes the shards are built on the calling thread. */
#define PARALLEL_MIN_KEYS 20000

/* Change i of in, from its array or its key source. */
static void change_at(const hudi_mdt_commit_input *in, size_t i, hudi_mdt_key_change *out) {
  if (in->keys) *out = in->keys[i];
  else in->key_at(in->key_ctx, i, out);
}

/* Validates change i (read into *k) and computes its shard. */
static hudi_status shard_of_change(const hudi_mdt_commit_input *in, size_t i, int32_t n_shards, int32_t *shard,
                                   hudi_mdt_key_change *k, hudi_error *err) {
  change_at(in, i, k);
  if (!k->key || k->key_len == 0 || k->key_len > MAX_KEY_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: record key %zu is empty or too long",
                        in->instant, i);
  if (k->file_id && (!*k->file_id || !k->partition))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: key '%.*s' has no file id/partition",
                        in->instant, (int)(k->key_len > 200 ? 200 : k->key_len), k->key);
  return hudi_mdt_shard_of(shard, k->key, k->key_len, (size_t)n_shards, err);
}

/* The counting sort by shard, in tasks over ranges of the changes:
 * count[t * n_shards + s] and bytes[...] are task t's changes and key
 * bytes in shard s, then where its next ref and key bytes go. */
typedef struct scatter_run {
  const hudi_mdt_commit_input *in;
  int32_t *shard; /* each change's (count_task) */
  key_ref *out;
  char *arena; /* the keys, copied shard by shard */
  size_t n, per;
  int32_t n_shards;
  size_t *count, *bytes;
} scatter_run;

static void task_range(const scatter_run *r, size_t t, size_t *a, size_t *b) {
  *a = t * r->per < r->n ? t * r->per : r->n;
  *b = *a + r->per < r->n ? *a + r->per : r->n;
}

/* Validates and hashes the task's changes (the shard is a Java String
 * hash of each key: 0.4 s for 10M uuid keys on one core) and counts them
 * by shard. */
static hudi_status count_task(void *ctx, size_t t, hudi_error *err) {
  scatter_run *r = ctx;
  size_t a, b, *cnt = r->count + t * (size_t)r->n_shards, *by = r->bytes + t * (size_t)r->n_shards;
  task_range(r, t, &a, &b);
  for (size_t i = a; i < b; i++) {
    hudi_mdt_key_change k;
    HUDI_TRY(shard_of_change(r->in, i, r->n_shards, &r->shard[i], &k, err));
    cnt[r->shard[i]]++;
    by[r->shard[i]] += k.key_len;
  }
  return HUDI_OK;
}

/* Places the task's changes as refs in their shards' ranges, their keys
 * copied into the shards' parts of the arena. */
static hudi_status scatter_task(void *ctx, size_t t, hudi_error *err) {
  (void)err;
  scatter_run *r = ctx;
  size_t a, b, *next = r->count + t * (size_t)r->n_shards, *at = r->bytes + t * (size_t)r->n_shards;
  task_range(r, t, &a, &b);
  for (size_t i = a; i < b; i++) {
    int32_t s = r->shard[i];
    hudi_mdt_key_change k;
    change_at(r->in, i, &k);
    char *key = r->arena + at[s];
    memcpy(key, k.key, k.key_len);
    at[s] += k.key_len;
    r->out[next[s]++] = (key_ref){key_prefix(key, k.key_len), key, (uint32_t)k.key_len, s, k.file_id, k.partition};
  }
  return HUDI_OK;
}

/* Tasks of the shard counting sort: a few per core, for balance. */
#define SCATTER_TASKS_PER_CORE 4

/* Validates the changes and orders them as refs by (shard, key): a stable
 * counting sort by shard, on all cores, which also copies every key into
 * *arena shard by shard (the keys are read once, in input order; the
 * shard's sort and HFile then read them in sequence, where reading each
 * shard's keys from the input's memory was a cache miss per key: 10M uuid
 * keys, ~1 CPU s); then a comparison sort of only those shards not
 * already in key order. Keys passed sorted (a bulk insert in a sorting
 * mode) make this linear. *repeats: some shard holds a key twice. */
static hudi_status bucket_by_shard(const hudi_mdt_commit_input *in, int32_t n_shards, key_ref **refs, char **arena,
                                   bool *repeats, hudi_error *err) {
  *repeats = false;
  size_t n = in->n_keys;
  int cores = hudi_cpu_count();
  bool parallel = cores > 1 && n >= PARALLEL_MIN_KEYS;
  /* Tasks keep tasks x shards counters each for counts and bytes: no more
   * tasks than keys per shard (10,000 shards would otherwise want MBs). */
  size_t tasks = parallel ? (size_t)cores * SCATTER_TASKS_PER_CORE : 1;
  size_t per_shard = n / (size_t)n_shards;
  if (tasks > per_shard) tasks = per_shard ? per_shard : 1;
  size_t cells = tasks * (size_t)n_shards, total = 0;
  size_t *count = hudi_calloc(cells, sizeof *count), *bytes = hudi_calloc(cells, sizeof *bytes);
  size_t *end = hudi_calloc((size_t)n_shards, sizeof *end), *key_end = hudi_calloc((size_t)n_shards, sizeof *key_end);
  bool *rep = hudi_calloc((size_t)n_shards, sizeof *rep);
  int32_t *shard = hudi_malloc(hudi_mul_size(n, sizeof *shard));
  /* Every field of every ref is set by scatter_task: no zeroing pass. */
  key_ref *out = hudi_malloc(hudi_mul_size(n, sizeof *out));
  hudi_threadpool *pool = NULL;
  hudi_status st = HUDI_OK;
  if (!count || !bytes || !end || !key_end || !rep || !shard || !out)
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "%zu record-index changes", n);
  if (st == HUDI_OK && parallel) st = hudi_threadpool_create(&pool, cores - 1, err);
  scatter_run run = {in, shard, out, NULL, n, (n + tasks - 1) / tasks, n_shards, count, bytes};
  hudi_error task_err = HUDI_ERROR_INIT;
  if (st == HUDI_OK) st = hudi_parallel_for(pool, tasks, count_task, &run, &task_err);
  if (st != HUDI_OK && task_err.code != HUDI_OK) {
    /* Tasks fail at a bad change: name the first, as one thread would. */
    hudi_status first = HUDI_OK;
    for (size_t i = 0; tasks > 1 && i < n && first == HUDI_OK; i++) {
      int32_t s;
      hudi_mdt_key_change k;
      first = shard_of_change(in, i, n_shards, &s, &k, err);
    }
    if (first != HUDI_OK) st = first;
    else if (err) *err = task_err;
  }
  /* Each task's first slot and arena offset in each shard: shards in
   * order, tasks in input order within a shard (stable). */
  size_t slot = 0;
  for (int32_t s = 0; st == HUDI_OK && s < n_shards; s++) {
    for (size_t t = 0; t < tasks; t++) {
      size_t c = count[t * (size_t)n_shards + (size_t)s], by = bytes[t * (size_t)n_shards + (size_t)s];
      count[t * (size_t)n_shards + (size_t)s] = slot;
      bytes[t * (size_t)n_shards + (size_t)s] = total;
      slot += c;
      total += by;
    }
    end[s] = slot;
    key_end[s] = total;
  }
  if (st == HUDI_OK && !(run.arena = hudi_malloc(total ? total : 1)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "%zu bytes of record-index keys", total);
  if (st == HUDI_OK) st = hudi_parallel_for(pool, tasks, scatter_task, &run, err);
  hudi_free(shard);
  shard_sort ss = {out, end, run.arena, key_end, rep, (size_t)n_shards, 0};
  /* One lane per thread, each with its own scratch for the shards it sorts. */
  if (st == HUDI_OK) st = hudi_parallel_for(pool, pool ? (size_t)hudi_threadpool_size(pool) + 1 : 1, sort_lane, &ss, err);
  hudi_threadpool_free(pool);
  for (int32_t s = 0; st == HUDI_OK && s < n_shards; s++) *repeats |= rep[s];
  if (st == HUDI_OK) {
    *refs = out;
    *arena = run.arena;
  } else {
    hudi_free(out);
    hudi_free(run.arena);
  }
  hudi_free(count);
  hudi_free(bytes);
  hudi_free(end);
  hudi_free(key_end);
  hudi_free(rep);
  return st;
}

/* Validates, hashes and sorts the key changes; *out holds the resolved
 * ones (one per key). */
static hudi_status resolve_keys(commit_ctx *c, int32_t n_shards, key_ref **out, size_t *n_out, hudi_error *err) {
  *out = NULL;
  *n_out = 0;
  const hudi_mdt_commit_input *in = c->in;
  if (in->n_keys == 0) return HUDI_OK;
  key_ref *refs = NULL;
  bool repeats = false;
  hudi_status st = bucket_by_shard(in, n_shards, &refs, &c->key_bytes, &repeats, err);
  size_t w = repeats ? 0 : in->n_keys; /* every key once: nothing to resolve */
  for (size_t i = 0; st == HUDI_OK && repeats && i < in->n_keys; i++) {
    const key_ref *prev = &refs[w - (w > 0)], *k = &refs[i];
    if (w > 0 && same_key(prev, k)) {
      if (!k->file_id) continue; /* a repeated delete */
      if (prev->file_id)
        st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                          "metadata table commit %s: record key '%.*s' is written to two locations", in->instant,
                          (int)(k->key_len > 200 ? 200 : k->key_len), k->key);
      refs[w - 1] = refs[i]; /* the insert replaces the delete */
      continue;
    }
    refs[w++] = refs[i];
  }
  if (st != HUDI_OK) {
    hudi_free(refs);
    return st;
  }
  *out = refs;
  *n_out = w;
  return HUDI_OK;
}

/* Resolves the record-index changes into c->refs (before anything is
 * written, so a bad key writes nothing). */
static hudi_status prepare_record_index(commit_ctx *c, hudi_error *err) {
  if (c->o.record_index_shards == -1 || c->in->n_keys == 0) return HUDI_OK;
  int32_t n_shards = c->o.record_index_shards;
  if (n_shards == 0 || c->o.rli_base_files) {
    int32_t present = 0;
    HUDI_TRY(count_rli_shards(c->s, &present, c->o.rli_base_files ? &c->fresh : NULL, err));
    c->n_fresh = c->fresh ? present : 0;
    if (n_shards == 0) n_shards = present;
  }
  if (n_shards == 0)
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "metadata table commit %s: %s/record_index has no file group",
                        c->in->instant, HUDI_MDT_W_BASE);
  return resolve_keys(c, n_shards, &c->refs, &c->n_refs, err);
}

typedef struct shard_run {
  const commit_ctx *c;
  shard_job *jobs;
} shard_run;

static hudi_status write_shard_task(void *ctx, size_t i, hudi_error *err) {
  shard_run *r = ctx;
  bool joined = hudi_storage_group_join(r->c->group); /* on a worker thread */
  hudi_status st = write_shard(r->c, &r->jobs[i], err);
  hudi_storage_group_leave(r->c->group, joined);
  return st;
}

static void free_jobs(shard_job *jobs, size_t n_jobs) {
  for (size_t k = 0; k < n_jobs; k++) {
    hudi_buf_free(&jobs[k].blocks);
    hudi_buf_free(&jobs[k].path);
  }
  hudi_free(jobs);
}

/* One job per shard of the resolved changes c->refs (sorted by shard). */
static hudi_status make_jobs(const commit_ctx *c, shard_job **out, size_t *n_out, hudi_error *err) {
  const key_ref *refs = c->refs;
  size_t n = c->n_refs, n_jobs = 0;
  *out = NULL;
  *n_out = 0;
  for (size_t i = 0; i < n; i++) n_jobs += i == 0 || refs[i].shard != refs[i - 1].shard;
  if (n_jobs == 0) return HUDI_OK;
  shard_job *jobs = hudi_calloc(n_jobs, sizeof *jobs);
  if (!jobs) return hudi_err_set(err, HUDI_ERR_NOMEM, "record-index shards");
  for (size_t i = 0, k = 0; i < n; k++) {
    size_t j = i;
    while (j < n && refs[j].shard == refs[i].shard) j++;
    jobs[k].shard = refs[i].shard;
    jobs[k].refs = refs + i;
    jobs[k].n = j - i;
    hudi_buf_init(&jobs[k].blocks, HUDI_BUF_DEFAULT_MAX);
    hudi_buf_init(&jobs[k].path, 4096);
    i = j;
  }
  *out = jobs;
  *n_out = n_jobs;
  return HUDI_OK;
}

/* Runs fn over the jobs of n_keys changes, the tasks spread over the
 * cores as they free up (one HFile compression thread each then). */
static hudi_status run_shards(commit_ctx *c, shard_job *jobs, size_t n_jobs, size_t n_keys, hudi_for_fn fn,
                              hudi_error *err) {
  hudi_threadpool *pool = NULL;
  int cores = hudi_cpu_count();
  if (cores > 1 && n_jobs > 1 && n_keys >= PARALLEL_MIN_KEYS) HUDI_TRY(hudi_threadpool_create(&pool, cores - 1, err));
  /* The shards already use the cores: no compression thread per HFile. */
  if (pool) c->o.hfile_compress_threads = 1;
  shard_run run = {c, jobs};
  spare_bufs spares;
  for (int i = 0; i < SPARE_SLOTS; i++) atomic_init(&spares.slot[i], NULL);
  c->spares = &spares;
  hudi_status st = hudi_parallel_for(pool, n_jobs, fn, &run, err);
  hudi_threadpool_free(pool);
  c->spares = NULL;
  spare_free(&spares);
  return st;
}

/* A commit begun (hudi_mdt_begin): one job per record-index shard, its
 * log written (path, version, size and counts kept for the commit
 * metadata), its refs gone. */
struct hudi_mdt_begun {
  char instant[HUDI_INSTANT_TIME_BUF];
  int table_version;
  size_t n_keys;
  shard_job *jobs;
  size_t n_jobs;
};

void hudi_mdt_begun_free(hudi_mdt_begun *p) {
  if (!p) return;
  free_jobs(p->jobs, p->n_jobs);
  hudi_free(p);
}

/* Each shard's log (HFile, Avro values, gzip) is built and written by one
 * task, unless the commit was begun (hudi_mdt_begin wrote them); the
 * commit metadata then lists the logs in shard order. A failed task
 * leaves logs of an inflight instant, which rollback removes as it
 * removes any. */
static hudi_status commit_record_index(commit_ctx *c, hudi_error *err) {
  hudi_mdt_begun *b = c->o.begun;
  shard_job *jobs = b ? b->jobs : NULL;
  size_t n_jobs = b ? b->n_jobs : 0;
  hudi_status st = HUDI_OK;
  if (!b) {
    HUDI_TRY(make_jobs(c, &jobs, &n_jobs, err));
    if (n_jobs) st = run_shards(c, jobs, n_jobs, c->n_refs, write_shard_task, err);
  }
  for (size_t k = 0; st == HUDI_OK && k < n_jobs; k++) st = list_shard(c, &jobs[k], err);
  if (!b) free_jobs(jobs, n_jobs);
  return st;
}

/* Checks the MDT exists; takes its table version unless one was given. */
static hudi_status mdt_version(commit_ctx *c, hudi_error *err) {
  if (c->o.table_version_known && (c->o.table_version == 8 || c->o.table_version == 9)) return HUDI_OK;
  int version = 0;
  HUDI_TRY(hudi_mdt_w_read_version(c->s, &version, err));
  if (c->o.table_version == 0) c->o.table_version = version;
  else if (c->o.table_version != version)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit: table version %d, but %s says %d",
                        c->o.table_version, HUDI_MDT_W_PROPS, version);
  return HUDI_OK;
}

/* Checks everything that can be checked before a byte is written. */
static hudi_status precheck(commit_ctx *c, hudi_error *err) {
  const hudi_mdt_commit_input *in = c->in;
  if (!in || !in->instant || strlen(in->instant) != HUDI_INSTANT_TIME_LEN ||
      hudi_instant_time_to_millis(&c->instant_ms, in->instant, HUDI_INSTANT_TIME_LEN, NULL) != HUDI_OK)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit: instant '%s' is not a 17-digit time",
                        in && in->instant ? in->instant : "(null)");
  if ((in->n_files && !in->files) || (in->n_keys && !in->keys && !in->key_at))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "metadata table commit %s: NULL file or key array", in->instant);
  /* T read as a local time of the timeline zone. */
  c->instant_ms -= (int64_t)c->o.timeline_utc_offset_minutes * 60000;
  HUDI_TRY(check_files(in, err));
  return mdt_version(c, err);
}

/* column_stats / partition_stats (mdt_column_stats.h) and secondary
 * indexes (mdt_secondary_index.h): one log file per touched file group. */
static hudi_status commit_index_records(commit_ctx *c, hudi_error *err) {
  hudi_cs_group_blocks gb;
  HUDI_TRY(hudi_cs_group_blocks_build(&gb, c->s, c->o.index_records, c->o.n_index_records, c->schema->root,
                                      c->schema_json, c->schema_len, &c->o, c->in->instant, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < gb.n; i++)
    st = write_log(c, gb.items[i].partition, gb.items[i].file_id, &gb.items[i].blocks, (int64_t)gb.items[i].n_records,
                   0, err);
  hudi_cs_group_blocks_free(&gb);
  if (st != HUDI_OK || !c->o.si_changes || !c->o.si_changes->n) return st;
  st = hudi_si_group_blocks_build(&gb, c->s, c->o.si_changes, c->schema->root, c->schema_json, c->schema_len, &c->o,
                                  c->in->instant, err);
  for (size_t i = 0; st == HUDI_OK && i < gb.n; i++)
    st = write_log(c, gb.items[i].partition, gb.items[i].file_id, &gb.items[i].blocks, (int64_t)gb.items[i].n_records,
                   0, err);
  hudi_cs_group_blocks_free(&gb);
  return st;
}

/* The key changes the commit applies (none without a record index). */
static size_t rli_keys(const commit_ctx *c) { return c->o.record_index_shards == -1 ? 0 : c->in->n_keys; }

/* A begun commit must be this one: same instant, keys and MDT version
 * (the schema of its record-index values). */
static hudi_status check_begun(const commit_ctx *c, hudi_error *err) {
  const hudi_mdt_begun *p = c->o.begun;
  if (strcmp(p->instant, c->in->instant) != 0 || p->n_keys != rli_keys(c) || p->table_version != c->o.table_version)
    return hudi_err_set(err, HUDI_ERR_INTERNAL,
                        "metadata table commit %s: begun as %s (%zu keys, version %d)",
                        c->in->instant, p->instant, p->n_keys, p->table_version);
  return HUDI_OK;
}

/* T.deltacommit.requested, then T.deltacommit.inflight holding the
 * workload profile: an UPSERT_PREPPED commit metadata without stats, as
 * Spark's metadata writer leaves it. */
static hudi_status start_instant(commit_ctx *c, hudi_error *err) {
  HUDI_TRY(hudi_mdt_w_instant(c->s, c->in->instant, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  hudi_commit_metadata *inflight = NULL;
  HUDI_TRY(hudi_mdt_w_commit_metadata(&inflight, "UPSERT_PREPPED", NULL, err));
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(inflight, NULL, &avro, err);
  hudi_commit_metadata_free(inflight);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant(c->s, c->in->instant, "", HUDI_INSTANT_INFLIGHT, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  return st;
}

static hudi_status load_schema(commit_ctx *c, hudi_error *err) {
  HUDI_TRY(hudi_mdt_w_schema(&c->schema, c->o.table_version, err));
  c->schema_json = hudi_mdt_schema_json(c->o.table_version, &c->schema_len);
  return HUDI_OK;
}

/* The commit's log files in one write group: fsynced together (the shards'
 * from the worker threads too) once all are written, before the instant
 * completes, rather than two fsyncs each. */
static hudi_status write_logs(commit_ctx *c, hudi_error *err) {
  HUDI_TRY(hudi_storage_group_begin(c->s, &c->group, err));
  hudi_status st = commit_files(c, err);
  if (st == HUDI_OK) st = commit_record_index(c, err);
  if (st == HUDI_OK) st = commit_index_records(c, err);
  if (st == HUDI_OK) st = hudi_storage_group_sync(c->group, err);
  hudi_storage_group_end(c->group);
  c->group = NULL;
  return st;
}

static hudi_status run_commit(commit_ctx *c, hudi_error *err) {
  /* A begun commit read the MDT's version already (one properties GET a
   * write; the table lock keeps it). */
  if (c->o.begun && !c->o.table_version_known) {
    c->o.table_version = c->o.begun->table_version;
    c->o.table_version_known = true;
  }
  HUDI_TRY(precheck(c, err));
  HUDI_TRY(c->o.begun ? check_begun(c, err) : prepare_record_index(c, err));
  HUDI_TRY(load_schema(c, err));
  if (!c->o.begun) HUDI_TRY(start_instant(c, err));
  HUDI_TRY(hudi_mdt_w_commit_metadata(&c->meta, "UPSERT_PREPPED", c->schema_json, err));
  HUDI_TRY(write_logs(c, err));
  HUDI_TRY(hudi_mdt_w_completion(c->s, &c->o, c->in->instant, c->res->completion_time, err));
  return hudi_mdt_w_complete(c->s, c->meta, c->in->instant, c->res->completion_time, err);
}

hudi_status hudi_mdt_commit(hudi_storage *s, const hudi_mdt_write_options *opts, const hudi_mdt_commit_input *in,
                            hudi_mdt_commit_result *result, hudi_error *err) {
  hudi_mdt_commit_result dummy;
  commit_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.in = in;
  c.res = result ? result : &dummy;
  memset(c.res, 0, sizeof *c.res);
  HUDI_TRY(hudi_mdt_w_resolve(&c.o, opts, err));
  hudi_status st = run_commit(&c, err);
  c.res->table_version = c.o.table_version;
  hudi_commit_metadata_free(c.meta);
  hudi_avro_schema_free(c.schema);
  hudi_free(c.refs);
  hudi_free(c.key_bytes);
  hudi_free(c.fresh);
  return st;
}

static hudi_status check_cancel(const commit_ctx *c, hudi_error *err) {
  if (c->o.cancel && atomic_load(c->o.cancel))
    return hudi_err_set(err, HUDI_ERR_CANCELLED, "metadata table commit %s: cancelled", c->in->instant);
  return HUDI_OK;
}

static hudi_status begun_shard_task(void *ctx, size_t i, hudi_error *err) {
  shard_run *r = ctx;
  HUDI_TRY(check_cancel(r->c, err));
  return write_shard(r->c, &r->jobs[i], err);
}

/* run_commit up to the record index's logs, which are written; the keys
 * are resolved before the instant is started, so a bad key writes
 * nothing. */
static hudi_status run_begin(commit_ctx *c, hudi_mdt_begun *b, hudi_error *err) {
  HUDI_TRY(precheck(c, err));
  HUDI_TRY(prepare_record_index(c, err));
  HUDI_TRY(load_schema(c, err));
  b->table_version = c->o.table_version;
  b->n_keys = rli_keys(c);
  HUDI_TRY(make_jobs(c, &b->jobs, &b->n_jobs, err));
  HUDI_TRY(check_cancel(c, err));
  HUDI_TRY(start_instant(c, err));
  return b->n_jobs ? run_shards(c, b->jobs, b->n_jobs, c->n_refs, begun_shard_task, err) : HUDI_OK;
}

hudi_status hudi_mdt_begin(hudi_mdt_begun **out, hudi_storage *s, const hudi_mdt_write_options *opts,
                           const hudi_mdt_commit_input *in, hudi_error *err) {
  *out = NULL;
  if (opts && opts->begun) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_mdt_begin: options of a begun commit");
  hudi_mdt_begun *b = hudi_calloc(1, sizeof *b);
  if (!b) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_mdt_commit_result dummy;
  commit_ctx c;
  memset(&c, 0, sizeof c);
  memset(&dummy, 0, sizeof dummy);
  c.s = s;
  c.in = in;
  c.res = &dummy;
  hudi_status st = hudi_mdt_w_resolve(&c.o, opts, err);
  if (st == HUDI_OK && in && in->instant) snprintf(b->instant, sizeof b->instant, "%s", in->instant);
  if (st == HUDI_OK) st = run_begin(&c, b, err);
  /* The logs hold the keys now: the refs into c's arena go with it. */
  for (size_t k = 0; k < b->n_jobs; k++) b->jobs[k].refs = NULL;
  hudi_avro_schema_free(c.schema);
  hudi_free(c.refs);
  hudi_free(c.key_bytes);
  hudi_free(c.fresh);
  if (st != HUDI_OK) {
    hudi_mdt_begun_free(b);
    return st;
  }
  *out = b;
  return HUDI_OK;
}
