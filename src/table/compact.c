/* Compaction of Merge-on-Read tables (compact.h). */
#include "table/compact.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/arrow_schema.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/hashmap.h"
#include "base/threadpool.h"
#include "parquet/writer.h"
#include "table/base_file.h"
#include "table/base_footer.h"
#include "table/bloom.h"
#include "table/commit_metadata.h"
#include "table/compaction_plan.h"
#include "table/fsview.h"
#include "table/mdt_fsview.h"
#include "table/compact_async.h"
#include "table/compact_stats.h"
#include "table/read_plan.h"
#include "table/rollback.h"
#include "table/schema_resolve.h"
#include "table/services.h"
#include "table/write.h"
#include "table/write_mdt.h"
#include "table/write_rows.h"

#define N_META HUDI_AVRO_N_META_FIELDS
#define PLAN_MAX ((size_t)256 << 20)
#define MB (INT64_C(1) << 20)

/* ---- checks and options ------------------------------------------------ */

static hudi_status check_table(hudi_table *t, const hudi_option *o, size_t n, hudi_error *err) {
  if (t->type != HUDI_MERGE_ON_READ)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "table %s is COPY_ON_WRITE: only MERGE_ON_READ tables have log files to compact", t->base_uri);
  return hudi_write_check_table_mdt(t, o, n, err);
}

static bool bool_opt(const hudi_table *t, const hudi_option *o, size_t n, const char *key) {
  const char *v = hudi_write_option(t, o, n, key);
  return v && !strcasecmp(v, "true");
}


/* ---- timeline helpers ---------------------------------------------------- */

static bool is_compaction(const hudi_instant *in) { return !strcmp(in->requested_action, "compaction"); }

static hudi_status plan_path(char *out, size_t cap, const hudi_table *t, const char *instant, hudi_error *err) {
  char name[128];
  if (hudi_instant_file_name(name, sizeof name, instant, "", "compaction", HUDI_INSTANT_REQUESTED, t->layout) < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "compaction plan file name of %s", instant);
  snprintf(out, cap, "%s/%s", t->timeline.dir, name);
  return HUDI_OK;
}

static hudi_status read_plan(hudi_compaction_plan **out, hudi_table *t, const char *instant, hudi_error *err) {
  char path[256];
  HUDI_TRY(plan_path(path, sizeof path, t, instant, err));
  hudi_buf data;
  hudi_buf_init(&data, PLAN_MAX);
  hudi_status st = hudi_storage_read_all(t->storage, path, PLAN_MAX, &data, err);
  if (st == HUDI_OK) st = hudi_compaction_plan_parse(out, data.data, data.len, path, err);
  hudi_buf_free(&data);
  return st;
}

/* File groups replaced by completed replacecommits: "partition\0fileId". */
static hudi_status replaced_groups(hudi_hashmap *out, hudi_table *t, hudi_buf *key, hudi_error *err) {
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strcmp(in->action, "replacecommit") != 0) continue;
    hudi_commit_metadata *m = NULL;
    HUDI_TRY(hudi_table_instant_metadata(&m, t, in, err));
    const hudi_tl_strs_entry *e = m->partition_to_replace_file_ids.items;
    hudi_status st = HUDI_OK;
    for (size_t a = 0; st == HUDI_OK && a < m->partition_to_replace_file_ids.n; a++) {
      char **ids = e[a].value.items;
      for (size_t b = 0; st == HUDI_OK && b < e[a].value.n; b++) {
        hudi_buf_reset(key);
        st = hudi_buf_printf(key, err, "%s%c%s", e[a].key ? e[a].key : "", '\0', ids[b] ? ids[b] : "");
        if (st == HUDI_OK) st = hudi_hashmap_put(out, key->data, key->len, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
      }
    }
    hudi_commit_metadata_free(m);
    HUDI_TRY(st);
  }
  return HUDI_OK;
}

/* ---- scheduling ------------------------------------------------------------ */

typedef struct candidate {
  const hudi_file_group *g;
  const hudi_file_slice *s;
  int64_t log_bytes;
} candidate;

static int cmp_candidate(const void *a, const void *b) {
  const candidate *x = a, *y = b;
  /* LogFileSizeBasedCompactionStrategy: the most log bytes first. */
  if (x->log_bytes != y->log_bytes) return x->log_bytes > y->log_bytes ? -1 : 1;
  int c = strcmp(x->g->partition, y->g->partition);
  return c ? c : strcmp(x->g->file_id, y->g->file_id);
}

static hudi_status set_metric(hudi_compaction_plan *p, hudi_tl_list *m, const char *key, double v, hudi_error *err) {
  hudi_tl_double_entry *e;
  HUDI_TRY(hudi_tl_list_push(m, &p->doc.arena, sizeof *e, (void **)&e, err));
  HUDI_TRY(hudi_tl_strdup(&p->doc.arena, key, &e->key, err));
  e->value = (hudi_tl_double){v, 1};
  return HUDI_OK;
}

static hudi_status add_operation(hudi_compaction_plan *p, const candidate *c, hudi_error *err) {
  hudi_compaction_operation *op;
  hudi_avro_arena *a = &p->doc.arena;
  HUDI_TRY(hudi_tl_list_push(&p->operations, a, sizeof *op, (void **)&op, err));
  const hudi_file_slice *s = c->s;
  HUDI_TRY(hudi_tl_strdup(a, s->base_instant, &op->base_instant_time, err));
  op->delta_file_paths.has = 1;
  for (size_t l = 0; l < s->n_logs; l++) HUDI_TRY(hudi_tl_strs_push(&op->delta_file_paths, a, s->logs[l].file_name, err));
  if (s->base) {
    const char *slash = strrchr(s->base->path, '/');
    HUDI_TRY(hudi_tl_strdup(a, slash ? slash + 1 : s->base->path, &op->data_file_path, err));
  }
  HUDI_TRY(hudi_tl_strdup(a, c->g->file_id, &op->file_id, err));
  HUDI_TRY(hudi_tl_strdup(a, c->g->partition, &op->partition_path, err));
  /* CompactionStrategy.captureMetrics: sizes in whole MiB (long division);
   * without a base file the write estimate is the max Parquet file size. */
  int64_t base = s->base ? (int64_t)s->base->size : 0;
  int64_t read_mb = (base + c->log_bytes) / MB;
  int64_t write_mb = (s->base ? base : HUDI_WRITE_DEFAULT_MAX_FILE_SIZE) / MB;
  op->metrics.has = 1;
  HUDI_TRY(set_metric(p, &op->metrics, "TOTAL_LOG_FILES", (double)s->n_logs, err));
  HUDI_TRY(set_metric(p, &op->metrics, "TOTAL_IO_MB", (double)(read_mb + write_mb), err));
  HUDI_TRY(set_metric(p, &op->metrics, "TOTAL_IO_READ_MB", (double)read_mb, err));
  HUDI_TRY(set_metric(p, &op->metrics, "TOTAL_LOG_FILES_SIZE", (double)c->log_bytes, err));
  HUDI_TRY(set_metric(p, &op->metrics, "TOTAL_IO_WRITE_MB", (double)write_mb, err));
  return HUDI_OK;
}

