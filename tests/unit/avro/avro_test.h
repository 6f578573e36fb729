/* Helpers shared by the Avro tests: files, the "test JSON" form of values
 * (see tests/avro/fastavro_oracle.py), running the fastavro oracle. */
#ifndef HUDI_TEST_AVRO_TEST_H
#define HUDI_TEST_AVRO_TEST_H

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "avro/container.h"
#include "avro/value.h"
#include "base/alloc.h"

static inline uint8_t *avro_test_read_file(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n + 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return p;
}

static inline int avro_test_write_file(const char *path, const uint8_t *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, len, f);
  return fclose(f) == 0 && w == len ? 0 : -1;
}

static inline json_t *tagged(const char *tag, json_t *v) {
  json_t *o = json_object();
  json_object_set_new(o, tag, v);
  return o;
}

/* The test-JSON form of a decoded value. */
static inline json_t *avro_test_tj(const hudi_avro_value *v) {
  v = hudi_avro_value_unwrap(v);
  const hudi_avro_node *n = v->node;
  switch (n->type) {
    case HUDI_AVRO_NULL: return json_null();
    case HUDI_AVRO_BOOLEAN: return json_boolean(v->v.boolean);
    case HUDI_AVRO_INT:
      if (n->logical == HUDI_AVRO_LOGICAL_DATE) return tagged("$date", json_integer(v->v.i));
      if (n->logical == HUDI_AVRO_LOGICAL_TIME_MILLIS) return tagged("$time", json_integer((json_int_t)v->v.i * 1000));
      return json_integer(v->v.i);
    case HUDI_AVRO_LONG:
      switch (n->logical) {
        case HUDI_AVRO_LOGICAL_TIME_MICROS: return tagged("$time", json_integer(v->v.l));
        case HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS:
        case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: return tagged("$ts", json_integer(v->v.l * 1000));
        case HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS:
        case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: return tagged("$ts", json_integer(v->v.l));
        default: return json_integer(v->v.l);
      }
    case HUDI_AVRO_FLOAT:
    case HUDI_AVRO_DOUBLE: {
      double d = n->type == HUDI_AVRO_FLOAT ? (double)v->v.f : v->v.d;
      if (isnan(d)) return json_string("NaN");
      if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
      return json_real(d);
    }
    case HUDI_AVRO_STRING: return json_stringn((const char *)v->v.bytes.data, v->v.bytes.len);
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_FIXED: {
      if (n->logical == HUDI_AVRO_LOGICAL_DECIMAL) {
        hudi_buf b;
        hudi_buf_init(&b, 0);
        if (hudi_avro_decimal_to_string(v->v.bytes.data, v->v.bytes.len, n->scale, &b, NULL) != HUDI_OK) return NULL;
        json_t *s = json_stringn((const char *)b.data, b.len);
        hudi_buf_free(&b);
        return tagged("$decimal", s);
      }
      char *hex = malloc(v->v.bytes.len * 2 + 1);
      for (size_t i = 0; i < v->v.bytes.len; i++) sprintf(hex + 2 * i, "%02x", v->v.bytes.data[i]);
      hex[v->v.bytes.len * 2] = 0;
      json_t *r = tagged("$bytes", json_string(hex));
      free(hex);
      return r;
    }
    case HUDI_AVRO_ENUM: return json_string(n->symbols[v->v.symbol]);
    case HUDI_AVRO_ARRAY: {
      json_t *a = json_array();
      for (size_t i = 0; i < v->v.list.n; i++) json_array_append_new(a, avro_test_tj(&v->v.list.items[i]));
      return a;
    }
    case HUDI_AVRO_MAP: {
      json_t *o = json_object();
      for (size_t i = 0; i < v->v.map.n; i++)
        json_object_setn_new(o, v->v.map.keys[i].data, v->v.map.keys[i].len, avro_test_tj(&v->v.map.values[i]));
      return o;
    }
    case HUDI_AVRO_RECORD: {
      json_t *o = json_object();
      for (uint32_t i = 0; i < n->n_fields; i++)
        json_object_set_new(o, n->fields[i].name, avro_test_tj(&v->v.list.items[i]));
      return o;
    }
    case HUDI_AVRO_UNION: break;
  }
  return NULL;
}

/* The project's venv python (tests need fastavro); HUDI_TEST_PYTHON overrides. */
static inline const char *avro_test_python(void) {
  const char *p = getenv("HUDI_TEST_PYTHON");
  return p ? p : HUDI_SOURCE_DIR "/.venv/bin/python";
}

/* Runs the oracle script with args; returns its exit status. */
static inline int avro_test_oracle(const char *args) {
  size_t cap = strlen(avro_test_python()) + strlen(HUDI_SOURCE_DIR) + strlen(args) + 64;
  char *cmd = malloc(cap);
  if (!cmd) return -1;
  snprintf(cmd, cap, "'%s' '%s/tests/avro/fastavro_oracle.py' %s", avro_test_python(), HUDI_SOURCE_DIR, args);
  int rc = system(cmd);
  free(cmd);
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* A fresh scratch directory under the current (build) directory. */
static inline void avro_test_scratch(char *out, size_t cap, const char *name) {
  char cwd[2048];
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
  snprintf(out, cap, "%s/avro_%s_%ld", cwd, name, (long)getpid());
  mkdir(out, 0755);
}

/* Removes a flat scratch directory made by avro_test_scratch. */
static inline void avro_test_rmdir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
}

#endif
