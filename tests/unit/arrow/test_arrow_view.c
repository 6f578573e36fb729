/* Array views over arrays laid out by hand from the C Data Interface spec:
 * offsets on parents and children, absent validity buffers, dictionaries,
 * string views, large types, and malformed arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "arrow/arrow_fixture.h"
#include "arrow/view.h"

static void assert_bytes(const hudi_arrow_view *v, int64_t i, const char *want) {
  int64_t len;
  const uint8_t *p = hudi_arrow_view_bytes(v, i, &len);
  assert_int_equal(len, (int64_t)strlen(want));
  assert_memory_equal(p, want, (size_t)len);
}

static void int32_with_offset_and_validity(void **state) {
  (void)state;
  /* Physical elements 0..7; the array is the slice [2, 7). */
  int32_t values[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  uint8_t validity[1] = {0xFF & ~(1u << 3) & ~(1u << 5)}; /* elements 3 and 5 null */
  const void *bufs[2] = {validity, values};
  struct ArrowSchema s = fx_schema("i", "x");
  struct ArrowArray a = fx_array(5, 2, 2, 2, bufs);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_int_equal(v.length, 5);
  bool nulls[5] = {false, true, false, true, false};
  for (int i = 0; i < 5; i++) {
    assert_int_equal(hudi_arrow_view_is_null(&v, i), nulls[i]);
    if (!nulls[i]) assert_int_equal(hudi_arrow_view_int(&v, i), 12 + i);
  }
  hudi_arrow_view_clear(&v);
}

static void absent_validity_means_all_valid(void **state) {
  (void)state;
  int64_t values[3] = {-1, 0, INT64_MAX};
  const void *bufs[2] = {NULL, values};
  struct ArrowSchema s = fx_schema("l", "x");
  hudi_error err = HUDI_ERROR_INIT;
  for (int64_t nc = -1; nc <= 0; nc++) {
    struct ArrowArray a = fx_array(3, 0, nc, 2, bufs);
    hudi_arrow_view v;
    assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
    for (int i = 0; i < 3; i++) {
      assert_false(hudi_arrow_view_is_null(&v, i));
      assert_int_equal(hudi_arrow_view_int(&v, i), values[i]);
    }
    hudi_arrow_view_clear(&v);
  }
  /* A validity buffer is ignored when null_count says 0 (it may be stale). */
  uint8_t zero[1] = {0};
  const void *bufs2[2] = {zero, values};
  struct ArrowArray a = fx_array(3, 0, 0, 2, bufs2);
  hudi_arrow_view v;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_false(hudi_arrow_view_is_null(&v, 1));
  hudi_arrow_view_clear(&v);
}

static void bools_and_unsigned_and_floats(void **state) {
  (void)state;
  uint8_t bits[2] = {0xA5, 0x01}; /* 1,0,1,0,0,1,0,1, 1 */
  const void *bufs[2] = {NULL, bits};
  struct ArrowSchema s = fx_schema("b", "flag");
  struct ArrowArray a = fx_array(6, 3, 0, 2, bufs);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  bool want[6] = {false, false, true, false, true, true};
  for (int i = 0; i < 6; i++) assert_int_equal(hudi_arrow_view_bool(&v, i), want[i]);
  hudi_arrow_view_clear(&v);

  uint64_t u[2] = {UINT64_MAX, 7};
  const void *ub[2] = {NULL, u};
  s = fx_schema("L", "u");
  a = fx_array(2, 0, 0, 2, ub);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_true(hudi_arrow_view_uint(&v, 0) == UINT64_MAX);
  hudi_arrow_view_clear(&v);

  float f[2] = {1.5f, -2.25f};
  const void *fb[2] = {NULL, f};
  s = fx_schema("f", "f");
  a = fx_array(1, 1, 0, 2, fb);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_true(hudi_arrow_view_double(&v, 0) == -2.25);
  hudi_arrow_view_clear(&v);
}

