/* hudi-c: status codes and the error object every fallible call fills. */
#ifndef HUDI_ERROR_H
#define HUDI_ERROR_H

#include "hudi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes, grouped by what the caller can do about them. Values are
 * stable: they are part of the ABI and mapped to Python exceptions. */
typedef enum hudi_status {
  HUDI_OK = 0,
  HUDI_ERR_INVALID_ARG = 1, /* bad input from the caller: option, column, key, predicate */
  HUDI_ERR_NOMEM = 2,       /* an allocation failed */
  HUDI_ERR_LIMIT = 3,       /* a size exceeded its hard cap */
  HUDI_ERR_IO = 4,          /* the storage failed */
  HUDI_ERR_NOT_FOUND = 5,   /* a file, table, instant or key does not exist */
  HUDI_ERR_EXISTS = 6,      /* write-if-absent found the object already there */
  HUDI_ERR_CORRUPT = 7,     /* bytes do not follow their format */
  HUDI_ERR_UNSUPPORTED = 8, /* valid, but not implemented (a table version, a codec) */
  HUDI_ERR_CONFLICT = 9,    /* a concurrent writer won */
  HUDI_ERR_CANCELLED = 10,  /* the caller stopped the operation */
  HUDI_ERR_INTERNAL = 11    /* a bug in hudi-c */
} hudi_status;

#define HUDI_ERROR_MESSAGE_MAX 1024

/* The error a call fills when it fails. Stack-allocate it, pass it last;
 * NULL is allowed when the caller only needs the status. The message names
 * what went wrong and where: file, byte offset, column, key. */
typedef struct hudi_error {
  hudi_status code;
  char message[HUDI_ERROR_MESSAGE_MAX];
} hudi_error;

#define HUDI_ERROR_INIT {HUDI_OK, {0}}

/* A short, static name for a status, e.g. "corrupt data". */
HUDI_EXTERN const char *hudi_status_name(hudi_status status);

/* Resets an error to HUDI_OK with an empty message. */
HUDI_EXTERN void hudi_error_clear(hudi_error *err);

#ifdef __cplusplus
}
#endif

#endif
