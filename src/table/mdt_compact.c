/* Metadata-table compaction (mdt_compact.h). */
#include "table/mdt_secondary_index.h"
#include "table/mdt_compact.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/threadpool.h"
#include "hfile/block.h"
#include "table/bloom.h"
#include "table/index.h"
#include "table/compaction_plan.h"
#include "table/mdt_record_index.h"
#include "table/mdt_bloom_filters.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_clean.h"
#include "table/mdt_compact_async.h"
#include "table/mdt_reader.h"
#include "table/mdt_schema.h"
#include "table/properties.h"
#include "table/mdt_write_common.h"
#include "table/write.h"
#include "table/write_mdt.h"

/* ---- timeline facts ---- */

static bool is_completed(const hudi_instant *i) { return i->state == HUDI_INSTANT_COMPLETED; }

/* The last completed compaction of the MDT (a completed "commit"), or NULL. */
static const hudi_instant *last_compaction(const hudi_timeline *tl) {
  const hudi_instant *last = NULL;
  for (size_t i = 0; i < tl->count; i++)
    if (is_completed(&tl->items[i]) && strcmp(tl->items[i].action, "commit") == 0) last = &tl->items[i];
  return last;
}

/* Completed deltacommits since the last compaction: all of them without
 * one, else those completed after it was requested
 * (CompactionUtils.getDeltaCommitsSinceLatestCompaction). */
static size_t delta_commits_since(const hudi_timeline *tl) {
  const hudi_instant *c = last_compaction(tl);
  size_t n = 0;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    if (!is_completed(x) || strcmp(x->action, "deltacommit") != 0) continue;
    if (!c || strcmp(x->completion_time, c->requested_time) > 0) n++;
  }
  return n;
}

/* The compaction instant (compactIfNecessary): the first data instant
 * pending on the data timeline but completed on the MDT, minus 1 ms; else
 * a new instant time after everything on both timelines. */
static hudi_status pick_instant(const hudi_table *data, const hudi_timeline *mdt, char out[HUDI_INSTANT_TIME_BUF],
                                hudi_error *err) {
  for (size_t i = 0; i < data->timeline.count; i++) {
    const hudi_instant *x = &data->timeline.items[i];
    if (is_completed(x)) continue;
    const hudi_instant *y = hudi_timeline_find(mdt, x->requested_time);
    if (!y || !is_completed(y)) continue;
    int64_t ms;
    HUDI_TRY(hudi_instant_time_to_millis(&ms, x->requested_time, strlen(x->requested_time), err));
    return hudi_instant_time_format(out, ms - 1, err);
  }
  hudi_instant_gen gen;
  hudi_instant_gen_init(&gen, NULL, NULL);
  hudi_instant_gen_set_offset(&gen, (int64_t)hudi_table_timeline_offset_minutes(data) * 60000);
  hudi_timeline_observe_times(&data->timeline, &gen);
  hudi_timeline_observe_times(mdt, &gen);
  return hudi_instant_gen_next(&gen, out, NULL, err);
}

/* ---- undoing a compaction a crash left pending ---- */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Deletes compaction `instant`'s base files and its requested/inflight
 * files. */
static hudi_status undo_pending(hudi_storage *s, const char *instant, hudi_error *err) {
  char suffix[64];
  snprintf(suffix, sizeof suffix, "_%s.hfile", instant);
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  /* With the temporaries a kill before their renames left. */
  hudi_status st = hudi_storage_list(s, HUDI_MDT_W_BASE, HUDI_LIST_RECURSIVE | HUDI_LIST_INCLUDE_TEMP, &list, err);
  for (size_t i = 0; st == HUDI_OK && i < list.count; i++) {
    const char *path = list.items[i].path;
    if (strncmp(path, HUDI_MDT_W_BASE "/.hoodie/", strlen(HUDI_MDT_W_BASE "/.hoodie/")) == 0) continue;
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    bool temp = hudi_storage_is_temp_name(name);
    if ((!temp && ends_with(path, suffix)) || (temp && strstr(name, suffix) && name[0] == '.'))
      st = hudi_storage_delete(s, path, HUDI_DELETE_MISSING_OK, err);
  }
  hudi_file_list_free(&list);
  static const hudi_instant_state states[] = {HUDI_INSTANT_INFLIGHT, HUDI_INSTANT_REQUESTED};
  for (int k = 0; st == HUDI_OK && k < 2; k++) {
    char name[128], path[256];
    if (hudi_instant_file_name(name, sizeof name, instant, "", "compaction", states[k], 2) < 0)
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "compaction instant file name for %s", instant);
    snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_TIMELINE, name);
    st = hudi_storage_delete(s, path, HUDI_DELETE_MISSING_OK, err);
  }
  return st;
}

/* ---- one file group ---- */

typedef struct op {
  const hudi_file_group *g;
  const hudi_file_slice *slice;
  hudi_fs_log_file *logs; /* shallow copies: the logs completed before C */
  size_t n_logs;
  uint64_t log_bytes;
} op;

typedef struct compact_ctx {
  hudi_table *t;
  hudi_mdt *m;
  hudi_mdt_write_options wo;
  const char *schema_json;
  size_t schema_len;
  hudi_avro_schema *schema;
  char instant[HUDI_INSTANT_TIME_BUF];
  op *ops;
  size_t n_ops;
  hudi_commit_metadata *meta;
  hudi_mdt_compact_result *res;
  bool copy_blocks; /* base blocks no log record changes are copied (!rebuild_blocks) */
  /* A refresh (hudi_mdt_compact_refresh): the groups whose latest base
   * file an instant at or before refresh_through ("" none) or off the
   * active timeline wrote, whatever their logs; and, but in incremental
   * mode, every group with logs, as the compaction it then counts as. */
  bool refresh;
  const char *refresh_through;
} compact_ctx;

/* Only the partitions the data table lists: an unlisted directory is what
 * a drop or an add cut short left (mdt_drop.h, mdt_bootstrap.h). No reader
 * looks at it, the next drop or add of it deletes it, and compacting it
 * would write files no one lists (or, for bloom_filters, stop every
 * compaction). */
static bool listed(const compact_ctx *c, const char *partition) {
  return hudi_props_list_has(hudi_props_get(&c->t->props, "hoodie.table.metadata.partitions"), partition);
}

static void ops_free(compact_ctx *c) {
  for (size_t i = 0; i < c->n_ops; i++) hudi_free(c->ops[i].logs);
  hudi_free(c->ops);
  c->ops = NULL;
  c->n_ops = 0;
}

/* Adds the operation of group g's latest slice s: its logs completed
 * before C (as the plan generator slices as of C); none is an operation
 * only when base_only (a refresh). */
