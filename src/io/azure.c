/* Azure Blob Storage backend over io/http.c and io/sharedkey.c. See azure.h
 * for URIs and settings, backend.h for how operations map to requests. */
#include "io/azure.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/alloc.h"
#include "io/http.h"
#include "io/objstore.h"
#include "io/objcache.h"
#include "io/readahead.h"
#include "io/sharedkey.h"

#define AZ_VERSION "2021-08-06"
#define LIST_BODY_MAX ((size_t)64 << 20)
#define MAX_LIST_PAGES 1000000
#define MAX_BLOCKS 50000
#define COPY_WAIT_MS 600000L
#define WHAT_MAX 1200

typedef struct az_store {
  hudi_storage base;
  hudi_http_client *http;
  char *account, *container, *prefix;
  char *scheme_host;  /* "https://acct.blob.core.windows.net", "http://127.0.0.1:10000" */
  char *service_path; /* "" or the encoded account path of a path-style endpoint */
  uint8_t *key;
  size_t key_len;
  bool skip_signature;
  uint64_t block_threshold, block_size, list_max;
} az_store;

/* ---- requests -------------------------------------------------------- */

typedef struct az_call {
  az_store *s;
  hudi_http_request req;
  hudi_buf url, path;
  char date[40];
  char clen[24];
  char *authz;
} az_call;

/* RFC 1123 date in English whatever the locale. */
static void http_date(char out[40]) {
  static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  snprintf(out, 40, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday % 7], tm.tm_mday,
           months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static hudi_status az_sign(void *ctx, hudi_http_request *req, hudi_error *err) {
  az_call *c = ctx;
  az_store *s = c->s;
  http_date(c->date);
  HUDI_TRY(hudi_http_add_header(req, "x-ms-date", c->date, err));
  HUDI_TRY(hudi_http_add_header(req, "x-ms-version", AZ_VERSION, err));
  if (s->skip_signature) return HUDI_OK;
  /* Every header sent, plus the Content-Length curl adds for a body. */
  hudi_http_header h[HUDI_HTTP_MAX_HEADERS + 1];
  size_t n = 0;
  for (size_t i = 0; i < req->n_headers; i++)
    if (strcasecmp(req->headers[i].name, "Authorization") != 0) h[n++] = req->headers[i];
  bool has_body = strcmp(req->method, "PUT") == 0 || strcmp(req->method, "POST") == 0 || req->body_len;
  if (has_body) {
    snprintf(c->clen, sizeof c->clen, "%zu", req->body_len);
    h[n++] = (hudi_http_header){"Content-Length", c->clen};
  }
  char *authz = NULL;
  HUDI_TRY(hudi_sharedkey_authorization(&authz, s->account, s->key, s->key_len, req->method,
                                        req->canonical_uri, req->query, h, n, NULL, err));
  hudi_status st = hudi_http_add_header(req, "Authorization", authz, err);
  hudi_free(c->authz);
  c->authz = authz;
  return st;
}

static void call_free(az_call *c) {
  hudi_buf_free(&c->url);
  hudi_buf_free(&c->path);
  hudi_free(c->authz);
  c->authz = NULL;
}

/* Appends "<service path>/<container>[/<blob>]", encoded. */
static hudi_status append_path(hudi_buf *b, const az_store *s, const char *blob, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_str(b, s->service_path, err));
  HUDI_TRY(hudi_buf_append_byte(b, '/', err));
  HUDI_TRY(hudi_objstore_encode(b, s->container, strlen(s->container), false, err));
  if (!blob) return HUDI_OK;
  HUDI_TRY(hudi_buf_append_byte(b, '/', err));
  return hudi_objstore_encode(b, blob, strlen(blob), true, err);
}

/* Prepares method on blob (NULL: the container) with an encoded query. */
static hudi_status call_init(az_call *c, az_store *s, const char *method, const char *blob,
                             const char *query, const void *body, size_t body_len, hudi_error *err) {
  memset(c, 0, sizeof *c);
  c->s = s;
  hudi_buf_init(&c->url, 1 << 16);
  hudi_buf_init(&c->path, 1 << 16);
  hudi_status st = append_path(&c->path, s, blob, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&c->path, '\0', err);
  if (st == HUDI_OK)
    st = hudi_buf_printf(&c->url, err, "%s%s%s%s", s->scheme_host, (const char *)c->path.data,
                         query && *query ? "?" : "", query ? query : "");
  c->req.method = method;
  c->req.url = (const char *)c->url.data;
  c->req.canonical_uri = (const char *)c->path.data;
  c->req.query = query ? query : "";
  c->req.body = body;
  c->req.body_len = body_len;
  c->req.sign = az_sign;
  c->req.sign_ctx = c;
  /* Set here so http.c adds no default of its own: it is signed. */
  if (st == HUDI_OK) st = hudi_http_add_header(&c->req, "Content-Type", "application/octet-stream", err);
  if (st != HUDI_OK) call_free(c);
  return st;
}

/* blob = prefix + "/" + path, into *out (hudi_free). */
static hudi_status full_key(char **out, const az_store *s, const char *path, hudi_error *err) {
  size_t n = strlen(s->prefix) + strlen(path) + 2;
  *out = hudi_malloc(n);
  if (!*out) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  snprintf(*out, n, "%s%s%s", s->prefix, s->prefix[0] && path[0] ? "/" : "", path);
  return HUDI_OK;
}

/* "az://container/blob" (account named) for messages. */
static void describe(char *dst, size_t cap, const az_store *s, const char *blob) {
  snprintf(dst, cap, "az://%s/%s (account %s)", s->container, blob, s->account);
}

