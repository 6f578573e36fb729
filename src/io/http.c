/* HTTP over libcurl with a per-client handle pool, a shared connection
 * cache and bounded retries. */
#include "io/http.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "base/alloc.h"

#define POOL_MAX 32

struct hudi_http_client {
  hudi_http_config cfg;
  CURLSH *share;
  pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
  pthread_mutex_t pool_lock;
  CURL *pool[POOL_MAX];
  size_t n_pool;
  _Atomic uint64_t attempts, retries, connects;
  _Atomic uint64_t jitter_state;
  char *trace_path; /* HUDI_OBJSTORE_TRACE at creation, or NULL */
};

/* One line per attempt, "METHOD STATUS /path?query DOWN UP", appended to
 * the file HUDI_OBJSTORE_TRACE names (tests and bench/objstore count
 * requests and bytes by kind with it): DOWN the body bytes received
 * (curl's count, so a ranged GET's range, or what arrived before a
 * transfer failed or was stopped), UP the body bytes sent. The path is
 * percent-encoded, so it holds no space. O_APPEND keeps lines from threads
 * and processes whole. */
static pthread_mutex_t g_trace_lock = PTHREAD_MUTEX_INITIALIZER;

static void trace_attempt(const hudi_http_client *c, CURL *h, const hudi_http_request *req, long status,
                          CURLcode rc) {
  if (!c->trace_path) return;
  curl_off_t down = 0;
  if (curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &down) != CURLE_OK || down < 0) down = 0;
  const char *path = strstr(req->url, "://");
  path = path ? strchr(path + 3, '/') : NULL;
  pthread_mutex_lock(&g_trace_lock);
  FILE *f = fopen(c->trace_path, "a");
  if (f) {
    fprintf(f, "%s %ld %s %lld %zu\n", req->method, rc == CURLE_OK ? status : -(long)rc, path ? path : "/",
            (long long)down, req->body ? req->body_len : (size_t)0);
    fclose(f);
  }
  pthread_mutex_unlock(&g_trace_lock);
}

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static CURLcode g_curl_init_rc;

static void curl_init_once(void) { g_curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ctx) {
  (void)h;
  (void)access;
  hudi_http_client *c = ctx;
  pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ctx) {
  (void)h;
  hudi_http_client *c = ctx;
  pthread_mutex_unlock(&c->share_locks[data]);
}

hudi_status hudi_http_client_new(hudi_http_client **out, const hudi_http_config *cfg,
                                 hudi_error *err) {
  *out = NULL;
  pthread_once(&g_curl_once, curl_init_once);
  if (g_curl_init_rc != CURLE_OK)
    return hudi_err_set(err, HUDI_ERR_IO, "libcurl failed to initialise: %s",
                        curl_easy_strerror(g_curl_init_rc));
  hudi_http_client *c = hudi_calloc(1, sizeof *c);
  if (!c) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating an HTTP client");
  hudi_http_config dflt = HUDI_HTTP_CONFIG_DEFAULT;
  c->cfg = cfg ? *cfg : dflt;
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->share_locks[i], NULL);
  pthread_mutex_init(&c->pool_lock, NULL);
  c->jitter_state = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)c;
  const char *trace = getenv("HUDI_OBJSTORE_TRACE");
  if (trace && trace[0] && !(c->trace_path = hudi_strdup(trace))) {
    hudi_http_client_free(c);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating an HTTP client");
  }
  c->share = curl_share_init();
  if (!c->share) {
    hudi_http_client_free(c);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating a curl share");
  }
  curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
  curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
  curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
  curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  *out = c;
  return HUDI_OK;
}

void hudi_http_client_free(hudi_http_client *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n_pool; i++) curl_easy_cleanup(c->pool[i]);
  if (c->share) curl_share_cleanup(c->share);
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->share_locks[i]);
  pthread_mutex_destroy(&c->pool_lock);
  hudi_free(c->trace_path);
  hudi_free(c);
}

void hudi_http_client_stats(hudi_http_client *c, hudi_http_stats *out) {
  out->attempts = c->attempts;
  out->retries = c->retries;
  out->connects = c->connects;
}

static CURL *take_handle(hudi_http_client *c) {
  CURL *h = NULL;
  pthread_mutex_lock(&c->pool_lock);
  if (c->n_pool) h = c->pool[--c->n_pool];
  pthread_mutex_unlock(&c->pool_lock);
  if (h) {
    curl_easy_reset(h); /* keeps its live connections */
    return h;
  }
  return curl_easy_init();
}

static void give_handle(hudi_http_client *c, CURL *h) {
  pthread_mutex_lock(&c->pool_lock);
  if (c->n_pool < POOL_MAX) {
    c->pool[c->n_pool++] = h;
    h = NULL;
  }
  pthread_mutex_unlock(&c->pool_lock);
  if (h) curl_easy_cleanup(h);
}

