/* Avro schemas: parsed from JSON into a compact tree of nodes, emitted back
 * as JSON (as given, or in Parsing Canonical Form) and fingerprinted.
 *
 * Named types (record, enum, fixed) are defined once and shared: a
 * reference points at the defining node, so a recursive record is a cycle
 * in the graph. Everything a schema owns lives in its arena and in its
 * jansson document; nodes borrow attributes (defaults, doc, custom
 * properties) from that document instead of copying them. */
#ifndef HUDI_AVRO_SCHEMA_H
#define HUDI_AVRO_SCHEMA_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "avro/arena.h"
#include "base/buf.h"
#include "base/error.h"

typedef enum hudi_avro_type {
  HUDI_AVRO_NULL = 0,
  HUDI_AVRO_BOOLEAN,
  HUDI_AVRO_INT,
  HUDI_AVRO_LONG,
  HUDI_AVRO_FLOAT,
  HUDI_AVRO_DOUBLE,
  HUDI_AVRO_BYTES,
  HUDI_AVRO_STRING,
  HUDI_AVRO_RECORD,
  HUDI_AVRO_ENUM,
  HUDI_AVRO_ARRAY,
  HUDI_AVRO_MAP,
  HUDI_AVRO_UNION,
  HUDI_AVRO_FIXED
} hudi_avro_type;

/* Logical types we recognise. Like the spec says, an unknown or invalid
 * logicalType (e.g. "date" on a string) leaves the underlying type alone. */
typedef enum hudi_avro_logical {
  HUDI_AVRO_LOGICAL_NONE = 0,
  HUDI_AVRO_LOGICAL_DECIMAL,                /* bytes or fixed; precision, scale */
  HUDI_AVRO_LOGICAL_DATE,                   /* int: days since 1970-01-01 */
  HUDI_AVRO_LOGICAL_TIME_MILLIS,            /* int */
  HUDI_AVRO_LOGICAL_TIME_MICROS,            /* long */
  HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS,       /* long, UTC */
  HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS,       /* long, UTC */
  HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS, /* long, no zone */
  HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS, /* long, no zone */
  HUDI_AVRO_LOGICAL_UUID                    /* string */
} hudi_avro_logical;

typedef struct hudi_avro_node hudi_avro_node;

typedef struct hudi_avro_field {
  const char *name;
  hudi_avro_node *type;
  json_t *default_json; /* borrowed from the schema document; NULL = no default */
  const char **aliases;
  uint32_t n_aliases;
  uint32_t index; /* position in the record */
} hudi_avro_field;

struct hudi_avro_node {
  hudi_avro_type type;
  hudi_avro_logical logical;
  int32_t precision, scale; /* decimal */
  const char *name;         /* full name of a named type, else NULL */
  const char **aliases;     /* full names */
  uint32_t n_aliases;
  hudi_avro_field *fields; /* record */
  uint32_t n_fields;
  const char **symbols; /* enum */
  uint32_t n_symbols;
  int32_t enum_default; /* index of the enum's "default" symbol, or -1 */
  hudi_avro_node **branches; /* union */
  uint32_t n_branches;
  hudi_avro_node *items; /* array items or map values */
  uint32_t size;         /* fixed */
  uint32_t min_size;     /* fewest bytes one datum of this type can take */
  json_t *json;          /* where this node was written, borrowed */
};

typedef struct hudi_avro_schema {
  hudi_avro_node *root;
  json_t *doc; /* the parsed document, owned */
  hudi_avro_arena arena;
  hudi_avro_node **named; /* every named type, in definition order */
  uint32_t n_named, cap_named;
} hudi_avro_schema;

/* Hard caps for hostile schemas. */
#define HUDI_AVRO_SCHEMA_MAX_DEPTH 64
#define HUDI_AVRO_SCHEMA_MAX_NAMED 4096
#define HUDI_AVRO_SCHEMA_MAX_JSON ((size_t)64 << 20)

/* Parses schema JSON (len bytes, no NUL needed). On success *out is owned
 * by the caller: free it with hudi_avro_schema_free. */
HUDI_NODISCARD hudi_status hudi_avro_schema_parse(hudi_avro_schema **out, const char *json, size_t len,
                                                  hudi_error *err);
void hudi_avro_schema_free(hudi_avro_schema *s);

/* Looks up a named type by full name. */
const hudi_avro_node *hudi_avro_schema_find(const hudi_avro_schema *s, const char *full_name);

/* Appends the schema as it was given: every attribute ("doc", "default",
 * custom properties such as "avro.java.string") kept, in the original key
 * order, compact (no whitespace) as Java's Schema.toString() writes it. */
HUDI_NODISCARD hudi_status hudi_avro_schema_to_json(const hudi_avro_schema *s, hudi_buf *out,
                                                    hudi_error *err);

/* Appends the Parsing Canonical Form of the Avro specification. */
HUDI_NODISCARD hudi_status hudi_avro_schema_canonical(const hudi_avro_node *root, hudi_buf *out,
                                                      hudi_error *err);

/* The spec's 64-bit Rabin fingerprint (CRC-64-AVRO) of bytes, and of a
 * schema's canonical form. */
uint64_t hudi_avro_crc64(const uint8_t *data, size_t len);
HUDI_NODISCARD hudi_status hudi_avro_schema_fingerprint(const hudi_avro_node *root, uint64_t *out,
                                                        hudi_error *err);

/* "int", "record", ... */
const char *hudi_avro_type_name(hudi_avro_type t);
/* The field named name (or aliased so), or NULL. */
const hudi_avro_field *hudi_avro_record_field(const hudi_avro_node *rec, const char *name);
/* Index of an enum symbol, or -1. */
int32_t hudi_avro_enum_symbol(const hudi_avro_node *e, const char *symbol);
/* Short name of a named type (after the last dot). */
const char *hudi_avro_short_name(const char *full_name);

#endif
