/* Helpers of the Avro <-> Arrow tests: Arrow values in the "test JSON"
 * form of tests/avro/fastavro_oracle.py (read through array views, which
 * share no code with the codec), Arrow fields from JSON trees, running
 * tests/avro/arrow_oracle.py. */
#ifndef HUDI_TEST_AVRO_ARROW_UTIL_H
#define HUDI_TEST_AVRO_ARROW_UTIL_H

#include "avro_test.h"

#include "arrow/field.h"
#include "arrow/view.h"
#include "avro/value.h"

static inline json_t *arrow_tj(const hudi_arrow_view *v, int64_t i);

static inline json_t *arrow_tj_hex(const uint8_t *p, int64_t n) {
  char *hex = malloc((size_t)n * 2 + 1);
  for (int64_t k = 0; k < n; k++) sprintf(hex + 2 * k, "%02x", p[k]);
  hex[n * 2] = 0;
  json_t *r = tagged("$bytes", json_string(hex));
  free(hex);
  return r;
}

static inline int64_t arrow_tj_micros(hudi_arrow_time_unit u, int64_t x) {
  switch (u) {
    case HUDI_ARROW_SECOND: return x * 1000000;
    case HUDI_ARROW_MILLI: return x * 1000;
    case HUDI_ARROW_MICRO: return x;
    default: return x / 1000;
  }
}

static inline json_t *arrow_tj(const hudi_arrow_view *v, int64_t i) {
  if (v->dictionary) {
    if (hudi_arrow_view_is_null(v, i)) return json_null();
    return arrow_tj(v->dictionary, hudi_arrow_view_dict_index(v, i));
  }
  if (hudi_arrow_view_is_null(v, i)) return json_null();
  switch (v->type.id) {
    case HUDI_ARROW_BOOL: return json_boolean(hudi_arrow_view_bool(v, i));
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64: return json_integer(hudi_arrow_view_int(v, i));
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_UINT64: return json_integer((json_int_t)hudi_arrow_view_uint(v, i));
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DOUBLE: {
      double d = hudi_arrow_view_double(v, i);
      if (isnan(d)) return json_string("NaN");
      if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
      return json_real(d);
    }
    case HUDI_ARROW_DECIMAL: {
      const uint8_t *le = hudi_arrow_view_fixed(v, i);
      uint8_t be[16];
      for (int k = 0; k < 16; k++) be[k] = le[15 - k];
      hudi_buf b;
      hudi_buf_init(&b, 0);
      if (hudi_avro_decimal_to_string(be, 16, v->type.scale, &b, NULL) != HUDI_OK) return NULL;
      json_t *s = json_stringn((const char *)b.data, b.len);
      hudi_buf_free(&b);
      return tagged("$decimal", s);
    }
    case HUDI_ARROW_DATE32: return tagged("$date", json_integer(hudi_arrow_view_int(v, i)));
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
      return tagged("$time", json_integer(arrow_tj_micros(v->type.unit, hudi_arrow_view_int(v, i))));
    case HUDI_ARROW_TIMESTAMP:
      return tagged("$ts", json_integer(arrow_tj_micros(v->type.unit, hudi_arrow_view_int(v, i))));
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW: {
      int64_t n;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &n);
      return json_stringn((const char *)p, (size_t)n);
    }
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW:
    case HUDI_ARROW_FIXED_SIZE_BINARY: {
      int64_t n;
      const uint8_t *p = hudi_arrow_view_bytes(v, i, &n);
      return arrow_tj_hex(p, n);
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST: {
      int64_t s, e;
      hudi_arrow_view_list_range(v, i, &s, &e);
      json_t *a = json_array();
      for (int64_t k = s; k < e; k++) json_array_append_new(a, arrow_tj(&v->children[0], k));
      return a;
    }
    case HUDI_ARROW_MAP: {
      int64_t s, e;
      hudi_arrow_view_list_range(v, i, &s, &e);
      const hudi_arrow_view *en = &v->children[0];
      json_t *o = json_object();
      for (int64_t k = s; k < e; k++) {
        int64_t row = hudi_arrow_view_struct_row(en, k);
        json_t *key = arrow_tj(&en->children[0], row);
        json_object_set_new(o, json_string_value(key), arrow_tj(&en->children[1], row));
        json_decref(key);
      }
      return o;
    }
    case HUDI_ARROW_STRUCT: {
      json_t *o = json_object();
      int64_t row = hudi_arrow_view_struct_row(v, i);
      for (int64_t k = 0; k < v->n_children; k++)
        json_object_set_new(o, v->children[k].name, arrow_tj(&v->children[k], row));
      return o;
    }
    default: return json_null();
  }
}

/* The rows of a record batch (the top struct's own validity ignored). */
static inline json_t *arrow_tj_rows(const hudi_arrow_view *batch) {
  json_t *rows = json_array();
  for (int64_t r = 0; r < batch->length; r++) {
    json_t *o = json_object();
    int64_t row = hudi_arrow_view_struct_row(batch, r);
    for (int64_t k = 0; k < batch->n_children; k++)
      json_object_set_new(o, batch->children[k].name, arrow_tj(&batch->children[k], row));
    json_array_append_new(rows, o);
  }
  return rows;
}

/* Compares row by row, printing the first difference; returns 0 when equal. */
static inline int arrow_tj_compare(json_t *got, json_t *expected, const char *what) {
  if (json_array_size(got) != json_array_size(expected)) {
    fprintf(stderr, "%s: %zu rows, expected %zu\n", what, json_array_size(got), json_array_size(expected));
    return 1;
  }
  for (size_t r = 0; r < json_array_size(got); r++) {
    json_t *g = json_array_get(got, r), *e = json_array_get(expected, r);
    if (!json_equal(g, e)) {
      char *gs = json_dumps(g, JSON_SORT_KEYS | JSON_COMPACT), *es = json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT);
      fprintf(stderr, "%s row %zu differs:\n got %.2000s\n exp %.2000s\n", what, r, gs, es);
      free(gs);
      free(es);
      return 1;
    }
  }
  return 0;
}

/* An Arrow field from {"name", "format", "nullable", "children"}. */
static inline hudi_status arrow_field_from_json(hudi_arrow_field *f, json_t *j) {
  json_t *nm = json_object_get(j, "name");
  hudi_status st = hudi_arrow_field_init(f, nm ? json_string_value(nm) : NULL,
                                         json_string_value(json_object_get(j, "format")),
                                         json_is_true(json_object_get(j, "nullable")) ? ARROW_FLAG_NULLABLE : 0,
                                         NULL);
  if (st != HUDI_OK) return st;
  json_t *ch = json_object_get(j, "children");
  if (!ch || !json_array_size(ch)) return HUDI_OK;
  st = hudi_arrow_field_alloc_children(f, (int64_t)json_array_size(ch), NULL);
  for (size_t k = 0; st == HUDI_OK && k < json_array_size(ch); k++)
    st = arrow_field_from_json(&f->children[k], json_array_get(ch, k));
  return st;
}

/* Runs tests/avro/arrow_oracle.py with args; returns its exit status. */
static inline int arrow_oracle(const char *args) {
  size_t cap = strlen(avro_test_python()) + strlen(HUDI_SOURCE_DIR) + strlen(args) + 64;
  char *cmd = malloc(cap);
  if (!cmd) return -1;
  snprintf(cmd, cap, "'%s' '%s/tests/avro/arrow_oracle.py' %s", avro_test_python(), HUDI_SOURCE_DIR, args);
  int rc = system(cmd);
  free(cmd);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

#endif
