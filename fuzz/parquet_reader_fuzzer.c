/* Fuzzes the whole Parquet reader: footer, schema mapping to Arrow, every
 * column chunk, assembly of nested arrays from levels, statistics, with
 * small caps and small batches. Every batch it produces is walked, so a
 * malformed array (offsets or lengths past its buffers) shows up under
 * ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every byte an array claims to have. */
static void walk(const struct ArrowArray *a, int depth) {
  if (depth > 64) abort();
  volatile uint8_t sink = 0;
  if (a->length < 0 || a->null_count < 0 || a->null_count > a->length) abort();
  for (int64_t b = 0; b < a->n_buffers; b++)
    if (a->buffers[b] && a->length > 0) sink ^= ((const uint8_t *)a->buffers[b])[0];
  for (int64_t c = 0; c < a->n_children; c++) walk(a->children[c], depth + 1);
  (void)sink;
}

static bool stats_filter(void *ctx, const hudi_pq_reader *r, uint32_t rg) {
  (void)ctx;
  for (uint32_t i = 0; i < hudi_pq_reader_num_leaves(r); i++) {
    hudi_pq_col_stats st;
    hudi_pq_reader_stats(&st, r, rg, i);
    if (st.has_min && st.has_max && hudi_pq_stat_compare(st.kind, &st.min, &st.max) > 0) return true;
  }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_pq_reader_options o = HUDI_PQ_READER_OPTIONS_INIT;
  o.batch_size = 3;
  o.filter = stats_filter;
  o.limits = (hudi_pq_read_limits){1 << 20, 1 << 22, 1 << 20};
  o.max_footer = 1 << 20;
  hudi_pq_reader *r = NULL;
  hudi_error err = HUDI_ERROR_INIT;
  if (hudi_pq_reader_open_memory(&r, data, size, "fuzz", &o, &err) != HUDI_OK) return 0;
  for (int n = 0; n < 10000; n++) {
    struct ArrowArray a;
    bool eof = false;
    if (hudi_pq_reader_next(r, &a, &eof, &err) != HUDI_OK || eof) break;
    walk(&a, 0);
    a.release(&a);
  }
  hudi_pq_reader_free(r);
  return 0;
}
