/* A small HTTP client over libcurl for the object-store backends.
 *
 * One hudi_http_client per storage handle: a pool of curl easy handles
 * (each keeps its connections alive) plus a curl share for DNS, TLS
 * sessions and the connection cache, so threads reuse connections. Safe to
 * use from many threads at once.
 *
 * hudi_http_send runs one request with retries: connection errors, timeouts,
 * truncated bodies and HTTP 408/429/500/502/503/504 are retried with
 * exponential backoff and full jitter, bounded both in attempts and in total
 * time. Before each attempt the request's sign callback is called, so the
 * signature (and its date) are fresh on every attempt.
 *
 * With the environment variable HUDI_OBJSTORE_TRACE set to a file path when
 * a client is created, every attempt appends "METHOD STATUS /path?query
 * DOWN UP" to that file (STATUS is -curlcode for a transport failure; DOWN
 * and UP the body bytes received and sent): how tests and bench/objstore
 * count the requests and bytes an operation makes. */
#ifndef HUDI_IO_HTTP_H
#define HUDI_IO_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "io/sigv4.h"

typedef struct hudi_http_client hudi_http_client;

typedef struct hudi_http_config {
  long connect_timeout_ms; /* per connection attempt */
  long request_timeout_ms; /* per attempt, whole transfer */
  int max_retries;         /* attempts = 1 + max_retries */
  long retry_base_ms;      /* first backoff; doubles each retry */
  long retry_max_ms;       /* one backoff never exceeds this */
  long retry_budget_ms;    /* no new attempt starts after this much time */
  long low_speed_bytes;    /* abort an attempt slower than this ... */
  long low_speed_secs;     /* ... for this long (0: off) */
} hudi_http_config;

#define HUDI_HTTP_CONFIG_DEFAULT {10000, 120000, 6, 100, 5000, 60000, 1, 30}

/* A request's headers, at most HUDI_HTTP_MAX_HEADERS. */
#define HUDI_HTTP_MAX_HEADERS 24

typedef struct hudi_http_request hudi_http_request;

/* Adds (or replaces) the signing headers on req before each attempt. */
typedef hudi_status (*hudi_http_sign_fn)(void *ctx, hudi_http_request *req, hudi_error *err);

struct hudi_http_request {
  const char *method;
  const char *url;           /* full URL, already percent-encoded */
  const char *canonical_uri; /* the encoded path part of url (for signing) */
  const char *query;         /* the encoded query part of url, or "" */
  hudi_http_header headers[HUDI_HTTP_MAX_HEADERS];
  size_t n_headers;
  char *owned[4]; /* header values the sign callback allocated (freed by the client) */
  const void *body;
  size_t body_len;
  /* Where a 2xx body goes: into dst (at most dst_cap bytes), else appended
   * to out (whose cap bounds it), else discarded. A ranged GET sets
   * range_offset: should the server ignore the Range header and answer 200
   * with the whole object, the bytes before it are skipped and the transfer
   * stops once dst is full. */
  void *dst;
  size_t dst_cap;
  uint64_t range_offset;
  hudi_buf *out;
  hudi_http_sign_fn sign;
  void *sign_ctx;
  bool no_retry; /* a request that must not be repeated */
  /* One more response header to keep (e.g. "x-ms-copy-status"), into
   * hudi_http_response.captured; NULL for none. */
  const char *capture_header;
};

typedef struct hudi_http_response {
  long status;
  size_t n_body;          /* bytes delivered to dst / out */
  int64_t content_length; /* -1 if unknown */
  int64_t last_modified_ms; /* -1 if none */
  int attempts;
  char etag[128];
  char error_code[128]; /* an "x-ms-error-code" header (Azure), else "" */
  char captured[256];   /* the request's capture_header, else "" */
  char error_body[4096]; /* the start of a non-2xx body (NUL-terminated) */
} hudi_http_response;

HUDI_NODISCARD hudi_status hudi_http_client_new(hudi_http_client **out, const hudi_http_config *cfg,
                                                hudi_error *err);
void hudi_http_client_free(hudi_http_client *c);

/* Adds a header; HUDI_ERR_LIMIT past HUDI_HTTP_MAX_HEADERS. */
HUDI_NODISCARD hudi_status hudi_http_add_header(hudi_http_request *req, const char *name,
                                                const char *value, hudi_error *err);

/* Sends req, retrying as described above. HUDI_OK means an HTTP response
 * arrived (any status: the caller maps statuses); a transport failure after
 * the last attempt is HUDI_ERR_IO naming the URL and curl's error. A body
 * over dst_cap or out's cap is HUDI_ERR_LIMIT. */
HUDI_NODISCARD hudi_status hudi_http_send(hudi_http_client *c, hudi_http_request *req,
                                          hudi_http_response *resp, hudi_error *err);

/* Statistics for tests: requests attempted and connections opened. */
typedef struct hudi_http_stats {
  uint64_t attempts;
  uint64_t retries;
  uint64_t connects;
} hudi_http_stats;
void hudi_http_client_stats(hudi_http_client *c, hudi_http_stats *out);

#endif
