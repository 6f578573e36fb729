#include "hfile/block.h"

#include <string.h>
#include <zlib.h>

#include "codec/codec.h"
#include "codec/fast_deflate.h"
#include "hfile/cell_deflate.h"

static const char *known_magics[] = {HUDI_HFILE_MAGIC_DATA, HUDI_HFILE_MAGIC_META, HUDI_HFILE_MAGIC_ROOT,
                                     HUDI_HFILE_MAGIC_LEAF, HUDI_HFILE_MAGIC_INTERMEDIATE,
                                     HUDI_HFILE_MAGIC_FILE_INFO, "BLMFMET2", "BLMFBLK2", "DATABLKE"};

uint64_t hudi_hfile_checksum_bytes(uint64_t n, uint32_t bytes_per_checksum) {
  if (bytes_per_checksum == 0) return 0;
  return 4 * ((n + bytes_per_checksum - 1) / bytes_per_checksum);
}

static void printable_magic(char out[9], const uint8_t *p) {
  for (int i = 0; i < 8; i++) out[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? (char)p[i] : '?';
  out[8] = 0;
}

hudi_status hudi_hfile_block_header_parse(hudi_hfile_block_header *h, const uint8_t *p, size_t avail,
                                          uint64_t off, const char *file, hudi_error *err) {
  unsigned long long o = (unsigned long long)off;
  if (avail < HUDI_HFILE_HEADER_SIZE)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: block header at byte offset %llu truncated (%zu bytes left)",
                        file, o, avail);
  printable_magic(h->magic, p);
  int known = 0;
  for (size_t i = 0; i < sizeof known_magics / sizeof known_magics[0]; i++)
    if (memcmp(p, known_magics[i], 8) == 0) known = 1;
  if (!known)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: unknown block magic '%s' at byte offset %llu", file, h->magic,
                        o);
  h->on_disk_size_without_header = hudi_be32(p + 8);
  h->uncompressed_size_without_header = hudi_be32(p + 12);
  h->prev_block_offset = (int64_t)hudi_be64(p + 16);
  h->checksum_type = p[24];
  h->bytes_per_checksum = hudi_be32(p + 25);
  h->on_disk_data_size_with_header = hudi_be32(p + 29);
  if (h->on_disk_size_without_header > INT32_MAX || h->uncompressed_size_without_header > INT32_MAX ||
      h->on_disk_data_size_with_header > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s: negative size in %s block header at byte offset %llu", file,
                        h->magic, o);
  if ((uint64_t)h->on_disk_size_without_header > avail - HUDI_HFILE_HEADER_SIZE)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: %s block at byte offset %llu claims %u on-disk bytes but only %zu remain", file,
                        h->magic, o, h->on_disk_size_without_header, avail - HUDI_HFILE_HEADER_SIZE);
  if (h->on_disk_data_size_with_header < HUDI_HFILE_HEADER_SIZE ||
      h->on_disk_data_size_with_header - HUDI_HFILE_HEADER_SIZE > h->on_disk_size_without_header)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: %s block at byte offset %llu: onDiskDataSizeWithHeader %u outside [33, %u]", file,
                        h->magic, o, h->on_disk_data_size_with_header,
                        h->on_disk_size_without_header + HUDI_HFILE_HEADER_SIZE);
  if (h->uncompressed_size_without_header > HUDI_HFILE_MAX_BLOCK)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "%s: %s block at byte offset %llu decodes to %u bytes (cap %zu)",
                        file, h->magic, o, h->uncompressed_size_without_header, HUDI_HFILE_MAX_BLOCK);
  return HUDI_OK;
}

hudi_status hudi_hfile_block_decode(const hudi_hfile_block_header *h, const uint8_t *p, int gz, uint64_t off,
                                    const char *file, hudi_buf *payload, hudi_error *err) {
  /* The compressed payload ends where the checksums begin, which the
   * header states directly (onDiskDataSizeWithHeader). */
  size_t stored = h->on_disk_data_size_with_header - HUDI_HFILE_HEADER_SIZE;
  size_t usize = h->uncompressed_size_without_header;
  unsigned long long o = (unsigned long long)off;
  hudi_buf_reset(payload);
  if (!gz) {
    if (usize > stored)
      return hudi_err_set(err, HUDI_ERR_CORRUPT,
                          "%s: uncompressed %s block at byte offset %llu says %zu bytes but stores %zu", file,
                          h->magic, o, usize, stored);
    return hudi_buf_append(payload, p + HUDI_HFILE_HEADER_SIZE, usize, err);
  }
  /* deflate cannot expand more than ~1032:1; refuse to allocate beyond it. */
  if ((uint64_t)usize > (uint64_t)stored * 1032 + 64)
    return hudi_err_set(err, HUDI_ERR_CORRUPT,
                        "%s: %s block at byte offset %llu claims %zu bytes from %zu compressed", file, h->magic, o,
                        usize, stored);
  HUDI_TRY(hudi_buf_reserve(payload, usize ? usize : 1, err));
  hudi_status st =
      hudi_codec_decompress(HUDI_CODEC_GZIP, p + HUDI_HFILE_HEADER_SIZE, stored, payload->data, usize, err);
  if (st != HUDI_OK)
    return hudi_err_context(err, st, "%s: %s block at byte offset %llu", file, h->magic, o);
  payload->len = usize;
  return HUDI_OK;
}

