/* The s3:// backend (and gs:// through the same code) against loopback
 * servers: moto's S3 server for the storage contract, tools/s3stub.py for
 * fault injection and the GCS dialect. Started by tests/objstore/with_moto.sh:
 * run without HUDI_S3_TEST_ENDPOINT, this program re-executes itself under
 * that script (which exits 77, "skipped", when dev/setup-objstore.sh has
 * not been run). Every request goes to 127.0.0.1 only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/alloc.h"
#include "io/storage.h"

static const char *g_moto, *g_stub;
static int g_bucket_seq;

/* ---- raw HTTP to the servers (bucket creation, stub control) --------- */

static size_t sink(char *p, size_t s, size_t n, void *ctx) {
  char *buf = ctx;
  size_t len = strlen(buf), k = s * n;
  if (len + k < 4095) {
    memcpy(buf + len, p, k);
    buf[len + k] = '\0';
  }
  return s * n;
}

/* moto accepts any signature (it does not verify them unless told to) but
 * refuses anonymous reads of private objects: a well-formed dummy header. */
static struct curl_slist *dummy_auth(void) {
  return curl_slist_append(NULL, "Authorization: AWS4-HMAC-SHA256 Credential=testing/20240101/us-east-1/"
                                 "s3/aws4_request, SignedHeaders=host, Signature=00");
}

static long raw(const char *method, const char *url, const char *body, char *resp) {
  CURL *h = curl_easy_init();
  struct curl_slist *auth = dummy_auth();
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, auth);
  char dummy[4096];
  if (!resp) resp = dummy;
  resp[0] = '\0';
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
  if (body) curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
  long status = 0;
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  curl_slist_free_all(auth);
  return status;
}

static void stub_fault(const char *json) {
  char url[256];
  snprintf(url, sizeof url, "%s/__fault", g_stub);
  assert_int_equal(raw("POST", url, json, NULL), 200);
}

static long stub_stat(const char *name) {
  char url[256], resp[4096];
  snprintf(url, sizeof url, "%s/__stats", g_stub);
  assert_int_equal(raw("GET", url, NULL, resp), 200);
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", name);
  const char *p = strstr(resp, pat);
  return p ? atol(p + strlen(pat)) : 0;
}

static void stub_reset(void) {
  char url[256];
  snprintf(url, sizeof url, "%s/__reset", g_stub);
  assert_int_equal(raw("POST", url, "", NULL), 200);
}

/* ---- fixtures -------------------------------------------------------- */

typedef struct fixture {
  char bucket[64];
  char uri[128];
  hudi_storage *s;
} fixture;

static hudi_status open_store(hudi_storage **s, const char *uri, const char *endpoint,
                              const char *max_keys, const char *extra_k, const char *extra_v,
                              hudi_error *err) {
  hudi_storage_option o[] = {
      {"aws_endpoint", endpoint},  {"aws_allow_http", "true"},  {"aws_access_key_id", "testing"},
      {"aws_secret_access_key", "testing"}, {"aws_region", "us-east-1"}, {"list_max_keys", max_keys},
      {"google_hmac_access_id", "testing"}, {"google_hmac_secret", "testing"},
      {"google_endpoint", endpoint}, {"retry_base_ms", "20"},
      {extra_k ? extra_k : "unused", extra_v ? extra_v : ""},
  };
  return hudi_storage_open(s, uri, o, sizeof o / sizeof o[0], err);
}

static int setup_moto(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  snprintf(fx->bucket, sizeof fx->bucket, "hudi-test-%d-%d", (int)getpid(), ++g_bucket_seq);
  char url[256];
  snprintf(url, sizeof url, "%s/%s", g_moto, fx->bucket);
  if (raw("PUT", url, NULL, NULL) != 200) return -1;
  snprintf(fx->uri, sizeof fx->uri, "s3://%s/tables/t1", fx->bucket);
  hudi_error err = HUDI_ERROR_INIT;
  if (open_store(&fx->s, fx->uri, g_moto, "3", NULL, NULL, &err) != HUDI_OK) {
    fprintf(stderr, "open: %s\n", err.message);
    return -1;
  }
  *state = fx;
  return 0;
}

static int teardown(void **state) {
  fixture *fx = *state;
  hudi_storage_free(fx->s);
  free(fx);
  return 0;
}

static void fill_pattern(uint8_t *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((i * 7 + seed) % 251);
}

/* ---- the storage contract against moto -------------------------------- */

