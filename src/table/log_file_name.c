/* Log file names, parsed the way Java's LOG_FILE_PATTERN matches them. The
 * pattern's tail is rigid and anchored at the end, so we read it from the
 * right; the head `(.+)_(.*)` then splits at its last '_' because the file
 * id group is greedy. */
#include "table/log_file_name.h"

#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"

typedef struct span {
  size_t off, len;
} span;

typedef struct name_spans {
  span file_id, instant, ext, version, token, suffix;
  bool has_token;
} name_spans;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scans digits leftwards ending just before `end`; returns how many. */
static size_t digits_before(const char *s, size_t end) {
  size_t i = end;
  while (i > 0 && is_digit(s[i - 1])) i--;
  return end - i;
}

/* Matches `\.(log|archive)\.(\d+)` ending exactly at end; fills ext and
 * version and sets *start to the first '.' of the match. */
static bool match_ext_version(const char *s, size_t end, name_spans *o, size_t *start) {
  size_t nd = digits_before(s, end);
  if (nd == 0) return false;
  size_t vstart = end - nd;
  if (vstart < 1 || s[vstart - 1] != '.') return false;
  size_t ext_end = vstart - 1;
  static const char *const exts[] = {HUDI_LOG_FILE_EXT, HUDI_LOG_ARCHIVE_EXT};
  for (size_t k = 0; k < 2; k++) {
    size_t el = strlen(exts[k]);
    if (ext_end < el + 1) continue;
    size_t es = ext_end - el;
    if (memcmp(s + es, exts[k], el) != 0 || s[es - 1] != '.') continue;
    o->ext = (span){es, el};
    o->version = (span){vstart, nd};
    *start = es - 1;
    return true;
  }
  return false;
}

/* Matches `\.(log|archive)\.(\d+)_(\d+)-(\d+)-(\d+)` ending at end. */
static bool match_with_token(const char *s, size_t end, name_spans *o, size_t *start) {
  size_t pos = end;
  for (int part = 0; part < 3; part++) {
    size_t nd = digits_before(s, pos);
    if (nd == 0) return false;
    pos -= nd;
    char want = part < 2 ? '-' : '_';
    if (pos < 1 || s[pos - 1] != want) return false;
    pos--;
  }
  if (!match_ext_version(s, pos, o, start)) return false;
  o->token = (span){pos + 1, end - pos - 1};
  o->has_token = true;
  return true;
}

static bool match_spans(const char *s, size_t n, name_spans *o) {
  memset(o, 0, sizeof *o);
  if (n < 2 || n > HUDI_LOG_FILE_NAME_MAX || s[0] != '.') return false;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '/' || s[i] == '\0') return false;
  size_t start = 0;
  bool ok = false;
  /* (.cdc)? : any character, then "cdc", only after a token. */
  if (n >= 4 && memcmp(s + n - 3, "cdc", 3) == 0 && match_with_token(s, n - 4, o, &start)) {
    o->suffix = (span){n - 4, 4};
    ok = true;
  }
  if (!ok) {
    memset(o, 0, sizeof *o);
    ok = match_with_token(s, n, o, &start);
  }
  if (!ok) {
    memset(o, 0, sizeof *o);
    ok = match_ext_version(s, n, o, &start);
  }
  if (!ok) return false;
  /* Head s[1, start) = (.+)_(.*): split at the last '_', id non-empty. */
  size_t us = start;
  while (us > 1 && s[us - 1] != '_') us--;
  if (us <= 1) return false;
  size_t underscore = us - 1;
  if (underscore < 2) return false; /* the id needs at least one character */
  o->file_id = (span){1, underscore - 1};
  o->instant = (span){underscore + 1, start - underscore - 1};
  return true;
}

bool hudi_log_file_name_matches(const char *name, size_t len) {
  name_spans o;
  return name != NULL && match_spans(name, len, &o);
}

void hudi_log_file_name_free(hudi_log_file_name *n) {
  if (!n) return;
  hudi_free(n->file_id);
  hudi_free(n->instant);
  hudi_free(n->extension);
  hudi_free(n->write_token);
  hudi_free(n->suffix);
  memset(n, 0, sizeof *n);
}

