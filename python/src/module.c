/* hudi._hudi: the module object, its methods and exceptions. The extension
 * only converts between Python and the C API; all logic lives in libhudi. */
#include "ext.h"

#include "hudi/common.h"

static PyObject *exc_base, *exc_invalid, *exc_conflict, *exc_corrupt, *exc_io, *exc_not_found,
    *exc_unsupported, *exc_exists;

static PyObject *new_exc(PyObject *module, const char *name, const char *doc, PyObject *bases) {
  char qualified[128];
  PyOS_snprintf(qualified, sizeof qualified, "hudi.%s", name);
  PyObject *cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
  if (cls && PyModule_AddObjectRef(module, name, cls) < 0) Py_CLEAR(cls);
  return cls;
}

static PyObject *tuple2(PyObject *a, PyObject *b) { return PyTuple_Pack(2, a, b); }

int hudi_py_add_exceptions(PyObject *m) {
  exc_base = new_exc(m, "HudiError", "Base class of every error raised by hudi.", PyExc_Exception);
  if (!exc_base) return -1;
  PyObject *b = tuple2(exc_base, PyExc_ValueError);
  exc_invalid = b ? new_exc(m, "HudiInvalidInputError",
                            "Bad input: an unknown column, a missing key, a wrong type, invalid SQL.", b)
                  : NULL;
  Py_XDECREF(b);
  exc_conflict = new_exc(m, "HudiConflictError", "A concurrent writer committed first.", exc_base);
  exc_corrupt = new_exc(m, "HudiCorruptDataError",
                        "Stored bytes do not follow their format (file and offset in the message).",
                        exc_base);
  b = tuple2(exc_base, PyExc_OSError);
  exc_io = b ? new_exc(m, "HudiIOError", "The storage failed.", b) : NULL;
  Py_XDECREF(b);
  b = exc_io ? tuple2(exc_io, PyExc_FileNotFoundError) : NULL;
  exc_not_found = b ? new_exc(m, "HudiNotFoundError", "A table, file or instant does not exist.", b) : NULL;
  Py_XDECREF(b);
  b = tuple2(exc_base, PyExc_NotImplementedError);
  exc_unsupported = b ? new_exc(m, "HudiUnsupportedError", "Valid, but not supported by hudi-c.", b) : NULL;
  Py_XDECREF(b);
  b = tuple2(exc_base, PyExc_FileExistsError);
  exc_exists = b ? new_exc(m, "HudiAlreadyExistsError",
                           "What is being created exists already (a table at the path, say).", b)
                 : NULL;
  Py_XDECREF(b);
  if (!exc_invalid || !exc_conflict || !exc_corrupt || !exc_io || !exc_not_found || !exc_unsupported || !exc_exists)
    return -1;
  return 0;
}

PyObject *hudi_py_raise(const hudi_error *err) {
  PyObject *cls = exc_base;
  switch (err->code) {
    case HUDI_ERR_INVALID_ARG: cls = exc_invalid; break;
    case HUDI_ERR_CONFLICT: cls = exc_conflict; break;
    case HUDI_ERR_CORRUPT: cls = exc_corrupt; break;
    case HUDI_ERR_IO: cls = exc_io; break;
    case HUDI_ERR_NOT_FOUND: cls = exc_not_found; break;
    case HUDI_ERR_UNSUPPORTED: cls = exc_unsupported; break;
    case HUDI_ERR_EXISTS: cls = exc_exists; break;
    case HUDI_ERR_NOMEM: PyErr_SetString(PyExc_MemoryError, err->message); return NULL;
    default: break;
  }
  PyErr_SetString(cls, err->message[0] ? err->message : hudi_status_name(err->code));
  return NULL;
}

static PyObject *py_version(PyObject *self, PyObject *unused) {
  return PyUnicode_FromString(hudi_version());
}

static PyObject *py_raise_status(PyObject *self, PyObject *args) {
  /* Test hook: raises the exception mapped to a status code. */
  int code;
  const char *msg;
  if (!PyArg_ParseTuple(args, "is", &code, &msg)) return NULL;
  hudi_error err = HUDI_ERROR_INIT;
  err.code = (hudi_status)code;
  PyOS_snprintf(err.message, sizeof err.message, "%s", msg);
  return hudi_py_raise(&err);
}

