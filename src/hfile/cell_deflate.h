/* Raw deflate of an HFile data block's key-values that finds its matches
 * from the cell layout instead of searching for them. A record-index block
 * is ~40 cells of [key length][value length][row length][row][family,
 * timestamp, type][value][mvcc]; everything but the row's random suffix
 * repeats an earlier cell: the lengths and the row's shared prefix the
 * previous cell (keys are sorted), the rest (timestamp, type and the value
 * naming the file group) the last cell with the same bytes there. A
 * general-purpose deflater spends ~4 ns per byte looking for exactly those
 * repeats (libdeflate level 1: ~215 MB/s, most of a bulk load's record-index
 * time); comparing the spans directly costs a fraction of that, and the
 * stream is an ordinary deflate stream that every inflater reads. */
#ifndef HUDI_HFILE_CELL_DEFLATE_H
#define HUDI_HFILE_CELL_DEFLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "codec/deflate_steps.h"

/* Appends the raw deflate stream (RFC 1951) of src, a data block payload,
 * to out, coded with `codes` where they serve (see deflate_steps.h; NULL:
 * the block's own). Bytes that do not parse as cells are coded as literals, so any
 * input gives a correct stream. False, out unchanged, when memory ran out,
 * out's cap would be passed or len exceeds UINT32_MAX / 2 (the caller then
 * uses another deflater). */
bool hudi_hfile_cell_deflate(const uint8_t *src, size_t len, const hudi_deflate_codes *codes, hudi_buf *out);

/* Adds the symbols hudi_hfile_cell_deflate would code for src to c (a
 * sample for hudi_deflate_codes_new). False when memory ran out or len
 * exceeds UINT32_MAX / 2. */
bool hudi_hfile_cell_count(const uint8_t *src, size_t len, hudi_deflate_counts *c);

#endif
