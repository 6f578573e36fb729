/* The ArrowSchema metadata encoding: int32 count, then for each pair an
 * int32 key length, the key bytes, an int32 value length and the value
 * bytes, all integers in native byte order (C Data Interface spec). */
#ifndef HUDI_ARROW_METADATA_H
#define HUDI_ARROW_METADATA_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* One key/value pair; the pointers point into the encoded metadata (not
 * NUL-terminated) or into the caller's strings when encoding. */
typedef struct hudi_arrow_kv {
  const char *key;
  int32_t key_len;
  const char *value;
  int32_t value_len;
} hudi_arrow_kv;

/* Hard caps on what a schema may carry; the encoding has no overall length,
 * so counts and lengths are the only things that can be bounded. */
#define HUDI_ARROW_METADATA_MAX_PAIRS (1 << 16)
#define HUDI_ARROW_METADATA_MAX_BYTES ((size_t)1 << 28)

/* Walks encoded metadata (NULL means none) and returns its size in bytes
 * (0 for NULL) and number of pairs. HUDI_ERR_CORRUPT on negative lengths,
 * HUDI_ERR_LIMIT past the caps. */
HUDI_NODISCARD hudi_status hudi_arrow_metadata_size(size_t *size, int32_t *n_pairs,
                                                    const char *metadata, hudi_error *err);

/* Decodes metadata into *pairs (an array owned by the caller, free with
 * hudi_free; NULL when there are no pairs) pointing into `metadata`. */
HUDI_NODISCARD hudi_status hudi_arrow_metadata_parse(hudi_arrow_kv **pairs, int32_t *n_pairs,
                                                     const char *metadata, hudi_error *err);

/* Appends the encoding of n pairs to out. */
HUDI_NODISCARD hudi_status hudi_arrow_metadata_encode(hudi_buf *out, const hudi_arrow_kv *pairs,
                                                      int32_t n_pairs, hudi_error *err);

/* Finds key in encoded metadata: HUDI_OK with *value and *value_len set,
 * HUDI_ERR_NOT_FOUND when absent, or the parse error. */
HUDI_NODISCARD hudi_status hudi_arrow_metadata_find(const char **value, int32_t *value_len,
                                                    const char *metadata, const char *key,
                                                    hudi_error *err);

#endif
