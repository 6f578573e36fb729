/* One writer of the Hudi footer keys for appends, merges and compaction. */
#include "table/base_footer.h"

#include <string.h>

#include "base/buf.h"
#include "parquet/reader.h"
#include "parquet/writer.h"

static hudi_status bloom_keys(hudi_pq_writer *w, hudi_bloom *bloom, const char *min_key, size_t min_len,
                              const char *max_key, size_t max_len, hudi_error *err) {
  hudi_buf bl;
  hudi_buf_init(&bl, HUDI_BUF_DEFAULT_MAX);
  hudi_status st = hudi_bloom_finish(bloom, err);
  if (st == HUDI_OK) st = hudi_bloom_serialize(bloom, &bl, err);
  if (st == HUDI_OK) st = hudi_pq_writer_add_metadata(w, "org.apache.hudi.bloomfilter", bl.data, bl.len, err);
  if (st == HUDI_OK) st = hudi_pq_writer_add_metadata(w, "hoodie_bloom_filter_type_code", "DYNAMIC_V0", 10, err);
  if (st == HUDI_OK && min_key) st = hudi_pq_writer_add_metadata(w, "hoodie_min_record_key", min_key, min_len, err);
  if (st == HUDI_OK && min_key) st = hudi_pq_writer_add_metadata(w, "hoodie_max_record_key", max_key, max_len, err);
  hudi_buf_free(&bl);
  return st;
}

hudi_status hudi_base_footer_write(hudi_pq_writer *w, hudi_bloom *bloom, const char *min_key, size_t min_len,
                                   const char *max_key, size_t max_len, const char *avro_schema, hudi_error *err) {
  if (bloom) HUDI_TRY(bloom_keys(w, bloom, min_key, min_len, max_key, max_len, err));
  HUDI_TRY(hudi_pq_writer_add_metadata(w, "parquet.avro.schema", avro_schema, strlen(avro_schema), err));
  return hudi_pq_writer_add_metadata(w, "writer.model.name", "avro", 4, err);
}

bool hudi_base_footer_open(hudi_base_footer *f, hudi_storage *s, const char *path) {
  memset(f, 0, sizeof *f);
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  static const char *const cols[] = {"_hoodie_record_key"}; /* a projection reads no other column */
  o.columns = cols;
  o.n_columns = 1;
  hudi_error ignored = HUDI_ERROR_INIT;
  if (hudi_pq_reader_open(&f->r, s, path, &o, &ignored) != HUDI_OK) {
    hudi_error_clear(&ignored);
    f->r = NULL;
    return false;
  }
  f->bloom = hudi_pq_reader_kv(f->r, "org.apache.hudi.bloomfilter", &f->bloom_len);
  f->bloom_type = hudi_pq_reader_kv(f->r, "hoodie_bloom_filter_type_code", &f->bloom_type_len);
  f->min_key = hudi_pq_reader_kv(f->r, "hoodie_min_record_key", &f->min_len);
  f->max_key = hudi_pq_reader_kv(f->r, "hoodie_max_record_key", &f->max_len);
  f->num_rows = hudi_pq_reader_meta(f->r)->num_rows;
  return true;
}

void hudi_base_footer_close(hudi_base_footer *f) {
  hudi_pq_reader_free(f->r);
  memset(f, 0, sizeof *f);
}
