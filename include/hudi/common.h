/* hudi-c: shared definitions for the public C API.
 *
 * Conventions (see docs/ARCHITECTURE.md):
 *   - functions are named hudi_<noun>_<verb>;
 *   - out-parameters come first, `hudi_error *err` (nullable) comes last;
 *   - every fallible function returns a hudi_status, HUDI_OK (0) on success;
 *   - opaque handles are created by _open/_create and released by _free;
 *   - Arrow data crosses the API only through the Arrow C Data / Stream
 *     interface and its release callbacks.
 */
#ifndef HUDI_COMMON_H
#define HUDI_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#  define HUDI_EXTERN __declspec(dllexport)
#elif defined(__GNUC__)
#  define HUDI_EXTERN __attribute__((visibility("default")))
#else
#  define HUDI_EXTERN
#endif

#define HUDI_VERSION_MAJOR 0
#define HUDI_VERSION_MINOR 1
#define HUDI_VERSION_PATCH 0
#define HUDI_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". Static storage. */
HUDI_EXTERN const char *hudi_version(void);

#ifdef __cplusplus
}
#endif

#endif