static void write_read_stat(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_string_equal(hudi_storage_backend_name(fx->s), "s3");
  assert_string_equal(hudi_storage_base(fx->s), fx->uri);
  time_t before = time(NULL);
  assert_int_equal(hudi_storage_write(fx->s, "a/b/c.txt", "hello world", 11, 0, &err), HUDI_OK);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "a/b/c.txt", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 11);
  assert_memory_equal(b.data, "hello world", 11);
  hudi_buf_free(&b);
  /* The object is at prefix/key: visible to a raw GET on moto. */
  char url[512], resp[4096];
  snprintf(url, sizeof url, "%s/%s/tables/t1/a/b/c.txt", g_moto, fx->bucket);
  assert_int_equal(raw("GET", url, NULL, resp), 200);
  assert_string_equal(resp, "hello world");

  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(fx->s, "a/b/c.txt", &st, &err), HUDI_OK);
  assert_int_equal(st.size, 11);
  assert_false(st.is_dir);
  assert_true(st.mtime_ms >= (int64_t)(before - 5) * 1000);
  assert_true(st.mtime_ms <= (int64_t)(time(NULL) + 5) * 1000);
  assert_int_equal(hudi_storage_stat(fx->s, "a/b", &st, &err), HUDI_OK);
  assert_true(st.is_dir);
  assert_int_equal(hudi_storage_stat(fx->s, "a", &st, &err), HUDI_OK);
  assert_true(st.is_dir);
  assert_int_equal(hudi_storage_stat(fx->s, "", &st, &err), HUDI_OK);
  assert_true(st.is_dir);
  assert_int_equal(hudi_storage_stat(fx->s, "a/nope", &st, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, fx->bucket));
  assert_non_null(strstr(err.message, "tables/t1/a/nope"));
  bool exists = true;
  assert_int_equal(hudi_storage_exists(fx->s, "a/nope", &exists, &err), HUDI_OK);
  assert_false(exists);
  assert_int_equal(hudi_storage_exists(fx->s, "a/b/c.txt", &exists, &err), HUDI_OK);
  assert_true(exists);
  /* Replacing is whole. */
  assert_int_equal(hudi_storage_write(fx->s, "a/b/c.txt", "bye", 3, HUDI_WRITE_DIRECT, &err), HUDI_OK);
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "a/b/c.txt", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 3);
  assert_memory_equal(b.data, "bye", 3);
  hudi_buf_free(&b);
  /* An empty object is an object. */
  assert_int_equal(hudi_storage_write(fx->s, "empty", NULL, 0, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_stat(fx->s, "empty", &st, &err), HUDI_OK);
  assert_int_equal(st.size, 0);
  assert_false(st.is_dir);
}

static void ranged_reads(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t data[1000], got[64];
  fill_pattern(data, sizeof data, 3);
  assert_int_equal(hudi_storage_write(fx->s, "f.bin", data, sizeof data, 0, &err), HUDI_OK);
  size_t n = 99;
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 100, got, 50, &n, &err), HUDI_OK);
  assert_int_equal(n, 50);
  assert_memory_equal(got, data + 100, 50);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 990, got, 50, &n, &err), HUDI_OK);
  assert_int_equal(n, 10);
  assert_memory_equal(got, data + 990, 10);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 1000, got, 10, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 5000, got, 10, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 0, got, 0, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 0, got, 1, &n, &err), HUDI_OK);
  assert_int_equal(n, 1);
  assert_int_equal(got[0], data[0]);
  assert_int_equal(hudi_storage_read_exact(fx->s, "f.bin", 960, got, 40, &err), HUDI_OK);
  assert_memory_equal(got, data + 960, 40);
  assert_int_equal(hudi_storage_read_exact(fx->s, "f.bin", 990, got, 50, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "after 10"));

  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_buf_append(&b, "xy", 2, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read_buf(fx->s, "f.bin", 995, 20, &b, &n, &err), HUDI_OK);
  assert_int_equal(n, 5);
  assert_memory_equal(b.data + 2, data + 995, 5);
  /* read_all honours both caps and leaves the buffer alone on failure. */
  assert_int_equal(hudi_storage_read_all(fx->s, "f.bin", 999, &b, &err), HUDI_ERR_LIMIT);
  assert_non_null(strstr(err.message, "1000 bytes"));
  assert_non_null(strstr(err.message, "f.bin"));
  assert_int_equal(b.len, 7);
  assert_int_equal(hudi_storage_read_all(fx->s, "f.bin", 1000, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 1007);
  assert_memory_equal(b.data + 7, data, 1000);
  hudi_buf_free(&b);

  assert_int_equal(hudi_storage_read(fx->s, "missing.bin", 0, got, 10, &n, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "missing.bin"));
  assert_non_null(strstr(err.message, "HTTP 404"));
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "missing.bin", 10, &b, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "NoSuchKey"));
  hudi_buf_free(&b);
  assert_int_equal(hudi_storage_read(fx->s, "missing.bin", 0, got, 0, &n, &err), HUDI_ERR_NOT_FOUND);
}

