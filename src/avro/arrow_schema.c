#include "avro/arrow_schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

const char *const hudi_avro_meta_field_names[HUDI_AVRO_N_META_FIELDS] = {
    "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
    "_hoodie_file_name"};

int hudi_avro_decimal_fixed_size(int precision) {
  if (precision < 1 || precision > 76) return 0;
  /* Spark compares in doubles; the same comparison gives the same sizes. */
  int n = 1;
  while (pow(2.0, 8.0 * n - 1) < pow(10.0, precision)) n++;
  return n;
}

static bool name_start(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static bool name_char(unsigned char c) { return name_start(c) || (c >= '0' && c <= '9'); }

/* Java replaces per UTF-16 unit: one "__" per character of the Basic
 * Multilingual Plane, two for a character that needs a surrogate pair. */
static size_t utf8_char(const unsigned char *s, int *units) {
  size_t n = s[0] < 0x80 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
  for (size_t k = 1; k < n; k++)
    if (!s[k]) {
      n = k;
      break;
    }
  *units = n == 4 ? 2 : 1;
  return n;
}

hudi_status hudi_avro_sanitize_name(hudi_buf *out, const char *name, hudi_error *err) {
  const unsigned char *s = (const unsigned char *)name;
  bool first = true;
  while (*s) {
    int units;
    size_t n = utf8_char(s, &units);
    bool ok = n == 1 && (first ? name_start(*s) : name_char(*s));
    if (ok) {
      HUDI_TRY(hudi_buf_append_byte(out, *s, err));
    } else {
      for (int u = 0; u < units; u++) HUDI_TRY(hudi_buf_append(out, "__", 2, err));
    }
    s += n;
    first = false;
  }
  return HUDI_OK;
}

/* ---- Arrow -> Avro JSON ---- */

static hudi_status put(hudi_buf *b, const char *s, hudi_error *err) { return hudi_buf_append_str(b, s, err); }

/* A JSON string literal, escaped the way Jackson does it (control
 * characters as \u00XX, except the short escapes). */
static hudi_status put_string(hudi_buf *b, const char *s, hudi_error *err) {
  HUDI_TRY(hudi_buf_append_byte(b, '"', err));
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    if (c == '"' || c == '\\') {
      HUDI_TRY(hudi_buf_append_byte(b, '\\', err));
      HUDI_TRY(hudi_buf_append_byte(b, c, err));
    } else if (c < 0x20) {
      const char *esc = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                      : c == '\f' ? "\\f" : NULL;
      if (esc) HUDI_TRY(put(b, esc, err));
      else HUDI_TRY(hudi_buf_printf(b, err, "\\u%04X", c));
    } else {
      HUDI_TRY(hudi_buf_append_byte(b, c, err));
    }
  }
  return hudi_buf_append_byte(b, '"', err);
}

typedef struct naming {
  const char *record_name; /* Spark's recordName: the field's name */
  const char *ns;          /* Spark's nameSpace */
} naming;

static const char *fname(const hudi_arrow_field *f) { return f->name ? f->name : ""; }

static hudi_status emit_type(hudi_buf *b, const hudi_arrow_field *f, naming nm, int depth,
                             hudi_error *err);

static hudi_status emit_fixed(hudi_buf *b, naming nm, int size, const hudi_arrow_field *dec,
                              hudi_error *err) {
  /* Spark: name "$nameSpace.$recordName.fixed", printed split at the last dot. */
  HUDI_TRY(put(b, "{\"type\":\"fixed\",\"name\":\"fixed\",\"namespace\":", err));
  hudi_buf ns;
  hudi_buf_init(&ns, 0);
  hudi_status st = HUDI_OK;
  if (nm.ns && *nm.ns) st = hudi_buf_printf(&ns, err, "%s.", nm.ns);
  if (st == HUDI_OK) st = hudi_buf_append_str(&ns, nm.record_name, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&ns, 0, err);
  if (st == HUDI_OK) st = put_string(b, (const char *)ns.data, err);
  hudi_buf_free(&ns);
  HUDI_TRY(st);
  HUDI_TRY(hudi_buf_printf(b, err, ",\"size\":%d", size));
  if (dec)
    HUDI_TRY(hudi_buf_printf(b, err, ",\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d",
                             (int)dec->type.precision, (int)dec->type.scale));
  return put(b, "}", err);
}

