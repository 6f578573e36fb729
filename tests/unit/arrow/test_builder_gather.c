/* hudi_arrow_builder_append_gather and the bulk path of append_view_range:
 * the arrays they export must equal, buffer for buffer, what the same
 * elements appended one at a time with append_view give (the per-element
 * path the writers used before). Inputs are hand-built C Data arrays with
 * offsets, nulls, two source views, 32- and 64-bit offsets, and types that
 * take the per-element fallback (bool, dictionary). Also the bulk string
 * appends (append_repeat, append_bytes_many) against append_bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow_fixture.h"

/* Exports b and checks it against the reference builder's export. */
static void assert_same_arrays(hudi_arrow_builder *got, hudi_arrow_builder *want, int n_buffers, size_t width) {
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray a, e;
  assert_int_equal(hudi_arrow_builder_finish(got, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_finish(want, &e, &err), HUDI_OK);
  assert_int_equal(a.length, e.length);
  assert_int_equal(a.null_count, e.null_count);
  assert_int_equal(a.n_buffers, e.n_buffers);
  size_t n = (size_t)a.length;
  if (e.null_count > 0) assert_memory_equal(a.buffers[0], e.buffers[0], (n + 7) / 8);
  else assert_int_equal(a.null_count, 0);
  if (n_buffers == 2) assert_memory_equal(a.buffers[1], e.buffers[1], width ? n * width : (n + 7) / 8); /* 0: bits */
  if (n_buffers == 3) {
    assert_memory_equal(a.buffers[1], e.buffers[1], (n + 1) * width);
    int64_t end = 0;
    if (width == 4) {
      int32_t x;
      memcpy(&x, (const uint8_t *)e.buffers[1] + n * 4, 4);
      end = x;
    } else {
      memcpy(&end, (const uint8_t *)e.buffers[1] + n * 8, 8);
    }
    if (end > 0) assert_memory_equal(a.buffers[2], e.buffers[2], (size_t)end);
  }
  a.release(&a);
  e.release(&e);
}

static void check_gather(const char *format, hudi_arrow_view *const *views, const int64_t *rows, size_t m,
                         int n_buffers, size_t width) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", format, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *got, *want;
  assert_int_equal(hudi_arrow_builder_create(&got, &f, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_create(&want, &f, &err), HUDI_OK);
  /* A value already in both builders: the gather appends after it (its
   * validity bits start mid-byte). */
  assert_int_equal(hudi_arrow_builder_append_null(got, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(want, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_gather(got, (const hudi_arrow_view *const *)views, rows, m, &err),
                   HUDI_OK);
  for (size_t j = 0; j < m; j++)
    assert_int_equal(hudi_arrow_builder_append_view(want, views[j], rows[j], &err), HUDI_OK);
  assert_same_arrays(got, want, n_buffers, width);
  hudi_arrow_builder_free(got);
  hudi_arrow_builder_free(want);
  hudi_arrow_field_clear(&f);
}

static void view_of(hudi_arrow_view *v, struct ArrowSchema *s, struct ArrowArray *a) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_view_init(v, s, a, &err), HUDI_OK);
}

/* int64 from two arrays (one with an offset and nulls), in a shuffled order
 * longer than the prefetch distance. */
static void gather_int64(void **state) {
  (void)state;
  int64_t va[40], vb[30];
  for (int i = 0; i < 40; i++) va[i] = 1000 + i;
  for (int i = 0; i < 30; i++) vb[i] = -i;
  uint8_t valid_b[4] = {0xff, 0x5a, 0xff, 0x3f}; /* offset 2: some nulls */
  const void *ba[2] = {NULL, va}, *bb[2] = {valid_b, vb};
  struct ArrowSchema s = fx_schema("l", "c");
  struct ArrowArray a = fx_array(40, 0, 0, 2, ba), b = fx_array(28, 2, -1, 2, bb);
  hudi_arrow_view x, y;
  view_of(&x, &s, &a);
  view_of(&y, &s, &b);
  hudi_arrow_view *views[100];
  int64_t rows[100];
  for (int j = 0; j < 100; j++) {
    views[j] = j % 3 ? &x : &y;
    rows[j] = j % 3 ? (j * 7) % 40 : (j * 11) % 28;
  }
  check_gather("l", views, rows, 100, 2, 8);
  check_gather("l", views, rows, 0, 2, 8);
  /* A row outside its view is refused. */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *bld;
  assert_int_equal(hudi_arrow_builder_create(&bld, &f, &err), HUDI_OK);
  rows[5] = 28;
  views[5] = &y;
  assert_int_equal(hudi_arrow_builder_append_gather(bld, (const hudi_arrow_view *const *)views, rows, 10, &err),
                   HUDI_ERR_INVALID_ARG);
  hudi_arrow_builder_free(bld);
  hudi_arrow_field_clear(&f);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);
}

