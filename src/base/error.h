/* Internal helpers to fill a hudi_error. */
#ifndef HUDI_BASE_ERROR_H
#define HUDI_BASE_ERROR_H

#include "hudi/error.h"

#if defined(__GNUC__)
#  define HUDI_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#  define HUDI_NODISCARD __attribute__((warn_unused_result))
#else
#  define HUDI_PRINTF(fmt_idx, arg_idx)
#  define HUDI_NODISCARD
#endif

/* Sets err (if not NULL) to code with a formatted message; returns code so
 * callers can write `return hudi_err_set(err, HUDI_ERR_CORRUPT, "...")`. */
hudi_status hudi_err_set(hudi_error *err, hudi_status code, const char *fmt, ...) HUDI_PRINTF(3, 4);

/* Prepends context to an existing message ("reading x.parquet: <old>") and
 * returns err->code (or HUDI_ERR_INTERNAL when err is NULL and code unknown). */
hudi_status hudi_err_context(hudi_error *err, hudi_status code, const char *fmt, ...) HUDI_PRINTF(3, 4);

/* Evaluate expr; on failure return its status unchanged. */
#define HUDI_TRY(expr)                       \
  do {                                       \
    hudi_status hudi_try_st_ = (expr);       \
    if (hudi_try_st_ != HUDI_OK) return hudi_try_st_; \
  } while (0)

#define HUDI_UNUSED(x) ((void)(x))

#endif
