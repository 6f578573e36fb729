/* libdeflate wrappers (see fast_deflate.h). libdeflate works on whole
 * buffers only, which is how Parquet pages and HFile blocks come. Its
 * (de)compressor state comes from libc malloc, not hudi_malloc: its
 * allocator hook is process-global and would reroute every other libdeflate
 * user in the process. A failed allocation here just means zlib does the
 * work, under hudi_malloc. */
#include "codec/fast_deflate.h"

#include <libdeflate.h>

#include "base/alloc.h"
#include "codec/thread_ctx.h"

/* gzip members back to back (RFC 1952 §2.2) concatenate their outputs. */
static bool inflate_gzip_members(struct libdeflate_decompressor *d, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_len) {
  size_t in_pos = 0, out_pos = 0;
  do {
    size_t used_in = 0, made = 0;
    enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, src + in_pos, src_len - in_pos, dst + out_pos,
                                                             dst_len - out_pos, &used_in, &made);
    if (r != LIBDEFLATE_SUCCESS || used_in == 0) return false;
    in_pos += used_in;
    out_pos += made;
  } while (in_pos < src_len);
  return out_pos == dst_len;
}

bool hudi_fast_inflate(hudi_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len) {
  if (dst_len == 0 || dst == NULL) return false; /* zlib's path handles the empty cases */
  if (codec == HUDI_CODEC_GZIP && (src_len < 18 || src[0] != 0x1f || src[1] != 0x8b)) return false;
  struct libdeflate_decompressor *d = hudi_codec_thread_inflater();
  if (!d) return false;
  bool ok;
  if (codec == HUDI_CODEC_GZIP) {
    ok = inflate_gzip_members(d, src, src_len, dst, dst_len);
  } else {
    size_t used_in = 0, made = 0;
    ok = libdeflate_deflate_decompress_ex(d, src, src_len, dst, dst_len, &used_in, &made) == LIBDEFLATE_SUCCESS &&
         used_in == src_len && made == dst_len;
  }
  return ok;
}

bool hudi_fast_gzip(int level, const uint8_t *src, size_t src_len, hudi_buf *out) {
  if (level == 0) level = 6;
  if (level < 1 || level > 12) return false; /* zlib reports the bad level */
  struct libdeflate_compressor *c = hudi_codec_thread_deflater(level);
  if (!c) return false;
  size_t bound = libdeflate_gzip_compress_bound(c, src_len);
  size_t room = out->max - out->len;
  bool done = false;
  if (hudi_buf_reserve(out, bound < room ? bound : room, NULL) == HUDI_OK) {
    size_t n = libdeflate_gzip_compress(c, src, src_len, out->data + out->len, out->cap - out->len);
    out->len += n;
    done = n > 0;
  }
  return done;
}

struct hudi_fast_deflater {
  struct libdeflate_compressor *c;
};

hudi_fast_deflater *hudi_fast_deflater_new(int level) {
  if (level < 0 || level > 12) return NULL;
  hudi_fast_deflater *d = hudi_malloc(sizeof *d);
  if (!d) return NULL;
  d->c = libdeflate_alloc_compressor(level);
  if (!d->c) {
    hudi_free(d);
    return NULL;
  }
  return d;
}

void hudi_fast_deflater_free(hudi_fast_deflater *d) {
  if (!d) return;
  libdeflate_free_compressor(d->c);
  hudi_free(d);
}

bool hudi_fast_deflate_raw(hudi_fast_deflater *d, const uint8_t *src, size_t src_len, hudi_buf *out) {
  size_t bound = libdeflate_deflate_compress_bound(d->c, src_len);
  size_t room = out->max - out->len;
  if (hudi_buf_reserve(out, bound < room ? bound : room, NULL) != HUDI_OK) return false;
  /* libdeflate returns 0 when the output does not fit, so a stream never
   * ends up cut short. */
  size_t n = libdeflate_deflate_compress(d->c, src, src_len, out->data + out->len, out->cap - out->len);
  out->len += n;
  return n > 0;
}

uint32_t hudi_fast_crc32(uint32_t crc, const uint8_t *src, size_t len) {
  return libdeflate_crc32(crc, src, len);
}
