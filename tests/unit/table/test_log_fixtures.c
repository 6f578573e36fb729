/* Every log file in the fixtures (the four in hudi-rs log_files/ and every
 * log file inside the unpacked MOR and metadata tables): all blocks parse,
 * with the expected types and headers; each block re-encodes from its parsed
 * form to the very same bytes; the storage reader sees the same blocks as
 * the memory reader; delete, command and data contents decode; and the
 * hand-picked fixtures hold the values their recipes (datagen.sql) imply. */
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "avro/schema.h"
#include "table/log_avro_block.h"
#include "table/log_command_block.h"
#include "table/log_delete_block.h"
#include "table/log_file_name.h"
#include "table/log_reader.h"

#define LOG_FILES HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/log_files"

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return p;
}

typedef struct stats {
  size_t files, blocks, by_type[HUDI_LOG_BLOCK_TYPE_COUNT], delete_records, avro_records;
  size_t schemas;
} stats;

static void check_header_common(const hudi_log_block *b, const hudi_log_file_name *name,
                                const char *path) {
  size_t ilen;
  const char *instant = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_INSTANT_TIME, &ilen);
  if (!instant) fail_msg("%s: block at %llu has no INSTANT_TIME", path, (unsigned long long)b->offset);
  assert_int_equal(ilen, strlen(instant));
  /* v8/v9 logs are named by the delta commit that wrote them; v6 logs by
   * the slice's base instant, which precedes the writing delta commit. */
  if (strstr(path, "/v8_") || strstr(path, "/v9_")) {
    assert_string_equal(instant, name->instant);
  } else if (strstr(path, "/v6_")) {
    if (strcmp(instant, name->instant) <= 0) fail_msg("%s: v6 block instant %s", path, instant);
  } else {
    if (strcmp(instant, name->instant) < 0) fail_msg("%s: block instant %s", path, instant);
  }
  assert_int_equal(b->footer.count, 0); /* Java writes empty footers */
}

static void check_schema(const hudi_log_block *b, const char *path, stats *s) {
  size_t len;
  const char *schema = hudi_log_meta_get(&b->header, HUDI_LOG_HEADER_SCHEMA, &len);
  if (!schema) {
    /* Only delete blocks (the metadata table's) and commands go without. */
    if (hudi_log_block_type_is_data(b->type)) fail_msg("%s: data block without SCHEMA", path);
    return;
  }
  json_error_t jerr;
  json_t *j = json_loadb(schema, len, 0, &jerr);
  if (!j) fail_msg("%s: SCHEMA is not JSON: %s", path, jerr.text);
  assert_true(json_is_object(j));
  assert_string_equal(json_string_value(json_object_get(j, "type")), "record");
  json_decref(j);
  hudi_avro_schema *as = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_avro_schema_parse(&as, schema, len, &err) != HUDI_OK)
    fail_msg("%s: SCHEMA is not an Avro schema: %s", path, err.message);
  hudi_avro_schema_free(as);
  s->schemas++;
}

static void check_delete(const hudi_log_block *b, const char *path, stats *s) {
  hudi_log_delete_list l;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_log_delete_block_decode(&l, b->content, (size_t)b->content_len, b->content_offset, path,
                                   &err) != HUDI_OK)
    fail_msg("%s: %s", path, err.message);
  assert_int_equal(l.version, 3);
  for (size_t i = 0; i < l.count; i++) {
    assert_non_null(l.records[i].record_key);
    assert_true(l.records[i].record_key_len > 0);
  }
  /* Re-encoding gives the same content bytes. */
  hudi_buf again;
  hudi_buf_init(&again, 0);
  assert_int_equal(hudi_log_delete_block_encode(&again, l.records, l.count, NULL), HUDI_OK);
  assert_int_equal(again.len, b->content_len);
  assert_memory_equal(again.data, b->content, again.len);
  hudi_buf_free(&again);
  s->delete_records += l.count;
  hudi_log_delete_list_free(&l);
}

