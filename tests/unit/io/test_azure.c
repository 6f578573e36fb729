/* The az:// (and abfs[s]://) backend against azurite, the Azure Blob
 * emulator, on loopback. Started by tests/objstore/with_azurite.sh: run
 * without HUDI_AZURITE_ENDPOINT, this program re-executes itself under that
 * script (which exits 77, "skipped", when dev/setup-objstore.sh has not
 * been run). azurite checks every SharedKey signature, so each successful
 * request also checks the signer. Every request goes to 127.0.0.1 only. */
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
#include "io/azure.h"
#include "io/storage.h"

static const char *g_ep;
static int g_container_seq; /* with_azurite.sh made public hudi0..hudi15 */

/* ---- raw anonymous HTTP to the public containers ---------------------- */

typedef struct sinkbuf {
  char data[1 << 16];
  size_t len;
} sinkbuf;

static size_t sink(char *p, size_t s, size_t n, void *ctx) {
  sinkbuf *b = ctx;
  size_t k = s * n;
  if (b->len + k < sizeof b->data) {
    memcpy(b->data + b->len, p, k);
    b->len += k;
    b->data[b->len] = '\0';
  }
  return k;
}

static long raw_get(const char *url, sinkbuf *resp) {
  CURL *h = curl_easy_init();
  resp->len = 0;
  resp->data[0] = '\0';
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_TIMEOUT, 20L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, resp);
  long status = 0;
  if (curl_easy_perform(h) == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  return status;
}

/* ---- fixtures -------------------------------------------------------- */

typedef struct fixture {
  char container[32];
  char uri[128];
  hudi_storage *s;
} fixture;

static hudi_status open_store(hudi_storage **s, const char *uri, const char *max_keys,
                              const char *extra_k, const char *extra_v, hudi_error *err) {
  hudi_storage_option o[] = {
      {"azure_storage_use_emulator", "true"}, {"azure_storage_endpoint", g_ep},
      {"list_max_keys", max_keys},            {"retry_base_ms", "20"},
      {extra_k ? extra_k : "unused", extra_v ? extra_v : ""},
  };
  return hudi_storage_open(s, uri, o, sizeof o / sizeof o[0], err);
}

