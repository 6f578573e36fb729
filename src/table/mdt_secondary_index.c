/* The metadata table's secondary indexes (mdt_secondary_index.h). */
#include "table/mdt_secondary_index.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/value.h"
#include "base/alloc.h"
#include "base/hashmap.h"
#include "base/java_text.h"
#include "expr/value.h"
#include "hudi/read.h"
#include "table/base_file.h"
#include "table/index_defs.h"
#include "table/log_file_name.h"
#include "table/mdt_shard.h"
#include "table/mdt_write_common.h"
#include "table/properties.h"
#include "table/read_plan.h"
#include "table/write.h"

#define PARTITIONS_KEY "hoodie.table.metadata.partitions"
#define PREFIX "secondary_index_"
#define MAX_INDEXES 64
#define MAX_NAME 56

/* ---- definitions ---- */

void hudi_si_defs_free(hudi_si_defs *d) {
  if (!d) return;
  for (size_t i = 0; i < d->n; i++) {
    hudi_free(d->items[i].partition);
    hudi_free(d->items[i].column);
  }
  hudi_free(d->items);
  memset(d, 0, sizeof *d);
}

bool hudi_si_listed(const hudi_table *t) {
  const char *parts = hudi_props_get(&t->props, PARTITIONS_KEY);
  return parts && strstr(parts, PREFIX) != NULL;
}

/* Whether an Arrow column format is one whose values we turn into Hudi's
 * strings. Version 9 (Hudi 1.1+): strings, signed integers, dates (epoch
 * days), times and timestamps (raw counts). Version 8 (Hudi 1.0.x, its
 * entries seen in test_mdt_secondary_index_engines.py::
 * test_v8_index_values_match_spark): strings, signed integers, dates
 * (LocalDate.toString), UTC microsecond timestamps (raw counts) and
 * decimals (BigDecimal.toString). Doubles are Double.toString in both,
 * whose digits (Java 17's) we do not reproduce exactly: not kept. */
static bool value_format_ok(const char *f, int table_version) {
  if (!strcmp(f, "u") || !strcmp(f, "U") || !strcmp(f, "vu") || !strcmp(f, "c") || !strcmp(f, "s") ||
      !strcmp(f, "i") || !strcmp(f, "l") || !strcmp(f, "tdD"))
    return true;
  if (table_version == 8) return (!strncmp(f, "tsu:", 4) && f[4]) || !strncmp(f, "d:", 2);
  return !strncmp(f, "tt", 2) || !strncmp(f, "ts", 2);
}

static hudi_status column_format(hudi_table *t, const char *column, char *fmt, size_t cap, hudi_error *err) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  HUDI_TRY(hudi_table_get_schema(&s, t, false, err));
  hudi_arrow_field f;
  memset(&f, 0, sizeof f);
  hudi_status st = hudi_arrow_field_from_schema(&f, &s, false, err);
  if (s.release) s.release(&s);
  if (st != HUDI_OK) return st;
  st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "secondary index column '%s' is not in the table's schema", column);
  for (int64_t i = 0; i < f.n_children; i++)
    if (f.children[i].name && !strcmp(f.children[i].name, column)) {
      const hudi_arrow_field *c = &f.children[i];
      snprintf(fmt, cap, "%s", c->dictionary ? c->dictionary->format : c->format);
      hudi_error_clear(err);
      st = HUDI_OK;
      break;
    }
  hudi_arrow_field_clear(&f);
  return st;
}

static hudi_status def_from_json(hudi_si_def *d, json_t *defs, const char *name, const char *path, int table_version,
                                  hudi_error *err) {
  json_t *def = json_object_get(defs, name);
  if (!json_is_object(def))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: no definition of secondary index %s", path, name);
  const char *type = json_string_value(json_object_get(def, "indexType"));
  const char *version = json_string_value(json_object_get(def, "version"));
  json_t *fields = json_object_get(def, "sourceFields");
  if (!type || strcmp(type, "secondary_index"))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: %s is of type %s, not secondary_index", path, name,
                        type ? type : "(none)");
  /* Hudi 1.0.x (table version 8) writes no version. */
  bool ok_version = table_version == 8 ? !version : version && !strcmp(version, "V2");
  if (!ok_version)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "%s: secondary index %s has index version %s (hudi-c keeps the V2 indexes of table version "
                        "9 and the unversioned ones of version 8)",
                        path, name, version ? version : "(none)");
  if (!json_is_array(fields) || json_array_size(fields) != 1 || !json_is_string(json_array_get(fields, 0)))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "%s: secondary index %s does not name exactly one source field",
                        path, name);
  d->partition = hudi_strdup(name);
  d->column = hudi_strdup(json_string_value(json_array_get(fields, 0)));
  if (!d->partition || !d->column) {
    hudi_free(d->partition);
    hudi_free(d->column);
    memset(d, 0, sizeof *d);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index %s", name);
  }
  return HUDI_OK;
}

