/* SigV4 signing against AWS's published test vectors
 * (tests/objstore/sigv4-vectors.txt, source noted there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "io/objstore.h"
#include "io/sigv4.h"
#include <unistd.h>

#define MAXH 16

typedef struct vcase {
  char name[64], key[64], secret[128], region[32], service[32], date[32];
  char method[16], uri[256], query[256], body[256], creq_sha[80], authz[512];
  char hname[MAXH][64], hvalue[MAXH][128];
  size_t n_headers;
} vcase;

static void reset_case(vcase *c) {
  memset(c, 0, sizeof *c);
  strcpy(c->key, "AKIDEXAMPLE");
  strcpy(c->secret, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
  strcpy(c->region, "us-east-1");
  strcpy(c->service, "service");
  strcpy(c->date, "20150830T123600Z");
}

static void copy_field(char *dst, size_t cap, const char *v) {
  assert_true(strlen(v) < cap);
  strcpy(dst, v);
}

static int check_case(const vcase *c) {
  hudi_http_header h[MAXH];
  for (size_t i = 0; i < c->n_headers; i++) h[i] = (hudi_http_header){c->hname[i], c->hvalue[i]};
  char payload[65];
  hudi_sha256_hex(payload, c->body, strlen(c->body));
  hudi_sigv4_key key = {c->key, c->secret, c->region, c->service, NULL};
  hudi_buf creq, sts;
  hudi_buf_init(&creq, 0);
  hudi_buf_init(&sts, 0);
  char *authz = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sigv4_authorization(&authz, &key, c->date, c->method, c->uri, c->query, h,
                                            c->n_headers, payload, &creq, &sts, &err),
                   HUDI_OK);
  int bad = 0;
  if (strcmp(authz, c->authz) != 0) {
    fprintf(stderr, "case %s:\n  got  %s\n  want %s\ncanonical request:\n%.*s\n", c->name, authz,
            c->authz, (int)creq.len, (const char *)creq.data);
    bad = 1;
  }
  if (c->creq_sha[0]) {
    char got[65];
    hudi_sha256_hex(got, creq.data, creq.len);
    if (strcmp(got, c->creq_sha) != 0) {
      fprintf(stderr, "case %s: canonical request hash %s, want %s\n", c->name, got, c->creq_sha);
      bad = 1;
    }
    /* The string to sign ends with that hash. */
    assert_true(sts.len > 64 && memcmp(sts.data + sts.len - 64, c->creq_sha, 64) == 0);
  }
  hudi_free(authz);
  hudi_buf_free(&creq);
  hudi_buf_free(&sts);
  return bad;
}

static void published_vectors(void **state) {
  (void)state;
  FILE *f = fopen(HUDI_SOURCE_DIR "/tests/objstore/sigv4-vectors.txt", "r");
  assert_non_null(f);
  vcase c;
  reset_case(&c);
  char line[1024];
  int n_cases = 0, n_bad = 0;
  bool open = false;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    char *sp = strchr(line, ' ');
    const char *v = sp ? sp + 1 : "";
    if (sp) *sp = '\0';
    if (!strcmp(line, "case")) {
      if (open) {
        n_bad += check_case(&c);
        n_cases++;
      }
      reset_case(&c);
      copy_field(c.name, sizeof c.name, v);
      open = true;
    } else if (!strcmp(line, "header")) {
      const char *colon = strchr(v, ':');
      assert_non_null(colon);
      assert_true(c.n_headers < MAXH);
      snprintf(c.hname[c.n_headers], sizeof c.hname[0], "%.*s", (int)(colon - v), v);
      copy_field(c.hvalue[c.n_headers], sizeof c.hvalue[0], colon + 1);
      c.n_headers++;
    } else {
      struct {
        const char *k;
        char *dst;
        size_t cap;
      } fields[] = {{"key", c.key, sizeof c.key},         {"secret", c.secret, sizeof c.secret},
                    {"region", c.region, sizeof c.region}, {"service", c.service, sizeof c.service},
                    {"date", c.date, sizeof c.date},       {"method", c.method, sizeof c.method},
                    {"uri", c.uri, sizeof c.uri},          {"query", c.query, sizeof c.query},
                    {"body", c.body, sizeof c.body},       {"creq_sha256", c.creq_sha, sizeof c.creq_sha},
                    {"authorization", c.authz, sizeof c.authz}};
      bool known = false;
      for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!strcmp(line, fields[i].k)) {
          copy_field(fields[i].dst, fields[i].cap, v);
          known = true;
        }
      if (!known) fail_msg("unknown vector line '%s'", line);
    }
  }
  fclose(f);
  if (open) {
    n_bad += check_case(&c);
    n_cases++;
  }
  assert_int_equal(n_cases, 10);
  assert_int_equal(n_bad, 0);
}

