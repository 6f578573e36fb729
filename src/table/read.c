/* Planning and streaming table reads (include/hudi/read.h, read_plan.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/stream.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/instant.h"
#include "base/threadpool.h"
#include "expr/ast.h"
#include "hudi/read.h"
#include "parquet/reader.h"
#include "table/archive.h"
#include "table/lsm_timeline.h"
#include "table/read_plan.h"
#include "table/clean.h"
#include "table/mdt_fsview.h"
#include "table/schema_resolve.h"

/* ---- instants ------------------------------------------------------------ */

bool hudi_read_instant_visible(const hudi_read_plan *p, const char *instant) {
  /* Incremental plans carry the as-of-end state in their timeline copy,
   * except for archived instants (scan_all, layout 1: requested times
   * bound the range, so a later one is after end). */
  if ((!p->incremental || p->scan_all) && p->end[0] && strcmp(instant, p->end) > 0) return false;
  const hudi_timeline *tl = p->tl ? p->tl : &p->t->timeline;
  const hudi_instant *in = hudi_timeline_find(tl, instant);
  if (in) return in->state == HUDI_INSTANT_COMPLETED;
  /* Older than the active timeline: archived, hence completed. */
  const char *start = hudi_timeline_start(tl);
  return start && strcmp(instant, start) < 0;
}

static int cmp_time(const void *a, const void *b) { return strcmp(a, b); }

static bool in_range(const hudi_read_plan *p, const char *t);

bool hudi_read_commit_selected(const hudi_read_plan *p, const char *commit_time, size_t len) {
  if (!p->incremental) return true;
  if (!commit_time || len >= HUDI_INSTANT_TIME_MAX) return false;
  char t[HUDI_INSTANT_TIME_MAX];
  memcpy(t, commit_time, len);
  t[len] = 0;
  if (p->scan_all) return in_range(p, t);
  return p->n_incr_times && bsearch(t, p->incr_times, p->n_incr_times, sizeof *p->incr_times, cmp_time);
}

/* The time an incremental range bounds: completion on layout 2 (Apache
 * Hudi 1.x, IncrementalQueryAnalyzer), requested on layout 1. */
static const char *range_time(const hudi_read_plan *p, const hudi_instant *in) {
  return p->by_completion && in->completion_time[0] ? in->completion_time : in->requested_time;
}

static bool in_range(const hudi_read_plan *p, const char *t) {
  return (!p->start[0] || strcmp(t, p->start) > 0) && (!p->end[0] || strcmp(t, p->end) <= 0);
}

/* Layout 2: a query reaching before the active timeline's first instant
 * loads the archived timeline (completion times, archived writes), as
 * Hudi's CompletionTimeQueryView does. from: the earliest time the query
 * needs ("" = all). */
static hudi_status need_archive(hudi_read_plan *p, const char *from, hudi_error *err) {
  hudi_timeline *tl = &p->t->timeline;
  if (tl->layout < 2 || tl->archive_loaded) return HUDI_OK;
  const char *start = hudi_timeline_start(tl);
  if (from[0] && start && strcmp(from, start) >= 0) return HUDI_OK;
  char hist[600];
  hudi_archive_history_dir(hist, sizeof hist, &p->t->props, "");
  return hudi_timeline_load_archive(tl, p->t->storage, hist, err);
}

/* Incremental: the timeline as of end (instants completed later become
 * pending) and the requested times of the writes completed in the range. */
static hudi_status plan_incremental(hudi_read_plan *p, hudi_error *err) {
  HUDI_TRY(need_archive(p, p->start, err));
  const hudi_timeline *src = &p->t->timeline;
  p->tl_copy = *src;
  p->tl_copy.items = hudi_calloc(src->count + 1, sizeof *src->items);
  p->incr_times = hudi_calloc(src->count + src->n_archived + 1, sizeof *p->incr_times);
  if (!p->tl_copy.items || !p->incr_times) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (src->count) memcpy(p->tl_copy.items, src->items, src->count * sizeof *src->items);
  p->tl = &p->tl_copy;
  for (size_t i = 0; i < src->count; i++) {
    hudi_instant *in = &p->tl_copy.items[i];
    if (in->state != HUDI_INSTANT_COMPLETED) continue;
    const char *t = range_time(p, in);
    if (p->end[0] && strcmp(t, p->end) > 0) {
      in->state = HUDI_INSTANT_INFLIGHT;
      continue;
    }
    if (hudi_instant_is_write(in)) p->has_writes = true;
    if (hudi_instant_is_write(in) && in_range(p, t))
      snprintf(p->incr_times[p->n_incr_times++], HUDI_INSTANT_TIME_MAX, "%s", in->requested_time);
  }
  for (size_t i = 0; i < src->n_archived; i++) {
    const hudi_instant *in = &src->archived[i];
    const char *t = range_time(p, in);
    if (!hudi_instant_is_write(in) || (p->end[0] && strcmp(t, p->end) > 0)) continue;
    p->has_writes = true;
    if (in_range(p, t)) snprintf(p->incr_times[p->n_incr_times++], HUDI_INSTANT_TIME_MAX, "%s", in->requested_time);
  }
  qsort(p->incr_times, p->n_incr_times, sizeof *p->incr_times, cmp_time);
  /* Layout 1 keeps no readable history: a range starting before the
   * active timeline scans every file group (Hudi's
   * hoodie.datasource.read.incr.fallback.fulltablescan.enable; without
   * it Java reads only the files of active commits, missing archived
   * ones). */
  const char *first = hudi_timeline_start(src);
  p->scan_all = src->layout < 2 && first && (!p->start[0] || strcmp(p->start, first) < 0);
  /* Writes archived before the active timeline are visible to it. */
  if (p->scan_all) p->has_writes = true;
  return HUDI_OK;
}

