/* The write path's index: where each incoming record key lives now
 * (hudi-write-semantics.md, indexing). One interface, several
 * implementations: the BLOOM index over the latest base files' footers
 * (index_bloom.c) and, later, the metadata table's record index. The index
 * is global: a key is looked up in every partition, so a record whose
 * partition value changes is found in its old partition and moved. */
#ifndef HUDI_TABLE_INDEX_H
#define HUDI_TABLE_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "table/table.h"

/* Where one key lives: partition ("" when non-partitioned) and file id,
 * borrowed from the index (valid until it is freed); partition NULL when
 * the key is in no file group of the latest snapshot. */
typedef struct hudi_index_loc {
  const char *partition;
  const char *file_id;
} hudi_index_loc;

typedef struct hudi_index hudi_index;

typedef struct hudi_index_ops {
  const char *name;
  /* out[i] = the location of keys[i] (lens[i] bytes, no NUL needed). */
  hudi_status (*lookup)(hudi_index *ix, hudi_index_loc *out, const char *const *keys, const size_t *lens,
                        size_t n, hudi_error *err);
  void (*free)(hudi_index *ix);
} hudi_index_ops;

struct hudi_index {
  const hudi_index_ops *ops;
  /* Statistics of the last lookup, for tests and tuning. */
  size_t files_considered, files_read, bloom_checks;
};

static inline hudi_status hudi_index_lookup(hudi_index *ix, hudi_index_loc *out, const char *const *keys,
                                            const size_t *lens, size_t n, hudi_error *err) {
  return ix->ops->lookup(ix, out, keys, lens, n, err);
}
static inline void hudi_index_free(hudi_index *ix) {
  if (ix) ix->ops->free(ix);
}

/* The BLOOM index of table t as its timeline stands (t must outlive it):
 * a key's candidates are the latest base files whose footer min/max record
 * keys bracket it and whose bloom filter may contain it; candidates are
 * confirmed by reading the _hoodie_record_key values of the file slice
 * (merged with its log files, so a key deleted in a log is absent). File
 * groups without a base file are always read. */
HUDI_NODISCARD hudi_status hudi_index_bloom_create(hudi_index **out, hudi_table *t, hudi_error *err);

/* Parses a footer bloom filter (the base64 text of
 * org.apache.hudi.bloomfilter) of type DYNAMIC_V0 or SIMPLE into b. */
struct hudi_bloom;
HUDI_NODISCARD hudi_status hudi_bloom_deserialize(struct hudi_bloom *b, const char *text, size_t len,
                                                  bool dynamic, hudi_error *err);

#endif
