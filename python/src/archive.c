/* hudi._hudi._archive (include/hudi/services.h hudi_table_archive).
 * Conversion only; the GIL is released around the C call. */
#include "ext.h"
#include "hudi/services.h"

PyObject *hudi_py_archive(PyObject *self, PyObject *args, PyObject *kwargs);

/* dict[str, str] -> hudi_option array borrowing the dict's UTF-8 buffers. */
static int archive_options(PyObject *dict, hudi_option **out, size_t *n) {
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

static int put(PyObject *d, const char *k, PyObject *v) {
  if (!v) return -1;
  int rc = PyDict_SetItemString(d, k, v);
  Py_DECREF(v);
  return rc;
}

PyObject *hudi_py_archive(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "options", NULL};
  PyObject *table, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &table, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(table);
  if (!t) return NULL;
  hudi_option *opts;
  size_t n;
  if (archive_options(options, &opts, &n) < 0) return NULL;
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
  if (put(d, "num_instants_archived", PyLong_FromLongLong(r.num_instants_archived)) < 0 ||
      put(d, "num_files_compacted", PyLong_FromLongLong(r.num_files_compacted)) < 0 ||
      put(d, "first_archived", PyUnicode_FromString(r.first_archived)) < 0 ||
      put(d, "last_archived", PyUnicode_FromString(r.last_archived)) < 0) {
    Py_DECREF(d);
    return NULL;
  }
  return d;
}
