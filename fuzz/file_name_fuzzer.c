/* Fuzz target: log and base file names. A log file name that parses also
 * matches the pattern, and formats into a name that parses to the same
 * fields; a base file name that parses formats into a name that parses to
 * the same fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "table/base_file.h"
#include "table/log_file_name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

static void log_name(const char *s, size_t size) {
  hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
  hudi_error err = HUDI_ERROR_INIT;
  bool matches = hudi_log_file_name_matches(s, size);
  if (hudi_log_file_name_parse(&n, s, size, &err) != HUDI_OK) {
    if (err.message[0] == '\0') abort(); /* a refusal says why */
    return;
  }
  if (!matches) abort();
  hudi_buf out;
  hudi_buf_init(&out, 0);
  if (hudi_log_file_name_format(&out, n.file_id, n.instant, n.extension, n.version, n.has_token ? n.write_token : NULL,
                                n.suffix, &err) == HUDI_OK) {
    hudi_log_file_name m = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&m, (const char *)out.data, out.len, &err) != HUDI_OK) abort();
    if (!same(n.file_id, m.file_id) || !same(n.instant, m.instant) || !same(n.extension, m.extension) ||
        n.version != m.version || n.has_token != m.has_token || !same(n.write_token, m.write_token) ||
        !same(n.suffix, m.suffix) || hudi_log_file_name_compare(&n, &m) != 0)
      abort();
    hudi_log_file_name_free(&m);
  } else if (err.message[0] == '\0') {
    abort();
  }
  hudi_buf_free(&out);
  hudi_log_file_name_free(&n);
}

static void base_name(const char *s) {
  hudi_base_file_name b;
  if (!hudi_base_file_name_parse(&b, s)) return;
  char buf[HUDI_FILE_ID_MAX + HUDI_WRITE_TOKEN_MAX + HUDI_INSTANT_TIME_MAX + HUDI_EXT_MAX + 8];
  if (hudi_base_file_name_format(buf, sizeof buf, b.file_id, b.write_token, b.instant, b.ext) < 0) abort();
  hudi_base_file_name c;
  if (!hudi_base_file_name_parse(&c, buf)) abort();
  if (strcmp(b.file_id, c.file_id) || strcmp(b.write_token, c.write_token) || strcmp(b.instant, c.instant) ||
      strcmp(b.ext, c.ext))
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  log_name((const char *)data, size);
  if (size < 4096) {
    char s[4096];
    memcpy(s, data, size);
    s[size] = 0;
    base_name(s);
  }
  return 0;
}
