/* Locating the footer: a Parquet file is "PAR1" <data> <footer>
 * <footer length, 4 bytes LE> "PAR1". */
#include <string.h>

#include "parquet/metadata.h"

hudi_status hudi_pq_footer_locate(size_t *footer_offset, size_t *footer_len, const uint8_t *tail, size_t tail_len,
                                  size_t file_size, hudi_error *err) {
  if (file_size < 12 || tail_len < 8 || tail_len > file_size)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet: file of %zu bytes is too small to hold a footer", file_size);
  const uint8_t *end = tail + tail_len - 8;
  if (memcmp(end + 4, "PARE", 4) == 0)
    return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "parquet: encrypted footers (PARE) are not supported");
  if (memcmp(end + 4, "PAR1", 4) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet: no PAR1 magic at byte offset %zu", file_size - 4);
  uint32_t n = (uint32_t)end[0] | (uint32_t)end[1] << 8 | (uint32_t)end[2] << 16 | (uint32_t)end[3] << 24;
  if ((size_t)n > file_size - 12)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "parquet: footer length %u at byte offset %zu exceeds the file size %zu", n, file_size - 8,
                        file_size);
  *footer_offset = file_size - 8 - n;
  *footer_len = n;
  return HUDI_OK;
}

hudi_status hudi_pq_file_meta_parse_file(hudi_pq_file_meta *out, hudi_pq_arena *arena, const uint8_t *file,
                                         size_t file_size, hudi_error *err) {
  if (file_size >= 4 && memcmp(file, "PAR1", 4) != 0)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "parquet: no PAR1 magic at byte offset 0");
  size_t off = 0, len = 0;
  HUDI_TRY(hudi_pq_footer_locate(&off, &len, file, file_size, file_size, err));
  return hudi_pq_file_meta_decode(out, arena, file + off, len, off, err);
}