static int setup(void **state) {
  fixture *fx = calloc(1, sizeof *fx);
  int seq = g_container_seq++;
  if (seq >= 16) return -1;
  snprintf(fx->container, sizeof fx->container, "hudi%d", seq);
  snprintf(fx->uri, sizeof fx->uri, "az://%s/tables/t1", fx->container);
  hudi_error err = HUDI_ERROR_INIT;
  if (open_store(&fx->s, fx->uri, "3", NULL, NULL, &err) != HUDI_OK) {
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

static void expect_content(hudi_storage *s, const char *path, const void *want, size_t len) {
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_read_all(s, path, len + 1, &b, &err), HUDI_OK);
  assert_int_equal(b.len, len);
  if (len) assert_memory_equal(b.data, want, len);
  hudi_buf_free(&b);
}

/* ---- the storage contract --------------------------------------------- */

static void write_read_stat(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_string_equal(hudi_storage_backend_name(fx->s), "azure");
  assert_string_equal(hudi_storage_base(fx->s), fx->uri);
  time_t before = time(NULL);
  assert_int_equal(hudi_storage_write(fx->s, "a/b/c.txt", "hello world", 11, 0, &err), HUDI_OK);
  expect_content(fx->s, "a/b/c.txt", "hello world", 11);
  /* The blob is at prefix/path, path-style under the account: visible to
   * an anonymous GET of the public container. */
  char url[512];
  sinkbuf resp;
  snprintf(url, sizeof url, "%s/devstoreaccount1/%s/tables/t1/a/b/c.txt", g_ep, fx->container);
  assert_int_equal(raw_get(url, &resp), 200);
  assert_string_equal(resp.data, "hello world");

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
  assert_non_null(strstr(err.message, fx->container));
  assert_non_null(strstr(err.message, "tables/t1/a/nope"));
  bool exists = true;
  assert_int_equal(hudi_storage_exists(fx->s, "a/nope", &exists, &err), HUDI_OK);
  assert_false(exists);
  assert_int_equal(hudi_storage_exists(fx->s, "a/b/c.txt", &exists, &err), HUDI_OK);
  assert_true(exists);
  /* Replacing is whole. */
  assert_int_equal(hudi_storage_write(fx->s, "a/b/c.txt", "bye", 3, HUDI_WRITE_DIRECT, &err), HUDI_OK);
  expect_content(fx->s, "a/b/c.txt", "bye", 3);
  assert_int_equal(raw_get(url, &resp), 200);
  assert_string_equal(resp.data, "bye");
  /* An empty blob is a blob. */
  assert_int_equal(hudi_storage_write(fx->s, "empty", NULL, 0, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_stat(fx->s, "empty", &st, &err), HUDI_OK);
  assert_int_equal(st.size, 0);
  assert_false(st.is_dir);
  expect_content(fx->s, "empty", NULL, 0);
  uint8_t got[4];
  size_t n = 9;
  assert_int_equal(hudi_storage_read(fx->s, "empty", 0, got, 4, &n, &err), HUDI_OK);
  assert_int_equal(n, 0);
  /* Names that need percent-encoding (in the URL and in the signature). */
  const char *odd = "p q/x+y=z&w%41/\xc3\xa9t\xc3\xa9;(1)'!~*.parquet";
  assert_int_equal(hudi_storage_write(fx->s, odd, "odd", 3, 0, &err), HUDI_OK);
  expect_content(fx->s, odd, "odd", 3);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(fx->s, "p q/x+y=z&w%41", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_string_equal(l.items[0].path, odd);
  hudi_file_list_free(&l);
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
  assert_int_equal(hudi_storage_read(fx->s, "f.bin", 999, got, 1, &n, &err), HUDI_OK);
  assert_int_equal(n, 1);
  assert_int_equal(got[0], data[999]);
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
  assert_non_null(strstr(err.message, fx->container));
  assert_non_null(strstr(err.message, "HTTP 404"));
  assert_non_null(strstr(err.message, "BlobNotFound"));
  assert_null(strchr(err.message, '\n'));
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(fx->s, "missing.bin", 10, &b, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "BlobNotFound"));
  hudi_buf_free(&b);
  assert_int_equal(hudi_storage_read(fx->s, "missing.bin", 0, got, 0, &n, &err), HUDI_ERR_NOT_FOUND);
}

/* N threads race to create one blob; exactly one wins. */
#define RACERS 8
#define RACE_LEN 5000
typedef struct racer {
  hudi_storage *s;
  int id;
  hudi_status st;
  pthread_barrier_t *go;
} racer;

static void racer_body(uint8_t *p, int id) {
  fill_pattern(p, RACE_LEN, (unsigned)id * 17 + 1);
  snprintf((char *)p, 20, "writer-%d", id % 1000);
}

static void *race_main(void *arg) {
  racer *r = arg;
  uint8_t body[RACE_LEN];
  racer_body(body, r->id);
  pthread_barrier_wait(r->go);
  r->st = hudi_storage_write_if_absent(r->s, ".hoodie/001.commit", body, sizeof body, NULL);
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
  uint8_t want[RACE_LEN];
  racer_body(want, winner);
  expect_content(s, ".hoodie/001.commit", want, sizeof want);
  /* And a later writer is told it lost, naming the blob and the code. */
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write_if_absent(s, ".hoodie/001.commit", "x", 1, &err), HUDI_ERR_EXISTS);
  assert_non_null(strstr(err.message, ".hoodie/001.commit"));
  assert_non_null(strstr(err.message, "BlobAlreadyExists"));
  assert_non_null(strstr(err.message, "409"));
  expect_content(s, ".hoodie/001.commit", want, sizeof want);
}

/* Sequential reads through the read-ahead (io/readahead.h): every byte as
 * written, short reads at the end, and a window never outlives a write
 * through the handle. (Request counts are checked against s3stub in
 * test_s3.c; the window logic is the same code.) */
static void read_ahead_reads(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  enum { SIZE = 100000 };
  uint8_t *data = malloc(SIZE), *other = malloc(SIZE), got[1000];
  fill_pattern(data, SIZE, 5);
  fill_pattern(other, SIZE, 91);
  hudi_storage *ra;
  assert_int_equal(open_store(&ra, fx->uri, "3", "read_ahead_bytes", "16384", &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(ra, "ra.bin", data, SIZE, 0, &err), HUDI_OK);
  size_t n;
  for (size_t off = 0; off < SIZE + 2000; off += 1000) {
    assert_int_equal(hudi_storage_read(ra, "ra.bin", off, got, 1000, &n, &err), HUDI_OK);
    assert_int_equal(n, off < SIZE ? 1000 : 0);
    if (n) assert_memory_equal(got, data + off, n);
  }
  assert_int_equal(hudi_storage_read(ra, "ra.bin", 0, got, 1000, &n, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read(ra, "ra.bin", 1000, got, 1000, &n, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(ra, "ra.bin", other, SIZE, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_read(ra, "ra.bin", 2000, got, 1000, &n, &err), HUDI_OK);
  assert_int_equal(n, 1000);
  assert_memory_equal(got, other + 2000, 1000);
  hudi_storage_free(ra);
  free(data);
  free(other);
}

static void write_if_absent_race(void **state) {
  fixture *fx = *state;
  race_on(fx->s);
}

/* The same race through Put Block + Put Block List (1000-byte blocks):
 * racing writers stage blocks on one blob name at once, and the winner's
 * blob must hold exactly its own bytes. */
static void write_if_absent_race_blocks(void **state) {
  fixture *fx = *state;
  hudi_storage *s;
  hudi_error err = HUDI_ERROR_INIT;
  char uri[160];
  snprintf(uri, sizeof uri, "az://%s/blocks", fx->container);
  hudi_storage_option o[] = {{"azure_storage_use_emulator", "true"}, {"azure_storage_endpoint", g_ep},
                             {"multipart_threshold", "1000"}, {"multipart_part_size", "1000"}};
  assert_int_equal(hudi_storage_open(&s, uri, o, 4, &err), HUDI_OK);
  race_on(s);
  hudi_storage_free(s);
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
    assert_int_equal(l.items[i].size, strlen(rwant[i]));
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
  /* Many pages: 40 blobs, 3 per page. */
  char name[64];
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "many/f%03d", i);
    assert_int_equal(hudi_storage_write(fx->s, name, "m", 1, 0, &err), HUDI_OK);
  }
  assert_int_equal(hudi_storage_list(fx->s, "many", 0, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 40);
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "many/f%03d", i);
    assert_string_equal(l.items[i].path, name);
  }
  hudi_file_list_free(&l);
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
  char url[512];
  sinkbuf resp;
  snprintf(url, sizeof url, "%s/devstoreaccount1/%s/tables/t1/one", g_ep, fx->container);
  assert_int_equal(raw_get(url, &resp), 404);
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
  /* A blob and a prefix of the same name go together. */
  assert_int_equal(hudi_storage_write(fx->s, "m", "blob", 4, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(fx->s, "m/child", "c", 1, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_delete(fx->s, "m", HUDI_DELETE_RECURSIVE, &err), HUDI_OK);
  assert_int_equal(hudi_storage_list(fx->s, "", HUDI_LIST_RECURSIVE, &l, &err), HUDI_OK);
  assert_int_equal(l.count, 1);
  hudi_file_list_free(&l);
}

static void renames(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_write(fx->s, "from", "payload", 7, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "from", "x/to", 0, &err), HUDI_OK);
  bool ex;
  assert_int_equal(hudi_storage_exists(fx->s, "from", &ex, &err), HUDI_OK);
  assert_false(ex);
  expect_content(fx->s, "x/to", "payload", 7);
  assert_int_equal(hudi_storage_rename(fx->s, "from", "y", 0, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "from"));
  /* Replacing rename overwrites. */
  assert_int_equal(hudi_storage_write(fx->s, "other", "o", 1, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(fx->s, "third", "333", 3, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "third", "x/to", 0, &err), HUDI_OK);
  expect_content(fx->s, "x/to", "333", 3);
  /* No-replace is a conditional copy: refused, both left as they were. */
  assert_int_equal(hudi_storage_rename(fx->s, "other", "x/to", HUDI_RENAME_NO_REPLACE, &err), HUDI_ERR_EXISTS);
  assert_non_null(strstr(err.message, "x/to"));
  assert_int_equal(hudi_storage_exists(fx->s, "other", &ex, &err), HUDI_OK);
  assert_true(ex);
  expect_content(fx->s, "x/to", "333", 3);
  assert_int_equal(hudi_storage_rename(fx->s, "other", "x/new", HUDI_RENAME_NO_REPLACE, &err), HUDI_OK);
  expect_content(fx->s, "x/new", "o", 1);
  assert_int_equal(hudi_storage_exists(fx->s, "other", &ex, &err), HUDI_OK);
  assert_false(ex);
  assert_int_equal(hudi_storage_rename(fx->s, "x", "z", 0, &err), HUDI_ERR_UNSUPPORTED);
  /* A bigger blob (several blocks) copies whole. */
  size_t len = 300000;
  uint8_t *data = malloc(len);
  fill_pattern(data, len, 9);
  assert_int_equal(hudi_storage_write(fx->s, "big", data, len, 0, &err), HUDI_OK);
  assert_int_equal(hudi_storage_rename(fx->s, "big", "big2", 0, &err), HUDI_OK);
  expect_content(fx->s, "big2", data, len);
  free(data);
}

static void block_write(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  char uri[160];
  snprintf(uri, sizeof uri, "az://%s/tables/t1", fx->container);
  hudi_storage_option o[] = {{"azure_storage_use_emulator", "true"}, {"azure_storage_endpoint", g_ep},
                             {"multipart_threshold", "100000"}, {"multipart_part_size", "65536"}};
  assert_int_equal(hudi_storage_open(&s, uri, o, 4, &err), HUDI_OK);
  size_t len = 300000; /* 5 blocks: 4 x 64 KiB + 37856 */
  uint8_t *data = malloc(len);
  fill_pattern(data, len, 11);
  assert_int_equal(hudi_storage_write(s, "big.bin", data, len, 0, &err), HUDI_OK);
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(s, "big.bin", &st, &err), HUDI_OK);
  assert_int_equal(st.size, len);
  expect_content(s, "big.bin", data, len);
  uint8_t got[100];
  size_t n;
  assert_int_equal(hudi_storage_read(s, "big.bin", 65500, got, 100, &n, &err), HUDI_OK);
  assert_int_equal(n, 100);
  assert_memory_equal(got, data + 65500, 100);
  /* The committed block list, as the service reports it (anonymous read
   * of the public container): five blocks of the sizes we staged. */
  char url[512];
  sinkbuf resp;
  snprintf(url, sizeof url, "%s/devstoreaccount1/%s/tables/t1/big.bin?comp=blocklist&blocklisttype=committed",
           g_ep, fx->container);
  assert_int_equal(raw_get(url, &resp), 200);
  int blocks = 0;
  for (const char *p = resp.data; (p = strstr(p, "<Block>")); p++) blocks++;
  assert_int_equal(blocks, 5);
  assert_non_null(strstr(resp.data, "<Size>65536</Size>"));
  assert_non_null(strstr(resp.data, "<Size>37856</Size>"));
  /* At the threshold exactly: one Put Blob, no blocks. */
  assert_int_equal(hudi_storage_write(s, "small.bin", data, 100000, 0, &err), HUDI_OK);
  snprintf(url, sizeof url, "%s/devstoreaccount1/%s/tables/t1/small.bin?comp=blocklist&blocklisttype=committed",
           g_ep, fx->container);
  assert_int_equal(raw_get(url, &resp), 200);
  assert_null(strstr(resp.data, "<Block>"));
  expect_content(s, "small.bin", data, 100000);
  /* Create-only holds for block writes too; replacing works. */
  assert_int_equal(hudi_storage_write(s, "big.bin", data, len, HUDI_WRITE_IF_ABSENT, &err), HUDI_ERR_EXISTS);
  fill_pattern(data, len, 12);
  assert_int_equal(hudi_storage_write(s, "big.bin", data, len, 0, &err), HUDI_OK);
  expect_content(s, "big.bin", data, len);
  assert_int_equal(hudi_storage_write(s, "new.bin", data, len, HUDI_WRITE_IF_ABSENT, &err), HUDI_OK);
  expect_content(s, "new.bin", data, len);
  hudi_storage_free(s);
  free(data);
}

static void missing_container_named(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  assert_int_equal(open_store(&s, "az://no-such-container-h21/t", "1000", NULL, NULL, &err), HUDI_OK);
  hudi_file_list l = HUDI_FILE_LIST_INIT;
  assert_int_equal(hudi_storage_list(s, "", 0, &l, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "no-such-container-h21"));
  assert_non_null(strstr(err.message, "ContainerNotFound"));
  assert_int_equal(hudi_storage_write(s, "f", "x", 1, 0, &err), HUDI_ERR_NOT_FOUND);
  assert_non_null(strstr(err.message, "az://no-such-container-h21/t/f"));
  assert_non_null(strstr(err.message, "ContainerNotFound"));
  hudi_storage_free(s);
}

static void access_denied_is_named(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s;
  /* The right account with a wrong key: every request is refused (403). */
  assert_int_equal(open_store(&s, "az://private/t", "1000", "azure_storage_account_key",
                              "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", &err),
                   HUDI_OK);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_storage_read_all(s, "secret/key", 10, &b, &err), HUDI_ERR_IO);
  hudi_buf_free(&b);
  assert_non_null(strstr(err.message, "access denied"));
  assert_non_null(strstr(err.message, "az://private/t/secret/key"));
  assert_non_null(strstr(err.message, "403"));
  assert_non_null(strstr(err.message, "Authorization"));
  /* HEAD has no body: the code comes from x-ms-error-code. */
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(s, "secret/key", &st, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "access denied"));
  assert_non_null(strstr(err.message, "Authorization"));
  assert_int_equal(hudi_storage_write(s, "w", "x", 1, 0, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "access denied"));
  hudi_storage_free(s);
  /* The right key works on the private container; anonymous reads don't. */
  assert_int_equal(open_store(&s, "az://private/t", "1000", NULL, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_storage_write(s, "w", "x", 1, 0, &err), HUDI_OK);
  expect_content(s, "w", "x", 1);
  hudi_storage_free(s);
  char url[256];
  sinkbuf resp;
  snprintf(url, sizeof url, "%s/devstoreaccount1/private/t/w", g_ep);
  long status = raw_get(url, &resp);
  assert_true(status == 403 || status == 404);
}

/* Connection strings, env vars, abfss:// with the account in the host, all
 * pointed at azurite; and the settings that are refused. */
static void settings(void **state) {
  fixture *fx = *state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_storage *s = NULL;
  char conn[512], uri[256];
  snprintf(conn, sizeof conn,
           "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;BlobEndpoint=%s/devstoreaccount1;",
           HUDI_AZURITE_KEY, g_ep);
  hudi_storage_option cs[] = {{"azure_storage_connection_string", conn}};
  snprintf(uri, sizeof uri, "abfs://%s/cs", fx->container);
  assert_int_equal(hudi_storage_open(&s, uri, cs, 1, &err), HUDI_OK);
  assert_string_equal(hudi_storage_base(s), uri);
  assert_int_equal(hudi_storage_write(s, "a", "conn", 4, 0, &err), HUDI_OK);
  hudi_storage_free(s);
  /* The same through AZURE_STORAGE_CONNECTION_STRING. */
  setenv("AZURE_STORAGE_CONNECTION_STRING", conn, 1);
  snprintf(uri, sizeof uri, "az://%s/cs", fx->container);
  assert_int_equal(hudi_storage_open(&s, uri, NULL, 0, &err), HUDI_OK);
  expect_content(s, "a", "conn", 4);
  hudi_storage_free(s);
  unsetenv("AZURE_STORAGE_CONNECTION_STRING");
  /* Account name and key from the environment, endpoint from options. */
  setenv("AZURE_STORAGE_ACCOUNT_NAME", "devstoreaccount1", 1);
  setenv("AZURE_STORAGE_ACCOUNT_KEY", HUDI_AZURITE_KEY, 1);
  char ep[256];
  snprintf(ep, sizeof ep, "%s/devstoreaccount1/", g_ep);
  hudi_storage_option eo[] = {{"azure_endpoint", ep}, {"azure_allow_http", "true"}};
  assert_int_equal(hudi_storage_open(&s, uri, eo, 2, &err), HUDI_OK);
  expect_content(s, "a", "conn", 4);
  hudi_storage_free(s);
  /* http:// needs azure_allow_http. */
  assert_int_equal(hudi_storage_open(&s, uri, eo, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "azure_allow_http"));
  unsetenv("AZURE_STORAGE_ACCOUNT_NAME");
  unsetenv("AZURE_STORAGE_ACCOUNT_KEY");
  /* abfss://container@account.dfs.core.windows.net: the account from the host. */
  snprintf(uri, sizeof uri, "abfss://%s@devstoreaccount1.dfs.core.windows.net/cs/", fx->container);
  hudi_storage_option emu[] = {{"azure_storage_use_emulator", "true"}, {"azure_storage_endpoint", g_ep}};
  assert_int_equal(hudi_storage_open(&s, uri, emu, 2, &err), HUDI_OK);
  char want_base[256];
  snprintf(want_base, sizeof want_base, "abfss://%s@devstoreaccount1.dfs.core.windows.net/cs", fx->container);
  assert_string_equal(hudi_storage_base(s), want_base);
  expect_content(s, "a", "conn", 4);
  hudi_storage_free(s);
  /* Another account named by the host, with no key for it. */
  hudi_storage_option none[] = {{"azure_storage_account_key", ""}};
  assert_int_equal(hudi_storage_open(&s, "abfss://c@acct.dfs.core.windows.net/p", none, 0, &err),
                   HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "acct"));
  assert_non_null(strstr(err.message, "azure_storage_account_key"));
  assert_int_equal(hudi_storage_open(&s, "az://c/p", NULL, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "azure_storage_account_name"));
  hudi_storage_option badkey[] = {{"azure_storage_account_name", "a"}, {"azure_storage_account_key", "not*base64"}};
  assert_int_equal(hudi_storage_open(&s, "az://c/p", badkey, 2, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "base64"));
  assert_int_equal(hudi_storage_open(&s, "az://", emu, 2, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_storage_open(&s, "az://c/../x", emu, 2, &err), HUDI_ERR_INVALID_ARG);
  hudi_storage_option badconn[] = {{"azure_storage_connection_string", "AccountName=a;garbage"}};
  assert_int_equal(hudi_storage_open(&s, "az://c/p", badconn, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "garbage"));
  /* A connection refused is an IO error naming the blob, after bounded retries. */
  hudi_storage_option dead[] = {{"azure_storage_use_emulator", "true"},
                                {"azure_storage_endpoint", "http://127.0.0.1:1"},
                                {"max_retries", "2"}, {"retry_base_ms", "10"}};
  assert_int_equal(hudi_storage_open(&s, "az://c/t/", dead, 4, &err), HUDI_OK);
  assert_string_equal(hudi_storage_base(s), "az://c/t");
  hudi_file_stat st;
  assert_int_equal(hudi_storage_stat(s, "x", &st, &err), HUDI_ERR_IO);
  assert_non_null(strstr(err.message, "az://c/t/x"));
  assert_non_null(strstr(err.message, "3 attempts"));
  assert_non_null(strstr(err.message, "127.0.0.1:1/devstoreaccount1/c/t/x"));
  hudi_storage_free(s);
}

int main(int argc, char **argv) {
  (void)argc;
  g_ep = getenv("HUDI_AZURITE_ENDPOINT");
  if (!g_ep) {
    execl("/bin/sh", "sh", HUDI_SOURCE_DIR "/tests/objstore/with_azurite.sh", argv[0], (char *)NULL);
    perror("exec with_azurite.sh");
    return 1;
  }
  /* Never anything but loopback. */
  if (strncmp(g_ep, "http://127.0.0.1:", 17) != 0) {
    fprintf(stderr, "refusing a non-loopback endpoint\n");
    return 1;
  }
  /* Settings from the caller's environment must not leak into the tests. */
  const char *vars[] = {"AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY",
                        "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_ENDPOINT",
                        "AZURE_STORAGE_USE_EMULATOR", "AZURE_ALLOW_HTTP", "AZURITE_BLOB_STORAGE_URL"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(write_read_stat, setup, teardown),
      cmocka_unit_test_setup_teardown(ranged_reads, setup, teardown),
      cmocka_unit_test_setup_teardown(read_ahead_reads, setup, teardown),
      cmocka_unit_test_setup_teardown(write_if_absent_race, setup, teardown),
      cmocka_unit_test_setup_teardown(write_if_absent_race_blocks, setup, teardown),
      cmocka_unit_test_setup_teardown(list_paginates, setup, teardown),
      cmocka_unit_test_setup_teardown(deletes, setup, teardown),
      cmocka_unit_test_setup_teardown(renames, setup, teardown),
      cmocka_unit_test_setup_teardown(block_write, setup, teardown),
      cmocka_unit_test(missing_container_named),
      cmocka_unit_test(access_denied_is_named),
      cmocka_unit_test_setup_teardown(settings, setup, teardown),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  curl_global_cleanup();
  return rc;
}
