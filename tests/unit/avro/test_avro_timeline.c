/* Every Avro timeline file of the Spark-written v8/v9 fixture tables:
 * decoded values equal fastavro's, the schema string re-emits byte for
 * byte, and re-encoding with the same schema JSON, codec, sync marker and
 * block layout reproduces the file exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>

#include "avro_test.h"

#define FIXTURE_ROOT HUDI_UNZIPPED_DIR "/hudi-rs/crates/test/data"
#define LOOSE_COMMIT HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/commit_metadata/v8_deltacommit.avro"

static json_t *fastavro_dump;
static char scratch[3000];
static int n_files, n_meta_files;

static int setup(void **state) {
  (void)state;
  char args[7000], path[3100];
  avro_test_scratch(scratch, sizeof scratch, "timeline");
  snprintf(path, sizeof path, "%s/fastavro.json", scratch);
  snprintf(args, sizeof args, "dump '%s' '%s'", FIXTURE_ROOT, path);
  if (avro_test_oracle(args) != 0) return -1;
  json_error_t jerr;
  fastavro_dump = json_load_file(path, 0, &jerr);
  return fastavro_dump ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  json_decref(fastavro_dump);
  avro_test_rmdir(scratch);
  return 0;
}

/* Decodes, compares with fastavro (when rel is given) and re-encodes. */
static void roundtrip(const char *path, const char *rel) {
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  assert_non_null(data);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_avro_file f;
  if (hudi_avro_file_open(&f, data, len, path, &err) != HUDI_OK) fail_msg("%s", err.message);

  /* The schema string as given, byte for byte. */
  const hudi_avro_meta *sm = hudi_avro_file_meta(&f, "avro.schema");
  hudi_buf schema_json;
  hudi_buf_init(&schema_json, 0);
  assert_int_equal(hudi_avro_schema_to_json(f.schema, &schema_json, &err), HUDI_OK);
  assert_int_equal(schema_json.len, sm->len);
  assert_memory_equal(schema_json.data, sm->value, sm->len);

  hudi_avro_arena arena;
  hudi_avro_arena_init(&arena, 0);
  hudi_avro_value *vals;
  size_t n, nb;
  int64_t *counts;
  if (hudi_avro_file_read_all(&f, &arena, NULL, &vals, &n, &counts, &nb, &err) != HUDI_OK)
    fail_msg("%s", err.message);

  if (rel) {
    json_t *want = json_object_get(fastavro_dump, rel);
    if (!want) fail_msg("fastavro did not decode %s", rel);
    assert_int_equal(n, json_array_size(want));
    for (size_t i = 0; i < n; i++) {
      json_t *got = avro_test_tj(&vals[i]);
      if (!json_equal(got, json_array_get(want, i))) fail_msg("%s: record %zu differs from fastavro", rel, i);
      json_decref(got);
    }
  }

  hudi_buf out;
  hudi_buf_init(&out, 0);
  hudi_avro_writer w;
  hudi_avro_writer_opts opts = HUDI_AVRO_WRITER_OPTS_INIT;
  opts.codec = f.codec;
  opts.sync = f.sync;
  opts.sync_interval = SIZE_MAX;
  assert_int_equal(hudi_avro_writer_init(&w, &out, (char *)schema_json.data, schema_json.len, &opts, &err), HUDI_OK);
  for (size_t i = 0; i < f.n_meta; i++)
    if (strcmp(f.meta[i].key, "avro.schema") != 0)
      assert_int_equal(hudi_avro_writer_set_meta(&w, f.meta[i].key, f.meta[i].value, f.meta[i].len, &err), HUDI_OK);
  size_t k = 0;
  for (size_t b = 0; b < nb; b++) {
    for (int64_t i = 0; i < counts[b]; i++, k++) assert_int_equal(hudi_avro_writer_append(&w, &vals[k], &err), HUDI_OK);
    assert_int_equal(hudi_avro_writer_flush(&w, &err), HUDI_OK);
  }
  assert_int_equal(hudi_avro_writer_finish(&w, &err), HUDI_OK);
  if (out.len != len || memcmp(out.data, data, len) != 0) fail_msg("%s: re-encoded bytes differ", path);

  n_files++;
  if (hudi_avro_value_field(&vals[0], "partitionToWriteStats")) n_meta_files++;
  hudi_avro_writer_free(&w);
  hudi_buf_free(&out);
  hudi_buf_free(&schema_json);
  hudi_free(counts);
  hudi_avro_arena_free(&arena);
  hudi_avro_file_close(&f);
  free(data);
}

