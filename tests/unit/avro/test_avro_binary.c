/* Binary primitives against the examples of the Avro specification, the
 * skipper/validator, and malformed container files: every error names a
 * byte offset, nothing crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro_test.h"

static void zigzag_examples_from_the_spec(void **state) {
  (void)state;
  /* Avro spec, "Binary Encoding": 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03,
   * 2 -> 04, -64 -> 7f, 64 -> 80 01. */
  const int64_t vals[] = {0, -1, 1, -2, 2, -64, 64};
  const uint8_t enc[][2] = {{0x00}, {0x01}, {0x02}, {0x03}, {0x04}, {0x7f}, {0x80, 0x01}};
  for (int i = 0; i < 7; i++) {
    uint8_t out[10];
    size_t n = hudi_avro_encode_long(out, vals[i]);
    assert_int_equal(n, i == 6 ? 2 : 1);
    assert_memory_equal(out, enc[i], n);
    hudi_avro_cursor c;
    hudi_avro_cursor_init(&c, enc[i], n, 0, "t");
    int64_t v;
    assert_int_equal(hudi_avro_read_long(&c, &v, NULL), HUDI_OK);
    assert_int_equal(v, vals[i]);
  }
}

static void varint_limits_and_overflow(void **state) {
  (void)state;
  const int64_t vals[] = {INT64_MAX, INT64_MIN, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, -(1LL << 62)};
  for (int i = 0; i < 6; i++) {
    hudi_buf b;
    hudi_buf_init(&b, 0);
    assert_int_equal(hudi_avro_write_long(&b, vals[i], NULL), HUDI_OK);
    if (vals[i] == INT64_MAX || vals[i] == INT64_MIN) assert_int_equal(b.len, 10);
    hudi_avro_cursor c;
    hudi_avro_cursor_init(&c, b.data, b.len, 0, "t");
    int64_t v;
    assert_int_equal(hudi_avro_read_long(&c, &v, NULL), HUDI_OK);
    assert_int_equal(v, vals[i]);
    hudi_avro_cursor_init(&c, b.data, b.len, 0, "t");
    int32_t i32;
    hudi_status st = hudi_avro_read_int(&c, &i32, NULL);
    if (vals[i] >= INT32_MIN && vals[i] <= INT32_MAX) {
      assert_int_equal(st, HUDI_OK);
      assert_int_equal(i32, vals[i]);
    } else {
      assert_int_equal(st, HUDI_ERR_CORRUPT);
    }
    hudi_buf_free(&b);
  }
  /* 10th byte carrying more than bit 63; 11 bytes; truncated. */
  const uint8_t over[] = {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  const uint8_t eleven[] = {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00};
  const uint8_t trunc[] = {0x05, 0xff, 0xff};
  const struct { const uint8_t *p; size_t n; const char *msg; } bad[] = {
      {over, sizeof over, "varint overflows a long at byte 1"},
      {eleven, sizeof eleven, "varint longer than 10 bytes at byte 1"},
      {trunc, sizeof trunc, "truncated varint at byte 1"},
  };
  for (int i = 0; i < 3; i++) {
    hudi_avro_cursor c;
    hudi_avro_cursor_init(&c, bad[i].p, bad[i].n, 0, "x.avro");
    c.pos = 1;
    int64_t v;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_avro_read_long(&c, &v, &err), HUDI_ERR_CORRUPT);
    assert_non_null(strstr(err.message, bad[i].msg));
    assert_non_null(strstr(err.message, "x.avro"));
  }
}

static void floats_are_little_endian_ieee(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_write_float(&b, 1.0f, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_write_double(&b, -2.0, NULL), HUDI_OK);
  const uint8_t want[] = {0x00, 0x00, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0x00, 0xc0};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, b.data, b.len, 0, "t");
  float f;
  double d;
  assert_int_equal(hudi_avro_read_float(&c, &f, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_read_double(&c, &d, NULL), HUDI_OK);
  assert_true(f == 1.0f && d == -2.0);
  assert_int_equal(hudi_avro_read_float(&c, &f, NULL), HUDI_ERR_CORRUPT);
  hudi_buf_free(&b);
}

static void bytes_lengths_are_capped(void **state) {
  (void)state;
  /* "foo" as the spec encodes it: 06 66 6f 6f. */
  const uint8_t foo[] = {0x06, 'f', 'o', 'o'};
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, foo, sizeof foo, 100, "t");
  const uint8_t *p;
  size_t n;
  assert_int_equal(hudi_avro_read_bytes(&c, &p, &n, 16, NULL), HUDI_OK);
  assert_int_equal(n, 3);
  assert_memory_equal(p, "foo", 3);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_cursor_init(&c, foo, sizeof foo, 100, "t");
  assert_int_equal(hudi_avro_read_bytes(&c, &p, &n, 2, &err), HUDI_ERR_LIMIT);
  const uint8_t neg[] = {0x01}, past[] = {0x08, 'a'};
  hudi_avro_cursor_init(&c, neg, 1, 100, "t");
  assert_int_equal(hudi_avro_read_bytes(&c, &p, &n, 16, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "negative length at byte 100"));
  hudi_avro_cursor_init(&c, past, 2, 100, "t");
  assert_int_equal(hudi_avro_read_bytes(&c, &p, &n, 16, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "past the end of the data at byte 100"));
}