static hudi_status send_call(az_call *c, hudi_http_response *resp, const char *what, hudi_error *err) {
  hudi_status st = hudi_http_send(c->s->http, &c->req, resp, err);
  if (st != HUDI_OK) return hudi_err_context(err, st, "%s", what);
  return HUDI_OK;
}

/* The service's error code: the x-ms-error-code header, else the body's <Code>. */
static void error_code(const hudi_http_response *r, char *dst, size_t cap) {
  if (r->error_code[0]) {
    snprintf(dst, cap, "%s", r->error_code);
    return;
  }
  hudi_xml_copy(dst, cap, r->error_body, r->error_body + strlen(r->error_body), "Code");
}

/* objstore's mapping, plus Azure's 409 BlobAlreadyExists -> HUDI_ERR_EXISTS. */
static hudi_status az_error(hudi_error *err, const char *op, const char *what, const hudi_http_response *r) {
  hudi_status st = hudi_objstore_http_error(err, op, what, r);
  if (err) { /* Azure's messages go on with "\nRequestId:...\nTime:..." */
    char *nl = strchr(err->message, '\n');
    if (nl) *nl = '\0';
  }
  char code[128];
  error_code(r, code, sizeof code);
  if (r->status == 409 && strcmp(code, "BlobAlreadyExists") == 0) {
    st = HUDI_ERR_EXISTS;
    if (err) err->code = st;
  }
  return st;
}

/* ---- HEAD / GET ------------------------------------------------------ */

/* Get Blob Properties: *found, and size/mtime (and the x-ms-copy-status
 * into copy_status, cap 32, when not NULL) when found. */
static hudi_status head_blob(az_store *s, const char *blob, bool *found, uint64_t *size,
                             int64_t *mtime_ms, char *copy_status, hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  az_call c;
  HUDI_TRY(call_init(&c, s, "HEAD", blob, NULL, NULL, 0, err));
  if (copy_status) c.req.capture_header = "x-ms-copy-status";
  hudi_http_response r;
  hudi_status st = send_call(&c, &r, what, err);
  call_free(&c);
  HUDI_TRY(st);
  *found = false;
  if (r.status == 404) return HUDI_OK;
  if (r.status != 200) return az_error(err, "HEAD", what, &r);
  *found = true;
  if (size) *size = r.content_length > 0 ? (uint64_t)r.content_length : 0;
  if (mtime_ms) *mtime_ms = r.last_modified_ms > 0 ? r.last_modified_ms : 0;
  if (copy_status) snprintf(copy_status, 32, "%.31s", r.captured);
  return HUDI_OK;
}

typedef struct list_entry_cb {
  hudi_status (*fn)(void *ctx, const char *name, size_t name_len, uint64_t size, int64_t mtime,
                    bool is_prefix, hudi_error *err);
  void *ctx;
} list_entry_cb;

static hudi_status list_prefix(az_store *s, const char *prefix, bool delimit, uint64_t max_total,
                               list_entry_cb cb, hudi_error *err);

static hudi_status count_cb(void *ctx, const char *name, size_t name_len, uint64_t size,
                            int64_t mtime, bool is_prefix, hudi_error *err) {
  (void)name, (void)name_len, (void)size, (void)mtime, (void)is_prefix, (void)err;
  (*(size_t *)ctx)++;
  return HUDI_OK;
}

/* Whether any blob lies under blob + "/". */
static hudi_status has_children(az_store *s, const char *blob, bool *out, hudi_error *err) {
  size_t n = strlen(blob) + 2;
  char *p = hudi_malloc(n);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  snprintf(p, n, "%s/", blob);
  size_t count = 0;
  hudi_status st = list_prefix(s, p, true, 1, (list_entry_cb){count_cb, &count}, err);
  hudi_free(p);
  *out = count > 0;
  return st;
}

static hudi_status az_read(hudi_storage *base, const char *path, uint64_t offset, void *dst,
                           size_t len, size_t *n_read, hudi_error *err) {
  az_store *s = (az_store *)base;
  *n_read = 0;
  char *blob;
  HUDI_TRY(full_key(&blob, s, path, err));
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  hudi_status st;
  if (len == 0) {
    bool found;
    st = head_blob(s, blob, &found, NULL, NULL, NULL, err);
    if (st == HUDI_OK && !found) st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "read of %s: no such blob", what);
    hudi_free(blob);
    return st;
  }
  az_call c;
  st = call_init(&c, s, "GET", blob, NULL, NULL, 0, err);
  char range[64];
  snprintf(range, sizeof range, "bytes=%llu-%llu", (unsigned long long)offset,
           (unsigned long long)(offset + len - 1));
  if (st == HUDI_OK) {
    st = hudi_http_add_header(&c.req, "x-ms-range", range, err);
    c.req.dst = dst;
    c.req.dst_cap = len;
    c.req.range_offset = offset;
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    if (st == HUDI_OK) {
      if (r.status == 200 || r.status == 206) *n_read = r.n_body;
      else if (r.status == 416) *n_read = 0; /* at or past the end */
      else st = az_error(err, "GET", what, &r);
    }
    call_free(&c);
  }
  hudi_free(blob);
  return st;
}

static hudi_status az_read_all(hudi_storage *base, const char *path, size_t max_size, hudi_buf *out,
                               hudi_error *err) {
  az_store *s = (az_store *)base;
  char *blob;
  HUDI_TRY(full_key(&blob, s, path, err));
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  az_call c;
  hudi_status st = call_init(&c, s, "GET", blob, NULL, NULL, 0, err);
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
      st = az_error(err, "GET", what, &r);
    }
    call_free(&c);
  }
  hudi_free(blob);
  return st;
}

