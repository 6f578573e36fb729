/* The Avro <-> Arrow codec against the Spark-written fixture tables:
 *  - every Avro data block of their log files decodes (with the block's
 *    SCHEMA header) to the values fastavro reads from the same records;
 *  - the Avro schema we make from a table's Arrow schema (as pyarrow reads
 *    it from a base file) equals, character for character, the schema
 *    Spark wrote into the commit metadata (without meta fields) and into
 *    the base file's footer (with them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "avro/arrow_decode.h"
#include "avro/arrow_schema.h"
#include "test_avro_arrow_util.h"

#define TABLES HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data"
#define LOG_FILES HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/log_files"

static char dir[3000];

static int setup(void **state) {
  (void)state;
  avro_test_scratch(dir, sizeof dir, "arrow_fixtures");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  avro_test_rmdir(dir);
  return 0;
}

static json_t *oracle_json(const char *args_fmt, const char *file) {
  char out[3200], args[8000];
  snprintf(out, sizeof out, "%s/%s", dir, file);
  snprintf(args, sizeof args, args_fmt, out);
  assert_int_equal(arrow_oracle(args), 0);
  json_error_t jerr;
  json_t *doc = json_load_file(out, 0, &jerr);
  assert_non_null(doc);
  return doc;
}

static uint64_t be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) v = v << 8 | p[k];
  return v;
}
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Minimal log block framing (the table layer has the real reader): finds
 * block `index`, its SCHEMA header and its content. */
static void find_block(const uint8_t *data, size_t len, int index, size_t *content_at, size_t *content_len,
                       char **schema) {
  size_t pos = 0;
  *schema = NULL;
  for (int b = 0;; b++) {
    assert_true(pos + 26 <= len);
    assert_memory_equal(data + pos, "#HUDI#", 6);
    uint64_t size = be64(data + pos + 6);
    size_t q = pos + 14 + 8; /* version, type */
    uint32_t n = be32(data + q);
    q += 4;
    for (uint32_t h = 0; h < n; h++) {
      uint32_t key = be32(data + q), hl = be32(data + q + 4);
      q += 8;
      if (b == index && key == 2) *schema = strndup((const char *)data + q, hl);
      q += hl;
    }
    uint64_t cl = be64(data + q);
    q += 8;
    if (b == index) {
      *content_at = q;
      *content_len = (size_t)cl;
      return;
    }
    pos += 14 + size;
  }
}

static void log_blocks_decode_like_fastavro(void **state) {
  (void)state;
  json_t *doc = oracle_json("fixtures '%s' '" TABLES "' '" LOG_FILES "'", "blocks.json");
  size_t i;
  json_t *e;
  int blocks = 0, rows = 0;
  json_array_foreach(json_object_get(doc, "blocks"), i, e) {
    const char *path = json_string_value(json_object_get(e, "path"));
    size_t len;
    uint8_t *data = avro_test_read_file(path, &len);
    assert_non_null(data);
    size_t at = 0, clen = 0;
    char *schema_json = NULL;
    find_block(data, len, (int)json_integer_value(json_object_get(e, "block")), &at, &clen, &schema_json);
    assert_int_equal(at, json_integer_value(json_object_get(e, "content_at")));
    assert_non_null(schema_json);
    hudi_avro_schema *ws = NULL;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_avro_schema_parse(&ws, schema_json, strlen(schema_json), &err), HUDI_OK);
    hudi_avro_decoder *dec = NULL;
    hudi_status st = hudi_avro_decoder_create(&dec, ws->root, NULL, NULL, &err);
    if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    assert_int_equal(st, HUDI_OK);
    int64_t n;
    st = hudi_avro_decoder_decode_data_block(dec, data + at, clen, at, &n, &err);
    if (st != HUDI_OK) fprintf(stderr, "%s: %s\n", path, err.message);
    assert_int_equal(st, HUDI_OK);
    struct ArrowArray a;
    struct ArrowSchema s;
    hudi_arrow_view v;
    assert_int_equal(hudi_avro_decoder_finish(dec, &a, &err), HUDI_OK);
    assert_int_equal(hudi_avro_decoder_export_schema(dec, &s, &err), HUDI_OK);
    assert_int_equal(hudi_arrow_view_init(&v, &s, &a, &err), HUDI_OK);
    /* hudi-rs / parquet types: meta columns nullable strings, timestamps in UTC. */
    assert_string_equal(v.children[0].name, "_hoodie_commit_time");
    assert_true(v.children[0].flags & ARROW_FLAG_NULLABLE);
    for (int64_t k = 0; k < v.n_children; k++)
      if (v.children[k].type.id == HUDI_ARROW_TIMESTAMP)
        assert_memory_equal(v.children[k].type.timezone, "UTC", 3);
    json_t *got = arrow_tj_rows(&v);
    assert_int_equal(arrow_tj_compare(got, json_object_get(e, "values"), path), 0);
    rows += (int)json_array_size(got);
    json_decref(got);
    hudi_arrow_view_clear(&v);
    a.release(&a);
    s.release(&s);
    hudi_avro_decoder_free(dec);
    hudi_avro_schema_free(ws);
    free(schema_json);
    free(data);
    blocks++;
  }
  fprintf(stderr, "%d Avro data blocks, %d records\n", blocks, rows);
  assert_true(blocks >= 20);
  json_decref(doc);
}

/* Spark's SQL schema has nullable array elements (containsNull); the base
 * file's two-level parquet-avro lists read back as non-null elements, so
 * the Arrow schema pyarrow gives loses that. Restore it as Spark declares
 * it: what a writer hands us for such a column is a list with nullable
 * elements. */
