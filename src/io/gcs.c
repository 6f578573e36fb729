/* gs://bucket/prefix through the GCS XML API, which speaks S3's protocol
 * (SigV4 with HMAC keys, region "auto", service "s3"); the differences
 * (create-only is x-goog-if-generation-match: 0, copies use
 * x-goog-copy-source, no batch delete) live in s3.c behind the dialect.
 * Settings: google_hmac_access_id / GOOGLE_HMAC_ACCESS_ID,
 * google_hmac_secret / GOOGLE_HMAC_SECRET, google_endpoint /
 * GOOGLE_STORAGE_ENDPOINT (default https://storage.googleapis.com), and the
 * aws_allow_http / path-style / retry / multipart options of s3.h. */
#include "io/s3.h"

hudi_status hudi_gcs_storage_open(hudi_storage **out, const char *uri,
                                  const hudi_storage_option *options, size_t n_options,
                                  hudi_error *err) {
  return hudi_s3_storage_open_dialect(out, uri, options, n_options, HUDI_S3_DIALECT_GCS, err);
}
