/* Parquet schema -> Arrow schema and level facts (see schema_arrow.h). */
#include "parquet/schema_arrow.h"

#include <stdio.h>
#include <string.h>

#include "arrow/metadata.h"
#include "base/alloc.h"
#include "base/buf.h"

/* Converted types past the ones metadata.h names. */
enum {
  CT_ENUM = 4,
  CT_TIME_MILLIS = 7,
  CT_TIME_MICROS = 8,
  CT_UINT_8 = 11,
  CT_UINT_16 = 12,
  CT_UINT_32 = 13,
  CT_UINT_64 = 14,
  CT_INT_8 = 15,
  CT_INT_16 = 16,
  CT_INT_32 = 17,
  CT_INT_64 = 18,
  CT_JSON = 19,
  CT_BSON = 20
};

typedef struct build_ctx {
  const hudi_pq_file_meta *m;
  uint32_t leaf; /* next leaf number */
  hudi_error *err;
} build_ctx;

static hudi_status corrupt(build_ctx *c, uint32_t idx, const char *what) {
  const char *name = idx < c->m->num_schema && c->m->schema[idx].name ? c->m->schema[idx].name : "?";
  return hudi_err_set(c->err, HUDI_ERR_CORRUPT, "parquet schema element %u ('%s'): %s", idx, name, what);
}

static int32_t n_children(const hudi_pq_schema_element *e) {
  return e->has_num_children && e->num_children > 0 ? e->num_children : 0;
}

static hudi_pq_repetition repetition(const hudi_pq_schema_element *e) {
  return e->has_repetition ? e->repetition : HUDI_PQ_REQUIRED;
}

/* The logical type, derived from the converted type when absent. */
static hudi_pq_logical_type logical_of(const hudi_pq_schema_element *e) {
  hudi_pq_logical_type lt = e->logical;
  if (lt.kind != HUDI_PQ_LT_NONE || !e->has_converted_type) return lt;
  memset(&lt, 0, sizeof lt);
  switch (e->converted_type) {
    case HUDI_PQ_CT_UTF8: lt.kind = HUDI_PQ_LT_STRING; break;
    case HUDI_PQ_CT_MAP:
    case HUDI_PQ_CT_MAP_KEY_VALUE: lt.kind = HUDI_PQ_LT_MAP; break;
    case HUDI_PQ_CT_LIST: lt.kind = HUDI_PQ_LT_LIST; break;
    case CT_ENUM: lt.kind = HUDI_PQ_LT_ENUM; break;
    case HUDI_PQ_CT_DECIMAL:
      lt.kind = HUDI_PQ_LT_DECIMAL;
      lt.precision = e->has_precision ? e->precision : 0;
      lt.scale = e->has_scale ? e->scale : 0;
      break;
    case HUDI_PQ_CT_DATE: lt.kind = HUDI_PQ_LT_DATE; break;
    case CT_TIME_MILLIS:
    case CT_TIME_MICROS:
      lt.kind = HUDI_PQ_LT_TIME;
      lt.unit = e->converted_type == CT_TIME_MILLIS ? HUDI_PQ_UNIT_MILLIS : HUDI_PQ_UNIT_MICROS;
      lt.is_adjusted_to_utc = true;
      break;
    case HUDI_PQ_CT_TIMESTAMP_MILLIS:
    case HUDI_PQ_CT_TIMESTAMP_MICROS:
      /* Converted timestamps are UTC-normalised (parquet-format). */
      lt.kind = HUDI_PQ_LT_TIMESTAMP;
      lt.unit = e->converted_type == HUDI_PQ_CT_TIMESTAMP_MILLIS ? HUDI_PQ_UNIT_MILLIS : HUDI_PQ_UNIT_MICROS;
      lt.is_adjusted_to_utc = true;
      break;
    case CT_UINT_8: case CT_UINT_16: case CT_UINT_32: case CT_UINT_64:
    case CT_INT_8: case CT_INT_16: case CT_INT_32: case CT_INT_64: {
      static const int8_t widths[] = {8, 16, 32, 64};
      int k = e->converted_type >= CT_INT_8 ? e->converted_type - CT_INT_8 : e->converted_type - CT_UINT_8;
      lt.kind = HUDI_PQ_LT_INTEGER;
      lt.bit_width = widths[k];
      lt.is_signed = e->converted_type >= CT_INT_8;
      break;
    }
    case CT_JSON: lt.kind = HUDI_PQ_LT_JSON; break;
    case CT_BSON: lt.kind = HUDI_PQ_LT_BSON; break;
    default: break;
  }
  return lt;
}

