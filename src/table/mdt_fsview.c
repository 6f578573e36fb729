/* The file-system view from the metadata table, and column_stats pruning
 * (mdt_fsview.h). */
#include "table/mdt_fsview.h"

#include <stdio.h>
#include <string.h>

#include "avro/value.h"
#include "base/alloc.h"
#include "table/mdt_column_stats.h"
#include "table/mdt_files.h"
#include "table/mdt_shard.h"

#define FILES_PARTITION "files"
#define COLUMN_STATS_PARTITION "column_stats"
#define CS_MAX_KEYS ((size_t)1 << 24)

/* ---- the view ------------------------------------------------------------ */

/* Whether a completed action changes the table's files (and so writes an
 * MDT deltacommit of its own time). Savepoints do not, nor does async
 * indexing (its MDT instant is the index's, not the data table's). A
 * finished compaction is a commit, clustering a replacecommit, log
 * compaction a deltacommit. */
static bool changes_files(const char *action) {
  static const char *const actions[] = {"commit", "deltacommit", "replacecommit", "clean", "rollback", "restore"};
  for (size_t i = 0; i < sizeof actions / sizeof *actions; i++)
    if (strcmp(action, actions[i]) == 0) return true;
  return false;
}

static const char *latest_data_instant(const hudi_timeline *tl) {
  for (size_t i = tl->count; i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (in->state == HUDI_INSTANT_COMPLETED && changes_files(in->action)) return in->requested_time;
  }
  return NULL;
}

/* Whether the MDT holds the completed instant that recorded data instant
 * d: a deltacommit d, or d plus a suffix (the instant that initialised an
 * MDT partition after d, createIndexInitTimestamp); for a data rollback
 * (restore) of a write the MDT had, the MDT's own rollback (restore) at d. */
static bool mdt_has(const hudi_timeline *tl, const char *d) {
  size_t n = strlen(d);
  for (size_t i = tl->count; i-- > 0;) {
    const hudi_instant *in = &tl->items[i];
    if (in->state != HUDI_INSTANT_COMPLETED || strncmp(in->requested_time, d, n) != 0) continue;
    if (strcmp(in->action, "deltacommit") == 0 || strcmp(in->action, "rollback") == 0 ||
        strcmp(in->action, "restore") == 0)
      return true;
  }
  return false;
}

bool hudi_fsview_mdt_usable(const hudi_mdt *m, char *reason, size_t cap) {
  size_t n;
  if (!hudi_mdt_partition_available(m, FILES_PARTITION)) {
    snprintf(reason, cap, "hoodie.table.metadata.partitions does not list files");
    return false;
  }
  if (!hudi_mdt_groups(m, FILES_PARTITION, &n)) {
    snprintf(reason, cap, "the metadata table has no file group of the files partition");
    return false;
  }
  const char *data = latest_data_instant(&hudi_mdt_data_table(m)->timeline);
  if (data && !mdt_has(&hudi_mdt_table(m)->timeline, data)) {
    snprintf(reason, cap, "the metadata table is behind the timeline (no completed deltacommit of %s, the data "
             "table's latest instant)", data);
    return false;
  }
  return true;
}

static hudi_status push_file(hudi_file_list *l, const char *partition, const char *name, uint64_t size,
                             hudi_error *err) {
  if (l->count == l->cap) {
    size_t c = l->cap ? l->cap * 2 : 64;
    hudi_file_info *p = hudi_realloc(l->items, hudi_mul_size(c, sizeof *p));
    if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    l->items = p;
    l->cap = c;
  }
  size_t pl = strlen(partition), nl = strlen(name);
  char *path = hudi_malloc(pl + nl + 2);
  if (!path) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (pl) {
    memcpy(path, partition, pl);
    path[pl] = '/';
    memcpy(path + pl + 1, name, nl + 1);
  } else {
    memcpy(path, name, nl + 1);
  }
  hudi_file_info *fi = &l->items[l->count++];
  memset(fi, 0, sizeof *fi);
  fi->path = path;
  fi->size = size;
  return HUDI_OK;
}

