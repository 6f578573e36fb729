/* Builders of every type, checked against the buffer layouts of the C Data
 * Interface spec; deep copies from views; streams; allocation failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arrow/arrow_fixture.h"
#include "arrow/builder.h"
#include "arrow/stream.h"
#include "base/alloc.h"

static hudi_arrow_builder *make(const char *format, const char *name) {
  hudi_arrow_field f;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_field_init(&f, name, format, ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  return b;
}

static void finish(hudi_arrow_builder *b, struct ArrowArray *a) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_builder_finish(b, a, &err), HUDI_OK);
  assert_non_null(a->release);
}

static const uint8_t *buf(const struct ArrowArray *a, int i) { return a->buffers[i]; }

static void fixed_width_types(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray a;

  hudi_arrow_builder *b = make("s", "i16");
  assert_int_equal(hudi_arrow_builder_append_int(b, -300, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(b, 32767, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(b, 32768, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "column 'i16'"));
  assert_int_equal(hudi_arrow_builder_append_uint(b, 1, &err), HUDI_ERR_INVALID_ARG);
  finish(b, &a);
  assert_int_equal(a.length, 3);
  assert_int_equal(a.null_count, 1);
  assert_int_equal(a.n_buffers, 2);
  assert_int_equal(buf(&a, 0)[0] & 7, 5);
  int16_t want16[3] = {-300, 0, 32767};
  assert_memory_equal(buf(&a, 1), want16, sizeof want16);
  a.release(&a);
  assert_null(a.release);
  /* The builder starts over after finish. */
  assert_int_equal(hudi_arrow_builder_append_int(b, 5, &err), HUDI_OK);
  finish(b, &a);
  assert_int_equal(a.length, 1);
  assert_int_equal(a.null_count, 0);
  assert_null(a.buffers[0]); /* no nulls: no bitmap */
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("C", "u8");
  assert_int_equal(hudi_arrow_builder_append_uint(b, 255, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_uint(b, 256, &err), HUDI_ERR_INVALID_ARG);
  finish(b, &a);
  assert_int_equal(buf(&a, 1)[0], 255);
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("g", "d");
  assert_int_equal(hudi_arrow_builder_append_double(b, 0.1, &err), HUDI_OK);
  finish(b, &a);
  double d;
  memcpy(&d, buf(&a, 1), 8);
  assert_true(d == 0.1);
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("b", "flag");
  for (int i = 0; i < 10; i++) {
    if (i == 4)
      assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
    else
      assert_int_equal(hudi_arrow_builder_append_bool(b, i % 3 == 0, &err), HUDI_OK);
  }
  finish(b, &a);
  /* true at 0, 3, 6, 9 -> 0x49, 0x02; valid everywhere but 4 -> 0xEF, 0x03 */
  assert_int_equal(buf(&a, 1)[0], 0x49);
  assert_int_equal(buf(&a, 1)[1] & 3, 0x02);
  assert_int_equal(buf(&a, 0)[0], 0xEF);
  assert_int_equal(buf(&a, 0)[1] & 3, 0x03);
  a.release(&a);
  hudi_arrow_builder_free(b);

  /* Every temporal type is an integer of its width. */
  static const struct { const char *f; int w; } temporal[] = {
      {"tdD", 4}, {"tdm", 8}, {"tts", 4}, {"ttm", 4}, {"ttu", 8}, {"ttn", 8},
      {"tss:", 8}, {"tsm:UTC", 8}, {"tsu:Asia/Tokyo", 8}, {"tsn:", 8}, {"tDm", 8}};
  for (size_t k = 0; k < sizeof temporal / sizeof temporal[0]; k++) {
    b = make(temporal[k].f, "t");
    assert_int_equal(hudi_arrow_builder_append_int(b, -19000, &err), HUDI_OK);
    finish(b, &a);
    int64_t got = 0;
    if (temporal[k].w == 4) {
      int32_t x;
      memcpy(&x, buf(&a, 1), 4);
      got = x;
    } else {
      memcpy(&got, buf(&a, 1), 8);
    }
    assert_int_equal(got, -19000);
    struct ArrowSchema s;
    assert_int_equal(hudi_arrow_builder_export_schema(b, &s, &err), HUDI_OK);
    assert_string_equal(s.format, temporal[k].f);
    assert_string_equal(s.name, "t");
    assert_int_equal(s.flags, ARROW_FLAG_NULLABLE);
    s.release(&s);
    a.release(&a);
    hudi_arrow_builder_free(b);
  }

  /* decimal128, fixed_size_binary, float16: raw little-endian bytes of their width. */
  b = make("d:10,2", "dec");
  uint8_t dec[16] = {0x39, 0x30}; /* 12345 -> 123.45 */
  assert_int_equal(hudi_arrow_builder_append_bytes(b, dec, 16, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_bytes(b, dec, 8, &err), HUDI_ERR_INVALID_ARG);
  finish(b, &a);
  assert_memory_equal(buf(&a, 1), dec, 16);
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("w:3", "fsb");
  assert_int_equal(hudi_arrow_builder_append_bytes(b, "abc", 3, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_bytes(b, "xyz", 3, &err), HUDI_OK);
  finish(b, &a);
  assert_memory_equal(buf(&a, 1), "abc\0\0\0xyz", 9);
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("n", "nothing");
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  finish(b, &a);
  assert_int_equal(a.n_buffers, 0);
  assert_int_equal(a.null_count, 2);
  a.release(&a);
  hudi_arrow_builder_free(b);
}

static void variable_width_types(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  struct ArrowArray a;
  hudi_arrow_builder *b = make("u", "s");
  assert_int_equal(hudi_arrow_builder_append_str(b, "a", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(b, "", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(b, "xyz", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(b, 1, &err), HUDI_ERR_INVALID_ARG);
  finish(b, &a);
  assert_int_equal(a.n_buffers, 3);
  int32_t off[5] = {0, 1, 1, 1, 4};
  assert_memory_equal(buf(&a, 1), off, sizeof off);
  assert_memory_equal(buf(&a, 2), "axyz", 4);
  a.release(&a);
  /* An empty array still has an offsets buffer holding one 0. */
  finish(b, &a);
  assert_int_equal(a.length, 0);
  assert_non_null(a.buffers[1]);
  assert_non_null(a.buffers[2]);
  int32_t zero;
  memcpy(&zero, buf(&a, 1), 4);
  assert_int_equal(zero, 0);
  a.release(&a);
  hudi_arrow_builder_free(b);

  b = make("Z", "lb");
  assert_int_equal(hudi_arrow_builder_append_bytes(b, "\0\1", 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_bytes(b, "\2", 1, &err), HUDI_OK);
  finish(b, &a);
  int64_t loff[3] = {0, 2, 3};
  assert_memory_equal(buf(&a, 1), loff, sizeof loff);
  assert_memory_equal(buf(&a, 2), "\0\1\2", 3);
  a.release(&a);
  hudi_arrow_builder_free(b);
}

/* list<struct<id: int32, tag: string>> with a null list and an empty one. */
static void nested_builders(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "items", "+l", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, &err), HUDI_OK);
  hudi_arrow_field *st = &f.children[0];
  assert_int_equal(hudi_arrow_field_init(st, "item", "+s", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(st, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&st->children[0], "id", "i", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&st->children[1], "tag", "u", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  hudi_arrow_builder *item = hudi_arrow_builder_child(b, 0);
  hudi_arrow_builder *id = hudi_arrow_builder_child(item, 0), *tag = hudi_arrow_builder_child(item, 1);
  /* [{1,"a"},{2,null}], null, [], [null] */
  assert_int_equal(hudi_arrow_builder_append_int(id, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(tag, "a", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(item, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(id, 2, &err), HUDI_OK);
  /* A struct element with a missing field is refused. */
  assert_int_equal(hudi_arrow_builder_end_element(item, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'tag'"));
  assert_int_equal(hudi_arrow_builder_append_null(tag, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(item, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(item, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  struct ArrowArray a;
  finish(b, &a);
  assert_int_equal(a.length, 4);
  assert_int_equal(a.null_count, 1);
  int32_t off[5] = {0, 2, 2, 2, 3};
  assert_memory_equal(buf(&a, 1), off, sizeof off);
  struct ArrowArray *sa = a.children[0];
  assert_int_equal(sa->length, 3);
  assert_int_equal(sa->null_count, 1);
  assert_int_equal(sa->n_children, 2);
  int32_t ids[3] = {1, 2, 0};
  assert_memory_equal(sa->children[0]->buffers[1], ids, sizeof ids);
  assert_int_equal(sa->children[1]->null_count, 2);

  /* Export the schema and read the array back through a view. */
  struct ArrowSchema s;
  assert_int_equal(hudi_arrow_builder_export_schema(b, &s, &err), HUDI_OK);
  assert_string_equal(s.children[0]->children[1]->name, "tag");
  assert_int_equal(s.children[0]->children[0]->flags, 0);
  hudi_arrow_view v;
  assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
  assert_true(hudi_arrow_view_is_null(&v, 1));
  int64_t start, end;
  hudi_arrow_view_list_range(&v, 0, &start, &end);
  assert_int_equal(end - start, 2);
  int64_t len;
  const uint8_t *p = hudi_arrow_view_bytes(&v.children[0].children[1], start, &len);
  assert_int_equal(len, 1);
  assert_memory_equal(p, "a", 1);
  hudi_arrow_view_clear(&v);
  s.release(&s);
  a.release(&a);
  hudi_arrow_builder_free(b);
}

static void fixed_size_list_and_map(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "vec", "+w:2", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "item", "f", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  hudi_arrow_builder *b;
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  hudi_arrow_builder *c = hudi_arrow_builder_child(b, 0);
  assert_int_equal(hudi_arrow_builder_append_double(c, 1.5, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_ERR_INVALID_ARG); /* needs 2 */
  assert_int_equal(hudi_arrow_builder_append_double(c, 2.5, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(b, &err), HUDI_OK); /* fills 2 child nulls */
  struct ArrowArray a;
  finish(b, &a);
  assert_int_equal(a.n_buffers, 1);
  assert_int_equal(a.children[0]->length, 4);
  assert_int_equal(a.children[0]->null_count, 2);
  float fv[2] = {1.5f, 2.5f};
  assert_memory_equal(a.children[0]->buffers[1], fv, sizeof fv);
  a.release(&a);
  hudi_arrow_builder_free(b);

  /* map<string, int64>: {"a": 1, "b": null}, {} */
  assert_int_equal(hudi_arrow_field_init(&f, "m", "+m", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "entries", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f.children[0], 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0].children[0], "key", "u", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0].children[1], "value", "l", ARROW_FLAG_NULLABLE, &err),
                   HUDI_OK);
  assert_int_equal(hudi_arrow_builder_create(&b, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  hudi_arrow_builder *e = hudi_arrow_builder_child(b, 0);
  assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_builder_child(e, 0), "a", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_int(hudi_arrow_builder_child(e, 1), 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(e, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_str(hudi_arrow_builder_child(e, 0), "b", &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_null(hudi_arrow_builder_child(e, 1), &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(e, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_end_element(b, &err), HUDI_OK);
  finish(b, &a);
  int32_t moff[3] = {0, 2, 2};
  assert_memory_equal(buf(&a, 1), moff, sizeof moff);
  assert_int_equal(a.children[0]->length, 2);
  struct ArrowSchema s;
  assert_int_equal(hudi_arrow_builder_export_schema(b, &s, &err), HUDI_OK);
  assert_string_equal(s.format, "+m");
  assert_string_equal(s.children[0]->format, "+s");
  s.release(&s);
  a.release(&a);
  hudi_arrow_builder_free(b);
}

/* Deep copies: a dictionary of strings and a string view column are
 * written as plain strings; sliced input keeps only its slice. */
static void copies_views_into_normalised_types(void **state) {
  (void)state;
  int32_t doff[3] = {0, 3, 6};
  const void *db[3] = {NULL, doff, "redblu"};
  struct ArrowSchema ds = fx_schema("u", NULL);
  struct ArrowArray da = fx_array(2, 0, 0, 3, db);
  int16_t idx[4] = {1, 0, 1, 1};
  uint8_t validity[1] = {0x0B};
  const void *ib[2] = {validity, idx};
  struct ArrowSchema dict = fx_schema("s", "color");
  dict.dictionary = &ds;
  struct ArrowArray dicta = fx_array(3, 1, 1, 2, ib); /* red, null, blu */
  dicta.dictionary = &da;

  const char *longs = "a string longer than twelve bytes";
  uint8_t views[3][16];
  fx_view(views[0], "tiny", 0, 0);
  fx_view(views[1], longs, 0, 0);
  fx_view(views[2], "", 0, 0);
  int64_t sizes[1] = {(int64_t)strlen(longs)};
  const void *vb[4] = {NULL, views, longs, sizes};
  struct ArrowSchema vs = fx_schema("vu", "name");
  struct ArrowArray va = fx_array(3, 0, 0, 4, vb);

  struct ArrowSchema root = fx_schema("+s", "");
  struct ArrowSchema *rsc[2] = {&dict, &vs};
  fx_schema_children(&root, rsc, 2);
  const void *rb[1] = {NULL};
  struct ArrowArray ra = fx_array(3, 0, 0, 1, rb);
  struct ArrowArray *rac[2] = {&dicta, &va};
  fx_array_children(&ra, rac, 2);

  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_from_schema(&f, &root, true, &err), HUDI_OK);
  hudi_arrow_batch_builder *bb;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, &err), HUDI_OK);
  hudi_arrow_field_clear(&f);
  hudi_arrow_view v;
  assert_int_equal(hudi_arrow_view_init(&v, &root, &ra, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_append_rows(bb, &v, 1, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_append_rows(bb, &v, 2, 2, &err), HUDI_ERR_INVALID_ARG);
  hudi_arrow_view_clear(&v);
  struct ArrowArray out;
  struct ArrowSchema outs;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &out, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_export_schema(bb, &outs, &err), HUDI_OK);
  assert_string_equal(outs.children[0]->format, "u");
  assert_string_equal(outs.children[0]->name, "color");
  assert_null(outs.children[0]->dictionary);
  assert_string_equal(outs.children[1]->format, "u");
  assert_int_equal(out.length, 2);
  assert_int_equal(out.null_count, 0);
  /* color: null, "blu"; name: longs, "" */
  struct ArrowArray *c0 = out.children[0], *c1 = out.children[1];
  int32_t o0[3] = {0, 0, 3};
  assert_memory_equal(c0->buffers[1], o0, sizeof o0);
  assert_memory_equal(c0->buffers[2], "blu", 3);
  assert_int_equal(c0->null_count, 1);
  int32_t o1[3] = {0, (int32_t)strlen(longs), (int32_t)strlen(longs)};
  assert_memory_equal(c1->buffers[1], o1, sizeof o1);
  assert_memory_equal(c1->buffers[2], longs, strlen(longs));
  outs.release(&outs);
  out.release(&out);

  /* A view of the wrong type is refused by name. */
  hudi_arrow_builder *ib2 = make("i", "num");
  assert_int_equal(hudi_arrow_view_init(&v, &vs, &va, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_builder_append_view(ib2, &v, 0, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "column 'num'"));
  hudi_arrow_view_clear(&v);
  hudi_arrow_builder_free(ib2);
  hudi_arrow_batch_builder_free(bb);
}

/* ---- streams ---- */

static void stream_from_array_rejects_non_struct(void **state) {
  (void)state;
  int32_t values[1] = {1};
  const void *bufs[2] = {NULL, values};
  struct ArrowSchema s = fx_schema("i", "x");
  struct ArrowArray a = fx_array(1, 0, 0, 2, bufs);
  g_released_schemas = g_released_arrays = 0;
  struct ArrowArrayStream st;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_from_array(&st, &s, &a, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "struct"));
  /* Ownership was taken: both were released. */
  assert_int_equal(g_released_schemas, 1);
  assert_int_equal(g_released_arrays, 1);
}

static void stream_from_array_and_rebuild(void **state) {
  (void)state;
  int64_t values[3] = {7, 8, 9};
  const void *cb[2] = {NULL, values};
  struct ArrowSchema cs = fx_schema("l", "n"), s = fx_schema("+s", "");
  struct ArrowSchema *sc[1] = {&cs};
  fx_schema_children(&s, sc, 1);
  struct ArrowArray ca = fx_array(3, 0, 0, 2, cb);
  const void *sb[1] = {NULL};
  struct ArrowArray a = fx_array(2, 1, 0, 1, sb); /* sliced batch: 8, 9 */
  struct ArrowArray *ac[1] = {&ca};
  fx_array_children(&a, ac, 1);
  g_released_schemas = g_released_arrays = 0;
  struct ArrowArrayStream in, out;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_from_array(&in, &s, &a, &err), HUDI_OK);
  assert_int_equal(g_released_schemas, 1); /* copied, then released */
  assert_int_equal(hudi_arrow_stream_rebuild(&out, &in, &err), HUDI_OK);
  assert_null(in.release);
  struct ArrowSchema os;
  assert_int_equal(out.get_schema(&out, &os), 0);
  assert_string_equal(os.format, "+s");
  assert_string_equal(os.children[0]->format, "l");
  assert_string_equal(os.children[0]->name, "n");
  os.release(&os);
  struct ArrowArray b;
  assert_int_equal(out.get_next(&out, &b), 0);
  assert_non_null(b.release);
  assert_int_equal(b.length, 2);
  assert_int_equal(b.offset, 0);
  int64_t want[2] = {8, 9};
  assert_memory_equal(b.children[0]->buffers[1], want, sizeof want);
  b.release(&b);
  assert_int_equal(g_released_arrays, 1); /* the input batch was released after the copy */
  assert_int_equal(out.get_next(&out, &b), 0);
  assert_null(b.release);
  assert_null(out.get_last_error(&out));
  out.release(&out);
  assert_null(out.release);
}

/* A producer whose second get_next fails. */
static int failing_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  (void)s;
  hudi_arrow_field f;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_arrow_field_init(&f, "", "+s", 0, &err) != HUDI_OK) return ENOMEM;
  hudi_status st = hudi_arrow_field_export(out, &f, &err);
  hudi_arrow_field_clear(&f);
  return st == HUDI_OK ? 0 : ENOMEM;
}

static int failing_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  int *calls = s->private_data;
  (void)out;
  (*calls)++;
  return EIO;
}

static const char *failing_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return "disk on fire";
}

static void failing_release(struct ArrowArrayStream *s) { s->release = NULL; }

static void rebuild_propagates_errors(void **state) {
  (void)state;
  int calls = 0;
  struct ArrowArrayStream in = {failing_get_schema, failing_get_next, failing_last_error,
                                failing_release, &calls};
  struct ArrowArrayStream out;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_stream_rebuild(&out, &in, &err), HUDI_OK);
  struct ArrowArray b;
  assert_int_equal(out.get_next(&out, &b), EIO);
  assert_int_equal(calls, 1);
  assert_non_null(strstr(out.get_last_error(&out), "disk on fire"));
  out.release(&out);

  /* A malformed batch: the error names the column. */
  int32_t off[3] = {0, 5, 2};
  const void *cb[3] = {NULL, off, "abcde"};
  struct ArrowSchema cs = fx_schema("u", "bad_col"), s = fx_schema("+s", "");
  struct ArrowSchema *sc[1] = {&cs};
  fx_schema_children(&s, sc, 1);
  struct ArrowArray ca = fx_array(2, 0, 0, 3, cb);
  const void *sb[1] = {NULL};
  struct ArrowArray a = fx_array(2, 0, 0, 1, sb);
  struct ArrowArray *ac[1] = {&ca};
  fx_array_children(&a, ac, 1);
  assert_int_equal(hudi_arrow_stream_from_array(&in, &s, &a, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_stream_rebuild(&out, &in, &err), HUDI_OK);
  assert_int_equal(out.get_next(&out, &b), EINVAL);
  assert_non_null(strstr(out.get_last_error(&out), "bad_col"));
  out.release(&out);
}

/* Every allocation of a nested build, export and stream fails in turn;
 * each failure is reported as NOMEM and leaks nothing (ASan checks). */
static hudi_status build_everything(hudi_error *err) {
  hudi_arrow_field f;
  HUDI_TRY(hudi_arrow_field_init(&f, "", "+s", 0, err));
  hudi_status st = hudi_arrow_field_alloc_children(&f, 3, err);
  if (st == HUDI_OK) st = hudi_arrow_field_init(&f.children[0], "s", "u", ARROW_FLAG_NULLABLE, err);
  if (st == HUDI_OK) st = hudi_arrow_field_init(&f.children[1], "l", "+L", ARROW_FLAG_NULLABLE, err);
  if (st == HUDI_OK) st = hudi_arrow_field_alloc_children(&f.children[1], 1, err);
  if (st == HUDI_OK) st = hudi_arrow_field_init(&f.children[1].children[0], "item", "tsu:UTC", 2, err);
  if (st == HUDI_OK) st = hudi_arrow_field_init(&f.children[2], "d", "d:20,3", ARROW_FLAG_NULLABLE, err);
  hudi_arrow_batch_builder *bb = NULL;
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_create(&bb, &f, err);
  uint8_t dec[16] = {1};
  for (int row = 0; row < 40 && st == HUDI_OK; row++) {
    hudi_arrow_builder *s = hudi_arrow_batch_builder_column(bb, 0);
    hudi_arrow_builder *l = hudi_arrow_batch_builder_column(bb, 1);
    hudi_arrow_builder *d = hudi_arrow_batch_builder_column(bb, 2);
    st = row % 5 ? hudi_arrow_builder_append_str(s, "some text value", err)
                 : hudi_arrow_builder_append_null(s, err);
    for (int k = 0; k < row % 3 && st == HUDI_OK; k++)
      st = hudi_arrow_builder_append_int(hudi_arrow_builder_child(l, 0), row * 10 + k, err);
    if (st == HUDI_OK) st = hudi_arrow_builder_end_element(l, err);
    if (st == HUDI_OK) st = hudi_arrow_builder_append_bytes(d, dec, 16, err);
    if (st == HUDI_OK) st = hudi_arrow_batch_builder_end_row(bb, err);
  }
  struct ArrowArray batch = {0};
  if (st == HUDI_OK) st = hudi_arrow_batch_builder_finish(bb, &batch, err);
  struct ArrowArrayStream s1 = {0}, s2 = {0};
  if (st == HUDI_OK) st = hudi_arrow_stream_from_batches(&s1, &f, &batch, 1, err);
  if (st == HUDI_OK) st = hudi_arrow_stream_rebuild(&s2, &s1, err);
  struct ArrowArray out = {0};
  if (st == HUDI_OK) {
    int rc = s2.get_next(&s2, &out);
    if (rc != 0) st = rc == ENOMEM ? HUDI_ERR_NOMEM : HUDI_ERR_INTERNAL;
  }
  if (st == HUDI_OK && (!out.release || out.length != 40)) st = HUDI_ERR_INTERNAL;
  if (out.release) out.release(&out);
  if (s2.release) s2.release(&s2);
  if (batch.release) batch.release(&batch);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
  return st;
}

static void allocation_failures_leak_nothing(void **state) {
  (void)state;
  int failures = 0;
  for (long n = 0;; n++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_alloc_fail_after(n);
    hudi_status st = build_everything(&err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) break;
    assert_int_equal(st, HUDI_ERR_NOMEM);
    failures++;
    assert_true(n < 100000);
  }
  assert_true(failures > 50);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixed_width_types),
      cmocka_unit_test(variable_width_types),
      cmocka_unit_test(nested_builders),
      cmocka_unit_test(fixed_size_list_and_map),
      cmocka_unit_test(copies_views_into_normalised_types),
      cmocka_unit_test(stream_from_array_rejects_non_struct),
      cmocka_unit_test(stream_from_array_and_rebuild),
      cmocka_unit_test(rebuild_propagates_errors),
      cmocka_unit_test(allocation_failures_leak_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
