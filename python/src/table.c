/* hudi._hudi.Table: a handle on hudi_table (include/hudi/table.h). */
#include <string.h>

#include "ext.h"
#include "hudi/table.h"

typedef struct {
  PyObject_HEAD
  hudi_table *table;
} TableObject;

static void table_dealloc(PyObject *self) {
  TableObject *t = (TableObject *)self;
  if (t->table) {
    hudi_table *h = t->table;
    t->table = NULL;
    Py_BEGIN_ALLOW_THREADS
    hudi_table_free(h);
    Py_END_ALLOW_THREADS
  }
  PyTypeObject *tp = Py_TYPE(self);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(self);
  Py_DECREF(tp);
}

/* Converts a dict of str -> str into hudi_option entries that borrow the
 * dict's UTF-8 buffers (valid while the dict's strings live). */
static int options_from_dict(PyObject *dict, hudi_option **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (dict == NULL || dict == Py_None) return 0;
  if (!PyDict_Check(dict)) {
    PyErr_SetString(PyExc_TypeError, "options must be a dict of str to str");
    return -1;
  }
  Py_ssize_t size = PyDict_Size(dict);
  hudi_option *opts = PyMem_Calloc(size ? (size_t)size : 1, sizeof *opts);
  if (!opts) {
    PyErr_NoMemory();
    return -1;
  }
  Py_ssize_t pos = 0, i = 0;
  PyObject *k, *v;
  while (PyDict_Next(dict, &pos, &k, &v)) {
    if (!PyUnicode_Check(k) || !PyUnicode_Check(v)) {
      PyMem_Free(opts);
      PyErr_Format(PyExc_TypeError, "option %R must map a str to a str", k);
      return -1;
    }
    opts[i].key = PyUnicode_AsUTF8AndSize(k, NULL);
    opts[i].value = PyUnicode_AsUTF8AndSize(v, NULL);
    if (!opts[i].key || !opts[i].value) {
      PyMem_Free(opts);
      return -1;
    }
    i++;
  }
  *out = opts;
  *n = (size_t)i;
  return 0;
}

static int table_init(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"base_uri", "options", NULL};
  const char *uri;
  PyObject *options = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|O", kwlist, &uri, &options)) return -1;
  hudi_option *opts;
  size_t n;
  if (options_from_dict(options, &opts, &n) < 0) return -1;
  TableObject *t = (TableObject *)self;
  hudi_table *h = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_table_open(&h, uri, opts, n, &err);
  Py_END_ALLOW_THREADS
  PyMem_Free(opts);
  if (st != HUDI_OK) {
    hudi_py_raise(&err);
    return -1;
  }
  if (t->table) hudi_table_free(t->table);
  t->table = h;
  return 0;
}

static hudi_table *get(PyObject *self) {
  hudi_table *h = ((TableObject *)self)->table;
  if (!h) PyErr_SetString(PyExc_ValueError, "the table is not open");
  return h;
}

static PyObject *table_name(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  return h ? PyUnicode_FromString(hudi_table_name(h)) : NULL;
}

static PyObject *table_type(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  return h ? PyUnicode_FromString(hudi_table_type_name(hudi_table_get_type(h))) : NULL;
}

static PyObject *table_base_uri(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  return h ? PyUnicode_FromString(hudi_table_base_uri(h)) : NULL;
}

static PyObject *table_version(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  return h ? PyLong_FromLong(hudi_table_version(h)) : NULL;
}

static PyObject *table_layout(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  return h ? PyLong_FromLong(hudi_table_timeline_layout(h)) : NULL;
}

static PyObject *table_properties(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  if (!h) return NULL;
  PyObject *d = PyDict_New();
  if (!d) return NULL;
  for (size_t i = 0; i < hudi_table_property_count(h); i++) {
    const char *k, *v;
    hudi_table_property_at(h, i, &k, &v);
    PyObject *pv = PyUnicode_FromString(v);
    if (!pv || PyDict_SetItemString(d, k, pv) < 0) {
      Py_XDECREF(pv);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(pv);
  }
  return d;
}

/* [(requested_time, completion_time, action, requested_action, state, epoch_ms), ...] */
static PyObject *table_instants(PyObject *self, PyObject *unused) {
  hudi_table *h = get(self);
  if (!h) return NULL;
  size_t n = hudi_table_instant_count(h);
  PyObject *list = PyList_New((Py_ssize_t)n);
  if (!list) return NULL;
  for (size_t i = 0; i < n; i++) {
    hudi_instant_info in;
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_table_instant_at(h, i, &in, &err) != HUDI_OK) {
      Py_DECREF(list);
      return hudi_py_raise(&err);
    }
    PyObject *item = Py_BuildValue("(sssssL)", in.requested_time, in.completion_time, in.action,
                                   in.requested_action, hudi_instant_state_name(in.state),
                                   (long long)in.requested_epoch_ms);
    if (!item) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SetItem(list, (Py_ssize_t)i, item);
  }
  return list;
}

static PyMethodDef table_methods[] = {
    {"name", table_name, METH_NOARGS, "The table name (hoodie.table.name)."},
    {"table_type", table_type, METH_NOARGS, "COPY_ON_WRITE or MERGE_ON_READ."},
    {"base_uri", table_base_uri, METH_NOARGS, "The base URI the table was opened at."},
    {"version", table_version, METH_NOARGS, "The table version (6, 8 or 9)."},
    {"timeline_layout", table_layout, METH_NOARGS, "The timeline layout version (1 or 2)."},
    {"properties", table_properties, METH_NOARGS, "hoodie.properties as a dict."},
    {"instants", table_instants, METH_NOARGS,
     "The active timeline: (requested_time, completion_time, action, requested_action, state, "
     "requested_epoch_ms) tuples in requested-time order."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot table_slots[] = {
    {Py_tp_doc, "A Hudi table opened by libhudi."},
    {Py_tp_init, table_init},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_dealloc, table_dealloc},
    {Py_tp_methods, table_methods},
    {0, NULL},
};

static PyType_Spec table_spec = {"hudi._hudi.Table", sizeof(TableObject), 0, Py_TPFLAGS_DEFAULT, table_slots};

static PyObject *table_type_obj; /* the Table type, for hudi_py_table_handle */

int hudi_py_add_table_type(PyObject *module) {
  PyObject *type = PyType_FromSpec(&table_spec);
  if (!type) return -1;
  int rc = PyModule_AddObjectRef(module, "Table", type);
  if (rc == 0) table_type_obj = type; /* the module keeps it alive */
  Py_DECREF(type);
  return rc;
}

hudi_table *hudi_py_table_handle(PyObject *obj) {
  if (!table_type_obj || !PyObject_TypeCheck(obj, (PyTypeObject *)table_type_obj)) {
    PyErr_SetString(PyExc_TypeError, "expected a hudi._hudi.Table");
    return NULL;
  }
  hudi_table *h = ((TableObject *)obj)->table;
  if (!h) PyErr_SetString(PyExc_ValueError, "the table is closed");
  return h;
}
