/* Compression codecs over zlib (with libdeflate in front, fast_deflate.c), snappy, zstd and lz4. Every path bounds its
 * output: the exact size a format recorded, or the cap of the caller's
 * hudi_buf, so hostile input can neither overflow nor balloon memory. */
#include "codec/codec.h"

#include <limits.h>
#include <lz4.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/alloc.h"
#include "codec/fast_deflate.h"
#include "codec/thread_ctx.h"

const char *hudi_codec_name(hudi_codec codec) {
  switch (codec) {
    case HUDI_CODEC_NONE: return "none";
    case HUDI_CODEC_SNAPPY: return "snappy";
    case HUDI_CODEC_GZIP: return "gzip";
    case HUDI_CODEC_DEFLATE: return "deflate";
    case HUDI_CODEC_ZSTD: return "zstd";
    case HUDI_CODEC_LZ4_RAW: return "lz4_raw";
  }
  return "unknown";
}

static hudi_status unknown_codec(hudi_codec codec, hudi_error *err) {
  return hudi_err_set(err, HUDI_ERR_UNSUPPORTED, "unknown compression codec %d", (int)codec);
}

/* ---- zlib (gzip and raw deflate) ---------------------------------------- */

/* zlib's allocations go through our hook so failure injection reaches them. */
static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return hudi_malloc(hudi_mul_size(items, size));
}
static void zlib_free(voidpf opaque, voidpf p) {
  (void)opaque;
  hudi_free(p);
}

/* Window bits: gzip framing (+16) or raw (negative). Inflating gzip uses +32
 * (auto-detect) so zlib-framed data some old Parquet writers emitted reads too. */
static int inflate_window_bits(hudi_codec codec) { return codec == HUDI_CODEC_GZIP ? 15 + 32 : -15; }

static hudi_status inflate_begin(z_stream *zs, hudi_codec codec, hudi_error *err) {
  memset(zs, 0, sizeof *zs);
  zs->zalloc = zlib_alloc;
  zs->zfree = zlib_free;
  int rc = inflateInit2(zs, inflate_window_bits(codec));
  if (rc == Z_MEM_ERROR) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory starting %s", hudi_codec_name(codec));
  if (rc != Z_OK) return hudi_err_set(err, HUDI_ERR_INTERNAL, "inflateInit2 failed (%d)", rc);
  return HUDI_OK;
}

/* Feeds at most UINT_MAX input bytes at a time (zlib counts in uInt). */
static void zfeed(z_stream *zs, const uint8_t **src, size_t *left) {
  if (zs->avail_in == 0 && *left > 0) {
    uInt n = *left > UINT_MAX ? UINT_MAX : (uInt)*left;
    zs->next_in = (Bytef *)(uintptr_t)*src;
    zs->avail_in = n;
    *src += n;
    *left -= n;
  }
}

/* Inflates into out (growing it up to its cap), or into a fixed window when
 * fixed_len is set (then out->data is the window and out->max its size).
 * gzip input may hold several members back to back (RFC 1952 section 2.2):
 * each is inflated in turn. */
static hudi_status inflate_all(hudi_codec codec, const uint8_t *src, size_t src_len, hudi_buf *out,
                               int fixed, hudi_error *err) {
  z_stream zs;
  HUDI_TRY(inflate_begin(&zs, codec, err));
  size_t left = src_len;
  hudi_status st = HUDI_OK;
  for (;;) {
    zfeed(&zs, &src, &left);
    if (out->len == out->max) {
      /* Full: more output would exceed the size; probe with a 1-byte window. */
      uint8_t probe;
      zs.next_out = &probe;
      zs.avail_out = 1;
      int rc = inflate(&zs, Z_NO_FLUSH);
      if (zs.avail_out == 0) {
        st = fixed ? hudi_err_set(err, HUDI_ERR_CORRUPT, "%s data decodes to more than the expected %zu bytes",
                                  hudi_codec_name(codec), out->max)
                   : hudi_err_set(err, HUDI_ERR_LIMIT, "%s data decodes to more than the cap of %zu bytes",
                                  hudi_codec_name(codec), out->max);
        break;
      }
      if (rc == Z_STREAM_END) goto member_end;
      if (rc == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) goto truncated;
      if (rc != Z_OK) goto bad;
      continue;
    }
    if (!fixed) {
      size_t want = out->cap > out->len ? out->cap - out->len : 0;
      if (want == 0) {
        size_t grow = src_len < 16384 ? 16384 : src_len;
        if (grow > out->max - out->len) grow = out->max - out->len;
        st = hudi_buf_reserve(out, grow, err);
        if (st != HUDI_OK) break;
      }
    }
    size_t room = (fixed ? out->max : out->cap) - out->len;
    uInt avail = room > UINT_MAX ? UINT_MAX : (uInt)room;
    zs.next_out = out->data + out->len;
    zs.avail_out = avail;
    int rc = inflate(&zs, Z_NO_FLUSH);
    out->len += avail - zs.avail_out;
    if (rc == Z_OK) continue;
    if (rc == Z_STREAM_END) goto member_end;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && left == 0) goto truncated;
    if (rc == Z_BUF_ERROR) continue; /* no room this round; the loop adds some */
    if (rc == Z_MEM_ERROR) {
      st = hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory inflating %s data", hudi_codec_name(codec));
      break;
    }
    goto bad;
  member_end:
    zfeed(&zs, &src, &left);
    if (codec != HUDI_CODEC_GZIP || (zs.avail_in == 0 && left == 0)) {
      if (zs.avail_in != 0 || left != 0)
        st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s data has %zu bytes after the end of the stream",
                          hudi_codec_name(codec), (size_t)zs.avail_in + left);
      break;
    }
    if (inflateReset(&zs) != Z_OK) goto bad;
    continue;
  truncated:
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s data is truncated (%zu input bytes, %zu decoded)",
                      hudi_codec_name(codec), src_len, out->len);
    break;
  bad:
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "%s data is corrupt at input byte %zu: %s", hudi_codec_name(codec),
                      src_len - left - zs.avail_in, zs.msg ? zs.msg : "invalid stream");
    break;
  }
  inflateEnd(&zs);
  return st;
}