static void strings_with_offset_and_large(void **state) {
  (void)state;
  int32_t offsets[5] = {0, 1, 3, 3, 6};
  const char *data = "abbccc";
  uint8_t validity[1] = {0x0B}; /* element 2 null */
  const void *bufs[3] = {validity, offsets, data};
  struct ArrowSchema s = fx_schema("u", "s");
  struct ArrowArray a = fx_array(3, 1, 1, 3, bufs);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_bytes(&v, 0, "bb");
  assert_true(hudi_arrow_view_is_null(&v, 1));
  assert_bytes(&v, 2, "ccc");
  hudi_arrow_view_clear(&v);

  int64_t loff[4] = {0, 0, 5, 11};
  const void *lb[3] = {NULL, loff, "helloworld!"};
  s = fx_schema("Z", "big");
  a = fx_array(3, 0, 0, 3, lb);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_bytes(&v, 0, "");
  assert_bytes(&v, 1, "hello");
  assert_bytes(&v, 2, "world!");
  hudi_arrow_view_clear(&v);

  /* fixed_size_binary with an offset */
  const void *fb[2] = {NULL, "aabbccdd"};
  s = fx_schema("w:2", "fsb");
  a = fx_array(2, 2, 0, 2, fb);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_bytes(&v, 0, "cc");
  assert_bytes(&v, 1, "dd");
  hudi_arrow_view_clear(&v);
}

static void string_views_inline_and_out_of_line(void **state) {
  (void)state;
  const char *long1 = "this string is longer than twelve";
  char data0[64];
  snprintf(data0, sizeof data0, "xx%s", long1);
  const char *data1 = "0123456789abcdefZ";
  uint8_t views[4][16];
  fx_view(views[0], "short", 0, 0);
  fx_view(views[1], long1, 0, 2);
  fx_view(views[2], "", 0, 0);
  fx_view(views[3], "0123456789abcdef", 1, 0);
  int64_t sizes[2] = {(int64_t)strlen(data0), (int64_t)strlen(data1)};
  const void *bufs[5] = {NULL, views, data0, data1, sizes};
  struct ArrowSchema s = fx_schema("vu", "sv");
  struct ArrowArray a = fx_array(3, 1, 0, 5, bufs);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_int_equal(v.n_variadic, 2);
  assert_bytes(&v, 0, long1);
  assert_bytes(&v, 1, "");
  assert_bytes(&v, 2, "0123456789abcdef");
  hudi_arrow_view_clear(&v);

  /* No variadic buffers at all: every value inline. */
  int64_t *no_sizes = NULL;
  const void *ib[3] = {NULL, views, no_sizes};
  s = fx_schema("vz", "bv");
  a = fx_array(1, 0, 0, 3, ib);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_bytes(&v, 0, "short");
  hudi_arrow_view_clear(&v);

  /* A view reaching past its buffer's declared size is refused. */
  sizes[1] = 10;
  a = fx_array(3, 1, 0, 5, bufs);
  s = fx_schema("vu", "sv");
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "column 'sv'"));
  assert_non_null(strstr(err.message, "element 2"));
}

/* list<int32> where the parent is sliced and the child has its own offset. */
static void list_with_parent_and_child_offsets(void **state) {
  (void)state;
  int32_t child_values[8] = {100, 0, 1, 2, 3, 4, 5, 6};
  const void *cb[2] = {NULL, child_values};
  struct ArrowSchema cs = fx_schema("i", "item");
  struct ArrowArray ca = fx_array(7, 1, 0, 2, cb); /* logical child: 0..6 */
  int32_t offsets[5] = {0, 2, 2, 5, 7};            /* [0,1] [] [2,3,4] [5,6] */
  uint8_t validity[1] = {0x0D};                    /* element 1 null */
  const void *lb[2] = {validity, offsets};
  struct ArrowSchema s = fx_schema("+l", "lst");
  struct ArrowSchema *sc[1] = {&cs};
  fx_schema_children(&s, sc, 1);
  struct ArrowArray a = fx_array(3, 1, 1, 2, lb);
  struct ArrowArray *ac[1] = {&ca};
  fx_array_children(&a, ac, 1);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_true(hudi_arrow_view_is_null(&v, 0));
  int64_t start, end;
  hudi_arrow_view_list_range(&v, 1, &start, &end);
  assert_int_equal(start, 2);
  assert_int_equal(end, 5);
  for (int64_t k = start; k < end; k++) assert_int_equal(hudi_arrow_view_int(&v.children[0], k), k);
  hudi_arrow_view_list_range(&v, 2, &start, &end);
  assert_int_equal(hudi_arrow_view_int(&v.children[0], start), 5);
  hudi_arrow_view_clear(&v);

  /* Offsets past the child's length: refused, naming the column. */
  ca.length = 6;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "column 'lst'"));
  ca.length = 7;
  offsets[3] = 1; /* decreasing */
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "decrease"));
}