hudi_status hudi_http_add_header(hudi_http_request *req, const char *name, const char *value,
                                 hudi_error *err) {
  for (size_t i = 0; i < req->n_headers; i++)
    if (strcasecmp(req->headers[i].name, name) == 0) {
      req->headers[i].value = value;
      return HUDI_OK;
    }
  if (req->n_headers == HUDI_HTTP_MAX_HEADERS)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "too many HTTP headers on %s %s", req->method, req->url);
  req->headers[req->n_headers++] = (hudi_http_header){name, value};
  return HUDI_OK;
}

/* ---- one attempt ---------------------------------------------------- */

typedef struct transfer {
  CURL *h;
  hudi_http_request *req;
  hudi_http_response *resp;
  size_t out_start; /* req->out->len before the attempt */
  uint64_t skipped;
  size_t err_len;
  bool limit_hit;
  bool done_early; /* dst filled from a 200 that ignored Range */
  hudi_error limit_err;
} transfer;

static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx) {
  transfer *t = ctx;
  size_t n = size * nmemb, all = n;
  long status = 0;
  curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status >= 300) {
    size_t room = sizeof t->resp->error_body - 1 - t->err_len;
    size_t k = n < room ? n : room;
    memcpy(t->resp->error_body + t->err_len, p, k);
    t->err_len += k;
    t->resp->error_body[t->err_len] = '\0';
    return all;
  }
  hudi_http_request *r = t->req;
  bool whole = status == 200 && r->dst;
  if (whole && t->skipped < r->range_offset) {
    uint64_t k = r->range_offset - t->skipped;
    if (k > n) k = n;
    t->skipped += k;
    p += k;
    n -= (size_t)k;
  }
  if (r->dst) {
    size_t room = r->dst_cap - t->resp->n_body;
    if (n > room) {
      memcpy((char *)r->dst + t->resp->n_body, p, room);
      t->resp->n_body += room;
      if (whole) t->done_early = true;
      else t->limit_hit = true;
      return 0;
    }
    memcpy((char *)r->dst + t->resp->n_body, p, n);
  } else if (r->out) {
    if (hudi_buf_append(r->out, p, n, &t->limit_err) != HUDI_OK) {
      t->limit_hit = true;
      return 0;
    }
  }
  t->resp->n_body += n;
  return all;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ctx) {
  transfer *t = ctx;
  size_t n = size * nmemb;
  if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
    t->resp->etag[0] = t->resp->error_code[0] = t->resp->captured[0] = '\0';
    t->resp->last_modified_ms = -1;
    return n;
  }
  const char *colon = memchr(p, ':', n);
  if (!colon) return n;
  size_t name_len = (size_t)(colon - p);
  const char *v = colon + 1, *end = p + n;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
  size_t vlen = (size_t)(end - v);
  char value[256];
  if (vlen >= sizeof value) return n;
  memcpy(value, v, vlen);
  value[vlen] = '\0';
  if (name_len == 4 && strncasecmp(p, "etag", 4) == 0) {
    if (vlen < sizeof t->resp->etag) memcpy(t->resp->etag, value, vlen + 1);
  } else if (name_len == 13 && strncasecmp(p, "last-modified", 13) == 0) {
    time_t tm = curl_getdate(value, NULL);
    if (tm != -1) t->resp->last_modified_ms = (int64_t)tm * 1000;
  } else if (name_len == 15 && strncasecmp(p, "x-ms-error-code", 15) == 0) {
    if (vlen < sizeof t->resp->error_code) memcpy(t->resp->error_code, value, vlen + 1);
  }
  const char *want = t->req->capture_header;
  if (want && strlen(want) == name_len && strncasecmp(p, want, name_len) == 0 &&
      vlen < sizeof t->resp->captured)
    memcpy(t->resp->captured, value, vlen + 1);
  return n;
}

static bool retryable_curl(CURLcode rc) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

static bool retryable_status(long status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 ||
         status == 504;
}

static struct curl_slist *build_slist(const hudi_http_request *req, bool *ok) {
  struct curl_slist *list = NULL;
  char line[8192];
  bool has_ct = false;
  *ok = true;
  for (size_t i = 0; i < req->n_headers && *ok; i++) {
    if (strcasecmp(req->headers[i].name, "content-type") == 0) has_ct = true;
    int n = snprintf(line, sizeof line, "%s: %s", req->headers[i].name, req->headers[i].value);
    struct curl_slist *next = n > 0 && (size_t)n < sizeof line ? curl_slist_append(list, line) : NULL;
    if (!next) *ok = false;
    else list = next;
  }
  /* No 100-continue round trip; no form content type on PUTs. */
  const char *extra[] = {"Expect:", has_ct ? NULL : "Content-Type: application/octet-stream"};
  for (size_t i = 0; i < 2 && *ok; i++) {
    if (!extra[i]) continue;
    struct curl_slist *next = curl_slist_append(list, extra[i]);
    if (!next) *ok = false;
    else list = next;
  }
  return list;
}

