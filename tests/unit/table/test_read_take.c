/* hudi_read_take on list columns (read_take.c), over arrays laid out by
 * hand from the C Data Interface spec: a sliced struct whose children are
 * a list<float32> (sliced child, a null list, an empty list: the
 * list-at-a-time copy) and a list<string> with a null element (the
 * element-index path). Rows are taken out of order and repeated; every
 * output buffer is compared with the values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "arrow/arrow_fixture.h"
#include "arrow/view.h"
#include "table/read_take.h"

static void take_lists(void **state) {
  (void)state;
  /* list<float32>: physical child [9, 0..5], child offset 1 -> logical 0..5.
   * Lists (physical): [0,1] null [] [2,3,4] [5]; the struct slice starts at 1,
   * and the list array's offset 1 makes struct rows 0..3 lists 1..4: null, [],
   * [2,3,4], [5]. */
  float fv[7] = {9, 0, 1, 2, 3, 4, 5};
  const void *fcb[2] = {NULL, fv};
  struct ArrowSchema fcs = fx_schema("f", "element");
  struct ArrowArray fca = fx_array(6, 1, 0, 2, fcb);
  int32_t foff[6] = {0, 2, 2, 2, 5, 6};
  uint8_t fval[1] = {0x1D}; /* list 1 null */
  const void *fb[2] = {fval, foff};
  struct ArrowSchema fs = fx_schema("+l", "emb");
  struct ArrowSchema *fsc[1] = {&fcs};
  fx_schema_children(&fs, fsc, 1);
  struct ArrowArray fa = fx_array(4, 1, 1, 2, fb);
  struct ArrowArray *fac[1] = {&fca};
  fx_array_children(&fa, fac, 1);

  /* list<string>: elements "a" null "ccc" "dd"; lists (physical) [a] [null,ccc] [] [dd] [];
   * the list array's offset 1 makes struct row r physical list r + 1. */
  int32_t soffs[5] = {0, 1, 1, 4, 6};
  const char sdata[] = "acccdd";
  uint8_t sval[1] = {0x0D}; /* element 1 null */
  const void *scb[3] = {sval, soffs, sdata};
  struct ArrowSchema scs = fx_schema("u", "element");
  struct ArrowArray sca = fx_array(4, 0, 1, 3, scb);
  int32_t loff[6] = {0, 1, 3, 3, 4, 4};
  const void *lb[2] = {NULL, loff};
  struct ArrowSchema ls = fx_schema("+l", "tags");
  struct ArrowSchema *lsc[1] = {&scs};
  fx_schema_children(&ls, lsc, 1);
  struct ArrowArray la = fx_array(4, 1, 0, 2, lb);
  struct ArrowArray *lac[1] = {&sca};
  fx_array_children(&la, lac, 1);

  const void *stb[1] = {NULL};
  struct ArrowSchema ss = fx_schema("+s", "");
  struct ArrowSchema *ssc[2] = {&fs, &ls};
  fx_schema_children(&ss, ssc, 2);
  struct ArrowArray sa = fx_array(4, 0, 0, 1, stb);
  struct ArrowArray *sac[2] = {&fa, &la};
  fx_array_children(&sa, sac, 2);

  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &ss, &sa, &err), HUDI_OK);
  assert_true(hudi_read_take_supports(&v.children[0]));
  assert_true(hudi_read_take_supports(&v.children[1]));

  /* Struct rows 2, 0, 3, 2, 1. emb (rows = physical list k+1):
   * row 0 -> list 1 null, row 1 -> list 2 [], row 2 -> list 3 [2,3,4], row 3 -> list 4 [5].
   * tags: row 0 -> [null,ccc], row 1 -> [], row 2 -> [dd], row 3 -> []. */
  int64_t cols[2] = {0, 1}, rows[5] = {2, 0, 3, 2, 1};
  struct ArrowArray out;
  assert_int_equal(hudi_read_take(&out, &v, cols, 2, rows, 5, &err), HUDI_OK);
  assert_int_equal(out.length, 5);
  assert_int_equal(out.n_children, 2);

  const struct ArrowArray *e = out.children[0];
  assert_int_equal(e->length, 5);
  assert_int_equal(e->null_count, 1);
  const uint8_t *ev = e->buffers[0];
  assert_int_equal(ev[0] & 0x1F, 0x1D); /* output row 1 (struct row 0) null */
  const int32_t *eo = e->buffers[1];
  int32_t want_eo[6] = {0, 3, 3, 4, 7, 7};
  assert_memory_equal(eo, want_eo, sizeof want_eo);
  assert_int_equal(e->n_children, 1);
  assert_int_equal(e->children[0]->length, 7);
  float want_ef[7] = {2, 3, 4, 5, 2, 3, 4};
  assert_memory_equal(e->children[0]->buffers[1], want_ef, sizeof want_ef);

  const struct ArrowArray *t = out.children[1];
  assert_int_equal(t->null_count, 0);
  const int32_t *to = t->buffers[1];
  int32_t want_to[6] = {0, 1, 3, 3, 4, 4};
  assert_memory_equal(to, want_to, sizeof want_to);
  const struct ArrowArray *te = t->children[0];
  assert_int_equal(te->length, 4); /* "dd" null "ccc" "dd" */
  assert_int_equal(te->null_count, 1);
  const int32_t *teo = te->buffers[1];
  int32_t want_teo[5] = {0, 2, 2, 5, 7};
  assert_memory_equal(teo, want_teo, sizeof want_teo);
  assert_memory_equal(te->buffers[2], "ddcccdd", 7);
  const uint8_t *tev = te->buffers[0];
  assert_int_equal(tev[0] & 0x0F, 0x0D);

  out.release(&out);
  hudi_arrow_view_clear(&v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(take_lists),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
