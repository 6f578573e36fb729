/* Test hook: reads a local Parquet file with libhudi's reader and returns
 * an 'arrow_array_stream' PyCapsule, so tests can compare it with
 * pyarrow.parquet.read_table. */
#include <string.h>

#include "base/alloc.h"
#include "arrow/stream.h"
#include "base/threadpool.h"
#include "ext.h"
#include "io/storage.h"
#include "parquet/reader.h"

PyObject *hudi_py_parquet_read(PyObject *self, PyObject *args, PyObject *kwargs);

/* Splits path into a directory (the storage base) and a file name. */
static int split_path(const char *path, char **dir, const char **name) {
  const char *slash = strrchr(path, '/');
  if (!slash) {
    *dir = hudi_strdup(".");
    *name = path;
  } else {
    *dir = hudi_strndup(path, slash == path ? 1 : (size_t)(slash - path));
    *name = slash + 1;
  }
  return *dir ? 0 : -1;
}

/* The strings of a sequence, borrowed from it (NULL when cols is None). */
static int column_list(PyObject *cols, const char ***out, Py_ssize_t *n) {
  *out = NULL;
  *n = 0;
  if (cols == Py_None) return 0;
  Py_ssize_t k = PySequence_Size(cols);
  if (k < 0) return -1;
  const char **names = hudi_calloc((size_t)k + 1, sizeof *names);
  if (!names) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < k; i++) {
    PyObject *s = PySequence_GetItem(cols, i);
    if (!s) goto fail;
    names[i] = PyUnicode_AsUTF8AndSize(s, NULL);
    Py_DECREF(s); /* the sequence keeps the string (and its UTF-8) alive */
    if (!names[i]) goto fail;
  }
  *out = names;
  *n = k;
  return 0;
fail:
  hudi_free(names);
  return -1;
}

PyObject *hudi_py_parquet_read(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kw[] = {"path", "columns", "batch_size", "threads", NULL};
  const char *path;
  PyObject *cols = Py_None;
  long long batch = 0;
  int threads = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|OLi", kw, &path, &cols, &batch, &threads)) return NULL;
  const char **names;
  Py_ssize_t n_names;
  if (column_list(cols, &names, &n_names) < 0) return NULL;
  char *dir;
  const char *name;
  if (split_path(path, &dir, &name) < 0) {
    hudi_free(names);
    return PyErr_NoMemory();
  }
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st;
  hudi_storage *storage = NULL;
  hudi_threadpool *pool = NULL;
  hudi_pq_reader *r = NULL;
  struct ArrowArrayStream stream;
  struct ArrowArray *batches = NULL;
  Py_BEGIN_ALLOW_THREADS
  hudi_pq_reader_options opts = HUDI_PQ_READER_OPTIONS_INIT;
  opts.batch_size = batch;
  opts.columns = names;
  opts.n_columns = (size_t)n_names;
  st = hudi_storage_open(&storage, dir, NULL, 0, &err);
  if (st == HUDI_OK && threads > 1) st = hudi_threadpool_create(&pool, threads - 1, &err);
  opts.pool = pool;
  if (st == HUDI_OK) st = hudi_pq_reader_open(&r, storage, name, &opts, &err);
  /* The storage and pool must outlive the reader, which the stream owns:
   * read every batch now and hand out a stream over them. */
  int64_t n = 0, cap = 0;
  while (st == HUDI_OK) {
    if (n == cap) {
      cap = cap ? cap * 2 : 8;
      struct ArrowArray *nb = hudi_realloc(batches, (size_t)cap * sizeof *nb);
      if (!nb) {
        st = hudi_err_set(&err, HUDI_ERR_NOMEM, "out of memory");
        break;
      }
      batches = nb;
    }
    bool eof = false;
    st = hudi_pq_reader_next(r, &batches[n], &eof, &err);
    if (st != HUDI_OK || eof) break;
    n++;
  }
  if (st == HUDI_OK) st = hudi_arrow_stream_from_batches(&stream, hudi_pq_reader_schema(r), batches, n, &err);
  else
    for (int64_t i = 0; i < n; i++) batches[i].release(&batches[i]);
  hudi_pq_reader_free(r);
  hudi_threadpool_free(pool);
  hudi_storage_free(storage);
  Py_END_ALLOW_THREADS
  hudi_free(batches);
  hudi_free(dir);
  hudi_free(names);
  if (st != HUDI_OK) return hudi_py_raise(&err);
  return hudi_py_stream_capsule(&stream);
}
