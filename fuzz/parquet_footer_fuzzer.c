/* Fuzzes Parquet file parsing: the footer, the schema tree and, with small
 * caps, every column chunk's pages (decompression, levels, values). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/column_reader.h"
#include "parquet/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena arena;
  hudi_pq_arena_init(&arena, (size_t)1 << 24);
  hudi_pq_file_meta m;
  hudi_pq_leaf *leaves;
  uint32_t nleaves;
  if (hudi_pq_file_meta_parse_file(&m, &arena, data, size, &err) == HUDI_OK &&
      hudi_pq_schema_leaves(&leaves, &nleaves, &m, &arena, &err) == HUDI_OK) {
    const hudi_pq_read_limits limits = {1 << 20, 1 << 22, 1 << 20};
    for (uint32_t g = 0; g < m.num_row_groups; g++) {
      const hudi_pq_row_group *rg = &m.row_groups[g];
      for (uint32_t i = 0; i < rg->num_columns && i < nleaves; i++) {
        size_t off, len;
        if (hudi_pq_column_chunk_range(&off, &len, &rg->columns[i], size, &err) != HUDI_OK) continue;
        hudi_pq_column_data d;
        hudi_pq_column_data_init(&d);
        if (hudi_pq_column_chunk_read(&d, &leaves[i], &rg->columns[i].meta, data + off, len, off, &limits, &err) ==
            HUDI_OK) {
          /* Values agree with the levels. */
          size_t defined = 0;
          const int16_t *def = (const int16_t *)(const void *)d.def_levels.data;
          for (size_t k = 0; k < d.num_levels; k++) defined += !leaves[i].max_def || def[k] == leaves[i].max_def;
          if (defined != d.num_values) abort();
        }
        hudi_pq_column_data_free(&d);
      }
    }
  }
  hudi_pq_arena_free(&arena);
  return 0;
}
