/* The columns the Avro decoder writes into: Arrow buffers under
 * construction, one node per Arrow field, with the appends inlined so that
 * decoding a value costs a few instructions (the generic builders of
 * arrow/builder.h pay a call and a type switch per value). finish moves the
 * buffers out as an ArrowArray whose release frees them through hudi_free.
 *
 * Validity is kept lazily: a column without nulls has no bitmap at all; the
 * first null materialises one (all ones so far). */
#ifndef HUDI_AVRO_ARROW_COLUMNS_H
#define HUDI_AVRO_ARROW_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arrow/field.h"
#include "base/buf.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

typedef struct hudi_avro_col {
  const hudi_arrow_field *field; /* borrowed */
  hudi_arrow_type_id id;
  int32_t width;      /* bytes per fixed-width value */
  bool large;         /* 64-bit offsets */
  bool has_validity;  /* a bitmap exists (some null was appended) */
  int64_t length, null_count;
  hudi_buf validity;  /* bits, when has_validity */
  hudi_buf values;    /* fixed-width values, bool bits, or offsets (seeded with 0) */
  hudi_buf data;      /* string/binary bytes */
  int64_t n_children;
  struct hudi_avro_col *children;
} hudi_avro_col;

/* Builds the column tree of field (which must outlive it). Supported:
 * null, bool, int8..int64, float, double, decimal128, date32, time32/64,
 * timestamp, duration, (large) string/binary, fixed_size_binary, (large)
 * list, fixed_size_list, struct, map. */
HUDI_NODISCARD hudi_status hudi_avro_col_init(hudi_avro_col *c, const hudi_arrow_field *field,
                                              hudi_error *err);
void hudi_avro_col_clear(hudi_avro_col *c);
/* Forgets every value (keeps allocations); hudi_avro_col_reseed must
 * follow before the next append. */
void hudi_avro_col_reset(hudi_avro_col *c);
/* Puts back the leading 0 offset of offset columns after a reset or
 * finish (which cannot allocate it without possibly failing after the
 * export). */
HUDI_NODISCARD hudi_status hudi_avro_col_reseed(hudi_avro_col *c, hudi_error *err);

/* A null of any type (nested columns get the filler children they need). */
HUDI_NODISCARD hudi_status hudi_avro_col_append_null(hudi_avro_col *c, hudi_error *err);
/* Marks the first null at the current length (slow path of push_null). */
HUDI_NODISCARD hudi_status hudi_avro_col_start_validity(hudi_avro_col *c, hudi_error *err);

/* Moves the contents out as an ArrowArray and empties the columns (call
 * hudi_avro_col_reseed before appending again). */
HUDI_NODISCARD hudi_status hudi_avro_col_finish(hudi_avro_col *c, struct ArrowArray *out, hudi_error *err);

/* ---- inline appends ---- */

static inline hudi_status hudi_avro_need(hudi_buf *b, size_t n, hudi_error *err) {
  if (b->cap - b->len >= n) return HUDI_OK;
  return hudi_buf_reserve(b, n, err);
}

/* Appends n validity bits of value 1 (n valid elements) when a bitmap exists. */
HUDI_NODISCARD hudi_status hudi_avro_col_valid_bits(hudi_avro_col *c, int64_t n, hudi_error *err);

/* Counts one valid element (its value already appended). */
static inline hudi_status hudi_avro_col_push_valid(hudi_avro_col *c, hudi_error *err) {
  if (c->has_validity) return hudi_avro_col_valid_bits(c, 1, err);
  c->length++;
  return HUDI_OK;
}

static inline hudi_status hudi_avro_col_put_fixed(hudi_avro_col *c, const void *p, hudi_error *err) {
  HUDI_TRY(hudi_avro_need(&c->values, (size_t)c->width, err));
  memcpy(c->values.data + c->values.len, p, (size_t)c->width);
  c->values.len += (size_t)c->width;
  return hudi_avro_col_push_valid(c, err);
}

HUDI_NODISCARD hudi_status hudi_avro_col_offset_overflow(hudi_avro_col *c, hudi_error *err);

/* Closes a valid element of a string/binary/list/map column whose data (or
 * children) now end at `end`. */
static inline hudi_status hudi_avro_col_put_offset(hudi_avro_col *c, int64_t end, hudi_error *err) {
  HUDI_TRY(hudi_avro_need(&c->values, 8, err));
  if (c->large) {
    memcpy(c->values.data + c->values.len, &end, 8);
    c->values.len += 8;
  } else {
    if (end > INT32_MAX) return hudi_avro_col_offset_overflow(c, err);
    int32_t e = (int32_t)end;
    memcpy(c->values.data + c->values.len, &e, 4);
    c->values.len += 4;
  }
  return hudi_avro_col_push_valid(c, err);
}

static inline hudi_status hudi_avro_col_put_bytes(hudi_avro_col *c, const uint8_t *p, size_t n,
                                                  hudi_error *err) {
  HUDI_TRY(hudi_avro_need(&c->data, n, err));
  if (n) memcpy(c->data.data + c->data.len, p, n);
  c->data.len += n;
  return hudi_avro_col_put_offset(c, (int64_t)c->data.len, err);
}

HUDI_NODISCARD hudi_status hudi_avro_col_put_bool(hudi_avro_col *c, bool v, hudi_error *err);

#endif