static hudi_status set_decimal(build_ctx *c, uint32_t idx, hudi_pq_node *n, const hudi_pq_logical_type *lt,
                               hudi_pq_rconv conv) {
  if (lt->precision <= 0 || lt->precision > 76 || lt->scale < 0 || lt->scale > lt->precision)
    return corrupt(c, idx, "decimal precision/scale out of range");
  n->conv = conv;
  if (lt->precision <= 38) {
    n->out_width = 16;
    snprintf(n->format, sizeof n->format, "d:%d,%d", lt->precision, lt->scale);
  } else {
    n->out_width = 32;
    snprintf(n->format, sizeof n->format, "d:%d,%d,256", lt->precision, lt->scale);
  }
  return HUDI_OK;
}

static const char unit_char[] = {'u', 'm', 'u', 'n'}; /* by hudi_pq_time_unit */

static hudi_status leaf_int32(build_ctx *c, uint32_t idx, hudi_pq_node *n, const hudi_pq_logical_type *lt) {
  n->conv = HUDI_PQ_RCONV_COPY;
  n->out_width = 4;
  strcpy(n->format, "i");
  switch (lt->kind) {
    case HUDI_PQ_LT_INTEGER:
      if (lt->bit_width == 8) {
        strcpy(n->format, lt->is_signed ? "c" : "C");
        n->conv = HUDI_PQ_RCONV_I32_I8;
        n->out_width = 1;
      } else if (lt->bit_width == 16) {
        strcpy(n->format, lt->is_signed ? "s" : "S");
        n->conv = HUDI_PQ_RCONV_I32_I16;
        n->out_width = 2;
      } else if (lt->bit_width == 32) {
        strcpy(n->format, lt->is_signed ? "i" : "I");
      } else {
        return corrupt(c, idx, "INT32 column with a 64-bit integer annotation");
      }
      break;
    case HUDI_PQ_LT_DATE: strcpy(n->format, "tdD"); break;
    case HUDI_PQ_LT_TIME:
      if (lt->unit != HUDI_PQ_UNIT_MILLIS) return corrupt(c, idx, "INT32 time that is not in milliseconds");
      strcpy(n->format, "ttm");
      break;
    case HUDI_PQ_LT_DECIMAL: return set_decimal(c, idx, n, lt, HUDI_PQ_RCONV_DEC_I32);
    default: break;
  }
  return HUDI_OK;
}

static hudi_status leaf_int64(build_ctx *c, uint32_t idx, hudi_pq_node *n, const hudi_pq_logical_type *lt) {
  n->conv = HUDI_PQ_RCONV_COPY;
  n->out_width = 8;
  strcpy(n->format, "l");
  switch (lt->kind) {
    case HUDI_PQ_LT_INTEGER:
      if (lt->bit_width != 64) return corrupt(c, idx, "INT64 column with a narrow integer annotation");
      strcpy(n->format, lt->is_signed ? "l" : "L");
      break;
    case HUDI_PQ_LT_TIMESTAMP:
      if (lt->unit < HUDI_PQ_UNIT_MILLIS || lt->unit > HUDI_PQ_UNIT_NANOS) return corrupt(c, idx, "timestamp unit");
      snprintf(n->format, sizeof n->format, "ts%c:%s", unit_char[lt->unit], lt->is_adjusted_to_utc ? "UTC" : "");
      break;
    case HUDI_PQ_LT_TIME:
      if (lt->unit != HUDI_PQ_UNIT_MICROS && lt->unit != HUDI_PQ_UNIT_NANOS)
        return corrupt(c, idx, "INT64 time in milliseconds");
      snprintf(n->format, sizeof n->format, "tt%c", unit_char[lt->unit]);
      break;
    case HUDI_PQ_LT_DECIMAL: return set_decimal(c, idx, n, lt, HUDI_PQ_RCONV_DEC_I64);
    default: break;
  }
  return HUDI_OK;
}

