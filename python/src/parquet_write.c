/* Test hook: _parquet_write(data, path, options) writes any Arrow-exporting
 * object (pyarrow Table/RecordBatch/RecordBatchReader, polars, ...) to a
 * local Parquet file with hudi-c's writer and returns a summary dict. Lets
 * the Python tests compare hudi-c's files with pyarrow's and DuckDB's views.
 *
 * options (all optional): codec ("snappy" | "gzip" | "zstd" | "lz4_raw" |
 * "none"), codec_level (int, 0: the codec's default), dictionary (bool),
 * data_page_v2 (bool), statistics (bool), page_bytes, row_group_rows,
 * row_group_bytes, dictionary_page_bytes (int), list_style (2 or 3), map_key_value_legacy (bool), decimal_as_integer
 * (bool), root_name (str), created_by (str), metadata ({str: str|bytes}). */
#include <string.h>

#include "ext.h"
#include "io/storage.h"
#include "parquet/writer.h"

PyObject *hudi_py_parquet_write(PyObject *self, PyObject *args);

static int opt_int(PyObject *opts, const char *key, int64_t *out) {
  PyObject *v = PyDict_GetItemString(opts, key); /* borrowed */
  if (!v) return 0;
  long long x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) return -1;
  *out = (int64_t)x;
  return 0;
}

static int opt_bool(PyObject *opts, const char *key, bool *out) {
  PyObject *v = PyDict_GetItemString(opts, key);
  if (!v) return 0;
  int t = PyObject_IsTrue(v);
  if (t < 0) return -1;
  *out = t != 0;
  return 0;
}

static int opt_str(PyObject *opts, const char *key, const char **out) {
  PyObject *v = PyDict_GetItemString(opts, key);
  if (!v) return 0;
  *out = PyUnicode_AsUTF8AndSize(v, NULL); /* lives as long as opts holds v */
  return *out ? 0 : -1;
}

static int parse_options(PyObject *opts, hudi_pq_writer_options *o) {
  if (opts == Py_None) return 0;
  if (!PyDict_Check(opts)) {
    PyErr_SetString(PyExc_TypeError, "options must be a dict");
    return -1;
  }
  const char *codec = NULL;
  int64_t list_style = 3, level = 0;
  if (opt_str(opts, "codec", &codec) < 0 || opt_int(opts, "page_bytes", &o->page_bytes) < 0 ||
      opt_int(opts, "row_group_rows", &o->row_group_rows) < 0 ||
      opt_int(opts, "row_group_bytes", &o->row_group_bytes) < 0 ||
      opt_int(opts, "dictionary_page_bytes", &o->dictionary_page_bytes) < 0 ||
      opt_bool(opts, "dictionary", &o->dictionary) < 0 || opt_bool(opts, "data_page_v2", &o->data_page_v2) < 0 ||
      opt_bool(opts, "statistics", &o->statistics) < 0 || opt_int(opts, "list_style", &list_style) < 0 ||
      opt_bool(opts, "map_key_value_legacy", &o->schema.map_key_value_legacy) < 0 ||
      opt_bool(opts, "decimal_as_integer", &o->schema.decimal_as_integer) < 0 ||
      opt_str(opts, "root_name", &o->schema.root_name) < 0 || opt_str(opts, "created_by", &o->created_by) < 0 ||
      opt_int(opts, "codec_level", &level) < 0)
    return -1;
  if (level < 0 || level > 22) {
    PyErr_Format(PyExc_ValueError, "codec_level %lld: 0 (the codec's default) to 22 allowed", (long long)level);
    return -1;
  }
  o->codec_level = (int)level;
  o->schema.list_style = list_style == 2 ? HUDI_PQ_LIST_2LEVEL : HUDI_PQ_LIST_3LEVEL;
  if (codec) {
    static const struct { const char *name; hudi_pq_codec c; } codecs[] = {
        {"none", HUDI_PQ_CODEC_UNCOMPRESSED}, {"uncompressed", HUDI_PQ_CODEC_UNCOMPRESSED},
        {"snappy", HUDI_PQ_CODEC_SNAPPY}, {"gzip", HUDI_PQ_CODEC_GZIP}, {"zstd", HUDI_PQ_CODEC_ZSTD},
        {"lz4_raw", HUDI_PQ_CODEC_LZ4_RAW}};
    size_t i = 0;
    for (; i < sizeof codecs / sizeof codecs[0]; i++)
      if (strcmp(codecs[i].name, codec) == 0) break;
    if (i == sizeof codecs / sizeof codecs[0]) {
      PyErr_Format(PyExc_ValueError, "unknown codec '%s'", codec);
      return -1;
    }
    o->codec = codecs[i].c;
  }
  return 0;
}