static hudi_status emit_logical(hudi_buf *b, const char *base, const char *logical, hudi_error *err) {
  return hudi_buf_printf(b, err, "{\"type\":\"%s\",\"logicalType\":\"%s\"}", base, logical);
}

/* T, or ["null",T] when nullable (Hudi puts null first). */
static hudi_status emit_maybe_null(hudi_buf *b, const hudi_arrow_field *f, naming nm, int depth,
                                   hudi_error *err) {
  bool nullable = (f->flags & ARROW_FLAG_NULLABLE) && f->type.id != HUDI_ARROW_NA;
  if (nullable) HUDI_TRY(put(b, "[\"null\",", err));
  HUDI_TRY(emit_type(b, f, nm, depth, err));
  if (nullable) HUDI_TRY(put(b, "]", err));
  return HUDI_OK;
}

static hudi_status emit_meta_fields(hudi_buf *b, hudi_error *err) {
  for (int i = 0; i < HUDI_AVRO_N_META_FIELDS; i++) {
    if (i) HUDI_TRY(put(b, ",", err));
    HUDI_TRY(hudi_buf_printf(b, err, "{\"name\":\"%s\",\"type\":[\"null\",\"string\"],\"doc\":\"\",\"default\":null}",
                             hudi_avro_meta_field_names[i]));
  }
  return HUDI_OK;
}

static bool is_meta_name(const char *name) {
  for (int i = 0; i < HUDI_AVRO_N_META_FIELDS; i++)
    if (name && strcmp(name, hudi_avro_meta_field_names[i]) == 0) return true;
  return false;
}

static hudi_status emit_record(hudi_buf *b, const hudi_arrow_field *st, naming nm, bool meta,
                               int depth, hudi_error *err) {
  HUDI_TRY(put(b, "{\"type\":\"record\",\"name\":", err));
  HUDI_TRY(put_string(b, nm.record_name, err));
  if (nm.ns && *nm.ns) {
    HUDI_TRY(put(b, ",\"namespace\":", err));
    HUDI_TRY(put_string(b, nm.ns, err));
  }
  HUDI_TRY(put(b, ",\"fields\":[", err));
  /* Children live in "<ns>.<name>" (or "<name>" at the root without one). */
  hudi_buf child_ns;
  hudi_buf_init(&child_ns, 0);
  hudi_status s = HUDI_OK;
  if (nm.ns && *nm.ns) s = hudi_buf_printf(&child_ns, err, "%s.", nm.ns);
  if (s == HUDI_OK) s = hudi_buf_append_str(&child_ns, nm.record_name, err);
  if (s == HUDI_OK) s = hudi_buf_append_byte(&child_ns, 0, err);
  bool any = false;
  if (s == HUDI_OK && meta) {
    s = emit_meta_fields(b, err);
    any = true;
  }
  for (int64_t i = 0; s == HUDI_OK && i < st->n_children; i++) {
    const hudi_arrow_field *c = &st->children[i];
    if (meta && is_meta_name(c->name)) continue;
    if (any) s = put(b, ",", err);
    any = true;
    if (s == HUDI_OK) s = put(b, "{\"name\":", err);
    if (s == HUDI_OK) s = put_string(b, fname(c), err);
    if (s == HUDI_OK) s = put(b, ",\"type\":", err);
    naming cn = {fname(c), (const char *)child_ns.data};
    if (s == HUDI_OK) s = emit_maybe_null(b, c, cn, depth + 1, err);
    if (s == HUDI_OK && (c->flags & ARROW_FLAG_NULLABLE) && c->type.id != HUDI_ARROW_NA)
      s = put(b, ",\"default\":null", err);
    if (s == HUDI_OK) s = put(b, "}", err);
  }
  hudi_buf_free(&child_ns);
  HUDI_TRY(s);
  return put(b, "]}", err);
}