/* The canonical request for the suite's get-header-value-trim case, line
 * by line as AWS publishes it. */
static void canonical_request_shape(void **state) {
  (void)state;
  hudi_http_header h[] = {{"Host", "example.amazonaws.com"},
                          {"My-Header1", " value1"},
                          {"My-Header2", "\"a   b   c\""},
                          {"X-Amz-Date", "20150830T123600Z"}};
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sigv4_canonical_request(&b, "GET", "/", "", h, 4,
                                                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                                                &err),
                   HUDI_OK);
  const char *want =
      "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\n"
      "x-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n"
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  assert_int_equal(b.len, strlen(want));
  assert_memory_equal(b.data, want, b.len);
  hudi_buf_free(&b);
}

static void bad_date_rejected(void **state) {
  (void)state;
  hudi_sigv4_key key = {"a", "b", "us-east-1", "s3", NULL};
  char *out = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_sigv4_authorization(&out, &key, "2015", "GET", "/", "", NULL, 0, "x", NULL,
                                            NULL, &err),
                   HUDI_ERR_INVALID_ARG);
  assert_null(out);
}

/* ---- botocore as an oracle for random requests ----------------------- */

#define ORACLE_PY HUDI_SOURCE_DIR "/.venv-objstore/bin/python"
#define N_RANDOM 200

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static unsigned rnd(unsigned n) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (unsigned)(g_rng % n);
}

/* Random bytes for keys and values: unreserved, reserved, spaces, UTF-8. */
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