/* N threads race to create one object; exactly one wins. */
#define RACERS 8
typedef struct racer {
  hudi_storage *s;
  int id;
  hudi_status st;
  pthread_barrier_t *go;
} racer;

static void *race_main(void *arg) {
  racer *r = arg;
  char body[32];
  int n = snprintf(body, sizeof body, "writer-%d", r->id);
  pthread_barrier_wait(r->go);
  r->st = hudi_storage_write_if_absent(r->s, ".hoodie/001.commit", body, (size_t)n, NULL);
  return NULL;
}

static void race_on(hudi_storage *s) {
  pthread_barrier_t go;
  pthread_barrier_init(&go, NULL, RACERS);
  racer r[RACERS];
  pthread_t t[RACERS];
  for (int i = 0; i < RACERS; i++) {
    r[i] = (racer){s, i, HUDI_ERR_INTERNAL, &go};
    assert_int_equal(pthread_create(&t[i], NULL, race_main, &r[i]), 0);
  }
  int winners = 0, winner = -1;
  for (int i = 0; i < RACERS; i++) {
    pthread_join(t[i], NULL);
    if (r[i].st == HUDI_OK) {
      winners++;
      winner = i;
    } else {
      assert_int_equal(r[i].st, HUDI_ERR_EXISTS);
    }
  }
  pthread_barrier_destroy(&go);
  assert_int_equal(winners, 1);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_read_all(s, ".hoodie/001.commit", 100, &b, &err), HUDI_OK);
  char want[32];
  int n = snprintf(want, sizeof want, "writer-%d", winner);
  assert_int_equal(b.len, (size_t)n);
  assert_memory_equal(b.data, want, (size_t)n);
  hudi_buf_free(&b);
  /* And a later writer is told it lost, naming the key. */
  assert_int_equal(hudi_storage_write_if_absent(s, ".hoodie/001.commit", "x", 1, &err), HUDI_ERR_EXISTS);
  assert_non_null(strstr(err.message, ".hoodie/001.commit"));
  assert_non_null(strstr(err.message, "412"));
}

/* Against moto, one writer after another: moto checks If-None-Match and
 * stores the object in two steps without a lock (moto/s3/responses.py,
 * put_object), so two racing conditional PUTs can both succeed there,
 * where S3 makes them atomic (seen in CI: two winners of eight). The race
 * itself runs against the in-project stub, which is atomic
 * (stub_race_and_gcs_dialect). */
static void write_if_absent_moto(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write_if_absent(fx->s, ".hoodie/001.commit", "writer-0", 8, &err), HUDI_OK);
  for (int i = 1; i < 3; i++) {
    assert_int_equal(hudi_storage_write_if_absent(fx->s, ".hoodie/001.commit", "writer-1", 8, &err), HUDI_ERR_EXISTS);
    assert_non_null(strstr(err.message, ".hoodie/001.commit"));
    assert_non_null(strstr(err.message, "412"));
  }
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, ".hoodie/001.commit", 100, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 8u);
  assert_memory_equal(b.data, "writer-0", 8);
  hudi_buf_free(&b);
}

