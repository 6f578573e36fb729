/* Incoming Arrow types -> the types a Hudi table stores (write_convert.h). */
#include "table/write_convert.h"

#include <stdio.h>
#include <string.h>

static const char *fname(const hudi_arrow_field *f) { return f->name ? f->name : "(unnamed)"; }

static hudi_status init_as(hudi_arrow_field *out, const hudi_arrow_field *in, const char *format, bool nullable,
                           hudi_error *err) {
  return hudi_arrow_field_init(out, in->name, format, nullable ? ARROW_FLAG_NULLABLE : 0, err);
}

static hudi_status convert(hudi_arrow_field *out, const hudi_arrow_field *in, bool nullable, int depth,
                           hudi_error *err);

static hudi_status convert_children(hudi_arrow_field *out, const hudi_arrow_field *in, int depth, bool map,
                                    hudi_error *err) {
  HUDI_TRY(hudi_arrow_field_alloc_children(out, in->n_children, err));
  for (int64_t i = 0; i < in->n_children; i++) {
    /* A map's entries struct and its key stay non-nullable (Arrow's rule;
     * parquet-avro's "required binary key"). */
    bool nullable = !(map && depth >= 0 && (i == 0));
    HUDI_TRY(convert(&out->children[i], &in->children[i], nullable, depth + 1, err));
  }
  return HUDI_OK;
}

static hudi_status convert(hudi_arrow_field *out, const hudi_arrow_field *in, bool nullable, int depth,
                           hudi_error *err) {
  if (depth > HUDI_ARROW_MAX_DEPTH) return hudi_err_set(err, HUDI_ERR_LIMIT, "column '%s' nests too deeply", fname(in));
  const hudi_arrow_type *t = &in->type;
  char fmt[300];
  switch (t->id) {
    case HUDI_ARROW_BOOL: return init_as(out, in, "b", nullable, err);
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_UINT8:
    case HUDI_ARROW_UINT16:
    case HUDI_ARROW_INT32: return init_as(out, in, "i", nullable, err);
    case HUDI_ARROW_UINT32:
    case HUDI_ARROW_INT64: return init_as(out, in, "l", nullable, err);
    case HUDI_ARROW_FLOAT: return init_as(out, in, "f", nullable, err);
    case HUDI_ARROW_DOUBLE: return init_as(out, in, "g", nullable, err);
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_LARGE_STRING:
    case HUDI_ARROW_STRING_VIEW: return init_as(out, in, "u", nullable, err);
    case HUDI_ARROW_BINARY:
    case HUDI_ARROW_LARGE_BINARY:
    case HUDI_ARROW_BINARY_VIEW: return init_as(out, in, "z", nullable, err);
    case HUDI_ARROW_FIXED_SIZE_BINARY:
    case HUDI_ARROW_DECIMAL: return init_as(out, in, in->format, nullable, err);
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_DATE64: return init_as(out, in, "tdD", nullable, err);
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
      /* Avro time-millis (int) / time-micros (long). */
      return init_as(out, in, t->id == HUDI_ARROW_TIME32 ? "ttm" : "ttu", nullable, err);
    case HUDI_ARROW_TIMESTAMP: {
      /* Spark keeps micros; millis stay millis (Avro timestamp-millis). */
      char unit = t->unit == HUDI_ARROW_MILLI ? 'm' : 'u';
      snprintf(fmt, sizeof fmt, "ts%c:%.*s", unit, (int)(t->timezone ? t->timezone_len : 0),
               t->timezone ? t->timezone : "");
      return init_as(out, in, fmt, nullable, err);
    }
    case HUDI_ARROW_LIST:
    case HUDI_ARROW_LARGE_LIST:
    case HUDI_ARROW_FIXED_SIZE_LIST:
      HUDI_TRY(init_as(out, in, "+l", nullable, err));
      return convert_children(out, in, depth, false, err);
    case HUDI_ARROW_STRUCT:
      HUDI_TRY(init_as(out, in, "+s", nullable, err));
      return convert_children(out, in, depth, false, err);
    case HUDI_ARROW_MAP: {
      HUDI_TRY(init_as(out, in, "+m", nullable, err));
      const hudi_arrow_field *entries = &in->children[0];
      HUDI_TRY(hudi_arrow_field_alloc_children(out, 1, err));
      HUDI_TRY(init_as(&out->children[0], entries, "+s", false, err));
      return convert_children(&out->children[0], entries, depth + 1, true, err);
    }
    case HUDI_ARROW_NA:
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s' has the null type; give it a concrete type",
                          fname(in));
    default:
      return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "column '%s': Arrow type %s cannot be stored in a Hudi table",
                          fname(in), hudi_arrow_type_name(t->id));
  }
}