static hudi_status deflate_all(hudi_codec codec, int level, const uint8_t *src, size_t src_len, hudi_buf *out,
                               hudi_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = zlib_alloc;
  zs.zfree = zlib_free;
  int bits = codec == HUDI_CODEC_GZIP ? 15 + 16 : -15;
  int rc = deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY);
  if (rc == Z_MEM_ERROR) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory starting %s", hudi_codec_name(codec));
  if (rc != Z_OK) return hudi_err_set(err, HUDI_ERR_INVALID_ARG, "bad %s level %d", hudi_codec_name(codec), level);
  size_t left = src_len;
  hudi_status st = HUDI_OK;
  for (;;) {
    zfeed(&zs, &src, &left);
    if (out->cap - out->len < 256) {
      size_t grow = src_len / 2 + 4096;
      if (grow > out->max - out->len) grow = out->max - out->len;
      if (grow == 0) grow = 1; /* lets reserve report the cap */
      st = hudi_buf_reserve(out, grow, err);
      if (st != HUDI_OK) break;
    }
    size_t room = out->cap - out->len;
    uInt avail = room > UINT_MAX ? UINT_MAX : (uInt)room;
    zs.next_out = out->data + out->len;
    zs.avail_out = avail;
    rc = deflate(&zs, left == 0 ? Z_FINISH : Z_NO_FLUSH);
    out->len += avail - zs.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      st = hudi_err_set(err, HUDI_ERR_INTERNAL, "deflate failed (%d)", rc);
      break;
    }
  }
  deflateEnd(&zs);
  return st;
}

/* ---- zstd ------------------------------------------------------------------ */

static hudi_status zstd_unsized(const uint8_t *src, size_t src_len, hudi_buf *out, hudi_error *err) {
  ZSTD_DStream *ds = ZSTD_createDStream();
  if (!ds) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory starting zstd");
  ZSTD_inBuffer in = {src, src_len, 0};
  hudi_status st = HUDI_OK;
  size_t ret = 1;
  while (in.pos < in.size || ret != 0) {
    if (out->len == out->cap) {
      if (out->len == out->max) {
        /* Only more output, or an unfinished frame, can be pending here. */
        uint8_t probe;
        ZSTD_outBuffer p = {&probe, 1, 0};
        ret = ZSTD_decompressStream(ds, &p, &in);
        if (ZSTD_isError(ret)) goto bad;
        if (p.pos) {
          st = hudi_err_set(err, HUDI_ERR_LIMIT, "zstd data decodes to more than the cap of %zu bytes", out->max);
          break;
        }
        if (in.pos == in.size && ret != 0) goto truncated;
        continue;
      }
      size_t grow = src_len < 16384 ? 16384 : src_len * 2;
      if (grow > out->max - out->len) grow = out->max - out->len;
      st = hudi_buf_reserve(out, grow, err);
      if (st != HUDI_OK) break;
    }
    ZSTD_outBuffer o = {out->data, out->cap, out->len};
    size_t before_in = in.pos, before_out = o.pos;
    ret = ZSTD_decompressStream(ds, &o, &in);
    out->len = o.pos;
    if (ZSTD_isError(ret)) goto bad;
    /* No progress with room left and input gone: the frame is cut short. */
    if (ret != 0 && in.pos == in.size && in.pos == before_in && o.pos == before_out && o.pos < o.size)
      goto truncated;
    continue;
  truncated:
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "zstd data is truncated (%zu input bytes)", src_len);
    break;
  bad:
    st = hudi_err_set(err, HUDI_ERR_CORRUPT, "zstd data is corrupt near input byte %zu: %s", in.pos,
                      ZSTD_getErrorName(ret));
    break;
  }
  ZSTD_freeDStream(ds);
  return st;
}