hudi_status hudi_fsview_build_from_mdt(hudi_fsview *out, hudi_mdt *m, const hudi_timeline *timeline,
                                       const hudi_fsview_options *opts, hudi_mdt_read_stats *stats,
                                       hudi_error *err) {
  memset(out, 0, sizeof *out);
  hudi_mdt_strings parts = {0};
  HUDI_TRY(hudi_mdt_list_partitions(m, &parts, stats, err));
  hudi_mdt_partition_files *files = NULL;
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  hudi_status st = hudi_mdt_list_files(m, (const char *const *)parts.items, parts.count, &files, stats, err);
  for (size_t i = 0; st == HUDI_OK && i < parts.count; i++)
    for (size_t j = 0; st == HUDI_OK && j < files[i].n_files; j++)
      st = push_file(&list, parts.items[i], files[i].files[j].name, files[i].files[j].size, err);
  if (st == HUDI_OK)
    st = hudi_fsview_build_from_files(out, hudi_mdt_data_table(m)->storage, timeline, &list, opts, err);
  if (st != HUDI_OK) hudi_err_context(err, st, "the file-system view from the metadata table");
  hudi_file_list_free(&list);
  if (files) hudi_mdt_partition_files_free(files, parts.count);
  hudi_mdt_strings_free(&parts);
  return st;
}

/* Acquires t's MDT when the view may come from it; *m stays NULL, with
 * the reason in src->note, when it may not or cannot be opened. */
static hudi_status acquire_for_view(hudi_mdt **m, hudi_table *t, hudi_view_source *src, hudi_error *err) {
  *m = NULL;
  const char *parts = hudi_props_get(&t->props, "hoodie.table.metadata.partitions");
  if (src->list_only) {
    snprintf(src->note, sizeof src->note, "hoodie.metadata.enable is false");
  } else if (!parts || !*parts) {
    snprintf(src->note, sizeof src->note, "the table has no metadata table partitions");
  } else if (t->version < 8) {
    /* As hudi-rs: version 6 metadata tables (no fixture or writer of ours
     * to test them against) are not read. */
    snprintf(src->note, sizeof src->note, "table version %d: the metadata table is used from version 8", t->version);
  } else {
    hudi_error tmp = HUDI_ERROR_INIT;
    hudi_status st = hudi_mdt_acquire(m, t, &tmp);
    if (st == HUDI_ERR_NOMEM) {
      if (err) *err = tmp;
      return st;
    }
    if (st != HUDI_OK)
      snprintf(src->note, sizeof src->note, "%s: %.200s",
               st == HUDI_ERR_NOT_FOUND ? "no metadata table" : "the metadata table cannot be opened", tmp.message);
  }
  return HUDI_OK;
}

hudi_status hudi_fsview_build_latest(hudi_fsview *out, hudi_table *t, const hudi_fsview_options *opts,
                                     hudi_view_source *src, hudi_error *err) {
  hudi_view_source none = {0};
  if (!src) src = &none;
  src->mdt = NULL;
  src->from_mdt = false;
  src->note[0] = '\0';
  const hudi_timeline *tl = src->timeline ? src->timeline : &t->timeline;
  hudi_mdt *m;
  HUDI_TRY(acquire_for_view(&m, t, src, err));
  hudi_status st;
  if (m && hudi_fsview_mdt_usable(m, src->note, sizeof src->note)) {
    src->from_mdt = true;
    st = hudi_fsview_build_from_mdt(out, m, tl, opts, NULL, err);
  } else {
    st = hudi_fsview_build_from_listing(out, t->storage, tl, opts, err);
  }
  if (src->keep_mdt) src->mdt = m;
  else hudi_mdt_release(t, m);
  return st;
}

/* ---- column_stats pruning ------------------------------------------------- */

static const hudi_avro_value *unwrap(const hudi_avro_value *v) {
  while (v && v->node && v->node->type == HUDI_AVRO_UNION) v = v->v.u.value;
  if (!v || !v->node || v->node->type == HUDI_AVRO_NULL) return NULL;
  return v;
}