/* The file groups to compact: latest slice with logs, not pending
 * compaction, not replaced. */
static hudi_status pick_candidates(candidate **out, size_t *n_out, const hudi_fsview *v, hudi_table *t,
                                   hudi_error *err) {
  *out = NULL;
  *n_out = 0;
  hudi_hashmap replaced;
  hudi_hashmap_init(&replaced, 0);
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  candidate *c = hudi_calloc(v->n_groups + 1, sizeof *c);
  hudi_status st = c ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK) st = replaced_groups(&replaced, t, &key, err);
  size_t n = 0;
  for (size_t i = 0; st == HUDI_OK && i < v->n_groups; i++) {
    const hudi_file_group *g = &v->groups[i];
    if (g->pending_compaction[0] || !g->n_slices) continue;
    const hudi_file_slice *s = &g->slices[g->n_slices - 1];
    if (!s->n_logs) continue;
    hudi_buf_reset(&key);
    st = hudi_buf_printf(&key, err, "%s%c%s", g->partition, '\0', g->file_id);
    if (st != HUDI_OK || hudi_hashmap_get(&replaced, key.data, key.len, NULL)) continue;
    c[n].g = g;
    c[n].s = s;
    for (size_t l = 0; l < s->n_logs; l++) c[n].log_bytes += (int64_t)s->logs[l].size;
    n++;
  }
  hudi_hashmap_free(&replaced);
  hudi_buf_free(&key);
  if (st != HUDI_OK) {
    hudi_free(c);
    return st;
  }
  qsort(c, n, sizeof *c, cmp_candidate);
  *out = c;
  *n_out = n;
  return HUDI_OK;
}

hudi_status hudi_compact_schedule(char instant[HUDI_INSTANT_TIME_BUF], bool *scheduled, hudi_table *t,
                                  const hudi_option *opts, size_t n, hudi_error *err) {
  (void)opts, (void)n;
  *scheduled = false;
  instant[0] = '\0';
  HUDI_TRY(check_table(t, opts, n, err));
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  hudi_fsview v;
  hudi_fsview_options fo = {NULL, t->version, false};
  HUDI_TRY(hudi_fsview_build_latest(&v, t, &fo, NULL, err));
  candidate *c = NULL;
  size_t nc = 0;
  hudi_compaction_plan *p = NULL;
  hudi_buf avro;
  hudi_buf_init(&avro, PLAN_MAX);
  hudi_status st = pick_candidates(&c, &nc, &v, t, err);
  if (st == HUDI_OK && nc) st = hudi_compaction_plan_new(&p, err);
  for (size_t i = 0; st == HUDI_OK && p && i < nc; i++) st = add_operation(p, &c[i], err);
  if (st == HUDI_OK && p) {
    p->extra_metadata.has = 1;
    p->version = (hudi_tl_int){2, 1};
    p->preserve_hoodie_metadata = (hudi_tl_bool){0, 1};
    p->missing_schedule_partitions.has = 1;
    st = hudi_compaction_plan_to_avro(p, NULL, &avro, err);
  }
  hudi_instant_gen gen;
  if (st == HUDI_OK && p) st = hudi_write_pick_instant(&gen, t, instant, err);
  if (st == HUDI_OK && p)
    st = hudi_write_instant_file(t, instant, "compaction", "", HUDI_INSTANT_REQUESTED, avro.data, avro.len, err);
  if (st == HUDI_OK && p) {
    *scheduled = true;
    st = hudi_write_reload_timeline(t, err);
  }
  hudi_buf_free(&avro);
  hudi_compaction_plan_free(p);
  hudi_free(c);
  hudi_fsview_free(&v);
  return st;
}

/* ---- the merged read of one slice ---------------------------------------- */

/* ---- running --------------------------------------------------------------- */

typedef struct cctx {
  hudi_table *t;
  const hudi_option *opts;
  size_t n_opts;
  char instant[HUDI_INSTANT_TIME_MAX];
  hudi_arrow_field data_schema; /* without meta columns */
  hudi_read_plan plan;          /* read_schema = out_schema = meta + data */
  struct ArrowSchema read_export;
  char *schema_json, *avro_with_meta;
  char root_name[600];
  hudi_pq_writer_options pq;
  int encode_threads; /* per base file: more than 1 when fewer file groups than cores are compacted */
  hudi_bloom_cfg bloom; /* footer bloom filter and key range */
  hudi_commit_metadata *meta;
  hudi_compact_result *res;
} cctx;

