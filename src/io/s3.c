/* S3 (and GCS XML) storage backend over io/http.c and io/sigv4.c. See s3.h
 * for settings and backend.h for how each operation maps to requests. */
#include "io/s3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/alloc.h"
#include "io/http.h"
#include "io/objstore.h"
#include "io/objcache.h"
#include "io/readahead.h"
#include "io/sigv4.h"

#define LIST_BODY_MAX ((size_t)64 << 20)
#define SMALL_BODY_MAX ((size_t)1 << 20)
#define MAX_LIST_PAGES 1000000
#define DELETE_BATCH 1000
#define CONFLICT_RETRIES 6
#define MAX_PARTS 10000

typedef struct s3_store {
  hudi_storage base;
  hudi_s3_dialect dialect;
  hudi_http_client *http;
  char *bucket, *prefix;
  char *scheme_host; /* "https://host:port" (virtual-hosted: with the bucket) */
  char *host;        /* the Host header */
  bool virtual_hosted;
  bool skip_signature;
  char *access_key, *secret_key, *session_token, *region;
  uint64_t multipart_threshold, part_size, list_max_keys;
} s3_store;

/* ---- requests -------------------------------------------------------- */

typedef struct s3_call {
  s3_store *s;
  hudi_http_request req;
  hudi_buf url, path; /* path: the encoded, signed URI */
  char *query;
  char payload_hash[65];
  char date[17];
  char *authz;
} s3_call;

static const char *const k_empty_sha =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static hudi_status s3_sign(void *ctx, hudi_http_request *req, hudi_error *err) {
  s3_call *c = ctx;
  s3_store *s = c->s;
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(c->date, sizeof c->date, "%Y%m%dT%H%M%SZ", &tm);
  HUDI_TRY(hudi_http_add_header(req, "Host", s->host, err));
  HUDI_TRY(hudi_http_add_header(req, "x-amz-date", c->date, err));
  HUDI_TRY(hudi_http_add_header(req, "x-amz-content-sha256", c->payload_hash, err));
  if (s->session_token) HUDI_TRY(hudi_http_add_header(req, "x-amz-security-token", s->session_token, err));
  if (s->skip_signature) return HUDI_OK;
  /* Every header but a previous attempt's Authorization is signed. */
  hudi_http_header signed_h[HUDI_HTTP_MAX_HEADERS];
  size_t n = 0;
  for (size_t i = 0; i < req->n_headers; i++)
    if (strcasecmp(req->headers[i].name, "Authorization") != 0) signed_h[n++] = req->headers[i];
  hudi_sigv4_key key = {s->access_key, s->secret_key, s->region, "s3", NULL};
  char *authz = NULL;
  HUDI_TRY(hudi_sigv4_authorization(&authz, &key, c->date, req->method, c->req.canonical_uri,
                                    c->req.query, signed_h, n, c->payload_hash, NULL, NULL, err));
  HUDI_TRY(hudi_http_add_header(req, "Authorization", authz, err));
  hudi_free(c->authz);
  c->authz = authz;
  return HUDI_OK;
}

static void call_free(s3_call *c) {
  hudi_buf_free(&c->url);
  hudi_buf_free(&c->path);
  hudi_free(c->authz);
  c->authz = NULL;
}

/* Prepares method on key (NULL: the bucket itself) with an encoded query
 * (NULL or "" for none) and a body. */
static hudi_status call_init(s3_call *c, s3_store *s, const char *method, const char *key,
                             const char *query, const void *body, size_t body_len, hudi_error *err) {
  memset(c, 0, sizeof *c);
  c->s = s;
  hudi_buf_init(&c->url, 1 << 16);
  hudi_buf_init(&c->path, 1 << 16);
  hudi_status st = HUDI_OK;
  if (!s->virtual_hosted) {
    st = hudi_buf_append_byte(&c->path, '/', err);
    if (st == HUDI_OK) st = hudi_objstore_encode(&c->path, s->bucket, strlen(s->bucket), false, err);
  }
  if (st == HUDI_OK && (key || s->virtual_hosted)) st = hudi_buf_append_byte(&c->path, '/', err);
  if (st == HUDI_OK && key) st = hudi_objstore_encode(&c->path, key, strlen(key), true, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&c->path, '\0', err);
  if (st == HUDI_OK)
    st = hudi_buf_printf(&c->url, err, "%s%s%s%s", s->scheme_host, (const char *)c->path.data,
                         query && *query ? "?" : "", query ? query : "");
  if (st != HUDI_OK) {
    call_free(c);
    return st;
  }
  if (body_len) hudi_sha256_hex(c->payload_hash, body, body_len);
  else memcpy(c->payload_hash, k_empty_sha, 65);
  c->req.method = method;
  c->req.url = (const char *)c->url.data;
  c->req.canonical_uri = (const char *)c->path.data;
  c->req.query = query ? query : "";
  c->req.body = body;
  c->req.body_len = body_len;
  c->req.sign = s3_sign;
  c->req.sign_ctx = c;
  return HUDI_OK;
}

/* key = prefix + "/" + path, into *out (hudi_free). */
static hudi_status full_key(char **out, const s3_store *s, const char *path, hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, 1 << 16);
  hudi_status st = hudi_buf_printf(&b, err, "%s%s%s", s->prefix, s->prefix[0] && path[0] ? "/" : "", path);
  uint8_t *p = NULL;
  size_t n;
  if (st == HUDI_OK) st = hudi_buf_detach(&b, &p, &n, err);
  hudi_buf_free(&b);
  *out = (char *)p;
  return st;
}

/* "s3://bucket/key" for messages. */
static void describe(char *dst, size_t cap, const s3_store *s, const char *key) {
  snprintf(dst, cap, "%s://%s/%s", s->dialect == HUDI_S3_DIALECT_GCS ? "gs" : "s3", s->bucket, key);
}

