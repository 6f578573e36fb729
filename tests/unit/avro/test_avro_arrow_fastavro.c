/* The Avro <-> Arrow codec against fastavro: fastavro writes Hudi data
 * block records of many schemas (every type, logical types, nesting,
 * nulls in either union position, schema resolution, projection); we
 * decode them into Arrow and compare value by value with what fastavro
 * reads. Then we encode the decoded batches back: the bytes must equal
 * fastavro's, and fastavro must read ours back to the same values. Also:
 * targets with other types and fewer columns, several batches, truncated
 * and corrupted records, allocation failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arrow/builder.h"
#include "avro/arrow_decode.h"
#include "avro/arrow_encode.h"
#include "avro/arrow_schema.h"
#include "test_avro_arrow_util.h"

static char dir[3000];
static json_t *cases_doc;

static int setup(void **state) {
  (void)state;
  avro_test_scratch(dir, sizeof dir, "arrow");
  char args[3100];
  snprintf(args, sizeof args, "gen '%s'", dir);
  if (arrow_oracle(args) != 0) {
    fprintf(stderr, "arrow oracle failed (python %s with fastavro needed)\n", avro_test_python());
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

static json_t *find_case(const char *name) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(cases_doc, "cases"), i, c) {
    if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0) return c;
  }
  fail_msg("no case %s", name);
  return NULL;
}

static hudi_avro_schema *schema_of(json_t *j) {
  if (!j || json_is_null(j)) return NULL;
  char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
  hudi_avro_schema *schema = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_avro_schema_parse(&schema, s, strlen(s), &err);
  if (st != HUDI_OK) fprintf(stderr, "schema: %s\n", err.message);
  free(s);
  assert_int_equal(st, HUDI_OK);
  return schema;
}

static uint8_t *case_block(const char *name, size_t *len) {
  char path[3200];
  snprintf(path, sizeof path, "%s/%s.block", dir, name);
  uint8_t *data = avro_test_read_file(path, len);
  assert_non_null(data);
  return data;
}

typedef struct decoded {
  struct ArrowSchema schema;
  struct ArrowArray array;
  hudi_arrow_view view;
} decoded;

static void decoded_free(decoded *d) {
  hudi_arrow_view_clear(&d->view);
  if (d->array.release) d->array.release(&d->array);
  if (d->schema.release) d->schema.release(&d->schema);
}

static void finish_into(hudi_avro_decoder *dec, decoded *out) {
  hudi_error err = HUDI_ERROR_INIT;
  memset(out, 0, sizeof *out);
  assert_int_equal(hudi_avro_decoder_finish(dec, &out->array, &err), HUDI_OK);
  assert_int_equal(hudi_avro_decoder_export_schema(dec, &out->schema, &err), HUDI_OK);
  hudi_status st = hudi_arrow_view_init(&out->view, &out->schema, &out->array, &err);
  if (st != HUDI_OK) fprintf(stderr, "view: %s\n", err.message);
  assert_int_equal(st, HUDI_OK);
}

static void decode_case(json_t *c, const hudi_arrow_field *target, decoded *out, hudi_avro_schema **ws_out) {
  const char *name = json_string_value(json_object_get(c, "name"));
  hudi_avro_schema *ws = schema_of(json_object_get(c, "schema"));
  hudi_avro_schema *rs = schema_of(json_object_get(c, "reader"));
  size_t len;
  uint8_t *data = case_block(name, &len);
  hudi_avro_decoder *dec = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_avro_decoder_create(&dec, ws->root, rs ? rs->root : NULL, target, &err);
  if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", name, err.message);
  assert_int_equal(st, HUDI_OK);
  int64_t n = -1;
  st = hudi_avro_decoder_decode_data_block(dec, data, len, 0, &n, &err);
  if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", name, err.message);
  assert_int_equal(st, HUDI_OK);
  assert_int_equal(n, (int64_t)json_array_size(json_object_get(c, "values")));
  assert_int_equal(hudi_avro_decoder_n_rows(dec), n);
  finish_into(dec, out);
  hudi_avro_decoder_free(dec);
  free(data);
  hudi_avro_schema_free(rs);
  if (ws_out) *ws_out = ws;
  else hudi_avro_schema_free(ws);
}

/* Every case decodes to fastavro's values; the round-trip cases encode
 * back to fastavro's exact bytes. */