static void list_paginates(void **state) {
  fixture *fx = *state; /* list_max_keys = 3 */
  hudi_error err = HUDI_ERROR_INIT;
  const char *files[] = {"p/x1", "p/x2", "p/q/y1", "p/q/y2", "p/q/r/z", "p/x3", "p/x4", "p/x5",
                         "p/.f.1.hudi-tmp", "top", "p/x6"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    assert_int_equal(hudi_storage_write(fx->s, files[i], files[i], strlen(files[i]), 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->s, "p", 0, &l, &err), HUDI_OK);
  const char *want[] = {"p/q", "p/x1", "p/x2", "p/x3", "p/x4", "p/x5", "p/x6"};
  assert_int_equal(l.count, 7);
  for (size_t i = 0; i < l.count; i++) {
    assert_string_equal(l.items[i].path, want[i]);
    assert_int_equal(l.items[i].is_dir, i == 0);
    if (i) assert_int_equal(l.items[i].size, 4);
    if (i) assert_true(l.items[i].mtime_ms > 1600000000000LL);
  }
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_list(fx->s, "p", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  const char *rwant[] = {"p/q/r/z", "p/q/y1", "p/q/y2", "p/x1", "p/x2", "p/x3", "p/x4", "p/x5", "p/x6"};
  assert_int_equal(l.count, 9);
  for (size_t i = 0; i < l.count; i++) {
    assert_string_equal(l.items[i].path, rwant[i]);
    assert_false(l.items[i].is_dir);
  }
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_list(fx->s, "p", HUDI_LIST_RECURSIVE | HUDI_LIST_INCLUDE_TEMP, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 10);
  assert_string_equal(l.items[0].path, "p/.f.1.hudi-tmp");
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_list(fx->s, "", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 2);
  assert_string_equal(l.items[0].path, "p");
  assert_true(l.items[0].is_dir);
  assert_string_equal(l.items[1].path, "top");
  hudi_file_list_free(&l);
  /* A missing directory lists as empty; "p/x" is not a prefix of p/x1's directory. */
  assert_int_equal(hudi_storage_list(fx->s, "nothing/here", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 0);
  assert_int_equal(hudi_storage_list(fx->s, "p/x", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 0);
}

static void deletes(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  char name[64];
  for (int i = 0; i < 25; i++) {
    snprintf(name, sizeof name, "d/sub%d/f%02d", i % 3, i);
    assert_int_equal(hudi_storage_write(fx->s, name, "z", 1, 0, &err), HUDI_OK);
  }
  assert_int_equal(hudi_storage_write(fx->s, "d2", "keep", 4, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(fx->s, "one", "1", 1, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_delete(fx->s, "one", 0, &err), HUDI_OK);
  bool ex;
  assert_int_equal(hudi_storage_exists(fx->s, "one", &ex, &err), HUDI_OK);
  assert_false(ex);
  assert_int_equal(hudi_storage_delete(fx->s, "one", 0, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "one"));
  assert_int_equal(hudi_storage_delete(fx->s, "one", HUDI_DELETE_MISSING_OK, &err), HUDI_OK);
  assert_int_equal(hudi_storage_delete(fx->s, "d", 0, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_delete(fx->s, "d", HUDI_DELETE_RECURSIVE, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_string_equal(l.items[0].path, "d2"); /* a sibling sharing the name's start survives */
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_delete(fx->s, "d", HUDI_DELETE_RECURSIVE, &err), HUDI_ERR_NOT_FOUND);
  assert_int_equal(hudi_storage_delete(fx->s, "d", HUDI_DELETE_RECURSIVE | HUDI_DELETE_MISSING_OK, &err), HUDI_OK);
}

static void renames(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write(fx->s, "from", "payload", 7, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "from", "x/to", 0, &err), HUDI_OK);
  bool ex;
  assert_int_equal(hudi_storage_exists(fx->s, "from", &ex, &err), HUDI_OK);
  assert_false(ex);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "x/to", 100, &b, &err), HUDI_OK);
  assert_int_equal(b.len, 7);
  assert_memory_equal(b.data, "payload", 7);
  hudi_buf_free(&b);
  assert_int_equal(hudi_storage_rename(fx->s, "from", "y", 0, &err), HUDI_ERR_NOT_FOUND);
  assert_int_equal(hudi_storage_write(fx->s, "other", "o", 1, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "other", "x/to", HUDI_RENAME_NO_REPLACE, &err), HUDI_ERR_EXISTS);
  assert_int_equal(hudi_storage_exists(fx->s, "other", &ex, &err), HUDI_OK);
  assert_true(ex);
  assert_int_equal(hudi_storage_rename(fx->s, "other", "x/new", HUDI_RENAME_NO_REPLACE, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "x", "z", 0, &err), HUDI_ERR_UNSUPPORTED);
}

/* The headers of a HEAD on the raw URL. */
static void raw_head(const char *url, char *resp) {
  CURL *h = curl_easy_init();
  struct curl_slist *auth = dummy_auth();
  resp[0] = '\0';
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, auth);
  curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, resp);
  assert_int_equal(curl_easy_perform(h), CURLE_OK);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  assert_int_equal(status, 200);
  curl_easy_cleanup(h);
  curl_slist_free_all(auth);
}

static void multipart_write(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  assert_int_equal(open_store(&s, fx->uri, g_moto, "1000", "multipart_threshold", "6000000", &err), HUDI_OK);
  size_t len = (size_t)12 << 20; /* one default (16 MiB) part */
  uint8_t *data = malloc(len);
  fill_pattern(data, len, 11);
  assert_int_equal(hudi_storage_write(s, "big.bin", data, len, 0, &err), HUDI_OK);
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(s, "big.bin", &st, &err), HUDI_OK);
  assert_int_equal(st.size, len);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(s, "big.bin", len, &b, &err), HUDI_OK);
  assert_int_equal(b.len, len);
  assert_memory_equal(b.data, data, len);
  hudi_buf_free(&b);
  /* moto's ETag for a multipart object is "<md5 of part md5s>-<parts>". */
  char url[512], resp[4096];
  snprintf(url, sizeof url, "%s/%s/tables/t1/big.bin", g_moto, fx->bucket);
  raw_head(url, resp);
  assert_non_null(strstr(resp, "-1\"")); /* 12 MiB < one 16 MiB part */
  hudi_storage_free(s);

  /* With 5 MiB parts: three parts. */
  hudi_storage_option o[] = {{"aws_endpoint", g_moto}, {"aws_allow_http", "true"},
                             {"aws_access_key_id", "k"}, {"aws_secret_access_key", "s"},
                             {"multipart_threshold", "6000000"}, {"multipart_part_size", "5242880"}};
  assert_int_equal(hudi_storage_open(&s, fx->uri, o, 6, &err), HUDI_OK);
  fill_pattern(data, len, 12);
  assert_int_equal(hudi_storage_write(s, "big3.bin", data, len, HUDI_WRITE_IF_ABSENT, &err), HUDI_OK);
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(s, "big3.bin", len, &b, &err), HUDI_OK);
  assert_int_equal(b.len, len);
  assert_memory_equal(b.data, data, len);
  hudi_buf_free(&b);
  snprintf(url, sizeof url, "%s/%s/tables/t1/big3.bin", g_moto, fx->bucket);
  raw_head(url, resp);
  assert_non_null(strstr(resp, "-3\""));
  /* Create-only holds for multipart too. */
  assert_int_equal(hudi_storage_write(s, "big3.bin", data, len, HUDI_WRITE_IF_ABSENT, &err), HUDI_ERR_EXISTS);
  hudi_storage_free(s);
  free(data);
}