/* Strings (32-bit offsets, with an offset and a null) and large strings,
 * each into its own builder type; a string view into a string builder. */
static void gather_strings(void **state) {
  (void)state;
  const char *chars = "alphabetagammadeltaepsilon";
  int32_t off[6] = {0, 5, 9, 14, 14, 26}; /* alpha beta gamma "" deltaepsilon */
  int64_t loff[6] = {0, 5, 9, 14, 14, 26};
  uint8_t valid[1] = {0x1d}; /* element 1 null */
  const void *bs[3] = {valid, off, chars}, *bl[3] = {NULL, loff, chars};
  struct ArrowSchema ss = fx_schema("u", "c"), sl = fx_schema("U", "c");
  struct ArrowArray as = fx_array(4, 1, -1, 3, bs), al = fx_array(5, 0, 0, 3, bl);
  hudi_arrow_view x, y;
  view_of(&x, &ss, &as);
  view_of(&y, &sl, &al);
  hudi_arrow_view *views[50];
  int64_t rows[50];
  for (int j = 0; j < 50; j++) {
    views[j] = &x;
    rows[j] = (j * 3) % 4;
  }
  check_gather("u", views, rows, 50, 3, 4);
  for (int j = 0; j < 50; j++) {
    views[j] = &y;
    rows[j] = (j * 3) % 5;
  }
  check_gather("U", views, rows, 50, 3, 8);
  /* Mixed: large strings into a 32-bit string builder. */
  for (int j = 0; j < 50; j += 2) views[j] = &x, rows[j] = j % 4;
  check_gather("u", views, rows, 50, 3, 4);

  uint8_t v0[16], v1[16];
  fx_view(v0, "short", 0, 0);
  fx_view(v1, "a string longer than twelve", 0, 0);
  uint8_t vv[32];
  memcpy(vv, v0, 16);
  memcpy(vv + 16, v1, 16);
  const char *longs = "a string longer than twelve";
  int64_t sizes[1] = {(int64_t)strlen(longs)};
  const void *bv[4] = {NULL, vv, longs, sizes};
  struct ArrowSchema sv = fx_schema("vu", "c");
  struct ArrowArray av = fx_array(2, 0, 0, 4, bv);
  hudi_arrow_view z;
  view_of(&z, &sv, &av);
  for (int j = 0; j < 20; j++) views[j] = &z, rows[j] = j % 2;
  check_gather("u", views, rows, 20, 3, 4);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);
  hudi_arrow_view_clear(&z);
}

