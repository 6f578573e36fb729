/* SharedKey signing (src/io/sharedkey.c): Microsoft's published
 * string-to-sign example, RFC 4648's base64 vectors, and
 * azure-storage-blob's own signer (tests/objstore/sharedkey_oracle.py) on
 * random requests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "io/azure.h"
#include "io/objstore.h"
#include "io/sharedkey.h"

static char *sts_of(const char *method, const char *account, const char *path, const char *query,
                    const hudi_http_header *h, size_t n) {
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sharedkey_string_to_sign(&b, method, account, path, query, h, n, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, &err), HUDI_OK);
  uint8_t *p;
  size_t len;
  assert_int_equal(hudi_buf_detach(&b, &p, &len, &err), HUDI_OK);
  hudi_buf_free(&b);
  return (char *)p;
}

/* "Authorize with Shared Key" (learn.microsoft.com), the Get Container
 * Metadata example: GET .../mycontainer?restype=container&comp=metadata&timeout=20. */
static void published_example(void **state) {
  (void)state;
  hudi_http_header h[] = {{"x-ms-version", "2015-02-21"}, {"x-ms-date", "Fri, 26 Jun 2015 23:39:12 GMT"}};
  char *s = sts_of("GET", "myaccount", "/mycontainer", "restype=container&comp=metadata&timeout=20", h, 2);
  assert_string_equal(s, "GET\n\n\n\n\n\n\n\n\n\n\n\n"
                         "x-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\nx-ms-version:2015-02-21\n"
                         "/myaccount/mycontainer\ncomp:metadata\nrestype:container\ntimeout:20");
  hudi_free(s);
}

static void standard_headers_and_query(void **state) {
  (void)state;
  /* Every standard header in its slot, whatever the case and order given;
   * Content-Length 0 is empty; other headers are not signed. */
  hudi_http_header h[] = {{"range", "bytes=0-9"},         {"If-Unmodified-Since", "ius"},
                          {"if-none-match", "*"},         {"If-Match", "\"e\""},
                          {"IF-MODIFIED-SINCE", "ims"},   {"Date", "d"},
                          {"content-type", "text/plain"}, {"Content-MD5", "md5"},
                          {"Content-Length", "0"},        {"Content-Language", "en"},
                          {"Content-Encoding", "gzip"},   {"Host", "not signed"},
                          {"X-MS-Blob-Type", "BlockBlob"}};
  char *s = sts_of("PUT", "acct", "/c/a%20b", "Comp=list&prefix=a%2Fb%20%C3%A9&marker=m2&marker=m1&flag", h, 13);
  assert_string_equal(s, "PUT\ngzip\nen\n\nmd5\ntext/plain\nd\nims\n\"e\"\n*\nius\nbytes=0-9\n"
                         "x-ms-blob-type:BlockBlob\n/acct/c/a%20b\ncomp:list\nflag:\nmarker:m1,m2\n"
                         "prefix:a/b \xc3\xa9");
  hudi_free(s);
  hudi_http_header cl[] = {{"Content-Length", "12"}};
  s = sts_of("PUT", "a", "/c/b", "", cl, 1);
  assert_string_equal(s, "PUT\n\n\n12\n\n\n\n\n\n\n\n\n/a/c/b");
  hudi_free(s);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sharedkey_string_to_sign(&b, "GET", "a", "c/b", NULL, NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  hudi_buf_free(&b);
}

/* The service's order of x-ms-* names: '-' ignored first, then the name
 * whose '-' comes first sorts last; '.' < '_' < digits < letters. (Each
 * pair below is ordered differently by plain strcmp.) */
static void ms_header_order(void **state) {
  (void)state;
  hudi_http_header h[] = {{"x-ms-meta-b", "1"}, {"x-ms-metaa", "2"}, {"x-ms-meta-1", "3"},
                          {"x-ms-meta-_", "4"}, {"x-ms-meta-a-b", "5"}, {"x-ms-meta-ab", "6"},
                          {"X-Ms-Date", "7"}};
  char *s = sts_of("GET", "a", "/c", "", h, 7);
  assert_string_equal(s, "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:7\nx-ms-meta-_:4\nx-ms-meta-1:3\n"
                         "x-ms-metaa:2\nx-ms-meta-ab:6\nx-ms-meta-a-b:5\nx-ms-meta-b:1\n/a/c");
  hudi_free(s);
}

static void base64_vectors(void **state) {
  (void)state;
  /* RFC 4648, section 10. */
  static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < 7; i++) {
    char *e;
    assert_int_equal(hudi_sharedkey_base64_encode(&e, plain[i], strlen(plain[i]), &err), HUDI_OK);
    assert_string_equal(e, enc[i]);
    hudi_free(e);
    uint8_t *d;
    size_t n;
    assert_int_equal(hudi_sharedkey_base64_decode(&d, &n, enc[i], &err), HUDI_OK);
    assert_int_equal(n, strlen(plain[i]));
    if (n) assert_memory_equal(d, plain[i], n);
    hudi_free(d);
  }
  uint8_t *d;
  size_t n;
  assert_int_equal(hudi_sharedkey_base64_decode(&d, &n, HUDI_AZURITE_KEY, &err), HUDI_OK);
  assert_int_equal(n, 64);
  hudi_free(d);
  static const char *const bad[] = {"Zg=?", "Z", "Zg===", "Zm9v Yg==", "Zm9v\n"};
  for (size_t i = 0; i < 5; i++) {
    assert_int_equal(hudi_sharedkey_base64_decode(&d, &n, bad[i], &err), HUDI_ERR_INVALID_ARG);
    assert_null(d);
    assert_non_null(strstr(err.message, "base64"));
  }
}