static hudi_status az_stat(hudi_storage *base, const char *path, hudi_file_stat *out, hudi_error *err) {
  az_store *s = (az_store *)base;
  memset(out, 0, sizeof *out);
  if (path[0] == '\0') {
    out->is_dir = true;
    return HUDI_OK;
  }
  char *blob;
  HUDI_TRY(full_key(&blob, s, path, err));
  bool found;
  hudi_status st = head_blob(s, blob, &found, &out->size, &out->mtime_ms, NULL, err);
  if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, blob, &dir, err);
    if (st == HUDI_OK && dir) {
      out->is_dir = true;
    } else if (st == HUDI_OK) {
      char what[WHAT_MAX];
      describe(what, sizeof what, s, blob);
      st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "stat of %s: no such blob or prefix", what);
    }
  }
  hudi_free(blob);
  return st;
}

/* ---- listing --------------------------------------------------------- */

static int64_t parse_http_date(const char *v) {
  if (!v[0]) return 0;
  time_t t = curl_getdate(v, NULL);
  return t == (time_t)-1 ? 0 : (int64_t)t * 1000;
}

static bool contains(const char *p, size_t n, const char *needle) {
  size_t k = strlen(needle);
  for (size_t i = 0; i + k <= n; i++)
    if (memcmp(p + i, needle, k) == 0) return true;
  return false;
}

/* One List Blobs page: <Blob> and <BlobPrefix> entries, and NextMarker. */
static hudi_status parse_page(az_store *s, const char *body, size_t len, list_entry_cb cb,
                              uint64_t *seen, uint64_t max_total, char **marker, hudi_error *err) {
  const char *end = body + len, *v, *next;
  size_t vlen;
  *marker = NULL;
  const char *blobs_v, *blobs_next;
  size_t blobs_len;
  if (!hudi_xml_element(body, end, "EnumerationResults", &v, &vlen, &next))
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "az://%s: List Blobs answered without EnumerationResults",
                        s->container);
  if (hudi_xml_element(body, end, "Blobs", &blobs_v, &blobs_len, &blobs_next)) {
    const char *p = blobs_v, *bend = blobs_v + blobs_len;
    hudi_status st = HUDI_OK;
    /* Blob and BlobPrefix entries in the order the service gave them. The
     * next one of each kind is looked up once and kept until consumed, so
     * a page is scanned in linear time. */
    const char *bv = NULL, *pv = NULL, *bn = NULL, *pn = NULL;
    size_t bl = 0, pl = 0;
    bool has_b = false, has_p = false, need_b = true, need_p = true;
    while (st == HUDI_OK && *seen < max_total && p < bend) {
      if (need_b) has_b = hudi_xml_element(p, bend, "Blob", &bv, &bl, &bn);
      if (need_p) has_p = hudi_xml_element(p, bend, "BlobPrefix", &pv, &pl, &pn);
      need_b = need_p = false;
      if (!has_b && !has_p) break;
      bool is_prefix = has_p && (!has_b || pv < bv);
      const char *ev = is_prefix ? pv : bv;
      size_t el = is_prefix ? pl : bl;
      const char *nv, *nn;
      size_t nl;
      if (!hudi_xml_element(ev, ev + el, "Name", &nv, &nl, &nn))
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "az://%s: listing entry without a Name", s->container);
      if (contains(ev, (size_t)(nv - ev), "Encoded=\"true\""))
        return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                            "az://%s: the listing holds a blob name with characters XML cannot carry",
                            s->container);
      char *name;
      HUDI_TRY(hudi_xml_text(&name, nv, nl, err));
      uint64_t size = 0;
      int64_t mtime = 0;
      if (!is_prefix) {
        char size_s[32], mod_s[64];
        hudi_xml_copy(size_s, sizeof size_s, ev, ev + el, "Content-Length");
        hudi_xml_copy(mod_s, sizeof mod_s, ev, ev + el, "Last-Modified");
        size = strtoull(size_s, NULL, 10);
        mtime = parse_http_date(mod_s);
      }
      st = cb.fn(cb.ctx, name, strlen(name), size, mtime, is_prefix, err);
      hudi_free(name);
      (*seen)++;
      p = is_prefix ? pn : bn;
      need_p = is_prefix;
      need_b = !is_prefix;
    }
    HUDI_TRY(st);
  }
  if (hudi_xml_element(body, end, "NextMarker", &v, &vlen, &next) && vlen > 0)
    HUDI_TRY(hudi_xml_text(marker, v, vlen, err));
  return HUDI_OK;
}

/* Pages through List Blobs of prefix, calling cb for each blob (and, with
 * delimit, each BlobPrefix), stopping after max_total entries. */
static hudi_status list_prefix(az_store *s, const char *prefix, bool delimit, uint64_t max_total,
                               list_entry_cb cb, hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, prefix);
  char *marker = NULL;
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
    hudi_buf_reset(&q);
    uint64_t want = s->list_max;
    if (max_total - seen < want) want = max_total - seen;
    st = hudi_buf_printf(&q, err, "restype=container&comp=list&maxresults=%llu", (unsigned long long)want);
    if (st == HUDI_OK && delimit) st = hudi_buf_append_str(&q, "&delimiter=%2F", err);
    if (st == HUDI_OK && prefix[0]) {
      st = hudi_buf_append_str(&q, "&prefix=", err);
      if (st == HUDI_OK) st = hudi_objstore_encode(&q, prefix, strlen(prefix), false, err);
    }
    if (st == HUDI_OK && marker) {
      st = hudi_buf_append_str(&q, "&marker=", err);
      if (st == HUDI_OK) st = hudi_objstore_encode(&q, marker, strlen(marker), false, err);
    }
    if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', err);
    if (st != HUDI_OK) break;
    az_call c;
    st = call_init(&c, s, "GET", NULL, (const char *)q.data, NULL, 0, err);
    if (st != HUDI_OK) break;
    hudi_buf_reset(&body);
    c.req.out = &body;
    hudi_http_response r;
    st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK && r.status != 200) {
      st = az_error(err, "List Blobs", what, &r);
      if (st == HUDI_ERR_NOT_FOUND) st = hudi_err_context(err, st, "container '%s'", s->container);
      break;
    }
    char *next_marker = NULL;
    if (st == HUDI_OK)
      st = parse_page(s, (const char *)body.data, body.len, cb, &seen, max_total, &next_marker, err);
    if (st == HUDI_OK && next_marker && marker && strcmp(next_marker, marker) == 0)
      st = hudi_err_set(err, HUDI_ERR_CORRUPT, "list of %s: NextMarker did not advance", what);
    hudi_free(marker);
    marker = next_marker;
    if (!marker) break;
  }
  hudi_free(marker);
  hudi_buf_free(&q);
  hudi_buf_free(&body);
  return st;
}

