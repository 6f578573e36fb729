/* Format strings (every type a Hudi table carries) and the metadata encoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "arrow/field.h"
#include "arrow/metadata.h"
#include "arrow/type.h"
#include "base/alloc.h"

static void parses_every_simple_format(void **state) {
  (void)state;
  static const struct {
    const char *format;
    hudi_arrow_type_id id;
    int32_t width;
  } cases[] = {
      {"n", HUDI_ARROW_NA, 0},          {"b", HUDI_ARROW_BOOL, 0},
      {"c", HUDI_ARROW_INT8, 1},        {"C", HUDI_ARROW_UINT8, 1},
      {"s", HUDI_ARROW_INT16, 2},       {"S", HUDI_ARROW_UINT16, 2},
      {"i", HUDI_ARROW_INT32, 4},       {"I", HUDI_ARROW_UINT32, 4},
      {"l", HUDI_ARROW_INT64, 8},       {"L", HUDI_ARROW_UINT64, 8},
      {"e", HUDI_ARROW_HALF_FLOAT, 2},  {"f", HUDI_ARROW_FLOAT, 4},
      {"g", HUDI_ARROW_DOUBLE, 8},      {"u", HUDI_ARROW_STRING, 0},
      {"U", HUDI_ARROW_LARGE_STRING, 0}, {"z", HUDI_ARROW_BINARY, 0},
      {"Z", HUDI_ARROW_LARGE_BINARY, 0}, {"vu", HUDI_ARROW_STRING_VIEW, 0},
      {"vz", HUDI_ARROW_BINARY_VIEW, 0}, {"tdD", HUDI_ARROW_DATE32, 4},
      {"tdm", HUDI_ARROW_DATE64, 8},    {"tts", HUDI_ARROW_TIME32, 4},
      {"ttm", HUDI_ARROW_TIME32, 4},    {"ttu", HUDI_ARROW_TIME64, 8},
      {"ttn", HUDI_ARROW_TIME64, 8},    {"tDu", HUDI_ARROW_DURATION, 8},
      {"+l", HUDI_ARROW_LIST, 0},       {"+L", HUDI_ARROW_LARGE_LIST, 0},
      {"+s", HUDI_ARROW_STRUCT, 0},     {"+m", HUDI_ARROW_MAP, 0},
  };
  hudi_error err = HUDI_ERROR_INIT;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    hudi_arrow_type t;
    assert_int_equal(hudi_arrow_type_parse(&t, cases[i].format, &err), HUDI_OK);
    assert_int_equal(t.id, cases[i].id);
    assert_int_equal(hudi_arrow_type_byte_width(&t), cases[i].width);
    char back[64];
    assert_int_equal(hudi_arrow_type_format(back, sizeof back, &t, &err), HUDI_OK);
    assert_string_equal(back, cases[i].format);
  }
}

static void parses_parameterised_formats(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_type t;
  char back[300];

  assert_int_equal(hudi_arrow_type_parse(&t, "d:38,10", &err), HUDI_OK);
  assert_int_equal(t.id, HUDI_ARROW_DECIMAL);
  assert_int_equal(t.precision, 38);
  assert_int_equal(t.scale, 10);
  assert_int_equal(t.bit_width, 128);
  assert_int_equal(hudi_arrow_type_byte_width(&t), 16);
  assert_int_equal(hudi_arrow_type_format(back, sizeof back, &t, &err), HUDI_OK);
  assert_string_equal(back, "d:38,10");

  assert_int_equal(hudi_arrow_type_parse(&t, "d:60,-2,256", &err), HUDI_OK);
  assert_int_equal(t.scale, -2);
  assert_int_equal(hudi_arrow_type_byte_width(&t), 32);
  assert_int_equal(hudi_arrow_type_format(back, sizeof back, &t, &err), HUDI_OK);
  assert_string_equal(back, "d:60,-2,256");

  assert_int_equal(hudi_arrow_type_parse(&t, "w:16", &err), HUDI_OK);
  assert_int_equal(t.id, HUDI_ARROW_FIXED_SIZE_BINARY);
  assert_int_equal(hudi_arrow_type_byte_width(&t), 16);

  assert_int_equal(hudi_arrow_type_parse(&t, "+w:3", &err), HUDI_OK);
  assert_int_equal(t.id, HUDI_ARROW_FIXED_SIZE_LIST);
  assert_int_equal(t.fixed_size, 3);

  const char *units = "smun";
  for (int u = 0; u < 4; u++) {
    char f[32];
    snprintf(f, sizeof f, "ts%c:", units[u]);
    assert_int_equal(hudi_arrow_type_parse(&t, f, &err), HUDI_OK);
    assert_int_equal(t.id, HUDI_ARROW_TIMESTAMP);
    assert_int_equal(t.unit, u);
    assert_null(t.timezone);
    assert_int_equal(hudi_arrow_type_format(back, sizeof back, &t, &err), HUDI_OK);
    assert_string_equal(back, f);
  }
  assert_int_equal(hudi_arrow_type_parse(&t, "tsn:America/New_York", &err), HUDI_OK);
  assert_int_equal(t.unit, HUDI_ARROW_NANO);
  assert_int_equal(t.timezone_len, strlen("America/New_York"));
  assert_memory_equal(t.timezone, "America/New_York", t.timezone_len);
  assert_int_equal(hudi_arrow_type_format(back, sizeof back, &t, &err), HUDI_OK);
  assert_string_equal(back, "tsn:America/New_York");
  assert_int_equal(hudi_arrow_type_parse(&t, "tsm:+07:30", &err), HUDI_OK);
  assert_memory_equal(t.timezone, "+07:30", 6);
}

static void rejects_malformed_formats(void **state) {
  (void)state;
  static const char *bad[] = {"", "x", "d:", "d:10", "d:10,", "d:0,0", "d:39,0", "d:10,2,100",
                              "d:10,2x", "w:", "w:-1", "w:4x", "+w:", "ts", "tsx:", "tsu",
                              "d:99999999999,1", "+vl", "+ud:0,1", "tdX", "uu", "ii"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hudi_error err = HUDI_ERROR_INIT;
    hudi_arrow_type t;
    hudi_status st = hudi_arrow_type_parse(&t, bad[i], &err);
    assert_true(st == HUDI_ERR_INVALID_ARG || st == HUDI_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "format string"));
  }
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_type t;
  assert_int_equal(hudi_arrow_type_parse(&t, NULL, &err), HUDI_ERR_INVALID_ARG);
  char longtz[400] = "tsu:";
  memset(longtz + 4, 'A', 300);
  longtz[304] = 0;
  assert_int_equal(hudi_arrow_type_parse(&t, longtz, &err), HUDI_ERR_INVALID_ARG);
  /* A format that does not fit the output buffer is a LIMIT error, not a truncation. */
  assert_int_equal(hudi_arrow_type_parse(&t, "tsu:Europe/Amsterdam", &err), HUDI_OK);
  char small[8];
  assert_int_equal(hudi_arrow_type_format(small, sizeof small, &t, &err), HUDI_ERR_LIMIT);
}