/* ---- azure-storage-blob as an oracle for random requests -------------- */

#define ORACLE_PY HUDI_SOURCE_DIR "/.venv-objstore/bin/python"
#define N_RANDOM 300

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(unsigned n) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (unsigned)(g_rng % n);
}

static void rand_text(char *out, size_t max) {
  static const char *const pieces[] = {"a", "Z", "0", "-", "_", ".", "~", " ", "+", "=", "&", "%",
                                       "/", "!", "*", "'", "(", ")", ",", ";", ":", "@", "$",
                                       "\xc3\xa9", "\xe1\x88\xb4", "key", "hoodie", "20240101"};
  size_t n = 1 + rnd((unsigned)max / 4), len = 0;
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
    if (len + strlen(p) + 1 >= max) break;
    strcpy(out + len, p);
    len += strlen(p);
  }
}

/* A header name tail from [a-z0-9_-], the characters whose order matters. */
static void rand_name(char *out, size_t max) {
  static const char alphabet[] = "abcz09_-";
  size_t n = 1 + rnd((unsigned)max - 1);
  for (size_t i = 0; i < n; i++) out[i] = alphabet[rnd(sizeof alphabet - 1)];
  out[n] = '\0';
  if (out[0] == '-') out[0] = 'm';
}

/* Printable ASCII with no leading/trailing or doubled spaces. */
static void rand_value(char *out, size_t max) {
  size_t n = 1 + rnd((unsigned)max - 1);
  for (size_t i = 0; i < n; i++) {
    char c = (char)(33 + rnd(94));
    out[i] = c;
  }
  out[n] = '\0';
}

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

typedef struct expect {
  char *authz, *sts;
} expect;

