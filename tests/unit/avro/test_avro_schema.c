/* Schema parsing rules of the Avro specification (names, namespaces,
 * references, unions, logical types), the "as given" JSON form, JSON
 * defaults, and resolution cases fastavro cannot judge. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro_test.h"

static hudi_avro_schema *parse_ok(const char *json) {
  hudi_avro_schema *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_avro_schema_parse(&s, json, strlen(json), &err) != HUDI_OK) fail_msg("%s: %s", json, err.message);
  return s;
}

static void parse_fails(const char *json, const char *msg) {
  hudi_avro_schema *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_not_equal(hudi_avro_schema_parse(&s, json, strlen(json), &err), HUDI_OK);
  assert_null(s);
  if (!strstr(err.message, msg)) fail_msg("%s: got '%s', want '%s'", json, err.message, msg);
}

static void names_namespaces_and_references(void **state) {
  (void)state;
  hudi_avro_schema *s = parse_ok(
      "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a.b\",\"fields\":["
      "{\"name\":\"x\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}},"
      "{\"name\":\"y\",\"type\":{\"type\":\"enum\",\"name\":\"c.E\",\"symbols\":[\"S\"]}},"
      "{\"name\":\"z\",\"type\":{\"type\":\"record\",\"name\":\"In\",\"namespace\":\"\",\"fields\":["
      "  {\"name\":\"e\",\"type\":\"c.E\"}]}},"
      "{\"name\":\"w\",\"type\":\"F\"},"
      "{\"name\":\"v\",\"type\":\"a.b.F\"},"
      "{\"name\":\"self\",\"type\":[\"null\",\"R\"]}]}");
  assert_string_equal(s->root->name, "a.b.R");
  assert_non_null(hudi_avro_schema_find(s, "a.b.F"));
  assert_non_null(hudi_avro_schema_find(s, "c.E"));
  assert_non_null(hudi_avro_schema_find(s, "In"));
  assert_ptr_equal(s->root->fields[3].type, s->root->fields[0].type);
  assert_ptr_equal(s->root->fields[4].type, s->root->fields[0].type);
  assert_ptr_equal(s->root->fields[2].type->fields[0].type, s->root->fields[1].type);
  assert_ptr_equal(s->root->fields[5].type->branches[1], s->root);
  hudi_avro_schema_free(s);
  /* The null namespace of In hides a.b: F is unknown inside it. */
  parse_fails("{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a.b\",\"fields\":["
              "{\"name\":\"x\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}},"
              "{\"name\":\"z\",\"type\":{\"type\":\"record\",\"name\":\"In\",\"namespace\":\"\",\"fields\":["
              "{\"name\":\"e\",\"type\":\"F\"}]}}]}",
              "unknown type 'F'");
}

static void invalid_schemas(void **state) {
  (void)state;
  parse_fails("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"Nope\"}]}", "unknown type 'Nope'");
  parse_fails("[{\"type\":\"fixed\",\"name\":\"F\",\"size\":1},{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}]",
              "defined twice");
  parse_fails("{\"type\":\"record\",\"name\":\"1R\",\"fields\":[]}", "invalid name");
  parse_fails("{\"type\":\"record\",\"name\":\"R\"}", "no \"fields\"");
  parse_fails("[\"int\",[\"null\"]]", "may not contain a union");
  parse_fails("[\"int\",\"string\",\"int\"]", "two 'int' branches");
  parse_fails("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"A\"]}", "repeats symbol");
  parse_fails("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"default\":\"B\"}", "not a symbol");
  parse_fails("{\"type\":\"fixed\",\"name\":\"F\",\"size\":-1}", "size");
  parse_fails("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
              "{\"name\":\"a\",\"type\":\"int\"}]}", "appears twice");
  parse_fails("{\"type\":\"record\",\"name\":\"int\",\"fields\":[]}", "may not be called 'int'");
  parse_fails("{\"type\":\"array\"}", "without \"items\"");
  parse_fails("{\"type\":\"record\",\"name\":\"R\",\"fields\":[}", "not JSON");
  parse_fails("42", "must be a string, array or object");
  /* Nesting beyond the cap. */
  char deep[4000] = "";
  for (int i = 0; i < 100; i++) strcat(deep, "{\"type\":\"array\",\"items\":");
  strcat(deep, "\"int\"");
  for (int i = 0; i < 100; i++) strcat(deep, "}");
  parse_fails(deep, "nests deeper");
}