hudi_status hudi_write_storage_field(hudi_arrow_field *out, const hudi_arrow_field *in, hudi_error *err) {
  memset(out, 0, sizeof *out);
  if (in->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the data must be a table (struct), got %s",
                        hudi_arrow_type_name(in->type.id));
  hudi_status st = hudi_arrow_field_init(out, "", "+s", 0, err);
  if (st == HUDI_OK) st = hudi_arrow_field_alloc_children(out, in->n_children, err);
  for (int64_t i = 0; st == HUDI_OK && i < in->n_children; i++)
    st = convert(&out->children[i], &in->children[i], true, 1, err);
  if (st != HUDI_OK) hudi_arrow_field_clear(out);
  return st;
}

bool hudi_write_same_storage(const hudi_arrow_field *stored, const hudi_arrow_field *in) {
  if (in->dictionary) return false;
  if (strcmp(stored->format, in->format) != 0) return false;
  if (stored->n_children != in->n_children) return false;
  for (int64_t i = 0; i < in->n_children; i++)
    if (!hudi_write_same_storage(&stored->children[i], &in->children[i])) return false;
  return true;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static hudi_status scaled(hudi_arrow_builder *b, int64_t v, int64_t mul, int64_t div, hudi_error *err) {
  if (mul > 1) {
    if (v > INT64_MAX / mul || v < INT64_MIN / mul)
      return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "column '%s': value %lld out of range",
                          fname(hudi_arrow_builder_field(b)), (long long)v);
    v *= mul;
  }
  if (div > 1) v = floor_div(v, div);
  return hudi_arrow_builder_append_int(b, v, err);
}

/* Multiplier/divisor from unit `from` to unit `to` (s, ms, us, ns). */
static void unit_ratio(hudi_arrow_time_unit from, hudi_arrow_time_unit to, int64_t *mul, int64_t *div) {
  static const int64_t per_s[] = {1, 1000, 1000000, 1000000000};
  *mul = *div = 1;
  if (to > from) *mul = per_s[to] / per_s[from];
  else if (from > to) *div = per_s[from] / per_s[to];
}

static bool is_bytes_type(hudi_arrow_type_id id) {
  return id == HUDI_ARROW_STRING || id == HUDI_ARROW_LARGE_STRING || id == HUDI_ARROW_STRING_VIEW ||
         id == HUDI_ARROW_BINARY || id == HUDI_ARROW_LARGE_BINARY || id == HUDI_ARROW_BINARY_VIEW;
}

/* A string or binary column: every string/binary flavour copies its bytes
 * (Avro string <-> bytes); integers become their decimal text (Hudi's
 * int/long -> string promotion). */
static hudi_status append_as_bytes(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i, hudi_error *err) {
  if (is_bytes_type(v->type.id)) {
    int64_t len;
    const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
    return hudi_arrow_builder_append_bytes(b, p, len, err);
  }
  char buf[32];
  if (hudi_arrow_type_is_unsigned_int(v->type.id)) {
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)hudi_arrow_view_uint(v, i));
    return hudi_arrow_builder_append_str(b, buf, err);
  }
  switch (v->type.id) {
    case HUDI_ARROW_INT8:
    case HUDI_ARROW_INT16:
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
      snprintf(buf, sizeof buf, "%lld", (long long)hudi_arrow_view_int(v, i));
      return hudi_arrow_builder_append_str(b, buf, err);
    default: return hudi_arrow_builder_append_view(b, v, i, err);
  }
}