static hudi_status add_op(compact_ctx *c, const hudi_file_group *g, const hudi_file_slice *s, bool base_only,
                          hudi_error *err) {
  op *o = &c->ops[c->n_ops];
  o->logs = hudi_calloc(s->n_logs ? s->n_logs : 1, sizeof *o->logs);
  if (!o->logs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory planning the metadata compaction");
  for (size_t k = 0; k < s->n_logs; k++) {
    const hudi_fs_log_file *lf = &s->logs[k];
    if (!lf->completion_time[0] || strcmp(lf->completion_time, c->instant) >= 0) continue;
    o->logs[o->n_logs++] = *lf;
    o->log_bytes += lf->size;
  }
  if (o->n_logs == 0 && !base_only) {
    hudi_free(o->logs);
    o->logs = NULL;
    return HUDI_OK;
  }
  o->g = g;
  o->slice = s;
  c->n_ops++;
  return HUDI_OK;
}

/* Whether slice s's base file needs a refresh: written by an instant at
 * or before c->refresh_through, or by one the active timeline no longer
 * holds. */
static bool stale_base(const compact_ctx *c, const hudi_file_slice *s) {
  if (!s->base) return false;
  if (c->refresh_through[0] && strcmp(s->base_instant, c->refresh_through) <= 0) return true;
  const hudi_instant *in = hudi_timeline_find(&hudi_mdt_table(c->m)->timeline, s->base_instant);
  return !in || !is_completed(in);
}

/* The operations: every group whose latest slice has logs completed
 * before C; in a refresh, every group with a stale base file too (in
 * incremental mode, only those). */
static hudi_status plan_ops(compact_ctx *c, bool incremental, hudi_error *err) {
  size_t n_groups;
  const hudi_file_group *groups = hudi_mdt_all_groups(c->m, &n_groups);
  c->ops = hudi_calloc(n_groups ? n_groups : 1, sizeof *c->ops);
  if (!c->ops) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory planning the metadata compaction");
  bool any_stale = false;
  for (size_t i = 0; i < n_groups; i++) {
    const hudi_file_slice *s = hudi_file_group_latest_slice(&groups[i]);
    if (!s || !listed(c, groups[i].partition)) continue;
    bool stale = c->refresh && stale_base(c, s);
    bool logs = s->n_logs > 0 && !(c->refresh && incremental);
    if (stale || logs) HUDI_TRY(add_op(c, &groups[i], s, stale, err));
    any_stale = any_stale || stale;
  }
  if (c->refresh && !any_stale) ops_free(c); /* nothing to refresh: no compaction */
  return HUDI_OK;
}

/* The bytes a group's compaction reads: its latest slice's base and logs. */
static uint64_t slice_bytes(const hudi_file_slice *s) {
  uint64_t n = s && s->base ? s->base->size : 0;
  for (size_t k = 0; s && k < s->n_logs; k++) n += s->logs[k].size;
  return n;
}

/* Completed deltacommits from instant on: how long a group has read a log
 * of that instant. */
static size_t deltacommits_from(const hudi_timeline *tl, const char *instant) {
  size_t n = 0;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    if (is_completed(x) && !strcmp(x->action, "deltacommit") && strcmp(x->requested_time, instant) >= 0) n++;
  }
  return n;
}

static size_t op_age(const op *o, const hudi_timeline *tl) {
  const char *oldest = NULL;
  for (size_t k = 0; k < o->n_logs; k++) {
    const char *in = o->logs[k].name.instant;
    if (in && (!oldest || strcmp(in, oldest) < 0)) oldest = in;
  }
  return oldest ? deltacommits_from(tl, oldest) : 0;
}

typedef struct aged {
  op o;
  size_t age;
  uint64_t bytes;
} aged;

static int cmp_staleness(const void *a, const void *b) {
  const aged *x = a, *y = b;
  if (x->age != y->age) return x->age > y->age ? -1 : 1;
  if (x->bytes != y->bytes) return x->bytes > y->bytes ? -1 : 1;
  int c = strcmp(x->o.g->partition, y->o.g->partition);
  return c ? c : strcmp(x->o.g->file_id, y->o.g->file_id);
}

/* Incremental mode compacts a share of the groups every P deltacommits,
 * P the groups compacted at once (group_threads: the cores, up to 4):
 * the P shards of a share then run side by side, as the groups of a
 * whole-table compaction do, where one shard per commit would leave
 * cores idle. */
static int group_threads(const hudi_mdt_compact_options *o, size_t n_ops);
static int share_groups(const hudi_mdt_compact_options *o) { return group_threads(o, 64); }

/* Whether a share is due: P deltacommits since the last compaction, or a
 * group reading a log for max deltacommits (keep_share). */
static bool share_due(compact_ctx *c, const hudi_mdt_compact_options *o, int32_t max) {
  if (c->res->delta_commits == 0) return false;
  if (c->res->delta_commits >= (size_t)share_groups(o)) return true;
  const char *oldest = hudi_mdt_oldest_live_log(c->m);
  return oldest && deltacommits_from(&hudi_mdt_table(c->m)->timeline, oldest) >= (size_t)max;
}

/* Incremental mode: keeps the operations of this share, about P/max of
 * all slices' bytes, taking the groups whose oldest log is the oldest
 * first (so each is compacted about every max commits, as without the
 * mode), always at least one, and every group that has read a log for
 * max deltacommits or more. That last rule keeps what Hudi's compaction of
 * every group every max deltacommits guarantees: no log older than the
 * last max deltacommits, so Java's archival, bounded by the MDT's latest
 * compaction, never takes the instants of logs still read. A group is
 * taken while it brings the share nearer its target (of ten equal
 * record-index shards, P per share, not P + 1). */
static hudi_status keep_share(compact_ctx *c, int32_t max, int p, hudi_error *err) {
  const hudi_timeline *tl = &hudi_mdt_table(c->m)->timeline;
  size_t n_groups;
  const hudi_file_group *groups = hudi_mdt_all_groups(c->m, &n_groups);
  uint64_t total = 0;
  for (size_t i = 0; i < n_groups; i++)
    if (listed(c, groups[i].partition)) total += slice_bytes(hudi_file_group_latest_slice(&groups[i]));
  aged *a = hudi_calloc(c->n_ops ? c->n_ops : 1, sizeof *a);
  if (!a) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory planning the metadata compaction");
  for (size_t i = 0; i < c->n_ops; i++) a[i] = (aged){c->ops[i], op_age(&c->ops[i], tl), slice_bytes(c->ops[i].slice)};
  qsort(a, c->n_ops, sizeof *a, cmp_staleness);
  uint64_t target = total * (uint64_t)p / (uint64_t)max, taken = 0;
  size_t kept = 0;
  for (size_t i = 0; i < c->n_ops; i++) {
    bool take = kept == 0 || a[i].age >= (size_t)max || taken + a[i].bytes / 2 < target;
    if (!take) {
      hudi_free(a[i].o.logs);
      continue;
    }
    c->ops[kept++] = a[i].o;
    taken += a[i].bytes;
  }
  c->n_ops = kept;
  hudi_free(a);
  return HUDI_OK;
}

static hudi_status set_metric(hudi_compaction_plan *p, hudi_tl_list *m, const char *key, double v, hudi_error *err) {
  hudi_tl_double_entry *e;
  HUDI_TRY(hudi_tl_list_push(m, &p->doc.arena, sizeof *e, (void **)&e, err));
  HUDI_TRY(hudi_tl_strdup(&p->doc.arena, key, &e->key, err));
  e->value = (hudi_tl_double){v, 1};
  return HUDI_OK;
}

static const char *file_name_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* C.compaction.requested (HoodieCompactionPlan, version 2), then the
 * empty C.compaction.inflight Spark writes. */
static hudi_status write_plan(compact_ctx *c, hudi_error *err) {
  hudi_compaction_plan *p;
  HUDI_TRY(hudi_compaction_plan_new(&p, err));
  hudi_avro_arena *a = &p->doc.arena;
  hudi_status st = HUDI_OK;
  p->operations.has = 1;
  p->extra_metadata.has = 1;
  p->missing_schedule_partitions.has = 1;
  p->version = (hudi_tl_int){2, 1};
  p->preserve_hoodie_metadata = (hudi_tl_bool){0, 1};
  for (size_t i = 0; st == HUDI_OK && i < c->n_ops; i++) {
    const op *o = &c->ops[i];
    hudi_compaction_operation *x;
    st = hudi_tl_list_push(&p->operations, a, sizeof *x, (void **)&x, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, o->slice->base_instant, &x->base_instant_time, err);
    x->delta_file_paths.has = 1;
    for (size_t k = 0; st == HUDI_OK && k < o->n_logs; k++)
      st = hudi_tl_strs_push(&x->delta_file_paths, a, o->logs[k].file_name, err);
    if (st == HUDI_OK && o->slice->base)
      st = hudi_tl_strdup(a, file_name_of(o->slice->base->path), &x->data_file_path, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, o->g->file_id, &x->file_id, err);
    if (st == HUDI_OK) st = hudi_tl_strdup(a, o->g->partition, &x->partition_path, err);
    double base_mb = o->slice->base ? (double)(o->slice->base->size >> 20) : 0.0;
    x->metrics.has = 1;
    if (st == HUDI_OK) st = set_metric(p, &x->metrics, "TOTAL_LOG_FILES", (double)o->n_logs, err);
    if (st == HUDI_OK) st = set_metric(p, &x->metrics, "TOTAL_IO_MB", 2 * base_mb, err);
    if (st == HUDI_OK) st = set_metric(p, &x->metrics, "TOTAL_IO_READ_MB", base_mb, err);
    if (st == HUDI_OK) st = set_metric(p, &x->metrics, "TOTAL_LOG_FILES_SIZE", (double)o->log_bytes, err);
    if (st == HUDI_OK) st = set_metric(p, &x->metrics, "TOTAL_IO_WRITE_MB", base_mb, err);
  }
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  if (st == HUDI_OK) st = hudi_compaction_plan_to_avro(p, NULL, &avro, err);
  hudi_compaction_plan_free(p);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, "", "compaction",
                                   HUDI_INSTANT_REQUESTED, avro.data, avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);
  return hudi_mdt_w_instant_action(c->t->storage, c->instant, "", "compaction", HUDI_INSTANT_INFLIGHT, "", 0, err);
}