static void missing_bucket_named(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  assert_int_equal(open_store(&s, "s3://no-such-bucket-h17/t", g_moto, "1000", NULL, NULL, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", 0, &l, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "no-such-bucket-h17"));
  assert_non_null(strstr(err.message, "NoSuchBucket"));
  hudi_storage_free(s);
}

static void settings_checked(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s = NULL;
  hudi_storage_option o[] = {{"aws_endpoint", "http://127.0.0.1:1"}, {"aws_access_key_id", "k"},
                             {"aws_secret_access_key", "s"}};
  /* http:// needs aws_allow_http. */
  assert_int_equal(hudi_storage_open(&s, "s3://b/t", o, 3, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "aws_allow_http"));
  assert_int_equal(hudi_storage_open(&s, "s3://", o, 3, &err), HUDI_ERR_INVALID_ARG);
  hudi_storage_option bad[] = {{"aws_endpoint", "https://127.0.0.1:1"}, {"aws_access_key_id", "k"},
                               {"aws_secret_access_key", "s"}, {"multipart_part_size", "100"}};
  assert_int_equal(hudi_storage_open(&s, "s3://b/t", bad, 4, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "multipart_part_size"));
  /* s3a:// is s3://; a connection refused is an IO error naming the URL, after bounded retries. */
  hudi_storage_option ok[] = {{"aws_endpoint", "http://127.0.0.1:1"}, {"aws_allow_http", "true"},
                              {"aws_access_key_id", "k"}, {"aws_secret_access_key", "s"},
                              {"max_retries", "2"}, {"retry_base_ms", "10"}};
  assert_int_equal(hudi_storage_open(&s, "s3a://b/t/", ok, 6, &err), HUDI_OK);
  assert_string_equal(hudi_storage_base(s), "s3a://b/t");
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(s, "x", &st, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "s3://b/t/x"));
  assert_non_null(strstr(err.message, "3 attempts"));
  hudi_storage_free(s);
}

/* ---- faults, against the stub ----------------------------------------- */

typedef struct stub_fx {
  hudi_storage *s;
} stub_fx;

static int setup_stub(void **state) {
  stub_reset();
  stub_fx *fx = calloc(1, sizeof *fx);
  hudi_error err = HUDI_ERROR_INIT;
  if (open_store(&fx->s, "s3://stub/t", g_stub, "2", "max_retries", "4", &err) != HUDI_OK) {
    fprintf(stderr, "open: %s\n", err.message);
    return -1;
  }
  *state = fx;
  return 0;
}

static int teardown_stub(void **state) {
  stub_fx *fx = *state;
  hudi_storage_free(fx->s);
  free(fx);
  return 0;
}

static void retries_throttling_and_drops(void **state) {
  stub_fx *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t data[5000], got[5000];
  fill_pattern(data, sizeof data, 5);
  stub_fault("{\"kind\": \"drop\", \"count\": 2, \"method\": \"PUT\"}");
  assert_int_equal(hudi_storage_write(fx->s, "f", data, sizeof data, 0, &err), HUDI_OK);
  assert_int_equal(stub_stat("faults"), 2);
  stub_fault("{\"kind\": \"503\", \"count\": 3, \"method\": \"GET\"}");
  size_t n;
  assert_int_equal(hudi_storage_read(fx->s, "f", 0, got, sizeof got, &n, &err), HUDI_OK);
  assert_int_equal(n, sizeof data);
  assert_memory_equal(got, data, sizeof data);
  assert_int_equal(stub_stat("faults"), 5);
  stub_fault("{\"kind\": \"truncate\", \"count\": 1, \"method\": \"GET\"}");
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "f", sizeof data, &b, &err), HUDI_OK);
  assert_int_equal(b.len, sizeof data);
  assert_memory_equal(b.data, data, sizeof data);
  hudi_buf_free(&b);
  stub_fault("{\"kind\": \"truncate\", \"count\": 1, \"method\": \"GET\"}");
  assert_int_equal(hudi_storage_read(fx->s, "f", 1000, got, 3000, &n, &err), HUDI_OK);
  assert_int_equal(n, 3000);
  assert_memory_equal(got, data + 1000, 3000);
  stub_fault("{\"kind\": \"429\", \"count\": 2}");
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->s, "", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  hudi_file_list_free(&l);
  assert_int_equal(stub_stat("faults"), 9);
}

