/* One writer of the Hudi footer keys for appends, merges and compaction. */
#include "table/base_footer.h"

#include <string.h>

#include "base/buf.h"
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