static void spark_list_elements(hudi_arrow_field *f) {
  if (f->type.id == HUDI_ARROW_LIST || f->type.id == HUDI_ARROW_LARGE_LIST) f->children[0].flags |= ARROW_FLAG_NULLABLE;
  for (int64_t k = 0; k < f->n_children; k++) spark_list_elements(&f->children[k]);
}

static void schema_mapping_matches_spark(void **state) {
  (void)state;
  json_t *doc = oracle_json("tables '" TABLES "' '%s'", "tables.json");
  size_t i;
  json_t *t;
  int commits = 0, footers = 0;
  json_array_foreach(json_object_get(doc, "tables"), i, t) {
    const char *table = json_string_value(json_object_get(t, "table"));
    hudi_arrow_field f;
    assert_int_equal(arrow_field_from_json(&f, json_object_get(t, "arrow")), HUDI_OK);
    spark_list_elements(&f);
    /* Without meta fields: the base file's data columns. */
    hudi_arrow_field data_cols;
    assert_int_equal(hudi_arrow_field_copy(&data_cols, &f, false, NULL), HUDI_OK);
    int64_t keep = 0;
    for (int64_t k = 0; k < data_cols.n_children; k++) {
      const char *nm = data_cols.children[k].name;
      if (strncmp(nm, "_hoodie_", 8) == 0) {
        hudi_arrow_field_clear(&data_cols.children[k]);
        continue;
      }
      data_cols.children[keep++] = data_cols.children[k];
    }
    data_cols.n_children = keep;
    hudi_buf b;
    hudi_buf_init(&b, 0);
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_avro_schema_from_arrow(&b, &data_cols, table, false, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
    json_t *cs = json_object_get(t, "commit_schemas");
    int matched = 0;
    for (size_t k = 0; k < json_array_size(cs); k++)
      if (strcmp((const char *)b.data, json_string_value(json_array_get(cs, k))) == 0) matched = 1;
    if (!matched)
      fprintf(stderr, "%s: ours\n  %s\nSpark's commit schema\n  %s\n", table, (const char *)b.data,
              json_string_value(json_array_get(cs, 0)));
    assert_true(matched);
    commits++;
    /* With meta fields: the footer's parquet.avro.schema (when the writer kept one). */
    const char *footer = json_string_value(json_object_get(t, "footer_schema"));
    if (footer && *footer) {
      hudi_buf_reset(&b);
      assert_int_equal(hudi_avro_schema_from_arrow(&b, &f, table, true, &err), HUDI_OK);
      assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
      if (strcmp((const char *)b.data, footer) != 0)
        fprintf(stderr, "%s: ours\n  %s\nfooter\n  %s\n", table, (const char *)b.data, footer);
      assert_string_equal((const char *)b.data, footer);
      footers++;
    }
    hudi_buf_free(&b);
    hudi_arrow_field_clear(&data_cols);
    hudi_arrow_field_clear(&f);
  }
  fprintf(stderr, "schema mapping: %d tables equal to their commit schema, %d to their footer schema\n", commits,
          footers);
  assert_true(commits >= 25);
  json_decref(doc);
}

/* Avro -> Arrow -> Avro gives the block's schema back for the MOR tables
 * (their log blocks carry the full schema with the meta fields). */
static void log_schemas_round_trip(void **state) {
  (void)state;
  json_t *doc = oracle_json("fixtures '%s' '" TABLES "'", "blocks2.json");
  size_t i;
  json_t *e;
  int n = 0;
  json_array_foreach(json_object_get(doc, "blocks"), i, e) {
    const char *js = json_string_value(json_object_get(e, "schema"));
    hudi_avro_schema *s = NULL;
    assert_int_equal(hudi_avro_schema_parse(&s, js, strlen(js), NULL), HUDI_OK);
    hudi_arrow_field f;
    assert_int_equal(hudi_avro_schema_to_arrow(&f, s->root, NULL), HUDI_OK);
    hudi_buf b;
    hudi_buf_init(&b, 0);
    const char *name = s->root->name; /* "hoodie.<table>.<table>_record" */
    const char *dot = strrchr(name, '.');
    char ns[512];
    snprintf(ns, sizeof ns, "%.*s", (int)(dot - name), name);
    assert_int_equal(hudi_avro_schema_from_arrow_named(&b, &f, dot + 1, ns, true, NULL), HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
    assert_string_equal((const char *)b.data, js);
    hudi_buf_free(&b);
    hudi_arrow_field_clear(&f);
    hudi_avro_schema_free(s);
    n++;
  }
  assert_true(n >= 20);
  json_decref(doc);
}

static void sanitize_and_sizes(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_avro_sanitize_name(&b, "9my-table.x\xc3\xa9", NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
  assert_string_equal((const char *)b.data, "__my__table__x__");
  hudi_buf_free(&b);
  /* Spark's minBytesForPrecision. */
  int want[][2] = {{1, 1}, {2, 1}, {3, 2}, {9, 4}, {10, 5}, {15, 7}, {18, 8}, {19, 9}, {38, 16}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    assert_int_equal(hudi_avro_decimal_fixed_size(want[k][0]), want[k][1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(log_blocks_decode_like_fastavro),
      cmocka_unit_test(schema_mapping_matches_spark),
      cmocka_unit_test(log_schemas_round_trip),
      cmocka_unit_test(sanitize_and_sizes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
