/* A clean's MDT deltacommit (clean_mdt.h). */
#include "table/clean_mdt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "table/commit_metadata.h"
#include "table/log_writer.h"
#include "table/mdt_payload.h"
#include "table/mdt_schema.h"
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
  hudi_buf text;
  hudi_buf_init(&text, HUDI_PROPS_MAX_BYTES);
  hudi_status st = hudi_storage_read_all(c->s, HUDI_MDT_W_PROPS, HUDI_PROPS_MAX_BYTES, &text, err);
  hudi_props p;
  hudi_props_init(&p);
  if (st == HUDI_OK) st = hudi_props_parse(&p, (const char *)text.data, text.len, HUDI_MDT_W_PROPS, err);
  hudi_buf_free(&text);
  const char *v = st == HUDI_OK ? hudi_props_get(&p, "hoodie.table.version") : NULL;
  int version = v ? atoi(v) : 0;
  hudi_props_free(&p);
  HUDI_TRY(st);
  if (version != 8 && version != 9)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: hoodie.table.version=%s (the writer handles 8 and 9)",
                        HUDI_MDT_W_PROPS, v ? v : "(missing)");
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

/* The log file in files-0000-0 and its write stat. */
static hudi_status write_files_log(ctx *c, hudi_error *err) {
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  hudi_buf blocks, path;
  hudi_buf_init(&blocks, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&path, 4096);
  int32_t version = 1;
  hudi_status st = hudi_mdt_w_hfile(c->recs, c->n_recs, c->schema->root, c->schema_json, c->schema_len, &c->o, false,
                                    &hf, &hf_len, err);
  if (st == HUDI_OK) st = hudi_mdt_w_hfile_block(&blocks, hf, hf_len, c->schema_json, c->schema_len, c->instant, err);
  if (st == HUDI_OK)
    st = hudi_log_file_create(c->s, HUDI_MDT_W_BASE "/files", "files-0000-0", c->instant, 1, HUDI_MDT_WRITE_TOKEN,
                              blocks.data, blocks.len, &version, &path, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&path, 0, err);
  hudi_write_stat *ws = NULL;
  const char *full = st == HUDI_OK ? (const char *)path.data : "";
  const char *rel = strncmp(full, HUDI_MDT_W_BASE "/", strlen(HUDI_MDT_W_BASE) + 1) == 0
                        ? full + strlen(HUDI_MDT_W_BASE) + 1
                        : full;
  const char *name = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  if (st == HUDI_OK) st = hudi_commit_metadata_add_stat(c->meta, "files", &ws, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, "files-0000-0", &ws->file_id, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, rel, &ws->path, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, c->instant, &ws->prev_commit, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_strdup(c->meta, "", &ws->base_file, err);
  if (st == HUDI_OK) st = hudi_tl_strs_push(&ws->log_files, &c->meta->doc.arena, name, err);
  if (st == HUDI_OK) {
    /* As Spark fills the stat of a clean's files log (numWrites = records). */
    ws->num_writes = ws->num_update_writes = (hudi_tl_long){(int64_t)c->n_recs, 1};
    ws->num_deletes = (hudi_tl_long){0, 1};
    ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)blocks.len, 1};
    ws->log_version = (hudi_tl_int){version, 1};
    ws->log_offset = (hudi_tl_long){0, 1};
    hudi_write_stat_zero_unset(ws);
  }
  hudi_free(hf);
  hudi_buf_free(&blocks);
  hudi_buf_free(&path);
  return st;
}

static hudi_status run(ctx *c, const hudi_mdt_file_change *deleted, size_t n, hudi_error *err) {
  if (strlen(c->instant) != HUDI_INSTANT_TIME_LEN)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "clean instant '%s' is not a 17-digit time", c->instant);
  for (size_t i = 0; i < n; i++)
    if (!deleted[i].partition || !deleted[i].name || !*deleted[i].name || strchr(deleted[i].name, '/'))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "clean %s: deleted file %zu has no valid name", c->instant, i);
  HUDI_TRY(mdt_version(c, err));
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
  HUDI_TRY(hudi_mdt_w_completion(c->s, &c->o, c->instant, c->completion, err));
  return hudi_mdt_w_complete(c->s, c->meta, c->instant, c->completion, err);
}

hudi_status hudi_clean_mdt_update(hudi_table *t, const char *instant, const hudi_mdt_file_change *deleted, size_t n,
                                  hudi_instant_gen *gen, hudi_error *err) {
  if (!hudi_write_mdt_enabled(t) || n == 0) return HUDI_OK;
  HUDI_TRY(hudi_write_mdt_check(t, err));
  ctx c;
  memset(&c, 0, sizeof c);
  c.s = t->storage;
  c.instant = instant;
  hudi_mdt_write_options in = HUDI_MDT_WRITE_OPTIONS_INIT;
  in.record_index_shards = -1;
  HUDI_TRY(hudi_mdt_w_resolve(&c.o, &in, err));
  hudi_status st = run(&c, deleted, n, err);
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