static void matches_botocore(void **state) {
  (void)state;
  if (access(ORACLE_PY, X_OK) != 0) {
    fprintf(stderr, "SKIP botocore comparison: run dev/setup-objstore.sh to install botocore\n");
    skip();
  }
  char tmpl[] = "/tmp/hudi-sigv4-XXXXXX";
  int fd = mkstemp(tmpl);
  assert_true(fd >= 0);
  FILE *in = fdopen(fd, "w");
  char *expected[N_RANDOM];
  hudi_error err = HUDI_ERROR_INIT;
  for (int i = 0; i < N_RANDOM; i++) {
    static const char *const methods[] = {"GET", "PUT", "HEAD", "DELETE", "POST"};
    const char *method = methods[rnd(5)];
    char key[128], v1[64], v2[64], meta[64], body[64];
    rand_text(key, sizeof key);
    rand_text(v1, sizeof v1);
    rand_text(v2, sizeof v2);
    rand_text(meta, sizeof meta);
    rand_text(body, sizeof body);
    for (char *p = meta; *p; p++) /* header values: printable ASCII */
      if ((unsigned char)*p >= 0x80) *p = 'x';
    hudi_buf path, query;
    hudi_buf_init(&path, 0);
    hudi_buf_init(&query, 0);
    assert_int_equal(hudi_buf_append_str(&path, "/bucket-1/", &err), HUDI_OK);
    assert_int_equal(hudi_objstore_encode(&path, key, strlen(key), true, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&path, 0, &err), HUDI_OK);
    /* Unsorted query: the signer must sort it. */
    assert_int_equal(hudi_buf_append_str(&query, rnd(2) ? "prefix=" : "uploadId=", &err), HUDI_OK);
    assert_int_equal(hudi_objstore_encode(&query, v1, strlen(v1), false, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_str(&query, "&continuation-token=", &err), HUDI_OK);
    assert_int_equal(hudi_objstore_encode(&query, v2, strlen(v2), false, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_str(&query, "&list-type=2", &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&query, 0, &err), HUDI_OK);
    char date[17];
    snprintf(date, sizeof date, "2024%02u%02uT%02u%02u%02uZ", 1 + rnd(12), 1 + rnd(28), rnd(24), rnd(60), rnd(60));
    size_t blen = rnd(2) ? strlen(body) : 0;
    char payload[65];
    hudi_sha256_hex(payload, body, blen);
    char range[40];
    snprintf(range, sizeof range, "bytes=%u-%u", rnd(100), 100 + rnd(1000));
    hudi_http_header h[] = {{"Host", "127.0.0.1:9000"},
                            {"x-amz-date", date},
                            {"x-amz-content-sha256", payload},
                            {"Range", range},
                            {"x-amz-meta-note", meta},
                            {"If-None-Match", "*"}};
    size_t nh = 3 + rnd(4);
    hudi_sigv4_key k = {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", rnd(2) ? "eu-west-1" : "us-east-1", "s3", NULL};
    assert_int_equal(hudi_sigv4_authorization(&expected[i], &k, date, method, (const char *)path.data,
                                              (const char *)query.data, h, nh, payload, NULL, NULL, &err),
                     HUDI_OK);
    fprintf(in, "{\"method\": \"%s\", \"url\": ", method);
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:9000%s?%s", (const char *)path.data, (const char *)query.data);
    json_str(in, url);
    fprintf(in, ", \"headers\": [");
    for (size_t j = 0; j < nh; j++) {
      if (j == 1 || j == 2) continue; /* botocore sets these itself */
      fprintf(in, "%s[", j ? ", " : "");
      json_str(in, h[j].name);
      fprintf(in, ", ");
      json_str(in, h[j].value);
      fprintf(in, "]");
    }
    fprintf(in, "], \"body_hex\": \"");
    for (size_t j = 0; j < blen; j++) fprintf(in, "%02x", (unsigned char)body[j]);
    fprintf(in, "\", \"date\": \"%s\", \"key\": \"%s\", \"secret\": \"%s\", \"region\": \"%s\"}\n", date,
            k.access_key, k.secret_key, k.region);
    hudi_buf_free(&path);
    hudi_buf_free(&query);
  }
  fclose(in);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' '%s' < '%s'", ORACLE_PY, HUDI_SOURCE_DIR "/tests/objstore/sigv4_oracle.py", tmpl);
  FILE *out = popen(cmd, "r");
  assert_non_null(out);
  char line[8192];
  int n = 0, bad = 0;
  while (fgets(line, sizeof line, out) && n < N_RANDOM) {
    const char *a = strstr(line, "\"authorization\": \"");
    assert_non_null(a);
    a += strlen("\"authorization\": \"");
    size_t alen = strcspn(a, "\"");
    if (alen != strlen(expected[n]) || memcmp(a, expected[n], alen) != 0) {
      if (bad++ < 3) fprintf(stderr, "request %d:\n  ours     %s\n  botocore %.*s\n  %s", n, expected[n], (int)alen, a, line);
    }
    n++;
  }
  assert_int_equal(pclose(out), 0);
  unlink(tmpl);
  for (int i = 0; i < N_RANDOM; i++) hudi_free(expected[i]);
  assert_int_equal(n, N_RANDOM);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(published_vectors),
      cmocka_unit_test(canonical_request_shape),
      cmocka_unit_test(bad_date_rejected),
      cmocka_unit_test(matches_botocore),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
