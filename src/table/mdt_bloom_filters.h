/* The bloom_filters partition of the metadata table
 * (hoodie.metadata.index.bloom.filter.enable, listed in
 * hoodie.table.metadata.partitions): one record per base file, keyed by
 * PartitionIndexID + FileIndexID (hudi_cs_file_key), whose
 * BloomFilterMetadata holds the file's footer bloom filter as its footer
 * holds it (the serialized text as bytes, its type code, the writing
 * instant, isDeleted false). Spark's BLOOM index reads them instead of
 * the footers with hoodie.bloom.index.use.metadata=true.
 *
 * What Spark 1.2 and 1.0.2 write, seen in
 * tests/interop/test_mdt_bloom_filters_engines.py: a record per new base
 * file of a commit (log files get none) in an HFILE_DATA block of the
 * file group the key hashes to (4 groups by default); a clean removes the
 * keys of the base files it deleted with DELETE blocks, as it does for
 * column_stats (clean_mdt.c). */
#ifndef HUDI_TABLE_MDT_BLOOM_FILTERS_H
#define HUDI_TABLE_MDT_BLOOM_FILTERS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "table/mdt_column_stats.h"

struct hudi_table;

/* Whether t lists bloom_filters among its metadata-table partitions. */
bool hudi_bf_listed(const struct hudi_table *t);

/* Whether hudi-c keeps t's bloom_filters current: listed, table version 8
 * or 9 (the metadata layout it writes), and the partition has its file
 * groups (reads storage). */
bool hudi_bf_maintains(const struct hudi_table *t);

/* Appends to out the bloom_filters records of the base files among files
 * (added, not deleted; log files have none), instant being the commit's,
 * each built with out->schema (set here to the table version's payload
 * schema when out has none). A base file whose footer has no bloom filter
 * gets no record (Hudi logs and skips it too). */
HUDI_NODISCARD hudi_status hudi_bf_commit_records(hudi_cs_records *out, struct hudi_table *t, const char *instant,
                                                  const hudi_mdt_file_change *files, size_t n_files,
                                                  hudi_error *err);

#endif
