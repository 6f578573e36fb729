/* Shared object-store helpers; see objstore.h. */
#include "io/objstore.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"

hudi_status hudi_objstore_parse_uri(const char *uri, char **bucket, char **prefix, hudi_error *err) {
  *bucket = *prefix = NULL;
  const char *p = strstr(uri, "://");
  if (!p) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s' is not a scheme://bucket/path URI", uri);
  p += 3;
  const char *slash = strchr(p, '/');
  size_t blen = slash ? (size_t)(slash - p) : strlen(p);
  if (blen == 0 || blen > 255)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s' names no bucket or container", uri);
  char *path = NULL;
  hudi_status st = hudi_path_normalize(&path, slash ? slash + 1 : "", err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "base URI '%s'", uri);
  *bucket = hudi_strndup(p, blen);
  if (!*bucket) {
    hudi_free(path);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory parsing '%s'", uri);
  }
  *prefix = path;
  return HUDI_OK;
}

const char *hudi_objstore_setting(const hudi_storage_option *options, size_t n_options,
                                  const char *const *keys, const char *const *envs) {
  for (size_t i = 0; keys && keys[i]; i++) {
    const char *v = hudi_storage_option_get(options, n_options, keys[i]);
    if (v) return v;
  }
  for (size_t i = 0; envs && envs[i]; i++) {
    const char *v = getenv(envs[i]);
    if (v && v[0]) return v;
  }
  return NULL;
}

hudi_status hudi_objstore_setting_bool(const hudi_storage_option *options, size_t n_options,
                                       const char *const *keys, const char *const *envs, bool dflt,
                                       bool *out, hudi_error *err) {
  const char *v = hudi_objstore_setting(options, n_options, keys, envs);
  *out = dflt;
  if (!v) return HUDI_OK;
  hudi_storage_option o = {keys[0], v};
  return hudi_storage_option_bool(&o, 1, keys[0], dflt, out, err);
}

hudi_status hudi_objstore_setting_u64(const hudi_storage_option *options, size_t n_options,
                                      const char *const *keys, uint64_t dflt, uint64_t min,
                                      uint64_t max, uint64_t *out, hudi_error *err) {
  const char *v = hudi_objstore_setting(options, n_options, keys, NULL);
  *out = dflt;
  if (!v) return HUDI_OK;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 10);
  if (!isdigit((unsigned char)v[0]) || *end || errno || x < min || x > max)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "storage option '%s' = '%s': expected an integer in [%llu, %llu]", keys[0], v,
                        (unsigned long long)min, (unsigned long long)max);
  *out = x;
  return HUDI_OK;
}

hudi_status hudi_objstore_http_config(hudi_http_config *cfg, const hudi_storage_option *options,
                                      size_t n_options, hudi_error *err) {
  hudi_http_config d = HUDI_HTTP_CONFIG_DEFAULT;
  uint64_t v;
  static const char *const retries[] = {"max_retries", NULL};
  static const char *const budget[] = {"retry_timeout_ms", NULL};
  static const char *const timeout[] = {"timeout_ms", NULL};
  static const char *const connect[] = {"connect_timeout_ms", NULL};
  static const char *const base[] = {"retry_base_ms", NULL};
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, retries, (uint64_t)d.max_retries, 0, 100, &v, err));
  d.max_retries = (int)v;
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, budget, (uint64_t)d.retry_budget_ms, 0, 86400000, &v, err));
  d.retry_budget_ms = (long)v;
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, timeout, (uint64_t)d.request_timeout_ms, 1, 86400000, &v, err));
  d.request_timeout_ms = (long)v;
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, connect, (uint64_t)d.connect_timeout_ms, 1, 86400000, &v, err));
  d.connect_timeout_ms = (long)v;
  HUDI_TRY(hudi_objstore_setting_u64(options, n_options, base, (uint64_t)d.retry_base_ms, 1, 600000, &v, err));
  d.retry_base_ms = (long)v;
  *cfg = d;
  return HUDI_OK;
}

hudi_status hudi_objstore_encode(hudi_buf *out, const char *s, size_t n, bool keep_slash,
                                 hudi_error *err) {
  static const char hex[] = "0123456789ABCDEF";
  HUDI_TRY(hudi_buf_reserve(out, n * 3, err));
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out->data[out->len++] = c;
    } else {
      out->data[out->len++] = '%';
      out->data[out->len++] = (uint8_t)hex[c >> 4];
      out->data[out->len++] = (uint8_t)hex[c & 15];
    }
  }
  return HUDI_OK;
}

