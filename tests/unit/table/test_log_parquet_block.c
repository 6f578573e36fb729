/* PARQUET_DATA log blocks: the Spark-written fixture block decoded, then
 * re-encoded by our writer with its own header entries, and the two
 * compared part by part (block framing, header map bytes, empty footer,
 * Parquet codec and columns, every value); the content checks against
 * damaged framing; the format option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arrow/field.h"
#include "arrow/view.h"
#include "expr/value.h"
#include "parquet/reader.h"
#include "table/log_format.h"
#include "table/log_parquet_block.h"

#define FIXTURE                                                                                   \
  HUDI_SHARED_DIR "/fixtures/hudi-rs/crates/core/tests/data/log_files/valid_log_parquet_data/"  \
                  ".ee2ace10-7667-40f5-9848-0a144b5ea064-0_20250113230302428.log.1_0-188-387"

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

static void parse_one(hudi_log_block *b, const uint8_t *data, size_t len) {
  hudi_error err = HUDI_ERROR_INIT;
  assert_true(len >= 14);
  size_t size = (size_t)hudi_log_be64(data + 6) + 14;
  assert_true(size <= len);
  if (hudi_log_block_parse(b, data, size, 0, "test", &err) != HUDI_OK) fail_msg("%s", err.message);
}

/* Every value of the struct arrays a and b (same schema) is equal. */
static void assert_same_rows(const struct ArrowSchema *sa, const struct ArrowArray *a, const struct ArrowSchema *sb,
                             const struct ArrowArray *b) {
  hudi_arrow_view va, vb;
  memset(&va, 0, sizeof va);
  memset(&vb, 0, sizeof vb);
  assert_int_equal(hudi_arrow_view_init(&va, sa, a, NULL), HUDI_OK);
  assert_int_equal(hudi_arrow_view_init(&vb, sb, b, NULL), HUDI_OK);
  assert_int_equal(va.length, vb.length);
  assert_int_equal(va.n_children, vb.n_children);
  for (int64_t c = 0; c < va.n_children; c++) {
    for (int64_t i = 0; i < va.length; i++) {
      hudi_value x, y;
      hudi_value_from_view(&x, &va.children[c], hudi_arrow_view_struct_row(&va, i));
      hudi_value_from_view(&y, &vb.children[c], hudi_arrow_view_struct_row(&vb, i));
      assert_int_equal(x.is_null, y.is_null);
      if (!x.is_null) {
        assert_int_equal(x.cls, y.cls);
        assert_int_equal(hudi_value_cmp(&x, &y), 0);
      }
    }
  }
  hudi_arrow_view_clear(&va);
  hudi_arrow_view_clear(&vb);
}