/* Metadata bytes written by hand from the spec: int32 count, then
 * (int32 len, bytes) for each key and value, native order. */
static size_t put(char *p, const char *s) {
  int32_t n = (int32_t)strlen(s);
  memcpy(p, &n, 4);
  memcpy(p + 4, s, (size_t)n);
  return 4 + (size_t)n;
}

static void metadata_encodes_and_parses(void **state) {
  (void)state;
  char expect[128];
  size_t n = 0;
  int32_t two = 2;
  memcpy(expect, &two, 4);
  n = 4;
  n += put(expect + n, "k1");
  n += put(expect + n, "value one");
  n += put(expect + n, "ARROW:extension:name");
  n += put(expect + n, "");

  hudi_arrow_kv pairs[2] = {{"k1", 2, "value one", 9}, {"ARROW:extension:name", 20, "", 0}};
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_arrow_metadata_encode(&b, pairs, 2, &err), HUDI_OK);
  assert_int_equal(b.len, n);
  assert_memory_equal(b.data, expect, n);

  size_t size;
  int32_t count;
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, expect, &err), HUDI_OK);
  assert_int_equal(size, n);
  assert_int_equal(count, 2);
  hudi_arrow_kv *got;
  assert_int_equal(hudi_arrow_metadata_parse(&got, &count, expect, &err), HUDI_OK);
  assert_int_equal(count, 2);
  assert_int_equal(got[0].key_len, 2);
  assert_memory_equal(got[0].key, "k1", 2);
  assert_int_equal(got[0].value_len, 9);
  assert_memory_equal(got[0].value, "value one", 9);
  assert_int_equal(got[1].value_len, 0);
  hudi_free(got);

  const char *v;
  int32_t vl;
  assert_int_equal(hudi_arrow_metadata_find(&v, &vl, expect, "k1", &err), HUDI_OK);
  assert_int_equal(vl, 9);
  assert_memory_equal(v, "value one", 9);
  assert_int_equal(hudi_arrow_metadata_find(&v, &vl, expect, "k", &err), HUDI_ERR_NOT_FOUND);
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, NULL, &err), HUDI_OK);
  assert_int_equal(size, 0);
  hudi_buf_free(&b);
}