static hudi_status send_call(s3_call *c, hudi_http_response *resp, const char *what, hudi_error *err) {
  hudi_status st = hudi_http_send(c->s->http, &c->req, resp, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s", what);
  return HUDI_OK;
}

/* ---- HEAD / GET ------------------------------------------------------ */

/* HEAD key: *found, and size/mtime when found. */
static hudi_status head_key(s3_store *s, const char *key, bool *found, uint64_t *size,
                            int64_t *mtime_ms, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, key);
  s3_call c;
  HUDI_TRY(call_init(&c, s, "HEAD", key, NULL, NULL, 0, err));
  hudi_http_response r;
  hudi_status st = send_call(&c, &r, what, err);
  call_free(&c);
  HUDI_TRY(st);
  *found = false;
  if (r.status == 404) return HUDI_OK;
  if (r.status != 200) return hudi_objstore_http_error(err, "HEAD", what, &r);
  *found = true;
  if (size) *size = r.content_length > 0 ? (uint64_t)r.content_length : 0;
  if (mtime_ms) *mtime_ms = r.last_modified_ms > 0 ? r.last_modified_ms : 0;
  return HUDI_OK;
}

typedef struct list_entry_cb {
  hudi_status (*fn)(void *ctx, const char *key, size_t key_len, uint64_t size, int64_t mtime,
                    bool is_prefix, hudi_error *err);
  void *ctx;
} list_entry_cb;

static hudi_status list_prefix(s3_store *s, const char *prefix, bool delimit, uint64_t max_total,
                               list_entry_cb cb, hudi_error *err);

static hudi_status count_cb(void *ctx, const char *key, size_t key_len, uint64_t size, int64_t mtime,
                            bool is_prefix, hudi_error *err) {
  (*(size_t *)ctx)++;
  return HUDI_OK;
}

/* Whether anything lies under key + "/". */
static hudi_status has_children(s3_store *s, const char *key, bool *out, hudi_error *err) {
  char *p = hudi_malloc(strlen(key) + 2);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  sprintf(p, "%s/", key);
  size_t n = 0;
  hudi_status st = list_prefix(s, p, true, 1, (list_entry_cb){count_cb, &n}, err);
  hudi_free(p);
  *out = n > 0;
  return st;
}

static hudi_status s3_read(hudi_storage *base, const char *path, uint64_t offset, void *dst,
                           size_t len, size_t *n_read, hudi_error *err) {
  s3_store *s = (s3_store *)base;
  *n_read = 0;
  char *key;
  HUDI_TRY(full_key(&key, s, path, err));
  char what[1200];
  describe(what, sizeof what, s, key);
  hudi_status st;
  if (len == 0) {
    bool found;
    st = head_key(s, key, &found, NULL, NULL, err);
    if (st == HUDI_OK && !found) st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "read of %s: no such object", what);
    hudi_free(key);
    return st;
  }
  s3_call c;
  st = call_init(&c, s, "GET", key, NULL, NULL, 0, err);
  char range[64];
  snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)offset,
           (unsigned long long)(offset + len - 1));
  if (st == HUDI_OK) {
    st = hudi_http_add_header(&c.req, "Range", range, err);
    c.req.dst = dst;
    c.req.dst_cap = len;
    c.req.range_offset = offset;
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    if (st == HUDI_OK) {
      if (r.status == 200 || r.status == 206) *n_read = r.n_body;
      else if (r.status == 416) *n_read = 0; /* at or past the end */
      else st = hudi_objstore_http_error(err, "GET", what, &r);
    }
    call_free(&c);
  }
  hudi_free(key);
  return st;
}

static hudi_status s3_read_all(hudi_storage *base, const char *path, size_t max_size, hudi_buf *out,
                               hudi_error *err) {
  s3_store *s = (s3_store *)base;
  char *key;
  HUDI_TRY(full_key(&key, s, path, err));
  char what[1200];
  describe(what, sizeof what, s, key);
  s3_call c;
  hudi_status st = call_init(&c, s, "GET", key, NULL, NULL, 0, err);
  if (st == HUDI_OK) {
    size_t saved_max = out->max, start = out->len;
    out->max = start + max_size; /* storage.c has clamped max_size to out's room */
    c.req.out = out;
    hudi_http_response r;
    hudi_error inner = HUDI_ERROR_INIT;
    st = hudi_http_send(s->http, &c.req, &r, &inner);
    out->max = saved_max;
    if (st == HUDI_ERR_LIMIT) {
      out->len = start;
      if (r.content_length >= 0)
        st = hudi_err_set(err, HUDI_ERR_LIMIT, "%s is %lld bytes, over the cap of %zu", what,
                          (long long)r.content_length, max_size);
      else
        st = hudi_err_set(err, HUDI_ERR_LIMIT, "%s is over the cap of %zu bytes", what, max_size);
    } else if (st != HUDI_OK) {
      if (err) *err = inner;
      st = hudi_err_context(err, st, "%s", what);
    } else if (r.status != 200) {
      out->len = start;
      st = hudi_objstore_http_error(err, "GET", what, &r);
    }
    call_free(&c);
  }
  hudi_free(key);
  return st;
}

static hudi_status s3_stat(hudi_storage *base, const char *path, hudi_file_stat *out,
                           hudi_error *err) {
  s3_store *s = (s3_store *)base;
  memset(out, 0, sizeof *out);
  if (path[0] == '\0') {
    out->is_dir = true;
    return HUDI_OK;
  }
  char *key;
  HUDI_TRY(full_key(&key, s, path, err));
  bool found;
  hudi_status st = head_key(s, key, &found, &out->size, &out->mtime_ms, err);
  if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, key, &dir, err);
    if (st == HUDI_OK && dir) out->is_dir = true;
    else if (st == HUDI_OK) {
      char what[1200];
      describe(what, sizeof what, s, key);
      st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "stat of %s: no such object or prefix", what);
    }
  }
  hudi_free(key);
  return st;
}

/* ---- listing --------------------------------------------------------- */