/* ---- lz4 block --------------------------------------------------------- */

/* LZ4 blocks do not record their decoded size; one byte of input decodes to
 * at most 255 bytes of output, which bounds the search. */
static hudi_status lz4_unsized(const uint8_t *src, size_t src_len, hudi_buf *out, hudi_error *err) {
  if (src_len > INT_MAX) return hudi_err_set(err, HUDI_ERR_LIMIT, "lz4 block of %zu bytes is too large", src_len);
  size_t room = out->max - out->len;
  if (room > INT_MAX) room = INT_MAX;
  size_t bound = src_len * 255 + 16;
  size_t last = bound < room ? bound : room;
  size_t try = src_len * 4 + 64;
  for (;;) {
    if (try > last) try = last;
    if (out->cap - out->len < try) HUDI_TRY(hudi_buf_reserve(out, try, err));
    int r = LZ4_decompress_safe((const char *)src, (char *)out->data + out->len, (int)src_len, (int)try);
    if (r >= 0) {
      out->len += (size_t)r;
      return HUDI_OK;
    }
    if (try == last) break;
    try *= 2;
  }
  if (last < bound) {
    /* A partial decode that fills the whole window means the data is larger than the cap. */
    int r = LZ4_decompress_safe_partial((const char *)src, (char *)out->data + out->len, (int)src_len, (int)last,
                                        (int)last);
    if (r >= 0 && (size_t)r == last)
      return hudi_err_set(err, HUDI_ERR_LIMIT, "lz4 data decodes to more than the cap of %zu bytes", out->max);
  }
  return hudi_err_set(err, HUDI_ERR_CORRUPT, "lz4 block of %zu bytes is corrupt", src_len);
}

/* ---- entry points ------------------------------------------------------ */

hudi_status hudi_codec_decompress(hudi_codec codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                                  size_t dst_len, hudi_error *err) {
  switch (codec) {
    case HUDI_CODEC_NONE:
      if (src_len != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "uncompressed data has %zu bytes, expected %zu", src_len, dst_len);
      if (dst_len) memcpy(dst, src, dst_len);
      return HUDI_OK;
    case HUDI_CODEC_SNAPPY: {
      size_t n;
      if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "snappy data has no valid length header");
      if (n != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "snappy data decodes to %zu bytes, expected %zu", n, dst_len);
      size_t got = dst_len;
      uint8_t dummy;
      if (snappy_uncompress((const char *)src, src_len, (char *)(dst ? dst : &dummy), &got) != SNAPPY_OK ||
          got != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "snappy data of %zu bytes is corrupt", src_len);
      return HUDI_OK;
    }
    case HUDI_CODEC_GZIP:
    case HUDI_CODEC_DEFLATE: {
      if (hudi_fast_inflate(codec, src, src_len, dst, dst_len)) return HUDI_OK;
      uint8_t dummy;
      hudi_buf window = {dst ? dst : &dummy, 0, dst_len, dst_len};
      HUDI_TRY(inflate_all(codec, src, src_len, &window, 1, err));
      if (window.len != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "%s data decodes to %zu bytes, expected %zu",
                            hudi_codec_name(codec), window.len, dst_len);
      return HUDI_OK;
    }
    case HUDI_CODEC_ZSTD: {
      uint8_t dummy;
      ZSTD_DCtx *zd = hudi_codec_thread_zstd_d();
      size_t r = zd ? ZSTD_decompressDCtx(zd, dst ? dst : &dummy, dst_len, src, src_len)
                    : ZSTD_decompress(dst ? dst : &dummy, dst_len, src, src_len);
      if (ZSTD_isError(r))
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "zstd data of %zu bytes does not decode to %zu bytes: %s",
                            src_len, dst_len, ZSTD_getErrorName(r));
      if (r != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "zstd data decodes to %zu bytes, expected %zu", r, dst_len);
      return HUDI_OK;
    }
    case HUDI_CODEC_LZ4_RAW: {
      if (src_len > INT_MAX || dst_len > INT_MAX)
        return hudi_err_set(err, HUDI_ERR_LIMIT, "lz4 block of %zu -> %zu bytes is too large", src_len, dst_len);
      uint8_t dummy;
      int r = LZ4_decompress_safe((const char *)src, (char *)(dst ? dst : &dummy), (int)src_len, (int)dst_len);
      if (r < 0 || (size_t)r != dst_len)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "lz4 block of %zu bytes does not decode to %zu bytes", src_len,
                            dst_len);
      return HUDI_OK;
    }
  }
  return unknown_codec(codec, err);
}