static const char *latest_write(const hudi_table *t) {
  for (size_t i = t->timeline.count; i-- > 0;)
    if (hudi_instant_is_write(&t->timeline.items[i])) return t->timeline.items[i].requested_time;
  return NULL;
}

/* ---- options ----------------------------------------------------------------- */

static const char *opt(const hudi_table *t, const hudi_read_options *o, const char *key) {
  const char *v = NULL;
  for (size_t i = 0; o && i < o->n_options; i++)
    if (o->options[i].key && strcmp(o->options[i].key, key) == 0) v = o->options[i].value;
  if (!v) v = hudi_table_option(t, key);
  return v && *v ? v : NULL;
}

/* Whether v (trimmed) is an instant time as written: 14 or 17 digits. */
static bool literal_instant(const char *v) {
  while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r') v++;
  size_t n = 0;
  while (v[n] >= '0' && v[n] <= '9') n++;
  const char *rest = v + n;
  while (*rest == ' ' || *rest == '\t' || *rest == '\n' || *rest == '\r') rest++;
  return !*rest && (n == 14 || n == 17);
}

/* A user's timestamp as an instant time of t's timeline: an instant time
 * as given; epoch and RFC 3339 times in the timeline's zone (a LOCAL
 * table's instants are local wall-clock times), as hudi-rs's
 * format_timestamp converts them. */