static void persistent_failure_is_reported(void **state) {
  stub_fx *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write(fx->s, "dir/obj", "abc", 3, 0, &err), HUDI_OK);
  long before = stub_stat("requests");
  stub_fault("{\"kind\": \"500\", \"count\": 1000, \"match\": \"dir/obj\"}");
  time_t t0 = time(NULL);
  uint8_t got[8];
  size_t n;
  assert_int_equal(hudi_storage_read(fx->s, "dir/obj", 0, got, 3, &n, &err), HUDI_ERR_IO);
  assert_true(time(NULL) - t0 < 30);
  assert_non_null(strstr(err.message, "s3://stub/t/dir/obj"));
  assert_non_null(strstr(err.message, "HTTP 500"));
  assert_non_null(strstr(err.message, "InternalError"));
  assert_non_null(strstr(err.message, "5 attempts")); /* 1 + max_retries */
  assert_int_equal(stub_stat("requests") - before, 5);
  /* A failed create-only write leaves nothing behind. */
  stub_reset();
  stub_fault("{\"kind\": \"503\", \"count\": 1000, \"method\": \"PUT\"}");
  assert_int_equal(hudi_storage_write_if_absent(fx->s, ".hoodie/002.commit", "c", 1, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "SlowDown"));
  stub_reset();
  bool ex = true;
  assert_int_equal(hudi_storage_exists(fx->s, ".hoodie/002.commit", &ex, &err), HUDI_OK);
  assert_false(ex);
}

static void access_denied_is_named(void **state) {
  stub_fx *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  stub_fault("{\"kind\": \"403\", \"count\": 1}");
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "secret/key", 10, &b, &err), HUDI_ERR_IO);
  hudi_buf_free(&b);
  assert_non_null(strstr(err.message, "access denied"));
  assert_non_null(strstr(err.message, "s3://stub/t/secret/key"));
  assert_non_null(strstr(err.message, "AccessDenied"));
  assert_non_null(strstr(err.message, "403"));
}

