/* Helpers for the expr tests: record batches built with the arrow
 * builders, and selections compared with expected row lists. */
#ifndef HUDI_TEST_EXPR_H
#define HUDI_TEST_EXPR_H

#include <string.h>

#include "arrow/builder.h"
#include "arrow/field.h"
#include "arrow/view.h"
#include "expr/pred.h"

typedef struct tbl {
  hudi_arrow_field field;
  struct ArrowSchema schema;
  struct ArrowArray array;
  hudi_arrow_view view;
} tbl;

/* A struct schema of n nullable columns "name:format". */
static inline void tbl_schema(hudi_arrow_field *f, const char *const *names, const char *const *formats, int n) {
  assert_int_equal(hudi_arrow_field_init(f, NULL, "+s", 0, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(f, n, NULL), HUDI_OK);
  for (int i = 0; i < n; i++)
    assert_int_equal(hudi_arrow_field_init(&f->children[i], names[i], formats[i], ARROW_FLAG_NULLABLE, NULL),
                     HUDI_OK);
}

static inline void tbl_finish(tbl *t, hudi_arrow_batch_builder *bb) {
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_arrow_batch_builder_export_schema(bb, &t->schema, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_arrow_batch_builder_finish(bb, &t->array, &err) != HUDI_OK) fail_msg("%s", err.message);
  if (hudi_arrow_view_init(&t->view, &t->schema, &t->array, &err) != HUDI_OK) fail_msg("%s", err.message);
}

static inline void tbl_free(tbl *t) {
  hudi_arrow_view_clear(&t->view);
  if (t->array.release) t->array.release(&t->array);
  if (t->schema.release) t->schema.release(&t->schema);
  hudi_arrow_field_clear(&t->field);
}

/* Selects rows with sql over t and compares with the expected list (-1 ends it). */
static inline void expect_rows(const tbl *t, const char *sql, const int *rows) {
  hudi_pred *p = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_pred_compile(&p, sql, &t->field, &err) != HUDI_OK) fail_msg("%s: %s", sql, err.message);
  hudi_selection sel;
  if (hudi_pred_eval(&sel, p, &t->view, &err) != HUDI_OK) fail_msg("%s: %s", sql, err.message);
  int64_t k = 0;
  for (int64_t i = 0; i < sel.n_rows; i++) {
    bool want = rows[k] == i;
    if (want) k++;
    if (hudi_selection_get(&sel, i) != want) fail_msg("%s: row %lld %s", sql, (long long)i, want ? "missing" : "selected");
  }
  assert_int_equal(sel.n_selected, k);
  hudi_selection_free(&sel);
  hudi_pred_free(p);
}

static inline void expect_bind_error(const tbl *t, const char *sql, hudi_status code, const char *fragment) {
  hudi_pred *p = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_pred_compile(&p, sql, &t->field, &err);
  if (st != code) fail_msg("%s: status %d (%s)", sql, st, err.message);
  if (!strstr(err.message, fragment)) fail_msg("%s: '%s' lacks '%s'", sql, err.message, fragment);
  assert_null(p);
}

#endif
