/* Path rules shared by every backend: relative-path normalisation (which is
 * what keeps a path from escaping the table base) and temporary names. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "io/backend.h"

#define TEMP_SUFFIX ".hudi-tmp"
/* Room left for the name part of a temp name: NAME_MAX (255) minus the dot,
 * ".<pid>-<counter>" (at most 1 + 10 + 1 + 20) and the suffix. */
#define TEMP_NAME_KEEP 200

/* Copies the component in[0..n) onto out (length *len), handling "." and
 * "..". Returns false when ".." would climb above the start. */
static bool push_component(char *out, size_t *len, const char *in, size_t n) {
  if (n == 0 || (n == 1 && in[0] == '.')) return true;
  if (n == 2 && in[0] == '.' && in[1] == '.') {
    if (*len == 0) return false;
    size_t i = *len;
    while (i > 0 && out[i - 1] != '/') i--;
    *len = i > 0 ? i - 1 : 0;
    return true;
  }
  if (*len > 0) out[(*len)++] = '/';
  /* memmove: normalize_abs works in place, out trailing in. */
  memmove(out + *len, in, n);
  *len += n;
  return true;
}

hudi_status hudi_path_normalize(char **out, const char *path, hudi_error *err) {
  *out = NULL;
  if (!path) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "path is NULL");
  if (path[0] == '/')
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "path '%s' is absolute; storage paths are relative to the table base", path);
  size_t n = strlen(path);
  char *buf = hudi_malloc(n + 1);
  if (!buf) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory normalising path '%s'", path);
  size_t len = 0;
  const char *p = path;
  while (*p) {
    const char *end = strchr(p, '/');
    size_t cn = end ? (size_t)(end - p) : strlen(p);
    if (!push_component(buf, &len, p, cn)) {
      hudi_free(buf);
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "path '%s' escapes the table base", path);
    }
    p += cn;
    if (*p == '/') p++;
  }
  buf[len] = '\0';
  *out = buf;
  return HUDI_OK;
}

void hudi_path_normalize_abs(char *path) {
  /* Normalise the part after the leading '/' as a relative path, clamping
   * ".." at the root the way the kernel does. The result is never longer
   * than the input, so it is built in place (out trails in). */
  char *rel = path + 1;
  size_t len = 0;
  const char *p = rel;
  while (*p) {
    const char *end = strchr(p, '/');
    size_t cn = end ? (size_t)(end - p) : strlen(p);
    /* out never overtakes in: len is at most the offset of the separator
     * before this component, so the '/' push_component writes and its
     * memmove leave the unread input alone. */
    const char *comp = p;
    p += cn;
    bool last = *p == '\0';
    if (!push_component(rel, &len, comp, cn)) len = 0; /* "/.." is "/" */
    if (last) break;
    p++;
  }
  rel[len] = '\0';
}

bool hudi_storage_is_temp_name(const char *name) {
  size_t n = strlen(name), sn = strlen(TEMP_SUFFIX);
  return n > sn + 1 && name[0] == '.' && memcmp(name + n - sn, TEMP_SUFFIX, sn) == 0;
}

hudi_status hudi_path_temp_sibling(char **out, const char *path, hudi_error *err) {
  static atomic_ulong counter;
  *out = NULL;
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  const char *name = path + dir_len;
  size_t name_len = strlen(name);
  if (name_len > TEMP_NAME_KEEP) name_len = TEMP_NAME_KEEP;
  unsigned long n = atomic_fetch_add(&counter, 1);
  char tail[64];
  int tn = snprintf(tail, sizeof tail, ".%ld-%lu" TEMP_SUFFIX, (long)getpid(), n);
  size_t total = dir_len + 1 + name_len + (size_t)tn;
  char *buf = hudi_malloc(total + 1);
  if (!buf) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory naming a temporary file for '%s'", path);
  memcpy(buf, path, dir_len);
  buf[dir_len] = '.';
  memcpy(buf + dir_len + 1, name, name_len);
  memcpy(buf + dir_len + 1 + name_len, tail, (size_t)tn + 1);
  *out = buf;
  return HUDI_OK;
}