/* extraMetadata.schema of the latest write that is not a table service. */
static hudi_status current_schema(char **out, hudi_table *t, hudi_error *err) {
  *out = NULL;
  for (size_t i = t->timeline.count; i-- > 0;) {
    const hudi_instant *in = &t->timeline.items[i];
    if (!hudi_instant_is_write(in) || is_compaction(in)) continue;
    hudi_commit_metadata *m = NULL;
    HUDI_TRY(hudi_table_instant_metadata(&m, t, in, err));
    const char *s = hudi_commit_metadata_schema(m);
    const char *op = m->operation_type ? m->operation_type : "";
    bool usable = s && strcmp(op, "COMPACT") && strcmp(op, "CLUSTER") && strcmp(op, "LOG_COMPACT") &&
                  strcmp(op, "INDEX");
    if (usable) *out = hudi_strdup(s);
    hudi_commit_metadata_free(m);
    if (usable) return *out ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  return HUDI_OK;
}

static hudi_status setup(cctx *c, hudi_error *err) {
  hudi_table *t = c->t;
  HUDI_TRY(current_schema(&c->schema_json, t, err));
  HUDI_TRY(hudi_table_resolve_schema(&c->data_schema, t, false, err));
  snprintf(c->root_name, sizeof c->root_name, "hoodie.%s.%s_record", t->name, t->name);
  hudi_buf b;
  hudi_buf_init(&b, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_avro_schema_from_arrow(&b, &c->data_schema, t->name, true, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
  if (st == HUDI_OK && !(c->avro_with_meta = hudi_strdup((const char *)b.data)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (st == HUDI_OK && !c->schema_json) {
    hudi_buf_reset(&b);
    st = hudi_avro_schema_from_arrow(&b, &c->data_schema, t->name, false, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&b, 0, err);
    if (st == HUDI_OK && !(c->schema_json = hudi_strdup((const char *)b.data)))
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  hudi_buf_free(&b);
  HUDI_TRY(st);
  HUDI_TRY(hudi_write_pq_options(&c->pq, t, c->opts, c->n_opts, c->root_name, NULL, err));
  /* Java's compaction writes base files through the same factory rule. */
  HUDI_TRY(hudi_bloom_cfg_read(&c->bloom, t, c->opts, c->n_opts, err));

  /* The read plan the slice reader merges with: every column, no filter,
   * the completed instants of the table's timeline. */
  hudi_read_plan *p = &c->plan;
  p->t = t;
  p->tl = &t->timeline;
  p->parallelism = 1;
  p->batch_size = HUDI_READ_DEFAULT_BATCH;
  p->has_writes = true;
  const hudi_arrow_field *d = &c->data_schema;
  HUDI_TRY(hudi_arrow_field_init(&p->read_schema, "", "+s", 0, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(&p->read_schema, N_META + d->n_children, err));
  for (int i = 0; i < N_META; i++)
    HUDI_TRY(hudi_arrow_field_init(&p->read_schema.children[i], hudi_avro_meta_field_names[i], "u",
                                   ARROW_FLAG_NULLABLE, err));
  for (int64_t i = 0; i < d->n_children; i++)
    HUDI_TRY(hudi_arrow_field_copy(&p->read_schema.children[N_META + i], &d->children[i], false, err));
  HUDI_TRY(hudi_arrow_field_copy(&p->table_schema, &p->read_schema, false, err));
  HUDI_TRY(hudi_arrow_field_copy(&p->out_schema, &p->read_schema, false, err));
  p->out_cols = hudi_calloc((size_t)p->read_schema.n_children + 1, sizeof *p->out_cols);
  if (!p->out_cols) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; i < p->read_schema.n_children; i++) p->out_cols[i] = i;
  char ob[256];
  const char *ord = hudi_table_ordering_field(t, ob, sizeof ob);
  p->key_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_record_key");
  p->seqno_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_commit_seqno");
  p->commit_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_commit_time");
  p->ordering_col = ord ? hudi_arrow_field_child_index(&p->read_schema, ord) : -1;
  return hudi_arrow_field_export(&c->read_export, &p->read_schema, err);
}

static void cctx_free(cctx *c) {
  hudi_read_plan *p = &c->plan;
  hudi_arrow_field_clear(&p->table_schema);
  hudi_arrow_field_clear(&p->read_schema);
  hudi_arrow_field_clear(&p->out_schema);
  hudi_free(p->out_cols);
  if (c->read_export.release) c->read_export.release(&c->read_export);
  hudi_arrow_field_clear(&c->data_schema);
  hudi_free(c->schema_json);
  hudi_free(c->avro_with_meta);
  hudi_commit_metadata_free(c->meta);
}

/* The new base file of one operation. */
typedef struct bw {
  cctx *c;
  const char *partition;
  char file_name[256];
  hudi_buf path, min_key, max_key;
  hudi_arrow_batch_builder *bb;
  hudi_pq_writer *w;
  hudi_bloom bloom;
  int64_t n;
  /* _hoodie_file_name for streamed batches: the name repeated names_cap
   * times, as a string column (offsets, then bytes). */
  int32_t *name_offsets;
  char *name_data;
  int64_t names_cap;
} bw;

static hudi_status bw_open(bw *b, cctx *c, const char *partition, const char *file_id, bool has_base, int task,
                           hudi_error *err) {
  memset(b, 0, sizeof *b);
  b->c = c;
  b->partition = partition;
  hudi_buf_init(&b->path, 1 << 16);
  hudi_buf_init(&b->min_key, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&b->max_key, HUDI_BUF_DEFAULT_MAX);
  char token[64];
  snprintf(token, sizeof token, "%d-0-%d", task, task);
  if (hudi_base_file_name_format(b->file_name, sizeof b->file_name, file_id, token, c->instant, "parquet") < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "base file name too long");
  HUDI_TRY(hudi_buf_printf(&b->path, err, "%s%s%s%c", partition, *partition ? "/" : "", b->file_name, '\0'));
  /* Marker first: a crash after this leaves something a retry can find. */
  HUDI_TRY(hudi_write_marker(c->t->storage, c->instant, partition, b->file_name, has_base ? "MERGE" : "CREATE", err));
  HUDI_TRY(hudi_write_partition_metadata(c->t->storage, partition, c->instant, err));
  if (c->bloom.on)
    HUDI_TRY(hudi_bloom_init_for(&b->bloom, &c->bloom, err));
  HUDI_TRY(hudi_arrow_batch_builder_create(&b->bb, &c->plan.read_schema, err));
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  hudi_status st = hudi_arrow_batch_builder_export_schema(b->bb, &s, err);
  hudi_pq_writer_options o = c->pq;
  o.encode_threads = c->encode_threads;
  if (st == HUDI_OK) st = hudi_pq_writer_open_storage(&b->w, &s, &o, c->t->storage, (const char *)b->path.data, err);
  if (s.release) s.release(&s);
  return st;
}

static void bw_free(bw *b) {
  hudi_pq_writer_free(b->w);
  hudi_arrow_batch_builder_free(b->bb);
  hudi_bloom_free(&b->bloom);
  hudi_buf_free(&b->path);
  hudi_buf_free(&b->min_key);
  hudi_buf_free(&b->max_key);
  hudi_free(b->name_offsets);
  hudi_free(b->name_data);
}

static hudi_status bw_flush(bw *b, bool force, hudi_error *err) {
  int64_t n = hudi_arrow_batch_builder_n_rows(b->bb);
  if (n == 0 || (!force && n < 8192)) return HUDI_OK;
  struct ArrowArray arr;
  HUDI_TRY(hudi_arrow_batch_builder_finish(b->bb, &arr, err));
  hudi_status st = hudi_pq_writer_write_batch(b->w, &arr, 0, err);
  arr.release(&arr);
  return st;
}

/* The written row's key: the bloom filter and the min/max keys. */
static hudi_status bw_note_key(bw *b, const char *key, size_t klen, hudi_error *err) {
  if (!b->c->bloom.on) {
    b->n++;
    return HUDI_OK;
  }
  HUDI_TRY(hudi_bloom_add(&b->bloom, key, klen, err));
  if (b->n == 0 || hudi_java_string_cmp(key, klen, (const char *)b->min_key.data, b->min_key.len) < 0) {
    hudi_buf_reset(&b->min_key);
    HUDI_TRY(hudi_buf_append(&b->min_key, key, klen, err));
  }
  if (b->n == 0 || hudi_java_string_cmp(key, klen, (const char *)b->max_key.data, b->max_key.len) > 0) {
    hudi_buf_reset(&b->max_key);
    HUDI_TRY(hudi_buf_append(&b->max_key, key, klen, err));
  }
  b->n++;
  return HUDI_OK;
}

/* Appends merged row i of v (read-schema shape) with its meta values,
 * _hoodie_file_name becoming the new file's. */
static hudi_status bw_add(bw *b, const hudi_arrow_view *v, int64_t i, const char *key, size_t klen, hudi_error *err) {
  int64_t row = hudi_arrow_view_struct_row(v, i);
  for (int64_t k = 0; k < v->n_children; k++) {
    hudi_arrow_builder *cb = hudi_arrow_batch_builder_column(b->bb, k);
    if (k == 4) HUDI_TRY(hudi_arrow_builder_append_bytes(cb, b->file_name, (int64_t)strlen(b->file_name), err));
    else HUDI_TRY(hudi_arrow_builder_append_view(cb, &v->children[k], row, err));
  }
  HUDI_TRY(hudi_arrow_batch_builder_end_row(b->bb, err));
  HUDI_TRY(bw_note_key(b, key, klen, err));
  return bw_flush(b, false, err);
}

/* ---- streamed writing: batches go to the writer as they are ------------ */

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

/* The file name repeated n times (the _hoodie_file_name column). */
static hudi_status bw_names(bw *b, int64_t n, hudi_error *err) {
  if (n <= b->names_cap) return HUDI_OK;
  size_t len = strlen(b->file_name);
  int64_t cap = n < 8192 ? 8192 : n;
  if ((uint64_t)cap * len > INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "batch of %lld rows too big", (long long)n);
  int32_t *o = hudi_malloc(((size_t)cap + 1) * sizeof *o);
  char *d = hudi_malloc((size_t)cap * len + 1);
  if (!o || !d) {
    hudi_free(o);
    hudi_free(d);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i <= cap; i++) o[i] = (int32_t)((size_t)i * len);
  for (int64_t i = 0; i < cap; i++) memcpy(d + (size_t)i * len, b->file_name, len);
  hudi_free(b->name_offsets);
  hudi_free(b->name_data);
  b->name_offsets = o;
  b->name_data = d;
  b->names_cap = cap;
  return HUDI_OK;
}

/* Writes rows [from, from + n) of batch a (read-schema shape) without
 * copying them: a borrowed struct of sliced children, _hoodie_file_name
 * replaced by the new file's name. */
#define BW_MAX_COLS 4096
static hudi_status bw_write_rows(bw *b, const struct ArrowArray *a, int64_t from, int64_t n, unsigned flags,
                                 hudi_error *err) {
  if (n <= 0 && !(flags & HUDI_PQ_WRITE_LAST)) return HUDI_OK;
  int64_t nc = a->n_children;
  if (nc <= 4 || nc > BW_MAX_COLS) return hudi_err_set(err, HUDI_ERR_INTERNAL, "batch of %lld columns", (long long)nc);
  HUDI_TRY(bw_names(b, n, err));
  struct ArrowArray *kids = hudi_calloc((size_t)nc, sizeof *kids);
  struct ArrowArray **ptrs = hudi_calloc((size_t)nc, sizeof *ptrs);
  if (!kids || !ptrs) {
    hudi_free(kids);
    hudi_free(ptrs);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  for (int64_t k = 0; k < nc; k++) {
    ptrs[k] = &kids[k];
    if (k == 4) {
      const void *bufs[3] = {NULL, b->name_offsets, b->name_data};
      kids[k] = (struct ArrowArray){.length = n, .null_count = 0, .n_buffers = 3, .buffers = NULL,
                                    .release = noop_release};
      kids[k].buffers = hudi_malloc(sizeof bufs);
      if (!kids[k].buffers) continue;
      memcpy(kids[k].buffers, bufs, sizeof bufs);
      continue;
    }
    kids[k] = *a->children[k];
    kids[k].offset += a->offset + from;
    kids[k].length = n;
    if (kids[k].null_count != 0) kids[k].null_count = -1;
    kids[k].release = noop_release;
  }
  hudi_status st = kids[4].buffers ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  const void *top_bufs[1] = {NULL};
  struct ArrowArray top = {.length = n, .null_count = 0, .offset = 0, .n_buffers = 1, .n_children = nc,
                           .buffers = top_bufs, .children = ptrs, .release = noop_release};
  if (st == HUDI_OK) st = hudi_pq_writer_write_batch(b->w, &top, flags, err);
  hudi_free((void *)kids[4].buffers);
  hudi_free(kids);
  hudi_free(ptrs);
  return st;
}

static hudi_status bw_finish(bw *b, hudi_pq_write_summary *sum, hudi_error *err) {
  cctx *c = b->c;
  HUDI_TRY(bw_flush(b, true, err));
  hudi_status st = hudi_base_footer_write(b->w, c->bloom.on ? &b->bloom : NULL, b->n ? (const char *)b->min_key.data : NULL,
                                          b->min_key.len, (const char *)b->max_key.data, b->max_key.len,
                                          c->avro_with_meta, err);
  if (st == HUDI_OK) st = hudi_pq_writer_close(b->w, sum, err);
  return st;
}

/* What merging one slice wrote. */
typedef struct op_stats {
  int64_t writes, updates, deletes, log_inserts;
} op_stats;

/* Streams the merged slice into the new base file (the slice reader's
 * in-memory merge of base and logs; used when an ordering field decides
 * between base and log records). */
static hudi_status merge_into(cctx *c, bw *b, const hudi_file_group *g, const hudi_file_slice *s, hudi_compact_base_keys *bk,
                              op_stats *os, hudi_error *err) {
  hudi_read_slice_ref ref = {g, s};
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, &c->plan, &ref, err));
  hudi_status st = HUDI_OK;
  const hudi_read_plan *p = &c->plan;
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    hudi_arrow_view v;
    st = hudi_arrow_view_init(&v, &c->read_export, &a, err);
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      int64_t row = hudi_arrow_view_struct_row(&v, i), kl = 0, sl = 0;
      const hudi_arrow_view *kv = &v.children[p->key_col], *sv = &v.children[p->seqno_col];
      const char *key = hudi_arrow_view_is_null(kv, row) ? "" : (const char *)hudi_arrow_view_bytes(kv, row, &kl);
      const char *seq = hudi_arrow_view_is_null(sv, row) ? "" : (const char *)hudi_arrow_view_bytes(sv, row, &sl);
      hudi_hashmap_value hv;
      if (hudi_hashmap_get(&bk->map, key, (size_t)kl, &hv)) {
        bk->matched++;
        uint32_t len;
        memcpy(&len, bk->seqs.data + hv.u64, sizeof len);
        bool same = len == (uint32_t)sl && (!sl || !memcmp(bk->seqs.data + hv.u64 + sizeof len, seq, (size_t)sl));
        if (!same) os->updates++;
      } else {
        os->log_inserts++;
      }
      os->writes++;
      st = bw_add(b, &v, i, key, (size_t)kl, err);
    }
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  hudi_slice_reader_free(r);
  os->deletes = bk->n - bk->matched;
  return st;
}

/* ---- the streamed merge (commit-time ordering) ---------------------------
 *
 * Without an ordering field every log record beats the base record of its
 * key (logs are later), so the merge needs only the logs in memory:
 *   1. the slice's logs alone, merged by the slice reader: the latest
 *      record of every key the logs write (deletes among them applied);
 *   2. the base file streamed batch by batch: a row is dropped when the
 *      logs write its key, or a visible delete block deletes it at a later
 *      instant than the row's _hoodie_commit_time (the slice reader's
 *      rule); the other rows go to the writer as slices of the batch;
 *   3. the log records of step 1.
 * Rows come out in the order of the in-memory merge (kept base rows, then
 * log rows) and memory is one base batch plus the logs' records. */

typedef struct held_batch {
  struct ArrowArray arr;
  hudi_arrow_view v;
} held_batch;

typedef struct stream_state {
  held_batch *logs;
  size_t n_logs, cap_logs;
  hudi_hashmap log_keys; /* keys the logs write */
  hudi_hashmap dropped;  /* base keys dropped -> offset in seqs of (uint32 length, seqno bytes) */
  hudi_buf seqs;
} stream_state;

static void stream_state_free(stream_state *ss) {
  for (size_t i = 0; i < ss->n_logs; i++) {
    hudi_arrow_view_clear(&ss->logs[i].v);
    if (ss->logs[i].arr.release) ss->logs[i].arr.release(&ss->logs[i].arr);
  }
  hudi_free(ss->logs);
  hudi_hashmap_free(&ss->log_keys);
  hudi_hashmap_free(&ss->dropped);
  hudi_buf_free(&ss->seqs);
}

static const char *view_key(const hudi_arrow_view *v, int64_t col, int64_t i, int64_t *len) {
  *len = 0;
  if (col < 0) return NULL;
  const hudi_arrow_view *kv = &v->children[col];
  int64_t row = hudi_arrow_view_struct_row(v, i);
  if (hudi_arrow_view_is_null(kv, row)) return NULL;
  const char *k = (const char *)hudi_arrow_view_bytes(kv, row, len);
  return k ? k : "";
}

/* Step 1: the logs' merged records, kept with their keys. */
static hudi_status load_log_records(cctx *c, stream_state *ss, const hudi_file_group *g, const hudi_file_slice *s,
                                    hudi_error *err) {
  const hudi_read_plan *p = &c->plan;
  hudi_file_slice logs_only = *s;
  logs_only.base = NULL;
  hudi_read_slice_ref ref = {g, &logs_only};
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, p, &ref, err));
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    if (ss->n_logs == ss->cap_logs) {
      size_t cap = ss->cap_logs ? ss->cap_logs * 2 : 8;
      held_batch *nb = hudi_realloc(ss->logs, cap * sizeof *nb);
      if (!nb) {
        a.release(&a);
        st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
        break;
      }
      ss->logs = nb;
      ss->cap_logs = cap;
    }
    held_batch *hb = &ss->logs[ss->n_logs++];
    memset(hb, 0, sizeof *hb);
    hb->arr = a;
    st = hudi_arrow_view_init(&hb->v, &c->read_export, &hb->arr, err);
    for (int64_t i = 0; st == HUDI_OK && i < hb->v.length; i++) {
      int64_t kl;
      const char *key = view_key(&hb->v, p->key_col, i, &kl);
      if (key) st = hudi_hashmap_put(&ss->log_keys, key, (size_t)kl, (hudi_hashmap_value){.u64 = 1}, NULL, NULL, err);
    }
  }
  hudi_slice_reader_free(r);
  return st;
}

/* Whether base row i of v gives way to the logs (step 2's rule). */
static bool base_row_replaced(const cctx *c, const stream_state *ss, const hudi_compact_log_deletes *dels,
                              const hudi_arrow_view *v, int64_t i, const char *key, int64_t kl) {
  if (hudi_hashmap_get(&ss->log_keys, key, (size_t)kl, NULL)) return true;
  const char *del = hudi_compact_log_deletes_get(dels, key, (size_t)kl);
  if (!del) return false;
  int64_t cl;
  const char *ct = view_key(v, c->plan.commit_col, i, &cl);
  if (!ct) return true;
  char t[HUDI_INSTANT_TIME_MAX] = {0};
  memcpy(t, ct, (size_t)(cl < HUDI_INSTANT_TIME_MAX - 1 ? cl : HUDI_INSTANT_TIME_MAX - 1));
  return strcmp(del, t) > 0;
}

static hudi_status note_dropped(const cctx *c, stream_state *ss, const hudi_arrow_view *v, int64_t i, const char *key,
                                int64_t kl, hudi_error *err) {
  int64_t sl;
  const char *seq = view_key(v, c->plan.seqno_col, i, &sl);
  hudi_hashmap_value hv = {.u64 = ss->seqs.len};
  uint32_t len = seq ? (uint32_t)sl : 0;
  HUDI_TRY(hudi_buf_append(&ss->seqs, &len, sizeof len, err));
  if (len) HUDI_TRY(hudi_buf_append(&ss->seqs, seq, len, err));
  return hudi_hashmap_put(&ss->dropped, key, (size_t)kl, hv, NULL, NULL, err);
}

/* Step 2: the base file, batch by batch. */
static hudi_status stream_base(cctx *c, bw *b, stream_state *ss, const hudi_compact_log_deletes *dels,
                               const hudi_file_group *g, const hudi_file_slice *s, op_stats *os, hudi_error *err) {
  if (!s->base) return HUDI_OK;
  const hudi_read_plan *p = &c->plan;
  hudi_file_slice base_only;
  memset(&base_only, 0, sizeof base_only);
  snprintf(base_only.base_instant, sizeof base_only.base_instant, "%s", s->base_instant);
  base_only.base = s->base;
  hudi_read_slice_ref ref = {g, &base_only};
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, p, &ref, err));
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    hudi_arrow_view v;
    st = hudi_arrow_view_init(&v, &c->read_export, &a, err);
    int64_t run = 0;
    for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
      int64_t kl;
      const char *key = view_key(&v, p->key_col, i, &kl);
      if (key && base_row_replaced(c, ss, dels, &v, i, key, kl)) {
        st = note_dropped(c, ss, &v, i, key, kl, err);
        if (st == HUDI_OK) st = bw_write_rows(b, &a, run, i - run, 0, err);
        run = i + 1;
        continue;
      }
      os->writes++;
      st = bw_note_key(b, key ? key : "", (size_t)kl, err);
    }
    if (st == HUDI_OK) st = bw_write_rows(b, &a, run, v.length - run, 0, err);
    hudi_arrow_view_clear(&v);
    a.release(&a);
  }
  hudi_slice_reader_free(r);
  return st;
}