static hudi_status leaf_type(build_ctx *c, uint32_t idx, hudi_pq_node *n) {
  const hudi_pq_schema_element *e = &c->m->schema[idx];
  hudi_pq_logical_type lt = logical_of(e);
  switch (e->type) {
    case HUDI_PQ_BOOLEAN:
      n->conv = HUDI_PQ_RCONV_BOOL;
      strcpy(n->format, "b");
      return HUDI_OK;
    case HUDI_PQ_INT32: return leaf_int32(c, idx, n, &lt);
    case HUDI_PQ_INT64: return leaf_int64(c, idx, n, &lt);
    case HUDI_PQ_INT96:
      n->conv = HUDI_PQ_RCONV_INT96;
      n->out_width = 8;
      strcpy(n->format, "tsn:");
      return HUDI_OK;
    case HUDI_PQ_FLOAT:
      n->conv = HUDI_PQ_RCONV_COPY;
      n->out_width = 4;
      strcpy(n->format, "f");
      return HUDI_OK;
    case HUDI_PQ_DOUBLE:
      n->conv = HUDI_PQ_RCONV_COPY;
      n->out_width = 8;
      strcpy(n->format, "g");
      return HUDI_OK;
    case HUDI_PQ_BYTE_ARRAY:
      n->conv = HUDI_PQ_RCONV_BYTES;
      if (lt.kind == HUDI_PQ_LT_DECIMAL) return set_decimal(c, idx, n, &lt, HUDI_PQ_RCONV_DEC_BE);
      strcpy(n->format, lt.kind == HUDI_PQ_LT_STRING || lt.kind == HUDI_PQ_LT_JSON ? "u" : "z");
      if (lt.kind == HUDI_PQ_LT_JSON) n->extension = "arrow.json";
      return HUDI_OK;
    case HUDI_PQ_FIXED_LEN_BYTE_ARRAY:
      if (lt.kind == HUDI_PQ_LT_DECIMAL) return set_decimal(c, idx, n, &lt, HUDI_PQ_RCONV_DEC_BE);
      n->conv = HUDI_PQ_RCONV_COPY;
      n->out_width = e->type_length;
      if (lt.kind == HUDI_PQ_LT_FLOAT16 && e->type_length == 2) {
        strcpy(n->format, "e");
        return HUDI_OK;
      }
      if (lt.kind == HUDI_PQ_LT_UUID && e->type_length == 16) n->extension = "arrow.uuid";
      snprintf(n->format, sizeof n->format, "w:%d", e->type_length);
      return HUDI_OK;
  }
  return corrupt(c, idx, "unknown physical type");
}

static void set_common(hudi_pq_node *n, const hudi_pq_schema_element *e, bool nullable, int16_t def,
                       int16_t slot_rep, int16_t slot_def) {
  n->name = e->name;
  n->nullable = nullable;
  n->has_field_id = e->has_field_id;
  n->field_id = e->field_id;
  n->def = def;
  n->slot_rep = slot_rep;
  n->slot_def = slot_def;
}

static hudi_status alloc_children(build_ctx *c, hudi_pq_node *n, uint32_t k) {
  n->children = hudi_calloc(k ? k : 1, sizeof *n->children);
  if (!n->children) return hudi_err_set(c->err, HUDI_ERR_NOMEM, "out of memory mapping the parquet schema");
  n->n_children = k;
  return HUDI_OK;
}

static hudi_status build(build_ctx *c, hudi_pq_node *out, uint32_t *idx, int16_t pdef, int16_t prep,
                         int16_t slot_rep, int16_t slot_def, int depth);

/* A struct over the children of element idx (already consumed); the
 * children's levels start from (def, rep) and their slots are the node's. */
static hudi_status build_struct(build_ctx *c, hudi_pq_node *n, uint32_t e_idx, uint32_t *idx, int16_t def,
                                int16_t rep, int depth) {
  const hudi_pq_schema_element *e = &c->m->schema[e_idx];
  n->kind = HUDI_PQ_NODE_STRUCT;
  strcpy(n->format, "+s");
  n->leaf_begin = c->leaf;
  HUDI_TRY(alloc_children(c, n, (uint32_t)n_children(e)));
  for (uint32_t i = 0; i < n->n_children; i++)
    HUDI_TRY(build(c, &n->children[i], idx, def, rep, n->slot_rep, n->slot_def, depth + 1));
  n->leaf_end = c->leaf;
  return HUDI_OK;
}

/* Builds the content of element e_idx (consumed here) whose own levels are
 * (def, rep), as a node that is valid at def. */
static hudi_status build_body(build_ctx *c, hudi_pq_node *n, uint32_t *idx, int16_t def, int16_t rep, int depth);

/* A list or map: the element at *idx (the LIST/MAP group, consumed by the
 * caller) has exactly one repeated child r; elements exist at r's levels. */