static void check_avro(const hudi_log_block *b, const char *path, stats *s) {
  hudi_log_avro_records it;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_log_avro_records_open(&it, b->content, (size_t)b->content_len, b->content_offset, path,
                                 &err) != HUDI_OK)
    fail_msg("%s: %s", path, err.message);
  assert_int_equal(it.version, 3);
  assert_true(it.count > 0);
  hudi_buf again;
  hudi_buf_init(&again, 0);
  hudi_log_avro_records_writer w;
  assert_int_equal(hudi_log_avro_records_begin(&w, &again, NULL), HUDI_OK);
  const uint8_t *d;
  size_t n;
  bool has;
  int32_t count = 0;
  while (hudi_log_avro_records_next(&it, &d, &n, &has, &err) == HUDI_OK && has) {
    assert_true(n > 0);
    assert_int_equal(hudi_log_avro_records_add(&w, d, n, NULL), HUDI_OK);
    count++;
  }
  assert_int_equal(err.code, HUDI_OK);
  assert_int_equal(count, it.count);
  assert_int_equal(it.pos, it.len); /* the records fill the content exactly */
  assert_int_equal(hudi_log_avro_records_finish(&w, NULL), HUDI_OK);
  assert_int_equal(again.len, b->content_len);
  assert_memory_equal(again.data, b->content, again.len);
  hudi_buf_free(&again);
  s->avro_records += (size_t)count;
}

static void check_content(const hudi_log_block *b, const char *path, stats *s) {
  switch (b->type) {
    case HUDI_LOG_BLOCK_DELETE: check_delete(b, path, s); break;
    case HUDI_LOG_BLOCK_AVRO_DATA: check_avro(b, path, s); break;
    case HUDI_LOG_BLOCK_PARQUET_DATA:
      assert_true(b->content_len >= 12);
      assert_memory_equal(b->content, "PAR1", 4);
      assert_memory_equal(b->content + b->content_len - 4, "PAR1", 4);
      break;
    case HUDI_LOG_BLOCK_HFILE_DATA:
      /* An HFile: its first block is a data block, its last 4 bytes the
       * trailer's version (minor 0/major 3, big-endian). */
      assert_true(b->content_len > 212);
      assert_memory_equal(b->content, "DATABLK*", 8);
      assert_int_equal(hudi_log_be32(b->content + b->content_len - 4) & 0xffffff, 3);
      break;
    case HUDI_LOG_BLOCK_COMMAND: {
      assert_int_equal(b->content_len, 0);
      hudi_log_command cmd;
      assert_int_equal(hudi_log_command_block_read(&cmd, b, path, NULL), HUDI_OK);
      assert_int_equal(cmd.command, HUDI_LOG_COMMAND_ROLLBACK);
      assert_true(strcmp(cmd.target_instant, cmd.instant) < 0);
      break;
    }
    default: fail_msg("%s: unexpected block type %d", path, b->type);
  }
}

/* The parsed block, encoded again, equals the file's bytes. */
static void check_reencode(const hudi_log_block *b, const uint8_t *file) {
  hudi_buf out;
  hudi_buf_init(&out, 0);
  assert_int_equal(hudi_log_block_encode(&out, b->type, &b->header, &b->footer, b->content,
                                         (size_t)b->content_len, NULL),
                   HUDI_OK);
  assert_int_equal(out.len, b->length);
  assert_memory_equal(out.data, file + b->offset, out.len);
  hudi_buf_free(&out);
}

static void same_meta(const hudi_log_meta *a, const hudi_log_meta *b) {
  assert_int_equal(a->count, b->count);
  for (size_t i = 0; i < a->count; i++) {
    assert_int_equal(a->items[i].key, b->items[i].key);
    assert_int_equal(a->items[i].len, b->items[i].len);
    assert_memory_equal(a->items[i].value, b->items[i].value, a->items[i].len);
  }
}

