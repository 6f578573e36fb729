#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hudi/common.h"

const char *hudi_version(void) { return HUDI_VERSION_STRING; }

const char *hudi_status_name(hudi_status status) {
  switch (status) {
    case HUDI_OK: return "ok";
    case HUDI_ERR_INVALID_ARG: return "invalid argument";
    case HUDI_ERR_NOMEM: return "out of memory";
    case HUDI_ERR_LIMIT: return "size limit exceeded";
    case HUDI_ERR_IO: return "I/O error";
    case HUDI_ERR_NOT_FOUND: return "not found";
    case HUDI_ERR_EXISTS: return "already exists";
    case HUDI_ERR_CORRUPT: return "corrupt data";
    case HUDI_ERR_UNSUPPORTED: return "unsupported";
    case HUDI_ERR_CONFLICT: return "write conflict";
    case HUDI_ERR_CANCELLED: return "cancelled";
    case HUDI_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

void hudi_error_clear(hudi_error *err) {
  if (!err) return;
  err->code = HUDI_OK;
  err->message[0] = '\0';
}

hudi_status hudi_err_set(hudi_error *err, hudi_status code, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

hudi_status hudi_err_context(hudi_error *err, hudi_status code, const char *fmt, ...) {
  if (!err) return code;
  if (err->code == HUDI_OK) err->code = code;
  char prefix[HUDI_ERROR_MESSAGE_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  /* Built by hand rather than with "%s: %s" so truncation is explicit. */
  char joined[HUDI_ERROR_MESSAGE_MAX];
  size_t cap = sizeof joined - 1, n = strlen(prefix);
  if (n > cap) n = cap;
  memcpy(joined, prefix, n);
  if (err->message[0] && n + 2 <= cap) {
    memcpy(joined + n, ": ", 2);
    n += 2;
    size_t m = strlen(err->message);
    if (m > cap - n) m = cap - n;
    memcpy(joined + n, err->message, m);
    n += m;
  }
  joined[n] = '\0';
  memcpy(err->message, joined, n + 1);
  return err->code;
}
