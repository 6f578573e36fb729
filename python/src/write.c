/* hudi._hudi write functions: _create and _append (include/hudi/write.h).
 * Conversion only; the GIL is released around the C calls. */
#include <string.h>

#include "ext.h"
#include "hudi/write.h"

PyObject *hudi_py_create(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_append(PyObject *self, PyObject *args, PyObject *kwargs);

int hudi_py_options(PyObject *dict, hudi_option **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (dict == NULL || dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "options must be a dict of str to str");
    return -1;
  }
  Py_ssize_t size = PyDict_Size(dict), pos = 0, i = 0;
  hudi_option *o = PyMem_Calloc(size ? (size_t)size : 1, sizeof *o);
  if (!o) {
    PyErr_NoMemory();
    return -1;
  }
  PyObject *k, *v;
  while (PyDict_Next(dict, &pos, &k, &v)) {
    if (!PyUnicode_Check(k) || !PyUnicode_Check(v)) {
      PyMem_Free(o);
      PyErr_Format(PyExc_TypeError, "option %R must map a str to a str", k);
      return -1;
    }
    o[i].key = PyUnicode_AsUTF8AndSize(k, NULL);
    o[i].value = PyUnicode_AsUTF8AndSize(v, NULL);
    if (!o[i].key || !o[i].value) {
      PyMem_Free(o);
      return -1;
    }
    i++;
  }
  *out = o;
  *n = (size_t)i;
  return 0;
}

PyObject *hudi_py_create(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"base_uri", "record_key", "table_type", "partition_fields", "ordering_fields",
                           "table_name", "database_name", "record_index_enabled", "options", NULL};
  const char *uri, *key, *type, *parts = NULL, *ordering = NULL, *name = NULL, *db = NULL;
  int rli = 1;
  PyObject *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sss|zzzzpO", kwlist, &uri, &key, &type, &parts, &ordering, &name,
                                   &db, &rli, &options))
    return NULL;
  hudi_create_options o = HUDI_CREATE_OPTIONS_INIT;
  if (!strcmp(type, "cow")) o.type = HUDI_COPY_ON_WRITE;
  else if (!strcmp(type, "mor")) o.type = HUDI_MERGE_ON_READ;
  else {
    PyErr_Format(PyExc_ValueError, "table_type must be 'cow' or 'mor', got %s", type);
    return NULL;
  }
  o.record_key_fields = key;
  o.partition_fields = parts;
  o.ordering_fields = ordering;
  o.table_name = name;
  o.database_name = db;
  o.record_index_enabled = rli != 0;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  o.options = opts;
  o.n_options = n;
  hudi_table *t = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_create(&t, uri, &o, &err);
  if (t) hudi_table_free(t);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  Py_RETURN_NONE;
}

int hudi_py_dict_put(PyObject *d, const char *k, PyObject *v) {
  if (!v) return -1;
  int rc = PyDict_SetItemString(d, k, v);
  Py_DECREF(v);
  return rc;
}