/* Step 3: the logs' records, the last of them ending the file. */
static hudi_status write_log_records(cctx *c, bw *b, stream_state *ss, op_stats *os, hudi_error *err) {
  const hudi_read_plan *p = &c->plan;
  int64_t matched = 0;
  for (size_t bi = 0; bi < ss->n_logs; bi++) {
    const hudi_arrow_view *v = &ss->logs[bi].v;
    for (int64_t i = 0; i < v->length; i++) {
      int64_t kl;
      const char *key = view_key(v, p->key_col, i, &kl);
      hudi_hashmap_value hv;
      if (key && hudi_hashmap_get(&ss->dropped, key, (size_t)kl, &hv)) {
        matched++;
        int64_t sl;
        const char *seq = view_key(v, p->seqno_col, i, &sl);
        uint32_t len;
        memcpy(&len, ss->seqs.data + hv.u64, sizeof len);
        bool same = seq && len == (uint32_t)sl && (!sl || !memcmp(ss->seqs.data + hv.u64 + sizeof len, seq, (size_t)sl));
        if (!same) os->updates++;
      } else {
        os->log_inserts++;
      }
      os->writes++;
      HUDI_TRY(bw_note_key(b, key ? key : "", (size_t)kl, err));
    }
    unsigned flags = bi + 1 == ss->n_logs ? HUDI_PQ_WRITE_LAST : 0;
    HUDI_TRY(bw_write_rows(b, &ss->logs[bi].arr, 0, v->length, flags, err));
  }
  os->deletes = (int64_t)ss->dropped.count - matched;
  return HUDI_OK;
}

