/* AWS SigV4: canonical request -> string to sign -> derived key -> HMAC.
 * Follows the steps of AWS's "Create a signed AWS API request" guide. */
#include "io/sigv4.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "base/alloc.h"

static void to_hex(char *hex, const unsigned char *bin, size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = digits[bin[i] >> 4];
    hex[2 * i + 1] = digits[bin[i] & 15];
  }
  hex[2 * n] = '\0';
}

void hudi_sha256_hex(char hex[65], const void *data, size_t len) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(data ? data : (const void *)"", len, md);
  to_hex(hex, md, sizeof md);
}

void hudi_md5_base64(char out[25], const void *data, size_t len) {
  unsigned char md[16];
  unsigned int n = 0;
  EVP_Digest(data ? data : (const void *)"", len, md, &n, EVP_md5(), NULL);
  EVP_EncodeBlock((unsigned char *)out, md, 16);
}

static void hmac(unsigned char out[32], const void *key, size_t key_len, const char *msg,
                 size_t msg_len) {
  unsigned int n = 32;
  HMAC(EVP_sha256(), key, (int)key_len, (const unsigned char *)msg, msg_len, out, &n);
}

/* ---- canonical headers ---------------------------------------------- */

typedef struct canon_header {
  char *name;  /* lower case */
  char *value; /* trimmed, spaces collapsed */
  size_t order;
} canon_header;

static int compare_header(const void *a, const void *b) {
  const canon_header *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return x->order < y->order ? -1 : x->order > y->order;
}

static char *lower_dup(const char *s) {
  char *d = hudi_strdup(s);
  if (d)
    for (char *p = d; *p; p++) *p = (char)tolower((unsigned char)*p);
  return d;
}

/* Trims and collapses runs of spaces and tabs to one space. */
static char *trim_dup(const char *s) {
  char *d = hudi_malloc(strlen(s) + 1);
  if (!d) return NULL;
  size_t n = 0;
  bool space = false;
  for (; *s; s++) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
      space = n > 0;
      continue;
    }
    if (space) d[n++] = ' ';
    space = false;
    d[n++] = *s;
  }
  d[n] = '\0';
  return d;
}

static void free_headers(canon_header *h, size_t n) {
  for (size_t i = 0; i < n; i++) {
    hudi_free(h[i].name);
    hudi_free(h[i].value);
  }
  hudi_free(h);
}

static hudi_status canon_headers(canon_header **out, const hudi_http_header *headers, size_t n,
                                 hudi_error *err) {
  canon_header *h = hudi_calloc(n ? n : 1, sizeof *h);
  if (!h) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
  for (size_t i = 0; i < n; i++) {
    h[i].name = lower_dup(headers[i].name);
    h[i].value = trim_dup(headers[i].value);
    h[i].order = i;
    if (!h[i].name || !h[i].value) {
      free_headers(h, n);
      return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
    }
  }
  qsort(h, n, sizeof *h, compare_header);
  *out = h;
  return HUDI_OK;
}

/* "a;b;c" of the distinct names. */
static hudi_status signed_names(hudi_buf *out, const canon_header *h, size_t n, hudi_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && strcmp(h[i].name, h[i - 1].name) == 0) continue;
    if (i > 0) HUDI_TRY(hudi_buf_append_byte(out, ';', err));
    HUDI_TRY(hudi_buf_append_str(out, h[i].name, err));
  }
  return HUDI_OK;
}

/* ---- canonical query ------------------------------------------------ */

typedef struct query_pair {
  const char *name, *value;
  size_t name_len, value_len;
} query_pair;

static int compare_bytes(const char *a, size_t an, const char *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  if (c) return c;
  return an < bn ? -1 : an > bn;
}

static int compare_pair(const void *a, const void *b) {
  const query_pair *x = a, *y = b;
  int c = compare_bytes(x->name, x->name_len, y->name, y->name_len);
  return c ? c : compare_bytes(x->value, x->value_len, y->value, y->value_len);
}