/* The new base file of one group, built as records stream in. */
typedef struct base_writer {
  hudi_hfile_writer *w;
  hudi_bloom bloom;
  hudi_buf scratch;
  const hudi_avro_node *schema;      /* the target schema (encoding) */
  const hudi_avro_node *schema_node; /* the same, as the reader's cache holds it */
  bool std_layout;                   /* hudi_mdt_standard_layout(schema_node) */
  const char *file_name;
  /* What a raw payload's meta fields become: four nulls, then
   * _hoodie_file_name (built once; the record's bytes follow). */
  uint8_t head[600];
  size_t head_len;
  hudi_buf min_key;
  bool has_min; /* min_key holds the first key written or copied */
  uint64_t n;
  bool stats_group; /* a column_stats / partition_stats file group */
  bool si_group;    /* a secondary index's */
  uint64_t dropped; /* column-stats tombstones left out */
  /* Copying the base file's unchanged blocks (hudi_mdt_block_copy): the
   * bloom filter goes on from the base file's, with the new keys only. */
  bool copying;
  uint64_t base_avg_key_len, base_avg_value_len; /* its hfile.AVG_KEY_LEN / AVG_VALUE_LEN */
} base_writer;

static bool is_stats_partition(const char *p) { return !strcmp(p, "column_stats") || !strcmp(p, "partition_stats"); }
static bool is_secondary_partition(const char *p) { return !strncmp(p, "secondary_index_", 16); }

static bool typed_record(int32_t type) {
  return type == HUDI_MDT_TYPE_PARTITION_LIST || type == HUDI_MDT_TYPE_FILE_LIST || type == HUDI_MDT_TYPE_RECORD_INDEX;
}

/* A raw payload of another schema whose record type hudi_mdt_record_encode
 * cannot build from typed fields (column stats, ...): resolved into the
 * target schema by Avro's rules (fields by name, reader-only fields from
 * their defaults), meta fields nulled but _hoodie_file_name. */
static hudi_status payload_resolved(base_writer *b, const hudi_mdt_merged *r, hudi_error *err) {
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, HUDI_AVRO_ARENA_DEFAULT_MAX);
  hudi_avro_cursor cur;
  hudi_avro_cursor_init(&cur, r->value, r->value_len, 0, b->file_name);
  hudi_avro_value v;
  hudi_status st = hudi_avro_decode(&v, &a, r->schema, b->schema, &cur, err);
  if (st == HUDI_OK && hudi_avro_cursor_left(&cur) != 0)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata record '%.*s': %zu trailing bytes", (int)r->key_len,
                      (const char *)r->key, hudi_avro_cursor_left(&cur));
  static const char *const meta[HUDI_MDT_META_FIELDS] = {"_hoodie_commit_time", "_hoodie_commit_seqno",
                                                         "_hoodie_record_key", "_hoodie_partition_path",
                                                         "_hoodie_file_name"};
  for (int i = 0; st == HUDI_OK && i < HUDI_MDT_META_FIELDS; i++) {
    hudi_avro_value *f = hudi_avro_value_field(&v, meta[i]);
    if (!f) continue;
    st = i == 4 ? hudi_avro_value_set_string(f, &a, b->file_name, strlen(b->file_name), err)
                : hudi_avro_value_set_null(f, &a, err);
  }
  if (st == HUDI_OK) st = hudi_avro_encode(&v, &b->scratch, err);
  hudi_avro_arena_free(&a);
  return st;
}

/* b->head: the meta fields of a payload in the target schema, null but
 * _hoodie_file_name (union branch 1, the name). */
static void build_head(base_writer *b) {
  static const uint8_t nulls[5] = {0, 0, 0, 0, 2};
  size_t n = sizeof nulls, len = strlen(b->file_name);
  memcpy(b->head, nulls, n);
  for (uint64_t z = (uint64_t)len << 1; ; z >>= 7) { /* zigzag of a non-negative long */
    b->head[n++] = (uint8_t)((z & 0x7f) | (z > 0x7f ? 0x80 : 0));
    if (z <= 0x7f) break;
  }
  memcpy(b->head + n, b->file_name, len); /* the name is < 512 bytes (compact_group) */
  b->head_len = n + len;
}

/* Where a payload's own bytes start when b->head can replace its meta
 * fields: the value is raw in the target schema. */
static bool raw_tail(const base_writer *b, const hudi_mdt_merged *r, size_t *meta_end) {
  return !r->rec && r->schema == b->schema_node && b->std_layout &&
         hudi_mdt_payload_meta_end(r->value, r->value_len, meta_end);
}

/* The payload with _hoodie_file_name set and the other meta fields null,
 * as Hudi's compaction writes them, decoded and re-encoded (raw values in
 * the target schema take b->head instead: put_record). */
static hudi_status payload(base_writer *b, hudi_mdt_merged *r, hudi_error *err) {
  hudi_buf_reset(&b->scratch);
  hudi_mdt_record dec, *rec = r->rec;
  if (!rec && r->schema != b->schema_node) {
    int32_t type = 0;
    hudi_status st = hudi_mdt_record_decode(&dec, r->schema, (const char *)r->key, r->key_len, r->value,
                                            r->value_len, b->file_name, err);
    type = dec.type;
    hudi_mdt_record_free(&dec);
    HUDI_TRY(st);
    if (!typed_record(type)) return payload_resolved(b, r, err);
  }
  if (!rec) {
    hudi_status st = hudi_mdt_record_decode(&dec, r->schema, (const char *)r->key, r->key_len, r->value,
                                            r->value_len, b->file_name, err);
    if (st != HUDI_OK) {
      hudi_mdt_record_free(&dec);
      return st;
    }
    rec = &dec;
  }
  for (int i = 0; i < HUDI_MDT_META_FIELDS; i++) rec->meta[i] = NULL;
  rec->meta[4] = b->file_name;
  hudi_status st = hudi_mdt_record_encode(rec, b->schema, &b->scratch, err);
  if (rec == &dec) hudi_mdt_record_free(&dec);
  return st;
}

/* A secondary-index record's SecondaryIndexMetadata.isDeleted. */
static bool si_deleted(const hudi_mdt_record *r) {
  const hudi_avro_value *si = r->value ? hudi_avro_value_field(r->value, "SecondaryIndexMetadata") : NULL;
  si = si ? hudi_avro_value_unwrap(si) : NULL;
  const hudi_avro_value *d = si && si->node->type == HUDI_AVRO_RECORD ? hudi_avro_value_field(si, "isDeleted") : NULL;
  return d && d->node->type == HUDI_AVRO_BOOLEAN && d->v.boolean;
}

/* Whether r is a column-stats or secondary-index tombstone (isDeleted):
 * HoodieMetadataPayload reads it as a deleted record (getInsertValue is
 * empty), so compaction leaves it out, as it does a deleted record-index
 * key. */
static hudi_status is_tombstone(const base_writer *b, const hudi_mdt_merged *r, bool *out, hudi_error *err) {
  *out = false;
  if (!b->stats_group && !b->si_group) return HUDI_OK;
  if (r->rec) {
    *out = b->si_group ? si_deleted(r->rec) : r->rec->has_column_stats && r->rec->column_stats.is_deleted;
    return HUDI_OK;
  }
  hudi_mdt_record dec;
  hudi_status st = hudi_mdt_record_decode(&dec, r->schema, (const char *)r->key, r->key_len, r->value, r->value_len,
                                          b->file_name, err);
  if (st == HUDI_OK) *out = b->si_group ? si_deleted(&dec) : dec.has_column_stats && dec.column_stats.is_deleted;
  hudi_mdt_record_free(&dec);
  return st;
}