static hudi_status parse_page(s3_store *s, const char *body, size_t len, list_entry_cb cb,
                              uint64_t *seen, uint64_t max_total, char **token, hudi_error *err) {
  const char *p = body, *end = body + len, *v, *next;
  size_t vlen;
  hudi_status st = HUDI_OK;
  while (st == HUDI_OK && *seen < max_total && hudi_xml_element(p, end, "Contents", &v, &vlen, &next)) {
    const char *kv, *kn;
    size_t klen;
    char size_s[32], mod_s[64];
    if (!hudi_xml_element(v, v + vlen, "Key", &kv, &klen, &kn))
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "s3://%s: listing entry without a Key", s->bucket);
    hudi_xml_copy(size_s, sizeof size_s, v, v + vlen, "Size");
    hudi_xml_copy(mod_s, sizeof mod_s, v, v + vlen, "LastModified");
    char *key;
    HUDI_TRY(hudi_xml_text(&key, kv, klen, err));
    int64_t mtime = hudi_objstore_parse_iso8601(mod_s, strlen(mod_s));
    st = cb.fn(cb.ctx, key, strlen(key), strtoull(size_s, NULL, 10), mtime < 0 ? 0 : mtime, false, err);
    hudi_free(key);
    (*seen)++;
    p = next;
  }
  p = body;
  while (st == HUDI_OK && *seen < max_total &&
         hudi_xml_element(p, end, "CommonPrefixes", &v, &vlen, &next)) {
    const char *kv, *kn;
    size_t klen;
    if (hudi_xml_element(v, v + vlen, "Prefix", &kv, &klen, &kn)) {
      char *key;
      HUDI_TRY(hudi_xml_text(&key, kv, klen, err));
      st = cb.fn(cb.ctx, key, strlen(key), 0, 0, true, err);
      hudi_free(key);
      (*seen)++;
    }
    p = next;
  }
  HUDI_TRY(st);
  char truncated[16];
  hudi_xml_copy(truncated, sizeof truncated, body, end, "IsTruncated");
  *token = NULL;
  if (strcmp(truncated, "true") == 0) {
    if (!hudi_xml_element(body, end, "NextContinuationToken", &v, &vlen, &next) || vlen == 0)
      return hudi_err_set(err, HUDI_ERR_CORRUPT, "s3://%s: truncated listing without a continuation token",
                          s->bucket);
    HUDI_TRY(hudi_xml_text(token, v, vlen, err));
  }
  return HUDI_OK;
}

/* Pages through ListObjectsV2 of prefix, calling cb for each key (and,
 * with delimit, each common prefix), stopping after max_total entries. */
static hudi_status list_prefix(s3_store *s, const char *prefix, bool delimit, uint64_t max_total,
                               list_entry_cb cb, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, prefix);
  char *token = NULL;
  uint64_t seen = 0;
  hudi_status st = HUDI_OK;
  hudi_buf q, body;
  hudi_buf_init(&q, 1 << 16);
  hudi_buf_init(&body, LIST_BODY_MAX);
  for (int page = 0; st == HUDI_OK && seen < max_total; page++) {
    if (page == MAX_LIST_PAGES) {
      st = hudi_err_set(err, HUDI_ERR_LIMIT, "list of %s: more than %d pages", what, MAX_LIST_PAGES);
      break;
    }
    /* Parameters in sorted order, as signed. */
    hudi_buf_reset(&q);
    if (token) {
      st = hudi_buf_append_str(&q, "continuation-token=", err);
      if (st == HUDI_OK) st = hudi_objstore_encode(&q, token, strlen(token), false, err);
      if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '&', err);
    }
    if (st == HUDI_OK && delimit) st = hudi_buf_append_str(&q, "delimiter=%2F&", err);
    uint64_t want = s->list_max_keys;
    if (max_total - seen < want) want = max_total - seen;
    if (st == HUDI_OK) st = hudi_buf_printf(&q, err, "list-type=2&max-keys=%llu&prefix=", (unsigned long long)want);
    if (st == HUDI_OK) st = hudi_objstore_encode(&q, prefix, strlen(prefix), false, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', err);
    if (st != HUDI_OK) break;
    s3_call c;
    st = call_init(&c, s, "GET", NULL, (const char *)q.data, NULL, 0, err);
    if (st != HUDI_OK) break;
    hudi_buf_reset(&body);
    c.req.out = &body;
    hudi_http_response r;
    st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK && r.status != 200) {
      st = hudi_objstore_http_error(err, "LIST", what, &r);
      if (st == HUDI_ERR_NOT_FOUND)
        st = hudi_err_context(err, st, "bucket '%s'", s->bucket);
      break;
    }
    char *next_token = NULL;
    if (st == HUDI_OK)
      st = parse_page(s, (const char *)body.data, body.len, cb, &seen, max_total, &next_token, err);
    if (st == HUDI_OK && next_token && token && strcmp(next_token, token) == 0)
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "list of %s: the continuation token did not advance", what);
    hudi_free(token);
    token = next_token;
    if (!token) break;
  }
  hudi_free(token);
  hudi_buf_free(&q);
  hudi_buf_free(&body);
  return st;
}

typedef struct list_ctx {
  s3_store *s;
  size_t strip; /* bytes of base prefix + '/' to drop */
  unsigned flags;
  hudi_file_list *out;
} list_ctx;

static hudi_status list_cb(void *ctx, const char *key, size_t key_len, uint64_t size, int64_t mtime,
                           bool is_prefix, hudi_error *err) {
  list_ctx *l = ctx;
  if (key_len <= l->strip) return HUDI_OK;
  const char *rel = key + l->strip;
  size_t n = key_len - l->strip;
  if (rel[n - 1] == '/') {
    if (!is_prefix) return HUDI_OK; /* a "folder" marker object, not a file */
    n--;
  }
  if (n == 0) return HUDI_OK;
  const char *name = rel;
  for (size_t i = 0; i < n; i++)
    if (rel[i] == '/') name = rel + i + 1;
  if (!(l->flags & HUDI_LIST_INCLUDE_TEMP) && !is_prefix && hudi_storage_is_temp_name(name))
    return HUDI_OK;
  return hudi_file_list_push(l->out, rel, n, size, mtime, is_prefix, err);
}