static hudi_status parse_ts(char out[HUDI_INSTANT_TIME_MAX], const hudi_table *t, const char *key, const char *v,
                            hudi_error *err) {
  char buf[HUDI_INSTANT_TIME_BUF];
  int64_t ms;
  hudi_status st = hudi_timestamp_parse(buf, &ms, v, strlen(v), err);
  int32_t offset = literal_instant(v) ? 0 : hudi_table_timeline_offset_minutes(t);
  if (st == HUDI_OK && offset) st = hudi_instant_time_format(buf, ms + (int64_t)offset * 60000, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s", key);
  snprintf(out, HUDI_INSTANT_TIME_MAX, "%s", buf);
  return HUDI_OK;
}

static hudi_status parse_options(hudi_read_plan *p, const hudi_read_options *o, hudi_error *err) {
  hudi_table *t = p->t;
  const char *qt = opt(t, o, "hoodie.read.query.type");
  if (qt && strcasecmp(qt, "incremental") == 0) p->incremental = true;
  else if (qt && strcasecmp(qt, "snapshot") != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "hoodie.read.query.type: '%s' is not a query type (snapshot or incremental)", qt);
  const char *ro = opt(t, o, "hoodie.read.use.read_optimized.mode");
  if (ro && strcasecmp(ro, "true") == 0) p->read_optimized = true;
  else if (ro && strcasecmp(ro, "false") != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.read.use.read_optimized.mode: '%s' is not a boolean", ro);
  p->batch_size = HUDI_READ_DEFAULT_BATCH;
  const char *bs = opt(t, o, "hoodie.read.stream.batch_size");
  if (bs) {
    char *end;
    errno = 0;
    long long v = strtoll(bs, &end, 10);
    if (errno || *end || v <= 0 || v > ((long long)1 << 30))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.read.stream.batch_size: '%s' is not a positive integer",
                          bs);
    p->batch_size = v;
  }
  const char *ip = opt(t, o, "hoodie.read.input.partitions");
  if (ip) {
    char *end;
    long long v = strtoll(ip, &end, 10);
    if (*end || v < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.read.input.partitions: '%s' is not a count", ip);
  }
  /* Slices read at once: up to 4 by default (each held whole while it
   * waits its turn), 1 for a serial read. */
  p->parallelism = hudi_cpu_count() < 4 ? hudi_cpu_count() : 4;
  const char *par = opt(t, o, "hoodie.read.parallelism");
  if (par) {
    char *end;
    errno = 0;
    long v = strtol(par, &end, 10);
    if (errno || *end || v < 1 || v > 64)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.read.parallelism: '%s' is not a count in 1..64", par);
    p->parallelism = (int)v;
  }
  p->use_mdt = true;
  p->data_skipping = true;
  const char *me = opt(t, o, "hoodie.metadata.enable");
  if (me && strcasecmp(me, "false") == 0) p->use_mdt = false;
  else if (me && strcasecmp(me, "true") != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.metadata.enable: '%s' is not a boolean", me);
  const char *ds = opt(t, o, "hoodie.enable.data.skipping");
  if (ds && strcasecmp(ds, "false") == 0) p->data_skipping = false;
  else if (ds && strcasecmp(ds, "true") != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hoodie.enable.data.skipping: '%s' is not a boolean", ds);
  const char *latest = latest_write(t);
  if (p->incremental) {
    const char *s = opt(t, o, "hoodie.read.start.timestamp"), *e = opt(t, o, "hoodie.read.end.timestamp");
    if (s) HUDI_TRY(parse_ts(p->start, t, "hoodie.read.start.timestamp", s, err));
    if (e) HUDI_TRY(parse_ts(p->end, t, "hoodie.read.end.timestamp", e, err));
    /* A start before the last clean's earliest retained commit is fine: the
     * range is read from the slices as of end (Hudi's full-table-scan
     * fallback); an end before it would need cleaned slices. */
    if (e) HUDI_TRY(hudi_clean_check_as_of(t, p->end, "hoodie.read.end.timestamp", err));
    p->by_completion = t->timeline.layout >= 2;
    HUDI_TRY(plan_incremental(p, err));
  } else {
    const char *a = opt(t, o, "hoodie.read.as.of.timestamp");
    if (a) HUDI_TRY(parse_ts(p->end, t, "hoodie.read.as.of.timestamp", a, err));
    if (a) HUDI_TRY(need_archive(p, p->end, err));
    if (a) HUDI_TRY(hudi_clean_check_as_of(t, p->end, "hoodie.read.as.of.timestamp", err));
    else if (latest) snprintf(p->end, sizeof p->end, "%s", latest);
    p->latest = !a;
    p->has_writes = p->end[0] != 0;
  }
  return HUDI_OK;
}

/* ---- schemas ------------------------------------------------------------------ */

static hudi_status build_filter(hudi_expr **out, const hudi_read_options *o, hudi_error *err) {
  *out = NULL;
  if (!o || (!o->n_filters && !o->filter_sql)) return HUDI_OK;
  hudi_expr *e = NULL;
  if (o->n_filters) {
    const char **f = hudi_calloc(o->n_filters * 3, sizeof *f);
    if (!f) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < o->n_filters; i++) {
      f[i] = o->filters[i].field ? o->filters[i].field : "";
      f[o->n_filters + i] = o->filters[i].op ? o->filters[i].op : "";
      f[2 * o->n_filters + i] = o->filters[i].value ? o->filters[i].value : "";
    }
    hudi_status st = hudi_expr_from_filters(&e, f, f + o->n_filters, f + 2 * o->n_filters, o->n_filters, err);
    hudi_free(f);
    HUDI_TRY(st);
  }
  if (o->filter_sql && *o->filter_sql) {
    hudi_expr *s = NULL;
    hudi_status st = hudi_expr_parse(&s, o->filter_sql, strlen(o->filter_sql), err);
    if (st != HUDI_OK) {
      hudi_expr_free(e);
      return st;
    }
    if (e) HUDI_TRY(hudi_expr_and(&e, e, s, err));
    else e = s;
  }
  *out = e;
  return HUDI_OK;
}

/* Picks the columns to read and to return, binds the filter. */
static hudi_status plan_columns(hudi_read_plan *p, const hudi_read_options *o, hudi_error *err) {
  const hudi_arrow_field *ts = &p->table_schema;
  int64_t n = ts->n_children;
  bool *need = hudi_calloc((size_t)n + 1, sizeof *need);
  int64_t *proj = NULL;
  hudi_expr *e = NULL;
  hudi_pred *full = NULL;
  hudi_status st = need ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  size_t n_out = o && o->projection ? o->n_projection : (size_t)n;
  if (st == HUDI_OK && !(proj = hudi_calloc(n_out + 1, sizeof *proj)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t k = 0; st == HUDI_OK && k < n_out; k++) {
    if (o && o->projection) {
      const char *name = o->projection[k] ? o->projection[k] : "";
      proj[k] = hudi_arrow_field_child_index(ts, name);
      if (proj[k] < 0) st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "projection: unknown column '%s'", name);
    } else {
      proj[k] = (int64_t)k;
    }
    if (st == HUDI_OK) need[proj[k]] = true;
  }
  if (st == HUDI_OK) st = build_filter(&e, o, err);
  if (st == HUDI_OK && e) {
    st = hudi_pred_bind(&full, e, ts, err);
    if (st != HUDI_OK) hudi_err_context(err, st, "filter");
    for (size_t k = 0; st == HUDI_OK && k < hudi_pred_n_columns(full); k++) {
      size_t depth;
      const int32_t *path = hudi_pred_column_path(full, k, &depth);
      if (depth) need[path[0]] = true;
    }
  }
  char obuf[256];
  const char *ord = hudi_table_ordering_field(p->t, obuf, sizeof obuf);
  const char *merge_cols[] = {"_hoodie_record_key", "_hoodie_commit_seqno", "_hoodie_commit_time", ord};
  for (size_t i = 0; st == HUDI_OK && i < 4; i++) {
    int64_t c = merge_cols[i] ? hudi_arrow_field_child_index(ts, merge_cols[i]) : -1;
    if (c >= 0) need[c] = true;
  }
  /* read_schema: needed columns in table order. */
  int64_t n_read = 0;
  for (int64_t i = 0; i < n && st == HUDI_OK; i++) n_read += need[i];
  if (st == HUDI_OK) st = hudi_arrow_field_init(&p->read_schema, "", "+s", 0, err);
  if (st == HUDI_OK) st = hudi_arrow_field_alloc_children(&p->read_schema, n_read, err);
  int64_t k = 0;
  for (int64_t i = 0; i < n && st == HUDI_OK; i++)
    if (need[i]) st = hudi_arrow_field_copy(&p->read_schema.children[k++], &ts->children[i], false, err);
  if (st == HUDI_OK) st = hudi_arrow_field_init(&p->out_schema, "", "+s", 0, err);
  if (st == HUDI_OK) st = hudi_arrow_field_alloc_children(&p->out_schema, (int64_t)n_out, err);
  if (st == HUDI_OK && !(p->out_cols = hudi_calloc(n_out + 1, sizeof *p->out_cols)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t j = 0; j < n_out && st == HUDI_OK; j++) {
    st = hudi_arrow_field_copy(&p->out_schema.children[j], &ts->children[proj[j]], false, err);
    p->out_cols[j] = hudi_arrow_field_child_index(&p->read_schema, ts->children[proj[j]].name);
  }
  if (st == HUDI_OK && e) st = hudi_pred_bind(&p->pred, e, &p->read_schema, err);
  if (st == HUDI_OK) {
    p->key_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_record_key");
    p->seqno_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_commit_seqno");
    p->commit_col = hudi_arrow_field_child_index(&p->read_schema, "_hoodie_commit_time");
    p->ordering_col = ord ? hudi_arrow_field_child_index(&p->read_schema, ord) : -1;
  }
  hudi_pred_free(full);
  hudi_expr_free(e);
  hudi_free(need);
  hudi_free(proj);
  return st;
}

/* ---- file slices -------------------------------------------------------------- */

static hudi_status group_key(hudi_buf *b, const char *partition, const char *file_id, hudi_error *err) {
  hudi_buf_reset(b);
  HUDI_TRY(hudi_buf_append_str(b, partition ? partition : "", err));
  HUDI_TRY(hudi_buf_append_byte(b, 0, err));
  return hudi_buf_append_str(b, file_id ? file_id : "", err);
}

/* Adds the file groups m's write stats name to touched. */
static hudi_status touch_groups(hudi_hashmap *touched, hudi_buf *key, const hudi_commit_metadata *m,
                                hudi_error *err) {
  hudi_hashmap_value one = {.u64 = 1};
  size_t np;
  const hudi_partition_write_stats *ps = hudi_commit_metadata_partitions(m, &np);
  for (size_t a = 0; a < np; a++) {
    size_t ns;
    const hudi_write_stat *ws = hudi_partition_stats(&ps[a], &ns);
    for (size_t b = 0; b < ns; b++) {
      HUDI_TRY(group_key(key, ws[b].partition_path ? ws[b].partition_path : ps[a].key, ws[b].file_id, err));
      HUDI_TRY(hudi_hashmap_put(touched, key->data, key->len, one, NULL, NULL, err));
    }
  }
  return HUDI_OK;
}

/* Incremental ranges reaching into the archived timeline: the archived
 * writes' commit metadata is the history's metadata column. */
static hudi_status touch_archived_groups(hudi_read_plan *p, hudi_hashmap *touched, hudi_buf *key, hudi_error *err) {
  const hudi_timeline *tl = p->tl;
  bool any = false;
  for (size_t i = 0; p->incremental && i < tl->n_archived && !any; i++)
    any = hudi_read_commit_selected(p, tl->archived[i].requested_time, strlen(tl->archived[i].requested_time));
  if (!any) return HUDI_OK;
  char hist[600];
  hudi_archive_history_dir(hist, sizeof hist, &p->t->props, "");
  hudi_lsm_rows rows;
  HUDI_TRY(hudi_lsm_load(&rows, p->t->storage, hist, HUDI_LSM_READ_METADATA, err));
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < rows.count; i++) {
    const hudi_lsm_row *r = &rows.items[i];
    if (!r->metadata || !hudi_read_commit_selected(p, r->instant_time, strlen(r->instant_time))) continue;
    hudi_commit_metadata *m = NULL;
    st = hudi_commit_metadata_parse(&m, r->metadata, r->metadata_len, strcmp(r->action, "replacecommit") == 0,
                                    r->instant_time, err);
    if (st == HUDI_OK) st = touch_groups(touched, key, m, err);
    hudi_commit_metadata_free(m);
  }
  hudi_lsm_rows_free(&rows);
  if (st != HUDI_OK) hudi_err_context(err, st, "archived instants in %s", hist);
  return st;
}

/* File groups replaced by replacecommits visible to the plan, and
 * (incremental) the groups written by the instants in the range. */
static hudi_status collect_groups(hudi_read_plan *p, hudi_hashmap *replaced, hudi_hashmap *touched,
                                  hudi_error *err) {
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = HUDI_OK;
  const hudi_timeline *tl = p->tl;
  for (size_t i = 0; st == HUDI_OK && i < tl->count; i++) {
    const hudi_instant *in = &tl->items[i];
    if (!hudi_instant_is_write(in)) continue;
    if (!hudi_read_instant_visible(p, in->requested_time)) continue;
    bool is_replace = strcmp(in->action, "replacecommit") == 0;
    bool in_range = p->incremental && hudi_read_commit_selected(p, in->requested_time, strlen(in->requested_time));
    if (!is_replace && !in_range) continue;
    hudi_commit_metadata *m = NULL;
    st = hudi_table_instant_metadata(&m, p->t, in, err);
    if (st != HUDI_OK) break;
    hudi_hashmap_value one = {.u64 = 1};
    if (is_replace) {
      const hudi_tl_strs_entry *e = m->partition_to_replace_file_ids.items;
      for (size_t a = 0; st == HUDI_OK && a < m->partition_to_replace_file_ids.n; a++) {
        char **ids = e[a].value.items;
        for (size_t b = 0; st == HUDI_OK && b < e[a].value.n; b++) {
          st = group_key(&key, e[a].key, ids[b], err);
          if (st == HUDI_OK) st = hudi_hashmap_put(replaced, key.data, key.len, one, NULL, NULL, err);
        }
      }
    }
    if (in_range && st == HUDI_OK) st = touch_groups(touched, &key, m, err);
    hudi_commit_metadata_free(m);
  }
  if (st == HUDI_OK) st = touch_archived_groups(p, touched, &key, err);
  hudi_buf_free(&key);
  return st;
}

/* The view from the metadata table when it can give it (*m is then left
 * open for column_stats pruning), else from a listing. */
static hudi_status build_view(hudi_read_plan *p, const hudi_fsview_options *fo, hudi_mdt **m, hudi_error *err) {
  hudi_view_source src = {.timeline = p->tl, .list_only = !p->use_mdt, .keep_mdt = true};
  hudi_status st = hudi_fsview_build_latest(&p->view, p->t, fo, &src, err);
  *m = src.mdt;
  memcpy(p->view_note, src.note, sizeof p->view_note);
  p->view_from_mdt = st == HUDI_OK && src.from_mdt;
  if (st != HUDI_OK && src.from_mdt) hudi_err_context(err, st, "hoodie.metadata.enable=false lists storage instead");
  return st;
}

/* Drops the planned slices whose files' column_stats rule the filter out. */
static hudi_status prune_by_column_stats(hudi_read_plan *p, hudi_mdt *m, hudi_error *err) {
  if (!m || !p->pred || !p->data_skipping || !p->n_slices) return HUDI_OK;
  hudi_cs_slice *cs = hudi_calloc(p->n_slices, sizeof *cs);
  bool *might = hudi_calloc(p->n_slices, sizeof *might);
  hudi_status st = cs && might ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < p->n_slices; i++) {
    cs[i].partition = p->slices[i].group->partition;
    cs[i].slice = p->slices[i].slice;
    cs[i].base_only = p->read_optimized; /* it reads the base file only */
  }
  if (st == HUDI_OK) st = hudi_mdt_prune_slices(m, p->pred, cs, p->n_slices, might, NULL, err);
  if (st == HUDI_OK) {
    size_t k = 0;
    p->n_col_stats_candidates = p->n_slices;
    for (size_t i = 0; i < p->n_slices; i++)
      if (might[i]) p->slices[k++] = p->slices[i];
    p->n_col_stats_pruned = p->n_slices - k;
    p->n_slices = k;
  }
  hudi_free(cs);
  hudi_free(might);
  return st;
}

static hudi_status plan_slices(hudi_read_plan *p, hudi_error *err) {
  if (!p->has_writes) return HUDI_OK; /* no completed write: nothing to read */
  hudi_fsview_options fo = {p->incremental && !p->scan_all ? NULL : p->end, p->t->version, p->latest};
  hudi_mdt *mdt = NULL;
  hudi_status vst = build_view(p, &fo, &mdt, err);
  if (vst != HUDI_OK) {
    hudi_mdt_release(p->t, mdt);
    return vst;
  }
  hudi_partition_spec spec;
  vst = hudi_partition_spec_init(&spec, &p->t->props, err);
  if (vst != HUDI_OK) {
    hudi_mdt_release(p->t, mdt);
    return vst;
  }
  hudi_hashmap replaced, touched;
  hudi_hashmap_init(&replaced, 0);
  hudi_hashmap_init(&touched, 0);
  hudi_buf key;
  hudi_buf_init(&key, 1 << 20);
  hudi_status st = collect_groups(p, &replaced, &touched, err);
  if (st == HUDI_OK && !(p->slices = hudi_calloc(p->view.n_groups + 1, sizeof *p->slices)))
    st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t g = 0; st == HUDI_OK && g < p->view.n_groups; g++) {
    const hudi_file_group *fg = &p->view.groups[g];
    const hudi_file_slice *s = hudi_file_group_latest_slice(fg);
    if (!s) continue;
    if (p->read_optimized && !s->base) continue;
    st = group_key(&key, fg->partition, fg->file_id, err);
    if (st != HUDI_OK) break;
    if (hudi_hashmap_get(&replaced, key.data, key.len, NULL)) continue;
    if (p->incremental && !p->scan_all && !hudi_hashmap_get(&touched, key.data, key.len, NULL)) continue;
    bool might = true;
    st = hudi_partition_might_match(&might, &spec, p->pred, fg->partition, err);
    if (st != HUDI_OK || !might) continue;
    p->slices[p->n_slices].group = fg;
    p->slices[p->n_slices].slice = s;
    p->n_slices++;
  }
  if (st == HUDI_OK) st = prune_by_column_stats(p, mdt, err);
  hudi_mdt_release(p->t, mdt);
  hudi_buf_free(&key);
  hudi_hashmap_free(&replaced);
  hudi_hashmap_free(&touched);
  hudi_partition_spec_free(&spec);
  return st;
}

static void plan_free(hudi_read_plan *p) {
  if (!p) return;
  hudi_arrow_field_clear(&p->table_schema);
  hudi_arrow_field_clear(&p->read_schema);
  hudi_arrow_field_clear(&p->out_schema);
  hudi_free(p->out_cols);
  hudi_pred_free(p->pred);
  hudi_fsview_free(&p->view);
  hudi_free(p->slices);
  hudi_free(p->incr_times);
  hudi_free(p->tl_copy.items);
  hudi_free(p);
}

static hudi_status plan_create(hudi_read_plan **out, hudi_table *t, const hudi_read_options *o, hudi_error *err) {
  *out = NULL;
  if (!t) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "table is NULL");
  hudi_read_plan *p = hudi_calloc(1, sizeof *p);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  p->t = t;
  p->tl = &t->timeline;
  hudi_status st = parse_options(p, o, err);
  if (st == HUDI_OK) {
    /* Tables written without meta fields read without them (hudi-rs). */
    const char *pm = hudi_props_get(&t->props, "hoodie.populate.meta.fields");
    bool meta = !(pm && strcasecmp(pm, "false") == 0);
    /* Rows of a range are told apart by _hoodie_commit_time (Java refuses too). */
    if (!meta && p->incremental)
      st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "incremental queries are not supported when meta fields are disabled "
                        "(hoodie.populate.meta.fields=false)");
    if (st == HUDI_OK) st = hudi_table_resolve_schema(&p->table_schema, t, meta, err);
    /* A table without any write and without a create schema reads as
     * nothing, as hudi-rs does. */
    if (st == HUDI_ERR_NOT_FOUND && !latest_write(t)) st = hudi_arrow_field_init(&p->table_schema, "", "+s", 0, err);
  }
  if (st == HUDI_OK) st = plan_columns(p, o, err);
  if (st == HUDI_OK) st = plan_slices(p, err);
  if (st != HUDI_OK) {
    plan_free(p);
    return st;
  }
  *out = p;
  return HUDI_OK;
}

