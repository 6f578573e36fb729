/* A clean's MDT deltacommit (clean_mdt.h). */
#include "table/clean_mdt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "table/commit_metadata.h"
#include "table/log_delete_block.h"
#include "table/log_format.h"
#include "table/log_writer.h"
#include "table/log_file_name.h"
#include "table/mdt_bloom_filters.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_payload.h"
#include "table/mdt_reader.h"
#include "table/mdt_schema.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"
#include "table/properties.h"
#include "table/write_mdt.h"

typedef struct ctx {
  hudi_storage *s;
  hudi_mdt_write_options o;
  const char *instant;
  hudi_avro_schema *schema;
  const char *schema_json;
  size_t schema_len;
  hudi_mdt_record **recs;
  size_t n_recs;
  hudi_commit_metadata *meta;
  char completion[HUDI_INSTANT_TIME_BUF];
} ctx;

/* The MDT's hoodie.table.version (8 or 9). */
static hudi_status mdt_version(ctx *c, hudi_error *err) {
  int version = 0;
  HUDI_TRY(hudi_mdt_w_read_version(c->s, &version, err));
  c->o.table_version = version;
  return HUDI_OK;
}

typedef struct name_slot {
  const hudi_mdt_file_change *f;
  uint32_t bucket;
  size_t seq;
} name_slot;

static int cmp_slot(const void *a, const void *b) {
  const name_slot *x = a, *y = b;
  if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Adds files[0, n) (one partition) to r in the order a java.util.HashMap
 * holding them iterates, as Spark's record has them. */
static hudi_status add_files(hudi_mdt_record *r, const hudi_mdt_file_change *const *files, size_t n,
                             hudi_error *err) {
  size_t cap = 16;
  while (n > cap / 4 * 3) cap *= 2;
  name_slot *slots = hudi_calloc(n ? n : 1, sizeof *slots);
  if (!slots) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    int32_t h;
    st = hudi_java_string_hash(&h, files[i]->name, strlen(files[i]->name), err);
    uint32_t u = (uint32_t)h;
    slots[i] = (name_slot){files[i], (u ^ (u >> 16)) & (uint32_t)(cap - 1), i};
  }
  if (st == HUDI_OK) qsort(slots, n, sizeof *slots, cmp_slot);
  for (size_t i = 0; st == HUDI_OK && i < n; i++)
    st = hudi_mdt_record_add_file(r, slots[i].f->name, strlen(slots[i].f->name), 0, true, err);
  hudi_free(slots);
  return st;
}

static int cmp_change(const void *a, const void *b) {
  const hudi_mdt_file_change *x = *(const hudi_mdt_file_change *const *)a, *y = *(const hudi_mdt_file_change *const *)b;
  int c = strcmp(x->partition, y->partition);
  return c ? c : strcmp(x->name, y->name);
}

/* One FILE_LIST record per partition. */
static hudi_status build_records(ctx *c, const hudi_mdt_file_change *deleted, size_t n, hudi_error *err) {
  const hudi_mdt_file_change **by = hudi_calloc(n, sizeof *by);
  c->recs = hudi_calloc(n, sizeof *c->recs);
  if (!by || !c->recs) {
    hudi_free(by);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (size_t i = 0; i < n; i++) by[i] = &deleted[i];
  qsort(by, n, sizeof *by, cmp_change);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n;) {
    size_t j = i;
    while (j < n && !strcmp(by[j]->partition, by[i]->partition)) j++;
    hudi_mdt_record *r = hudi_calloc(1, sizeof *r);
    if (!r) {
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
      break;
    }
    hudi_mdt_record_init(r);
    c->recs[c->n_recs++] = r;
    const char *key = *by[i]->partition ? by[i]->partition : HUDI_MDT_NON_PARTITIONED_NAME;
    st = hudi_mdt_record_set_key(r, key, strlen(key), HUDI_MDT_TYPE_FILE_LIST, err);
    r->has_files = true;
    if (st == HUDI_OK) st = add_files(r, by + i, j - i, err);
    i = j;
  }
  hudi_free(by);
  return st;
}

/* A log file of instant T in file group file_id of MDT partition
 * `partition` holding `blocks`, and its write stat. */