static hudi_avro_schema *parse(const char *json) {
  hudi_avro_schema *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_avro_schema_parse(&s, json, strlen(json), &err) != HUDI_OK) fail_msg("%s: %s", json, err.message);
  return s;
}

static void skipper_validates(void **state) {
  (void)state;
  hudi_avro_schema *s = parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":["
                              "{\"name\":\"u\",\"type\":[\"null\",\"int\"]},"
                              "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}},"
                              "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":\"long\"}},"
                              "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"null\"}}]}");
  /* u=int 5, e=B, a = block of -2 items with byte size 2: [1,2], end, m={"k":null} */
  const uint8_t ok[] = {0x02, 0x0a, 0x02, 0x03, 0x04, 0x02, 0x04, 0x00, 0x02, 0x02, 'k', 0x00};
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, ok, sizeof ok, 0, "t");
  assert_int_equal(hudi_avro_skip(s->root, &c, NULL), HUDI_OK);
  assert_int_equal(c.pos, sizeof ok);
  struct { uint8_t bytes[12]; size_t n; const char *msg; } bad[] = {
      {{0x04}, 1, "union index out of range at byte 0"},
      {{0x00, 0x04}, 2, "enum index out of range at byte 1"},
      {{0x00, 0x02, 0x7e}, 3, "block count larger than the data can hold at byte 2"},
      {{0x00, 0x02, 0x03, 0x40}, 4, "block byte size outside the data at byte 2"},
      {{0x00, 0x02, 0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f}, 8, "block count larger than the data can hold at byte 3"},
      {{0x00, 0x02, 0x00, 0x82}, 4, "truncated varint at byte 3"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_avro_cursor_init(&c, bad[i].bytes, bad[i].n, 0, "t");
    assert_int_not_equal(hudi_avro_skip(s->root, &c, &err), HUDI_OK);
    if (!strstr(err.message, bad[i].msg)) fail_msg("case %zu: %s", i, err.message);
  }
  hudi_avro_schema_free(s);
}

/* A small valid container file of our own (two blocks). */
static void make_file(hudi_buf *out, hudi_avro_codec codec) {
  hudi_avro_schema *s = parse("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"},"
                              "{\"name\":\"l\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}]}");
  hudi_buf js;
  hudi_buf_init(&js, 0);
  assert_int_equal(hudi_avro_schema_to_json(s, &js, NULL), HUDI_OK);
  hudi_avro_writer w;
  hudi_avro_writer_opts o = HUDI_AVRO_WRITER_OPTS_INIT;
  const uint8_t sync[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  o.codec = codec;
  o.sync = sync;
  assert_int_equal(hudi_avro_writer_init(&w, out, (char *)js.data, js.len, &o, NULL), HUDI_OK);
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  for (int i = 0; i < 6; i++) {
    hudi_avro_value v, *item;
    assert_int_equal(hudi_avro_value_init(&v, &a, s->root, NULL), HUDI_OK);
    assert_int_equal(hudi_avro_value_set_string(hudi_avro_value_field(&v, "s"), &a, "hello", 5, NULL), HUDI_OK);
    for (int k = 0; k < i; k++) {
      assert_int_equal(hudi_avro_value_append(hudi_avro_value_field(&v, "l"), &a, &item, NULL), HUDI_OK);
      assert_int_equal(hudi_avro_value_set_long(item, &a, k * 1000, NULL), HUDI_OK);
    }
    assert_int_equal(hudi_avro_writer_append(&w, &v, NULL), HUDI_OK);
    if (i == 2) assert_int_equal(hudi_avro_writer_flush(&w, NULL), HUDI_OK);
  }
  assert_int_equal(hudi_avro_writer_finish(&w, NULL), HUDI_OK);
  hudi_avro_writer_free(&w);
  hudi_avro_arena_free(&a);
  hudi_buf_free(&js);
  hudi_avro_schema_free(s);
}

static hudi_status read_everything(const uint8_t *p, size_t n, size_t *count, hudi_error *err) {
  hudi_avro_file f;
  HUDI_TRY(hudi_avro_file_open(&f, p, n, "bad.avro", err));
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  hudi_avro_value *vals;
  hudi_status st = hudi_avro_file_read_all(&f, &a, NULL, &vals, count, NULL, NULL, err);
  hudi_avro_arena_free(&a);
  hudi_avro_file_close(&f);
  return st;
}

