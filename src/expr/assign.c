#include "expr/assign.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "base/alloc.h"
#include "expr/cast.h"

typedef struct assignment {
  int64_t column;
  hudi_value value; /* bytes owned */
} assignment;

struct hudi_assignments {
  hudi_arrow_field schema;
  assignment *items;
  size_t n;
};

static hudi_status nomem(hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory building assignments");
}

static void value_release(hudi_value *v) {
  if (!v->is_null && v->cls == HUDI_VC_BYTES) hudi_free((void *)v->v.bytes.data);
  memset(v, 0, sizeof *v);
}

hudi_status hudi_assignments_create(hudi_assignments **out, const hudi_arrow_field *schema, hudi_error *err) {
  *out = NULL;
  if (schema->type.id != HUDI_ARROW_STRUCT)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "assignments apply to a struct schema, not %s",
                        hudi_arrow_type_name(schema->type.id));
  hudi_assignments *a = hudi_calloc(1, sizeof *a);
  if (!a) return nomem(err);
  hudi_status st = hudi_arrow_field_copy(&a->schema, schema, false, err);
  if (st != HUDI_OK) {
    hudi_free(a);
    return st;
  }
  *out = a;
  return HUDI_OK;
}

void hudi_assignments_free(hudi_assignments *a) {
  if (!a) return;
  for (size_t i = 0; i < a->n; i++) value_release(&a->items[i].value);
  hudi_free(a->items);
  hudi_arrow_field_clear(&a->schema);
  hudi_free(a);
}

size_t hudi_assignments_count(const hudi_assignments *a) { return a->n; }
int64_t hudi_assignments_column(const hudi_assignments *a, size_t k) { return a->items[k].column; }

static const hudi_arrow_type *value_type(const hudi_arrow_field *f) {
  return f->dictionary ? &f->dictionary->type : &f->type;
}

static hudi_status find_column(int64_t *out, const hudi_assignments *a, const char *column, hudi_error *err) {
  for (int64_t i = 0; i < a->schema.n_children; i++) {
    const char *name = a->schema.children[i].name;
    if (name && strcmp(name, column) == 0) {
      *out = i;
      return HUDI_OK;
    }
  }
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot assign to unknown column '%.200s'", column);
}

static hudi_status misfit(hudi_error *err, const hudi_arrow_field *f, const char *what) {
  char ty[96];
  hudi_type_describe(ty, sizeof ty, value_type(f));
  return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "cannot assign %.200s to column '%s' (%s)", what,
                      f->name ? f->name : "", ty);
}

/* The value must be storable in the column without loss. */
static hudi_status check_fits(const hudi_arrow_field *f, const hudi_value *v, hudi_error *err) {
  const hudi_arrow_type *t = value_type(f);
  char what[256];
  if (v->is_null) {
    if (!(f->flags & ARROW_FLAG_NULLABLE)) return misfit(err, f, "NULL (the column is not nullable)");
    return HUDI_OK;
  }
  if (v->cls != hudi_vclass_of(t)) return misfit(err, f, "a value of another type");
  hudi_value_format(what, sizeof what, v, t->scale);
  switch (t->id) {
    case HUDI_ARROW_INT8: if (v->v.i < INT8_MIN || v->v.i > INT8_MAX) return misfit(err, f, what); break;
    case HUDI_ARROW_INT16: if (v->v.i < INT16_MIN || v->v.i > INT16_MAX) return misfit(err, f, what); break;
    case HUDI_ARROW_INT32:
    case HUDI_ARROW_DATE32:
    case HUDI_ARROW_TIME32:
      if (v->v.i < INT32_MIN || v->v.i > INT32_MAX) return misfit(err, f, what);
      break;
    case HUDI_ARROW_UINT8: if (v->v.u > UINT8_MAX) return misfit(err, f, what); break;
    case HUDI_ARROW_UINT16: if (v->v.u > UINT16_MAX) return misfit(err, f, what); break;
    case HUDI_ARROW_UINT32: if (v->v.u > UINT32_MAX) return misfit(err, f, what); break;
    case HUDI_ARROW_DECIMAL:
      if (!hudi_decimal_fits(v->v.dec, t->precision)) return misfit(err, f, what);
      break;
    case HUDI_ARROW_FIXED_SIZE_BINARY:
      if ((int64_t)v->v.bytes.len != t->fixed_size) return misfit(err, f, what);
      break;
    default: break;
  }
  return HUDI_OK;
}