typedef struct list_ctx {
  size_t strip; /* bytes of base prefix + '/' to drop */
  unsigned flags;
  hudi_file_list *out;
} list_ctx;

static hudi_status list_cb(void *ctx, const char *name, size_t name_len, uint64_t size, int64_t mtime,
                           bool is_prefix, hudi_error *err) {
  list_ctx *l = ctx;
  if (name_len <= l->strip) return HUDI_OK;
  const char *rel = name + l->strip;
  size_t n = name_len - l->strip;
  if (rel[n - 1] == '/') {
    if (!is_prefix) return HUDI_OK; /* a "folder" marker blob, not a file */
    n--;
  }
  if (n == 0) return HUDI_OK;
  const char *last = rel;
  for (size_t i = 0; i < n; i++)
    if (rel[i] == '/') last = rel + i + 1;
  if (!(l->flags & HUDI_LIST_INCLUDE_TEMP) && !is_prefix && hudi_storage_is_temp_name(last)) return HUDI_OK;
  return hudi_file_list_push(l->out, rel, n, size, mtime, is_prefix, err);
}

static hudi_status az_list(hudi_storage *base, const char *dir, unsigned flags, hudi_file_list *out,
                           hudi_error *err) {
  az_store *s = (az_store *)base;
  char *blob;
  HUDI_TRY(full_key(&blob, s, dir, err));
  size_t n = strlen(blob) + 2;
  char *prefix = hudi_malloc(n);
  if (!prefix) {
    hudi_free(blob);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  }
  snprintf(prefix, n, "%s%s", blob, blob[0] ? "/" : "");
  list_ctx l = {s->prefix[0] ? strlen(s->prefix) + 1 : 0, flags, out};
  hudi_status st = list_prefix(s, prefix, !(flags & HUDI_LIST_RECURSIVE), UINT64_MAX,
                               (list_entry_cb){list_cb, &l}, err);
  hudi_free(prefix);
  hudi_free(blob);
  return st;
}

/* ---- writes ---------------------------------------------------------- */

/* A 412/409 after a retried conditional write may be our own first
 * attempt, which reached the service before its connection broke: the blob
 * then holds our bytes exactly. */
static hudi_status is_our_blob(az_store *s, const char *path, const void *data, size_t len, bool *ours,
                               hudi_error *err) {
  hudi_buf b;
  hudi_buf_init(&b, len + 1);
  *ours = false;
  hudi_status st = az_read_all(&s->base, path, len + 1, &b, err);
  if (st == HUDI_OK) *ours = b.len == len && (len == 0 || memcmp(b.data, data, len) == 0);
  else if (st == HUDI_ERR_LIMIT || st == HUDI_ERR_NOT_FOUND) st = HUDI_OK;
  hudi_buf_free(&b);
  return st;
}

/* Maps a failed conditional or plain write; 2xx is success. */
static hudi_status finish_write(az_store *s, const char *op, const char *what, const char *path,
                                const void *data, size_t len, bool if_absent,
                                const hudi_http_response *r, hudi_error *err) {
  if (r->status == 201 || r->status == 200) return HUDI_OK;
  hudi_status st = az_error(err, op, what, r);
  if (st == HUDI_ERR_EXISTS && if_absent && r->attempts > 1) {
    bool ours;
    hudi_error inner = HUDI_ERROR_INIT;
    if (is_our_blob(s, path, data, len, &ours, &inner) == HUDI_OK && ours) return HUDI_OK;
  }
  if (st == HUDI_ERR_EXISTS) st = hudi_err_context(err, st, "write-if-absent");
  return st;
}

static hudi_status put_blob(az_store *s, const char *path, const char *blob, const void *data, size_t len,
                            bool if_absent, hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  az_call c;
  HUDI_TRY(call_init(&c, s, "PUT", blob, NULL, data, len, err));
  hudi_status st = hudi_http_add_header(&c.req, "x-ms-blob-type", "BlockBlob", err);
  if (st == HUDI_OK && if_absent) st = hudi_http_add_header(&c.req, "If-None-Match", "*", err);
  hudi_http_response r;
  if (st == HUDI_OK) st = send_call(&c, &r, what, err);
  call_free(&c);
  HUDI_TRY(st);
  return finish_write(s, "Put Blob", what, path, data, len, if_absent, &r, err);
}

static _Atomic uint64_t g_block_seq;

