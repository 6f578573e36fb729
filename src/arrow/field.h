/* An owned, validated copy of an ArrowSchema tree: what libhudi keeps of a
 * schema after the producer's ArrowSchema is released, what builders are
 * made from, and what is exported back as an ArrowSchema. */
#ifndef HUDI_ARROW_FIELD_H
#define HUDI_ARROW_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arrow/type.h"
#include "base/error.h"
#include "hudi/arrow_abi.h"

/* Nesting deeper than this is refused (a hostile schema must not overflow
 * the stack of the recursive walkers). */
#define HUDI_ARROW_MAX_DEPTH 64
/* Children of one struct; wider structs are refused. */
#define HUDI_ARROW_MAX_CHILDREN (1 << 20)

typedef struct hudi_arrow_field {
  char *name;              /* owned; NULL when the schema had none */
  char *format;            /* owned */
  hudi_arrow_type type;    /* parsed from format (timezone points into it) */
  int64_t flags;           /* ARROW_FLAG_* */
  char *metadata;          /* owned encoded metadata, NULL when none */
  size_t metadata_size;
  int64_t n_children;
  struct hudi_arrow_field *children;   /* owned array of n_children */
  struct hudi_arrow_field *dictionary; /* owned; set for dictionary-encoded fields, whose
                                          type is then the (integer) index type */
} hudi_arrow_field;

/* Sets up *f as a field without children or metadata. format is copied and
 * parsed; name may be NULL. On failure *f is left empty (safe to clear). */
HUDI_NODISCARD hudi_status hudi_arrow_field_init(hudi_arrow_field *f, const char *name,
                                                 const char *format, int64_t flags, hudi_error *err);

/* Gives f n zeroed children (fill each with hudi_arrow_field_init). */
HUDI_NODISCARD hudi_status hudi_arrow_field_alloc_children(hudi_arrow_field *f, int64_t n,
                                                           hudi_error *err);

/* The index of f's child named name, or -1. */
int64_t hudi_arrow_field_child_index(const hudi_arrow_field *f, const char *name);

/* Replaces f's metadata with a copy of the encoded bytes (NULL: none). */
HUDI_NODISCARD hudi_status hudi_arrow_field_set_metadata(hudi_arrow_field *f, const char *metadata,
                                                         hudi_error *err);

/* Copies and validates a whole schema tree: formats, child counts (maps
 * hold one struct of two fields), dictionary index types, metadata, depth.
 * With normalise, the copy carries the types libhudi's builders write:
 * dictionary-encoded fields become their value type, string/binary views
 * become string/binary; large types stay large. Errors name the column. */
HUDI_NODISCARD hudi_status hudi_arrow_field_from_schema(hudi_arrow_field *out,
                                                        const struct ArrowSchema *schema,
                                                        bool normalise, hudi_error *err);

/* Deep copy (optionally normalised). */
HUDI_NODISCARD hudi_status hudi_arrow_field_copy(hudi_arrow_field *out, const hudi_arrow_field *in,
                                                 bool normalise, hudi_error *err);

/* Frees everything f owns and empties it. */
void hudi_arrow_field_clear(hudi_arrow_field *f);

/* Exports f as an ArrowSchema whose release callback frees it through
 * hudi_free. On failure *out is untouched (release stays as it was). */
HUDI_NODISCARD hudi_status hudi_arrow_field_export(struct ArrowSchema *out, const hudi_arrow_field *f,
                                                   hudi_error *err);

#endif