static hudi_status put(hudi_assignments *a, int64_t col, const hudi_value *v, hudi_error *err) {
  HUDI_TRY(check_fits(&a->schema.children[col], v, err));
  hudi_value copy = *v;
  if (!v->is_null && v->cls == HUDI_VC_BYTES) {
    uint8_t *d = hudi_malloc(v->v.bytes.len ? v->v.bytes.len : 1);
    if (!d) return nomem(err);
    if (v->v.bytes.len) memcpy(d, v->v.bytes.data, v->v.bytes.len);
    copy.v.bytes.data = d;
  }
  for (size_t i = 0; i < a->n; i++) {
    if (a->items[i].column == col) {
      value_release(&a->items[i].value);
      a->items[i].value = copy;
      return HUDI_OK;
    }
  }
  assignment *items = hudi_realloc(a->items, hudi_mul_size(a->n + 1, sizeof *items));
  if (!items) {
    value_release(&copy);
    return nomem(err);
  }
  a->items = items;
  a->items[a->n].column = col;
  a->items[a->n].value = copy;
  a->n++;
  return HUDI_OK;
}

hudi_status hudi_assignments_add_value(hudi_assignments *a, const char *column, const hudi_value *v,
                                       hudi_error *err) {
  int64_t col = 0;
  HUDI_TRY(find_column(&col, a, column, err));
  return put(a, col, v, err);
}

hudi_status hudi_assignments_add_string(hudi_assignments *a, const char *column, const char *value, size_t len,
                                        hudi_error *err) {
  int64_t col = 0;
  HUDI_TRY(find_column(&col, a, column, err));
  hudi_value v = {.is_null = true};
  if (value) {
    hudi_status st = hudi_cast_string(&v, value_type(&a->schema.children[col]), value, len, err);
    if (st != HUDI_OK) return hudi_err_context(err, st, "assigning column '%s'", column);
  }
  return put(a, col, &v, err);
}

static hudi_status literal_value(hudi_value *v, const hudi_arrow_field *f, const hudi_expr_literal *lit,
                                 hudi_error *err) {
  const hudi_arrow_type *t = value_type(f);
  hudi_vclass cls = hudi_vclass_of(t);
  memset(v, 0, sizeof *v);
  v->cls = cls;
  char what[160];
  snprintf(what, sizeof what, "%.120s", lit->text ? lit->text : "");
  switch (lit->kind) {
    case HUDI_LIT_NULL: v->is_null = true; return HUDI_OK;
    case HUDI_LIT_BOOL:
      if (cls != HUDI_VC_BOOL) return misfit(err, f, lit->b ? "TRUE" : "FALSE");
      v->v.b = lit->b;
      return HUDI_OK;
    case HUDI_LIT_STRING: return hudi_cast_string(v, t, lit->text, lit->len, err);
    case HUDI_LIT_DATE:
    case HUDI_LIT_TIMESTAMP:
      if (t->id != HUDI_ARROW_DATE32 && t->id != HUDI_ARROW_DATE64 && t->id != HUDI_ARROW_TIMESTAMP)
        return misfit(err, f, what);
      return hudi_cast_string(v, t, lit->text, lit->len, err);
    case HUDI_LIT_INT:
    case HUDI_LIT_DECIMAL:
    case HUDI_LIT_FLOAT:
      if (cls == HUDI_VC_DOUBLE) {
        v->v.d = strtod(lit->text, NULL);
        if (t->id == HUDI_ARROW_FLOAT) v->v.d = (float)v->v.d;
        return HUDI_OK;
      }
      if ((cls != HUDI_VC_INT && cls != HUDI_VC_UINT && cls != HUDI_VC_DECIMAL) ||
          (cls == HUDI_VC_INT && !(t->id >= HUDI_ARROW_INT8 && t->id <= HUDI_ARROW_INT64) &&
           t->id != HUDI_ARROW_DURATION) ||
          lit->kind == HUDI_LIT_FLOAT || (cls != HUDI_VC_DECIMAL && lit->kind == HUDI_LIT_DECIMAL))
        return misfit(err, f, what);
      if (hudi_cast_string(v, t, lit->text, lit->len, NULL) != HUDI_OK) return misfit(err, f, what);
      return HUDI_OK;
    default: return misfit(err, f, what);
  }
}

hudi_status hudi_assignments_add_sql(hudi_assignments *a, const char *column, const char *literal,
                                     hudi_error *err) {
  int64_t col = 0;
  HUDI_TRY(find_column(&col, a, column, err));
  hudi_expr_literal lit;
  HUDI_TRY(hudi_expr_parse_literal(&lit, literal, literal ? strlen(literal) : 0, err));
  hudi_value v;
  hudi_status st = literal_value(&v, &a->schema.children[col], &lit, err);
  if (st == HUDI_OK) st = put(a, col, &v, err); /* copies the bytes out of lit */
  else hudi_err_context(err, st, "assigning column '%s'", column);
  hudi_expr_literal_clear(&lit);
  return st;
}

/* ---- applying ---- */