hudi_status hudi_si_defs_load(hudi_si_defs *out, hudi_table *t, hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *parts = hudi_props_get(&t->props, PARTITIONS_KEY);
  if (!hudi_si_listed(t)) return HUDI_OK;
  if (t->version < 8)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s: hudi-c keeps secondary indexes of table versions 8 and 9 only (it is %d)",
                        t->base_uri, t->version);
  out->table_version = t->version;
  if (!hudi_props_list_has(parts, "record_index"))
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "table %s has a secondary index without the record index",
                        t->base_uri);
  const char *path = hudi_props_get(&t->props, "hoodie.table.index.defs.path");
  if (!path || !*path) path = HUDI_INDEX_DEFS_DEFAULT_PATH;
  json_t *root = NULL;
  HUDI_TRY(hudi_index_defs_load(&root, t->storage, path, err));
  json_t *defs = json_object_get(root, "indexDefinitions");
  out->items = hudi_calloc(MAX_INDEXES, sizeof *out->items);
  hudi_status st = out->items ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "secondary indexes");
  for (const char *p = parts; st == HUDI_OK && p && *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > strlen(PREFIX) && !strncmp(p, PREFIX, strlen(PREFIX))) {
      char name[256];
      /* File ids "<name with - for _>-NNNN-0" must fit the MDT's 64-byte ids. */
      if (len > MAX_NAME || out->n == MAX_INDEXES) {
        st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "table %s: secondary index %.*s: hudi-c keeps at most %d indexes of names up to %d "
                          "characters",
                          t->base_uri, (int)(len < 200 ? len : 200), p, MAX_INDEXES, MAX_NAME);
        break;
      }
      memcpy(name, p, len);
      name[len] = '\0';
      st = def_from_json(&out->items[out->n], defs, name, path, t->version, err);
      if (st == HUDI_OK) out->n++;
    }
    p = end ? end + 1 : NULL;
  }
  json_decref(root);
  for (size_t i = 0; st == HUDI_OK && i < out->n; i++) {
    char fmt[64];
    st = column_format(t, out->items[i].column, fmt, sizeof fmt, err);
    if (st == HUDI_OK && !value_format_ok(fmt, t->version))
      st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "secondary index %s: column '%s' has Arrow type '%s'; hudi-c keeps secondary indexes of "
                        "string, integer, date and timestamp columns (on table version 8: UTC microsecond "
                        "timestamps, and decimals too)",
                        out->items[i].partition, out->items[i].column, fmt);
    size_t groups;
    if (st == HUDI_OK) st = hudi_cs_count_groups(t->storage, out->items[i].partition, &groups, err);
  }
  if (st != HUDI_OK) hudi_si_defs_free(out);
  return st;
}

/* ---- keys ---- */

static hudi_status escape(hudi_buf *out, const char *s, size_t n, hudi_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' || s[i] == '$' || s[i] == '\0') HUDI_TRY(hudi_buf_append_byte(out, '\\', err));
    HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)s[i], err));
  }
  return HUDI_OK;
}

hudi_status hudi_si_key(hudi_buf *out, const char *value, size_t len, const char *record_key, size_t key_len,
                        hudi_error *err) {
  if (value) HUDI_TRY(escape(out, value, len, err));
  else HUDI_TRY(hudi_buf_append_byte(out, 0, err)); /* null: the NUL character alone */
  HUDI_TRY(hudi_buf_append_byte(out, '$', err));
  return escape(out, record_key, key_len, err);
}

void hudi_si_changes_free(hudi_si_changes *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) hudi_free(c->items[i].key);
  hudi_free(c->items);
  memset(c, 0, sizeof *c);
}

static hudi_status change_add(hudi_si_changes *c, const char *partition, const hudi_buf *key, bool deleted,
                              hudi_error *err) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    hudi_si_change *items = hudi_realloc(c->items, cap * sizeof *items);
    if (!items) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index changes");
    c->items = items;
    c->cap = cap;
  }
  char *k = hudi_malloc(key->len ? key->len : 1);
  if (!k) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index key");
  if (key->len) memcpy(k, key->data, key->len);
  c->items[c->n++] = (hudi_si_change){partition, k, key->len, deleted};
  return HUDI_OK;
}