static void malformed_files_fail_with_offsets(void **state) {
  (void)state;
  for (int codec = 0; codec < 4; codec++) {
    hudi_buf b;
    hudi_buf_init(&b, 0);
    make_file(&b, (hudi_avro_codec)codec);
    size_t count;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_OK);
    assert_int_equal(count, 6);
    /* Every truncation fails cleanly (except at a block boundary, which
     * is a shorter valid file) and names the file. */
    for (size_t n = 0; n < b.len; n++) {
      hudi_error e = HUDI_ERROR_INIT;
      hudi_status st = read_everything(b.data, n, &count, &e);
      if (st == HUDI_OK) {
        assert_true(count == 0 || count == 3);
        continue;
      }
      if (!strstr(e.message, "bad.avro")) fail_msg("truncated at %zu: %s", n, e.message);
    }
    /* Every single-byte flip: no crash; most fail. */
    for (size_t n = 0; n < b.len; n++) {
      b.data[n] ^= 0x5a;
      hudi_error e = HUDI_ERROR_INIT;
      (void)read_everything(b.data, b.len, &count, &e);
      b.data[n] ^= 0x5a;
    }
    hudi_buf_free(&b);
  }
  hudi_buf b;
  hudi_buf_init(&b, 0);
  make_file(&b, HUDI_AVRO_CODEC_NULL);
  size_t count;
  hudi_error err = HUDI_ERROR_INIT;
  /* Bad magic. */
  b.data[3] = 2;
  assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "(bad magic) at byte 0"));
  b.data[3] = 1;
  /* Wrong sync after the first block: the last 16 bytes of the file are
   * the second block's sync. */
  b.data[b.len - 1] ^= 1;
  assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_ERR_CORRUPT);
  char want[64];
  snprintf(want, sizeof want, "sync marker does not match the header's at byte %zu", b.len - 16);
  if (!strstr(err.message, want)) fail_msg("%s", err.message);
  b.data[b.len - 1] ^= 1;
  /* A block claiming more objects than it holds. */
  hudi_avro_file f;
  assert_int_equal(hudi_avro_file_open(&f, b.data, b.len, "bad.avro", NULL), HUDI_OK);
  size_t first_block = f.header_len;
  hudi_avro_file_close(&f);
  assert_int_equal(b.data[first_block], 0x06); /* count 3 */
  b.data[first_block] = 0x08;
  assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "truncated"));
  b.data[first_block] = 0x04;
  assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "bytes after its last object"));
  hudi_buf_free(&b);
  /* Snappy CRC mismatch. */
  hudi_buf_init(&b, 0);
  make_file(&b, HUDI_AVRO_CODEC_SNAPPY);
  assert_int_equal(hudi_avro_file_open(&f, b.data, b.len, "bad.avro", NULL), HUDI_OK);
  first_block = f.header_len;
  hudi_avro_file_close(&f);
  /* count (1 byte), size (1 byte), data ... crc: flip the CRC's last byte. */
  size_t size = b.data[first_block + 1] >> 1;
  b.data[first_block + 2 + size - 1] ^= 0xff;
  assert_int_equal(read_everything(b.data, b.len, &count, &err), HUDI_ERR_CORRUPT);
  snprintf(want, sizeof want, "fails its CRC32");
  assert_non_null(strstr(err.message, want));
  hudi_buf_free(&b);
  /* Unknown codec and missing schema. */
  const uint8_t nocodec[] = {'O', 'b', 'j', 1, 0x02, 0x14, 'a', 'v', 'r', 'o', '.', 'c', 'o', 'd', 'e', 'c',
                             0x06, 'l', 'z', 'o', 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  assert_int_equal(read_everything(nocodec, sizeof nocodec, &count, &err), HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "lzo"));
}

/* Every allocation failure while reading and writing is reported, never
 * a crash or a leak (ASan checks the latter). */
static void allocation_failures_are_clean(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  make_file(&b, HUDI_AVRO_CODEC_DEFLATE);
  int succeeded = 0;
  for (long n = 0; n < 400 && !succeeded; n++) {
    hudi_alloc_fail_after(n);
    size_t count = 0;
    hudi_error err = HUDI_ERROR_INIT;
    hudi_status st = read_everything(b.data, b.len, &count, &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) {
      assert_int_equal(count, 6);
      succeeded = 1;
    } else {
      assert_int_equal(st, HUDI_ERR_NOMEM);
    }
  }
  assert_true(succeeded);
  hudi_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(zigzag_examples_from_the_spec),
      cmocka_unit_test(varint_limits_and_overflow),
      cmocka_unit_test(floats_are_little_endian_ieee),
      cmocka_unit_test(bytes_lengths_are_capped),
      cmocka_unit_test(skipper_validates),
      cmocka_unit_test(malformed_files_fail_with_offsets),
      cmocka_unit_test(allocation_failures_are_clean),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
