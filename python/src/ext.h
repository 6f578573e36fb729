/* Shared declarations of the hudi._hudi extension (CPython limited API). */
#ifndef HUDI_PY_EXT_H
#define HUDI_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hudi/arrow_abi.h"
#include "hudi/table.h"
#include "hudi/error.h"

/* Raises the Python exception that matches err->code, with its message.
 * Always returns NULL so callers can `return hudi_py_raise(&err);`. */
PyObject *hudi_py_raise(const hudi_error *err);

/* Creates the exception classes and adds them to the module. */
int hudi_py_add_exceptions(PyObject *module);

/* Takes an Arrow stream out of any object with __arrow_c_stream__ or
 * __arrow_c_array__ (pyarrow, polars, pandas 2.2+, ...). On success *out owns
 * the stream; on failure a Python exception is set and -1 returned. */
int hudi_py_import_stream(PyObject *obj, struct ArrowArrayStream *out);

/* Wraps a stream in a PyCapsule named "arrow_array_stream" (the Arrow
 * PyCapsule interface) that owns it. Moves *stream. */
PyObject *hudi_py_stream_capsule(struct ArrowArrayStream *stream);

/* Adds the Table type (table.c). */
int hudi_py_add_table_type(PyObject *module);

/* The hudi_table of a hudi._hudi.Table (borrowed), or NULL with a
 * TypeError set. */
struct hudi_table;
struct hudi_table *hudi_py_table_handle(PyObject *obj);

/* Methods implemented in read.c. */
PyObject *hudi_py_read(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_get_schema(PyObject *self, PyObject *args);
PyObject *hudi_py_file_slices(PyObject *self, PyObject *args, PyObject *kwargs);

/* Methods implemented in arrow_capsule.c. */
PyObject *hudi_py_arrow_roundtrip(PyObject *self, PyObject *obj);

/* dict[str, str] (or None) -> a hudi_option array borrowing the dict's
 * UTF-8 buffers (free with PyMem_Free); -1 with a Python error set. */
int hudi_py_options(PyObject *dict, hudi_option **out, size_t *n);

/* d[k] = v, stealing v; -1 (v NULL or the set failed) with an error set. */
int hudi_py_dict_put(PyObject *d, const char *k, PyObject *v);

/* Table services (one file each: compact.c, clean.c, rollback.c, archive.c). */
/* compact.c: _compact(table, options) -> dict. */
PyObject *hudi_py_compact(PyObject *self, PyObject *args, PyObject *kwargs);
/* compact.c: _wait_services(table) -> None (hudi_table_wait_services). */
PyObject *hudi_py_wait_services(PyObject *self, PyObject *args, PyObject *kwargs);
/* clean.c: _clean(table, options) -> dict. */
PyObject *hudi_py_clean(PyObject *self, PyObject *args, PyObject *kwargs);
/* rollback.c: _rollback(table, instant, options) -> dict. */
PyObject *hudi_py_rollback(PyObject *self, PyObject *args, PyObject *kwargs);
/* savepoint.c: _savepoint(table, instant, user, comment, options) -> dict,
 * _savepoints(table) -> [dict], _restore(table, instant, options) -> dict. */
PyObject *hudi_py_savepoint(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_savepoints(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_delete_savepoint(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *hudi_py_restore(PyObject *self, PyObject *args, PyObject *kwargs);
/* archive.c: _archive(table, options) -> dict. */
PyObject *hudi_py_archive(PyObject *self, PyObject *args, PyObject *kwargs);

#endif