static void decode_and_encode_every_case(void **state) {
  (void)state;
  size_t i;
  json_t *c;
  int roundtrips = 0;
  json_array_foreach(json_object_get(cases_doc, "cases"), i, c) {
    const char *name = json_string_value(json_object_get(c, "name"));
    decoded d;
    hudi_avro_schema *ws;
    decode_case(c, NULL, &d, &ws);
    json_t *rows = arrow_tj_rows(&d.view);
    assert_int_equal(arrow_tj_compare(rows, json_object_get(c, "values"), name), 0);
    json_decref(rows);
    const char *rt = json_string_value(json_object_get(c, "roundtrip"));
    if (rt) {
      hudi_arrow_field f;
      hudi_error err = HUDI_ERROR_INIT;
      assert_int_equal(hudi_arrow_field_from_schema(&f, &d.schema, false, &err), HUDI_OK);
      hudi_avro_encoder *enc = NULL;
      hudi_status st = hudi_avro_encoder_create(&enc, &f, ws->root, &err);
      if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", name, err.message);
      assert_int_equal(st, HUDI_OK);
      hudi_buf out;
      hudi_buf_init(&out, 0);
      st = hudi_avro_encoder_encode_data_block(enc, &out, &d.view, 0, d.view.length, NULL, &err);
      if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", name, err.message);
      assert_int_equal(st, HUDI_OK);
      size_t len;
      uint8_t *orig = case_block(name, &len);
      if (strcmp(rt, "bytes") == 0) {
        if (out.len != len || memcmp(out.data, orig, len) != 0) {
          size_t k = 0;
          while (k < len && k < out.len && out.data[k] == orig[k]) k++;
          fprintf(stderr, "%s: encoded %zu bytes, fastavro %zu, first difference at %zu\n", name, out.len, len, k);
        }
        assert_int_equal(out.len, len);
        assert_memory_equal(out.data, orig, len);
      }
      char path[3200];
      snprintf(path, sizeof path, "%s/%s.enc", dir, name);
      assert_int_equal(avro_test_write_file(path, out.data, out.len), 0);
      roundtrips++;
      free(orig);
      hudi_buf_free(&out);
      hudi_avro_encoder_free(enc);
      hudi_arrow_field_clear(&f);
    }
    decoded_free(&d);
    hudi_avro_schema_free(ws);
  }
  assert_int_equal(roundtrips, 4);
  char args[3100];
  snprintf(args, sizeof args, "check '%s'", dir);
  assert_int_equal(arrow_oracle(args), 0);
}

/* A target with a subset of the columns, in another order, with wider
 * types (int -> int64, float -> double, string -> large_string, list ->
 * large_list, timestamp micros -> nanos), and a column nobody wrote. */