static hudi_status merge_streamed(cctx *c, bw *b, const hudi_file_group *g, const hudi_file_slice *s,
                                  const hudi_compact_log_deletes *dels, op_stats *os, hudi_error *err) {
  stream_state ss;
  memset(&ss, 0, sizeof ss);
  hudi_hashmap_init(&ss.log_keys, 0);
  hudi_hashmap_init(&ss.dropped, 0);
  hudi_buf_init(&ss.seqs, (size_t)1 << 34);
  hudi_status st = load_log_records(c, &ss, g, s, err);
  if (st == HUDI_OK) st = stream_base(c, b, &ss, dels, g, s, os, err);
  if (st == HUDI_OK) st = write_log_records(c, b, &ss, os, err);
  stream_state_free(&ss);
  return st;
}

/* The slice of the plan's operation: its base file and the planned logs
 * (each must still be there). */
static hudi_status op_slice(hudi_file_slice *out, const hudi_file_group *g, const hudi_compaction_operation *op,
                            hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *bi = op->base_instant_time ? op->base_instant_time : "";
  const hudi_file_slice *s = hudi_file_group_slice_at(g, bi);
  if (!s)
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "file group %s in partition '%s' has no file slice %s", g->file_id,
                        g->partition, bi);
  snprintf(out->base_instant, sizeof out->base_instant, "%s", s->base_instant);
  out->base = s->base;
  if (op->data_file_path && (!s->base || !strstr(s->base->path, op->data_file_path)))
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "base file %s of file group %s is missing", op->data_file_path,
                        g->file_id);
  size_t n = op->delta_file_paths.n;
  out->logs = hudi_calloc(n + 1, sizeof *out->logs);
  if (!out->logs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  char **names = op->delta_file_paths.items;
  /* In the slice's (Hudi's log) order. */
  for (size_t l = 0; l < s->n_logs; l++)
    for (size_t k = 0; k < n; k++)
      if (names[k] && !strcmp(names[k], s->logs[l].file_name)) {
        out->logs[out->n_logs++] = s->logs[l]; /* borrowed */
        break;
      }
  if (out->n_logs != n)
    return hudi_err_set(err, HUDI_ERR_NOT_FOUND,
                        "file group %s in partition '%s': %zu of the %zu planned log files are not in slice %s",
                        g->file_id, g->partition, n - out->n_logs, n, bi);
  return HUDI_OK;
}

