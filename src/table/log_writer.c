/* Log file creation (see log_writer.h). */
#include "table/log_writer.h"

#include <inttypes.h>
#include <string.h>

hudi_status hudi_log_file_next_version(hudi_storage *s, const char *dir, const char *file_id,
                                       const char *instant, int32_t *out, hudi_error *err) {
  if (!s || !dir || !file_id || !instant)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log version: missing argument");
  hudi_file_list list = HUDI_FILE_LIST_INIT;
  HUDI_TRY(hudi_storage_list(s, dir, 0, &list, err));
  int32_t max = 0;
  for (size_t i = 0; i < list.count; i++) {
    if (list.items[i].is_dir) continue;
    const char *name = strrchr(list.items[i].path, '/');
    name = name ? name + 1 : list.items[i].path;
    hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&n, name, strlen(name), NULL) != HUDI_OK) continue;
    if (strcmp(n.file_id, file_id) == 0 && strcmp(n.instant, instant) == 0 &&
        strcmp(n.extension, HUDI_LOG_FILE_EXT) == 0 && n.version > max)
      max = n.version;
    hudi_log_file_name_free(&n);
  }
  hudi_file_list_free(&list);
  if (max == INT32_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "log version overflow");
  *out = max + 1;
  return HUDI_OK;
}

hudi_status hudi_log_file_create(hudi_storage *s, const char *dir, const char *file_id,
                                 const char *instant, int32_t version, const char *write_token,
                                 const uint8_t *data, size_t len, int32_t *out_version,
                                 hudi_buf *out_path, hudi_error *err) {
  if (!s || !dir || version < 0 || (len && !data))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file create: bad arguments");
  hudi_buf path;
  hudi_buf_init(&path, 1 << 16);
  hudi_status st = HUDI_OK;
  for (int tries = 0; tries < HUDI_LOG_CREATE_MAX_TRIES; tries++, version++) {
    if (version < 0) { /* wrapped */
      st = hudi_err_set(err, HUDI_ERR_LIMIT, "log version overflow");
      break;
    }
    hudi_buf_reset(&path);
    if (dir[0]) {
      st = hudi_buf_append_str(&path, dir, err);
      if (st == HUDI_OK && dir[strlen(dir) - 1] != '/') st = hudi_buf_append_byte(&path, '/', err);
      if (st != HUDI_OK) break;
    }
    st = hudi_log_file_name_format(&path, file_id, instant, NULL, version, write_token, NULL, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&path, '\0', err);
    if (st != HUDI_OK) break;
    /* Grouped: a new file, durable at the open write group's sync if any. */
    st = hudi_storage_write(s, (const char *)path.data, data, len, HUDI_WRITE_IF_ABSENT | HUDI_WRITE_GROUPED, err);
    if (st != HUDI_ERR_EXISTS) break;
    if (version == INT32_MAX) {
      st = hudi_err_set(err, HUDI_ERR_LIMIT, "log version overflow");
      break;
    }
  }
  if (st == HUDI_ERR_EXISTS)
    st = hudi_err_set(err, HUDI_ERR_EXISTS, "log file for %s_%s: %d versions already taken",
                      file_id, instant, HUDI_LOG_CREATE_MAX_TRIES);
  if (st == HUDI_OK) {
    if (out_version) *out_version = version;
    if (out_path) st = hudi_buf_append(out_path, path.data, path.len - 1, err);
  }
  hudi_buf_free(&path);
  return st;
}