/* Defined in parquet.c and parquet_write.c (the Parquet layer's test hooks). */
PyObject *hudi_py_parquet_read(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_parquet_write(PyObject *self, PyObject *args);

/* Defined in write.c (table creation and writes). */
PyObject *hudi_py_create(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_append(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_upsert(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_delete(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_delete_keys(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_update(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_overwrite(PyObject *self, PyObject *args, PyObject *kwargs);

/* Defined in read.c (one file group of a planned read). */
PyObject *hudi_py_read_file_group(PyObject *self, PyObject *args, PyObject *kwargs);
/* Defined in read.c (planning statistics, hudi_table_compute_stats). */
PyObject *hudi_py_table_stats(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_read_file_slice_paths(PyObject *self, PyObject *args, PyObject *kwargs);

static PyMethodDef methods[] = {
    {"version", py_version, METH_NOARGS, "The libhudi version string."},
    {"_raise_status", py_raise_status, METH_VARARGS, "Test hook: raise the error for a status code."},
    {"_arrow_roundtrip", hudi_py_arrow_roundtrip, METH_O,
     "Imports an Arrow stream/array through libhudi's Arrow layer, rebuilds every batch with its "
     "builders and returns the result as an 'arrow_array_stream' PyCapsule."},
    {"_parquet_read", (PyCFunction)(void (*)(void))hudi_py_parquet_read, METH_VARARGS | METH_KEYWORDS,
     "Reads a Parquet file through libhudi's reader (test hook): an 'arrow_array_stream' capsule."},
    {"_parquet_write", hudi_py_parquet_write, METH_VARARGS, "Writes a Parquet file with libhudi's writer (test hook)."},
    {"_read", (PyCFunction)(void (*)(void))hudi_py_read, METH_VARARGS | METH_KEYWORDS,
     "_read(table, options, filters, sql, projection): an 'arrow_array_stream' capsule."},
    {"_get_schema", hudi_py_get_schema, METH_VARARGS,
     "_get_schema(table, with_meta_fields): an 'arrow_schema' capsule."},
    {"_create", (PyCFunction)(void (*)(void))hudi_py_create, METH_VARARGS | METH_KEYWORDS,
     "_create(base_uri, record_key, table_type, ...): creates a table (include/hudi/write.h)."},
    {"_append", (PyCFunction)(void (*)(void))hudi_py_append, METH_VARARGS | METH_KEYWORDS,
     "_append(table, data, options): bulk insert; returns the write result as a dict."},
    {"_upsert", (PyCFunction)(void (*)(void))hudi_py_upsert, METH_VARARGS | METH_KEYWORDS,
     "_upsert(table, data, options): upsert; returns the write result as a dict."},
    {"_delete", (PyCFunction)(void (*)(void))hudi_py_delete, METH_VARARGS | METH_KEYWORDS,
     "_delete(table, predicate, options): deletes the rows matching a SQL predicate."},
    {"_delete_keys", (PyCFunction)(void (*)(void))hudi_py_delete_keys, METH_VARARGS | METH_KEYWORDS,
     "_delete_keys(table, keys, options): deletes records by record key."},
    {"_update", (PyCFunction)(void (*)(void))hudi_py_update, METH_VARARGS | METH_KEYWORDS,
     "_update(table, predicate, [(column, value, kind)], options): UPDATE ... SET ... WHERE."},
    {"_overwrite", (PyCFunction)(void (*)(void))hudi_py_overwrite, METH_VARARGS | METH_KEYWORDS,
     "_overwrite(table, data, scope, options): insert overwrite of 'partitions' or the 'table'."},
    {"_file_slices", (PyCFunction)(void (*)(void))hudi_py_file_slices, METH_VARARGS | METH_KEYWORDS,
     "_file_slices(table, options, filters, sql): list of (partition, file_id, base_instant, base_file, log_files)."},
    {"_read_file_group", (PyCFunction)(void (*)(void))hudi_py_read_file_group, METH_VARARGS | METH_KEYWORDS,
     "_read_file_group(table, partition, file_id, options, filters, sql, projection): an 'arrow_array_stream' "
     "capsule of that file group's slice (hudi_table_read_file_group)."},
    {"_table_stats", (PyCFunction)(void (*)(void))hudi_py_table_stats, METH_VARARGS | METH_KEYWORDS,
     "_table_stats(table, options): (available, num_rows, byte_size, reason) (hudi_table_compute_stats)."},
    {"_read_file_slice_paths", (PyCFunction)(void (*)(void))hudi_py_read_file_slice_paths,
     METH_VARARGS | METH_KEYWORDS,
     "_read_file_slice_paths(table, base_file, log_files, options, filters, sql, projection): an "
     "'arrow_array_stream' capsule (hudi_table_read_file_slice_paths)."},
    {"_compact", (PyCFunction)(void (*)(void))hudi_py_compact, METH_VARARGS | METH_KEYWORDS,
     "_compact(table, options): compacts a MERGE_ON_READ table (hudi_table_compact); a dict."},
    {"_wait_services", (PyCFunction)(void (*)(void))hudi_py_wait_services, METH_VARARGS | METH_KEYWORDS,
     "_wait_services(table): waits for the table's background compaction; raises its error."},
    {"_clean", (PyCFunction)(void (*)(void))hudi_py_clean, METH_VARARGS | METH_KEYWORDS,
     "_clean(table, options): deletes the file slices the cleaning policy no longer retains; a dict."},
    {"_rollback", (PyCFunction)(void (*)(void))hudi_py_rollback, METH_VARARGS | METH_KEYWORDS,
     "_rollback(table, instant, options): rolls back a pending write or the latest completed write; a dict."},
    {"_savepoint", (PyCFunction)(void (*)(void))hudi_py_savepoint, METH_VARARGS | METH_KEYWORDS,
     "_savepoint(table, instant, user, comment, options): savepoints a completed commit; a dict."},
    {"_delete_savepoint", (PyCFunction)(void (*)(void))hudi_py_delete_savepoint, METH_VARARGS | METH_KEYWORDS,
     "_delete_savepoint(table, instant, options): deletes a savepoint; None."},
    {"_savepoints", (PyCFunction)(void (*)(void))hudi_py_savepoints, METH_VARARGS | METH_KEYWORDS,
     "_savepoints(table): the completed savepoints; a list of dicts."},
    {"_restore", (PyCFunction)(void (*)(void))hudi_py_restore, METH_VARARGS | METH_KEYWORDS,
     "_restore(table, instant, options): restores the table to a savepoint; a dict."},
    {"_archive", (PyCFunction)(void (*)(void))hudi_py_archive, METH_VARARGS | METH_KEYWORDS,
     "_archive(table, options): moves the oldest completed instants into the LSM history; a dict."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_hudi", "Native core of the hudi package.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__hudi(void);
PyMODINIT_FUNC PyInit__hudi(void) {
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (hudi_py_add_exceptions(m) < 0 || hudi_py_add_table_type(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
