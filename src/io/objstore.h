/* Pieces the object-store backends (s3, gs, az) share: bucket URIs,
 * settings from options or the environment, percent-encoding, a minimal
 * XML reader for the services' response bodies, dates, and the mapping of
 * HTTP failures to hudi errors. */
#ifndef HUDI_IO_OBJSTORE_H
#define HUDI_IO_OBJSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/backend.h"
#include "io/http.h"

/* Splits "scheme://bucket/some/prefix/" into bucket and prefix ("some/prefix",
 * no leading or trailing '/', "" for the bucket root); both owned by the
 * caller. A URI without a bucket, or with "." / ".." components, is
 * HUDI_ERR_INVALID_ARG. */
HUDI_NODISCARD hudi_status hudi_objstore_parse_uri(const char *uri, char **bucket, char **prefix,
                                                   hudi_error *err);

/* The first of options[keys...] that is set, else the first of
 * getenv(envs...) that is set and non-empty, else NULL. keys and envs are
 * NULL-terminated lists (envs may be NULL). */
const char *hudi_objstore_setting(const hudi_storage_option *options, size_t n_options,
                                  const char *const *keys, const char *const *envs);

/* Parses a boolean setting (as hudi_storage_option_bool) found as above. */
HUDI_NODISCARD hudi_status hudi_objstore_setting_bool(const hudi_storage_option *options,
                                                      size_t n_options, const char *const *keys,
                                                      const char *const *envs, bool dflt, bool *out,
                                                      hudi_error *err);

/* A non-negative integer setting in [min, max]; dflt when unset. */
HUDI_NODISCARD hudi_status hudi_objstore_setting_u64(const hudi_storage_option *options,
                                                     size_t n_options, const char *const *keys,
                                                     uint64_t dflt, uint64_t min, uint64_t max,
                                                     uint64_t *out, hudi_error *err);

/* HTTP client settings from the shared options max_retries,
 * retry_timeout_ms, timeout_ms, connect_timeout_ms, retry_base_ms. */
HUDI_NODISCARD hudi_status hudi_objstore_http_config(hudi_http_config *cfg,
                                                     const hudi_storage_option *options,
                                                     size_t n_options, hudi_error *err);

/* Appends s[0..n) percent-encoded as AWS requires: every byte but
 * A-Za-z0-9-._~ (and '/' when keep_slash) as %XX with upper-case hex. */
HUDI_NODISCARD hudi_status hudi_objstore_encode(hudi_buf *out, const char *s, size_t n,
                                                bool keep_slash, hudi_error *err);

/* Finds the next <tag>...</tag> element in [p, end); *v, *vlen = its raw
 * content, *next = just past its end tag. False when there is none. */
bool hudi_xml_element(const char *p, const char *end, const char *tag, const char **v, size_t *vlen,
                      const char **next);

/* The unescaped text (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) of
 * v[0..len) into *out (owned by the caller). A malformed entity is
 * HUDI_ERR_CORRUPT. */
HUDI_NODISCARD hudi_status hudi_xml_text(char **out, const char *v, size_t len, hudi_error *err);

/* Copies the unescaped text of the first <tag> in [p, end) into dst (cap
 * bytes, truncated); "" when absent. */
void hudi_xml_copy(char *dst, size_t cap, const char *p, const char *end, const char *tag);

/* "2024-05-01T12:34:56.789Z" -> milliseconds since the epoch; -1 if bad. */
int64_t hudi_objstore_parse_iso8601(const char *s, size_t n);

/* The error for a non-2xx response to op on what ("s3://bucket/key"):
 * 404 -> HUDI_ERR_NOT_FOUND, 412 -> HUDI_ERR_EXISTS, 401/403 -> HUDI_ERR_IO
 * saying "access denied", anything else HUDI_ERR_IO. The message carries
 * the HTTP status and the service's error code and message (from the XML
 * error body when there is one). */
hudi_status hudi_objstore_http_error(hudi_error *err, const char *op, const char *what,
                                     const hudi_http_response *resp);

#endif
