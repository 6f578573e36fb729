/* fastavro as the oracle: it writes container files of every type and
 * codec, we decode them (also through schema resolution) and compare with
 * what fastavro reads; we write them back with every codec and fastavro
 * reads ours and compares. Canonical forms and fingerprints too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro_test.h"

static char dir[3000];
static json_t *cases_doc;
static const char *const codecs[] = {"null", "deflate", "snappy", "zstandard"};

static int setup(void **state) {
  (void)state;
  avro_test_scratch(dir, sizeof dir, "fastavro");
  char args[3100];
  snprintf(args, sizeof args, "gen '%s'", dir);
  if (avro_test_oracle(args) != 0) {
    fprintf(stderr, "fastavro oracle failed (python %s with fastavro, cramjam, backports.zstd needed)\n",
            avro_test_python());
    return -1;
  }
  char path[3200];
  snprintf(path, sizeof path, "%s/cases.json", dir);
  json_error_t jerr;
  cases_doc = json_load_file(path, 0, &jerr);
  return cases_doc ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  json_decref(cases_doc);
  avro_test_rmdir(dir);
  return 0;
}

static hudi_avro_schema *parse_json_schema(json_t *j) {
  char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
  hudi_avro_schema *schema = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_avro_schema_parse(&schema, s, strlen(s), &err);
  if (st != HUDI_OK) fprintf(stderr, "schema %s: %s\n", s, err.message);
  free(s);
  assert_int_equal(st, HUDI_OK);
  return schema;
}

static void check_canonical(json_t *entry) {
  hudi_avro_schema *s = parse_json_schema(json_object_get(entry, "schema"));
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_schema_canonical(s->root, &b, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
  assert_string_equal((char *)b.data, json_string_value(json_object_get(entry, "canonical")));
  uint64_t fp;
  assert_int_equal(hudi_avro_schema_fingerprint(s->root, &fp, NULL), HUDI_OK);
  /* fastavro prints the fingerprint's 8 bytes little-endian, the order
   * Avro's single-object encoding stores them in. */
  char hex[17];
  for (int k = 0; k < 8; k++) snprintf(hex + 2 * k, 3, "%02x", (unsigned)(fp >> (8 * k)) & 0xff);
  assert_string_equal(hex, json_string_value(json_object_get(entry, "fingerprint")));
  hudi_buf_free(&b);
  hudi_avro_schema_free(s);
}

static void canonical_form_and_fingerprint_match_fastavro(void **state) {
  (void)state;
  size_t i;
  json_t *e;
  json_array_foreach(json_object_get(cases_doc, "cases"), i, e) check_canonical(e);
  json_array_foreach(json_object_get(cases_doc, "schemas"), i, e) check_canonical(e);
}

static void assert_values(hudi_avro_value *vals, size_t n, json_t *expected, const char *what) {
  assert_int_equal(n, json_array_size(expected));
  for (size_t i = 0; i < n; i++) {
    json_t *got = avro_test_tj(&vals[i]);
    if (!json_equal(got, json_array_get(expected, i))) {
      char *g = json_dumps(got, JSON_COMPACT), *x = json_dumps(json_array_get(expected, i), JSON_COMPACT);
      fail_msg("%s record %zu:\n got %s\nwant %s", what, i, g, x);
    }
    json_decref(got);
  }
}