static void logical_types(void **state) {
  (void)state;
  hudi_avro_schema *s = parse_ok(
      "[{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":4,\"scale\":2},"
      "{\"type\":\"fixed\",\"name\":\"F2\",\"size\":2,\"logicalType\":\"decimal\",\"precision\":5},"
      "{\"type\":\"fixed\",\"name\":\"F3\",\"size\":2,\"logicalType\":\"decimal\",\"precision\":4},"
      "{\"type\":\"string\",\"logicalType\":\"date\"},"
      "{\"type\":\"int\",\"logicalType\":\"time-millis\"},"
      "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"},"
      "{\"type\":\"double\",\"logicalType\":\"whatever\"}]");
  hudi_avro_node **b = s->root->branches;
  assert_int_equal(b[0]->logical, HUDI_AVRO_LOGICAL_DECIMAL);
  assert_int_equal(b[0]->precision, 4);
  assert_int_equal(b[0]->scale, 2);
  /* 2 bytes hold at most 4 decimal digits (32767): precision 5 is ignored. */
  assert_int_equal(b[1]->logical, HUDI_AVRO_LOGICAL_NONE);
  assert_int_equal(b[2]->logical, HUDI_AVRO_LOGICAL_DECIMAL);
  assert_int_equal(b[3]->logical, HUDI_AVRO_LOGICAL_NONE);
  assert_int_equal(b[4]->logical, HUDI_AVRO_LOGICAL_TIME_MILLIS);
  assert_int_equal(b[5]->logical, HUDI_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS);
  assert_int_equal(b[6]->logical, HUDI_AVRO_LOGICAL_NONE);
  hudi_avro_schema_free(s);
  /* Hudi's HoodieDeleteRecordList union has bytes twice, once as a decimal
   * (hudi-format-core.md §5): allowed. */
  s = parse_ok("[\"null\",\"int\",\"long\",\"float\",\"double\",\"bytes\",\"string\","
               "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":30,\"scale\":15},"
               "{\"type\":\"int\",\"logicalType\":\"date\"},{\"type\":\"int\",\"logicalType\":\"time-millis\"},"
               "{\"type\":\"long\",\"logicalType\":\"time-micros\"},"
               "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"},"
               "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}]");
  assert_int_equal(s->root->n_branches, 13);
  hudi_avro_schema_free(s);
}

static void as_given_json_keeps_order_and_attributes(void **state) {
  (void)state;
  const char *j = "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"doc\":\"d/é\",\"fields\":["
                  "{\"name\":\"a\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],"
                  "\"doc\":\"x\",\"default\":null},{\"default\":1.5,\"type\":\"double\",\"name\":\"b\",\"custom\":[1,{}]}]}";
  hudi_avro_schema *s = parse_ok(j);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_schema_to_json(s, &b, NULL), HUDI_OK);
  assert_int_equal(b.len, strlen(j));
  assert_memory_equal(b.data, j, b.len);
  hudi_buf_free(&b);
  hudi_avro_schema_free(s);
}

static hudi_avro_schema *keep[64];
static int nkeep;

static int free_kept(void **state) {
  (void)state;
  while (nkeep > 0) hudi_avro_schema_free(keep[--nkeep]);
  return 0;
}

static hudi_avro_value *decode_with(hudi_avro_arena *a, const char *writer, const char *reader, const uint8_t *data,
                                    size_t n, hudi_status want, const char *msg) {
  hudi_avro_schema *w = parse_ok(writer), *r = parse_ok(reader);
  hudi_avro_value *v = NULL;
  assert_int_equal(hudi_avro_arena_alloc(a, sizeof *v, (void **)&v, NULL), HUDI_OK);
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, data, n, 0, "t");
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_avro_decode(v, a, w->root, r->root, &c, &err);
  assert_int_equal(st, want);
  if (msg && !strstr(err.message, msg)) fail_msg("got '%s', want '%s'", err.message, msg);
  /* Value nodes point into r: keep the schemas until the test ends. */
  assert_true(nkeep < 62);
  keep[nkeep++] = w;
  keep[nkeep++] = r;
  return st == HUDI_OK ? v : NULL;
}