static hudi_status unsupported(const hudi_arrow_field *f, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': Arrow type %s has no Avro mapping",
                      fname(f), hudi_arrow_type_name(f->type.id));
}

static hudi_status emit_type(hudi_buf *b, const hudi_arrow_field *f, naming nm, int depth,
                             hudi_error *err) {
  if (depth > HUDI_ARROW_MAX_DEPTH)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s': nested too deeply", fname(f));
  if (f->dictionary) return emit_type(b, f->dictionary, nm, depth + 1, err);
  switch (f->type.id) {
    case HUDI_ARROW_NA: return put(b, "\"null\"", err);
    case HUDI_ARROW_BOOL: return put(b, "\"boolean\"", err);
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16: return put(b, "\"int\"", err);
    case HUDI_ARROW_INT64:
    case HUDI_ARROW_UINT32: return put(b, "\"long\"", err);
    case HUDI_ARROW_FLOAT: return put(b, "\"float\"", err);
    case HUDI_ARROW_DOUBLE: return put(b, "\"double\"", err);
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW: return put(b, "\"string\"", err);
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW: return put(b, "\"bytes\"", err);
    case HUDI_ARROW_FIXED_SIZE_BINARY: return emit_fixed(b, nm, f->type.fixed_size, NULL, err);
    case HUDI_ARROW_DECIMAL: {
      int size = hudi_avro_decimal_fixed_size(f->type.precision);
      if (size == 0) return unsupported(f, err);
      return emit_fixed(b, nm, size, f, err);
    }
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_DATE64: return emit_logical(b, "int", "date", err);
    case HUDI_ARROW_TIME32: return emit_logical(b, "int", "time-millis", err);
    case HUDI_ARROW_TIME64: return emit_logical(b, "long", "time-micros", err);
    case HUDI_ARROW_TIMESTAMP: {
      /* Spark has microsecond timestamps only; milliseconds are kept as
       * millis, seconds and nanoseconds become micros. A zone makes it an
       * instant (TimestampType), none a local time (TimestampNTZType). */
      bool utc = f->type.timezone != NULL && f->type.timezone_len > 0;
      const char *unit = f->type.unit == HUDI_ARROW_MILLI ? "millis" : "micros";
      char logical[40];
      snprintf(logical, sizeof logical, "%stimestamp-%s", utc ? "" : "local-", unit);
      return emit_logical(b, "long", logical, err);
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST:
      HUDI_TRY(put(b, "{\"type\":\"array\",\"items\":", err));
      HUDI_TRY(emit_maybe_null(b, &f->children[0], nm, depth + 1, err));
      return put(b, "}", err);
    case HUDI_ARROW_MAP: {
      const hudi_arrow_field *entries = &f->children[0];
      if (entries->n_children != 2) return unsupported(f, err);
      const hudi_arrow_field *key = &entries->children[0];
      hudi_arrow_type_id kid = key->dictionary ? key->dictionary->type.id : key->type.id;
      if (kid != HUDI_ARROW_STRING && kid != HUDI_ARROW_LARGE_STRING && kid != HUDI_ARROW_STRING_VIEW)
        return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': Avro map keys must be strings",
                            fname(f));
      HUDI_TRY(put(b, "{\"type\":\"map\",\"values\":", err));
      HUDI_TRY(emit_maybe_null(b, &entries->children[1], nm, depth + 1, err));
      return put(b, "}", err);
    }
    case HUDI_ARROW_STRUCT: return emit_record(b, f, nm, false, depth, err);
    default: return unsupported(f, err);
  }
}