static hudi_status put_record(void *ctx, hudi_mdt_merged *r, hudi_error *err) {
  base_writer *b = ctx;
  bool dead;
  HUDI_TRY(is_tombstone(b, r, &dead, err));
  if (dead) {
    b->dropped++;
    return HUDI_OK;
  }
  size_t meta_end;
  if (raw_tail(b, r, &meta_end)) {
    HUDI_TRY(hudi_hfile_writer_append2(b->w, r->key, r->key_len, b->head, b->head_len, r->value + meta_end,
                                       r->value_len - meta_end, err));
  } else {
    HUDI_TRY(payload(b, r, err));
    HUDI_TRY(hudi_hfile_writer_append(b->w, r->key, r->key_len, b->scratch.data, b->scratch.len, err));
  }
  /* Copying, the bloom filter already holds every key of the base file. */
  if (!b->copying || r->insert) HUDI_TRY(hudi_bloom_add(&b->bloom, r->key, r->key_len, err));
  /* The max key is the writer's last key (keys come in order). */
  if (!b->has_min) HUDI_TRY(hudi_buf_append(&b->min_key, r->key, r->key_len, err));
  b->has_min = true;
  b->n++;
  return HUDI_OK;
}

/* hfile.AVG_KEY_LEN / AVG_VALUE_LEN of r: an i32 (0 when absent). */
static uint64_t file_info_i32(hudi_hfile_reader *r, const char *name) {
  const uint8_t *v;
  size_t n;
  return hudi_hfile_reader_file_info(r, name, &v, &n) && n == 4 ? hudi_be32(v) : 0;
}

/* Whether the base file's blocks may be copied: only when its bloom filter
 * can go on as the writer of its keys left it (hudi_bloom_resume), since a
 * copied block's keys are not seen again. The filter then takes the new
 * keys only; keys the logs delete stay in it, which a bloom filter allows
 * (it may only err towards "might contain"). */
static bool accept_base(void *ctx, hudi_hfile_reader *r) {
  base_writer *b = ctx;
  hudi_buf text;
  hudi_buf_init(&text, (size_t)1 << 30);
  bool found = false;
  hudi_error ignored = HUDI_ERROR_INIT;
  hudi_bloom old;
  bool ok = hudi_hfile_reader_meta_block(r, "bloomFilter", &text, &found, &ignored) == HUDI_OK && found &&
            hudi_bloom_deserialize(&old, (const char *)text.data, text.len, true, &ignored) == HUDI_OK;
  if (ok) {
    int64_t keys = (int64_t)(old.n_rows > 0 ? old.n_rows - 1 : 0) * old.nr + old.current;
    hudi_bloom_free(&old);
    hudi_bloom_cfg cfg = {true, true, HUDI_MDT_BLOOM_ENTRIES, HUDI_BLOOM_DEFAULT_MAX_ENTRIES, HUDI_MDT_BLOOM_FPP};
    hudi_bloom resumed;
    ok = hudi_bloom_resume(&resumed, (const char *)text.data, text.len, &cfg, keys);
    if (ok) {
      hudi_bloom_free(&b->bloom);
      b->bloom = resumed;
    }
  }
  hudi_buf_free(&text);
  if (!ok) return false;
  b->copying = true;
  b->base_avg_key_len = file_info_i32(r, "hfile.AVG_KEY_LEN");
  b->base_avg_value_len = file_info_i32(r, "hfile.AVG_VALUE_LEN");
  return true;
}

/* An unchanged base block, copied as it is (its records keep the
 * _hoodie_file_name of the base file they were compacted into: readers
 * take nothing from it). */
static hudi_status copy_block(void *ctx, const uint8_t *block, size_t len, const uint8_t *first, size_t first_len,
                              const uint8_t *last, size_t last_len, hudi_error *err) {
  base_writer *b = ctx;
  if (!b->has_min) HUDI_TRY(hudi_buf_append(&b->min_key, first, first_len, err));
  b->has_min = true;
  return hudi_hfile_writer_copy_block(b->w, block, len, first, first_len, last, last_len, err);
}

static hudi_status add_stat(compact_ctx *c, const op *o, const char *rel, size_t size,
                            const hudi_mdt_merge_counts *k, hudi_error *err) {
  hudi_write_stat *ws;
  hudi_commit_metadata *m = c->meta;
  HUDI_TRY(hudi_commit_metadata_add_stat(m, o->g->partition, &ws, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, o->g->file_id, &ws->file_id, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, rel, &ws->path, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, o->slice->base ? o->slice->base_instant : "null", &ws->prev_commit, err));
  HUDI_TRY(hudi_commit_metadata_strdup(m, o->g->partition, &ws->partition_path, err));
  if (o->slice->base)
    HUDI_TRY(hudi_commit_metadata_strdup(m, file_name_of(o->slice->base->path), &ws->prev_base_file, err));
  /* The counters Spark's compactor reports ([F9]). */
  ws->num_writes = (hudi_tl_long){(int64_t)k->written, 1};
  ws->num_deletes = (hudi_tl_long){(int64_t)k->deletes, 1};
  ws->num_update_writes = (hudi_tl_long){(int64_t)k->updates, 1};
  ws->num_inserts = (hudi_tl_long){(int64_t)k->inserts, 1};
  ws->total_write_bytes = ws->file_size_in_bytes = (hudi_tl_long){(int64_t)size, 1};
  ws->total_log_records = (hudi_tl_long){(int64_t)k->log_records, 1};
  ws->total_updated_records_compacted = (hudi_tl_long){(int64_t)(k->updates + k->inserts), 1};
  ws->total_log_blocks = (hudi_tl_long){(int64_t)k->log_blocks, 1};
  ws->total_log_files_compacted = (hudi_tl_long){(int64_t)o->n_logs, 1};
  ws->total_log_size_compacted = (hudi_tl_long){(int64_t)o->log_bytes, 1};
  hudi_write_stat_zero_unset(ws);
  return HUDI_OK;
}

/* What one group's compaction produced, recorded in the commit metadata
 * afterwards in plan order (groups run on pool threads). */
typedef struct group_job {
  size_t len;
  uint64_t records;
  uint64_t blocks_copied; /* summed into the result after the pool (no shared counter) */
  hudi_mdt_merge_counts k;
  char rel[640];
} group_job;

/* MDT handles for the pool threads: the first is the compaction's own,
 * the others are its siblings made on demand (same MDT state, read-only;
 * the payload-schema cache, the one part a slice merge changes, is the
 * first handle's, shared under its lock; the storage is thread-safe). */
#define MDT_HANDLES_MAX 8
typedef struct spare_buf {
  uint8_t *data;
  size_t cap;
} spare_buf;
typedef struct mdt_handles {
  pthread_mutex_t mu;
  hudi_table *t;
  hudi_mdt *h[MDT_HANDLES_MAX];
  bool busy[MDT_HANDLES_MAX];
  size_t n;
  /* The last HFile a slot's group wrote, kept for the slot's next group
   * to write into (hudi_hfile_writer_use_buffer): its pages are faulted
   * in already (fresh pages' zeroing was ~5% of a record-index compaction). */
  spare_buf spare[MDT_HANDLES_MAX];
} mdt_handles;

static hudi_status handle_take(mdt_handles *hs, size_t *slot, hudi_error *err) {
  pthread_mutex_lock(&hs->mu);
  size_t i = 0;
  while (i < hs->n && hs->busy[i]) i++;
  hudi_status st = HUDI_OK;
  if (i == hs->n) {
    if (hs->n == MDT_HANDLES_MAX)
      st = hudi_err_set(err, HUDI_ERR_INTERNAL, "more than %d metadata compaction threads", MDT_HANDLES_MAX);
    else if ((st = hudi_mdt_open_sibling(&hs->h[i], hs->h[0], err)) == HUDI_OK)
      hs->n++;
  }
  if (st == HUDI_OK) {
    hs->busy[i] = true;
    *slot = i;
  }
  pthread_mutex_unlock(&hs->mu);
  return st;
}

static void handle_give(mdt_handles *hs, size_t slot) {
  pthread_mutex_lock(&hs->mu);
  hs->busy[slot] = false;
  pthread_mutex_unlock(&hs->mu);
}

