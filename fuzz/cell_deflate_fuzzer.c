/* Fuzz target: cell-layout deflate of an HFile data block
 * (hfile/cell_deflate.h). It parses the cells' lengths out of whatever it
 * is given; whatever it writes, zlib must inflate back to exactly the
 * input, with nothing left over: with each block's own Huffman codes and
 * with codes shared from a sample (hudi_deflate_codes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/buf.h"
#include "hfile/cell_deflate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Deflates data (with codes, may be NULL) and checks zlib's inflate. */
static void one(const uint8_t *data, size_t size, const hudi_deflate_codes *codes) {
  hudi_buf out;
  hudi_buf_init(&out, HUDI_BUF_DEFAULT_MAX);
  if (!hudi_hfile_cell_deflate(data, size, codes, &out)) __builtin_trap(); /* only out of memory may fail */
  uint8_t *back = malloc(size + 1);
  if (!back) __builtin_trap();
  z_stream s;
  memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -15) != Z_OK) __builtin_trap();
  s.next_in = out.data;
  s.avail_in = (uInt)out.len;
  s.next_out = back;
  s.avail_out = (uInt)(size + 1);
  int rc = inflate(&s, Z_FINISH);
  if (rc != Z_STREAM_END || s.total_out != size || s.avail_in != 0 || (size && memcmp(back, data, size) != 0))
    __builtin_trap();
  inflateEnd(&s);
  free(back);
  hudi_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size, NULL);
  /* Shared codes sampled from the first half: the second half's symbols
   * may be missing from them (the block then builds its own). */
  hudi_deflate_counts c;
  memset(&c, 0, sizeof c);
  if (!hudi_hfile_cell_count(data, size / 2, &c)) __builtin_trap();
  hudi_deflate_codes *codes = hudi_deflate_codes_new(&c);
  if (!codes) __builtin_trap();
  one(data, size, codes);
  hudi_deflate_codes_free(codes);
  return 0;
}
