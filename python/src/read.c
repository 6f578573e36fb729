/* hudi._hudi._read / _get_schema / _file_slices: the read API
 * (include/hudi/read.h) for hudi/read.py. */
#include <string.h>

#include "ext.h"
#include "hudi/read.h"

/* Everything the C options borrow, kept alive until the call returns. */
typedef struct py_read_args {
  hudi_read_options ro;
  hudi_option *opts;
  hudi_read_filter *filters;
  const char **proj;
  PyObject *keep; /* list of objects whose UTF-8 buffers are borrowed */
} py_read_args;

static void args_free(py_read_args *a) {
  PyMem_Free(a->opts);
  PyMem_Free(a->filters);
  PyMem_Free(a->proj);
  Py_XDECREF(a->keep);
}

static const char *utf8_of(py_read_args *a, PyObject *o) {
  PyObject *s = PyUnicode_Check(o) ? (Py_INCREF(o), o) : PyObject_Str(o);
  if (!s) return NULL;
  if (PyList_Append(a->keep, s) < 0) {
    Py_DECREF(s);
    return NULL;
  }
  Py_DECREF(s);
  return PyUnicode_AsUTF8AndSize(s, NULL);
}

/* A filter value: a str as it is; a list/tuple (IN) joined with commas,
 * escaping ',' and '\\' as hudi_expr_from_filter reads them. */
static const char *filter_value(py_read_args *a, PyObject *v) {
  if (!PyList_Check(v) && !PyTuple_Check(v)) return utf8_of(a, v);
  PyObject *parts = PyList_New(0);
  if (!parts) return NULL;
  Py_ssize_t n = PySequence_Size(v);
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_GetItem(v, i);
    PyObject *s = item ? PyObject_Str(item) : NULL;
    Py_XDECREF(item);
    PyObject *e1 = s ? PyObject_CallMethod(s, "replace", "ss", "\\", "\\\\") : NULL;
    Py_XDECREF(s);
    PyObject *e2 = e1 ? PyObject_CallMethod(e1, "replace", "ss", ",", "\\,") : NULL;
    Py_XDECREF(e1);
    if (!e2 || PyList_Append(parts, e2) < 0) {
      Py_XDECREF(e2);
      Py_DECREF(parts);
      return NULL;
    }
    Py_DECREF(e2);
  }
  PyObject *sep = PyUnicode_FromString(",");
  PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
  Py_XDECREF(sep);
  Py_DECREF(parts);
  if (!joined) return NULL;
  const char *r = utf8_of(a, joined);
  Py_DECREF(joined);
  return r;
}