/* ---- the values of file slices ---- */

/* Record key -> one value per index, as Hudi's strings (NULL: null). */
typedef struct row_values {
  char **v;    /* n_defs entries */
  size_t *len; /* their lengths (a value may hold NUL) */
} row_values;

typedef struct value_map {
  hudi_hashmap keys; /* record key -> row_values * */
  size_t n_defs;
  int table_version; /* how values are printed (value_string) */
} value_map;

static void value_map_free(value_map *m) {
  for (size_t i = 0; i < m->keys.cap; i++) {
    hudi_hashmap_slot *s = &m->keys.slots[i];
    row_values *r = s->key && s->value.ptr ? s->value.ptr : NULL;
    if (!r) continue;
    for (size_t d = 0; d < m->n_defs; d++) hudi_free(r->v[d]);
    hudi_free(r->v);
    hudi_free(r->len);
    hudi_free(r);
  }
  hudi_hashmap_free(&m->keys);
}

/* Element i of a column as Hudi's string (value_format_ok types):
 * strings as they are, integers (times and timestamps as the count of
 * their unit) in decimal; dates as epoch days (version 9) or
 * LocalDate.toString (version 8); decimals as BigDecimal.toString. */
static hudi_status value_string(char **out, size_t *out_len, const hudi_arrow_view *v, int64_t i, int table_version,
                                hudi_error *err) {
  *out = NULL;
  *out_len = 0;
  hudi_value x;
  hudi_value_from_view(&x, v, i);
  if (x.is_null) return HUDI_OK;
  const hudi_arrow_type *type = v->dictionary ? &v->dictionary->type : &v->type;
  char num[HUDI_JAVA_DECIMAL_MAX];
  const char *s = num;
  size_t n;
  if (x.cls == HUDI_VC_BYTES) {
    s = x.v.bytes.len ? (const char *)x.v.bytes.data : "";
    n = x.v.bytes.len;
  } else if (x.cls == HUDI_VC_INT && type->id == HUDI_ARROW_DATE32 && table_version == 8) {
    n = hudi_java_local_date(num, (int32_t)x.v.i);
  } else if (x.cls == HUDI_VC_INT) {
    n = (size_t)snprintf(num, sizeof num, "%" PRId64, x.v.i);
  } else if (x.cls == HUDI_VC_DECIMAL) {
    n = hudi_java_big_decimal(num, x.v.dec, type->scale);
  } else {
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "secondary index value of class %d", (int)x.cls);
  }
  *out = hudi_malloc(n + 1);
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index value");
  if (n) memcpy(*out, s, n);
  (*out)[n] = '\0';
  *out_len = n;
  return HUDI_OK;
}

/* Adds one output batch (columns: _hoodie_record_key, then the indexed
 * columns in defs order) to m. */
static hudi_status add_batch(value_map *m, const hudi_arrow_field *schema, struct ArrowArray *a, hudi_error *err) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  hudi_status st = hudi_arrow_field_export(&s, schema, err);
  hudi_arrow_view v;
  memset(&v, 0, sizeof v);
  if (st == HUDI_OK) st = hudi_arrow_view_init(&v, &s, a, err);
  if (st == HUDI_OK && v.n_children < (int64_t)(1 + m->n_defs))
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "secondary index read: %lld columns", (long long)v.n_children);
  for (int64_t i = 0; st == HUDI_OK && i < v.length; i++) {
    hudi_value kv;
    hudi_value_from_view(&kv, &v.children[0], i);
    if (kv.is_null || kv.cls != HUDI_VC_BYTES) {
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "row %lld has no record key", (long long)i);
      break;
    }
    const char *key = kv.v.bytes.len ? (const char *)kv.v.bytes.data : "";
    size_t klen = kv.v.bytes.len;
    row_values *r = hudi_calloc(1, sizeof *r);
    if (r) {
      r->v = hudi_calloc(m->n_defs, sizeof *r->v);
      r->len = hudi_calloc(m->n_defs, sizeof *r->len);
    }
    if (!r || !r->v || !r->len) {
      if (r) {
        hudi_free(r->v);
        hudi_free(r->len);
      }
      hudi_free(r);
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index values");
      break;
    }
    for (size_t d = 0; st == HUDI_OK && d < m->n_defs; d++)
      st = value_string(&r->v[d], &r->len[d], &v.children[1 + d], i, m->table_version, err);
    hudi_hashmap_value old;
    int replaced = 0;
    if (st == HUDI_OK) st = hudi_hashmap_put(&m->keys, key, klen, (hudi_hashmap_value){.ptr = r}, &old, &replaced, err);
    row_values *drop = st == HUDI_OK ? (replaced ? old.ptr : NULL) : r;
    if (drop) {
      for (size_t d = 0; d < m->n_defs; d++) hudi_free(drop->v[d]);
      hudi_free(drop->v);
      hudi_free(drop->len);
      hudi_free(drop);
    }
  }
  hudi_arrow_view_clear(&v);
  if (s.release) s.release(&s);
  if (a->release) a->release(a);
  return st;
}