static hudi_status s3_list(hudi_storage *base, const char *dir, unsigned flags, hudi_file_list *out,
                           hudi_error *err) {
  s3_store *s = (s3_store *)base;
  char *key;
  HUDI_TRY(full_key(&key, s, dir, err));
  char *prefix = hudi_malloc(strlen(key) + 2);
  if (!prefix) {
    hudi_free(key);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  sprintf(prefix, "%s%s", key, key[0] ? "/" : "");
  list_ctx l = {s, s->prefix[0] ? strlen(s->prefix) + 1 : 0, flags, out};
  hudi_status st = list_prefix(s, prefix, !(flags & HUDI_LIST_RECURSIVE), UINT64_MAX,
                               (list_entry_cb){list_cb, &l}, err);
  hudi_free(prefix);
  hudi_free(key);
  return st;
}

/* ---- writes ---------------------------------------------------------- */

static void backoff_sleep(int attempt) {
  long ms = 50L << (attempt < 6 ? attempt : 6);
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Adds the create-only condition of the dialect. */
static hudi_status add_if_absent(s3_store *s, hudi_http_request *req, hudi_error *err) {
  if (s->dialect == HUDI_S3_DIALECT_GCS)
    return hudi_http_add_header(req, "x-goog-if-generation-match", "0", err);
  return hudi_http_add_header(req, "If-None-Match", "*", err);
}

/* A 412 after a retried conditional PUT may be our own first attempt, which
 * reached the server before its connection broke: the object holds our
 * bytes exactly. (Two writers with identical bytes are indistinguishable,
 * and harmless.) */
static hudi_status is_our_object(s3_store *s, const char *path, const void *data, size_t len,
                                 bool *ours, hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, len + 1);
  *ours = false;
  hudi_status st = s3_read_all(&s->base, path, len + 1, &b, err);
  if (st == HUDI_OK) *ours = b.len == len && (len == 0 || memcmp(b.data, data, len) == 0);
  else if (st == HUDI_ERR_LIMIT) st = HUDI_OK;
  hudi_buf_free(&b);
  return st;
}

static hudi_status put_single(s3_store *s, const char *path, const char *key, const void *data,
                              size_t len, bool if_absent, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, key);
  for (int attempt = 0;; attempt++) {
    s3_call c;
    HUDI_TRY(call_init(&c, s, "PUT", key, NULL, data, len, err));
    hudi_status st = if_absent ? add_if_absent(s, &c.req, err) : HUDI_OK;
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    call_free(&c);
    HUDI_TRY(st);
    if (r.status == 200 || r.status == 201) return HUDI_OK;
    /* 409 ConditionalRequestConflict: another conditional write on the key
     * is in flight; one of us will win, ask again. */
    if (r.status == 409 && if_absent && attempt < CONFLICT_RETRIES) {
      backoff_sleep(attempt);
      continue;
    }
    if (r.status == 412 && r.attempts > 1) {
      bool ours;
      HUDI_TRY(is_our_object(s, path, data, len, &ours, err));
      if (ours) return HUDI_OK;
    }
    st = hudi_objstore_http_error(err, "PUT", what, &r);
    if (st == HUDI_ERR_EXISTS) st = hudi_err_context(err, st, "write-if-absent");
    return st;
  }
}

static hudi_status abort_upload(s3_store *s, const char *key, const char *upload_id) {
  hudi_buf q;
  hudi_buf_init(&q, 1 << 16);
  hudi_status st = hudi_buf_append_str(&q, "uploadId=", NULL);
  if (st == HUDI_OK) st = hudi_objstore_encode(&q, upload_id, strlen(upload_id), false, NULL);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', NULL);
  s3_call c;
  if (st == HUDI_OK && call_init(&c, s, "DELETE", key, (const char *)q.data, NULL, 0, NULL) == HUDI_OK) {
    hudi_http_response r;
    if (hudi_http_send(s->http, &c.req, &r, NULL) != HUDI_OK) r.status = 0; /* best effort */
    call_free(&c);
  }
  hudi_buf_free(&q);
  return HUDI_OK;
}

