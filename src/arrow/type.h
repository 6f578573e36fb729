/* Arrow data types as libhudi sees them: the parsed form of an ArrowSchema
 * format string ("i", "tsu:UTC", "d:38,10", "+w:4", ...) and its inverse. */
#ifndef HUDI_ARROW_TYPE_H
#define HUDI_ARROW_TYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

typedef enum hudi_arrow_type_id {
  HUDI_ARROW_NA = 0,
  HUDI_ARROW_BOOL,
  HUDI_ARROW_INT8,
  HUDI_ARROW_UINT8,
  HUDI_ARROW_INT16,
  HUDI_ARROW_UINT16,
  HUDI_ARROW_INT32,
  HUDI_ARROW_UINT32,
  HUDI_ARROW_INT64,
  HUDI_ARROW_UINT64,
  HUDI_ARROW_HALF_FLOAT, /* stored and copied as raw 16-bit words */
  HUDI_ARROW_FLOAT,
  HUDI_ARROW_DOUBLE,
  HUDI_ARROW_DECIMAL,    /* bit_width 32, 64, 128 or 256; little-endian two's complement */
  HUDI_ARROW_DATE32,     /* days since the epoch */
  HUDI_ARROW_DATE64,     /* milliseconds since the epoch */
  HUDI_ARROW_TIME32,     /* unit s or ms */
  HUDI_ARROW_TIME64,     /* unit us or ns */
  HUDI_ARROW_TIMESTAMP,  /* unit, optional timezone */
  HUDI_ARROW_DURATION,   /* unit */
  HUDI_ARROW_STRING,
  HUDI_ARROW_LARGE_STRING,
  HUDI_ARROW_BINARY,
  HUDI_ARROW_LARGE_BINARY,
  HUDI_ARROW_STRING_VIEW,
  HUDI_ARROW_BINARY_VIEW,
  HUDI_ARROW_FIXED_SIZE_BINARY,
  HUDI_ARROW_LIST,
  HUDI_ARROW_LARGE_LIST,
  HUDI_ARROW_FIXED_SIZE_LIST,
  HUDI_ARROW_STRUCT,
  HUDI_ARROW_MAP
} hudi_arrow_type_id;

typedef enum hudi_arrow_time_unit {
  HUDI_ARROW_SECOND = 0,
  HUDI_ARROW_MILLI,
  HUDI_ARROW_MICRO,
  HUDI_ARROW_NANO
} hudi_arrow_time_unit;

/* Longest timezone accepted in a timestamp format ("America/Argentina/...").
 * IANA names are far shorter; the cap keeps hostile formats bounded. */
#define HUDI_ARROW_TIMEZONE_MAX 255

/* A parsed format string. Parameters that do not apply to id are 0. */
typedef struct hudi_arrow_type {
  hudi_arrow_type_id id;
  hudi_arrow_time_unit unit;     /* TIME32/64, TIMESTAMP, DURATION */
  int32_t precision, scale;      /* DECIMAL */
  int32_t bit_width;             /* DECIMAL */
  int32_t fixed_size;            /* FIXED_SIZE_BINARY byte width, FIXED_SIZE_LIST list size */
  const char *timezone;          /* TIMESTAMP: points into the parsed format; NULL when absent */
  size_t timezone_len;
} hudi_arrow_type;

/* Parses an ArrowSchema format string. t->timezone points into `format`,
 * so it lives as long as the string does. Unknown or malformed formats are
 * HUDI_ERR_UNSUPPORTED / HUDI_ERR_INVALID_ARG with the format quoted. */
HUDI_NODISCARD hudi_status hudi_arrow_type_parse(hudi_arrow_type *t, const char *format,
                                                 hudi_error *err);

/* Writes the format string of t into out (cap bytes, NUL-terminated).
 * HUDI_ERR_LIMIT when it does not fit. */
HUDI_NODISCARD hudi_status hudi_arrow_type_format(char *out, size_t cap, const hudi_arrow_type *t,
                                                  hudi_error *err);

/* Bytes per value of a fixed-width primitive type (bool: 0, bit-packed;
 * variable and nested types: 0). */
int32_t hudi_arrow_type_byte_width(const hudi_arrow_type *t);

/* Short readable name, e.g. "timestamp", for error messages. */
const char *hudi_arrow_type_name(hudi_arrow_type_id id);

/* The number of children a type requires (-1: any number, i.e. struct). */
int hudi_arrow_type_n_children(hudi_arrow_type_id id);

/* True for ids whose values are signed integers of up to 64 bits (also
 * dates, times, timestamps, durations). */
bool hudi_arrow_type_is_signed_int(hudi_arrow_type_id id);
bool hudi_arrow_type_is_unsigned_int(hudi_arrow_type_id id);

#endif