static hudi_status read_slice(value_map *m, const hudi_read_plan *p, const hudi_file_group *g,
                              const hudi_file_slice *sl, hudi_error *err) {
  hudi_read_slice_ref ref = {g, sl};
  hudi_slice_reader *r = NULL;
  HUDI_TRY(hudi_slice_reader_open(&r, p, &ref, err));
  hudi_status st = HUDI_OK;
  for (;;) {
    struct ArrowArray a;
    bool eof = false;
    st = hudi_slice_reader_next(r, &a, &eof, err);
    if (st != HUDI_OK || eof) break;
    st = add_batch(m, &p->out_schema, &a, err);
    if (st != HUDI_OK) break;
  }
  hudi_slice_reader_free(r);
  return st;
}

/* ---- the touched file groups ---- */

typedef struct touched {
  const char *partition, *file_id;
  const char *base;    /* the commit's new base file (path), or NULL */
  const char **logs;   /* the commit's log files (paths) */
  uint64_t base_size;
  uint64_t *log_sizes;
  size_t n_logs;
} touched;

typedef struct commit_ctx {
  const hudi_si_defs *defs;
  hudi_table *t;
  const char *instant;
  touched *groups;
  size_t n_groups;
  hudi_read_plan *plan;
  hudi_timeline tl; /* the table's, with instant completed */
  value_map before, after;
} commit_ctx;

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static hudi_status collect(commit_ctx *c, const hudi_commit_metadata *meta, hudi_error *err) {
  size_t n_parts = 0, total = 0;
  const hudi_partition_write_stats *parts = hudi_commit_metadata_partitions(meta, &n_parts);
  for (size_t p = 0; p < n_parts; p++) {
    size_t n;
    hudi_partition_stats(&parts[p], &n);
    total += n;
  }
  c->groups = hudi_calloc(total ? total : 1, sizeof *c->groups);
  if (!c->groups) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index groups");
  for (size_t p = 0; p < n_parts; p++) {
    size_t n;
    const hudi_write_stat *ws = hudi_partition_stats(&parts[p], &n);
    for (size_t i = 0; i < n; i++) {
      if (!ws[i].file_id || !ws[i].path) continue;
      const char *part = parts[p].key ? parts[p].key : "";
      touched *g = NULL;
      for (size_t k = 0; k < c->n_groups && !g; k++)
        if (!strcmp(c->groups[k].partition, part) && !strcmp(c->groups[k].file_id, ws[i].file_id)) g = &c->groups[k];
      if (!g) {
        g = &c->groups[c->n_groups++];
        g->partition = part;
        g->file_id = ws[i].file_id;
      }
      uint64_t size = ws[i].file_size_in_bytes.v > 0 ? (uint64_t)ws[i].file_size_in_bytes.v : 0;
      if (hudi_log_file_name_matches(base_name(ws[i].path), strlen(base_name(ws[i].path)))) {
        const char **logs = hudi_realloc(g->logs, (g->n_logs + 1) * sizeof *logs);
        uint64_t *sizes = logs ? hudi_realloc(g->log_sizes, (g->n_logs + 1) * sizeof *sizes) : NULL;
        if (logs) g->logs = logs;
        if (!logs || !sizes) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index groups");
        g->log_sizes = sizes;
        g->logs[g->n_logs] = ws[i].path;
        g->log_sizes[g->n_logs++] = size;
      } else {
        g->base = ws[i].path;
        g->base_size = size;
      }
    }
  }
  return HUDI_OK;
}

static void touched_free(commit_ctx *c) {
  for (size_t i = 0; i < c->n_groups; i++) {
    hudi_free(c->groups[i].logs);
    hudi_free(c->groups[i].log_sizes);
  }
  hudi_free(c->groups);
}

static const hudi_file_group *find_group(const hudi_fsview *v, const char *partition, const char *file_id) {
  for (size_t i = 0; i < v->n_groups; i++)
    if (!strcmp(v->groups[i].partition, partition) && !strcmp(v->groups[i].file_id, file_id)) return &v->groups[i];
  return NULL;
}

