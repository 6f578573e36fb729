/* Fuzzes the Thrift compact reader through every Parquet metadata decoder
 * (FileMetaData, PageHeader, OffsetIndex, ColumnIndex) and the generic
 * skipper. Whatever decodes must re-encode, decode again, and re-encode to
 * the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/metadata.h"
#include "parquet/thrift.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef hudi_status (*encode_fn)(hudi_buf *, const void *, hudi_error *);
typedef hudi_status (*decode_fn)(void *, hudi_pq_arena *, const uint8_t *, size_t, hudi_error *);

static hudi_status dec_meta(void *o, hudi_pq_arena *a, const uint8_t *d, size_t n, hudi_error *e) {
  return hudi_pq_file_meta_decode(o, a, d, n, 0, e);
}
static hudi_status dec_page(void *o, hudi_pq_arena *a, const uint8_t *d, size_t n, hudi_error *e) {
  return hudi_pq_page_header_decode(o, NULL, a, d, n, 0, e);
}
static hudi_status dec_oi(void *o, hudi_pq_arena *a, const uint8_t *d, size_t n, hudi_error *e) {
  return hudi_pq_offset_index_decode(o, a, d, n, 0, e);
}
static hudi_status dec_ci(void *o, hudi_pq_arena *a, const uint8_t *d, size_t n, hudi_error *e) {
  return hudi_pq_column_index_decode(o, a, d, n, 0, e);
}
static hudi_status enc_meta(hudi_buf *b, const void *o, hudi_error *e) { return hudi_pq_file_meta_encode(b, o, e); }
static hudi_status enc_page(hudi_buf *b, const void *o, hudi_error *e) { return hudi_pq_page_header_encode(b, o, e); }
static hudi_status enc_oi(hudi_buf *b, const void *o, hudi_error *e) { return hudi_pq_offset_index_encode(b, o, e); }
static hudi_status enc_ci(hudi_buf *b, const void *o, hudi_error *e) { return hudi_pq_column_index_encode(b, o, e); }

static void round_trip(decode_fn dec, encode_fn enc, size_t obj_size, const uint8_t *data, size_t size) {
  union {
    hudi_pq_file_meta m;
    hudi_pq_page_header h;
    hudi_pq_offset_index oi;
    hudi_pq_column_index ci;
  } a, b;
  (void)obj_size;
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena arena;
  hudi_pq_arena_init(&arena, (size_t)1 << 24);
  if (dec(&a, &arena, data, size, &err) == HUDI_OK) {
    hudi_buf e1, e2;
    hudi_buf_init(&e1, 0);
    hudi_buf_init(&e2, 0);
    if (enc(&e1, &a, &err) != HUDI_OK) abort();
    if (dec(&b, &arena, e1.data, e1.len, &err) != HUDI_OK) abort();
    if (enc(&e2, &b, &err) != HUDI_OK) abort();
    if (e1.len != e2.len || memcmp(e1.data, e2.data, e1.len) != 0) abort();
    hudi_buf_free(&e1);
    hudi_buf_free(&e2);
  }
  hudi_pq_arena_free(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  round_trip(dec_meta, enc_meta, sizeof(hudi_pq_file_meta), data, size);
  round_trip(dec_page, enc_page, sizeof(hudi_pq_page_header), data, size);
  round_trip(dec_oi, enc_oi, sizeof(hudi_pq_offset_index), data, size);
  round_trip(dec_ci, enc_ci, sizeof(hudi_pq_column_index), data, size);
  hudi_thrift_reader r;
  hudi_thrift_reader_init(&r, data, size, 0, NULL);
  while (r.pos < r.len && hudi_thrift_skip(&r, HUDI_TT_STRUCT) == HUDI_OK) {
  }
  return 0;
}
