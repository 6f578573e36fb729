/* Assembly: the flat (levels, dense values) form of decoded column chunks
 * (parquet/column_reader.h) -> Arrow arrays, for any nesting depth.
 *
 * Each Arrow node is rebuilt from the levels of its first selected leaf:
 * entries that start a slot of the node (schema_arrow.h) give its length
 * and validity, list/map entries that start an element give its offsets;
 * leaves copy or convert their dense values into place. Struct children
 * and list elements must agree in count with their parent, whichever leaf
 * they come from (HUDI_ERR_CORRUPT otherwise), so inconsistent files never
 * produce out-of-bounds arrays.
 *
 * Arrays are written straight into Arrow buffers (hudi_malloc'd, freed by
 * the release callback): fixed-width columns without nulls are one memcpy.
 * A leaf whose window holds dictionary indices (column_reader.h dict_ids)
 * is gathered from the dictionary straight into its exactly sized buffers. */
#ifndef HUDI_PARQUET_ASSEMBLE_H
#define HUDI_PARQUET_ASSEMBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "hudi/arrow_abi.h"
#include "parquet/column_reader.h"
#include "parquet/schema_arrow.h"

/* Where a leaf's decoded chunk has been read up to. */
typedef struct hudi_pq_leaf_cursor {
  const hudi_pq_column_data *data; /* NULL for leaves not read */
  size_t level;                    /* next level entry (a row start) */
  size_t value;                    /* next dense value */
  size_t end;                      /* scratch: end of the current batch's entries */
  bool all_defined;                /* scratch: every def level in [level, end) is max_def */
} hudi_pq_leaf_cursor;

/* Checks that a decoded chunk's first entry starts a row. (That it holds
 * exactly its row group's rows is checked as batches are cut: too few is
 * found by hudi_pq_assemble, too many by the caller at the group's end.) */
HUDI_NODISCARD hudi_status hudi_pq_check_chunk_start(const hudi_pq_leaf *leaf, const hudi_pq_column_data *d,
                                                     hudi_error *err);

/* Assembles the next n_rows rows of node (a top-level column) into *out,
 * advancing the cursors of its selected leaves (cursors and leaves are
 * indexed by leaf number; selected NULL means all; a map's leaves must be
 * all selected or none). */
HUDI_NODISCARD hudi_status hudi_pq_assemble(struct ArrowArray *out, const hudi_pq_node *node, const bool *selected,
                                            hudi_pq_leaf_cursor *cursors, const hudi_pq_leaf *leaves, int64_t n_rows,
                                            hudi_error *err);

/* Faults in the whole pages of a fresh output buffer of n bytes that the
 * caller is about to fill (buffers of 64 KiB and more): one
 * MADV_POPULATE_WRITE call instead of a page fault per 4 KiB, ~5% of a
 * table read's CPU. Advice only: nothing happens on kernels before 5.14. */
void hudi_pq_prefault(void *p, size_t n);

/* A struct array (no nulls) of n_rows rows owning the given children,
 * which are moved into it (their release is taken over, also on failure). */
HUDI_NODISCARD hudi_status hudi_pq_struct_array(struct ArrowArray *out, struct ArrowArray *children, int64_t n,
                                                int64_t n_rows, hudi_error *err);

#endif