/* Writes vals with schema_json and codec to path; returns bytes written. */
static size_t write_file(const char *path, const hudi_avro_schema *schema, hudi_avro_codec codec,
                         hudi_avro_value *vals, size_t n) {
  hudi_buf schema_json, out;
  hudi_buf_init(&schema_json, 0);
  hudi_buf_init(&out, 0);
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_avro_schema_to_json(schema, &schema_json, &err), HUDI_OK);
  hudi_avro_writer w;
  hudi_avro_writer_opts opts = HUDI_AVRO_WRITER_OPTS_INIT;
  opts.codec = codec;
  assert_int_equal(hudi_avro_writer_init(&w, &out, (char *)schema_json.data, schema_json.len, &opts, &err), HUDI_OK);
  for (size_t i = 0; i < n; i++) {
    if (hudi_avro_writer_append(&w, &vals[i], &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  }
  assert_int_equal(hudi_avro_writer_finish(&w, &err), HUDI_OK);
  assert_int_equal(avro_test_write_file(path, out.data, out.len), 0);
  size_t len = out.len;
  hudi_avro_writer_free(&w);
  hudi_buf_free(&out);
  hudi_buf_free(&schema_json);
  return len;
}

static void decode_file(json_t *c, const char *codec, hudi_avro_schema *reader) {
  const char *name = json_string_value(json_object_get(c, "name"));
  char path[3300];
  snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(json_object_get(c, "files"), codec)));
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  assert_non_null(data);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_file f;
  if (hudi_avro_file_open(&f, data, len, path, &err) != HUDI_OK) fail_msg("%s", err.message);
  assert_int_equal(f.codec, strcmp(codec, "null") == 0 ? HUDI_AVRO_CODEC_NULL : f.codec);
  assert_string_equal(hudi_avro_codec_name(f.codec), codec);
  hudi_avro_arena arena;
  hudi_avro_arena_init(&arena, 0);
  hudi_avro_value *vals;
  size_t n, nb;
  int64_t *counts;
  if (hudi_avro_file_read_all(&f, &arena, reader ? reader->root : NULL, &vals, &n, &counts, &nb, &err) != HUDI_OK)
    fail_msg("%s", err.message);
  assert_values(vals, n, json_object_get(c, reader ? "expected_resolved" : "expected"), path);
  if (strcmp(name, "many") == 0) assert_true(nb > 1); /* fastavro's 16000-byte blocks */
  if (strcmp(name, "empty") == 0) assert_int_equal(nb, 0);

  /* Write them back with every codec, for fastavro to check, and read
   * our own file again. */
  const hudi_avro_schema *ws = reader ? reader : f.schema;
  for (int k = 0; k < 4; k++) {
    char out_path[3400];
    snprintf(out_path, sizeof out_path, "%s/%s.%s.%s.avro", dir, name, reader ? "cr" : "c", codecs[k]);
    write_file(out_path, ws, (hudi_avro_codec)k, vals, n);
    size_t len2;
    uint8_t *data2 = avro_test_read_file(out_path, &len2);
    hudi_avro_file f2;
    assert_int_equal(hudi_avro_file_open(&f2, data2, len2, out_path, &err), HUDI_OK);
    hudi_avro_arena arena2;
    hudi_avro_arena_init(&arena2, 0);
    hudi_avro_value *vals2;
    size_t n2;
    if (hudi_avro_file_read_all(&f2, &arena2, NULL, &vals2, &n2, NULL, NULL, &err) != HUDI_OK)
      fail_msg("%s", err.message);
    assert_values(vals2, n2, json_object_get(c, reader ? "expected_resolved" : "expected"), out_path);
    hudi_avro_arena_free(&arena2);
    hudi_avro_file_close(&f2);
    free(data2);
  }
  hudi_free(counts);
  hudi_avro_arena_free(&arena);
  hudi_avro_file_close(&f);
  free(data);
}

static void we_read_fastavro_files_and_fastavro_reads_ours(void **state) {
  (void)state;
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(cases_doc, "cases"), i, c) {
    hudi_avro_schema *reader = NULL;
    if (json_object_get(c, "reader_schema")) reader = parse_json_schema(json_object_get(c, "reader_schema"));
    for (int k = 0; k < 4; k++) {
      decode_file(c, codecs[k], NULL);
      if (reader) decode_file(c, codecs[k], reader);
    }
    hudi_avro_schema_free(reader);
  }
  char args[3100];
  snprintf(args, sizeof args, "check '%s'", dir);
  assert_int_equal(avro_test_oracle(args), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(canonical_form_and_fingerprint_match_fastavro),
      cmocka_unit_test(we_read_fastavro_files_and_fastavro_reads_ours),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
