/* Thrift compact protocol: byte vectors worked out by hand from the compact
 * protocol spec, writer/reader round trips, skipping, and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "parquet/thrift.h"

/* struct { 1: i32 = -1, 2: bool = true, 3: bool = false, 20: string "hi",
 *          21: list<i64> [1, -2], 22: double 1.5, 23: list<bool> [t, f],
 *          24: struct { 1: byte 7 } , 25: map<binary,i32> {"a": 3} } */
static const uint8_t vector[] = {
    0x15, 0x01, /* delta 1, i32, zigzag(-1) = 1 */
    0x11,       /* delta 1, BOOL_TRUE */
    0x12,       /* delta 1, BOOL_FALSE */
};

static void decodes_hand_vector(void **state) {
  (void)state;
  /* Built in pieces so the comments line up with the spec. */
  uint8_t v[64];
  size_t n = 0;
  memcpy(v + n, vector, 4);
  n += 4;
  v[n++] = 0x08; v[n++] = 0x28; /* field 20 binary, long form (delta 17 > 15) */
  v[n++] = 0x02; v[n++] = 'h'; v[n++] = 'i';
  v[n++] = 0x19;                /* delta 1, list */
  v[n++] = 0x26;                /* 2 elements of i64 */
  v[n++] = 0x02; v[n++] = 0x03; /* zigzag(1)=2, zigzag(-2)=3 */
  v[n++] = 0x17;                /* delta 1, double */
  v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 0; v[n++] = 0xf8; v[n++] = 0x3f;
  v[n++] = 0x19; v[n++] = 0x21; v[n++] = 0x01; v[n++] = 0x02; /* list<bool> [true, false(2)] */
  v[n++] = 0x1c; v[n++] = 0x13; v[n++] = 0x07; v[n++] = 0x00; /* struct {1: byte 7} */
  v[n++] = 0x1b; v[n++] = 0x01; v[n++] = 0x85; v[n++] = 0x01; v[n++] = 'a'; v[n++] = 0x06; /* map */
  v[n++] = 0x00;

  hudi_error err = HUDI_ERROR_INIT;
  hudi_thrift_reader r;
  hudi_thrift_reader_init(&r, v, n, 0, &err);
  int16_t last, id;
  uint8_t t;
  assert_int_equal(hudi_thrift_struct_begin(&r, &last), HUDI_OK);
  int32_t i32;
  bool b;
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 1); assert_int_equal(t, HUDI_TT_I32);
  assert_int_equal(hudi_thrift_read_i32(&r, &i32), HUDI_OK);
  assert_int_equal(i32, -1);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 2); assert_int_equal(t, HUDI_TT_BOOL);
  assert_int_equal(hudi_thrift_read_bool(&r, &b), HUDI_OK);
  assert_true(b);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 3); assert_int_equal(t, HUDI_TT_BOOL);
  assert_int_equal(hudi_thrift_read_bool(&r, &b), HUDI_OK);
  assert_false(b);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 20); assert_int_equal(t, HUDI_TT_BINARY);
  const uint8_t *p;
  size_t len;
  assert_int_equal(hudi_thrift_read_binary(&r, &p, &len), HUDI_OK);
  assert_int_equal(len, 2);
  assert_memory_equal(p, "hi", 2);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 21); assert_int_equal(t, HUDI_TT_LIST);
  uint8_t et;
  uint32_t cnt;
  assert_int_equal(hudi_thrift_list_begin(&r, &et, &cnt), HUDI_OK);
  assert_int_equal(et, HUDI_TT_I64); assert_int_equal(cnt, 2);
  int64_t i64;
  assert_int_equal(hudi_thrift_read_i64(&r, &i64), HUDI_OK);
  assert_int_equal(i64, 1);
  assert_int_equal(hudi_thrift_read_i64(&r, &i64), HUDI_OK);
  assert_int_equal(i64, -2);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 22); assert_int_equal(t, HUDI_TT_DOUBLE);
  double d;
  assert_int_equal(hudi_thrift_read_double(&r, &d), HUDI_OK);
  assert_true(d == 1.5);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 23);
  assert_int_equal(hudi_thrift_list_begin(&r, &et, &cnt), HUDI_OK);
  assert_int_equal(et, HUDI_TT_BOOL); assert_int_equal(cnt, 2);
  assert_int_equal(hudi_thrift_read_bool(&r, &b), HUDI_OK);
  assert_true(b);
  assert_int_equal(hudi_thrift_read_bool(&r, &b), HUDI_OK);
  assert_false(b);
  /* The remaining struct and map are skipped as unknown fields. */
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 24); assert_int_equal(t, HUDI_TT_STRUCT);
  assert_int_equal(hudi_thrift_skip(&r, t), HUDI_OK);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 25); assert_int_equal(t, HUDI_TT_MAP);
  size_t before = r.pos;
  uint8_t kt, vt;
  assert_int_equal(hudi_thrift_map_begin(&r, &kt, &vt, &cnt), HUDI_OK);
  assert_int_equal(kt, HUDI_TT_BINARY); assert_int_equal(vt, HUDI_TT_I32); assert_int_equal(cnt, 1);
  r.pos = before;
  assert_int_equal(hudi_thrift_skip(&r, t), HUDI_OK);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(t, HUDI_TT_STOP);
  hudi_thrift_struct_end(&r);
  assert_int_equal(r.pos, n);

  /* The writer produces exactly the same bytes. */
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_thrift_writer w;
  hudi_thrift_writer_init(&w, &out, &err);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_i32_field(&w, 1, -1);
  hudi_thrift_write_bool_field(&w, 2, true);
  hudi_thrift_write_bool_field(&w, 3, false);
  hudi_thrift_write_string_field(&w, 20, "hi");
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 21);
  hudi_thrift_write_list_begin(&w, HUDI_TT_I64, 2);
  hudi_thrift_write_i64(&w, 1);
  hudi_thrift_write_i64(&w, -2);
  hudi_thrift_write_field(&w, HUDI_TT_DOUBLE, 22);
  hudi_thrift_write_double(&w, 1.5);
  hudi_thrift_write_field(&w, HUDI_TT_LIST, 23);
  hudi_thrift_write_list_begin(&w, HUDI_TT_BOOL, 2);
  hudi_thrift_write_bool(&w, true);
  hudi_thrift_write_bool(&w, false);
  hudi_thrift_write_field(&w, HUDI_TT_STRUCT, 24);
  hudi_thrift_write_struct_begin(&w);
  hudi_thrift_write_field(&w, HUDI_TT_BYTE, 1);
  hudi_thrift_write_byte(&w, 7);
  hudi_thrift_write_struct_end(&w);
  hudi_thrift_write_field(&w, HUDI_TT_MAP, 25);
  hudi_thrift_write_map_begin(&w, HUDI_TT_BINARY, HUDI_TT_I32, 1);
  hudi_thrift_write_string(&w, "a");
  hudi_thrift_write_i32(&w, 3);
  hudi_thrift_write_struct_end(&w);
  assert_int_equal(hudi_thrift_writer_status(&w), HUDI_OK);
  assert_int_equal(out.len, n);
  assert_memory_equal(out.data, v, n);
  hudi_buf_free(&out);
}