static void target_projects_and_promotes(void **state) {
  (void)state;
  json_t *c = find_case("nullable");
  const char *tj =
      "{\"name\":\"\",\"format\":\"+s\",\"children\":["
      "{\"name\":\"s\",\"format\":\"U\",\"nullable\":true},"
      "{\"name\":\"i\",\"format\":\"l\",\"nullable\":true},"
      "{\"name\":\"f\",\"format\":\"g\",\"nullable\":true},"
      "{\"name\":\"ts\",\"format\":\"tsn:UTC\",\"nullable\":true},"
      "{\"name\":\"missing\",\"format\":\"u\",\"nullable\":true},"
      "{\"name\":\"arr\",\"format\":\"+L\",\"nullable\":true,\"children\":[{\"name\":\"item\",\"format\":\"+s\",\"nullable\":true,\"children\":["
      "{\"name\":\"f2\",\"format\":\"l\",\"nullable\":true}]}]},"
      "{\"name\":\"id\",\"format\":\"i\"}]}";
  json_t *j = json_loads(tj, 0, NULL);
  assert_non_null(j);
  hudi_arrow_field target;
  assert_int_equal(arrow_field_from_json(&target, j), HUDI_OK);
  decoded d;
  decode_case(c, &target, &d, NULL);
  assert_string_equal(d.view.children[0].name, "s");
  assert_int_equal(d.view.children[0].type.id, HUDI_ARROW_LARGE_STRING);
  assert_int_equal(d.view.children[3].type.unit, HUDI_ARROW_NANO);
  /* Expected: fastavro's values of those columns. */
  json_t *exp = json_array();
  size_t i;
  json_t *row;
  json_array_foreach(json_object_get(c, "values"), i, row) {
    json_t *o = json_object();
    json_object_set(o, "s", json_object_get(row, "s"));
    json_object_set(o, "i", json_object_get(row, "i"));
    json_object_set(o, "f", json_object_get(row, "f"));
    json_object_set(o, "ts", json_object_get(row, "ts"));
    json_object_set_new(o, "missing", json_null());
    json_t *arr = json_object_get(row, "arr");
    if (json_is_array(arr)) {
      json_t *a2 = json_array();
      size_t k;
      json_t *it;
      json_array_foreach(arr, k, it) {
        if (json_is_null(it)) json_array_append_new(a2, json_null());
        else {
          json_t *o2 = json_object();
          json_object_set(o2, "f2", json_object_get(it, "f2"));
          json_array_append_new(a2, o2);
        }
      }
      json_object_set_new(o, "arr", a2);
    } else {
      json_object_set_new(o, "arr", json_null());
    }
    json_object_set(o, "id", json_object_get(row, "id"));
    json_array_append_new(exp, o);
  }
  json_t *rows = arrow_tj_rows(&d.view);
  assert_int_equal(arrow_tj_compare(rows, exp, "projected"), 0);
  json_decref(rows);
  json_decref(exp);
  json_decref(j);
  decoded_free(&d);
  hudi_arrow_field_clear(&target);
}

/* Narrowing and impossible conversions are refused when compiling. */
static void refuses_impossible_targets(void **state) {
  (void)state;
  hudi_avro_schema *ws = schema_of(json_object_get(find_case("nullable"), "schema"));
  const char *bad[] = {
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"l\",\"format\":\"i\",\"nullable\":true}]}",
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"d\",\"format\":\"f\",\"nullable\":true}]}",
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"s\",\"format\":\"i\",\"nullable\":true}]}",
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"nope\",\"format\":\"i\",\"nullable\":false}]}",
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"dec\",\"format\":\"d:15,3\",\"nullable\":true}]}",
      "{\"name\":\"\",\"format\":\"+s\",\"children\":[{\"name\":\"fx\",\"format\":\"w:4\",\"nullable\":true}]}",
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    json_t *j = json_loads(bad[k], 0, NULL);
    hudi_arrow_field t;
    assert_int_equal(arrow_field_from_json(&t, j), HUDI_OK);
    hudi_avro_decoder *dec = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_avro_decoder_create(&dec, ws->root, NULL, &t, &err), HUDI_ERR_INVALID_ARG);
    assert_null(dec);
    assert_non_null(strstr(err.message, "column '"));
    hudi_arrow_field_clear(&t);
    json_decref(j);
  }
  hudi_avro_schema_free(ws);
}

