/* Fuzzes the log reader and the block contents. Invariants: blocks tile the
 * input from byte 0 (a tail shorter than a magic may be left over); every
 * sound block re-encodes to exactly its input bytes; delete contents that
 * decode re-encode to the same bytes; errors are only the data's fault.
 * The input's first line is also tried as a log file name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table/log_avro_block.h"
#include "table/log_command_block.h"
#include "table/log_delete_block.h"
#include "table/log_file_name.h"
#include "table/log_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int bad_status(hudi_status st) {
  return st != HUDI_ERR_CORRUPT && st != HUDI_ERR_UNSUPPORTED && st != HUDI_ERR_LIMIT;
}

static void check_delete(const hudi_log_block *b) {
  hudi_log_delete_list l;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_status st = hudi_log_delete_block_decode(&l, b->content, (size_t)b->content_len,
                                                b->content_offset, "fuzz", &err);
  if (st != HUDI_OK) {
    if (bad_status(st) || !err.message[0]) abort();
    return;
  }
  hudi_buf again;
  hudi_buf_init(&again, 0);
  if (hudi_log_delete_list_encode_datum(&again, l.records, l.count, NULL) != HUDI_OK) abort();
  /* A datum written as Java writes it (one array block, canonical varints,
   * booleans 0/1) re-encodes identically; others decode the same again. */
  hudi_log_delete_list l2;
  hudi_buf framed;
  hudi_buf_init(&framed, 0);
  if (hudi_log_delete_block_encode(&framed, l.records, l.count, NULL) != HUDI_OK) abort();
  if (hudi_log_delete_block_decode(&l2, framed.data, framed.len, 0, "again", NULL) != HUDI_OK) abort();
  if (l2.count != l.count) abort();
  for (size_t i = 0; i < l.count; i++)
    if (l2.records[i].ordering.kind != l.records[i].ordering.kind ||
        l2.records[i].record_key_len != l.records[i].record_key_len)
      abort();
  hudi_log_delete_list_free(&l2);
  hudi_buf_free(&framed);
  hudi_buf_free(&again);
  hudi_log_delete_list_free(&l);
}

static void check_avro(const hudi_log_block *b) {
  hudi_log_avro_records it;
  if (hudi_log_avro_records_open(&it, b->content, (size_t)b->content_len, 0, "fuzz", NULL) != HUDI_OK)
    return;
  const uint8_t *d;
  size_t n;
  bool has;
  while (hudi_log_avro_records_next(&it, &d, &n, &has, NULL) == HUDI_OK && has)
    if (d < b->content || d + n > b->content + b->content_len) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nl = memchr(data, '\n', size < 256 ? size : 256);
  size_t name_len = nl ? (size_t)(nl - data) : (size < 256 ? size : 256);
  hudi_log_file_name fn = HUDI_LOG_FILE_NAME_INIT;
  if (hudi_log_file_name_parse(&fn, (const char *)data, name_len, NULL) == HUDI_OK) {
    hudi_buf b;
    hudi_buf_init(&b, 0);
    if (hudi_log_file_name_format(&b, fn.file_id, fn.instant, fn.extension, fn.version,
                                  fn.write_token, fn.suffix, NULL) != HUDI_OK)
      abort();
    /* Leading zeros of the version do not survive (Java parses it as an
     * int too); everything else does. */
    hudi_log_file_name again = HUDI_LOG_FILE_NAME_INIT;
    if (hudi_log_file_name_parse(&again, (const char *)b.data, b.len, NULL) != HUDI_OK) abort();
    if (hudi_log_file_name_compare(&fn, &again) != 0 || strcmp(fn.file_id, again.file_id) != 0 ||
        strcmp(fn.extension, again.extension) != 0)
      abort();
    hudi_log_file_name_free(&again);
    hudi_buf_free(&b);
    hudi_log_file_name_free(&fn);
  }

  hudi_log_reader *r = NULL;
  if (hudi_log_reader_open_memory(&r, data, size, "fuzz", NULL) != HUDI_OK) abort();
  uint64_t end = 0;
  hudi_status st;
  for (;;) {
    hudi_log_block b;
    bool has = false;
    hudi_error err = HUDI_ERROR_INIT;
    st = hudi_log_reader_next(r, &b, &has, &err);
    if (st != HUDI_OK) {
      if (bad_status(st) || !err.message[0]) abort();
      break;
    }
    if (!has) {
      if (size - end >= 6) abort();
      break;
    }
    if (b.offset != end || b.length == 0 || b.offset + b.length > size) abort();
    end = b.offset + b.length;
    if (b.type != HUDI_LOG_BLOCK_CORRUPT) {
      hudi_buf out;
      hudi_buf_init(&out, 0);
      if (hudi_log_block_encode(&out, b.type, &b.header, &b.footer, b.content,
                                (size_t)b.content_len, NULL) != HUDI_OK)
        abort();
      if (out.len != b.length || memcmp(out.data, data + b.offset, out.len) != 0) abort();
      hudi_buf_free(&out);
      if (b.type == HUDI_LOG_BLOCK_DELETE) check_delete(&b);
      if (b.type == HUDI_LOG_BLOCK_AVRO_DATA) check_avro(&b);
      if (b.type == HUDI_LOG_BLOCK_COMMAND) {
        hudi_log_command c;
        if (hudi_log_command_block_read(&c, &b, "fuzz", NULL) == HUDI_OK && !c.target_instant) abort();
      }
    }
    hudi_log_block_free(&b);
  }
  hudi_log_reader_free(r);
  return 0;
}