static bool wrapper_is(const hudi_avro_value *w, const char *name) {
  const char *n = w->node->name;
  if (!n) return false;
  const char *dot = strrchr(n, '.');
  return strcmp(dot ? dot + 1 : n, name) == 0;
}

/* Whether a wrapper's integer means what the column's int64 values mean:
 * plain integers, dates in days, timestamps in the column's unit. */
static bool int_matches(const hudi_arrow_type *t, const hudi_avro_value *w, int32_t vt) {
  switch (t->id) {
    case HUDI_ARROW_INT8: case HUDI_ARROW_INT16: case HUDI_ARROW_INT32: case HUDI_ARROW_INT64:
      return (vt < 0 || vt == HUDI_CS_VT_V1 || vt == HUDI_CS_VT_INT || vt == HUDI_CS_VT_LONG) &&
             (wrapper_is(w, "IntWrapper") || wrapper_is(w, "LongWrapper"));
    case HUDI_ARROW_DATE32:
      return vt == HUDI_CS_VT_DATE || (vt < 0 && wrapper_is(w, "DateWrapper"));
    case HUDI_ARROW_TIMESTAMP:
      switch (t->unit) {
        case HUDI_ARROW_MILLI: return vt == HUDI_CS_VT_TIMESTAMP_MILLIS || vt == HUDI_CS_VT_LOCAL_TIMESTAMP_MILLIS;
        case HUDI_ARROW_MICRO:
          return vt == HUDI_CS_VT_TIMESTAMP_MICROS || vt == HUDI_CS_VT_LOCAL_TIMESTAMP_MICROS ||
                 (vt < 0 && wrapper_is(w, "TimestampMicrosWrapper"));
        case HUDI_ARROW_NANO: return vt == HUDI_CS_VT_TIMESTAMP_NANOS || vt == HUDI_CS_VT_LOCAL_TIMESTAMP_NANOS;
        default: return false;
      }
    default: return false;
  }
}

/* A bound as a value of the column's class; false when it cannot be used. */
static bool bound_value(hudi_value *out, const hudi_avro_value *wrapper, int32_t vt, const hudi_arrow_type *t,
                        hudi_vclass cls) {
  const hudi_avro_value *w = unwrap(wrapper);
  if (!w || w->node->type != HUDI_AVRO_RECORD) return false;
  const hudi_avro_value *v = unwrap(hudi_avro_value_field(w, "value"));
  if (!v) return false;
  memset(out, 0, sizeof *out);
  out->cls = cls;
  hudi_avro_type at = v->node->type;
  switch (cls) {
    case HUDI_VC_BOOL:
      if (at != HUDI_AVRO_BOOLEAN) return false;
      out->v.b = v->v.boolean != 0;
      return true;
    case HUDI_VC_INT:
      if (!int_matches(t, w, vt)) return false;
      if (at == HUDI_AVRO_INT) out->v.i = v->v.i;
      else if (at == HUDI_AVRO_LONG) out->v.i = v->v.l;
      else return false;
      return true;
    case HUDI_VC_DOUBLE:
      if (t->id != HUDI_ARROW_FLOAT && t->id != HUDI_ARROW_DOUBLE) return false;
      if (at == HUDI_AVRO_FLOAT) out->v.d = v->v.f;
      else if (at == HUDI_AVRO_DOUBLE) out->v.d = v->v.d;
      else return false;
      return true;
    case HUDI_VC_BYTES: {
      bool is_str = t->id == HUDI_ARROW_STRING || t->id == HUDI_ARROW_LARGE_STRING || t->id == HUDI_ARROW_STRING_VIEW;
      bool is_bin = t->id == HUDI_ARROW_BINARY || t->id == HUDI_ARROW_LARGE_BINARY || t->id == HUDI_ARROW_BINARY_VIEW;
      if (is_str && !(at == HUDI_AVRO_STRING && (vt < 0 || vt == HUDI_CS_VT_V1 || vt == HUDI_CS_VT_STRING)))
        return false;
      if (is_bin && !(at == HUDI_AVRO_BYTES && (vt < 0 || vt == HUDI_CS_VT_V1 || vt == HUDI_CS_VT_BYTES)))
        return false;
      if (!is_str && !is_bin) return false;
      out->v.bytes.data = v->v.bytes.data;
      out->v.bytes.len = v->v.bytes.len;
      return true;
    }
    default: return false; /* decimals, unsigned: not compared */
  }
}