static int args_parse(py_read_args *a, PyObject *options, PyObject *filters, PyObject *sql, PyObject *projection) {
  memset(a, 0, sizeof *a);
  hudi_read_options init = HUDI_READ_OPTIONS_INIT;
  a->ro = init;
  if (!(a->keep = PyList_New(0))) return -1;
  if (options && options != Py_None) {
    if (!PyDict_Check(options)) {
      PyErr_SetString(PyExc_TypeError, "options must be a dict of str to str");
      return -1;
    }
    Py_ssize_t n = PyDict_Size(options), pos = 0, i = 0;
    if (!(a->opts = PyMem_Calloc((size_t)n + 1, sizeof *a->opts))) return (PyErr_NoMemory(), -1);
    PyObject *k, *v;
    while (PyDict_Next(options, &pos, &k, &v)) {
      if (!(a->opts[i].key = utf8_of(a, k)) || !(a->opts[i].value = utf8_of(a, v))) return -1;
      i++;
    }
    a->ro.options = a->opts;
    a->ro.n_options = (size_t)i;
  }
  if (filters && filters != Py_None) {
    PyObject *seq = PySequence_List(filters);
    if (!seq) return -1;
    if (PyList_Append(a->keep, seq) < 0) {
      Py_DECREF(seq);
      return -1;
    }
    Py_DECREF(seq);
    Py_ssize_t n = PyList_Size(seq);
    if (!(a->filters = PyMem_Calloc((size_t)n + 1, sizeof *a->filters))) return (PyErr_NoMemory(), -1);
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *t = PyList_GetItem(seq, i);
      if (!PySequence_Check(t) || PySequence_Size(t) != 3) {
        PyErr_Format(PyExc_TypeError, "filter %R is not a (field, op, value) tuple", t);
        return -1;
      }
      PyObject *f = PySequence_GetItem(t, 0), *o = PySequence_GetItem(t, 1), *v = PySequence_GetItem(t, 2);
      int ok = f && o && v && (a->filters[i].field = utf8_of(a, f)) && (a->filters[i].op = utf8_of(a, o)) &&
               (a->filters[i].value = filter_value(a, v));
      Py_XDECREF(f);
      Py_XDECREF(o);
      Py_XDECREF(v);
      if (!ok) return -1;
    }
    a->ro.filters = a->filters;
    a->ro.n_filters = (size_t)n;
  }
  if (sql && sql != Py_None && !(a->ro.filter_sql = utf8_of(a, sql))) return -1;
  if (projection && projection != Py_None) {
    PyObject *seq = PySequence_List(projection);
    if (!seq) return -1;
    if (PyList_Append(a->keep, seq) < 0) {
      Py_DECREF(seq);
      return -1;
    }
    Py_DECREF(seq);
    Py_ssize_t n = PyList_Size(seq);
    if (!(a->proj = PyMem_Calloc((size_t)n + 1, sizeof *a->proj))) return (PyErr_NoMemory(), -1);
    for (Py_ssize_t i = 0; i < n; i++)
      if (!(a->proj[i] = utf8_of(a, PyList_GetItem(seq, i)))) return -1;
    a->ro.projection = a->proj;
    a->ro.n_projection = (size_t)n;
  }
  return 0;
}

PyObject *hudi_py_read(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "options", "filters", "sql", "projection", NULL};
  PyObject *tobj, *options = NULL, *filters = NULL, *sql = NULL, *projection = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOOO", kwlist, &tobj, &options, &filters, &sql, &projection))
    return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  py_read_args a;
  if (args_parse(&a, options, filters, sql, projection) < 0) {
    args_free(&a);
    return NULL;
  }
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_read(&s, t, &a.ro, &err);
  Py_END_ALLOW_THREADS
  args_free(&a);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return hudi_py_stream_capsule(&s);
}

static void schema_capsule_free(PyObject *cap) {
  struct ArrowSchema *s = PyCapsule_GetPointer(cap, "arrow_schema");
  if (s) {
    if (s->release) s->release(s);
    PyMem_Free(s);
  }
}

PyObject *hudi_py_get_schema(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *tobj;
  int with_meta = 0;
  if (!PyArg_ParseTuple(args, "Op", &tobj, &with_meta)) return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  struct ArrowSchema *s = PyMem_Calloc(1, sizeof *s);
  if (!s) return PyErr_NoMemory();
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_get_schema(s, t, with_meta != 0, &err);
  Py_END_ALLOW_THREADS
  if (st != HUDI_OK) {
    PyMem_Free(s);
    return hudi_py_raise(&err);
  }
  PyObject *cap = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
  if (!cap) {
    s->release(s);
    PyMem_Free(s);
  }
  return cap;
}

static PyObject *str_or_none(const char *s) {
  if (s) return PyUnicode_FromString(s);
  Py_RETURN_NONE;
}

