/* Log file names and ordering, the writer, delete-block encoding against
 * fastavro, recovery from damaged files as Java's HoodieLogFileReader
 * recovers, and allocation failures. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "table/log_avro_block.h"
#include "table/log_command_block.h"
#include "table/log_delete_block.h"
#include "table/log_file_name.h"
#include "table/log_reader.h"
#include "table/log_writer.h"
#include "../io/io_test.h"

/* ---- names ---------------------------------------------------------- */

static void parse_name(const char *s, hudi_log_file_name *n) {
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_log_file_name_parse(n, s, strlen(s), &err) != HUDI_OK) fail_msg("%s", err.message);
}

static void names_parse_as_java_matches_them(void **state) {
  (void)state;
  hudi_log_file_name n = HUDI_LOG_FILE_NAME_INIT;
  parse_name(".6e1d5cc4-94d3-4e3c-b4a5-7b1ecb7ebd4a-0_20251220210127080.log.1_0-1072-3078", &n);
  assert_string_equal(n.file_id, "6e1d5cc4-94d3-4e3c-b4a5-7b1ecb7ebd4a-0");
  assert_string_equal(n.instant, "20251220210127080");
  assert_string_equal(n.extension, "log");
  assert_int_equal(n.version, 1);
  assert_true(n.has_token);
  assert_string_equal(n.write_token, "0-1072-3078");
  assert_int_equal(n.task_partition_id, 0);
  assert_int_equal(n.stage_id, 1072);
  assert_int_equal(n.task_attempt_id, 3078);
  assert_string_equal(n.suffix, "");
  hudi_log_file_name_free(&n);

  /* Metadata-table ids contain '-'; the greedy id takes the last '_'. */
  parse_name(".record-index-0003-0_20260307162614221.log.12_1-203-484", &n);
  assert_string_equal(n.file_id, "record-index-0003-0");
  assert_int_equal(n.version, 12);
  hudi_log_file_name_free(&n);
  parse_name(".a_b_c_123.log.2", &n);
  assert_string_equal(n.file_id, "a_b_c");
  assert_string_equal(n.instant, "123");
  assert_false(n.has_token);
  assert_string_equal(n.write_token, "");
  hudi_log_file_name_free(&n);
  /* (.*) allows an empty instant; archive logs; CDC suffixes, old and new. */
  parse_name(".f_.log.1_1-0-1", &n);
  assert_string_equal(n.instant, "");
  hudi_log_file_name_free(&n);
  parse_name(".commits_.archive.3_1-0-1", &n);
  assert_string_equal(n.file_id, "commits");
  assert_string_equal(n.extension, "archive");
  hudi_log_file_name_free(&n);
  parse_name(".f1-0_20240101000000000.log.1_0-5-7.cdc", &n);
  assert_string_equal(n.suffix, ".cdc");
  assert_string_equal(n.write_token, "0-5-7");
  hudi_log_file_name_free(&n);
  parse_name(".f1-0_20240101000000000.log.1_0-5-7-cdc", &n);
  assert_string_equal(n.suffix, "-cdc");
  hudi_log_file_name_free(&n);

  const char *bad[] = {"f_1.log.1_0-1-2", ".f_1.log.x_0-1-2", ".f_1.log.1_0-1", ".f_1.parquet.1_0-1-2",
                       "._1.log.1_0-1-2", ".f1.log.1_0-1-2", ".f_1.log.1_0-1-2.cdcx",
                       ".f_1.log.1.cdc", "dir/.f_1.log.1_0-1-2",
                       ".f_1.log.1_0-1-2 ", ".f_1.log._0-1-2", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hudi_error err = HUDI_ERROR_INIT;
    if (hudi_log_file_name_parse(&n, bad[i], strlen(bad[i]), &err) == HUDI_OK)
      fail_msg("accepted '%s'", bad[i]);
    assert_int_equal(err.code, HUDI_ERR_INVALID_ARG);
    assert_false(hudi_log_file_name_matches(bad[i], strlen(bad[i])));
  }
  /* The pattern matches a version past int range, but Java's parseInt then
   * throws: matches, yet does not parse. */
  const char *big = ".f_1.log.99999999999_0-1-2";
  assert_true(hudi_log_file_name_matches(big, strlen(big)));
  assert_int_equal(hudi_log_file_name_parse(&n, big, strlen(big), NULL), HUDI_ERR_INVALID_ARG);
}

