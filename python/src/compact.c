/* hudi._hudi._compact (include/hudi/services.h, hudi_table_compact).
 * Conversion only; the GIL is released around the C call. */
#include "ext.h"
#include "hudi/services.h"

PyObject *hudi_py_compact(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "options", NULL};
  PyObject *table, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &table, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_compact_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_compact(&r, t, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "requested_time", PyUnicode_FromString(r.requested_time)) < 0 ||
      hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(r.completion_time)) < 0 ||
      hudi_py_dict_put(d, "num_file_groups", PyLong_FromLongLong(r.num_file_groups)) < 0 ||
      hudi_py_dict_put(d, "num_log_files", PyLong_FromLongLong(r.num_log_files)) < 0 ||
      hudi_py_dict_put(d, "num_records", PyLong_FromLongLong(r.num_records)) < 0 ||
      hudi_py_dict_put(d, "files_written", PyLong_FromLongLong(r.files_written)) < 0 ||
      hudi_py_dict_put(d, "bytes_written", PyLong_FromLongLong(r.bytes_written)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}

/* _wait_services(table): hudi_table_wait_services; None, or raises the
 * background compaction's error. */
PyObject *hudi_py_wait_services(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", NULL};
  PyObject *table;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O", kwlist, &table)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_wait_services(t, &err);
  Py_END_ALLOW_THREADS
  if (st != HUDI_OK) return hudi_py_raise(&err);
  Py_RETURN_NONE;
}