bool hudi_xml_element(const char *p, const char *end, const char *tag, const char **v, size_t *vlen,
                      const char **next) {
  size_t tl = strlen(tag);
  while (p < end) {
    const char *lt = memchr(p, '<', (size_t)(end - p));
    if (!lt) return false;
    const char *q = lt + 1;
    if ((size_t)(end - q) >= tl + 1 && memcmp(q, tag, tl) == 0 && (q[tl] == '>' || q[tl] == ' ')) {
      const char *gt = memchr(q + tl, '>', (size_t)(end - q - tl));
      if (!gt) return false;
      if (gt[-1] == '/') { /* <Tag/>: empty */
        *v = gt;
        *vlen = 0;
        *next = gt + 1;
        return true;
      }
      const char *body = gt + 1;
      /* Find "</tag>" with nothing of the same name nested (S3 nests none). */
      for (const char *s = body; s < end;) {
        const char *c = memchr(s, '<', (size_t)(end - s));
        if (!c || (size_t)(end - c) < tl + 3) return false;
        if (c[1] == '/' && memcmp(c + 2, tag, tl) == 0 && c[2 + tl] == '>') {
          *v = body;
          *vlen = (size_t)(c - body);
          *next = c + tl + 3;
          return true;
        }
        s = c + 1;
      }
      return false;
    }
    p = lt + 1;
  }
  return false;
}

static size_t put_utf8(char *d, unsigned long cp) {
  if (cp < 0x80) {
    d[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    d[0] = (char)(0xC0 | (cp >> 6));
    d[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    d[0] = (char)(0xE0 | (cp >> 12));
    d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    d[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  d[0] = (char)(0xF0 | (cp >> 18));
  d[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  d[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  d[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

hudi_status hudi_xml_text(char **out, const char *v, size_t len, hudi_error *err) {
  char *d = hudi_malloc(len + 1);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory reading XML");
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    if (v[i] != '&') {
      d[n++] = v[i++];
      continue;
    }
    const char *semi = memchr(v + i, ';', len - i < 12 ? len - i : 12);
    if (!semi) goto bad;
    const char *e = v + i + 1;
    size_t el = (size_t)(semi - e);
    static const struct { const char *name; char c; } named[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    bool done = false;
    for (size_t k = 0; k < 5 && !done; k++)
      if (el == strlen(named[k].name) && memcmp(e, named[k].name, el) == 0) {
        d[n++] = named[k].c;
        done = true;
      }
    if (!done) {
      if (el < 2 || e[0] != '#') goto bad;
      bool hexa = e[1] == 'x' || e[1] == 'X';
      unsigned long cp = 0;
      size_t start = hexa ? 2 : 1;
      if (start >= el) goto bad;
      for (size_t k = start; k < el; k++) {
        int c = (unsigned char)e[k], dv;
        if (isdigit(c)) dv = c - '0';
        else if (hexa && isxdigit(c)) dv = tolower(c) - 'a' + 10;
        else goto bad;
        cp = cp * (hexa ? 16 : 10) + (unsigned long)dv;
        if (cp > 0x10FFFF) goto bad;
      }
      /* A 4-byte UTF-8 form never exceeds the entity's own length (>= 4). */
      n += put_utf8(d + n, cp);
    }
    i = (size_t)(semi - v) + 1;
  }
  d[n] = '\0';
  *out = d;
  return HUDI_OK;
bad:
  hudi_free(d);
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "malformed XML entity in '%.*s'", (int)(len < 80 ? len : 80), v);
}

void hudi_xml_copy(char *dst, size_t cap, const char *p, const char *end, const char *tag) {
  const char *v, *next;
  size_t vlen;
  dst[0] = '\0';
  if (!hudi_xml_element(p, end, tag, &v, &vlen, &next)) return;
  char *t = NULL;
  if (hudi_xml_text(&t, v, vlen, NULL) != HUDI_OK) return;
  snprintf(dst, cap, "%s", t);
  hudi_free(t);
}

int64_t hudi_objstore_parse_iso8601(const char *s, size_t n) {
  char buf[40];
  if (n < 19 || n >= sizeof buf) return -1;
  memcpy(buf, s, n);
  buf[n] = '\0';
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  int ms = 0;
  if (sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec) != 6)
    return -1;
  if (buf[19] == '.') {
    int digits = 0;
    for (const char *p = buf + 20; isdigit((unsigned char)*p); p++)
      if (digits < 3) {
        ms = ms * 10 + (*p - '0');
        digits++;
      }
    while (digits++ < 3) ms *= 10;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  if (t == (time_t)-1) return -1;
  return (int64_t)t * 1000 + ms;
}

hudi_status hudi_objstore_http_error(hudi_error *err, const char *op, const char *what,
                                     const hudi_http_response *resp) {
  const char *body = resp->error_body, *end = body + strlen(body);
  char code[128], message[512];
  hudi_xml_copy(code, sizeof code, body, end, "Code");
  hudi_xml_copy(message, sizeof message, body, end, "Message");
  /* Azure names the error in a header too (the only place for HEAD). */
  if (!code[0] && resp->error_code[0]) snprintf(code, sizeof code, "%s", resp->error_code);
  hudi_status st = HUDI_ERR_IO;
  const char *hint = "";
  if (resp->status == 404) st = HUDI_ERR_NOT_FOUND;
  else if (resp->status == 412) st = HUDI_ERR_EXISTS;
  else if (resp->status == 401 || resp->status == 403) hint = "access denied: ";
  char retried[48] = "";
  if (resp->attempts > 1) snprintf(retried, sizeof retried, " after %d attempts", resp->attempts);
  return hudi_err_set(err, st, "%s %s failed%s: %sHTTP %ld%s%s%s%s", op, what, retried, hint,
                      resp->status, code[0] ? " " : "", code, message[0] ? ": " : "", message);
}
