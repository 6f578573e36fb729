/* Azure SharedKey signing; see sharedkey.h for the string to sign. */
#include "io/sharedkey.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "base/alloc.h"

/* ---- base64 ---------------------------------------------------------- */

static int b64_value(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

hudi_status hudi_sharedkey_base64_decode(uint8_t **out, size_t *out_len, const char *s, hudi_error *err) {
  *out = NULL;
  *out_len = 0;
  size_t n = strlen(s);
  while (n && s[n - 1] == '=') n--;
  if (strlen(s) - n > 2 || n % 4 == 1)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "account key is not base64 (bad length or padding)");
  uint8_t *d = hudi_malloc(n / 4 * 3 + 3);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory decoding base64");
  size_t len = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int v = b64_value((unsigned char)s[i]);
    if (v < 0) {
      hudi_free(d);
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "account key is not base64 (byte %zu is '%c')", i,
                          isprint((unsigned char)s[i]) ? s[i] : '?');
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      d[len++] = (uint8_t)(acc >> bits);
    }
  }
  *out = d;
  *out_len = len;
  return HUDI_OK;
}

hudi_status hudi_sharedkey_base64_encode(char **out, const void *data, size_t len, hudi_error *err) {
  *out = NULL;
  if (len > (size_t)1 << 30) return hudi_err_set(err, HUDI_ERR_LIMIT, "base64 input of %zu bytes", len);
  char *d = hudi_malloc((len + 2) / 3 * 4 + 1);
  if (!d) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory encoding base64");
  EVP_EncodeBlock((unsigned char *)d, data ? data : (const void *)"", (int)len);
  *out = d;
  return HUDI_OK;
}

/* ---- x-ms-* header order --------------------------------------------- */

/* First-level weight: 0 = ignored ('-'). */
static int weight(unsigned char c) {
  if (c == '-') return 0;
  if (c == '.') return 1;
  if (c == '_') return 2;
  if (c >= '0' && c <= '9') return 10 + (c - '0');
  c = (unsigned char)tolower(c);
  if (c >= 'a' && c <= 'z') return 30 + (c - 'a');
  return 100 + c;
}

static int compare_names(const char *a, const char *b) {
  size_t i = 0, j = 0;
  for (;;) {
    while (a[i] && weight((unsigned char)a[i]) == 0) i++;
    while (b[j] && weight((unsigned char)b[j]) == 0) j++;
    if (!a[i] || !b[j]) {
      if (a[i]) return 1;
      if (b[j]) return -1;
      break;
    }
    int wa = weight((unsigned char)a[i]), wb = weight((unsigned char)b[j]);
    if (wa != wb) return wa < wb ? -1 : 1;
    i++;
    j++;
  }
  /* Equal but for '-': at the first place one has a '-' the other lacks,
   * the one with the '-' sorts last. */
  for (size_t k = 0;; k++) {
    bool ha = a[k] == '-', hb = b[k] == '-';
    if (ha != hb) return ha ? 1 : -1;
    if (!a[k] || !b[k]) break;
  }
  return strcmp(a, b);
}

typedef struct ms_header {
  char name[128];
  const char *value;
} ms_header;

static int compare_ms(const void *x, const void *y) {
  return compare_names(((const ms_header *)x)->name, ((const ms_header *)y)->name);
}

/* ---- query ------------------------------------------------------------ */

typedef struct qparam {
  char *name, *value;
} qparam;

static int compare_q(const void *x, const void *y) {
  const qparam *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  return c ? c : strcmp(a->value, b->value);
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = tolower(c);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Percent-decodes s[0..n) into a new string ('+' stays '+'). */
static char *pct_decode(const char *s, size_t n, bool lower) {
  char *d = hudi_malloc(n + 1);
  if (!d) return NULL;
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    int hi = i + 2 < n ? hexval((unsigned char)s[i + 1]) : -1;
    int lo = i + 2 < n ? hexval((unsigned char)s[i + 2]) : -1;
    if (s[i] == '%' && hi >= 0 && lo >= 0) {
      d[len++] = (char)(hi * 16 + lo);
      i += 2;
    } else {
      d[len++] = s[i];
    }
  }
  d[len] = '\0';
  if (lower)
    for (size_t i = 0; i < len; i++) d[i] = (char)tolower((unsigned char)d[i]);
  return d;
}

