/* The index definitions file (index_defs.h). */
#include "table/index_defs.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "table/hadoop_crc.h"

#define MAX_DEPTH 16

static hudi_status put_string(hudi_buf *o, const char *s, size_t len, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_byte(o, '"', err));
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    switch (c) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      default: break;
    }
    if (esc) {
      HUDI_TRY(hudi_buf_append_str(o, esc, err));
    } else if (c < 0x20) {
      HUDI_TRY(hudi_buf_printf(o, err, "\\u%04X", c));
    } else {
      HUDI_TRY(hudi_buf_append_byte(o, c, err));
    }
  }
  return hudi_buf_append_byte(o, '"', err);
}

static hudi_status indent(hudi_buf *o, int depth, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_byte(o, '\n', err));
  for (int i = 0; i < depth; i++) HUDI_TRY(hudi_buf_append_str(o, "  ", err));
  return HUDI_OK;
}

static hudi_status render(const json_t *v, hudi_buf *o, int depth, hudi_error *err) {
  if (depth > MAX_DEPTH) return hudi_err_set(err, HUDI_ERR_LIMIT, "index definitions nested deeper than %d", MAX_DEPTH);
  switch (json_typeof(v)) {
    case JSON_OBJECT: {
      if (json_object_size(v) == 0) return hudi_buf_append_str(o, "{ }", err);
      HUDI_TRY(hudi_buf_append_byte(o, '{', err));
      const char *key;
      json_t *member;
      bool first = true;
      json_object_foreach((json_t *)v, key, member) {
        if (!first) HUDI_TRY(hudi_buf_append_byte(o, ',', err));
        first = false;
        HUDI_TRY(indent(o, depth + 1, err));
        HUDI_TRY(put_string(o, key, strlen(key), err));
        HUDI_TRY(hudi_buf_append_str(o, " : ", err));
        HUDI_TRY(render(member, o, depth + 1, err));
      }
      HUDI_TRY(indent(o, depth, err));
      return hudi_buf_append_byte(o, '}', err);
    }
    case JSON_ARRAY: {
      if (json_array_size(v) == 0) return hudi_buf_append_str(o, "[ ]", err);
      HUDI_TRY(hudi_buf_append_str(o, "[ ", err));
      for (size_t i = 0; i < json_array_size(v); i++) {
        if (i) HUDI_TRY(hudi_buf_append_str(o, ", ", err));
        HUDI_TRY(render(json_array_get(v, i), o, depth, err));
      }
      return hudi_buf_append_str(o, " ]", err);
    }
    case JSON_STRING: return put_string(o, json_string_value(v), json_string_length(v), err);
    case JSON_INTEGER: return hudi_buf_printf(o, err, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    case JSON_REAL: return hudi_buf_printf(o, err, "%.17g", json_real_value(v));
    case JSON_TRUE: return hudi_buf_append_str(o, "true", err);
    case JSON_FALSE: return hudi_buf_append_str(o, "false", err);
    case JSON_NULL: return hudi_buf_append_str(o, "null", err);
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "unknown JSON value type");
}

hudi_status hudi_index_defs_render(const json_t *root, hudi_buf *out, hudi_error *err) {
  return render(root, out, 0, err);
}

json_t *hudi_index_defs_new_entry(const char *name, const char *function, const char *version) {
  json_t *e = json_object();
  if (!e) return NULL;
  /* HoodieIndexDefinition's property order. */
  int bad = json_object_set_new(e, "indexName", json_string(name));
  bad |= json_object_set_new(e, "indexType", json_string(name));
  bad |= json_object_set_new(e, "indexFunction", json_string(function));
  bad |= json_object_set_new(e, "sourceFields", json_array());
  bad |= json_object_set_new(e, "indexOptions", json_object());
  if (version) bad |= json_object_set_new(e, "version", json_string(version));
  if (bad) {
    json_decref(e);
    return NULL;
  }
  return e;
}

json_t *hudi_index_defs_new_record_index(void) {
  json_t *e = hudi_index_defs_new_entry("record_index", "", "V1");
  if (e && json_object_set_new(json_object_get(e, "indexOptions"), "isPartitioned", json_string("false")) != 0) {
    json_decref(e);
    return NULL;
  }
  return e;
}

hudi_status hudi_index_defs_save(hudi_storage *s, const char *path, const json_t *root, hudi_error *err) {
  hudi_buf out;
  hudi_buf_init(&out, HUDI_INDEX_DEFS_MAX);
  hudi_status st = hudi_index_defs_render(root, &out, err);
  if (st == HUDI_OK) st = hudi_hadoop_crc_delete(s, path, err);
  if (st == HUDI_OK) st = hudi_storage_write(s, path, out.data, out.len, 0, err);
  hudi_buf_free(&out);
  return st;
}

static bool same_fields(const json_t *fields, const char *const *cols, size_t n) {
  if (!json_is_array(fields) || json_array_size(fields) != n) return false;
  for (size_t i = 0; i < n; i++) {
    const char *v = json_string_value(json_array_get(fields, i));
    if (!v || strcmp(v, cols[i])) return false;
  }
  return true;
}

hudi_status hudi_index_defs_load(json_t **root, hudi_storage *s, const char *path, hudi_error *err) {
  *root = NULL;
  if (!path || !*path) path = HUDI_INDEX_DEFS_DEFAULT_PATH;
  hudi_buf text;
  hudi_buf_init(&text, HUDI_INDEX_DEFS_MAX);
  hudi_status st = hudi_storage_read_all(s, path, HUDI_INDEX_DEFS_MAX, &text, err);
  if (st != HUDI_OK) {
    hudi_buf_free(&text);
    return st;
  }
  json_error_t je;
  *root = json_loadb((const char *)text.data, text.len, 0, &je);
  hudi_buf_free(&text);
  if (!*root) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: not JSON (line %d: %s)", path, je.line, je.text);
  return HUDI_OK;
}

static hudi_status set_fields(json_t *def, const char *const *cols, size_t n, hudi_error *err) {
  json_t *arr = json_array();
  if (!arr) return hudi_err_set(err, HUDI_ERR_NOMEM, "index definitions");
  for (size_t i = 0; i < n; i++)
    if (json_array_append_new(arr, json_string(cols[i])) != 0) {
      json_decref(arr);
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column name '%s' is not UTF-8", cols[i]);
    }
  if (json_object_set_new(def, "sourceFields", arr) != 0)
    return hudi_err_set(err, HUDI_ERR_NOMEM, "index definitions");
  return HUDI_OK;
}

hudi_status hudi_index_defs_set_source_fields(hudi_storage *s, const char *path, const char *index,
                                              const char *const *cols, size_t n, bool *changed, hudi_error *err) {
  if (changed) *changed = false;
  if (!path || !*path) path = HUDI_INDEX_DEFS_DEFAULT_PATH;
  json_t *root = NULL;
  HUDI_TRY(hudi_index_defs_load(&root, s, path, err));
  json_t *def = json_object_get(json_object_get(root, "indexDefinitions"), index);
  hudi_status st = json_is_object(def) ? HUDI_OK
                                       : hudi_err_set(err, HUDI_ERR_NOT_FOUND, "%s: no %s index definition", path, index);
  if (st == HUDI_OK && same_fields(json_object_get(def, "sourceFields"), cols, n)) {
    json_decref(root);
    return HUDI_OK;
  }
  if (st == HUDI_OK) st = set_fields(def, cols, n, err);
  if (st == HUDI_OK) st = hudi_index_defs_save(s, path, root, err);
  if (st == HUDI_OK && changed) *changed = true;
  json_decref(root);
  return st;
}