static void matches_sdk(void **state) {
  (void)state;
  if (access(ORACLE_PY, X_OK) != 0) {
    fprintf(stderr, "SKIP azure-storage-blob comparison: run dev/setup-objstore.sh to install it\n");
    skip();
  }
  char tmpl[] = "/tmp/hudi-sharedkey-XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  FILE *in = fdopen(fd, "w");
  expect *want = calloc(N_RANDOM, sizeof *want);
  hudi_error err = HUDI_ERROR_INIT;
  for (int i = 0; i < N_RANDOM; i++) {
    static const char *const methods[] = {"GET", "PUT", "HEAD", "DELETE", "POST"};
    const char *method = methods[rnd(5)];
    bool emu = rnd(2);
    const char *account = emu ? "devstoreaccount1" : "acct1";
    uint8_t key[64];
    for (size_t k = 0; k < sizeof key; k++) key[k] = (uint8_t)rnd(256);
    char *key64;
    assert_int_equal(hudi_sharedkey_base64_encode(&key64, key, sizeof key, &err), HUDI_OK);
    char blob[128], v1[64], v2[64];
    rand_text(blob, sizeof blob);
    rand_text(v1, sizeof v1);
    rand_text(v2, sizeof v2);
    hudi_buf path, query;
    hudi_buf_init(&path, 0);
    hudi_buf_init(&query, 0);
    assert_int_equal(hudi_buf_append_str(&path, emu ? "/devstoreaccount1/cont-1/" : "/cont-1/", &err), HUDI_OK);
    assert_int_equal(hudi_objstore_encode(&path, blob, strlen(blob), true, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&path, 0, &err), HUDI_OK);
    /* Unsorted, encoded query parameters (each name once). */
    const char *params[] = {"restype=container", "comp=list", "prefix=", "marker=", "delimiter=%2F",
                            "maxresults=", "timeout=30", "blockid="};
    unsigned mask = rnd(256);
    bool first = true;
    for (int p = 7; p >= 0; p--) {
      if (!(mask & (1u << p))) continue;
      if (!first) assert_int_equal(hudi_buf_append_byte(&query, '&', &err), HUDI_OK);
      first = false;
      assert_int_equal(hudi_buf_append_str(&query, params[p], &err), HUDI_OK);
      const char *v = p == 2 ? v1 : p == 3 || p == 7 ? v2 : NULL;
      if (v) assert_int_equal(hudi_objstore_encode(&query, v, strlen(v), false, &err), HUDI_OK);
      if (p == 5) assert_int_equal(hudi_buf_printf(&query, &err, "%u", 1 + rnd(5000)), HUDI_OK);
    }
    assert_int_equal(hudi_buf_append_byte(&query, 0, &err), HUDI_OK);
    /* Headers: standard ones, fixed x-ms-* ones and random x-ms-meta-*. */
    char clen[16], date[40], range[48], md5[32], metan[4][40], metav[4][40], ct[40];
    snprintf(clen, sizeof clen, "%u", rnd(3) ? rnd(100000) : 0);
    snprintf(date, sizeof date, "Mon, %02u Jan 2024 %02u:%02u:%02u GMT", 1 + rnd(28), rnd(24), rnd(60), rnd(60));
    snprintf(range, sizeof range, "bytes=%u-%u", rnd(100), 100 + rnd(1000));
    rand_value(md5, 25);
    rand_value(ct, 30);
    hudi_http_header h[HUDI_HTTP_MAX_HEADERS];
    size_t nh = 0;
    h[nh++] = (hudi_http_header){"x-ms-date", date};
    h[nh++] = (hudi_http_header){"x-ms-version", "2021-08-06"};
    if (rnd(2)) h[nh++] = (hudi_http_header){"Content-Length", clen};
    if (rnd(2)) h[nh++] = (hudi_http_header){"Content-Type", rnd(2) ? "application/octet-stream" : ct};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"If-None-Match", "*"};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"If-Match", "\"0x8D1\""};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"Content-MD5", md5};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"x-ms-range", range};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"x-ms-blob-type", "BlockBlob"};
    if (rnd(3) == 0) h[nh++] = (hudi_http_header){"x-ms-copy-source", "http://127.0.0.1:1/a/c/b%20x"};
    int n_meta = (int)rnd(5);
    for (int m = 0; m < n_meta; m++) {
      char tail[24];
      bool dup;
      do {
        rand_name(tail, 12);
        snprintf(metan[m], sizeof metan[m], "x-ms-meta-%s", tail);
        dup = false;
        for (int k = 0; k < m; k++) dup = dup || strcmp(metan[k], metan[m]) == 0;
      } while (dup);
      rand_value(metav[m], 30);
      h[nh++] = (hudi_http_header){metan[m], metav[m]};
    }
    hudi_buf sts;
    hudi_buf_init(&sts, 0);
    assert_int_equal(hudi_sharedkey_authorization(&want[i].authz, account, key, sizeof key, method,
                                                  (const char *)path.data, (const char *)query.data, h, nh,
                                                  &sts, &err),
                     HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&sts, 0, &err), HUDI_OK);
    want[i].sts = hudi_strdup((const char *)sts.data);
    hudi_buf_free(&sts);
    fprintf(in, "{\"method\": \"%s\", \"url\": ", method);
    char url[1024];
    snprintf(url, sizeof url, "%s%s%s%s", emu ? "http://127.0.0.1:10000" : "https://acct1.blob.core.windows.net",
             (const char *)path.data, query.len > 1 ? "?" : "", (const char *)query.data);
    json_str(in, url);
    fprintf(in, ", \"headers\": [");
    for (size_t j = 0; j < nh; j++) {
      fprintf(in, "%s[", j ? ", " : "");
      json_str(in, h[j].name);
      fprintf(in, ", ");
      json_str(in, h[j].value);
      fprintf(in, "]");
    }
    fprintf(in, "], \"account\": \"%s\", \"key\": \"%s\"}\n", account, key64);
    hudi_free(key64);
    hudi_buf_free(&path);
    hudi_buf_free(&query);
  }
  fclose(in);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' '%s' < '%s'", ORACLE_PY, HUDI_SOURCE_DIR "/tests/objstore/sharedkey_oracle.py", tmpl);
  FILE *out = popen(cmd, "r");
  assert_non_null(out);
  static char line[1 << 16];
  int n = 0, bad = 0;
  while (fgets(line, sizeof line, out) && n < N_RANDOM) {
    const char *a = strstr(line, "\"authorization\": \"");
    assert_non_null(a);
    a += strlen("\"authorization\": \"");
    size_t alen = strcspn(a, "\"");
    if (alen != strlen(want[n].authz) || memcmp(a, want[n].authz, alen) != 0) {
      if (bad++ < 3)
        fprintf(stderr, "request %d:\n  ours %s\n  sts  %s\n  sdk  %s", n, want[n].authz, want[n].sts, line);
    }
    n++;
  }
  assert_int_equal(pclose(out), 0);
  unlink(tmpl);
  for (int i = 0; i < N_RANDOM; i++) {
    hudi_free(want[i].authz);
    hudi_free(want[i].sts);
  }
  free(want);
  assert_int_equal(n, N_RANDOM);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(published_example),
      cmocka_unit_test(standard_headers_and_query),
      cmocka_unit_test(ms_header_order),
      cmocka_unit_test(base64_vectors),
      cmocka_unit_test(matches_sdk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