static const hudi_file_group *find_group(const hudi_fsview *v, const char *partition, const char *file_id) {
  for (size_t i = 0; i < v->n_groups; i++)
    if (!strcmp(v->groups[i].partition, partition) && !strcmp(v->groups[i].file_id, file_id)) return &v->groups[i];
  return NULL;
}

/* One operation's work (run on a pool thread) and what it produced (recorded
 * in the commit metadata afterwards, in plan order). */
typedef struct op_job {
  const hudi_compaction_operation *op;
  const hudi_file_group *g;
  hudi_file_slice s;
  hudi_compact_log_counts lc;
  op_stats os;
  hudi_pq_write_summary sum;
  bool have_sum;
  char *path; /* the new base file */
} op_job;

typedef struct plan_run {
  cctx *c;
  const hudi_fsview *v;
  op_job *jobs;
} plan_run;

static void op_job_free(op_job *j) {
  if (j->have_sum) hudi_pq_write_summary_free(&j->sum);
  hudi_free(j->s.logs);
  hudi_free(j->path);
}

/* Merges operation i's slice into its new base file. */
static hudi_status exec_op(void *ctx, size_t i, hudi_error *err) {
  plan_run *pr = ctx;
  cctx *c = pr->c;
  op_job *j = &pr->jobs[i];
  const hudi_compaction_operation *op = j->op;
  const char *part = op->partition_path ? op->partition_path : "";
  const char *fid = op->file_id ? op->file_id : "";
  const hudi_file_group *g = j->g = find_group(pr->v, part, fid);
  if (!g) return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "file group %s in partition '%s' is not in the table", fid, part);
  /* Without an ordering field logs always win: stream the base file. */
  bool streamed = c->plan.ordering_col < 0;
  hudi_compact_base_keys bk;
  memset(&bk, 0, sizeof bk);
  hudi_compact_log_deletes dels;
  memset(&dels, 0, sizeof dels);
  bw b;
  memset(&b, 0, sizeof b);
  hudi_status st = op_slice(&j->s, g, op, err);
  if (st == HUDI_OK && !streamed) st = hudi_compact_base_keys_load(&bk, c->t->storage, j->s.base, err);
  if (st == HUDI_OK)
    st = hudi_compact_count_logs(&j->lc, streamed ? &dels : NULL, &c->plan, c->t->storage, &j->s, err);
  if (st == HUDI_OK) st = bw_open(&b, c, part, fid, j->s.base != NULL, (int)i, err);
  if (st == HUDI_OK)
    st = streamed ? merge_streamed(c, &b, g, &j->s, &dels, &j->os, err) : merge_into(c, &b, g, &j->s, &bk, &j->os, err);
  if (st == HUDI_OK) st = bw_finish(&b, &j->sum, err);
  j->have_sum = st == HUDI_OK;
  if (st == HUDI_OK && !(j->path = hudi_strdup((const char *)b.path.data)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  bw_free(&b);
  hudi_compact_base_keys_free(&bk);
  hudi_compact_log_deletes_free(&dels);
  if (st != HUDI_OK) hudi_err_context(err, st, "compacting file group %s in partition '%s'", fid, part);
  return st;
}

/* Operation j's write stat and the result's totals. */
static hudi_status record_op(cctx *c, const op_job *j, hudi_error *err) {
  const hudi_compaction_operation *op = j->op;
  const char *part = op->partition_path ? op->partition_path : "";
  const char *fid = op->file_id ? op->file_id : "";
  const hudi_file_slice *s = &j->s;
  const op_stats *os = &j->os;
  hudi_write_stat *ws = NULL;
  hudi_commit_metadata *m = c->meta;
  HUDI_TRY(hudi_commit_metadata_add_stat(m, part, &ws, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, fid, &ws->file_id, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, j->path, &ws->path, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, s->base_instant[0] ? s->base_instant : "null", &ws->prev_commit, err));
  if (op->data_file_path) HUDI_TRY(hudi_commit_metadata_strdup(m, op->data_file_path, &ws->prev_base_file, err));
  /* As Spark's compaction reports them (fixture v8_trips_8i3u1d): rows
   * taken from the logs over a base record are updates, every other row
   * written counts as an insert. */
  ws->num_writes = hudi_tl_some_long(os->writes);
  ws->num_update_writes = hudi_tl_some_long(os->updates);
  ws->num_inserts = hudi_tl_some_long(os->writes - os->updates);
  ws->num_deletes = hudi_tl_some_long(os->deletes);
  ws->total_write_bytes = hudi_tl_some_long(j->sum.file_size);
  ws->file_size_in_bytes = hudi_tl_some_long(j->sum.file_size);
  ws->total_log_records = hudi_tl_some_long(j->lc.records);
  ws->total_log_blocks = hudi_tl_some_long(j->lc.blocks);
  ws->total_rollback_blocks = hudi_tl_some_long(j->lc.rollback_blocks);
  ws->total_corrupt_log_block = hudi_tl_some_long(j->lc.corrupt_blocks);
  ws->total_updated_records_compacted = hudi_tl_some_long(os->updates + os->deletes + os->log_inserts);
  ws->total_log_files_compacted = hudi_tl_some_long((int64_t)s->n_logs);
  ws->total_log_size_compacted = hudi_tl_some_long(j->lc.bytes);
  hudi_write_stat_zero_unset(ws);
  c->res->num_file_groups++;
  c->res->num_log_files += (int64_t)s->n_logs;
  c->res->num_records += os->writes;
  c->res->files_written++;
  c->res->bytes_written += j->sum.file_size;
  return HUDI_OK;
}

/* Files of an earlier attempt at instant (named by its markers) are
 * deleted, so the retry's files are the only ones of the instant. */
static hudi_status undo_attempt(hudi_table *t, const char *instant, hudi_error *err) {
  char dir[128];
  snprintf(dir, sizeof dir, ".hoodie/.temp/%s", instant);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  hudi_status st = hudi_storage_list(t->storage, dir, HUDI_LIST_RECURSIVE, &list, err);
  if (st == HUDI_ERR_NOT_FOUND) return HUDI_OK;
  HUDI_TRY(st);
  size_t dl = strlen(dir) + 1;
  hudi_buf path, part;
  hudi_buf_init(&path, 1 << 16);
  hudi_buf_init(&part, 1 << 16);
  for (size_t i = 0; st == HUDI_OK && i < list.count; i++) {
    const char *p = list.items[i].path;
    if (list.items[i].is_dir || strncmp(p, dir, dl - 1) != 0) continue;
    const char *rel = p + (p[dl - 1] == '/' ? dl : dl - 1);
    const char *mk = strstr(rel, ".marker.");
    if (!mk) continue;
    hudi_buf_reset(&path);
    st = hudi_buf_printf(&path, err, "%.*s%c", (int)(mk - rel), rel, '\0');
    if (st == HUDI_OK)
      st = hudi_storage_delete(t->storage, (const char *)path.data, HUDI_DELETE_MISSING_OK, err);
    /* The attempt's temporaries (a kill before its renames), once per
     * partition: markers are listed in path order. */
    const char *slash = strrchr(rel, '/');
    size_t plen = slash ? (size_t)(slash - rel) : 0;
    if (st == HUDI_OK && (!part.len || part.len - 1 != plen || memcmp(part.data, rel, plen) != 0)) {
      hudi_buf_reset(&part);
      st = hudi_buf_printf(&part, err, "%.*s%c", (int)plen, rel, '\0');
      if (st == HUDI_OK) st = hudi_delete_instant_temps(t->storage, (const char *)part.data, instant, err);
    }
  }
  hudi_buf_free(&part);
  hudi_buf_free(&path);
  hudi_file_list_free(&list);
  if (st == HUDI_OK) st = hudi_storage_delete(t->storage, dir, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, err);
  return st;
}

/* File groups compacted at once (hoodie.compact.parallelism, default the
 * cores up to 4): each holds one base batch, its logs' records and the row
 * group being written. */
static hudi_status plan_threads(int *out, const cctx *c, size_t n_ops, hudi_error *err) {
  int64_t dflt = hudi_cpu_count() < 4 ? hudi_cpu_count() : 4, v;
  HUDI_TRY(hudi_write_int_option(c->t, c->opts, c->n_opts, "hoodie.compact.parallelism", dflt, 1, &v, err));
  if (v > 64) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.compact.parallelism: %lld is above 64", (long long)v);
  if ((size_t)v > n_ops) v = n_ops ? (int64_t)n_ops : 1;
  *out = (int)v;
  return HUDI_OK;
}

static hudi_status run_plan(cctx *c, const hudi_compaction_plan *plan, hudi_error *err) {
  hudi_table *t = c->t;
  size_t n_ops = plan->operations.n;
  int threads = 1;
  HUDI_TRY(plan_threads(&threads, c, n_ops, err));
  hudi_fsview v;
  hudi_fsview_options fo = {NULL, t->version, false};
  HUDI_TRY(hudi_fsview_build_latest(&v, t, &fo, NULL, err));
  plan_run pr = {c, &v, hudi_calloc(n_ops + 1, sizeof *pr.jobs)};
  hudi_status st = pr.jobs ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  const hudi_compaction_operation *ops = plan->operations.items;
  for (size_t i = 0; st == HUDI_OK && i < n_ops; i++) pr.jobs[i].op = &ops[i];
  if (st == HUDI_OK) st = hudi_commit_metadata_new(&c->meta, 0, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_set_schema(c->meta, c->schema_json, err);
  if (st == HUDI_OK) st = hudi_commit_metadata_set_operation(c->meta, "COMPACT", err);
  if (st == HUDI_OK) c->meta->compacted = (hudi_tl_bool){1, 1};
  /* The caller's thread is one of the workers; cores no file group takes
   * encode the files' columns (writer.h encode_threads). */
  hudi_threadpool *pool = NULL;
  c->encode_threads = hudi_pq_encode_threads_share(threads);
  if (st == HUDI_OK && threads > 1) st = hudi_threadpool_create(&pool, threads - 1, err);
  if (st == HUDI_OK) st = hudi_parallel_for(pool, n_ops, exec_op, &pr, err);
  hudi_threadpool_free(pool);
  for (size_t i = 0; st == HUDI_OK && i < n_ops; i++) st = record_op(c, &pr.jobs[i], err);
  for (size_t i = 0; pr.jobs && i < n_ops; i++) op_job_free(&pr.jobs[i]);
  hudi_free(pr.jobs);
  hudi_fsview_free(&v);
  return st;
}

static hudi_status complete(cctx *c, hudi_error *err) {
  hudi_table *t = c->t;
  hudi_instant_gen gen;
  char scratch[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_write_pick_instant(&gen, t, scratch, err));
  /* The MDT deltacommit C: the new base files; the record index stays
   * (records keep their file groups). */
  HUDI_TRY(hudi_write_mdt_update(t, NULL, 0, c->instant, c->meta, NULL, 0, NULL, 0, &gen, err));
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(c->meta, NULL, &avro, err);
  char done[HUDI_INSTANT_TIME_BUF];
  if (st == HUDI_OK) st = hudi_instant_gen_next(&gen, done, NULL, err);
  if (st == HUDI_OK)
    st = hudi_write_instant_file(t, c->instant, "compaction", done, HUDI_INSTANT_COMPLETED, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);
  snprintf(c->res->requested_time, sizeof c->res->requested_time, "%s", c->instant);
  snprintf(c->res->completion_time, sizeof c->res->completion_time, "%s", done);
  char temp[64];
  snprintf(temp, sizeof temp, ".hoodie/.temp/%s", c->instant);
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_status del = hudi_storage_delete(t->storage, temp, HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, &ignored);
  (void)del;
  return hudi_write_reload_timeline(t, err);
}

/* One compaction in its three steps (compact.h): the context and the
 * plan live from begin to free. */
struct hudi_compact_job {
  cctx c;
  hudi_compaction_plan *plan;
};

hudi_status hudi_compact_begin(hudi_compact_job **out, hudi_compact_result *result, hudi_table *t, const char *instant,
                               const hudi_option *opts, size_t n, hudi_error *err) {
  *out = NULL;
  HUDI_TRY(check_table(t, opts, n, err));
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  const hudi_instant *in = hudi_timeline_find(&t->timeline, instant);
  if (!in || !is_compaction(in) || in->state == HUDI_INSTANT_COMPLETED)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s is not a pending compaction of table %s", instant,
                        t->base_uri);
  bool inflight = in->state == HUDI_INSTANT_INFLIGHT;
  hudi_compact_job *j = hudi_calloc(1, sizeof *j);
  if (!j) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  cctx *c = &j->c;
  c->t = t;
  c->opts = opts;
  c->n_opts = n;
  c->res = result;
  snprintf(c->instant, sizeof c->instant, "%s", instant);
  hudi_status st = read_plan(&j->plan, t, instant, err);
  if (st == HUDI_OK && inflight) st = undo_attempt(t, instant, err);
  /* A killed attempt may have got as far as the metadata table. */
  if (st == HUDI_OK && inflight) st = hudi_rollback_mdt_attempt(t, instant, err);
  if (st == HUDI_OK && !inflight)
    st = hudi_write_instant_file(t, instant, "compaction", "", HUDI_INSTANT_INFLIGHT, "", 0, err);
  if (st == HUDI_OK) st = setup(c, err);
  if (st != HUDI_OK) {
    hudi_compact_job_free(j);
    return hudi_err_context(err, st, "compaction %s", instant);
  }
  *out = j;
  return HUDI_OK;
}

hudi_status hudi_compact_execute(hudi_compact_job *j, hudi_error *err) {
  hudi_status st = run_plan(&j->c, j->plan, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "compaction %s", j->c.instant);
  return st;
}

hudi_status hudi_compact_finish(hudi_compact_job *j, hudi_error *err) {
  cctx *c = &j->c;
  /* Writes may have completed since begin: the instant generator and the
   * metadata table see them. */
  hudi_status st = hudi_write_reload_timeline(c->t, err);
  const hudi_instant *in = st == HUDI_OK ? hudi_timeline_find(&c->t->timeline, c->instant) : NULL;
  if (st == HUDI_OK && (!in || in->state != HUDI_INSTANT_INFLIGHT))
    st = hudi_err_set(err, HUDI_ERR_CONFLICT, "compaction %s of table %s is no longer inflight", c->instant,
                      c->t->base_uri);
  if (st == HUDI_OK) st = complete(c, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "compaction %s", c->instant);
  return st;
}

void hudi_compact_job_free(hudi_compact_job *j) {
  if (!j) return;
  hudi_compaction_plan_free(j->plan);
  cctx_free(&j->c);
  hudi_free(j);
}

hudi_status hudi_compact_run(hudi_compact_result *result, hudi_table *t, const char *instant,
                             const hudi_option *opts, size_t n, hudi_error *err) {
  hudi_compact_job *j = NULL;
  HUDI_TRY(hudi_compact_begin(&j, result, t, instant, opts, n, err));
  hudi_status st = hudi_compact_execute(j, err);
  if (st == HUDI_OK) st = hudi_compact_finish(j, err);
  hudi_compact_job_free(j);
  return st;
}

/* ---- the public call and the inline hook -------------------------------- */

/* Finishes pending compactions (an earlier run that stopped), oldest
 * first, then schedules and runs a new one. The caller holds the lock. */
bool hudi_compact_oldest_pending(char out[HUDI_INSTANT_TIME_MAX], const hudi_table *t) {
  out[0] = '\0';
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (is_compaction(in) && in->state != HUDI_INSTANT_COMPLETED) {
      snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", in->requested_time);
      return true;
    }
  }
  return false;
}