static hudi_status put_multipart(s3_store *s, const char *path, const char *key, const uint8_t *data,
                                 size_t len, bool if_absent, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, key);
  size_t part = (size_t)s->part_size;
  size_t n_parts = (len + part - 1) / part;
  if (n_parts > MAX_PARTS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "write of %s: %zu bytes need %zu parts of %zu, over %d", what,
                        len, n_parts, part, MAX_PARTS);
  /* Start. */
  hudi_buf body;
  hudi_buf_init(&body, SMALL_BODY_MAX);
  s3_call c;
  HUDI_TRY(call_init(&c, s, "POST", key, "uploads=", NULL, 0, err));
  c.req.out = &body;
  hudi_http_response r;
  hudi_status st = send_call(&c, &r, what, err);
  call_free(&c);
  char upload_id[1024] = "";
  if (st == HUDI_OK && r.status != 200) st = hudi_objstore_http_error(err, "CreateMultipartUpload", what, &r);
  if (st == HUDI_OK) {
    hudi_xml_copy(upload_id, sizeof upload_id, (const char *)body.data, (const char *)body.data + body.len,
                  "UploadId");
    if (!upload_id[0]) st = hudi_err_set(err, HUDI_ERR_CORRUPT, "CreateMultipartUpload %s: no UploadId", what);
  }
  hudi_buf q, done;
  hudi_buf_init(&q, 1 << 16);
  hudi_buf_init(&done, (size_t)1 << 24);
  if (st == HUDI_OK) st = hudi_buf_append_str(&done, "<CompleteMultipartUpload>", err);
  for (size_t i = 0; i < n_parts && st == HUDI_OK; i++) {
    size_t off = i * part, n = len - off < part ? len - off : part;
    hudi_buf_reset(&q);
    st = hudi_buf_printf(&q, err, "partNumber=%zu&uploadId=", i + 1);
    if (st == HUDI_OK) st = hudi_objstore_encode(&q, upload_id, strlen(upload_id), false, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', err);
    if (st == HUDI_OK) st = call_init(&c, s, "PUT", key, (const char *)q.data, data + off, n, err);
    if (st != HUDI_OK) break;
    st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK && r.status != 200) st = hudi_objstore_http_error(err, "UploadPart", what, &r);
    if (st == HUDI_OK && !r.etag[0]) st = hudi_err_set(err, HUDI_ERR_CORRUPT, "UploadPart %s: no ETag", what);
    if (st == HUDI_OK)
      st = hudi_buf_printf(&done, err, "<Part><PartNumber>%zu</PartNumber><ETag>%s</ETag></Part>", i + 1,
                           r.etag);
  }
  if (st == HUDI_OK) st = hudi_buf_append_str(&done, "</CompleteMultipartUpload>", err);
  if (st == HUDI_OK) {
    hudi_buf_reset(&q);
    st = hudi_buf_append_str(&q, "uploadId=", err);
    if (st == HUDI_OK) st = hudi_objstore_encode(&q, upload_id, strlen(upload_id), false, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', err);
  }
  if (st == HUDI_OK) st = call_init(&c, s, "POST", key, (const char *)q.data, done.data, done.len, err);
  if (st == HUDI_OK) {
    if (if_absent) st = add_if_absent(s, &c.req, err);
    if (st == HUDI_OK) st = hudi_http_add_header(&c.req, "Content-Type", "application/xml", err);
    hudi_buf_reset(&body);
    c.req.out = &body;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    call_free(&c);
    /* CompleteMultipartUpload can fail inside a 200 response. */
    if (st == HUDI_OK && r.status == 200 && body.len &&
        hudi_xml_element((const char *)body.data, (const char *)body.data + body.len, "Error",
                         &(const char *){NULL}, &(size_t){0}, &(const char *){NULL})) {
      snprintf(r.error_body, sizeof r.error_body, "%.*s", (int)body.len, (const char *)body.data);
      r.status = 500;
    }
    if (st == HUDI_OK && r.status != 200) {
      st = hudi_objstore_http_error(err, "CompleteMultipartUpload", what, &r);
      if (st == HUDI_ERR_EXISTS) st = hudi_err_context(err, st, "write-if-absent");
    }
  }
  if (st != HUDI_OK && upload_id[0]) abort_upload(s, key, upload_id);
  hudi_buf_free(&q);
  hudi_buf_free(&done);
  hudi_buf_free(&body);
  (void)path;
  return st;
}

static hudi_status s3_write(hudi_storage *base, const char *path, const void *data, size_t len,
                            unsigned flags, hudi_error *err) {
  s3_store *s = (s3_store *)base;
  char *key;
  HUDI_TRY(full_key(&key, s, path, err));
  bool if_absent = flags & HUDI_WRITE_IF_ABSENT;
  hudi_status st = len > s->multipart_threshold
                       ? put_multipart(s, path, key, data, len, if_absent, err)
                       : put_single(s, path, key, data, len, if_absent, err);
  hudi_free(key);
  return st;
}

/* ---- delete ---------------------------------------------------------- */

static hudi_status delete_key(s3_store *s, const char *key, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, key);
  s3_call c;
  HUDI_TRY(call_init(&c, s, "DELETE", key, NULL, NULL, 0, err));
  hudi_http_response r;
  hudi_status st = send_call(&c, &r, what, err);
  call_free(&c);
  HUDI_TRY(st);
  if (r.status == 200 || r.status == 204 || r.status == 404) return HUDI_OK;
  return hudi_objstore_http_error(err, "DELETE", what, &r);
}

typedef struct key_batch {
  s3_store *s;
  hudi_buf xml;
  size_t n;
} key_batch;

static hudi_status flush_batch(key_batch *b, hudi_error *err) {
  if (b->n == 0) return HUDI_OK;
  s3_store *s = b->s;
  char what[1200];
  describe(what, sizeof what, s, s->prefix);
  HUDI_TRY(hudi_buf_append_str(&b->xml, "</Delete>", err));
  char md5[25];
  hudi_md5_base64(md5, b->xml.data, b->xml.len);
  s3_call c;
  HUDI_TRY(call_init(&c, s, "POST", NULL, "delete=", b->xml.data, b->xml.len, err));
  hudi_buf body;
  hudi_buf_init(&body, LIST_BODY_MAX);
  c.req.out = &body;
  hudi_status st = hudi_http_add_header(&c.req, "Content-MD5", md5, err);
  if (st == HUDI_OK) st = hudi_http_add_header(&c.req, "Content-Type", "application/xml", err);
  hudi_http_response r;
  if (st == HUDI_OK) st = send_call(&c, &r, what, err);
  call_free(&c);
  if (st == HUDI_OK && r.status != 200) st = hudi_objstore_http_error(err, "DeleteObjects", what, &r);
  if (st == HUDI_OK) {
    const char *v, *next;
    size_t vlen;
    if (hudi_xml_element((const char *)body.data, (const char *)body.data + body.len, "Error", &v, &vlen, &next)) {
      char key[1024], code[128], msg[256];
      hudi_xml_copy(key, sizeof key, v, v + vlen, "Key");
      hudi_xml_copy(code, sizeof code, v, v + vlen, "Code");
      hudi_xml_copy(msg, sizeof msg, v, v + vlen, "Message");
      st = hudi_err_set(err, HUDI_ERR_IO, "DeleteObjects in s3://%s failed for key '%s': %s: %s%s",
                        s->bucket, key, code, strstr(code, "AccessDenied") ? "access denied: " : "", msg);
    }
  }
  hudi_buf_free(&body);
  hudi_buf_reset(&b->xml);
  b->n = 0;
  return st;
}

