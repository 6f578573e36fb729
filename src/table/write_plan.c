/* Bulk-insert file sizing (write_plan.h). */
#include "table/write_plan.h"

size_t hudi_write_plan_sample_rows(size_t n, int64_t mem_per_row, int64_t max_file_size) {
  if (n == 0) return 0;
  if (mem_per_row < 1) mem_per_row = 1;
  /* In memory it fits one file: compressed it does too (the estimate
   * counts 4-byte offsets and whole values; Parquet encodes them smaller). */
  if ((int64_t)n <= max_file_size / mem_per_row) return 0;
  int64_t by_bytes = HUDI_WRITE_PLAN_SAMPLE_BYTES / mem_per_row;
  int64_t s = by_bytes < HUDI_WRITE_PLAN_SAMPLE_ROWS ? by_bytes : HUDI_WRITE_PLAN_SAMPLE_ROWS;
  if (s < HUDI_WRITE_PLAN_SAMPLE_MIN_ROWS) s = HUDI_WRITE_PLAN_SAMPLE_MIN_ROWS;
  return (size_t)s < n ? (size_t)s : n;
}

int64_t hudi_write_plan_estimate(size_t n, size_t sample_rows, int64_t sample_bytes) {
  if (sample_rows == 0 || sample_bytes <= 0) return 0;
  if (sample_rows >= n) return sample_bytes;
  /* Scaled in floating point: rows * bytes can pass 2^63. */
  double est = (double)sample_bytes / (double)sample_rows * (double)n;
  return est >= 9e18 ? (int64_t)9e18 : (int64_t)est;
}

size_t hudi_write_plan_files(size_t n, int64_t estimated_bytes, int64_t max_file_size) {
  if (n == 0) return 0;
  if (max_file_size < 1) max_file_size = 1;
  if (estimated_bytes <= max_file_size) return 1;
  int64_t files = estimated_bytes / max_file_size + (estimated_bytes % max_file_size != 0);
  return (uint64_t)files < n ? (size_t)files : n;
}

hudi_write_plan_layout hudi_write_plan_layout_for(size_t n, int64_t estimated_bytes, int64_t max_file_size,
                                                  int64_t small_file_limit) {
  hudi_write_plan_layout l = {hudi_write_plan_files(n, estimated_bytes, max_file_size), 0};
  double fill = HUDI_WRITE_PLAN_FILL * (double)max_file_size;
  /* One file, no limit, or full files that would be small too: even. */
  if (l.files < 2 || small_file_limit <= 0 || fill < (double)small_file_limit) return l;
  /* Even files of estimate / files bytes not (nearly) small: even. */
  if ((double)estimated_bytes / (double)l.files >= HUDI_WRITE_PLAN_LIMIT_MARGIN * (double)small_file_limit) return l;
  size_t rows = (size_t)(fill / (double)estimated_bytes * (double)n);
  /* The last file keeps at least one row. */
  if (rows == 0 || rows * (l.files - 1) >= n) return l;
  l.full_rows = rows;
  return l;
}
