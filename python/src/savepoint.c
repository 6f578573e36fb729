/* hudi._hudi._savepoint, _delete_savepoint, _savepoints, _restore (include/hudi/services.h).
 * Conversion only; the GIL is released around the C calls. */
#include "ext.h"
#include "hudi/services.h"

PyObject *hudi_py_savepoint(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "instant", "user", "comment", "options", NULL};
  PyObject *table, *options = NULL;
  const char *instant = NULL, *user = "", *comment = "";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|zssO", kwlist, &table, &instant, &user, &comment, &options))
    return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_savepoint_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_savepoint(&r, t, instant, user, comment, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "instant", PyUnicode_FromString(r.instant)) < 0 ||
      hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(r.completion_time)) < 0 ||
      hudi_py_dict_put(d, "num_partitions", PyLong_FromLongLong(r.num_partitions)) < 0 ||
      hudi_py_dict_put(d, "num_files", PyLong_FromLongLong(r.num_files)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

PyObject *hudi_py_delete_savepoint(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "instant", "options", NULL};
  PyObject *table, *options = NULL;
  const char *instant;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|O", kwlist, &table, &instant, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_delete_savepoint(t, instant, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  Py_RETURN_NONE;
}

PyObject *hudi_py_savepoints(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", NULL};
  PyObject *table;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kwlist, &table)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_savepoint_list l;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_savepoints(&l, t, &err);
  Py_END_ALLOW_THREADS
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *list = PyList_New(0);
  for (size_t i = 0; list && i < l.count; i++) {
    const hudi_savepoint_info *s = &l.items[i];
    PyObject *d = PyDict_New();
    if (!d || hudi_py_dict_put(d, "instant", PyUnicode_FromString(s->instant)) < 0 ||
        hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(s->completion_time)) < 0 ||
        hudi_py_dict_put(d, "user", PyUnicode_FromString(s->user)) < 0 ||
        hudi_py_dict_put(d, "comments", PyUnicode_FromString(s->comments)) < 0 ||
        hudi_py_dict_put(d, "savepointed_at", PyLong_FromLongLong(s->savepointed_at)) < 0 ||
        hudi_py_dict_put(d, "num_files", PyLong_FromLongLong(s->num_files)) < 0 || PyList_Append(list, d) < 0) {
      Py_XDECREF(d);
      Py_CLEAR(list);
      break;
    }
    Py_DECREF(d);
  }
  hudi_savepoint_list_free(&l);
  return list;
}

PyObject *hudi_py_restore(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "instant", "options", NULL};
  PyObject *table, *options = NULL;
  const char *instant;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|O", kwlist, &table, &instant, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_restore_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_restore(&r, t, instant, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "requested_time", PyUnicode_FromString(r.requested_time)) < 0 ||
      hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(r.completion_time)) < 0 ||
      hudi_py_dict_put(d, "num_instants_rolled_back", PyLong_FromLongLong(r.num_instants_rolled_back)) < 0 ||
      hudi_py_dict_put(d, "num_files_deleted", PyLong_FromLongLong(r.num_files_deleted)) < 0 ||
      hudi_py_dict_put(d, "metadata_table_rebuilt", PyBool_FromLong(r.metadata_table_rebuilt)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}