static hudi_status put_blocks(az_store *s, const char *path, const char *blob, const uint8_t *data,
                              size_t len, bool if_absent, hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  size_t bs = (size_t)s->block_size, n_blocks = (len + bs - 1) / bs;
  if (n_blocks > MAX_BLOCKS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "write of %s: %zu bytes need %zu blocks of %zu, over %d", what,
                        len, n_blocks, bs, MAX_BLOCKS);
  /* Ids unique to this write (all of one length, as the service requires):
   * racing writers of the same blob must never commit each other's blocks. */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t nonce = ((uint64_t)ts.tv_sec * 1000000007u) ^ (uint64_t)ts.tv_nsec ^
                   ((uint64_t)getpid() << 40) ^ (atomic_fetch_add(&g_block_seq, 1) << 20);
  hudi_buf q, list;
  hudi_buf_init(&q, 1 << 16);
  hudi_buf_init(&list, (size_t)64 << 20);
  hudi_status st = hudi_buf_append_str(&list, "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>", err);
  for (size_t i = 0; i < n_blocks && st == HUDI_OK; i++) {
    char raw[40], *id = NULL;
    snprintf(raw, sizeof raw, "%016llx-%08zu", (unsigned long long)nonce, i);
    st = hudi_sharedkey_base64_encode(&id, raw, strlen(raw), err);
    hudi_buf_reset(&q);
    if (st == HUDI_OK) st = hudi_buf_append_str(&q, "comp=block&blockid=", err);
    if (st == HUDI_OK) st = hudi_objstore_encode(&q, id, strlen(id), false, err);
    if (st == HUDI_OK) st = hudi_buf_append_byte(&q, '\0', err);
    if (st == HUDI_OK) st = hudi_buf_printf(&list, err, "<Latest>%s</Latest>", id);
    hudi_free(id);
    size_t off = i * bs, n = len - off < bs ? len - off : bs;
    az_call c;
    if (st == HUDI_OK) st = call_init(&c, s, "PUT", blob, (const char *)q.data, data + off, n, err);
    if (st != HUDI_OK) break;
    hudi_http_response r;
    st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK && r.status != 201) st = az_error(err, "Put Block", what, &r);
  }
  if (st == HUDI_OK) st = hudi_buf_append_str(&list, "</BlockList>", err);
  az_call c;
  if (st == HUDI_OK) st = call_init(&c, s, "PUT", blob, "comp=blocklist", list.data, list.len, err);
  if (st == HUDI_OK) {
    st = hudi_http_add_header(&c.req, "Content-Type", "application/xml", err);
    if (st == HUDI_OK && if_absent) st = hudi_http_add_header(&c.req, "If-None-Match", "*", err);
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK) st = finish_write(s, "Put Block List", what, path, data, len, if_absent, &r, err);
  }
  /* Uncommitted blocks of a failed write are discarded by the service. */
  hudi_buf_free(&q);
  hudi_buf_free(&list);
  return st;
}

static hudi_status az_write(hudi_storage *base, const char *path, const void *data, size_t len,
                            unsigned flags, hudi_error *err) {
  az_store *s = (az_store *)base;
  char *blob;
  HUDI_TRY(full_key(&blob, s, path, err));
  bool if_absent = flags & HUDI_WRITE_IF_ABSENT;
  hudi_status st = len > s->block_threshold ? put_blocks(s, path, blob, data, len, if_absent, err)
                                            : put_blob(s, path, blob, data, len, if_absent, err);
  hudi_free(blob);
  return st;
}

/* ---- delete ---------------------------------------------------------- */

static hudi_status delete_blob(az_store *s, const char *blob, hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  az_call c;
  HUDI_TRY(call_init(&c, s, "DELETE", blob, NULL, NULL, 0, err));
  /* A blob with snapshots cannot be deleted alone. */
  hudi_status st = hudi_http_add_header(&c.req, "x-ms-delete-snapshots", "include", err);
  hudi_http_response r;
  if (st == HUDI_OK) st = send_call(&c, &r, what, err);
  call_free(&c);
  HUDI_TRY(st);
  if (r.status == 202 || r.status == 200 || r.status == 204 || r.status == 404) return HUDI_OK;
  return az_error(err, "Delete Blob", what, &r);
}

/* Deletes every blob under blob + "/". *any: whether there was one. */
static hudi_status delete_tree(az_store *s, const char *blob, bool *any, hudi_error *err) {
  size_t n = strlen(blob) + 2;
  char *p = hudi_malloc(n);
  if (!p) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  snprintf(p, n, "%s/", blob);
  /* List fully first: deleting while paging would shift the pages. */
  hudi_file_list names = HUDI_FILE_LIST_INIT;
  list_ctx l = {0, HUDI_LIST_RECURSIVE | HUDI_LIST_INCLUDE_TEMP, &names};
  hudi_status st = list_prefix(s, p, false, UINT64_MAX, (list_entry_cb){list_cb, &l}, err);
  *any = names.count > 0;
  for (size_t i = 0; i < names.count && st == HUDI_OK; i++) st = delete_blob(s, names.items[i].path, err);
  hudi_file_list_free(&names);
  hudi_free(p);
  return st;
}

static hudi_status az_remove(hudi_storage *base, const char *path, unsigned flags, hudi_error *err) {
  az_store *s = (az_store *)base;
  char *blob;
  HUDI_TRY(full_key(&blob, s, path, err));
  char what[WHAT_MAX];
  describe(what, sizeof what, s, blob);
  bool found;
  hudi_status st = head_blob(s, blob, &found, NULL, NULL, NULL, err);
  if (st == HUDI_OK && found) st = delete_blob(s, blob, err);
  if (st == HUDI_OK && (flags & HUDI_DELETE_RECURSIVE)) {
    bool any = false;
    st = delete_tree(s, blob, &any, err);
    found = found || any;
  } else if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, blob, &dir, err);
    if (st == HUDI_OK && dir)
      st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "delete of %s: is a prefix with blobs under it (use HUDI_DELETE_RECURSIVE)", what);
  }
  if (st == HUDI_OK && !found && !(flags & HUDI_DELETE_MISSING_OK))
    st = hudi_err_set(err, HUDI_ERR_NOT_FOUND, "delete of %s: no such blob", what);
  hudi_free(blob);
  return st;
}