/* Footer key/values from options["metadata"]. */
static int add_metadata(hudi_pq_writer *w, PyObject *opts, hudi_error *err) {
  if (opts == Py_None) return 0;
  PyObject *md = PyDict_GetItemString(opts, "metadata");
  if (!md) return 0;
  if (!PyDict_Check(md)) {
    PyErr_SetString(PyExc_TypeError, "options['metadata'] must be a dict");
    return -1;
  }
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  while (PyDict_Next(md, &pos, &k, &v)) {
    const char *key = PyUnicode_AsUTF8AndSize(k, NULL);
    if (!key) return -1;
    char *data;
    Py_ssize_t len;
    if (PyBytes_Check(v)) {
      if (PyBytes_AsStringAndSize(v, &data, &len) < 0) return -1;
    } else {
      data = (char *)PyUnicode_AsUTF8AndSize(v, &len);
      if (!data) return -1;
    }
    if (hudi_pq_writer_add_metadata(w, key, data, (size_t)len, err) != HUDI_OK) {
      hudi_py_raise(err);
      return -1;
    }
  }
  return 0;
}

PyObject *hudi_py_parquet_write(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *data, *opts = Py_None;
  const char *path;
  if (!PyArg_ParseTuple(args, "Os|O", &data, &path, &opts)) return NULL;
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  if (parse_options(opts, &o) < 0) return NULL;
  /* The storage's base is the file's directory. */
  const char *slash = strrchr(path, '/');
  char dir[4096];
  const char *name = path;
  if (slash) {
    size_t n = (size_t)(slash - path);
    if (n >= sizeof dir) {
      PyErr_SetString(PyExc_ValueError, "path too long");
      return NULL;
    }
    memcpy(dir, path, n);
    dir[n] = 0;
    if (n == 0) strcpy(dir, "/");
    name = slash + 1;
  } else {
    strcpy(dir, ".");
  }
  struct ArrowArrayStream stream;
  if (hudi_py_import_stream(data, &stream) < 0) return NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *st = NULL;
  hudi_pq_writer *w = NULL;
  hudi_status s;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  if (stream.get_schema(&stream, &schema) != 0) {
    stream.release(&stream);
    PyErr_SetString(PyExc_ValueError, "the Arrow stream has no schema");
    return NULL;
  }
  hudi_storage_option so[] = {{"fsync", "false"}};
  s = hudi_storage_open(&st, dir, so, 1, &err);
  if (s == HUDI_OK) s = hudi_pq_writer_open_storage(&w, &schema, &o, st, name, &err);
  schema.release(&schema);
  if (s != HUDI_OK) {
    stream.release(&stream);
    hudi_storage_free(st);
    return hudi_py_raise(&err);
  }
  if (add_metadata(w, opts, &err) < 0) {
    stream.release(&stream);
    hudi_pq_writer_free(w);
    hudi_storage_free(st);
    return NULL;
  }
  hudi_pq_write_summary sum;
  memset(&sum, 0, sizeof sum);
  Py_BEGIN_ALLOW_THREADS
  s = hudi_pq_writer_write_stream(w, &stream, &err); /* releases the stream */
  if (s == HUDI_OK) s = hudi_pq_writer_close(w, &sum, &err);
  Py_END_ALLOW_THREADS
  hudi_pq_writer_free(w);
  hudi_storage_free(st);
  if (s != HUDI_OK) return hudi_py_raise(&err);
  PyObject *r = Py_BuildValue("{s:L,s:L,s:I,s:I}", "num_rows", (long long)sum.num_rows, "file_size",
                              (long long)sum.file_size, "num_row_groups", sum.num_row_groups, "num_columns",
                              sum.num_columns);
  hudi_pq_write_summary_free(&sum);
  return r;
}