/* The plan reads _hoodie_record_key and the indexed columns; its timeline
 * copy shows the commit completed, so the new log files' blocks count. */
static hudi_status open_plan(commit_ctx *c, hudi_error *err) {
  const char **cols = hudi_calloc(c->defs->n + 1, sizeof *cols);
  if (!cols) return hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index columns");
  cols[0] = "_hoodie_record_key";
  for (size_t i = 0; i < c->defs->n; i++) cols[1 + i] = c->defs->items[i].column;
  hudi_read_options ro = HUDI_READ_OPTIONS_INIT;
  ro.options = hudi_write_snapshot_options;
  ro.n_options = hudi_write_n_snapshot_options;
  ro.projection = cols;
  ro.n_projection = c->defs->n + 1;
  hudi_status st = hudi_read_plan_create(&c->plan, c->t, &ro, err);
  hudi_free(cols);
  HUDI_TRY(st);
  const hudi_timeline *src = &c->t->timeline;
  c->tl = *src;
  c->tl.items = hudi_calloc(src->count + 1, sizeof *src->items);
  if (!c->tl.items) return hudi_err_set(err, HUDI_ERR_NOMEM, "timeline copy");
  if (src->count) memcpy(c->tl.items, src->items, src->count * sizeof *src->items);
  hudi_instant *in = (hudi_instant *)hudi_timeline_find(&c->tl, c->instant);
  if (!in) {
    in = &c->tl.items[c->tl.count++];
    memset(in, 0, sizeof *in);
    snprintf(in->requested_time, sizeof in->requested_time, "%s", c->instant);
    snprintf(in->action, sizeof in->action, "deltacommit");
    snprintf(in->requested_action, sizeof in->requested_action, "deltacommit");
  }
  in->state = HUDI_INSTANT_COMPLETED;
  /* Completed after everything on the timeline (its real time is not known yet). */
  snprintf(in->completion_time, sizeof in->completion_time, "%s", "99999999999999999");
  c->plan->tl = &c->tl;
  /* A snapshot plan ends at the latest completed instant; this one sees
   * the commit's own blocks too. */
  snprintf(c->plan->end, sizeof c->plan->end, "%s", c->instant);
  return HUDI_OK;
}

/* The slice after the commit: the new base file alone, or the latest slice
 * with the commit's log files after its own. */
static hudi_status new_slice(hudi_file_slice *out, const touched *g, const hudi_file_slice *old, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (g->base) {
    out->base = hudi_calloc(1, sizeof *out->base);
    if (!out->base) return hudi_err_set(err, HUDI_ERR_NOMEM, "slice");
    out->base->path = (char *)g->base;
    out->base->size = g->base_size;
    if (!hudi_base_file_name_parse(&out->base->name, base_name(g->base)))
      return hudi_err_set(err, HUDI_ERR_INTERNAL, "%s is not a base file name", g->base);
    snprintf(out->base_instant, sizeof out->base_instant, "%s", out->base->name.instant);
  } else if (old) {
    snprintf(out->base_instant, sizeof out->base_instant, "%s", old->base_instant);
    if (old->base) {
      out->base = hudi_calloc(1, sizeof *out->base);
      if (!out->base) return hudi_err_set(err, HUDI_ERR_NOMEM, "slice");
      *out->base = *old->base;
    }
  }
  size_t n_old = g->base || !old ? 0 : old->n_logs;
  out->logs = hudi_calloc(n_old + g->n_logs + 1, sizeof *out->logs);
  if (!out->logs) return hudi_err_set(err, HUDI_ERR_NOMEM, "slice");
  for (size_t i = 0; i < n_old; i++) out->logs[out->n_logs++] = old->logs[i];
  for (size_t i = 0; i < g->n_logs; i++) {
    hudi_fs_log_file *l = &out->logs[out->n_logs];
    l->path = (char *)g->logs[i];
    l->file_name = (char *)base_name(g->logs[i]);
    l->size = g->log_sizes[i];
    hudi_log_file_name ln = HUDI_LOG_FILE_NAME_INIT;
    HUDI_TRY(hudi_log_file_name_parse(&ln, l->file_name, strlen(l->file_name), err));
    l->name = ln;
    out->n_logs++;
  }
  return HUDI_OK;
}

static void new_slice_free(hudi_file_slice *s, size_t n_old) {
  for (size_t i = n_old; i < s->n_logs; i++) hudi_log_file_name_free(&s->logs[i].name);
  hudi_free(s->logs);
  hudi_free(s->base);
}