static hudi_status compact_all(hudi_compact_result *res, hudi_table *table, const hudi_option *options,
                               size_t n_options, hudi_error *err) {
  HUDI_TRY(check_table(table, options, n_options, err));
  HUDI_TRY(hudi_write_reload_timeline(table, err));
  char inst[HUDI_INSTANT_TIME_MAX];
  while (hudi_compact_oldest_pending(inst, table)) HUDI_TRY(hudi_compact_run(res, table, inst, options, n_options, err));
  char instant[HUDI_INSTANT_TIME_BUF];
  bool scheduled = false;
  HUDI_TRY(hudi_compact_schedule(instant, &scheduled, table, options, n_options, err));
  if (!scheduled) return HUDI_OK;
  return hudi_compact_run(res, table, instant, options, n_options, err);
}

hudi_status hudi_table_compact(hudi_compact_result *result, hudi_table *table, const hudi_option *options,
                               size_t n_options, hudi_error *err) {
  hudi_compact_result dummy;
  hudi_compact_result *res = result ? result : &dummy;
  memset(res, 0, sizeof *res);
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_compact needs a table");
  if (!options) n_options = 0;
  HUDI_TRY(check_table(table, options, n_options, err));
  /* A background compaction of this handle first: its error is this call's. */
  HUDI_TRY(hudi_table_wait_services(table, err));
  hudi_table_lock lock = {0};
  HUDI_TRY(hudi_write_begin(&lock, table, options, n_options, err));
  hudi_status st = compact_all(res, table, options, n_options, err);
  hudi_write_end(&lock, table);
  return st;
}

