/* SIMPLE / COMPLEX / NON_PARTITION key generators (KeyGenUtils,
 * PartitionPathEncodeUtils; hudi-write-semantics.md §2). */
#include "table/keygen.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/java_text.h"

#define DEFAULT_PARTITION "__HIVE_DEFAULT_PARTITION__"

static hudi_status split_fields(char **out, size_t *n, const char *list, const char *what, hudi_error *err) {
  *n = 0;
  if (!list || !*list) return HUDI_OK;
  const char *p = list;
  for (;;) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    while (len && (*p == ' ')) p++, len--;
    while (len && p[len - 1] == ' ') len--;
    if (len == 0) return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s '%s' has an empty field", what, list);
    if (*n == HUDI_KEYGEN_MAX_FIELDS) return hudi_err_set(err, HUDI_ERR_LIMIT, "%s '%s': too many fields", what, list);
    out[*n] = hudi_malloc(len + 1);
    if (!out[*n]) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory");
    memcpy(out[*n], p, len);
    out[*n][len] = '\0';
    (*n)++;
    if (!c) break;
    p = c + 1;
  }
  return HUDI_OK;
}

static bool prop_true(const hudi_props *p, const char *key) {
  const char *v = hudi_props_get(p, key);
  return v && !strcasecmp(v, "true");
}

hudi_status hudi_keygen_init(hudi_keygen *kg, const hudi_props *props, int table_version, hudi_error *err) {
  memset(kg, 0, sizeof *kg);
  hudi_status st = split_fields(kg->key_fields, &kg->n_keys, hudi_props_get(props, "hoodie.table.recordkey.fields"),
                                "hoodie.table.recordkey.fields", err);
  if (st == HUDI_OK)
    st = split_fields(kg->part_fields, &kg->n_parts, hudi_props_get(props, "hoodie.table.partition.fields"),
                      "hoodie.table.partition.fields", err);
  if (st == HUDI_OK && kg->n_keys == 0)
    st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                      "the table has no hoodie.table.recordkey.fields (auto-generated keys are not supported)");
  if (st != HUDI_OK) {
    hudi_keygen_free(kg);
    return st;
  }
  const char *type = hudi_props_get(props, "hoodie.table.keygenerator.type");
  const char *cls = hudi_props_get(props, "hoodie.table.keygenerator.class");
  char inferred[32];
  if (!type && cls) {
    const char *dot = strrchr(cls, '.');
    const char *n = dot ? dot + 1 : cls;
    if (!strncmp(n, "SimpleKeyGenerator", 18) || !strncmp(n, "SimpleAvroKeyGenerator", 22)) type = "SIMPLE";
    else if (!strncmp(n, "ComplexKeyGenerator", 19) || !strncmp(n, "ComplexAvroKeyGenerator", 23)) type = "COMPLEX";
    else if (!strncmp(n, "Nonpartitioned", 14)) type = "NON_PARTITION";
    else type = cls;
  }
  if (!type) { /* KeyGenUtils.inferKeyGeneratorType */
    snprintf(inferred, sizeof inferred, "%s",
             kg->n_parts == 0 ? "NON_PARTITION" : (kg->n_parts == 1 && kg->n_keys <= 1) ? "SIMPLE" : "COMPLEX");
    type = inferred;
  }
  size_t tl = strlen(type);
  if (tl > 5 && !strcmp(type + tl - 5, "_AVRO")) tl -= 5;
  if (tl == 6 && !strncmp(type, "SIMPLE", 6)) kg->kind = HUDI_KEYGEN_SIMPLE;
  else if (tl == 7 && !strncmp(type, "COMPLEX", 7)) kg->kind = HUDI_KEYGEN_COMPLEX;
  else if (tl == 13 && !strncmp(type, "NON_PARTITION", 13)) kg->kind = HUDI_KEYGEN_NON_PARTITION;
  else st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "key generator %s is not supported for writing", type);
  if (st == HUDI_OK && kg->kind == HUDI_KEYGEN_NON_PARTITION && kg->n_parts)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "NON_PARTITION key generator with partition fields");
  if (st == HUDI_OK && kg->kind == HUDI_KEYGEN_SIMPLE && kg->n_parts != 1)
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "SIMPLE key generator needs exactly one partition field");
  if (st == HUDI_OK && kg->kind == HUDI_KEYGEN_COMPLEX && kg->n_keys == 1) {
    /* HUDI-7001: the one-field COMPLEX key is "f:v" from table version 9 on,
     * the bare value in 1.0.x's version 8 -- ambiguous, so refused there. */
    if (table_version >= 9) kg->key_with_names = true;
    else
      st = hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                        "COMPLEX key generator with one record key field on table version %d: its key format "
                        "differs between Hudi releases",
                        table_version);
  }
  if (kg->n_keys > 1) kg->key_with_names = true;
  kg->hive_style = prop_true(props, "hoodie.datasource.write.hive_style_partitioning");
  kg->urlencode = prop_true(props, "hoodie.datasource.write.partitionpath.urlencode");
  if (st != HUDI_OK) hudi_keygen_free(kg);
  return st;
}