/* Rows split over several batches (finish in between) are the same rows. */
static void several_batches(void **state) {
  (void)state;
  json_t *c = find_case("nullable");
  hudi_avro_schema *ws = schema_of(json_object_get(c, "schema"));
  size_t len;
  uint8_t *data = case_block("nullable", &len);
  hudi_avro_decoder *dec = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_avro_decoder_create(&dec, ws->root, NULL, NULL, &err), HUDI_OK);
  json_t *all = json_array();
  size_t pos = 8;
  int64_t n = (int64_t)json_array_size(json_object_get(c, "values"));
  for (int64_t r = 0; r < n; r++) {
    uint32_t rl = (uint32_t)data[pos] << 24 | (uint32_t)data[pos + 1] << 16 | (uint32_t)data[pos + 2] << 8 | data[pos + 3];
    assert_int_equal(hudi_avro_decoder_decode(dec, data + pos + 4, rl, pos + 4, r, &err), HUDI_OK);
    pos += 4 + rl;
    if (r % 7 == 6 || r == n - 1) {
      decoded d;
      finish_into(dec, &d);
      json_t *rows = arrow_tj_rows(&d.view);
      json_array_extend(all, rows);
      json_decref(rows);
      decoded_free(&d);
    }
  }
  /* An empty batch after the last. */
  decoded d;
  finish_into(dec, &d);
  assert_int_equal(d.view.length, 0);
  decoded_free(&d);
  assert_int_equal(arrow_tj_compare(all, json_object_get(c, "values"), "batches"), 0);
  json_decref(all);
  hudi_avro_decoder_free(dec);
  free(data);
  hudi_avro_schema_free(ws);
}

/* Every truncation of every record fails cleanly naming record and byte;
 * flipped bytes never crash, and reset makes the decoder usable again. */
static void truncated_and_corrupt_records(void **state) {
  (void)state;
  const char *names[] = {"nullable", "complex_projected", "logical", "embed"};
  for (size_t ci = 0; ci < 4; ci++) {
    json_t *c = find_case(names[ci]);
    hudi_avro_schema *ws = schema_of(json_object_get(c, "schema"));
    hudi_avro_schema *rs = schema_of(json_object_get(c, "reader"));
    size_t len;
    uint8_t *data = case_block(names[ci], &len);
    hudi_avro_decoder *dec = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_avro_decoder_create(&dec, ws->root, rs ? rs->root : NULL, NULL, &err), HUDI_OK);
    size_t pos = 8;
    int64_t n = (int64_t)json_array_size(json_object_get(c, "values"));
    unsigned seed = 12345;
    for (int64_t r = 0; r < n; r++) {
      uint32_t rl = (uint32_t)data[pos] << 24 | (uint32_t)data[pos + 1] << 16 | (uint32_t)data[pos + 2] << 8 | data[pos + 3];
      const uint8_t *rec = data + pos + 4;
      for (uint32_t cut = 0; cut < rl; cut += (rl > 200 ? 37 : 1)) {
        hudi_error_clear(&err);
        hudi_status st = hudi_avro_decoder_decode(dec, rec, cut, 1000, r, &err);
        assert_int_not_equal(st, HUDI_OK);
        assert_non_null(strstr(err.message, "record"));
        assert_non_null(strstr(err.message, "byte"));
        struct ArrowArray a;
        assert_int_not_equal(hudi_avro_decoder_finish(dec, &a, NULL), HUDI_OK);
        hudi_avro_decoder_reset(dec);
      }
      uint8_t *copy = malloc(rl ? rl : 1);
      for (int t = 0; t < 30; t++) {
        memcpy(copy, rec, rl);
        for (int f = 0; f < 3 && rl; f++) {
          seed = seed * 1103515245u + 12345u;
          copy[(seed >> 8) % rl] ^= (uint8_t)(1u << ((seed >> 4) & 7));
        }
        hudi_status ignored = hudi_avro_decoder_decode(dec, copy, rl, 0, r, NULL);
        (void)ignored; /* any outcome but a crash */
        hudi_avro_decoder_reset(dec);
      }
      free(copy);
      assert_int_equal(hudi_avro_decoder_decode(dec, rec, rl, 0, r, &err), HUDI_OK);
      pos += 4 + rl;
    }
    decoded d;
    finish_into(dec, &d);
    assert_int_equal(d.view.length, 1); /* the last good record; resets dropped the others */
    decoded_free(&d);
    /* A record with trailing bytes is an error too. */
    uint8_t extra[4096];
    uint32_t rl0 = (uint32_t)data[8] << 24 | (uint32_t)data[9] << 16 | (uint32_t)data[10] << 8 | data[11];
    if (rl0 + 1 <= sizeof extra) {
      memcpy(extra, data + 12, rl0);
      extra[rl0] = 0;
      assert_int_equal(hudi_avro_decoder_decode(dec, extra, rl0 + 1, 0, 0, &err), HUDI_ERR_CORRUPT);
      hudi_avro_decoder_reset(dec);
    }
    /* A block whose count lies. */
    uint8_t *bad = malloc(len);
    memcpy(bad, data, len);
    bad[7] ^= 1;
    assert_int_equal(hudi_avro_decoder_decode_data_block(dec, bad, len, 0, NULL, &err), HUDI_ERR_CORRUPT);
    free(bad);
    hudi_avro_decoder_free(dec);
    free(data);
    hudi_avro_schema_free(ws);
    hudi_avro_schema_free(rs);
  }
}