static hudi_status append_value(hudi_arrow_builder *b, const hudi_arrow_type *t, const hudi_value *v,
                                hudi_error *err) {
  if (v->is_null) return hudi_arrow_builder_append_null(b, err);
  switch (v->cls) {
    case HUDI_VC_BOOL: return hudi_arrow_builder_append_bool(b, v->v.b, err);
    case HUDI_VC_INT: return hudi_arrow_builder_append_int(b, v->v.i, err);
    case HUDI_VC_UINT: return hudi_arrow_builder_append_uint(b, v->v.u, err);
    case HUDI_VC_DOUBLE: return hudi_arrow_builder_append_double(b, v->v.d, err);
    case HUDI_VC_DECIMAL: {
      uint8_t buf[16];
      hudi_decimal_store(buf, t->bit_width, v->v.dec);
      return hudi_arrow_builder_append_bytes(b, buf, t->bit_width / 8, err);
    }
    case HUDI_VC_BYTES: return hudi_arrow_builder_append_bytes(b, v->v.bytes.data, (int64_t)v->v.bytes.len, err);
    default: return hudi_err_set(err, HUDI_ERR_INTERNAL, "unassignable value");
  }
}

static hudi_status check_batch(const hudi_assignments *a, const hudi_arrow_view *batch, const hudi_selection *sel,
                               hudi_error *err) {
  if (batch->type.id != HUDI_ARROW_STRUCT || batch->n_children != a->schema.n_children)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "the batch does not have the assignments' %lld columns",
                        (long long)a->schema.n_children);
  if (sel && sel->n_rows != batch->length)
    return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "selection of %lld rows for a batch of %lld",
                        (long long)sel->n_rows, (long long)batch->length);
  return HUDI_OK;
}

static hudi_status fill_column(hudi_arrow_builder *b, const assignment *as, const hudi_arrow_field *f,
                               const hudi_arrow_view *batch, const hudi_selection *sel, hudi_error *err) {
  const hudi_arrow_view *col = &batch->children[as->column];
  for (int64_t i = 0; i < batch->length; i++) {
    if (!sel || hudi_selection_get(sel, i)) HUDI_TRY(append_value(b, value_type(f), &as->value, err));
    else HUDI_TRY(hudi_arrow_builder_append_view(b, col, hudi_arrow_view_struct_row(batch, i), err));
  }
  return HUDI_OK;
}

hudi_status hudi_assignments_apply(struct ArrowArray *out, const hudi_assignments *a, const hudi_arrow_view *batch,
                                   const hudi_selection *sel, hudi_error *err) {
  HUDI_TRY(check_batch(a, batch, sel, err));
  hudi_status st = HUDI_OK;
  size_t done = 0;
  for (; done < a->n && st == HUDI_OK; done++) {
    const assignment *as = &a->items[done];
    const hudi_arrow_field *f = &a->schema.children[as->column];
    hudi_arrow_builder *b = NULL;
    st = hudi_arrow_builder_create(&b, f, err);
    if (st == HUDI_OK) st = fill_column(b, as, f, batch, sel, err);
    if (st == HUDI_OK) st = hudi_arrow_builder_finish(b, &out[done], err);
    hudi_arrow_builder_free(b);
    if (st != HUDI_OK) break;
  }
  if (st != HUDI_OK) {
    for (size_t k = 0; k < done; k++) out[k].release(&out[k]);
  }
  return st;
}

hudi_status hudi_assignments_apply_batch(struct ArrowArray *out, struct ArrowSchema *out_schema,
                                         const hudi_assignments *a, const hudi_arrow_view *batch,
                                         const hudi_selection *sel, hudi_error *err) {
  HUDI_TRY(check_batch(a, batch, sel, err));
  hudi_arrow_batch_builder *bb = NULL;
  HUDI_TRY(hudi_arrow_batch_builder_create(&bb, &a->schema, err));
  /* Which assignment, if any, each column has. */
  int64_t n_cols = a->schema.n_children;
  const assignment **by_col = hudi_calloc(n_cols ? (size_t)n_cols : 1, sizeof *by_col);
  hudi_status st = by_col ? HUDI_OK : nomem(err);
  for (size_t k = 0; k < a->n && st == HUDI_OK; k++) by_col[a->items[k].column] = &a->items[k];
  for (int64_t i = 0; i < batch->length && st == HUDI_OK; i++) {
    bool selected = !sel || hudi_selection_get(sel, i);
    for (int64_t c = 0; c < n_cols && st == HUDI_OK; c++) {
      hudi_arrow_builder *b = hudi_arrow_batch_builder_column(bb, c);
      if (selected && by_col[c])
        st = append_value(b, value_type(&a->schema.children[c]), &by_col[c]->value, err);
      else
        st = hudi_arrow_builder_append_view(b, &batch->children[c], hudi_arrow_view_struct_row(batch, i), err);
    }
    if (st == HUDI_OK) st = hudi_arrow_batch_builder_end_row(bb, err);
  }
  if (st == HUDI_OK && out_schema) st = hudi_arrow_batch_builder_export_schema(bb, out_schema, err);
  if (st == HUDI_OK) {
    st = hudi_arrow_batch_builder_finish(bb, out, err);
    if (st != HUDI_OK && out_schema) out_schema->release(out_schema);
  }
  hudi_free(by_col);
  hudi_arrow_batch_builder_free(bb);
  return st;
}