static void fixture_block_reencodes_alike(void **state) {
  (void)state;
  hudi_error err = HUDI_ERROR_INIT;
  size_t flen;
  uint8_t *file = read_file(FIXTURE, &flen);
  assert_non_null(file);
  hudi_log_block fb;
  memset(&fb, 0, sizeof fb);
  parse_one(&fb, file, flen);
  /* The fixture: one PARQUET_DATA block, SCHEMA and INSTANT_TIME headers,
   * no footer entries, content = a whole Parquet file. */
  assert_int_equal(fb.type, HUDI_LOG_BLOCK_PARQUET_DATA);
  assert_int_equal(fb.length, flen);
  assert_int_equal(fb.header.count, 2);
  assert_int_equal(fb.footer.count, 0);
  size_t slen;
  const char *schema = hudi_log_meta_get(&fb.header, HUDI_LOG_HEADER_SCHEMA, &slen);
  assert_non_null(schema);
  assert_string_equal(hudi_log_meta_get(&fb.header, HUDI_LOG_HEADER_INSTANT_TIME, NULL), "20250113230424191");
  uint32_t foot = 0;
  assert_int_equal(hudi_log_parquet_check(fb.content, (size_t)fb.content_len, fb.content_offset, "f", &foot, &err),
                   HUDI_OK);
  assert_true(foot > 0 && foot < fb.content_len);

  hudi_pq_reader *fr = NULL;
  assert_int_equal(hudi_pq_reader_open_memory(&fr, fb.content, (size_t)fb.content_len, "fixture", NULL, &err),
                   HUDI_OK);
  const hudi_pq_file_meta *fm = hudi_pq_reader_meta(fr);
  assert_int_equal(fm->num_rows, 1);
  assert_int_equal(fm->num_row_groups, 1);
  assert_int_equal(fm->row_groups[0].num_columns, 11);
  assert_int_equal(fm->row_groups[0].columns[0].meta.codec, HUDI_PQ_CODEC_GZIP);
  /* Java writes no bloom filter or key range into a log block's file. */
  assert_null(hudi_pq_reader_kv(fr, "org.apache.hudi.bloomfilter", NULL));
  assert_null(hudi_pq_reader_kv(fr, "hoodie_min_record_key", NULL));
  struct ArrowArray rows;
  bool eof = false;
  assert_int_equal(hudi_pq_reader_next(fr, &rows, &eof, &err), HUDI_OK);
  assert_false(eof);
  struct ArrowSchema rs;
  memset(&rs, 0, sizeof rs);
  assert_int_equal(hudi_arrow_field_export(&rs, hudi_pq_reader_schema(fr), &err), HUDI_OK);
  const char *meta_names[5] = {"_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                               "_hoodie_partition_path", "_hoodie_file_name"};
  for (int i = 0; i < 5; i++) assert_string_equal(rs.children[i]->name, meta_names[i]);

  /* Re-encode with Hudi's default settings (gzip, as the fixture). */
  hudi_buf content, ours;
  hudi_buf_init(&content, HUDI_BUF_DEFAULT_MAX);
  hudi_buf_init(&ours, HUDI_BUF_DEFAULT_MAX);
  hudi_log_parquet_writer w;
  assert_int_equal(hudi_log_parquet_begin(&w, &content, &rs, NULL, &err), HUDI_OK);
  assert_int_equal(hudi_log_parquet_write(&w, &rows, true, &err), HUDI_OK);
  char *avro = calloc(1, slen + 1);
  memcpy(avro, schema, slen);
  assert_int_equal(hudi_log_parquet_finish(&w, avro, &err), HUDI_OK);
  hudi_log_parquet_writer_free(&w);
  assert_int_equal(w.rows, 1);
  assert_int_equal(hudi_log_block_encode(&ours, HUDI_LOG_BLOCK_PARQUET_DATA, &fb.header, NULL, content.data,
                                         content.len, &err), HUDI_OK);

  /* Framing: magic, version, type and the header map's bytes match the
   * fixture's; the size fields, the empty footer and the trailer add up. */
  size_t hdr = (size_t)hudi_log_meta_encoded_size(&fb.header);
  assert_memory_equal(ours.data, file, 6);
  assert_memory_equal(ours.data + 14, file + 14, 8 + hdr);
  assert_int_equal(hudi_log_be64(ours.data + 6), ours.len - 14);
  assert_int_equal(hudi_log_be64(ours.data + 22 + hdr), content.len);
  assert_int_equal(hudi_log_be32(ours.data + 30 + hdr + content.len), 0);
  assert_int_equal(hudi_log_be64(ours.data + ours.len - 8), ours.len - 8);
  /* The fixture's own framing, the same way. */
  assert_int_equal(hudi_log_be32(file + 30 + hdr + fb.content_len), 0);
  assert_int_equal(hudi_log_be64(file + flen - 8), flen - 8);

  hudi_log_block ob;
  memset(&ob, 0, sizeof ob);
  parse_one(&ob, ours.data, ours.len);
  assert_int_equal(ob.type, HUDI_LOG_BLOCK_PARQUET_DATA);
  assert_int_equal(ob.length, ours.len);
  assert_int_equal(ob.footer.count, 0);
  assert_int_equal(hudi_log_parquet_check(ob.content, (size_t)ob.content_len, ob.content_offset, "o", &foot, &err),
                   HUDI_OK);
  hudi_pq_reader *orr = NULL;
  assert_int_equal(hudi_pq_reader_open_memory(&orr, ob.content, (size_t)ob.content_len, "ours", NULL, &err), HUDI_OK);
  const hudi_pq_file_meta *om = hudi_pq_reader_meta(orr);
  assert_int_equal(om->num_rows, 1);
  assert_int_equal(om->row_groups[0].num_columns, 11);
  for (uint32_t c = 0; c < 11; c++) {
    const hudi_pq_column_meta *x = &fm->row_groups[0].columns[c].meta, *y = &om->row_groups[0].columns[c].meta;
    assert_int_equal(y->codec, HUDI_PQ_CODEC_GZIP);
    assert_int_equal(x->type, y->type);
    assert_int_equal(x->path_len, y->path_len);
    assert_string_equal(x->path_in_schema[0], y->path_in_schema[0]);
  }
  size_t kl;
  const char *kv = hudi_pq_reader_kv(orr, "parquet.avro.schema", &kl);
  assert_non_null(kv);
  assert_int_equal(kl, slen);
  assert_memory_equal(kv, schema, slen);
  assert_null(hudi_pq_reader_kv(orr, "org.apache.hudi.bloomfilter", NULL));
  assert_null(hudi_pq_reader_kv(orr, "hoodie_min_record_key", NULL));
  struct ArrowArray back;
  assert_int_equal(hudi_pq_reader_next(orr, &back, &eof, &err), HUDI_OK);
  assert_false(eof);
  struct ArrowSchema bs;
  memset(&bs, 0, sizeof bs);
  assert_int_equal(hudi_arrow_field_export(&bs, hudi_pq_reader_schema(orr), &err), HUDI_OK);
  assert_same_rows(&rs, &rows, &bs, &back);

  back.release(&back);
  bs.release(&bs);
  rows.release(&rows);
  rs.release(&rs);
  hudi_pq_reader_free(orr);
  hudi_pq_reader_free(fr);
  hudi_log_block_free(&ob);
  hudi_log_block_free(&fb);
  hudi_buf_free(&content);
  hudi_buf_free(&ours);
  free(avro);
  free(file);
}

static void damaged_content_is_reported(void **state) {
  (void)state;
  size_t flen;
  uint8_t *file = read_file(FIXTURE, &flen);
  assert_non_null(file);
  hudi_log_block fb;
  memset(&fb, 0, sizeof fb);
  parse_one(&fb, file, flen);
  size_t n = (size_t)fb.content_len;
  uint8_t *c = malloc(n);
  memcpy(c, fb.content, n);
  hudi_error err = HUDI_ERROR_INIT;
  uint32_t foot;
  /* Too short, wrong magic at either end, a footer length past the data. */
  assert_int_equal(hudi_log_parquet_check(c, 11, 100, "x.log", &foot, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "x.log"));
  assert_non_null(strstr(err.message, "byte 100"));
  assert_int_equal(hudi_log_parquet_check(NULL, 0, 0, NULL, &foot, &err), HUDI_ERR_CORRUPT);
  c[0] = 'X';
  assert_int_equal(hudi_log_parquet_check(c, n, 0, "x", &foot, &err), HUDI_ERR_CORRUPT);
  c[0] = 'P';
  c[n - 1] = 'X';
  assert_int_equal(hudi_log_parquet_check(c, n, 0, "x", &foot, &err), HUDI_ERR_CORRUPT);
  c[n - 1] = '1';
  uint8_t save[4];
  memcpy(save, c + n - 8, 4);
  c[n - 8] = 0xff, c[n - 7] = 0xff, c[n - 6] = 0, c[n - 5] = 0;
  assert_int_equal(hudi_log_parquet_check(c, n, 0, "x", &foot, &err), HUDI_ERR_CORRUPT);
  assert_non_null(strstr(err.message, "footer length"));
  memset(c + n - 8, 0, 4);
  assert_int_equal(hudi_log_parquet_check(c, n, 0, "x", &foot, &err), HUDI_ERR_CORRUPT);
  memcpy(c + n - 8, save, 4);
  assert_int_equal(hudi_log_parquet_check(c, n, 0, "x", &foot, &err), HUDI_OK);
  /* Every truncation of the content fails cleanly. */
  for (size_t k = 0; k < n; k += 7) {
    hudi_status st = hudi_log_parquet_check(c, k, 0, "x", &foot, NULL);
    if (st == HUDI_OK) {
      /* a cut that happens to end in PAR1 with a plausible length must still not crash the reader */
      hudi_pq_reader *r = NULL;
      if (hudi_pq_reader_open_memory(&r, c, k, "cut", NULL, NULL) == HUDI_OK) hudi_pq_reader_free(r);
    }
  }
  free(c);
  hudi_log_block_free(&fb);
  free(file);
}

static void format_option_parses(void **state) {
  (void)state;
  int32_t t = -1;
  hudi_error err = HUDI_ERROR_INIT;
  assert_int_equal(hudi_log_data_block_format_parse(&t, NULL, HUDI_LOG_BLOCK_PARQUET_DATA, &err), HUDI_OK);
  assert_int_equal(t, HUDI_LOG_BLOCK_PARQUET_DATA);
  assert_int_equal(hudi_log_data_block_format_parse(&t, "", HUDI_LOG_BLOCK_AVRO_DATA, &err), HUDI_OK);
  assert_int_equal(t, HUDI_LOG_BLOCK_AVRO_DATA);
  assert_int_equal(hudi_log_data_block_format_parse(&t, "AVRO", HUDI_LOG_BLOCK_PARQUET_DATA, &err), HUDI_OK);
  assert_int_equal(t, HUDI_LOG_BLOCK_AVRO_DATA);
  assert_int_equal(hudi_log_data_block_format_parse(&t, "parquet", HUDI_LOG_BLOCK_AVRO_DATA, &err), HUDI_OK);
  assert_int_equal(t, HUDI_LOG_BLOCK_PARQUET_DATA);
  assert_int_equal(hudi_log_data_block_format_parse(&t, "hfile", HUDI_LOG_BLOCK_AVRO_DATA, &err),
                   HUDI_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.message, "hoodie.logfile.data.block.format=hfile"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fixture_block_reencodes_alike),
      cmocka_unit_test(damaged_content_is_reported),
      cmocka_unit_test(format_option_parses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