/* The storage reader, reading lazily, finds the same blocks and contents. */
static void check_storage_reader(const char *dir, const char *name, const uint8_t *file,
                                 hudi_log_block *blocks, size_t n) {
  hudi_storage *s = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_storage_open(&s, dir, NULL, 0, &err), HUDI_OK);
  hudi_log_reader *r = NULL;
  if (hudi_log_reader_open(&r, s, name, &err) != HUDI_OK) fail_msg("%s", err.message);
  size_t i = 0;
  for (;;) {
    hudi_log_block b;
    bool has;
    if (hudi_log_reader_next(r, &b, &has, &err) != HUDI_OK) fail_msg("%s", err.message);
    if (!has) break;
    assert_true(i < n);
    assert_null(b.content);
    assert_int_equal(b.type, blocks[i].type);
    assert_int_equal(b.offset, blocks[i].offset);
    assert_int_equal(b.length, blocks[i].length);
    assert_int_equal(b.content_offset, blocks[i].content_offset);
    assert_int_equal(b.content_len, blocks[i].content_len);
    same_meta(&b.header, &blocks[i].header);
    same_meta(&b.footer, &blocks[i].footer);
    hudi_buf c;
    hudi_buf_init(&c, 0);
    assert_int_equal(hudi_log_reader_content(r, &b, &c, NULL), HUDI_OK);
    assert_int_equal(c.len, b.content_len);
    if (c.len) assert_memory_equal(c.data, file + b.content_offset, c.len);
    hudi_buf_free(&c);
    hudi_log_block_free(&b);
    i++;
  }
  assert_int_equal(i, n);
  hudi_log_reader_free(r);
  hudi_storage_free(s);
}

static void check_file(const char *dir, const char *name, stats *s) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  hudi_log_file_name fn = HUDI_LOG_FILE_NAME_INIT;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_log_file_name_parse(&fn, name, strlen(name), &err), HUDI_OK);
  /* The name builds back from its parts. */
  hudi_buf nb;
  hudi_buf_init(&nb, 0);
  assert_int_equal(hudi_log_file_name_format(&nb, fn.file_id, fn.instant, fn.extension, fn.version,
                                             fn.write_token, fn.suffix, NULL),
                   HUDI_OK);
  assert_int_equal(nb.len, strlen(name));
  assert_memory_equal(nb.data, name, nb.len);
  hudi_buf_free(&nb);

  size_t len;
  uint8_t *file = read_file(path, &len);
  assert_non_null(file);
  hudi_log_reader *r = NULL;
  assert_int_equal(hudi_log_reader_open_memory(&r, file, len, path, NULL), HUDI_OK);
  hudi_log_block blocks[16];
  size_t n = 0;
  uint64_t end = 0;
  for (;;) {
    bool has;
    hudi_log_block b;
    if (hudi_log_reader_next(r, &b, &has, &err) != HUDI_OK) fail_msg("%s", err.message);
    if (!has) break;
    if (b.type == HUDI_LOG_BLOCK_CORRUPT) fail_msg("%s: corrupt block at %llu: %s", path,
                                                   (unsigned long long)b.offset, b.corrupt_reason);
    assert_int_equal(b.offset, end);
    end = b.offset + b.length;
    check_header_common(&b, &fn, path);
    check_schema(&b, path, s);
    check_content(&b, path, s);
    check_reencode(&b, file);
    s->by_type[b.type]++;
    s->blocks++;
    assert_true(n < 16);
    blocks[n++] = b;
  }
  assert_int_equal(end, len); /* blocks cover the whole file */
  check_storage_reader(dir, name, file, blocks, n);
  for (size_t i = 0; i < n; i++) hudi_log_block_free(&blocks[i]);
  hudi_log_reader_free(r);
  hudi_log_file_name_free(&fn);
  free(file);
  s->files++;
}

static void walk(const char *dir, stats *s) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      walk(p, s);
    else if (hudi_log_file_name_matches(e->d_name, strlen(e->d_name)))
      check_file(dir, e->d_name, s);
  }
  closedir(d);
}

