/* The table-version-6 form of commit metadata: JSON as Java's Jackson
 * writes it (JsonUtils: field visibility, default pretty printer), read
 * with jansson into the same struct as the Avro form. The writer
 * reproduces Spark's files byte for byte (hudi-format-v6-and-archive.md A4):
 * member and stat key order, "key" : value, 2-space indent per object
 * level, inline arrays, "{ }" / "[ ]" when empty, no trailing newline. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "table/commit_metadata.h"

/* ------------------------------------------------------------------ read */

static hudi_status json_into(void *dst, const hudi_tl_type *t, json_t *j, hudi_avro_arena *a, const char *what,
                             int depth, hudi_error *err);

static hudi_status bad(const char *what, const char *expected, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: expected %s", what, expected);
}

static hudi_status rec_from_json(void *rec, const hudi_tl_type *t, json_t *j, hudi_avro_arena *a, int depth,
                                 hudi_error *err) {
  if (!json_is_object(j)) return bad(t->name, "a JSON object", err);
  for (size_t i = 0; i < t->n_fields; i++) {
    const hudi_tl_field *f = &t->fields[i];
    json_t *v = json_object_get(j, f->name);
    if (v && !json_is_null(v)) HUDI_TRY(json_into((char *)rec + f->offset, f->type, v, a, f->name, depth + 1, err));
  }
  if (t == &hudi_write_stat_type && json_object_get(j, "logVersion")) ((hudi_write_stat *)rec)->json_delta = 1;
  return HUDI_OK;
}

static hudi_status json_into(void *dst, const hudi_tl_type *t, json_t *j, hudi_avro_arena *a, const char *what,
                             int depth, hudi_error *err) {
  if (depth > 16) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: nested too deeply", what);
  switch (t->kind) {
    case HUDI_TL_STR:
      if (!json_is_string(j)) return bad(what, "a string", err);
      return hudi_avro_arena_strndup(a, json_string_value(j), json_string_length(j), (char **)dst, err);
    case HUDI_TL_LONG:
    case HUDI_TL_INT: {
      if (!json_is_integer(j)) return bad(what, "an integer", err);
      json_int_t v = json_integer_value(j);
      if (t->kind == HUDI_TL_INT) {
        if (v < INT32_MIN || v > INT32_MAX) return bad(what, "a 32-bit integer", err);
        ((hudi_tl_int *)dst)->v = (int32_t)v;
        ((hudi_tl_int *)dst)->has = 1;
      } else {
        ((hudi_tl_long *)dst)->v = (int64_t)v;
        ((hudi_tl_long *)dst)->has = 1;
      }
      return HUDI_OK;
    }
    case HUDI_TL_BOOL:
      if (!json_is_boolean(j)) return bad(what, "true or false", err);
      ((hudi_tl_bool *)dst)->v = json_is_true(j);
      ((hudi_tl_bool *)dst)->has = 1;
      return HUDI_OK;
    case HUDI_TL_DOUBLE:
      if (!json_is_number(j)) return bad(what, "a number", err);
      ((hudi_tl_double *)dst)->v = json_number_value(j);
      ((hudi_tl_double *)dst)->has = 1;
      return HUDI_OK;
    case HUDI_TL_REC: {
      void *rec;
      HUDI_TRY(hudi_avro_arena_alloc(a, t->size, &rec, err));
      HUDI_TRY(rec_from_json(rec, t, j, a, depth, err));
      *(void **)dst = rec;
      return HUDI_OK;
    }
    case HUDI_TL_ARRAY:
    case HUDI_TL_MAP: {
      hudi_tl_list *l = dst;
      int is_map = t->kind == HUDI_TL_MAP;
      if (is_map ? !json_is_object(j) : !json_is_array(j)) return bad(what, is_map ? "a JSON object" : "an array", err);
      size_t n = is_map ? json_object_size(j) : json_array_size(j);
      size_t isz = is_map ? t->entry_size : t->elem->size;
      l->has = 1;
      if (!n) return HUDI_OK;
      HUDI_TRY(hudi_avro_arena_array(a, n, isz, &l->items, err));
      l->n = l->cap = n;
      size_t i = 0;
      const char *key;
      json_t *v;
      if (is_map) {
        json_object_foreach(j, key, v) {
          char *item = (char *)l->items + i++ * isz;
          HUDI_TRY(hudi_avro_arena_strndup(a, key, strlen(key), (char **)item, err));
          item += t->value_offset;
          if (t->elem->kind == HUDI_TL_REC) HUDI_TRY(rec_from_json(item, t->elem, v, a, depth, err));
          else if (!json_is_null(v)) HUDI_TRY(json_into(item, t->elem, v, a, what, depth + 1, err));
          else if (t->elem->kind == HUDI_TL_STR) return bad(what, "non-null values", err);
        }
      } else {
        json_array_foreach(j, i, v) {
          char *item = (char *)l->items + i * isz;
          if (t->elem->kind == HUDI_TL_REC) HUDI_TRY(rec_from_json(item, t->elem, v, a, depth, err));
          else if (!json_is_null(v)) HUDI_TRY(json_into(item, t->elem, v, a, what, depth + 1, err));
          else if (t->elem->kind == HUDI_TL_STR) return bad(what, "non-null items", err);
        }
      }
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "bad timeline type table");
}

static int blank(const uint8_t *d, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (d[i] != ' ' && d[i] != '\t' && d[i] != '\r' && d[i] != '\n') return 0;
  return 1;
}

hudi_status hudi_commit_metadata_parse_json(hudi_commit_metadata **out, const uint8_t *data, size_t len, int replace,
                                            const char *name, hudi_error *err) {
  *out = NULL;
  if (!name) name = "commit metadata";
  if (len > HUDI_TL_MAX_FILE) return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: %zu bytes is too large", name, len);
  hudi_commit_metadata *m;
  HUDI_TRY(hudi_commit_metadata_new(&m, replace, err));
  if (blank(data, len)) {
    *out = m;
    return HUDI_OK;
  }
  json_error_t jerr;
  json_t *j = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &jerr);
  hudi_status st;
  if (!j) {
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: invalid JSON at byte %d: %s", name, jerr.position, jerr.text);
  } else {
    st = rec_from_json(m, &hudi_commit_metadata_type, j, &m->doc.arena, 0, err);
    if (st != HUDI_OK) hudi_err_context(err, st, "%s", name);
    json_decref(j);
  }
  if (st != HUDI_OK) {
    hudi_commit_metadata_free(m);
    return st;
  }
  /* Java has no version field in the JSON form. */
  m->version.has = 0;
  *out = m;
  return HUDI_OK;
}