hudi_status hudi_hfile_gzip(hudi_buf *out, const uint8_t *src, size_t len, hudi_fast_deflater *fast, bool cells,
                            const hudi_deflate_codes *codes, hudi_error *err) {
  static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0};
  size_t start = out->len;
  HUDI_TRY(hudi_buf_append(out, header, sizeof header, err));
  uint32_t c;
  if (fast && ((cells && hudi_hfile_cell_deflate(src, len, codes, out)) || hudi_fast_deflate_raw(fast, src, len, out))) {
    c = hudi_fast_crc32(0, src, len);
  } else {
    out->len = start + sizeof header;
    /* Raw deflate through the codec layer; the gzip framing is ours so the
     * header bytes match Java's (zlib's own gzip header says OS=unix). */
    HUDI_TRY(hudi_codec_compress(HUDI_CODEC_DEFLATE, 6, src, len, out, err));
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t done = 0;
    while (done < len) { /* crc32 takes a uInt length */
      size_t n = len - done > (1u << 30) ? (1u << 30) : len - done;
      crc = crc32(crc, src + done, (uInt)n);
      done += n;
    }
    c = (uint32_t)crc;
  }
  uint32_t isize = (uint32_t)len;
  uint8_t tail[8];
  for (int i = 0; i < 4; i++) {
    tail[i] = (uint8_t)(c >> (8 * i));
    tail[4 + i] = (uint8_t)(isize >> (8 * i));
  }
  return hudi_buf_append(out, tail, sizeof tail, err);
}

hudi_status hudi_hfile_block_encode(hudi_buf *out, const char *magic, const uint8_t *payload, size_t payload_len,
                                    int gz, int64_t prev_block_offset, hudi_error *err) {
  return hudi_hfile_block_encode_fast(out, magic, payload, payload_len, gz, prev_block_offset, NULL, NULL, err);
}

hudi_status hudi_hfile_block_encode_fast(hudi_buf *out, const char *magic, const uint8_t *payload,
                                         size_t payload_len, int gz, int64_t prev_block_offset,
                                         hudi_fast_deflater *fast, const hudi_deflate_codes *codes,
                                         hudi_error *err) {
  if (payload_len > HUDI_HFILE_MAX_BLOCK)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "HFile %s block of %zu bytes exceeds the cap %zu", magic, payload_len,
                        HUDI_HFILE_MAX_BLOCK);
  size_t start = out->len;
  HUDI_TRY(hudi_buf_append_zeros(out, HUDI_HFILE_HEADER_SIZE, err));
  if (gz) {
    HUDI_TRY(hudi_hfile_gzip(out, payload, payload_len, fast, gz == HUDI_HFILE_GZ_CELLS, codes, err));
  } else {
    HUDI_TRY(hudi_buf_append(out, payload, payload_len, err));
  }
  size_t stored = out->len - start - HUDI_HFILE_HEADER_SIZE;
  uint64_t data_with_header = HUDI_HFILE_HEADER_SIZE + (uint64_t)stored;
  uint64_t sums = hudi_hfile_checksum_bytes(data_with_header, HUDI_HFILE_BYTES_PER_CHECKSUM);
  if (stored + sums > INT32_MAX)
    return hudi_err_set(err, HUDI_ERR_LIMIT, "HFile %s block too large (%zu bytes)", magic, stored);
  HUDI_TRY(hudi_buf_append_zeros(out, (size_t)sums, err));
  uint8_t *h = out->data + start;
  memcpy(h, magic, 8);
  hudi_put_be32(h + 8, (uint32_t)(stored + sums));
  hudi_put_be32(h + 12, (uint32_t)payload_len);
  hudi_put_be64(h + 16, (uint64_t)prev_block_offset);
  h[24] = 0; /* checksum type NULL: the checksum bytes are zeros */
  hudi_put_be32(h + 25, HUDI_HFILE_BYTES_PER_CHECKSUM);
  hudi_put_be32(h + 29, (uint32_t)data_with_header);
  return HUDI_OK;
}

size_t hudi_hfile_vlong_read(const uint8_t *p, size_t avail, int64_t *out) {
  if (avail < 1) return 0;
  int8_t first = (int8_t)p[0];
  if (first >= -112) {
    *out = first;
    return 1;
  }
  int neg = first < -120;
  size_t n = (size_t)(neg ? -120 - first : -112 - first); /* data bytes, 1..8 */
  if (avail < n + 1) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v = (v << 8) | p[1 + i];
  *out = neg ? (int64_t)~v : (int64_t)v;
  return n + 1;
}

hudi_status hudi_hfile_vlong_write(hudi_buf *out, int64_t v, hudi_error *err) {
  if (v >= -112 && v <= 127) return hudi_buf_append_byte(out, (uint8_t)(int8_t)v, err);
  int len = -112;
  uint64_t u = (uint64_t)v;
  if (v < 0) {
    u = ~u;
    len = -120;
  }
  uint64_t tmp = u;
  while (tmp != 0) {
    tmp >>= 8;
    len--;
  }
  HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)(int8_t)len, err));
  int n = len < -120 ? -(len + 120) : -(len + 112);
  for (int i = n; i > 0; i--) HUDI_TRY(hudi_buf_append_byte(out, (uint8_t)(u >> (8 * (i - 1))), err));
  return HUDI_OK;
}