hudi_status hudi_codec_decompress_unsized(hudi_codec codec, const uint8_t *src, size_t src_len, hudi_buf *out,
                                          hudi_error *err) {
  switch (codec) {
    case HUDI_CODEC_NONE: return hudi_buf_append(out, src, src_len, err);
    case HUDI_CODEC_SNAPPY: {
      size_t n;
      if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "snappy data has no valid length header");
      /* A snappy byte decodes to at most ~64 bytes: a larger header is a lie. */
      if (n / 64 > src_len + 16)
        return hudi_err_set(err, HUDI_ERR_CORRUPT, "snappy length header %zu is impossible for %zu bytes", n,
                            src_len);
      HUDI_TRY(hudi_buf_reserve(out, n, err));
      HUDI_TRY(hudi_codec_decompress(codec, src, src_len, out->data + out->len, n, err));
      out->len += n;
      return HUDI_OK;
    }
    case HUDI_CODEC_GZIP:
    case HUDI_CODEC_DEFLATE: return inflate_all(codec, src, src_len, out, 0, err);
    case HUDI_CODEC_ZSTD: return zstd_unsized(src, src_len, out, err);
    case HUDI_CODEC_LZ4_RAW: return lz4_unsized(src, src_len, out, err);
  }
  return unknown_codec(codec, err);
}

hudi_status hudi_codec_compress(hudi_codec codec, int level, const uint8_t *src, size_t src_len, hudi_buf *out,
                                hudi_error *err) {
  switch (codec) {
    case HUDI_CODEC_NONE: return hudi_buf_append(out, src, src_len, err);
    case HUDI_CODEC_SNAPPY: {
      size_t n = snappy_max_compressed_length(src_len);
      HUDI_TRY(hudi_buf_reserve(out, n, err));
      if (snappy_compress((const char *)src, src_len, (char *)out->data + out->len, &n) != SNAPPY_OK)
        return hudi_err_set(err, HUDI_ERR_INTERNAL, "snappy_compress failed");
      out->len += n;
      return HUDI_OK;
    }
    case HUDI_CODEC_GZIP:
      /* libdeflate for gzip (Parquet pages); raw deflate stays zlib's, whose
       * bytes match Java's (HFile blocks re-encode byte for byte). */
      if (hudi_fast_gzip(level, src, src_len, out)) return HUDI_OK;
      return deflate_all(codec, level, src, src_len, out, err);
    case HUDI_CODEC_DEFLATE: return deflate_all(codec, level, src, src_len, out, err);
    case HUDI_CODEC_ZSTD: {
      size_t n = ZSTD_compressBound(src_len);
      if (ZSTD_isError(n)) return hudi_err_set(err, HUDI_ERR_LIMIT, "%zu bytes are too many for zstd", src_len);
      HUDI_TRY(hudi_buf_reserve(out, n, err));
      ZSTD_CCtx *zc = hudi_codec_thread_zstd_c();
      int lv = level ? level : ZSTD_CLEVEL_DEFAULT;
      size_t r = zc ? ZSTD_compressCCtx(zc, out->data + out->len, n, src, src_len, lv)
                    : ZSTD_compress(out->data + out->len, n, src, src_len, lv);
      if (ZSTD_isError(r)) return hudi_err_set(err, HUDI_ERR_INTERNAL, "zstd compress failed: %s", ZSTD_getErrorName(r));
      out->len += r;
      return HUDI_OK;
    }
    case HUDI_CODEC_LZ4_RAW: {
      if (src_len > LZ4_MAX_INPUT_SIZE)
        return hudi_err_set(err, HUDI_ERR_LIMIT, "%zu bytes are too many for one lz4 block", src_len);
      int n = LZ4_compressBound((int)src_len);
      HUDI_TRY(hudi_buf_reserve(out, (size_t)n, err));
      int r = LZ4_compress_default((const char *)src, (char *)out->data + out->len, (int)src_len, n);
      if (r <= 0 && src_len > 0) return hudi_err_set(err, HUDI_ERR_INTERNAL, "lz4 compress failed");
      out->len += (size_t)(r < 0 ? 0 : r);
      return HUDI_OK;
    }
  }
  return unknown_codec(codec, err);
}