/* bool and dictionary-encoded strings take the per-element path. */
static void gather_fallbacks(void **state) {
  (void)state;
  uint8_t bits[1] = {0x35}, valid[1] = {0xfb};
  const void *bb[2] = {valid, bits};
  struct ArrowSchema sb = fx_schema("b", "c");
  struct ArrowArray ab = fx_array(8, 0, -1, 2, bb);
  hudi_arrow_view x;
  view_of(&x, &sb, &ab);
  hudi_arrow_view *views[30];
  int64_t rows[30];
  for (int j = 0; j < 30; j++) views[j] = &x, rows[j] = (j * 5) % 8;
  check_gather("b", views, rows, 30, 2, 0);

  const char *chars = "redblue";
  int32_t off[3] = {0, 3, 7};
  const void *db[3] = {NULL, off, chars};
  int32_t idx[4] = {1, 0, 1, 1};
  const void *ib[2] = {NULL, idx};
  struct ArrowSchema dict = fx_schema("u", NULL), si = fx_schema("i", "c");
  si.dictionary = &dict;
  struct ArrowArray da = fx_array(2, 0, 0, 3, db), ia = fx_array(4, 0, 0, 2, ib);
  ia.dictionary = &da;
  hudi_arrow_view y;
  view_of(&y, &si, &ia);
  for (int j = 0; j < 30; j++) views[j] = &y, rows[j] = j % 4;
  check_gather("u", views, rows, 30, 3, 4);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);
}

/* list<float> (the embeddings' type): each element's child range is one
 * copy; nulls inside the child take the per-value branch. */