static void struct_and_fixed_size_list_offsets(void **state) {
  (void)state;
  /* struct{a: int16, b: string} sliced at 1; child b has its own offset 1. */
  int16_t av[4] = {1, 2, 3, 4};
  const void *ab[2] = {NULL, av};
  int32_t boff[5] = {0, 1, 2, 3, 4};
  const void *bb[3] = {NULL, boff, "wxyz"};
  struct ArrowSchema as = fx_schema("s", "a"), bs = fx_schema("u", "b"), s = fx_schema("+s", "st");
  struct ArrowArray aa = fx_array(4, 0, 0, 2, ab), ba = fx_array(3, 1, 0, 3, bb);
  struct ArrowSchema *sc[2] = {&as, &bs};
  struct ArrowArray *ac[2] = {&aa, &ba};
  const void *sb[1] = {NULL};
  struct ArrowArray a = fx_array(2, 1, 0, 1, sb);
  fx_schema_children(&s, sc, 2);
  fx_array_children(&a, ac, 2);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  int64_t row = hudi_arrow_view_struct_row(&v, 1);
  assert_int_equal(hudi_arrow_view_int(&v.children[0], row), 3);
  assert_bytes(&v.children[1], row, "z");
  row = hudi_arrow_view_struct_row(&v, 0);
  assert_bytes(&v.children[1], row, "y");
  hudi_arrow_view_clear(&v);
  /* A child shorter than the struct needs. */
  ba.length = 2;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "column 'st'"));
  ba.length = 3;
  /* The schema and array disagree on the number of children. */
  a.n_children = 1;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  a.n_children = 2;

  /* fixed_size_list<int16, 2> sliced at 1: elements (3,4). */
  struct ArrowSchema fs = fx_schema("+w:2", "pairs");
  struct ArrowSchema *fsc[1] = {&as};
  fx_schema_children(&fs, fsc, 1);
  struct ArrowArray fa = fx_array(1, 1, 0, 1, sb);
  struct ArrowArray *fac[1] = {&aa};
  fx_array_children(&fa, fac, 1);
  assert_int_equal(hudi_arrow_view_init(&v, &fs, &fa, &err), HUDI_OK);
  int64_t start, end;
  hudi_arrow_view_list_range(&v, 0, &start, &end);
  assert_int_equal(hudi_arrow_view_int(&v.children[0], start), 3);
  assert_int_equal(hudi_arrow_view_int(&v.children[0], end - 1), 4);
  hudi_arrow_view_clear(&v);
  fa.length = 2; /* would need 6 child values */
  assert_int_equal(hudi_arrow_view_init(&v, &fs, &fa, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "pairs"));
}

static void map_of_string_to_int(void **state) {
  (void)state;
  int32_t koff[4] = {0, 1, 2, 3};
  const void *kb[3] = {NULL, koff, "abc"};
  int32_t vals[3] = {1, 2, 3};
  const void *vb[2] = {NULL, vals};
  struct ArrowSchema ks = fx_schema("u", "key"), vs = fx_schema("i", "value"),
                     es = fx_schema("+s", "entries"), ms = fx_schema("+m", "m");
  struct ArrowArray ka = fx_array(3, 0, 0, 3, kb), va = fx_array(3, 0, 0, 2, vb);
  const void *eb[1] = {NULL};
  struct ArrowArray ea = fx_array(3, 0, 0, 1, eb);
  struct ArrowSchema *esc[2] = {&ks, &vs}, *msc[1] = {&es};
  struct ArrowArray *eac[2] = {&ka, &va}, *mac[1] = {&ea};
  fx_schema_children(&es, esc, 2);
  fx_schema_children(&ms, msc, 1);
  fx_array_children(&ea, eac, 2);
  int32_t moff[3] = {0, 2, 3};
  const void *mb[2] = {NULL, moff};
  struct ArrowArray ma = fx_array(2, 0, 0, 2, mb);
  fx_array_children(&ma, mac, 1);
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &ms, &ma, &err), HUDI_OK);
  int64_t start, end;
  hudi_arrow_view_list_range(&v, 1, &start, &end);
  assert_int_equal(end - start, 1);
  assert_bytes(&v.children[0].children[0], start, "c");
  assert_int_equal(hudi_arrow_view_int(&v.children[0].children[1], start), 3);
  hudi_arrow_view_clear(&v);
  /* A map whose entries are not a struct of two. */
  es.n_children = 1;
  ea.n_children = 1;
  assert_int_equal(hudi_arrow_view_init(&v, &ms, &ma, &err), HUDI_ERR_INVALID_ARG);
}

