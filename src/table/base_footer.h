/* The key-value metadata Hudi writes into a base file's Parquet footer. */
#ifndef HUDI_TABLE_BASE_FOOTER_H
#define HUDI_TABLE_BASE_FOOTER_H

#include <stddef.h>

#include "base/error.h"
#include "table/bloom.h"

typedef struct hudi_pq_writer hudi_pq_writer;

/* Adds, in Java's order, the bloom filter, its type code and the min/max
 * record keys (HoodieBloomFilterWriteSupport: all four, or none when the
 * filter is off: bloom NULL; a held filter is sized first, hudi_bloom_finish),
 * then parquet.avro.schema and
 * writer.model.name. min_key NULL: no rows, so no key range. */
HUDI_NODISCARD hudi_status hudi_base_footer_write(hudi_pq_writer *w, hudi_bloom *bloom, const char *min_key,
                                                  size_t min_len, const char *max_key, size_t max_len,
                                                  const char *avro_schema, hudi_error *err);

#endif
