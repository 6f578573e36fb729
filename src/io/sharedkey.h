/* Azure Storage SharedKey request signing (the "SharedKey account:sig"
 * Authorization header), on OpenSSL's HMAC-SHA256. Pure functions: no
 * clock, no network, so the published string-to-sign examples and the
 * azure-storage-blob SDK's signer check them byte for byte.
 *
 * String to sign (service version 2009-09-19 and later):
 *   VERB \n Content-Encoding \n Content-Language \n Content-Length \n
 *   Content-MD5 \n Content-Type \n Date \n If-Modified-Since \n If-Match \n
 *   If-None-Match \n If-Unmodified-Since \n Range \n
 *   CanonicalizedHeaders  (each x-ms-* header "name:value\n", names lower
 *                          case, in the service's order, see below)
 *   CanonicalizedResource ("/" account encoded-path, then for each query
 *                          parameter "\nname:value", names lower case and
 *                          sorted, values percent-decoded, repeated names'
 *                          values sorted and joined with ',')
 * Content-Length is empty when it is "0". Header values are signed as given
 * (the backend never sends values with runs of whitespace). The service
 * orders x-ms-* names the way a culture-invariant string comparison does:
 * '-' is ignored at first ('.' < '_' < digits < letters), and only names
 * equal without it are then told apart, the one whose '-' comes first
 * sorting last. Names outside [a-z0-9._-] (which Azure never defines) fall
 * back to byte order after those. */
#ifndef HUDI_IO_SHAREDKEY_H
#define HUDI_IO_SHAREDKEY_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"
#include "io/sigv4.h" /* hudi_http_header */

/* Decodes standard base64 (padding optional, no whitespace) into *out
 * (owned by the caller, hudi_free) and *out_len. Bad input is
 * HUDI_ERR_INVALID_ARG ("account key is not base64"). */
HUDI_NODISCARD hudi_status hudi_sharedkey_base64_decode(uint8_t **out, size_t *out_len, const char *s,
                                              hudi_error *err);

/* Standard base64 of data[0..len) into *out (hudi_free). */
HUDI_NODISCARD hudi_status hudi_sharedkey_base64_encode(char **out, const void *data, size_t len,
                                              hudi_error *err);

/* Appends the string to sign to out. path is the encoded path part of the
 * URL (starting with '/'), query its encoded query ("" or NULL for none).
 * headers are every header the request sends, including Content-Length
 * when there is a body. */
HUDI_NODISCARD hudi_status hudi_sharedkey_string_to_sign(hudi_buf *out, const char *method,
                                                         const char *account, const char *path,
                                                         const char *query,
                                                         const hudi_http_header *headers,
                                                         size_t n_headers, hudi_error *err);

/* "SharedKey <account>:<base64 HMAC-SHA256(key, string to sign)>" into *out
 * (hudi_free). key is the decoded account key. sts, if not NULL, receives
 * the string to sign (tests). */
HUDI_NODISCARD hudi_status hudi_sharedkey_authorization(char **out, const char *account,
                                                        const uint8_t *key, size_t key_len,
                                                        const char *method, const char *path,
                                                        const char *query,
                                                        const hudi_http_header *headers,
                                                        size_t n_headers, hudi_buf *sts,
                                                        hudi_error *err);

#endif