static hudi_status write_log(ctx *c, const char *partition, const char *file_id, const hudi_buf *blocks,
                             size_t n_writes, size_t n_deletes, hudi_error *err) {
  char dir[128];
  snprintf(dir, sizeof dir, "%s/%s", HUDI_MDT_W_BASE, partition);
  hudi_buf path;
  hudi_buf_init(&path, 4096);
  int32_t version = 1;
  hudi_status st = hudi_log_file_create(c->s, dir, file_id, c->instant, 1, HUDI_MDT_WRITE_TOKEN, blocks->data,
                                        blocks->len, &version, &path, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&path, 0, err);
  hudi_write_stat *ws = NULL;
  const char *full = st == HUDI_OK ? (const char *)path.data : "";
  const char *rel = strncmp(full, HUDI_MDT_W_BASE "/", strlen(HUDI_MDT_W_BASE) + 1) == 0
                        ? full + strlen(HUDI_MDT_W_BASE) + 1
                        : full;
  const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  if (st == HUDI_OK) st = hudi_commit_metadata_add_stat(c->meta, partition, &ws, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, file_id, &ws->file_id, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, rel, &ws->path, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, c->instant, &ws->prev_commit, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, "", &ws->base_file, err);
  if (st == HUDI_OK) st = hudi_tl_strs_push(&ws->log_files, &c->meta->doc.arena, name, err);
  if (st == HUDI_OK) {
    /* As Spark fills the stats of a clean's MDT logs (numWrites = the
     * files records, numDeletes = the column_stats keys). */
    ws->num_writes = ws->num_update_writes = (hudi_tl_long){(int64_t)n_writes, 1};
    ws->num_deletes = (hudi_tl_long){(int64_t)n_deletes, 1};
    ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)blocks->len, 1};
    ws->log_version = (hudi_tl_int){version, 1};
    ws->log_offset = (hudi_tl_long){0, 1};
    hudi_write_stat_zero_unset(ws);
  }
  hudi_buf_free(&path);
  return st;
}

/* The log file in files-0000-0. */
static hudi_status write_files_log(ctx *c, hudi_error *err) {
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  hudi_buf blocks;
  hudi_buf_init(&blocks, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_mdt_w_hfile(c->recs, c->n_recs, c->schema->root, c->schema_json, c->schema_len, &c->o, false,
                                    &hf, &hf_len, err);
  if (st == HUDI_OK) st = hudi_mdt_w_hfile_block(&blocks, hf, hf_len, c->schema_json, c->schema_len, c->instant, err);
  if (st == HUDI_OK) st = write_log(c, "files", "files-0000-0", &blocks, c->n_recs, 0, err);
  hudi_free(hf);
  hudi_buf_free(&blocks);
  return st;
}

/* ---- column_stats and bloom_filters ---- */

typedef struct cs_key {
  char *key;
  size_t len;
  int32_t shard;
} cs_key;

static int cmp_cs_key(const void *a, const void *b) {
  const cs_key *x = a, *y = b;
  if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp(x->key, y->key, n);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* One DELETE block of keys[0, n) (each {key, partition, IntWrapper 0}). */
static hudi_status delete_block(ctx *c, const char *partition, const cs_key *keys, size_t n, hudi_buf *out,
                                hudi_error *err) {
  hudi_log_delete_record *recs = hudi_calloc(n, sizeof *recs);
  if (!recs) return hudi_err_set(err, HUDI_ERR_NOMEM, "%s delete block of %zu keys", partition, n);
  for (size_t i = 0; i < n; i++) {
    recs[i].record_key = keys[i].key;
    recs[i].record_key_len = keys[i].len;
    recs[i].partition_path = partition;
    recs[i].partition_path_len = strlen(partition);
    recs[i].ordering.kind = HUDI_LOG_ORDERING_INT; /* DeleteRecord's default ordering value */
    recs[i].ordering.v.i = 0;
  }
  hudi_buf content;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_log_meta h = HUDI_LOG_META_INIT;
  hudi_status st = hudi_log_delete_block_encode(&content, recs, n, err);
  if (st == HUDI_OK) st = hudi_log_meta_append(&h, HUDI_LOG_HEADER_INSTANT_TIME, c->instant, strlen(c->instant), err);
  if (st == HUDI_OK) st = hudi_log_meta_append(&h, HUDI_LOG_HEADER_SCHEMA, c->schema_json, c->schema_len, err);
  if (st == HUDI_OK) st = hudi_log_block_encode(out, HUDI_LOG_BLOCK_DELETE, &h, NULL, content.data, content.len, err);
  hudi_log_meta_free(&h);
  hudi_buf_free(&content);
  hudi_free(recs);
  return st;
}

/* Keys to remove from one MDT partition, each with its file group. */
typedef struct key_set {
  cs_key *items;
  size_t n, cap;
  size_t n_groups; /* the partition's file groups */
} key_set;

static hudi_status key_set_add(key_set *ks, const hudi_buf *key, const char *partition, hudi_error *err) {
  if (ks->n == ks->cap) {
    size_t cap = ks->cap ? ks->cap * 2 : 64;
    cs_key *items = hudi_realloc(ks->items, cap * sizeof *items);
    if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "%s keys", partition);
    ks->items = items;
    ks->cap = cap;
  }
  cs_key *x = &ks->items[ks->n];
  HUDI_TRY(hudi_mdt_shard_of(&x->shard, (const char *)key->data, key->len, ks->n_groups, err));
  if (!(x->key = hudi_malloc(key->len ? key->len : 1))) return hudi_err_set(err, HUDI_ERR_NOMEM, "%s key", partition);
  memcpy(x->key, key->data, key->len);
  x->len = key->len;
  ks->n++;
  return HUDI_OK;
}

static void key_set_free(key_set *ks) {
  for (size_t i = 0; i < ks->n; i++) hudi_free(ks->items[i].key);
  hudi_free(ks->items);
  memset(ks, 0, sizeof *ks);
}

/* One log file per file group the keys shard to, holding a DELETE block
 * of its keys in ascending order. */
static hudi_status write_delete_logs(ctx *c, const char *partition, key_set *ks, hudi_error *err) {
  if (ks->n > 1) qsort(ks->items, ks->n, sizeof *ks->items, cmp_cs_key);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < ks->n;) {
    size_t j = i;
    while (j < ks->n && ks->items[j].shard == ks->items[i].shard) j++;
    char prefix[64], file_id[96];
    hudi_mdt_file_id_prefix(prefix, sizeof prefix, partition);
    snprintf(file_id, sizeof file_id, "%s%04d-0", prefix, (int)ks->items[i].shard);
    hudi_buf blocks;
    hudi_buf_init(&blocks, HUDI_BUF_DEFAULT_MAX);
    st = delete_block(c, partition, ks->items + i, j - i, &blocks, err);
    if (st == HUDI_OK) st = write_log(c, partition, file_id, &blocks, 0, j - i, err);
    hudi_buf_free(&blocks);
    i = j;
  }
  return st;
}