void hudi_keygen_free(hudi_keygen *kg) {
  for (size_t i = 0; i < kg->n_keys; i++) hudi_free(kg->key_fields[i]);
  for (size_t i = 0; i < kg->n_parts; i++) hudi_free(kg->part_fields[i]);
  memset(kg, 0, sizeof *kg);
}

static int find_column(const hudi_arrow_view *batch, const char *name) {
  for (int64_t i = 0; i < batch->n_children; i++)
    if (batch->children[i].name && !strcmp(batch->children[i].name, name)) return (int)i;
  return -1;
}

hudi_status hudi_keygen_bind(hudi_keygen *kg, const hudi_arrow_view *batch, hudi_error *err) {
  for (size_t i = 0; i < kg->n_keys; i++) {
    kg->key_index[i] = find_column(batch, kg->key_fields[i]);
    kg->key_field_len[i] = strlen(kg->key_fields[i]);
    if (kg->key_index[i] < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record key field '%s' is not a column of the data",
                          kg->key_fields[i]);
  }
  for (size_t i = 0; i < kg->n_parts; i++) {
    kg->part_index[i] = find_column(batch, kg->part_fields[i]);
    if (kg->part_index[i] < 0)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "partition field '%s' is not a column of the data",
                          kg->part_fields[i]);
  }
  return HUDI_OK;
}

/* v in decimal, as Java's Long.toString: the digits and a NUL in tmp
 * (no printf: this runs for every key of every row). */
static const char *decimal_u64(char tmp[24], uint64_t v, bool negative) {
  char *p = tmp + 23;
  *p = '\0';
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (negative) *--p = '-';
  return p;
}

static const char *decimal_i64(char tmp[24], int64_t v) {
  /* The magnitude of INT64_MIN fits a uint64_t. */
  return v < 0 ? decimal_u64(tmp, (uint64_t)0 - (uint64_t)v, true) : decimal_u64(tmp, (uint64_t)v, false);
}

/* Appends the digits decimal_*64 left in tmp (they end at tmp[23]). */
static hudi_status append_digits(hudi_buf *out, const char tmp[24], const char *digits, hudi_error *err) {
  return hudi_buf_append(out, digits, (size_t)(tmp + 23 - digits), err);
}

hudi_status hudi_keygen_value_string(const hudi_arrow_view *col, int64_t row, const char *column, hudi_buf *out,
                                     bool *is_null, hudi_error *err) {
  *is_null = hudi_arrow_view_is_null(col, row);
  if (*is_null) return HUDI_OK;
  if (col->dictionary) {
    int64_t idx = hudi_arrow_view_dict_index(col, row);
    return hudi_keygen_value_string(col->dictionary, idx, column, out, is_null, err);
  }
  char tmp[64];
  switch (col->type.id) {
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW: {
      int64_t len;
      const uint8_t *d = hudi_arrow_view_bytes(col, row, &len);
      return hudi_buf_append(out, d, (size_t)len, err);
    }
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
      return append_digits(out, tmp, decimal_i64(tmp, hudi_arrow_view_int(col, row)), err);
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_UINT32:
      return append_digits(out, tmp, decimal_u64(tmp, hudi_arrow_view_uint(col, row), false), err);
    case HUDI_ARROW_BOOL: return hudi_buf_append_str(out, hudi_arrow_view_bool(col, row) ? "true" : "false", err);
    case HUDI_ARROW_DATE32: /* LocalDate.toString, as Hudi's key generators print dates */
      return hudi_buf_append(out, tmp, hudi_java_local_date(tmp, (int32_t)hudi_arrow_view_int(col, row)), err);
    default:
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "column '%s' (%s) cannot be a record key or partition field: use a string, integer, "
                          "boolean or date column",
                          column, hudi_arrow_type_name(col->type.id));
  }
}