hudi_status hudi_read_plan_create(hudi_read_plan **out, hudi_table *t, const hudi_read_options *o, hudi_error *err) {
  return plan_create(out, t, o, err);
}

void hudi_read_plan_free(hudi_read_plan *p) { plan_free(p); }

/* ---- the stream --------------------------------------------------------------- */

typedef struct read_stream {
  hudi_read_plan *plan;
  bool own_plan;
  size_t next, end; /* slices [next, end) remain */
  hudi_slice_reader *cur;
  hudi_slice_prefetch *pf; /* parallel reads: slices come from here instead */
  char last_error[1024];
  bool failed;
} read_stream;

static int rs_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  read_stream *rs = s->private_data;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_arrow_field_export(out, &rs->plan->out_schema, &err);
  if (st != HUDI_OK) snprintf(rs->last_error, sizeof rs->last_error, "%s", err.message);
  return hudi_arrow_status_errno(st);
}

static int rs_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  read_stream *rs = s->private_data;
  if (rs->failed) return EIO;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = HUDI_OK;
  for (;;) {
    if (rs->pf) {
      bool eof = false;
      st = hudi_slice_prefetch_next(rs->pf, out, &eof, &err);
      if (st != HUDI_OK) break;
      if (eof) {
        memset(out, 0, sizeof *out);
        out->release = NULL;
      }
      return 0;
    }
    if (!rs->cur) {
      if (rs->next >= rs->end) {
        memset(out, 0, sizeof *out);
        out->release = NULL;
        return 0;
      }
      st = hudi_slice_reader_open_ex(&rs->cur, rs->plan, &rs->plan->slices[rs->next], rs->next + 1 >= rs->end, &err);
      rs->next++;
      if (st != HUDI_OK) break;
    }
    bool eof = false;
    st = hudi_slice_reader_next(rs->cur, out, &eof, &err);
    if (st != HUDI_OK) break;
    if (!eof) return 0;
    hudi_slice_reader_free(rs->cur);
    rs->cur = NULL;
    /* No further file on this thread for this read: its decode buffers go. */
    if (rs->next >= rs->end) hudi_pq_reader_release_spare();
  }
  rs->failed = true;
  snprintf(rs->last_error, sizeof rs->last_error, "%s", err.message);
  return hudi_arrow_status_errno(st);
}