static hudi_status compact_group(compact_ctx *c, hudi_mdt *m, const op *o, group_job *j, spare_buf *spare,
                                 hudi_error *err) {
  char name[512], path[768];
  snprintf(name, sizeof name, "%s_%s_%s.hfile", o->g->file_id, HUDI_MDT_WRITE_TOKEN, c->instant);
  snprintf(j->rel, sizeof j->rel, "%s/%s", o->g->partition, name);
  snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_BASE, j->rel);
  base_writer b;
  memset(&b, 0, sizeof b);
  b.schema = c->schema->root;
  b.file_name = name;
  b.stats_group = is_stats_partition(o->g->partition);
  b.si_group = is_secondary_partition(o->g->partition);
  hudi_buf_init(&b.scratch, HUDI_MDT_MAX_PAYLOAD);
  hudi_buf_init(&b.min_key, 1 << 16);
  build_head(&b);
  hudi_status st =
      hudi_bloom_init(&b.bloom, HUDI_MDT_BLOOM_ENTRIES, HUDI_MDT_BLOOM_FPP, HUDI_BLOOM_DEFAULT_MAX_ENTRIES, err);
  if (st == HUDI_OK) st = hudi_mdt_schema(m, c->schema_json, c->schema_len, &b.schema_node, err);
  if (st == HUDI_OK) b.std_layout = hudi_mdt_standard_layout(b.schema_node);
  bool index_cells = b.si_group || strcmp(o->g->partition, HUDI_MDT_RECORD_INDEX) == 0;
  if (st == HUDI_OK) st = hudi_mdt_w_hfile_open(&b.w, c->schema_json, c->schema_len, &c->wo, index_cells, err);
  if (st == HUDI_OK && spare->data) {
    hudi_hfile_writer_use_buffer(b.w, spare->data, spare->cap); /* the writer's now */
    *spare = (spare_buf){NULL, 0};
  }
  hudi_mdt_merge_counts k = {0};
  hudi_mdt_block_copy copy = {copy_block, &b, b.schema_node, accept_base, 0, 0};
  if (st == HUDI_OK)
    st = hudi_mdt_slice_merge(m, o->slice->base, o->logs, o->n_logs, put_record, &b, c->copy_blocks ? &copy : NULL,
                              &k, NULL, err);
  /* The copied blocks' records, their key and value bytes from the base
   * file's averages (hfile.AVG_* are informational: HBase sizes with them). */
  if (st == HUDI_OK && copy.records) {
    hudi_hfile_writer_add_copied(b.w, copy.records, copy.records * b.base_avg_key_len,
                                 copy.records * b.base_avg_value_len);
    b.n += copy.records;
  }
  j->blocks_copied = copy.blocks;
  uint8_t *bytes = NULL;
  size_t len = 0;
  if (st == HUDI_OK) st = hudi_mdt_w_base_finish(b.w, &b.bloom, b.min_key.data, b.min_key.len, &bytes, &len, err);
  if (st == HUDI_OK) st = hudi_storage_write(c->t->storage, path, bytes, len, 0, err);
  /* Tombstones left out count as deletes, as Java's compactor counts
   * records its merge drops. */
  k.written -= b.dropped;
  k.deletes += b.dropped;
  j->len = len;
  j->records = b.n;
  j->k = k;
  if (st != HUDI_OK) hudi_err_context(err, st, "compacting metadata file group %s/%s", o->g->partition, o->g->file_id);
  if (bytes && !spare->data) *spare = (spare_buf){bytes, len + 1}; /* finish NUL-terminates: len + 1 are ours */
  else hudi_free(bytes);
  hudi_hfile_writer_free(b.w);
  hudi_bloom_free(&b.bloom);
  hudi_buf_free(&b.scratch);
  hudi_buf_free(&b.min_key);
  return st;
}

typedef struct groups_run {
  compact_ctx *c;
  mdt_handles hs;
  group_job *jobs;
} groups_run;

static hudi_status exec_group(void *ctx, size_t i, hudi_error *err) {
  groups_run *r = ctx;
  size_t slot;
  HUDI_TRY(handle_take(&r->hs, &slot, err));
  hudi_status st = compact_group(r->c, r->hs.h[slot], &r->c->ops[i], &r->jobs[i], &r->hs.spare[slot], err);
  handle_give(&r->hs, slot);
  return st;
}

/* Groups compacted at once: the cores, up to 4 (each holds one group's
 * merged records and HFile); a record-index shard is independent of the
 * others, so this divides the compaction's wall time by the cores. */
static int group_threads(const hudi_mdt_compact_options *o, size_t n_ops) {
  int v = o->parallelism > 0 ? o->parallelism : (hudi_cpu_count() < 4 ? hudi_cpu_count() : 4);
  if (v > MDT_HANDLES_MAX) v = MDT_HANDLES_MAX;
  if ((size_t)v > n_ops) v = n_ops ? (int)n_ops : 1;
  return v;
}