static void resolution_rules(void **state) {
  (void)state;
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  const char *w = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}";
  const uint8_t one[] = {0x02};
  /* Defaults of the spec's JSON forms, including inside a record default
   * and bytes as code points. */
  hudi_avro_value *v = decode_with(&a, w,
      "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"},"
      "{\"name\":\"by\",\"type\":\"bytes\",\"default\":\"\\u00ff\\u0000a\"},"
      "{\"name\":\"fx\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2},\"default\":\"\\u0001\\u0080\"},"
      "{\"name\":\"rec\",\"type\":{\"type\":\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"p\",\"type\":\"int\"},"
      "{\"name\":\"q\",\"type\":\"string\",\"default\":\"qq\"}]},\"default\":{\"p\":5}},"
      "{\"name\":\"u\",\"type\":[\"int\",\"null\"],\"default\":null},"
      "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"X\",\"Y\"]},\"default\":\"Y\"}]}",
      one, 1, HUDI_OK, NULL);
  json_t *got = avro_test_tj(v);
  json_t *want = json_loads("{\"a\":1,\"by\":{\"$bytes\":\"ff0061\"},\"fx\":{\"$bytes\":\"0180\"},"
                            "\"rec\":{\"p\":5,\"q\":\"qq\"},\"u\":null,\"e\":\"Y\"}", 0, NULL);
  if (!json_equal(got, want)) fail_msg("%s", json_dumps(got, JSON_COMPACT));
  json_decref(got);
  json_decref(want);
  /* A reader field without default that the writer lacks. */
  decode_with(&a, w, "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"b\",\"type\":\"int\"}]}", one, 1,
              HUDI_ERR_INVALID_ARG, "reader field 'R.b' is not in the writer schema and has no default");
  /* Narrowing is not allowed. */
  decode_with(&a, "\"long\"", "\"int\"", one, 1, HUDI_ERR_INVALID_ARG, "writer type long cannot be read as reader type int");
  /* Enum symbol unknown to a reader without default. */
  const uint8_t sym1[] = {0x02};
  decode_with(&a, "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}",
              "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}", sym1, 1, HUDI_ERR_INVALID_ARG,
              "enum symbol 'B' unknown to the reader at byte 0");
  /* Writer union branch with no reader match fails only when the data uses it. */
  const uint8_t str_branch[] = {0x02, 0x02, 'x'}, null_branch[] = {0x00};
  decode_with(&a, "[\"null\",\"string\"]", "[\"null\",\"int\"]", null_branch, 1, HUDI_OK, NULL);
  decode_with(&a, "[\"null\",\"string\"]", "[\"null\",\"int\"]", str_branch, 3, HUDI_ERR_INVALID_ARG,
              "writer type string cannot be read as reader type union at byte 1");
  /* Named types in a reader union are matched by name. */
  const uint8_t rec_branch[] = {0x02, 0x04};
  v = decode_with(&a,
      "[\"null\",{\"type\":\"record\",\"name\":\"a.P\",\"fields\":[{\"name\":\"i\",\"type\":\"int\"}]}]",
      "[{\"type\":\"record\",\"name\":\"Q\",\"fields\":[{\"name\":\"i\",\"type\":\"int\"}]},"
      "{\"type\":\"record\",\"name\":\"b.P\",\"fields\":[{\"name\":\"i\",\"type\":\"long\"}]},\"null\"]",
      rec_branch, 2, HUDI_OK, NULL);
  assert_int_equal(v->v.u.branch, 1);
  assert_int_equal(hudi_avro_value_field(v, "i")->v.l, 2);
  hudi_avro_arena_free(&a);
}

/* A fresh value of a schema that has none (an enum without symbols,
 * which the spec allows, found by the fuzzer inside a union) is an error,
 * not a value that cannot be encoded. */