/* The column_stats entries of the deleted files go, as Spark 1.2's clean
 * removes them: Java builds a tombstone (isDeleted=true) per deleted file
 * and indexed column (convertMetadataToColumnStatsRecords for a
 * HoodieCleanMetadata), and its MDT append handle writes records whose
 * payload is deleted as keys of a DELETE block (write_delete_logs).
 * partition_stats are untouched: a clean deletes no latest file. */
static hudi_status write_column_stats_logs(ctx *c, hudi_table *t, const hudi_mdt_file_change *deleted, size_t n,
                                           hudi_error *err) {
  const char *parts = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  if (!hudi_props_list_has(parts, "column_stats")) return HUDI_OK;
  if (!hudi_cs_supported(t))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hudi-c keeps column_stats of tables of version 8 and 9 only", t->base_uri);
  char **cols = NULL;
  size_t n_cols = 0;
  HUDI_TRY(hudi_cs_columns_load(&cols, &n_cols, NULL, t->storage, hudi_props_get(&t->props, "hoodie.table.index.defs.path"),
                                err));
  key_set ks = {0};
  hudi_status st = hudi_cs_count_groups(c->s, "column_stats", &ks.n_groups, err);
  hudi_buf kb;
  hudi_buf_init(&kb, 1 << 16);
  for (size_t i = 0; st == HUDI_OK && i < n; i++)
    for (size_t k = 0; st == HUDI_OK && k < n_cols; k++) {
      hudi_buf_reset(&kb);
      st = hudi_cs_column_stats_key(&kb, cols[k], deleted[i].partition, deleted[i].name, err);
      if (st == HUDI_OK) st = key_set_add(&ks, &kb, "column_stats", err);
    }
  hudi_buf_free(&kb);
  if (st == HUDI_OK) st = write_delete_logs(c, "column_stats", &ks, err);
  key_set_free(&ks);
  hudi_cs_columns_free(cols, n_cols);
  return st;
}

/* The bloom_filters entries of the deleted base files go the same way, as
 * Spark's clean removes them (convertMetadataToBloomFilterRecords: base
 * files only; tests/interop/test_mdt_bloom_filters_engines.py). */