static bool parse_number(const char *s, span sp, int64_t max, int64_t *out) {
  int64_t v = 0;
  for (size_t i = 0; i < sp.len; i++) {
    int d = s[sp.off + i] - '0';
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

hudi_status hudi_log_file_name_parse(hudi_log_file_name *out, const char *name, size_t len,
                                     hudi_error *err) {
  name_spans o;
  if (!name || !match_spans(name, len, &o))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "not a Hudi log file name: '%.*s'",
                        (int)(len > 512 ? 512 : len), name ? name : "");
  hudi_log_file_name r = HUDI_LOG_FILE_NAME_INIT;
  int64_t version = 0;
  if (!parse_number(name, o.version, INT32_MAX, &version))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file '%.*s': version out of range",
                        (int)len, name);
  r.version = (int32_t)version;
  r.has_token = o.has_token;
  if (o.has_token) {
    /* The token's three numbers, split at its two '-'. */
    const char *t = name + o.token.off;
    const char *d1 = memchr(t, '-', o.token.len);
    const char *d2 = memchr(d1 + 1, '-', o.token.len - (size_t)(d1 + 1 - t));
    span a = {o.token.off, (size_t)(d1 - t)};
    span b = {(size_t)(d1 + 1 - name), (size_t)(d2 - d1 - 1)};
    span c = {(size_t)(d2 + 1 - name), o.token.off + o.token.len - (size_t)(d2 + 1 - name)};
    if (!parse_number(name, a, INT64_MAX, &r.task_partition_id) ||
        !parse_number(name, b, INT64_MAX, &r.stage_id) ||
        !parse_number(name, c, INT64_MAX, &r.task_attempt_id))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file '%.*s': write token out of range",
                          (int)len, name);
  }
  r.file_id = hudi_strndup(name + o.file_id.off, o.file_id.len);
  r.instant = hudi_strndup(name + o.instant.off, o.instant.len);
  r.extension = hudi_strndup(name + o.ext.off, o.ext.len);
  r.write_token = hudi_strndup(name + o.token.off, o.token.len);
  r.suffix = hudi_strndup(name + o.suffix.off, o.suffix.len);
  if (!r.file_id || !r.instant || !r.extension || !r.write_token || !r.suffix) {
    hudi_log_file_name_free(&r);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory parsing log file name");
  }
  *out = r;
  return HUDI_OK;
}

hudi_status hudi_log_write_token_format(hudi_buf *out, int64_t task_partition_id, int64_t stage_id,
                                        int64_t task_attempt_id, hudi_error *err) {
  if (task_partition_id < 0 || stage_id < 0 || task_attempt_id < 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "write token numbers must not be negative");
  return hudi_buf_printf(out, err, "%" PRId64 "-%" PRId64 "-%" PRId64, task_partition_id, stage_id,
                         task_attempt_id);
}

hudi_status hudi_log_file_name_format(hudi_buf *out, const char *file_id, const char *instant,
                                      const char *extension, int32_t version,
                                      const char *write_token, const char *suffix,
                                      hudi_error *err) {
  if (!extension) extension = HUDI_LOG_FILE_EXT;
  if (!write_token) write_token = "";
  if (!suffix) suffix = "";
  if (!file_id || !file_id[0] || !instant || version < 0 || (!write_token[0] && suffix[0]))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "log file name: missing or invalid part");
  size_t mark = out->len;
  hudi_status st;
  if (write_token[0])
    st = hudi_buf_printf(out, err, ".%s_%s.%s.%" PRId32 "_%s%s", file_id, instant, extension,
                         version, write_token, suffix);
  else
    st = hudi_buf_printf(out, err, ".%s_%s.%s.%" PRId32, file_id, instant, extension, version);
  if (st != HUDI_OK) return st;
  /* The name must read back as the same parts: this rejects an instant
   * with '_' , a bad token or extension, a '/' anywhere. */
  name_spans o;
  const char *s = (const char *)out->data + mark;
  size_t n = out->len - mark;
  bool same = match_spans(s, n, &o) && o.file_id.len == strlen(file_id) &&
              o.instant.len == strlen(instant) && o.token.len == strlen(write_token) &&
              o.suffix.len == strlen(suffix);
  if (!same) {
    out->len = mark;
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "log file name parts do not form a valid name: id '%s', instant '%s', "
                        "extension '%s', token '%s', suffix '%s'",
                        file_id, instant, extension, write_token, suffix);
  }
  return HUDI_OK;
}

/* Java String.compareTo compares UTF-16 code units; for the ASCII these
 * names hold that is byte order. */
static int cmp_str(const char *a, const char *b) {
  int c = strcmp(a ? a : "", b ? b : "");
  return c < 0 ? -1 : c > 0;
}

int hudi_log_file_name_compare(const hudi_log_file_name *a, const hudi_log_file_name *b) {
  int c = cmp_str(a->instant, b->instant);
  if (c != 0) return c;
  if (a->version != b->version) return a->version < b->version ? -1 : 1;
  if (a->has_token != b->has_token) return a->has_token ? 1 : -1; /* nullsFirst */
  c = cmp_str(a->write_token, b->write_token);
  if (c != 0) return c;
  return cmp_str(a->suffix, b->suffix);
}
