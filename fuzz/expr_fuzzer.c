/* Fuzzes the predicate parser and everything behind it. Whatever parses
 * must render to text that parses back to the same rendering; binding to a
 * fixed schema either works or fails with a caller error; a bound
 * predicate's batch selection must agree row by row with its single-row
 * evaluation, and pruning with exact statistics of a row must not rule out
 * a row that matches. The input, split at NUL bytes, is also tried as a
 * hudi-rs filter tuple and as values cast to each column type. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "base/alloc.h"
#include "expr/assign.h"
#include "expr/cast.h"
#include "expr/pred.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *names[] = {"a", "b", "c", "d", "ts", "dec", "u", "flag", "s"};
static const char *formats[] = {"i", "u", "g", "tdD", "tsu:UTC", "d:10,2", "C", "b", "+s"};
#define NCOL 9
#define NROW 6

static hudi_arrow_field g_schema;
static struct ArrowSchema g_cschema;
static struct ArrowArray g_array;
static hudi_arrow_view g_view;
static int g_ready;

static void must(hudi_status st) {
  if (st != HUDI_OK) abort();
}

static void setup(void) {
  must(hudi_arrow_field_init(&g_schema, NULL, "+s", 0, NULL));
  must(hudi_arrow_field_alloc_children(&g_schema, NCOL, NULL));
  for (int i = 0; i < NCOL; i++)
    must(hudi_arrow_field_init(&g_schema.children[i], names[i], formats[i], ARROW_FLAG_NULLABLE, NULL));
  hudi_arrow_field *s = &g_schema.children[8];
  must(hudi_arrow_field_alloc_children(s, 1, NULL));
  must(hudi_arrow_field_init(&s->children[0], "x", "l", ARROW_FLAG_NULLABLE, NULL));
  hudi_arrow_batch_builder *bb;
  must(hudi_arrow_batch_builder_create(&bb, &g_schema, NULL));
  static const char *strs[] = {"", "a", "doc1", "zz", "\xff", "a%b"};
  for (int r = 0; r < NROW; r++) {
    hudi_arrow_builder *c[NCOL];
    for (int k = 0; k < NCOL; k++) c[k] = hudi_arrow_batch_builder_column(bb, k);
    bool null = r == 5;
    must(null ? hudi_arrow_builder_append_null(c[0], NULL) : hudi_arrow_builder_append_int(c[0], r * 3 - 5, NULL));
    must(hudi_arrow_builder_append_str(c[1], strs[r], NULL));
    must(hudi_arrow_builder_append_double(c[2], r == 4 ? 0.0 / 0.0 : r * 0.5 - 1, NULL));
    must(null ? hudi_arrow_builder_append_null(c[3], NULL) : hudi_arrow_builder_append_int(c[3], 19000 + r, NULL));
    must(hudi_arrow_builder_append_int(c[4], (int64_t)r * 1000000 - 1, NULL));
    uint8_t dec[16] = {0};
    dec[0] = (uint8_t)(r * 50);
    must(hudi_arrow_builder_append_bytes(c[5], dec, 16, NULL));
    must(hudi_arrow_builder_append_uint(c[6], (uint64_t)r * 51, NULL));
    must(r == 2 ? hudi_arrow_builder_append_null(c[7], NULL) : hudi_arrow_builder_append_bool(c[7], r & 1, NULL));
    if (r == 3) {
      must(hudi_arrow_builder_append_null(c[8], NULL));
    } else {
      must(hudi_arrow_builder_append_int(hudi_arrow_builder_child(c[8], 0), r, NULL));
      must(hudi_arrow_builder_end_element(c[8], NULL));
    }
    must(hudi_arrow_batch_builder_end_row(bb, NULL));
  }
  must(hudi_arrow_batch_builder_export_schema(bb, &g_cschema, NULL));
  must(hudi_arrow_batch_builder_finish(bb, &g_array, NULL));
  hudi_arrow_batch_builder_free(bb);
  must(hudi_arrow_view_init(&g_view, &g_cschema, &g_array, NULL));
  g_ready = 1;
}

static bool caller_error(hudi_status st) {
  return st == HUDI_ERR_INVALID_ARG || st == HUDI_ERR_UNSUPPORTED || st == HUDI_ERR_LIMIT;
}

/* The value of pred column k at row r, reading the batch the slow way. */
static void row_value(hudi_value *out, const hudi_pred *p, size_t k, int64_t r) {
  size_t depth;
  const int32_t *path = hudi_pred_column_path(p, k, &depth);
  const hudi_arrow_view *v = &g_view;
  int64_t i = r;
  for (size_t d = 0; d < depth; d++) {
    if (hudi_arrow_view_is_null(v, i)) {
      memset(out, 0, sizeof *out);
      out->is_null = true;
      return;
    }
    i = hudi_arrow_view_struct_row(v, i);
    v = &v->children[path[d]];
  }
  hudi_value_from_view(out, v, i);
  /* A struct has no scalar value (hudi_value_from_view reads it as null),
   * but IS [NOT] NULL sees its validity: keep that for the row model. */
  if (!v->dictionary && hudi_vclass_of(&v->type) == HUDI_VC_NONE) out->is_null = hudi_arrow_view_is_null(v, i);
}