hudi_status hudi_keygen_record_key(const hudi_keygen *kg, const hudi_arrow_view *batch, int64_t row, int64_t row_no,
                                   hudi_buf *out, hudi_error *err) {
  size_t start = out->len;
  bool any_value = false;
  for (size_t i = 0; i < kg->n_keys; i++) {
    const hudi_arrow_view *col = &batch->children[kg->key_index[i]];
    if (kg->key_with_names) {
      if (i) HUDI_TRY(hudi_buf_append_byte(out, ',', err));
      HUDI_TRY(hudi_buf_append(out, kg->key_fields[i], kg->key_field_len[i], err));
      HUDI_TRY(hudi_buf_append_byte(out, ':', err));
    }
    size_t before = out->len;
    bool is_null;
    HUDI_TRY(hudi_keygen_value_string(col, hudi_arrow_view_struct_row(batch, row), kg->key_fields[i], out, &is_null,
                                      err));
    bool empty = !is_null && out->len == before;
    if (!kg->key_with_names && (is_null || empty))
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "record key field '%s' is %s in row %" PRId64,
                          kg->key_fields[i], is_null ? "null" : "empty", row_no);
    if (is_null) HUDI_TRY(hudi_buf_append_str(out, "__null__", err));
    else if (empty) HUDI_TRY(hudi_buf_append_str(out, "__empty__", err));
    else any_value = true;
  }
  if (!any_value) {
    out->len = start;
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "every record key field (%s...) is null or empty in row %" PRId64,
                        kg->key_fields[0], row_no);
  }
  return HUDI_OK;
}

/* PartitionPathEncodeUtils.escapePathName's character set. */
static bool needs_escape(uint8_t c) {
  return c < 0x20 || c == 0x7f || strchr("\"#%'*/:=?\\{[]^", c) != NULL;
}

hudi_status hudi_keygen_partition_path(const hudi_keygen *kg, const hudi_arrow_view *batch, int64_t row,
                                       hudi_buf *out, hudi_error *err) {
  hudi_buf val;
  hudi_buf_init(&val, (size_t)1 << 20);
  hudi_status st = HUDI_OK;
  for (size_t i = 0; st == HUDI_OK && i < kg->n_parts; i++) {
    const hudi_arrow_view *col = &batch->children[kg->part_index[i]];
    if (i) st = hudi_buf_append_byte(out, '/', err);
    if (st == HUDI_OK && kg->hive_style) st = hudi_buf_printf(out, err, "%s=", kg->part_fields[i]);
    hudi_buf_reset(&val);
    bool is_null;
    if (st == HUDI_OK)
      st = hudi_keygen_value_string(col, hudi_arrow_view_struct_row(batch, row), kg->part_fields[i], &val, &is_null,
                                    err);
    if (st != HUDI_OK) break;
    if (is_null || val.len == 0) {
      st = hudi_buf_append_str(out, DEFAULT_PARTITION, err);
      continue;
    }
    for (size_t j = 0; st == HUDI_OK && j < val.len; j++) {
      uint8_t c = val.data[j];
      if (kg->urlencode && needs_escape(c)) st = hudi_buf_printf(out, err, "%%%02X", c);
      else st = hudi_buf_append_byte(out, c, err);
    }
  }
  hudi_buf_free(&val);
  return st;
}