static hudi_status build_list(build_ctx *c, hudi_pq_node *n, uint32_t g_idx, uint32_t *idx, int16_t def,
                              int16_t rep, bool is_map, int depth) {
  const hudi_pq_schema_element *g = &c->m->schema[g_idx];
  uint32_t r_idx = (*idx)++;
  const hudi_pq_schema_element *r = &c->m->schema[r_idx];
  int16_t rdef = (int16_t)(def + 1), rrep = (int16_t)(rep + 1);
  n->elem_rep = rrep;
  n->elem_def = rdef;
  HUDI_TRY(alloc_children(c, n, 1));
  hudi_pq_node *el = &n->children[0];
  int32_t rk = n_children(r);
  if (is_map && rk == 2) {
    n->kind = HUDI_PQ_NODE_MAP;
    strcpy(n->format, "+m");
    /* pyarrow names the entries struct after the map itself. */
    set_common(el, r, false, rdef, rrep, rdef);
    el->name = g->name;
    el->has_field_id = r->has_field_id;
    return build_struct(c, el, r_idx, idx, rdef, rrep, depth + 1);
  }
  n->kind = HUDI_PQ_NODE_LIST;
  strcpy(n->format, "+l");
  /* LogicalTypes.md backward-compatibility rules: the repeated field is
   * the element when it is primitive, has several fields, or is named
   * "array" or "<list>_tuple"; otherwise its one child is. */
  size_t glen = strlen(g->name);
  bool tuple = strlen(r->name) == glen + 6 && strncmp(r->name, g->name, glen) == 0 &&
               strcmp(r->name + glen, "_tuple") == 0;
  if (rk != 1 || strcmp(r->name, "array") == 0 || tuple || is_map) {
    set_common(el, r, false, rdef, rrep, rdef);
    if (rk == 0) {
      el->kind = HUDI_PQ_NODE_LEAF;
      el->leaf_begin = c->leaf;
      el->leaf_end = ++c->leaf;
      return leaf_type(c, r_idx, el);
    }
    return build_struct(c, el, r_idx, idx, rdef, rrep, depth + 1);
  }
  return build(c, el, idx, rdef, rrep, rrep, rdef, depth + 1);
}

static hudi_status build_body(build_ctx *c, hudi_pq_node *n, uint32_t *idx, int16_t def, int16_t rep, int depth) {
  uint32_t e_idx = (*idx)++;
  const hudi_pq_schema_element *e = &c->m->schema[e_idx];
  n->leaf_begin = c->leaf;
  if (n_children(e) == 0) {
    n->kind = HUDI_PQ_NODE_LEAF;
    c->leaf++;
    HUDI_TRY(leaf_type(c, e_idx, n));
  } else {
    hudi_pq_logical_type lt = logical_of(e);
    bool one_repeated = n_children(e) == 1 && *idx < c->m->num_schema &&
                        repetition(&c->m->schema[*idx]) == HUDI_PQ_REPEATED;
    if ((lt.kind == HUDI_PQ_LT_LIST || lt.kind == HUDI_PQ_LT_MAP) && one_repeated)
      HUDI_TRY(build_list(c, n, e_idx, idx, def, rep, lt.kind == HUDI_PQ_LT_MAP, depth));
    else
      HUDI_TRY(build_struct(c, n, e_idx, idx, def, rep, depth));
  }
  n->leaf_end = c->leaf;
  return HUDI_OK;
}

static hudi_status build(build_ctx *c, hudi_pq_node *out, uint32_t *idx, int16_t pdef, int16_t prep,
                         int16_t slot_rep, int16_t slot_def, int depth) {
  if (*idx >= c->m->num_schema) return corrupt(c, *idx, "children counts exceed the schema");
  if (depth >= HUDI_PQ_MAX_NESTING) return corrupt(c, *idx, "nesting is too deep");
  const hudi_pq_schema_element *e = &c->m->schema[*idx];
  hudi_pq_repetition r = repetition(e);
  int16_t def = (int16_t)(pdef + (r != HUDI_PQ_REQUIRED));
  int16_t rep = (int16_t)(prep + (r == HUDI_PQ_REPEATED));
  if (r != HUDI_PQ_REPEATED) {
    set_common(out, e, r == HUDI_PQ_OPTIONAL, def, slot_rep, slot_def);
    return build_body(c, out, idx, def, rep, depth);
  }
  /* A repeated field outside a LIST: a non-null list of non-null elements. */
  set_common(out, e, false, pdef, slot_rep, slot_def);
  out->has_field_id = false;
  out->kind = HUDI_PQ_NODE_LIST;
  strcpy(out->format, "+l");
  out->elem_rep = rep;
  out->elem_def = def;
  out->leaf_begin = c->leaf;
  HUDI_TRY(alloc_children(c, out, 1));
  set_common(&out->children[0], e, false, def, rep, def);
  HUDI_TRY(build_body(c, &out->children[0], idx, def, rep, depth + 1));
  out->leaf_end = c->leaf;
  return HUDI_OK;
}

