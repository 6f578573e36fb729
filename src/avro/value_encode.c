/* Value tree -> Avro binary, the way Java's GenericDatumWriter lays it
 * out, so decoded Java files re-encode to the same bytes. */
#include <stdio.h>

#include "avro/value.h"

static hudi_status bad(hudi_error *err, const hudi_avro_node *n, const char *what) {
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot encode Avro %s: %s",
                      n->name ? n->name : hudi_avro_type_name(n->type), what);
}

static hudi_status encode_at(const hudi_avro_value *v, hudi_buf *out, int depth, hudi_error *err) {
  const hudi_avro_node *n = v->node;
  if (!n) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot encode an Avro value without a schema");
  if (depth > HUDI_AVRO_MAX_DATA_DEPTH) return bad(err, n, "nested too deeply");
  switch (n->type) {
    case HUDI_AVRO_NULL: return HUDI_OK;
    case HUDI_AVRO_BOOLEAN: return hudi_buf_append_byte(out, v->v.boolean ? 1 : 0, err);
    case HUDI_AVRO_INT: return hudi_avro_write_long(out, v->v.i, err);
    case HUDI_AVRO_LONG: return hudi_avro_write_long(out, v->v.l, err);
    case HUDI_AVRO_FLOAT: return hudi_avro_write_float(out, v->v.f, err);
    case HUDI_AVRO_DOUBLE: return hudi_avro_write_double(out, v->v.d, err);
    case HUDI_AVRO_BYTES:
    case HUDI_AVRO_STRING: return hudi_avro_write_bytes(out, v->v.bytes.data, v->v.bytes.len, err);
    case HUDI_AVRO_FIXED:
      if (v->v.bytes.len != n->size) return bad(err, n, "fixed value of the wrong size");
      return hudi_buf_append(out, v->v.bytes.data, n->size, err);
    case HUDI_AVRO_ENUM:
      if (v->v.symbol >= n->n_symbols) return bad(err, n, "enum symbol out of range");
      return hudi_avro_write_long(out, v->v.symbol, err);
    case HUDI_AVRO_UNION:
      if (v->v.u.branch >= n->n_branches || !v->v.u.value || v->v.u.value->node != n->branches[v->v.u.branch])
        return bad(err, n, "union branch does not match its value");
      HUDI_TRY(hudi_avro_write_long(out, v->v.u.branch, err));
      return encode_at(v->v.u.value, out, depth + 1, err);
    case HUDI_AVRO_RECORD:
      if (v->v.list.n != n->n_fields) return bad(err, n, "record value with the wrong number of fields");
      for (uint32_t i = 0; i < n->n_fields; i++) {
        hudi_status st = encode_at(&v->v.list.items[i], out, depth + 1, err);
        if (st != HUDI_OK) return hudi_err_context(err, st, "field '%s'", n->fields[i].name);
      }
      return HUDI_OK;
    case HUDI_AVRO_ARRAY:
      if (v->v.list.n) {
        HUDI_TRY(hudi_avro_write_long(out, (int64_t)v->v.list.n, err));
        for (size_t i = 0; i < v->v.list.n; i++) HUDI_TRY(encode_at(&v->v.list.items[i], out, depth + 1, err));
      }
      return hudi_buf_append_byte(out, 0, err);
    case HUDI_AVRO_MAP:
      if (v->v.map.n) {
        HUDI_TRY(hudi_avro_write_long(out, (int64_t)v->v.map.n, err));
        for (size_t i = 0; i < v->v.map.n; i++) {
          HUDI_TRY(hudi_avro_write_bytes(out, v->v.map.keys[i].data, v->v.map.keys[i].len, err));
          HUDI_TRY(encode_at(&v->v.map.values[i], out, depth + 1, err));
        }
      }
      return hudi_buf_append_byte(out, 0, err);
  }
  return bad(err, n, "unknown type");
}

hudi_status hudi_avro_encode(const hudi_avro_value *v, hudi_buf *out, hudi_error *err) {
  return encode_at(v, out, 0, err);
}