static int is_avro(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
  char magic[4];
  int ok = fread(magic, 1, 4, fp) == 4 && memcmp(magic, "Obj\x01", 4) == 0;
  fclose(fp);
  return ok;
}

static void walk(const char *dir, size_t root_len) {
  DIR *d = opendir(dir);
  if (!d) return;
  const char *base = strrchr(dir, '/');
  int in_timeline = base && strcmp(base + 1, "timeline") == 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) walk(path, root_len);
    else if (in_timeline && is_avro(path)) roundtrip(path, path + root_len + 1);
  }
  closedir(d);
}

static void timeline_files_decode_and_reencode_byte_exact(void **state) {
  (void)state;
  walk(FIXTURE_ROOT, strlen(FIXTURE_ROOT));
  roundtrip(LOOSE_COMMIT, NULL);
  printf("re-encoded %d Avro timeline files byte for byte (%d commit metadata)\n", n_files, n_meta_files);
  /* fastavro found the same set of files. */
  assert_int_equal((size_t)n_files - 1, json_object_size(fastavro_dump));
  assert_true(n_files > 400);
}

/* Values the format spec documents for one commit (hudi-format-core.md §3). */
static void commit_metadata_fields(void **state) {
  (void)state;
  const char *path = FIXTURE_ROOT "/sample_table/cow/v8_simplekeygen_nonhivestyle/v8_simplekeygen_nonhivestyle"
                                  "/.hoodie/timeline/20250713011315930_20250713011316231.commit";
  size_t len;
  uint8_t *data = avro_test_read_file(path, &len);
  assert_non_null(data);
  assert_int_equal(len, 6257);
  hudi_avro_file f;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_avro_file_open(&f, data, len, path, &err), HUDI_OK);
  assert_int_equal(hudi_avro_file_meta(&f, "avro.schema")->len, 3293);
  assert_null(hudi_avro_file_meta(&f, "avro.codec"));
  hudi_avro_arena arena;
  hudi_avro_arena_init(&arena, 0);
  hudi_avro_value *vals;
  size_t n;
  assert_int_equal(hudi_avro_file_read_all(&f, &arena, NULL, &vals, &n, NULL, NULL, &err), HUDI_OK);
  assert_int_equal(n, 1);
  const hudi_avro_value *op = hudi_avro_value_unwrap(hudi_avro_value_field(&vals[0], "operationType"));
  assert_string_equal((const char *)op->v.bytes.data, "UPSERT");
  const hudi_avro_value *compacted = hudi_avro_value_unwrap(hudi_avro_value_field(&vals[0], "compacted"));
  assert_int_equal(compacted->v.boolean, 0);
  assert_true(hudi_avro_value_is_null(hudi_avro_value_field(&vals[0], "version")));
  const hudi_avro_value *stats =
      hudi_avro_value_unwrap(hudi_avro_value_map_get(hudi_avro_value_field(&vals[0], "partitionToWriteStats"), "20"));
  assert_non_null(stats);
  const hudi_avro_value *s0 = &stats->v.list.items[0];
  assert_string_equal((const char *)hudi_avro_value_unwrap(hudi_avro_value_field(s0, "fileId"))->v.bytes.data,
                      "352d465e-0bef-4a4c-b558-3079e02459ed-0");
  assert_string_equal((const char *)hudi_avro_value_unwrap(hudi_avro_value_field(s0, "prevCommit"))->v.bytes.data,
                      "null");
  assert_int_equal(hudi_avro_value_unwrap(hudi_avro_value_field(s0, "totalWriteBytes"))->v.l, 441164);
  assert_int_equal(hudi_avro_value_unwrap(hudi_avro_value_field(s0, "numInserts"))->v.l, 1);
  assert_true(hudi_avro_value_is_null(hudi_avro_value_field(s0, "logFiles")));
  hudi_avro_arena_free(&arena);
  hudi_avro_file_close(&f);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(timeline_files_decode_and_reencode_byte_exact),
      cmocka_unit_test(commit_metadata_fields),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