/* Widens acc to cover one file's record of column k; false when the
 * record says too little (the slice is then kept). */
static bool add_file_stats(hudi_col_stats *acc, int64_t *rows, bool first, const hudi_mdt_record *r,
                           const hudi_arrow_field *f, hudi_vclass cls) {
  if (!r->key || !r->has_column_stats || r->column_stats.is_deleted) return false;
  const hudi_mdt_column_stats *cs = &r->column_stats;
  if (!cs->has_value_count || !cs->has_null_count || cs->null_count < 0 || cs->value_count < cs->null_count)
    return false;
  const hudi_arrow_type *t = f->dictionary ? &f->dictionary->type : &f->type;
  int32_t vt = hudi_cs_record_value_type(r);
  hudi_value lo, hi;
  bool has_lo = cs->min_value && bound_value(&lo, cs->min_value, vt, t, cls);
  bool has_hi = cs->max_value && bound_value(&hi, cs->max_value, vt, t, cls);
  bool has_values = cs->value_count > cs->null_count;
  /* A file with values must have both bounds to narrow anything. */
  if (has_values && (!has_lo || !has_hi)) has_lo = has_hi = false;
  if (first) {
    *rows = 0;
    memset(acc, 0, sizeof *acc);
    acc->null_count = 0;
    acc->nan_count = -1; /* footers leave NaNs out of min/max */
    acc->has_min = acc->has_max = true; /* an empty set widens to the first file's range */
    acc->min.cls = acc->max.cls = HUDI_VC_NONE;
  }
  *rows += cs->value_count;
  acc->null_count += cs->null_count;
  if (!has_values) return true;
  if (!has_lo || !has_hi) {
    acc->has_min = acc->has_max = false; /* unbounded */
    return true;
  }
  if (acc->has_min && (acc->min.cls == HUDI_VC_NONE || hudi_value_cmp(&lo, &acc->min) < 0)) acc->min = lo;
  if (acc->has_max && (acc->max.cls == HUDI_VC_NONE || hudi_value_cmp(&hi, &acc->max) > 0)) acc->max = hi;
  return true;
}

static hudi_status push_key(hudi_buf *keys, size_t *offs, size_t *n, const char *column, const char *partition,
                            const char *path, hudi_error *err) {
  const char *slash = strrchr(path, '/');
  offs[(*n)++] = keys->len;
  return hudi_cs_column_stats_key(keys, column, partition, slash ? slash + 1 : path, err);
}

static size_t slice_files(const hudi_cs_slice *c) {
  return (c->slice->base ? 1 : 0) + (c->base_only ? 0 : c->slice->n_logs);
}

/* The slice's verdict from its files' records, recs[first...] ordered
 * (file, column). */
static bool slice_might(const hudi_pred *pred, const hudi_mdt_record *recs, size_t nf, const size_t *cols,
                        size_t n_cols, hudi_col_stats *st) {
  size_t np = hudi_pred_n_columns(pred);
  int64_t rows = -1;
  for (size_t k = 0; k < np; k++) {
    st[k] = (hudi_col_stats)HUDI_COL_STATS_UNKNOWN;
  }
  for (size_t c = 0; c < n_cols; c++) {
    size_t k = cols[c];
    const hudi_arrow_field *f = hudi_pred_column_field(pred, k);
    const hudi_arrow_type *t = f->dictionary ? &f->dictionary->type : &f->type;
    hudi_vclass cls = hudi_vclass_of(t);
    hudi_col_stats acc;
    int64_t r = 0;
    bool ok = true;
    for (size_t i = 0; ok && i < nf; i++) ok = add_file_stats(&acc, &r, i == 0, &recs[i * n_cols + c], f, cls);
    if (!ok) continue;
    if (acc.has_min && acc.min.cls == HUDI_VC_NONE) acc.has_min = acc.has_max = false; /* no values at all */
    st[k] = acc;
    rows = r;
  }
  bool might = true;
  hudi_pred_prune(&might, pred, st, rows);
  return might;
}