/* Every allocation of create/decode/finish and of the encoder can fail
 * without leaks or crashes (ASan checks the leaks). */
static void allocation_failures(void **state) {
  (void)state;
  json_t *c = find_case("nullable");
  hudi_avro_schema *ws = schema_of(json_object_get(c, "schema"));
  size_t len;
  uint8_t *data = case_block("nullable", &len);
  int succeeded = 0;
  for (long k = 0; k < 2000 && !succeeded; k++) {
    hudi_alloc_fail_after(k);
    hudi_avro_decoder *dec = NULL;
    struct ArrowArray a = {0};
    struct ArrowSchema s = {0};
    hudi_status st = hudi_avro_decoder_create(&dec, ws->root, NULL, NULL, NULL);
    if (st == HUDI_OK) st = hudi_avro_decoder_decode_data_block(dec, data, len, 0, NULL, NULL);
    if (st == HUDI_OK) st = hudi_avro_decoder_finish(dec, &a, NULL);
    if (st == HUDI_OK) st = hudi_avro_decoder_export_schema(dec, &s, NULL);
    hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) {
      hudi_arrow_field f;
      hudi_arrow_view v;
      assert_int_equal(hudi_arrow_field_from_schema(&f, &s, false, NULL), HUDI_OK);
      assert_int_equal(hudi_arrow_view_init(&v, &s, &a, NULL), HUDI_OK);
      /* Now the encoder under failures. */
      int enc_ok = 0;
      for (long e = 0; e < 2000 && !enc_ok; e++) {
        hudi_buf out;
        hudi_buf_init(&out, 0);
        hudi_avro_encoder *enc = NULL;
        hudi_alloc_fail_after(e);
        hudi_status est = hudi_avro_encoder_create(&enc, &f, ws->root, NULL);
        if (est == HUDI_OK) est = hudi_avro_encoder_encode_data_block(enc, &out, &v, 0, v.length, NULL, NULL);
        hudi_alloc_fail_after(-1);
        if (est == HUDI_OK) {
          assert_int_equal(out.len, len);
          assert_memory_equal(out.data, data, len);
          enc_ok = 1;
        } else {
          assert_int_equal(est, HUDI_ERR_NOMEM);
        }
        hudi_buf_free(&out);
        hudi_avro_encoder_free(enc);
      }
      assert_true(enc_ok);
      hudi_arrow_view_clear(&v);
      hudi_arrow_field_clear(&f);
      succeeded = 1;
    } else {
      assert_int_equal(st, HUDI_ERR_NOMEM);
    }
    if (a.release) a.release(&a);
    if (s.release) s.release(&s);
    hudi_avro_decoder_free(dec);
  }
  assert_true(succeeded);
  free(data);
  hudi_avro_schema_free(ws);
}

