/* hudi._hudi._rollback (include/hudi/services.h, hudi_table_rollback).
 * Conversion only; the GIL is released around the C call. */
#include "ext.h"
#include "hudi/services.h"

PyObject *hudi_py_rollback(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"table", "instant", "options", NULL};
  PyObject *table, *options = NULL;
  const char *instant;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|O", kwlist, &table, &instant, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_rollback_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_rollback(&r, t, instant, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "rolled_back_instant", PyUnicode_FromString(r.rolled_back_instant)) < 0 ||
      hudi_py_dict_put(d, "requested_time", PyUnicode_FromString(r.requested_time)) < 0 ||
      hudi_py_dict_put(d, "completion_time", PyUnicode_FromString(r.completion_time)) < 0 ||
      hudi_py_dict_put(d, "num_files_deleted", PyLong_FromLongLong(r.num_files_deleted)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}
