/* A generic in-memory Avro value tree, for the small records Hudi keeps
 * in Avro outside the data path: timeline instants, plans, log-block
 * delete lists. (Table data goes through the compiled Arrow codec.)
 *
 * Every value remembers its schema node. A union value holds the branch
 * index and the branch's value. All memory of a tree lives in one arena
 * chosen by the caller; strings and bytes are copied there (strings get a
 * terminating NUL that len does not count), so the tree outlives the
 * input buffer. */
#ifndef HUDI_AVRO_VALUE_H
#define HUDI_AVRO_VALUE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "avro/arena.h"
#include "avro/binary.h"
#include "avro/schema.h"
#include "base/buf.h"
#include "base/error.h"

typedef struct hudi_avro_value hudi_avro_value;

typedef struct hudi_avro_str {
  const char *data; /* NUL-terminated */
  size_t len;
} hudi_avro_str;

struct hudi_avro_value {
  const hudi_avro_node *node;
  union {
    int boolean;
    int32_t i;       /* int (and date, time-millis) */
    int64_t l;       /* long (and time-micros, timestamps) */
    float f;
    double d;
    uint32_t symbol; /* enum: index into node->symbols */
    struct {
      const uint8_t *data; /* NUL-terminated for strings */
      size_t len;
    } bytes;             /* bytes, string, fixed */
    struct {
      hudi_avro_value *items;
      size_t n, cap;
    } list;              /* record (n == n_fields, in field order) and array */
    struct {
      hudi_avro_str *keys;
      hudi_avro_value *values;
      size_t n, cap;
    } map;               /* in the order the entries came */
    struct {
      uint32_t branch;
      hudi_avro_value *value;
    } u;
  } v;
};

/* Deepest data nesting (recursive schemas) we follow. */
#define HUDI_AVRO_MAX_DATA_DEPTH 256
/* Items of zero-byte types (null, empty records) we accept per array/map:
 * their count is not bounded by the input size. */
#define HUDI_AVRO_MAX_EMPTY_ITEMS ((int64_t)1 << 20)

/* Checks that the cursor holds one datum of schema n and moves past it:
 * union indexes and enum symbols in range, lengths within the data, block
 * counts and sizes consistent. */
HUDI_NODISCARD hudi_status hudi_avro_skip(const hudi_avro_node *n, hudi_avro_cursor *c, hudi_error *err);

/* Decodes one datum written with schema `writer` into *out, resolved to
 * schema `reader` (NULL: same as writer) by the Avro resolution rules:
 * numeric promotion int->long->float->double, string<->bytes, record
 * fields matched by name or alias (writer-only fields skipped, reader-only
 * fields filled from their defaults), enums by symbol (or the reader's
 * default symbol), unions by branch type and name. */
HUDI_NODISCARD hudi_status hudi_avro_decode(hudi_avro_value *out, hudi_avro_arena *arena,
                                            const hudi_avro_node *writer, const hudi_avro_node *reader,
                                            hudi_avro_cursor *c, hudi_error *err);

/* Appends the binary encoding of v (as Java writes it: each non-empty
 * array or map as one block of all its items, then a 0). */
HUDI_NODISCARD hudi_status hudi_avro_encode(const hudi_avro_value *v, hudi_buf *out, hudi_error *err);

/* Builds the value a JSON default denotes for schema n (the spec's JSON
 * rules for defaults: bytes as code points 0-255, a union's default for
 * its first branch -- other branches are also accepted). */
HUDI_NODISCARD hudi_status hudi_avro_value_from_json(hudi_avro_value *out, hudi_avro_arena *arena,
                                                     const hudi_avro_node *n, json_t *j, hudi_error *err);

/* A fresh value of schema n: record fields set to their defaults (null
 * branch or zero where there is none), arrays and maps empty, unions on
 * their first branch. Fill it with the setters below, then encode. */
HUDI_NODISCARD hudi_status hudi_avro_value_init(hudi_avro_value *out, hudi_avro_arena *arena,
                                                const hudi_avro_node *n, hudi_error *err);

/* ---- reading a tree ---- */
/* The value inside a union (v itself otherwise). */
const hudi_avro_value *hudi_avro_value_unwrap(const hudi_avro_value *v);
/* A record's field by name (unwrapping a union record), or NULL. */
hudi_avro_value *hudi_avro_value_field(const hudi_avro_value *rec, const char *name);
/* A map's value by key (unwrapping a union map), or NULL. */
hudi_avro_value *hudi_avro_value_map_get(const hudi_avro_value *map, const char *key);
/* 1 when v (unwrapped) is null. */
int hudi_avro_value_is_null(const hudi_avro_value *v);

/* ---- building a tree ---- */
/* For a union, these pick the first branch of the fitting type. */
HUDI_NODISCARD hudi_status hudi_avro_value_set_null(hudi_avro_value *v, hudi_avro_arena *a, hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_value_set_boolean(hudi_avro_value *v, hudi_avro_arena *a, int b,
                                                       hudi_error *err);
/* int, long, float or double (and their logical types), whichever v is. */
HUDI_NODISCARD hudi_status hudi_avro_value_set_long(hudi_avro_value *v, hudi_avro_arena *a, int64_t l,
                                                    hudi_error *err);
HUDI_NODISCARD hudi_status hudi_avro_value_set_double(hudi_avro_value *v, hudi_avro_arena *a, double d,
                                                      hudi_error *err);
/* string, bytes, fixed or enum (by symbol). */
HUDI_NODISCARD hudi_status hudi_avro_value_set_string(hudi_avro_value *v, hudi_avro_arena *a, const char *s,
                                                      size_t len, hudi_error *err);
/* Chooses union branch `branch` (initialised) and returns its value. */
HUDI_NODISCARD hudi_status hudi_avro_value_select(hudi_avro_value *v, hudi_avro_arena *a, uint32_t branch,
                                                  hudi_avro_value **out, hudi_error *err);
/* Appends an initialised item to an array (selecting the array branch of
 * a union) and returns it. */
HUDI_NODISCARD hudi_status hudi_avro_value_append(hudi_avro_value *v, hudi_avro_arena *a,
                                                  hudi_avro_value **item, hudi_error *err);
/* Adds key to a map (selecting the map branch of a union) and returns its
 * initialised value. */
HUDI_NODISCARD hudi_status hudi_avro_value_put(hudi_avro_value *v, hudi_avro_arena *a, const char *key,
                                               hudi_avro_value **item, hudi_error *err);

/* Decimal (bytes or fixed, two's complement big endian) as text with the
 * node's scale, e.g. "-12.50". */
HUDI_NODISCARD hudi_status hudi_avro_decimal_to_string(const uint8_t *data, size_t len, int32_t scale,
                                                       hudi_buf *out, hudi_error *err);

#endif