static hudi_status write_bloom_filter_logs(ctx *c, hudi_table *t, const hudi_mdt_file_change *deleted, size_t n,
                                           hudi_error *err) {
  if (!hudi_bf_listed(t)) return HUDI_OK;
  key_set ks = {0};
  hudi_status st = hudi_cs_count_groups(c->s, "bloom_filters", &ks.n_groups, err);
  hudi_buf kb;
  hudi_buf_init(&kb, 1 << 16);
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    if (hudi_log_file_name_matches(deleted[i].name, strlen(deleted[i].name))) continue;
    hudi_buf_reset(&kb);
    st = hudi_cs_file_key(&kb, deleted[i].partition, deleted[i].name, err);
    if (st == HUDI_OK) st = key_set_add(&ks, &kb, "bloom_filters", err);
  }
  hudi_buf_free(&kb);
  if (st == HUDI_OK) st = write_delete_logs(c, "bloom_filters", &ks, err);
  key_set_free(&ks);
  return st;
}

static hudi_status run(ctx *c, hudi_table *t, const hudi_mdt_file_change *deleted, size_t n, hudi_error *err) {
  if (strlen(c->instant) != HUDI_INSTANT_TIME_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "clean instant '%s' is not a 17-digit time", c->instant);
  for (size_t i = 0; i < n; i++)
    if (!deleted[i].partition || !deleted[i].name || !*deleted[i].name || strchr(deleted[i].name, '/'))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "clean %s: deleted file %zu has no valid name", c->instant, i);
  /* Within a write: the MDT's version as its shared handle read it. */
  int known = hudi_mdt_shared_version(t);
  if (known == 8 || known == 9) c->o.table_version = known;
  else HUDI_TRY(mdt_version(c, err));
  hudi_mdt_shared_version_seen(t, c->o.table_version);
  HUDI_TRY(hudi_mdt_w_schema(&c->schema, c->o.table_version, err));
  c->schema_json = hudi_mdt_schema_json(c->o.table_version, &c->schema_len);
  HUDI_TRY(build_records(c, deleted, n, err));

  HUDI_TRY(hudi_mdt_w_instant(c->s, c->instant, "", HUDI_INSTANT_REQUESTED, "", 0, err));
  hudi_commit_metadata *inflight = NULL;
  HUDI_TRY(hudi_mdt_w_commit_metadata(&inflight, "UPSERT_PREPPED", NULL, err));
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(inflight, NULL, &avro, err);
  hudi_commit_metadata_free(inflight);
  if (st == HUDI_OK) st = hudi_mdt_w_instant(c->s, c->instant, "", HUDI_INSTANT_INFLIGHT, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);

  HUDI_TRY(hudi_mdt_w_commit_metadata(&c->meta, "UPSERT_PREPPED", c->schema_json, err));
  HUDI_TRY(write_files_log(c, err));
  HUDI_TRY(write_column_stats_logs(c, t, deleted, n, err));
  HUDI_TRY(write_bloom_filter_logs(c, t, deleted, n, err));
  HUDI_TRY(hudi_mdt_w_completion(c->s, &c->o, c->instant, c->completion, err));
  return hudi_mdt_w_complete(c->s, c->meta, c->instant, c->completion, err);
}

hudi_status hudi_clean_mdt_update(hudi_table *t, const char *instant, const hudi_mdt_file_change *deleted, size_t n,
                                  hudi_instant_gen *gen, hudi_error *err) {
  if (!hudi_write_mdt_enabled(t) || n == 0) return HUDI_OK;
  HUDI_TRY(hudi_write_mdt_check(t, NULL, 0, err));
  ctx c;
  memset(&c, 0, sizeof c);
  c.s = t->storage;
  c.instant = instant;
  hudi_mdt_write_options in = HUDI_MDT_WRITE_OPTIONS_INIT;
  in.record_index_shards = -1;
  in.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(t);
  HUDI_TRY(hudi_mdt_w_resolve(&c.o, &in, err));
  hudi_status st = run(&c, t, deleted, n, err);
  hudi_mdt_share_invalidate(t); /* the MDT changed (or may have, on failure) */
  for (size_t i = 0; i < c.n_recs; i++) {
    hudi_mdt_record_free(c.recs[i]);
    hudi_free(c.recs[i]);
  }
  hudi_free(c.recs);
  hudi_commit_metadata_free(c.meta);
  if (c.schema) hudi_avro_schema_free(c.schema);
  HUDI_TRY(st);
  int64_t ms;
  HUDI_TRY(hudi_instant_time_to_millis(&ms, c.completion, strlen(c.completion), err));
  hudi_instant_gen_observe(gen, ms);
  return HUDI_OK;
}