PyObject *hudi_py_file_slices(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "options", "filters", "sql", NULL};
  PyObject *tobj, *options = NULL, *filters = NULL, *sql = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO", kwlist, &tobj, &options, &filters, &sql)) return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  py_read_args a;
  if (args_parse(&a, options, filters, sql, NULL) < 0) {
    args_free(&a);
    return NULL;
  }
  hudi_file_slice_list *l = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_file_slices(&l, t, &a.ro, &err);
  Py_END_ALLOW_THREADS
  args_free(&a);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  size_t n = hudi_file_slice_list_count(l);
  PyObject *out = PyList_New((Py_ssize_t)n);
  for (size_t i = 0; out && i < n; i++) {
    hudi_file_slice_info fi;
    hudi_file_slice_list_at(l, i, &fi);
    PyObject *logs = PyList_New((Py_ssize_t)fi.n_log_files);
    for (size_t j = 0; logs && j < fi.n_log_files; j++) {
      PyObject *p = PyUnicode_FromString(fi.log_files[j]);
      if (!p) {
        Py_CLEAR(logs);
        break;
      }
      PyList_SetItem(logs, (Py_ssize_t)j, p);
    }
    PyObject *tup = logs ? Py_BuildValue("(NNNNN)", str_or_none(fi.partition), str_or_none(fi.file_id),
                                         str_or_none(fi.base_instant), str_or_none(fi.base_file), logs)
                         : NULL;
    if (!tup) {
      Py_CLEAR(out);
      break;
    }
    PyList_SetItem(out, (Py_ssize_t)i, tup);
  }
  hudi_file_slice_list_free(l);
  return out;
}

PyObject *hudi_py_read_file_group(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_read_file_group(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "partition", "file_id", "options", "filters", "sql", "projection", NULL};
  PyObject *tobj, *options = NULL, *filters = NULL, *sql = NULL, *projection = NULL;
  const char *partition, *file_id;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oss|OOOO", kwlist, &tobj, &partition, &file_id, &options, &filters,
                                   &sql, &projection))
    return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  py_read_args a;
  if (args_parse(&a, options, filters, sql, projection) < 0) {
    args_free(&a);
    return NULL;
  }
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_read_file_group(&s, t, &a.ro, partition, file_id, &err);
  Py_END_ALLOW_THREADS
  args_free(&a);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return hudi_py_stream_capsule(&s);
}

PyObject *hudi_py_table_stats(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_table_stats(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "options", NULL};
  PyObject *tobj, *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", kwlist, &tobj, &options)) return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  py_read_args a;
  if (args_parse(&a, options, NULL, NULL, NULL) < 0) {
    args_free(&a);
    return NULL;
  }
  hudi_table_stats ts;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_compute_stats(&ts, t, &a.ro, &err);
  Py_END_ALLOW_THREADS
  args_free(&a);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return Py_BuildValue("(OKKs)", ts.available ? Py_True : Py_False, (unsigned long long)ts.num_rows,
                       (unsigned long long)ts.byte_size, ts.reason);
}

PyObject *hudi_py_read_file_slice_paths(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_read_file_slice_paths(PyObject *self, PyObject *args, PyObject *kwargs) {
  (void)self;
  static char *kwlist[] = {"table", "base_file", "log_files", "options", "filters", "sql", "projection", NULL};
  PyObject *tobj, *base = NULL, *logs = NULL, *options = NULL, *filters = NULL, *sql = NULL, *projection = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OOOO", kwlist, &tobj, &base, &logs, &options, &filters, &sql,
                                   &projection))
    return NULL;
  hudi_table *t = hudi_py_table_handle(tobj);
  if (!t) return NULL;
  py_read_args a;
  if (args_parse(&a, options, filters, sql, projection) < 0) {
    args_free(&a);
    return NULL;
  }
  const char *base_file = base == Py_None ? NULL : utf8_of(&a, base);
  Py_ssize_t n = PySequence_Size(logs);
  const char **log_files = n >= 0 ? PyMem_Calloc((size_t)n + 1, sizeof *log_files) : NULL;
  int ok = (base == Py_None || base_file) && log_files;
  for (Py_ssize_t i = 0; ok && i < n; i++) {
    PyObject *item = PySequence_GetItem(logs, i); /* utf8_of keeps the str alive */
    ok = item && (log_files[i] = utf8_of(&a, item)) != NULL;
    Py_XDECREF(item);
  }
  if (!ok) {
    PyMem_Free(log_files);
    args_free(&a);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return NULL;
  }
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_read_file_slice_paths(&s, t, &a.ro, base_file, log_files, (size_t)n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(log_files);
  args_free(&a);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return hudi_py_stream_capsule(&s);
}
