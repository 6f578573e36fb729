/* Fuzz target: commit metadata (Avro container or v6 JSON) and the other
 * timeline records. Whatever parses must write again (Avro and JSON) and
 * parse back. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "table/clean_plan.h"
#include "table/commit_metadata.h"
#include "table/compaction_plan.h"
#include "table/requested_replace.h"
#include "table/rollback_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void roundtrip_commit(const hudi_commit_metadata *m) {
  hudi_buf out;
  hudi_buf_init(&out, 0);
  static const uint8_t sync[16] = {0};
  hudi_commit_metadata *q = NULL;
  if (hudi_commit_metadata_to_avro(m, sync, &out, NULL) == HUDI_OK) {
    if (hudi_commit_metadata_parse_avro(&q, out.data, out.len, "re", NULL) != HUDI_OK) abort();
    hudi_commit_metadata_free(q);
  }
  out.len = 0;
  if (hudi_commit_metadata_to_json(m, &out, NULL) == HUDI_OK) {
    if (hudi_commit_metadata_parse_json(&q, out.data, out.len, hudi_commit_metadata_is_replace(m), "re", NULL) !=
        HUDI_OK)
      abort();
    hudi_commit_metadata_free(q);
  }
  hudi_buf_free(&out);
}

#define TRY_DOC(prefix)                                                       \
  do {                                                                        \
    prefix *d_ = NULL;                                                        \
    if (prefix##_parse(&d_, data, size, "fuzz", NULL) == HUDI_OK) {           \
      hudi_buf b_;                                                            \
      hudi_buf_init(&b_, 0);                                                  \
      if (prefix##_to_avro(d_, NULL, &b_, NULL) == HUDI_OK) {                 \
        prefix *e_ = NULL;                                                    \
        if (prefix##_parse(&e_, b_.data, b_.len, "re", NULL) != HUDI_OK) abort(); \
        prefix##_free(e_);                                                    \
      }                                                                       \
      hudi_buf_free(&b_);                                                     \
      prefix##_free(d_);                                                      \
    }                                                                         \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_commit_metadata *m = NULL;
  if (hudi_commit_metadata_parse(&m, data, size, size & 1, "fuzz", NULL) == HUDI_OK) {
    roundtrip_commit(m);
    hudi_commit_metadata_free(m);
  }
  if (size >= 4 && data[0] == 'O') {
    TRY_DOC(hudi_compaction_plan);
    TRY_DOC(hudi_cleaner_plan);
    TRY_DOC(hudi_clean_metadata);
    TRY_DOC(hudi_rollback_plan);
    TRY_DOC(hudi_rollback_metadata);
    TRY_DOC(hudi_requested_replace);
  }
  return 0;
}
