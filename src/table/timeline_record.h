/* Typed C structs for the Avro records of the timeline (commit metadata,
 * plans, clean and rollback metadata), mapped to and from the generic Avro
 * value tree by a small table per struct instead of hand-written code per
 * field.
 *
 * C forms of the Avro types (every nullable value can be absent):
 *   string          char *          (NULL = null / absent)
 *   long, int, ...  hudi_tl_long / hudi_tl_int / hudi_tl_bool / hudi_tl_double (has = 0: absent)
 *   array<T>        hudi_tl_list of T items (has = 0: null; has = 1, n = 0: empty)
 *   map<T>          hudi_tl_list of entries {char *key; T value;}, in file order
 *   record field    pointer to the struct (NULL = null); inline as array item or map value
 *
 * A top-level record ("document") starts with a hudi_tl_doc: an arena that
 * owns every string, list and nested struct of the document, and the schema
 * it was read with / will be written with. */
#ifndef HUDI_TABLE_TIMELINE_RECORD_H
#define HUDI_TABLE_TIMELINE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "avro/arena.h"
#include "avro/value.h"
#include "base/buf.h"
#include "base/error.h"
#include "table/timeline_schemas.h"

typedef struct hudi_tl_long {
  int64_t v;
  int has;
} hudi_tl_long;
typedef struct hudi_tl_int {
  int32_t v;
  int has;
} hudi_tl_int;
typedef struct hudi_tl_bool {
  int v;
  int has;
} hudi_tl_bool;
typedef struct hudi_tl_double {
  double v;
  int has;
} hudi_tl_double;
typedef struct hudi_tl_list {
  void *items;
  size_t n, cap;
  int has;
} hudi_tl_list;

/* Map entries of the common value types. */
typedef struct hudi_tl_str_entry {
  char *key;
  char *value;
} hudi_tl_str_entry;
typedef struct hudi_tl_long_entry {
  char *key;
  hudi_tl_long value;
} hudi_tl_long_entry;
typedef struct hudi_tl_double_entry {
  char *key;
  hudi_tl_double value;
} hudi_tl_double_entry;
typedef struct hudi_tl_strs_entry {
  char *key;
  hudi_tl_list value; /* char * */
} hudi_tl_strs_entry;

typedef struct hudi_tl_doc {
  hudi_avro_arena arena;
  hudi_tl_schema_id schema;
} hudi_tl_doc;

typedef enum hudi_tl_kind {
  HUDI_TL_STR,
  HUDI_TL_LONG,
  HUDI_TL_INT,
  HUDI_TL_BOOL,
  HUDI_TL_DOUBLE,
  HUDI_TL_REC,
  HUDI_TL_ARRAY,
  HUDI_TL_MAP
} hudi_tl_kind;

typedef struct hudi_tl_type hudi_tl_type;

typedef struct hudi_tl_field {
  const char *name; /* the Avro (and v6 JSON) field name */
  size_t offset;
  const hudi_tl_type *type;
} hudi_tl_field;

struct hudi_tl_type {
  hudi_tl_kind kind;
  size_t size;              /* bytes of the C form as an item (REC: the struct) */
  const hudi_tl_type *elem; /* ARRAY items, MAP values */
  size_t value_offset;      /* MAP: offset of the value in an entry */
  size_t entry_size;        /* MAP: sizeof the entry struct */
  const hudi_tl_field *fields; /* REC */
  size_t n_fields;
  const char *name; /* REC: the Avro record name, for messages */
};

extern const hudi_tl_type hudi_tl_t_str, hudi_tl_t_long, hudi_tl_t_int, hudi_tl_t_bool, hudi_tl_t_double;
extern const hudi_tl_type hudi_tl_t_str_array, hudi_tl_t_str_map, hudi_tl_t_long_map, hudi_tl_t_double_map,
    hudi_tl_t_strs_map;

#define HUDI_TL_FIELD(st, cname, aname, t) {aname, offsetof(st, cname), &(t)}
#define HUDI_TL_REC_TYPE(st, fields, name) \
  {HUDI_TL_REC, sizeof(st), NULL, 0, 0, fields, sizeof(fields) / sizeof((fields)[0]), name}
#define HUDI_TL_ARRAY_TYPE(elem) {HUDI_TL_ARRAY, sizeof(hudi_tl_list), &(elem), 0, 0, NULL, 0, NULL}
#define HUDI_TL_MAP_TYPE(entry_st, elem) \
  {HUDI_TL_MAP, sizeof(hudi_tl_list), &(elem), offsetof(entry_st, value), sizeof(entry_st), NULL, 0, NULL}

/* Caps on what one document may hold (hostile files). */
#define HUDI_TL_MAX_FILE ((size_t)256 << 20)

/* A zeroed document of record type t (t->size bytes, starting with a
 * hudi_tl_doc) with schema id. Free with hudi_tl_doc_free. */