static hudi_status batch_cb(void *ctx, const char *key, size_t key_len, uint64_t size, int64_t mtime,
                            bool is_prefix, hudi_error *err) {
  key_batch *b = ctx;
  if (b->s->dialect == HUDI_S3_DIALECT_GCS) { /* the GCS XML API has no batch delete */
    char *k = hudi_strndup(key, key_len);
    if (!k) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    hudi_status st = delete_key(b->s, k, err);
    hudi_free(k);
    return st;
  }
  if (b->n == 0) HUDI_TRY(hudi_buf_append_str(&b->xml, "<Delete><Quiet>true</Quiet>", err));
  HUDI_TRY(hudi_buf_append_str(&b->xml, "<Object><Key>", err));
  for (size_t i = 0; i < key_len; i++) {
    const char *esc = key[i] == '&' ? "&amp;" : key[i] == '<' ? "&lt;" : key[i] == '>' ? "&gt;" : NULL;
    HUDI_TRY(esc ? hudi_buf_append_str(&b->xml, esc, err) : hudi_buf_append_byte(&b->xml, (uint8_t)key[i], err));
  }
  HUDI_TRY(hudi_buf_append_str(&b->xml, "</Key></Object>", err));
  if (++b->n == DELETE_BATCH) return flush_batch(b, err);
  return HUDI_OK;
}

/* Deletes every key under key + "/", and key itself when with_key (a
 * batch delete of a missing key succeeds). *any: whether there was one
 * under it. */
static hudi_status delete_tree(s3_store *s, const char *key, bool with_key, bool *any, hudi_error *err) {
  char *p = hudi_malloc(strlen(key) + 2);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  sprintf(p, "%s/", key);
  key_batch b = {s, {0}, 0};
  hudi_buf_init(&b.xml, LIST_BODY_MAX);
  /* List fully first: deleting while paging would shift the pages. */
  hudi_file_list keys = HUDI_FILE_LIST_INIT;
  list_ctx l = {s, 0, HUDI_LIST_RECURSIVE | HUDI_LIST_INCLUDE_TEMP, &keys};
  hudi_status st = list_prefix(s, p, false, UINT64_MAX, (list_entry_cb){list_cb, &l}, err);
  *any = keys.count > 0;
  if (st == HUDI_OK && with_key) st = batch_cb(&b, key, strlen(key), 0, 0, false, err);
  for (size_t i = 0; i < keys.count && st == HUDI_OK; i++)
    st = batch_cb(&b, keys.items[i].path, strlen(keys.items[i].path), 0, 0, false, err);
  if (st == HUDI_OK) st = flush_batch(&b, err);
  hudi_file_list_free(&keys);
  hudi_buf_free(&b.xml);
  hudi_free(p);
  return st;
}

static hudi_status s3_remove(hudi_storage *base, const char *path, unsigned flags, hudi_error *err) {
  s3_store *s = (s3_store *)base;
  char *key;
  HUDI_TRY(full_key(&key, s, path, err));
  char what[1200];
  describe(what, sizeof what, s, key);
  if ((flags & HUDI_DELETE_MISSING_OK) && !(flags & HUDI_DELETE_RECURSIVE)) {
    /* A lock or heartbeat file: DELETE succeeds whether or not the key is
     * there, so no HEAD first. (A prefix with objects under it is then left
     * alone rather than reported; see storage.h.) */
    hudi_status st = delete_key(s, key, err);
    hudi_free(key);
    return st;
  }
  bool found = false;
  /* A recursive delete that may find nothing (a commit's marker
   * directory) needs no HEAD: the key goes into the batch delete with the
   * keys under it. GCS has no batch delete: a DELETE per key anyway. */
  bool blind = (flags & HUDI_DELETE_RECURSIVE) && (flags & HUDI_DELETE_MISSING_OK) &&
               s->dialect != HUDI_S3_DIALECT_GCS;
  hudi_status st = blind ? HUDI_OK : head_key(s, key, &found, NULL, NULL, err);
  if (st == HUDI_OK && found) st = delete_key(s, key, err);
  if (st == HUDI_OK && (flags & HUDI_DELETE_RECURSIVE)) {
    bool any = false;
    st = delete_tree(s, key, blind, &any, err);
    found = found || any;
  } else if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, key, &dir, err);
    if (st == HUDI_OK && dir)
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG, "delete of %s: is a prefix with objects under it "
                        "(use HUDI_DELETE_RECURSIVE)", what);
  }
  if (st == HUDI_OK && !found && !(flags & HUDI_DELETE_MISSING_OK))
    st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "delete of %s: no such object", what);
  hudi_free(key);
  return st;
}

/* ---- rename ---------------------------------------------------------- */

static hudi_status copy_object(s3_store *s, const char *from_key, const char *to_key, hudi_error *err) {
  char what[1200];
  describe(what, sizeof what, s, to_key);
  hudi_buf src;
  hudi_buf_init(&src, 1 << 16);
  hudi_status st = hudi_buf_append_byte(&src, '/', err);
  if (st == HUDI_OK) st = hudi_objstore_encode(&src, s->bucket, strlen(s->bucket), false, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&src, '/', err);
  if (st == HUDI_OK) st = hudi_objstore_encode(&src, from_key, strlen(from_key), true, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&src, '\0', err);
  s3_call c;
  if (st == HUDI_OK) st = call_init(&c, s, "PUT", to_key, NULL, NULL, 0, err);
  if (st == HUDI_OK) {
    hudi_buf body;
    hudi_buf_init(&body, SMALL_BODY_MAX);
    c.req.out = &body;
    st = hudi_http_add_header(&c.req,
                              s->dialect == HUDI_S3_DIALECT_GCS ? "x-goog-copy-source" : "x-amz-copy-source",
                              (const char *)src.data, err);
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    call_free(&c);
    /* CopyObject, like CompleteMultipartUpload, can fail inside a 200. */
    const char *v, *next;
    size_t vlen;
    if (st == HUDI_OK && r.status == 200 && body.len &&
        hudi_xml_element((const char *)body.data, (const char *)body.data + body.len, "Error", &v, &vlen, &next)) {
      snprintf(r.error_body, sizeof r.error_body, "%.*s", (int)body.len, (const char *)body.data);
      r.status = 500;
    }
    if (st == HUDI_OK && r.status != 200) st = hudi_objstore_http_error(err, "CopyObject", what, &r);
    hudi_buf_free(&body);
  }
  hudi_buf_free(&src);
  return st;
}