hudi_status hudi_avro_schema_from_arrow_named(hudi_buf *out, const hudi_arrow_field *schema,
                                              const char *record_name, const char *namespace_,
                                              bool meta_fields, hudi_error *err) {
  if (schema->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "a table schema must be a struct, got %s",
                        hudi_arrow_type_name(schema->type.id));
  naming nm = {record_name, namespace_};
  return emit_record(out, schema, nm, meta_fields, 0, err);
}

hudi_status hudi_avro_schema_from_arrow(hudi_buf *out, const hudi_arrow_field *schema,
                                        const char *table_name, bool meta_fields, hudi_error *err) {
  /* AvroConversionUtils.getAvroRecordNameAndNamespace. */
  hudi_buf name, ns;
  hudi_buf_init(&name, 0);
  hudi_buf_init(&ns, 0);
  hudi_status st = hudi_avro_sanitize_name(&name, table_name, err);
  if (st == HUDI_OK) st = hudi_buf_append_str(&ns, "hoodie.", err);
  if (st == HUDI_OK) st = hudi_buf_append(&ns, name.data, name.len, err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&ns, 0, err);
  if (st == HUDI_OK) st = hudi_buf_append_str(&name, "_record", err);
  if (st == HUDI_OK) st = hudi_buf_append_byte(&name, 0, err);
  if (st == HUDI_OK)
    st = hudi_avro_schema_from_arrow_named(out, schema, (const char *)name.data, (const char *)ns.data,
                                           meta_fields, err);
  hudi_buf_free(&name);
  hudi_buf_free(&ns);
  return st;
}

/* ---- Avro -> Arrow ---- */

const hudi_avro_node *hudi_avro_nullable_branch(const hudi_avro_node *n, int *null_index) {
  if (null_index) *null_index = -1;
  if (n->type != HUDI_AVRO_UNION || n->n_branches != 2) return NULL;
  int k = n->branches[0]->type == HUDI_AVRO_NULL ? 0 : n->branches[1]->type == HUDI_AVRO_NULL ? 1 : -1;
  if (k < 0 || n->branches[1 - k]->type == HUDI_AVRO_NULL) return NULL;
  if (null_index) *null_index = k;
  return n->branches[1 - k];
}

static hudi_status to_arrow(hudi_arrow_field *out, const hudi_avro_node *t, const char *name,
                            bool nullable, int depth, hudi_error *err);

static hudi_status init_leaf(hudi_arrow_field *out, const char *name, const char *format, bool nullable,
                             hudi_error *err) {
  return hudi_arrow_field_init(out, name, format, nullable ? ARROW_FLAG_NULLABLE : 0, err);
}

static hudi_status record_to_arrow(hudi_arrow_field *out, const hudi_avro_node *t, const char *name,
                                   bool nullable, int depth, hudi_error *err) {
  HUDI_TRY(init_leaf(out, name, "+s", nullable, err));
  HUDI_TRY(hudi_arrow_field_alloc_children(out, t->n_fields, err));
  for (uint32_t i = 0; i < t->n_fields; i++)
    HUDI_TRY(to_arrow(&out->children[i], t->fields[i].type, t->fields[i].name, false, depth + 1, err));
  return HUDI_OK;
}

static const char *logical_format(const hudi_avro_node *t, char *buf, size_t cap) {
  switch (t->logical) {
    case HUDI_AVRO_LOGICAL_DATE: return "tdD";
    case HUDI_AVRO_LOGICAL_TIME_MILLIS: return "ttm";
    case HUDI_AVRO_LOGICAL_TIME_MICROS: return "ttu";
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MILLIS: return "tsm:UTC";
    case HUDI_AVRO_LOGICAL_TIMESTAMP_MICROS: return "tsu:UTC";
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: return "tsm:";
    case HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: return "tsu:";
    case HUDI_AVRO_LOGICAL_DECIMAL:
      if (t->precision < 1 || t->precision > 38) return NULL;
      snprintf(buf, cap, "d:%d,%d", (int)t->precision, (int)t->scale);
      return buf;
    default: return NULL;
  }
}