static hudi_status read_groups(commit_ctx *c, hudi_error *err) {
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->n_groups; i++) {
    const touched *g = &c->groups[i];
    const hudi_file_group *fg = find_group(&c->plan->view, g->partition, g->file_id);
    const hudi_file_slice *old = fg ? hudi_file_group_latest_slice(fg) : NULL;
    if (old) st = read_slice(&c->before, c->plan, fg, old, err);
    hudi_file_group tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.partition = (char *)g->partition;
    tmp.file_id = (char *)g->file_id;
    hudi_file_slice now;
    memset(&now, 0, sizeof now);
    if (st == HUDI_OK) st = new_slice(&now, g, old, err);
    if (st == HUDI_OK) st = read_slice(&c->after, c->plan, fg ? fg : &tmp, &now, err);
    new_slice_free(&now, g->base || !old ? 0 : old->n_logs);
  }
  return st;
}

/* ---- the diff ---- */

/* (The maps never remove a key, so every slot with a key is live.) */

static bool same(const row_values *a, const row_values *b, size_t d) {
  if (!a->v[d] || !b->v[d]) return !a->v[d] && !b->v[d];
  return a->len[d] == b->len[d] && !memcmp(a->v[d], b->v[d], a->len[d]);
}

static hudi_status emit(hudi_si_changes *out, const hudi_si_def *def, const row_values *r, size_t d, const char *key,
                        size_t klen, bool deleted, hudi_buf *scratch, int table_version, hudi_error *err) {
  /* Version 8 (Spark 1.0.2) indexes no null value: nothing to add or remove. */
  if (table_version == 8 && !r->v[d]) return HUDI_OK;
  hudi_buf_reset(scratch);
  HUDI_TRY(hudi_si_key(scratch, r->v[d], r->len[d], key, klen, err));
  return change_add(out, def->partition, scratch, deleted, err);
}

static hudi_status diff(commit_ctx *c, hudi_si_changes *out, hudi_error *err) {
  hudi_buf k;
  hudi_buf_init(&k, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < c->before.keys.cap; i++) {
    const hudi_hashmap_slot *s = &c->before.keys.slots[i];
    if (!s->key || !s->value.ptr) continue;
    const row_values *old = s->value.ptr;
    hudi_hashmap_value nv;
    const row_values *now = hudi_hashmap_get(&c->after.keys, s->key, s->key_len, &nv) ? nv.ptr : NULL;
    for (size_t d = 0; st == HUDI_OK && d < c->defs->n; d++) {
      if (now && same(old, now, d)) continue;
      int v = c->defs->table_version;
      st = emit(out, &c->defs->items[d], old, d, (const char *)s->key, s->key_len, true, &k, v, err);
      if (st == HUDI_OK && now)
        st = emit(out, &c->defs->items[d], now, d, (const char *)s->key, s->key_len, false, &k, v, err);
    }
  }
  for (size_t i = 0; st == HUDI_OK && i < c->after.keys.cap; i++) {
    const hudi_hashmap_slot *s = &c->after.keys.slots[i];
    if (!s->key || !s->value.ptr || hudi_hashmap_get(&c->before.keys, s->key, s->key_len, NULL)) continue;
    const row_values *now = s->value.ptr;
    for (size_t d = 0; st == HUDI_OK && d < c->defs->n; d++)
      st = emit(out, &c->defs->items[d], now, d, (const char *)s->key, s->key_len, false, &k, c->defs->table_version,
                err);
  }
  hudi_buf_free(&k);
  return st;
}

static bool changes_no_values(const hudi_commit_metadata *meta) {
  const char *op = meta->operation_type;
  return op && (!strcmp(op, "COMPACT") || !strcmp(op, "CLUSTER") || !strcmp(op, "LOG_COMPACT"));
}