static hudi_status s3_rename(hudi_storage *base, const char *from, const char *to, unsigned flags,
                             hudi_error *err) {
  s3_store *s = (s3_store *)base;
  char *fk, *tk;
  HUDI_TRY(full_key(&fk, s, from, err));
  hudi_status st = full_key(&tk, s, to, err);
  if (st != HUDI_OK) {
    hudi_free(fk);
    return st;
  }
  char what[1200];
  describe(what, sizeof what, s, fk);
  bool found;
  uint64_t size = 0;
  st = head_key(s, fk, &found, &size, NULL, err);
  if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, fk, &dir, err);
    if (st == HUDI_OK)
      st = dir ? hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "rename of %s: prefixes cannot be renamed on "
                              "object stores", what)
               : hudi_err_set(err, HUDI_ERR_NOT_FOUND, "rename of %s: no such object", what);
  }
  if (st == HUDI_OK && (flags & HUDI_RENAME_NO_REPLACE)) {
    /* The check and the create must be one step: a conditional PUT of the
     * bytes (a copy cannot carry If-None-Match everywhere). */
    hudi_buf b;
    hudi_buf_init(&b, 0);
    st = s3_read_all(base, from, (size_t)size + 1, &b, err);
    if (st == HUDI_OK) st = s3_write(base, to, b.data, b.len, HUDI_WRITE_IF_ABSENT, err);
    hudi_buf_free(&b);
  } else if (st == HUDI_OK) {
    st = copy_object(s, fk, tk, err);
  }
  if (st == HUDI_OK) st = delete_key(s, fk, err);
  hudi_free(fk);
  hudi_free(tk);
  return st;
}

/* ---- open / close ---------------------------------------------------- */

static void s3_destroy(hudi_storage *base) {
  s3_store *s = (s3_store *)base;
  hudi_http_client_free(s->http);
  hudi_free(s->base.base);
  hudi_free(s->bucket);
  hudi_free(s->prefix);
  hudi_free(s->scheme_host);
  hudi_free(s->host);
  hudi_free(s->access_key);
  if (s->secret_key) {
    memset(s->secret_key, 0, strlen(s->secret_key));
    hudi_free(s->secret_key);
  }
  hudi_free(s->session_token);
  hudi_free(s->region);
  hudi_free(s);
}

static const hudi_storage_vtable k_s3_vtable = {
    "s3", s3_read, s3_read_all, s3_stat, s3_write, s3_rename, s3_list, s3_remove, s3_destroy,
    NULL, NULL,    NULL, /* no held files: each read is a ranged GET */
    NULL,                /* a PUT is durable when it returns */
    NULL,                /* no directories */
    NULL,                /* the server stamps an object's Last-Modified */
};
static const hudi_storage_vtable k_gcs_vtable = {
    "gcs", s3_read, s3_read_all, s3_stat, s3_write, s3_rename, s3_list, s3_remove, s3_destroy,
    NULL,  NULL,    NULL, NULL, NULL, NULL,
};

static hudi_status dup_setting(char **dst, const char *v, hudi_error *err) {
  *dst = NULL;
  if (!v) return HUDI_OK;
  *dst = hudi_strdup(v);
  return *dst ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
}

/* Splits endpoint "http[s]://host[:port][/]" and builds scheme_host/host. */
static hudi_status set_endpoint(s3_store *s, const char *endpoint, bool allow_http, hudi_error *err) {
  bool http = strncasecmp(endpoint, "http://", 7) == 0;
  if (!http && strncasecmp(endpoint, "https://", 8) != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "endpoint '%s' is not an http(s):// URL", endpoint);
  if (http && !allow_http)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "endpoint '%s' is plain http; set aws_allow_http=true to allow it", endpoint);
  const char *h = endpoint + (http ? 7 : 8);
  size_t hl = strcspn(h, "/?#");
  if (hl == 0 || hl > 255) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "endpoint '%s' has no host", endpoint);
  hudi_buf b;
  hudi_buf_init(&b, 1024);
  hudi_status st = s->virtual_hosted ? hudi_buf_printf(&b, err, "%s.%.*s", s->bucket, (int)hl, h)
                                     : hudi_buf_printf(&b, err, "%.*s", (int)hl, h);
  uint8_t *p = NULL;
  size_t n;
  if (st == HUDI_OK) st = hudi_buf_detach(&b, &p, &n, err);
  hudi_buf_free(&b);
  HUDI_TRY(st);
  s->host = (char *)p;
  s->scheme_host = hudi_malloc(strlen(s->host) + 9);
  if (!s->scheme_host) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  sprintf(s->scheme_host, "%s://%s", http ? "http" : "https", s->host);
  return HUDI_OK;
}

