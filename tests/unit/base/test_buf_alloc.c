/* Growable buffers (caps, growth, detach) and the allocator's failure injection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"

static void buf_appends_and_grows(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  for (int i = 0; i < 10000; i++) assert_int_equal(hudi_buf_append_byte(&b, (uint8_t)i, &err), HUDI_OK);
  assert_int_equal(b.len, 10000);
  for (int i = 0; i < 10000; i++) assert_int_equal(b.data[i], (uint8_t)i);
  assert_int_equal(hudi_buf_printf(&b, &err, "-%d-%s", 42, "x"), HUDI_OK);
  assert_memory_equal(b.data + 10000, "-42-x", 5);
  uint8_t *out;
  size_t len;
  assert_int_equal(hudi_buf_detach(&b, &out, &len, &err), HUDI_OK);
  assert_int_equal(len, 10005);
  assert_int_equal(out[len], 0);
  assert_null(b.data);
  hudi_free(out);
}

static void buf_enforces_cap(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 100);
  hudi_error err = HUDI_ERROR_INIT;
  char chunk[60] = {0};
  assert_int_equal(hudi_buf_append(&b, chunk, 60, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append(&b, chunk, 40, &err), HUDI_OK);
  assert_int_equal(hudi_buf_append(&b, chunk, 1, &err), HUDI_ERR_LIMIT);
  assert_int_equal(err.code, HUDI_ERR_LIMIT);
  assert_non_null(strstr(err.message, "cap of 100 bytes"));
  assert_int_equal(b.len, 100);
  /* A length near SIZE_MAX must not wrap around the check. */
  assert_int_equal(hudi_buf_reserve(&b, SIZE_MAX - 10, &err), HUDI_ERR_LIMIT);
  hudi_buf_free(&b);
}

static void alloc_fail_after_n(void **state) {
  (void)state;
  hudi_alloc_fail_after(2);
  void *a = hudi_malloc(10), *b = hudi_malloc(10), *c = hudi_malloc(10);
  assert_non_null(a);
  assert_non_null(b);
  assert_null(c);
  assert_null(hudi_calloc(1, 1));
  assert_int_equal(hudi_alloc_fail_after(-1), 4);
  void *d = hudi_malloc(10);
  assert_non_null(d);
  hudi_free(a);
  hudi_free(b);
  hudi_free(d);
}

static void buf_reports_nomem(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_alloc_fail_after(0);
  assert_int_equal(hudi_buf_append_str(&b, "abc", &err), HUDI_ERR_NOMEM);
  hudi_alloc_fail_after(-1);
  assert_int_equal(b.len, 0);
  assert_int_equal(hudi_buf_append_str(&b, "abc", &err), HUDI_OK);
  hudi_buf_free(&b);
}

static void calloc_overflow_fails(void **state) {
  (void)state;
  assert_null(hudi_calloc(SIZE_MAX / 2, 4));
}

static void error_context_prefixes(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_err_set(&err, HUDI_ERR_CORRUPT, "bad magic at byte %d", 17);
  hudi_err_context(&err, HUDI_ERR_IO, "reading %s", "a.log");
  assert_int_equal(err.code, HUDI_ERR_CORRUPT);
  assert_string_equal(err.message, "reading a.log: bad magic at byte 17");
  assert_string_equal(hudi_status_name(HUDI_ERR_CONFLICT), "write conflict");
  assert_int_equal(hudi_err_set(NULL, HUDI_ERR_IO, "x"), HUDI_ERR_IO);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(buf_appends_and_grows), cmocka_unit_test(buf_enforces_cap),
      cmocka_unit_test(alloc_fail_after_n),    cmocka_unit_test(buf_reports_nomem),
      cmocka_unit_test(calloc_overflow_fails), cmocka_unit_test(error_context_prefixes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