static void metadata_rejects_bad_lengths(void **state) {
  (void)state;
  char md[32];
  int32_t v = -1;
  memcpy(md, &v, 4);
  hudi_error err = HUDI_ERROR_INIT;
  size_t size;
  int32_t count;
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, md, &err), HUDI_ERR_CORRUPT);
  v = 1;
  memcpy(md, &v, 4);
  v = -5;
  memcpy(md + 4, &v, 4);
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, md, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "byte 4"));
  v = 1 << 30; /* larger than the cap: refused before anything past it is read */
  memcpy(md + 4, &v, 4);
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, md, &err), HUDI_ERR_LIMIT);
  v = HUDI_ARROW_METADATA_MAX_PAIRS + 1;
  memcpy(md, &v, 4);
  assert_int_equal(hudi_arrow_metadata_size(&size, &count, md, &err), HUDI_ERR_LIMIT);
}

static void field_keeps_metadata_and_normalises(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "root", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "sv", "vu", ARROW_FLAG_NULLABLE, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "ts", "tsu:UTC", 0, &err), HUDI_OK);
  char md[64];
  int32_t one = 1;
  memcpy(md, &one, 4);
  size_t n = 4 + put(md + 4, "a");
  n += put(md + n, "bc");
  assert_int_equal(hudi_arrow_field_set_metadata(&f.children[1], md, &err), HUDI_OK);
  assert_int_equal(f.children[1].metadata_size, n);

  struct ArrowSchema s;
  assert_int_equal(hudi_arrow_field_export(&s, &f, &err), HUDI_OK);
  assert_string_equal(s.format, "+s");
  assert_int_equal(s.n_children, 2);
  assert_string_equal(s.children[0]->format, "vu");
  assert_string_equal(s.children[1]->format, "tsu:UTC");
  assert_string_equal(s.children[1]->name, "ts");
  assert_int_equal(s.children[1]->flags, 0);
  assert_memory_equal(s.children[1]->metadata, md, n);

  hudi_arrow_field g;
  assert_int_equal(hudi_arrow_field_from_schema(&g, &s, true, &err), HUDI_OK);
  assert_string_equal(g.children[0].format, "u");
  assert_int_equal(g.children[0].type.id, HUDI_ARROW_STRING);
  assert_int_equal(g.children[0].flags, ARROW_FLAG_NULLABLE);
  assert_memory_equal(g.children[1].type.timezone, "UTC", 3);
  assert_memory_equal(g.children[1].metadata, md, n);
  s.release(&s);
  assert_null(s.release);
  hudi_arrow_field_clear(&g);
  hudi_arrow_field_clear(&f);
}

static void field_rejects_bad_schemas(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  /* A list without its child. */
  assert_int_equal(hudi_arrow_field_init(&f, "l", "+l", 0, &err), HUDI_OK);
  hudi_arrow_field g;
  assert_int_equal(hudi_arrow_field_copy(&g, &f, false, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "column 'l'"));
  hudi_arrow_field_clear(&f);
  /* A map whose child is not a struct of two. */
  assert_int_equal(hudi_arrow_field_init(&f, "m", "+m", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "entries", "i", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_copy(&g, &f, false, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "map"));
  hudi_arrow_field_clear(&f);
  /* An unsupported nested child is named by its path. */
  assert_int_equal(hudi_arrow_field_init(&f, "top", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "inner", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f.children[0], 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0].children[0], "leaf", "+l", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_copy(&g, &f, false, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "'top.inner.leaf'"));
  hudi_arrow_field_clear(&f);
}

static void field_export_survives_allocation_failure(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "root", "+s", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "a", "+l", 0, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f.children[0], 1, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0].children[0], "item", "tsu:UTC", 2, &err), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[1], "b", "u", 2, &err), HUDI_OK);
  int failures = 0;
  for (long n = 0;; n++) {
    hudi_alloc_fail_after(n);
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    hudi_arrow_field copy;
    hudi_status st = hudi_arrow_field_export(&s, &f, &err);
    if (st == HUDI_OK) {
      st = hudi_arrow_field_from_schema(&copy, &s, true, &err);
      s.release(&s);
      if (st == HUDI_OK) {
        hudi_alloc_fail_after(-1);
        assert_string_equal(copy.children[0].children[0].format, "tsu:UTC");
        hudi_arrow_field_clear(&copy);
        break;
      }
    }
    assert_int_equal(st, HUDI_ERR_NOMEM);
    assert_true(s.release == NULL); /* a failed export leaves *out untouched */
    failures++;
  }
  hudi_alloc_fail_after(-1);
  assert_true(failures > 10);
  hudi_arrow_field_clear(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_every_simple_format),
      cmocka_unit_test(parses_parameterised_formats),
      cmocka_unit_test(rejects_malformed_formats),
      cmocka_unit_test(metadata_encodes_and_parses),
      cmocka_unit_test(metadata_rejects_bad_lengths),
      cmocka_unit_test(field_keeps_metadata_and_normalises),
      cmocka_unit_test(field_rejects_bad_schemas),
      cmocka_unit_test(field_export_survives_allocation_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