static void varint_and_zigzag_edges(void **state) {
  (void)state;
  static const int64_t values[] = {0, 1, -1, 63, -64, 64, 127, 128, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    hudi_buf out;
    hudi_buf_init(&out, 0);
    hudi_thrift_writer w;
    hudi_thrift_writer_init(&w, &out, &err);
    hudi_thrift_write_i64(&w, values[i]);
    assert_int_equal(w.status, HUDI_OK);
    hudi_thrift_reader r;
    hudi_thrift_reader_init(&r, out.data, out.len, 0, &err);
    int64_t x;
    assert_int_equal(hudi_thrift_read_i64(&r, &x), HUDI_OK);
    assert_true(x == values[i]);
    assert_int_equal(r.pos, out.len);
    /* Every truncation fails cleanly. */
    for (size_t cut = 0; cut < out.len; cut++) {
      hudi_thrift_reader_init(&r, out.data, cut, 0, &err);
      assert_int_equal(hudi_thrift_read_i64(&r, &x), HUDI_ERR_CORRUPT);
    }
    hudi_buf_free(&out);
  }
  /* zigzag(-1) is 1, zigzag(1) is 2 (spec examples). */
  assert_int_equal(hudi_zigzag_encode64(-1), 1);
  assert_int_equal(hudi_zigzag_encode64(1), 2);
  assert_int_equal(hudi_zigzag_encode64(INT64_MIN), UINT64_MAX);
  /* An 11-byte or 64-bit-overflowing varint is corrupt. */
  uint8_t long_varint[11];
  memset(long_varint, 0xff, 10);
  long_varint[10] = 0x01;
  hudi_thrift_reader r;
  hudi_thrift_reader_init(&r, long_varint, 11, 1000, &err);
  uint64_t u;
  assert_int_equal(hudi_thrift_read_varint(&r, &u), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte offset 10"));
  /* An i32 out of range is corrupt. */
  uint8_t big[] = {0x80, 0x80, 0x80, 0x80, 0x20}; /* zigzag 2^33 -> 2^32 */
  hudi_thrift_reader_init(&r, big, sizeof big, 0, &err);
  int32_t i32;
  assert_int_equal(hudi_thrift_read_i32(&r, &i32), HUDI_ERR_CORRUPT);
}

static void rejects_hostile_counts(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_thrift_reader r;
  uint8_t et, kt, vt;
  uint32_t n;
  /* list of 2^31 i32 with 3 bytes left */
  uint8_t list[] = {0xf5, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 2, 3};
  hudi_thrift_reader_init(&r, list, sizeof list, 500, &err);
  assert_int_equal(hudi_thrift_list_begin(&r, &et, &n), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte offset 500"));
  /* list of 3 doubles needs 24 bytes */
  uint8_t dl[] = {0x37, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  hudi_thrift_reader_init(&r, dl, sizeof dl, 0, &err);
  assert_int_equal(hudi_thrift_list_begin(&r, &et, &n), HUDI_ERR_CORRUPT);
  /* binary longer than the rest */
  uint8_t bin[] = {0x05, 'a', 'b'};
  const uint8_t *p;
  size_t len;
  hudi_thrift_reader_init(&r, bin, sizeof bin, 0, &err);
  assert_int_equal(hudi_thrift_read_binary(&r, &p, &len), HUDI_ERR_CORRUPT);
  /* map count too large and unknown element types */
  uint8_t map[] = {0x10, 0x55, 1, 2};
  hudi_thrift_reader_init(&r, map, sizeof map, 0, &err);
  assert_int_equal(hudi_thrift_map_begin(&r, &kt, &vt, &n), HUDI_ERR_CORRUPT);
  uint8_t badtype[] = {0x1d};
  hudi_thrift_reader_init(&r, badtype, 1, 0, &err);
  assert_int_equal(hudi_thrift_list_begin(&r, &et, &n), HUDI_ERR_CORRUPT);
  int16_t last = 0, id;
  uint8_t t;
  hudi_thrift_reader_init(&r, badtype, 1, 0, &err);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_ERR_CORRUPT);
  /* A struct with no stop byte. */
  uint8_t nostop[] = {0x15, 0x02};
  hudi_thrift_reader_init(&r, nostop, sizeof nostop, 0, &err);
  assert_int_equal(hudi_thrift_skip(&r, HUDI_TT_STRUCT), HUDI_ERR_CORRUPT);
}

static void nesting_is_capped(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  /* 10000 nested lists of lists: a recursion bomb. */
  uint8_t deep[10000];
  memset(deep, 0x19, sizeof deep);
  hudi_thrift_reader r;
  hudi_thrift_reader_init(&r, deep, sizeof deep, 0, &err);
  assert_int_equal(hudi_thrift_skip(&r, HUDI_TT_LIST), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "nested"));
  /* Nested structs: field 1 struct, again and again. */
  memset(deep, 0x1c, sizeof deep);
  hudi_thrift_reader_init(&r, deep, sizeof deep, 0, &err);
  assert_int_equal(hudi_thrift_skip(&r, HUDI_TT_STRUCT), HUDI_ERR_CORRUPT);
  /* 60 levels are fine. */
  uint8_t ok[121];
  for (int i = 0; i < 60; i++) ok[i] = 0x1c;
  for (int i = 60; i < 121; i++) ok[i] = 0x00;
  hudi_thrift_reader_init(&r, ok, sizeof ok, 0, &err);
  assert_int_equal(hudi_thrift_skip(&r, HUDI_TT_STRUCT), HUDI_OK);
  assert_int_equal(r.pos, sizeof ok);
}

static void field_ids_long_form_and_negative(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_thrift_writer w;
  hudi_thrift_writer_init(&w, &out, &err);
  hudi_thrift_write_struct_begin(&w);
  int16_t ids[] = {5, 3, 300, 301, 32767, -7};
  for (int i = 0; i < 6; i++) hudi_thrift_write_i32_field(&w, ids[i], i * 1000);
  hudi_thrift_write_struct_end(&w);
  assert_int_equal(w.status, HUDI_OK);
  hudi_thrift_reader r;
  hudi_thrift_reader_init(&r, out.data, out.len, 0, &err);
  int16_t last, id;
  uint8_t t;
  assert_int_equal(hudi_thrift_struct_begin(&r, &last), HUDI_OK);
  for (int i = 0; i < 6; i++) {
    assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
    assert_int_equal(id, ids[i]);
    int32_t v;
    assert_int_equal(hudi_thrift_read_i32(&r, &v), HUDI_OK);
    assert_int_equal(v, i * 1000);
  }
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(t, HUDI_TT_STOP);
  /* Delta from 32767 overflows. */
  uint8_t ovf[] = {0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00};
  hudi_thrift_reader_init(&r, ovf, sizeof ovf, 0, &err);
  assert_int_equal(hudi_thrift_struct_begin(&r, &last), HUDI_OK);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_OK);
  assert_int_equal(id, 32767);
  assert_int_equal(hudi_thrift_skip(&r, t), HUDI_OK);
  assert_int_equal(hudi_thrift_field_next(&r, &last, &id, &t), HUDI_ERR_CORRUPT);
  hudi_buf_free(&out);
}

static void writer_errors_are_sticky(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf out;
  hudi_buf_init(&out, 4);
  hudi_thrift_writer w;
  hudi_thrift_writer_init(&w, &out, &err);
  hudi_thrift_write_string(&w, "too long for four bytes");
  assert_int_equal(w.status, HUDI_ERR_LIMIT);
  hudi_thrift_write_byte(&w, 1);
  assert_int_equal(hudi_thrift_writer_status(&w), HUDI_ERR_LIMIT);
  hudi_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decodes_hand_vector),   cmocka_unit_test(varint_and_zigzag_edges),
      cmocka_unit_test(rejects_hostile_counts), cmocka_unit_test(nesting_is_capped),
      cmocka_unit_test(field_ids_long_form_and_negative), cmocka_unit_test(writer_errors_are_sticky),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