HUDI_NODISCARD hudi_status hudi_tl_doc_new(void **out, const hudi_tl_type *t, hudi_tl_schema_id schema,
                                           hudi_error *err);
void hudi_tl_doc_free(void *doc);

/* Reads a timeline file holding exactly one record into a new document.
 * `ids` lists the schema ids the record type may have been written with,
 * newest first; the writer schema's record name picks the reader schema
 * (the first id with that name) so files of other Hudi versions resolve to
 * the same struct; doc->schema is the id whose string equals the file's
 * exactly, or that reader id. name labels errors. */
HUDI_NODISCARD hudi_status hudi_tl_read(void **out, const hudi_tl_type *t, const hudi_tl_schema_id *ids,
                                        size_t n_ids, const uint8_t *data, size_t len, const char *name,
                                        hudi_error *err);

/* Appends the container file Java writes for the document: header with
 * only avro.schema = the doc's schema string, null codec, one block with
 * the record. sync: 16 bytes, or NULL for a random marker. */
HUDI_NODISCARD hudi_status hudi_tl_write(const void *doc, const hudi_tl_type *t, const uint8_t *sync,
                                         hudi_buf *out, hudi_error *err);

/* The struct as an Avro value of schema node n (initialised here). */
HUDI_NODISCARD hudi_status hudi_tl_to_value(hudi_avro_value *out, hudi_avro_arena *arena, const hudi_avro_node *n,
                                            const void *rec, const hudi_tl_type *t, hudi_error *err);
/* Fills the zeroed struct rec from a record value; strings and lists go to arena. */
HUDI_NODISCARD hudi_status hudi_tl_from_value(void *rec, const hudi_tl_type *t, const hudi_avro_value *v,
                                              hudi_avro_arena *arena, hudi_error *err);

/* ---- building ---- */
/* A copy of s in the arena (NULL stays NULL). */
HUDI_NODISCARD hudi_status hudi_tl_strdup(hudi_avro_arena *a, const char *s, char **out, hudi_error *err);
/* Appends a zeroed item of item_size bytes (sets has). */
HUDI_NODISCARD hudi_status hudi_tl_list_push(hudi_tl_list *l, hudi_avro_arena *a, size_t item_size, void **item,
                                             hudi_error *err);
/* Appends a string to a list of char *. */
HUDI_NODISCARD hudi_status hudi_tl_strs_push(hudi_tl_list *l, hudi_avro_arena *a, const char *s, hudi_error *err);
/* Sets key in a map<string> (replacing an existing value). */
HUDI_NODISCARD hudi_status hudi_tl_str_map_set(hudi_tl_list *m, hudi_avro_arena *a, const char *key,
                                               const char *value, hudi_error *err);
/* The value of key in a map<string>, or NULL. */
const char *hudi_tl_str_map_get(const hudi_tl_list *m, const char *key);

/* The functions every document type has: prefix_new, _free, _parse (an
 * Avro container file, resolved to the newest schema of the type) and
 * _to_avro (the file Java writes; sync NULL = random). */
#define HUDI_TL_DOC_API(prefix, type_t)                                                                     \
  HUDI_NODISCARD hudi_status prefix##_new(type_t **out, hudi_error *err);                                  \
  void prefix##_free(type_t *p);                                                                           \
  HUDI_NODISCARD hudi_status prefix##_parse(type_t **out, const uint8_t *data, size_t len, const char *name, \
                                            hudi_error *err);                                              \
  HUDI_NODISCARD hudi_status prefix##_to_avro(const type_t *p, const uint8_t *sync, hudi_buf *out, hudi_error *err);

/* Defines them; ids: the schema ids of the type, newest first. */
#define HUDI_TL_DOC_IMPL(prefix, type_t, desc, ...)                                                           \
  hudi_status prefix##_new(type_t **out, hudi_error *err) {                                                  \
    static const hudi_tl_schema_id ids_[] = {__VA_ARGS__};                                                   \
    return hudi_tl_doc_new((void **)out, &(desc), ids_[0], err);                                             \
  }                                                                                                          \
  void prefix##_free(type_t *p) { hudi_tl_doc_free(p); }                                                     \
  hudi_status prefix##_parse(type_t **out, const uint8_t *data, size_t len, const char *name, hudi_error *err) { \
    static const hudi_tl_schema_id ids_[] = {__VA_ARGS__};                                                   \
    return hudi_tl_read((void **)out, &(desc), ids_, sizeof ids_ / sizeof ids_[0], data, len, name, err);    \
  }                                                                                                          \
  hudi_status prefix##_to_avro(const type_t *p, const uint8_t *sync, hudi_buf *out, hudi_error *err) {       \
    return hudi_tl_write(p, &(desc), sync, out, err);                                                        \
  }

static inline hudi_tl_long hudi_tl_some_long(int64_t v) {
  hudi_tl_long r = {v, 1};
  return r;
}

#endif
