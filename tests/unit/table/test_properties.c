/* hoodie.properties parsing and checksum, against files Hudi wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/buf.h"
#include "table/properties.h"

#define PROPS_DIR HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  s[n] = 0;
  *len = (size_t)n;
  return s;
}

static void load(hudi_props *p, const char *name) {
  size_t len;
  char path[512];
  snprintf(path, sizeof path, PROPS_DIR "%s/.hoodie/hoodie.properties", name);
  char *text = slurp(path, &len);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_props_parse(p, text, len, name, &err), HUDI_OK);
  free(text);
}

static void parses_spark_written_v6(void **state) {
  (void)state;
  hudi_props p;
  load(&p, "table_props_no_create_schema");
  assert_int_equal(p.len, 12);
  assert_string_equal(hudi_props_get(&p, "hoodie.table.type"), "COPY_ON_WRITE");
  assert_string_equal(hudi_props_get(&p, "hoodie.table.name"), "v6_empty");
  assert_string_equal(hudi_props_get(&p, "hoodie.table.keygenerator.class"),
                      "org.apache.hudi.keygen.NonpartitionedKeyGenerator");
  assert_null(hudi_props_get(&p, "hoodie.table.precombine.field"));
  hudi_error err = HUDI_ERROR_INIT;
  /* Hudi computed 1980710965 as CRC32("default.v6_empty"). */
  assert_int_equal(hudi_props_validate_checksum(&p, "v6_empty", &err), HUDI_OK);
  hudi_props_free(&p);
}

static void checksum_without_database(void **state) {
  (void)state;
  hudi_props p;
  load(&p, "table_props_valid_minimum"); /* 3761586722 = CRC32(".trips") */
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_props_validate_checksum(&p, "minimum", &err), HUDI_OK);
  hudi_props_free(&p);
}

static void checksum_mismatch_is_reported(void **state) {
  (void)state;
  hudi_props p;
  load(&p, "table_props_invalid");
  hudi_error err = HUDI_ERROR_INIT;
  /* checksum=bar and no table name */
  assert_int_equal(hudi_props_validate_checksum(&p, "invalid", &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "hoodie.table.name"));
  hudi_props_free(&p);

  /* hudi-rs's hand-made "valid" file names database "db" but stores the
   * checksum of ".trips"; Java's HoodieTableConfig.validateChecksum rejects
   * it, and so do we. */
  load(&p, "table_props_valid");
  assert_string_equal(hudi_props_get(&p, "hoodie.table.metadata.partitions.inflight"), "");
  assert_int_equal(hudi_props_validate_checksum(&p, "valid", &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "CRC32(\"db.trips\") is 2086522725"));
  hudi_props_free(&p);
}

static void java_escapes_and_continuations(void **state) {
  (void)state;
  const char *text =
      "# comment\n"
      "! another\n"
      "  a\\:b = x\\=y\\:z  \n"
      "key2:value2\r\n"
      "key3 value with spaces\n"
      "long = one \\\n"
      "       two\n"
      "uni=\\u00e9\\uD83D\\uDE00\n"
      "tabs=a\\tb\n"
      "empty=\n"
      "key2=replaced\n"
      "trailing=\\\\\n";
  hudi_props p;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_props_parse(&p, text, strlen(text), "t", &err), HUDI_OK);
  assert_string_equal(hudi_props_get(&p, "a:b"), "x=y:z  ");
  assert_string_equal(hudi_props_get(&p, "key2"), "replaced");
  assert_string_equal(hudi_props_get(&p, "key3"), "value with spaces");
  assert_string_equal(hudi_props_get(&p, "long"), "one two");
  assert_string_equal(hudi_props_get(&p, "uni"), "\xc3\xa9\xf0\x9f\x98\x80");
  assert_string_equal(hudi_props_get(&p, "tabs"), "a\tb");
  assert_string_equal(hudi_props_get(&p, "empty"), "");
  assert_string_equal(hudi_props_get(&p, "trailing"), "\\");
  assert_int_equal(p.len, 8);
  hudi_props_free(&p);

  const char *bad = "k=\\u12G4\n";
  assert_int_equal(hudi_props_parse(&p, bad, strlen(bad), "bad.properties", &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "bad.properties line 1"));
}

/* Properties.store's escapes (the bytes Java writes for these values, as
 * Spark's hoodie.properties carry them), and the text reads back. */
static void render_escapes_as_java(void **state) {
  (void)state;
  hudi_props p;
  hudi_props_init(&p);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_props_set(&p, "hoodie.table.create.schema", "{\"type\":\"record\",\"x\":1}", &err), HUDI_OK);
  assert_int_equal(hudi_props_set(&p, "a key:x", " lead = #! trail ", &err), HUDI_OK);
  assert_int_equal(hudi_props_set(&p, "ctl", "t\tn\nr\rf\fb\\", &err), HUDI_OK);
  assert_int_equal(hudi_props_set(&p, "uni", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\x7f", &err), HUDI_OK);
  assert_int_equal(hudi_props_set(&p, "empty", "", &err), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 1 << 20);
  assert_int_equal(hudi_props_render(&p, "Updated at 2026-12-06T00:00:00.000Z", "Sun Dec 06 00:00:00 UTC 2026", &out,
                                     &err),
                   HUDI_OK);
  const char *want = "#Updated at 2026-12-06T00:00:00.000Z\n"
                     "#Sun Dec 06 00:00:00 UTC 2026\n"
                     "hoodie.table.create.schema={\"type\"\\:\"record\",\"x\"\\:1}\n"
                     "a\\ key\\:x=\\ lead \\= \\#\\! trail \n"
                     "ctl=t\\tn\\nr\\rf\\fb\\\\\n"
                     "uni=caf\\u00E9 \\u20AC \\uD83D\\uDE00\\u007F\n"
                     "empty=\n";
  assert_int_equal(out.len, strlen(want));
  assert_memory_equal(out.data, want, out.len);
  hudi_props back;
  assert_int_equal(hudi_props_parse(&back, (const char *)out.data, out.len, "rendered", &err), HUDI_OK);
  assert_int_equal(back.len, p.len);
  for (size_t i = 0; i < p.len; i++) {
    assert_string_equal(back.entries[i].key, p.entries[i].key);
    assert_string_equal(back.entries[i].value, p.entries[i].value);
  }
  hudi_props_free(&back);
  /* Text that is not UTF-8 would not read back: refused, naming the byte. */
  assert_int_equal(hudi_props_set(&p, "bad", "ok\xff", &err), HUDI_OK);
  hudi_buf_reset(&out);
  assert_int_equal(hudi_props_render(&p, NULL, NULL, &out, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "byte 2"));
  hudi_buf_free(&out);
  hudi_props_free(&p);
}

static void survives_allocation_failures(void **state) {
  (void)state;
  const char *text = "a=1\nb=2\nc=3\n";
  for (long n = 0; n < 40; n++) {
    hudi_props p;
    hudi_error err = HUDI_ERROR_INIT;
    hudi_alloc_fail_after(n);
    hudi_status st = hudi_props_parse(&p, text, strlen(text), "t", &err);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) {
      assert_string_equal(hudi_props_get(&p, "c"), "3");
      hudi_props_free(&p);
    } else {
      assert_int_equal(st, HUDI_ERR_NOMEM);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_spark_written_v6),
      cmocka_unit_test(checksum_without_database),
      cmocka_unit_test(checksum_mismatch_is_reported),
      cmocka_unit_test(java_escapes_and_continuations),
      cmocka_unit_test(render_escapes_as_java),
      cmocka_unit_test(survives_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