static void node_free(hudi_pq_node *n) {
  for (uint32_t i = 0; i < n->n_children; i++) node_free(&n->children[i]);
  hudi_free(n->children);
  n->children = NULL;
  n->n_children = 0;
}

void hudi_pq_arrow_schema_free(hudi_pq_arrow_schema *s) {
  if (s) node_free(&s->root);
}

hudi_status hudi_pq_arrow_schema_make(hudi_pq_arrow_schema *out, const hudi_pq_file_meta *m, hudi_pq_arena *arena,
                                      hudi_error *err) {
  memset(out, 0, sizeof *out);
  HUDI_TRY(hudi_pq_schema_leaves(&out->leaves, &out->num_leaves, m, arena, err));
  build_ctx c = {.m = m, .err = err};
  hudi_pq_node *root = &out->root;
  root->kind = HUDI_PQ_NODE_STRUCT;
  root->name = "";
  strcpy(root->format, "+s");
  hudi_status st = alloc_children(&c, root, (uint32_t)n_children(&m->schema[0]));
  uint32_t idx = 1;
  for (uint32_t i = 0; st == HUDI_OK && i < root->n_children; i++)
    st = build(&c, &root->children[i], &idx, 0, 0, 0, 0, 0);
  if (st == HUDI_OK && c.leaf != out->num_leaves)
    st = hudi_err_set(err, HUDI_ERR_INTERNAL, "parquet schema: %u leaves mapped, %u listed", c.leaf, out->num_leaves);
  root->leaf_end = c.leaf;
  if (st != HUDI_OK) hudi_pq_arrow_schema_free(out);
  return st;
}

/* ---- Arrow fields ---- */

bool hudi_pq_node_has_selected(const hudi_pq_node *n, const bool *selected) {
  if (!selected) return true;
  for (uint32_t i = n->leaf_begin; i < n->leaf_end; i++)
    if (selected[i]) return true;
  return false;
}

static hudi_status field_metadata(hudi_arrow_field *f, const hudi_pq_node *n, hudi_error *err) {
  hudi_arrow_kv kv[3];
  int32_t k = 0;
  char id[16];
  if (n->has_field_id) {
    snprintf(id, sizeof id, "%d", n->field_id);
    kv[k++] = (hudi_arrow_kv){"PARQUET:field_id", 16, id, (int32_t)strlen(id)};
  }
  if (n->extension) {
    kv[k++] = (hudi_arrow_kv){"ARROW:extension:name", 20, n->extension, (int32_t)strlen(n->extension)};
    kv[k++] = (hudi_arrow_kv){"ARROW:extension:metadata", 24, "", 0};
  }
  if (k == 0) return HUDI_OK;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_status st = hudi_arrow_metadata_encode(&b, kv, k, err);
  if (st == HUDI_OK) st = hudi_arrow_field_set_metadata(f, (const char *)b.data, err);
  hudi_buf_free(&b);
  return st;
}

hudi_status hudi_pq_node_field(hudi_arrow_field *out, const hudi_pq_node *n, const bool *selected, hudi_error *err) {
  memset(out, 0, sizeof *out);
  const bool *sel = n->kind == HUDI_PQ_NODE_MAP ? NULL : selected;
  HUDI_TRY(hudi_arrow_field_init(out, n->name, n->format, n->nullable ? ARROW_FLAG_NULLABLE : 0, err));
  hudi_status st = field_metadata(out, n, err);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n->n_children; i++) k += hudi_pq_node_has_selected(&n->children[i], sel);
  if (st == HUDI_OK && k) st = hudi_arrow_field_alloc_children(out, k, err);
  for (uint32_t i = 0, j = 0; st == HUDI_OK && i < n->n_children; i++)
    if (hudi_pq_node_has_selected(&n->children[i], sel))
      st = hudi_pq_node_field(&out->children[j++], &n->children[i], sel, err);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}