static void empty_enum_has_no_fresh_value(void **state) {
  (void)state;
  hudi_avro_schema *s = parse_ok("[{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[]},\"null\"]");
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  hudi_avro_value v;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_avro_value_init(&v, &a, s->root, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "enum E has no symbols"));
  hudi_avro_schema *one = parse_ok("{\"type\":\"enum\",\"name\":\"F\",\"symbols\":[\"X\"]}");
  assert_int_equal(hudi_avro_value_init(&v, &a, one->root, NULL), HUDI_OK);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_encode(&v, &b, NULL), HUDI_OK);
  assert_int_equal(b.len, 1);
  assert_int_equal(b.data[0], 0);
  hudi_buf_free(&b);
  hudi_avro_arena_free(&a);
  hudi_avro_schema_free(one);
  hudi_avro_schema_free(s);
}

static void built_values_encode_and_decode(void **state) {
  (void)state;
  hudi_avro_schema *s = parse_ok(
      "{\"type\":\"record\",\"name\":\"M\",\"fields\":["
      "{\"name\":\"stats\",\"type\":[\"null\",{\"type\":\"map\",\"values\":{\"type\":\"array\",\"items\":"
      "  {\"type\":\"record\",\"name\":\"W\",\"fields\":[{\"name\":\"id\",\"type\":[\"null\",\"string\"],\"default\":null},"
      "  {\"name\":\"n\",\"type\":[\"null\",\"long\"],\"default\":null}]}}}],\"default\":null},"
      "{\"name\":\"version\",\"type\":[\"int\",\"null\"],\"default\":1},"
      "{\"name\":\"ok\",\"type\":\"boolean\"},{\"name\":\"ratio\",\"type\":\"float\"}]}");
  hudi_avro_arena a;
  hudi_avro_arena_init(&a, 0);
  hudi_avro_value v, *list, *w;
  assert_int_equal(hudi_avro_value_init(&v, &a, s->root, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_unwrap(hudi_avro_value_field(&v, "version"))->v.i, 1);
  assert_int_equal(hudi_avro_value_put(hudi_avro_value_field(&v, "stats"), &a, "p1", &list, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_append(list, &a, &w, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_string(hudi_avro_value_field(w, "id"), &a, "f1", 2, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_long(hudi_avro_value_field(w, "n"), &a, 1LL << 40, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_boolean(hudi_avro_value_field(&v, "ok"), &a, 1, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_double(hudi_avro_value_field(&v, "ratio"), &a, 0.5, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_null(hudi_avro_value_field(&v, "version"), &a, NULL), HUDI_OK);
  assert_int_equal(hudi_avro_value_set_string(hudi_avro_value_field(&v, "ok"), &a, "x", 1, NULL), HUDI_ERR_INVALID_ARG);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_encode(&v, &b, NULL), HUDI_OK);
  /* stats: branch 1, map block of 1: "p1" -> array block of 1: W{id: branch 1 "f1", n: branch 1 2^40}, 0, 0;
   * version: branch 1 (null); ok: 1; ratio: 0.5f. */
  const uint8_t want[] = {0x02, 0x02, 0x04, 'p', '1', 0x02, 0x02, 0x04, 'f', '1', 0x02, 0x80, 0x80, 0x80, 0x80,
                          0x80, 0x40, 0x00, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x3f};
  assert_int_equal(b.len, sizeof want);
  assert_memory_equal(b.data, want, sizeof want);
  hudi_avro_cursor c;
  hudi_avro_cursor_init(&c, b.data, b.len, 0, "t");
  hudi_avro_value back;
  assert_int_equal(hudi_avro_decode(&back, &a, s->root, NULL, &c, NULL), HUDI_OK);
  json_t *j1 = avro_test_tj(&v), *j2 = avro_test_tj(&back);
  assert_true(json_equal(j1, j2));
  json_decref(j1);
  json_decref(j2);
  hudi_buf_free(&b);
  hudi_avro_arena_free(&a);
  hudi_avro_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_namespaces_and_references),
      cmocka_unit_test(invalid_schemas),
      cmocka_unit_test(logical_types),
      cmocka_unit_test(as_given_json_keeps_order_and_attributes),
      cmocka_unit_test_teardown(resolution_rules, free_kept),
      cmocka_unit_test(built_values_encode_and_decode),
      cmocka_unit_test(empty_enum_has_no_fresh_value),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