static void setup_handle(hudi_http_client *c, transfer *t, struct curl_slist *slist, char *errbuf) {
  CURL *h = t->h;
  hudi_http_request *r = t->req;
  curl_easy_setopt(h, CURLOPT_URL, r->url);
  curl_easy_setopt(h, CURLOPT_SHARE, c->share);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->cfg.connect_timeout_ms);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->cfg.request_timeout_ms);
  if (c->cfg.low_speed_secs > 0) {
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, c->cfg.low_speed_bytes);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c->cfg.low_speed_secs);
  }
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, slist);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, t);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  if (strcmp(r->method, "HEAD") == 0) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (strcmp(r->method, "GET") == 0 && !r->body_len) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
    if (strcmp(r->method, "DELETE") != 0 || r->body_len) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, r->body ? r->body : "");
    }
  }
}

static hudi_status one_attempt(hudi_http_client *c, hudi_http_request *req, hudi_http_response *resp,
                               CURLcode *rc_out, char *errbuf, hudi_error *err) {
  if (req->sign) HUDI_TRY(req->sign(req->sign_ctx, req, err));
  bool ok;
  struct curl_slist *slist = build_slist(req, &ok);
  if (!ok) {
    curl_slist_free_all(slist);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory building headers for %s", req->url);
  }
  CURL *h = take_handle(c);
  if (!h) {
    curl_slist_free_all(slist);
    return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory creating a curl handle");
  }
  transfer t = {.h = h, .req = req, .resp = resp, .limit_err = HUDI_ERROR_INIT};
  t.out_start = req->out ? req->out->len : 0;
  resp->status = 0;
  resp->n_body = 0;
  resp->content_length = -1;
  resp->last_modified_ms = -1;
  resp->etag[0] = resp->error_body[0] = resp->error_code[0] = resp->captured[0] = '\0';
  errbuf[0] = '\0';
  setup_handle(c, &t, slist, errbuf);
  c->attempts++;
  CURLcode rc = curl_easy_perform(h);
  long connects = 0;
  curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
  c->connects += (uint64_t)connects;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
  curl_off_t cl = -1;
  if (curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK) resp->content_length = cl;
  trace_attempt(c, h, req, resp->status, rc);
  if (rc == CURLE_WRITE_ERROR && t.done_early) {
    rc = CURLE_OK; /* we stopped it on purpose; the connection is dropped */
    curl_easy_cleanup(h);
    h = NULL;
  }
  if (h) {
    curl_easy_setopt(h, CURLOPT_SHARE, NULL);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
  }
  curl_slist_free_all(slist);
  /* A failed transfer's handle may hold a broken connection: drop it. */
  if (h && rc == CURLE_OK) give_handle(c, h);
  else if (h) curl_easy_cleanup(h);
  *rc_out = rc;
  if (t.limit_hit) {
    if (req->out) req->out->len = t.out_start;
    if (req->dst)
      return hudi_err_set(err, HUDI_ERR_LIMIT, "%s %s: the response is longer than the %zu bytes asked for",
                          req->method, req->url, req->dst_cap);
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s %s: response body over its cap: %s", req->method,
                        req->url, t.limit_err.message);
  }
  if ((rc != CURLE_OK || resp->status < 200 || resp->status >= 300) && req->out)
    req->out->len = t.out_start;
  return HUDI_OK;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* Full jitter: uniform in [delay/2, delay]. */
static long backoff_ms(hudi_http_client *c, int retry) {
  long d = c->cfg.retry_base_ms;
  for (int i = 0; i < retry && d < c->cfg.retry_max_ms; i++) d *= 2;
  if (d > c->cfg.retry_max_ms) d = c->cfg.retry_max_ms;
  uint64_t x = atomic_fetch_add(&c->jitter_state, 0x9E3779B97F4A7C15ull);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return d / 2 + (long)(x % (uint64_t)(d / 2 + 1));
}

hudi_status hudi_http_send(hudi_http_client *c, hudi_http_request *req, hudi_http_response *resp,
                           hudi_error *err) {
  memset(resp, 0, sizeof *resp);
  int64_t start = now_ms();
  char errbuf[CURL_ERROR_SIZE];
  hudi_status st = HUDI_OK;
  for (int attempt = 0;; attempt++) {
    CURLcode rc = CURLE_OK;
    st = one_attempt(c, req, resp, &rc, errbuf, err);
    resp->attempts = attempt + 1;
    if (st != HUDI_OK) break;
    bool retry = rc != CURLE_OK ? retryable_curl(rc) : retryable_status(resp->status);
    if (!retry || req->no_retry || attempt >= c->cfg.max_retries ||
        now_ms() - start >= c->cfg.retry_budget_ms) {
      if (rc != CURLE_OK)
        st = hudi_err_set(err, HUDI_ERR_IO, "%s %s failed after %d attempt%s: %s", req->method,
                          req->url, attempt + 1, attempt ? "s" : "",
                          errbuf[0] ? errbuf : curl_easy_strerror(rc));
      break;
    }
    long wait = backoff_ms(c, attempt);
    long left = c->cfg.retry_budget_ms - (long)(now_ms() - start);
    if (wait > left) wait = left > 0 ? left : 0;
    c->retries++;
    sleep_ms(wait);
  }
  for (size_t i = 0; i < sizeof req->owned / sizeof req->owned[0]; i++) {
    hudi_free(req->owned[i]);
    req->owned[i] = NULL;
  }
  return st;
}
