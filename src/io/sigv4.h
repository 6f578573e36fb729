/* AWS Signature Version 4 (the Authorization header form), written on
 * OpenSSL's HMAC-SHA256 and SHA-256. Pure functions: no clock, no network,
 * so the published test vectors check them byte for byte.
 *
 * The caller gives the canonical URI and the query already encoded the way
 * it sends them (S3: every key byte outside A-Za-z0-9-._~ and '/' as %XX,
 * encoded once); the signer sorts the query pairs and canonicalises the
 * headers (lower-case names, trimmed values with inner runs of spaces
 * collapsed, repeated names joined with ',' in the order given). */
#ifndef HUDI_IO_SIGV4_H
#define HUDI_IO_SIGV4_H

#include <stddef.h>

#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_http_header {
  const char *name;
  const char *value;
} hudi_http_header;

typedef struct hudi_sigv4_key {
  const char *access_key;
  const char *secret_key;
  const char *region;  /* "us-east-1"; GCS: "auto" */
  const char *service; /* "s3" */
  const char *algorithm_prefix; /* "AWS4" (NULL) or "GOOG4" */
} hudi_sigv4_key;

/* Hex SHA-256 of data into hex (65 bytes, NUL-terminated). */
void hudi_sha256_hex(char hex[65], const void *data, size_t len);

/* Base64 MD5 of data into out (25 bytes): S3's Content-MD5. */
void hudi_md5_base64(char out[25], const void *data, size_t len);

/* Appends the canonical request to out. amz_date ("20150830T123600Z") must
 * already be among the headers (as x-amz-date) if the caller signs it. */
HUDI_NODISCARD hudi_status hudi_sigv4_canonical_request(hudi_buf *out, const char *method,
                                                        const char *canonical_uri, const char *query,
                                                        const hudi_http_header *headers,
                                                        size_t n_headers, const char *payload_hash,
                                                        hudi_error *err);

/* The Authorization header value for a request into *out (owned by the
 * caller, hudi_free): "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
 * Signature=...". Every header given is signed. If creq/sts are not NULL,
 * the canonical request and string to sign are appended to them (tests). */
HUDI_NODISCARD hudi_status hudi_sigv4_authorization(char **out, const hudi_sigv4_key *key,
                                                    const char *amz_date, const char *method,
                                                    const char *canonical_uri, const char *query,
                                                    const hudi_http_header *headers,
                                                    size_t n_headers, const char *payload_hash,
                                                    hudi_buf *creq, hudi_buf *sts, hudi_error *err);

#endif