static const char *rs_last_error(struct ArrowArrayStream *s) {
  read_stream *rs = s->private_data;
  return rs->last_error[0] ? rs->last_error : NULL;
}

static void rs_release(struct ArrowArrayStream *s) {
  read_stream *rs = s->private_data;
  if (rs) {
    hudi_slice_reader_free(rs->cur);
    if (!rs->pf) hudi_pq_reader_release_spare();
    hudi_slice_prefetch_free(rs->pf);
    if (rs->own_plan) plan_free(rs->plan);
    hudi_free(rs);
  }
  s->release = NULL;
}

static hudi_status make_stream(struct ArrowArrayStream *out, hudi_read_plan *p, bool own, size_t from, size_t to,
                               hudi_error *err) {
  read_stream *rs = hudi_calloc(1, sizeof *rs);
  if (!rs) {
    if (own) plan_free(p);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  rs->plan = p;
  rs->own_plan = own;
  rs->next = from;
  rs->end = to;
  if (p->parallelism > 1 && to - from > 1) {
    int threads = p->parallelism < (int)(to - from) ? p->parallelism : (int)(to - from);
    hudi_status st = hudi_slice_prefetch_create(&rs->pf, p, from, to, threads, err);
    if (st != HUDI_OK) {
      if (own) plan_free(p);
      hudi_free(rs);
      return st;
    }
  }
  out->get_schema = rs_get_schema;
  out->get_next = rs_get_next;
  out->get_last_error = rs_last_error;
  out->release = rs_release;
  out->private_data = rs;
  return HUDI_OK;
}

/* ---- public API -------------------------------------------------------------- */

hudi_status hudi_table_get_schema(struct ArrowSchema *out, hudi_table *table, bool with_meta_fields,
                                  hudi_error *err) {
  if (!table) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "table is NULL");
  hudi_arrow_field f;
  HUDI_TRY(hudi_table_resolve_schema(&f, table, with_meta_fields, err));
  hudi_status st = hudi_arrow_field_export(out, &f, err);
  hudi_arrow_field_clear(&f);
  return st;
}