static void check_pred(const hudi_pred *p) {
  hudi_selection sel;
  if (hudi_pred_eval(&sel, p, &g_view, NULL) != HUDI_OK) abort();
  size_t nc = hudi_pred_n_columns(p);
  hudi_value vals[16];
  hudi_col_stats st[16];
  if (nc > 16) {
    hudi_selection_free(&sel);
    return;
  }
  for (int64_t r = 0; r < NROW; r++) {
    for (size_t k = 0; k < nc; k++) {
      row_value(&vals[k], p, k, r);
      memset(&st[k], 0, sizeof st[k]);
      st[k].has_min = st[k].has_max = !vals[k].is_null;
      st[k].min = st[k].max = vals[k];
      st[k].null_count = vals[k].is_null ? 1 : 0;
      st[k].nan_count = 0;
    }
    hudi_tv tv = hudi_pred_eval_row(p, vals);
    if ((tv == HUDI_TV_TRUE) != hudi_selection_get(&sel, r)) abort();
    bool might;
    hudi_pred_prune(&might, p, st, 1);
    if (tv == HUDI_TV_TRUE && !might) abort();
  }
  hudi_selection_free(&sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_ready) setup();
  const char *s = (const char *)data;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_expr *e = NULL;
  hudi_status st = hudi_expr_parse(&e, s, size, &err);
  if (st == HUDI_OK) {
    char *text = NULL, *again = NULL;
    size_t n1, n2;
    hudi_expr *e2 = NULL;
    if (hudi_expr_to_string(&text, &n1, e, NULL) != HUDI_OK) abort();
    if (hudi_expr_parse(&e2, text, n1, &err) != HUDI_OK) abort();
    if (hudi_expr_to_string(&again, &n2, e2, NULL) != HUDI_OK || n1 != n2 || memcmp(text, again, n1) != 0) abort();
    hudi_free(text);
    hudi_free(again);
    hudi_expr_free(e2);
    hudi_pred *p = NULL;
    st = hudi_pred_bind(&p, e, &g_schema, &err);
    if (st == HUDI_OK) check_pred(p);
    else if (!caller_error(st) || !err.message[0]) abort();
    hudi_pred_free(p);
    hudi_expr_free(e);
  } else if (!caller_error(st) || !err.message[0]) {
    abort();
  }
  /* NUL-separated: field, op, value as a hudi-rs tuple; and value casts. */
  const char *z1 = memchr(s, 0, size);
  const char *z2 = z1 ? memchr(z1 + 1, 0, size - (size_t)(z1 + 1 - s)) : NULL;
  if (z1 && z2) {
    const char *value = z2 + 1;
    size_t vlen = size - (size_t)(value - s);
    char *v = malloc(vlen + 1);
    memcpy(v, value, vlen);
    v[vlen] = 0;
    hudi_expr *f = NULL;
    if (hudi_expr_from_filter(&f, s, z1 + 1, v, &err) == HUDI_OK) {
      hudi_pred *p = NULL;
      st = hudi_pred_bind(&p, f, &g_schema, &err);
      if (st == HUDI_OK) check_pred(p);
      else if (!caller_error(st)) abort();
      hudi_pred_free(p);
      hudi_expr_free(f);
    }
    for (int k = 0; k < NCOL - 1; k++) {
      hudi_value out;
      st = hudi_cast_string(&out, &g_schema.children[k].type, value, vlen, &err);
      if (st != HUDI_OK && !caller_error(st)) abort();
    }
    hudi_assignments *a = NULL;
    if (hudi_assignments_create(&a, &g_schema, NULL) != HUDI_OK) abort();
    st = hudi_assignments_add_sql(a, "a", v, &err);
    if (st != HUDI_OK && !caller_error(st)) abort();
    hudi_assignments_free(a);
    free(v);
  }
  return 0;
}