hudi_status hudi_write_append_converted(hudi_arrow_builder *b, const hudi_arrow_view *v, int64_t i,
                                        hudi_error *err) {
  if (v->dictionary) {
    if (hudi_arrow_view_is_null(v, i)) return hudi_arrow_builder_append_null(b, err);
    return hudi_write_append_converted(b, v->dictionary, hudi_arrow_view_dict_index(v, i), err);
  }
  if (hudi_arrow_view_is_null(v, i)) return hudi_arrow_builder_append_null(b, err);
  const hudi_arrow_field *f = hudi_arrow_builder_field(b);
  int64_t mul, div;
  switch (f->type.id) {
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_INT64:
      if (hudi_arrow_type_is_unsigned_int(v->type.id))
        return hudi_arrow_builder_append_int(b, (int64_t)hudi_arrow_view_uint(v, i), err);
      return hudi_arrow_builder_append_int(b, hudi_arrow_view_int(v, i), err);
    case HUDI_ARROW_DATE32:
      if (v->type.id == HUDI_ARROW_DATE64)
        return hudi_arrow_builder_append_int(b, floor_div(hudi_arrow_view_int(v, i), 86400000), err);
      return hudi_arrow_builder_append_int(b, hudi_arrow_view_int(v, i), err);
    case HUDI_ARROW_TIME32:
    case HUDI_ARROW_TIME64:
    case HUDI_ARROW_TIMESTAMP:
      unit_ratio(v->type.unit, f->type.unit, &mul, &div);
      return scaled(b, hudi_arrow_view_int(v, i), mul, div, err);
    case HUDI_ARROW_LIST: {
      int64_t start, end;
      hudi_arrow_view_list_range(v, i, &start, &end);
      hudi_arrow_builder *c = hudi_arrow_builder_child(b, 0);
      for (int64_t k = start; k < end; k++) HUDI_TRY(hudi_write_append_converted(c, &v->children[0], k, err));
      return hudi_arrow_builder_end_element(b, err);
    }
    case HUDI_ARROW_MAP: {
      int64_t start, end;
      hudi_arrow_view_list_range(v, i, &start, &end);
      hudi_arrow_builder *c = hudi_arrow_builder_child(b, 0);
      for (int64_t k = start; k < end; k++) HUDI_TRY(hudi_write_append_converted(c, &v->children[0], k, err));
      return hudi_arrow_builder_end_element(b, err);
    }
    case HUDI_ARROW_STRUCT: {
      int64_t row = hudi_arrow_view_struct_row(v, i);
      for (int64_t k = 0; k < f->n_children; k++)
        HUDI_TRY(hudi_write_append_converted(hudi_arrow_builder_child(b, k), &v->children[k], row, err));
      return hudi_arrow_builder_end_element(b, err);
    }
    case HUDI_ARROW_FLOAT:
    case HUDI_ARROW_DOUBLE:
      /* Avro promotions int/long -> float/double and float -> double. */
      if (hudi_arrow_type_is_unsigned_int(v->type.id))
        return hudi_arrow_builder_append_double(b, (double)hudi_arrow_view_uint(v, i), err);
      if (v->type.id != HUDI_ARROW_FLOAT && v->type.id != HUDI_ARROW_DOUBLE)
        return hudi_arrow_builder_append_double(b, (double)hudi_arrow_view_int(v, i), err);
      return hudi_arrow_builder_append_double(b, hudi_arrow_view_double(v, i), err);
    case HUDI_ARROW_STRING:
    case HUDI_ARROW_BINARY:
      return append_as_bytes(b, v, i, err);
    default: return hudi_arrow_builder_append_view(b, v, i, err);
  }
}
