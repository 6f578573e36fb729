/* The Parquet writer against pyarrow and DuckDB: tests/parquet/write_cases.py
 * builds tables with pyarrow (every Hudi type, nulls, nested lists/structs/
 * maps, slices, dictionaries, string views, empty batches) and exports their
 * exact Arrow buffers; this test writes each with hudi-c under the case's
 * options (codec, dictionary on/off and fallback, page and row-group sizes,
 * v1/v2 pages, 2-level lists, sinks) and the script then requires
 * pyarrow.parquet and DuckDB to read hudi-c's file exactly as they read
 * pyarrow's own file of the same table, the schema trees to match (pyarrow's,
 * or the Spark fixtures' for the parquet-avro forms), and the statistics of
 * every row group and column to equal pyarrow's and the data's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/storage.h"
#include "parquet/writer.h"
#include "parquet/test_writer_load.h"

#define OUT_DIR "parquet_writer_cases"

static const char *python(void) {
  const char *py = getenv("HUDI_PYTHON");
  return py ? py : HUDI_SOURCE_DIR "/.venv/bin/python";
}

typedef struct opts_kv {
  char key[64];
  char value[256];
} opts_kv;

static const char *opt(const opts_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (strcmp(kv[i].key, key) == 0) return kv[i].value;
  return NULL;
}

static int read_opts(const char *path, opts_kv *kv, int cap) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[400];
  int n = 0;
  while (n < cap && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    char *eq = strchr(line, '=');
    if (!eq) continue;
    *eq = 0;
    snprintf(kv[n].key, sizeof kv[n].key, "%.63s", line);
    snprintf(kv[n].value, sizeof kv[n].value, "%.255s", eq + 1);
    n++;
  }
  fclose(f);
  return n;
}

static hudi_pq_codec codec_of(const char *s) {
  if (strcmp(s, "none") == 0) return HUDI_PQ_CODEC_UNCOMPRESSED;
  if (strcmp(s, "gzip") == 0) return HUDI_PQ_CODEC_GZIP;
  if (strcmp(s, "zstd") == 0) return HUDI_PQ_CODEC_ZSTD;
  if (strcmp(s, "lz4_raw") == 0) return HUDI_PQ_CODEC_LZ4_RAW;
  return HUDI_PQ_CODEC_SNAPPY;
}

static void put_hexs(FILE *f, const hudi_pq_bytes *b) {
  for (size_t i = 0; i < b->len; i++) fprintf(f, "%02x", b->data[i]);
}

static void write_summary(const char *path, const hudi_pq_write_summary *s) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "{\"num_rows\": %lld, \"file_size\": %lld, \"num_row_groups\": %u, \"columns\": [",
          (long long)s->num_rows, (long long)s->file_size, s->num_row_groups);
  for (uint32_t i = 0; i < s->num_columns; i++) {
    const hudi_pq_column_summary *c = &s->columns[i];
    fprintf(f, "%s{\"path\": \"%s\", \"num_values\": %lld, \"null_count\": %lld, \"has_min_max\": %s, \"min\": \"",
            i ? ", " : "", c->path, (long long)c->num_values, (long long)c->null_count,
            c->has_min_max ? "true" : "false");
    if (c->has_min_max) put_hexs(f, &c->min);
    fprintf(f, "\", \"max\": \"");
    if (c->has_min_max) put_hexs(f, &c->max);
    fprintf(f, "\"}");
  }
  fprintf(f, "]}\n");
  fclose(f);
}

static void write_case(const char *name) {
  char path[512];
  snprintf(path, sizeof path, OUT_DIR "/%s.opts", name);
  opts_kv kv[32];
  int nkv = read_opts(path, kv, 32);
  hudi_pq_writer_options o = HUDI_PQ_WRITER_OPTIONS_INIT;
  o.codec = codec_of(opt(kv, nkv, "codec"));
  o.dictionary = atoi(opt(kv, nkv, "dictionary")) != 0;
  o.data_page_v2 = atoi(opt(kv, nkv, "v2")) != 0;
  o.page_bytes = atoll(opt(kv, nkv, "page_bytes"));
  o.row_group_rows = atoll(opt(kv, nkv, "row_group_rows"));
  o.dictionary_page_bytes = atoll(opt(kv, nkv, "dict_page_bytes"));
  o.statistics = atoi(opt(kv, nkv, "stats")) != 0;
  o.schema.list_style = atoi(opt(kv, nkv, "list_style")) == 2 ? HUDI_PQ_LIST_2LEVEL : HUDI_PQ_LIST_3LEVEL;
  o.schema.map_key_value_legacy = atoi(opt(kv, nkv, "map_legacy")) != 0;
  o.schema.root_name = opt(kv, nkv, "root_name");
  bool storage_sink = strcmp(opt(kv, nkv, "sink"), "storage") == 0;
  bool last = atoi(opt(kv, nkv, "last")) != 0;

  snprintf(path, sizeof path, OUT_DIR "/%s.arrowbin", name);
  size_t size;
  uint8_t *data = slurp(path, &size);
  assert_non_null(data);
  struct ArrowSchema schema;
  struct ArrowArray *batches = NULL;
  int64_t nb = 0;
  assert_int_equal(hcab_load(data, size, &schema, &batches, &nb), 0);
  free(data);

  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_writer *w = NULL;
  hudi_buf file;
  hudi_buf_init(&file, 0);
  hudi_storage *st = NULL;
  char fname[300];
  snprintf(fname, sizeof fname, "%s.parquet", name);
  if (storage_sink) {
    hudi_storage_option so[] = {{"fsync", "false"}};
    assert_int_equal(hudi_storage_open(&st, OUT_DIR, so, 1, &err), HUDI_OK);
    if (hudi_pq_writer_open_storage(&w, &schema, &o, st, fname, &err) != HUDI_OK) fail_msg("%s: %s", name, err.message);
  } else {
    if (hudi_pq_writer_open_buf(&w, &schema, &o, &file, &err) != HUDI_OK) fail_msg("%s: %s", name, err.message);
  }
  int64_t rows = 0;
  for (int64_t i = 0; i < nb; i++) {
    unsigned flags = last && i == nb - 1 ? HUDI_PQ_WRITE_LAST : 0;
    if (hudi_pq_writer_write_batch(w, &batches[i], flags, &err) != HUDI_OK) fail_msg("%s: %s", name, err.message);
    rows += batches[i].length;
  }
  assert_int_equal(hudi_pq_writer_add_metadata(w, "hoodie_min_record_key", "key-\0-min", 9, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_add_metadata(w, "replaced", "x", 1, &err), HUDI_OK);
  assert_int_equal(hudi_pq_writer_add_metadata(w, "replaced", "y", 1, &err), HUDI_OK);
  hudi_pq_write_summary sum;
  if (hudi_pq_writer_close(w, &sum, &err) != HUDI_OK) fail_msg("%s: %s", name, err.message);
  hudi_pq_writer_free(w);
  assert_int_equal(sum.num_rows, rows);
  assert_int_equal(sum.meta.num_key_value, 2);
  assert_string_equal(sum.meta.key_value[1].value, "y");
  if (!storage_sink) {
    assert_int_equal((int64_t)file.len, sum.file_size);
    snprintf(path, sizeof path, OUT_DIR "/%s", fname);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(file.data, 1, file.len, f), file.len);
    fclose(f);
  } else {
    /* The file appeared whole, and no temporary is left beside it. */
    hudi_file_list list = HUDI_FILE_LIST_INIT;
    assert_int_equal(hudi_storage_list(st, "", HUDI_LIST_INCLUDE_TEMP, &list, &err), HUDI_OK);
    for (size_t i = 0; i < list.count; i++) assert_false(hudi_storage_is_temp_name(list.items[i].path));
    hudi_file_list_free(&list);
    hudi_file_stat fs;
    assert_int_equal(hudi_storage_stat(st, fname, &fs, &err), HUDI_OK);
    assert_int_equal((int64_t)fs.size, sum.file_size);
    hudi_storage_free(st);
  }
  snprintf(path, sizeof path, OUT_DIR "/%s.summary", name);
  write_summary(path, &sum);
  hudi_pq_write_summary_free(&sum);
  hudi_buf_free(&file);
  for (int64_t i = 0; i < nb; i++) batches[i].release(&batches[i]);
  free(batches);
  schema.release(&schema);
}

static void written_files_match_pyarrow_and_duckdb(void **state) {
  (void)state;
  char cmd[8192];
  assert_int_equal(system("rm -rf " OUT_DIR " && mkdir -p " OUT_DIR), 0);
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/parquet/write_cases.py' gen " OUT_DIR, python(), HUDI_SOURCE_DIR);
  assert_int_equal(system(cmd), 0);
  size_t size;
  char *list = (char *)slurp(OUT_DIR "/cases.txt", &size);
  assert_non_null(list);
  int n = snprintf(cmd, sizeof cmd, "'%s' '%s/tests/parquet/write_cases.py' check " OUT_DIR " '%s'", python(),
                   HUDI_SOURCE_DIR, HUDI_UNZIPPED_DIR);
  int ncases = 0;
  for (char *save = NULL, *name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
    write_case(name);
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " %s", name);
    ncases++;
  }
  free(list);
  assert_true(ncases >= 20);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(written_files_match_pyarrow_and_duckdb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