static void names_format_and_reject_ambiguous_parts(void **state) {
  (void)state;
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_log_write_token_format(&b, 3, 120, 456, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
  assert_string_equal((char *)b.data, "3-120-456");
  hudi_buf_reset(&b);
  assert_int_equal(hudi_log_file_name_format(&b, "fid-0", "20240101000000000", NULL, 3, "3-120-456",
                                             NULL, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
  assert_string_equal((char *)b.data, ".fid-0_20240101000000000.log.3_3-120-456");
  hudi_buf_reset(&b);
  assert_int_equal(hudi_log_file_name_format(&b, "fid-0", "1", NULL, 1, "0-1-2", HUDI_LOG_CDC_SUFFIX,
                                             NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
  assert_string_equal((char *)b.data, ".fid-0_1.log.1_0-1-2.cdc");
  hudi_buf_reset(&b);
  /* An instant with '_' would parse back differently; a bad token, a '/'. */
  assert_int_equal(hudi_log_file_name_format(&b, "f", "1_2", NULL, 1, "0-1-2", NULL, NULL),
                   HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_log_file_name_format(&b, "f", "1", NULL, 1, "0-1", NULL, NULL),
                   HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_log_file_name_format(&b, "a/f", "1", NULL, 1, "0-1-2", NULL, NULL),
                   HUDI_ERR_INVALID_ARG);
  assert_int_equal(hudi_log_file_name_format(&b, "", "1", NULL, 1, "0-1-2", NULL, NULL),
                   HUDI_ERR_INVALID_ARG);
  assert_int_equal(b.len, 0);
  hudi_buf_free(&b);
}

static int cmp_names(const void *a, const void *b) {
  return hudi_log_file_name_compare(a, b);
}

/* HoodieLogFile.LogFileComparator: instant, version, token (absent first,
 * then as strings: "10-..." before "9-..."), suffix. */
static void names_sort_as_java_orders_log_files(void **state) {
  (void)state;
  const char *sorted[] = {
      ".f_20240101000000000.log.1",         ".f_20240101000000000.log.1_0-1-2",
      ".f_20240101000000000.log.1_0-1-2.cdc", ".f_20240101000000000.log.1_10-0-0",
      ".f_20240101000000000.log.1_9-0-0",   ".f_20240101000000000.log.2_0-0-0",
      ".f_20240101000000000.log.10_0-0-0",  ".f_20240102000000000.log.1_0-0-0",
  };
  size_t n = sizeof sorted / sizeof sorted[0];
  hudi_log_file_name names[8];
  for (size_t i = 0; i < n; i++) parse_name(sorted[n - 1 - i], &names[i]);
  qsort(names, n, sizeof names[0], cmp_names);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  for (size_t i = 0; i < n; i++) {
    hudi_buf_reset(&b);
    assert_int_equal(hudi_log_file_name_format(&b, names[i].file_id, names[i].instant,
                                               names[i].extension, names[i].version,
                                               names[i].write_token, names[i].suffix, NULL),
                     HUDI_OK);
    assert_int_equal(hudi_buf_append_byte(&b, 0, NULL), HUDI_OK);
    assert_string_equal((char *)b.data, sorted[i]);
    hudi_log_file_name_free(&names[i]);
  }
  hudi_buf_free(&b);
}

/* ---- a small log file made by the writer ---------------------------- */

typedef struct built {
  hudi_buf file;
  uint64_t off[3], len[3];
} built;

static const char *SCHEMA_JSON =
    "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"k\",\"type\":\"string\"}]}";

static void build_file(built *f) {
  hudi_buf_init(&f->file, 0);
  hudi_log_meta h = HUDI_LOG_META_INIT;
  /* 1: rollback command block */
  assert_int_equal(hudi_log_rollback_header(&h, "20240102000000000", "20240101000000000", NULL),
                   HUDI_OK);
  f->off[0] = f->file.len;
  assert_int_equal(hudi_log_block_encode(&f->file, HUDI_LOG_BLOCK_COMMAND, &h, NULL, NULL, 0, NULL),
                   HUDI_OK);
  f->len[0] = f->file.len - f->off[0];
  hudi_log_meta_free(&h);
  /* 2: delete block */
  hudi_log_delete_record recs[2] = {
      {"key-1", 5, "p=1", 3, {HUDI_LOG_ORDERING_INT, {.i = 0}}},
      {"key-2", 5, NULL, 0, {HUDI_LOG_ORDERING_LONG, {.l = 1700000000000}}},
  };
  hudi_buf content;
  hudi_buf_init(&content, 0);
  assert_int_equal(hudi_log_delete_block_encode(&content, recs, 2, NULL), HUDI_OK);
  assert_int_equal(hudi_log_data_header(&h, "20240103000000000", SCHEMA_JSON, NULL), HUDI_OK);
  f->off[1] = f->file.len;
  assert_int_equal(hudi_log_block_encode(&f->file, HUDI_LOG_BLOCK_DELETE, &h, NULL, content.data,
                                         content.len, NULL), HUDI_OK);
  f->len[1] = f->file.len - f->off[1];
  /* 3: avro data block with two records (string k) */
  hudi_buf_reset(&content);
  hudi_log_avro_records_writer w;
  assert_int_equal(hudi_log_avro_records_begin(&w, &content, NULL), HUDI_OK);
  assert_int_equal(hudi_log_avro_records_add(&w, (const uint8_t *)"\x06" "abc", 4, NULL), HUDI_OK);
  assert_int_equal(hudi_log_avro_records_record_begin(&w, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(&content, "\x02" "z", 2, NULL), HUDI_OK);
  assert_int_equal(hudi_log_avro_records_record_end(&w, NULL), HUDI_OK);
  assert_int_equal(hudi_log_avro_records_finish(&w, NULL), HUDI_OK);
  f->off[2] = f->file.len;
  assert_int_equal(hudi_log_block_encode(&f->file, HUDI_LOG_BLOCK_AVRO_DATA, &h, NULL, content.data,
                                         content.len, NULL), HUDI_OK);
  f->len[2] = f->file.len - f->off[2];
  hudi_log_meta_free(&h);
  hudi_buf_free(&content);
}

typedef struct seen {
  int32_t type[16];
  uint64_t off[16], len[16];
  size_t n;
  hudi_status st;
  char msg[HUDI_ERROR_MESSAGE_MAX];
} seen;

static seen read_all(const uint8_t *data, size_t len) {
  seen s;
  memset(&s, 0, sizeof s);
  hudi_log_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_log_reader_open_memory(&r, data, len, "t.log", &err), HUDI_OK);
  for (;;) {
    hudi_log_block b;
    bool has;
    s.st = hudi_log_reader_next(r, &b, &has, &err);
    if (s.st != HUDI_OK) {
      snprintf(s.msg, sizeof s.msg, "%s", err.message);
      break;
    }
    if (!has) break;
    assert_true(s.n < 16);
    s.type[s.n] = b.type;
    s.off[s.n] = b.offset;
    s.len[s.n] = b.length;
    if (b.type == HUDI_LOG_BLOCK_CORRUPT) {
      assert_non_null(b.corrupt_reason);
      assert_int_equal(b.content_offset, b.offset + 6);
      assert_int_equal(b.content_len, b.length - 6);
      assert_ptr_equal(b.content, data + b.offset + 6);
    }
    s.n++;
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  return s;
}

static void writer_blocks_read_back(void **state) {
  (void)state;
  built f;
  build_file(&f);
  seen s = read_all(f.file.data, f.file.len);
  assert_int_equal(s.st, HUDI_OK);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.type[0], HUDI_LOG_BLOCK_COMMAND);
  assert_int_equal(s.type[1], HUDI_LOG_BLOCK_DELETE);
  assert_int_equal(s.type[2], HUDI_LOG_BLOCK_AVRO_DATA);
  /* The rollback block is the fixture's size: 105 bytes. */
  assert_int_equal(f.len[0], 105);

  hudi_log_reader *r = NULL;
  assert_int_equal(hudi_log_reader_open_memory(&r, f.file.data, f.file.len, "t", NULL), HUDI_OK);
  hudi_log_block b;
  bool has;
  assert_int_equal(hudi_log_reader_next(r, &b, &has, NULL), HUDI_OK);
  hudi_log_command cmd;
  assert_int_equal(hudi_log_command_block_read(&cmd, &b, "t", NULL), HUDI_OK);
  assert_string_equal(cmd.target_instant, "20240101000000000");
  hudi_log_block_free(&b);
  assert_int_equal(hudi_log_reader_next(r, &b, &has, NULL), HUDI_OK);
  hudi_log_delete_list l;
  assert_int_equal(hudi_log_delete_block_decode(&l, b.content, (size_t)b.content_len, 0, "t", NULL),
                   HUDI_OK);
  assert_int_equal(l.count, 2);
  assert_int_equal(l.records[1].ordering.kind, HUDI_LOG_ORDERING_LONG);
  assert_int_equal(l.records[1].ordering.v.l, 1700000000000);
  assert_null(l.records[1].partition_path);
  hudi_log_delete_list_free(&l);
  hudi_log_block_free(&b);
  assert_int_equal(hudi_log_reader_next(r, &b, &has, NULL), HUDI_OK);
  hudi_log_avro_records it;
  assert_int_equal(hudi_log_avro_records_open(&it, b.content, (size_t)b.content_len, 0, "t", NULL),
                   HUDI_OK);
  assert_int_equal(it.count, 2);
  const uint8_t *d;
  size_t n;
  assert_int_equal(hudi_log_avro_records_next(&it, &d, &n, &has, NULL), HUDI_OK);
  assert_int_equal(n, 4);
  assert_memory_equal(d, "\x06" "abc", 4);
  assert_int_equal(hudi_log_avro_records_next(&it, &d, &n, &has, NULL), HUDI_OK);
  assert_int_equal(n, 2);
  assert_int_equal(hudi_log_avro_records_next(&it, &d, &n, &has, NULL), HUDI_OK);
  assert_false(has);
  hudi_log_block_free(&b);
  hudi_log_reader_free(r);
  hudi_buf_free(&f.file);
}

static void writer_creates_new_versions_never_overwrites(void **state) {
  (void)state;
  built f;
  build_file(&f);
  char *dir = io_make_temp_dir();
  hudi_storage *s = NULL;
  hudi_storage_option opt = {"fsync", "false"};
  assert_int_equal(hudi_storage_open(&s, dir, &opt, 1, NULL), HUDI_OK);
  int32_t v = 0;
  assert_int_equal(hudi_log_file_next_version(s, "p=1", "fid-0", "20240101000000000", &v, NULL),
                   HUDI_OK);
  assert_int_equal(v, 1);
  hudi_buf path;
  hudi_buf_init(&path, 0);
  int32_t used = 0;
  assert_int_equal(hudi_log_file_create(s, "p=1", "fid-0", "20240101000000000", v, "0-1-2",
                                        f.file.data, f.file.len, &used, &path, NULL), HUDI_OK);
  assert_int_equal(used, 1);
  assert_int_equal(hudi_buf_append_byte(&path, 0, NULL), HUDI_OK);
  assert_string_equal((char *)path.data, "p=1/.fid-0_20240101000000000.log.1_0-1-2");
  /* The same name again rolls over to version 2; the first stays intact. */
  assert_int_equal(hudi_log_file_create(s, "p=1", "fid-0", "20240101000000000", 1, "0-1-2",
                                        f.file.data, 105, &used, NULL, NULL), HUDI_OK);
  assert_int_equal(used, 2);
  assert_int_equal(hudi_log_file_next_version(s, "p=1", "fid-0", "20240101000000000", &v, NULL),
                   HUDI_OK);
  assert_int_equal(v, 3);
  /* Another file group or instant does not count. */
  assert_int_equal(hudi_log_file_next_version(s, "p=1", "fid-1", "20240101000000000", &v, NULL),
                   HUDI_OK);
  assert_int_equal(v, 1);
  char full[4096];
  snprintf(full, sizeof full, "%s/p=1/.fid-0_20240101000000000.log.1_0-1-2", dir);
  FILE *fp = fopen(full, "rb");
  assert_non_null(fp);
  uint8_t *got = malloc(f.file.len + 1);
  assert_int_equal(fread(got, 1, f.file.len + 1, fp), f.file.len);
  fclose(fp);
  assert_memory_equal(got, f.file.data, f.file.len);
  free(got);
  /* The storage reader over the written file. */
  hudi_log_reader *r = NULL;
  assert_int_equal(hudi_log_reader_open(&r, s, "p=1/.fid-0_20240101000000000.log.2_0-1-2", NULL),
                   HUDI_OK);
  hudi_log_block b;
  bool has;
  assert_int_equal(hudi_log_reader_next(r, &b, &has, NULL), HUDI_OK);
  assert_true(has);
  assert_int_equal(b.type, HUDI_LOG_BLOCK_COMMAND);
  hudi_log_block_free(&b);
  assert_int_equal(hudi_log_reader_next(r, &b, &has, NULL), HUDI_OK);
  assert_false(has);
  hudi_log_reader_free(r);
  hudi_buf_free(&path);
  hudi_storage_free(s);
  io_rm_rf(dir);
  free(dir);
  hudi_buf_free(&f.file);
}

/* A header larger than the reader's first window (64 KiB) and a content
 * read lazily from storage. */
static void storage_reader_handles_large_headers(void **state) {
  (void)state;
  size_t big = 300000;
  char *schema = malloc(big + 1);
  memset(schema, 'x', big);
  schema[big] = '\0';
  hudi_log_meta h = HUDI_LOG_META_INIT;
  assert_int_equal(hudi_log_data_header(&h, "20240101000000000", schema, NULL), HUDI_OK);
  hudi_buf file;
  hudi_buf_init(&file, 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(hudi_log_block_encode(&file, HUDI_LOG_BLOCK_PARQUET_DATA, &h, NULL,
                                           (const uint8_t *)"PAR1....PAR1", 12, NULL), HUDI_OK);
  char *dir = io_make_temp_dir();
  io_put(dir, ".f_1.log.1_0-0-0", file.data, file.len);
  hudi_storage *s = NULL;
  assert_int_equal(hudi_storage_open(&s, dir, NULL, 0, NULL), HUDI_OK);
  hudi_log_reader *r = NULL;
  assert_int_equal(hudi_log_reader_open(&r, s, ".f_1.log.1_0-0-0", NULL), HUDI_OK);
  assert_int_equal(hudi_log_reader_size(r), file.len);
  for (int i = 0; i < 2; i++) {
    hudi_log_block b;
    bool has;
    hudi_error err = HUDI_ERROR_INIT;
    assert_int_equal(hudi_log_reader_next(r, &b, &has, &err), HUDI_OK);
    assert_int_equal(err.code, HUDI_OK);
    assert_true(has);
    assert_int_equal(b.type, HUDI_LOG_BLOCK_PARQUET_DATA);
    size_t len;
    const char *got = hudi_log_meta_get(&b.header, HUDI_LOG_HEADER_SCHEMA, &len);
    assert_int_equal(len, big);
    assert_memory_equal(got, schema, big);
    hudi_buf c;
    hudi_buf_init(&c, 0);
    assert_int_equal(hudi_log_reader_content(r, &b, &c, NULL), HUDI_OK);
    assert_int_equal(c.len, 12);
    assert_memory_equal(c.data, "PAR1....PAR1", 12);
    hudi_buf_free(&c);
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  hudi_storage_free(s);
  io_rm_rf(dir);
  free(dir);
  hudi_buf_free(&file);
  hudi_log_meta_free(&h);
  free(schema);
}

/* ---- damaged files -------------------------------------------------- */

/* Cut at every length: complete blocks read; a cut block with at least its
 * magic is one corrupt block to the end; fewer than 6 bytes are ignored. */
static void truncated_files_end_in_one_corrupt_block(void **state) {
  (void)state;
  built f;
  build_file(&f);
  for (size_t cut = 0; cut <= f.file.len; cut++) {
    seen s = read_all(f.file.data, cut);
    assert_int_equal(s.st, HUDI_OK);
    size_t complete = 0;
    uint64_t end = 0;
    for (int i = 0; i < 3; i++)
      if (f.off[i] + f.len[i] <= cut) complete = (size_t)i + 1, end = f.off[i] + f.len[i];
    size_t want = complete + (cut - end >= 6 ? 1 : 0);
    if (s.n != want) fail_msg("cut %zu: %zu blocks, want %zu", cut, s.n, want);
    for (size_t i = 0; i < complete; i++) assert_int_not_equal(s.type[i], HUDI_LOG_BLOCK_CORRUPT);
    if (want > complete) {
      assert_int_equal(s.type[complete], HUDI_LOG_BLOCK_CORRUPT);
      assert_int_equal(s.off[complete], end);
      assert_int_equal(s.len[complete], cut - end);
    }
  }
  hudi_buf_free(&f.file);
}

static void flipped_size_bytes_skip_to_the_next_block(void **state) {
  (void)state;
  built f;
  build_file(&f);
  for (int blk = 0; blk < 3; blk++) {
    for (int field = 0; field < 2; field++) {
      /* field 0: a byte of the size field; 1: a byte of the trailer */
      uint64_t at = field == 0 ? f.off[blk] + 6 + 5 : f.off[blk] + f.len[blk] - 2;
      for (int bit = 0; bit < 8; bit++) {
        uint8_t *d = malloc(f.file.len);
        memcpy(d, f.file.data, f.file.len);
        d[at] ^= (uint8_t)(1u << bit);
        seen s = read_all(d, f.file.len);
        assert_int_equal(s.st, HUDI_OK);
        assert_int_equal(s.n, 3);
        for (int i = 0; i < 3; i++) {
          assert_int_equal(s.off[i], f.off[i]);
          assert_int_equal(s.len[i], f.len[i]);
          if (i == blk) assert_int_equal(s.type[i], HUDI_LOG_BLOCK_CORRUPT);
          else assert_int_not_equal(s.type[i], HUDI_LOG_BLOCK_CORRUPT);
        }
        free(d);
      }
    }
  }
  hudi_buf_free(&f.file);
}

/* Garbage after block 1: Java finds no magic after block 1, so block 1 and
 * the garbage are one corrupt block; blocks 2 and 3 read normally. */
static void garbage_between_blocks_is_reported_with_the_block_before(void **state) {
  (void)state;
  built f;
  build_file(&f);
  const char junk[] = "garbage #HUD not a magic";
  size_t jl = sizeof junk - 1;
  size_t len = f.file.len + jl;
  uint8_t *d = malloc(len);
  uint64_t cut = f.off[1];
  memcpy(d, f.file.data, cut);
  memcpy(d + cut, junk, jl);
  memcpy(d + cut + jl, f.file.data + cut, f.file.len - cut);
  seen s = read_all(d, len);
  assert_int_equal(s.st, HUDI_OK);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.type[0], HUDI_LOG_BLOCK_CORRUPT);
  assert_int_equal(s.off[0], 0);
  assert_int_equal(s.len[0], f.len[0] + jl);
  assert_int_equal(s.type[1], HUDI_LOG_BLOCK_DELETE);
  assert_int_equal(s.off[1], f.off[1] + jl);
  assert_int_equal(s.type[2], HUDI_LOG_BLOCK_AVRO_DATA);
  /* A short tail after the last block (< 6 bytes) is ignored. */
  memcpy(d, f.file.data, f.file.len);
  memcpy(d + f.file.len, "xyz", 3);
  s = read_all(d, f.file.len + 3);
  assert_int_equal(s.n, 3);
  assert_int_not_equal(s.type[2], HUDI_LOG_BLOCK_CORRUPT);
  /* 6 or more bytes of it make the last block corrupt, as in Java. */
  memcpy(d + f.file.len, "xyzxyz", 6);
  s = read_all(d, f.file.len + 6);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.type[2], HUDI_LOG_BLOCK_CORRUPT);
  assert_int_equal(s.len[2], f.len[2] + 6);
  free(d);
  hudi_buf_free(&f.file);
}

static void unreadable_files_fail_naming_file_and_offset(void **state) {
  (void)state;
  built f;
  build_file(&f);
  /* No magic at the start: Java throws; so do we. */
  uint8_t *d = malloc(f.file.len);
  memcpy(d, f.file.data, f.file.len);
  d[0] = 'X';
  seen s = read_all(d, f.file.len);
  assert_int_equal(s.st, HUDI_ERR_CORRUPT);
  assert_non_null(strstr(s.msg, "t.log"));
  assert_non_null(strstr(s.msg, "byte 0"));
  /* A sound frame whose header length lies: the block passes the size and
   * trailer checks, then its own fields do not add up. */
  memcpy(d, f.file.data, f.file.len);
  d[f.off[1] + 22 + 4 + 4 + 3] = 0x7f; /* first header entry's length */
  s = read_all(d, f.file.len);
  assert_int_equal(s.st, HUDI_ERR_CORRUPT);
  assert_int_equal(s.n, 1);
  assert_non_null(strstr(s.msg, "t.log"));
  char want[64];
  snprintf(want, sizeof want, "block at byte %llu", (unsigned long long)f.off[1]);
  assert_non_null(strstr(s.msg, want));
  /* An unknown block type and a newer format version are unsupported. */
  memcpy(d, f.file.data, f.file.len);
  d[f.off[2] + 21] = 9;
  s = read_all(d, f.file.len);
  assert_int_equal(s.st, HUDI_ERR_UNSUPPORTED);
  memcpy(d, f.file.data, f.file.len);
  d[f.off[2] + 17] = 2;
  s = read_all(d, f.file.len);
  assert_int_equal(s.st, HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(s.msg, "version 2"));
  free(d);
  /* Empty files and files shorter than a magic have no blocks. */
  s = read_all((const uint8_t *)"#HUD", 4);
  assert_int_equal(s.st, HUDI_OK);
  assert_int_equal(s.n, 0);
  s = read_all(NULL, 0);
  assert_int_equal(s.n, 0);
  hudi_buf_free(&f.file);
}

static void delete_content_versions_and_lengths(void **state) {
  (void)state;
  hudi_log_delete_list l;
  hudi_error err = HUDI_ERROR_INIT;
  /* Kryo-era versions 1 and 2 are recognised and refused. */
  const uint8_t v2[] = {0, 0, 0, 2, 0, 0, 0, 2, 0xac, 0xed};
  assert_int_equal(hudi_log_delete_block_decode(&l, v2, sizeof v2, 100, "x.log", &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "Kryo"));
  const uint8_t v1[] = {0, 0, 0, 1, 0, 0, 0, 0};
  assert_int_equal(hudi_log_delete_block_decode(&l, v1, sizeof v1, 0, "x", NULL),
                   HUDI_ERR_UNSUPPORTED);
  /* Lengths past the content, negative lengths, counts past the data. */
  const uint8_t longer[] = {0, 0, 0, 3, 0, 0, 0, 9, 0};
  assert_int_equal(hudi_log_delete_block_decode(&l, longer, sizeof longer, 0, "x", NULL),
                   HUDI_ERR_CORRUPT);
  const uint8_t neg[] = {0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff, 0};
  assert_int_equal(hudi_log_delete_block_decode(&l, neg, sizeof neg, 0, "x", NULL), HUDI_ERR_CORRUPT);
  const uint8_t many[] = {0, 0, 0, 3, 0, 0, 0, 3, 0xfe, 0xff, 0x01};
  assert_int_equal(hudi_log_delete_block_decode(&l, many, sizeof many, 0, "x", NULL),
                   HUDI_ERR_CORRUPT);
  /* An empty list is the single byte 00 (metadata table init blocks). */
  const uint8_t empty[] = {0, 0, 0, 3, 0, 0, 0, 1, 0};
  assert_int_equal(hudi_log_delete_block_decode(&l, empty, sizeof empty, 0, "x", NULL), HUDI_OK);
  assert_int_equal(l.count, 0);
  hudi_log_delete_list_free(&l);
  /* The example RLI delete of the metadata-table spec (27 bytes). */
  const uint8_t rli[] = {0, 0, 0, 3, 0, 0, 0, 27, 0x02, 0x02, 0x0e, 'T', 'X', 'N', '-', '0', '0', '9',
                         0x02, 0x18, 'r', 'e', 'c', 'o', 'r', 'd', '_', 'i', 'n', 'd', 'e', 'x',
                         0x04, 0x00, 0x00};
  assert_int_equal(hudi_log_delete_block_decode(&l, rli, sizeof rli, 0, "x", NULL), HUDI_OK);
  assert_int_equal(l.count, 1);
  assert_int_equal(l.records[0].record_key_len, 7);
  assert_memory_equal(l.records[0].record_key, "TXN-009", 7);
  assert_int_equal(l.records[0].ordering.kind, HUDI_LOG_ORDERING_INT);
  hudi_buf b;
  hudi_buf_init(&b, 0);
  assert_int_equal(hudi_log_delete_block_encode(&b, l.records, l.count, NULL), HUDI_OK);
  assert_int_equal(b.len, sizeof rli);
  assert_memory_equal(b.data, rli, sizeof rli);
  hudi_buf_free(&b);
  hudi_log_delete_list_free(&l);
  /* ArrayWrapper (branch 12) is refused, with the reason. */
  const uint8_t arr[] = {0, 0, 0, 3, 0, 0, 0, 5, 0x02, 0x00, 0x00, 0x18, 0x00};
  assert_int_equal(hudi_log_delete_block_decode(&l, arr, sizeof arr, 0, "x", &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "ArrayWrapper"));
}

/* ---- fastavro cross-check of every orderingVal branch ---------------- */

static const char *PY =
    "import sys, io, json, fastavro\n"
    "NS='org.apache.hudi.avro.model'\n"
    "def W(n,t): return {'type':'record','name':n,'namespace':NS,'fields':[{'name':'value','type':t}]}\n"
    "branches=[W('BooleanWrapper','boolean'),W('IntWrapper','int'),W('LongWrapper','long'),\n"
    "  W('FloatWrapper','float'),W('DoubleWrapper','double'),W('BytesWrapper','bytes'),\n"
    "  W('StringWrapper','string'),W('DateWrapper','int'),\n"
    "  W('DecimalWrapper',{'type':'bytes','logicalType':'decimal','precision':30,'scale':15}),\n"
    "  W('TimeMicrosWrapper',{'type':'long','logicalType':'time-micros'}),\n"
    "  W('TimestampMicrosWrapper','long')]\n"
    "S={'type':'record','name':'HoodieDeleteRecordList','namespace':NS,'fields':[{'name':'deleteRecordList',\n"
    " 'type':{'type':'array','items':{'type':'record','name':'HoodieDeleteRecord','fields':[\n"
    "  {'name':'recordKey','type':['null','string'],'default':None},\n"
    "  {'name':'partitionPath','type':['null','string'],'default':None},\n"
    "  {'name':'orderingVal','type':['null']+branches,'default':None}]}}}]}\n"
    "P=fastavro.parse_schema(S)\n"
    "rec=fastavro.schemaless_reader(io.BytesIO(open(sys.argv[1],'rb').read()),P,return_record_name=True)\n"
    "out=[]\n"
    "for r in rec['deleteRecordList']:\n"
    "  o=r['orderingVal']\n"
    "  if o is None: out.append([r['recordKey'],r['partitionPath'],'null',None]); continue\n"
    "  name,v=o[0].split('.')[-1],o[1]['value']\n"
    "  if isinstance(v,bytes): v=v.hex()\n"
    "  elif name=='DecimalWrapper': v=str(int(v.scaleb(15)))\n"
    "  elif name=='TimeMicrosWrapper': v=((v.hour*60+v.minute)*60+v.second)*1000000+v.microsecond\n"
    "  elif isinstance(v,float): v=repr(v)\n"
    "  out.append([r['recordKey'],r['partitionPath'],name,v])\n"
    "json.dump(out,sys.stdout)\n"
    "# and fastavro's own encoding of the same records, for a byte comparison\n"
    "recs=[]\n"
    "for k,p,name,v in out:\n"
    "  if name=='null': o=None\n"
    "  else:\n"
    "    if name in ('BytesWrapper',): v=bytes.fromhex(v)\n"
    "    elif name=='DecimalWrapper':\n"
    "      import decimal; v=decimal.Decimal(int(v)).scaleb(-15)\n"
    "    elif name=='TimeMicrosWrapper':\n"
    "      import datetime; v=datetime.time(v//3600000000,(v//60000000)%60,(v//1000000)%60,v%1000000)\n"
    "    elif name in ('FloatWrapper','DoubleWrapper'): v=float(v)\n"
    "    o=(NS+'.'+name,{'value':v})\n"
    "  recs.append({'recordKey':k,'partitionPath':p,'orderingVal':o})\n"
    "b=io.BytesIO(); fastavro.schemaless_writer(b,P,{'deleteRecordList':recs})\n"
    "open(sys.argv[2],'wb').write(b.getvalue())\n";

static const char *python(void) {
  const char *p = getenv("HUDI_TEST_PYTHON");
  return p ? p : HUDI_SOURCE_DIR "/.venv/bin/python";
}

static void delete_list_matches_fastavro_on_every_branch(void **state) {
  (void)state;
  static const uint8_t dec[] = {0x0f, 0x42, 0x40};     /* 1000000 */
  static const uint8_t raw[] = {0x00, 0xff, 0x10};
  hudi_log_delete_record recs[] = {
      {"k0", 2, "p", 1, {HUDI_LOG_ORDERING_NULL, {.i = 0}}},
      {"k1", 2, NULL, 0, {HUDI_LOG_ORDERING_BOOLEAN, {.b = true}}},
      {"k2", 2, "p", 1, {HUDI_LOG_ORDERING_INT, {.i = -123456}}},
      {"k3", 2, "p", 1, {HUDI_LOG_ORDERING_LONG, {.l = INT64_C(-9000000000000)}}},
      {"k4", 2, "p", 1, {HUDI_LOG_ORDERING_FLOAT, {.f = 1.5f}}},
      {"k5", 2, "p", 1, {HUDI_LOG_ORDERING_DOUBLE, {.d = -2.25}}},
      {"k6", 2, "p", 1, {HUDI_LOG_ORDERING_BYTES, {.bytes = {raw, 3}}}},
      {"k7", 2, "p", 1, {HUDI_LOG_ORDERING_STRING, {.bytes = {(const uint8_t *)"zz", 2}}}},
      {"k8", 2, "p", 1, {HUDI_LOG_ORDERING_DATE, {.i = 19000}}},
      {"k9", 2, "p", 1, {HUDI_LOG_ORDERING_DECIMAL, {.bytes = {dec, 3}}}},
      {"k10", 3, "p", 1, {HUDI_LOG_ORDERING_TIME_MICROS, {.l = INT64_C(3723000004)}}},
      {"k11", 3, "p", 1, {HUDI_LOG_ORDERING_TIMESTAMP_MICROS, {.l = INT64_C(1700000000000001)}}},
      {NULL, 0, NULL, 0, {HUDI_LOG_ORDERING_LONG, {.l = 0}}},
  };
  const char *expect[] = {
      "[\"k0\", \"p\", \"null\", null]", "[\"k1\", null, \"BooleanWrapper\", true]",
      "[\"k2\", \"p\", \"IntWrapper\", -123456]", "[\"k3\", \"p\", \"LongWrapper\", -9000000000000]",
      "[\"k4\", \"p\", \"FloatWrapper\", \"1.5\"]", "[\"k5\", \"p\", \"DoubleWrapper\", \"-2.25\"]",
      "[\"k6\", \"p\", \"BytesWrapper\", \"00ff10\"]", "[\"k7\", \"p\", \"StringWrapper\", \"zz\"]",
      "[\"k8\", \"p\", \"DateWrapper\", 19000]", "[\"k9\", \"p\", \"DecimalWrapper\", \"1000000\"]",
      "[\"k10\", \"p\", \"TimeMicrosWrapper\", 3723000004]",
      "[\"k11\", \"p\", \"TimestampMicrosWrapper\", 1700000000000001]",
      "[null, null, \"LongWrapper\", 0]"};
  size_t n = sizeof recs / sizeof recs[0];
  hudi_buf datum;
  hudi_buf_init(&datum, 0);
  assert_int_equal(hudi_log_delete_list_encode_datum(&datum, recs, n, NULL), HUDI_OK);
  char dir[64] = "/tmp/h8-log-fastavro-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char in[128], out[128], script[128], cmd[1024];
  snprintf(in, sizeof in, "%s/ours.bin", dir);
  snprintf(out, sizeof out, "%s/theirs.bin", dir);
  snprintf(script, sizeof script, "%s/oracle.py", dir);
  FILE *fp = fopen(in, "wb");
  assert_int_equal(fwrite(datum.data, 1, datum.len, fp), datum.len);
  fclose(fp);
  fp = fopen(script, "w");
  fputs(PY, fp);
  fclose(fp);
  snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", python(), script, in, out);
  FILE *pp = popen(cmd, "r");
  assert_non_null(pp);
  char text[8192];
  size_t got = fread(text, 1, sizeof text - 1, pp);
  text[got] = '\0';
  int rc = pclose(pp);
  if (rc != 0) fail_msg("fastavro oracle failed (%s): %s", python(), text);
  json_error_t jerr;
  json_t *j = json_loads(text, 0, &jerr);
  assert_non_null(j);
  assert_int_equal(json_array_size(j), n);
  for (size_t i = 0; i < n; i++) {
    char *s = json_dumps(json_array_get(j, i), JSON_COMPACT | JSON_ENCODE_ANY);
    json_t *want = json_loads(expect[i], 0, &jerr);
    char *w = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
    if (strcmp(s, w) != 0) fail_msg("record %zu: fastavro read %s, want %s", i, s, w);
    free(s);
    free(w);
    json_decref(want);
  }
  json_decref(j);
  /* fastavro's encoding of the same records is byte-identical to ours, and
   * we decode it back to the same values. */
  size_t tl = 0;
  fp = fopen(out, "rb");
  assert_non_null(fp);
  uint8_t theirs[4096];
  tl = fread(theirs, 1, sizeof theirs, fp);
  fclose(fp);
  assert_int_equal(tl, datum.len);
  assert_memory_equal(theirs, datum.data, tl);
  hudi_buf content;
  hudi_buf_init(&content, 0);
  assert_int_equal(hudi_log_put_be32(&content, 3, NULL), HUDI_OK);
  assert_int_equal(hudi_log_put_be32(&content, (uint32_t)tl, NULL), HUDI_OK);
  assert_int_equal(hudi_buf_append(&content, theirs, tl, NULL), HUDI_OK);
  hudi_log_delete_list l;
  assert_int_equal(hudi_log_delete_block_decode(&l, content.data, content.len, 0, "fa", NULL),
                   HUDI_OK);
  assert_int_equal(l.count, n);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(l.records[i].ordering.kind, recs[i].ordering.kind);
    assert_int_equal(l.records[i].record_key_len, recs[i].record_key_len);
  }
  assert_true(l.records[4].ordering.v.f == 1.5f);
  assert_true(l.records[5].ordering.v.d == -2.25);
  assert_int_equal(l.records[3].ordering.v.l, INT64_C(-9000000000000));
  assert_memory_equal(l.records[9].ordering.v.bytes.p, dec, 3);
  hudi_log_delete_list_free(&l);
  hudi_buf_free(&content);
  hudi_buf_free(&datum);
  unlink(in);
  unlink(out);
  unlink(script);
  rmdir(dir);
}

/* ---- allocation failures -------------------------------------------- */

static hudi_status read_everything(const uint8_t *d, size_t len, size_t *blocks) {
  hudi_log_reader *r = NULL;
  hudi_status st = hudi_log_reader_open_memory(&r, d, len, "t", NULL);
  if (st != HUDI_OK) return st;
  *blocks = 0;
  for (;;) {
    hudi_log_block b;
    bool has;
    st = hudi_log_reader_next(r, &b, &has, NULL);
    if (st != HUDI_OK || !has) break;
    if (b.type == HUDI_LOG_BLOCK_DELETE) {
      hudi_log_delete_list l;
      st = hudi_log_delete_block_decode(&l, b.content, (size_t)b.content_len, 0, "t", NULL);
      if (st == HUDI_OK) hudi_log_delete_list_free(&l);
    }
    hudi_log_block_free(&b);
    if (st != HUDI_OK) break;
    (*blocks)++;
  }
  hudi_log_reader_free(r);
  return st;
}

static void allocation_failures_are_reported_without_leaks(void **state) {
  (void)state;
  built f;
  build_file(&f);
  for (long n = 0;; n++) {
    size_t blocks = 0;
    hudi_alloc_fail_after(n);
    hudi_status st = read_everything(f.file.data, f.file.len, &blocks);
    long used = hudi_alloc_fail_after(-1);
    if (st == HUDI_OK) {
      assert_int_equal(blocks, 3);
      assert_true(used <= n);
      break;
    }
    assert_int_equal(st, HUDI_ERR_NOMEM);
    assert_true(n < 1000);
  }
  for (long n = 0;; n++) {
    hudi_alloc_fail_after(n);
    built g;
    hudi_buf_init(&g.file, 0);
    hudi_log_meta h = HUDI_LOG_META_INIT;
    hudi_status st = hudi_log_data_header(&h, "1", SCHEMA_JSON, NULL);
    if (st == HUDI_OK) st = hudi_log_block_encode(&g.file, HUDI_LOG_BLOCK_AVRO_DATA, &h, NULL,
                                                  (const uint8_t *)"abc", 3, NULL);
    hudi_alloc_fail_after(-1);
    hudi_log_meta_free(&h);
    hudi_buf_free(&g.file);
    if (st == HUDI_OK) break;
    assert_int_equal(st, HUDI_ERR_NOMEM);
    assert_true(n < 100);
  }
  hudi_buf_free(&f.file);
}

/* The seed corpus of fuzz/log_fuzzer.c: small files made by the writer.
 * Regenerate with HUDI_WRITE_LOG_CORPUS=<dir>. */
static void write_seed_corpus_on_request(void **state) {
  (void)state;
  const char *dir = getenv("HUDI_WRITE_LOG_CORPUS");
  if (!dir) return;
  built f;
  build_file(&f);
  const char *names[] = {"three_blocks.log", "rollback.log", "delete.log", "avro.log"};
  uint64_t from[] = {0, f.off[0], f.off[1], f.off[2]};
  uint64_t len[] = {f.file.len, f.len[0], f.len[1], f.len[2]};
  for (int i = 0; i < 4; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fwrite(f.file.data + from[i], 1, (size_t)len[i], fp);
    fclose(fp);
  }
  hudi_buf_free(&f.file);
}

/* A block wrapped in place around its content is the block encode makes,
 * byte for byte, with and without a footer, content empty or large; a bad
 * type leaves the content as it was. */
static void wrap_in_place_equals_encode(void **state) {
  (void)state;
  hudi_log_meta h = HUDI_LOG_META_INIT, foot = HUDI_LOG_META_INIT;
  assert_int_equal(hudi_log_data_header(&h, "20240103000000000", SCHEMA_JSON, NULL), HUDI_OK);
  assert_int_equal(hudi_log_meta_append(&foot, HUDI_LOG_HEADER_INSTANT_TIME, "x", 1, NULL), HUDI_OK);
  const size_t sizes[] = {0, 1, 4096, 3u << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    for (int with_footer = 0; with_footer < 2; with_footer++) {
      uint8_t *content = malloc(sizes[i] + 1);
      assert_non_null(content);
      for (size_t k = 0; k < sizes[i]; k++) content[k] = (uint8_t)(k * 131 + i);
      hudi_buf want, got;
      hudi_buf_init(&want, HUDI_BUF_DEFAULT_MAX);
      hudi_buf_init(&got, HUDI_BUF_DEFAULT_MAX);
      assert_int_equal(hudi_log_block_encode(&want, HUDI_LOG_BLOCK_HFILE_DATA, &h, with_footer ? &foot : NULL,
                                             content, sizes[i], NULL),
                       HUDI_OK);
      assert_int_equal(hudi_buf_append(&got, content, sizes[i], NULL), HUDI_OK);
      hudi_error err = HUDI_ERROR_INIT;
      assert_int_equal(hudi_log_block_wrap(&got, HUDI_LOG_BLOCK_CORRUPT, &h, NULL, &err), HUDI_ERR_INVALID_ARG);
      assert_int_equal(got.len, sizes[i]);
      assert_true(sizes[i] == 0 || memcmp(got.data, content, sizes[i]) == 0);
      assert_int_equal(hudi_log_block_wrap(&got, HUDI_LOG_BLOCK_HFILE_DATA, &h, with_footer ? &foot : NULL, NULL),
                       HUDI_OK);
      assert_int_equal(got.len, want.len);
      assert_memory_equal(got.data, want.data, want.len);
      hudi_log_block b;
      memset(&b, 0, sizeof b);
      assert_int_equal(hudi_log_block_parse(&b, got.data, got.len, 0, "wrapped", NULL), HUDI_OK);
      assert_int_equal(b.content_len, sizes[i]);
      assert_true(sizes[i] == 0 || memcmp(b.content, content, sizes[i]) == 0);
      hudi_log_block_free(&b);
      hudi_buf_free(&want);
      hudi_buf_free(&got);
      free(content);
    }
  }
  hudi_log_meta_free(&h);
  hudi_log_meta_free(&foot);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(names_parse_as_java_matches_them),
      cmocka_unit_test(names_format_and_reject_ambiguous_parts),
      cmocka_unit_test(names_sort_as_java_orders_log_files),
      cmocka_unit_test(writer_blocks_read_back),
      cmocka_unit_test(writer_creates_new_versions_never_overwrites),
      cmocka_unit_test(storage_reader_handles_large_headers),
      cmocka_unit_test(truncated_files_end_in_one_corrupt_block),
      cmocka_unit_test(flipped_size_bytes_skip_to_the_next_block),
      cmocka_unit_test(garbage_between_blocks_is_reported_with_the_block_before),
      cmocka_unit_test(unreadable_files_fail_naming_file_and_offset),
      cmocka_unit_test(delete_content_versions_and_lengths),
      cmocka_unit_test(wrap_in_place_equals_encode),
      cmocka_unit_test(delete_list_matches_fastavro_on_every_branch),
      cmocka_unit_test(allocation_failures_are_reported_without_leaks),
      cmocka_unit_test(write_seed_corpus_on_request),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