static void every_fixture_log_file_round_trips(void **state) {
  (void)state;
  stats s;
  memset(&s, 0, sizeof s);
  walk(LOG_FILES, &s);
  assert_int_equal(s.files, 4);
  walk(HUDI_UNZIPPED_DIR, &s);
  printf("log files %zu, blocks %zu (command %zu, delete %zu, avro %zu, hfile %zu, parquet %zu), "
         "delete records %zu, avro records %zu, schemas %zu\n",
         s.files, s.blocks, s.by_type[0], s.by_type[1], s.by_type[3], s.by_type[4], s.by_type[5],
         s.delete_records, s.avro_records, s.schemas);
  /* Counts from an independent Python scan of the same fixtures. */
  assert_int_equal(s.files, 4 + 1070);
  assert_int_equal(s.by_type[HUDI_LOG_BLOCK_COMMAND], 1 + 1);
  assert_int_equal(s.by_type[HUDI_LOG_BLOCK_DELETE], 1 + 421);
  assert_int_equal(s.by_type[HUDI_LOG_BLOCK_AVRO_DATA], 1 + 22);
  assert_int_equal(s.by_type[HUDI_LOG_BLOCK_HFILE_DATA], 627);
  assert_int_equal(s.by_type[HUDI_LOG_BLOCK_PARQUET_DATA], 1 + 5);
}

/* Reads the single block of a fixture file (memory reader). */
static uint8_t *one_block(const char *path, hudi_log_block *b, size_t *len) {
  uint8_t *file = read_file(path, len);
  assert_non_null(file);
  hudi_log_reader *r = NULL;
  assert_int_equal(hudi_log_reader_open_memory(&r, file, *len, path, NULL), HUDI_OK);
  bool has;
  assert_int_equal(hudi_log_reader_next(r, b, &has, NULL), HUDI_OK);
  assert_true(has);
  hudi_log_block extra;
  assert_int_equal(hudi_log_reader_next(r, &extra, &has, NULL), HUDI_OK);
  assert_false(has);
  hudi_log_reader_free(r);
  return file;
}

static bool str_eq(const char *s, size_t len, const char *want) {
  return s && len == strlen(want) && memcmp(s, want, len) == 0;
}

/* datagen.sql deletes riders A, C and D (all in san_francisco). */
static void delete_fixture_holds_the_sql_deletes(void **state) {
  (void)state;
  size_t len;
  hudi_log_block b;
  uint8_t *file = one_block(LOG_FILES "/valid_log_delete/.6d3d1d6e-2298-4080-a0c1-494877d6f40a-0_"
                            "20250618054711154.log.1_0-26-85", &b, &len);
  assert_int_equal(len, 1098);
  assert_int_equal(b.type, HUDI_LOG_BLOCK_DELETE);
  assert_string_equal(hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_INSTANT_TIME, NULL),
                      "20250618054714114");
  assert_int_equal(b.header.items[0].key, HUDI_LOG_HEADER_SCHEMA); /* file order kept */
  hudi_log_delete_list l;
  assert_int_equal(hudi_log_delete_block_decode(&l, b.content, (size_t)b.content_len,
                                                b.content_offset, "delete", NULL), HUDI_OK);
  assert_int_equal(l.count, 3);
  const char *want[] = {"334e26e9-8355-45cc-97c6-c31daf0df330", "e96c4396-3fad-413a-a942-4cb36106d721",
                        "9909a8b1-2d15-4d3d-8ec9-efc48c536a00"};
  bool seen[3] = {false, false, false};
  for (size_t i = 0; i < l.count; i++) {
    const hudi_log_delete_record *r = &l.records[i];
    for (int k = 0; k < 3; k++)
      if (str_eq(r->record_key, r->record_key_len, want[k])) seen[k] = true;
    assert_true(str_eq(r->partition_path, r->partition_path_len, "city=san_francisco"));
    /* Spark SQL deletes carry Java's default ordering value: Integer 0. */
    assert_int_equal(r->ordering.kind, HUDI_LOG_ORDERING_INT);
    assert_int_equal(r->ordering.v.i, 0);
  }
  assert_true(seen[0] && seen[1] && seen[2]);
  hudi_log_delete_list_free(&l);
  hudi_log_block_free(&b);
  free(file);
}