static hudi_status to_arrow(hudi_arrow_field *out, const hudi_avro_node *t, const char *name,
                            bool nullable, int depth, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (depth > HUDI_AVRO_SCHEMA_MAX_DEPTH)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "Avro field '%s': nested too deeply (recursive?)",
                        name ? name : "");
  char buf[32];
  const char *lf = logical_format(t, buf, sizeof buf);
  if (lf) return init_leaf(out, name, lf, nullable, err);
  switch (t->type) {
    case HUDI_AVRO_NULL: return init_leaf(out, name, "n", true, err);
    case HUDI_AVRO_BOOLEAN: return init_leaf(out, name, "b", nullable, err);
    case HUDI_AVRO_INT: return init_leaf(out, name, "i", nullable, err);
    case HUDI_AVRO_LONG: return init_leaf(out, name, "l", nullable, err);
    case HUDI_AVRO_FLOAT: return init_leaf(out, name, "f", nullable, err);
    case HUDI_AVRO_DOUBLE: return init_leaf(out, name, "g", nullable, err);
    case HUDI_AVRO_BYTES: return init_leaf(out, name, "z", nullable, err);
    case HUDI_AVRO_STRING:
    case HUDI_AVRO_ENUM: return init_leaf(out, name, "u", nullable, err);
    case HUDI_AVRO_FIXED: {
      char fmt[32];
      snprintf(fmt, sizeof fmt, "w:%u", (unsigned)t->size);
      return init_leaf(out, name, fmt, nullable, err);
    }
    case HUDI_AVRO_RECORD: return record_to_arrow(out, t, name, nullable, depth, err);
    case HUDI_AVRO_ARRAY:
      HUDI_TRY(init_leaf(out, name, "+l", nullable, err));
      HUDI_TRY(hudi_arrow_field_alloc_children(out, 1, err));
      return to_arrow(&out->children[0], t->items, "item", false, depth + 1, err);
    case HUDI_AVRO_MAP: {
      HUDI_TRY(init_leaf(out, name, "+m", nullable, err));
      HUDI_TRY(hudi_arrow_field_alloc_children(out, 1, err));
      hudi_arrow_field *e = &out->children[0];
      HUDI_TRY(init_leaf(e, "entries", "+s", false, err));
      HUDI_TRY(hudi_arrow_field_alloc_children(e, 2, err));
      HUDI_TRY(init_leaf(&e->children[0], "key", "u", false, err));
      return to_arrow(&e->children[1], t->items, "value", false, depth + 1, err);
    }
    case HUDI_AVRO_UNION: {
      const hudi_avro_node *inner = hudi_avro_nullable_branch(t, NULL);
      if (inner) return to_arrow(out, inner, name, true, depth + 1, err);
      if (t->n_branches == 1) return to_arrow(out, t->branches[0], name, nullable, depth + 1, err);
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED,
                          "Avro field '%s': a union of %u branches has no Arrow mapping (only [\"null\", T])",
                          name ? name : "", (unsigned)t->n_branches);
    }
  }
  return hudi_err_set(err, HUDI_ERR_INTERNAL, "unknown Avro type");
}

hudi_status hudi_avro_type_to_arrow(hudi_arrow_field *out, const hudi_avro_node *type, const char *name,
                                    bool nullable, hudi_error *err) {
  hudi_status st = to_arrow(out, type, name, nullable, 0, err);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}

hudi_status hudi_avro_schema_to_arrow(hudi_arrow_field *out, const hudi_avro_node *record,
                                      hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (record->type != HUDI_AVRO_RECORD)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "an Avro table schema must be a record, got %s",
                        hudi_avro_type_name(record->type));
  hudi_status st = record_to_arrow(out, record, "", false, 0, err);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}
