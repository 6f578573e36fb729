/* Reading a file slice given by its file paths (hudi_table_read_file_slice_paths
 * in hudi/read.h): hudi-rs's FileGroupReader::read_file_slice_from_paths.
 * The read is planned as hudi_table_read plans it (schemas, filter,
 * projection, time range, log visibility); the slice read is the one the
 * caller names instead of one from the plan's file-system view. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/stream.h"
#include "base/alloc.h"
#include "base/error.h"
#include "hudi/read.h"
#include "table/base_file.h"
#include "table/read_plan.h"

typedef struct paths_stream {
  hudi_read_plan *plan;
  hudi_file_group group;
  hudi_file_slice slice;
  hudi_fs_base_file base;
  hudi_fs_log_file *logs;
  hudi_read_slice_ref ref;
  hudi_slice_reader *reader;
  bool done, failed;
  char last_error[1024];
} paths_stream;

static void ps_free(paths_stream *ps) {
  if (!ps) return;
  hudi_slice_reader_free(ps->reader);
  hudi_read_plan_free(ps->plan);
  for (size_t i = 0; ps->logs && i < ps->slice.n_logs; i++) hudi_free(ps->logs[i].path);
  hudi_free(ps->logs);
  hudi_free(ps->base.path);
  hudi_free(ps->group.partition);
  hudi_free(ps->group.file_id);
  hudi_free(ps);
}

static int ps_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  paths_stream *ps = s->private_data;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_arrow_field_export(out, &ps->plan->out_schema, &err);
  if (st != HUDI_OK) snprintf(ps->last_error, sizeof ps->last_error, "%s", err.message);
  return hudi_arrow_status_errno(st);
}

static int ps_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  paths_stream *ps = s->private_data;
  if (ps->failed) return EIO;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = HUDI_OK;
  bool eof = ps->done;
  if (!eof && !ps->reader) st = hudi_slice_reader_open(&ps->reader, ps->plan, &ps->ref, &err);
  if (st == HUDI_OK && !eof) st = hudi_slice_reader_next(ps->reader, out, &eof, &err);
  if (st != HUDI_OK) {
    ps->failed = true;
    snprintf(ps->last_error, sizeof ps->last_error, "%s", err.message);
    return hudi_arrow_status_errno(st);
  }
  if (eof) {
    ps->done = true;
    memset(out, 0, sizeof *out);
    out->release = NULL;
  }
  return 0;
}

static const char *ps_last_error(struct ArrowArrayStream *s) {
  paths_stream *ps = s->private_data;
  return ps->last_error[0] ? ps->last_error : NULL;
}

static void ps_release(struct ArrowArrayStream *s) {
  ps_free(s->private_data);
  s->release = NULL;
}

/* A path relative to the table: not absolute, no "..", not empty. */
static hudi_status check_path(const char *path, const char *what, hudi_error *err) {
  if (!path || !*path || path[0] == '/' || strstr(path, "..") || strstr(path, "://"))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "%s '%s' is not a path relative to the table", what,
                        path ? path : "(null)");
  return HUDI_OK;
}

/* The group's partition (the directory of the first file) and file id
 * (from the base file name, else the first log's), for error messages. */
static hudi_status name_group(paths_stream *ps, const char *first, hudi_error *err) {
  const char *slash = strrchr(first, '/');
  size_t plen = slash ? (size_t)(slash - first) : 0;
  ps->group.partition = hudi_malloc(plen + 1);
  if (!ps->group.partition) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  memcpy(ps->group.partition, first, plen);
  ps->group.partition[plen] = '\0';
  const char *name = slash ? slash + 1 : first;
  hudi_base_file_name bn;
  if (ps->slice.base && hudi_base_file_name_parse(&bn, name)) {
    ps->group.file_id = hudi_strdup(bn.file_id);
    snprintf(ps->slice.base_instant, sizeof ps->slice.base_instant, "%s", bn.instant);
  } else {
    ps->group.file_id = hudi_strdup(name);
  }
  if (!ps->group.file_id) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  return HUDI_OK;
}

static hudi_status build_slice(paths_stream *ps, const char *base_file, const char *const *log_files, size_t n_logs,
                               hudi_error *err) {
  if (base_file && *base_file) {
    HUDI_TRY(check_path(base_file, "base file", err));
    if (!(ps->base.path = hudi_strdup(base_file))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    ps->slice.base = &ps->base;
  }
  if (n_logs && !(ps->logs = hudi_calloc(n_logs, sizeof *ps->logs)))
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  ps->slice.logs = ps->logs;
  for (size_t i = 0; i < n_logs; i++) {
    HUDI_TRY(check_path(log_files[i], "log file", err));
    if (!(ps->logs[i].path = hudi_strdup(log_files[i]))) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    const char *slash = strrchr(ps->logs[i].path, '/');
    ps->logs[i].file_name = slash ? (char *)slash + 1 : ps->logs[i].path;
    ps->slice.n_logs = ps->slice.cap_logs = i + 1;
  }
  if (!ps->slice.base && !n_logs)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a file slice needs a base file or log files");
  HUDI_TRY(name_group(ps, ps->slice.base ? base_file : log_files[0], err));
  ps->group.slices = &ps->slice;
  ps->group.n_slices = ps->group.cap_slices = 1;
  ps->ref.group = &ps->group;
  ps->ref.slice = &ps->slice;
  return HUDI_OK;
}

hudi_status hudi_table_read_file_slice_paths(struct ArrowArrayStream *out, hudi_table *table,
                                             const hudi_read_options *opts, const char *base_file,
                                             const char *const *log_files, size_t n_log_files, hudi_error *err) {
  if (!out || !table || (n_log_files && !log_files))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "hudi_table_read_file_slice_paths: NULL argument");
  paths_stream *ps = hudi_calloc(1, sizeof *ps);
  if (!ps) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  hudi_status st = build_slice(ps, base_file, log_files, n_log_files, err);
  if (st == HUDI_OK) st = hudi_read_plan_create(&ps->plan, table, opts, err);
  if (st != HUDI_OK) {
    ps_free(ps);
    return st;
  }
  out->get_schema = ps_get_schema;
  out->get_next = ps_get_next;
  out->get_last_error = ps_last_error;
  out->release = ps_release;
  out->private_data = ps;
  return HUDI_OK;
}