/* Deltacommits completed after the latest compaction was requested. */
static int64_t delta_commits_since_compaction(const hudi_table *t) {
  const char *last = NULL;
  for (size_t i = 0; i < t->timeline.count; i++)
    if (is_compaction(&t->timeline.items[i])) last = t->timeline.items[i].requested_time;
  int64_t n = 0;
  for (size_t i = 0; i < t->timeline.count; i++) {
    const hudi_instant *in = &t->timeline.items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && !strcmp(in->action, "deltacommit") &&
        (!last || strcmp(in->requested_time, last) > 0))
      n++;
  }
  return n;
}

hudi_status hudi_compact_after_commit(hudi_table *t, const hudi_option *opts, size_t n, const hudi_write_result *wr,
                                      hudi_error *err) {
  if (t->type != HUDI_MERGE_ON_READ || !wr || strcmp(wr->action, "deltacommit") != 0) return HUDI_OK;
  bool inline_on = bool_opt(t, opts, n, "hoodie.compact.inline");
  bool async_on = !inline_on && bool_opt(t, opts, n, HUDI_COMPACT_ASYNC_OPTION);
  if (!inline_on && !async_on) return HUDI_OK;
  int64_t max_delta;
  HUDI_TRY(hudi_write_int_option(t, opts, n, "hoodie.compact.inline.max.delta.commits", 5, 1, &max_delta, err));
  bool due = delta_commits_since_compaction(t) >= max_delta;
  if (async_on) return hudi_compact_async_after_commit(t, opts, n, due, err);
  hudi_compact_result r;
  memset(&r, 0, sizeof r);
  if (due) return compact_all(&r, t, opts, n, err); /* the write holds the lock */
  /* Not due: still the compactions left pending (a writer killed during
   * its inline compaction), as Java's runTableServicesInline runs any
   * pending compaction before it schedules one -- unless this handle's
   * background thread is running them. (Another process's background
   * compaction is not known here, as when one is due: inline and
   * background compaction of one table from two processes race.) */
  if (hudi_compact_async_busy(t)) return HUDI_OK;
  char inst[HUDI_INSTANT_TIME_MAX];
  while (hudi_compact_oldest_pending(inst, t)) HUDI_TRY(hudi_compact_run(&r, t, inst, opts, n, err));
  return HUDI_OK;
}