/* ---- rename ---------------------------------------------------------- */

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Waits until the copy onto to_blob leaves "pending". */
static hudi_status wait_copy(az_store *s, const char *to_blob, const char *what, hudi_error *err) {
  long waited = 0, step = 50;
  for (;;) {
    bool found;
    char status[32] = "";
    HUDI_TRY(head_blob(s, to_blob, &found, NULL, NULL, status, err));
    if (!found) return hudi_err_set(err, HUDI_ERR_IO, "Copy Blob onto %s: the destination vanished", what);
    if (strcmp(status, "success") == 0 || status[0] == '\0') return HUDI_OK;
    if (strcmp(status, "pending") != 0)
      return hudi_err_set(err, HUDI_ERR_IO, "Copy Blob onto %s: copy status '%s'", what, status);
    if (waited >= COPY_WAIT_MS)
      return hudi_err_set(err, HUDI_ERR_IO, "Copy Blob onto %s: still pending after %ld ms", what, waited);
    sleep_ms(step);
    waited += step;
    if (step < 2000) step *= 2;
  }
}

static hudi_status copy_blob(az_store *s, const char *from_blob, const char *to_blob, bool if_absent,
                             hudi_error *err) {
  char what[WHAT_MAX];
  describe(what, sizeof what, s, to_blob);
  hudi_buf src;
  hudi_buf_init(&src, 1 << 16);
  hudi_status st = hudi_buf_append_str(&src, s->scheme_host, err);
  if (st == HUDI_OK) st = append_path(&src, s, from_blob, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&src, '\0', err);
  az_call c;
  if (st == HUDI_OK) st = call_init(&c, s, "PUT", to_blob, NULL, NULL, 0, err);
  if (st == HUDI_OK) {
    st = hudi_http_add_header(&c.req, "x-ms-copy-source", (const char *)src.data, err);
    if (st == HUDI_OK && if_absent) st = hudi_http_add_header(&c.req, "If-None-Match", "*", err);
    c.req.capture_header = "x-ms-copy-status";
    hudi_http_response r;
    if (st == HUDI_OK) st = send_call(&c, &r, what, err);
    call_free(&c);
    if (st == HUDI_OK && r.status != 202 && r.status != 201 && r.status != 200) {
      st = az_error(err, "Copy Blob", what, &r);
      if (st == HUDI_ERR_EXISTS) st = hudi_err_context(err, st, "rename without replace");
    }
    if (st == HUDI_OK && strcmp(r.captured, "pending") == 0) st = wait_copy(s, to_blob, what, err);
    else if (st == HUDI_OK && r.captured[0] && strcmp(r.captured, "success") != 0)
      st = hudi_err_set(err, HUDI_ERR_IO, "Copy Blob onto %s: copy status '%s'", what, r.captured);
  }
  hudi_buf_free(&src);
  return st;
}

static hudi_status az_rename(hudi_storage *base, const char *from, const char *to, unsigned flags,
                             hudi_error *err) {
  az_store *s = (az_store *)base;
  char *fb, *tb;
  HUDI_TRY(full_key(&fb, s, from, err));
  hudi_status st = full_key(&tb, s, to, err);
  if (st != HUDI_OK) {
    hudi_free(fb);
    return st;
  }
  char what[WHAT_MAX];
  describe(what, sizeof what, s, fb);
  bool found;
  st = head_blob(s, fb, &found, NULL, NULL, NULL, err);
  if (st == HUDI_OK && !found) {
    bool dir = false;
    st = has_children(s, fb, &dir, err);
    if (st == HUDI_OK)
      st = dir ? hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                              "rename of %s: prefixes cannot be renamed on object stores", what)
               : hudi_err_set(err, HUDI_ERR_NOT_FOUND, "rename of %s: no such blob", what);
  }
  if (st == HUDI_OK) st = copy_blob(s, fb, tb, flags & HUDI_RENAME_NO_REPLACE, err);
  if (st == HUDI_OK) st = delete_blob(s, fb, err);
  hudi_free(fb);
  hudi_free(tb);
  return st;
}

/* ---- open / close ---------------------------------------------------- */

static void az_destroy(hudi_storage *base) {
  az_store *s = (az_store *)base;
  hudi_http_client_free(s->http);
  hudi_free(s->base.base);
  hudi_free(s->account);
  hudi_free(s->container);
  hudi_free(s->prefix);
  hudi_free(s->scheme_host);
  hudi_free(s->service_path);
  if (s->key) {
    memset(s->key, 0, s->key_len);
    hudi_free(s->key);
  }
  hudi_free(s);
}

static const hudi_storage_vtable k_az_vtable = {
    "azure", az_read, az_read_all, az_stat, az_write, az_rename, az_list, az_remove, az_destroy,
    NULL,    NULL,    NULL, /* no held files: each read is a ranged GET */
    NULL,                   /* a PUT is durable when it returns */
    NULL,                   /* no directories */
    NULL,                   /* the server stamps an object's Last-Modified */
};

/* A parsed connection string; values point into a copy owned by buf. */
typedef struct conn_str {
  char *buf;
  const char *account, *key, *blob_endpoint, *protocol, *suffix;
  bool dev;
} conn_str;