static hudi_status configure(s3_store *s, const hudi_storage_option *o, size_t n, hudi_error *err) {
  bool gcs = s->dialect == HUDI_S3_DIALECT_GCS;
  static const char *const k_key[] = {"aws_access_key_id", "access_key_id", NULL};
  static const char *const e_key[] = {"AWS_ACCESS_KEY_ID", NULL};
  static const char *const g_key[] = {"google_hmac_access_id", "aws_access_key_id", "access_key_id", NULL};
  static const char *const ge_key[] = {"GOOGLE_HMAC_ACCESS_ID", NULL};
  static const char *const k_secret[] = {"aws_secret_access_key", "secret_access_key", NULL};
  static const char *const e_secret[] = {"AWS_SECRET_ACCESS_KEY", NULL};
  static const char *const g_secret[] = {"google_hmac_secret", "aws_secret_access_key", "secret_access_key", NULL};
  static const char *const ge_secret[] = {"GOOGLE_HMAC_SECRET", NULL};
  static const char *const k_token[] = {"aws_session_token", "aws_token", "session_token", "token", NULL};
  static const char *const e_token[] = {"AWS_SESSION_TOKEN", NULL};
  static const char *const k_region[] = {"aws_region", "region", NULL};
  static const char *const e_region[] = {"AWS_REGION", "AWS_DEFAULT_REGION", NULL};
  static const char *const k_endpoint[] = {"aws_endpoint", "aws_endpoint_url", "endpoint", "endpoint_url", NULL};
  static const char *const e_endpoint[] = {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", NULL};
  static const char *const g_endpoint[] = {"google_endpoint", "aws_endpoint", "endpoint", NULL};
  static const char *const ge_endpoint[] = {"GOOGLE_STORAGE_ENDPOINT", NULL};
  static const char *const k_http[] = {"aws_allow_http", "allow_http", NULL};
  static const char *const e_http[] = {"AWS_ALLOW_HTTP", NULL};
  static const char *const k_vhost[] = {"aws_virtual_hosted_style_request", "virtual_hosted_style_request", NULL};
  static const char *const e_vhost[] = {"AWS_VIRTUAL_HOSTED_STYLE_REQUEST", NULL};
  static const char *const k_skip[] = {"aws_skip_signature", "skip_signature", NULL};
  static const char *const k_thresh[] = {"multipart_threshold", NULL};
  static const char *const k_part[] = {"multipart_part_size", NULL};
  static const char *const k_keys[] = {"list_max_keys", NULL};

  HUDI_TRY(dup_setting(&s->access_key, hudi_objstore_setting(o, n, gcs ? g_key : k_key, gcs ? ge_key : e_key), err));
  HUDI_TRY(dup_setting(&s->secret_key,
                       hudi_objstore_setting(o, n, gcs ? g_secret : k_secret, gcs ? ge_secret : e_secret), err));
  HUDI_TRY(dup_setting(&s->session_token, hudi_objstore_setting(o, n, k_token, gcs ? NULL : e_token), err));
  const char *region = gcs ? "auto" : hudi_objstore_setting(o, n, k_region, e_region);
  HUDI_TRY(dup_setting(&s->region, region ? region : "us-east-1", err));
  HUDI_TRY(hudi_objstore_setting_bool(o, n, k_skip, NULL, false, &s->skip_signature, err));
  if (!s->skip_signature && (!s->access_key || !s->secret_key))
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        gcs ? "no GCS HMAC credentials: set google_hmac_access_id and google_hmac_secret "
                              "(or GOOGLE_HMAC_ACCESS_ID / GOOGLE_HMAC_SECRET)"
                            : "no AWS credentials: set aws_access_key_id and aws_secret_access_key (or "
                              "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), or aws_skip_signature=true");
  bool allow_http;
  HUDI_TRY(hudi_objstore_setting_bool(o, n, k_http, e_http, false, &allow_http, err));
  HUDI_TRY(hudi_objstore_setting_bool(o, n, k_vhost, e_vhost, false, &s->virtual_hosted, err));
  const char *endpoint = hudi_objstore_setting(o, n, gcs ? g_endpoint : k_endpoint, gcs ? ge_endpoint : e_endpoint);
  char dflt[128];
  if (!endpoint) {
    if (gcs) snprintf(dflt, sizeof dflt, "https://storage.googleapis.com");
    else snprintf(dflt, sizeof dflt, "https://s3.%.64s.amazonaws.com", s->region);
    endpoint = dflt;
  }
  HUDI_TRY(set_endpoint(s, endpoint, allow_http, err));
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_thresh, (uint64_t)64 << 20, 0, (uint64_t)5 << 30,
                                     &s->multipart_threshold, err));
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_part, (uint64_t)16 << 20, (uint64_t)5 << 20, (uint64_t)5 << 30,
                                     &s->part_size, err));
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_keys, 1000, 1, 1000, &s->list_max_keys, err));
  return HUDI_OK;
}

hudi_status hudi_s3_storage_open_dialect(hudi_storage **out, const char *uri,
                                         const hudi_storage_option *options, size_t n_options,
                                         hudi_s3_dialect dialect, hudi_error *err) {
  *out = NULL;
  s3_store *s = hudi_calloc(1, sizeof *s);
  if (!s) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", uri);
  s->base.vtable = dialect == HUDI_S3_DIALECT_GCS ? &k_gcs_vtable : &k_s3_vtable;
  s->dialect = dialect;
  hudi_status st = hudi_objstore_parse_uri(uri, &s->bucket, &s->prefix, err);
  if (st == HUDI_OK) st = configure(s, options, n_options, err);
  hudi_http_config cfg;
  if (st == HUDI_OK) st = hudi_objstore_http_config(&cfg, options, n_options, err);
  if (st == HUDI_OK) st = hudi_http_client_new(&s->http, &cfg, err);
  if (st == HUDI_OK) {
    const char *scheme_end = strstr(uri, "://");
    s->base.base = hudi_malloc((size_t)(scheme_end - uri) + strlen(s->bucket) + strlen(s->prefix) + 8);
    if (!s->base.base) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    else
      sprintf(s->base.base, "%.*s://%s%s%s", (int)(scheme_end - uri), uri, s->bucket,
              s->prefix[0] ? "/" : "", s->prefix);
  }
  if (st == HUDI_OK) st = hudi_objcache_enable(&s->base, options, n_options, err);
  if (st == HUDI_OK) st = hudi_readahead_enable(&s->base, options, n_options, err); /* last: may allocate */
  if (st != HUDI_OK) {
    hudi_objcache_free(s->base.objcache); /* readahead_enable, last, failed */
    s3_destroy(&s->base);
    return hudi_err_context(err, st, "opening '%s'", uri);
  }
  *out = &s->base;
  return HUDI_OK;
}

hudi_status hudi_s3_storage_open(hudi_storage **out, const char *uri, const hudi_storage_option *options,
                                 size_t n_options, hudi_error *err) {
  return hudi_s3_storage_open_dialect(out, uri, options, n_options, HUDI_S3_DIALECT_AWS, err);
}
