/* Parquet schema -> Arrow schema, as pyarrow (Arrow C++'s parquet reader,
 * with its default options) maps it, plus the level facts the assembly step
 * (parquet/assemble.h) needs to rebuild each Arrow array from its leaves'
 * definition and repetition levels.
 *
 * The mapping (pyarrow 26 is the oracle):
 *   BOOLEAN -> bool; INT32 -> int32, or int8/int16/uint8/uint16/uint32
 *   (INTEGER / INT_x / UINT_x), date32 (DATE), time32[ms] (TIME millis),
 *   decimal128 (DECIMAL); INT64 -> int64, uint64, timestamp[unit] with tz
 *   "UTC" when isAdjustedToUTC (the legacy TIMESTAMP_MILLIS/MICROS converted
 *   types count as adjusted), time64[us|ns], decimal128; INT96 ->
 *   timestamp[ns] without tz; FLOAT/DOUBLE -> float/double; BYTE_ARRAY ->
 *   string (STRING/UTF8), extension arrow.json over string (JSON), binary
 *   (none, ENUM, BSON), decimal; FIXED_LEN_BYTE_ARRAY -> fixed_size_binary,
 *   extension arrow.uuid over fixed_size_binary(16) (UUID), halffloat
 *   (FLOAT16), decimal. Decimals with precision > 38 are decimal256.
 *   Groups -> struct; LIST groups -> list (3-level form and the legacy
 *   2-level forms of parquet-format's LogicalTypes.md backward-compatibility
 *   rules); MAP / MAP_KEY_VALUE -> map (entries named after the map, as
 *   pyarrow does); a repeated field outside a LIST -> a non-null list of
 *   non-null elements named like the field. REQUIRED fields are not
 *   nullable; field ids go into field metadata as "PARQUET:field_id".
 *
 * Not done: the "ARROW:schema" key pyarrow stores in the footer (original
 * Arrow types: time zone names, large types, dictionaries, durations) is
 * not applied; files written with store_schema=False (and all Spark files)
 * map exactly. */
#ifndef HUDI_PARQUET_SCHEMA_ARROW_H
#define HUDI_PARQUET_SCHEMA_ARROW_H

#include <stdbool.h>
#include <stdint.h>

#include "arrow/field.h"
#include "base/error.h"
#include "parquet/column_reader.h"
#include "parquet/metadata.h"

typedef enum hudi_pq_node_kind {
  HUDI_PQ_NODE_LEAF,
  HUDI_PQ_NODE_STRUCT,
  HUDI_PQ_NODE_LIST,
  HUDI_PQ_NODE_MAP /* one child: the entries struct (key, value) */
} hudi_pq_node_kind;

/* How a leaf's dense Parquet values become Arrow values. */
typedef enum hudi_pq_rconv {
  HUDI_PQ_RCONV_COPY,    /* same bytes, out_width each */
  HUDI_PQ_RCONV_BOOL,    /* one byte 0/1 -> bits */
  HUDI_PQ_RCONV_I32_I8,  /* narrowing (int8/uint8) */
  HUDI_PQ_RCONV_I32_I16, /* narrowing (int16/uint16) */
  HUDI_PQ_RCONV_INT96,   /* Julian day + nanos of day -> int64 ns since epoch */
  HUDI_PQ_RCONV_DEC_I32, /* sign-extended to out_width bytes */
  HUDI_PQ_RCONV_DEC_I64,
  HUDI_PQ_RCONV_DEC_BE,  /* big-endian two's complement bytes -> little-endian out_width */
  HUDI_PQ_RCONV_BYTES    /* string / binary with int32 offsets */
} hudi_pq_rconv;

#define HUDI_PQ_FORMAT_MAX 48

typedef struct hudi_pq_node {
  hudi_pq_node_kind kind;
  const char *name;       /* borrowed from the file metadata */
  bool nullable;
  bool has_field_id;
  int32_t field_id;
  char format[HUDI_PQ_FORMAT_MAX]; /* the Arrow format string */
  const char *extension;  /* "arrow.uuid", "arrow.json" or NULL */
  /* Levels. An entry (def, rep) of the node's first leaf starts a slot of
   * this node iff rep <= slot_rep && def >= slot_def; that slot is valid
   * iff def >= def. Lists and maps: the entry also starts an element iff
   * rep <= elem_rep && def >= elem_def. */
  int16_t def, slot_rep, slot_def, elem_rep, elem_def;
  uint32_t leaf_begin, leaf_end; /* leaves under the node, [begin, end) in column order */
  /* Leaves. */
  hudi_pq_rconv conv;
  int32_t out_width; /* bytes per Arrow value (fixed-width leaves) */
  uint32_t n_children;
  struct hudi_pq_node *children;
} hudi_pq_node;

typedef struct hudi_pq_arrow_schema {
  hudi_pq_node root; /* a struct; its children are the file's top-level columns */
  hudi_pq_leaf *leaves; /* from hudi_pq_schema_leaves (arena-owned) */
  uint32_t num_leaves;
} hudi_pq_arrow_schema;

/* Maps m's schema. Leaves and names live in arena / m; the nodes are owned
 * by *out (hudi_pq_arrow_schema_free). Errors name the element. */
HUDI_NODISCARD hudi_status hudi_pq_arrow_schema_make(hudi_pq_arrow_schema *out, const hudi_pq_file_meta *m,
                                                     hudi_pq_arena *arena, hudi_error *err);
void hudi_pq_arrow_schema_free(hudi_pq_arrow_schema *s);

/* The Arrow field of node n, keeping only the parts with a selected leaf
 * (selected == NULL: all; a map keeps both key and value whenever any of
 * its leaves is selected). *out is owned by the caller (clear it). */
HUDI_NODISCARD hudi_status hudi_pq_node_field(hudi_arrow_field *out, const hudi_pq_node *n, const bool *selected,
                                              hudi_error *err);

/* True when some leaf of n is selected (selected == NULL: always). */
bool hudi_pq_node_has_selected(const hudi_pq_node *n, const bool *selected);

#endif
