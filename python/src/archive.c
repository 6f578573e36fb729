/* hudi._hudi._archive (include/hudi/services.h hudi_table_archive).
 * Conversion only; the GIL is released around the C call. */
#include "ext.h"
#include "hudi/services.h"

PyObject *hudi_py_archive(PyObject *self, PyObject *args, PyObject *kwargs);

PyObject *hudi_py_archive(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "options", NULL};
  PyObject *table, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &table, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (hudi_py_options(options, &opts, &n) < 0) return NULL;
  hudi_archive_result r;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_archive(&r, t, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  if (hudi_py_dict_put(d, "num_instants_archived", PyLong_FromLongLong(r.num_instants_archived)) < 0 ||
      hudi_py_dict_put(d, "num_files_compacted", PyLong_FromLongLong(r.num_files_compacted)) < 0 ||
      hudi_py_dict_put(d, "first_archived", PyUnicode_FromString(r.first_archived)) < 0 ||
      hudi_py_dict_put(d, "last_archived", PyUnicode_FromString(r.last_archived)) < 0 ||
      hudi_py_dict_put(d, "mdt_instants_archived", PyLong_FromLongLong(r.mdt_instants_archived)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}