static hudi_status parse_conn_str(conn_str *cs, const char *text, hudi_error *err) {
  memset(cs, 0, sizeof *cs);
  if (!text) return HUDI_OK;
  cs->buf = hudi_strdup(text);
  if (!cs->buf) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  for (char *p = cs->buf; p && *p;) {
    char *semi = strchr(p, ';');
    if (semi) *semi = '\0';
    char *eq = strchr(p, '=');
    if (eq) {
      *eq = '\0';
      const char *k = p, *v = eq + 1;
      if (strcasecmp(k, "AccountName") == 0) cs->account = v;
      else if (strcasecmp(k, "AccountKey") == 0) cs->key = v;
      else if (strcasecmp(k, "BlobEndpoint") == 0) cs->blob_endpoint = v;
      else if (strcasecmp(k, "DefaultEndpointsProtocol") == 0) cs->protocol = v;
      else if (strcasecmp(k, "EndpointSuffix") == 0) cs->suffix = v;
      else if (strcasecmp(k, "UseDevelopmentStorage") == 0) cs->dev = strcasecmp(v, "true") == 0;
    } else if (*p) {
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "connection string: '%s' is not Key=Value", p);
    }
    p = semi ? semi + 1 : NULL;
  }
  return HUDI_OK;
}

static hudi_status dup_to(char **dst, const char *v, hudi_error *err) {
  *dst = hudi_strdup(v);
  return *dst ? HUDI_OK : hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
}

/* Splits the service URL "http[s]://host[:port][/path]" into scheme_host
 * and service_path (no trailing '/'). */
static hudi_status set_service(az_store *s, const char *url, bool allow_http, hudi_error *err) {
  bool http = strncasecmp(url, "http://", 7) == 0;
  if (!http && strncasecmp(url, "https://", 8) != 0)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "endpoint '%s' is not an http(s):// URL", url);
  if (http && !allow_http)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                        "endpoint '%s' is plain http; set azure_allow_http=true to allow it", url);
  const char *h = url + (http ? 7 : 8);
  size_t hl = strcspn(h, "/?#");
  if (hl == 0 || hl > 255) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "endpoint '%s' has no host", url);
  const char *path = h + hl;
  size_t pl = strcspn(path, "?#");
  while (pl && path[pl - 1] == '/') pl--;
  s->scheme_host = hudi_strndup(url, (size_t)(h + hl - url));
  s->service_path = hudi_strndup(path, pl);
  if (!s->scheme_host || !s->service_path) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  return HUDI_OK;
}

/* The container, prefix and (abfs[s]://container@account.host/) host. */
static hudi_status parse_az_uri(az_store *s, const char *uri, char **host, hudi_error *err) {
  *host = NULL;
  const char *p = strstr(uri, "://");
  if (!p) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s' is not a scheme://container/path URI", uri);
  p += 3;
  size_t auth_len = strcspn(p, "/");
  const char *at = memchr(p, '@', auth_len);
  size_t n = strlen(uri) + 8;
  char *plain = hudi_malloc(n);
  if (!plain) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
  if (at) {
    snprintf(plain, n, "az://%.*s%s", (int)(at - p), p, p + auth_len);
    *host = hudi_strndup(at + 1, (size_t)(p + auth_len - at - 1));
    if (!*host || !**host) {
      hudi_free(plain);
      hudi_free(*host);
      *host = NULL;
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "'%s': no account host after '@'", uri);
    }
  } else {
    snprintf(plain, n, "az://%s", p);
  }
  hudi_status st = hudi_objstore_parse_uri(plain, &s->container, &s->prefix, err);
  hudi_free(plain);
  if (st != HUDI_OK) {
    hudi_free(*host);
    *host = NULL;
  }
  return st;
}

