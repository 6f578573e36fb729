/* The S3 backend (s3://, s3a://) and, through the same code, GCS's
 * S3-compatible XML API (gs://). */
#ifndef HUDI_IO_S3_H
#define HUDI_IO_S3_H

#include "io/backend.h"

typedef enum hudi_s3_dialect { HUDI_S3_DIALECT_AWS, HUDI_S3_DIALECT_GCS } hudi_s3_dialect;

/* Opens s3://bucket/prefix (or s3a://). Settings (storage options first,
 * then environment variables; the option names are delta-rs's /
 * object_store's):
 *   aws_access_key_id      AWS_ACCESS_KEY_ID
 *   aws_secret_access_key  AWS_SECRET_ACCESS_KEY
 *   aws_session_token      AWS_SESSION_TOKEN (aws_token)
 *   aws_region             AWS_REGION, AWS_DEFAULT_REGION   (us-east-1)
 *   aws_endpoint           AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL (aws_endpoint_url, endpoint)
 *   aws_allow_http         AWS_ALLOW_HTTP (false: an http:// endpoint is refused)
 *   aws_virtual_hosted_style_request  (false: path-style, https://host/bucket/key)
 *   aws_skip_signature     (false: unsigned requests, for public buckets)
 * and hudi's own: multipart_threshold (bytes; larger writes use multipart
 * upload, default 64 MiB), multipart_part_size (default 16 MiB, at least
 * 5 MiB), list_max_keys (keys per ListObjectsV2 page, default 1000),
 * max_retries, retry_timeout_ms, timeout_ms, connect_timeout_ms,
 * retry_base_ms (see objstore.h), read_ahead_bytes (the sequential read
 * window, default 8 MiB, 0 = off; see readahead.h).
 *
 * rename is a server-side copy followed by a delete: NOT atomic (a reader
 * can see both objects, a crash can leave both). The table layer must not
 * rely on rename on object stores; completing an instant uses
 * HUDI_WRITE_IF_ABSENT (PUT with If-None-Match: *), which is atomic. */
HUDI_NODISCARD hudi_status hudi_s3_storage_open(hudi_storage **out, const char *uri,
                                                const hudi_storage_option *options,
                                                size_t n_options, hudi_error *err);

/* The shared opener; gcs.c calls it with HUDI_S3_DIALECT_GCS. */
HUDI_NODISCARD hudi_status hudi_s3_storage_open_dialect(hudi_storage **out, const char *uri,
                                                        const hudi_storage_option *options,
                                                        size_t n_options, hudi_s3_dialect dialect,
                                                        hudi_error *err);

/* The gs:// opener (gcs.c). */
HUDI_NODISCARD hudi_status hudi_gcs_storage_open(hudi_storage **out, const char *uri,
                                                 const hudi_storage_option *options,
                                                 size_t n_options, hudi_error *err);

#endif
