/* hudi_arrow_batch_builder_end_rows: rows closed after filling the columns
 * one at a time, checked against the exported C Data Interface buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "arrow/builder.h"

static hudi_arrow_batch_builder *two_columns(void) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "n", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "s", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  return bb;
}

static void column_at_a_time(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_batch_builder *bb = two_columns();
  hudi_arrow_builder *n = hudi_arrow_batch_builder_column(bb, 0), *s = hudi_arrow_batch_builder_column(bb, 1);
  for (int i = 0; i < 3; i++) assert_int_equal(hudi_arrow_builder_append_int(n, 10 + i, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(s, "a", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(s, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(s, "ccc", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_end_rows(bb, 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_n_rows(bb), 3);
  /* A column short of a value: refused, naming it. */
  assert_int_equal(hudi_arrow_builder_append_int(n, 13, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_end_rows(bb, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'s'"));
  assert_int_equal(hudi_arrow_batch_builder_end_rows(bb, -1, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_arrow_batch_builder_n_rows(bb), 3);
  hudi_arrow_batch_builder_free(bb);

  bb = two_columns();
  n = hudi_arrow_batch_builder_column(bb, 0);
  s = hudi_arrow_batch_builder_column(bb, 1);
  for (int i = 0; i < 2; i++) assert_int_equal(hudi_arrow_builder_append_int(n, 7 * i, &err), HUDI_OK);
  for (int i = 0; i < 2; i++) assert_int_equal(hudi_arrow_builder_append_str(s, i ? "yz" : "x", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_end_rows(bb, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_end_rows(bb, 0, &err), HUDI_OK);
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, &err), HUDI_OK);
  assert_int_equal(a.length, 2);
  assert_int_equal(a.n_children, 2);
  const int64_t *ints = a.children[0]->buffers[1];
  assert_int_equal(ints[0], 0);
  assert_int_equal(ints[1], 7);
  const int32_t *offs = a.children[1]->buffers[1];
  assert_int_equal(offs[2], 3);
  assert_memory_equal(a.children[1]->buffers[2], "xyz", 3);
  a.release(&a);
  hudi_arrow_batch_builder_free(bb);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(column_at_a_time)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