/* ------------------------------------------------------------------ write */

typedef struct jw {
  hudi_buf *out;
  int depth;     /* open objects */
  int first;     /* no member written yet in the open object */
  hudi_error *err;
} jw;

static hudi_status put(jw *w, const char *s, size_t n) { return hudi_buf_append(w->out, s, n, w->err); }
static hudi_status puts_(jw *w, const char *s) { return put(w, s, strlen(s)); }

/* A JSON string. Bytes that are not UTF-8 (an Avro string read from a
 * damaged or foreign file) are written as U+FFFD, as Java's decoder reads
 * them: JSON must be UTF-8, and its readers reject anything else. */
static hudi_status put_str(jw *w, const char *s) {
  static const char hex[] = "0123456789ABCDEF";
  HUDI_TRY(put(w, "\"", 1));
  const char *run = s;
  size_t len = strlen(s);
  for (const char *p = s;; p++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x80) {
      size_t at = (size_t)(p - s), next = at;
      if (hudi_utf8_next((const uint8_t *)s, len, &next) >= 0) {
        p += next - at - 1;
        continue;
      }
      HUDI_TRY(put(w, run, (size_t)(p - run)));
      HUDI_TRY(put(w, "\\uFFFD", 6));
      run = p + 1;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    HUDI_TRY(put(w, run, (size_t)(p - run)));
    if (!c) break;
    char esc[7] = {'\\', 0};
    size_t n = 2;
    switch (c) {
      case '"': esc[1] = '"'; break;
      case '\\': esc[1] = '\\'; break;
      case '\b': esc[1] = 'b'; break;
      case '\t': esc[1] = 't'; break;
      case '\f': esc[1] = 'f'; break;
      case '\n': esc[1] = 'n'; break;
      case '\r': esc[1] = 'r'; break;
      default:
        memcpy(esc + 1, "u00", 3);
        esc[4] = hex[c >> 4];
        esc[5] = hex[c & 15];
        n = 6;
    }
    HUDI_TRY(put(w, esc, n));
    run = p + 1;
  }
  return put(w, "\"", 1);
}

static hudi_status obj_open(jw *w) {
  w->depth++;
  w->first = 1;
  return put(w, "{", 1);
}