static hudi_status configure(az_store *s, const char *host, const hudi_storage_option *o, size_t n,
                             hudi_error *err) {
  static const char *const k_account[] = {"azure_storage_account_name", "account_name", NULL};
  static const char *const e_account[] = {"AZURE_STORAGE_ACCOUNT_NAME", NULL};
  static const char *const k_key[] = {"azure_storage_account_key", "azure_storage_access_key",
                                      "account_key", "access_key", NULL};
  static const char *const e_key[] = {"AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCESS_KEY", NULL};
  static const char *const k_conn[] = {"azure_storage_connection_string", "connection_string", NULL};
  static const char *const e_conn[] = {"AZURE_STORAGE_CONNECTION_STRING", NULL};
  static const char *const k_endpoint[] = {"azure_storage_endpoint", "azure_endpoint", "endpoint", NULL};
  static const char *const e_endpoint[] = {"AZURE_STORAGE_ENDPOINT", NULL};
  static const char *const e_azurite[] = {"AZURITE_BLOB_STORAGE_URL", NULL};
  static const char *const k_emu[] = {"azure_storage_use_emulator", "use_emulator", NULL};
  static const char *const e_emu[] = {"AZURE_STORAGE_USE_EMULATOR", NULL};
  static const char *const k_http[] = {"azure_allow_http", "allow_http", NULL};
  static const char *const e_http[] = {"AZURE_ALLOW_HTTP", NULL};
  static const char *const k_skip[] = {"azure_skip_signature", "skip_signature", NULL};
  static const char *const k_thresh[] = {"multipart_threshold", NULL};
  static const char *const k_part[] = {"multipart_part_size", NULL};
  static const char *const k_keys[] = {"list_max_keys", NULL};

  conn_str cs;
  hudi_status st = parse_conn_str(&cs, hudi_objstore_setting(o, n, k_conn, e_conn), err);
  if (st != HUDI_OK) {
    hudi_free(cs.buf);
    return hudi_err_context(err, st, "azure_storage_connection_string");
  }
  bool emulator = false, allow_http = false;
  st = hudi_objstore_setting_bool(o, n, k_emu, e_emu, cs.dev, &emulator, err);
  if (st == HUDI_OK) st = hudi_objstore_setting_bool(o, n, k_http, e_http, false, &allow_http, err);
  if (st == HUDI_OK) st = hudi_objstore_setting_bool(o, n, k_skip, NULL, false, &s->skip_signature, err);
  const char *account = hudi_objstore_setting(o, n, k_account, e_account);
  const char *key = hudi_objstore_setting(o, n, k_key, e_key);
  char host_account[64] = "";
  if (host) snprintf(host_account, sizeof host_account, "%.*s", (int)strcspn(host, ".:"), host);
  if (host_account[0]) account = host_account; /* the URI names it */
  if (!account) account = cs.account;
  if (!key) key = cs.key;
  if (emulator && !account) account = HUDI_AZURITE_ACCOUNT;
  if (emulator && !key && strcmp(account, HUDI_AZURITE_ACCOUNT) == 0) key = HUDI_AZURITE_KEY;
  if (st == HUDI_OK && !account)
    st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "no Azure storage account: set azure_storage_account_name (or "
                      "AZURE_STORAGE_ACCOUNT_NAME, a connection string, or an "
                      "abfss://container@account.dfs.core.windows.net/ URI)");
  if (st == HUDI_OK && !key && !s->skip_signature)
    st = hudi_err_set(err, HUDI_ERR_INVALID_ARG,
                      "no Azure account key for '%s': set azure_storage_account_key (or "
                      "AZURE_STORAGE_ACCOUNT_KEY, or a connection string), or azure_skip_signature=true",
                      account);
  if (st == HUDI_OK) st = dup_to(&s->account, account, err);
  if (st == HUDI_OK && key) st = hudi_sharedkey_base64_decode(&s->key, &s->key_len, key, err);
  /* The service URL. */
  const char *endpoint = hudi_objstore_setting(o, n, k_endpoint, e_endpoint);
  char url[1024];
  if (st == HUDI_OK && emulator) {
    const char *b = endpoint ? endpoint : hudi_objstore_setting(NULL, 0, NULL, e_azurite);
    if (!b) b = cs.blob_endpoint ? cs.blob_endpoint : "http://127.0.0.1:10000";
    size_t bl = strlen(b), al = strlen(account);
    while (bl && b[bl - 1] == '/') bl--;
    bool has_account = bl > al && b[bl - al - 1] == '/' && memcmp(b + bl - al, account, al) == 0;
    snprintf(url, sizeof url, "%.*s%s%s", (int)bl, b, has_account ? "" : "/", has_account ? "" : account);
    st = set_service(s, url, true, err);
  } else if (st == HUDI_OK && endpoint) {
    st = set_service(s, endpoint, allow_http, err);
  } else if (st == HUDI_OK && cs.blob_endpoint) {
    st = set_service(s, cs.blob_endpoint, true, err); /* written out by the user */
  } else if (st == HUDI_OK) {
    const char *proto = cs.protocol ? cs.protocol : "https";
    if (host && strstr(host, ".dfs.")) { /* the DFS host's Blob twin */
      const char *d = strstr(host, ".dfs.");
      snprintf(url, sizeof url, "%s://%.*s.blob.%s", proto, (int)(d - host), host, d + 5);
    } else if (host && strchr(host, '.')) {
      snprintf(url, sizeof url, "%s://%s", proto, host);
    } else {
      snprintf(url, sizeof url, "%s://%s.blob.%s", proto, account, cs.suffix ? cs.suffix : "core.windows.net");
    }
    st = set_service(s, url, allow_http, err);
  }
  hudi_free(cs.buf);
  HUDI_TRY(st);
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_thresh, (uint64_t)64 << 20, 0, (uint64_t)5000 << 20,
                                     &s->block_threshold, err));
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_part, (uint64_t)16 << 20, 1, (uint64_t)4000 << 20,
                                     &s->block_size, err));
  HUDI_TRY(hudi_objstore_setting_u64(o, n, k_keys, 5000, 1, 5000, &s->list_max, err));
  return HUDI_OK;
}

hudi_status hudi_azure_storage_open(hudi_storage **out, const char *uri, const hudi_storage_option *options,
                                    size_t n_options, hudi_error *err) {
  *out = NULL;
  az_store *s = hudi_calloc(1, sizeof *s);
  if (!s) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory opening '%s'", uri);
  s->base.vtable = &k_az_vtable;
  char *host = NULL;
  hudi_status st = parse_az_uri(s, uri, &host, err);
  if (st == HUDI_OK) st = configure(s, host, options, n_options, err);
  hudi_http_config cfg;
  if (st == HUDI_OK) st = hudi_objstore_http_config(&cfg, options, n_options, err);
  if (st == HUDI_OK) st = hudi_http_client_new(&s->http, &cfg, err);
  if (st == HUDI_OK) {
    const char *scheme_end = strstr(uri, "://");
    size_t n = (size_t)(scheme_end - uri) + strlen(s->container) + strlen(s->prefix) +
               (host ? strlen(host) : 0) + 8;
    s->base.base = hudi_malloc(n);
    if (!s->base.base) st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    else
      snprintf(s->base.base, n, "%.*s://%s%s%s%s%s", (int)(scheme_end - uri), uri, s->container,
               host ? "@" : "", host ? host : "", s->prefix[0] ? "/" : "", s->prefix);
  }
  hudi_free(host);
  if (st == HUDI_OK) st = hudi_objcache_enable(&s->base, options, n_options, err);
  if (st == HUDI_OK) st = hudi_readahead_enable(&s->base, options, n_options, err); /* last: may allocate */
  if (st != HUDI_OK) {
    hudi_objcache_free(s->base.objcache); /* readahead_enable, last, failed */
    az_destroy(&s->base);
    return hudi_err_context(err, st, "opening '%s'", uri);
  }
  *out = &s->base;
  return HUDI_OK;
}