hudi_status hudi_si_commit_changes(hudi_si_changes *out, const hudi_si_defs *defs, hudi_table *t, const char *instant,
                                   const hudi_commit_metadata *meta, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (!defs->n || !meta || changes_no_values(meta)) return HUDI_OK;
  if (meta->partition_to_replace_file_ids.n)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "table %s has secondary indexes: an overwrite would replace file groups, which Hudi refuses "
                        "on such tables too",
                        t->base_uri);
  commit_ctx c;
  memset(&c, 0, sizeof c);
  c.defs = defs;
  c.t = t;
  c.instant = instant;
  c.before.n_defs = c.after.n_defs = defs->n;
  c.before.table_version = c.after.table_version = defs->table_version;
  hudi_hashmap_init(&c.before.keys, 0);
  hudi_hashmap_init(&c.after.keys, 0);
  hudi_status st = collect(&c, meta, err);
  if (st == HUDI_OK && c.n_groups) st = open_plan(&c, err);
  if (st == HUDI_OK && c.n_groups) st = read_groups(&c, err);
  if (st == HUDI_OK) st = diff(&c, out, err);
  if (c.plan) {
    c.plan->tl = NULL;
    hudi_read_plan_free(c.plan);
  }
  hudi_free(c.tl.items);
  value_map_free(&c.before);
  value_map_free(&c.after);
  touched_free(&c);
  if (st != HUDI_OK) {
    hudi_si_changes_free(out);
    return hudi_err_context(err, st, "secondary index records of %s", instant);
  }
  return HUDI_OK;
}

/* ---- the log blocks ---- */

typedef struct shard_ref {
  int32_t shard;
  const hudi_si_change *c;
} shard_ref;

static int cmp_ref(const void *a, const void *b) {
  const shard_ref *x = a, *y = b;
  if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
  if (x->c->deleted != y->c->deleted) return x->c->deleted ? 1 : -1;
  size_t n = x->c->len < y->c->len ? x->c->len : y->c->len;
  int r = memcmp(x->c->key, y->c->key, n);
  return r ? r : (x->c->len > y->c->len) - (x->c->len < y->c->len);
}

hudi_status hudi_si_key_shard(int32_t *out, const char *key, size_t len, size_t n_groups, hudi_error *err) {
  size_t prefix = len;
  for (size_t i = 0; i < len; i++) {
    if (key[i] == '\\') {
      i++;
    } else if (key[i] == '$') {
      prefix = i + 1;
      break;
    }
  }
  return hudi_mdt_shard_of(out, key, prefix, n_groups, err);
}

hudi_status hudi_si_key_shard_of_version(int32_t *out, const char *key, size_t len, size_t n_groups, int table_version,
                                         hudi_error *err) {
  if (table_version == 8) return hudi_mdt_shard_of(out, key, len, n_groups, err);
  return hudi_si_key_shard(out, key, len, n_groups, err);
}

static hudi_status si_record(hudi_mdt_record *r, const hudi_si_change *c, const hudi_avro_node *schema,
                             hudi_error *err) {
  hudi_mdt_record_init(r);
  HUDI_TRY(hudi_mdt_record_set_key(r, c->key, c->len, HUDI_MDT_TYPE_SECONDARY_INDEX, err));
  void *mem;
  HUDI_TRY(hudi_avro_arena_alloc(&r->arena, sizeof(hudi_avro_value), &mem, err));
  hudi_avro_value *root = mem;
  HUDI_TRY(hudi_avro_value_init(root, &r->arena, schema, err));
  hudi_avro_value *f = hudi_avro_value_field(root, "key");
  hudi_avro_value *type = hudi_avro_value_field(root, "type");
  hudi_avro_value *si = hudi_avro_value_field(root, "SecondaryIndexMetadata");
  if (!f || !type || !si || si->node->type != HUDI_AVRO_UNION)
    return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks the secondary index fields");
  HUDI_TRY(hudi_avro_value_set_string(f, &r->arena, "", 0, err));
  HUDI_TRY(hudi_avro_value_set_long(type, &r->arena, HUDI_MDT_TYPE_SECONDARY_INDEX, err));
  hudi_avro_value *rec = NULL;
  for (uint32_t b = 0; !rec && b < si->node->n_branches; b++)
    if (si->node->branches[b]->type != HUDI_AVRO_NULL) HUDI_TRY(hudi_avro_value_select(si, &r->arena, b, &rec, err));
  hudi_avro_value *del = rec ? hudi_avro_value_field(rec, "isDeleted") : NULL;
  if (!del) return hudi_err_set(err, HUDI_ERR_INTERNAL, "metadata schema lacks SecondaryIndexMetadata.isDeleted");
  HUDI_TRY(hudi_avro_value_set_boolean(del, &r->arena, 0, err));
  r->value = root;
  return HUDI_OK;
}