static hudi_status compact_groups(compact_ctx *c, const hudi_mdt_compact_options *o, hudi_error *err) {
  groups_run r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.hs.t = c->t;
  r.hs.h[0] = c->m;
  r.hs.n = 1;
  r.jobs = hudi_calloc(c->n_ops, sizeof *r.jobs);
  if (!r.jobs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory compacting the metadata table");
  pthread_mutex_init(&r.hs.mu, NULL);
  int threads = group_threads(o, c->n_ops);
  /* The groups already use the cores: no compression thread per HFile
   * (nor in the background, which leaves the cores to the writes). */
  if (threads > 1 || o->single_core) c->wo.hfile_compress_threads = 1;
  /* The caller's thread is one of the workers. */
  hudi_threadpool *pool = NULL;
  hudi_status st = threads > 1 ? hudi_threadpool_create(&pool, threads - 1, err) : HUDI_OK;
  if (st == HUDI_OK) st = hudi_parallel_for(pool, c->n_ops, exec_group, &r, err);
  hudi_threadpool_free(pool);
  for (size_t i = 0; st == HUDI_OK && i < c->n_ops; i++) {
    const group_job *j = &r.jobs[i];
    st = add_stat(c, &c->ops[i], j->rel, j->len, &j->k, err);
    c->res->file_groups++;
    c->res->log_files += c->ops[i].n_logs;
    c->res->records += j->records;
    c->res->blocks_copied += j->blocks_copied;
    c->res->bytes_written += j->len;
  }
  for (size_t i = 1; i < r.hs.n; i++) hudi_mdt_free(r.hs.h[i]);
  for (size_t i = 0; i < r.hs.n; i++) hudi_free(r.hs.spare[i].data);
  pthread_mutex_destroy(&r.hs.mu);
  hudi_free(r.jobs);
  return st;
}

/* ---- the steps: prepare, schedule, execute, finish ---- */

/* Whether the MDT is one compacted here (see run_inline). */
static bool compactable(compact_ctx *c) {
  /* Only MDTs of the partitions hudi-c maintains: files, record_index,
   * and column_stats / partition_stats of the tables it keeps them for
   * (version 9). There every record of one key that Java would merge has
   * the newer replacing the older (file names are unique, and from table
   * version 8 on a log file is written by one commit whose stats the
   * writer merged into one record, so two column_stats records of one key
   * are a record and its tombstone; partition_stats are tight bounds), as
   * the slice merge does; tombstones are then dropped (put_record). So do
   * the secondary indexes hudi-c keeps (newer replaces older; removals are
   * DELETE blocks), and bloom_filters (a record per base file, written
   * once; a clean's DELETE blocks remove it). Other partitions (expression
   * indexes, secondary indexes hudi-c cannot keep) are left alone. */
  size_t n_groups;
  const hudi_file_group *groups = hudi_mdt_all_groups(c->m, &n_groups);
  hudi_si_defs si; /* the secondary indexes hudi-c keeps (mdt_secondary_index.h) */
  bool si_loaded = hudi_si_defs_load(&si, c->t, NULL) == HUDI_OK;
  bool ok = true;
  for (size_t i = 0; ok && i < n_groups; i++) {
    const char *p = groups[i].partition;
    if (!listed(c, p)) continue;
    bool kept_si = false;
    for (size_t k = 0; si_loaded && is_secondary_partition(p) && k < si.n; k++)
      kept_si = kept_si || !strcmp(si.items[k].partition, p);
    ok = !strcmp(p, "files") || !strcmp(p, "record_index") || (is_stats_partition(p) && hudi_cs_supported(c->t)) ||
         (!strcmp(p, "bloom_filters") && hudi_bf_maintains(c->t)) || kept_si;
  }
  if (si_loaded) hudi_si_defs_free(&si);
  if (!ok) return false;
  /* Table version 6 (timeline layout 1) names files after base instants
   * and keeps its timeline elsewhere: not compacted here. */
  return hudi_mdt_table(c->m)->layout == 2;
}

/* The write options and schema of the new base files. */
static hudi_status setup(compact_ctx *c, const hudi_mdt_compact_options *o, hudi_error *err) {
  int version = hudi_mdt_table(c->m)->version;
  c->wo.table_version = version == 9 ? 9 : 8;
  c->wo.hfile_block_size = o->hfile_block_size;
  c->wo.hfile_create_time_ms = o->hfile_create_time_ms;
  c->wo.timeline_utc_offset_minutes = hudi_table_timeline_offset_minutes(c->t);
  hudi_mdt_write_options resolved;
  HUDI_TRY(hudi_mdt_w_resolve(&resolved, &c->wo, err));
  c->wo = resolved;
  c->schema_json = hudi_mdt_schema_json(c->wo.table_version, &c->schema_len);
  return hudi_mdt_w_schema(&c->schema, c->wo.table_version, err);
}

/* Undoes every compaction pending on MDT timeline tl but keep (nullable;
 * *kept tells whether it is pending); *undone tells whether any was. */
static hudi_status undo_pending_but(hudi_storage *s, const hudi_timeline *tl, const char *keep, bool *kept,
                                    bool *undone, hudi_error *err) {
  *kept = *undone = false;
  for (size_t i = 0; i < tl->count; i++) {
    const hudi_instant *x = &tl->items[i];
    if (is_completed(x) || strcmp(x->action, "compaction") != 0) continue;
    if (keep && keep[0] && !strcmp(x->requested_time, keep)) {
      *kept = true;
      continue;
    }
    HUDI_TRY(undo_pending(s, x->requested_time, err));
    *undone = true;
  }
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_undo_all_pending(hudi_table *t, hudi_error *err) {
  hudi_timeline tl;
  memset(&tl, 0, sizeof tl);
  hudi_status st = hudi_timeline_load(&tl, t->storage, HUDI_MDT_W_BASE, 2, err);
  if (st == HUDI_ERR_NOT_FOUND) {
    hudi_error_clear(err);
    return HUDI_OK;
  }
  bool kept, undone = false;
  if (st == HUDI_OK) st = undo_pending_but(t->storage, &tl, NULL, &kept, &undone, err);
  hudi_timeline_free(&tl);
  if (undone) hudi_mdt_share_invalidate(t);
  return st;
}

/* Reloads the timeline, opens the MDT and undoes pending compactions but
 * keep's; *ok false when the MDT is not one compacted here, *kept true when
 * keep is pending. */
static hudi_status prepare(compact_ctx *c, const char *keep, bool *ok, bool *kept, hudi_error *err) {
  hudi_table *t = c->t;
  *ok = *kept = false;
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  /* Within a write: its handle, refreshed when anything moved since. */
  HUDI_TRY(hudi_mdt_acquire(&c->m, t, err));
  if (!compactable(c)) return HUDI_OK;
  *ok = true;
  const hudi_timeline *tl = &hudi_mdt_table(c->m)->timeline;
  /* runAnyPendingCompactions: ours undoes one a crash (or another
   * process) left and plans anew; the one the handle's own background
   * thread runs (keep) is left alone. */
  bool undone = false;
  HUDI_TRY(undo_pending_but(t->storage, tl, keep, kept, &undone, err));
  if (undone) {
    hudi_mdt_share_invalidate(t);
    hudi_mdt_release(t, c->m);
    c->m = NULL;
    HUDI_TRY(hudi_mdt_acquire(&c->m, t, err));
  }
  return HUDI_OK;
}

/* When due, picks C, plans and writes C.compaction.requested + inflight;
 * c->instant stays "" otherwise. */
static hudi_status schedule(compact_ctx *c, const hudi_mdt_compact_options *o, hudi_error *err) {
  const hudi_timeline *tl = &hudi_mdt_table(c->m)->timeline;
  c->res->delta_commits = delta_commits_since(tl);
  int32_t max = o->max_delta_commits > 0 ? o->max_delta_commits : HUDI_MDT_DEFAULT_MAX_DELTA_COMMITS;
  bool share = o->incremental && !o->force && !c->refresh;
  bool due = o->force || c->refresh || (share ? share_due(c, o, max) : c->res->delta_commits >= (size_t)max);
  if (!due) return HUDI_OK;
  char instant[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(pick_instant(c->t, tl, instant, err));
  if (hudi_timeline_find(tl, instant)) return HUDI_OK; /* already there (compactIfNecessary) */
  memcpy(c->instant, instant, sizeof instant);
  HUDI_TRY(plan_ops(c, o->incremental, err));
  if (share) HUDI_TRY(keep_share(c, max, share_groups(o), err));
  if (c->n_ops == 0) {
    c->instant[0] = '\0';
    return HUDI_OK;
  }
  HUDI_TRY(setup(c, o, err));
  return write_plan(c, err);
}

/* Merges the planned slices into the new base files (no lock needed: the
 * plan's files never change). */
static hudi_status execute(compact_ctx *c, const hudi_mdt_compact_options *o, hudi_error *err) {
  HUDI_TRY(hudi_mdt_w_commit_metadata(&c->meta, "COMPACT", c->schema_json, err));
  c->meta->compacted = (hudi_tl_bool){1, 1};
  c->copy_blocks = !o->rebuild_blocks;
  return compact_groups(c, o, err);
}

/* C_<completion>.commit. */
static hudi_status finish(compact_ctx *c, hudi_error *err) {
  char done[HUDI_INSTANT_TIME_BUF];
  HUDI_TRY(hudi_mdt_w_completion(c->t->storage, &c->wo, c->instant, done, err));
  hudi_buf avro;
  hudi_buf_init(&avro, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_commit_metadata_to_avro(c->meta, NULL, &avro, err);
  if (st == HUDI_OK)
    st = hudi_mdt_w_instant_action(c->t->storage, c->instant, done, "compaction", HUDI_INSTANT_COMPLETED, avro.data,
                                   avro.len, err);
  hudi_buf_free(&avro);
  HUDI_TRY(st);
  memcpy(c->res->instant, c->instant, HUDI_INSTANT_TIME_BUF);
  memcpy(c->res->completion_time, done, HUDI_INSTANT_TIME_BUF);
  return HUDI_OK;
}

static hudi_status run_inline(compact_ctx *c, const hudi_mdt_compact_options *o, const char *keep, hudi_error *err) {
  bool ok, kept;
  HUDI_TRY(prepare(c, keep, &ok, &kept, err));
  /* While the handle's own background compaction is pending, nothing
   * else is planned (its groups would plan nothing anyway). */
  if (!ok || kept) return HUDI_OK;
  HUDI_TRY(schedule(c, o, err));
  if (!c->instant[0]) return HUDI_OK;
  hudi_status st = execute(c, o, err);
  if (st != HUDI_OK) {
    /* Undone now rather than by the next attempt: the base files other
     * groups finished would stay in the partitions until then. A failure
     * of the undo itself leaves it to that attempt (the error stays the
     * compaction's). */
    hudi_error ignored = HUDI_ERROR_INIT;
    if (undo_pending(c->t->storage, c->instant, &ignored) == HUDI_OK) hudi_mdt_share_invalidate(c->t);
    return st;
  }
  return finish(c, err);
}

static void ctx_init(compact_ctx *c, hudi_table *t, hudi_mdt_compact_result *res) {
  memset(c, 0, sizeof *c);
  c->t = t;
  c->res = res;
  memset(c->res, 0, sizeof *c->res);
  hudi_mdt_write_options wo = HUDI_MDT_WRITE_OPTIONS_INIT;
  c->wo = wo;
}

static void ctx_free(compact_ctx *c) {
  ops_free(c);
  hudi_commit_metadata_free(c->meta);
  hudi_avro_schema_free(c->schema);
  hudi_mdt_release(c->t, c->m); /* the write's shared handle stays */
  c->meta = NULL;
  c->schema = NULL;
  c->m = NULL;
}

static hudi_status compact_keeping(hudi_table *t, const hudi_mdt_compact_options *opts, const char *keep,
                                   const char *refresh_through, hudi_mdt_compact_result *result, hudi_error *err) {
  hudi_mdt_compact_result dummy;
  hudi_mdt_compact_options d = HUDI_MDT_COMPACT_OPTIONS_INIT;
  compact_ctx c;
  ctx_init(&c, t, result ? result : &dummy);
  c.refresh = refresh_through != NULL;
  c.refresh_through = refresh_through;
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  hudi_status st = run_inline(&c, opts ? opts : &d, keep, err);
  if (c.instant[0]) hudi_mdt_share_invalidate(t); /* a plan or a commit was written */
  ctx_free(&c);
  if (st != HUDI_OK) c.res->instant[0] = c.res->completion_time[0] = '\0';
  return st;
}

hudi_status hudi_mdt_compact(hudi_table *t, const hudi_mdt_compact_options *opts, hudi_mdt_compact_result *result,
                             hudi_error *err) {
  return compact_keeping(t, opts, NULL, NULL, result, err);
}

hudi_status hudi_mdt_compact_refresh(hudi_table *t, const char *through, const hudi_mdt_compact_options *opts,
                                     hudi_mdt_compact_result *result, hudi_error *err) {
  hudi_mdt_compact_options o = HUDI_MDT_COMPACT_OPTIONS_INIT;
  if (opts) o = *opts;
  o.force = false;
  /* Not beside the handle's background compaction (it would be undone). */
  char keep[HUDI_INSTANT_TIME_BUF];
  hudi_mdt_compact_async_running(keep, t);
  if (keep[0]) {
    if (result) memset(result, 0, sizeof *result);
    return HUDI_OK;
  }
  return compact_keeping(t, &o, NULL, through ? through : "", result, err);
}

/* ---- the steps of a background compaction (mdt_compact_async.h) ---- */

struct hudi_mdt_compact_job {
  compact_ctx c;
  hudi_mdt_compact_options o;
  hudi_mdt_compact_result res;
};

void hudi_mdt_compact_job_free(hudi_mdt_compact_job *j) {
  if (!j) return;
  ctx_free(&j->c);
  hudi_free(j);
}

static hudi_status job_new(hudi_mdt_compact_job **out, hudi_table *t, const hudi_mdt_compact_options *o,
                           hudi_error *err) {
  hudi_mdt_compact_job *j = hudi_calloc(1, sizeof *j);
  if (!j) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  ctx_init(&j->c, t, &j->res);
  hudi_mdt_compact_options d = HUDI_MDT_COMPACT_OPTIONS_INIT;
  j->o = o ? *o : d;
  *out = j;
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_schedule(char instant[HUDI_INSTANT_TIME_BUF], hudi_table *t,
                                      const hudi_mdt_compact_options *o, const char *keep, hudi_error *err) {
  instant[0] = '\0';
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  hudi_mdt_compact_job *j;
  HUDI_TRY(job_new(&j, t, o, err));
  bool ok, kept;
  hudi_status st = prepare(&j->c, keep, &ok, &kept, err);
  if (st == HUDI_OK && ok && !kept) st = schedule(&j->c, &j->o, err);
  if (st == HUDI_OK) memcpy(instant, j->c.instant, HUDI_INSTANT_TIME_BUF);
  if (j->c.instant[0]) hudi_mdt_share_invalidate(t);
  hudi_mdt_compact_job_free(j);
  return st;
}

/* The slice of group g the plan's operation x compacts, with the plan's
 * log files, as an op. */
static hudi_status op_from_plan(compact_ctx *c, const hudi_compaction_operation *x, hudi_error *err) {
  size_t n_groups;
  const hudi_file_group *groups = hudi_mdt_all_groups(c->m, &n_groups);
  const hudi_file_group *g = NULL;
  for (size_t i = 0; i < n_groups && !g; i++)
    if (x->partition_path && x->file_id && !strcmp(groups[i].partition, x->partition_path) &&
        !strcmp(groups[i].file_id, x->file_id))
      g = &groups[i];
  const hudi_file_slice *s = g && x->base_instant_time ? hudi_file_group_slice_at(g, x->base_instant_time) : NULL;
  if (!s)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata compaction %s: no slice %s of file group %s/%s", c->instant,
                        x->base_instant_time ? x->base_instant_time : "?", x->partition_path ? x->partition_path : "?",
                        x->file_id ? x->file_id : "?");
  const char *base = x->data_file_path;
  if ((base != NULL) != (s->base != NULL) || (base && strcmp(base, file_name_of(s->base->path)) != 0))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata compaction %s: base file of %s/%s differs from its plan",
                        c->instant, g->partition, g->file_id);
  op *o = &c->ops[c->n_ops];
  char **names = x->delta_file_paths.items;
  size_t n = x->delta_file_paths.n;
  o->logs = hudi_calloc(n ? n : 1, sizeof *o->logs);
  if (!o->logs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  c->n_ops++;
  /* The plan's logs in the slice's (Hudi's) order. */
  for (size_t k = 0; k < s->n_logs; k++)
    for (size_t q = 0; q < n; q++)
      if (names[q] && !strcmp(names[q], s->logs[k].file_name)) {
        o->logs[o->n_logs++] = s->logs[k];
        o->log_bytes += s->logs[k].size;
        break;
      }
  if (o->n_logs != n)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "metadata compaction %s: %zu of the %zu log files of %s/%s planned are "
                        "missing", c->instant, n - o->n_logs, n, g->partition, g->file_id);
  o->g = g;
  o->slice = s;
  return HUDI_OK;
}

static hudi_status ops_from_plan(compact_ctx *c, hudi_error *err) {
  char name[128], path[256];
  if (hudi_instant_file_name(name, sizeof name, c->instant, "", "compaction", HUDI_INSTANT_REQUESTED, 2) < 0)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "compaction instant file name for %s", c->instant);
  snprintf(path, sizeof path, "%s/%s", HUDI_MDT_W_TIMELINE, name);
  hudi_buf data;
  hudi_buf_init(&data, (size_t)1 << 30);
  hudi_compaction_plan *p = NULL;
  hudi_status st = hudi_storage_read_all(c->t->storage, path, (size_t)1 << 30, &data, err);
  if (st == HUDI_OK) st = hudi_compaction_plan_parse(&p, data.data, data.len, path, err);
  hudi_buf_free(&data);
  if (st == HUDI_OK) {
    c->ops = hudi_calloc(p->operations.n ? p->operations.n : 1, sizeof *c->ops);
    if (!c->ops) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  const hudi_compaction_operation *xs = p ? p->operations.items : NULL;
  for (size_t i = 0; st == HUDI_OK && i < p->operations.n; i++) st = op_from_plan(c, &xs[i], err);
  hudi_compaction_plan_free(p);
  return st;
}

/* Whether C is still pending on the MDT timeline (requested or inflight,
 * not completed): a crash recovery of another writer may have undone it,
 * or a Java writer finished it itself. */
static hudi_status still_pending(bool *out, hudi_table *t, const char *instant, hudi_error *err) {
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(t->storage, HUDI_MDT_W_TIMELINE, 0, &list, err));
  size_t n = strlen(instant);
  bool pending = false, done = false;
  for (size_t i = 0; i < list.count; i++) {
    const char *name = file_name_of(list.items[i].path);
    if (strncmp(name, instant, n) != 0) continue;
    if (name[n] == '_') done = true;
    else if (!strcmp(name + n, ".compaction.requested") || !strcmp(name + n, ".compaction.inflight")) pending = true;
  }
  hudi_file_list_free(&list);
  *out = pending && !done;
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_begin(hudi_mdt_compact_job **out, hudi_table *t, const char *instant,
                                   const hudi_mdt_compact_options *o, hudi_error *err) {
  *out = NULL;
  hudi_mdt_compact_job *j;
  HUDI_TRY(job_new(&j, t, o, err));
  compact_ctx *c = &j->c;
  snprintf(c->instant, sizeof c->instant, "%s", instant);
  bool pending = false;
  hudi_status st = hudi_write_reload_timeline(t, err);
  if (st == HUDI_OK) st = still_pending(&pending, t, instant, err);
  if (st == HUDI_OK && pending) st = hudi_mdt_open(&c->m, t, err);
  if (st == HUDI_OK && pending) st = ops_from_plan(c, err);
  if (st == HUDI_OK && pending) st = setup(c, &j->o, err);
  if (st != HUDI_OK || !pending) {
    hudi_mdt_compact_job_free(j);
    if (st != HUDI_OK) hudi_err_context(err, st, "starting metadata compaction %s", instant);
    return st;
  }
  *out = j;
  return HUDI_OK;
}

hudi_status hudi_mdt_compact_execute(hudi_mdt_compact_job *j, hudi_error *err) {
  hudi_status st = execute(&j->c, &j->o, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "metadata compaction %s", j->c.instant);
  return st;
}

/* The base files this compaction wrote, deleted (C was undone or
 * finished by another writer meanwhile). */
static hudi_status drop_outputs(compact_ctx *c, hudi_error *err) {
  char suffix[64];
  snprintf(suffix, sizeof suffix, "_%s_%s.hfile", HUDI_MDT_WRITE_TOKEN, c->instant);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_ops; i++) {
    char path[768];
    snprintf(path, sizeof path, "%s/%s/%s%s", HUDI_MDT_W_BASE, c->ops[i].g->partition, c->ops[i].g->file_id, suffix);
    st = hudi_storage_delete(c->t->storage, path, HUDI_DELETE_MISSING_OK, err);
  }
  return st;
}

hudi_status hudi_mdt_compact_finish(hudi_mdt_compact_job *j, hudi_mdt_compact_result *result, hudi_error *err) {
  compact_ctx *c = &j->c;
  bool pending;
  hudi_status st = still_pending(&pending, c->t, c->instant, err);
  if (st == HUDI_OK && !pending) st = drop_outputs(c, err);
  else if (st == HUDI_OK) st = finish(c, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "completing metadata compaction %s", c->instant);
  if (result) *result = st == HUDI_OK ? j->res : (hudi_mdt_compact_result){0};
  return st;
}

/* ---- the post-commit hook ---- */

static const char *option(const hudi_table *t, const hudi_option *opts, size_t n, const char *key,
                          const char *alias) {
  for (size_t i = n; i-- > 0;)
    if (opts[i].key && opts[i].value && (!strcmp(opts[i].key, key) || (alias && !strcmp(opts[i].key, alias))))
      return opts[i].value;
  const char *v = hudi_props_get(&t->options, key);
  if (!v && alias) v = hudi_props_get(&t->options, alias);
  return v;
}

static hudi_status int_option(const hudi_table *t, const hudi_option *opts, size_t n, const char *key,
                              const char *alias, int32_t *out, hudi_error *err) {
  const char *v = option(t, opts, n, key, alias);
  if (!v) return HUDI_OK;
  int64_t x;
  HUDI_TRY(hudi_option_parse_int(key, v, 1, 1000000, &x, err));
  *out = (int32_t)x;
  return HUDI_OK;
}

hudi_status hudi_mdt_services_options_get(hudi_mdt_services_options *out, const hudi_table *t, const hudi_option *opts,
                                      size_t n, hudi_error *err) {
  hudi_mdt_clean_options co = HUDI_MDT_CLEAN_OPTIONS_INIT;
  hudi_mdt_compact_options mo = HUDI_MDT_COMPACT_OPTIONS_INIT;
  out->clean = co;
  out->compact = mo;
  HUDI_TRY(int_option(t, opts, n, "hoodie.clean.commits.retained", "hoodie.cleaner.commits.retained",
                      &out->clean.data_commits_retained, err));
  HUDI_TRY(int_option(t, opts, n, "hoodie.metadata.compact.max.delta.commits", NULL,
                      &out->compact.max_delta_commits, err));
  const char *policy = option(t, opts, n, "hoodie.clean.policy", "hoodie.cleaner.policy");
  out->clean.by_hours = policy && !strcasecmp(policy, "KEEP_LATEST_BY_HOURS");
  if (out->clean.by_hours) {
    const char *h = option(t, opts, n, "hoodie.clean.hours.retained", "hoodie.cleaner.hours.retained");
    int64_t x = 24;
    if (h) HUDI_TRY(hudi_option_parse_int("hoodie.clean.hours.retained", h, 0, 1000000, &x, err));
    out->clean.data_hours_retained = (int32_t)x;
  }
  out->clean.by_versions = policy && !strcasecmp(policy, "KEEP_LATEST_FILE_VERSIONS");
  if (out->clean.by_versions) {
    const char *v = option(t, opts, n, "hoodie.clean.fileversions.retained", "hoodie.cleaner.fileversions.retained");
    int64_t x = 3;
    if (v) HUDI_TRY(hudi_option_parse_int("hoodie.clean.fileversions.retained", v, 1, 1000000, &x, err));
    out->clean.data_versions_retained = (int32_t)x;
  }
  out->clean_enabled = !policy || !strcasecmp(policy, "KEEP_LATEST_COMMITS") || out->clean.by_hours ||
                       out->clean.by_versions;
  const char *a = option(t, opts, n, HUDI_MDT_COMPACT_ASYNC_OPTION, NULL);
  out->async = a && !strcmp(a, "true");
  const char *inc = option(t, opts, n, HUDI_MDT_COMPACT_INCREMENTAL_OPTION, NULL);
  if (inc && strcmp(inc, "true") && strcmp(inc, "false"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'",
                        HUDI_MDT_COMPACT_INCREMENTAL_OPTION, inc);
  out->compact.incremental = inc && !strcmp(inc, "true");
  out->clean.incremental_compaction = out->compact.incremental;
  const char *cb = option(t, opts, n, HUDI_MDT_COMPACT_COPY_BLOCKS_OPTION, NULL);
  if (cb && strcmp(cb, "true") && strcmp(cb, "false"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s must be true or false, not '%s'",
                        HUDI_MDT_COMPACT_COPY_BLOCKS_OPTION, cb);
  out->compact.rebuild_blocks = cb && !strcmp(cb, "false");
  int32_t par = 1; /* leave a core to the writer */
  HUDI_TRY(int_option(t, opts, n, HUDI_MDT_COMPACT_ASYNC_PARALLELISM_OPTION, NULL, &par, err));
  out->async_parallelism = par;
  return HUDI_OK;
}

hudi_status hudi_mdt_services_clean(hudi_table *t, const hudi_mdt_services_options *so, bool *cleaned,
                                    hudi_error *err) {
  if (cleaned) *cleaned = false;
  if (!so->clean_enabled) return HUDI_OK;
  hudi_mdt_clean_result cr;
  HUDI_TRY(hudi_mdt_clean(t, &so->clean, &cr, err));
  if (cleaned) *cleaned = cr.instant[0] != '\0';
  return HUDI_OK;
}

hudi_status hudi_mdt_table_services(hudi_table *t, const hudi_option *opts, size_t n,
                                    hudi_mdt_compact_result *compacted, bool *cleaned, hudi_error *err) {
  if (cleaned) *cleaned = false;
  if (compacted) memset(compacted, 0, sizeof *compacted);
  if (!hudi_write_mdt_enabled(t)) return HUDI_OK;
  hudi_mdt_services_options so;
  HUDI_TRY(hudi_mdt_services_options_get(&so, t, opts, n, err));
  HUDI_TRY(hudi_write_reload_timeline(t, err));
  HUDI_TRY(hudi_mdt_services_clean(t, &so, cleaned, err));
  /* The compaction the handle's background thread runs is never undone. */
  char keep[HUDI_INSTANT_TIME_BUF];
  hudi_mdt_compact_async_running(keep, t);
  if (so.async) return hudi_mdt_compact_async_after_commit(t, &so, opts, n, keep, err);
  return compact_keeping(t, &so.compact, keep, NULL, compacted, err);
}