static hudi_status newline(jw *w, int depth) {
  HUDI_TRY(put(w, "\n", 1));
  for (int i = 0; i < depth; i++) HUDI_TRY(put(w, "  ", 2));
  return HUDI_OK;
}

static hudi_status member(jw *w, const char *name) {
  if (!w->first) HUDI_TRY(put(w, ",", 1));
  w->first = 0;
  HUDI_TRY(newline(w, w->depth));
  HUDI_TRY(put_str(w, name));
  return put(w, " : ", 3);
}

static hudi_status obj_close(jw *w) {
  w->depth--;
  if (w->first) {
    w->first = 0;
    return put(w, " }", 2);
  }
  HUDI_TRY(newline(w, w->depth));
  return put(w, "}", 1);
}

static hudi_status put_long(jw *w, int64_t v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%" PRId64, v);
  return put(w, b, (size_t)n);
}

/* absent_zero: Java's field is a primitive, so an unset value prints 0/false. */
static hudi_status put_value(jw *w, const void *src, const hudi_tl_type *t, int absent_zero);

static hudi_status put_list(jw *w, const hudi_tl_list *l, const hudi_tl_type *t) {
  int is_map = t->kind == HUDI_TL_MAP;
  size_t isz = is_map ? t->entry_size : t->elem->size;
  if (is_map) HUDI_TRY(obj_open(w));
  else HUDI_TRY(puts_(w, l->n ? "[ " : "[ ]"));
  for (size_t i = 0; i < l->n; i++) {
    const char *item = (const char *)l->items + i * isz;
    if (is_map) {
      HUDI_TRY(member(w, *(char *const *)item));
      item += t->value_offset;
    } else if (i) {
      HUDI_TRY(put(w, ", ", 2));
    }
    HUDI_TRY(put_value(w, item, t->elem, 0));
  }
  if (is_map) return obj_close(w);
  return l->n ? put(w, " ]", 2) : HUDI_OK;
}

/* The JSON key order of Java's HoodieWriteStat / HoodieDeltaWriteStat and
 * whether the field is a primitive there (unset prints 0). */
typedef struct jkey {
  const char *name;
  int zero;
} jkey;

static const jkey STAT_KEYS[] = {
    {"fileId", 0},          {"path", 0},
    {"cdcStats", 0},        {"prevCommit", 0},
    {"numWrites", 1},       {"numDeletes", 1},
    {"numUpdateWrites", 1}, {"numInserts", 1},
    {"totalWriteBytes", 1}, {"totalWriteErrors", 1},
    {"tempPath", 0},        {"partitionPath", 0},
    {"totalLogRecords", 1}, {"totalLogFilesCompacted", 1},
    {"totalLogSizeCompacted", 1}, {"totalUpdatedRecordsCompacted", 1},
    {"totalLogBlocks", 1},  {"totalCorruptLogBlock", 1},
    {"totalRollbackBlocks", 1}, {"fileSizeInBytes", 1},
    {"minEventTime", 0},    {"maxEventTime", 0},
    {"runtimeStats", 0},
};
static const jkey DELTA_KEYS[] = {{"logVersion", 1}, {"logOffset", 1}, {"baseFile", 0}, {"logFiles", 0}};
static const jkey RUNTIME_KEYS[] = {{"totalScanTime", 1}, {"totalUpsertTime", 1}, {"totalCreateTime", 1}};

static const hudi_tl_field *field_named(const hudi_tl_type *t, const char *name) {
  for (size_t i = 0; i < t->n_fields; i++)
    if (strcmp(t->fields[i].name, name) == 0) return &t->fields[i];
  return NULL;
}

static hudi_status put_keys(jw *w, const void *rec, const hudi_tl_type *t, const jkey *keys, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const hudi_tl_field *f = field_named(t, keys[i].name);
    if (!f) return hudi_err_set(w->err, HUDI_ERR_INTERNAL, "no field %s", keys[i].name);
    HUDI_TRY(member(w, keys[i].name));
    HUDI_TRY(put_value(w, (const char *)rec + f->offset, f->type, keys[i].zero));
  }
  return HUDI_OK;
}

