/* Read-only typed access to an imported ArrowArray (the "array view").
 *
 * A view is built once per array and validated up front: buffer and child
 * counts, offsets (non-negative, non-decreasing, within the child's length),
 * string/binary views (buffer index and range within the variadic buffer
 * sizes), dictionary indices (within the dictionary), and child lengths of
 * structs and fixed-size lists. After that the accessors below cannot read
 * out of bounds for any index i in [0, length). The view borrows the
 * ArrowSchema and ArrowArray: they must outlive it. */
#ifndef HUDI_ARROW_VIEW_H
#define HUDI_ARROW_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arrow/type.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

typedef struct hudi_arrow_view {
  const char *name;        /* the schema's name (borrowed) */
  hudi_arrow_type type;    /* for a dictionary-encoded array: the index type */
  int64_t flags;
  int64_t length, offset, null_count; /* null_count: as the producer gave it (-1: unknown) */
  const uint8_t *validity; /* NULL when every element is valid */
  const uint8_t *values;   /* fixed-width values, bool bits, offsets or 16-byte views */
  const uint8_t *data;     /* string/binary bytes (may be NULL when all are empty) */
  int64_t n_variadic;      /* string/binary views: data buffers and their sizes */
  const uint8_t *const *variadic;
  const int64_t *variadic_sizes;
  int32_t byte_width;      /* fixed-width types */
  int64_t n_children;
  struct hudi_arrow_view *children;   /* owned */
  struct hudi_arrow_view *dictionary; /* owned; dictionary-encoded arrays */
} hudi_arrow_view;

/* Builds and validates the view of array (described by schema). On error
 * the message names the column path ("a.b") and what is wrong; *v is then
 * empty (safe to clear). */
HUDI_NODISCARD hudi_status hudi_arrow_view_init(hudi_arrow_view *v, const struct ArrowSchema *schema,
                                                const struct ArrowArray *array, hudi_error *err);

void hudi_arrow_view_clear(hudi_arrow_view *v);

/* ---- element access; i is the logical index in [0, length) ---- */

static inline bool hudi_arrow_bit(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}

/* True when element i is null (dictionary arrays: the index is null; the
 * dictionary value it points to may be null as well). */
static inline bool hudi_arrow_view_is_null(const hudi_arrow_view *v, int64_t i) {
  if (v->type.id == HUDI_ARROW_NA) return true;
  return v->validity && !hudi_arrow_bit(v->validity, v->offset + i);
}

/* Signed integers, dates, times, timestamps, durations, dictionary indices. */
int64_t hudi_arrow_view_int(const hudi_arrow_view *v, int64_t i);
uint64_t hudi_arrow_view_uint(const hudi_arrow_view *v, int64_t i);
/* float and double (widened). */
double hudi_arrow_view_double(const hudi_arrow_view *v, int64_t i);
bool hudi_arrow_view_bool(const hudi_arrow_view *v, int64_t i);

/* The byte_width bytes of a fixed-width element (integers, floats,
 * decimals, fixed_size_binary...), in Arrow's little-endian layout. */
static inline const uint8_t *hudi_arrow_view_fixed(const hudi_arrow_view *v, int64_t i) {
  return v->values + (v->offset + i) * (int64_t)v->byte_width;
}

/* The bytes of a string/binary element of any flavour (plain, large, view,
 * fixed-size). *data is never NULL. */
const uint8_t *hudi_arrow_view_bytes(const hudi_arrow_view *v, int64_t i, int64_t *len);

/* The child index range [*start, *end) of list-like element i (list,
 * large_list, fixed_size_list, map), as logical indices of children[0]. */
void hudi_arrow_view_list_range(const hudi_arrow_view *v, int64_t i, int64_t *start, int64_t *end);

/* Entry j of v's offsets buffer (j counts from the buffer's start, so it
 * includes v->offset): 64-bit for the large string, binary and list types,
 * 32-bit for the others. */
static inline int64_t hudi_arrow_view_offset(const hudi_arrow_view *v, int64_t j) {
  if (v->type.id == HUDI_ARROW_LARGE_STRING || v->type.id == HUDI_ARROW_LARGE_BINARY ||
      v->type.id == HUDI_ARROW_LARGE_LIST) {
    int64_t x;
    memcpy(&x, v->values + j * 8, 8);
    return x;
  }
  int32_t x;
  memcpy(&x, v->values + j * 4, 4);
  return x;
}

/* The logical index in each struct child of struct element i. */
static inline int64_t hudi_arrow_view_struct_row(const hudi_arrow_view *v, int64_t i) {
  return v->offset + i;
}

/* The dictionary index of element i of a dictionary-encoded array. */
static inline int64_t hudi_arrow_view_dict_index(const hudi_arrow_view *v, int64_t i) {
  return hudi_arrow_type_is_unsigned_int(v->type.id) ? (int64_t)hudi_arrow_view_uint(v, i)
                                                     : hudi_arrow_view_int(v, i);
}

/* Starts loading element i of v into the cache: its offsets, or its value,
 * and its validity when !near; a string's bytes when near (its offsets
 * must have been fetched some elements earlier). Dictionary-encoded views
 * are left alone. Used by the row gathers after a sort, whose reads would
 * otherwise wait on memory at every row. */
static inline void hudi_arrow_view_prefetch(const hudi_arrow_view *v, int64_t i, bool near) {
  if (v->dictionary || !v->values) return;
  int64_t j = v->offset + i;
  switch (v->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY:
      if (!near) __builtin_prefetch(v->values + j * 4);
      else if (v->data) {
        int32_t o;
        memcpy(&o, v->values + j * 4, 4);
        __builtin_prefetch(v->data + o);
      }
      break;
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_LARGE_BINARY:
      if (!near) __builtin_prefetch(v->values + j * 8);
      else if (v->data) {
        int64_t o;
        memcpy(&o, v->values + j * 8, 8);
        __builtin_prefetch(v->data + o);
      }
      break;
    default:
      if (!near && v->byte_width > 0) __builtin_prefetch(v->values + j * v->byte_width);
  }
  if (!near && v->validity) __builtin_prefetch(v->validity + (j >> 3));
}

#endif