static PyObject *result_dict(const hudi_write_result *r) {
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "requested_time", PyUnicode_FromString(r->requested_time)) < 0 ||
      hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(r->completion_time)) < 0 ||
      hudi_py_dict_put(d, "action", PyUnicode_FromString(r->action)) < 0 ||
      hudi_py_dict_put(d, "operation", PyUnicode_FromString(r->operation)) < 0 ||
      hudi_py_dict_put(d, "num_writes", PyLong_FromLongLong(r->num_writes)) < 0 ||
      hudi_py_dict_put(d, "num_inserts", PyLong_FromLongLong(r->num_inserts)) < 0 ||
      hudi_py_dict_put(d, "num_updates", PyLong_FromLongLong(r->num_updates)) < 0 ||
      hudi_py_dict_put(d, "num_deletes", PyLong_FromLongLong(r->num_deletes)) < 0 ||
      hudi_py_dict_put(d, "files_written", PyLong_FromLongLong(r->files_written)) < 0 ||
      hudi_py_dict_put(d, "bytes_written", PyLong_FromLongLong(r->bytes_written)) < 0 ||
      hudi_py_dict_put(d, "partitions_written", PyLong_FromLongLong(r->partitions_written)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

PyObject *hudi_py_append(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "data", "options", NULL};
  PyObject *table, *data, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O", kwlist, &table, &data, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  struct ArrowArrayStream stream;
  memset(&stream, 0, sizeof stream);
  if (hudi_py_import_stream(data, &stream) < 0) {
    PyMem_Free(opts);
    return NULL;
  }
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  /* The stream's callbacks may be Python-backed (a RecordBatchReader over
   * a generator); they take the GIL themselves, as pyarrow's exporter does. */
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_append(&r, t, &stream, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}

/* ---- keyed writes: _upsert, _delete, _delete_keys, _update ---- */

PyObject *hudi_py_upsert(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_delete(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_delete_keys(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_update(PyObject *self, PyObject *args, PyObject *kwargs);

PyObject *hudi_py_upsert(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "data", "options", NULL};
  PyObject *table, *data, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O", kwlist, &table, &data, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  struct ArrowArrayStream stream;
  memset(&stream, 0, sizeof stream);
  if (hudi_py_import_stream(data, &stream) < 0) {
    PyMem_Free(opts);
    return NULL;
  }
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_upsert(&r, t, &stream, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}

PyObject *hudi_py_delete(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "predicate", "options", NULL};
  PyObject *table, *options = NULL;
  const char *pred;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|O", kwlist, &table, &pred, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_delete(&r, t, pred, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}

PyObject *hudi_py_delete_keys(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "keys", "options", NULL};
  PyObject *table, *keys, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O", kwlist, &table, &keys, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  PyObject *seq = PySequence_List(keys);
  if (!seq) return NULL;
  Py_ssize_t nk = PyList_Size(seq);
  const char **ks = PyMem_Calloc(nk ? (size_t)nk : 1, sizeof *ks);
  if (!ks) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < nk; i++) {
    PyObject *k = PyList_GetItem(seq, i);
    if (!PyUnicode_Check(k)) {
      PyErr_Format(PyExc_TypeError, "record key %zd must be a str, got %R", i, k);
      PyMem_Free(ks);
      Py_DECREF(seq);
      return NULL;
    }
    ks[i] = PyUnicode_AsUTF8AndSize(k, NULL);
    if (!ks[i]) {
      PyMem_Free(ks);
      Py_DECREF(seq);
      return NULL;
    }
  }
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) {
    PyMem_Free(ks);
    Py_DECREF(seq);
    return NULL;
  }
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_delete_keys(&r, t, ks, (size_t)nk, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  PyMem_Free(ks);
  Py_DECREF(seq);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}

/* assignments: a list of (column, value, kind) with value a str or None
 * and kind 0 (SQL literal) or 1 (text cast to the column's type). */
PyObject *hudi_py_update(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "predicate", "assignments", "options", NULL};
  PyObject *table, *as, *options = NULL;
  const char *pred = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OzO|O", kwlist, &table, &pred, &as, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  PyObject *seq = PySequence_List(as);
  if (!seq) return NULL;
  Py_ssize_t na = PyList_Size(seq);
  hudi_update_assignment *a = PyMem_Calloc(na ? (size_t)na : 1, sizeof *a);
  if (!a) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < na; i++) {
    const char *col, *val;
    int kind;
    if (!PyArg_ParseTuple(PyList_GetItem(seq, i), "szi", &col, &val, &kind)) {
      PyMem_Free(a);
      Py_DECREF(seq);
      return NULL;
    }
    a[i].column = col;
    a[i].value = val;
    a[i].kind = kind ? HUDI_ASSIGN_STRING : HUDI_ASSIGN_SQL;
  }
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) {
    PyMem_Free(a);
    Py_DECREF(seq);
    return NULL;
  }
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_update(&r, t, pred, a, (size_t)na, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  PyMem_Free(a);
  Py_DECREF(seq);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}

PyObject *hudi_py_overwrite(PyObject *self, PyObject *args, PyObject *kwargs);

/* scope: "partitions" (INSERT_OVERWRITE) or "table" (INSERT_OVERWRITE_TABLE). */
PyObject *hudi_py_overwrite(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "data", "scope", "options", NULL};
  PyObject *table, *data, *options = NULL;
  const char *scope;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOs|O", kwlist, &table, &data, &scope, &options)) return NULL;
  hudi_overwrite_scope sc;
  if (!strcmp(scope, "partitions")) sc = HUDI_OVERWRITE_PARTITIONS;
  else if (!strcmp(scope, "table")) sc = HUDI_OVERWRITE_TABLE;
  else {
    PyErr_Format(PyExc_ValueError, "scope must be 'partitions' or 'table', got %s", scope);
    return NULL;
  }
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  struct ArrowArrayStream stream;
  memset(&stream, 0, sizeof stream);
  if (hudi_py_import_stream(data, &stream) < 0) {
    PyMem_Free(opts);
    return NULL;
  }
  hudi_write_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_overwrite(&r, t, &stream, sc, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return result_dict(&r);
}
