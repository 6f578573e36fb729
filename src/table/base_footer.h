/* The key-value metadata Hudi writes into a base file's Parquet footer. */
#ifndef HUDI_TABLE_BASE_FOOTER_H
#define HUDI_TABLE_BASE_FOOTER_H

#include <stddef.h>

#include "base/error.h"
#include "io/storage.h"
#include "table/bloom.h"

typedef struct hudi_pq_writer hudi_pq_writer;
typedef struct hudi_pq_reader hudi_pq_reader;

/* Adds, in Java's order, the bloom filter, its type code and the min/max
 * record keys (HoodieBloomFilterWriteSupport: all four, or none when the
 * filter is off: bloom NULL; a held filter is sized first, hudi_bloom_finish),
 * then parquet.avro.schema and
 * writer.model.name. min_key NULL: no rows, so no key range. */
HUDI_NODISCARD hudi_status hudi_base_footer_write(hudi_pq_writer *w, hudi_bloom *bloom, const char *min_key,
                                                  size_t min_len, const char *max_key, size_t max_len,
                                                  const char *avro_schema, hudi_error *err);

/* The Hudi keys of a base file's footer, read without its columns. The
 * strings point into the footer (not NUL-terminated), NULL when absent;
 * valid until hudi_base_footer_close. */
typedef struct hudi_base_footer {
  hudi_pq_reader *r;
  const char *bloom, *bloom_type, *min_key, *max_key;
  size_t bloom_len, bloom_type_len, min_len, max_len;
  int64_t num_rows;
} hudi_base_footer;

/* Opens path's footer; false when it cannot be read (the caller goes on
 * without it: a read of the file that follows reports the problem). */
bool hudi_base_footer_open(hudi_base_footer *f, hudi_storage *s, const char *path);
void hudi_base_footer_close(hudi_base_footer *f);

#endif