static void range_of_floats(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  float vals[24];
  for (int i = 0; i < 24; i++) vals[i] = (float)i / 4;
  uint8_t cvalid[3] = {0xff, 0xef, 0xff}; /* child value 12 null */
  int32_t off[4] = {0, 8, 16, 24};
  const void *cb[2] = {cvalid, vals}, *lb[2] = {NULL, off};
  struct ArrowSchema item = fx_schema("f", "item"), ls = fx_schema("+l", "c");
  struct ArrowSchema *kids[1] = {&item};
  fx_schema_children(&ls, kids, 1);
  struct ArrowArray ca = fx_array(24, 0, -1, 2, cb), la = fx_array(3, 0, 0, 2, lb);
  struct ArrowArray *akids[1] = {&ca};
  fx_array_children(&la, akids, 1);
  hudi_arrow_view v;
  view_of(&v, &ls, &la);
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_from_schema(&f, &ls, true, &err), HUDI_OK);
  for (int withnull = 0; withnull < 2; withnull++) {
    if (!withnull) cb[0] = NULL; else cb[0] = cvalid;
    hudi_arrow_view_clear(&v);
    view_of(&v, &ls, &la);
    hudi_arrow_builder *got, *want;
    assert_int_equal(hudi_arrow_builder_create(&got, &f, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_create(&want, &f, &err), HUDI_OK);
    int64_t order[5] = {2, 0, 1, 1, 2};
    hudi_arrow_view *views[5] = {&v, &v, &v, &v, &v};
    assert_int_equal(hudi_arrow_builder_append_gather(got, (const hudi_arrow_view *const *)views, order, 5, &err),
                     HUDI_OK);
    /* The reference: every float appended on its own. */
    hudi_arrow_builder *wc = hudi_arrow_builder_child(want, 0);
    for (int j = 0; j < 5; j++) {
      for (int64_t k = order[j] * 8; k < order[j] * 8 + 8; k++)
        assert_int_equal(hudi_arrow_builder_append_view(wc, &v.children[0], k, &err), HUDI_OK);
      assert_int_equal(hudi_arrow_builder_end_element(want, &err), HUDI_OK);
    }
    struct ArrowArray a, e;
    assert_int_equal(hudi_arrow_builder_finish(got, &a, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_finish(want, &e, &err), HUDI_OK);
    assert_memory_equal(a.buffers[1], e.buffers[1], 6 * 4);
    assert_int_equal(a.children[0]->length, 40);
    assert_int_equal(a.children[0]->null_count, e.children[0]->null_count);
    assert_int_equal(a.children[0]->null_count, withnull ? 2 : 0);
    assert_memory_equal(a.children[0]->buffers[1], e.children[0]->buffers[1], 40 * sizeof(float));
    if (withnull) assert_memory_equal(a.children[0]->buffers[0], e.children[0]->buffers[0], 5);
    a.release(&a);
    e.release(&e);
    hudi_arrow_builder_free(got);
    hudi_arrow_builder_free(want);
  }
  hudi_arrow_field_clear(&f);
  hudi_arrow_view_clear(&v);
}

/* append_repeat and append_bytes_many against append_bytes one element at
 * a time, for the four string and binary formats: values of 0, 1, 17 and
 * 75 bytes repeated 0-1000 times (the doubling copies end mid-run), after a
 * null (validity bits mid-byte); other types are refused, appending
 * nothing. */
static void bulk_bytes(void **state) {
  (void)state;
  const char *formats[] = {"u", "U", "z", "Z"};
  const size_t widths[] = {4, 8, 4, 8};
  const char *text = "20261203051409331_0_1234567/dt=2026-12-03/some-file-name-of-seventy-five-bytes.parquet";
  const size_t lens[] = {0, 1, 17, 75}, counts[] = {0, 1, 7, 9, 100, 1000};
  for (size_t fi = 0; fi < 4; fi++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_arrow_field f;
    assert_int_equal(hudi_arrow_field_init(&f, "c", formats[fi], ARROW_FLAG_NULLABLE, &err), HUDI_OK);
    hudi_arrow_builder *got, *want;
    assert_int_equal(hudi_arrow_builder_create(&got, &f, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_create(&want, &f, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_null(got, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_null(want, &err), HUDI_OK);
    for (size_t li = 0; li < 4; li++)
      for (size_t ci = 0; ci < 6; ci++) {
        size_t n = counts[ci];
        const char *v = text + li; /* a different value per length */
        assert_int_equal(hudi_arrow_builder_append_repeat(got, v, (int64_t)lens[li], n, &err), HUDI_OK);
        for (size_t j = 0; j < n; j++)
          assert_int_equal(hudi_arrow_builder_append_bytes(want, v, (int64_t)lens[li], &err), HUDI_OK);
      }
    /* Values of varied lengths and places. */
    const void *ptrs[64];
    size_t ls[64];
    for (size_t j = 0; j < 64; j++) {
      ptrs[j] = text + (j * 7) % 11;
      ls[j] = (j * 13) % 70;
    }
    assert_int_equal(hudi_arrow_builder_append_bytes_many(got, ptrs, ls, 64, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_bytes_many(got, ptrs, ls, 0, &err), HUDI_OK);
    for (size_t j = 0; j < 64; j++)
      assert_int_equal(hudi_arrow_builder_append_bytes(want, ptrs[j], (int64_t)ls[j], &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_length(got), hudi_arrow_builder_length(want));
    assert_same_arrays(got, want, 3, widths[fi]);
    hudi_arrow_builder_free(got);
    hudi_arrow_builder_free(want);
    hudi_arrow_field_clear(&f);
  }
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "n", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_repeat(b, "abc", 3, 5, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'n'"));
  const void *p1[1] = {"abc"};
  size_t l1[1] = {3};
  assert_int_equal(hudi_arrow_builder_append_bytes_many(b, p1, l1, 1, &err), HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_arrow_builder_length(b), 0);
  hudi_arrow_builder_free(b);
  hudi_arrow_field_clear(&f);
}

/* Rows as runs of consecutive elements of one view (a bulk insert in input
 * order gives one run per chunk), of lengths around the block-copy
 * threshold, alternating views, starting at every bit position: the block
 * copies must give what the per-element path gives. Views with and without
 * validity bits and an array offset; int32 and int64; strings, large
 * strings, and large strings into a 32-bit string builder. append_view_range
 * over the same views, against append_view per element. */
static size_t run_rows(hudi_arrow_view **views, int64_t *rows, hudi_arrow_view *a, int64_t a_len,
                       hudi_arrow_view *b, int64_t b_len) {
  static const int lens[] = {1, 15, 16, 17, 3, 40, 64, 2, 31, 100};
  size_t m = 0;
  int64_t ia = 0, ib = 5;
  for (size_t r = 0; r < 30; r++) {
    int n = lens[r % 10];
    bool use_a = r % 3 != 1;
    hudi_arrow_view *v = use_a ? a : b;
    int64_t len = use_a ? a_len : b_len, *at = use_a ? &ia : &ib;
    for (int k = 0; k < n; k++, m++) {
      if (*at >= len) *at = (*at * 7) % 13 % len;
      views[m] = v;
      rows[m] = (*at)++;
    }
  }
  return m;
}

/* append_view_range of [start, start + n) against append_view per element. */
static void check_range(const char *format, hudi_arrow_view *v, int64_t start, int64_t n, int n_buffers,
                        size_t width) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", format, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *got, *want;
  assert_int_equal(hudi_arrow_builder_create(&got, &f, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_create(&want, &f, &err), HUDI_OK);
  for (int k = 0; k < 3; k++) { /* ends mid-byte, and a second range after the first */
    assert_int_equal(hudi_arrow_builder_append_null(got, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_null(want, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_builder_append_view_range(got, v, start + k, n - 2 * k, &err), HUDI_OK);
    for (int64_t i = start + k; i < start + n - k; i++)
      assert_int_equal(hudi_arrow_builder_append_view(want, v, i, &err), HUDI_OK);
  }
  assert_same_arrays(got, want, n_buffers, width);
  hudi_arrow_builder_free(got);
  hudi_arrow_builder_free(want);
  hudi_arrow_field_clear(&f);
}

/* n strings for the run tests: element i is i % 7 letters, with 32- and
 * 64-bit offsets into chars (room for 7 n). */
static void fill_strings(char *chars, int32_t *off, int64_t *loff, int n) {
  size_t pos = 0;
  for (int i = 0; i < n; i++) {
    off[i] = (int32_t)pos, loff[i] = (int64_t)pos;
    for (int k = 0; k < i % 7; k++) chars[pos++] = (char)('a' + (i + k) % 26);
  }
  off[n] = (int32_t)pos, loff[n] = (int64_t)pos;
}

static void gather_runs(void **state) {
  (void)state;
  enum { N = 300 };
  static int64_t l1[N], l2[N];
  static int32_t i1[N];
  static uint8_t valid[N / 8 + 1];
  for (int i = 0; i < N; i++) l1[i] = 7 * i, l2[i] = -i, i1[i] = 3 * i + 1;
  for (int i = 0; i < N / 8 + 1; i++) valid[i] = (uint8_t)(0xff ^ (1u << (i % 8)));
  const void *bl1[2] = {NULL, l1}, *bl2[2] = {valid, l2}, *bi1[2] = {NULL, i1}, *bi2[2] = {valid, i1};
  struct ArrowSchema sl = fx_schema("l", "c"), si = fx_schema("i", "c");
  struct ArrowArray al1 = fx_array(N - 3, 3, 0, 2, bl1), al2 = fx_array(N - 5, 5, -1, 2, bl2);
  struct ArrowArray ai1 = fx_array(N, 0, 0, 2, bi1), ai2 = fx_array(N - 1, 1, -1, 2, bi2);
  hudi_arrow_view x, y;
  static hudi_arrow_view *views[2000];
  static int64_t rows[2000];
  view_of(&x, &sl, &al1);
  view_of(&y, &sl, &al2);
  size_t m = run_rows(views, rows, &x, N - 3, &y, N - 5);
  for (size_t from = 0; from < 9; from++) check_gather("l", views + from, rows + from, m - from, 2, 8);
  check_range("l", &x, 5, 200, 2, 8);
  check_range("l", &y, 1, 250, 2, 8);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);
  view_of(&x, &si, &ai1);
  view_of(&y, &si, &ai2);
  m = run_rows(views, rows, &x, N, &y, N - 1);
  check_gather("i", views, rows, m, 2, 4);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);

  /* Strings: element i is i % 7 letters; from offset 4 on (nonzero first
   * offsets), one array with nulls. */
  static char chars[N * 7];
  static int32_t off[N + 1];
  static int64_t loff[N + 1];
  fill_strings(chars, off, loff, N);
  const void *bs1[3] = {NULL, off, chars}, *bs2[3] = {valid, off, chars}, *bls[3] = {NULL, loff, chars};
  struct ArrowSchema ss = fx_schema("u", "c"), sls = fx_schema("U", "c");
  struct ArrowArray as1 = fx_array(N - 4, 4, 0, 3, bs1), as2 = fx_array(N, 0, -1, 3, bs2);
  struct ArrowArray als = fx_array(N - 2, 2, 0, 3, bls);
  hudi_arrow_view z;
  view_of(&x, &ss, &as1);
  view_of(&y, &ss, &as2);
  view_of(&z, &sls, &als);
  m = run_rows(views, rows, &x, N - 4, &y, N);
  for (size_t from = 0; from < 9; from++) check_gather("u", views + from, rows + from, m - from, 3, 4);
  check_range("u", &x, 3, 250, 3, 4);
  check_range("u", &y, 0, 290, 3, 4);
  check_range("u", &z, 7, 200, 3, 4);
  check_range("U", &z, 7, 200, 3, 8);
  m = run_rows(views, rows, &z, N - 2, &x, N - 4);
  check_gather("u", views, rows, m, 3, 4);
  m = run_rows(views, rows, &z, N - 2, &z, N - 2);
  check_gather("U", views, rows, m, 3, 8);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);
  hudi_arrow_view_clear(&z);
}

/* hudi_arrow_builder_lend_range: the exported array must read, element
 * by element through a view of its own, as elements [start, start + n) of
 * the source (nulls in the same places, the same values), point into the
 * source's buffers instead of copies, and count its nulls exactly. */
static void check_lend(const char *format, struct ArrowSchema *s, hudi_arrow_view *v, int64_t start, int64_t n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", format, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  for (int round = 0; round < 2; round++) { /* the builder is reusable after a finish */
    assert_true(hudi_arrow_builder_lend_range(b, v, start + round, n - round));
    assert_false(hudi_arrow_builder_lend_range(b, v, start, n)); /* not empty any more */
    struct ArrowArray a;
    assert_int_equal(hudi_arrow_builder_finish(b, &a, &err), HUDI_OK);
    assert_ptr_equal(a.buffers[1], v->values);
    hudi_arrow_view got;
    view_of(&got, s, &a);
    assert_int_equal(got.length, n - round);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n - round; i++) {
      bool null = hudi_arrow_view_is_null(v, start + round + i);
      nulls += null;
      assert_int_equal(hudi_arrow_view_is_null(&got, i), null);
      if (null) continue;
      if (v->byte_width > 0) {
        assert_memory_equal(got.values + (got.offset + i) * got.byte_width,
                            v->values + (v->offset + start + round + i) * v->byte_width, (size_t)v->byte_width);
      } else {
        int64_t lg, lw;
        const uint8_t *pg = hudi_arrow_view_bytes(&got, i, &lg), *pw = hudi_arrow_view_bytes(v, start + round + i, &lw);
        assert_int_equal(lg, lw);
        if (lg) assert_memory_equal(pg, pw, (size_t)lg);
      }
    }
    assert_int_equal(a.null_count, nulls);
    if (nulls == 0) assert_null(a.buffers[0]);
    hudi_arrow_view_clear(&got);
    a.release(&a);
  }
  /* Appending to a lent builder fails its finish; nothing is exported. */
  assert_true(hudi_arrow_builder_lend_range(b, v, start, n));
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  struct ArrowArray a;
  assert_int_equal(hudi_arrow_builder_finish(b, &a, &err), HUDI_ERR_INTERNAL);
  assert_non_null(strstr(err.message, "'c'"));
  hudi_arrow_builder_free(b);
  hudi_arrow_field_clear(&f);
}

/* What lend_range refuses, leaving the builder as it was. */
static void check_no_lend(const char *format, hudi_arrow_view *v, int64_t start, int64_t n) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", format, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  assert_false(hudi_arrow_builder_lend_range(b, v, start, n));
  assert_int_equal(hudi_arrow_builder_length(b), 0);
  hudi_arrow_builder_free(b);
  hudi_arrow_field_clear(&f);
}

static void lend_ranges(void **state) {
  (void)state;
  enum { N = 300 };
  static int64_t l1[N];
  static uint8_t valid[N / 8 + 1];
  for (int i = 0; i < N; i++) l1[i] = 7 * i - 1000;
  for (int i = 0; i < N / 8 + 1; i++) valid[i] = (uint8_t)(0xff ^ (1u << (i % 8)) ^ (i % 5 ? 0 : 0x40));
  const void *bl1[2] = {NULL, l1}, *bl2[2] = {valid, l1};
  struct ArrowSchema sl = fx_schema("l", "c");
  struct ArrowArray al1 = fx_array(N - 3, 3, 0, 2, bl1), al2 = fx_array(N - 5, 5, -1, 2, bl2);
  hudi_arrow_view x, y;
  view_of(&x, &sl, &al1);
  view_of(&y, &sl, &al2);
  check_lend("l", &sl, &x, 0, N - 3);
  for (int64_t start = 0; start < 9; start++) check_lend("l", &sl, &y, start, 200 + start); /* every bit position */
  check_no_lend("i", &x, 0, 10);   /* another width */
  check_no_lend("l", &x, 0, 0);    /* nothing to lend */
  check_no_lend("l", &x, 5, N - 3); /* past the end */
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "c", "l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_false(hudi_arrow_builder_lend_range(b, &x, 0, 10)); /* a builder with values */
  assert_int_equal(hudi_arrow_builder_length(b), 1);
  hudi_arrow_builder_free(b);
  hudi_arrow_field_clear(&f);
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);

  static char chars[N * 7];
  static int32_t off[N + 1];
  static int64_t loff[N + 1];
  fill_strings(chars, off, loff, N);
  const void *bs[3] = {valid, off, chars}, *bls[3] = {NULL, loff, chars};
  struct ArrowSchema ss = fx_schema("u", "c"), sls = fx_schema("U", "c");
  struct ArrowArray as = fx_array(N - 4, 4, -1, 3, bs), als = fx_array(N - 2, 2, 0, 3, bls);
  view_of(&x, &ss, &as);
  view_of(&y, &sls, &als);
  for (int64_t start = 0; start < 9; start++) check_lend("u", &ss, &x, start, 250);
  check_lend("U", &sls, &y, 7, 200);
  check_no_lend("u", &y, 0, 10); /* large strings into 32-bit offsets: copied */
  check_no_lend("z", &x, 0, 10); /* string into binary */
  hudi_arrow_view_clear(&x);
  hudi_arrow_view_clear(&y);

  uint8_t bits[1] = {0x35};
  const void *bb[2] = {NULL, bits};
  struct ArrowSchema sb = fx_schema("b", "c");
  struct ArrowArray ab = fx_array(8, 0, 0, 2, bb);
  view_of(&x, &sb, &ab);
  check_no_lend("b", &x, 0, 8); /* bits: copied */
  hudi_arrow_view_clear(&x);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(gather_int64), cmocka_unit_test(gather_strings),
                                     cmocka_unit_test(gather_fallbacks), cmocka_unit_test(range_of_floats),
                                     cmocka_unit_test(bulk_bytes), cmocka_unit_test(gather_runs),
                                     cmocka_unit_test(lend_ranges)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
