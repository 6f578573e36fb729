/* Arrow schema -> Parquet schema, the way the writer needs it: the flat
 * list of SchemaElements for the footer, and for every leaf column the
 * plan that shreds Arrow arrays into its levels and values (which Arrow
 * children to descend into, where definition and repetition levels rise,
 * how Arrow values become Parquet physical values).
 *
 * The mapping follows what pyarrow writes (format 2.6): INT(8, true) etc.
 * annotations, uint32 as INT32 UINT_32, uint64 as INT64 UINT_64, timestamp
 * seconds widened to milliseconds, isAdjustedToUTC from the timezone,
 * decimals as big-endian FIXED_LEN_BYTE_ARRAY of the minimal width (as
 * pyarrow, parquet-avro and the Spark-written Hudi fixtures store them).
 * Options give the forms Hudi's Java writer (parquet-avro) uses: 2-level
 * lists (`repeated <element> array`) and MAP_KEY_VALUE on the key_value
 * group. */
#ifndef HUDI_PARQUET_ARROW_TO_PARQUET_H
#define HUDI_PARQUET_ARROW_TO_PARQUET_H

#include <stdbool.h>
#include <stdint.h>

#include "arrow/field.h"
#include "base/error.h"
#include "parquet/metadata.h"

typedef enum hudi_pq_list_style {
  HUDI_PQ_LIST_3LEVEL = 0, /* optional group f (LIST) { repeated group list { <nullability> element } } */
  HUDI_PQ_LIST_2LEVEL = 1  /* optional group f (LIST) { repeated <element> array } (parquet-avro default) */
} hudi_pq_list_style;

typedef struct hudi_pq_schema_options {
  hudi_pq_list_style list_style;
  bool map_key_value_legacy; /* annotate the repeated key_value group MAP_KEY_VALUE (parquet-avro) */
  bool decimal_as_integer;   /* precision <= 9: INT32, <= 18: INT64 (Spark's non-legacy form) */
  const char *root_name;     /* the root element's name; NULL: "schema" (pyarrow) */
} hudi_pq_schema_options;

#define HUDI_PQ_SCHEMA_OPTIONS_INIT {HUDI_PQ_LIST_3LEVEL, false, false, NULL}

/* How one Arrow value becomes one Parquet physical value. */
typedef enum hudi_pq_conv {
  HUDI_PQ_CONV_BOOL,      /* bit -> one byte 0/1 (the page writer's form) */
  HUDI_PQ_CONV_COPY,      /* same bytes (int32/64, float, double, date32, ...) */
  HUDI_PQ_CONV_I8,        /* int8 -> int32 */
  HUDI_PQ_CONV_U8,        /* uint8 -> int32 */
  HUDI_PQ_CONV_I16,
  HUDI_PQ_CONV_U16,
  HUDI_PQ_CONV_MUL32,     /* int32 * factor (time32[s] -> ms) */
  HUDI_PQ_CONV_MUL64,     /* int64 * factor (timestamp[s] -> ms) */
  HUDI_PQ_CONV_DATE64,    /* int64 ms -> int32 days (floor) */
  HUDI_PQ_CONV_DEC_FLBA,  /* little-endian decimal -> big-endian, low type_length bytes */
  HUDI_PQ_CONV_DEC_I32,   /* decimal -> its low 32 bits */
  HUDI_PQ_CONV_DEC_I64,
  HUDI_PQ_CONV_BYTES      /* any string/binary/fixed-size binary flavour */
} hudi_pq_conv;

/* The order min/max statistics follow (parquet-format's ColumnOrder). */
typedef enum hudi_pq_sort {
  HUDI_PQ_SORT_NONE = 0,   /* no statistics */
  HUDI_PQ_SORT_BOOL,
  HUDI_PQ_SORT_I32,
  HUDI_PQ_SORT_U32,
  HUDI_PQ_SORT_I64,
  HUDI_PQ_SORT_U64,
  HUDI_PQ_SORT_FLOAT,
  HUDI_PQ_SORT_DOUBLE,
  HUDI_PQ_SORT_FLOAT16,    /* FLBA(2) little-endian half floats */
  HUDI_PQ_SORT_BYTES,      /* unsigned bytewise (strings, binary, plain FLBA) */
  HUDI_PQ_SORT_DECIMAL     /* big-endian two's complement FLBA */
} hudi_pq_sort;

/* One Arrow node on the way from a top-level column to a leaf. */
typedef enum hudi_pq_step_kind { HUDI_PQ_STEP_LEAF, HUDI_PQ_STEP_STRUCT, HUDI_PQ_STEP_LIST } hudi_pq_step_kind;

typedef struct hudi_pq_step {
  hudi_pq_step_kind kind;
  bool optional;  /* the node may be null (a null element costs one level at def - 1) */
  int32_t child;  /* index of this node among its parent view's children */
  int16_t def;    /* definition level of a present (non-null) element */
  int16_t rep;    /* LIST: repetition level of its elements */
} hudi_pq_step;

typedef struct hudi_pq_leaf_plan {
  char *name;                /* dotted Arrow path, for messages */
  char **path;               /* path_in_schema */
  uint32_t path_len;
  hudi_pq_step *steps;       /* steps[0]: the top-level column */
  uint32_t n_steps;
  uint32_t top;              /* index of the top-level Arrow column */
  uint32_t element;          /* index of the leaf's SchemaElement */
  hudi_pq_type type;
  int32_t type_length;
  int16_t max_def, max_rep;
  hudi_pq_conv conv;
  int64_t factor;            /* MUL32 / MUL64 */
  int32_t src_width;         /* DEC_*: Arrow decimal byte width */
  hudi_pq_sort sort;
  bool dictionary_ok;        /* dictionary encoding applies (not BOOLEAN) */
} hudi_pq_leaf_plan;

typedef struct hudi_pq_wschema {
  hudi_pq_arena arena;       /* owns everything below */
  hudi_pq_schema_element *elements;
  uint32_t n_elements;
  hudi_pq_leaf_plan *leaves;
  uint32_t n_leaves;
} hudi_pq_wschema;

/* Maps a struct field (a record batch's schema) to Parquet. Types Parquet
 * cannot hold (null, dense/sparse unions, empty structs, intervals,
 * dictionary-encoded nested values) are HUDI_ERR_UNSUPPORTED naming the
 * column. On success *out owns its arena; free with
 * hudi_pq_wschema_free. */
HUDI_NODISCARD hudi_status hudi_pq_wschema_build(hudi_pq_wschema *out, const hudi_arrow_field *schema,
                                                 const hudi_pq_schema_options *opts, hudi_error *err);
void hudi_pq_wschema_free(hudi_pq_wschema *s);

/* Bytes a big-endian two's complement value of `precision` decimal digits
 * needs (pyarrow's and parquet-avro's FLBA width). */
int32_t hudi_pq_decimal_flba_width(int32_t precision);

#endif