/* Looks up the records of every (file, column) of the slices and judges
 * each slice. */
static hudi_status prune_with(hudi_mdt *m, const hudi_pred *pred, const hudi_cs_slice *slices, size_t n,
                              const size_t *cols, size_t n_cols, size_t total, bool *might,
                              hudi_mdt_read_stats *stats, hudi_error *err) {
  size_t nk = total * n_cols, k = 0, np = hudi_pred_n_columns(pred);
  hudi_buf buf;
  hudi_buf_init(&buf, (size_t)1 << 31);
  size_t *offs = hudi_calloc(nk + 1, sizeof *offs);
  hudi_hfile_key *keys = hudi_calloc(nk + 1, sizeof *keys);
  hudi_col_stats *cst = hudi_calloc(np, sizeof *cst);
  hudi_mdt_records recs = {0};
  hudi_status st = offs && keys && cst ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    const hudi_file_slice *s = slices[i].slice;
    for (size_t f = 0; st == HUDI_OK && f < slice_files(&slices[i]); f++) {
      const char *path = s->base ? (f == 0 ? s->base->path : s->logs[f - 1].path) : s->logs[f].path;
      for (size_t c = 0; st == HUDI_OK && c < n_cols; c++)
        st = push_key(&buf, offs, &k, hudi_pred_column_name(pred, cols[c]), slices[i].partition, path, err);
    }
  }
  for (size_t i = 0; st == HUDI_OK && i < nk; i++) {
    keys[i].data = buf.data + offs[i];
    keys[i].len = (i + 1 < nk ? offs[i + 1] : buf.len) - offs[i];
  }
  if (st == HUDI_OK) st = hudi_mdt_partition_lookup(m, COLUMN_STATS_PARTITION, keys, nk, &recs, stats, err);
  size_t at = 0;
  for (size_t i = 0; st == HUDI_OK && i < n; i++) {
    size_t nf = slice_files(&slices[i]);
    might[i] = nf == 0 || slice_might(pred, &recs.items[at], nf, cols, n_cols, cst);
    at += nf * n_cols;
  }
  if (recs.items) hudi_mdt_records_free(&recs);
  hudi_free(cst);
  hudi_free(keys);
  hudi_free(offs);
  hudi_buf_free(&buf);
  if (st != HUDI_OK) hudi_err_context(err, st, "column_stats pruning");
  return st;
}

hudi_status hudi_mdt_prune_slices(hudi_mdt *m, const hudi_pred *pred, const hudi_cs_slice *slices, size_t n,
                                  bool *might, hudi_mdt_read_stats *stats, hudi_error *err) {
  for (size_t i = 0; i < n; i++) might[i] = true;
  size_t np = pred ? hudi_pred_n_columns(pred) : 0, ng;
  if (!np || !n || !hudi_mdt_partition_available(m, COLUMN_STATS_PARTITION) ||
      !hudi_mdt_groups(m, COLUMN_STATS_PARTITION, &ng))
    return HUDI_OK;
  /* Top-level columns only: the index names columns by their paths, and
   * nested fields are not indexed by default. */
  size_t *cols = hudi_calloc(np, sizeof *cols), n_cols = 0;
  if (!cols) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (size_t k = 0; k < np; k++) {
    size_t depth = 0;
    (void)hudi_pred_column_path(pred, k, &depth);
    if (depth == 1) cols[n_cols++] = k;
  }
  size_t total = 0;
  for (size_t i = 0; i < n; i++) total += slice_files(&slices[i]);
  hudi_status st = HUDI_OK;
  /* Too many keys to batch: keep every slice. */
  if (n_cols && total && total <= CS_MAX_KEYS / n_cols)
    st = prune_with(m, pred, slices, n, cols, n_cols, total, might, stats, err);
  hudi_free(cols);
  return st;
}