static hudi_status shard_blocks(hudi_cs_group_block *g, const shard_ref *refs, size_t n, const hudi_avro_node *schema,
                                const char *schema_json, size_t schema_len, const hudi_mdt_write_options *o,
                                const char *instant, hudi_error *err) {
  size_t n_up = 0;
  while (n_up < n && !refs[n_up].c->deleted) n_up++;
  hudi_mdt_record *recs = n_up ? hudi_calloc(n_up, sizeof *recs) : NULL;
  hudi_mdt_record **ptrs = n_up ? hudi_calloc(n_up, sizeof *ptrs) : NULL;
  hudi_status st = !n_up || (recs && ptrs) ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index records");
  size_t built = 0;
  for (; st == HUDI_OK && built < n_up; built++) {
    st = si_record(&recs[built], refs[built].c, schema, err);
    ptrs[built] = &recs[built];
  }
  uint8_t *hf = NULL;
  size_t hf_len = 0;
  if (st == HUDI_OK && n_up) st = hudi_mdt_w_hfile(ptrs, n_up, schema, schema_json, schema_len, o, false, &hf, &hf_len, err);
  if (st == HUDI_OK && n_up) st = hudi_mdt_w_hfile_block(&g->blocks, hf, hf_len, schema_json, schema_len, instant, err);
  hudi_free(hf);
  for (size_t i = 0; i < built; i++) hudi_mdt_record_free(&recs[i]);
  hudi_free(recs);
  hudi_free(ptrs);
  size_t n_del = n - n_up;
  if (st != HUDI_OK || !n_del) return st;
  const char **keys = hudi_calloc(n_del, sizeof *keys);
  size_t *lens = hudi_calloc(n_del, sizeof *lens);
  st = keys && lens ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "secondary index deletes");
  for (size_t i = 0; st == HUDI_OK && i < n_del; i++) {
    keys[i] = refs[n_up + i].c->key;
    lens[i] = refs[n_up + i].c->len;
  }
  if (st == HUDI_OK)
    st = hudi_mdt_w_delete_block_in(&g->blocks, g->partition, keys, lens, n_del, true, schema_json, schema_len,
                                    instant, err);
  hudi_free(keys);
  hudi_free(lens);
  return st;
}

static hudi_status build_partition(hudi_cs_group_blocks *out, hudi_storage *s, const char *partition,
                                   const hudi_si_changes *c, const hudi_avro_node *schema, const char *schema_json,
                                   size_t schema_len, const hudi_mdt_write_options *o, const char *instant,
                                   hudi_error *err) {
  size_t count = 0, groups = 0;
  for (size_t i = 0; i < c->n; i++) count += c->items[i].partition == partition;
  if (!count) return HUDI_OK;
  HUDI_TRY(hudi_cs_count_groups(s, partition, &groups, err));
  shard_ref *refs = hudi_malloc(count * sizeof *refs);
  if (!refs) return hudi_err_set(err, HUDI_ERR_NOMEM, "%zu %s changes", count, partition);
  hudi_status st = HUDI_OK;
  size_t k = 0;
  for (size_t i = 0; st == HUDI_OK && i < c->n; i++) {
    const hudi_si_change *x = &c->items[i];
    if (x->partition != partition) continue;
    refs[k].c = x;
    st = hudi_si_key_shard_of_version(&refs[k].shard, x->key, x->len, groups, o->table_version, err);
    k++;
  }
  if (st == HUDI_OK) qsort(refs, count, sizeof *refs, cmp_ref);
  for (size_t i = 0; st == HUDI_OK && i < count;) {
    size_t j = i;
    while (j < count && refs[j].shard == refs[i].shard) j++;
    hudi_cs_group_block *g = NULL;
    st = hudi_cs_group_block_add(out, partition, refs[i].shard, j - i, &g, err);
    if (st == HUDI_OK) st = shard_blocks(g, refs + i, j - i, schema, schema_json, schema_len, o, instant, err);
    i = j;
  }
  hudi_free(refs);
  return st;
}

hudi_status hudi_si_group_blocks_build(hudi_cs_group_blocks *out, hudi_storage *s, const hudi_si_changes *c,
                                       const hudi_avro_node *schema, const char *schema_json, size_t schema_len,
                                       const hudi_mdt_write_options *o, const char *instant, hudi_error *err) {
  memset(out, 0, sizeof *out);
  const char *parts[MAX_INDEXES]; /* the distinct partitions (defs' strings) */
  size_t n_parts = 0;
  for (size_t i = 0; i < c->n; i++) {
    size_t j = 0;
    while (j < n_parts && parts[j] != c->items[i].partition) j++;
    if (j == n_parts && n_parts < MAX_INDEXES) parts[n_parts++] = c->items[i].partition;
  }
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < n_parts; i++)
    st = build_partition(out, s, parts[i], c, schema, schema_json, schema_len, o, instant, err);
  if (st != HUDI_OK) hudi_cs_group_blocks_free(out);
  return st;
}