static void stub_race_and_gcs_dialect(void **state) {
  stub_fx *fx = *state;
  race_on(fx->s);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *g;
  assert_int_equal(open_store(&g, "gs://gbucket/tbl", g_stub, "2", NULL, NULL, &err), HUDI_OK);
  assert_string_equal(hudi_storage_backend_name(g), "gcs");
  race_on(g); /* x-goog-if-generation-match: 0 */
  assert_int_equal(hudi_storage_write(g, "p/a", "1", 1, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(g, "p/b/c", "22", 2, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(g, "p/d", "333", 3, 0, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(g, "p", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 3);
  assert_string_equal(l.items[1].path, "p/b");
  assert_true(l.items[1].is_dir);
  hudi_file_list_free(&l);
  assert_int_equal(hudi_storage_rename(g, "p/d", "p/e", 0, &err), HUDI_OK);
  uint8_t got[4];
  size_t n;
  assert_int_equal(hudi_storage_read(g, "p/e", 1, got, 4, &n, &err), HUDI_OK);
  assert_int_equal(n, 2);
  assert_memory_equal(got, "33", 2);
  assert_int_equal(hudi_storage_delete(g, "p", HUDI_DELETE_RECURSIVE, &err), HUDI_OK);
  assert_int_equal(hudi_storage_list(g, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_string_equal(l.items[0].path, ".hoodie/001.commit");
  hudi_file_list_free(&l);
  hudi_storage_free(g);
}

/* ---- sequential read-ahead (io/readahead.h), against the stub --------- */

static hudi_storage *open_ra(const char *window) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s = NULL;
  if (open_store(&s, "s3://stub/t", g_stub, "1000", "read_ahead_bytes", window, &err) != HUDI_OK)
    fail_msg("open: %s", err.message);
  return s;
}

/* Reads [0, end) in steps of step bytes and checks every byte against
 * data; returns the requests the stub served meanwhile. */
static long read_in_steps(hudi_storage *s, const char *path, const uint8_t *data, size_t size, size_t step,
                          size_t end) {
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t got[4096];
  long before = stub_stat("requests");
  for (size_t off = 0; off < end; off += step) {
    size_t n = 99;
    assert_int_equal(hudi_storage_read(s, path, off, got, step, &n, &err), HUDI_OK);
    size_t want = off >= size ? 0 : size - off < step ? size - off : step;
    assert_int_equal(n, want);
    if (want) assert_memory_equal(got, data + off, want);
  }
  return stub_stat("requests") - before; /* (the stats calls are not counted) */
}

static void read_ahead_batches_sequential_reads(void **state) {
  stub_fx *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  enum { SIZE = 200000 };
  uint8_t *data = malloc(SIZE), *other = malloc(SIZE);
  fill_pattern(data, SIZE, 3);
  fill_pattern(other, SIZE, 77);
  assert_int_equal(hudi_storage_write(fx->s, "seq.bin", data, SIZE, 0, &err), HUDI_OK);
  hudi_storage *off = open_ra("0"), *ra = open_ra("65536");
  /* Without read-ahead: one GET per read. */
  assert_int_equal(read_in_steps(off, "seq.bin", data, SIZE, 1000, SIZE), SIZE / 1000);
  /* With it: the first read as asked, then one 64 KiB window per 65 reads;
   * reads at and past the end are short, served from what the last window
   * learnt (the object ended inside it). */
  long n = read_in_steps(ra, "seq.bin", data, SIZE, 1000, SIZE + 3000);
  print_message("read-ahead: %ld requests for %d reads\n", n, SIZE / 1000 + 3);
  assert_int_equal(n, 1 + (SIZE - 1000 + 65535) / 65536);
  /* Reads that do not continue the previous one fetch only their range. */
  uint8_t got[1000];
  size_t k;
  long before = stub_stat("requests");
  for (int i = 9; i >= 0; i--) {
    assert_int_equal(hudi_storage_read(ra, "seq.bin", (uint64_t)i * 15000, got, 500, &k, &err), HUDI_OK);
    assert_int_equal(k, 500);
    assert_memory_equal(got, data + i * 15000, 500);
  }
  assert_int_equal(stub_stat("requests") - before, 10);
  /* A window is dropped when the handle writes: a replaced object reads
   * back new. (Read two steps so a window is cached, then overwrite.) */
  assert_int_equal(hudi_storage_read(ra, "seq.bin", 0, got, 1000, &k, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read(ra, "seq.bin", 1000, got, 1000, &k, &err), HUDI_OK);
  assert_memory_equal(got, data + 1000, 1000);
  assert_int_equal(hudi_storage_write(ra, "seq.bin", other, SIZE, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read(ra, "seq.bin", 2000, got, 1000, &k, &err), HUDI_OK);
  assert_int_equal(k, 1000);
  assert_memory_equal(got, other + 2000, 1000);
  /* ... and on delete: the object is gone, not served from memory. */
  assert_int_equal(hudi_storage_read(ra, "seq.bin", 3000, got, 1000, &k, &err), HUDI_OK);
  assert_int_equal(hudi_storage_delete(ra, "seq.bin", 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read(ra, "seq.bin", 4000, got, 1000, &k, &err), HUDI_ERR_NOT_FOUND);
  /* A bad window is named. */
  hudi_storage *bad = NULL;
  assert_int_equal(open_store(&bad, "s3://stub/t", g_stub, "10", "read_ahead_bytes", "lots", &err),
                   HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "read_ahead_bytes"));
  hudi_storage_free(off);
  hudi_storage_free(ra);
  free(data);
  free(other);
}

typedef struct ra_reader {
  hudi_storage *s;
  char path[32];
  const uint8_t *data;
  size_t size;
  int bad;
} ra_reader;

static void *ra_reader_run(void *arg) {
  ra_reader *r = arg;
  hudi_error err = HUDI_ERROR_INIT;
  uint8_t got[3200];
  for (size_t off = 0, step = 700; off < r->size; off += step, step = step % 2900 + 300) { /* step < 3200 */
    size_t n;
    size_t want = r->size - off < step ? r->size - off : step;
    if (hudi_storage_read(r->s, r->path, off, got, step, &n, &err) != HUDI_OK || n != want ||
        memcmp(got, r->data + off, n) != 0)
      r->bad++;
  }
  return NULL;
}

/* Threads reading different objects through one handle (more objects than
 * the cache has slots) each see their own bytes. */
static void read_ahead_threads(void **state) {
  stub_fx *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  enum { N = 10, SIZE = 150000 };
  uint8_t *data[N];
  ra_reader rd[N];
  pthread_t th[N];
  hudi_storage *ra = open_ra("20000");
  for (int i = 0; i < N; i++) {
    data[i] = malloc(SIZE);
    fill_pattern(data[i], SIZE, (unsigned)i * 13 + 1);
    rd[i] = (ra_reader){.s = ra, .data = data[i], .size = SIZE - (size_t)i * 1000};
    snprintf(rd[i].path, sizeof rd[i].path, "th/%d.bin", i);
    assert_int_equal(hudi_storage_write(fx->s, rd[i].path, data[i], rd[i].size, 0, &err), HUDI_OK);
  }
  for (int i = 0; i < N; i++) assert_int_equal(pthread_create(&th[i], NULL, ra_reader_run, &rd[i]), 0);
  for (int i = 0; i < N; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(rd[i].bad, 0);
    free(data[i]);
  }
  hudi_storage_free(ra);
}

int main(int argc, char **argv) {
  (void)argc;
  g_moto = getenv("HUDI_S3_TEST_ENDPOINT");
  g_stub = getenv("HUDI_S3STUB_ENDPOINT");
  if (!g_moto || !g_stub) {
    execl("/bin/sh", "sh", HUDI_SOURCE_DIR "/tests/objstore/with_moto.sh", argv[0], (char *)NULL);
    perror("exec with_moto.sh");
    return 1;
  }
  /* Never anything but loopback. */
  if (strncmp(g_moto, "http://127.0.0.1:", 17) != 0 || strncmp(g_stub, "http://127.0.0.1:", 17) != 0) {
    fprintf(stderr, "refusing non-loopback endpoints\n");
    return 1;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(write_read_stat, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(ranged_reads, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(write_if_absent_moto, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(list_paginates, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(deletes, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(renames, setup_moto, teardown),
      cmocka_unit_test_setup_teardown(multipart_write, setup_moto, teardown),
      cmocka_unit_test(missing_bucket_named),
      cmocka_unit_test(settings_checked),
      cmocka_unit_test_setup_teardown(retries_throttling_and_drops, setup_stub, teardown_stub),
      cmocka_unit_test_setup_teardown(persistent_failure_is_reported, setup_stub, teardown_stub),
      cmocka_unit_test_setup_teardown(access_denied_is_named, setup_stub, teardown_stub),
      cmocka_unit_test_setup_teardown(stub_race_and_gcs_dialect, setup_stub, teardown_stub),
      cmocka_unit_test_setup_teardown(read_ahead_batches_sequential_reads, setup_stub, teardown_stub),
      cmocka_unit_test_setup_teardown(read_ahead_threads, setup_stub, teardown_stub),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  curl_global_cleanup();
  return rc;
}