static void dictionary_arrays(void **state) {
  (void)state;
  int32_t doff[3] = {0, 3, 6};
  const void *db[3] = {NULL, doff, "redblu"};
  struct ArrowSchema ds = fx_schema("u", NULL);
  struct ArrowArray da = fx_array(2, 0, 0, 3, db);
  int8_t idx[5] = {1, 0, 9, 1, 0};
  uint8_t validity[1] = {0x1B}; /* element 2 null; its index 9 is garbage */
  const void *ib[2] = {validity, idx};
  struct ArrowSchema s = fx_schema("c", "color");
  s.dictionary = &ds;
  struct ArrowArray a = fx_array(4, 1, 1, 2, ib);
  a.dictionary = &da;
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_non_null(v.dictionary);
  assert_int_equal(hudi_arrow_view_dict_index(&v, 0), 0);
  assert_bytes(v.dictionary, hudi_arrow_view_dict_index(&v, 0), "red");
  assert_true(hudi_arrow_view_is_null(&v, 1));
  assert_bytes(v.dictionary, hudi_arrow_view_dict_index(&v, 2), "blu");
  hudi_arrow_view_clear(&v);
  /* A valid element pointing outside the dictionary is refused. */
  validity[0] = 0x1F;
  a.null_count = 0;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "dictionary index 9"));
  assert_non_null(strstr(err.message, "color"));
  /* Schema says dictionary, array has none. */
  a.dictionary = NULL;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
}

static void malformed_headers(void **state) {
  (void)state;
  int32_t values[2] = {1, 2};
  const void *bufs[3] = {NULL, values, NULL};
  struct ArrowSchema s = fx_schema("i", "col_x");
  hudi_arrow_view v;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray a = fx_array(2, 0, 0, 3, bufs); /* int32 has 2 buffers */
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "column 'col_x'"));
  assert_non_null(strstr(err.message, "buffers"));
  a = fx_array(2, 0, 1, 2, bufs); /* a null but no validity bitmap */
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "validity"));
  a = fx_array(-1, 0, 0, 2, bufs);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  a = fx_array(2, INT64_MAX, 0, 2, bufs);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  a = fx_array(2, 0, 3, 2, bufs);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  const void *nobuf[2] = {NULL, NULL};
  a = fx_array(2, 0, 0, 2, nobuf);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  a = fx_array(2, 0, 0, 2, bufs);
  a.release = NULL;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_INVALID_ARG);
  s = fx_schema("+ud:0,1", "u");
  a = fx_array(2, 0, 0, 2, bufs);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "column 'u'"));
  /* Strings whose offsets reach into a missing data buffer. */
  int32_t off[3] = {0, 2, 4};
  const void *sb[3] = {NULL, off, NULL};
  s = fx_schema("u", "s");
  a = fx_array(2, 0, 0, 3, sb);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_ERR_CORRUPT);
  /* An empty array may have NULL buffers. */
  const void *eb[3] = {NULL, NULL, NULL};
  a = fx_array(0, 0, 0, 3, eb);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  hudi_arrow_view_clear(&v);
  /* Null type: no buffers, everything null. */
  s = fx_schema("n", "nothing");
  a = fx_array(3, 0, 3, 0, NULL);
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_true(hudi_arrow_view_is_null(&v, 2));
  hudi_arrow_view_clear(&v);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(int32_with_offset_and_validity),
      cmocka_unit_test(absent_validity_means_all_valid),
      cmocka_unit_test(bools_and_unsigned_and_floats),
      cmocka_unit_test(strings_with_offset_and_large),
      cmocka_unit_test(string_views_inline_and_out_of_line),
      cmocka_unit_test(list_with_parent_and_child_offsets),
      cmocka_unit_test(struct_and_fixed_size_list_offsets),
      cmocka_unit_test(map_of_string_to_int),
      cmocka_unit_test(dictionary_arrays),
      cmocka_unit_test(malformed_headers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