hudi_status hudi_table_read(struct ArrowArrayStream *out, hudi_table *table, const hudi_read_options *opts,
                            hudi_error *err) {
  hudi_read_plan *p;
  HUDI_TRY(plan_create(&p, table, opts, err));
  return make_stream(out, p, true, 0, p->n_slices, err);
}

struct hudi_file_slice_list {
  hudi_read_plan *plan;
  char **log_paths; /* flattened, per slice from log_start[i] */
  size_t *log_start;
};

hudi_status hudi_table_file_slices(hudi_file_slice_list **out, hudi_table *table, const hudi_read_options *opts,
                                   hudi_error *err) {
  *out = NULL;
  hudi_file_slice_list *l = hudi_calloc(1, sizeof *l);
  if (!l) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = plan_create(&l->plan, table, opts, err);
  size_t total = 0;
  if (st == HUDI_OK) {
    for (size_t i = 0; i < l->plan->n_slices; i++) total += l->plan->slices[i].slice->n_logs;
    l->log_paths = hudi_calloc(total + 1, sizeof *l->log_paths);
    l->log_start = hudi_calloc(l->plan->n_slices + 1, sizeof *l->log_start);
    if (!l->log_paths || !l->log_start) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  if (st == HUDI_OK) {
    size_t k = 0;
    for (size_t i = 0; i < l->plan->n_slices; i++) {
      const hudi_file_slice *s = l->plan->slices[i].slice;
      l->log_start[i] = k;
      if (!l->plan->read_optimized)
        for (size_t j = 0; j < s->n_logs; j++) l->log_paths[k++] = s->logs[j].path;
    }
    l->log_start[l->plan->n_slices] = k;
  }
  if (st != HUDI_OK) {
    hudi_file_slice_list_free(l);
    return st;
  }
  *out = l;
  return HUDI_OK;
}

size_t hudi_file_slice_list_count(const hudi_file_slice_list *l) { return l ? l->plan->n_slices : 0; }

void hudi_file_slice_list_at(const hudi_file_slice_list *l, size_t i, hudi_file_slice_info *out) {
  memset(out, 0, sizeof *out);
  if (!l || i >= l->plan->n_slices) return;
  const hudi_read_slice_ref *r = &l->plan->slices[i];
  out->partition = r->group->partition;
  out->file_id = r->group->file_id;
  out->base_instant = r->slice->base_instant;
  out->base_file = r->slice->base ? r->slice->base->path : NULL;
  out->n_log_files = l->log_start[i + 1] - l->log_start[i];
  out->log_files = (const char *const *)&l->log_paths[l->log_start[i]];
}

const char *hudi_file_slice_list_pending_compaction(const hudi_file_slice_list *l, size_t i) {
  if (!l || i >= l->plan->n_slices) return NULL;
  const hudi_read_slice_ref *r = &l->plan->slices[i];
  return r->group->pending_compaction[0] && r->slice == r->group->merged ? r->group->pending_compaction : NULL;
}

void hudi_file_slice_list_free(hudi_file_slice_list *l) {
  if (!l) return;
  plan_free(l->plan);
  hudi_free(l->log_paths);
  hudi_free(l->log_start);
  hudi_free(l);
}

hudi_status hudi_table_read_file_slice(struct ArrowArrayStream *out, hudi_table *table,
                                       const hudi_file_slice_list *l, size_t i, hudi_error *err) {
  if (!l || !table || l->plan->t != table || i >= l->plan->n_slices)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "file slice %zu is not in the list", i);
  return make_stream(out, l->plan, false, i, i + 1, err);
}

hudi_status hudi_table_read_file_group(struct ArrowArrayStream *out, hudi_table *table, const hudi_read_options *opts,
                                       const char *partition, const char *file_id, hudi_error *err) {
  if (!file_id) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "file_id is NULL");
  if (!partition) partition = "";
  hudi_read_plan *p;
  HUDI_TRY(plan_create(&p, table, opts, err));
  for (size_t i = 0; i < p->n_slices; i++) {
    const hudi_file_group *g = p->slices[i].group;
    if (strcmp(g->file_id, file_id) == 0 && strcmp(g->partition ? g->partition : "", partition) == 0)
      return make_stream(out, p, true, i, i + 1, err);
  }
  plan_free(p);
  return hudi_err_set(err, HUDI_ERR_NOT_FOUND, "the read has no file slice of file group %s in partition '%s'",
                      file_id, partition);
}