static hudi_status canon_query(hudi_buf *out, const char *query, hudi_error *err) {
  if (!query || !*query) return HUDI_OK;
  size_t n = 1;
  for (const char *p = query; *p; p++) n += *p == '&';
  query_pair *pairs = hudi_calloc(n, sizeof *pairs);
  if (!pairs) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
  size_t k = 0;
  for (const char *p = query; *p || k == 0;) {
    const char *amp = strchr(p, '&');
    size_t len = amp ? (size_t)(amp - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (len > 0) {
      pairs[k].name = p;
      pairs[k].name_len = eq ? (size_t)(eq - p) : len;
      pairs[k].value = eq ? eq + 1 : "";
      pairs[k].value_len = eq ? len - (size_t)(eq - p) - 1 : 0;
      k++;
    }
    if (!amp) break;
    p = amp + 1;
  }
  qsort(pairs, k, sizeof *pairs, compare_pair);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; i < k && st == HUDI_OK; i++) {
    if (i) st = hudi_buf_append_byte(out, '&', err);
    if (st == HUDI_OK) st = hudi_buf_append(out, pairs[i].name, pairs[i].name_len, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(out, '=', err);
    if (st == HUDI_OK) st = hudi_buf_append(out, pairs[i].value, pairs[i].value_len, err);
  }
  hudi_free(pairs);
  return st;
}

/* ---- the request ---------------------------------------------------- */

static hudi_status build_creq(hudi_buf *out, hudi_buf *names, const char *method,
                              const char *canonical_uri, const char *query,
                              const hudi_http_header *headers, size_t n_headers,
                              const char *payload_hash, hudi_error *err) {
  canon_header *h = NULL;
  HUDI_TRY(canon_headers(&h, headers, n_headers, err));
  hudi_status st = hudi_buf_printf(out, err, "%s\n%s\n", method, canonical_uri[0] ? canonical_uri : "/");
  if (st == HUDI_OK) st = canon_query(out, query, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(out, '\n', err);
  for (size_t i = 0; i < n_headers && st == HUDI_OK; i++) {
    bool same_as_prev = i > 0 && strcmp(h[i].name, h[i - 1].name) == 0;
    bool same_as_next = i + 1 < n_headers && strcmp(h[i].name, h[i + 1].name) == 0;
    if (!same_as_prev) st = hudi_buf_printf(out, err, "%s:", h[i].name);
    if (st == HUDI_OK) st = hudi_buf_append_str(out, h[i].value, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(out, same_as_next ? ',' : '\n', err);
  }
  if (st == HUDI_OK) st = hudi_buf_append_byte(out, '\n', err);
  if (st == HUDI_OK) st = signed_names(names, h, n_headers, err);
  if (st == HUDI_OK) st = hudi_buf_append(out, names->data, names->len, err);
  if (st == HUDI_OK) st = hudi_buf_printf(out, err, "\n%s", payload_hash);
  free_headers(h, n_headers);
  return st;
}

hudi_status hudi_sigv4_canonical_request(hudi_buf *out, const char *method,
                                         const char *canonical_uri, const char *query,
                                         const hudi_http_header *headers, size_t n_headers,
                                         const char *payload_hash, hudi_error *err) {
  hudi_buf names;
  hudi_buf_init(&names, 1 << 16);
  hudi_status st = build_creq(out, &names, method, canonical_uri, query, headers, n_headers,
                              payload_hash, err);
  hudi_buf_free(&names);
  return st;
}

hudi_status hudi_sigv4_authorization(char **out, const hudi_sigv4_key *key, const char *amz_date,
                                     const char *method, const char *canonical_uri,
                                     const char *query, const hudi_http_header *headers,
                                     size_t n_headers, const char *payload_hash, hudi_buf *creq_out,
                                     hudi_buf *sts_out, hudi_error *err) {
  *out = NULL;
  if (strlen(amz_date) != 16)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "sigv4: bad date '%s'", amz_date);
  const char *prefix = key->algorithm_prefix ? key->algorithm_prefix : "AWS4";
  char term[16];
  size_t pl = strlen(prefix);
  if (pl > 8) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "sigv4: bad prefix '%s'", prefix);
  for (size_t i = 0; i < pl; i++) term[i] = (char)tolower((unsigned char)prefix[i]);
  memcpy(term + pl, "_request", 9);

  hudi_buf creq, names, sts;
  hudi_buf_init(&creq, (size_t)1 << 24);
  hudi_buf_init(&names, 1 << 16);
  hudi_buf_init(&sts, 1 << 16);
  hudi_status st = build_creq(&creq, &names, method, canonical_uri, query, headers, n_headers,
                              payload_hash, err);
  char creq_hash[65];
  char scope[256];
  if (st == HUDI_OK) {
    hudi_sha256_hex(creq_hash, creq.data, creq.len);
    int n = snprintf(scope, sizeof scope, "%.8s/%s/%s/%s", amz_date, key->region, key->service, term);
    if (n < 0 || (size_t)n >= sizeof scope)
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "sigv4: region or service name too long");
  }
  if (st == HUDI_OK)
    st = hudi_buf_printf(&sts, err, "%s-HMAC-SHA256\n%s\n%s\n%s", prefix, amz_date, scope, creq_hash);
  if (st == HUDI_OK) {
    /* kSigning = HMAC(HMAC(HMAC(HMAC(prefix + secret, date), region), service), term). */
    size_t sl = strlen(key->secret_key);
    char *k0 = hudi_malloc(pl + sl + 1);
    if (!k0) {
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory signing a request");
    } else {
      memcpy(k0, prefix, pl);
      memcpy(k0 + pl, key->secret_key, sl + 1);
      unsigned char k[32], sig[32];
      hmac(k, k0, pl + sl, amz_date, 8);
      hmac(k, k, 32, key->region, strlen(key->region));
      hmac(k, k, 32, key->service, strlen(key->service));
      hmac(k, k, 32, term, strlen(term));
      hmac(sig, k, 32, (const char *)sts.data, sts.len);
      OPENSSL_cleanse(k0, pl + sl);
      OPENSSL_cleanse(k, sizeof k);
      hudi_free(k0);
      char sig_hex[65];
      to_hex(sig_hex, sig, 32);
      hudi_buf a;
      hudi_buf_init(&a, 1 << 16);
      st = hudi_buf_printf(&a, err, "%s-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%.*s, Signature=%s",
                           prefix, key->access_key, scope, (int)names.len, (const char *)names.data,
                           sig_hex);
      uint8_t *p = NULL;
      size_t plen;
      if (st == HUDI_OK) st = hudi_buf_detach(&a, &p, &plen, err);
      hudi_buf_free(&a);
      if (st == HUDI_OK) *out = (char *)p;
    }
  }
  if (st == HUDI_OK && creq_out) st = hudi_buf_append(creq_out, creq.data, creq.len, err);
  if (st == HUDI_OK && sts_out) st = hudi_buf_append(sts_out, sts.data, sts.len, err);
  if (st != HUDI_OK) {
    hudi_free(*out);
    *out = NULL;
  }
  hudi_buf_free(&creq);
  hudi_buf_free(&names);
  hudi_buf_free(&sts);
  return st;
}
