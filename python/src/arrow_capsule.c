/* The Arrow PyCapsule interface: taking streams and arrays from Python
 * objects (__arrow_c_stream__, __arrow_c_array__) and handing streams back. */
#include <string.h>

#include "arrow/stream.h"
#include "ext.h"

static void release_stream_capsule(PyObject *capsule) {
  struct ArrowArrayStream *s = PyCapsule_GetPointer(capsule, "arrow_array_stream");
  if (!s) {
    PyErr_Clear();
    return;
  }
  if (s->release) s->release(s);
  PyMem_Free(s);
}

PyObject *hudi_py_stream_capsule(struct ArrowArrayStream *stream) {
  struct ArrowArrayStream *s = PyMem_Malloc(sizeof *s);
  if (!s) {
    if (stream->release) stream->release(stream);
    return PyErr_NoMemory();
  }
  *s = *stream;
  stream->release = NULL;
  PyObject *cap = PyCapsule_New(s, "arrow_array_stream", release_stream_capsule);
  if (!cap) {
    if (s->release) s->release(s);
    PyMem_Free(s);
  }
  return cap;
}

/* Moves the struct out of a capsule: per the PyCapsule protocol the
 * consumer takes ownership by marking the producer's copy released. */
static void *capsule_take(PyObject *cap, const char *name) {
  if (!PyCapsule_IsValid(cap, name)) {
    PyErr_Format(PyExc_TypeError, "expected a PyCapsule named '%s'", name);
    return NULL;
  }
  return PyCapsule_GetPointer(cap, name);
}

static int import_from_stream(PyObject *obj, struct ArrowArrayStream *out) {
  PyObject *cap = PyObject_CallMethod(obj, "__arrow_c_stream__", NULL);
  if (!cap) return -1;
  struct ArrowArrayStream *s = capsule_take(cap, "arrow_array_stream");
  if (!s) {
    Py_DECREF(cap);
    return -1;
  }
  if (!s->release) {
    Py_DECREF(cap);
    PyErr_SetString(PyExc_ValueError, "the Arrow stream was already consumed");
    return -1;
  }
  *out = *s;
  s->release = NULL;
  Py_DECREF(cap);
  return 0;
}

static int import_from_array(PyObject *obj, struct ArrowArrayStream *out) {
  PyObject *pair = PyObject_CallMethod(obj, "__arrow_c_array__", NULL);
  if (!pair) return -1;
  if (!PyTuple_Check(pair) || PyTuple_Size(pair) != 2) {
    Py_DECREF(pair);
    PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ must return a (schema, array) tuple");
    return -1;
  }
  struct ArrowSchema *schema = capsule_take(PyTuple_GetItem(pair, 0), "arrow_schema");
  struct ArrowArray *array = schema ? capsule_take(PyTuple_GetItem(pair, 1), "arrow_array") : NULL;
  if (!schema || !array) {
    Py_DECREF(pair);
    return -1;
  }
  if (!schema->release || !array->release) {
    Py_DECREF(pair);
    PyErr_SetString(PyExc_ValueError, "the Arrow array was already consumed");
    return -1;
  }
  struct ArrowSchema sc = *schema;
  struct ArrowArray ar = *array;
  schema->release = NULL;
  array->release = NULL;
  Py_DECREF(pair);
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_arrow_stream_from_array(out, &sc, &ar, &err) != HUDI_OK) {
    hudi_py_raise(&err);
    return -1;
  }
  return 0;
}

int hudi_py_import_stream(PyObject *obj, struct ArrowArrayStream *out) {
  memset(out, 0, sizeof *out);
  if (PyObject_HasAttrString(obj, "__arrow_c_stream__")) return import_from_stream(obj, out);
  if (PyObject_HasAttrString(obj, "__arrow_c_array__")) return import_from_array(obj, out);
  PyErr_Format(PyExc_TypeError,
               "expected Arrow data (an object with __arrow_c_stream__ or __arrow_c_array__, such as "
               "a pyarrow Table, RecordBatch or RecordBatchReader, or a polars or pandas DataFrame), got %R",
               (PyObject *)Py_TYPE(obj));
  return -1;
}

PyObject *hudi_py_arrow_roundtrip(PyObject *self, PyObject *obj) {
  struct ArrowArrayStream in, out;
  if (hudi_py_import_stream(obj, &in) < 0) return NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  Py_BEGIN_ALLOW_THREADS
  st = hudi_arrow_stream_rebuild(&out, &in, &err);
  Py_END_ALLOW_THREADS
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return hudi_py_stream_capsule(&out);
}