static hudi_status put_stat(jw *w, const hudi_write_stat *s) {
  HUDI_TRY(obj_open(w));
  HUDI_TRY(put_keys(w, s, &hudi_write_stat_type, STAT_KEYS, sizeof STAT_KEYS / sizeof STAT_KEYS[0]));
  if (s->json_delta) {
    HUDI_TRY(put_keys(w, s, &hudi_write_stat_type, DELTA_KEYS, sizeof DELTA_KEYS / sizeof DELTA_KEYS[0]));
    /* Java's unused Option<Map> recordsStats field, always empty. */
    HUDI_TRY(member(w, "recordsStats"));
    HUDI_TRY(obj_open(w));
    HUDI_TRY(member(w, "val"));
    HUDI_TRY(puts_(w, "null"));
    HUDI_TRY(obj_close(w));
  }
  return obj_close(w);
}

static hudi_status put_value(jw *w, const void *src, const hudi_tl_type *t, int absent_zero) {
  switch (t->kind) {
    case HUDI_TL_STR: {
      const char *s = *(char *const *)src;
      return s ? put_str(w, s) : puts_(w, "null");
    }
    case HUDI_TL_LONG: {
      const hudi_tl_long *l = src;
      return l->has ? put_long(w, l->v) : puts_(w, absent_zero ? "0" : "null");
    }
    case HUDI_TL_INT: {
      const hudi_tl_int *l = src;
      return l->has ? put_long(w, l->v) : puts_(w, absent_zero ? "0" : "null");
    }
    case HUDI_TL_BOOL: {
      const hudi_tl_bool *b = src;
      return puts_(w, b->has ? (b->v ? "true" : "false") : absent_zero ? "false" : "null");
    }
    case HUDI_TL_DOUBLE: {
      const hudi_tl_double *d = src;
      if (!d->has) return puts_(w, "null");
      char b[40];
      int n = snprintf(b, sizeof b, "%.17g", d->v);
      return put(w, b, (size_t)n);
    }
    case HUDI_TL_REC: {
      const void *rec = *(void *const *)src;
      if (!rec) return puts_(w, "null");
      if (t == &hudi_runtime_stats_type) {
        HUDI_TRY(obj_open(w));
        HUDI_TRY(put_keys(w, rec, t, RUNTIME_KEYS, 3));
        return obj_close(w);
      }
      return hudi_err_set(w->err, HUDI_ERR_INTERNAL, "no JSON form for %s", t->name);
    }
    case HUDI_TL_ARRAY:
    case HUDI_TL_MAP: {
      const hudi_tl_list *l = src;
      if (!l->has && !l->n) return puts_(w, "null");
      if (t->elem == &hudi_write_stat_type) {
        HUDI_TRY(puts_(w, l->n ? "[ " : "[ ]"));
        for (size_t i = 0; i < l->n; i++) {
          if (i) HUDI_TRY(put(w, ", ", 2));
          HUDI_TRY(put_stat(w, (const hudi_write_stat *)l->items + i));
        }
        return l->n ? put(w, " ]", 2) : HUDI_OK;
      }
      return put_list(w, l, t);
    }
  }
  return hudi_err_set(w->err, HUDI_ERR_INTERNAL, "bad timeline type table");
}

hudi_status hudi_commit_metadata_to_json(const hudi_commit_metadata *m, hudi_buf *out, hudi_error *err) {
  jw w = {out, 0, 1, err};
  const hudi_tl_type *t = &hudi_commit_metadata_type;
  HUDI_TRY(obj_open(&w));
  /* Java always has these maps (empty, never null). */
  HUDI_TRY(member(&w, "partitionToWriteStats"));
  if (m->partition_to_write_stats.n) HUDI_TRY(put_value(&w, &m->partition_to_write_stats, t->fields[0].type, 0));
  else HUDI_TRY(puts_(&w, "{ }"));
  HUDI_TRY(member(&w, "compacted"));
  HUDI_TRY(put_value(&w, &m->compacted, &hudi_tl_t_bool, 1));
  HUDI_TRY(member(&w, "extraMetadata"));
  if (m->extra_metadata.n) HUDI_TRY(put_list(&w, &m->extra_metadata, &hudi_tl_t_str_map));
  else HUDI_TRY(puts_(&w, "{ }"));
  HUDI_TRY(member(&w, "operationType"));
  HUDI_TRY(put_value(&w, &m->operation_type, &hudi_tl_t_str, 0));
  if (hudi_commit_metadata_is_replace(m)) {
    HUDI_TRY(member(&w, "partitionToReplaceFileIds"));
    if (m->partition_to_replace_file_ids.n) HUDI_TRY(put_list(&w, &m->partition_to_replace_file_ids, &hudi_tl_t_strs_map));
    else HUDI_TRY(puts_(&w, "{ }"));
  }
  return obj_close(&w);
}