static void rollback_fixture_is_a_command_block(void **state) {
  (void)state;
  size_t len;
  hudi_log_block b;
  uint8_t *file = one_block(LOG_FILES "/valid_log_rollback/.0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_"
                            "20250126040823628.log.2_1-0-1", &b, &len);
  assert_int_equal(len, 105);
  assert_int_equal(b.length, 105);
  hudi_log_command cmd;
  assert_int_equal(hudi_log_command_block_read(&cmd, &b, "rollback", NULL), HUDI_OK);
  assert_string_equal(cmd.instant, "20250126040936578");
  assert_string_equal(cmd.target_instant, "20250126040826878");
  /* Our own rollback block for the same instants holds the same entries
   * (in ordinal order, where Java's HashMap put COMMAND_BLOCK_TYPE second). */
  hudi_log_meta h = HUDI_LOG_META_INIT;
  assert_int_equal(hudi_log_rollback_header(&h, cmd.instant, cmd.target_instant, NULL), HUDI_OK);
  hudi_buf out;
  hudi_buf_init(&out, 0);
  assert_int_equal(hudi_log_block_encode(&out, HUDI_LOG_BLOCK_COMMAND, &h, NULL, NULL, 0, NULL),
                   HUDI_OK);
  assert_int_equal(out.len, 105);
  assert_memory_equal(out.data, file, 26 + 8 + 17); /* through INSTANT_TIME */
  assert_memory_equal(out.data + 85, file + 85, 20);   /* after the header */
  hudi_buf_free(&out);
  hudi_log_meta_free(&h);
  hudi_log_block_free(&b);
  free(file);
}

static void avro_and_parquet_fixtures(void **state) {
  (void)state;
  size_t len;
  hudi_log_block b;
  uint8_t *file = one_block(LOG_FILES "/valid_log_avro_data/.ff32ab89-5ad0-4968-83b4-89a34c95d32f-0_"
                            "20250316025816068.log.1_0-54-122", &b, &len);
  assert_int_equal(b.type, HUDI_LOG_BLOCK_AVRO_DATA);
  assert_int_equal(b.length, 1172);
  assert_int_equal(hudi_log_be64(file + 6), 1158);
  assert_string_equal(hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_INSTANT_TIME, NULL),
                      "20250316025828811");
  hudi_log_avro_records it;
  assert_int_equal(hudi_log_avro_records_open(&it, b.content, (size_t)b.content_len,
                                              b.content_offset, "avro", NULL), HUDI_OK);
  assert_int_equal(it.count, 1);
  const uint8_t *d;
  size_t n;
  bool has;
  assert_int_equal(hudi_log_avro_records_next(&it, &d, &n, &has, NULL), HUDI_OK);
  assert_true(has);
  /* The record starts with _hoodie_commit_time = the block's instant. */
  assert_int_equal(d[0], 2);  /* union branch 1 (string) */
  assert_int_equal(d[1], 34); /* zigzag 17 */
  assert_memory_equal(d + 2, "20250316025828811", 17);
  hudi_log_block_free(&b);
  free(file);

  file = one_block(LOG_FILES "/valid_log_parquet_data/.ee2ace10-7667-40f5-9848-0a144b5ea064-0_"
                   "20250113230302428.log.1_0-188-387", &b, &len);
  assert_int_equal(b.type, HUDI_LOG_BLOCK_PARQUET_DATA);
  assert_int_equal(b.content_len, 4373);
  hudi_log_block_free(&b);
  free(file);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_fixture_log_file_round_trips),
      cmocka_unit_test(delete_fixture_holds_the_sql_deletes),
      cmocka_unit_test(rollback_fixture_is_a_command_block),
      cmocka_unit_test(avro_and_parquet_fixtures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