static hudi_status append_query(hudi_buf *out, const char *query, hudi_error *err) {
  if (!query || !*query) return HUDI_OK;
  size_t n = 1;
  for (const char *p = query; *p; p++) n += *p == '&';
  qparam *q = hudi_calloc(n, sizeof *q);
  if (!q) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
  size_t count = 0;
  hudi_status st = HUDI_OK;
  for (const char *p = query; *p && st == HUDI_OK;) {
    size_t len = strcspn(p, "&");
    if (len) {
      const char *eq = memchr(p, '=', len);
      size_t nl = eq ? (size_t)(eq - p) : len;
      q[count].name = pct_decode(p, nl, true);
      q[count].value = eq ? pct_decode(eq + 1, len - nl - 1, false) : pct_decode("", 0, false);
      if (!q[count].name || !q[count].value) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
      count++;
    }
    p += len;
    if (*p == '&') p++;
  }
  if (st == HUDI_OK) qsort(q, count, sizeof *q, compare_q);
  for (size_t i = 0; i < count && st == HUDI_OK; i++) {
    if (i && strcmp(q[i].name, q[i - 1].name) == 0) {
      st = hudi_buf_printf(out, err, ",%s", q[i].value);
    } else {
      st = hudi_buf_printf(out, err, "\n%s:%s", q[i].name, q[i].value);
    }
  }
  for (size_t i = 0; i < count; i++) {
    hudi_free(q[i].name);
    hudi_free(q[i].value);
  }
  hudi_free(q);
  return st;
}

/* ---- string to sign --------------------------------------------------- */

static const char *find_header(const hudi_http_header *h, size_t n, const char *name) {
  const char *v = NULL;
  for (size_t i = 0; i < n; i++)
    if (strcasecmp(h[i].name, name) == 0) v = h[i].value;
  return v;
}

hudi_status hudi_sharedkey_string_to_sign(hudi_buf *out, const char *method, const char *account,
                                          const char *path, const char *query,
                                          const hudi_http_header *headers, size_t n_headers,
                                          hudi_error *err) {
  static const char *const standard[] = {"Content-Encoding", "Content-Language", "Content-Length",
                                         "Content-MD5", "Content-Type", "Date", "If-Modified-Since",
                                         "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"};
  if (!path || path[0] != '/')
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "SharedKey: the path '%s' does not start with '/'",
                        path ? path : "(null)");
  HUDI_TRY(hudi_buf_printf(out, err, "%s\n", method));
  for (size_t i = 0; i < sizeof standard / sizeof standard[0]; i++) {
    const char *v = find_header(headers, n_headers, standard[i]);
    if (v && i == 2 && strcmp(v, "0") == 0) v = NULL; /* Content-Length 0 signs as empty */
    HUDI_TRY(hudi_buf_printf(out, err, "%s\n", v ? v : ""));
  }
  ms_header *ms = hudi_calloc(n_headers ? n_headers : 1, sizeof *ms);
  if (!ms) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
  size_t n_ms = 0;
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < n_headers && st == HUDI_OK; i++) {
    const char *name = headers[i].name;
    if (strncasecmp(name, "x-ms-", 5) != 0) continue;
    size_t nl = strlen(name);
    if (nl >= sizeof ms[0].name) {
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "SharedKey: header name '%.40s...' is too long", name);
      break;
    }
    for (size_t k = 0; k <= nl; k++) ms[n_ms].name[k] = (char)tolower((unsigned char)name[k]);
    ms[n_ms++].value = headers[i].value;
  }
  if (st == HUDI_OK) qsort(ms, n_ms, sizeof *ms, compare_ms);
  for (size_t i = 0; i < n_ms && st == HUDI_OK; i++)
    st = hudi_buf_printf(out, err, "%s:%s\n", ms[i].name, ms[i].value);
  hudi_free(ms);
  HUDI_TRY(st);
  HUDI_TRY(hudi_buf_printf(out, err, "/%s%s", account, path));
  return append_query(out, query, err);
}

hudi_status hudi_sharedkey_authorization(char **out, const char *account, const uint8_t *key,
                                         size_t key_len, const char *method, const char *path,
                                         const char *query, const hudi_http_header *headers,
                                         size_t n_headers, hudi_buf *sts, hudi_error *err) {
  *out = NULL;
  hudi_buf s;
  hudi_buf_init(&s, (size_t)1 << 20);
  hudi_status st = hudi_sharedkey_string_to_sign(&s, method, account, path, query, headers, n_headers, err);
  unsigned char mac[32];
  unsigned int mac_len = sizeof mac;
  if (st == HUDI_OK &&
      !HMAC(EVP_sha256(), key, (int)key_len, s.data ? s.data : (const uint8_t *)"", s.len, mac, &mac_len))
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "SharedKey: HMAC-SHA256 failed");
  char *sig = NULL;
  if (st == HUDI_OK) st = hudi_sharedkey_base64_encode(&sig, mac, mac_len, err);
  if (st == HUDI_OK && sts) st = hudi_buf_append(sts, s.data, s.len, err);
  if (st == HUDI_OK) {
    size_t n = strlen(account) + strlen(sig) + 12;
    *out = hudi_malloc(n);
    if (!*out) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
    else snprintf(*out, n, "SharedKey %s:%s", account, sig);
  }
  hudi_free(sig);
  hudi_buf_free(&s);
  return st;
}