/* The encoder's checks: nulls in non-nullable Avro types, values out of
 * range, a batch of the wrong shape; the buffer is left as it was. */
static void encoder_refuses_bad_rows(void **state) {
  (void)state;
  const char *avro = "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
                     "{\"name\":\"_hoodie_record_key\",\"type\":[\"null\",\"string\"]}]}";
  hudi_avro_schema *s = NULL;
  assert_int_equal(hudi_avro_schema_parse(&s, avro, strlen(avro), NULL), HUDI_OK);
  hudi_arrow_field f;
  assert_int_equal(hudi_arrow_field_init(&f, "", "+s", 0, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_field_alloc_children(&f, 1, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_field_init(&f.children[0], "a", "l", ARROW_FLAG_NULLABLE, NULL), HUDI_OK);
  hudi_arrow_batch_builder *bb = NULL;
  assert_int_equal(hudi_arrow_batch_builder_create(&bb, &f, NULL), HUDI_OK);
  int64_t vals[] = {5, (int64_t)1 << 40, 0};
  for (int r = 0; r < 3; r++) {
    hudi_arrow_builder *col = hudi_arrow_batch_builder_column(bb, 0);
    if (r == 2) assert_int_equal(hudi_arrow_builder_append_null(col, NULL), HUDI_OK);
    else assert_int_equal(hudi_arrow_builder_append_int(col, vals[r], NULL), HUDI_OK);
    assert_int_equal(hudi_arrow_batch_builder_end_row(bb, NULL), HUDI_OK);
  }
  struct ArrowArray a;
  struct ArrowSchema sc;
  assert_int_equal(hudi_arrow_batch_builder_finish(bb, &a, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_batch_builder_export_schema(bb, &sc, NULL), HUDI_OK);
  hudi_arrow_view v;
  assert_int_equal(hudi_arrow_view_init(&v, &sc, &a, NULL), HUDI_OK);
  hudi_avro_encoder *enc = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_avro_encoder_create(&enc, &f, s->root, &err), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  /* Row 0 with a meta value. */
  hudi_avro_meta_values meta = {{NULL, NULL, "key-1", NULL, NULL}, {0, 0, 5, 0, 0}};
  assert_int_equal(hudi_avro_encoder_encode_rows(enc, &out, &v, 0, 1, &meta, false, &err), HUDI_OK);
  const uint8_t want[] = {10, 2, 10, 'k', 'e', 'y', '-', '1'};
  assert_int_equal(out.len, sizeof want);
  assert_memory_equal(out.data, want, sizeof want);
  /* Row 1: 2^40 does not fit an Avro int. */
  assert_int_equal(hudi_avro_encoder_encode_rows(enc, &out, &v, 0, 2, NULL, true, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "row 1"));
  assert_non_null(strstr(err.message, "'a'"));
  assert_int_equal(out.len, sizeof want);
  /* Row 2: null into int. */
  assert_int_equal(hudi_avro_encoder_encode_rows(enc, &out, &v, 2, 1, NULL, false, &err), HUDI_ERR_INVALID_ARG);
  assert_non_null(strstr(err.message, "not nullable"));
  assert_int_equal(hudi_avro_encoder_encode_rows(enc, &out, &v, 2, 5, NULL, false, &err), HUDI_ERR_INVALID_ARG);
  hudi_buf_free(&out);
  hudi_avro_encoder_free(enc);
  hudi_arrow_view_clear(&v);
  a.release(&a);
  sc.release(&sc);
  hudi_arrow_batch_builder_free(bb);
  hudi_arrow_field_clear(&f);
  hudi_avro_schema_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decode_and_encode_every_case),
      cmocka_unit_test(target_projects_and_promotes),
      cmocka_unit_test(refuses_impossible_targets),
      cmocka_unit_test(several_batches),
      cmocka_unit_test(truncated_and_corrupt_records),
      cmocka_unit_test(allocation_failures),
      cmocka_unit_test(encoder_refuses_bad_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
